// SPDX-License-Identifier: GPL-2.0
// The core's environment table on the host: a software CRC32c in place of
// the kernel crypto API.
#pragma once

#include <xiw/env.h>

namespace xiw_test {

// Bit-reflected CRC32c register update over a table (polynomial 0x82F63B78),
// with the raw-state contract of xiw_env::crc32c_update.
int host_crc32c_update(void* ctx, xiw_u32* state, const void* buf, xiw_size len);

// An environment whose callbacks are the host implementations above.
const xiw_env& host_env();

}  // namespace xiw_test
