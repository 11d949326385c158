// SPDX-License-Identifier: GPL-2.0
#include "placer.h"

#include "place.h"

namespace xiw::rdmap {

namespace {

bool is_send(u32 op) {
  return op == XIW_OP_SEND || op == XIW_OP_SEND_SE || op == XIW_OP_SEND_INV || op == XIW_OP_SEND_SE_INV;
}

// [to, to + len) must not wrap the 64-bit tagged offset space.
bool wraps(u64 to, u32 len) { return to + len < to; }

}  // namespace

int Placer::begin(const xiw_seg& s) {
  left_ = 0;
  if (dead_) return XIW_RX_LOCAL;
  xiw_target t = {};
  int rc = XIW_RX_UNEXPECTED;
  if (is_send(s.opcode))
    rc = begin_send(s, &t);
  else if (s.opcode == XIW_OP_WRITE)
    rc = begin_write(s, &t);
  else if (s.opcode == XIW_OP_READ_REQ)
    rc = begin_read_req(s);
  else if (s.opcode == XIW_OP_READ_RESP)
    rc = begin_read_resp(s, &t);
  if (rc != 0) return rc;
  if (s.len == 0) return 0;
  if (t.kind == 0) return XIW_RX_LOCAL;  // payload where none may go
  t.len = s.len;
  if ((rc = ops_.target(qp_, &t)) != 0) return rc;
  left_ = s.len;
  return 0;
}

// MO 0 takes the next receive; every other MO continues the receive that
// this queue's open message took, exactly where it left off, whatever
// tagged segments came between (the stream receiver has checked MSN and
// MO; the placer does not rely on it).
int Placer::begin_send(const xiw_seg& s, xiw_target* t) {
  if (s.mo == 0) {
    if (recv_open_) return XIW_RX_LOCAL;
    u32 len = 0;
    if (const int rc = ops_.recv_take(qp_, &len)) return rc;
    recv_open_ = true;
    recv_len_ = len;
    recv_at_ = 0;
  }
  if (!recv_open_ || s.mo != recv_at_) return XIW_RX_LOCAL;
  if (const int rc = place_send(s.mo, s.len, recv_len_)) return rc;
  *t = {XIW_TARGET_RECV, {}, 0, s.mo, 0, 0};
  return 0;
}

// A TO wrap is refused before the STag is looked up: it needs no lookup,
// and no STag makes such a range valid.
int Placer::begin_write(const xiw_seg& s, xiw_target* t) {
  if (wraps(s.to, s.len)) return XIW_RX_TO_WRAP;
  if (const int rc = ops_.mr_check(qp_, s.stag, s.to, s.len, XIW_ACCESS_REMOTE_WRITE)) return rc;
  *t = {XIW_TARGET_TAGGED, {}, s.stag, s.to, 0, 0};
  return 0;
}

int Placer::begin_read_req(const xiw_seg& s) {
  u32 used = 0;
  u32 ird = 0;
  ops_.read_queue(qp_, &used, &ird);
  if (const int rc = place_read_req(used, ird)) return rc;
  if (wraps(s.src_to, s.read_size)) return XIW_RX_TO_WRAP;
  return ops_.mr_check(qp_, s.src_stag, s.src_to, s.read_size, XIW_ACCESS_REMOTE_READ);
}

int Placer::begin_read_resp(const xiw_seg& s, xiw_target* t) {
  xiw_read_sink read = {};
  const bool any = ops_.read_oldest(qp_, &read) == 0;
  read.got = sink_got_;
  if (const int rc = place_read_resp(s.stag, s.to, s.len, s.last != 0, any ? &read : nullptr)) return rc;
  *t = {XIW_TARGET_SINK, {}, read.stag, s.to, 0, 0};
  return 0;
}

int Placer::data(kstd::Bytes run) {
  if (run.size() > left_) return XIW_RX_LOCAL;  // more than the target takes
  left_ -= static_cast<u32>(run.size());
  return ops_.put(qp_, run.data(), run.size());
}

int Placer::end(const xiw_seg& s) {
  if (left_ != 0) return XIW_RX_LOCAL;
  ops_.validated(qp_);
  if (is_send(s.opcode)) return end_send(s);
  if (s.opcode == XIW_OP_READ_REQ) return ops_.read_req(qp_, &s);
  if (s.opcode == XIW_OP_READ_RESP) return end_read_resp(s);
  return 0;
}

// A Send with Invalidate invalidates its STag only now, after the CRC
// (RFC 5040 section 6.2): never for a segment that may still be refused.
int Placer::end_send(const xiw_seg& s) {
  recv_at_ += s.len;
  if (!s.last) return 0;
  xiw_recv_done d = {recv_at_, 0, 0, 0};
  if (s.opcode == XIW_OP_SEND_SE || s.opcode == XIW_OP_SEND_SE_INV) d.flags |= XIW_RECV_SOLICITED;
  if (s.opcode == XIW_OP_SEND_INV || s.opcode == XIW_OP_SEND_SE_INV) {
    if (const int rc = ops_.invalidate(qp_, s.stag)) return rc;
    d.flags |= XIW_RECV_INVALIDATED;
    d.inv_stag = s.stag;
  }
  recv_open_ = false;
  ops_.recv_done(qp_, &d);
  return 0;
}

int Placer::end_read_resp(const xiw_seg& s) {
  sink_got_ += s.len;
  if (!s.last) return 0;
  sink_got_ = 0;
  return ops_.read_done(qp_);
}

// The first TERMINATE ends the stream; what follows it in the same run of
// octets (another TERMINATE included) takes no effect.
void Placer::terminate(const xiw_term_cause& c) {
  if (dead_) return;
  dead_ = true;
  ops_.terminated(qp_, &c);
}

namespace {

Placer* of(void* ctx) { return static_cast<Placer*>(ctx); }

int sink_begin(void* ctx, const xiw_seg* s) { return of(ctx)->begin(*s); }
int sink_data(void* ctx, const void* buf, xiw_size len) { return of(ctx)->data(kstd::as_bytes(buf, len)); }
int sink_end(void* ctx, const xiw_seg* s) { return of(ctx)->end(*s); }
void sink_terminate(void* ctx, const xiw_term_cause* c) { of(ctx)->terminate(*c); }

}  // namespace

const xiw_stream_sink Placer::kSink = {sink_begin, sink_data, sink_end, sink_terminate};

}  // namespace xiw::rdmap
