// SPDX-License-Identifier: GPL-2.0
// Fixed-width integer types for the core, from the shared ABI header.
#pragma once

#include <xiw/types.h>

namespace kstd {

using u8 = xiw_u8;
using u16 = xiw_u16;
using u32 = xiw_u32;
using u64 = xiw_u64;
using usize = xiw_size;

static_assert(sizeof(u16) == 2 && sizeof(u32) == 4 && sizeof(u64) == 8);

// Negative errno values, the core's only error currency. Named rather than
// macros so that host builds may include <cerrno> alongside.
namespace err {
inline constexpr int io = -XIW_EIO;
inline constexpr int inval = -XIW_EINVAL;
inline constexpr int nospc = -XIW_ENOSPC;
inline constexpr int badmsg = -XIW_EBADMSG;
inline constexpr int proto = -XIW_EPROTO;
inline constexpr int protonosupport = -XIW_EPROTONOSUPPORT;
inline constexpr int msgsize = -XIW_EMSGSIZE;
inline constexpr int opnotsupp = -XIW_EOPNOTSUPP;
inline constexpr int connreset = -XIW_ECONNRESET;
inline constexpr int nobufs = -XIW_ENOBUFS;
inline constexpr int timedout = -XIW_ETIMEDOUT;
inline constexpr int connrefused = -XIW_ECONNREFUSED;
inline constexpr int busy = -XIW_EBUSY;
}  // namespace err

}  // namespace kstd
