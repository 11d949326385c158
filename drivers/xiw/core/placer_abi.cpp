// SPDX-License-Identifier: GPL-2.0
// The C entry points of include/xiw/placer.h.
#include <xiw/placer.h>

#include "kstd/new.h"
#include "rdmap/placer.h"

using xiw::rdmap::Placer;

// The C handle is the placer itself.
struct xiw_placer : Placer {
  using Placer::Placer;
};

extern "C" {

xiw_size xiw_placer_size(void) { return sizeof(xiw_placer); }

struct xiw_placer* xiw_placer_init(void* mem, const struct xiw_rx_ops* ops, struct xiw_qp* qp) {
  return new (mem) xiw_placer(*ops, qp);
}

int xiw_placer_consume(struct xiw_placer* p, struct xiw_srx* srx, const void* buf, xiw_size len) {
  return xiw_srx_consume(srx, buf, len, &Placer::kSink, static_cast<Placer*>(p));
}

const struct xiw_stream_sink* xiw_placer_sink(void) { return &Placer::kSink; }

}  // extern "C"
