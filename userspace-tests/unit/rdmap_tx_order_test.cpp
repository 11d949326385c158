// SPDX-License-Identifier: GPL-2.0
// include/xiw/tx_order.h: the fence, the ORD and the IRD, call by call,
// and two peers under every interleaving a seeded schedule gives them
// (tx_model.h checks the rules independently of the core).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "../tx_model.h"

namespace {

class TxOrder : public ::testing::Test {
 protected:
  TxOrder() { xiw_tx_order_init(&o_); }
  void reads(uint32_t n) {
    for (uint32_t i = 0; i < n; i++) xiw_tx_started(&o_, XIW_WR_READ);
  }
  xiw_tx_order o_{};
};

TEST_F(TxOrder, EverythingStartsWithNoReadOut) {
  for (uint32_t flags = 0; flags < 4; flags++) EXPECT_TRUE(xiw_tx_may_start(&o_, flags, 1)) << flags;
}

TEST_F(TxOrder, FenceWaitsForEveryReadOut) {
  reads(1);
  EXPECT_FALSE(xiw_tx_may_start(&o_, XIW_WR_FENCE, 4));
  EXPECT_FALSE(xiw_tx_may_start(&o_, XIW_WR_FENCE | XIW_WR_READ, 4));
  EXPECT_TRUE(xiw_tx_may_start(&o_, 0, 4));  // an unfenced SEND or WRITE goes on
  EXPECT_TRUE(xiw_tx_may_start(&o_, XIW_WR_READ, 4));
  EXPECT_EQ(xiw_tx_read_done(&o_), 0);
  EXPECT_TRUE(xiw_tx_may_start(&o_, XIW_WR_FENCE, 4));
}

TEST_F(TxOrder, ReadWaitsForAFreeOrdSlot) {
  reads(3);
  EXPECT_TRUE(xiw_tx_may_start(&o_, XIW_WR_READ, 4));
  reads(1);
  EXPECT_FALSE(xiw_tx_may_start(&o_, XIW_WR_READ, 4));
  EXPECT_TRUE(xiw_tx_may_start(&o_, 0, 4));
  EXPECT_EQ(xiw_tx_read_done(&o_), 0);
  EXPECT_TRUE(xiw_tx_may_start(&o_, XIW_WR_READ, 4));
}

TEST_F(TxOrder, OrdZeroLetsOneReadGo) {
  EXPECT_TRUE(xiw_tx_may_start(&o_, XIW_WR_READ, 0));
  reads(1);
  EXPECT_FALSE(xiw_tx_may_start(&o_, XIW_WR_READ, 0));
}

TEST_F(TxOrder, OnlyReadsCount) {
  xiw_tx_started(&o_, 0);
  xiw_tx_started(&o_, XIW_WR_FENCE);
  EXPECT_TRUE(xiw_tx_may_start(&o_, XIW_WR_FENCE, 1));
  EXPECT_EQ(xiw_tx_read_done(&o_), XIW_RX_UNEXPECTED);  // none was out
  EXPECT_TRUE(xiw_tx_may_start(&o_, XIW_WR_FENCE, 1));
}

// The IRD is the placer's rule (place_read_req over rreq_held); the order
// only bounds what it holds by its slots.
TEST_F(TxOrder, ReadRequestsFillTheSlotsThenFull) {
  uint32_t slot = 99;
  for (uint32_t i = 0; i < XIW_TX_IRQ_SLOTS; i++) {
    ASSERT_EQ(xiw_tx_rreq_admit(&o_, &slot), 0);
    EXPECT_EQ(slot, i);
  }
  EXPECT_EQ(xiw_tx_rreq_held(&o_), uint32_t{XIW_TX_IRQ_SLOTS});
  EXPECT_EQ(xiw_tx_rreq_admit(&o_, &slot), XIW_RX_READ_QUEUE_FULL);
  ASSERT_TRUE(xiw_tx_rresp_next(&o_, &slot));
  EXPECT_EQ(xiw_tx_rreq_admit(&o_, &slot), XIW_RX_READ_QUEUE_FULL);  // started, not built
  xiw_tx_rresp_built(&o_);
  ASSERT_EQ(xiw_tx_rreq_admit(&o_, &slot), 0);
  EXPECT_EQ(slot, 0u);  // the first slot again
}

// A Read Request counts from its arrival until its response is built in
// full: the one being answered still counts.
TEST_F(TxOrder, RequestHeldUntilItsResponseIsBuilt) {
  uint32_t slot = 0;
  ASSERT_EQ(xiw_tx_rreq_admit(&o_, &slot), 0);
  ASSERT_TRUE(xiw_tx_rresp_next(&o_, &slot));
  EXPECT_EQ(xiw_tx_rreq_held(&o_), 1u);
  xiw_tx_rresp_built(&o_);
  EXPECT_EQ(xiw_tx_rreq_held(&o_), 0u);
}

TEST_F(TxOrder, ResponsesStartInArrivalOrderAcrossTheWrap) {
  o_.irq_tail = o_.irq_head = o_.irq_done = 0xfffffffeu;  // free-running indices
  uint32_t in[4], out = 0;
  for (uint32_t& s : in) ASSERT_EQ(xiw_tx_rreq_admit(&o_, &s), 0);
  for (uint32_t s : in) {
    EXPECT_LT(s, uint32_t{XIW_TX_IRQ_SLOTS});
    ASSERT_TRUE(xiw_tx_rresp_next(&o_, &out));
    EXPECT_EQ(out, s);
    xiw_tx_rresp_built(&o_);
  }
  EXPECT_FALSE(xiw_tx_rresp_next(&o_, &out));
  EXPECT_EQ(xiw_tx_rreq_held(&o_), 0u);
}

TEST_F(TxOrder, NothingBuiltThatDidNotStart) {
  uint32_t slot = 0;
  ASSERT_EQ(xiw_tx_rreq_admit(&o_, &slot), 0);
  xiw_tx_rresp_built(&o_);  // no response started: ignored
  EXPECT_EQ(xiw_tx_rreq_held(&o_), 1u);
}

TEST_F(TxOrder, FlushForgetsReadsAndRequests) {
  uint32_t slot = 0;
  reads(2);
  ASSERT_EQ(xiw_tx_rreq_admit(&o_, &slot), 0);
  ASSERT_EQ(xiw_tx_rreq_admit(&o_, &slot), 0);
  ASSERT_TRUE(xiw_tx_rresp_next(&o_, &slot));
  xiw_tx_order_flush(&o_);
  EXPECT_TRUE(xiw_tx_may_start(&o_, XIW_WR_FENCE, 1));
  EXPECT_EQ(xiw_tx_rreq_held(&o_), 0u);
  EXPECT_FALSE(xiw_tx_rresp_next(&o_, &slot));
}

// Read Responses go first, but after a burst of them the send queue's
// next message does: a peer that keeps Read Requests coming cannot hold
// our send queue back (the defect the VM teardown test's peer-disconnect
// rounds found, and the read-flood rounds show).
TEST_F(TxOrder, ResponsesFirstForABurstThenTheSendQueue) {
  uint32_t slot = 0;
  EXPECT_FALSE(xiw_tx_rresp_first(&o_));  // none waiting
  for (int i = 0; i < 2 * XIW_TX_RRESP_BURST; i++) ASSERT_EQ(xiw_tx_rreq_admit(&o_, &slot), 0);
  for (int i = 0; i < XIW_TX_RRESP_BURST; i++) {
    ASSERT_TRUE(xiw_tx_rresp_first(&o_)) << i;
    ASSERT_TRUE(xiw_tx_rresp_next(&o_, &slot));
    xiw_tx_rresp_built(&o_);
  }
  EXPECT_FALSE(xiw_tx_rresp_first(&o_));  // the send queue's turn
  xiw_tx_started(&o_, 0);
  EXPECT_TRUE(xiw_tx_rresp_first(&o_));  // and the responses' again
}

// With nothing to start, the send queue passes its turn on: the next
// response still goes, and the run stays spent until a message starts.
TEST_F(TxOrder, AnIdleSendQueueDoesNotHoldResponsesBack) {
  uint32_t slot = 0;
  for (int i = 0; i < 3 * XIW_TX_RRESP_BURST; i++) ASSERT_EQ(xiw_tx_rreq_admit(&o_, &slot), 0);
  for (int i = 0; i < 2 * XIW_TX_RRESP_BURST; i++) ASSERT_TRUE(xiw_tx_rresp_next(&o_, &slot));
  EXPECT_FALSE(xiw_tx_rresp_first(&o_));
  xiw_tx_started(&o_, XIW_WR_READ);  // a READ starts a message too
  EXPECT_TRUE(xiw_tx_rresp_first(&o_));
}

TEST_F(TxOrder, FlushEndsTheRun) {
  uint32_t slot = 0;
  for (int i = 0; i < XIW_TX_RRESP_BURST; i++) {
    ASSERT_EQ(xiw_tx_rreq_admit(&o_, &slot), 0);
    ASSERT_TRUE(xiw_tx_rresp_next(&o_, &slot));
  }
  xiw_tx_order_flush(&o_);
  ASSERT_EQ(xiw_tx_rreq_admit(&o_, &slot), 0);
  EXPECT_TRUE(xiw_tx_rresp_first(&o_));
}

// A seeded schedule for the two-peer model: up to 64 work requests, ORD
// 1 to 4 (sometimes 0) and an IRD at least that; the responder has up to
// 16 messages of its own to send.
const char* simulate(uint32_t seed, bool release_when_sent, bool strict_priority = false) {
  std::mt19937 rng(seed);
  const uint32_t ord = rng() % 5;
  const uint32_t ird = (ord ? ord : 1) + rng() % 3;
  std::vector<TxSim::Wr> wrs(1 + rng() % 64);
  for (auto& w : wrs) {
    w.read = rng() % 2;
    w.fence = rng() % 5 == 0;
  }
  const uint32_t own = rng() % 17;
  TxSim sim(ord, ird, wrs, release_when_sent, own, strict_priority);
  for (uint32_t i = 0; i < 2000 && !sim.violation; i++) sim.step(static_cast<uint8_t>(rng()));
  sim.drain();
  return sim.violation;
}

TEST(TxOrderPeers, EveryInterleavingKeepsTheRules) {
  for (uint32_t seed = 0; seed < 3000; seed++) ASSERT_EQ(simulate(seed, false), nullptr) << "seed " << seed;
}

// The model tells the rules apart: with the slot given back when the send
// call returns, a READ that completed in between lets its requester's next
// Read Request arrive while the IRD is still full (the defect the VM
// teardown test found).
TEST(TxOrderPeers, SlotGivenBackWhenSentRefusesAConformingPeer) {
  uint32_t refused = 0;
  for (uint32_t seed = 0; seed < 3000; seed++) {
    const char* v = simulate(seed, true);
    if (v) {
      EXPECT_STREQ(v, "a Read Request within the IRD was refused") << "seed " << seed;
      refused++;
    }
  }
  EXPECT_GT(refused, 0u);
}

// And the responder's own messages: with Read Responses always first (the
// rule before), the requester's READs pass them over for as long as they
// keep coming.
TEST(TxOrderPeers, StrictPriorityHoldsTheSendQueueBack) {
  uint32_t starved = 0;
  for (uint32_t seed = 0; seed < 3000; seed++) {
    const char* v = simulate(seed, false, true);
    if (v) {
      EXPECT_STREQ(v, "B's own message passed over by more than a burst of Read Responses")
          << "seed " << seed;
      starved++;
    }
  }
  EXPECT_GT(starved, 0u);
}

}  // namespace
