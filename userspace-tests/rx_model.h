// SPDX-License-Identifier: GPL-2.0
// A model queue pair for the placer (include/xiw/placer.h): the glue's
// side of struct xiw_rx_ops over posted receives, a memory registry,
// outstanding READs and the inbound Read Request queue, all in user
// memory. Every call the placer makes is checked against what it may do,
// independently of how the placer decided:
//   (a) an octet goes into a receive only while that receive is open
//       (taken for a SEND, not completed), within its length;
//   (b) into an MR only if the STag is valid, of the QP's PD, with
//       REMOTE_WRITE, within the MR's bounds;
//   (c) into a READ's sink only for the oldest READ outstanding, within
//       the length it asked for, before it completes;
// and a receive completes with the octets placed into it, a READ only
// when its response filled it, a Read Request is queued only within the
// IRD and with a source range that has REMOTE_READ.
// A broken rule is recorded in `violation` (and traps if `trap` is set,
// for the fuzzers).
#pragma once

#include <xiw/placer.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <vector>

struct xiw_qp {
  struct Mr {
    uint32_t stag;
    uint32_t pd;
    uint32_t access;  // XIW_ACCESS_*
    uint64_t base;    // first valid TO
    bool frwr;
    bool valid;
    std::vector<uint8_t> mem;
  };
  struct Recv {
    uint32_t len;
    std::vector<uint8_t> mem;
    uint32_t placed = 0;
    bool done = false;
    xiw_recv_done wc = {};
  };
  struct Read {
    uint32_t stag;
    uint32_t len;
    std::vector<uint8_t> mem;
    uint32_t got = 0;
    bool done = false;
  };

  uint32_t pd = 1;
  std::vector<Mr> mrs;
  std::deque<uint32_t> posted;  // lengths of the receives posted, in order
  std::vector<Recv> recvs;      // taken, in order
  int open = -1;                // the receive the placer holds open
  std::vector<Read> reads;      // outstanding, oldest first
  size_t reads_done = 0;
  uint32_t ird = 4;
  std::vector<xiw_seg> read_reqs;  // queued Read Requests
  bool refuse_read_reqs = false;   // read_req cannot queue (a broken invariant)
  uint32_t answered = 0;           // of them, answered in full
  unsigned refuse_every = 0;       // the glue refuses every Nth target
  unsigned targets = 0;
  xiw_target tgt = {};
  bool has_tgt = false;
  uint32_t tgt_put = 0;
  unsigned validated = 0;
  unsigned mr_checks = 0;
  bool terminated = false;
  const char* violation = nullptr;
  bool trap = false;

  void check(bool ok, const char* what) {
    if (ok) return;
    if (violation == nullptr) violation = what;
    if (trap) __builtin_trap();
  }

  void post(uint32_t len) { posted.push_back(len); }
  void add_mr(uint32_t stag, uint32_t access, uint64_t base, uint32_t len, uint32_t mr_pd = 1,
              bool frwr = false) {
    mrs.push_back({stag, mr_pd, access, base, frwr, true, std::vector<uint8_t>(len)});
  }
  void add_read(uint32_t stag, uint32_t len) { reads.push_back({stag, len, std::vector<uint8_t>(len)}); }
  Mr* mr(uint32_t stag) {
    for (Mr& m : mrs)
      if (m.stag == stag) return &m;
    return nullptr;
  }
  Read* oldest() { return reads_done < reads.size() ? &reads[reads_done] : nullptr; }
  static bool inside(const Mr& m, uint64_t to, uint32_t len) {
    return to >= m.base && to - m.base <= m.mem.size() && len <= m.mem.size() - (to - m.base);
  }

  static int recv_take(xiw_qp* q, xiw_u32* len) {
    q->check(q->open < 0, "a second receive taken while one is open");
    if (q->posted.empty()) return XIW_RX_NO_BUFFER;
    q->recvs.push_back({q->posted.front(), std::vector<uint8_t>(q->posted.front())});
    q->posted.pop_front();
    q->open = static_cast<int>(q->recvs.size() - 1);
    *len = q->recvs.back().len;
    return 0;
  }
  static int read_oldest(xiw_qp* q, xiw_read_sink* r) {
    Read* rd = q->oldest();
    if (rd == nullptr) return XIW_RX_UNEXPECTED;
    r->stag = rd->stag;
    r->len = rd->len;
    return 0;
  }
  static void read_queue(xiw_qp* q, xiw_u32* used, xiw_u32* ird) {
    *used = static_cast<uint32_t>(q->read_reqs.size()) - q->answered;
    *ird = q->ird;
  }
  static int mr_check(xiw_qp* q, xiw_u32 stag, xiw_u64 to, xiw_u32 len, xiw_u32 access) {
    q->mr_checks++;
    const Mr* m = q->mr(stag);
    if (m == nullptr || !m->valid) return XIW_RX_STAG_INVALID;
    if (m->pd != q->pd) return XIW_RX_NOT_IN_STREAM;
    if ((m->access & access) != access) return XIW_RX_ACCESS;
    if (!inside(*m, to, len)) return XIW_RX_BOUNDS;
    return 0;
  }
  static int target(xiw_qp* q, const xiw_target* t) {
    q->has_tgt = false;
    if (q->refuse_every && ++q->targets % q->refuse_every == 0) return XIW_RX_LOCAL;
    switch (t->kind) {
      case XIW_TARGET_RECV: {
        q->check(q->open >= 0, "(a) a SEND placed with no receive open");
        if (q->open < 0) return XIW_RX_LOCAL;
        const Recv& r = q->recvs[q->open];
        q->check(t->off <= r.len && t->len <= r.len - t->off, "(a) beyond the receive");
        q->check(t->off == r.placed, "(a) not where the SEND left off");
        break;
      }
      case XIW_TARGET_TAGGED: {
        const Mr* m = q->mr(t->stag);
        q->check(m && m->valid && m->pd == q->pd && (m->access & XIW_ACCESS_REMOTE_WRITE) &&
                     inside(*m, t->off, t->len),
                 "(b) a WRITE where no MR allows it");
        break;
      }
      case XIW_TARGET_SINK: {
        const Read* rd = q->oldest();
        q->check(rd != nullptr, "(c) a Read Response with no READ outstanding");
        if (rd == nullptr) return XIW_RX_LOCAL;
        q->check(t->stag == rd->stag, "(c) into another STag than the READ's");
        q->check(t->off <= rd->len && t->len <= rd->len - t->off, "(c) beyond the READ's length");
        q->check(t->off == rd->got, "(c) not where the response left off");
        break;
      }
      default:
        q->check(false, "unknown target");
        return XIW_RX_LOCAL;
    }
    q->tgt = *t;
    q->has_tgt = true;
    q->tgt_put = 0;
    return 0;
  }
  static int put(xiw_qp* q, const void* buf, xiw_size len) {
    q->check(q->has_tgt && len > 0 && len <= q->tgt.len - q->tgt_put, "more octets than the target took");
    if (!q->has_tgt || len > q->tgt.len - q->tgt_put) return XIW_RX_LOCAL;
    const uint64_t at = q->tgt.off + q->tgt_put;
    uint8_t* dst = nullptr;
    if (q->tgt.kind == XIW_TARGET_RECV) {
      Recv& r = q->recvs[q->open];
      q->check(!r.done, "(a) into a completed receive");
      dst = r.mem.data() + at;
      r.placed += static_cast<uint32_t>(len);
    } else if (q->tgt.kind == XIW_TARGET_SINK) {
      Read* rd = q->oldest();
      q->check(rd && !rd->done, "(c) into a completed READ");
      if (!rd) return XIW_RX_LOCAL;
      dst = rd->mem.data() + at;
      rd->got += static_cast<uint32_t>(len);
    } else {
      Mr* m = q->mr(q->tgt.stag);
      dst = m->mem.data() + (at - m->base);
    }
    std::memcpy(dst, buf, len);
    q->tgt_put += static_cast<uint32_t>(len);
    return 0;
  }
  static int invalidate(xiw_qp* q, xiw_u32 stag) {
    Mr* m = q->mr(stag);
    if (m == nullptr || !m->frwr || !m->valid) return XIW_RX_CANNOT_INVALIDATE;
    if (m->pd != q->pd) return XIW_RX_NOT_IN_STREAM;
    m->valid = false;
    return 0;
  }
  static void recv_done(xiw_qp* q, const xiw_recv_done* d) {
    q->check(q->open >= 0, "a receive completed that was not open");
    if (q->open < 0) return;
    Recv& r = q->recvs[q->open];
    q->check(d->byte_len == r.placed, "a receive completed with another length than placed");
    r.done = true;
    r.wc = *d;
    q->open = -1;
    q->has_tgt = false;
  }
  static int read_done(xiw_qp* q) {
    Read* rd = q->oldest();
    q->check(rd != nullptr, "a READ completed that was not outstanding");
    if (rd == nullptr) return XIW_RX_UNEXPECTED;
    q->check(rd->got == rd->len, "(c) a READ completed short");
    rd->done = true;
    q->reads_done++;
    q->has_tgt = false;
    return 0;
  }
  static int read_req(xiw_qp* q, const xiw_seg* s) {
    if (q->refuse_read_reqs) return XIW_RX_READ_QUEUE_FULL;
    q->check(q->read_reqs.size() - q->answered < q->ird, "a Read Request beyond the IRD");
    const Mr* m = q->mr(s->src_stag);
    q->check(m && m->valid && m->pd == q->pd && (m->access & XIW_ACCESS_REMOTE_READ) &&
                 inside(*m, s->src_to, s->read_size),
             "a Read Request for what no MR lets the peer read");
    q->read_reqs.push_back(*s);
    return 0;
  }
  static void validated_fn(xiw_qp* q) { q->validated++; }
  static void terminated_fn(xiw_qp* q, const xiw_term_cause*) {
    q->check(!q->terminated, "two TERMINATEs delivered");
    q->terminated = true;
  }

  static constexpr xiw_rx_ops kOps = {recv_take, read_oldest, read_queue,   mr_check,
                                      target,    put,         invalidate,   recv_done,
                                      read_done, read_req,    validated_fn, terminated_fn};
};
