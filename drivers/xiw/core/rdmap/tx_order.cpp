// SPDX-License-Identifier: GPL-2.0
#include "tx_order.h"

#include <xiw/stream.h>

namespace xiw::rdmap {

bool may_start(const xiw_tx_order& o, u32 flags, u32 ord) {
  if (o.reads_out == 0) return true;  // with ORD 0 too: one READ goes
  if (flags & XIW_WR_FENCE) return false;
  return !(flags & XIW_WR_READ) || o.reads_out < ord;
}

// A send queue message started: the Read Responses' run ends.
void started(xiw_tx_order& o, u32 flags) {
  o.rresp_run = 0;
  if (flags & XIW_WR_READ) o.reads_out++;
}

bool read_done(xiw_tx_order& o) {
  if (o.reads_out == 0) return false;
  o.reads_out--;
  return true;
}

// Held from arrival until the response is built in full: the one being
// answered counts too.
u32 rreq_held(const xiw_tx_order& o) { return o.irq_tail - o.irq_done; }

int rreq_admit(xiw_tx_order& o, u32* slot) {
  if (rreq_held(o) >= XIW_TX_IRQ_SLOTS) return XIW_RX_READ_QUEUE_FULL;
  *slot = o.irq_tail++ % XIW_TX_IRQ_SLOTS;
  return 0;
}

bool rresp_first(const xiw_tx_order& o) {
  return o.irq_head != o.irq_tail && o.rresp_run < XIW_TX_RRESP_BURST;
}

// The run saturates: past the burst the send queue goes first until it
// has started a message (started()) or has nothing that may start.
bool rresp_next(xiw_tx_order& o, u32* slot) {
  if (o.irq_head == o.irq_tail) return false;
  *slot = o.irq_head++ % XIW_TX_IRQ_SLOTS;
  if (o.rresp_run < XIW_TX_RRESP_BURST) o.rresp_run++;
  return true;
}

// Only a started response can be built.
void rresp_built(xiw_tx_order& o) {
  if (o.irq_done != o.irq_head) o.irq_done++;
}

void flush(xiw_tx_order& o) {
  o.reads_out = 0;
  o.irq_head = o.irq_tail;
  o.irq_done = o.irq_tail;
  o.rresp_run = 0;
}

}  // namespace xiw::rdmap
