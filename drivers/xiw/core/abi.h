// SPDX-License-Identifier: GPL-2.0
// Conversions shared by the C entry points (*_abi.cpp).
#pragma once

#include <xiw/mpa.h>

#include "kstd/result.h"
#include "mpa/startup.h"

namespace xiw::abi {

// A decoded startup frame as struct xiw_mpa_frame. pd_off is left 0: only
// a caller that holds the wire buffer knows it.
void to_abi(const mpa::StartupFrame& frame, xiw_mpa_frame* out);

// A length or a negative errno, as the C functions return them.
inline int to_abi(const kstd::Result<kstd::usize>& r) {
  return r.ok() ? static_cast<int>(r.value()) : r.error();
}

}  // namespace xiw::abi
