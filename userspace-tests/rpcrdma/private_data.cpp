// SPDX-License-Identifier: GPL-2.0
// RFC 8797 private data: decode and encode.
#include "private_data.h"

namespace rpcrdma {
namespace {

constexpr uint8_t kPdVersion = 1;
constexpr uint8_t kFlagRemoteInvalidate = 0x01;

uint8_t size_code(uint32_t size) {
  if (size < kDefaultInline) size = kDefaultInline;
  if (size > kMaxInline) size = kMaxInline;
  return uint8_t(size / 1024 - 1);
}

}  // namespace

PrivateData decode_private_data(xdr::Bytes in) {
  PrivateData pd;
  xdr::Reader r(in);
  if (r.u32() != kPdMagic || !r.has(4) || in[4] != kPdVersion) return pd;
  pd.remote_invalidate = in[5] & kFlagRemoteInvalidate;
  pd.send_size = (uint32_t{in[6]} + 1) * 1024;
  pd.recv_size = (uint32_t{in[7]} + 1) * 1024;
  return pd;
}

std::array<uint8_t, 8> encode_private_data(const PrivateData& pd) {
  return {uint8_t(kPdMagic >> 24),
          uint8_t(kPdMagic >> 16),
          uint8_t(kPdMagic >> 8),
          uint8_t(kPdMagic),
          kPdVersion,
          uint8_t(pd.remote_invalidate ? kFlagRemoteInvalidate : 0),
          size_code(pd.send_size),
          size_code(pd.recv_size)};
}

}  // namespace rpcrdma
