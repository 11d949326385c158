// SPDX-License-Identifier: GPL-2.0
// MPA startup frames: RFC 5044 section 7.1, with the enhanced connection
// establishment data of RFC 6581 sections 6 and 9.
#pragma once

#include <xiw/mpa.h>

#include "../kstd/byteorder.h"
#include "../kstd/result.h"
#include "../kstd/span.h"

namespace xiw::mpa {

using kstd::u16;
using kstd::u8;
using kstd::usize;

enum class FrameType : u8 { request = XIW_MPA_REQUEST, reply = XIW_MPA_REPLY };

inline constexpr usize kKeyLen = XIW_MPA_KEY_LEN;
inline constexpr usize kHeaderLen = XIW_MPA_HDR_LEN;
inline constexpr usize kPrivateDataMax = XIW_MPA_PD_MAX;
inline constexpr u16 kIrdOrdMax = XIW_MPA_IRD_ORD_MAX;
inline constexpr u8 kRevUnenhanced = 1;  // RFC 5044
inline constexpr u8 kRevEnhanced = 2;    // RFC 6581
// "MPA ID Req Frame" and "MPA ID Rep Frame" (RFC 5044 section 7.1).
inline constexpr u8 kRequestKey[kKeyLen] = {0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
                                            0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65};
inline constexpr u8 kReplyKey[kKeyLen] = {0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
                                          0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65};

// Octet 16: M|C|R|S|Res. Res is sent as zero and never checked, except
// for its first bit, G, the GSO offer that upstream siw defines (mpa.h).
class FrameFlags {
 public:
  static constexpr u8 m = XIW_MPA_FLAG_M;
  static constexpr u8 c = XIW_MPA_FLAG_C;
  static constexpr u8 r = XIW_MPA_FLAG_R;
  static constexpr u8 s = XIW_MPA_FLAG_S;
  static constexpr u8 g = XIW_MPA_FLAG_G;
  static constexpr u8 defined = m | c | r | s | g;

  constexpr FrameFlags() = default;
  constexpr explicit FrameFlags(u8 bits) : bits_(bits & defined) {}
  constexpr bool has(u8 flag) const { return (bits_ & flag) != 0; }
  constexpr FrameFlags without(u8 flag) const { return FrameFlags(bits_ & ~flag); }
  constexpr u8 bits() const { return bits_; }

 private:
  u8 bits_ = 0;
};

// The fixed 20-octet header, exactly as on the wire.
struct WireHeader {
  u8 key[kKeyLen];
  u8 flags;
  u8 rev;
  kstd::Be16 pd_length;
};
static_assert(sizeof(WireHeader) == kHeaderLen && alignof(WireHeader) == 1);

// RFC 6581 section 9: A|B|IRD(14)|C|D|ORD(14) in network byte order.
struct EnhancedData {
  static constexpr usize kSize = XIW_MPA_ENH_LEN;
  static constexpr u8 a = XIW_MPA_CTRL_A;  // peer-to-peer
  static constexpr u8 b = XIW_MPA_CTRL_B;  // zero-length SEND RTR
  static constexpr u8 c = XIW_MPA_CTRL_C;  // zero-length RDMA WRITE RTR
  static constexpr u8 d = XIW_MPA_CTRL_D;  // zero-length RDMA READ RTR

  u8 ctrl = 0;
  u16 ird = 0;
  u16 ord = 0;

  // What we may send: 14-bit values, and B, C, D only with A (section 9.2).
  constexpr bool valid() const {
    return ird <= kIrdOrdMax && ord <= kIrdOrdMax && (ctrl & ~(a | b | c | d)) == 0 &&
           ((ctrl & a) != 0 || (ctrl & (b | c | d)) == 0);
  }
  void encode(kstd::MutableBytes out) const;
  // Never fails: every bit pattern has a meaning. B, C and D are dropped
  // when A is 0, as section 9.2 says they are ignored on receipt.
  static EnhancedData decode(kstd::Bytes in);
};

// A startup frame in host terms. private_data is the ULP's part only.
struct StartupFrame {
  FrameType type = FrameType::request;
  FrameFlags flags;
  u8 rev = 1;
  EnhancedData enhanced;  // meaningful when flags has S
  kstd::Bytes private_data;

  constexpr bool is_enhanced() const { return flags.has(FrameFlags::s); }
  // Octets on the wire after the header: enhanced data plus ULP data.
  constexpr usize wire_pd_length() const {
    return private_data.size() + (is_enhanced() ? EnhancedData::kSize : 0);
  }
};

// Bytes written, -EINVAL for a frame the RFCs forbid, -ENOSPC if short.
kstd::Result<usize> encode(const StartupFrame& frame, kstd::MutableBytes out);
// Total frame length announced by a header of kHeaderLen bytes.
kstd::Result<usize> frame_length(kstd::Bytes header, FrameType expect);
// A complete frame; private_data points into `frame`.
kstd::Result<StartupFrame> decode(kstd::Bytes frame, FrameType expect);

}  // namespace xiw::mpa
