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
// The sink places as the glue does, by the core's placement rules
// (xiw_place_*), into a model of posted receives, outstanding READs and
// the inbound Read Request queue, and checks that no octet is placed
// outside a receive (within its length, before it completes) or a READ's
// sink (within the length asked for, before it completes), that a READ
// completes only when full, and that Read Requests stay within the IRD.
// It also refuses segments when the input says so, to reach the refusal
// paths. Input: flags(1) chunk(1) refuse(1) stream...
//   flags bit 0: Markers, bit 1: CRC, bit 2: an RTR expected, bit 3: IRD 0.
//   refuse: low 4 bits, refuse every Nth segment (0: never); high 3 bits
//   (of 4) n, each receive holds 32 << n octets.
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

// The READs this side has outstanding: the seed corpus answers the first.
constexpr uint32_t kReads = 4;
constexpr uint32_t kReadStag = 0x5678;
constexpr uint32_t kReadLen = 64;
constexpr uint32_t kReceives = 8;

enum class Target { none, recv, sink };

struct Model {
  bool in_seg = false;
  bool dead = false;     // consume() failed
  bool refused = false;  // we refused a segment: nothing may follow
  xiw_seg seg = {};
  uint32_t seg_got = 0;
  Queue q[3];
  unsigned refuse_every = 0;
  unsigned segs = 0;

  // Placement state, as the glue keeps it.
  uint32_t recv_len = 0;  // each posted receive's length
  uint32_t receives_left = kReceives;
  bool recv_open = false;    // a SEND is being placed into a receive
  uint32_t recv_placed = 0;  // octets placed into it
  xiw_read_sink reads[kReads] = {};
  uint32_t reads_done = 0;  // completed, oldest first
  uint32_t ird = 4;
  uint32_t inbound = 0;  // Read Requests accepted
  Target target = Target::none;
  uint32_t at = 0;  // where the next payload octet goes in the target

  Model() {
    for (uint32_t i = 0; i < kReads; i++) reads[i] = {kReadStag + i, kReadLen, 0, 0};
  }
  xiw_read_sink* oldest_read() { return reads_done < kReads ? &reads[reads_done] : nullptr; }

  static bool is_send(uint8_t op) {
    return op == XIW_OP_SEND || op == XIW_OP_SEND_INV || op == XIW_OP_SEND_SE || op == XIW_OP_SEND_SE_INV;
  }

  // Where the glue would place this segment, by the core's rules; 0 or the refusal.
  int place(const xiw_seg* s) {
    target = Target::none;
    if (is_send(s->opcode)) {
      if (s->mo == 0) {
        CHECK(!recv_open);
        if (receives_left == 0) return XIW_RX_NO_BUFFER;
        receives_left--;
        recv_open = true;
        recv_placed = 0;
      }
      CHECK(recv_open);
      if (int rc = xiw_place_send(s, recv_len)) return rc;
      target = Target::recv;
      at = s->mo;
      CHECK(at == recv_placed);
    } else if (s->opcode == XIW_OP_READ_REQ) {
      if (int rc = xiw_place_read_req(inbound, ird)) return rc;
      CHECK(inbound < ird);
    } else if (s->opcode == XIW_OP_READ_RESP) {
      xiw_read_sink* r = oldest_read();
      if (int rc = xiw_place_read_resp(s, r)) return rc;
      CHECK(r != nullptr && s->to == r->got);
      target = Target::sink;
      at = r->got;
    }
    return 0;
  }

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
    if (const int rc = m->place(s)) {
      m->refused = true;
      return rc;
    }
    return 0;
  }

  static int data(void* ctx, const void* buf, xiw_size len) {
    Model* m = of(ctx);
    CHECK(!m->dead && !m->refused && m->in_seg && buf && len > 0);
    CHECK(m->seg_got + len <= m->seg.len);
    m->seg_got += static_cast<uint32_t>(len);
    // Every octet inside what its target allows, before the target completes.
    if (m->target == Target::recv) {
      CHECK(m->recv_open && m->at + len <= m->recv_len);
    } else if (m->target == Target::sink) {
      const xiw_read_sink* r = m->oldest_read();
      CHECK(r != nullptr && m->at + len <= r->len);
    } else {
      CHECK(m->seg.opcode == XIW_OP_WRITE);  // tagged: the memory registry's
    }
    m->at += static_cast<uint32_t>(len);
    return 0;
  }

  static int end(void* ctx, const xiw_seg* s) {
    Model* m = of(ctx);
    CHECK(!m->dead && !m->refused && m->in_seg && m->seg_got == s->len && s->len == m->seg.len);
    m->in_seg = false;
    if (m->target == Target::recv) {
      m->recv_placed += s->len;
      if (s->last) m->recv_open = false;  // the receive completes
    } else if (m->target == Target::sink) {
      xiw_read_sink* r = m->oldest_read();
      r->got += s->len;
      CHECK(r->got <= r->len);
      if (s->last) {
        CHECK(r->got == r->len);  // a READ completes only when full
        m->reads_done++;
      }
    } else if (s->opcode == XIW_OP_READ_REQ) {
      m->inbound++;
    }
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
  m.recv_len = 32u << ((data[2] >> 4) & 7);
  m.ird = data[0] & 8 ? 0 : 4;
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
