// SPDX-License-Identifier: GPL-2.0
// The C entry points of include/xiw/mpa_conn.h: the Startup Phase state
// machine and the Full Operation framer over plain ABI structs.
#include <xiw/mpa_conn.h>

#include "abi.h"
#include "kstd/new.h"
#include "mpa/fpdu.h"
#include "mpa/handshake.h"

namespace {

using xiw::mpa::Handshake;

static_assert(alignof(Handshake) <= 8 && alignof(xiw::mpa::FpduTx) <= 8 && alignof(xiw::mpa::FpduRx) <= 8);

void to_abi(const Handshake::Step& s, xiw_mpa_step* out) {
  *out = {};
  out->send = s.send.data();
  out->send_len = static_cast<xiw_u32>(s.send.size());
  out->consumed = static_cast<xiw_u32>(s.consumed);
  out->timer_ms = s.timer_ms;
  out->timer = static_cast<xiw_u8>(s.timer);
  out->upcall = static_cast<xiw_u8>(s.upcall);
  out->terminate = static_cast<xiw_u8>(s.terminate);
  out->rtr = s.rtr;
  out->close_after_send = s.close_after_send;
  out->retry_unenhanced = s.retry_unenhanced;
}

xiw::mpa::ReadDepths depths_of(const xiw_mpa_depths* d) {
  if (d == nullptr) return {};
  return {d->ird, d->ord, d->max_ird, d->max_ord};
}

static_assert(XIW_MPA_TIMER_KEEP == static_cast<int>(Handshake::Timer::keep) &&
              XIW_MPA_TIMER_ARM == static_cast<int>(Handshake::Timer::arm) &&
              XIW_MPA_TIMER_CANCEL == static_cast<int>(Handshake::Timer::cancel));
static_assert(XIW_MPA_UP_NONE == static_cast<int>(Handshake::Upcall::none) &&
              XIW_MPA_UP_REQUEST == static_cast<int>(Handshake::Upcall::connect_request) &&
              XIW_MPA_UP_CONNECTED == static_cast<int>(Handshake::Upcall::connected) &&
              XIW_MPA_UP_REJECTED == static_cast<int>(Handshake::Upcall::rejected) &&
              XIW_MPA_UP_FAILED == static_cast<int>(Handshake::Upcall::failed));
static_assert(XIW_MPA_HS_IDLE == static_cast<int>(Handshake::State::idle) &&
              XIW_MPA_HS_AWAIT_REQUEST == static_cast<int>(Handshake::State::await_request) &&
              XIW_MPA_HS_AWAIT_REPLY == static_cast<int>(Handshake::State::await_reply) &&
              XIW_MPA_HS_AWAIT_ULP == static_cast<int>(Handshake::State::await_ulp) &&
              XIW_MPA_HS_AWAIT_RTR == static_cast<int>(Handshake::State::await_rtr) &&
              XIW_MPA_HS_RTR_PENDING == static_cast<int>(Handshake::State::rtr_pending) &&
              XIW_MPA_HS_ESTABLISHED == static_cast<int>(Handshake::State::established) &&
              XIW_MPA_HS_REJECTED == static_cast<int>(Handshake::State::rejected) &&
              XIW_MPA_HS_CLOSED == static_cast<int>(Handshake::State::closed));
static_assert(XIW_MPA_MARKER_INTERVAL == xiw::mpa::kMarkerInterval);
static_assert(XIW_MPA_CRC_SUPPRESS == static_cast<int>(xiw::mpa::CrcPolicy::suppress) &&
              XIW_MPA_MARKERS_REFUSE == static_cast<int>(xiw::mpa::MarkerPolicy::refuse));

// C ABI sink over the template sink of FpduRx.
struct AbiSink {
  const xiw_mpa_rx_sink* ops;
  void* ctx;
  int ulpdu_begin(kstd::u16 len) { return ops->begin(ctx, len); }
  int ulpdu_data(kstd::Bytes run) { return ops->data(ctx, run.data(), run.size()); }
  int ulpdu_end() { return ops->end(ctx); }
};

}  // namespace

// The C handles are the core's objects themselves.
struct xiw_mpa_hs : Handshake {
  using Handshake::Handshake;
};
struct xiw_mpa_tx : xiw::mpa::FpduTx {
  using FpduTx::FpduTx;
};
struct xiw_mpa_rx : xiw::mpa::FpduRx {
  using FpduRx::FpduRx;
};

extern "C" {

xiw_size xiw_mpa_hs_size(void) { return sizeof(xiw_mpa_hs); }

struct xiw_mpa_hs* xiw_mpa_hs_init(void* mem, xiw_size len, const struct xiw_mpa_policy* p) {
  if (mem == nullptr || p == nullptr || len < sizeof(xiw_mpa_hs)) return nullptr;
  if ((p->rev != 1 && p->rev != 2) || p->crc > XIW_MPA_CRC_SUPPRESS || p->markers > XIW_MPA_MARKERS_REFUSE ||
      (p->rtr_types & ~xiw::mpa::kRtrAll) != 0 ||
      // RFC 6581 section 9.2: an enhanced endpoint supports an RTR type.
      (p->rtr_types == 0 && p->rev >= 2))
    return nullptr;
  xiw::mpa::Policy policy;
  policy.rev = p->rev;
  policy.crc = static_cast<xiw::mpa::CrcPolicy>(p->crc);
  policy.markers = static_cast<xiw::mpa::MarkerPolicy>(p->markers);
  policy.peer_to_peer = p->peer_to_peer != 0;
  policy.rtr_types = p->rtr_types;
  policy.reject_short_ird = p->reject_short_ird != 0;
  policy.retry_unenhanced = p->retry_unenhanced != 0;
  policy.gso = p->gso != 0;
  const xiw::mpa::Timeouts t = {p->request_ms, p->reply_ms, p->ulp_ms, p->rtr_ms};
  return new (mem) xiw_mpa_hs(policy, t);
}

void xiw_mpa_hs_connect(struct xiw_mpa_hs* hs, const struct xiw_mpa_depths* d, const void* pd, xiw_u16 pd_len,
                        struct xiw_mpa_step* out) {
  to_abi(hs->connect(depths_of(d), kstd::as_bytes(pd, pd ? pd_len : 0)), out);
}

void xiw_mpa_hs_listen(struct xiw_mpa_hs* hs, struct xiw_mpa_step* out) { to_abi(hs->listen(), out); }

void xiw_mpa_hs_receive(struct xiw_mpa_hs* hs, const void* buf, xiw_size len, struct xiw_mpa_step* out) {
  to_abi(hs->receive(kstd::as_bytes(buf, buf ? len : 0)), out);
}

xiw_size xiw_mpa_hs_rx_need(const struct xiw_mpa_hs* hs) { return hs->receive_need(); }

void xiw_mpa_hs_accept(struct xiw_mpa_hs* hs, const struct xiw_mpa_depths* d, const void* pd, xiw_u16 pd_len,
                       struct xiw_mpa_step* out) {
  to_abi(hs->accept(depths_of(d), kstd::as_bytes(pd, pd ? pd_len : 0)), out);
}

void xiw_mpa_hs_reject(struct xiw_mpa_hs* hs, const void* pd, xiw_u16 pd_len, struct xiw_mpa_step* out) {
  to_abi(hs->reject(kstd::as_bytes(pd, pd ? pd_len : 0)), out);
}

void xiw_mpa_hs_rtr_sent(struct xiw_mpa_hs* hs, struct xiw_mpa_step* out) { to_abi(hs->rtr_sent(), out); }

void xiw_mpa_hs_first_fpdu(struct xiw_mpa_hs* hs, xiw_u8 rtr, struct xiw_mpa_step* out) {
  to_abi(hs->first_fpdu(rtr), out);
}

void xiw_mpa_hs_first_fpdu_unreadable(struct xiw_mpa_hs* hs, int framing, struct xiw_mpa_step* out) {
  to_abi(hs->first_fpdu_unreadable(static_cast<xiw::mpa::MpaError>(framing)), out);
}

void xiw_mpa_hs_timeout(struct xiw_mpa_hs* hs, struct xiw_mpa_step* out) { to_abi(hs->timeout(), out); }

void xiw_mpa_hs_llp_closed(struct xiw_mpa_hs* hs, struct xiw_mpa_step* out) { to_abi(hs->llp_closed(), out); }

int xiw_mpa_hs_state(const struct xiw_mpa_hs* hs) { return static_cast<int>(hs->state()); }
int xiw_mpa_hs_error(const struct xiw_mpa_hs* hs) { return hs->error(); }
int xiw_mpa_hs_may_send(const struct xiw_mpa_hs* hs) { return hs->may_send(); }

const char* xiw_mpa_hs_failure(const struct xiw_mpa_hs* hs, int* term) {
  *term = static_cast<int>(hs->term_sent());
  return hs->failure();
}

void xiw_mpa_hs_agreed(const struct xiw_mpa_hs* hs, struct xiw_mpa_agreed* out) {
  const xiw::mpa::Negotiated& n = hs->agreed();
  *out = {};
  out->rev = n.rev;
  out->enhanced = n.enhanced;
  out->crc = n.crc;
  out->send_markers = n.send_markers;
  out->recv_markers = n.recv_markers;
  out->peer_to_peer = n.peer_to_peer;
  out->gso = n.gso;
  out->rtr = n.rtr;
  out->ird = n.ird;
  out->ord = n.ord;
  out->peer_ird = n.peer_ird;
  out->peer_ord = n.peer_ord;
}

void xiw_mpa_hs_peer_frame(const struct xiw_mpa_hs* hs, struct xiw_mpa_frame* out, const void** pd) {
  const Handshake* h = hs;
  const xiw::mpa::StartupFrame& f = h->initiator() ? h->reply() : h->request();
  xiw::abi::to_abi(f, out);
  *pd = f.private_data.data();
}

xiw_size xiw_mpa_tx_size(void) { return sizeof(xiw_mpa_tx); }

struct xiw_mpa_tx* xiw_mpa_tx_init(void* mem, const struct xiw_env* env, int markers, int crc) {
  xiw_mpa_tx* tx = new (mem) xiw_mpa_tx(*env);
  tx->start(markers != 0, crc != 0);
  return tx;
}

int xiw_mpa_tx_encode(struct xiw_mpa_tx* tx, const void* ulpdu, xiw_size len, void* out, xiw_size out_len) {
  const kstd::Result<kstd::usize> n =
      tx->encode(kstd::as_bytes(ulpdu, ulpdu ? len : 0), kstd::as_writable_bytes(out, out_len));
  return n.ok() ? static_cast<int>(n.value()) : n.error();
}

xiw_size xiw_mpa_fpdu_wire_len(xiw_size len, xiw_u32 pos, int markers) {
  return xiw::mpa::fpdu_wire_length(len, pos, markers != 0);
}

xiw_u32 xiw_mpa_tx_position(const struct xiw_mpa_tx* tx) { return tx->position(); }

xiw_u32 xiw_mpa_rx_position(const struct xiw_mpa_rx* rx) { return rx->position(); }

xiw_u16 xiw_mpa_mulpdu(xiw_u32 emss, int markers) { return xiw::mpa::mulpdu(emss, markers != 0); }

xiw_size xiw_mpa_rx_size(void) { return sizeof(xiw_mpa_rx); }

struct xiw_mpa_rx* xiw_mpa_rx_init(void* mem, const struct xiw_env* env, int markers, int crc) {
  xiw_mpa_rx* rx = new (mem) xiw_mpa_rx(*env);
  rx->start(markers != 0, crc != 0);
  return rx;
}

int xiw_mpa_rx_consume(struct xiw_mpa_rx* rx, const void* buf, xiw_size len,
                       const struct xiw_mpa_rx_sink* sink, void* ctx) {
  AbiSink s = {sink, ctx};
  return rx->consume(kstd::as_bytes(buf, buf ? len : 0), s);
}

int xiw_mpa_rx_error(const struct xiw_mpa_rx* rx) { return static_cast<int>(rx->error()); }

}  // extern "C"
