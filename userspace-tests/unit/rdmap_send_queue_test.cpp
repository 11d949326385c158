// SPDX-License-Identifier: GPL-2.0
// include/xiw/send_queue.h: the send queue's life cycle call by call, and
// a queue under every schedule a seeded generator gives it (sq_model.h
// checks completions independently of the core).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "../sq_model.h"

namespace {

class SendQueue : public ::testing::Test {
 protected:
  SendQueue() : slots_(4) {
    xiw_sq_init(&q_, slots_.data(), 4);
    xiw_tx_order_init(&o_);
  }
  uint32_t post(uint32_t flags = 0) {
    uint32_t idx = 0;
    EXPECT_EQ(xiw_sq_reserve(&q_, &idx), 0);
    xiw_sq_post(&q_, flags);
    return idx;
  }
  // Starts the next work request as a message; its index.
  uint32_t start(uint32_t ord = 4) {
    uint32_t idx = ~0u;
    EXPECT_EQ(xiw_sq_next(&q_, &o_, ord, &idx), XIW_SQ_START);
    xiw_sq_start(&q_, &o_, idx);
    return idx;
  }
  bool complete(xiw_sq_cqe* c) { return xiw_sq_complete(&q_, c); }

  std::vector<xiw_sq_slot> slots_;
  xiw_sq q_{};
  xiw_tx_order o_{};
};

TEST_F(SendQueue, FullWhenEverySlotIsTaken) {
  for (uint32_t i = 0; i < 4; i++) EXPECT_EQ(post(), i);
  uint32_t idx = 0;
  EXPECT_EQ(xiw_sq_reserve(&q_, &idx), -XIW_ENOMEM);
  start();
  xiw_sq_cqe c{};
  ASSERT_EQ(xiw_sq_sent(&q_, 0, 0), 0);
  ASSERT_TRUE(complete(&c));
  EXPECT_EQ(xiw_sq_reserve(&q_, &idx), 0);
  EXPECT_EQ(idx, 4u);
}

TEST_F(SendQueue, CompletesOnlyWhatIsDoneInPostingOrder) {
  post();
  post();
  const uint32_t a = start(), b = start();
  xiw_sq_cqe c{};
  EXPECT_FALSE(complete(&c));  // out, not sent
  ASSERT_EQ(xiw_sq_sent(&q_, b, 0), 0);
  EXPECT_FALSE(complete(&c));  // the second is done, the first is not
  ASSERT_EQ(xiw_sq_sent(&q_, a, 0), 0);
  ASSERT_TRUE(complete(&c));
  EXPECT_EQ(c.idx, a);
  ASSERT_TRUE(complete(&c));
  EXPECT_EQ(c.idx, b);
  EXPECT_EQ(c.status, 0);
  EXPECT_EQ(c.flushed, 0);
  EXPECT_FALSE(complete(&c));
}

TEST_F(SendQueue, ZeroCopyMessageIsDoneWhenTcpLetsGo) {
  post();
  const uint32_t a = start();
  ASSERT_EQ(xiw_sq_sent(&q_, a, 1), 0);
  xiw_sq_cqe c{};
  EXPECT_FALSE(complete(&c));
  xiw_sq_zc_released(&q_, a, 1);  // in ERROR: the flush completes it
  EXPECT_FALSE(complete(&c));
  xiw_sq_zc_released(&q_, a, 0);
  ASSERT_TRUE(complete(&c));
  EXPECT_EQ(c.idx, a);
}

TEST_F(SendQueue, LateZeroCopyReleaseCompletesNothingElse) {
  post();
  const uint32_t a = start();
  ASSERT_EQ(xiw_sq_sent(&q_, a, 1), 0);
  xiw_sq_cqe c{};
  ASSERT_TRUE(xiw_sq_flush(&q_, &c));
  EXPECT_EQ(c.flushed, 1);
  EXPECT_FALSE(xiw_sq_flush(&q_, &c));
  // New work over the same slots: index a + 4 is a's slot again.
  for (uint32_t i = 0; i < 4; i++) post();
  for (uint32_t i = 0; i < 4; i++) ASSERT_EQ(xiw_sq_sent(&q_, start(), 1), 0);
  xiw_sq_zc_released(&q_, a, 0);  // the flushed message's late release
  EXPECT_FALSE(complete(&c));
  for (uint32_t i = a + 1; i < a + 4; i++) xiw_sq_zc_released(&q_, i, 0);
  for (uint32_t i = a + 1; i < a + 4; i++) {
    ASSERT_TRUE(complete(&c));
    EXPECT_EQ(c.idx, i);
  }
  EXPECT_FALSE(complete(&c));  // a + 4 still waits for its own release
  xiw_sq_zc_released(&q_, a + 4, 0);
  ASSERT_TRUE(complete(&c));
  EXPECT_EQ(c.idx, a + 4);
}

TEST_F(SendQueue, SentIsRefusedForWhatIsNotOut) {
  post();
  EXPECT_EQ(xiw_sq_sent(&q_, 0, 0), -XIW_EINVAL);  // not started
  const uint32_t a = start();
  EXPECT_EQ(xiw_sq_sent(&q_, a, 0), 0);
  EXPECT_EQ(xiw_sq_sent(&q_, a, 0), -XIW_EINVAL);  // twice
  EXPECT_EQ(xiw_sq_sent(&q_, a + 1, 0), -XIW_EINVAL);
}

TEST_F(SendQueue, ReadIsDoneByItsResponseNotBySending) {
  const uint32_t r = post(XIW_WR_READ);
  ASSERT_EQ(start(), r);
  EXPECT_EQ(o_.reads_out, 1u);
  ASSERT_EQ(xiw_sq_sent(&q_, r, 0), 0);
  xiw_sq_cqe c{};
  EXPECT_FALSE(complete(&c));
  uint32_t idx = ~0u;
  ASSERT_EQ(xiw_sq_read_oldest(&q_, &idx), 0);
  EXPECT_EQ(idx, r);
  ASSERT_EQ(xiw_sq_read_done(&q_, &o_, &idx), 0);
  EXPECT_EQ(idx, r);
  EXPECT_EQ(o_.reads_out, 0u);
  ASSERT_TRUE(complete(&c));
  EXPECT_EQ(xiw_sq_read_done(&q_, &o_, &idx), XIW_RX_UNEXPECTED);  // none out
  EXPECT_EQ(xiw_sq_read_oldest(&q_, &idx), XIW_RX_UNEXPECTED);
}

TEST_F(SendQueue, ResponsesCompleteTheOldestReadFirst) {
  const uint32_t r1 = post(XIW_WR_READ);
  post();
  const uint32_t r2 = post(XIW_WR_READ);
  start();
  start();
  start();
  uint32_t idx = ~0u;
  ASSERT_EQ(xiw_sq_read_done(&q_, &o_, &idx), 0);
  EXPECT_EQ(idx, r1);
  ASSERT_EQ(xiw_sq_read_done(&q_, &o_, &idx), 0);
  EXPECT_EQ(idx, r2);
}

TEST_F(SendQueue, FenceAndOrdHoldTheNextBack) {
  post(XIW_WR_READ);
  post(XIW_WR_FENCE);
  start(1);
  uint32_t idx = ~0u;
  EXPECT_EQ(xiw_sq_next(&q_, &o_, 1, &idx), XIW_SQ_NONE);
  ASSERT_EQ(xiw_sq_read_done(&q_, &o_, &idx), 0);
  EXPECT_EQ(xiw_sq_next(&q_, &o_, 1, &idx), XIW_SQ_START);
}

TEST_F(SendQueue, LocalWorkIsPassedAndAFailureStopsTheQueue) {
  post();  // a REG_MR that succeeds
  post();  // a LOCAL_INV that fails
  post();  // a SEND behind it
  uint32_t idx = ~0u;
  ASSERT_EQ(xiw_sq_next(&q_, &o_, 4, &idx), XIW_SQ_START);
  xiw_sq_done(&q_, idx, 0);
  ASSERT_EQ(xiw_sq_next(&q_, &o_, 4, &idx), XIW_SQ_START);
  EXPECT_EQ(idx, 1u);
  xiw_sq_done(&q_, idx, 4);
  EXPECT_EQ(xiw_sq_next(&q_, &o_, 4, &idx), XIW_SQ_FAILED);
  xiw_sq_cqe c{};
  ASSERT_TRUE(complete(&c));
  EXPECT_EQ(c.status, 0);
  ASSERT_TRUE(complete(&c));
  EXPECT_EQ(c.idx, 1u);
  EXPECT_EQ(c.status, 4);
  EXPECT_FALSE(complete(&c));  // the SEND waits for the flush
  ASSERT_TRUE(xiw_sq_flush(&q_, &c));
  EXPECT_EQ(c.idx, 2u);
  EXPECT_EQ(c.flushed, 1);
}

TEST_F(SendQueue, BadUserWqeCompletesWithItsErrorWhenReached) {
  post();
  uint32_t idx = 0;
  ASSERT_EQ(xiw_sq_reserve(&q_, &idx), 0);
  xiw_sq_post_done(&q_, 9);
  xiw_sq_cqe c{};
  EXPECT_FALSE(complete(&c));  // not reached yet
  ASSERT_EQ(xiw_sq_sent(&q_, start(), 0), 0);
  EXPECT_EQ(xiw_sq_next(&q_, &o_, 4, &idx), XIW_SQ_FAILED);
  ASSERT_TRUE(complete(&c));
  ASSERT_TRUE(complete(&c));
  EXPECT_EQ(c.idx, 1u);
  EXPECT_EQ(c.status, 9);
  EXPECT_EQ(c.flushed, 0);
}

TEST_F(SendQueue, FlushKeepsTheStatusOfWhatIsDone) {
  post();
  post();
  post();
  const uint32_t a = start();
  start();
  ASSERT_EQ(xiw_sq_sent(&q_, a + 1, 0), 0);  // the second is done
  xiw_sq_cqe c{};
  std::vector<int> flushed;
  while (xiw_sq_flush(&q_, &c)) flushed.push_back(c.flushed);
  EXPECT_EQ(flushed, (std::vector<int>{1, 0, 1}));
  uint32_t idx = 0;
  EXPECT_EQ(xiw_sq_next(&q_, &o_, 4, &idx), XIW_SQ_NONE);  // nothing left
}

TEST_F(SendQueue, IndicesWrapAt32Bits) {
  q_.head = q_.tx = q_.tail = 0xFFFFFFFEu;
  post();
  post();
  post();
  const uint32_t a = start(), b = start(), d = start();
  EXPECT_EQ(b, 0xFFFFFFFFu);
  EXPECT_EQ(d, 0u);
  for (uint32_t i : {a, b, d}) ASSERT_EQ(xiw_sq_sent(&q_, i, 0), 0);
  xiw_sq_cqe c{};
  for (uint32_t i : {a, b, d}) {
    ASSERT_TRUE(complete(&c));
    EXPECT_EQ(c.idx, i);
  }
}

const char* simulate(uint32_t seed) {
  std::mt19937 rng(seed);
  SqSim sim(rng() % 4, rng() % 4, rng() % 2 ? 0 : 0xFFFFFFF0u);
  for (uint32_t i = 0; i < 400 && !sim.violation; i++) sim.step(static_cast<uint8_t>(rng()));
  sim.drain();
  return sim.violation;
}

TEST(SendQueueModel, EveryScheduleCompletesEachWorkRequestOnceInOrder) {
  for (uint32_t seed = 0; seed < 3000; seed++) ASSERT_EQ(simulate(seed), nullptr) << "seed " << seed;
}

}  // namespace
