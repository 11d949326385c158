// SPDX-License-Identifier: GPL-2.0
// DDP/RDMAP segment headers; see header.h.
#include "header.h"

namespace xiw::ddp {

namespace {

constexpr u8 kOpcodeMask = 0x0f;
constexpr u8 kDvMask = 0x03;
constexpr u8 kRvShift = 6;

constexpr bool opcode_valid(u8 op) { return op <= static_cast<u8>(Opcode::terminate); }

int protocol_error(TermError* error, u8 layer, u8 etype, u8 code) {
  if (error) *error = {layer, etype, code};
  return kstd::err::proto;
}

}  // namespace

u32 queue_of(Opcode op) {
  switch (op) {
    case Opcode::read_request:
      return kQueueReadRequest;
    case Opcode::terminate:
      return kQueueTerminate;
    default:
      return kQueueSend;
  }
}

usize header_length(Opcode op) {
  switch (op) {
    case Opcode::write:
    case Opcode::read_response:
      return kTaggedLen;
    case Opcode::read_request:
      return kUntaggedLen + kReadRequestLen;
    case Opcode::send:
    case Opcode::send_inv:
    case Opcode::send_se:
    case Opcode::send_se_inv:
    case Opcode::terminate:
      return kUntaggedLen;
  }
  return 0;
}

kstd::Result<usize> header_length(kstd::Bytes control, TermError* error) {
  if (control.size() < kControlLen) return kstd::Result<usize>::error(kstd::err::inval);
  const u8 ddp = control[0];
  const u8 rdmap = control[1];
  const bool tagged = ddp & kFlagTagged;
  // RFC 5041 section 7: an unknown DDP version is a tagged or untagged
  // buffer error by the T flag.
  if ((ddp & kDvMask) != kDdpVersion)
    return kstd::Result<usize>::error(
        protocol_error(error, kLayerDdp, tagged ? kDdpTaggedBuffer : kDdpUntaggedBuffer,
                       tagged ? kDdpTaggedInvalidVersion : kDdpUntaggedInvalidVersion));
  if ((rdmap >> kRvShift) != kRdmapVersion)
    return kstd::Result<usize>::error(
        protocol_error(error, kLayerRdmap, kRdmapRemoteOperation, kRdmapInvalidVersion));
  const u8 op = rdmap & kOpcodeMask;
  if (!opcode_valid(op))
    return kstd::Result<usize>::error(
        protocol_error(error, kLayerRdmap, kRdmapRemoteOperation, kRdmapUnexpectedOpcode));
  Header h;
  h.opcode = static_cast<Opcode>(op);
  // The T flag must match the opcode's buffer model.
  if (h.tagged() != tagged)
    return kstd::Result<usize>::error(
        protocol_error(error, kLayerRdmap, kRdmapRemoteOperation, kRdmapUnexpectedOpcode));
  return header_length(h.opcode);
}

int decode(kstd::Bytes ulpdu, Header* out, TermError* error) {
  const kstd::Result<usize> len = header_length(ulpdu, error);
  if (!len.ok()) return len.error();
  if (ulpdu.size() < len.value()) return kstd::err::inval;
  Header h;
  h.opcode = static_cast<Opcode>(ulpdu[1] & kOpcodeMask);
  h.last = ulpdu[0] & kFlagLast;
  if (h.tagged()) {
    WireTagged w;
    __builtin_memcpy(&w, ulpdu.data(), sizeof(w));
    h.stag = w.stag.get();
    h.to = w.to.get();
    *out = h;
    return 0;
  }
  WireUntagged w;
  __builtin_memcpy(&w, ulpdu.data(), sizeof(w));
  h.qn = w.qn.get();
  h.msn = w.msn.get();
  h.mo = w.mo.get();
  if (h.opcode == Opcode::send_inv || h.opcode == Opcode::send_se_inv) h.inval_stag = w.inval_stag.get();
  if (h.qn != queue_of(h.opcode))
    return protocol_error(error, kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedInvalidQn);
  // Read Requests and TERMINATEs are single-segment messages.
  if ((h.opcode == Opcode::read_request || h.opcode == Opcode::terminate) && (h.mo != 0 || !h.last))
    return protocol_error(error, kLayerDdp, kDdpUntaggedBuffer, kDdpUntaggedInvalidMo);
  if (h.opcode == Opcode::read_request) {
    WireReadRequest r;
    __builtin_memcpy(&r, ulpdu.data() + kUntaggedLen, sizeof(r));
    h.sink_stag = r.sink_stag.get();
    h.sink_to = r.sink_to.get();
    h.read_size = r.size.get();
    h.src_stag = r.src_stag.get();
    h.src_to = r.src_to.get();
  }
  *out = h;
  return 0;
}

kstd::Result<usize> encode(const Header& h, kstd::MutableBytes out) {
  const usize len = header_length(h.opcode);
  if (len == 0) return kstd::Result<usize>::error(kstd::err::inval);
  if (out.size() < len) return kstd::Result<usize>::error(kstd::err::nospc);
  const u8 ddp = static_cast<u8>((h.tagged() ? kFlagTagged : 0) | (h.last ? kFlagLast : 0) | kDdpVersion);
  const u8 rdmap = static_cast<u8>(kRdmapVersion << kRvShift | static_cast<u8>(h.opcode));
  if (h.tagged()) {
    WireTagged w;
    w.ddp_ctrl = ddp;
    w.rdmap_ctrl = rdmap;
    w.stag.set(h.stag);
    w.to.set(h.to);
    __builtin_memcpy(out.data(), &w, sizeof(w));
    return len;
  }
  WireUntagged w;
  w.ddp_ctrl = ddp;
  w.rdmap_ctrl = rdmap;
  w.inval_stag.set(h.opcode == Opcode::send_inv || h.opcode == Opcode::send_se_inv ? h.inval_stag : 0);
  w.qn.set(queue_of(h.opcode));
  w.msn.set(h.msn);
  w.mo.set(h.mo);
  __builtin_memcpy(out.data(), &w, sizeof(w));
  if (h.opcode == Opcode::read_request) {
    WireReadRequest r;
    r.sink_stag.set(h.sink_stag);
    r.sink_to.set(h.sink_to);
    r.size.set(h.read_size);
    r.src_stag.set(h.src_stag);
    r.src_to.set(h.src_to);
    __builtin_memcpy(out.data() + kUntaggedLen, &r, sizeof(r));
  }
  return len;
}

}  // namespace xiw::ddp
