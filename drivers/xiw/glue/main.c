// SPDX-License-Identifier: GPL-2.0
/*
 * xiw: a software iWARP RNIC. Module entry points.
 *
 * At load the glue builds the core's environment table from kernel
 * services and has the core check it (CRC32c known answers through the
 * crypto API, startup frame codec round trip) before anything else runs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/module.h>
#include <linux/rcupdate.h>

#include <xiw/core.h>
#include <xiw/mpa.h>

#include "cm.h"
#include "xiw.h"

/* The core's error numbers are Linux's. */
static_assert(XIW_EIO == EIO && XIW_ENOMEM == ENOMEM);
static_assert(XIW_EINVAL == EINVAL && XIW_ENOSPC == ENOSPC);
static_assert(XIW_EBADMSG == EBADMSG && XIW_EPROTO == EPROTO);
static_assert(XIW_EMSGSIZE == EMSGSIZE);
static_assert(XIW_EPROTONOSUPPORT == EPROTONOSUPPORT);
static_assert(XIW_EOPNOTSUPP == EOPNOTSUPP && XIW_ECONNRESET == ECONNRESET);
static_assert(XIW_ENOBUFS == ENOBUFS && XIW_ETIMEDOUT == ETIMEDOUT);
static_assert(XIW_ECONNREFUSED == ECONNREFUSED);
static_assert(XIW_EBUSY == EBUSY);

static int __init xiw_init(void)
{
	int rc;

	rc = xiw_crc_init();
	if (rc)
		return rc;
	rc = xiw_core_check_env(&xiw_kernel_env);
	if (rc) {
		pr_err("core self-check failed (%d) with crc32c driver %s\n",
		       rc, xiw_crc_driver());
		xiw_crc_exit();
		return rc;
	}
	rc = xiw_tx_init();
	if (rc)
		goto out_crc;
	rc = xiw_cm_init();
	if (rc)
		goto out_tx;
	rc = xiw_device_init();
	if (rc)
		goto out_cm;
	pr_info("loaded (crc32c: %s, zero-copy: %s)\n", xiw_crc_driver(),
		xiw_zc_built ? "yes" : "no");
	return 0;
out_cm:
	xiw_cm_exit();
out_tx:
	xiw_tx_exit();
out_crc:
	xiw_crc_exit();
	return rc;
}

static void __exit xiw_exit(void)
{
	xiw_device_exit();
	xiw_cm_exit();
	xiw_zc_exit();
	xiw_tx_exit();
	xiw_crc_exit();
	/*
	 * A kernel MR's memory goes back through call_rcu(), to our own
	 * callback, and an RCU callback cannot be cancelled: wait until
	 * every one of them has run before our code goes away.
	 */
	rcu_barrier();
	pr_info("unloaded\n");
}

module_init(xiw_init);
module_exit(xiw_exit);

MODULE_DESCRIPTION("xiw: software iWARP RNIC (RDMAP/DDP/MPA over kernel TCP)");
MODULE_LICENSE("GPL");
MODULE_VERSION(XIW_VERSION);
MODULE_ALIAS_RDMA_LINK("xiw");
