// SPDX-License-Identifier: GPL-2.0
// include/xiw/stream.h, xiw_place_*: where a received segment's payload may
// go (RFC 5040 sections 5 and 6, RFC 5041 section 5).
#include <gtest/gtest.h>

#include <cstdint>

#include <xiw/stream.h>

namespace {

// A SEND segment at MO `mo` of `len` octets into a receive of `recv` octets.
int send(uint32_t mo, uint32_t len, uint32_t recv) {
  xiw_seg s = {};
  s.opcode = XIW_OP_SEND;
  s.mo = mo;
  s.len = len;
  return xiw_place_send(&s, recv);
}

// A Read Response segment for the READ `r` (nullptr: none outstanding).
int resp(uint32_t stag, uint64_t to, uint32_t len, bool last, const xiw_read_sink* r) {
  xiw_seg s = {};
  s.opcode = XIW_OP_READ_RESP;
  s.stag = stag;
  s.to = to;
  s.len = len;
  s.last = last;
  return xiw_place_read_resp(&s, r);
}

TEST(RdmapPlace, SendFitsItsReceive) {
  EXPECT_EQ(send(0, 64, 64), 0);
  EXPECT_EQ(send(32, 32, 64), 0);
  EXPECT_EQ(send(64, 0, 64), 0);  // an empty last segment
  EXPECT_EQ(send(0, 0, 0), 0);    // an empty SEND, a 0-octet receive
}

TEST(RdmapPlace, SendBeyondItsReceiveIsTooLong) {
  EXPECT_EQ(send(0, 65, 64), XIW_RX_TOO_LONG);
  EXPECT_EQ(send(60, 5, 64), XIW_RX_TOO_LONG);
  EXPECT_EQ(send(0, 1, 0), XIW_RX_TOO_LONG);
  // MO + length does not wrap around 32 bits into the buffer.
  EXPECT_EQ(send(0xFFFFFFF0u, 0x20, 64), XIW_RX_TOO_LONG);
}

TEST(RdmapPlace, ReadRequestsUpToTheIrd) {
  EXPECT_EQ(xiw_place_read_req(0, 1), 0);
  EXPECT_EQ(xiw_place_read_req(3, 4), 0);
  EXPECT_EQ(xiw_place_read_req(4, 4), XIW_RX_READ_QUEUE_FULL);
  EXPECT_EQ(xiw_place_read_req(5, 4), XIW_RX_READ_QUEUE_FULL);
  // IRD 0 (RFC 6581 section 9.1): not even one.
  EXPECT_EQ(xiw_place_read_req(0, 0), XIW_RX_READ_QUEUE_FULL);
}

TEST(RdmapPlace, ReadResponseWithNoReadOutstandingIsUnexpected) {
  EXPECT_EQ(resp(0x100, 0, 64, true, nullptr), XIW_RX_UNEXPECTED);
}

TEST(RdmapPlace, ReadResponseInSegmentsFillsTheRead) {
  xiw_read_sink r = {0x100, 64, 0, 0};
  EXPECT_EQ(resp(0x100, 0, 64, true, &r), 0);
  EXPECT_EQ(resp(0x100, 0, 16, false, &r), 0);
  r.got = 16;
  EXPECT_EQ(resp(0x100, 16, 48, true, &r), 0);
  r.got = 64;
  EXPECT_EQ(resp(0x100, 64, 0, true, &r), 0);  // empty, last
  xiw_read_sink empty = {0x100, 0, 0, 0};
  EXPECT_EQ(resp(0x100, 0, 0, true, &empty), 0);
}

TEST(RdmapPlace, ReadResponseToAnotherStagIsInvalid) {
  const xiw_read_sink r = {0x100, 64, 0, 0};
  EXPECT_EQ(resp(0x101, 0, 64, true, &r), XIW_RX_STAG_INVALID);
}

TEST(RdmapPlace, ReadResponseGapOverlapOrExcessIsOutOfBounds) {
  xiw_read_sink r = {0x100, 64, 16, 0};
  EXPECT_EQ(resp(0x100, 32, 16, false, &r), XIW_RX_BOUNDS);  // a gap
  EXPECT_EQ(resp(0x100, 0, 16, false, &r), XIW_RX_BOUNDS);   // an overlap
  EXPECT_EQ(resp(0x100, 16, 49, true, &r), XIW_RX_BOUNDS);   // too long
  EXPECT_EQ(resp(0x100, 16, 32, true, &r), XIW_RX_BOUNDS);   // last, short
  // A TO past 32 bits never matches what was placed.
  EXPECT_EQ(resp(0x100, 16 + (1ull << 32), 16, false, &r), XIW_RX_BOUNDS);
  // State the glue could never hold (more placed than asked) refuses too.
  r.got = 65;
  EXPECT_EQ(resp(0x100, 65, 0, true, &r), XIW_RX_BOUNDS);
}

}  // namespace
