// SPDX-License-Identifier: GPL-2.0
// MPA startup frame codec. Every rule below cites the RFC sentence it
// enforces; the tests in userspace-tests/unit/mpa_startup_test.cpp check
// each one against byte layouts written from the RFCs.
#include "startup.h"

namespace xiw::mpa {

namespace {

constexpr kstd::Bytes key_of(FrameType type) {
  return type == FrameType::request ? kstd::Bytes(kRequestKey) : kstd::Bytes(kReplyKey);
}

constexpr FrameType other(FrameType type) {
  return type == FrameType::request ? FrameType::reply : FrameType::request;
}

WireHeader load_header(kstd::Bytes in) {
  WireHeader h;
  __builtin_memcpy(&h, in.data(), sizeof(h));
  return h;
}

}  // namespace

void EnhancedData::encode(kstd::MutableBytes out) const {
  kstd::Be16 hi, lo;
  hi.set(static_cast<u16>(((ctrl & a) ? 0x8000 : 0) | ((ctrl & b) ? 0x4000 : 0) | ird));
  lo.set(static_cast<u16>(((ctrl & c) ? 0x8000 : 0) | ((ctrl & d) ? 0x4000 : 0) | ord));
  __builtin_memcpy(out.data(), &hi, 2);
  __builtin_memcpy(out.data() + 2, &lo, 2);
}

EnhancedData EnhancedData::decode(kstd::Bytes in) {
  kstd::Be16 hi, lo;
  __builtin_memcpy(&hi, in.data(), 2);
  __builtin_memcpy(&lo, in.data() + 2, 2);
  EnhancedData e;
  e.ird = hi.get() & kIrdOrdMax;
  e.ord = lo.get() & kIrdOrdMax;
  if (hi.get() & 0x8000) {
    e.ctrl = static_cast<u8>(a | ((hi.get() & 0x4000) ? b : 0) | ((lo.get() & 0x8000) ? c : 0) |
                             ((lo.get() & 0x4000) ? d : 0));
  }
  return e;
}

kstd::Result<usize> encode(const StartupFrame& frame, kstd::MutableBytes out) {
  const FrameFlags flags = frame.flags;
  // Rev: 1, or 2 for enhanced features (RFC 6581 section 6).
  if (frame.rev != kRevUnenhanced && frame.rev != kRevEnhanced)
    return kstd::Result<usize>::error(kstd::err::inval);
  // S needs Rev >= 2 and valid enhanced data (RFC 6581 sections 6, 9).
  if (frame.is_enhanced() && (frame.rev < kRevEnhanced || !frame.enhanced.valid()))
    return kstd::Result<usize>::error(kstd::err::inval);
  // R is the responder's: it is zero in a Request (RFC 5044 section 7.1).
  if (frame.type == FrameType::request && flags.has(FrameFlags::r))
    return kstd::Result<usize>::error(kstd::err::inval);
  // Private Data, enhanced data included, is at most 512 octets.
  const usize pd_length = frame.wire_pd_length();
  if (pd_length > kPrivateDataMax) return kstd::Result<usize>::error(kstd::err::inval);
  const usize total = kHeaderLen + pd_length;
  if (out.size() < total) return kstd::Result<usize>::error(kstd::err::nospc);

  WireHeader h;
  kstd::copy(kstd::MutableBytes(h.key), key_of(frame.type));
  h.flags = flags.bits();  // Res stays zero: FrameFlags holds defined bits only
  h.rev = frame.rev;
  h.pd_length.set(static_cast<u16>(pd_length));
  __builtin_memcpy(out.data(), &h, sizeof(h));

  kstd::MutableBytes pd = out.subspan(kHeaderLen, pd_length);
  if (frame.is_enhanced()) {
    frame.enhanced.encode(pd);
    pd = pd.subspan(EnhancedData::kSize);
  }
  if (!frame.private_data.empty()) kstd::copy(pd, frame.private_data);
  return total;
}

kstd::Result<usize> frame_length(kstd::Bytes header, FrameType expect) {
  if (header.size() < kHeaderLen) return kstd::Result<usize>::error(kstd::err::inval);
  const WireHeader h = load_header(header);
  const kstd::Bytes key(h.key);
  // A Key of the other frame type is well formed but out of place:
  // an initiator seeing a Request has met another initiator.
  if (kstd::equal(key, key_of(other(expect)))) return kstd::Result<usize>::error(kstd::err::proto);
  if (!kstd::equal(key, key_of(expect))) return kstd::Result<usize>::error(kstd::err::badmsg);
  if (h.rev != kRevUnenhanced && h.rev != kRevEnhanced)
    return kstd::Result<usize>::error(kstd::err::protonosupport);
  // PD_Length above 512: improperly formatted (RFC 5044 section 7.1).
  if (h.pd_length.get() > kPrivateDataMax) return kstd::Result<usize>::error(kstd::err::badmsg);
  return kHeaderLen + h.pd_length.get();
}

kstd::Result<StartupFrame> decode(kstd::Bytes in, FrameType expect) {
  const kstd::Result<usize> length = frame_length(in, expect);
  if (!length.ok()) return kstd::Result<StartupFrame>::error(length.error());
  // PD_Length must match the private data actually present.
  if (in.size() != length.value()) return kstd::Result<StartupFrame>::error(kstd::err::badmsg);

  const WireHeader h = load_header(in);
  StartupFrame frame;
  frame.type = expect;
  frame.rev = h.rev;
  FrameFlags flags(h.flags);
  // R is not checked on reception of a Request (RFC 5044 section 7.1), and
  // in a Rev 1 frame S is part of Res, which is never checked.
  if (expect == FrameType::request) flags = flags.without(FrameFlags::r);
  if (h.rev < kRevEnhanced) flags = flags.without(FrameFlags::s);
  frame.flags = flags;

  kstd::Bytes pd = in.subspan(kHeaderLen);
  if (frame.is_enhanced()) {
    // With S set, Private Data MUST begin with the enhanced data.
    if (pd.size() < EnhancedData::kSize) return kstd::Result<StartupFrame>::error(kstd::err::badmsg);
    frame.enhanced = EnhancedData::decode(pd);
    pd = pd.subspan(EnhancedData::kSize);
  }
  frame.private_data = pd;
  return frame;
}

}  // namespace xiw::mpa
