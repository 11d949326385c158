// SPDX-License-Identifier: GPL-2.0
// The C entry points of the placement rules (include/xiw/stream.h).
#include <xiw/stream.h>

#include "rdmap/place.h"

extern "C" {

int xiw_place_send(const struct xiw_seg* seg, xiw_u32 recv_len) {
  return xiw::rdmap::place_send(seg->mo, seg->len, recv_len);
}

int xiw_place_read_req(xiw_u32 outstanding, xiw_u32 ird) {
  return xiw::rdmap::place_read_req(outstanding, ird);
}

int xiw_place_read_resp(const struct xiw_seg* seg, const struct xiw_read_sink* read) {
  return xiw::rdmap::place_read_resp(seg->stag, seg->to, seg->len, seg->last != 0, read);
}

}  // extern "C"
