// SPDX-License-Identifier: GPL-2.0
// The C entry points of include/xiw/send_queue.h.
#include <xiw/send_queue.h>

#include "rdmap/send_queue.h"

namespace r = xiw::rdmap;

extern "C" {

void xiw_sq_init(struct xiw_sq* q, struct xiw_sq_slot* slots, xiw_u32 size) { r::sq_init(*q, slots, size); }

int xiw_sq_reserve(const struct xiw_sq* q, xiw_u32* idx) { return r::sq_reserve(*q, idx) ? 0 : -XIW_ENOMEM; }

void xiw_sq_post(struct xiw_sq* q, xiw_u32 flags) { r::sq_post(*q, flags); }

void xiw_sq_post_done(struct xiw_sq* q, xiw_u8 status) { r::sq_post_done(*q, status); }

int xiw_sq_next(struct xiw_sq* q, const struct xiw_tx_order* o, xiw_u32 ord, xiw_u32* idx) {
  return r::sq_next(*q, *o, ord, idx);
}

void xiw_sq_start(struct xiw_sq* q, struct xiw_tx_order* o, xiw_u32 idx) { r::sq_start(*q, *o, idx); }

void xiw_sq_done(struct xiw_sq* q, xiw_u32 idx, xiw_u8 status) { r::sq_done(*q, idx, status); }

int xiw_sq_sent(struct xiw_sq* q, xiw_u32 idx, int zc) {
  return r::sq_sent(*q, idx, zc != 0) ? 0 : -XIW_EINVAL;
}

void xiw_sq_zc_released(struct xiw_sq* q, xiw_u32 idx, int in_error) {
  r::sq_zc_released(*q, idx, in_error != 0);
}

int xiw_sq_read_oldest(const struct xiw_sq* q, xiw_u32* idx) {
  return r::sq_read_oldest(*q, idx) ? 0 : XIW_RX_UNEXPECTED;
}

int xiw_sq_read_done(struct xiw_sq* q, struct xiw_tx_order* o, xiw_u32* idx) {
  return r::sq_read_done(*q, *o, idx) ? 0 : XIW_RX_UNEXPECTED;
}

int xiw_sq_complete(struct xiw_sq* q, struct xiw_sq_cqe* c) { return r::sq_complete(*q, c); }

int xiw_sq_flush(struct xiw_sq* q, struct xiw_sq_cqe* c) { return r::sq_flush(*q, c); }

}  // extern "C"
