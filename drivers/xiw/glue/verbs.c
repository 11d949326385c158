// SPDX-License-Identifier: GPL-2.0
/*
 * ib_device_ops of xiw.
 *
 * Device and port queries, user contexts (siw ABI), protection domains, and
 * the tables of the other objects: CQs (cq.c), QPs (qp.c, qp_rx.c,
 * qp_tx.c), SRQs (srq.c), MRs (mr.c), connections (cm.c), counters
 * (stats.c), resource attributes (restrack.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/iw_cm.h>

#include "cm.h"
#include "xiw.h"

static int xiw_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibdev);

	if (udata->inlen || udata->outlen)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = XIW_VENDOR_ID;
	/* `rdma link delete` may remove the device (dealloc_driver is set). */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_mr_size = ~0ULL;
	attr->max_mr = 1 << 24;
	attr->max_fast_reg_page_list_len = XIW_MAX_FRWR_PAGES;
	/* FRWR and remote invalidation, as NFS over RDMA needs them. */
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_pd = XIW_MAX_PD;
	attr->max_qp = 64 * 1024;
	attr->max_qp_wr = XIW_MAX_QP_WR;
	/*
	 * What every QP can have: user QPs are held to the siw ABI's ring
	 * entry, and user space reads these same attributes. Kernel QPs that
	 * ask for more get up to XIW_MAX_SGE.
	 */
	attr->max_send_sge = SIW_MAX_SGE;
	attr->max_recv_sge = SIW_MAX_SGE;
	attr->max_srq = XIW_MAX_SRQ;
	attr->max_srq_wr = XIW_MAX_QP_WR;
	attr->max_srq_sge = SIW_MAX_SGE;
	attr->max_cq = 64 * 1024;
	attr->max_cqe = 64 * 1024;
	/* Reads in flight: we serve IRD and issue ORD. */
	attr->max_qp_rd_atom = XIW_MAX_ORD;
	attr->max_qp_init_rd_atom = XIW_MAX_IRD;
	attr->max_res_rd_atom = 64 * 1024 * XIW_MAX_IRD;
	addrconf_addr_eui48((u8 *)&attr->sys_image_guid, xdev->raw_gid);
	return 0;
}

static int xiw_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct net_device *netdev = to_xiw_dev(ibdev)->netdev;
	bool up;
	int rc;

	memset(attr, 0, sizeof(*attr));
	rc = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			      &attr->active_width);
	if (rc)
		return rc;
	up = netif_running(netdev) && netif_carrier_ok(netdev);
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->max_mtu = ib_mtu_int_to_enum(netdev->max_mtu);
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(netdev->mtu));
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = -1;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	return 0;
}

static int xiw_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *immutable)
{
	immutable->gid_tbl_len = 1;
	immutable->pkey_tbl_len = 1;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

static int xiw_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	if (index != 0)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, to_xiw_dev(ibdev)->raw_gid, ETH_ALEN);
	return 0;
}

static int xiw_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index != 0)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

static int xiw_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	struct siw_uresp_alloc_ctx uresp = {};

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

static void xiw_dealloc_ucontext(struct ib_ucontext *uctx)
{
}

/*
 * The device is going away (`rdma link delete`, rmmod, netdev removal)
 * while a process holds it open. Having this op lets the RDMA core
 * destroy the process's objects through the usual destroy verbs and carry
 * on, instead of waiting for every process to close the device; the
 * process gets EIO from then on. Nothing is left to do here: the rings
 * mapped into the process are vmalloc pages the mapping keeps alive, and
 * xiw touches them no more once their queues are destroyed.
 */
static void xiw_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

static int xiw_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(pd->device);

	if (atomic_inc_return(&xdev->num_pd) > XIW_MAX_PD) {
		atomic_dec(&xdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

static int xiw_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&to_xiw_dev(pd->device)->num_pd);
	return 0;
}

static void xiw_iw_add_ref(struct ib_qp *qp)
{
	xiw_qp_get(to_xiw_qp(qp));
}

static void xiw_iw_rem_ref(struct ib_qp *qp)
{
	xiw_qp_put(to_xiw_qp(qp));
}

/* iw_cm takes its own reference (iw_add_ref) right after. */
static struct ib_qp *xiw_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct xiw_qp *qp = xiw_qp_lookup(to_xiw_dev(ibdev), qpn);

	if (!qp)
		return NULL;
	xiw_qp_put(qp);
	return &qp->ibqp;
}

const struct ib_device_ops xiw_verbs_ops = {
	.query_device = xiw_query_device,
	.query_port = xiw_query_port,
	.get_port_immutable = xiw_get_port_immutable,
	.query_gid = xiw_query_gid,
	.query_pkey = xiw_query_pkey,
	.alloc_ucontext = xiw_alloc_ucontext,
	.dealloc_ucontext = xiw_dealloc_ucontext,
	.disassociate_ucontext = xiw_disassociate_ucontext,
	.alloc_pd = xiw_alloc_pd,
	.dealloc_pd = xiw_dealloc_pd,
	.iw_connect = xiw_iw_connect,
	.iw_accept = xiw_iw_accept,
	.iw_reject = xiw_iw_reject,
	.iw_create_listen = xiw_iw_create_listen,
	.iw_destroy_listen = xiw_iw_destroy_listen,
	.iw_add_ref = xiw_iw_add_ref,
	.iw_rem_ref = xiw_iw_rem_ref,
	.iw_get_qp = xiw_iw_get_qp,
	.create_cq = xiw_create_cq,
	.destroy_cq = xiw_destroy_cq,
	.poll_cq = xiw_poll_cq,
	.req_notify_cq = xiw_req_notify_cq,
	.resize_cq = xiw_resize_cq,
	.create_qp = xiw_create_qp,
	.modify_qp = xiw_modify_qp,
	.query_qp = xiw_query_qp,
	.destroy_qp = xiw_destroy_qp,
	.post_send = xiw_post_send,
	.post_recv = xiw_post_recv,
	.create_srq = xiw_create_srq,
	.modify_srq = xiw_modify_srq,
	.query_srq = xiw_query_srq,
	.destroy_srq = xiw_destroy_srq,
	.post_srq_recv = xiw_post_srq_recv,
	.get_dma_mr = xiw_get_dma_mr,
	.alloc_mr = xiw_alloc_mr,
	.map_mr_sg = xiw_map_mr_sg,
	.mmap = xiw_mmap,
	.mmap_free = xiw_mmap_free,
	.reg_user_mr = xiw_reg_user_mr,
	.dereg_mr = xiw_dereg_mr,

	INIT_RDMA_OBJ_SIZE(ib_pd, xiw_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, xiw_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, xiw_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, xiw_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, xiw_ucontext, ibuctx),
};
