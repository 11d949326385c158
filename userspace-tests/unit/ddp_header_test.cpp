// SPDX-License-Identifier: GPL-2.0
// DDP/RDMAP headers (RFC 5041 section 4, RFC 5040 sections 4 and 7) and
// the TERMINATE message (RFC 5040 section 4.8), against byte layouts
// written out from the RFCs' diagrams.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "ddp/header.h"
#include "ddp/term.h"

namespace {

using namespace xiw::ddp;
using Bytes = std::vector<uint8_t>;

Bytes enc(const Header& h) {
  Bytes out(64);
  auto n = encode(h, kstd::MutableBytes(out.data(), out.size()));
  EXPECT_TRUE(n.ok());
  out.resize(n.ok() ? n.value() : 0);
  return out;
}

Header dec(const Bytes& b, int want = 0, TermError* err = nullptr) {
  Header h;
  TermError e;
  EXPECT_EQ(decode(kstd::Bytes(b.data(), b.size()), &h, err ? err : &e), want);
  return h;
}

TEST(DdpHeader, TaggedRdmaWriteLayout) {
  Header h;
  h.opcode = Opcode::write;
  h.stag = 0x11223344;
  h.to = 0x0102030405060708ull;
  // T=1 L=1 DV=01 | RV=01 opcode 0 | STag | TO
  EXPECT_EQ(enc(h), (Bytes{0xc1, 0x40, 0x11, 0x22, 0x33, 0x44, 1, 2, 3, 4, 5, 6, 7, 8}));
  h.last = false;
  EXPECT_EQ(enc(h)[0], 0x81);
  const Header back = dec(enc(h));
  EXPECT_EQ(back.stag, h.stag);
  EXPECT_EQ(back.to, h.to);
  EXPECT_FALSE(back.last);
}

TEST(DdpHeader, UntaggedSendLayout) {
  Header h;
  h.opcode = Opcode::send;
  h.msn = 1;
  h.mo = 0x10000;
  // T=0 L=1 DV=01 | RV=01 opcode 3 | RsvdULP | QN 0 | MSN | MO
  EXPECT_EQ(enc(h), (Bytes{0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0}));
  const Header back = dec(enc(h));
  EXPECT_EQ(back.opcode, Opcode::send);
  EXPECT_EQ(back.msn, 1u);
  EXPECT_EQ(back.mo, 0x10000u);
}

TEST(DdpHeader, SendWithInvalidateCarriesTheStag) {
  for (Opcode op : {Opcode::send_inv, Opcode::send_se_inv}) {
    Header h;
    h.opcode = op;
    h.inval_stag = 0xdeadbeef;
    const Bytes b = enc(h);
    EXPECT_EQ(Bytes(b.begin() + 2, b.begin() + 6), (Bytes{0xde, 0xad, 0xbe, 0xef}));
    EXPECT_EQ(dec(b).inval_stag, 0xdeadbeefu);
  }
  // Plain SEND leaves the field reserved (zero) and ignores it on receipt.
  Header h;
  h.opcode = Opcode::send_se;
  h.inval_stag = 0xdeadbeef;
  Bytes b = enc(h);
  EXPECT_EQ(Bytes(b.begin() + 2, b.begin() + 6), (Bytes{0, 0, 0, 0}));
  b[2] = 0xff;
  EXPECT_EQ(dec(b).inval_stag, 0u);
}

TEST(DdpHeader, ReadRequestLayout) {
  Header h;
  h.opcode = Opcode::read_request;
  h.msn = 7;
  h.sink_stag = 0xa;
  h.sink_to = 0xb;
  h.read_size = 0xc;
  h.src_stag = 0xd;
  h.src_to = 0xe;
  const Bytes b = enc(h);
  ASSERT_EQ(b.size(), 46u);
  // QN 1 for RDMA Read Requests.
  EXPECT_EQ(Bytes(b.begin(), b.begin() + 18),
            (Bytes{0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 0}));
  EXPECT_EQ(Bytes(b.begin() + 18, b.end()), (Bytes{0, 0,   0, 0xa, 0, 0,   0, 0, 0, 0, 0, 0xb, 0, 0,
                                                   0, 0xc, 0, 0,   0, 0xd, 0, 0, 0, 0, 0, 0,   0, 0xe}));
  const Header back = dec(b);
  EXPECT_EQ(back.read_size, 0xcu);
  EXPECT_EQ(back.src_to, 0xeu);
}

TEST(DdpHeader, HeaderLengths) {
  EXPECT_EQ(header_length(Opcode::write), 14u);
  EXPECT_EQ(header_length(Opcode::read_response), 14u);
  EXPECT_EQ(header_length(Opcode::read_request), 46u);
  EXPECT_EQ(header_length(Opcode::send), 18u);
  EXPECT_EQ(header_length(Opcode::terminate), 18u);
}

TEST(DdpHeader, ZeroLengthRtrMessages) {
  // RFC 6581 section 9.2: the three RTR indications are ordinary messages
  // with no payload.
  Header s;
  s.opcode = Opcode::send;
  EXPECT_EQ(enc(s).size(), 18u);
  Header w;
  w.opcode = Opcode::write;
  EXPECT_EQ(enc(w).size(), 14u);
  Header r;
  r.opcode = Opcode::read_request;
  EXPECT_EQ(dec(enc(r)).read_size, 0u);
}

// ---- receive-side checks (RFC 5040 section 7, RFC 5041 section 7) ------------

TermError err_of(Bytes b) {
  TermError e;
  Header h;
  EXPECT_EQ(decode(kstd::Bytes(b.data(), b.size()), &h, &e), -EPROTO);
  return e;
}

Bytes send_bytes() {
  Header h;
  h.opcode = Opcode::send;
  return enc(h);
}

TEST(DdpHeader, UnknownDdpVersionIsABufferError) {
  Bytes b = send_bytes();
  b[0] = 0x42;  // DV 2, untagged
  TermError e = err_of(b);
  EXPECT_EQ(e.layer, kLayerDdp);
  EXPECT_EQ(e.etype, kDdpUntaggedBuffer);
  EXPECT_EQ(e.code, kDdpUntaggedInvalidVersion);
  Header w;
  w.opcode = Opcode::write;
  b = enc(w);
  b[0] = 0xc0;  // DV 0, tagged
  e = err_of(b);
  EXPECT_EQ(e.etype, kDdpTaggedBuffer);
  EXPECT_EQ(e.code, kDdpTaggedInvalidVersion);
}

TEST(DdpHeader, UnknownRdmapVersionIsARemoteOperationError) {
  Bytes b = send_bytes();
  b[1] = 0x83;  // RV 2
  const TermError e = err_of(b);
  EXPECT_EQ(e.layer, kLayerRdmap);
  EXPECT_EQ(e.etype, kRdmapRemoteOperation);
  EXPECT_EQ(e.code, kRdmapInvalidVersion);
}

TEST(DdpHeader, UnknownOrMismatchedOpcodeIsUnexpected) {
  Bytes b = send_bytes();
  b[1] = 0x48;  // opcode 8
  EXPECT_EQ(err_of(b).code, kRdmapUnexpectedOpcode);
  b = send_bytes();
  b[0] |= kFlagTagged;  // a tagged SEND
  EXPECT_EQ(err_of(b).code, kRdmapUnexpectedOpcode);
}

TEST(DdpHeader, WrongQueueIsInvalidQn) {
  Bytes b = send_bytes();
  b[9] = 1;
  const TermError e = err_of(b);
  EXPECT_EQ(e.layer, kLayerDdp);
  EXPECT_EQ(e.etype, kDdpUntaggedBuffer);
  EXPECT_EQ(e.code, kDdpUntaggedInvalidQn);
}

TEST(DdpHeader, ReadRequestMustBeOneSegment) {
  Header h;
  h.opcode = Opcode::read_request;
  Bytes b = enc(h);
  b[17] = 4;  // MO 4
  EXPECT_EQ(err_of(b).code, kDdpUntaggedInvalidMo);
  b = enc(h);
  b[0] &= static_cast<uint8_t>(~kFlagLast);
  EXPECT_EQ(err_of(b).code, kDdpUntaggedInvalidMo);
}

TEST(DdpHeader, TruncatedHeaderIsNotDecoded) {
  Bytes b = send_bytes();
  b.resize(17);
  Header h;
  TermError e;
  EXPECT_EQ(decode(kstd::Bytes(b.data(), b.size()), &h, &e), -EINVAL);
}

// ---- TERMINATE (RFC 5040 section 4.8) ------------------------------------------

TEST(DdpTerminate, MpaCrcErrorLayout) {
  Terminate t;
  t.error = {kLayerLlp, 0, 2};
  Bytes out(kTerminateMax);
  auto n = encode_terminate(t, 1, kstd::MutableBytes(out.data(), out.size()));
  ASSERT_TRUE(n.ok());
  out.resize(n.value());
  // Untagged header on QN 2 (MSN 1, MO 0), then Layer 2 | EType 0 | code 2.
  EXPECT_EQ(out, (Bytes{0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0x20, 0x02, 0x00, 0x00}));
}

TEST(DdpTerminate, WithTerminatedHeadersRoundTrips) {
  Header rr;
  rr.opcode = Opcode::read_request;
  rr.read_size = 99;
  const Bytes rrb = enc(rr);
  Terminate t;
  t.error = {kLayerRdmap, kRdmapRemoteProtection, kRdmapInvalidStag};
  t.m = t.d = t.r = true;
  t.segment_length = 46;
  t.ddp_header_len = 18;
  std::copy(rrb.begin(), rrb.begin() + 18, t.ddp_header);
  std::copy(rrb.begin() + 18, rrb.end(), t.read_request);
  Bytes out(kTerminateMax);
  auto n = encode_terminate(t, 3, kstd::MutableBytes(out.data(), out.size()));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.value(), kTerminateMax);
  // Control word: Layer 0, EType 1, code 0, M D R set.
  EXPECT_EQ(Bytes(out.begin() + 18, out.begin() + 24), (Bytes{0x01, 0x00, 0xe0, 0x00, 0, 46}));
  Terminate back;
  ASSERT_EQ(decode_terminate(kstd::Bytes(out.data() + 18, n.value() - 18), &back), 0);
  EXPECT_EQ(back.error.etype, kRdmapRemoteProtection);
  EXPECT_TRUE(back.m && back.d && back.r);
  EXPECT_EQ(back.segment_length, 46);
  EXPECT_EQ(back.ddp_header_len, 18);
  EXPECT_EQ(Bytes(back.read_request, back.read_request + 28), Bytes(rrb.begin() + 18, rrb.end()));
}

TEST(DdpTerminate, TaggedTerminatedHeaderIs14Octets) {
  Header w;
  w.opcode = Opcode::write;
  const Bytes wb = enc(w);
  Terminate t;
  t.error = {kLayerDdp, kDdpTaggedBuffer, kDdpTaggedBaseBounds};
  t.d = true;
  t.ddp_header_len = 14;
  std::copy(wb.begin(), wb.end(), t.ddp_header);
  Bytes out(kTerminateMax);
  auto n = encode_terminate(t, 1, kstd::MutableBytes(out.data(), out.size()));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.value(), 18u + 4 + 2 + 14);
  Terminate back;
  ASSERT_EQ(decode_terminate(kstd::Bytes(out.data() + 18, n.value() - 18), &back), 0);
  EXPECT_EQ(back.ddp_header_len, 14);
  EXPECT_EQ(back.segment_length, 0);  // M clear: not valid, sent as 0
}

TEST(DdpTerminate, TruncatedPayloadIsAProtocolError) {
  Terminate t;
  const Bytes hdr_only = {0x01, 0x00, 0x40, 0x00, 0x00};  // D set, length cut
  EXPECT_EQ(decode_terminate(kstd::Bytes(hdr_only.data(), hdr_only.size()), &t), -EPROTO);
  const Bytes tiny = {0x20, 0x02};
  EXPECT_EQ(decode_terminate(kstd::Bytes(tiny.data(), tiny.size()), &t), -EPROTO);
}

TEST(DdpTerminate, RefusesInconsistentInput) {
  Terminate t;
  t.d = true;
  t.ddp_header_len = 5;
  Bytes out(kTerminateMax);
  EXPECT_EQ(encode_terminate(t, 1, kstd::MutableBytes(out.data(), out.size())).error(), -EINVAL);
  t.ddp_header_len = 14;
  EXPECT_EQ(encode_terminate(t, 1, kstd::MutableBytes(out.data(), 10)).error(), -ENOSPC);
}

}  // namespace
