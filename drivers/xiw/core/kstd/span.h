// SPDX-License-Identifier: GPL-2.0
// A non-owning view of a contiguous array: pointer and length together.
#pragma once

#include "types.h"

namespace kstd {

template <typename T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, usize size) : data_(data), size_(size) {}
  template <usize N>
  constexpr Span(T (&array)[N]) : data_(array), size_(N) {}
  // A Span<const T> converts from a Span<T>.
  template <typename U>
  constexpr Span(const Span<U>& other) : data_(other.data()), size_(other.size()) {}

  constexpr T* data() const { return data_; }
  constexpr usize size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T& operator[](usize i) const { return data_[i]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }

  // Sub-views. The caller guarantees the bounds; these never clamp, so an
  // out-of-range request is a bug to be caught by the host sanitizers.
  constexpr Span first(usize n) const { return Span(data_, n); }
  constexpr Span subspan(usize offset) const { return Span(data_ + offset, size_ - offset); }
  constexpr Span subspan(usize offset, usize n) const { return Span(data_ + offset, n); }

 private:
  T* data_ = nullptr;
  usize size_ = 0;
};

using Bytes = Span<const u8>;
using MutableBytes = Span<u8>;

// View any object representation as bytes (the ABI boundary hands us void*).
inline Bytes as_bytes(const void* p, usize n) { return Bytes(static_cast<const u8*>(p), n); }
inline MutableBytes as_writable_bytes(void* p, usize n) { return MutableBytes(static_cast<u8*>(p), n); }

inline void copy(MutableBytes dst, Bytes src) { __builtin_memcpy(dst.data(), src.data(), src.size()); }
inline bool equal(Bytes a, Bytes b) {
  return a.size() == b.size() && __builtin_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace kstd
