// SPDX-License-Identifier: GPL-2.0
// The C entry points of include/xiw/tx_order.h.
#include <xiw/tx_order.h>

#include "rdmap/tx_order.h"

namespace r = xiw::rdmap;

extern "C" {

void xiw_tx_order_init(struct xiw_tx_order* o) { *o = {}; }

int xiw_tx_may_start(const struct xiw_tx_order* o, xiw_u32 flags, xiw_u32 ord) {
  return r::may_start(*o, flags, ord);
}

void xiw_tx_started(struct xiw_tx_order* o, xiw_u32 flags) { r::started(*o, flags); }

int xiw_tx_read_done(struct xiw_tx_order* o) { return r::read_done(*o) ? 0 : XIW_RX_UNEXPECTED; }

xiw_u32 xiw_tx_rreq_held(const struct xiw_tx_order* o) { return r::rreq_held(*o); }

int xiw_tx_rreq_admit(struct xiw_tx_order* o, xiw_u32* slot) { return r::rreq_admit(*o, slot); }

int xiw_tx_rresp_first(const struct xiw_tx_order* o) { return r::rresp_first(*o); }

int xiw_tx_rresp_next(struct xiw_tx_order* o, xiw_u32* slot) { return r::rresp_next(*o, slot); }

void xiw_tx_rresp_built(struct xiw_tx_order* o) { r::rresp_built(*o); }

void xiw_tx_order_flush(struct xiw_tx_order* o) { r::flush(*o); }

}  // extern "C"
