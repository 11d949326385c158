// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the whole receive path of Full Operation as it ships,
// MPA framing with Markers and CRC, DDP and RDMAP headers
// (xiw_srx_consume) and the placer that decides where every payload octet
// goes (include/xiw/placer.h), over an arbitrary byte stream, against the
// model queue pair of ../rx_model.h. The model traps on any placement
// that breaks the invariants: no octet outside (a) an open receive,
// within its length, before its completion; (b) an MR with REMOTE_WRITE
// of the QP's PD, within its bounds; (c) the oldest READ's sink, within
// its length, before its completion; a READ completes only when full, a
// receive with what was placed, Read Requests stay within the IRD.
// Between the receiver and the placer this target also checks what the
// receiver promises its sink:
//   - a segment's payload comes only between its seg_begin and seg_end,
//     never more than seg.len octets, and seg_end sees all of them;
//   - an untagged segment with MO > 0 continues the message its queue
//     has open (begun at MO 0, not yet last), at exactly the octets
//     already delivered;
//   - each queue's MSNs go up by one per message;
//   - a Read Request has no payload;
//   - once a segment is refused or consume() fails, nothing more is
//     delivered.
// Input: flags(1) chunk(1) refuse(1) stream...
//   flags bit 0: Markers, bit 1: CRC, bit 2: an RTR expected, bit 3: IRD 0.
//   refuse: low 4 bits, the glue loses every Nth target (0: never); high
//   3 bits (of 4) n, each receive holds 32 << n octets.
#include <xiw/mpa.h>
#include <xiw/placer.h>
#include <xiw/stream.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../host_env.h"
#include "../rx_model.h"

namespace {

#define CHECK(x)                \
  do {                          \
    if (!(x)) __builtin_trap(); \
  } while (0)

struct Queue {
  bool open = false;  // a message begun at MO 0, not yet last
  uint32_t msn = 0;   // its MSN
  uint32_t got = 0;   // octets delivered to it
  uint32_t last_msn = 0;
  bool any = false;
};

// The READs this side has outstanding: the seed corpus answers the first.
constexpr uint32_t kReads = 4;
constexpr uint32_t kReadStag = 0x5678;
constexpr uint32_t kReadLen = 64;
constexpr uint32_t kReceives = 8;

// What the receiver hands its sink, checked, then passed to the placer.
struct Watch {
  xiw_placer* placer = nullptr;
  xiw_qp* qp = nullptr;
  bool in_seg = false;
  bool dead = false;     // consume() failed
  bool refused = false;  // a segment was refused: nothing may follow
  xiw_seg seg = {};
  uint32_t seg_got = 0;
  Queue q[3];
  unsigned segs = 0;

  static Watch* of(void* ctx) { return static_cast<Watch*>(ctx); }
  static const xiw_stream_sink& next() { return *xiw_placer_sink(); }
  static bool untagged(uint8_t op) { return op != XIW_OP_WRITE && op != XIW_OP_READ_RESP; }
  static unsigned queue(uint8_t op) {
    if (op == XIW_OP_READ_REQ) return 1;
    if (op == XIW_OP_TERMINATE) return 2;
    return 0;
  }

  static int begin(void* ctx, const xiw_seg* s) {
    Watch* w = of(ctx);
    CHECK(!w->dead && !w->refused && !w->in_seg);
    CHECK(s->opcode <= XIW_OP_SEND_SE_INV && s->opcode != XIW_OP_TERMINATE);
    if (s->opcode == XIW_OP_READ_REQ) CHECK(s->len == 0 && s->last);
    if (untagged(s->opcode)) {
      Queue& q = w->q[queue(s->opcode)];
      if (s->mo == 0) {
        CHECK(!q.open);
        if (q.any) CHECK(s->msn == q.last_msn + 1);
        q.open = true;
        q.msn = s->msn;
        q.got = 0;
      } else {
        // A continuation: of the open message, where it left off.
        CHECK(q.open && s->msn == q.msn && s->mo == q.got);
      }
    }
    w->in_seg = true;
    w->seg = *s;
    w->seg_got = 0;
    const int rc = next().seg_begin(w->placer, s);
    CHECK(rc >= 0 && rc <= XIW_RX_TO_WRAP);
    if (rc) w->refused = true;
    return rc;
  }

  static int data(void* ctx, const void* buf, xiw_size len) {
    Watch* w = of(ctx);
    CHECK(!w->dead && !w->refused && w->in_seg && buf && len > 0);
    CHECK(w->seg_got + len <= w->seg.len);
    w->seg_got += static_cast<uint32_t>(len);
    const int rc = next().seg_data(w->placer, buf, len);
    if (rc) w->refused = true;
    return rc;
  }

  static int end(void* ctx, const xiw_seg* s) {
    Watch* w = of(ctx);
    CHECK(!w->dead && !w->refused && w->in_seg && w->seg_got == s->len && s->len == w->seg.len);
    w->in_seg = false;
    if (untagged(s->opcode)) {
      Queue& q = w->q[queue(s->opcode)];
      q.got += s->len;
      if (s->last) {
        q.open = false;
        q.any = true;
        q.last_msn = q.msn;
      }
    }
    const int rc = next().seg_end(w->placer, s);
    if (rc) w->refused = true;
    // The transmit side answers a Read Request now and then.
    if (++w->segs % 2 == 0 && w->qp->answered < w->qp->read_reqs.size()) w->qp->answered++;
    return rc;
  }

  static void term(void* ctx, const xiw_term_cause* c) {
    Watch* w = of(ctx);
    CHECK(!w->dead && !w->refused);
    next().terminate(w->placer, c);
  }
};

constexpr xiw_stream_sink kSink = {Watch::begin, Watch::data, Watch::end, Watch::term};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  xiw_stream_cfg cfg = {};
  cfg.markers = data[0] & 1;
  cfg.crc = (data[0] & 2) != 0;
  cfg.rtr_recv = data[0] & 4 ? XIW_MPA_CTRL_B : 0;
  const size_t chunk = data[1] ? data[1] : 4096;
  xiw_qp qp;
  qp.trap = true;
  qp.refuse_every = data[2] & 0x0F;
  qp.ird = data[0] & 8 ? 0 : 4;
  for (uint32_t i = 0; i < kReceives; i++) qp.post(32u << ((data[2] >> 4) & 7));
  for (uint32_t i = 0; i < kReads; i++) qp.add_read(kReadStag + i, kReadLen);
  qp.add_mr(0x1234, XIW_ACCESS_REMOTE_WRITE, 0, 4096);  // the seed corpus WRITEs here
  qp.add_mr(2, XIW_ACCESS_REMOTE_READ, 0, 4096);        // and READs from here
  qp.add_mr(0x1300, XIW_ACCESS_REMOTE_READ, 0, 64);
  qp.add_mr(0x1400, XIW_ACCESS_REMOTE_READ | XIW_ACCESS_REMOTE_WRITE, 0, 64, 2);
  qp.add_mr(0x1500, XIW_ACCESS_REMOTE_READ | XIW_ACCESS_REMOTE_WRITE, 1ull << 40, 256, 1, true);
  std::vector<uint8_t> pmem(xiw_placer_size());
  Watch m;
  m.qp = &qp;
  m.placer = xiw_placer_init(pmem.data(), &xiw_qp::kOps, &qp);
  std::vector<uint8_t> mem(xiw_srx_size());
  xiw_srx* rx = xiw_srx_init(mem.data(), &xiw_test::host_env(), &cfg);
  data += 3;
  size -= 3;
  for (size_t at = 0; at < size; at += chunk) {
    const size_t n = size - at < chunk ? size - at : chunk;
    const int rc = xiw_srx_consume(rx, data + at, n, &kSink, &m);
    if (rc != 0) {
      CHECK(rc < 0);
      m.dead = true;
      xiw_term_cause c = {};
      xiw_srx_cause(rx, &c);
      CHECK(c.layer <= 2);
      CHECK(xiw_srx_consume(rx, data, size, &kSink, &m) != 0);
      return 0;
    }
  }
  return 0;
}
