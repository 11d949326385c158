/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the glue's C files. */
#ifndef XIW_GLUE_H
#define XIW_GLUE_H

#include <xiw/env.h>

/* crc.c: CRC32c through the kernel crypto API */
int xiw_crc_init(void);
void xiw_crc_exit(void);
const char *xiw_crc_driver(void);
int xiw_crc32c_update(void *ctx, xiw_u32 *state, const void *buf,
		      xiw_size len);

#endif /* XIW_GLUE_H */
