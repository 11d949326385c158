// SPDX-License-Identifier: GPL-2.0
#include "host_env.h"

#include <array>
#include <cstdint>

namespace xiw_test {

namespace {

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = make_table();

}  // namespace

int host_crc32c_update(void*, xiw_u32* state, const void* buf, xiw_size len) {
  const auto* p = static_cast<const uint8_t*>(buf);
  uint32_t c = *state;
  for (xiw_size i = 0; i < len; i++) c = kTable[(c ^ p[i]) & 0xff] ^ (c >> 8);
  *state = c;
  return 0;
}

const xiw_env& host_env() {
  static const xiw_env env = {nullptr, host_crc32c_update};
  return env;
}

}  // namespace xiw_test
