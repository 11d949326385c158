// SPDX-License-Identifier: GPL-2.0
// MPA Full Operation framing (RFC 5044 sections 4 to 6):
//
//   FPDU = ULPDU_Length(2) | ULPDU | PAD(0-3, zero) | CRC(4)
//
// with a 4-octet Marker (Reserved(2) | FPDUPTR(2)) every 512 octets of TCP
// sequence space, counted from the first octet of Full Operation in that
// direction, when the receiver asked for Markers. The CRC32c covers every
// octet of the FPDU before the CRC field, Markers inside it included; a
// Marker that falls exactly between two FPDUs has FPDUPTR 0 and belongs to
// (and is covered by the CRC of) the FPDU that follows it.
#pragma once

#include <xiw/env.h>

#include "../kstd/result.h"
#include "../kstd/span.h"
#include "crc.h"
#include "errors.h"

namespace xiw::mpa {

using kstd::u16;
using kstd::u32;
using kstd::u8;
using kstd::usize;

inline constexpr u32 kMarkerInterval = 512;
inline constexpr usize kMarkerLen = 4;
inline constexpr usize kUlpduLengthLen = 2;
inline constexpr usize kCrcLen = 4;
// RFC 5044 section 3: MULPDU lies in 128..64768, and DDP never posts more.
inline constexpr u16 kMulpduMin = 128;
inline constexpr u16 kMulpduMax = 64768;

// PAD octets after a ULPDU of `len` octets (RFC 5044 section 4.1).
constexpr usize pad_length(usize len) { return (4 - ((len + kUlpduLengthLen) & 3)) & 3; }

// MULPDU for an EMSS (RFC 5044 section 4.5): with Markers
// EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4), else EMSS - (6 + EMSS mod 4),
// never below 128 nor above 64768.
u16 mulpdu(u32 emss, bool markers);

// Octets on the wire of the FPDU carrying `len` ULPDU octets when it starts
// at `pos` octets into Full Operation, Markers included.
usize fpdu_wire_length(usize len, u32 pos, bool markers);

// Transmit side. The glue walks one FPDU as a sequence of pieces so that
// ULPDU payload can go out straight from its pages:
//
//   n = tx.begin(len, hdr);        send hdr[0..n)
//   while payload remains:
//     if tx.room() == 0:           tx.marker(m); send m
//     else                         send up to room() octets, tx.payload(them)
//   n = tx.end(trailer);           send trailer[0..n)
class FpduTx {
 public:
  static constexpr usize kMaxPrefix = kMarkerLen + kUlpduLengthLen;
  static constexpr usize kMaxTrailer = 3 + kMarkerLen + kCrcLen;

  explicit FpduTx(const xiw_env& env) : crc_(env) {}

  // Full Operation starts: the next octet sent is octet 0 of the stream.
  void start(bool markers, bool crc);
  bool markers() const { return markers_; }
  bool crc() const { return crc_on_; }
  u32 position() const { return pos_; }
  // Continues a stream another framer started (the RTR's), or drops an
  // FPDU begun at `pos` of which nothing was sent.
  void set_position(u32 pos) {
    pos_ = pos;
    open_ = false;
    left_ = 0;
  }

  // Opens an FPDU for `len` ULPDU octets: writes [Marker] ULPDU_Length.
  // -EMSGSIZE above 64768, -EINVAL while another FPDU is open.
  kstd::Result<usize> begin(usize len, u8 (&out)[kMaxPrefix]);
  // ULPDU octets that may be sent before the next Marker is due.
  usize room() const;
  // The Marker due now; only when room() is 0 and payload remains.
  void marker(u8 (&out)[kMarkerLen]);
  // Accounts for ULPDU octets sent, at most room(); their CRC is taken
  // when CRC is on. Returns 0 or the environment's error.
  int payload(kstd::Bytes data);
  // Closes the FPDU: writes PAD, [Marker], CRC. -EINVAL if ULPDU octets
  // are still missing.
  kstd::Result<usize> end(u8 (&out)[kMaxTrailer]);

  // Convenience for small messages (TERMINATE, RTR) and tests: the whole
  // FPDU for `ulpdu` into `out`. -ENOSPC if `out` is short.
  kstd::Result<usize> encode(kstd::Bytes ulpdu, kstd::MutableBytes out);

 private:
  bool marker_due() const { return markers_ && pos_ % kMarkerInterval == 0; }
  void write_marker(u8* out);
  int emit(const u8* p, usize n);

  Crc32c crc_;
  bool markers_ = false;
  bool crc_on_ = true;
  bool open_ = false;
  u32 pos_ = 0;         // octets sent since Full Operation began
  u32 length_pos_ = 0;  // position of this FPDU's ULPDU_Length field
  usize left_ = 0;      // ULPDU octets still to send
  int err_ = 0;         // first environment error inside this FPDU
};

// Receive side: a push parser over the TCP byte stream of Full Operation.
// Markers are checked and stripped, the CRC is verified, and the ULPDU is
// handed to `Sink` in runs:
//
//   int ulpdu_begin(u16 len);          // a new ULPDU starts
//   int ulpdu_data(kstd::Bytes run);   // some of its octets, in order
//   int ulpdu_end();                   // CRC and Markers verified
//
// Octets may be placed as they arrive but the ULPDU counts as delivered
// only at ulpdu_end(): a CRC or Marker error ends the stream first. A
// negative return from the sink stops parsing and is returned as is.
class FpduRx {
 public:
  explicit FpduRx(const xiw_env& env) : crc_(env) {}

  void start(bool markers, bool crc);
  u32 position() const { return pos_; }
  // Continues a stream another framer started, at an FPDU boundary.
  void set_position(u32 pos) { pos_ = pos; }
  // The MPA error that stopped the stream, none while it runs.
  MpaError error() const { return error_; }
  // True between FPDUs: nothing of a next FPDU has been seen.
  bool at_boundary() const { return state_ == State::length && have_ == 0 && marker_have_ == 0; }

  // Consumes all of `in`. Returns 0; -EBADMSG for a CRC error (MPA code
  // 2); -EPROTO for a Marker that disagrees with ULPDU_Length when the CRC
  // is valid or off (code 3); or the sink's error. After an error every
  // call returns it again.
  template <typename Sink>
  int consume(kstd::Bytes in, Sink& sink);

 private:
  enum class State : u8 { length, payload, pad, crc };

  int fail(MpaError e, int err);
  // Octets of a Marker due at the current position (0 if none is due).
  kstd::Result<usize> take_marker(kstd::Bytes in);
  // Octets of the current field, at most `run`.
  template <typename Sink>
  kstd::Result<usize> step(kstd::Bytes run, Sink& sink);
  template <typename Sink>
  int finish(Sink& sink);
  void enter_pad();
  int crc_update(const u8* p, usize n);

  Crc32c crc_;
  bool markers_ = false;
  bool crc_on_ = true;
  State state_ = State::length;
  MpaError error_ = MpaError::none;
  int err_ = 0;
  u32 pos_ = 0;                  // octets received since Full Operation began
  u32 length_pos_ = 0;           // position of this FPDU's ULPDU_Length field
  u32 marker_pos_ = 0;           // position of the Marker being collected
  bool marker_leading_ = false;  // it sits before an FPDU, FPDUPTR 0
  bool marker_bad_ = false;
  u8 marker_[kMarkerLen] = {};
  u8 marker_have_ = 0;
  u8 buf_[kCrcLen] = {};  // ULPDU_Length or CRC being collected
  u8 have_ = 0;
  u16 ulpdu_len_ = 0;
  usize left_ = 0;
};

template <typename Sink>
int FpduRx::consume(kstd::Bytes in, Sink& sink) {
  if (err_ != 0) return err_;
  while (!in.empty()) {
    kstd::Result<usize> n = take_marker(in);
    if (n.ok() && n.value() == 0) {
      // A field's octets up to the next Marker position.
      usize run = in.size();
      if (markers_ && run > kMarkerInterval - pos_ % kMarkerInterval)
        run = kMarkerInterval - pos_ % kMarkerInterval;
      n = step(in.first(run), sink);
    }
    if (!n.ok()) return n.error();
    in = in.subspan(n.value());
  }
  return 0;
}

template <typename Sink>
kstd::Result<usize> FpduRx::step(kstd::Bytes run, Sink& sink) {
  usize n = run.size();
  switch (state_) {
    case State::length:
      if (have_ == 0) length_pos_ = pos_;
      if (n > kUlpduLengthLen - have_) n = kUlpduLengthLen - have_;
      __builtin_memcpy(buf_ + have_, run.data(), n);
      have_ = static_cast<u8>(have_ + n);
      break;
    case State::payload:
      if (n > left_) n = left_;
      break;
    case State::pad:
      if (n > left_) n = left_;
      break;
    case State::crc:
      if (n > kCrcLen - have_) n = kCrcLen - have_;
      __builtin_memcpy(buf_ + have_, run.data(), n);
      have_ = static_cast<u8>(have_ + n);
      pos_ += static_cast<u32>(n);
      if (have_ == kCrcLen) {
        if (int rc = finish(sink)) return kstd::Result<usize>::error(rc);
      }
      return n;
  }
  if (int rc = crc_update(run.data(), n)) return kstd::Result<usize>::error(rc);
  pos_ += static_cast<u32>(n);
  if (state_ == State::length) {
    if (have_ < kUlpduLengthLen) return n;
    have_ = 0;
    ulpdu_len_ = static_cast<u16>(buf_[0] << 8 | buf_[1]);
    left_ = ulpdu_len_;
    state_ = State::payload;
    if (left_ == 0) enter_pad();
    if (int rc = sink.ulpdu_begin(ulpdu_len_)) return kstd::Result<usize>::error(fail(MpaError::none, rc));
    return n;
  }
  left_ -= n;
  if (state_ == State::payload) {
    if (int rc = sink.ulpdu_data(run.first(n))) return kstd::Result<usize>::error(fail(MpaError::none, rc));
    if (left_ == 0) enter_pad();
  } else if (left_ == 0) {
    state_ = State::crc;
  }
  return n;
}

template <typename Sink>
int FpduRx::finish(Sink& sink) {
  have_ = 0;
  state_ = State::length;
  if (crc_on_) {
    const u32 got = static_cast<u32>(buf_[0]) | static_cast<u32>(buf_[1]) << 8 |
                    static_cast<u32>(buf_[2]) << 16 | static_cast<u32>(buf_[3]) << 24;
    if (got != crc_.value()) return fail(MpaError::crc, kstd::err::badmsg);
  }
  // A Marker mismatch counts only when the CRC is valid (or not in use).
  if (marker_bad_) return fail(MpaError::marker, kstd::err::proto);
  crc_.reset();
  if (int rc = sink.ulpdu_end()) return fail(MpaError::none, rc);
  return 0;
}

}  // namespace xiw::mpa
