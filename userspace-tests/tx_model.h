// SPDX-License-Identifier: GPL-2.0
// Two RDMAP peers and the core's transmit order (include/xiw/tx_order.h):
// requester A posts work requests (SENDs, WRITEs, READs, some fenced) and
// starts them as A's order allows; responder B answers A's Read Requests
// in FPDUs as B's order allows; two in-order pipes carry what each built.
// A schedule of events, one octet each (a fuzzer's input or a seeded
// generator), interleaves the two sides in every way TCP allows. After
// every event the model checks, independently of the core:
//   - A never has more READs out than its ORD (one with ORD 0);
//   - a fenced work request starts only with no READ out;
//   - work requests start once each, in the order posted;
//   - B never refuses a Read Request from A, whose ORD is within B's IRD
//     (MPA negotiated them so): the Read Request that follows a READ's
//     completion always finds its slot free;
//   - B answers in the order the requests arrived, and A's READs complete
//     once each, in order, each by its own response;
//   - B's own messages (its send queue: b_own of them, waiting from the
//     start) are never passed over by more than XIW_TX_RRESP_BURST Read
//     Responses in a row: A's READs cannot hold B's send queue back.
// Drained at the end, every work request has started, every READ has
// completed and B has sent its own messages.
//
// release_when_sent models the rule xiw had before: a Read Request's slot
// given back when the send call that carried its response's last FPDU
// returned, which can be after the peer received that FPDU. The model
// finds what that does (the tests show it), so it can tell the rules apart.
// strict_priority models another: a Read Response always before B's own
// messages, which lets A's READs hold them back without end.
#pragma once

#include <xiw/tx_order.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

struct TxSim {
  struct Wr {
    bool read = false;
    bool fence = false;
  };
  struct Fpdu {
    uint32_t id;  // the READ (its index in A's queue), or kOwn
    bool last;
  };
  static constexpr uint32_t kOwn = UINT32_MAX;  // an FPDU of B's own message

  TxSim(uint32_t ord, uint32_t ird, std::vector<Wr> wrs, bool release_when_sent = false, uint32_t b_own = 0,
        bool strict_priority = false)
      : ord_(ord),
        ird_(ird),
        wrs_(std::move(wrs)),
        late_(release_when_sent),
        strict_(strict_priority),
        b_own_(b_own) {
    xiw_tx_order_init(&a_);
    xiw_tx_order_init(&b_);
  }

  // One event: the octet picks which side moves and how.
  void step(uint8_t e) {
    switch (e % 6) {
      case 0:
        a_start();
        break;
      case 1:
        b_receive();
        break;
      case 2:
        b_start(e / 6 % 3 + 1);
        break;
      case 3:
        b_build();
        break;
      case 4:
        a_receive();
        break;
      case 5:
        b_send_returned();
        break;
    }
  }

  // Runs every side until nothing moves; then everything must be done.
  void drain() {
    for (int i = 0; i < 100000 && !violation; i++) {
      const size_t before = progress();
      for (uint8_t e = 0; e < 6; e++) step(e);
      if (progress() == before) break;
    }
    if (violation) return;
    if (next_ != wrs_.size())
      fail("drained with work requests not started");
    else if (!a_reads_.empty())
      fail("drained with READs not completed");
    else if (b_own_)
      fail("drained with B's own messages not sent");
  }

  const char* violation = nullptr;
  std::string detail;

 private:
  void fail(const char* what) {
    if (!violation) violation = what;
  }

  // Every action that changes a side or a pipe counts one move.
  size_t progress() const { return moves_; }

  void a_start() {
    if (next_ == wrs_.size()) return;
    const Wr& w = wrs_[next_];
    const uint32_t flags = (w.fence ? XIW_WR_FENCE : 0) | (w.read ? XIW_WR_READ : 0);
    if (!xiw_tx_may_start(&a_, flags, ord_)) return;
    if (w.fence && !a_reads_.empty()) return fail("a fenced work request started with a READ out");
    xiw_tx_started(&a_, flags);
    if (w.read) {
      a_reads_.push_back(static_cast<uint32_t>(next_));
      const size_t limit = ord_ ? ord_ : 1;
      if (a_reads_.size() > limit) return fail("more READs out than the ORD");
      ab_.push_back(static_cast<uint32_t>(next_));
    }
    if (a_.reads_out != a_reads_.size()) return fail("the core's READ count is not the model's");
    next_++;
    moves_++;
  }

  // A Read Request arrives; the placer's rule (include/xiw/placer.h) asks
  // the order how many are held before it admits one.
  void b_receive() {
    if (ab_.empty()) return;
    const uint32_t id = ab_.front();
    ab_.pop_front();
    moves_++;
    uint32_t slot = 0;
    if (xiw_tx_rreq_held(&b_) >= ird_ || xiw_tx_rreq_admit(&b_, &slot) != 0)
      return fail("a Read Request within the IRD was refused");
    b_slots_[slot] = id;
    b_fifo_.push_back(id);
  }

  // B's next message, chosen as the glue does (xiw_tx_pick()): a Read
  // Response if the order says one goes first, else B's own message if it
  // has one, else a Read Response.
  void b_start(uint32_t fpdus) {
    if (b_left_) return;  // a message is being built: boundaries only
    uint32_t slot = 0;
    const bool first = strict_ || xiw_tx_rresp_first(&b_);
    if (!(first && xiw_tx_rresp_next(&b_, &slot))) {
      if (b_own_) {
        xiw_tx_started(&b_, 0);
        b_own_--;
        b_run_ = 0;
        b_cur_ = kOwn;
        b_left_ = fpdus;
        moves_++;
        return;
      }
      if (!xiw_tx_rresp_next(&b_, &slot)) return;
    }
    if (b_own_ && ++b_run_ > XIW_TX_RRESP_BURST)
      return fail("B's own message passed over by more than a burst of Read Responses");
    if (slot >= XIW_TX_IRQ_SLOTS) return fail("a slot beyond the slots");
    if (b_fifo_.empty() || b_slots_[slot] != b_fifo_.front()) return fail("a response out of arrival order");
    b_cur_ = b_fifo_.front();
    b_fifo_.pop_front();
    b_left_ = fpdus;
    moves_++;
  }

  void b_build() {
    if (!b_left_) return;
    const bool last = --b_left_ == 0;
    moves_++;
    if (last && b_cur_ != kOwn) {
      if (late_)
        b_unreturned_++;
      else
        xiw_tx_rresp_built(&b_);
    }
    ba_.push_back({b_cur_, last});  // in TCP: the peer may have it now
  }

  // The send call that carried the built FPDUs returns.
  void b_send_returned() {
    for (; b_unreturned_; b_unreturned_--, moves_++) xiw_tx_rresp_built(&b_);
  }

  void a_receive() {
    if (ba_.empty()) return;
    const Fpdu f = ba_.front();
    ba_.pop_front();
    moves_++;
    if (f.id == kOwn) return;  // B's own message: no READ's business
    if (a_reads_.empty() || a_reads_.front() != f.id) return fail("a response for another READ");
    if (!f.last) return;
    if (xiw_tx_read_done(&a_) != 0) return fail("the core had no READ out");
    a_reads_.pop_front();
  }

  const uint32_t ord_, ird_;
  const std::vector<Wr> wrs_;
  const bool late_, strict_;
  uint32_t b_own_;      // B's own messages not yet started
  uint32_t b_run_ = 0;  // Read Responses B started since its own last
  xiw_tx_order a_{}, b_{};
  size_t next_ = 0;               // A's next work request
  std::deque<uint32_t> a_reads_;  // A's READs out, oldest first
  std::deque<uint32_t> ab_;       // Read Requests on the way to B
  std::deque<Fpdu> ba_;           // response FPDUs on the way to A
  uint32_t b_slots_[XIW_TX_IRQ_SLOTS] = {};
  std::deque<uint32_t> b_fifo_;  // requests held, in arrival order
  uint32_t b_cur_ = 0, b_left_ = 0;
  size_t b_unreturned_ = 0, moves_ = 0;
};
