// SPDX-License-Identifier: GPL-2.0
// Big-endian (network order) wire integers as strong types. They are byte
// arrays, so they have alignment 1 and can sit anywhere in a wire struct.
#pragma once

#include "types.h"

namespace kstd {

class Be16 {
 public:
  constexpr u16 get() const { return static_cast<u16>(b_[0] << 8 | b_[1]); }
  constexpr void set(u16 v) {
    b_[0] = static_cast<u8>(v >> 8);
    b_[1] = static_cast<u8>(v);
  }

 private:
  u8 b_[2] = {};
};

class Be32 {
 public:
  constexpr u32 get() const {
    return static_cast<u32>(b_[0]) << 24 | static_cast<u32>(b_[1]) << 16 | static_cast<u32>(b_[2]) << 8 |
           b_[3];
  }
  constexpr void set(u32 v) {
    b_[0] = static_cast<u8>(v >> 24);
    b_[1] = static_cast<u8>(v >> 16);
    b_[2] = static_cast<u8>(v >> 8);
    b_[3] = static_cast<u8>(v);
  }

 private:
  u8 b_[4] = {};
};

class Be64 {
 public:
  constexpr u64 get() const {
    u64 v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | b_[i];
    return v;
  }
  constexpr void set(u64 v) {
    for (int i = 7; i >= 0; i--, v >>= 8) b_[i] = static_cast<u8>(v);
  }

 private:
  u8 b_[8] = {};
};

static_assert(sizeof(Be16) == 2 && alignof(Be16) == 1);
static_assert(sizeof(Be64) == 8 && alignof(Be64) == 1);
static_assert(sizeof(Be32) == 4 && alignof(Be32) == 1);

}  // namespace kstd
