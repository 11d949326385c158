/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types and error numbers shared by the C glue and the C++ core.
 *
 * This header is included from both languages and from kernel and host
 * builds, so it depends on nothing but the compiler: fixed-width types come
 * from the compiler's predefined macros, error numbers are Linux's values
 * (the glue checks them against <linux/errno.h> at build time).
 */
#ifndef XIW_TYPES_H
#define XIW_TYPES_H

typedef __UINT8_TYPE__ xiw_u8;
typedef __UINT16_TYPE__ xiw_u16;
typedef __UINT32_TYPE__ xiw_u32;
typedef __UINT64_TYPE__ xiw_u64;
typedef __SIZE_TYPE__ xiw_size;

#ifdef __cplusplus
#define XIW_STATIC_ASSERT(expr, msg) static_assert(expr, msg)
#else
#define XIW_STATIC_ASSERT(expr, msg) _Static_assert(expr, msg)
#endif
#define XIW_OFFSETOF(type, member) __builtin_offsetof(type, member)

/* Error numbers returned (negated) across the boundary. */
#define XIW_EIO			5
#define XIW_ENOMEM		12
#define XIW_EBUSY		16
#define XIW_EINVAL		22
#define XIW_ENOSPC		28
#define XIW_EBADMSG		74
#define XIW_EPROTO		71
#define XIW_EMSGSIZE		90
#define XIW_EPROTONOSUPPORT	93
#define XIW_EOPNOTSUPP		95
#define XIW_ECONNRESET		104
#define XIW_ENOBUFS		105
#define XIW_ETIMEDOUT		110
#define XIW_ECONNREFUSED	111

#endif /* XIW_TYPES_H */
