// SPDX-License-Identifier: GPL-2.0
// MPA startup frames (RFC 5044 section 7.1) and the RFC 6581 enhanced
// connection establishment data, tested through the C ABI the glue uses
// and against byte layouts written out from the RFCs.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include <xiw/mpa.h>

namespace {

using Bytes = std::vector<uint8_t>;

// RFC 5044 section 7.1 / RFC 6581 section 6, byte for byte.
const Bytes kReqKey = {0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
                       0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65};
const Bytes kRepKey = {0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
                       0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65};

Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

xiw_mpa_frame frame(uint8_t type, uint8_t flags, uint8_t rev, uint16_t pd_len = 0) {
  xiw_mpa_frame f{};
  f.type = type;
  f.flags = flags;
  f.rev = rev;
  f.pd_len = pd_len;
  return f;
}

xiw_mpa_frame enhanced(uint8_t type, uint8_t flags, uint8_t ctrl, uint16_t ird, uint16_t ord,
                       uint16_t pd_len = 0) {
  xiw_mpa_frame f = frame(type, flags | XIW_MPA_FLAG_S, 2, pd_len);
  f.ctrl = ctrl;
  f.ird = ird;
  f.ord = ord;
  return f;
}

int encode(const xiw_mpa_frame& f, const Bytes& pd, Bytes* out) {
  out->assign(XIW_MPA_FRAME_MAX + 16, 0xee);
  const int n = xiw_mpa_encode(&f, pd.empty() ? nullptr : pd.data(), out->data(), out->size());
  if (n >= 0) out->resize(static_cast<size_t>(n));
  return n;
}

int decode(const Bytes& in, uint8_t expect, xiw_mpa_frame* f) {
  return xiw_mpa_decode(in.data(), in.size(), expect, f);
}

// ---- Keys and the fixed header -------------------------------------------

TEST(MpaStartup, KeysAreTheRfcStrings) {
  EXPECT_EQ(std::string(kReqKey.begin(), kReqKey.end()), "MPA ID Req Frame");
  EXPECT_EQ(std::string(kRepKey.begin(), kRepKey.end()), "MPA ID Rep Frame");
}

TEST(MpaStartup, EncodeRev1RequestWithPrivateData) {
  Bytes wire;
  const Bytes pd = {'a', 'b', 'c'};
  ASSERT_EQ(encode(frame(XIW_MPA_REQUEST, XIW_MPA_FLAG_C, 1, 3), pd, &wire), 23);
  EXPECT_EQ(wire, cat({kReqKey, {0x40, 0x01, 0x00, 0x03}, pd}));
}

TEST(MpaStartup, EncodeRev1ReplyAllFlags) {
  Bytes wire;
  ASSERT_EQ(encode(frame(XIW_MPA_REPLY, XIW_MPA_FLAG_M | XIW_MPA_FLAG_C | XIW_MPA_FLAG_R, 1), {}, &wire), 20);
  EXPECT_EQ(wire, cat({kRepKey, {0xe0, 0x01, 0x00, 0x00}}));
}

TEST(MpaStartup, EncodeLargestPrivateData) {
  Bytes wire;
  const Bytes pd(512, 0x5a);
  ASSERT_EQ(encode(frame(XIW_MPA_REQUEST, 0, 1, 512), pd, &wire), 532);
  EXPECT_EQ(wire, cat({kReqKey, {0x00, 0x01, 0x02, 0x00}, pd}));
}

TEST(MpaStartup, DecodeRev1Request) {
  const Bytes pd = {9, 8, 7, 6, 5};
  const Bytes wire = cat({kReqKey, {0x80, 0x01, 0x00, 0x05}, pd});
  xiw_mpa_frame f;
  ASSERT_EQ(xiw_mpa_frame_len(wire.data(), XIW_MPA_REQUEST), 25);
  ASSERT_EQ(decode(wire, XIW_MPA_REQUEST, &f), 0);
  EXPECT_EQ(f.type, XIW_MPA_REQUEST);
  EXPECT_EQ(f.flags, XIW_MPA_FLAG_M);
  EXPECT_EQ(f.rev, 1);
  EXPECT_EQ(f.pd_len, 5);
  EXPECT_EQ(f.pd_off, 20);
  EXPECT_EQ(Bytes(wire.begin() + f.pd_off, wire.begin() + f.pd_off + f.pd_len), pd);
}

TEST(MpaStartup, DecodeRejectedReply) {
  const Bytes wire = cat({kRepKey, {0x20, 0x01, 0x00, 0x02}, {0xab, 0xcd}});
  xiw_mpa_frame f;
  ASSERT_EQ(decode(wire, XIW_MPA_REPLY, &f), 0);
  EXPECT_EQ(f.flags, XIW_MPA_FLAG_R);
  EXPECT_EQ(f.pd_len, 2);
}

// ---- Receive-side validation (RFC 5044 section 7.1) ----------------------

TEST(MpaStartup, ReservedBitsAreNotChecked) {
  // Res = 0xF in a Rev 2 frame (S clear): accepted, and only its first
  // bit, upstream siw's GSO offer (G), is reported.
  const Bytes wire = cat({kRepKey, {0x4f, 0x02, 0x00, 0x00}});
  xiw_mpa_frame f;
  ASSERT_EQ(decode(wire, XIW_MPA_REPLY, &f), 0);
  EXPECT_EQ(f.flags, XIW_MPA_FLAG_C | XIW_MPA_FLAG_G);
  const Bytes rest = cat({kRepKey, {0x47, 0x02, 0x00, 0x00}});
  ASSERT_EQ(decode(rest, XIW_MPA_REPLY, &f), 0);
  EXPECT_EQ(f.flags, XIW_MPA_FLAG_C);
}

TEST(MpaStartup, GsoBitIsTheFirstResBit) {
  // As upstream siw's MPA_RR_FLAG_GSO_EXP: 0x0800 of octets 16-17.
  EXPECT_EQ(XIW_MPA_FLAG_G, 0x08);
  const Bytes wire = cat({kReqKey, {0x08, 0x01, 0x00, 0x00}});
  xiw_mpa_frame f;
  ASSERT_EQ(decode(wire, XIW_MPA_REQUEST, &f), 0);
  EXPECT_EQ(f.flags, XIW_MPA_FLAG_G);
}

TEST(MpaStartup, RBitIsNotCheckedInRequest) {
  const Bytes wire = cat({kReqKey, {0x20, 0x01, 0x00, 0x00}});
  xiw_mpa_frame f;
  ASSERT_EQ(decode(wire, XIW_MPA_REQUEST, &f), 0);
  EXPECT_EQ(f.flags, 0);
}

TEST(MpaStartup, SBitIsReservedInRev1) {
  // In Rev 1 the S position is part of Res: ignored, no enhanced data.
  const Bytes wire = cat({kReqKey, {0x10, 0x01, 0x00, 0x02}, {0xff, 0xff}});
  xiw_mpa_frame f;
  ASSERT_EQ(decode(wire, XIW_MPA_REQUEST, &f), 0);
  EXPECT_EQ(f.flags, 0);
  EXPECT_EQ(f.pd_len, 2);
  EXPECT_EQ(f.pd_off, 20);
  EXPECT_EQ(f.ird, 0);
}

TEST(MpaStartup, UnknownKeyIsImproperlyFormatted) {
  Bytes wire = cat({kReqKey, {0x00, 0x01, 0x00, 0x00}});
  for (size_t i = 0; i < XIW_MPA_KEY_LEN; i++) {
    Bytes bad = wire;
    bad[i] ^= 0x80;  // (^0x01 on byte 9 would give the Reply key)
    xiw_mpa_frame f;
    EXPECT_EQ(decode(bad, XIW_MPA_REQUEST, &f), -EBADMSG) << "key byte " << i;
    EXPECT_EQ(xiw_mpa_frame_len(bad.data(), XIW_MPA_REQUEST), -EBADMSG);
  }
}

TEST(MpaStartup, KeyOfTheOtherTypeIsReported) {
  xiw_mpa_frame f;
  // An initiator receiving a Request: initiator/initiator.
  const Bytes req = cat({kReqKey, {0x00, 0x01, 0x00, 0x00}});
  EXPECT_EQ(decode(req, XIW_MPA_REPLY, &f), -EPROTO);
  EXPECT_EQ(xiw_mpa_frame_len(req.data(), XIW_MPA_REPLY), -EPROTO);
  // A responder receiving a Reply.
  const Bytes rep = cat({kRepKey, {0x00, 0x01, 0x00, 0x00}});
  EXPECT_EQ(decode(rep, XIW_MPA_REQUEST, &f), -EPROTO);
}

TEST(MpaStartup, RevisionsOtherThanOneAndTwoAreRefused) {
  for (int rev : {0, 3, 0x7f, 0xff}) {
    const Bytes wire = cat({kReqKey, {0x00, static_cast<uint8_t>(rev), 0x00, 0x00}});
    xiw_mpa_frame f;
    EXPECT_EQ(decode(wire, XIW_MPA_REQUEST, &f), -EPROTONOSUPPORT) << "rev " << rev;
    EXPECT_EQ(xiw_mpa_frame_len(wire.data(), XIW_MPA_REQUEST), -EPROTONOSUPPORT);
  }
}

TEST(MpaStartup, PdLengthAbove512IsImproperlyFormatted) {
  for (uint16_t len : {513, 0x8000, 0xffff}) {
    const Bytes hdr = cat({kReqKey, {0x00, 0x01, static_cast<uint8_t>(len >> 8), static_cast<uint8_t>(len)}});
    EXPECT_EQ(xiw_mpa_frame_len(hdr.data(), XIW_MPA_REQUEST), -EBADMSG) << len;
  }
  const Bytes hdr512 = cat({kReqKey, {0x00, 0x01, 0x02, 0x00}});
  EXPECT_EQ(xiw_mpa_frame_len(hdr512.data(), XIW_MPA_REQUEST), 532);
}

TEST(MpaStartup, PdLengthMustMatchTheData) {
  const Bytes hdr = cat({kRepKey, {0x00, 0x01, 0x00, 0x04}});
  xiw_mpa_frame f;
  EXPECT_EQ(decode(cat({hdr, {1, 2, 3}}), XIW_MPA_REPLY, &f), -EBADMSG);
  EXPECT_EQ(decode(cat({hdr, {1, 2, 3, 4, 5}}), XIW_MPA_REPLY, &f), -EBADMSG);
  EXPECT_EQ(decode(cat({hdr, {1, 2, 3, 4}}), XIW_MPA_REPLY, &f), 0);
}

TEST(MpaStartup, TruncatedHeaderIsRejected) {
  const Bytes wire = cat({kReqKey, {0x00, 0x01, 0x00}});
  xiw_mpa_frame f;
  EXPECT_EQ(decode(wire, XIW_MPA_REQUEST, &f), -EINVAL);
  EXPECT_EQ(decode(Bytes(), XIW_MPA_REQUEST, &f), -EINVAL);
}

// ---- Send-side rules -----------------------------------------------------

TEST(MpaStartup, EncodeRefusesForbiddenFrames) {
  Bytes wire;
  EXPECT_EQ(encode(frame(XIW_MPA_REQUEST, 0, 0), {}, &wire), -EINVAL);  // Rev 0
  EXPECT_EQ(encode(frame(XIW_MPA_REQUEST, 0, 3), {}, &wire), -EINVAL);  // Rev 3
  EXPECT_EQ(encode(frame(XIW_MPA_REQUEST, XIW_MPA_FLAG_R, 1), {}, &wire), -EINVAL);
  EXPECT_EQ(encode(frame(XIW_MPA_REQUEST, XIW_MPA_FLAG_S, 1), {}, &wire), -EINVAL);  // S needs Rev 2
  EXPECT_EQ(encode(frame(XIW_MPA_REQUEST, 0x01, 1), {}, &wire), -EINVAL);            // a Res bit
  EXPECT_EQ(encode(frame(0, 0, 1), {}, &wire), -EINVAL);
  EXPECT_EQ(encode(frame(3, 0, 1), {}, &wire), -EINVAL);
  EXPECT_EQ(encode(frame(XIW_MPA_REQUEST, 0, 1, 513), Bytes(513), &wire), -EINVAL);
}

TEST(MpaStartup, EncodeNeedsRoom) {
  const xiw_mpa_frame f = frame(XIW_MPA_REPLY, 0, 1, 4);
  const Bytes pd = {1, 2, 3, 4};
  uint8_t buf[24];
  EXPECT_EQ(xiw_mpa_encode(&f, pd.data(), buf, 23), -ENOSPC);
  EXPECT_EQ(xiw_mpa_encode(&f, pd.data(), buf, 24), 24);
  EXPECT_EQ(xiw_mpa_encode(&f, nullptr, buf, 24), -EINVAL);
}

TEST(MpaStartup, EncodeRev2WithoutSIsUnenhanced) {
  Bytes wire;
  ASSERT_EQ(encode(frame(XIW_MPA_REQUEST, XIW_MPA_FLAG_C, 2), {}, &wire), 20);
  EXPECT_EQ(wire, cat({kReqKey, {0x40, 0x02, 0x00, 0x00}}));
}

// ---- RFC 6581 section 9: A|B|IRD|C|D|ORD ---------------------------------

struct EnhancedVector {
  uint8_t ctrl;
  uint16_t ird, ord;
  Bytes wire;
};

class MpaEnhancedData : public ::testing::TestWithParam<EnhancedVector> {};

TEST_P(MpaEnhancedData, EncodesInNetworkOrder) {
  const EnhancedVector& v = GetParam();
  Bytes wire;
  ASSERT_EQ(encode(enhanced(XIW_MPA_REQUEST, 0, v.ctrl, v.ird, v.ord), {}, &wire), 24);
  EXPECT_EQ(wire, cat({kReqKey, {0x10, 0x02, 0x00, 0x04}, v.wire}));
}

TEST_P(MpaEnhancedData, DecodesFromNetworkOrder) {
  const EnhancedVector& v = GetParam();
  const Bytes wire = cat({kRepKey, {0x10, 0x02, 0x00, 0x04}, v.wire});
  xiw_mpa_frame f;
  ASSERT_EQ(decode(wire, XIW_MPA_REPLY, &f), 0);
  EXPECT_EQ(f.flags, XIW_MPA_FLAG_S);
  EXPECT_EQ(f.ctrl, v.ctrl);
  EXPECT_EQ(f.ird, v.ird);
  EXPECT_EQ(f.ord, v.ord);
  EXPECT_EQ(f.pd_len, 0);  // the prefix is not ULP data
  EXPECT_EQ(f.pd_off, 24);
}

constexpr uint8_t A = XIW_MPA_CTRL_A, B = XIW_MPA_CTRL_B, C = XIW_MPA_CTRL_C, D = XIW_MPA_CTRL_D;

INSTANTIATE_TEST_SUITE_P(Rfc6581, MpaEnhancedData,
                         ::testing::Values(EnhancedVector{0, 0, 0, {0x00, 0x00, 0x00, 0x00}},
                                           EnhancedVector{0, 0x0102, 0x0304, {0x01, 0x02, 0x03, 0x04}},
                                           EnhancedVector{A, 16, 8, {0x80, 0x10, 0x00, 0x08}},
                                           EnhancedVector{A | B, 1, 1, {0xc0, 0x01, 0x00, 0x01}},
                                           EnhancedVector{A | C, 1, 1, {0x80, 0x01, 0x80, 0x01}},
                                           EnhancedVector{A | D, 1, 0x123, {0x80, 0x01, 0x41, 0x23}},
                                           EnhancedVector{
                                               A | B | C | D, 0x3fff, 0x3fff, {0xff, 0xff, 0xff, 0xff}},
                                           EnhancedVector{0, 0x3fff, 0x3fff, {0x3f, 0xff, 0x3f, 0xff}}));

TEST(MpaEnhanced, ControlFlagsWithoutAAreIgnoredOnReceipt) {
  // B, C, D set but A clear: section 9.2 says ignore them.
  const Bytes wire = cat({kReqKey, {0x10, 0x02, 0x00, 0x04}, {0x40, 0x05, 0xc0, 0x06}});
  xiw_mpa_frame f;
  ASSERT_EQ(decode(wire, XIW_MPA_REQUEST, &f), 0);
  EXPECT_EQ(f.ctrl, 0);
  EXPECT_EQ(f.ird, 5);
  EXPECT_EQ(f.ord, 6);
}

TEST(MpaEnhanced, EncodeRefusesInvalidData) {
  Bytes wire;
  EXPECT_EQ(encode(enhanced(XIW_MPA_REQUEST, 0, 0, 0x4000, 0), {}, &wire), -EINVAL);
  EXPECT_EQ(encode(enhanced(XIW_MPA_REQUEST, 0, 0, 0, 0x4000), {}, &wire), -EINVAL);
  EXPECT_EQ(encode(enhanced(XIW_MPA_REQUEST, 0, B, 1, 1), {}, &wire), -EINVAL);  // B without A
  EXPECT_EQ(encode(enhanced(XIW_MPA_REQUEST, 0, C | D, 1, 1), {}, &wire), -EINVAL);
  EXPECT_EQ(encode(enhanced(XIW_MPA_REQUEST, 0, 0x10, 1, 1), {}, &wire), -EINVAL);  // unknown ctrl bit
}

TEST(MpaEnhanced, PrefixCountsTowardsThe512Limit) {
  Bytes wire;
  const Bytes pd508(508, 0x11);
  ASSERT_EQ(encode(enhanced(XIW_MPA_REQUEST, 0, A | C, 4, 4, 508), pd508, &wire), 532);
  EXPECT_EQ(wire[18], 0x02);  // PD_Length = 512, prefix included
  EXPECT_EQ(wire[19], 0x00);
  const Bytes pd509(509, 0x11);
  EXPECT_EQ(encode(enhanced(XIW_MPA_REQUEST, 0, A | C, 4, 4, 509), pd509, &wire), -EINVAL);
}

TEST(MpaEnhanced, UlpPrivateDataFollowsThePrefix) {
  Bytes wire;
  const Bytes pd = {'u', 'l', 'p'};
  ASSERT_EQ(encode(enhanced(XIW_MPA_REPLY, XIW_MPA_FLAG_C, A | D, 7, 9, 3), pd, &wire), 27);
  EXPECT_EQ(wire, cat({kRepKey, {0x50, 0x02, 0x00, 0x07}, {0x80, 0x07, 0x40, 0x09}, pd}));
  xiw_mpa_frame f;
  ASSERT_EQ(decode(wire, XIW_MPA_REPLY, &f), 0);
  EXPECT_EQ(f.pd_off, 24);
  EXPECT_EQ(f.pd_len, 3);
  EXPECT_EQ(Bytes(wire.begin() + 24, wire.end()), pd);
}

TEST(MpaEnhanced, SWithoutRoomForThePrefixIsImproperlyFormatted) {
  for (uint8_t len = 0; len < 4; len++) {
    const Bytes wire = cat({kReqKey, {0x10, 0x02, 0x00, len}, Bytes(len, 0)});
    xiw_mpa_frame f;
    EXPECT_EQ(decode(wire, XIW_MPA_REQUEST, &f), -EBADMSG) << int{len};
  }
}

TEST(MpaEnhanced, RoundTripsEveryFlagCombination) {
  for (uint8_t type : {XIW_MPA_REQUEST, XIW_MPA_REPLY}) {
    for (uint8_t flags = 0; flags < 8; flags++) {
      for (uint8_t ctrl : {0, int{A}, A | B, A | C, A | D, A | B | C | D}) {
        const uint8_t mcr = static_cast<uint8_t>(flags << 5);
        if (type == XIW_MPA_REQUEST && (mcr & XIW_MPA_FLAG_R)) continue;
        const xiw_mpa_frame sent = enhanced(type, mcr, ctrl, 0x2a5, 0x15a, 2);
        Bytes wire;
        ASSERT_EQ(encode(sent, {0xa5, 0x5a}, &wire), 26);
        xiw_mpa_frame got;
        ASSERT_EQ(decode(wire, type, &got), 0);
        EXPECT_EQ(got.flags, sent.flags);
        EXPECT_EQ(got.ctrl, ctrl);
        EXPECT_EQ(got.ird, 0x2a5);
        EXPECT_EQ(got.ord, 0x15a);
        EXPECT_EQ(got.pd_len, 2);
      }
    }
  }
}

}  // namespace
