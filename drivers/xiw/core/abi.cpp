// SPDX-License-Identifier: GPL-2.0
// The C entry points of include/xiw/mpa.h: translate between the plain ABI
// structs and the core's types. No protocol logic lives here.
#include "abi.h"

namespace {

using xiw::mpa::FrameType;

bool to_frame_type(xiw_u8 type, FrameType* out) {
  if (type != XIW_MPA_REQUEST && type != XIW_MPA_REPLY) return false;
  *out = static_cast<FrameType>(type);
  return true;
}

}  // namespace

namespace xiw::abi {

void to_abi(const mpa::StartupFrame& frame, xiw_mpa_frame* out) {
  *out = {};
  out->type = static_cast<xiw_u8>(frame.type);
  out->flags = frame.flags.bits();
  out->rev = frame.rev;
  // decode() leaves the enhanced data zero unless S was set.
  out->ctrl = frame.enhanced.ctrl;
  out->ird = frame.enhanced.ird;
  out->ord = frame.enhanced.ord;
  out->pd_len = static_cast<xiw_u16>(frame.private_data.size());
}

}  // namespace xiw::abi

extern "C" int xiw_mpa_encode(const struct xiw_mpa_frame* f, const void* pd, void* buf, xiw_size len) {
  xiw::mpa::StartupFrame frame;
  if (f == nullptr || (f->pd_len != 0 && pd == nullptr) || !to_frame_type(f->type, &frame.type))
    return kstd::err::inval;
  // Bits outside M|C|R|S and G (xiw's GSO bit, see include/xiw/mpa.h) are
  // not ours to set.
  if ((f->flags & ~xiw::mpa::FrameFlags::defined) != 0) return kstd::err::inval;
  frame.flags = xiw::mpa::FrameFlags(f->flags);
  frame.rev = f->rev;
  frame.enhanced = {f->ctrl, f->ird, f->ord};
  frame.private_data = kstd::as_bytes(pd, f->pd_len);
  const kstd::Result<kstd::usize> n = xiw::mpa::encode(frame, kstd::as_writable_bytes(buf, len));
  return n.ok() ? static_cast<int>(n.value()) : n.error();
}

extern "C" int xiw_mpa_frame_len(const void* hdr, xiw_u8 expect) {
  FrameType type;
  if (hdr == nullptr || !to_frame_type(expect, &type)) return kstd::err::inval;
  const kstd::Result<kstd::usize> n = xiw::mpa::frame_length(kstd::as_bytes(hdr, xiw::mpa::kHeaderLen), type);
  return n.ok() ? static_cast<int>(n.value()) : n.error();
}

extern "C" int xiw_mpa_decode(const void* buf, xiw_size len, xiw_u8 expect, struct xiw_mpa_frame* f) {
  FrameType type;
  if (buf == nullptr || f == nullptr || !to_frame_type(expect, &type)) return kstd::err::inval;
  const kstd::Bytes in = kstd::as_bytes(buf, len);
  const kstd::Result<xiw::mpa::StartupFrame> got = xiw::mpa::decode(in, type);
  if (!got.ok()) return got.error();
  const xiw::mpa::StartupFrame& frame = got.value();
  xiw::abi::to_abi(frame, f);
  f->pd_off = static_cast<xiw_u16>(frame.private_data.data() - in.data());
  return 0;
}
