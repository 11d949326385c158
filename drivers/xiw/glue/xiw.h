/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the glue's C files. */
#ifndef XIW_GLUE_H
#define XIW_GLUE_H

#include <linux/list.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include <xiw/env.h>

#define XIW_PORT	1
#define XIW_VENDOR_ID	0x626d74	/* as siw: the siw provider accepts it */
#define XIW_MAX_PD	(64 * 1024)

struct xiw_device {
	struct ib_device ibdev;
	struct net_device *netdev;	/* held by ib_device_set_netdev() */
	u8 raw_gid[ETH_ALEN];
	struct list_head list;		/* on xiw_devices, until dealloc */
	struct work_struct unregister_work;
	atomic_t num_pd;
};

struct xiw_pd {
	struct ib_pd ibpd;
};

struct xiw_ucontext {
	struct ib_ucontext ibuctx;
};

static inline struct xiw_device *to_xiw_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct xiw_device, ibdev);
}

/* device.c: rdma link ops, device lifetime, netdev events */
int xiw_device_init(void);
void xiw_device_exit(void);

/* verbs.c */
extern const struct ib_device_ops xiw_verbs_ops;

/* crc.c: CRC32c through the kernel crypto API */
int xiw_crc_init(void);
void xiw_crc_exit(void);
const char *xiw_crc_driver(void);
int xiw_crc32c_update(void *ctx, xiw_u32 *state, const void *buf,
		      xiw_size len);

#endif /* XIW_GLUE_H */
