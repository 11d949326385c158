// SPDX-License-Identifier: GPL-2.0
// CRC32c (Castagnoli) as MPA uses it (RFC 5044 section 6.5), computed by
// the environment: the kernel crypto API in the module, a table on the host.
#pragma once

#include <xiw/env.h>

#include "../kstd/span.h"

namespace xiw::mpa {

class Crc32c {
 public:
  explicit Crc32c(const xiw_env& env) : env_(env) {}

  // Returns 0 or the environment's negative errno.
  int update(kstd::Bytes data) {
    if (data.empty()) return 0;
    return env_.crc32c_update(env_.ctx, &state_, data.data(), data.size());
  }
  // The CRC value: the inverted register. On the wire its octets go least
  // significant first, as the crypto API's digest and iSCSI lay them out.
  kstd::u32 value() const { return ~state_; }
  void reset() { state_ = ~0u; }

 private:
  const xiw_env& env_;
  kstd::u32 state_ = ~0u;
};

}  // namespace xiw::mpa
