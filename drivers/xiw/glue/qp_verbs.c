// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs of a queue pair: create, modify, query and destroy, and
 * posting work requests. The queues themselves, completions and flushing
 * are in qp.c; transmit in qp_tx.c, receive in qp_rx.c. This is the only
 * QP file that calls down into the connection manager (a state change
 * that ends the connection) and sets up the transmit side.
 */
#include <linux/slab.h>

#include "cm.h"
#include "xiw.h"
#include "xiw_trace.h"

static void xiw_qp_free_queues(struct xiw_qp *qp)
{
	xiw_umap_remove(qp->sq_umap);
	xiw_umap_remove(qp->rq_umap);
	kvfree(qp->sq);
	kvfree(qp->sq_slots);
	kvfree(qp->rq);
	kfree(qp->irq);
	kfree(qp->stx);
	kfree(qp->srx);
	kfree(qp->placer);
	xiw_qp_tx_release(qp);
	xiw_zc_detach(qp);
}

/* A QP on an SRQ has no receive queue of its own. */
static int xiw_qp_alloc_queues(struct xiw_qp *qp, struct ib_qp_cap *cap)
{
	qp->sq_size = roundup_pow_of_two(max(cap->max_send_wr, 1U));
	qp->sq = kvcalloc(qp->sq_size, sizeof(*qp->sq), GFP_KERNEL);
	qp->sq_slots = kvcalloc(qp->sq_size, sizeof(*qp->sq_slots),
				GFP_KERNEL);
	xiw_sq_init(&qp->sq_ring, qp->sq_slots, qp->sq_size);
	if (!qp->srq) {
		qp->rq_size = roundup_pow_of_two(max(cap->max_recv_wr, 1U));
		qp->rq = kvcalloc(qp->rq_size, sizeof(*qp->rq), GFP_KERNEL);
	}
	qp->irq = kcalloc(XIW_MAX_IRD, sizeof(*qp->irq), GFP_KERNEL);
	xiw_tx_order_init(&qp->order);
	qp->stx = kzalloc(xiw_stx_size(), GFP_KERNEL);
	qp->srx = kzalloc(xiw_srx_size(), GFP_KERNEL);
	qp->placer = kzalloc(xiw_placer_size(), GFP_KERNEL);
	if (!qp->sq || !qp->sq_slots || (!qp->srq && !qp->rq) || !qp->irq || !qp->stx ||
	    !qp->srx || !qp->placer || xiw_zc_attach(qp)) {
		xiw_qp_free_queues(qp);
		return -ENOMEM;
	}
	cap->max_send_wr = qp->sq_size;
	cap->max_recv_wr = qp->rq_size;
	return 0;
}

/* The siw ABI rings of a user QP, mapped by rdma-core's siw provider. */
static int xiw_qp_user_rings(struct xiw_qp *qp, struct ib_udata *udata)
{
	struct ib_ucontext *uctx = xiw_uctx(udata);
	struct siw_uresp_create_qp uresp = {};

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	qp->usq = xiw_umap_alloc(uctx, qp->sq_size * sizeof(struct siw_sqe),
				 &uresp.sq_key, &qp->sq_umap);
	if (!qp->srq)
		qp->urq = xiw_umap_alloc(uctx,
					 qp->rq_size * sizeof(struct siw_rqe),
					 &uresp.rq_key, &qp->rq_umap);
	if (!qp->usq || (!qp->srq && !qp->urq))
		return -ENOMEM;
	uresp.qp_id = qp->ibqp.qp_num;
	uresp.num_sqe = qp->sq_size;
	uresp.num_rqe = qp->rq_size;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

/*
 * What a QP can take per work request: user QPs are held to the siw ABI's
 * ring entries (SIW_MAX_SGE, SIW_MAX_INLINE), kernel QPs are not.
 */
static void xiw_qp_limits(bool user, struct ib_qp_cap *cap)
{
	cap->max_send_sge = user ? SIW_MAX_SGE : XIW_MAX_SGE;
	cap->max_recv_sge = cap->max_send_sge;
	cap->max_inline_data = user ? SIW_MAX_INLINE : XIW_MAX_INLINE;
}

int xiw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibqp->device);
	struct xiw_qp *qp = to_xiw_qp(ibqp);
	struct ib_qp_cap lim;
	u32 qpn;
	int rc;

	if (attr->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (attr->srq)
		qp->srq = to_xiw_srq(attr->srq);
	xiw_qp_limits(udata, &lim);
	if (attr->cap.max_send_wr > XIW_MAX_QP_WR ||
	    attr->cap.max_recv_wr > XIW_MAX_QP_WR ||
	    attr->cap.max_send_sge > lim.max_send_sge ||
	    attr->cap.max_recv_sge > lim.max_recv_sge ||
	    attr->cap.max_inline_data > lim.max_inline_data)
		return -EINVAL;
	rc = xiw_qp_alloc_queues(qp, &attr->cap);
	if (rc)
		return rc;
	kref_init(&qp->ref);
	init_completion(&qp->freed);
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	mutex_init(&qp->tx_mutex);
	xiw_qp_tx_setup(qp);
	/* An RNIC's QP is created Idle, which verbs call INIT. */
	qp->state = IB_QPS_INIT;
	qp->sq_sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	rc = xa_alloc(&xdev->qps, &qpn, qp, xa_limit_31b, GFP_KERNEL);
	if (rc) {
		xiw_qp_free_queues(qp);
		return rc;
	}
	ibqp->qp_num = qpn;
	/*
	 * A user QP learns its limits (the provider's rings hold no more).
	 * A kernel QP keeps the SGE counts it asked for: the RDMA core
	 * sizes rdma_rw's work requests from them (max_write_sge).
	 */
	if (udata)
		xiw_qp_limits(true, &attr->cap);
	else
		attr->cap.max_inline_data = XIW_MAX_INLINE;
	if (udata) {
		rc = xiw_qp_user_rings(qp, udata);
		if (rc) {
			xa_erase(&xdev->qps, qpn);
			xiw_qp_free_queues(qp);
			return rc;
		}
	}
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
	enum ib_qp_state next, was;
	bool drop = false;

	if (mask & ~(IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX |
		     IB_QP_PORT | IB_QP_CUR_STATE | IB_QP_MAX_QP_RD_ATOMIC |
		     IB_QP_MAX_DEST_RD_ATOMIC))
		return -EOPNOTSUPP;
	spin_lock_bh(&qp->lock);
	next = mask & IB_QP_STATE ? attr->qp_state : qp->state;
	/*
	 * A graceful close (SQD) that finds the connection already gone:
	 * librdmacm's rdma_disconnect() asks for SQD before it tells the
	 * CM, and both sides may disconnect at once. The QP stays in ERR.
	 */
	if (mask & IB_QP_STATE && next == IB_QPS_SQD && qp->state == IB_QPS_ERR) {
		spin_unlock_bh(&qp->lock);
		return 0;
	}
	/* Without IB_QP_STATE only attributes change (rdma_cm's RTS step). */
	if (mask & IB_QP_STATE && !xiw_qp_transition_ok(qp->state, next)) {
		spin_unlock_bh(&qp->lock);
		return -EINVAL;
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		WRITE_ONCE(qp->ord, min_t(u32, attr->max_rd_atomic, XIW_MAX_ORD));
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		WRITE_ONCE(qp->ird, min_t(u32, attr->max_dest_rd_atomic, XIW_MAX_IRD));
	/* Leaving RTS/SQD closes the connection (iw_cm disconnect). */
	drop = (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD) &&
	       (next == IB_QPS_ERR || next == IB_QPS_SQD || next == IB_QPS_RESET);
	was = qp->state;
	WRITE_ONCE(qp->state, next);
	spin_unlock_bh(&qp->lock);
	if (was != next)
		trace_xiw_qp_state(ibqp->qp_num, was, next);
	if (drop)
		xiw_cm_qp_drop(qp);
	if (next == IB_QPS_ERR)
		xiw_qp_kick(qp);	/* the tx work flushes */
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
	attr->cap.max_send_wr = qp->sq_size;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq_size;
	xiw_qp_limits(qp->usq, &attr->cap);
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

	xiw_cm_qp_drop(qp);
	xa_erase(&xdev->qps, ibqp->qp_num);
	/* The core frees the QP when we return: wait for the CM's references. */
	xiw_qp_put(qp);
	wait_for_completion(&qp->freed);
	cancel_work_sync(&qp->tx_work);
	/*
	 * Only now, with no reference and no transmit work left to use it,
	 * does the zero-copy owner record go (in xiw_qp_free_queues()):
	 * notifications still out then find no QP.
	 */
	xiw_qp_free_queues(qp);
	return 0;
}

static bool xiw_qp_in_error(struct xiw_qp *qp)
{
	return READ_ONCE(qp->state) == IB_QPS_ERR;
}

/*
 * REG_MR and LOCAL_INV are queued like any work request and done when the
 * send queue reaches them (xiw_swqe_start()), so that they take effect
 * after the work posted before them and before the work posted after.
 */
static int xiw_swqe_local(struct xiw_qp *qp, struct xiw_swqe *w,
			  const struct ib_send_wr *wr)
{
	const struct ib_reg_wr *reg = reg_wr(wr);

	memset(w, 0, offsetof(struct xiw_swqe, sge));
	if (wr->opcode == IB_WR_REG_MR) {
		/* The new STag must name the MR the request carries. */
		if (!reg->mr || reg->key >> 8 != reg->mr->lkey >> 8)
			return -EINVAL;
		w->rkey = reg->key;
		w->access = reg->access;
	} else {
		w->rkey = wr->ex.invalidate_rkey;
	}
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	if (wr->send_flags & IB_SEND_SIGNALED || qp->sq_sig_all)
		w->flags |= XIW_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_FENCE)
		w->flags |= XIW_WQE_FENCE;
	return 0;
}

static int xiw_swqe_fill(struct xiw_qp *qp, struct xiw_swqe *w,
			 const struct ib_send_wr *wr)
{
	bool read = xiw_wr_is_read(wr->opcode);
	s64 len;
	int i;

	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		break;
	case IB_WR_REG_MR:
	case IB_WR_LOCAL_INV:
		return xiw_swqe_local(qp, w, wr);
	default:
		return -EOPNOTSUPP;
	}
	if (wr->num_sge > XIW_MAX_SGE || (read && wr->num_sge > 1))
		return -EINVAL;
	/* The SGEs' STags are checked when the send queue reaches it. */
	len = xiw_sge_len(wr->sg_list, wr->num_sge);
	if (len < 0)
		return len;
	memset(w, 0, offsetof(struct xiw_swqe, sge));
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->len = len;
	w->num_sge = wr->num_sge;
	if (wr->send_flags & IB_SEND_SIGNALED || qp->sq_sig_all)
		w->flags |= XIW_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		w->flags |= XIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		w->flags |= XIW_WQE_FENCE;
	if (wr->opcode == IB_WR_SEND_WITH_INV)
		w->inv = wr->ex.invalidate_rkey;
	/*
	 * READ_WITH_INV invalidates the Read's sink STag, as iWARP RNICs do:
	 * rdma_rw fills ex.invalidate_rkey before it bumps the MR's key.
	 */
	if (wr->opcode == IB_WR_RDMA_READ_WITH_INV && wr->num_sge)
		w->inv = wr->sg_list[0].lkey;
	if (wr->opcode == IB_WR_RDMA_WRITE || read) {
		w->rkey = rdma_wr(wr)->rkey;
		w->remote_addr = rdma_wr(wr)->remote_addr;
	}
	if (wr->send_flags & IB_SEND_INLINE && !read) {
		if (len > XIW_MAX_INLINE)
			return -EINVAL;
		w->flags |= XIW_WQE_INLINE;
		for (i = 0, len = 0; i < wr->num_sge; i++) {
			memcpy(w->inline_data + len,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
	} else {
		memcpy(w->sge, wr->sg_list, wr->num_sge * sizeof(w->sge[0]));
	}
	return 0;
}

int xiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad)
{
	struct xiw_qp *qp = to_xiw_qp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct xiw_swqe *w;
	unsigned long flags;
	int rc = 0;
	u32 idx;

	/* A user QP's doorbell: the work is in its mapped SQ ring. */
	if (qp->usq) {
		xiw_qp_tx_now(qp);
		return 0;
	}
	/* Before RTS work requests cannot be queued; in ERROR they flush. */
	if (state != IB_QPS_RTS && state != IB_QPS_SQD && state != IB_QPS_ERR) {
		*bad = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		rc = xiw_sq_reserve(&qp->sq_ring, &idx);
		if (rc)
			break;
		w = xiw_swqe_at(qp, idx);
		rc = xiw_swqe_fill(qp, w, wr);
		if (rc)
			break;
		xiw_sq_post(&qp->sq_ring, xiw_wr_order(w));
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (rc)
		*bad = wr;
	xiw_qp_kick(qp);
	return rc;
}

int xiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad)
{
	struct xiw_qp *qp = to_xiw_qp(ibqp);
	struct xiw_rwqe *r;
	unsigned long flags;
	int rc = 0;
	s64 len;

	/* A user QP posts through its ring, one on an SRQ to the SRQ. */
	if (qp->urq || qp->srq || READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	for (; wr; wr = wr->next) {
		if (qp->rq_tail - qp->rq_head == qp->rq_size) {
			rc = -ENOMEM;
			break;
		}
		len = wr->num_sge > XIW_MAX_SGE ||
		      !xiw_sge_usable(qp, wr->sg_list, wr->num_sge,
				      IB_ACCESS_LOCAL_WRITE) ? -EINVAL :
		      xiw_sge_len(wr->sg_list, wr->num_sge);
		if (len < 0) {
			rc = len;
			break;
		}
		r = &qp->rq[qp->rq_tail & (qp->rq_size - 1)];
		r->wr_id = wr->wr_id;
		r->len = len;
		r->num_sge = wr->num_sge;
		memcpy(r->sge, wr->sg_list, wr->num_sge * sizeof(r->sge[0]));
		qp->rq_tail++;
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (rc)
		*bad = wr;
	if (xiw_qp_in_error(qp))
		xiw_qp_kick(qp);
	return rc;
}
