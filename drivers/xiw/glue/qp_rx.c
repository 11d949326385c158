// SPDX-License-Identifier: GPL-2.0
/*
 * Receive: sk_data_ready hands the socket's skbs to the core's receiver
 * (tcp_read_sock, in softirq or in release_sock's backlog processing, in
 * both cases under the socket lock, so the receive state needs no lock of
 * its own). Payload runs are copied straight from the skb into the
 * placement target; the core has checked the headers and MPA and decides
 * where a SEND's or a Read Response's octets may go (xiw_place_*()), and
 * every STag, bound and access right of a WRITE is checked here, all
 * before the first octet is placed. A refused segment or a broken stream
 * sends a TERMINATE and takes the QP to ERROR.
 */
#include <linux/skbuff.h>
#include <net/tcp.h>

#include <xiw/stream.h>

#include "params.h"
#include "xiw.h"

static bool xiw_op_is_send(u8 op)
{
	return op == XIW_OP_SEND || op == XIW_OP_SEND_SE ||
	       op == XIW_OP_SEND_INV || op == XIW_OP_SEND_SE_INV;
}

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

/* Where the current segment's payload goes (qp->rx_target). */
enum xiw_rx_target {
	XIW_RX_TO_NONE,		/* a Read Request: no payload */
	XIW_RX_TO_RECV,		/* the open SEND's receive */
	XIW_RX_TO_STAG,		/* a WRITE's STag and TO */
	XIW_RX_TO_SINK,		/* the oldest READ's sink */
};

/*
 * A SEND segment. The core has checked its MSN and MO: MO 0 starts the
 * next message, any other MO continues the open one, whatever tagged
 * segments came between. Only MO 0 takes a receive, and the segment's
 * octets go to that receive at MO, through the SEND's own cursor.
 */
static int xiw_rx_send_begin(struct xiw_qp *qp, const struct xiw_seg *seg)
{
	bool limit = false;
	unsigned long flags;

	if (seg->mo == 0) {
		/* The core lets MO 0 start only a new message: never two. */
		if (READ_ONCE(qp->rx_wqe_valid))
			return XIW_RX_LOCAL;
		spin_lock_irqsave(&qp->rq_lock, flags);
		if (!xiw_rq_take(qp, &limit)) {
			spin_unlock_irqrestore(&qp->rq_lock, flags);
			return XIW_RX_NO_BUFFER;
		}
		qp->rx_wqe_valid = true;
		spin_unlock_irqrestore(&qp->rq_lock, flags);
		if (limit)
			xiw_srq_limit_event(qp->srq);
		xiw_cursor_init(&qp->rx_send_cursor, xiw_rq_pd(qp),
				IB_ACCESS_LOCAL_WRITE, qp->rx_wqe.sge,
				qp->rx_wqe.num_sge, 0);
	}
	if (!READ_ONCE(qp->rx_wqe_valid))
		return XIW_RX_LOCAL;	/* flushed under us */
	qp->rx_target = XIW_RX_TO_RECV;
	return xiw_place_send(seg, qp->rx_wqe.len);
}

/*
 * The SEND's last segment passed its CRC: a Send with Invalidate
 * invalidates its STag now (RFC 5040 section 6.2), never for a segment
 * that might still be refused, then the receive completes.
 */
static int xiw_rx_send_end(struct xiw_qp *qp, const struct xiw_seg *seg)
{
	struct xiw_device *xdev = to_xiw_dev(qp->ibqp.device);
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
		.byte_len = seg->mo + seg->len,
	};
	bool inval = seg->opcode == XIW_OP_SEND_INV ||
		     seg->opcode == XIW_OP_SEND_SE_INV;
	unsigned long flags;
	int todo = 0;

	if (!seg->last)
		return 0;
	if (inval) {
		int rc = xiw_mr_invalidate(xdev, seg->stag, qp->ibqp.pd);

		if (rc)
			return rc;
		xiw_stat_inc(xdev, XIW_STAT_RX_SEND_INV);
		wc.wc_flags = IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = seg->stag;
	}
	wc.wr_id = qp->rx_wqe.wr_id;
	/* Under rq_lock: a flush either took the receive or sees it done. */
	spin_lock_irqsave(&qp->rq_lock, flags);
	if (qp->rx_wqe_valid)
		todo = xiw_cq_add(qp->ibqp.recv_cq, &wc,
				  seg->opcode == XIW_OP_SEND_SE ||
				  seg->opcode == XIW_OP_SEND_SE_INV);
	qp->rx_wqe_valid = false;
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	xiw_cq_kick(qp->ibqp.recv_cq, todo);
	return 0;
}

static int xiw_rx_write_begin(struct xiw_qp *qp, const struct xiw_seg *seg)
{
	int rc = xiw_mr_check(to_xiw_dev(qp->ibqp.device), seg->stag,
			      qp->ibqp.pd, IB_ACCESS_REMOTE_WRITE, seg->to,
			      seg->len);

	if (rc)
		return rc;
	qp->rx_stag = seg->stag;
	qp->rx_to = seg->to;
	qp->rx_target = XIW_RX_TO_STAG;
	return 0;
}

/*
 * RFC 5040 section 6.4: a Read Request beyond the IRD we advertised ends
 * the stream. Requests count from their arrival until the last octet of
 * their response is sent, so the one being answered counts too.
 */
static int xiw_rx_read_req(struct xiw_qp *qp, const struct xiw_seg *seg)
{
	unsigned long flags;
	int rc;

	spin_lock_irqsave(&qp->sq_lock, flags);
	rc = xiw_place_read_req(qp->irq_tail - qp->irq_done,
				min_t(u16, READ_ONCE(qp->ird), XIW_MAX_IRD));
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (rc)
		return rc;
	rc = xiw_mr_check(to_xiw_dev(qp->ibqp.device), seg->src_stag,
			  qp->ibqp.pd, IB_ACCESS_REMOTE_READ, seg->src_to,
			  seg->read_size);
	if (rc)
		return rc;
	qp->rx_rreq.sink_stag = seg->sink_stag;
	qp->rx_rreq.sink_to = seg->sink_to;
	qp->rx_rreq.src_stag = seg->src_stag;
	qp->rx_rreq.src_to = seg->src_to;
	qp->rx_rreq.len = seg->read_size;
	qp->rx_target = XIW_RX_TO_NONE;
	xiw_stat_inc(to_xiw_dev(qp->ibqp.device), XIW_STAT_RX_READ_REQ);
	return 0;
}

static void xiw_rx_read_req_end(struct xiw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->irq[qp->irq_tail % XIW_MAX_IRD] = qp->rx_rreq;
	qp->irq_tail++;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_qp_kick(qp);
}

/* The oldest READ still waiting for its response. */
static struct xiw_swqe *xiw_rx_pending_read(struct xiw_qp *qp)
{
	struct xiw_swqe *w;
	u32 i;

	for (i = qp->sq_head; i != qp->sq_tx; i++) {
		w = &qp->sq[i & (qp->sq_size - 1)];
		if (xiw_wr_is_read(w->opcode) && !w->done)
			return w;
	}
	return NULL;
}

/*
 * A Read Response segment answers the oldest READ outstanding (responses
 * come in request order). We asked for the sink at TO 0 of our first
 * SGE's lkey; the core says whether this segment continues it.
 */
static int xiw_rx_read_resp_begin(struct xiw_qp *qp,
				  const struct xiw_seg *seg)
{
	struct xiw_read_sink sink = { .got = qp->rx_resp_got };
	struct xiw_swqe *w;
	unsigned long flags;
	int rc;

	spin_lock_irqsave(&qp->sq_lock, flags);
	w = xiw_rx_pending_read(qp);
	if (w) {
		sink.stag = w->num_sge ? w->sge[0].lkey : 0;
		sink.len = w->len;
	}
	rc = xiw_place_read_resp(seg, w ? &sink : NULL);
	if (!rc)
		xiw_cursor_init(&qp->rx_resp_cursor, qp->ibqp.pd,
				IB_ACCESS_LOCAL_WRITE, w->sge, w->num_sge,
				seg->to);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	qp->rx_target = XIW_RX_TO_SINK;
	return rc;
}

static void xiw_rx_read_resp_end(struct xiw_qp *qp, const struct xiw_seg *seg)
{
	struct xiw_swqe *w;
	unsigned long flags;

	qp->rx_resp_got += seg->len;
	if (!seg->last)
		return;
	qp->rx_resp_got = 0;
	spin_lock_irqsave(&qp->sq_lock, flags);
	w = xiw_rx_pending_read(qp);
	if (w) {
		w->done = 1;
		qp->reads_out--;
		/* READ_WITH_INV: the sink's STag goes invalid with it. */
		if (w->opcode == IB_WR_RDMA_READ_WITH_INV &&
		    !xiw_mr_invalidate(to_xiw_dev(qp->ibqp.device), w->inv,
				       qp->ibqp.pd))
			xiw_stat_inc(to_xiw_dev(qp->ibqp.device), XIW_STAT_READ_INV);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	xiw_qp_complete_sq(qp);
	xiw_qp_kick(qp);	/* the ORD window or a fence may have opened */
}

static int xiw_rx_seg_begin(void *ctx, const struct xiw_seg *seg)
{
	struct xiw_qp *qp = ctx;

	pr_debug("xiw: qp %u rx op %u len %u last %u stag %#x to %#llx mo %u\n",
		 qp->ibqp.qp_num, seg->opcode, seg->len, seg->last, seg->stag,
		 (u64)seg->to, seg->mo);

	/* After the peer's TERMINATE nothing more takes effect. */
	if (qp->rx_dead)
		return XIW_RX_LOCAL;
	qp->rx_target = XIW_RX_TO_NONE;
	if (xiw_op_is_send(seg->opcode))
		return xiw_rx_send_begin(qp, seg);
	switch (seg->opcode) {
	case XIW_OP_WRITE:
		return xiw_rx_write_begin(qp, seg);
	case XIW_OP_READ_REQ:
		return xiw_rx_read_req(qp, seg);
	case XIW_OP_READ_RESP:
		return xiw_rx_read_resp_begin(qp, seg);
	}
	return XIW_RX_UNEXPECTED;
}

static int xiw_rx_seg_data(void *ctx, const void *buf, xiw_size len)
{
	struct xiw_qp *qp = ctx;
	int rc;

	switch (qp->rx_target) {
	case XIW_RX_TO_RECV:
		return xiw_cursor_put(&qp->rx_send_cursor, buf, len) ?
		       XIW_RX_BOUNDS : 0;
	case XIW_RX_TO_SINK:
		return xiw_cursor_put(&qp->rx_resp_cursor, buf, len) ?
		       XIW_RX_BOUNDS : 0;
	case XIW_RX_TO_STAG:
		/* Checked at the segment's start; an invalidation since fails. */
		rc = xiw_mem_copy(to_xiw_dev(qp->ibqp.device), qp->rx_stag,
				  qp->ibqp.pd, IB_ACCESS_REMOTE_WRITE,
				  qp->rx_to, (void *)buf, len, true);
		qp->rx_to += len;
		return rc ? XIW_RX_STAG_INVALID : 0;
	}
	return XIW_RX_LOCAL;	/* payload where none may be */
}

static int xiw_rx_seg_end(void *ctx, const struct xiw_seg *seg)
{
	struct xiw_qp *qp = ctx;

	if (READ_ONCE(qp->tx_fenced)) {
		WRITE_ONCE(qp->tx_fenced, false);	/* one FPDU validated */
		xiw_qp_kick(qp);
	}

	if (xiw_op_is_send(seg->opcode))
		return xiw_rx_send_end(qp, seg);
	if (seg->opcode == XIW_OP_READ_REQ)
		xiw_rx_read_req_end(qp);
	else if (seg->opcode == XIW_OP_READ_RESP)
		xiw_rx_read_resp_end(qp, seg);
	return 0;
}

static void xiw_rx_terminate(void *ctx, const struct xiw_term_cause *c)
{
	struct xiw_qp *qp = ctx;

	if (xiw_params_log())
		pr_info("xiw: qp %u: TERMINATE received: layer %u type %u code %#x\n",
			qp->ibqp.qp_num, c->layer, c->etype, c->code);
	xiw_stat_inc(to_xiw_dev(qp->ibqp.device), XIW_STAT_RX_TERMINATE);
	qp->rx_dead = true;
	xiw_qp_fatal(qp, IB_EVENT_QP_FATAL);
}

static const struct xiw_stream_sink xiw_rx_sink = {
	.seg_begin = xiw_rx_seg_begin,
	.seg_data = xiw_rx_seg_data,
	.seg_end = xiw_rx_seg_end,
	.terminate = xiw_rx_terminate,
};

/* The stream broke: send the TERMINATE the core prepared, then close. */
static void xiw_rx_failed(struct xiw_qp *qp, int rc)
{
	struct xiw_term_cause c;

	xiw_srx_cause(qp->srx, &c);
	if (xiw_params_log())
		pr_info("xiw: qp %u: stream error %d: TERMINATE layer %u type %u code %#x\n",
			qp->ibqp.qp_num, rc, c.layer, c.etype, c.code);
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
		rc = xiw_srx_consume(qp->srx, data, n, &xiw_rx_sink, qp);
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
