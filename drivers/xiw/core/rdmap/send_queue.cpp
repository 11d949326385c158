// SPDX-License-Identifier: GPL-2.0
#include "send_queue.h"

#include "tx_order.h"

namespace xiw::rdmap {

namespace {

xiw_sq_slot& at(const xiw_sq& q, u32 idx) { return q.slot[idx & (q.size - 1)]; }

SlotState state(const xiw_sq_slot& s) { return static_cast<SlotState>(s.state); }

void set(xiw_sq_slot& s, SlotState st) { s.state = static_cast<u8>(st); }

// Started and not yet completed: head <= idx < tx, free-running.
bool live(const xiw_sq& q, u32 idx) { return idx - q.head < q.tx - q.head; }

void done(xiw_sq_slot& s, u8 status) {
  set(s, SlotState::kDone);
  s.status = status;
}

}  // namespace

void sq_init(xiw_sq& q, xiw_sq_slot* slots, u32 size) {
  q = {};
  q.slot = slots;
  q.size = size;
}

bool sq_reserve(const xiw_sq& q, u32* idx) {
  if (q.tail - q.head >= q.size) return false;
  *idx = q.tail;
  return true;
}

void sq_post(xiw_sq& q, u32 flags) {
  xiw_sq_slot& s = at(q, q.tail++);
  s = {};
  s.flags = static_cast<u8>(flags & (XIW_WR_FENCE | XIW_WR_READ));
}

void sq_post_done(xiw_sq& q, u8 status) {
  xiw_sq_slot& s = at(q, q.tail++);
  s = {};
  done(s, status);
}

int sq_next(xiw_sq& q, const xiw_tx_order& o, u32 ord, u32* idx) {
  for (; q.tx != q.tail; q.tx++) {
    const xiw_sq_slot& s = at(q, q.tx);
    if (state(s) == SlotState::kPosted) {
      if (!may_start(o, s.flags, ord)) return XIW_SQ_NONE;
      *idx = q.tx;
      return XIW_SQ_START;
    }
    if (s.status != 0) {  // done with an error: the queue stops past it
      q.tx++;
      return XIW_SQ_FAILED;
    }
  }
  return XIW_SQ_NONE;
}

// Only the work request xiw_sq_next() named may start.
void sq_start(xiw_sq& q, xiw_tx_order& o, u32 idx) {
  xiw_sq_slot& s = at(q, idx);
  if (idx != q.tx || q.tx == q.tail || state(s) != SlotState::kPosted) return;
  set(s, SlotState::kOut);
  started(o, s.flags);
  q.tx++;
}

void sq_done(xiw_sq& q, u32 idx, u8 status) {
  xiw_sq_slot& s = at(q, idx);
  if (idx != q.tx || q.tx == q.tail || state(s) != SlotState::kPosted) return;
  done(s, status);
}

bool sq_sent(xiw_sq& q, u32 idx, bool zc) {
  xiw_sq_slot& s = at(q, idx);
  if (!live(q, idx) || state(s) != SlotState::kOut) return false;
  if (s.flags & XIW_WR_READ) return true;  // its response completes it
  if (zc)
    set(s, SlotState::kZc);
  else
    done(s, 0);
  return true;
}

void sq_zc_released(xiw_sq& q, u32 idx, bool in_error) {
  xiw_sq_slot& s = at(q, idx);
  if (in_error || !live(q, idx) || state(s) != SlotState::kZc) return;
  done(s, 0);
}

bool sq_read_oldest(const xiw_sq& q, u32* idx) {
  for (u32 i = q.head; i != q.tx; i++) {
    const xiw_sq_slot& s = at(q, i);
    if (s.flags & XIW_WR_READ && state(s) == SlotState::kOut) {
      *idx = i;
      return true;
    }
  }
  return false;
}

bool sq_read_done(xiw_sq& q, xiw_tx_order& o, u32* idx) {
  if (!sq_read_oldest(q, idx) || !read_done(o)) return false;
  done(at(q, *idx), 0);
  return true;
}

bool sq_complete(xiw_sq& q, xiw_sq_cqe* c) {
  if (q.head == q.tx || state(at(q, q.head)) != SlotState::kDone) return false;
  *c = {q.head, at(q, q.head).status, 0};
  q.head++;
  return true;
}

bool sq_flush(xiw_sq& q, xiw_sq_cqe* c) {
  if (q.head == q.tail) {
    q.tx = q.tail;
    return false;
  }
  const xiw_sq_slot& s = at(q, q.head);
  const bool finished = state(s) == SlotState::kDone;
  *c = {q.head, finished ? s.status : u8{0}, !finished};
  q.head++;  // past tx for a while: tx catches up when the flush ends
  return true;
}

}  // namespace xiw::rdmap
