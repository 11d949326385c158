// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the DDP/RDMAP stream receiver of Full Operation
// (xiw_srx_consume: MPA framing with Markers and CRC, then DDP and RDMAP
// headers) over an arbitrary byte stream, checked against what the glue
// relies on when it places octets:
//   - a segment's payload comes only between its seg_begin and seg_end,
//     never more than seg.len octets, and seg_end sees all of them;
//   - an untagged segment with MO > 0 continues the message its queue
//     has open (begun at MO 0, not yet last), at exactly the octets
//     already delivered: so the glue may place it into that message's
//     receive and nothing else;
//   - each queue's MSNs go up by one per message;
//   - a Read Request has no payload;
//   - once consume() fails, nothing more is delivered.
// The sink refuses segments when the input says so, to reach the
// refusal paths. Input: flags(1) chunk(1) refuse_every(1) stream...
//   flags bit 0: Markers, bit 1: CRC.
#include <xiw/mpa.h>
#include <xiw/stream.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../host_env.h"

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

struct Model {
  bool in_seg = false;
  bool dead = false;     // consume() failed
  bool refused = false;  // we refused a segment: nothing may follow
  xiw_seg seg = {};
  uint32_t seg_got = 0;
  Queue q[3];
  unsigned refuse_every = 0;
  unsigned segs = 0;

  static Model* of(void* ctx) { return static_cast<Model*>(ctx); }

  static bool untagged(uint8_t op) { return op != XIW_OP_WRITE && op != XIW_OP_READ_RESP; }
  static unsigned queue(uint8_t op) {
    if (op == XIW_OP_READ_REQ) return 1;
    if (op == XIW_OP_TERMINATE) return 2;
    return 0;
  }

  static int begin(void* ctx, const xiw_seg* s) {
    Model* m = of(ctx);
    CHECK(!m->dead && !m->refused && !m->in_seg);
    CHECK(s->opcode <= XIW_OP_SEND_SE_INV && s->opcode != XIW_OP_TERMINATE);
    if (s->opcode == XIW_OP_READ_REQ) CHECK(s->len == 0 && s->last);
    if (untagged(s->opcode)) {
      Queue& q = m->q[queue(s->opcode)];
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
    m->in_seg = true;
    m->seg = *s;
    m->seg_got = 0;
    if (m->refuse_every && ++m->segs % m->refuse_every == 0) {
      m->refused = true;
      return XIW_RX_BOUNDS;
    }
    return 0;
  }

  static int data(void* ctx, const void* buf, xiw_size len) {
    Model* m = of(ctx);
    CHECK(!m->dead && !m->refused && m->in_seg && buf && len > 0);
    CHECK(m->seg_got + len <= m->seg.len);
    m->seg_got += static_cast<uint32_t>(len);
    return 0;
  }

  static int end(void* ctx, const xiw_seg* s) {
    Model* m = of(ctx);
    CHECK(!m->dead && !m->refused && m->in_seg && m->seg_got == s->len && s->len == m->seg.len);
    m->in_seg = false;
    if (untagged(s->opcode)) {
      Queue& q = m->q[queue(s->opcode)];
      q.got += s->len;
      if (s->last) {
        q.open = false;
        q.any = true;
        q.last_msn = q.msn;
      }
    }
    return 0;
  }

  static void term(void* ctx, const xiw_term_cause*) { CHECK(!of(ctx)->dead && !of(ctx)->refused); }
};

constexpr xiw_stream_sink kSink = {Model::begin, Model::data, Model::end, Model::term};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  xiw_stream_cfg cfg = {};
  cfg.markers = data[0] & 1;
  cfg.crc = (data[0] & 2) != 0;
  cfg.rtr_recv = data[0] & 4 ? XIW_MPA_CTRL_B : 0;
  const size_t chunk = data[1] ? data[1] : 4096;
  Model m;
  m.refuse_every = data[2] & 0x0F;
  std::vector<uint8_t> mem(xiw_srx_size());
  xiw_srx_init(mem.data(), &xiw_test::host_env(), &cfg);
  data += 3;
  size -= 3;
  for (size_t at = 0; at < size; at += chunk) {
    const size_t n = size - at < chunk ? size - at : chunk;
    const int rc = xiw_srx_consume(mem.data(), data + at, n, &kSink, &m);
    if (rc != 0) {
      CHECK(rc < 0);
      m.dead = true;
      xiw_term_cause c = {};
      xiw_srx_cause(mem.data(), &c);
      CHECK(c.layer <= 2);
      CHECK(xiw_srx_consume(mem.data(), data, size, &kSink, &m) != 0);
      return 0;
    }
  }
  return 0;
}
