// SPDX-License-Identifier: GPL-2.0
// The send queue's life cycle (include/xiw/send_queue.h): three
// free-running indices over the glue's slots, and each slot's state. Every
// function is called under the glue's send-queue lock; none allocates.
#pragma once

#include <xiw/send_queue.h>

#include "../kstd/types.h"

namespace xiw::rdmap {

using kstd::u32;
using kstd::u8;

enum class SlotState : u8 { kPosted = 0, kOut = 1, kZc = 2, kDone = 3 };

void sq_init(xiw_sq& q, xiw_sq_slot* slots, u32 size);
bool sq_reserve(const xiw_sq& q, u32* idx);
void sq_post(xiw_sq& q, u32 flags);
void sq_post_done(xiw_sq& q, u8 status);
int sq_next(xiw_sq& q, const xiw_tx_order& o, u32 ord, u32* idx);
void sq_start(xiw_sq& q, xiw_tx_order& o, u32 idx);
void sq_done(xiw_sq& q, u32 idx, u8 status);
bool sq_sent(xiw_sq& q, u32 idx, bool zc);
void sq_zc_released(xiw_sq& q, u32 idx, bool in_error);
bool sq_read_oldest(const xiw_sq& q, u32* idx);
bool sq_read_done(xiw_sq& q, xiw_tx_order& o, u32* idx);
bool sq_complete(xiw_sq& q, xiw_sq_cqe* c);
bool sq_flush(xiw_sq& q, xiw_sq_cqe* c);

}  // namespace xiw::rdmap
