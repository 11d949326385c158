// SPDX-License-Identifier: GPL-2.0
// Result<T>: a value or a negative errno, for functions that can fail.
#pragma once

#include "types.h"

namespace kstd {

template <typename T>
class [[nodiscard]] Result {
 public:
  // Implicit from a value, so `return value;` reads naturally.
  constexpr Result(const T& value) : value_(value), error_(0) {}
  // From a negative errno.
  static constexpr Result error(int negative_errno) { return Result(negative_errno, Tag{}); }

  constexpr bool ok() const { return error_ == 0; }
  constexpr int error() const { return error_; }
  // Only meaningful when ok().
  constexpr const T& value() const { return value_; }

 private:
  struct Tag {};
  constexpr Result(int negative_errno, Tag) : value_(), error_(negative_errno) {}

  T value_;
  int error_;
};

}  // namespace kstd
