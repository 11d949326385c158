// SPDX-License-Identifier: GPL-2.0
/*
 * Receive: sk_data_ready hands the socket's skbs to the core's receiver
 * (tcp_read_sock, in softirq or in release_sock's backlog processing, in
 * both cases under the socket lock, so the receive state needs no lock of
 * its own). The core checks MPA and the DDP/RDMAP headers and its placer
 * (include/xiw/placer.h) decides where each segment's payload goes; the
 * glue answers the placer's questions (posted receives, outstanding
 * READs, the IRD queue, STag checks through the memory registry) in
 * xiw_rx_ops and copies each payload run straight from the skb to the
 * target the placer named. A refused segment or a broken stream sends a
 * TERMINATE and takes the QP to ERROR.
 */
#include <linux/skbuff.h>
#include <net/tcp.h>

#include <xiw/ddp.h>
#include <xiw/stream.h>

#include "params.h"
#include "xiw.h"
#include "xiw_trace.h"

/* An SRQ's entries name MRs of the SRQ's PD. */
static struct ib_pd *xiw_rq_pd(struct xiw_qp *qp)
{
	return qp->srq ? qp->srq->ibsrq.pd : qp->ibqp.pd;
}

/*
 * Under rq_lock: the next receive into qp->rx_wqe, from the SRQ, the user
 * ring or the kernel RQ. *@limit is set if an SRQ's limit was crossed.
 */
static bool xiw_rq_take(struct xiw_qp *qp, bool *limit)
{
	lockdep_assert_held(&qp->rq_lock);
	if (qp->srq)
		return xiw_srq_take(qp->srq, &qp->rx_wqe, limit);
	if (qp->urq) {
		if (!xiw_rqe_take(&qp->urq[qp->urq_get & (qp->rq_size - 1)],
				  &qp->rx_wqe))
			return false;
		qp->urq_get++;
		return true;
	}
	if (qp->rq_head == qp->rq_tail)
		return false;
	qp->rx_wqe = qp->rq[qp->rq_head & (qp->rq_size - 1)];
	qp->rq_head++;
	return true;
}

static int xiw_rx_recv_take(struct xiw_qp *qp, u32 *len)
{
	bool limit = false;
	unsigned long flags;

	spin_lock_irqsave(&qp->rq_lock, flags);
	/* The placer takes one receive per SEND: never two at once. */
	if (qp->rx_wqe_valid || !xiw_rq_take(qp, &limit)) {
		bool open = qp->rx_wqe_valid;

		spin_unlock_irqrestore(&qp->rq_lock, flags);
		return open ? XIW_RX_LOCAL : XIW_RX_NO_BUFFER;
	}
	qp->rx_wqe_valid = true;
	*len = qp->rx_wqe.len;
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (limit)
		xiw_srq_limit_event(qp->srq);
	return 0;
}

/* Under sq_lock: the oldest READ still waiting for its response. */
static struct xiw_swqe *xiw_rx_pending_read(struct xiw_qp *qp)
{
	u32 idx;

	lockdep_assert_held(&qp->sq_lock);
	if (xiw_sq_read_oldest(&qp->sq_ring, &idx))
		return NULL;
	return xiw_swqe_at(qp, idx);
}

/* We asked for each READ's sink at TO 0 of its first SGE's lkey. */
static u32 xiw_rx_sink_stag(const struct xiw_swqe *w)
{
	return w->num_sge ? w->sge[0].lkey : 0;
}

static int xiw_rx_read_oldest(struct xiw_qp *qp, struct xiw_read_sink *read)
{
	struct xiw_swqe *w;
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	w = xiw_rx_pending_read(qp);
	if (w) {
		read->stag = xiw_rx_sink_stag(w);
		read->len = w->len;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return w ? 0 : XIW_RX_UNEXPECTED;
}

/* Read Requests held (include/xiw/tx_order.h) and the IRD in force. */
static void xiw_rx_read_queue(struct xiw_qp *qp, u32 *used, u32 *ird)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	*used = xiw_tx_rreq_held(&qp->order);
	*ird = min_t(u32, READ_ONCE(qp->ird), XIW_MAX_IRD);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
}

static int xiw_rx_mr_check(struct xiw_qp *qp, u32 stag, xiw_u64 to, u32 len,
			   u32 access)
{
	int ib_access = access == XIW_ACCESS_REMOTE_READ ?
			IB_ACCESS_REMOTE_READ : IB_ACCESS_REMOTE_WRITE;

	return xiw_mr_check(to_xiw_dev(qp->ibqp.device), stag, qp->ibqp.pd,
			    ib_access, to, len);
}

/* The oldest READ, if it is still the one the placer chose. */
static int xiw_rx_target_sink(struct xiw_qp *qp, const struct xiw_target *t)
{
	struct xiw_swqe *w;
	unsigned long flags;
	int rc = XIW_RX_LOCAL;

	spin_lock_irqsave(&qp->sq_lock, flags);
	w = xiw_rx_pending_read(qp);
	if (w && xiw_rx_sink_stag(w) == t->stag && t->off <= w->len &&
	    t->len <= w->len - t->off) {
		xiw_cursor_init(&qp->rx_resp_cursor, qp->ibqp.pd,
				IB_ACCESS_LOCAL_WRITE, w->sge, w->num_sge,
				t->off);
		rc = 0;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return rc;
}

static int xiw_rx_target(struct xiw_qp *qp, const struct xiw_target *t)
{
	qp->rx_target = 0;
	switch (t->kind) {
	case XIW_TARGET_RECV:
		/* A flush holds the socket lock: it cannot come mid-copy. */
		if (!READ_ONCE(qp->rx_wqe_valid) || t->off > qp->rx_wqe.len ||
		    t->len > qp->rx_wqe.len - t->off)
			return XIW_RX_LOCAL;
		xiw_cursor_init(&qp->rx_send_cursor, xiw_rq_pd(qp),
				IB_ACCESS_LOCAL_WRITE, qp->rx_wqe.sge,
				qp->rx_wqe.num_sge, t->off);
		break;
	case XIW_TARGET_SINK:
		if (xiw_rx_target_sink(qp, t))
			return XIW_RX_LOCAL;
		break;
	case XIW_TARGET_TAGGED:
		qp->rx_stag = t->stag;
		qp->rx_to = t->off;
		break;
	default:
		return XIW_RX_LOCAL;
	}
	qp->rx_target = t->kind;
	qp->rx_left = t->len;
	return 0;
}

static int xiw_rx_put(struct xiw_qp *qp, const void *buf, xiw_size len)
{
	int rc;

	/* The core counts too; never more than the target took, regardless. */
	if (len > qp->rx_left)
		return XIW_RX_LOCAL;
	qp->rx_left -= len;
	switch (qp->rx_target) {
	case XIW_TARGET_RECV:
		return xiw_cursor_put(&qp->rx_send_cursor, buf, len) ?
		       XIW_RX_BOUNDS : 0;
	case XIW_TARGET_SINK:
		return xiw_cursor_put(&qp->rx_resp_cursor, buf, len) ?
		       XIW_RX_BOUNDS : 0;
	case XIW_TARGET_TAGGED:
		/* Checked at the segment's start; an invalidation since fails. */
		rc = xiw_mem_copy(to_xiw_dev(qp->ibqp.device), qp->rx_stag,
				  qp->ibqp.pd, IB_ACCESS_REMOTE_WRITE,
				  qp->rx_to, (void *)buf, len, true);
		qp->rx_to += len;
		return rc ? XIW_RX_STAG_INVALID : 0;
	}
	return XIW_RX_LOCAL;	/* payload where none may be */
}

static int xiw_rx_invalidate(struct xiw_qp *qp, u32 stag)
{
	struct xiw_device *xdev = to_xiw_dev(qp->ibqp.device);
	int rc = xiw_mr_invalidate(xdev, stag, qp->ibqp.pd);

	if (!rc)
		xiw_stat_inc(xdev, XIW_STAT_RX_SEND_INV);
	return rc;
}

static void xiw_rx_recv_done(struct xiw_qp *qp, const struct xiw_recv_done *d)
{
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
		.byte_len = d->byte_len,
	};
	unsigned long flags;
	int todo = 0;

	if (d->flags & XIW_RECV_INVALIDATED) {
		wc.wc_flags = IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = d->inv_stag;
	}
	/* Under rq_lock: a flush either took the receive or sees it done. */
	spin_lock_irqsave(&qp->rq_lock, flags);
	wc.wr_id = qp->rx_wqe.wr_id;
	if (qp->rx_wqe_valid)
		todo = xiw_cq_add(qp->ibqp.recv_cq, &wc,
				  d->flags & XIW_RECV_SOLICITED);
	qp->rx_wqe_valid = false;
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	xiw_cq_kick(qp->ibqp.recv_cq, todo);
}

/*
 * The placer found the READ (read_oldest) before it placed the response,
 * and only this softirq path completes READs: both the work request and
 * the ORD count are there. If either is not, the stream ends.
 */
static int xiw_rx_read_done(struct xiw_qp *qp)
{
	struct xiw_device *xdev = to_xiw_dev(qp->ibqp.device);
	struct xiw_swqe *w;
	unsigned long flags;
	u32 idx;
	int rc;

	spin_lock_irqsave(&qp->sq_lock, flags);
	rc = xiw_sq_read_done(&qp->sq_ring, &qp->order, &idx);
	if (!rc) {
		w = xiw_swqe_at(qp, idx);
		/* READ_WITH_INV: the sink's STag goes invalid with it. */
		if (w->opcode == IB_WR_RDMA_READ_WITH_INV &&
		    !xiw_mr_invalidate(xdev, w->inv, qp->ibqp.pd))
			xiw_stat_inc(xdev, XIW_STAT_READ_INV);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_qp_complete_sq(qp);
	xiw_qp_kick(qp);	/* the ORD window or a fence may have opened */
	return rc;
}

static int xiw_rx_read_req(struct xiw_qp *qp, const struct xiw_seg *seg)
{
	struct xiw_rreq r = {
		.sink_stag = seg->sink_stag,
		.sink_to = seg->sink_to,
		.src_stag = seg->src_stag,
		.src_to = seg->src_to,
		.len = seg->read_size,
	};
	unsigned long flags;
	u32 slot;
	int rc;

	xiw_stat_inc(to_xiw_dev(qp->ibqp.device), XIW_STAT_RX_READ_REQ);
	spin_lock_irqsave(&qp->sq_lock, flags);
	/*
	 * The placer refused it if it was beyond the IRD (read_queue), which
	 * is at most the slots, and only this softirq path adds requests: it
	 * fits. If not, the stream ends rather than drop it.
	 */
	rc = xiw_tx_rreq_admit(&qp->order, &slot);
	if (!WARN_ON_ONCE(rc))
		qp->irq[slot] = r;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_qp_kick(qp);
	return rc;
}

static void xiw_rx_validated(struct xiw_qp *qp)
{
	if (READ_ONCE(qp->tx_fenced)) {
		WRITE_ONCE(qp->tx_fenced, false);	/* one FPDU validated */
		xiw_qp_kick(qp);
	}
}

static void xiw_rx_terminated(struct xiw_qp *qp, const struct xiw_term_cause *c)
{
	trace_xiw_terminate(false, qp->ibqp.qp_num, &qp->peer, c->layer,
			    c->etype, c->code);
	pr_notice_ratelimited("xiw: qp %u peer %pISpc: TERMINATE received: layer %u type %u code %#x: %s\n",
			      qp->ibqp.qp_num, &qp->peer, c->layer, c->etype,
			      c->code,
			      xiw_term_name(c->layer, c->etype, c->code));
	xiw_stat_inc(to_xiw_dev(qp->ibqp.device), XIW_STAT_RX_TERMINATE);
	qp->rx_dead = true;
	xiw_qp_fatal(qp, IB_EVENT_QP_FATAL);
}

static const struct xiw_rx_ops xiw_rx_ops = {
	.recv_take = xiw_rx_recv_take,
	.read_oldest = xiw_rx_read_oldest,
	.read_queue = xiw_rx_read_queue,
	.mr_check = xiw_rx_mr_check,
	.target = xiw_rx_target,
	.put = xiw_rx_put,
	.invalidate = xiw_rx_invalidate,
	.recv_done = xiw_rx_recv_done,
	.read_done = xiw_rx_read_done,
	.read_req = xiw_rx_read_req,
	.validated = xiw_rx_validated,
	.terminated = xiw_rx_terminated,
};

/* A new stream: nothing of an earlier one's receive state survives. */
void xiw_qp_rx_start(struct xiw_qp *qp)
{
	xiw_placer_init(qp->placer, &xiw_rx_ops, qp);
	qp->rx_dead = false;
	qp->rx_target = 0;
}

/* The stream broke: send the TERMINATE the core prepared, then close. */
static void xiw_rx_failed(struct xiw_qp *qp, int rc)
{
	struct xiw_term_cause c;

	xiw_srx_cause(qp->srx, &c);
	trace_xiw_terminate(true, qp->ibqp.qp_num, &qp->peer, c.layer, c.etype,
			    c.code);
	pr_notice_ratelimited("xiw: qp %u peer %pISpc: TERMINATE sent: layer %u type %u code %#x: %s (stream error %d)\n",
			      qp->ibqp.qp_num, &qp->peer, c.layer, c.etype,
			      c.code, xiw_term_name(c.layer, c.etype, c.code),
			      rc);
	qp->rx_dead = true;
	WRITE_ONCE(qp->term_pending, true);
	/* The peer broke our access rules, or the stream broke. */
	xiw_qp_fatal(qp, c.layer != 2 && c.etype == 1 ?
		     IB_EVENT_QP_ACCESS_ERR : IB_EVENT_QP_FATAL);
}

static int xiw_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			unsigned int off, size_t len)
{
	struct xiw_qp *qp = desc->arg.data;
	struct skb_seq_state st;
	unsigned int done = 0, n;
	const u8 *data;
	int rc = 0;

	/* After an error the stream is dead: what follows is discarded. */
	if (qp->rx_dead || READ_ONCE(qp->state) == IB_QPS_ERR)
		return len;
	skb_prepare_seq_read(skb, off, off + len, &st);
	while ((n = skb_seq_read(done, &data, &st)) != 0) {
		rc = xiw_placer_consume(qp->placer, qp->srx, data, n);
		done += n;
		if (rc || qp->rx_dead) {
			skb_abort_seq_read(&st);
			break;
		}
	}
	if (rc && !qp->rx_dead)
		xiw_rx_failed(qp, rc);
	return len;
}

/* Called with the socket locked (data_ready, or the CM under lock_sock). */
void xiw_qp_rx(struct xiw_qp *qp, struct sock *sk)
{
	read_descriptor_t desc = { .arg.data = qp, .count = 1 };

	tcp_read_sock(sk, &desc, xiw_rx_actor);
}
