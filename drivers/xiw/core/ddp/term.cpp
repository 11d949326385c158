// SPDX-License-Identifier: GPL-2.0
// TERMINATE messages; see term.h.
#include "term.h"

#include <xiw/mpa.h>

#include "header.h"

namespace xiw::ddp {

namespace {

constexpr u32 kFlagM = 0x8000;
constexpr u32 kFlagD = 0x4000;
constexpr u32 kFlagR = 0x2000;

}  // namespace

kstd::Result<usize> encode_terminate(const Terminate& t, u32 msn, kstd::MutableBytes out) {
  if (t.error.layer > 0xf || t.error.etype > 0xf) return kstd::Result<usize>::error(kstd::err::inval);
  if (t.d && t.ddp_header_len != kTaggedLen && t.ddp_header_len != kUntaggedLen)
    return kstd::Result<usize>::error(kstd::err::inval);
  const usize len = kUntaggedLen + 4 + (t.m || t.d ? 2 : 0) + (t.d ? t.ddp_header_len : 0) +
                    (t.r ? Terminate::kReadRequestLen : 0);
  if (out.size() < len) return kstd::Result<usize>::error(kstd::err::nospc);
  Header h;
  h.opcode = Opcode::terminate;
  h.msn = msn;
  usize at = encode(h, out).value();
  kstd::Be32 ctrl;
  ctrl.set(static_cast<u32>(t.error.layer) << 28 | static_cast<u32>(t.error.etype) << 24 |
           static_cast<u32>(t.error.code) << 16 | (t.m ? kFlagM : 0) | (t.d ? kFlagD : 0) |
           (t.r ? kFlagR : 0));
  __builtin_memcpy(out.data() + at, &ctrl, 4);
  at += 4;
  if (t.m || t.d) {
    kstd::Be16 seg;
    seg.set(t.m ? t.segment_length : 0);
    __builtin_memcpy(out.data() + at, &seg, 2);
    at += 2;
  }
  if (t.d) {
    __builtin_memcpy(out.data() + at, t.ddp_header, t.ddp_header_len);
    at += t.ddp_header_len;
  }
  if (t.r) {
    __builtin_memcpy(out.data() + at, t.read_request, Terminate::kReadRequestLen);
    at += Terminate::kReadRequestLen;
  }
  return at;
}

int decode_terminate(kstd::Bytes in, Terminate* out) {
  Terminate t;
  if (in.size() < 4) return kstd::err::proto;
  const u32 ctrl =
      static_cast<u32>(in[0]) << 24 | static_cast<u32>(in[1]) << 16 | static_cast<u32>(in[2]) << 8 | in[3];
  t.error = {static_cast<u8>(ctrl >> 28), static_cast<u8>(ctrl >> 24 & 0xf), static_cast<u8>(ctrl >> 16)};
  t.m = ctrl & kFlagM;
  t.d = ctrl & kFlagD;
  t.r = ctrl & kFlagR;
  usize at = 4;
  if (t.m || t.d) {
    if (in.size() < at + 2) return kstd::err::proto;
    t.segment_length = static_cast<u16>(in[at] << 8 | in[at + 1]);
    at += 2;
  }
  if (t.d) {
    if (in.size() < at + 1) return kstd::err::proto;
    t.ddp_header_len = static_cast<u8>((in[at] & kFlagTagged) ? kTaggedLen : kUntaggedLen);
    if (in.size() < at + t.ddp_header_len) return kstd::err::proto;
    __builtin_memcpy(t.ddp_header, in.data() + at, t.ddp_header_len);
    at += t.ddp_header_len;
  }
  if (t.r) {
    if (in.size() < at + Terminate::kReadRequestLen) return kstd::err::proto;
    __builtin_memcpy(t.read_request, in.data() + at, Terminate::kReadRequestLen);
  }
  *out = t;
  return 0;
}

namespace {

struct TermNameEntry {
  TermError error;
  const char* name;
};

// Layer 2 (LLP) Type 0 is MPA's (mpa/errors.h). Layer 0 Type 0 and Layer
// 1 Type 0 (local catastrophic) take any code: looked up with code 0.
constexpr TermNameEntry kTermNames[] = {
    {{kLayerRdmap, kRdmapLocalCatastrophic, 0}, "RDMAP local catastrophic error"},
    {{kLayerRdmap, kRdmapRemoteProtection, kRdmapInvalidStag}, "RDMAP invalid STag"},
    {{kLayerRdmap, kRdmapRemoteProtection, kRdmapBaseBounds}, "RDMAP base or bounds violation"},
    {{kLayerRdmap, kRdmapRemoteProtection, kRdmapAccessRights}, "RDMAP access rights violation"},
    {{kLayerRdmap, kRdmapRemoteProtection, kRdmapStagNotInStream},
     "RDMAP STag not associated with RDMAP stream"},
    {{kLayerRdmap, kRdmapRemoteProtection, kRdmapToWrap}, "RDMAP TO wrap"},
    {{kLayerRdmap, kRdmapRemoteProtection, kRdmapCannotInvalidate}, "RDMAP STag cannot be invalidated"},
    {{kLayerRdmap, kRdmapRemoteProtection, kRdmapUnspecified}, "RDMAP unspecified protection error"},
    {{kLayerRdmap, kRdmapRemoteOperation, kRdmapInvalidVersion}, "RDMAP invalid RDMAP version"},
    {{kLayerRdmap, kRdmapRemoteOperation, kRdmapUnexpectedOpcode}, "RDMAP unexpected OpCode"},
    {{kLayerRdmap, kRdmapRemoteOperation, kRdmapCatastrophicStream},
     "RDMAP catastrophic error, localized to RDMAP stream"},
    {{kLayerRdmap, kRdmapRemoteOperation, kRdmapCatastrophicGlobal}, "RDMAP catastrophic error, global"},
    {{kLayerRdmap, kRdmapRemoteOperation, kRdmapCannotInvalidate}, "RDMAP STag cannot be invalidated"},
    {{kLayerRdmap, kRdmapRemoteOperation, kRdmapUnspecified}, "RDMAP unspecified operation error"},
    {{kLayerDdp, kDdpLocalCatastrophic, 0}, "DDP local catastrophic error"},
    {{kLayerDdp, kDdpTaggedBuffer, kDdpTaggedInvalidStag}, "DDP tagged: invalid STag"},
    {{kLayerDdp, kDdpTaggedBuffer, kDdpTaggedBaseBounds}, "DDP tagged: base or bounds violation"},
    {{kLayerDdp, kDdpTaggedBuffer, kDdpTaggedStagNotInStream},
     "DDP tagged: STag not associated with DDP stream"},
    {{kLayerDdp, kDdpTaggedBuffer, kDdpTaggedToWrap}, "DDP tagged: TO wrap"},
    {{kLayerDdp, kDdpTaggedBuffer, kDdpTaggedInvalidVersion}, "DDP tagged: invalid DDP version"},
    {{kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedInvalidQn}, "DDP untagged: invalid QN"},
    {{kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedNoBuffer}, "DDP untagged: invalid MSN, no buffer available"},
    {{kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedMsnRange},
     "DDP untagged: invalid MSN, MSN range is not valid"},
    {{kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedInvalidMo}, "DDP untagged: invalid MO"},
    {{kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedTooLong},
     "DDP untagged: message too long for available buffer"},
    {{kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedInvalidVersion}, "DDP untagged: invalid DDP version"},
    {{kLayerLlp, XIW_TERM_ETYPE_MPA, XIW_MPA_ERR_LLP_LOST}, "MPA: TCP connection closed, terminated or lost"},
    {{kLayerLlp, XIW_TERM_ETYPE_MPA, XIW_MPA_ERR_CRC}, "MPA: CRC error"},
    {{kLayerLlp, XIW_TERM_ETYPE_MPA, XIW_MPA_ERR_MARKER}, "MPA: Marker and ULPDU_Length field mismatch"},
    {{kLayerLlp, XIW_TERM_ETYPE_MPA, XIW_MPA_ERR_BAD_STARTUP}, "MPA: invalid Request or Reply Frame"},
    {{kLayerLlp, XIW_TERM_ETYPE_MPA, XIW_MPA_ERR_LOCAL}, "MPA: local catastrophic error"},
    {{kLayerLlp, XIW_TERM_ETYPE_MPA, XIW_MPA_ERR_IRD}, "MPA: insufficient IRD resources"},
    {{kLayerLlp, XIW_TERM_ETYPE_MPA, XIW_MPA_ERR_RTR}, "MPA: no matching RTR option"},
};

}  // namespace

const char* term_name(const TermError& e) {
  TermError key = e;
  if ((e.layer == kLayerRdmap || e.layer == kLayerDdp) && e.etype == 0) key.code = 0;
  for (const TermNameEntry& t : kTermNames) {
    if (t.error.layer == key.layer && t.error.etype == key.etype && t.error.code == key.code) return t.name;
  }
  return "unknown error";
}

}  // namespace xiw::ddp
