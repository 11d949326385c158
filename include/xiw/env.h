/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The environment table: the only way the core reaches its host.
 *
 * In the kernel the glue fills it with kernel services (the crypto API for
 * CRC32c); on the host the tests fill it with user-space equivalents. The
 * core never calls anything that is not in this table.
 */
#ifndef XIW_ENV_H
#define XIW_ENV_H

#include "types.h"

struct xiw_env {
	/* Opaque pointer handed back to every callback. */
	void *ctx;
	/*
	 * Advance a raw CRC32c (Castagnoli) state over @len bytes at @buf.
	 * The state is the bare register: no initial or final inversion, in
	 * either direction (the caller seeds it with ~0 and inverts at the
	 * end). Returns 0 or a negative errno.
	 */
	int (*crc32c_update)(void *ctx, xiw_u32 *state, const void *buf,
			     xiw_size len);
};

XIW_STATIC_ASSERT(sizeof(struct xiw_env) == 2 * sizeof(void *), "xiw_env size");

#endif /* XIW_ENV_H */
