// SPDX-License-Identifier: GPL-2.0
// MPA Full Operation framing; see fpdu.h for the layout and the contracts.
#include "fpdu.h"

namespace xiw::mpa {

namespace {

void put_be16(u8* out, u32 v) {
  out[0] = static_cast<u8>(v >> 8);
  out[1] = static_cast<u8>(v);
}

// The CRC octets as the crypto API's digest (and iSCSI) order them.
void put_crc(u8* out, u32 v) {
  for (usize i = 0; i < kCrcLen; i++) out[i] = static_cast<u8>(v >> (8 * i));
}

}  // namespace

u16 mulpdu(u32 emss, bool markers) {
  u32 overhead = 6 + emss % 4;
  if (markers) overhead += 4 * ((emss + kMarkerInterval - 1) / kMarkerInterval);
  const u32 m = emss > overhead ? emss - overhead : 0;
  if (m < kMulpduMin) return kMulpduMin;
  if (m > kMulpduMax) return kMulpduMax;
  return static_cast<u16>(m);
}

usize fpdu_wire_length(usize len, u32 pos, bool markers) {
  const usize body = kUlpduLengthLen + len + pad_length(len) + kCrcLen;
  if (!markers) return body;
  // A Marker is due at every multiple of 512 in [pos, pos + wire length);
  // one at the FPDU's last octet position belongs to the next FPDU.
  usize wire = body;
  usize counted = 0;
  for (;;) {
    const u32 off = pos % kMarkerInterval;
    const usize first = off ? kMarkerInterval - off : 0;
    const usize due = first < wire ? (wire - first - 1) / kMarkerInterval + 1 : 0;
    if (due == counted) return wire;
    wire = body + due * kMarkerLen;
    counted = due;
  }
}

// ---- transmit ---------------------------------------------------------------

void FpduTx::start(bool markers, bool crc) {
  markers_ = markers;
  crc_on_ = crc;
  open_ = false;
  pos_ = 0;
  left_ = 0;
  err_ = 0;
}

int FpduTx::emit(const u8* p, usize n) {
  if (crc_on_ && err_ == 0) err_ = crc_.update(kstd::Bytes(p, n));
  pos_ += static_cast<u32>(n);
  return err_;
}

void FpduTx::write_marker(u8* out) {
  // FPDUPTR: back to this FPDU's ULPDU_Length, or 0 before the FPDU.
  const u32 ptr = open_ ? pos_ - length_pos_ : 0;
  out[0] = 0;
  out[1] = 0;
  put_be16(out + 2, ptr);
  emit(out, kMarkerLen);
}

kstd::Result<usize> FpduTx::begin(usize len, u8 (&out)[kMaxPrefix]) {
  if (open_) return kstd::Result<usize>::error(kstd::err::inval);
  if (len > kMulpduMax) return kstd::Result<usize>::error(kstd::err::msgsize);
  crc_.reset();
  err_ = 0;
  usize n = 0;
  if (marker_due()) {
    write_marker(out);
    n = kMarkerLen;
  }
  open_ = true;
  length_pos_ = pos_;
  left_ = len;
  put_be16(out + n, static_cast<u32>(len));
  emit(out + n, kUlpduLengthLen);
  return n + kUlpduLengthLen;
}

usize FpduTx::room() const {
  if (!markers_) return left_;
  const u32 off = pos_ % kMarkerInterval;
  if (off == 0) return 0;
  const usize to_marker = kMarkerInterval - off;
  return left_ < to_marker ? left_ : to_marker;
}

void FpduTx::marker(u8 (&out)[kMarkerLen]) { write_marker(out); }

int FpduTx::payload(kstd::Bytes data) {
  left_ -= data.size();
  return emit(data.data(), data.size());
}

kstd::Result<usize> FpduTx::end(u8 (&out)[kMaxTrailer]) {
  if (!open_ || left_ != 0) return kstd::Result<usize>::error(kstd::err::inval);
  // PAD ends 4-aligned, so a Marker can only fall after it.
  const usize pad = (4 - (pos_ & 3)) & 3;
  usize n = 0;
  for (; n < pad; n++) out[n] = 0;
  emit(out, pad);
  if (marker_due()) {
    write_marker(out + n);
    n += kMarkerLen;
  }
  put_crc(out + n, crc_on_ ? crc_.value() : 0);
  pos_ += kCrcLen;
  open_ = false;
  if (err_ != 0) return kstd::Result<usize>::error(err_);
  return n + kCrcLen;
}

kstd::Result<usize> FpduTx::encode(kstd::Bytes ulpdu, kstd::MutableBytes out) {
  if (out.size() < fpdu_wire_length(ulpdu.size(), pos_, markers_))
    return kstd::Result<usize>::error(kstd::err::nospc);
  u8 prefix[kMaxPrefix];
  kstd::Result<usize> r = begin(ulpdu.size(), prefix);
  if (!r.ok()) return r;
  usize n = r.value();
  kstd::copy(out, kstd::Bytes(prefix, n));
  while (!ulpdu.empty()) {
    if (room() == 0) {
      u8 m[kMarkerLen];
      marker(m);
      kstd::copy(out.subspan(n), kstd::Bytes(m));
      n += kMarkerLen;
      continue;
    }
    const kstd::Bytes run = ulpdu.first(room());
    kstd::copy(out.subspan(n), run);
    payload(run);
    n += run.size();
    ulpdu = ulpdu.subspan(run.size());
  }
  u8 trailer[kMaxTrailer];
  r = end(trailer);
  if (!r.ok()) return r;
  kstd::copy(out.subspan(n), kstd::Bytes(trailer, r.value()));
  return n + r.value();
}

// ---- receive ----------------------------------------------------------------

void FpduRx::start(bool markers, bool crc) {
  markers_ = markers;
  crc_on_ = crc;
  state_ = State::length;
  error_ = MpaError::none;
  err_ = 0;
  pos_ = 0;
  marker_bad_ = false;
  marker_have_ = 0;
  have_ = 0;
  crc_.reset();
}

int FpduRx::fail(MpaError e, int err) {
  error_ = e;
  err_ = err;
  return err;
}

int FpduRx::crc_update(const u8* p, usize n) {
  if (!crc_on_) return 0;
  if (int rc = crc_.update(kstd::Bytes(p, n))) return fail(MpaError::local_catastrophic, rc);
  return 0;
}

void FpduRx::enter_pad() {
  left_ = pad_length(ulpdu_len_);
  state_ = left_ ? State::pad : State::crc;
}

kstd::Result<usize> FpduRx::take_marker(kstd::Bytes in) {
  if (marker_have_ == 0) {
    if (!markers_ || pos_ % kMarkerInterval != 0) return usize{0};
    marker_pos_ = pos_;
    marker_leading_ = state_ == State::length && have_ == 0;
  }
  usize n = kMarkerLen - marker_have_;
  if (n > in.size()) n = in.size();
  __builtin_memcpy(marker_ + marker_have_, in.data(), n);
  // Every Marker lies inside the CRC coverage of the current or next FPDU.
  if (int rc = crc_update(in.data(), n)) return kstd::Result<usize>::error(rc);
  marker_have_ = static_cast<u8>(marker_have_ + n);
  pos_ += static_cast<u32>(n);
  if (marker_have_ < kMarkerLen) return n;
  marker_have_ = 0;
  // The two low bits of FPDUPTR are treated as zero (RFC 5044 section 4.2).
  const u32 ptr = static_cast<u32>(marker_[2] << 8 | marker_[3]) & ~3u;
  const u32 expect = marker_leading_ ? 0 : marker_pos_ - length_pos_;
  if (ptr != expect) marker_bad_ = true;
  return n;
}

}  // namespace xiw::mpa
