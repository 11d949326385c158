// SPDX-License-Identifier: GPL-2.0
// MPA error codes: RFC 5044 section 8 defines 1 to 4, RFC 6581 section 8
// adds 5 to 7. They travel in a TERMINATE message with Layer 2 (LLP) and
// Error Type 0 (MPA); RFC 6580 section 3.3 registers the triplets.
#pragma once

#include <xiw/mpa.h>

#include "../kstd/types.h"

namespace xiw::mpa {

inline constexpr kstd::u8 kTermLayerLlp = XIW_TERM_LAYER_LLP;
inline constexpr kstd::u8 kTermTypeMpa = XIW_TERM_ETYPE_MPA;

enum class MpaError : kstd::u8 {
  none = 0,
  llp_lost = XIW_MPA_ERR_LLP_LOST,         // TCP closed, terminated or lost
  crc = XIW_MPA_ERR_CRC,                   // CRC mismatch
  marker = XIW_MPA_ERR_MARKER,             // Marker/ULPDU_Length disagree
  bad_startup = XIW_MPA_ERR_BAD_STARTUP,   // invalid Request or Reply Frame
  local_catastrophic = XIW_MPA_ERR_LOCAL,  // no more specific code
  insufficient_ird = XIW_MPA_ERR_IRD,      // IRD cannot cover the peer's ORD
  no_matching_rtr = XIW_MPA_ERR_RTR,       // no mutually supported RTR
};

}  // namespace xiw::mpa
