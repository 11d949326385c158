// SPDX-License-Identifier: GPL-2.0
// RDMA-CM private data for RPC-over-RDMA (RFC 8797): eight octets in the
// connection request and accept (on iWARP, after MPA's own RFC 6581
// IRD/ORD field). Without it, or with a format a receiver does not know,
// both inline thresholds are 1024 octets and Send With Invalidate is not
// accepted.
//
//   0..3  format identifier 0xf6ab0e18
//   4     version 1
//   5     flags: 0x01 Remote Invalidation (Send With Invalidate) accepted
//   6     send size:    size / 1024 - 1  (1 KiB .. 256 KiB)
//   7     receive size: size / 1024 - 1
#pragma once

#include <array>
#include <cstdint>

#include "xdr.h"

namespace rpcrdma {

constexpr uint32_t kPdMagic = 0xf6ab0e18;
constexpr uint32_t kDefaultInline = 1024;
constexpr uint32_t kMaxInline = 256 * 1024;

struct PrivateData {
  uint32_t send_size = kDefaultInline;
  uint32_t recv_size = kDefaultInline;
  bool remote_invalidate = false;
};

// The private data a peer sent, or the defaults if @in is shorter than
// eight octets, has another format identifier, or another version.
// Octets after the eighth are ignored.
PrivateData decode_private_data(xdr::Bytes in);

// The eight octets; sizes are rounded down to a multiple of 1024 and kept
// within 1 KiB .. 256 KiB.
std::array<uint8_t, 8> encode_private_data(const PrivateData& pd);

}  // namespace rpcrdma
