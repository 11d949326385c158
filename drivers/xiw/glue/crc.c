// SPDX-License-Identifier: GPL-2.0
/*
 * CRC32c for the core, from the kernel crypto API ("crc32c" shash).
 *
 * The core keeps the raw CRC register itself and hands it to us per call,
 * so we carry it in and out of a shash descriptor with import/export. For
 * crc32c the exported state is exactly that 32-bit register; this is
 * checked once at init so that a driver with a different state layout
 * fails loudly instead of computing wrong CRCs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/hash.h>
#include <kunit/visibility.h>
#include <linux/err.h>
#include <linux/module.h>

#include "xiw.h"

static struct crypto_shash *xiw_crc_tfm;

int xiw_crc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32c", 0, 0);

	if (IS_ERR(tfm)) {
		pr_err("no crc32c in the crypto API: %ld\n", PTR_ERR(tfm));
		return PTR_ERR(tfm);
	}
	if (crypto_shash_statesize(tfm) != sizeof(u32) ||
	    crypto_shash_descsize(tfm) != sizeof(u32)) {
		pr_err("crc32c driver %s has an unexpected state size\n",
		       crypto_shash_driver_name(tfm));
		crypto_free_shash(tfm);
		return -EINVAL;
	}
	xiw_crc_tfm = tfm;
	return 0;
}

void xiw_crc_exit(void)
{
	crypto_free_shash(xiw_crc_tfm);
	xiw_crc_tfm = NULL;
}

/* The core's environment in the kernel: one table for every user. */
const struct xiw_env xiw_kernel_env = {
	.ctx = NULL,
	.crc32c_update = xiw_crc32c_update,
};

const char *xiw_crc_driver(void)
{
	return crypto_shash_driver_name(xiw_crc_tfm);
}

int xiw_crc32c_update(void *ctx, xiw_u32 *state, const void *buf,
		      xiw_size len)
{
	SHASH_DESC_ON_STACK(desc, xiw_crc_tfm);
	int rc;

	desc->tfm = xiw_crc_tfm;
	rc = crypto_shash_import(desc, state);
	if (!rc)
		rc = crypto_shash_update(desc, buf, len);
	if (!rc)
		rc = crypto_shash_export(desc, state);
	shash_desc_zero(desc);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(xiw_crc32c_update);

MODULE_SOFTDEP("pre: crc32c");
