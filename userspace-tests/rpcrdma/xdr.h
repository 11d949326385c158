// SPDX-License-Identifier: GPL-2.0
// XDR (RFC 4506) primitives over a byte span: big-endian 32- and 64-bit
// integers and variable-length opaque data padded to four octets. The
// reader never reads past its span; after the first failure every read
// fails and returns zero (a sticky error, checked once at the end).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace rpcrdma::xdr {

using Bytes = std::span<const uint8_t>;
using MutableBytes = std::span<uint8_t>;

constexpr size_t pad4(size_t n) { return (n + 3) & ~size_t{3}; }

class Reader {
 public:
  explicit Reader(Bytes in) : in_(in) {}

  uint32_t u32() {
    if (!need(4)) return 0;
    const uint8_t* p = in_.data() + pos_;
    pos_ += 4;
    return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
  }
  uint64_t u64() {
    const uint64_t hi = u32();
    return hi << 32 | u32();
  }
  // An XDR bool (the "present" word of an optional-data pointer): 0 or 1.
  bool present() {
    const uint32_t v = u32();
    if (v > 1) fail();
    return v == 1;
  }
  // opaque<>: a length, the octets, zero to three pad octets (not checked
  // for zero: RFC 4506 says they are zero, and a receiver gains nothing by
  // refusing a message over them).
  Bytes opaque() {
    const uint32_t n = u32();
    if (!need(pad4(n))) return {};
    Bytes out = in_.subspan(pos_, n);
    pos_ += pad4(n);
    return out;
  }
  // Are at least @n octets left? For lists whose count comes from the
  // wire: checked before anything is stored or looped over.
  bool has(size_t n) const { return ok_ && in_.size() - pos_ >= n; }

  void fail() { ok_ = false; }
  bool ok() const { return ok_; }
  size_t pos() const { return pos_; }
  Bytes rest() const { return ok_ ? in_.subspan(pos_) : Bytes{}; }

 private:
  bool need(size_t n) {
    if (!has(n)) fail();
    return ok_;
  }
  Bytes in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// Writes into a fixed buffer; running out of room fails (sticky), and
// nothing is written past the buffer.
class Writer {
 public:
  explicit Writer(MutableBytes out) : out_(out) {}

  void u32(uint32_t v) {
    if (!need(4)) return;
    uint8_t* p = out_.data() + pos_;
    p[0] = uint8_t(v >> 24);
    p[1] = uint8_t(v >> 16);
    p[2] = uint8_t(v >> 8);
    p[3] = uint8_t(v);
    pos_ += 4;
  }
  void u64(uint64_t v) {
    u32(uint32_t(v >> 32));
    u32(uint32_t(v));
  }
  void present(bool v) { u32(v ? 1 : 0); }
  void opaque(Bytes b) {
    if (b.size() > UINT32_MAX) return fail();
    u32(uint32_t(b.size()));
    if (!need(pad4(b.size()))) return;
    for (size_t i = 0; i < pad4(b.size()); i++) out_[pos_ + i] = i < b.size() ? b[i] : 0;
    pos_ += pad4(b.size());
  }

  void fail() { ok_ = false; }
  bool ok() const { return ok_; }
  // Octets written, or 0 after a failure.
  size_t length() const { return ok_ ? pos_ : 0; }

 private:
  bool need(size_t n) {
    if (ok_ && out_.size() - pos_ < n) fail();
    return ok_;
  }
  MutableBytes out_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace rpcrdma::xdr
