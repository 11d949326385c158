// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: creation, the verbs state machine, and the references the
 * iWARP connection manager takes. Work request processing is not
 * implemented yet: post_send and post_recv fail with -EOPNOTSUPP.
 */
#include <linux/slab.h>

#include "cm.h"
#include "xiw.h"

#define XIW_MAX_QP_WR	4096
#define XIW_MAX_SGE	16

static void xiw_qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct xiw_qp, ref)->freed);
}

void xiw_qp_get(struct xiw_qp *qp)
{
	kref_get(&qp->ref);
}

void xiw_qp_put(struct xiw_qp *qp)
{
	kref_put(&qp->ref, xiw_qp_release);
}

struct xiw_qp *xiw_qp_lookup(struct xiw_device *xdev, u32 qpn)
{
	struct xiw_qp *qp;

	xa_lock(&xdev->qps);
	qp = xa_load(&xdev->qps, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	xa_unlock(&xdev->qps);
	return qp;
}

int xiw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibqp->device);
	struct xiw_qp *qp = to_xiw_qp(ibqp);
	u32 qpn;
	int rc;

	if (attr->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (udata)
		return -EOPNOTSUPP;	/* user QPs need the siw ABI rings */
	if (attr->srq || attr->cap.max_send_wr > XIW_MAX_QP_WR ||
	    attr->cap.max_recv_wr > XIW_MAX_QP_WR ||
	    attr->cap.max_send_sge > XIW_MAX_SGE ||
	    attr->cap.max_recv_sge > XIW_MAX_SGE ||
	    attr->cap.max_inline_data > XIW_MAX_INLINE)
		return -EINVAL;
	kref_init(&qp->ref);
	init_completion(&qp->freed);
	spin_lock_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->sq_sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	rc = xa_alloc(&xdev->qps, &qpn, qp, xa_limit_31b, GFP_KERNEL);
	if (rc)
		return rc;
	ibqp->qp_num = qpn;
	attr->cap.max_inline_data = XIW_MAX_INLINE;
	return 0;
}

/* Transitions a ULP may request (IB spec 10.3.1, as far as iWARP goes). */
static bool xiw_qp_transition_ok(enum ib_qp_state cur, enum ib_qp_state next)
{
	switch (next) {
	case IB_QPS_RESET:
	case IB_QPS_ERR:
		return true;
	case IB_QPS_INIT:
		return cur == IB_QPS_RESET || cur == IB_QPS_INIT;
	case IB_QPS_RTR:
		return cur == IB_QPS_INIT;
	case IB_QPS_RTS:
		/* The connection manager moves a QP to RTS, not the ULP. */
		return cur == IB_QPS_RTS;
	case IB_QPS_SQD:
		return cur == IB_QPS_RTS || cur == IB_QPS_SQD;
	default:
		return false;
	}
}

int xiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct xiw_qp *qp = to_xiw_qp(ibqp);
	enum ib_qp_state next;
	bool drop = false;

	if (mask & ~(IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX |
		     IB_QP_PORT | IB_QP_CUR_STATE | IB_QP_MAX_QP_RD_ATOMIC |
		     IB_QP_MAX_DEST_RD_ATOMIC))
		return -EOPNOTSUPP;
	spin_lock_bh(&qp->lock);
	next = mask & IB_QP_STATE ? attr->qp_state : qp->state;
	if (!xiw_qp_transition_ok(qp->state, next)) {
		spin_unlock_bh(&qp->lock);
		return -EINVAL;
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->ord = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->ird = attr->max_dest_rd_atomic;
	/* Leaving RTS/SQD closes the connection (iw_cm disconnect). */
	drop = (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD) &&
	       (next == IB_QPS_ERR || next == IB_QPS_SQD || next == IB_QPS_RESET);
	qp->state = next;
	spin_unlock_bh(&qp->lock);
	if (drop)
		xiw_cm_qp_drop(qp, next != IB_QPS_SQD);
	return 0;
}

int xiw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct xiw_qp *qp = to_xiw_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_bh(&qp->lock);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->qp_access_flags = qp->access;
	/* ORD: reads we issue; IRD: reads we serve. */
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	spin_unlock_bh(&qp->lock);
	attr->cap.max_inline_data = XIW_MAX_INLINE;
	init->cap = attr->cap;
	init->qp_type = IB_QPT_RC;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

int xiw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibqp->device);
	struct xiw_qp *qp = to_xiw_qp(ibqp);

	xiw_cm_qp_drop(qp, true);
	xa_erase(&xdev->qps, ibqp->qp_num);
	/* The core frees the QP when we return: wait for the CM's references. */
	xiw_qp_put(qp);
	wait_for_completion(&qp->freed);
	return 0;
}

/* Called by the CM when MPA completes: Full Operation. */
void xiw_qp_connected(struct xiw_qp *qp, u16 ird, u16 ord)
{
	spin_lock_bh(&qp->lock);
	if (qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET)
		qp->state = IB_QPS_RTS;
	qp->ird = ird;
	qp->ord = ord;
	spin_unlock_bh(&qp->lock);
}

/* Called by the CM when the connection is gone. */
void xiw_qp_disconnected(struct xiw_qp *qp)
{
	spin_lock_bh(&qp->lock);
	if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD)
		qp->state = IB_QPS_ERR;
	spin_unlock_bh(&qp->lock);
}

int xiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad)
{
	*bad = wr;
	return -EOPNOTSUPP;
}

int xiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad)
{
	*bad = wr;
	return -EOPNOTSUPP;
}
