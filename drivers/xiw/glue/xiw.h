/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the glue's C files. */
#ifndef XIW_GLUE_H
#define XIW_GLUE_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include <xiw/env.h>

#include "compat.h"

#define XIW_PORT	1
#define XIW_VENDOR_ID	0x626d74	/* as siw: the siw provider accepts it */
#define XIW_MAX_PD	(64 * 1024)
#define XIW_MAX_IRD	128	/* inbound RDMA Reads per QP */
#define XIW_MAX_ORD	128	/* outbound RDMA Reads per QP */
#define XIW_MAX_INLINE	256

struct xiw_cep;

struct xiw_device {
	struct ib_device ibdev;
	struct net_device *netdev;	/* held by ib_device_set_netdev() */
	u8 raw_gid[ETH_ALEN];
	struct list_head list;		/* on xiw_devices, until dealloc */
	struct work_struct unregister_work;
	atomic_t num_pd;
	struct xarray qps;		/* qpn -> struct xiw_qp */
	struct xarray mrs;		/* STag index -> struct xiw_mr */
};

struct xiw_cq {
	struct ib_cq ibcq;
	spinlock_t lock;
	struct ib_wc *queue;		/* size entries, a power of two */
	u32 size;
	u32 head;			/* producer */
	u32 tail;			/* consumer */
	enum ib_cq_notify_flags notify;
};

struct xiw_qp {
	struct ib_qp ibqp;
	struct kref ref;		/* the core's, plus the CM's */
	struct completion freed;	/* last reference dropped */
	spinlock_t lock;		/* state, attributes, cep */
	enum ib_qp_state state;
	int access;
	u16 ird;			/* inbound reads we serve */
	u16 ord;			/* outbound reads we issue */
	bool sq_sig_all;
	struct xiw_cep *cep;		/* the connection, while there is one */
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

static inline struct xiw_cq *to_xiw_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct xiw_cq, ibcq);
}

static inline struct xiw_qp *to_xiw_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct xiw_qp, ibqp);
}

/* device.c: rdma link ops, device lifetime, netdev events */
int xiw_device_init(void);
void xiw_device_exit(void);

/* verbs.c */
extern const struct ib_device_ops xiw_verbs_ops;

/* cq.c */
#ifdef XIW_HAVE_CQ_ATTRS
int xiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs);
#else
int xiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata);
#endif
int xiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int xiw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int xiw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* mr.c */
struct ib_mr *xiw_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *xiw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 virt, int access, struct ib_udata *udata);
int xiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* qp.c */
int xiw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata);
int xiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int xiw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int xiw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int xiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad);
int xiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad);
struct xiw_qp *xiw_qp_lookup(struct xiw_device *xdev, u32 qpn);
void xiw_qp_get(struct xiw_qp *qp);
void xiw_qp_put(struct xiw_qp *qp);
void xiw_qp_connected(struct xiw_qp *qp, u16 ird, u16 ord);
void xiw_qp_disconnected(struct xiw_qp *qp);

/* crc.c: CRC32c through the kernel crypto API */
int xiw_crc_init(void);
void xiw_crc_exit(void);
const char *xiw_crc_driver(void);
int xiw_crc32c_update(void *ctx, xiw_u32 *state, const void *buf,
		      xiw_size len);

#endif /* XIW_GLUE_H */
