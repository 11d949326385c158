// SPDX-License-Identifier: GPL-2.0
/*
 * A queue pair's queues and state, below the verbs (qp_verbs.c) and the
 * data path (qp_tx.c, qp_rx.c, zcopy.c), which all call down into it:
 * references and lookup, the state changes the connection manager and
 * errors make, the transmit work's kick, completions in send queue
 * order, flushing, the SGE cursor, and taking work requests from a user
 * QP's send ring. It calls nothing of the CM or the data path.
 */
#include <linux/slab.h>

#include "xiw.h"
#include "xiw_trace.h"

static struct workqueue_struct *xiw_tx_wq;

/* Queues the QP's transmit work (qp_tx.c), which does what is due. */
void xiw_qp_kick(struct xiw_qp *qp)
{
	queue_work(xiw_tx_wq, &qp->tx_work);
}

int xiw_tx_init(void)
{
	xiw_tx_wq = alloc_workqueue("xiw_tx", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return xiw_tx_wq ? 0 : -ENOMEM;
}

void xiw_tx_exit(void)
{
	destroy_workqueue(xiw_tx_wq);
}

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

/* Called by the CM when MPA completes: Full Operation. */
void xiw_qp_connected(struct xiw_qp *qp, const struct xiw_mpa_agreed *a,
		      const struct sockaddr_storage *peer, u16 ird, u16 ord)
{
	enum ib_qp_state was;

	spin_lock_bh(&qp->lock);
	was = qp->state;
	if (qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET)
		WRITE_ONCE(qp->state, IB_QPS_RTS);
	WRITE_ONCE(qp->ird, ird);
	WRITE_ONCE(qp->ord, ord);
	qp->mpa = *a;
	qp->peer = *peer;
	spin_unlock_bh(&qp->lock);
	if (was != IB_QPS_ERR && was != IB_QPS_RESET && was != IB_QPS_RTS)
		trace_xiw_qp_state(qp->ibqp.qp_num, was, IB_QPS_RTS);
}

/* Any fatal error: the QP goes to ERROR and its work requests flush. */
void xiw_qp_to_error(struct xiw_qp *qp)
{
	enum ib_qp_state was;

	spin_lock_bh(&qp->lock);
	was = qp->state;
	if (qp->state != IB_QPS_RESET)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
	spin_unlock_bh(&qp->lock);
	if (was != IB_QPS_RESET && was != IB_QPS_ERR)
		trace_xiw_qp_state(qp->ibqp.qp_num, was, IB_QPS_ERR);
	xiw_qp_kick(qp);
}

/*
 * A fatal error the consumer must hear of (IB_EVENT_QP_FATAL or
 * IB_EVENT_QP_ACCESS_ERR): the QP goes to ERROR and the tx work, in
 * process context, calls the event handler once.
 */
void xiw_qp_fatal(struct xiw_qp *qp, enum ib_event_type ev)
{
	cmpxchg(&qp->pending_event, 0, ev + 1);
	xiw_qp_to_error(qp);
}

/* From the tx work: deliver the pending asynchronous event, if any. */
void xiw_qp_report_event(struct xiw_qp *qp)
{
	int ev = xchg(&qp->pending_event, 0);
	struct ib_event e = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
	};

	if (!ev || !qp->ibqp.event_handler)
		return;
	e.event = ev - 1;
	qp->ibqp.event_handler(&e, qp->ibqp.qp_context);
}

/*
 * From the tx work, after a flush: a QP on an SRQ tells its consumer that
 * it will take no more receives (IB spec 11.6.3), once.
 */
void xiw_qp_last_wqe(struct xiw_qp *qp)
{
	struct ib_event e = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_QP_LAST_WQE_REACHED,
	};

	if (!qp->srq || qp->last_wqe_reported)
		return;
	qp->last_wqe_reported = true;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&e, qp->ibqp.qp_context);
}

/* Called by the CM when the connection is gone. */
void xiw_qp_disconnected(struct xiw_qp *qp)
{
	/* The CM stopped the stream when it closed the socket. */
	xiw_qp_to_error(qp);
}

/* ---- completions ------------------------------------------------------- */

static enum ib_wc_opcode xiw_wc_opcode(u8 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return IB_WC_RDMA_READ;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	default:
		return IB_WC_SEND;
	}
}

/* Under sq_lock: the completion of @w, if it gets one; XIW_CQ_* */
static int xiw_sq_complete_one(struct xiw_qp *qp, struct xiw_swqe *w,
			       enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id = w->wr_id,
		.status = status,
		.opcode = xiw_wc_opcode(w->opcode),
		.qp = &qp->ibqp,
	};

	lockdep_assert_held(&qp->sq_lock);
	/* Errors always complete; success only when signaled. */
	if (status == IB_WC_SUCCESS && !(w->flags & XIW_WQE_SIGNALED))
		return 0;
	if (xiw_wr_is_read(w->opcode) && status == IB_WC_SUCCESS)
		wc.byte_len = w->len;
	return xiw_cq_add(qp->ibqp.send_cq, &wc, false);
}

/*
 * A user SQ ring slot is free again once its work request completed; the
 * provider does not ring the doorbell while the slot before its new one
 * is still valid, so look for more work after freeing it.
 */
static void xiw_usq_release(struct xiw_qp *qp, u32 idx)
{
	if (!qp->usq)
		return;
	xiw_uslot_free(&qp->usq[idx & (qp->sq_size - 1)].flags);
	xiw_qp_kick(qp);
}

/*
 * Completes send queue entries in posting order (RFC 5040 section 5.5:
 * completions are reported in the order the work requests were posted);
 * the core says which are done.
 */
void xiw_qp_complete_sq(struct xiw_qp *qp)
{
	struct xiw_sq_cqe c;
	unsigned long flags;
	int todo = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	while (xiw_sq_complete(&qp->sq_ring, &c)) {
		/*
		 * The ring slot first: a process that polls the completion on
		 * another CPU may post into that slot at once.
		 */
		xiw_usq_release(qp, c.idx);
		todo |= xiw_sq_complete_one(qp, xiw_swqe_at(qp, c.idx),
					    c.status);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_cq_kick(qp->ibqp.send_cq, todo);
}

/*
 * TCP let go of the last skb holding the pages of the zero-copy message at
 * @sq_idx: it is complete now, unless a flush completed it already (the
 * core finds it no longer waiting). In ERROR, TCP may have dropped the
 * pages unsent (a reset): the flush completes the message instead.
 */
void xiw_qp_zc_sent(struct xiw_qp *qp, u32 sq_idx)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	xiw_sq_zc_released(&qp->sq_ring, sq_idx,
			   READ_ONCE(qp->state) == IB_QPS_ERR);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_qp_complete_sq(qp);
}

/* Under rq_lock; XIW_CQ_* */
static int xiw_rq_flush_one(struct xiw_qp *qp, u64 wr_id)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
	};

	lockdep_assert_held(&qp->rq_lock);
	return xiw_cq_add(qp->ibqp.recv_cq, &wc, false);
}

/*
 * Flushes every outstanding work request with IB_WC_WR_FLUSH_ERR, in order
 * (one that already finished keeps its own status). The caller holds
 * tx_mutex and keeps receive out, so nothing is transmitted or placed
 * meanwhile. Work a process posts during the flush is taken once, so a
 * busy poster cannot keep it running.
 */
void xiw_qp_flush(struct xiw_qp *qp)
{
	struct xiw_sq_cqe c;
	unsigned long flags;
	u32 n = 0;
	u64 id;
	int todo = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	xiw_qp_pull_usq(qp);
	while (xiw_sq_flush(&qp->sq_ring, &c)) {
		if (qp->usq)	/* the slot before its completion, as above */
			xiw_uslot_free(&qp->usq[c.idx &
						(qp->sq_size - 1)].flags);
		todo |= xiw_sq_complete_one(qp, xiw_swqe_at(qp, c.idx),
					    c.flushed ? IB_WC_WR_FLUSH_ERR :
							c.status);
	}
	xiw_tx_order_flush(&qp->order);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_cq_kick(qp->ibqp.send_cq, todo);

	todo = 0;
	spin_lock_irqsave(&qp->rq_lock, flags);
	if (qp->rx_wqe_valid) {
		qp->rx_wqe_valid = false;
		todo |= xiw_rq_flush_one(qp, qp->rx_wqe.wr_id);
	}
	while (qp->urq && n++ < qp->rq_size) {
		struct siw_rqe *r = &qp->urq[qp->urq_get & (qp->rq_size - 1)];

		if (!xiw_uslot_valid(&r->flags))
			break;
		id = READ_ONCE(r->id);
		xiw_uslot_free(&r->flags);	/* before its completion */
		todo |= xiw_rq_flush_one(qp, id);
		qp->urq_get++;
	}
	while (!qp->urq && qp->rq_head != qp->rq_tail)
		todo |= xiw_rq_flush_one(qp, qp->rq[qp->rq_head++ &
						     (qp->rq_size - 1)].wr_id);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	xiw_cq_kick(qp->ibqp.recv_cq, todo);
}

/* ---- SGE lists ------------------------------------------------------------ */

void xiw_cursor_init(struct xiw_cursor *c, struct ib_pd *pd, int access,
		     const struct ib_sge *sge, u32 num_sge, u32 off)
{
	c->xdev = to_xiw_dev(pd->device);
	c->pd = pd;
	c->access = access;
	c->sge = sge;
	c->num_sge = num_sge;
	c->i = 0;
	while (c->i < num_sge && off >= sge[c->i].length)
		off -= sge[c->i++].length;
	c->off = off;
}

/* The current SGE with room left, or NULL at the end of the list. */
static const struct ib_sge *xiw_cursor_sge(struct xiw_cursor *c)
{
	while (c->i < c->num_sge && c->off == c->sge[c->i].length) {
		c->i++;
		c->off = 0;
	}
	return c->i < c->num_sge ? &c->sge[c->i] : NULL;
}

static int xiw_cursor_copy(struct xiw_cursor *c, void *buf, u32 len,
			   bool to_mem)
{
	const struct ib_sge *s;
	u32 n;
	int rc;

	while (len) {
		s = xiw_cursor_sge(c);
		if (!s)
			return -EFAULT;
		n = min(len, s->length - c->off);
		rc = xiw_mem_copy(c->xdev, s->lkey, c->pd, c->access,
				  s->addr + c->off, buf, n, to_mem);
		if (rc)
			return rc;
		buf += n;
		len -= n;
		c->off += n;
	}
	return 0;
}

/* Placement into the SGEs; lengths were checked at post time. */
int xiw_cursor_put(struct xiw_cursor *c, const void *src, u32 len)
{
	return xiw_cursor_copy(c, (void *)src, len, true);
}

int xiw_cursor_get(struct xiw_cursor *c, void *dst, u32 len)
{
	return xiw_cursor_copy(c, dst, len, false);
}

/*
 * A gathering send's view at the cursor: at most @len octets in one page
 * (xiw_mem_view()), the cursor moved past them. Returns how many.
 */
int xiw_cursor_view(struct xiw_cursor *c, u32 len, const void **p,
		    struct page **page)
{
	const struct ib_sge *s = xiw_cursor_sge(c);
	int n;

	if (!s)
		return -EFAULT;
	n = xiw_mem_view(c->xdev, s->lkey, c->pd, c->access, s->addr + c->off,
			 min(len, s->length - c->off), p, page);
	if (n > 0)
		c->off += n;
	return n;
}

/* ---- posting ---------------------------------------------------------------- */

/* The total length of an SGE list, or -EINVAL past 4 GiB - 1. */
s64 xiw_sge_len(const struct ib_sge *sge, int num)
{
	u64 len = 0;
	int i;

	for (i = 0; i < num; i++)
		len += sge[i].length;
	if (len > U32_MAX)
		return -EINVAL;
	return len;
}

/* May the QP's PD use every SGE of the list for @access? */
bool xiw_sge_usable(struct xiw_qp *qp, const struct ib_sge *sge, int num,
		    int access)
{
	struct xiw_device *xdev = to_xiw_dev(qp->ibqp.device);
	int i;

	for (i = 0; i < num; i++) {
		if (sge[i].length &&
		    xiw_mr_check(xdev, sge[i].lkey, qp->ibqp.pd, access,
				 sge[i].addr, sge[i].length))
			return false;
	}
	return true;
}

/*
 * Under sq_lock, when the send queue reaches @w: a REG_MR or LOCAL_INV is
 * done now; a message's SGEs are checked now, after the registrations and
 * invalidations posted before it. True if @w is a message to transmit;
 * otherwise it is done with *@status, IB_WC_LOC_PROT_ERR if its STags
 * could not be used (which puts the QP in ERROR, as every failed work
 * request does).
 */
bool xiw_swqe_start(struct xiw_qp *qp, struct xiw_swqe *w, u8 *status)
{
	struct xiw_device *xdev = to_xiw_dev(qp->ibqp.device);
	int access = xiw_wr_is_read(w->opcode) ? IB_ACCESS_LOCAL_WRITE : 0;
	int rc;

	lockdep_assert_held(&qp->sq_lock);
	switch (w->opcode) {
	case IB_WR_REG_MR:
		rc = xiw_mr_register(xdev, qp->ibqp.pd, w->rkey, w->access);
		if (!rc)
			xiw_stat_inc(xdev, XIW_STAT_REG_MR);
		break;
	case IB_WR_LOCAL_INV:
		rc = xiw_mr_invalidate(xdev, w->rkey, qp->ibqp.pd);
		if (!rc)
			xiw_stat_inc(xdev, XIW_STAT_LOCAL_INV);
		break;
	default:
		if (w->flags & XIW_WQE_INLINE ||
		    xiw_sge_usable(qp, w->sge, w->num_sge, access))
			return true;
		rc = -EINVAL;
	}
	*status = rc ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	return false;
}

static u8 xiw_wr_opcode_of(u8 siw_op)
{
	switch (siw_op) {
	case SIW_OP_WRITE:
		return IB_WR_RDMA_WRITE;
	case SIW_OP_READ:
		return IB_WR_RDMA_READ;
	case SIW_OP_SEND:
		return IB_WR_SEND;
	case SIW_OP_SEND_REMOTE_INV:
		return IB_WR_SEND_WITH_INV;
	default:
		return 0xff;
	}
}

/*
 * One user SQE, already copied out of the shared ring, into @w. A bad
 * one still takes its slot and completes with an error: false.
 */
static bool xiw_swqe_from_user(struct xiw_qp *qp, struct xiw_swqe *w,
			       const struct siw_sqe *u)
{
	bool read = u->opcode == SIW_OP_READ;
	s64 len = -EINVAL;

	memset(w, 0, offsetof(struct xiw_swqe, sge));
	w->wr_id = u->id;
	w->opcode = xiw_wr_opcode_of(u->opcode);
	w->flags = XIW_WQE_SIGNALED;	/* errors always complete */
	if (w->opcode == 0xff || u->num_sge > SIW_MAX_SGE)
		goto bad;
	if (u->flags & SIW_WQE_INLINE) {
		len = u->sge[0].length;
		if (read || len > SIW_MAX_INLINE)
			goto bad;
		memcpy(w->inline_data, &u->sge[1], len);
	} else {
		BUILD_BUG_ON(sizeof(struct siw_sge) != sizeof(struct ib_sge));
		memcpy(w->sge, u->sge, u->num_sge * sizeof(w->sge[0]));
		len = xiw_sge_len(w->sge, u->num_sge);
		if (len < 0 || (read && u->num_sge > 1))
			goto bad;
	}
	w->len = len;
	w->num_sge = u->num_sge;
	w->flags = 0;
	if (u->flags & SIW_WQE_SIGNALLED || qp->sq_sig_all)
		w->flags |= XIW_WQE_SIGNALED;
	if (u->flags & SIW_WQE_SOLICITED)
		w->flags |= XIW_WQE_SOLICITED;
	if (u->flags & SIW_WQE_INLINE)
		w->flags |= XIW_WQE_INLINE;
	if (u->flags & SIW_WQE_READ_FENCE)
		w->flags |= XIW_WQE_FENCE;
	w->rkey = u->rkey;
	w->inv = u->rkey;
	w->remote_addr = u->raddr;
	return true;
bad:
	return false;
}

/*
 * Under sq_lock: takes the work requests the process put in its SQ ring
 * since the last call. Their slots stay valid until they complete.
 */
void xiw_qp_pull_usq(struct xiw_qp *qp)
{
	struct siw_sqe *slot, u;
	struct xiw_swqe *w;
	u32 idx;

	lockdep_assert_held(&qp->sq_lock);
	if (!qp->usq)
		return;
	while (!xiw_sq_reserve(&qp->sq_ring, &idx)) {
		slot = &qp->usq[idx & (qp->sq_size - 1)];
		if (!xiw_uslot_valid(&slot->flags))
			break;
		memcpy(&u, slot, sizeof(u));	/* check what we use */
		w = xiw_swqe_at(qp, idx);
		if (xiw_swqe_from_user(qp, w, &u))
			xiw_sq_post(&qp->sq_ring, xiw_wr_order(w));
		else
			xiw_sq_post_done(&qp->sq_ring, IB_WC_LOC_QP_OP_ERR);
	}
}
