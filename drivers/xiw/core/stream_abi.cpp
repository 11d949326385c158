// SPDX-License-Identifier: GPL-2.0
// The C entry points of include/xiw/stream.h.
#include <xiw/stream.h>

#include "abi.h"
#include "ddp/stream.h"
#include "kstd/new.h"

using xiw::ddp::Receiver;
using xiw::ddp::Sender;

// The C handles are the sender and the receiver themselves.
struct xiw_stx : Sender {
  using Sender::Sender;
};
struct xiw_srx : Receiver {
  using Receiver::Receiver;
};

extern "C" {

xiw_size xiw_stx_size(void) { return sizeof(xiw_stx); }

struct xiw_stx* xiw_stx_init(void* mem, const struct xiw_env* env, const struct xiw_stream_cfg* cfg) {
  xiw_stx* tx = new (mem) xiw_stx(*env);
  tx->start(*cfg);
  return tx;
}

int xiw_stx_begin(struct xiw_stx* tx, const struct xiw_msg* msg) { return tx->begin(*msg); }

int xiw_stx_idle(const struct xiw_stx* tx) { return tx->idle(); }

xiw_size xiw_stx_fpdu_max(const struct xiw_stx* tx) { return tx->fpdu_max(); }

xiw_u16 xiw_stx_set_mulpdu(struct xiw_stx* tx, xiw_u16 mulpdu) { return tx->set_mulpdu(mulpdu); }

int xiw_stx_next(struct xiw_stx* tx, void* buf, xiw_size len, xiw_fetch_fn fetch, void* ctx) {
  return xiw::abi::to_abi(tx->next(kstd::as_writable_bytes(buf, len), fetch, ctx));
}

int xiw_stx_next_iov(struct xiw_stx* tx, void* buf, xiw_size len, xiw_view_fn view, void* ctx,
                     struct xiw_iov* iov, xiw_u32* runs) {
  kstd::usize used = 0;
  const int r = xiw::abi::to_abi(
      tx->next_iov(kstd::as_writable_bytes(buf, len), view, ctx, kstd::Span<xiw_iov>(iov, *runs), &used));
  *runs = static_cast<xiw_u32>(used);
  return r;
}

int xiw_stx_terminate(struct xiw_stx* tx, const struct xiw_srx* rx, void* buf, xiw_size len) {
  return xiw::abi::to_abi(tx->terminate(rx->terminate(), kstd::as_writable_bytes(buf, len)));
}

xiw_u32 xiw_stx_position(const struct xiw_stx* tx) { return tx->position(); }

xiw_size xiw_srx_size(void) { return sizeof(xiw_srx); }

struct xiw_srx* xiw_srx_init(void* mem, const struct xiw_env* env, const struct xiw_stream_cfg* cfg) {
  xiw_srx* rx = new (mem) xiw_srx(*env);
  rx->start(*cfg);
  return rx;
}

int xiw_srx_consume(struct xiw_srx* rx, const void* buf, xiw_size len, const struct xiw_stream_sink* sink,
                    void* ctx) {
  return rx->consume(kstd::as_bytes(buf, buf ? len : 0), *sink, ctx);
}

void xiw_srx_cause(const struct xiw_srx* rx, struct xiw_term_cause* out) {
  const xiw::ddp::TermError& e = rx->cause();
  *out = {e.layer, e.etype, e.code, static_cast<xiw_u8>(rx->failed())};
}

void xiw_srx_fail(struct xiw_srx* rx, const struct xiw_term_cause* cause) {
  rx->fail({cause->layer, cause->etype, cause->code});
}

}  // extern "C"
