// SPDX-License-Identifier: GPL-2.0
// DDP segment headers (RFC 5041 section 4) with the RDMAP control field
// in their ULP octets (RFC 5040 section 4), and the RDMA Read Request
// header (RFC 5040 section 4.4):
//
//   tagged   (14): DDPctl | RDMAPctl | STag(4) | TO(8)
//   untagged (18): DDPctl | RDMAPctl | RsvdULP/Invalidate STag(4) | QN(4) | MSN(4) | MO(4)
//   DDPctl = T | L | Rsvd(4) | DV(2);  RDMAPctl = RV(2) | Rsv(2) | Opcode(4)
#pragma once

#include "../kstd/byteorder.h"
#include "../kstd/result.h"
#include "../kstd/span.h"
#include "term.h"

namespace xiw::ddp {

using kstd::u16;
using kstd::u32;
using kstd::u64;
using kstd::u8;
using kstd::usize;

inline constexpr u8 kFlagTagged = 0x80;
inline constexpr u8 kFlagLast = 0x40;
inline constexpr u8 kDdpVersion = 1;    // DV, the low two bits of DDPctl
inline constexpr u8 kRdmapVersion = 1;  // RV, the high two bits of RDMAPctl
inline constexpr usize kTaggedLen = 14;
inline constexpr usize kUntaggedLen = 18;
inline constexpr usize kReadRequestLen = 28;  // after the untagged header
inline constexpr usize kControlLen = 2;       // DDPctl and RDMAPctl

// RDMAP opcodes (RFC 5040 section 4.1).
enum class Opcode : u8 {
  write = 0,
  read_request = 1,
  read_response = 2,
  send = 3,
  send_inv = 4,
  send_se = 5,
  send_se_inv = 6,
  terminate = 7,
};

// Untagged queue numbers (RFC 5040 section 5.1).
inline constexpr u32 kQueueSend = 0;
inline constexpr u32 kQueueReadRequest = 1;
inline constexpr u32 kQueueTerminate = 2;

struct WireTagged {
  u8 ddp_ctrl;
  u8 rdmap_ctrl;
  kstd::Be32 stag;
  kstd::Be64 to;
};
static_assert(sizeof(WireTagged) == kTaggedLen && alignof(WireTagged) == 1);

struct WireUntagged {
  u8 ddp_ctrl;
  u8 rdmap_ctrl;
  kstd::Be32 inval_stag;  // RsvdULP except in Send with Invalidate
  kstd::Be32 qn;
  kstd::Be32 msn;
  kstd::Be32 mo;
};
static_assert(sizeof(WireUntagged) == kUntaggedLen && alignof(WireUntagged) == 1);

struct WireReadRequest {
  kstd::Be32 sink_stag;
  kstd::Be64 sink_to;
  kstd::Be32 size;
  kstd::Be32 src_stag;
  kstd::Be64 src_to;
};
static_assert(sizeof(WireReadRequest) == kReadRequestLen && alignof(WireReadRequest) == 1);

// One decoded segment header, in host terms.
struct Header {
  Opcode opcode = Opcode::send;
  bool last = true;
  // Tagged segments.
  u32 stag = 0;
  u64 to = 0;
  // Untagged segments.
  u32 qn = 0;
  u32 msn = 0;
  u32 mo = 0;
  u32 inval_stag = 0;
  // RDMA Read Request.
  u32 sink_stag = 0;
  u64 sink_to = 0;
  u32 read_size = 0;
  u32 src_stag = 0;
  u64 src_to = 0;

  constexpr bool tagged() const { return opcode == Opcode::write || opcode == Opcode::read_response; }
};

// Octets of the headers of a segment with this opcode (0 if invalid).
// The untagged queue an untagged opcode travels on.
u32 queue_of(Opcode op);
usize header_length(Opcode op);
// Header length announced by the two control octets at the start of a
// ULPDU, or the TERMINATE error for control octets that are not valid.
kstd::Result<usize> header_length(kstd::Bytes control, TermError* error);
// Decodes the headers at the start of `ulpdu` (at least header_length()
// octets). On a protocol error returns -EPROTO and fills `error` with the
// RFC's layer, type and code.
int decode(kstd::Bytes ulpdu, Header* out, TermError* error);
// Writes the headers for `h`; returns their length or -ENOSPC.
kstd::Result<usize> encode(const Header& h, kstd::MutableBytes out);

}  // namespace xiw::ddp
