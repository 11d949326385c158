// SPDX-License-Identifier: GPL-2.0
// The C entry points of include/xiw/stream.h.
#include <xiw/stream.h>

#include "abi.h"
#include "ddp/stream.h"
#include "kstd/new.h"

namespace {

using xiw::ddp::Receiver;
using xiw::ddp::Sender;

Sender* tx_of(void* p) { return static_cast<Sender*>(p); }
const Sender* tx_of(const void* p) { return static_cast<const Sender*>(p); }
Receiver* rx_of(void* p) { return static_cast<Receiver*>(p); }
const Receiver* rx_of(const void* p) { return static_cast<const Receiver*>(p); }

}  // namespace

extern "C" {

xiw_size xiw_stx_size(void) { return sizeof(Sender); }

void xiw_stx_init(void* mem, const struct xiw_env* env, const struct xiw_stream_cfg* cfg) {
  new (mem) Sender(*env);
  tx_of(mem)->start(*cfg);
}

int xiw_stx_begin(void* tx, const struct xiw_msg* msg) { return tx_of(tx)->begin(*msg); }

int xiw_stx_idle(const void* tx) { return tx_of(tx)->idle(); }

xiw_size xiw_stx_fpdu_max(const void* tx) { return tx_of(tx)->fpdu_max(); }

xiw_u16 xiw_stx_set_mulpdu(void* tx, xiw_u16 mulpdu) { return tx_of(tx)->set_mulpdu(mulpdu); }

int xiw_stx_next(void* tx, void* buf, xiw_size len, xiw_fetch_fn fetch, void* ctx) {
  return xiw::abi::to_abi(tx_of(tx)->next(kstd::as_writable_bytes(buf, len), fetch, ctx));
}

int xiw_stx_next_iov(void* tx, void* buf, xiw_size len, xiw_view_fn view, void* ctx, struct xiw_iov* iov,
                     xiw_u32* runs) {
  kstd::usize used = 0;
  const int r = xiw::abi::to_abi(tx_of(tx)->next_iov(kstd::as_writable_bytes(buf, len), view, ctx,
                                                     kstd::Span<xiw_iov>(iov, *runs), &used));
  *runs = static_cast<xiw_u32>(used);
  return r;
}

int xiw_stx_terminate(void* tx, const void* rx, void* buf, xiw_size len) {
  return xiw::abi::to_abi(tx_of(tx)->terminate(rx_of(rx)->terminate(), kstd::as_writable_bytes(buf, len)));
}

xiw_u32 xiw_stx_position(const void* tx) { return tx_of(tx)->position(); }

xiw_size xiw_srx_size(void) { return sizeof(Receiver); }

void xiw_srx_init(void* mem, const struct xiw_env* env, const struct xiw_stream_cfg* cfg) {
  new (mem) Receiver(*env);
  rx_of(mem)->start(*cfg);
}

int xiw_srx_consume(void* rx, const void* buf, xiw_size len, const struct xiw_stream_sink* sink, void* ctx) {
  return rx_of(rx)->consume(kstd::as_bytes(buf, buf ? len : 0), *sink, ctx);
}

void xiw_srx_cause(const void* rx, struct xiw_term_cause* out) {
  const Receiver* r = rx_of(rx);
  const xiw::ddp::TermError& e = r->cause();
  *out = {e.layer, e.etype, e.code, static_cast<xiw_u8>(r->failed())};
}

void xiw_srx_fail(void* rx, const struct xiw_term_cause* cause) {
  rx_of(rx)->fail({cause->layer, cause->etype, cause->code});
}

}  // extern "C"
