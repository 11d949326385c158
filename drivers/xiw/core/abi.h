// SPDX-License-Identifier: GPL-2.0
// Conversions shared by the C entry points (abi.cpp, mpa_abi.cpp).
#pragma once

#include <xiw/mpa.h>

#include "mpa/startup.h"

namespace xiw::abi {

// A decoded startup frame as struct xiw_mpa_frame. pd_off is left 0: only
// a caller that holds the wire buffer knows it.
void to_abi(const mpa::StartupFrame& frame, xiw_mpa_frame* out);

}  // namespace xiw::abi
