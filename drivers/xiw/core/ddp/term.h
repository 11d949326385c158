// SPDX-License-Identifier: GPL-2.0
// The TERMINATE message (RFC 5040 section 4.8): an untagged RDMAP message
// on queue 2 whose payload is
//
//   Terminate Control: Layer(4) | EType(4) | Error Code(8) | M | D | R | Rsvd(13)
//   [DDP Segment Length(2)]  [Terminated DDP Header(14/18)]  [RDMA Read Request(28)]
//
// M says the segment length is valid, D that the DDP header follows, R
// that the Read Request header follows. Layers: 0 RDMAP, 1 DDP, 2 LLP
// (MPA; its codes are in mpa/errors.h).
#pragma once

#include "../kstd/result.h"
#include "../kstd/span.h"

namespace xiw::ddp {

inline constexpr kstd::u8 kLayerRdmap = 0;
inline constexpr kstd::u8 kLayerDdp = 1;
inline constexpr kstd::u8 kLayerLlp = 2;

// RDMAP error types and codes (RFC 5040 section 7).
inline constexpr kstd::u8 kRdmapLocalCatastrophic = 0;
inline constexpr kstd::u8 kRdmapRemoteProtection = 1;
inline constexpr kstd::u8 kRdmapRemoteOperation = 2;
inline constexpr kstd::u8 kRdmapInvalidStag = 0x00;
inline constexpr kstd::u8 kRdmapBaseBounds = 0x01;
inline constexpr kstd::u8 kRdmapAccessRights = 0x02;
inline constexpr kstd::u8 kRdmapStagNotInStream = 0x03;
inline constexpr kstd::u8 kRdmapToWrap = 0x04;
inline constexpr kstd::u8 kRdmapInvalidVersion = 0x05;
inline constexpr kstd::u8 kRdmapUnexpectedOpcode = 0x06;
inline constexpr kstd::u8 kRdmapCatastrophicStream = 0x07;
inline constexpr kstd::u8 kRdmapCatastrophicGlobal = 0x08;
inline constexpr kstd::u8 kRdmapCannotInvalidate = 0x09;
inline constexpr kstd::u8 kRdmapUnspecified = 0xff;

// DDP error types and codes (RFC 5041 section 7).
inline constexpr kstd::u8 kDdpLocalCatastrophic = 0;
inline constexpr kstd::u8 kDdpTaggedBuffer = 1;
inline constexpr kstd::u8 kDdpUntaggedBuffer = 2;
inline constexpr kstd::u8 kDdpTaggedInvalidStag = 0x00;
inline constexpr kstd::u8 kDdpTaggedBaseBounds = 0x01;
inline constexpr kstd::u8 kDdpTaggedStagNotInStream = 0x02;
inline constexpr kstd::u8 kDdpTaggedToWrap = 0x03;
inline constexpr kstd::u8 kDdpTaggedInvalidVersion = 0x04;
inline constexpr kstd::u8 kDdpUntaggedInvalidQn = 0x01;
inline constexpr kstd::u8 kDdpUntaggedNoBuffer = 0x02;
inline constexpr kstd::u8 kDdpUntaggedMsnRange = 0x03;
inline constexpr kstd::u8 kDdpUntaggedInvalidMo = 0x04;
inline constexpr kstd::u8 kDdpUntaggedTooLong = 0x05;
inline constexpr kstd::u8 kDdpUntaggedInvalidVersion = 0x06;

// Layer, type and code of an error, as a TERMINATE carries them.
struct TermError {
  kstd::u8 layer = 0;
  kstd::u8 etype = 0;
  kstd::u8 code = 0;
};

// The payload of a TERMINATE, in host terms.
struct Terminate {
  static constexpr kstd::usize kHeaderMax = 18;  // an untagged DDP header
  static constexpr kstd::usize kReadRequestLen = 28;

  TermError error;
  bool m = false;  // segment_length is valid
  bool d = false;  // ddp_header holds the terminated segment's header
  bool r = false;  // read_request holds the terminated Read Request
  kstd::u16 segment_length = 0;
  kstd::u8 ddp_header[kHeaderMax] = {};
  kstd::u8 ddp_header_len = 0;  // 14 (tagged) or 18 (untagged) with D
  kstd::u8 read_request[kReadRequestLen] = {};
};

// Longest TERMINATE ULPDU: untagged header, control, length, DDP header,
// Read Request.
inline constexpr kstd::usize kTerminateMax = 18 + 4 + 2 + Terminate::kHeaderMax + Terminate::kReadRequestLen;

// The name the RFCs give an error (RFC 5040 section 7, RFC 5041 section
// 7, RFC 5044 section 8 and RFC 6581 section 8), for log lines; "unknown
// error" for a triplet they do not define. Never null.
const char* term_name(const TermError& e);

// The whole TERMINATE ULPDU (untagged header on queue 2 with `msn`, then
// the payload). -EINVAL for an inconsistent `t`, -ENOSPC if `out` is short.
kstd::Result<kstd::usize> encode_terminate(const Terminate& t, kstd::u32 msn, kstd::MutableBytes out);
// The payload after the untagged header. -EPROTO if it is truncated.
int decode_terminate(kstd::Bytes payload, Terminate* out);

}  // namespace xiw::ddp
