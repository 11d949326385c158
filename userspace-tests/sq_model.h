// SPDX-License-Identifier: GPL-2.0
// A send queue driven as the glue drives it (include/xiw/send_queue.h with
// the transmit order of include/xiw/tx_order.h): work requests posted
// (SENDs and WRITEs, READs, fenced ones, REG_MR/LOCAL_INV that succeed or
// fail, bad user WQEs), started one message at a time, sent with or
// without zero-copy, their pages let go by TCP at any later time (also
// after a flush, also after the QP went on with new work), READs answered
// or a Read Response nobody asked for, completions taken, and the QP put
// in ERROR and flushed at any time, then back to work. A schedule of
// events, one octet each (a fuzzer's input or a seeded generator), orders
// all of that. After every event the model checks, independently of the
// core:
//   - every work request completes once, in the order posted, and never
//     before it is done: a message once sent and its pages let go, a READ
//     once its response arrived, a local one once the queue reached it;
//   - a completion's status is its own (success, or its error), or a
//     flush's for one that was not done when the flush came;
//   - work requests start in the order posted, a fenced one with no READ
//     out, a READ within the ORD (one with ORD 0);
//   - a Read Response completes the oldest READ out, and one with no READ
//     out is refused;
//   - a late zero-copy release never completes another work request;
//   - after every completion is taken, nothing done and passed waits.
// Drained at the end (back to work, everything sent and answered, then a
// flush), every work request has completed exactly once.
#pragma once

#include <xiw/send_queue.h>
#include <xiw/tx_order.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

struct SqSim {
  enum Kind : uint8_t { kMessage, kRead, kLocalOk, kLocalFail, kBadUser };
  static constexpr uint8_t kLocalErr = 4;  // the glue's status values
  static constexpr uint8_t kBadErr = 9;

  // @size_log: 2^size_log slots (0 to 6); @start: the free-running index
  // the queue begins at (near 2^32 to wrap).
  SqSim(uint32_t ord, uint32_t size_log, uint32_t start) : ord_(ord) {
    slots_.resize(1u << size_log);
    xiw_sq_init(&q_, slots_.data(), 1u << size_log);
    q_.head = q_.tx = q_.tail = start;  // a queue that has run a while
    base_ = start;
    xiw_tx_order_init(&o_);
  }

  void step(uint8_t e) {
    switch (e % 8) {
      case 0:
      case 1:
        post(static_cast<Kind>((e >> 3 & 7) % 5), e & 0x80);
        break;
      case 2:
        start();
        break;
      case 3:
        sent(e & 0x40);
        break;
      case 4:
        zc_release(e / 8);
        break;
      case 5:
        read_response();
        break;
      case 6:
        complete();
        break;
      case 7:
        if (e & 0x80)
          flush();
        else
          recover();
        break;
    }
  }

  void drain() {
    recover();
    for (int i = 0; i < 10000 && !violation; i++) {
      start();
      sent(false);
      while (!zc_.empty() && !violation) zc_release(0);
      read_response_if_any();
      complete();
      if (next_ == wrs_.size() && reads_out_.empty() && !cur_) break;
      if (in_error_) recover();
    }
    if (!violation) flush();
    if (violation) return;
    for (const Wr& w : wrs_)
      if (w.completions != 1) return fail("a work request did not complete exactly once");
  }

  const char* violation = nullptr;

 private:
  struct Wr {
    Kind kind;
    bool fence;
    bool done = false;     // by the model's own account
    bool zc_wait = false;  // sent, pages still with TCP
    uint8_t status = 0;
    int completions = 0;
  };

  void fail(const char* what) {
    if (!violation) violation = what;
  }

  uint32_t idx_of(size_t n) const { return base_ + static_cast<uint32_t>(n); }
  size_t wr_of(uint32_t idx) const { return idx - base_; }

  void post(Kind k, bool fence) {
    uint32_t idx = 0;
    const bool full = wrs_.size() - completed_ == slots_.size();
    const int rc = xiw_sq_reserve(&q_, &idx);
    if (full != (rc != 0)) return fail("reserve disagrees on a full queue");
    if (rc) return;
    if (idx != idx_of(wrs_.size())) return fail("reserve gave another slot than the next");
    Wr w{k, fence};
    if (k == kBadUser) {
      w.done = true;
      w.status = kBadErr;
      xiw_sq_post_done(&q_, kBadErr);
    } else {
      xiw_sq_post(&q_, (fence ? XIW_WR_FENCE : 0) | (k == kRead ? XIW_WR_READ : 0));
    }
    wrs_.push_back(w);
  }

  bool may_start(const Wr& w) const {
    if (reads_out_.empty()) return true;
    if (w.fence) return false;
    return w.kind != kRead || reads_out_.size() < ord_;
  }

  // The glue's xiw_tx_pick(), send queue part: one message at a time.
  void start() {
    if (in_error_ || cur_) return;
    for (;;) {
      uint32_t idx = 0;
      const int rc = xiw_sq_next(&q_, &o_, ord_, &idx);
      if (next_ == wrs_.size()) {
        if (rc != XIW_SQ_NONE) fail("next found work where there is none");
        return;
      }
      Wr& w = wrs_[next_];
      if (w.done) {  // only errors are done before they start
        if (rc != XIW_SQ_FAILED) return fail("a failed work request did not stop the queue");
        next_++;
        return to_error();
      }
      if (rc == XIW_SQ_NONE) {
        if (may_start(w)) fail("next held back what may start");
        return;
      }
      if (rc != XIW_SQ_START) return fail("next: a work request that did not fail failed");
      if (wr_of(idx) != next_) return fail("work requests start out of order");
      if (!may_start(w)) return fail("a fence or the ORD was broken");
      if (w.kind == kLocalOk || w.kind == kLocalFail) {
        const uint8_t st = w.kind == kLocalOk ? 0 : kLocalErr;
        xiw_sq_done(&q_, idx, st);
        w.done = true;
        w.status = st;
        if (st == 0) next_++;  // the queue passes it; a failure stops it above
        continue;
      }
      xiw_sq_start(&q_, &o_, idx);
      next_++;
      if (w.kind == kRead) {
        reads_out_.push_back(wr_of(idx));
        if (o_.reads_out != reads_out_.size()) return fail("the ORD count is not the model's");
      } else {
        cur_ = true;
        cur_idx_ = idx;
      }
      return;
    }
  }

  void sent(bool zc) {
    if (!cur_) return;
    cur_ = false;
    Wr& w = wrs_[wr_of(cur_idx_)];
    if (xiw_sq_sent(&q_, cur_idx_, zc) != 0) return fail("a message sent was not out");
    if (zc) {
      w.zc_wait = true;
      zc_.push_back(cur_idx_);
    } else {
      w.done = true;
    }
  }

  // TCP lets go of a message's pages: any one of them, at any time.
  void zc_release(size_t which) {
    if (zc_.empty()) return;
    which %= zc_.size();
    const uint32_t idx = zc_[which];
    zc_.erase(zc_.begin() + static_cast<long>(which));
    Wr& w = wrs_[wr_of(idx)];
    xiw_sq_zc_released(&q_, idx, in_error_);
    if (w.zc_wait && !in_error_ && !w.completions) {
      w.zc_wait = false;
      w.done = true;
    }
  }

  void read_response_if_any() {
    if (!reads_out_.empty()) read_response();
  }

  void read_response() {
    if (in_error_) return;  // the stream is stopped
    uint32_t idx = 0;
    const int rc = xiw_sq_read_done(&q_, &o_, &idx);
    if (reads_out_.empty()) {
      if (rc != XIW_RX_UNEXPECTED) return fail("a Read Response with no READ out was taken");
      return to_error();  // the stream ends
    }
    if (rc != 0) return fail("a Read Response for a READ out was refused");
    if (wr_of(idx) != reads_out_.front()) return fail("a Read Response completed another READ");
    wrs_[reads_out_.front()].done = true;
    reads_out_.pop_front();
  }

  void complete() {
    xiw_sq_cqe c{};
    while (xiw_sq_complete(&q_, &c)) {
      if (wr_of(c.idx) != completed_) return fail("a completion out of posting order");
      Wr& w = wrs_[completed_];
      if (!w.done) return fail("a work request completed before it was done");
      if (c.flushed || c.status != w.status) return fail("a completion with another status");
      w.completions++;
      completed_++;
    }
    if (completed_ < next_ && wrs_[completed_].done) fail("a work request done and passed did not complete");
  }

  void to_error() {
    in_error_ = true;
    flush();
  }

  // The glue's xiw_qp_flush(): in ERROR, with nothing being sent.
  void flush() {
    in_error_ = true;
    cur_ = false;
    xiw_sq_cqe c{};
    while (xiw_sq_flush(&q_, &c)) {
      if (wr_of(c.idx) != completed_) return fail("a flush completion out of posting order");
      Wr& w = wrs_[completed_];
      if (c.flushed == w.done) return fail("a flush got done and not done wrong");
      if (!c.flushed && c.status != w.status) return fail("a flushed completion lost its status");
      w.completions++;
      completed_++;
    }
    if (completed_ != wrs_.size()) return fail("a flush left work behind");
    xiw_tx_order_flush(&o_);
    next_ = wrs_.size();
    reads_out_.clear();
    for (Wr& w : wrs_) w.zc_wait = false;  // their late releases change nothing
  }

  // RESET, INIT, RTS: new work goes on over the same indices.
  void recover() {
    if (in_error_ && completed_ == wrs_.size()) in_error_ = false;
  }

  const uint32_t ord_;
  std::vector<xiw_sq_slot> slots_;
  xiw_sq q_{};
  xiw_tx_order o_{};
  uint32_t base_ = 0;
  std::vector<Wr> wrs_;
  size_t next_ = 0;               // the next to start or pass
  size_t completed_ = 0;          // completions taken so far
  std::deque<size_t> reads_out_;  // READs waiting for a response
  std::vector<uint32_t> zc_;      // zero-copy releases still to come
  bool cur_ = false;              // a message is being sent
  uint32_t cur_idx_ = 0;
  bool in_error_ = false;
};
