// SPDX-License-Identifier: GPL-2.0
// Transmit order (include/xiw/tx_order.h): the fence, the ORD and the IRD
// as counts over free-running indices. Every function is called under the
// glue's send-queue lock; none allocates or fails but as documented.
#pragma once

#include <xiw/tx_order.h>

#include "../kstd/types.h"

namespace xiw::rdmap {

using kstd::u32;

// The next work request may start: a fence waits for every READ out, a
// READ for a free ORD slot (ORD 0 lets one go).
bool may_start(const xiw_tx_order& o, u32 flags, u32 ord);
void started(xiw_tx_order& o, u32 flags);
bool read_done(xiw_tx_order& o);

// Inbound Read Requests: arrived (tail) >= started (head) >= built (done).
u32 rreq_held(const xiw_tx_order& o);
bool rresp_first(const xiw_tx_order& o);
int rreq_admit(xiw_tx_order& o, u32* slot);  // slot-bounded: the IRD is the placer's
bool rresp_next(xiw_tx_order& o, u32* slot);
void rresp_built(xiw_tx_order& o);
void flush(xiw_tx_order& o);

}  // namespace xiw::rdmap
