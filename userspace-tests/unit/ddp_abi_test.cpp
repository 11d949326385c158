// SPDX-License-Identifier: GPL-2.0
// include/xiw/ddp.h: the RTR indications of RFC 6581 section 9.2 as the
// connection manager builds and recognises them, and the MPA TERMINATE.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include <xiw/ddp.h>
#include <xiw/mpa.h>

namespace {

using Bytes = std::vector<uint8_t>;

Bytes rtr(uint8_t type) {
  Bytes b(XIW_DDP_MSG_MAX);
  const int n = xiw_ddp_encode_rtr(type, b.data(), b.size());
  EXPECT_GT(n, 0);
  b.resize(n > 0 ? n : 0);
  return b;
}

TEST(DdpAbi, EachRtrIsAZeroLengthMessage) {
  // SEND: untagged, QN 0, MSN 1; WRITE: tagged; READ: Read Request of size 0.
  EXPECT_EQ(rtr(XIW_MPA_CTRL_B), (Bytes{0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(rtr(XIW_MPA_CTRL_C), (Bytes{0xc1, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  const Bytes read = rtr(XIW_MPA_CTRL_D);
  ASSERT_EQ(read.size(), 46u);
  EXPECT_EQ(read[1], 0x41);
  EXPECT_EQ(read[9], 1);                                                        // QN 1
  EXPECT_EQ(Bytes(read.begin() + 30, read.begin() + 34), (Bytes{0, 0, 0, 0}));  // size 0
  Bytes b(8);
  EXPECT_EQ(xiw_ddp_encode_rtr(0x10, b.data(), b.size()), -EINVAL);
  EXPECT_EQ(xiw_ddp_encode_rtr(XIW_MPA_CTRL_B, b.data(), b.size()), -ENOSPC);
}

TEST(DdpAbi, ParseRecognisesEachRtr) {
  for (uint8_t type : {XIW_MPA_CTRL_B, XIW_MPA_CTRL_C, XIW_MPA_CTRL_D}) {
    const Bytes b = rtr(type);
    xiw_ddp_rtr out;
    ASSERT_EQ(xiw_ddp_parse_rtr(b.data(), b.size(), &out), 0);
    EXPECT_EQ(out.rtr, type);
  }
}

TEST(DdpAbi, MessagesWithPayloadAreNoRtr) {
  Bytes b = rtr(XIW_MPA_CTRL_B);
  b.push_back(7);  // a one-octet SEND
  xiw_ddp_rtr out;
  ASSERT_EQ(xiw_ddp_parse_rtr(b.data(), b.size(), &out), 0);
  EXPECT_EQ(out.rtr, 0);
  Bytes term(XIW_DDP_MSG_MAX);
  const int n = xiw_ddp_encode_mpa_term(XIW_MPA_ERR_RTR, 1, term.data(), term.size());
  ASSERT_EQ(n, 22);
  ASSERT_EQ(xiw_ddp_parse_rtr(term.data(), n, &out), 0);
  EXPECT_EQ(out.rtr, 0);
  // Layer 2, EType 0, code 7.
  EXPECT_EQ(Bytes(term.begin() + 18, term.begin() + 22), (Bytes{0x20, 0x07, 0, 0}));
}

TEST(DdpAbi, MalformedHeadersAreProtocolErrors) {
  Bytes b = rtr(XIW_MPA_CTRL_C);
  b[0] = 0xc2;  // DDP version 2
  xiw_ddp_rtr out;
  EXPECT_EQ(xiw_ddp_parse_rtr(b.data(), b.size(), &out), -EPROTO);
  EXPECT_EQ(xiw_ddp_parse_rtr(b.data(), 5, &out), -EPROTO);
}

TEST(DdpAbi, ReadRtrIsAnsweredAtItsSink) {
  Bytes b = rtr(XIW_MPA_CTRL_D);
  b[18 + 3] = 0x42;  // Sink STag 0x42
  b[22 + 7] = 0x10;  // Sink TO 0x10
  xiw_ddp_rtr out;
  ASSERT_EQ(xiw_ddp_parse_rtr(b.data(), b.size(), &out), 0);
  EXPECT_EQ(out.sink_stag, 0x42u);
  EXPECT_EQ(out.sink_to, 0x10u);
  Bytes resp(XIW_DDP_MSG_MAX);
  ASSERT_EQ(xiw_ddp_encode_rtr_response(&out, resp.data(), resp.size()), 14);
  // Tagged, last, Read Response (2) to STag 0x42, TO 0x10.
  EXPECT_EQ(Bytes(resp.begin(), resp.begin() + 14),
            (Bytes{0xc1, 0x42, 0, 0, 0, 0x42, 0, 0, 0, 0, 0, 0, 0, 0x10}));
}

}  // namespace

// The names of RFC 5040 section 7, RFC 5041 section 7 and RFC 5044/6581
// section 8, for the log lines of every TERMINATE.
TEST(DdpAbi, TerminateNamesAreTheRfcs) {
  EXPECT_STREQ(xiw_term_name(0, 1, 0x00), "RDMAP invalid STag");
  EXPECT_STREQ(xiw_term_name(0, 1, 0x02), "RDMAP access rights violation");
  EXPECT_STREQ(xiw_term_name(0, 2, 0x06), "RDMAP unexpected OpCode");
  EXPECT_STREQ(xiw_term_name(0, 2, 0x09), "RDMAP STag cannot be invalidated");
  EXPECT_STREQ(xiw_term_name(1, 1, 0x03), "DDP tagged: TO wrap");
  EXPECT_STREQ(xiw_term_name(1, 2, 0x01), "DDP untagged: invalid QN");
  EXPECT_STREQ(xiw_term_name(1, 2, 0x05), "DDP untagged: message too long for available buffer");
  EXPECT_STREQ(xiw_term_name(2, 0, XIW_MPA_ERR_CRC), "MPA: CRC error");
  EXPECT_STREQ(xiw_term_name(2, 0, XIW_MPA_ERR_RTR), "MPA: no matching RTR option");
  // Local catastrophic errors take any code.
  EXPECT_STREQ(xiw_term_name(0, 0, 0x42), "RDMAP local catastrophic error");
  EXPECT_STREQ(xiw_term_name(1, 0, 0xff), "DDP local catastrophic error");
}

TEST(DdpAbi, UndefinedTerminatesHaveAName) {
  EXPECT_STREQ(xiw_term_name(0, 1, 0x05), "unknown error");
  EXPECT_STREQ(xiw_term_name(1, 2, 0x00), "unknown error");
  EXPECT_STREQ(xiw_term_name(2, 0, 0), "unknown error");
  EXPECT_STREQ(xiw_term_name(2, 1, XIW_MPA_ERR_CRC), "unknown error");
  EXPECT_STREQ(xiw_term_name(3, 0, 0), "unknown error");
  EXPECT_STREQ(xiw_term_name(15, 15, 0xff), "unknown error");
}
