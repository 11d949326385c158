// SPDX-License-Identifier: GPL-2.0
// MPA Full Operation framing (RFC 5044 sections 4 to 6). The transmit side
// is checked byte for byte against a reference framer written directly
// from the RFC text below; the receive side against streams from that
// reference, cut at every possible place.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <random>
#include <vector>

#include "../host_env.h"
#include "mpa/fpdu.h"

namespace {

using Bytes = std::vector<uint8_t>;
using xiw::mpa::FpduRx;
using xiw::mpa::FpduTx;
using xiw::mpa::MpaError;

uint32_t crc32c(const Bytes& b) {
  xiw_u32 state = ~0u;
  xiw_test::host_crc32c_update(nullptr, &state, b.data(), b.size());
  return ~state;
}

Bytes pattern(size_t n, uint8_t seed) {
  Bytes b(n);
  for (size_t i = 0; i < n; i++) b[i] = static_cast<uint8_t>(seed + i * 7);
  return b;
}

// Reference framer, straight from RFC 5044: FPDU = ULPDU_Length, ULPDU,
// PAD to a multiple of 4, CRC32c over all of it (Markers inside included),
// least significant octet first as iSCSI sends it. With Markers, one sits
// at every multiple of 512 of the stream; FPDUPTR is the distance back to
// the ULPDU_Length field, or 0 for a Marker just before an FPDU.
Bytes reference_stream(const std::vector<Bytes>& ulpdus, bool markers, bool crc) {
  Bytes out;
  for (const Bytes& u : ulpdus) {
    Bytes body = {static_cast<uint8_t>(u.size() >> 8), static_cast<uint8_t>(u.size())};
    body.insert(body.end(), u.begin(), u.end());
    while (body.size() % 4) body.push_back(0);
    Bytes covered;
    size_t length_pos = 0;
    auto marker = [&](uint16_t ptr) {
      const Bytes m = {0, 0, static_cast<uint8_t>(ptr >> 8), static_cast<uint8_t>(ptr)};
      out.insert(out.end(), m.begin(), m.end());
      covered.insert(covered.end(), m.begin(), m.end());
    };
    for (size_t i = 0; i < body.size(); i++) {
      if (markers && out.size() % 512 == 0)
        marker(i == 0 ? 0 : static_cast<uint16_t>(out.size() - length_pos));
      if (i == 0) length_pos = out.size();
      out.push_back(body[i]);
      covered.push_back(body[i]);
    }
    if (markers && out.size() % 512 == 0) marker(static_cast<uint16_t>(out.size() - length_pos));
    const uint32_t c = crc ? crc32c(covered) : 0;
    for (int i = 0; i < 4; i++) out.push_back(static_cast<uint8_t>(c >> (8 * i)));
  }
  return out;
}

// Frames through FpduTx the way the glue does: header, runs, Markers,
// trailer, each appended as a separate piece.
Bytes tx_stream(FpduTx& tx, const std::vector<Bytes>& ulpdus) {
  Bytes out;
  for (const Bytes& u : ulpdus) {
    uint8_t hdr[FpduTx::kMaxPrefix];
    auto n = tx.begin(u.size(), hdr);
    EXPECT_TRUE(n.ok());
    out.insert(out.end(), hdr, hdr + n.value());
    size_t done = 0;
    while (done < u.size()) {
      if (tx.room() == 0) {
        uint8_t m[xiw::mpa::kMarkerLen];
        tx.marker(m);
        out.insert(out.end(), m, m + sizeof(m));
        continue;
      }
      const size_t run = std::min(tx.room(), u.size() - done);
      EXPECT_EQ(tx.payload(kstd::Bytes(u.data() + done, run)), 0);
      out.insert(out.end(), u.begin() + done, u.begin() + done + run);
      done += run;
    }
    uint8_t trailer[FpduTx::kMaxTrailer];
    n = tx.end(trailer);
    EXPECT_TRUE(n.ok());
    out.insert(out.end(), trailer, trailer + n.value());
  }
  return out;
}

struct Collect {
  std::vector<Bytes> done;
  Bytes cur;
  int begins = 0;
  int ulpdu_begin(uint16_t len) {
    begins++;
    cur.clear();
    cur.reserve(len);
    return 0;
  }
  int ulpdu_data(kstd::Bytes run) {
    cur.insert(cur.end(), run.begin(), run.end());
    return 0;
  }
  int ulpdu_end() {
    done.push_back(cur);
    return 0;
  }
};

std::vector<Bytes> mixed_ulpdus() {
  std::vector<Bytes> u;
  for (size_t len : {0, 1, 2, 3, 4, 5, 14, 28, 505, 506, 507, 508, 509, 510, 1020, 1448, 4096, 9000, 64768})
    u.push_back(pattern(len, static_cast<uint8_t>(len)));
  return u;
}

// ---- RFC 5044 section 4.1: the FPDU --------------------------------------

TEST(MpaFpdu, PadMakesAMultipleOfFour) {
  for (size_t len = 0; len < 64; len++) {
    EXPECT_EQ((2 + len + xiw::mpa::pad_length(len)) % 4, 0u) << len;
    EXPECT_LT(xiw::mpa::pad_length(len), 4u);
  }
}

TEST(MpaFpdu, ByteLayoutWithoutMarkers) {
  FpduTx tx(xiw_test::host_env());
  tx.start(false, true);
  const Bytes ulpdu = {'a', 'b', 'c'};
  Bytes out(64);
  auto n = tx.encode(kstd::Bytes(ulpdu.data(), ulpdu.size()), kstd::MutableBytes(out.data(), out.size()));
  ASSERT_TRUE(n.ok());
  out.resize(n.value());
  // 00 03 'a' 'b' 'c' PAD(3) then the CRC of those 8 octets.
  const Bytes covered = {0x00, 0x03, 'a', 'b', 'c', 0, 0, 0};
  Bytes want = covered;
  const uint32_t c = crc32c(covered);
  for (int i = 0; i < 4; i++) want.push_back(static_cast<uint8_t>(c >> (8 * i)));
  EXPECT_EQ(out, want);
}

TEST(MpaFpdu, CrcOffSendsZeroCrcField) {
  FpduTx tx(xiw_test::host_env());
  tx.start(false, false);
  Bytes out(16);
  const Bytes ulpdu = {1, 2};
  auto n = tx.encode(kstd::Bytes(ulpdu.data(), 2), kstd::MutableBytes(out.data(), out.size()));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.value(), 8u);
  EXPECT_EQ(Bytes(out.begin(), out.begin() + 8), (Bytes{0, 2, 1, 2, 0, 0, 0, 0}));
}

TEST(MpaFpdu, RefusesUlpduAbove64768) {
  FpduTx tx(xiw_test::host_env());
  tx.start(false, true);
  uint8_t hdr[FpduTx::kMaxPrefix];
  EXPECT_EQ(tx.begin(64769, hdr).error(), -EMSGSIZE);
  EXPECT_TRUE(tx.begin(64768, hdr).ok());
}

TEST(MpaFpdu, EndBeforeAllPayloadIsAnError) {
  FpduTx tx(xiw_test::host_env());
  tx.start(false, true);
  uint8_t hdr[FpduTx::kMaxPrefix];
  ASSERT_TRUE(tx.begin(10, hdr).ok());
  uint8_t trailer[FpduTx::kMaxTrailer];
  EXPECT_EQ(tx.end(trailer).error(), -EINVAL);
  EXPECT_EQ(tx.begin(1, hdr).error(), -EINVAL);  // one FPDU at a time
}

TEST(MpaFpdu, StreamMatchesReferenceWithoutMarkers) {
  for (bool crc : {false, true}) {
    FpduTx tx(xiw_test::host_env());
    tx.start(false, crc);
    const auto u = mixed_ulpdus();
    EXPECT_EQ(tx_stream(tx, u), reference_stream(u, false, crc)) << crc;
  }
}

// ---- RFC 5044 sections 4.2, 4.3: Markers ----------------------------------

TEST(MpaFpdu, StreamMatchesReferenceWithMarkers) {
  for (bool crc : {false, true}) {
    FpduTx tx(xiw_test::host_env());
    tx.start(true, crc);
    const auto u = mixed_ulpdus();
    const Bytes got = tx_stream(tx, u);
    EXPECT_EQ(got, reference_stream(u, true, crc)) << crc;
    EXPECT_EQ(tx.position(), got.size());
  }
}

TEST(MpaFpdu, FirstMarkerOpensFullOperation) {
  FpduTx tx(xiw_test::host_env());
  tx.start(true, true);
  Bytes out(64);
  const Bytes ulpdu = {9, 9};
  auto n = tx.encode(kstd::Bytes(ulpdu.data(), 2), kstd::MutableBytes(out.data(), out.size()));
  ASSERT_TRUE(n.ok());
  // The Marker at octet 0, FPDUPTR 0, then the FPDU; CRC covers the Marker.
  EXPECT_EQ(Bytes(out.begin(), out.begin() + 8), (Bytes{0, 0, 0, 0, 0, 2, 9, 9}));
  EXPECT_EQ(n.value(), 12u);
  const uint32_t c = crc32c(Bytes(out.begin(), out.begin() + 8));
  EXPECT_EQ(out[8] | out[9] << 8 | out[10] << 16 | static_cast<uint32_t>(out[11]) << 24, c);
}

TEST(MpaFpdu, MarkersInOneFpduAllPointAtItsLengthField) {
  FpduTx tx(xiw_test::host_env());
  tx.start(true, true);
  const Bytes big = pattern(3000, 1);
  const Bytes got = tx_stream(tx, {pattern(10, 0), big});
  // The second FPDU's ULPDU_Length sits at 4 + 16 = 20.
  const size_t length_pos = 20;
  int seen = 0;
  for (size_t m = 512; m < got.size(); m += 512) {
    const uint16_t ptr = static_cast<uint16_t>(got[m + 2] << 8 | got[m + 3]);
    EXPECT_EQ(got[m], 0);
    EXPECT_EQ(got[m + 1], 0);
    EXPECT_EQ(ptr, m - length_pos) << m;
    seen++;
  }
  EXPECT_EQ(seen, 5);
}

TEST(MpaFpdu, MarkerExactlyBetweenFpdusHasPointerZero) {
  // Marker 4 + FPDU of 508 octets (ULPDU 502) ends exactly at 512.
  FpduTx tx(xiw_test::host_env());
  tx.start(true, true);
  const Bytes got = tx_stream(tx, {pattern(502, 3), pattern(6, 4)});
  ASSERT_GE(got.size(), 520u);
  EXPECT_EQ(Bytes(got.begin() + 512, got.begin() + 516), (Bytes{0, 0, 0, 0}));
  // And the Marker is inside the second FPDU's CRC.
  const Bytes second(got.begin() + 512, got.begin() + 512 + 4 + 2 + 6 + 0);
  const uint32_t c = crc32c(second);
  const size_t at = 512 + 12;
  EXPECT_EQ(got[at] | got[at + 1] << 8 | got[at + 2] << 16 | static_cast<uint32_t>(got[at + 3]) << 24, c);
}

TEST(MpaFpdu, MarkerJustBeforeCrc) {
  // Marker 4 + header 2 + ULPDU 506 + PAD 0 = 512: the next Marker falls
  // between PAD and CRC and points back 508 octets.
  FpduTx tx(xiw_test::host_env());
  tx.start(true, true);
  const Bytes got = tx_stream(tx, {pattern(506, 5)});
  ASSERT_EQ(got.size(), 4u + 2 + 506 + 0 + 4 + 4);
  EXPECT_EQ(Bytes(got.begin() + 512, got.begin() + 516), (Bytes{0, 0, 0x01, 0xfc}));
  EXPECT_EQ(got, reference_stream({pattern(506, 5)}, true, true));
}

TEST(MpaFpdu, WireLengthCountsMarkers) {
  for (bool markers : {false, true}) {
    FpduTx tx(xiw_test::host_env());
    tx.start(markers, true);
    for (const Bytes& u : mixed_ulpdus()) {
      const size_t predicted = xiw::mpa::fpdu_wire_length(u.size(), tx.position(), markers);
      const uint32_t before = tx.position();
      tx_stream(tx, {u});
      EXPECT_EQ(tx.position() - before, predicted) << u.size() << " at " << before;
    }
  }
}

// ---- RFC 5044 section 4.5: MULPDU -----------------------------------------

TEST(MpaFpdu, MulpduFormulaWithoutMarkers) {
  EXPECT_EQ(xiw::mpa::mulpdu(1448, false), 1448 - (6 + 0));
  EXPECT_EQ(xiw::mpa::mulpdu(1460, false), 1460 - (6 + 0));
  EXPECT_EQ(xiw::mpa::mulpdu(1461, false), 1461 - (6 + 1));
  EXPECT_EQ(xiw::mpa::mulpdu(8948, false), 8948 - 6);
}

TEST(MpaFpdu, MulpduFormulaWithMarkers) {
  // EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4)
  EXPECT_EQ(xiw::mpa::mulpdu(1448, true), 1448 - (6 + 4 * 3 + 0));
  EXPECT_EQ(xiw::mpa::mulpdu(1024, true), 1024 - (6 + 4 * 2 + 0));
  EXPECT_EQ(xiw::mpa::mulpdu(1025, true), 1025 - (6 + 4 * 3 + 1));
}

TEST(MpaFpdu, MulpduClampedTo128And64768) {
  EXPECT_EQ(xiw::mpa::mulpdu(100, false), 128);
  EXPECT_EQ(xiw::mpa::mulpdu(0, true), 128);
  EXPECT_EQ(xiw::mpa::mulpdu(134, false), 128);
  EXPECT_EQ(xiw::mpa::mulpdu(65495, false), 64768);
  EXPECT_EQ(xiw::mpa::mulpdu(0xffffffffu, true), 64768);
}

TEST(MpaFpdu, MulpduFpduFitsTheSegment) {
  // The FPDU for a MULPDU-sized ULPDU never exceeds EMSS, Markers included.
  for (uint32_t emss = 200; emss < 9000; emss += 13) {
    for (bool markers : {false, true}) {
      const uint16_t m = xiw::mpa::mulpdu(emss, markers);
      for (uint32_t pos = 0; pos < 512; pos += 4)
        EXPECT_LE(xiw::mpa::fpdu_wire_length(m, pos, markers), emss) << emss << " " << markers << " " << pos;
    }
  }
}

// ---- RFC 5044 sections 4.3, 6: the receiver -------------------------------

class MpaFpduRx : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(MpaFpduRx, DeliversEveryUlpduIntactUnderAnyChunking) {
  const auto [markers, crc] = GetParam();
  const auto u = mixed_ulpdus();
  const Bytes stream = reference_stream(u, markers, crc);
  std::mt19937 rng(42);
  for (int round = 0; round < 40; round++) {
    FpduRx rx(xiw_test::host_env());
    rx.start(markers, crc);
    Collect sink;
    size_t at = 0;
    while (at < stream.size()) {
      size_t n = round == 0 ? 1 : 1 + rng() % (round < 20 ? 17 : 3000);
      n = std::min(n, stream.size() - at);
      ASSERT_EQ(rx.consume(kstd::Bytes(stream.data() + at, n), sink), 0);
      at += n;
    }
    ASSERT_EQ(sink.done, u);
    EXPECT_TRUE(rx.at_boundary());
    EXPECT_EQ(rx.position(), stream.size());
  }
}

TEST_P(MpaFpduRx, EveryTwoWayCutOfTheStream) {
  const auto [markers, crc] = GetParam();
  const std::vector<Bytes> u = {pattern(505, 1), pattern(0, 0), pattern(1030, 2), pattern(7, 3)};
  const Bytes stream = reference_stream(u, markers, crc);
  for (size_t cut = 0; cut <= stream.size(); cut++) {
    FpduRx rx(xiw_test::host_env());
    rx.start(markers, crc);
    Collect sink;
    ASSERT_EQ(rx.consume(kstd::Bytes(stream.data(), cut), sink), 0);
    ASSERT_EQ(rx.consume(kstd::Bytes(stream.data() + cut, stream.size() - cut), sink), 0);
    ASSERT_EQ(sink.done, u) << cut;
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, MpaFpduRx, ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "Markers" : "NoMarkers") +
                                  (std::get<1>(info.param) ? "Crc" : "NoCrc");
                         });

TEST(MpaFpduRxErrors, CrcMismatchIsMpaCode2) {
  const std::vector<Bytes> u = {pattern(100, 1), pattern(100, 2)};
  Bytes stream = reference_stream(u, false, true);
  stream[50] ^= 0x10;  // in the first ULPDU
  FpduRx rx(xiw_test::host_env());
  rx.start(false, true);
  Collect sink;
  EXPECT_EQ(rx.consume(kstd::Bytes(stream.data(), stream.size()), sink), -EBADMSG);
  EXPECT_EQ(rx.error(), MpaError::crc);
  EXPECT_TRUE(sink.done.empty());  // never delivered
  // The stream stays failed.
  EXPECT_EQ(rx.consume(kstd::Bytes(stream.data(), 4), sink), -EBADMSG);
}

TEST(MpaFpduRxErrors, CorruptCrcFieldIsMpaCode2) {
  Bytes stream = reference_stream({pattern(8, 1)}, false, true);
  stream.back() ^= 1;
  FpduRx rx(xiw_test::host_env());
  rx.start(false, true);
  Collect sink;
  EXPECT_EQ(rx.consume(kstd::Bytes(stream.data(), stream.size()), sink), -EBADMSG);
  EXPECT_EQ(rx.error(), MpaError::crc);
}

TEST(MpaFpduRxErrors, CrcOffIgnoresTheCrcField) {
  Bytes stream = reference_stream({pattern(8, 1)}, false, false);
  stream.back() = 0x5a;
  FpduRx rx(xiw_test::host_env());
  rx.start(false, false);
  Collect sink;
  EXPECT_EQ(rx.consume(kstd::Bytes(stream.data(), stream.size()), sink), 0);
  EXPECT_EQ(sink.done.size(), 1u);
}

// A stream without CRCs in which one Marker's FPDUPTR is wrong.
Bytes with_bad_marker(const std::vector<Bytes>& u, size_t marker_at) {
  Bytes s = reference_stream(u, true, false);
  s[marker_at + 3] ^= 0x10;
  return s;
}

TEST(MpaFpduRxErrors, MarkerDisagreementIsMpaCode3WhenCrcOff) {
  const std::vector<Bytes> u = {pattern(1500, 1)};
  const Bytes s = with_bad_marker(u, 512);
  FpduRx rx(xiw_test::host_env());
  rx.start(true, false);
  Collect sink;
  EXPECT_EQ(rx.consume(kstd::Bytes(s.data(), s.size()), sink), -EPROTO);
  EXPECT_EQ(rx.error(), MpaError::marker);
  EXPECT_TRUE(sink.done.empty());
}

TEST(MpaFpduRxErrors, MarkerDisagreementWithValidCrcIsMpaCode3) {
  // Build the stream with a wrong FPDUPTR and a CRC computed over it.
  const Bytes ulpdu = pattern(600, 9);
  Bytes s = reference_stream({ulpdu}, true, true);
  const size_t m = 512;
  s[m + 3] ^= 0x10;
  Bytes covered(s.begin(), s.end() - 4);
  const uint32_t c = crc32c(covered);
  for (int i = 0; i < 4; i++) s[s.size() - 4 + i] = static_cast<uint8_t>(c >> (8 * i));
  FpduRx rx(xiw_test::host_env());
  rx.start(true, true);
  Collect sink;
  EXPECT_EQ(rx.consume(kstd::Bytes(s.data(), s.size()), sink), -EPROTO);
  EXPECT_EQ(rx.error(), MpaError::marker);
}

TEST(MpaFpduRxErrors, MarkerDisagreementWithBadCrcIsCrcError) {
  Bytes s = reference_stream({pattern(600, 9)}, true, true);
  s[512 + 3] ^= 0x10;  // the Marker is CRC-covered: the CRC fails first
  FpduRx rx(xiw_test::host_env());
  rx.start(true, true);
  Collect sink;
  EXPECT_EQ(rx.consume(kstd::Bytes(s.data(), s.size()), sink), -EBADMSG);
  EXPECT_EQ(rx.error(), MpaError::crc);
}

TEST(MpaFpduRxErrors, LowBitsOfFpduptrAreIgnored) {
  Bytes s = reference_stream({pattern(600, 9)}, true, false);
  s[512 + 3] |= 3;
  FpduRx rx(xiw_test::host_env());
  rx.start(true, false);
  Collect sink;
  EXPECT_EQ(rx.consume(kstd::Bytes(s.data(), s.size()), sink), 0);
  EXPECT_EQ(sink.done.size(), 1u);
}

TEST(MpaFpduRxErrors, LeadingMarkerMustBeZero) {
  Bytes s = reference_stream({pattern(6, 9)}, true, false);
  s[3] = 4;
  FpduRx rx(xiw_test::host_env());
  rx.start(true, false);
  Collect sink;
  EXPECT_EQ(rx.consume(kstd::Bytes(s.data(), s.size()), sink), -EPROTO);
}

TEST(MpaFpduRxErrors, SinkErrorStopsTheStream) {
  struct Refuse : Collect {
    int ulpdu_begin(uint16_t) { return -EMSGSIZE; }
  } sink;
  const Bytes s = reference_stream({pattern(6, 9)}, false, true);
  FpduRx rx(xiw_test::host_env());
  rx.start(false, true);
  EXPECT_EQ(rx.consume(kstd::Bytes(s.data(), s.size()), sink), -EMSGSIZE);
  EXPECT_EQ(rx.error(), MpaError::none);
  EXPECT_EQ(rx.consume(kstd::Bytes(s.data(), 1), sink), -EMSGSIZE);
}

}  // namespace
