// SPDX-License-Identifier: GPL-2.0
// The DDP/RDMAP stream (include/xiw/stream.h) through its C ABI: messages
// segmented by the sender come back whole at the receiver in every MPA
// mode and any chunking, the headers follow RFC 5040/5041, and each bad
// segment stops the stream with the TERMINATE the RFCs name.
#include <gtest/gtest.h>
#include <xiw/mpa_conn.h>
#include <xiw/stream.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "../host_env.h"

namespace {

using Bytes = std::vector<uint8_t>;

Bytes pattern(size_t n, uint8_t seed) {
  Bytes b(n);
  for (size_t i = 0; i < n; i++) b[i] = static_cast<uint8_t>(seed + i * 13 + (i >> 8));
  return b;
}

xiw_stream_cfg cfg(bool markers, bool crc, uint16_t mulpdu = 1024) {
  xiw_stream_cfg c = {};
  c.markers = markers;
  c.crc = crc;
  c.mulpdu = mulpdu;
  return c;
}

struct Tx {
  explicit Tx(const xiw_stream_cfg& c)
      : mem(xiw_stx_size()), h(xiw_stx_init(mem.data(), &xiw_test::host_env(), &c)) {}
  Tx(const Tx&) = delete;
  Tx& operator=(const Tx&) = delete;

  static int fetch(void* ctx, xiw_u32 off, void* dst, xiw_size len) {
    const Bytes* src = static_cast<const Bytes*>(ctx);
    if (off + len > src->size()) return -EFAULT;
    memcpy(dst, src->data() + off, len);
    return 0;
  }

  // The message's FPDUs, one vector each.
  std::vector<Bytes> send(const xiw_msg& m, const Bytes& payload) {
    std::vector<Bytes> fpdus;
    EXPECT_EQ(xiw_stx_begin(h, &m), 0);
    while (!xiw_stx_idle(h)) {
      Bytes buf(xiw_stx_fpdu_max(h));
      const int n = xiw_stx_next(h, buf.data(), buf.size(), fetch, const_cast<Bytes*>(&payload));
      EXPECT_GT(n, 0);
      if (n <= 0) break;
      buf.resize(n);
      fpdus.push_back(buf);
    }
    return fpdus;
  }

  std::vector<uint8_t> mem;
  xiw_stx* h;
};

struct Seg {
  xiw_seg seg;
  Bytes data;
  bool ended = false;
};

struct Rx {
  explicit Rx(const xiw_stream_cfg& c)
      : mem(xiw_srx_size()), h(xiw_srx_init(mem.data(), &xiw_test::host_env(), &c)) {}
  Rx(const Rx&) = delete;
  Rx& operator=(const Rx&) = delete;

  static Rx* of(void* ctx) { return static_cast<Rx*>(ctx); }
  static int begin(void* ctx, const xiw_seg* s) {
    of(ctx)->segs.push_back({*s, {}, false});
    return of(ctx)->refuse;
  }
  static int data(void* ctx, const void* buf, xiw_size len) {
    const uint8_t* p = static_cast<const uint8_t*>(buf);
    of(ctx)->segs.back().data.insert(of(ctx)->segs.back().data.end(), p, p + len);
    return 0;
  }
  static int end(void* ctx, const xiw_seg* s) {
    EXPECT_EQ(s->len, of(ctx)->segs.back().data.size());
    of(ctx)->segs.back().ended = true;
    return 0;
  }
  static void term(void* ctx, const xiw_term_cause* c) { of(ctx)->terms.push_back(*c); }
  static constexpr xiw_stream_sink kSink = {begin, data, end, term};

  int feed(const Bytes& stream) { return xiw_srx_consume(h, stream.data(), stream.size(), &kSink, this); }
  xiw_term_cause cause() const {
    xiw_term_cause c;
    xiw_srx_cause(h, &c);
    return c;
  }

  std::vector<uint8_t> mem;
  xiw_srx* h;
  std::vector<Seg> segs;
  std::vector<xiw_term_cause> terms;
  int refuse = 0;
};

Bytes join(const std::vector<Bytes>& parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

xiw_msg msg(uint8_t op, uint32_t len) {
  xiw_msg m = {};
  m.opcode = op;
  m.len = len;
  return m;
}

int begin(Tx& tx, const xiw_msg& m) { return xiw_stx_begin(tx.h, &m); }

void expect_cause(const xiw_term_cause& c, uint8_t layer, uint8_t etype, uint8_t code) {
  EXPECT_EQ(c.valid, 1);
  EXPECT_EQ(c.layer, layer);
  EXPECT_EQ(c.etype, etype);
  EXPECT_EQ(c.code, code);
}

// RFC 5041 section 4.3 and RFC 5040 section 4.1, written out: a 3-octet
// Send is ULPDU_Length 21, DDPctl T=0 L=1 DV=1, RDMAPctl RV=1 opcode 3,
// RsvdULP, QN 0, MSN 1, MO 0, the data, one octet of PAD, CRC 0 when off.
TEST(DdpStream, SendLayoutMatchesTheRfc) {
  Tx tx(cfg(false, false));
  const Bytes data = {'a', 'b', 'c'};
  const std::vector<Bytes> f = tx.send(msg(XIW_OP_SEND, 3), data);
  ASSERT_EQ(f.size(), 1u);
  const Bytes expect = {0x00, 0x15, 0x41, 0x43, 0, 0, 0,   0,   0,   0, 0, 0, 0, 0,
                        0,    1,    0,    0,    0, 0, 'a', 'b', 'c', 0, 0, 0, 0, 0};
  EXPECT_EQ(f[0], expect);
}

// A tagged segment: DDPctl T=1 L=1 DV=1 (0xC1), STag, 64-bit TO.
TEST(DdpStream, WriteLayoutMatchesTheRfc) {
  Tx tx(cfg(false, false));
  xiw_msg m = msg(XIW_OP_WRITE, 2);
  m.stag = 0x11223344;
  m.to = 0x0102030405060708ull;
  const std::vector<Bytes> f = tx.send(m, {0xaa, 0xbb});
  ASSERT_EQ(f.size(), 1u);
  const Bytes expect = {0x00, 0x10, 0xc1, 0x40, 0x11, 0x22, 0x33, 0x44, 1, 2, 3, 4,
                        5,    6,    7,    8,    0xaa, 0xbb, 0,    0,    0, 0, 0, 0};
  EXPECT_EQ(f[0], expect);
}

// Every opcode and size, in all four MPA modes, cut into random chunks:
// the receiver sees each message's segments in order with the right MSN,
// MO or TO, only the last one flagged, each within MULPDU, and the bytes.
TEST(DdpStream, MessagesRoundTripInEveryMode) {
  std::mt19937 rng(7);
  for (int mode = 0; mode < 4; mode++) {
    const bool markers = mode & 1, crc = mode & 2;
    const uint16_t mulpdu = 1000;
    Tx tx(cfg(markers, crc, mulpdu));
    Rx rx(cfg(markers, crc));
    struct Sent {
      xiw_msg m;
      Bytes data;
    };
    std::vector<Sent> sent;
    Bytes stream;
    const uint32_t sizes[] = {0, 1, 4095, 4096, 65536};
    for (uint32_t size : sizes) {
      for (uint8_t op : {XIW_OP_SEND, XIW_OP_SEND_SE_INV, XIW_OP_WRITE, XIW_OP_READ_RESP}) {
        xiw_msg m = msg(op, size);
        m.stag = 0x100 + op;
        m.to = 0xfffff000ull + size;
        const Bytes data = pattern(size, static_cast<uint8_t>(size + op));
        const Bytes s = join(tx.send(m, data));
        stream.insert(stream.end(), s.begin(), s.end());
        sent.push_back({m, data});
      }
    }
    xiw_msg rr = msg(XIW_OP_READ_REQ, 0);
    rr.sink_stag = 7;
    rr.sink_to = 0x1000;
    rr.read_size = 1 << 20;
    rr.src_stag = 9;
    rr.src_to = 0x2000;
    const Bytes s = join(tx.send(rr, {}));
    stream.insert(stream.end(), s.begin(), s.end());
    sent.push_back({rr, {}});
    EXPECT_EQ(xiw_stx_position(tx.h), stream.size());

    for (size_t at = 0; at < stream.size();) {
      const size_t n = std::min<size_t>(stream.size() - at, 1 + rng() % 3000);
      ASSERT_EQ(rx.feed(Bytes(stream.begin() + at, stream.begin() + at + n)), 0) << "mode " << mode;
      at += n;
    }
    size_t i = 0;
    uint32_t msn[2] = {1, 1};
    for (const Sent& m : sent) {
      const bool tagged = m.m.opcode == XIW_OP_WRITE || m.m.opcode == XIW_OP_READ_RESP;
      const uint32_t q = m.m.opcode == XIW_OP_READ_REQ ? 1 : 0;
      const uint32_t hdr = tagged ? 14 : m.m.opcode == XIW_OP_READ_REQ ? 46 : 18;
      Bytes got;
      for (;;) {
        ASSERT_LT(i, rx.segs.size());
        const Seg& g = rx.segs[i++];
        EXPECT_TRUE(g.ended);
        EXPECT_EQ(g.seg.opcode, m.m.opcode);
        EXPECT_LE(g.seg.len + hdr, mulpdu);
        if (tagged) {
          EXPECT_EQ(g.seg.stag, m.m.stag);
          EXPECT_EQ(g.seg.to, m.m.to + got.size());
        } else {
          EXPECT_EQ(g.seg.msn, msn[q]);
          EXPECT_EQ(g.seg.mo, got.size());
        }
        if (m.m.opcode == XIW_OP_SEND_SE_INV) {
          EXPECT_EQ(g.seg.stag, m.m.stag);
        }
        if (m.m.opcode == XIW_OP_READ_REQ) {
          EXPECT_EQ(g.seg.sink_stag, 7u);
          EXPECT_EQ(g.seg.sink_to, 0x1000u);
          EXPECT_EQ(g.seg.read_size, 1u << 20);
          EXPECT_EQ(g.seg.src_stag, 9u);
          EXPECT_EQ(g.seg.src_to, 0x2000u);
        }
        got.insert(got.end(), g.data.begin(), g.data.end());
        if (g.seg.last) break;
      }
      if (!tagged) msn[q]++;
      EXPECT_EQ(got, m.data) << "opcode " << int(m.m.opcode) << " size " << m.data.size();
    }
    EXPECT_EQ(i, rx.segs.size());
  }
}

// An MTU change mid-message: the FPDUs after it follow the new MULPDU
// (clamped to RFC 5044's 128..64768) and the message arrives whole.
TEST(DdpStream, MulpduChangesBetweenFpdus) {
  for (int mode = 0; mode < 4; mode++) {
    const bool markers = mode & 1, crc = mode & 2;
    Tx tx(cfg(markers, crc, 1000));
    Rx rx(cfg(markers, crc));
    const Bytes data = pattern(20000, 3);
    xiw_msg m = msg(XIW_OP_SEND, data.size());
    ASSERT_EQ(xiw_stx_begin(tx.h, &m), 0);
    const uint16_t steps[] = {1000, 300, 5000, 64, 65535, 1460};
    const uint16_t want[] = {1000, 300, 5000, 128, 64768, 1460};
    Bytes stream;
    std::vector<uint16_t> limit;
    for (size_t i = 0; !xiw_stx_idle(tx.h); i++) {
      const size_t k = i % 6;
      EXPECT_EQ(xiw_stx_set_mulpdu(tx.h, steps[k]), want[k]);
      Bytes buf(xiw_stx_fpdu_max(tx.h));
      const int n = xiw_stx_next(tx.h, buf.data(), buf.size(), Tx::fetch, const_cast<Bytes*>(&data));
      ASSERT_GT(n, 0);
      stream.insert(stream.end(), buf.begin(), buf.begin() + n);
      limit.push_back(want[k]);
    }
    ASSERT_EQ(rx.feed(stream), 0) << "mode " << mode;
    ASSERT_EQ(rx.segs.size(), limit.size());
    Bytes got;
    for (size_t i = 0; i < rx.segs.size(); i++) {
      EXPECT_LE(rx.segs[i].seg.len + 18, limit[i]) << "segment " << i;
      EXPECT_EQ(rx.segs[i].seg.mo, got.size());
      got.insert(got.end(), rx.segs[i].data.begin(), rx.segs[i].data.end());
    }
    EXPECT_TRUE(rx.segs.back().seg.last);
    EXPECT_EQ(got, data) << "mode " << mode;
  }
}

TEST(DdpStream, SenderRefusesBadMessages) {
  Tx tx(cfg(false, true));
  EXPECT_EQ(begin(tx, msg(XIW_OP_TERMINATE, 0)), -EINVAL);
  EXPECT_EQ(begin(tx, msg(9, 0)), -EINVAL);
  EXPECT_EQ(begin(tx, msg(XIW_OP_READ_REQ, 5)), -EINVAL);
  EXPECT_EQ(begin(tx, msg(XIW_OP_SEND, 5000)), 0);
  EXPECT_EQ(begin(tx, msg(XIW_OP_SEND, 1)), -EBUSY);
}

// A payload that cannot be fetched aborts the FPDU without disturbing the
// stream: the TERMINATE after it still frames and checks at the peer.
TEST(DdpStream, FetchErrorLeavesTheStreamUsable) {
  for (int markers = 0; markers < 2; markers++) {
    Tx tx(cfg(markers, true));
    Rx rx(cfg(markers, true));
    const Bytes good = join(tx.send(msg(XIW_OP_SEND, 700), pattern(700, 1)));
    ASSERT_EQ(begin(tx, msg(XIW_OP_SEND, 100)), 0);
    Bytes buf(xiw_stx_fpdu_max(tx.h));
    const Bytes tiny(10);  // shorter than the message: fetch fails
    EXPECT_EQ(xiw_stx_next(tx.h, buf.data(), buf.size(), Tx::fetch, const_cast<Bytes*>(&tiny)), -EFAULT);
    EXPECT_EQ(xiw_stx_position(tx.h), good.size());
    ASSERT_EQ(rx.feed(good), 0);
    // The receiver refuses nothing yet; make it report a local error.
    xiw_term_cause local = {0, 0, 0, 1};
    xiw_srx_fail(rx.h, &local);
    const int n = xiw_stx_terminate(tx.h, rx.h, buf.data(), buf.size());
    ASSERT_GT(n, 0);
    Rx peer(cfg(markers, true));
    ASSERT_EQ(peer.feed(good), 0);
    ASSERT_EQ(peer.feed(Bytes(buf.begin(), buf.begin() + n)), 0);
    ASSERT_EQ(peer.terms.size(), 1u);
    expect_cause(peer.terms[0], 0, 0, 0);
  }
}

// The gathering sender's view of a message: at most `chunk` octets per
// run (a page boundary, an SGE's end), refused from `refuse_at` on.
struct View {
  const Bytes* data;
  size_t chunk;
  size_t refuse_at = SIZE_MAX;
  int calls = 0;

  static int fn(void* ctx, xiw_u32 off, xiw_size len, const void** src) {
    View* v = static_cast<View*>(ctx);
    v->calls++;
    if (off >= v->refuse_at) return -EOPNOTSUPP;
    if (off + len > v->data->size()) return -EFAULT;
    *src = v->data->data() + off;
    return static_cast<int>(len < v->chunk ? len : v->chunk);
  }
};

// One FPDU of the open message as runs; empty on error (in *rc).
Bytes next_gathered(Tx& tx, View& v, size_t max_runs, int* rc, std::vector<xiw_iov>* runs_out = nullptr) {
  Bytes buf(xiw_stx_fpdu_max(tx.h));
  std::vector<xiw_iov> iov(max_runs);
  xiw_u32 runs = static_cast<xiw_u32>(max_runs);
  *rc = xiw_stx_next_iov(tx.h, buf.data(), buf.size(), View::fn, &v, iov.data(), &runs);
  Bytes out;
  if (*rc <= 0) return out;
  for (xiw_u32 i = 0; i < runs; i++) {
    const uint8_t* p = static_cast<const uint8_t*>(iov[i].base);
    out.insert(out.end(), p, p + iov[i].len);
  }
  if (runs_out) *runs_out = std::vector<xiw_iov>(iov.begin(), iov.begin() + runs);
  return out;
}

// A gathering send puts the same octets on the wire as a copying one, in
// every MPA mode: the payload runs point at the message itself and the
// CRC covers it there.
TEST(DdpStream, GatheringSendFramesTheSameOctets) {
  for (int mode = 0; mode < 4; mode++) {
    const bool markers = mode & 1, crc = mode & 2;
    Tx copying(cfg(markers, crc, 1400)), gathering(cfg(markers, crc, 1400));
    for (uint32_t size : {0u, 1u, 700u, 4096u, 20000u}) {
      xiw_msg m = msg(XIW_OP_WRITE, size);
      m.stag = 0x4242;
      const Bytes data = pattern(size, static_cast<uint8_t>(size));
      const std::vector<Bytes> want = copying.send(m, data);
      ASSERT_EQ(begin(gathering, m), 0);
      View v{&data, 333};
      for (const Bytes& fpdu : want) {
        int rc;
        std::vector<xiw_iov> runs;
        EXPECT_EQ(next_gathered(gathering, v, 64, &rc, &runs), fpdu) << "mode " << mode << " size " << size;
        EXPECT_EQ(rc, static_cast<int>(fpdu.size()));
        for (const xiw_iov& r : runs) {
          const uint8_t* p = static_cast<const uint8_t*>(r.base);
          const bool in_message = size && p >= data.data() && p < data.data() + data.size();
          // Framing runs are never longer than headers, PAD, CRC and a Marker.
          if (!in_message) {
            EXPECT_LE(r.len, 48u);
          }
        }
      }
      EXPECT_TRUE(xiw_stx_idle(gathering.h));
    }
  }
}

// Too many runs, or memory the view will not lend, leave the FPDU unsent:
// the same FPDU is then copied, and the peer takes the stream whole.
TEST(DdpStream, GatheringFallsBackToCopying) {
  for (int markers = 0; markers < 2; markers++) {
    Tx tx(cfg(markers, true, 1400));
    Rx rx(cfg(markers, true));
    const Bytes data = pattern(3000, 5);
    xiw_msg m = msg(XIW_OP_SEND, 3000);
    ASSERT_EQ(begin(tx, m), 0);
    Bytes stream;
    View few{&data, 100};
    int rc;
    EXPECT_TRUE(next_gathered(tx, few, 4, &rc).empty());
    EXPECT_EQ(rc, -ENOBUFS);
    View refusing{&data, 256, 1000};
    EXPECT_EQ(xiw_stx_position(tx.h), 0u);
    int refused = 0;
    for (int i = 0; !xiw_stx_idle(tx.h); i++) {
      Bytes fpdu = next_gathered(tx, refusing, 64, &rc);
      if (rc == -EOPNOTSUPP) {  // the first FPDU reaches offset 1000
        EXPECT_EQ(i, 0);
        refused++;
        Bytes buf(xiw_stx_fpdu_max(tx.h));
        rc = xiw_stx_next(tx.h, buf.data(), buf.size(), Tx::fetch, const_cast<Bytes*>(&data));
        ASSERT_GT(rc, 0);
        fpdu.assign(buf.begin(), buf.begin() + rc);
      }
      ASSERT_GT(rc, 0);
      stream.insert(stream.end(), fpdu.begin(), fpdu.end());
      refusing.refuse_at = SIZE_MAX;
    }
    EXPECT_EQ(refused, 1);
    ASSERT_EQ(rx.feed(stream), 0);
    Bytes got;
    for (const Seg& sg : rx.segs) got.insert(got.end(), sg.data.begin(), sg.data.end());
    EXPECT_EQ(got, data);
  }
}

// RFC 6581 section 9.2: an RTR is the first message of its queue, so the
// data that follows starts at MSN 2; the READ RTR's zero-length Read
// Response is consumed by the stream, never shown to placement.
TEST(DdpStream, RtrTakesTheFirstMsn) {
  for (uint8_t rtr : {XIW_MPA_CTRL_B, XIW_MPA_CTRL_D}) {
    xiw_stream_cfg tc = cfg(false, true);
    tc.rtr_sent = rtr;
    xiw_stream_cfg rc = cfg(false, true);
    rc.rtr_recv = rtr;
    Tx tx(tc);
    Rx rx(rc);
    xiw_msg m = msg(rtr == XIW_MPA_CTRL_B ? XIW_OP_SEND : XIW_OP_READ_REQ, 0);
    ASSERT_EQ(rx.feed(join(tx.send(m, {}))), 0);
    ASSERT_EQ(rx.segs.size(), 1u);
    EXPECT_EQ(rx.segs[0].seg.msn, 2u);
  }
  xiw_stream_cfg c = cfg(true, true);
  c.rtr_sent = XIW_MPA_CTRL_D;
  Rx rx(c);
  Tx peer(cfg(true, true));
  xiw_msg resp = msg(XIW_OP_READ_RESP, 0);
  ASSERT_EQ(rx.feed(join(peer.send(resp, {}))), 0);
  EXPECT_TRUE(rx.segs.empty());
  // A second one is a real Read Response and goes to placement.
  ASSERT_EQ(rx.feed(join(peer.send(resp, {}))), 0);
  EXPECT_EQ(rx.segs.size(), 1u);
}

// Without the RTR accounting the receiver wants MSN 1: MSN 2 is outside
// the window (RFC 5041 section 7.2, DDP untagged buffer error, code 3),
// and the TERMINATE names the segment (M, D and its header).
TEST(DdpStream, WrongMsnIsRefused) {
  xiw_stream_cfg tc = cfg(false, true);
  tc.rtr_sent = XIW_MPA_CTRL_B;
  Tx tx(tc);
  Rx rx(cfg(false, true));
  EXPECT_EQ(rx.feed(join(tx.send(msg(XIW_OP_SEND, 4), pattern(4, 0)))), -EPROTO);
  expect_cause(rx.cause(), 1, 2, 3);
  EXPECT_TRUE(rx.segs.empty());
  EXPECT_EQ(rx.feed({0, 0, 0, 0}), -EPROTO);  // the stream stays stopped

  Tx back(cfg(false, true));
  Bytes buf(xiw_stx_fpdu_max(back.h));
  const int n = xiw_stx_terminate(back.h, rx.h, buf.data(), buf.size());
  // ULPDU_Length, then untagged header 18 + control 4 + segment length 2
  // + DDP header 18, no PAD, CRC
  ASSERT_EQ(n, 2 + 42 + 4);
  EXPECT_EQ(buf[2 + 18], 0x12);  // Layer 1, EType 2
  EXPECT_EQ(buf[2 + 19], 3);     // code
  EXPECT_EQ(buf[2 + 20], 0xc0);  // M and D
  EXPECT_EQ(buf[2 + 22], 0);     // segment length: 22
  EXPECT_EQ(buf[2 + 23], 22);
  EXPECT_EQ(buf[2 + 24], 0x41);    // the refused header
  EXPECT_EQ(buf[2 + 24 + 13], 2);  // its MSN
}

// A segment whose header fails to decode is echoed with its own header,
// not the one before it: an untagged SEND with no such queue (QN 5, RFC
// 5041 section 7.2, code 1) after a tagged WRITE carries all 18 octets.
TEST(DdpStream, TerminateEchoesTheRefusedSegmentsOwnHeader) {
  Tx tx(cfg(false, false));
  Rx rx(cfg(false, false));
  xiw_msg w = msg(XIW_OP_WRITE, 8);
  w.stag = 0x1234;
  ASSERT_EQ(rx.feed(join(tx.send(w, pattern(8, 1)))), 0);
  std::vector<Bytes> f = tx.send(msg(XIW_OP_SEND, 4), pattern(4, 2));
  ASSERT_EQ(f.size(), 1u);
  f[0][2 + 9] = 5;  // the low octet of QN
  EXPECT_EQ(rx.feed(f[0]), -EPROTO);
  expect_cause(rx.cause(), 1, 2, 1);

  Tx back(cfg(false, false));
  Bytes buf(xiw_stx_fpdu_max(back.h));
  const int n = xiw_stx_terminate(back.h, rx.h, buf.data(), buf.size());
  ASSERT_EQ(n, 2 + 42 + 4);      // an untagged header echoed in full
  EXPECT_EQ(buf[2 + 20], 0xc0);  // M and D
  EXPECT_EQ(buf[2 + 24], 0x41);  // the SEND's DDPctl, not the WRITE's
  EXPECT_EQ(buf[2 + 24 + 9], 5);
}

// A segment that is not its message's last must carry payload: empty ones
// would all sit at MO 0 and each could claim a new receive (RFC 5041
// section 7.2, invalid MO, code 4). An empty last segment is a message.
TEST(DdpStream, EmptySegmentBeforeTheLastIsRefused) {
  Tx tx(cfg(false, false));
  Rx rx(cfg(false, false));
  ASSERT_EQ(rx.feed(join(tx.send(msg(XIW_OP_SEND, 0), {}))), 0);  // MSN 1
  std::vector<Bytes> f = tx.send(msg(XIW_OP_SEND, 0), {});        // MSN 2
  ASSERT_EQ(f.size(), 1u);
  f[0][2] = 0x01;  // DDPctl without L (no CRC to mend)
  EXPECT_EQ(rx.feed(f[0]), -EPROTO);
  expect_cause(rx.cause(), 1, 2, 4);
  ASSERT_EQ(rx.segs.size(), 1u);  // only the first message
  EXPECT_TRUE(rx.segs[0].ended);
}

// A lost middle segment: the next one's MO is not the expected one
// (RFC 5041 section 7.2, code 4).
TEST(DdpStream, MissingSegmentIsAnMoError) {
  Tx tx(cfg(false, true, 200));
  Rx rx(cfg(false, true));
  const std::vector<Bytes> f = tx.send(msg(XIW_OP_SEND, 500), pattern(500, 3));
  ASSERT_GE(f.size(), 3u);
  ASSERT_EQ(rx.feed(f[0]), 0);
  EXPECT_EQ(rx.feed(f[2]), -EPROTO);
  expect_cause(rx.cause(), 1, 2, 4);
}

// Each glue refusal becomes the RFC's triplet for the kind of segment.
TEST(DdpStream, RefusalsMapToTheRfcCodes) {
  struct Case {
    uint8_t op;
    int reason;
    uint8_t layer, etype, code;
  } cases[] = {
      {XIW_OP_WRITE, XIW_RX_STAG_INVALID, 1, 1, 0},
      {XIW_OP_WRITE, XIW_RX_BOUNDS, 1, 1, 1},
      {XIW_OP_WRITE, XIW_RX_NOT_IN_STREAM, 1, 1, 2},
      {XIW_OP_WRITE, XIW_RX_ACCESS, 0, 1, 2},
      {XIW_OP_READ_REQ, XIW_RX_STAG_INVALID, 0, 1, 0},
      {XIW_OP_READ_REQ, XIW_RX_BOUNDS, 0, 1, 1},
      {XIW_OP_WRITE, XIW_RX_TO_WRAP, 1, 1, 3},
      {XIW_OP_READ_RESP, XIW_RX_TO_WRAP, 1, 1, 3},
      {XIW_OP_READ_REQ, XIW_RX_TO_WRAP, 0, 1, 4},
      {XIW_OP_READ_REQ, XIW_RX_READ_QUEUE_FULL, 0, 2, 7},
      {XIW_OP_SEND, XIW_RX_NO_BUFFER, 1, 2, 2},
      {XIW_OP_SEND, XIW_RX_TOO_LONG, 1, 2, 5},
      {XIW_OP_SEND_INV, XIW_RX_CANNOT_INVALIDATE, 0, 2, 9},
      {XIW_OP_READ_RESP, XIW_RX_UNEXPECTED, 0, 2, 6},
      {XIW_OP_SEND, XIW_RX_LOCAL, 0, 0, 0},
  };
  for (const Case& c : cases) {
    Tx tx(cfg(false, true));
    Rx rx(cfg(false, true));
    rx.refuse = c.reason;
    EXPECT_EQ(rx.feed(join(tx.send(msg(c.op, 0), {}))), -EPROTO);
    SCOPED_TRACE(c.reason);
    expect_cause(rx.cause(), c.layer, c.etype, c.code);
  }
}

// ULPDUs that are not DDP segments: shorter than the control octets,
// shorter than their header, a Read Request with payload, a bad version.
TEST(DdpStream, MalformedSegmentsAreRefused) {
  struct Case {
    Bytes ulpdu;
    uint8_t layer, etype, code;
  } cases[] = {
      {{0x41}, 1, 0, 0},
      {{0x41, 0x43, 0, 0}, 1, 0, 0},
      {{0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0,    0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9},
       1,
       2,
       5},
      {{0x42, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}, 1, 2, 6},
      {{0x41, 0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}, 0, 2, 5},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> txm(xiw_mpa_tx_size());
    xiw_mpa_tx* const mtx = xiw_mpa_tx_init(txm.data(), &xiw_test::host_env(), 0, 1);
    Bytes fpdu(128);
    const int n = xiw_mpa_tx_encode(mtx, c.ulpdu.data(), c.ulpdu.size(), fpdu.data(), fpdu.size());
    ASSERT_GT(n, 0);
    fpdu.resize(n);
    Rx rx(cfg(false, true));
    EXPECT_EQ(rx.feed(fpdu), -EPROTO);
    SCOPED_TRACE(c.ulpdu.size());
    expect_cause(rx.cause(), c.layer, c.etype, c.code);
    EXPECT_TRUE(rx.segs.empty());
  }
}

// MPA errors stop the stream with Layer 2, EType 0 and the MPA code.
TEST(DdpStream, CrcErrorIsAnMpaTerminate) {
  Tx tx(cfg(false, true));
  Rx rx(cfg(false, true));
  Bytes s = join(tx.send(msg(XIW_OP_SEND, 40), pattern(40, 9)));
  s[30] ^= 1;
  EXPECT_EQ(rx.feed(s), -EBADMSG);
  expect_cause(rx.cause(), 2, 0, 2);
  ASSERT_EQ(rx.segs.size(), 1u);
  EXPECT_FALSE(rx.segs[0].ended);  // placed perhaps, never delivered
}

// A received TERMINATE is decoded and handed up, whatever its MSN.
TEST(DdpStream, TerminateIsReported) {
  Rx victim(cfg(false, true));
  Tx bad(cfg(false, true));
  victim.refuse = XIW_RX_BOUNDS;
  EXPECT_EQ(victim.feed(join(bad.send(msg(XIW_OP_WRITE, 8), pattern(8, 1)))), -EPROTO);
  Tx tx(cfg(true, true));
  Rx rx(cfg(true, true));
  Bytes buf(xiw_stx_fpdu_max(tx.h));
  for (int i = 0; i < 2; i++) {
    const int n = xiw_stx_terminate(tx.h, victim.h, buf.data(), buf.size());
    ASSERT_GT(n, 0);
    ASSERT_EQ(rx.feed(Bytes(buf.begin(), buf.begin() + n)), 0);
  }
  ASSERT_EQ(rx.terms.size(), 2u);
  expect_cause(rx.terms[1], 1, 1, 1);
}

}  // namespace
