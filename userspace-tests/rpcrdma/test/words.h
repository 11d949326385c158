// SPDX-License-Identifier: GPL-2.0
// Byte layouts for the rpcrdma host tests, written as XDR words.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace rpcrdma::test {

using Bytes = std::vector<uint8_t>;

// The big-endian octets of @ws, one XDR word each.
inline Bytes words(std::initializer_list<uint32_t> ws) {
  Bytes b;
  for (uint32_t w : ws)
    for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(w >> s));
  return b;
}

// @a followed by @b.
inline Bytes cat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace rpcrdma::test
