// SPDX-License-Identifier: GPL-2.0
// include/xiw/placer.h: where a received segment's payload goes (RFC 5040
// sections 5 to 7, RFC 5041 section 5), driven segment by segment through
// the placer's sink against the model queue pair of rx_model.h, which
// checks every target and octet independently of the placer.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../rx_model.h"

namespace {

constexpr uint32_t kRw = XIW_ACCESS_REMOTE_READ | XIW_ACCESS_REMOTE_WRITE;

class Placer : public ::testing::Test {
 protected:
  Placer() : mem_(xiw_placer_size()), p_(xiw_placer_init(mem_.data(), &xiw_qp::kOps, &q_)) {}
  void TearDown() override { EXPECT_EQ(q_.violation, nullptr) << q_.violation; }

  // One segment: its headers, its payload in one run, its CRC checked.
  int deliver(const xiw_seg& s, const std::string& payload) {
    const xiw_stream_sink* k = xiw_placer_sink();
    if (int rc = k->seg_begin(p_, &s)) return rc;
    if (!payload.empty())
      if (int rc = k->seg_data(p_, payload.data(), payload.size())) return rc;
    return k->seg_end(p_, &s);
  }
  static xiw_seg send(uint32_t mo, uint32_t len, bool last, uint8_t op = XIW_OP_SEND, uint32_t stag = 0) {
    xiw_seg s = {};
    s.opcode = op;
    s.msn = 1;
    s.mo = mo;
    s.len = len;
    s.last = last;
    s.stag = stag;
    return s;
  }
  static xiw_seg tagged(uint8_t op, uint32_t stag, uint64_t to, uint32_t len, bool last) {
    xiw_seg s = {};
    s.opcode = op;
    s.stag = stag;
    s.to = to;
    s.len = len;
    s.last = last;
    return s;
  }
  static xiw_seg rreq(uint32_t src_stag, uint64_t src_to, uint32_t size) {
    xiw_seg s = {};
    s.opcode = XIW_OP_READ_REQ;
    s.last = 1;
    s.sink_stag = 0x77;
    s.src_stag = src_stag;
    s.src_to = src_to;
    s.read_size = size;
    return s;
  }
  static std::string text(const std::vector<uint8_t>& m, size_t n) {
    return std::string(m.begin(), m.begin() + n);
  }

  xiw_qp q_;
  std::vector<uint8_t> mem_;
  xiw_placer* p_;
};

TEST_F(Placer, SendInSegmentsFillsOneReceive) {
  q_.post(64);
  EXPECT_EQ(deliver(send(0, 4, false), "abcd"), 0);
  EXPECT_EQ(q_.recvs.at(0).done, false);
  EXPECT_EQ(deliver(send(4, 3, true), "efg"), 0);
  ASSERT_TRUE(q_.recvs.at(0).done);
  EXPECT_EQ(q_.recvs[0].wc.byte_len, 7u);
  EXPECT_EQ(q_.recvs[0].wc.flags, 0u);
  EXPECT_EQ(text(q_.recvs[0].mem, 7), "abcdefg");
  EXPECT_EQ(q_.validated, 2u);
}

// The interleaving of the security issue's defect 1: a complete Read
// Response between two segments of a SEND. Each lands in its own place.
TEST_F(Placer, SendContinuationAfterAReadResponseStaysInItsReceive) {
  q_.post(64);
  q_.add_read(0x5678, 8);
  EXPECT_EQ(deliver(send(0, 4, false), "AAAA"), 0);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x5678, 0, 8, true), "RRRRRRRR"), 0);
  EXPECT_EQ(deliver(send(4, 4, true), "BBBB"), 0);
  EXPECT_EQ(text(q_.reads.at(0).mem, 8), "RRRRRRRR");
  EXPECT_TRUE(q_.reads[0].done);
  ASSERT_TRUE(q_.recvs.at(0).done);
  EXPECT_EQ(text(q_.recvs[0].mem, 8), "AAAABBBB");
}

TEST_F(Placer, SendWithNoReceivePostedFindsNoBuffer) {
  EXPECT_EQ(deliver(send(0, 4, true), "abcd"), XIW_RX_NO_BUFFER);
}

TEST_F(Placer, SendLongerThanItsReceiveIsTooLong) {
  q_.post(4);
  EXPECT_EQ(deliver(send(0, 5, true), "abcde"), XIW_RX_TOO_LONG);
  EXPECT_EQ(q_.recvs.at(0).placed, 0u);  // refused before the first octet
}

TEST_F(Placer, SendSegmentsBeyondTheReceiveAreTooLong) {
  q_.post(8);
  EXPECT_EQ(deliver(send(0, 4, false), "abcd"), 0);
  EXPECT_EQ(deliver(send(4, 5, true), "efghi"), XIW_RX_TOO_LONG);
}

// The stream receiver checks MO continuity; the placer does not rely on it.
TEST_F(Placer, SendContinuationNotWhereItsMessageLeftOffIsRefused) {
  q_.post(64);
  EXPECT_EQ(deliver(send(16, 4, true), "abcd"), XIW_RX_LOCAL);  // nothing open
  EXPECT_EQ(deliver(send(0, 4, false), "abcd"), 0);
  EXPECT_EQ(deliver(send(0xFFFFFFF0u, 0x20, true), std::string(0x20, 'x')), XIW_RX_LOCAL);
  EXPECT_EQ(deliver(send(8, 4, true), "abcd"), XIW_RX_LOCAL);  // a gap
}

// MO 0 while a SEND is open would take a second receive: never.
TEST_F(Placer, SecondMessageStartWhileOneIsOpenIsRefused) {
  q_.post(8);
  q_.post(8);
  EXPECT_EQ(deliver(send(0, 4, false), "abcd"), 0);
  EXPECT_EQ(deliver(send(0, 4, true), "efgh"), XIW_RX_LOCAL);
  EXPECT_EQ(q_.recvs.size(), 1u);
}

TEST_F(Placer, EmptySendCompletesAnEmptyReceive) {
  q_.post(0);
  EXPECT_EQ(deliver(send(0, 0, true), ""), 0);
  ASSERT_TRUE(q_.recvs.at(0).done);
  EXPECT_EQ(q_.recvs[0].wc.byte_len, 0u);
}

TEST_F(Placer, SolicitedEventIsReported) {
  q_.post(8);
  EXPECT_EQ(deliver(send(0, 2, true, XIW_OP_SEND_SE), "hi"), 0);
  EXPECT_EQ(q_.recvs.at(0).wc.flags, unsigned{XIW_RECV_SOLICITED});
}

// RFC 5040 section 6.2: the STag is invalidated once the last segment
// passed its CRC, not when its headers arrive.
TEST_F(Placer, SendWithInvalidateInvalidatesOnlyAfterTheCrc) {
  q_.post(8);
  q_.add_mr(0x300, kRw, 0, 64, 1, true);
  const xiw_seg s = send(0, 2, true, XIW_OP_SEND_SE_INV, 0x300);
  const xiw_stream_sink* k = xiw_placer_sink();
  ASSERT_EQ(k->seg_begin(p_, &s), 0);
  ASSERT_EQ(k->seg_data(p_, "hi", 2), 0);
  EXPECT_TRUE(q_.mr(0x300)->valid);
  ASSERT_EQ(k->seg_end(p_, &s), 0);
  EXPECT_FALSE(q_.mr(0x300)->valid);
  EXPECT_EQ(q_.recvs.at(0).wc.flags, unsigned{XIW_RECV_SOLICITED | XIW_RECV_INVALIDATED});
  EXPECT_EQ(q_.recvs[0].wc.inv_stag, 0x300u);
}

TEST_F(Placer, SendWithInvalidateOfAnStagThatCannotBeLeavesTheReceiveOpen) {
  q_.post(8);
  q_.add_mr(0x300, kRw, 0, 64);  // not a fast-register MR
  EXPECT_EQ(deliver(send(0, 2, true, XIW_OP_SEND_INV, 0x300), "hi"), XIW_RX_CANNOT_INVALIDATE);
  EXPECT_FALSE(q_.recvs.at(0).done);
  EXPECT_TRUE(q_.mr(0x300)->valid);
}

TEST_F(Placer, WriteGoesToItsStagAtItsTo) {
  q_.add_mr(0x1234, XIW_ACCESS_REMOTE_WRITE, 0x1000, 32);
  EXPECT_EQ(deliver(tagged(XIW_OP_WRITE, 0x1234, 0x1008, 4, false), "wxyz"), 0);
  EXPECT_EQ(deliver(tagged(XIW_OP_WRITE, 0x1234, 0x101C, 4, true), "1234"), 0);
  EXPECT_EQ(text(q_.mr(0x1234)->mem, 32).substr(8, 4), "wxyz");
  EXPECT_EQ(text(q_.mr(0x1234)->mem, 32).substr(28, 4), "1234");
}

TEST_F(Placer, WriteRefusedByTheMemoryRegistry) {
  q_.add_mr(0x1234, XIW_ACCESS_REMOTE_WRITE, 0, 32);
  q_.add_mr(0x2000, XIW_ACCESS_REMOTE_READ, 0, 32);
  q_.add_mr(0x3000, kRw, 0, 32, 2);
  EXPECT_EQ(deliver(tagged(XIW_OP_WRITE, 0x9999, 0, 4, true), "abcd"), XIW_RX_STAG_INVALID);
  EXPECT_EQ(deliver(tagged(XIW_OP_WRITE, 0x2000, 0, 4, true), "abcd"), XIW_RX_ACCESS);
  EXPECT_EQ(deliver(tagged(XIW_OP_WRITE, 0x3000, 0, 4, true), "abcd"), XIW_RX_NOT_IN_STREAM);
  EXPECT_EQ(deliver(tagged(XIW_OP_WRITE, 0x1234, 30, 4, true), "abcd"), XIW_RX_BOUNDS);
}

// Refused by the core itself, before the registry is asked.
TEST_F(Placer, WriteWhoseToAndLengthWrapIsAToWrap) {
  q_.add_mr(0x1234, XIW_ACCESS_REMOTE_WRITE, 0, 32);
  EXPECT_EQ(deliver(tagged(XIW_OP_WRITE, 0x1234, ~0ull - 1, 4, true), "abcd"), XIW_RX_TO_WRAP);
  EXPECT_EQ(q_.mr_checks, 0u);
}

TEST_F(Placer, ReadRequestsUpToTheIrd) {
  q_.add_mr(2, XIW_ACCESS_REMOTE_READ, 0, 64);
  q_.ird = 2;
  EXPECT_EQ(deliver(rreq(2, 0, 64), ""), 0);
  EXPECT_EQ(deliver(rreq(2, 0, 64), ""), 0);
  EXPECT_EQ(deliver(rreq(2, 0, 64), ""), XIW_RX_READ_QUEUE_FULL);
  q_.answered = 1;  // one response sent in full: room for one more
  EXPECT_EQ(deliver(rreq(2, 8, 8), ""), 0);
  EXPECT_EQ(q_.read_reqs.size(), 3u);
  EXPECT_EQ(q_.read_reqs[2].src_to, 8u);
  EXPECT_EQ(q_.read_reqs[2].sink_stag, 0x77u);
}

// The queue refuses what the placer's IRD rule admitted (an invariant
// broken below the core): the stream ends with that error, nothing is
// dropped in silence.
TEST_F(Placer, ReadRequestTheQueueRefusesEndsTheStream) {
  q_.add_mr(2, XIW_ACCESS_REMOTE_READ, 0, 64);
  q_.ird = 4;
  q_.refuse_read_reqs = true;
  EXPECT_EQ(deliver(rreq(2, 0, 8), ""), XIW_RX_READ_QUEUE_FULL);
  EXPECT_TRUE(q_.read_reqs.empty());
}

// IRD 0 (RFC 6581 section 9.1): not even one.
TEST_F(Placer, ReadRequestWithIrdZeroIsRefused) {
  q_.add_mr(2, XIW_ACCESS_REMOTE_READ, 0, 64);
  q_.ird = 0;
  EXPECT_EQ(deliver(rreq(2, 0, 1), ""), XIW_RX_READ_QUEUE_FULL);
}

TEST_F(Placer, ReadRequestSourceIsCheckedForRemoteRead) {
  q_.add_mr(2, XIW_ACCESS_REMOTE_READ, 0, 64);
  q_.add_mr(3, XIW_ACCESS_REMOTE_WRITE, 0, 64);
  EXPECT_EQ(deliver(rreq(3, 0, 8), ""), XIW_RX_ACCESS);
  EXPECT_EQ(deliver(rreq(9, 0, 8), ""), XIW_RX_STAG_INVALID);
  EXPECT_EQ(deliver(rreq(2, 60, 8), ""), XIW_RX_BOUNDS);
  EXPECT_EQ(q_.mr_checks, 3u);
  EXPECT_EQ(deliver(rreq(2, ~0ull - 3, 8), ""), XIW_RX_TO_WRAP);
  EXPECT_EQ(q_.mr_checks, 3u);  // a wrap is the core's to refuse
  EXPECT_TRUE(q_.read_reqs.empty());
}

TEST_F(Placer, ReadResponseWithNoReadOutstandingIsUnexpected) {
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 0, 4, true), "abcd"), XIW_RX_UNEXPECTED);
}

TEST_F(Placer, ReadResponsesFillTheReadsInOrder) {
  q_.add_read(0x100, 8);
  q_.add_read(0x200, 0);
  q_.add_read(0x300, 4);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 0, 3, false), "abc"), 0);
  EXPECT_FALSE(q_.reads[0].done);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 3, 5, true), "defgh"), 0);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x200, 0, 0, true), ""), 0);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x300, 0, 4, true), "wxyz"), 0);
  EXPECT_EQ(q_.reads_done, 3u);
  EXPECT_EQ(text(q_.reads[0].mem, 8), "abcdefgh");
  EXPECT_EQ(text(q_.reads[2].mem, 4), "wxyz");
}

TEST_F(Placer, ReadResponseToAnotherStagIsInvalid) {
  q_.add_read(0x100, 8);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x101, 0, 8, true), "abcdefgh"), XIW_RX_STAG_INVALID);
}

TEST_F(Placer, ReadResponseGapOverlapExcessOrShortIsOutOfBounds) {
  q_.add_read(0x100, 64);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 0, 16, false), std::string(16, 'a')), 0);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 32, 16, false), std::string(16, 'b')), XIW_RX_BOUNDS);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 0, 16, false), std::string(16, 'b')), XIW_RX_BOUNDS);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 16, 49, true), std::string(49, 'b')), XIW_RX_BOUNDS);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 16, 32, true), std::string(32, 'b')), XIW_RX_BOUNDS);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 16 + (1ull << 32), 16, false), std::string(16, 'b')),
            XIW_RX_BOUNDS);
  EXPECT_FALSE(q_.reads[0].done);
  EXPECT_EQ(q_.reads[0].got, 16u);
}

// A new stream (a new placer) does not continue an earlier one's response.
TEST_F(Placer, NewStreamStartsTheResponseAfresh) {
  q_.add_read(0x100, 8);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 0, 4, false), "abcd"), 0);
  p_ = xiw_placer_init(mem_.data(), &xiw_qp::kOps, &q_);
  q_.reads[0].got = 0;
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 4, 4, true), "efgh"), XIW_RX_BOUNDS);
  EXPECT_EQ(deliver(tagged(XIW_OP_READ_RESP, 0x100, 0, 8, true), "abcdefgh"), 0);
}

TEST_F(Placer, NothingTakesEffectAfterThePeersTerminate) {
  q_.post(8);
  q_.add_mr(0x1234, XIW_ACCESS_REMOTE_WRITE, 0, 32);
  const xiw_term_cause c = {0, 1, 0, 1};
  xiw_placer_sink()->terminate(p_, &c);
  EXPECT_TRUE(q_.terminated);
  EXPECT_EQ(deliver(send(0, 4, true), "abcd"), XIW_RX_LOCAL);
  EXPECT_EQ(deliver(tagged(XIW_OP_WRITE, 0x1234, 0, 4, true), "abcd"), XIW_RX_LOCAL);
  EXPECT_TRUE(q_.recvs.empty());
}

TEST_F(Placer, OnlyTheFirstTerminateTakesEffect) {
  const xiw_term_cause c = {0, 1, 0, 1};
  xiw_placer_sink()->terminate(p_, &c);
  xiw_placer_sink()->terminate(p_, &c);  // the model flags a second one
  EXPECT_TRUE(q_.terminated);
}

// The placer's own guards: no more octets than the segment said, none for
// a segment without payload, nothing where the glue lost the target.
TEST_F(Placer, PayloadBeyondWhatTheTargetTookIsRefused) {
  q_.add_mr(0x1234, XIW_ACCESS_REMOTE_WRITE, 0, 32);
  q_.add_mr(2, XIW_ACCESS_REMOTE_READ, 0, 64);
  const xiw_stream_sink* k = xiw_placer_sink();
  const xiw_seg w = tagged(XIW_OP_WRITE, 0x1234, 0, 4, true);
  ASSERT_EQ(k->seg_begin(p_, &w), 0);
  EXPECT_EQ(k->seg_data(p_, "abcde", 5), XIW_RX_LOCAL);
  const xiw_seg r = rreq(2, 0, 8);
  ASSERT_EQ(k->seg_begin(p_, &r), 0);
  EXPECT_EQ(k->seg_data(p_, "a", 1), XIW_RX_LOCAL);
  xiw_seg r4 = rreq(2, 0, 8);
  r4.len = 4;  // payload announced for a segment that takes none
  EXPECT_EQ(k->seg_begin(p_, &r4), XIW_RX_LOCAL);
}

TEST_F(Placer, SegmentEndedBeforeItsPayloadIsRefused) {
  q_.add_mr(0x1234, XIW_ACCESS_REMOTE_WRITE, 0, 32);
  const xiw_stream_sink* k = xiw_placer_sink();
  const xiw_seg w = tagged(XIW_OP_WRITE, 0x1234, 0, 4, true);
  ASSERT_EQ(k->seg_begin(p_, &w), 0);
  ASSERT_EQ(k->seg_data(p_, "ab", 2), 0);
  EXPECT_EQ(k->seg_end(p_, &w), XIW_RX_LOCAL);
}

TEST_F(Placer, TargetTheGlueLostIsRefused) {
  q_.post(8);
  q_.refuse_every = 1;
  EXPECT_EQ(deliver(send(0, 4, true), "abcd"), XIW_RX_LOCAL);
}

TEST_F(Placer, UnknownOpcodeIsUnexpected) {
  xiw_seg s = send(0, 0, true);
  s.opcode = XIW_OP_TERMINATE;
  EXPECT_EQ(deliver(s, ""), XIW_RX_UNEXPECTED);
}

}  // namespace
