// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit: one work item per QP on xiw_tx_wq builds FPDUs with the core's
 * sender and pushes them into the TCP socket without blocking.
 *
 * Threading: posting a work request, a Read Request arriving, write space
 * opening up and errors all just queue the QP's tx work. A work item never
 * runs twice at once, and tx_mutex keeps the connection manager from
 * taking the socket away mid-FPDU, so transmit state needs no other lock.
 * The socket is written with MSG_DONTWAIT: when TCP's send buffer is full
 * the work returns and sk_write_space queues it again. Inbound Read
 * Responses go first, at message boundaries (RFC 5040 section 5.4).
 */
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>

#include <xiw/mpa.h>
#include <xiw/mpa_conn.h>
#include <xiw/stream.h>

#include "params.h"
#include "xiw.h"

/* Copies message payload for the core: from SGEs, inline data or an MR. */
static int xiw_tx_fetch(void *ctx, xiw_u32 off, void *dst, xiw_size len)
{
	struct xiw_qp *qp = ctx;
	struct xiw_swqe *w;

	if (qp->tx_read_resp) {
		/* Checked when the Read Request arrived, and again here. */
		return xiw_mem_copy(to_xiw_dev(qp->ibqp.device),
				    qp->tx_rreq.src_stag, qp->ibqp.pd,
				    IB_ACCESS_REMOTE_READ,
				    qp->tx_rreq.src_to + off, dst, len, false);
	}
	w = xiw_swqe_at(qp, qp->tx_cur);
	if (w->flags & XIW_WQE_INLINE) {
		memcpy(dst, w->inline_data + off, len);
		return 0;
	}
	if (off != qp->tx_cursor_pos)
		return -EINVAL;	/* the core fetches in order */
	qp->tx_cursor_pos += len;
	return xiw_cursor_get(&qp->tx_cursor, dst, len);
}

/*
 * The core's view of message payload in place, for a gathering send: one
 * page's worth at most, that page held until TCP has copied it.
 */
static int xiw_tx_view(void *ctx, u32 off, xiw_size len, const void **src)
{
	struct xiw_qp *qp = ctx;
	struct xiw_tx_runs *r = &qp->tx_runs;
	struct page *page;
	int n;

	if (r->nheld == XIW_TX_RUNS)
		return -ENOBUFS;
	if (qp->tx_read_resp) {
		n = xiw_mem_view(to_xiw_dev(qp->ibqp.device),
				 qp->tx_rreq.src_stag, qp->ibqp.pd,
				 IB_ACCESS_REMOTE_READ,
				 qp->tx_rreq.src_to + off, len, src, &page);
	} else {
		if (off != qp->tx_cursor_pos)
			return -EINVAL;	/* the core views in order */
		n = xiw_cursor_view(&qp->tx_cursor, len, src, &page);
		if (n > 0)
			qp->tx_cursor_pos += n;
	}
	if (n > 0)
		r->held[r->nheld++] = page;
	return n;
}

/* Lets go of the pages of the FPDU in hand; nothing of it is to be sent. */
static void xiw_tx_runs_drop(struct xiw_qp *qp)
{
	struct xiw_tx_runs *r = &qp->tx_runs;

	while (r->nheld)
		put_page(r->held[--r->nheld]);
	r->n = 0;
	r->first = 0;
	r->zc = 0;
}

/*
 * Under zero-copy, the message's payload runs whose pages TCP may hold on
 * to (not slab memory): TCP sends those without copying them.
 */
static void xiw_tx_runs_ready(struct xiw_qp *qp, u32 runs)
{
	struct xiw_tx_runs *r = &qp->tx_runs;
	struct xiw_iov iov;
	u32 i, j = 0;

	BUILD_BUG_ON(XIW_TX_RUNS > 64);
	for (i = 0; i < runs; i++) {
		iov = r->iov[i];
		r->kv[i].iov_base = (void *)iov.base;
		r->kv[i].iov_len = iov.len;
		/* Each payload run is one view; framing runs are in tx_buf. */
		r->page[i] = NULL;
		if ((u8 *)iov.base < qp->tx_buf ||
		    (u8 *)iov.base >= qp->tx_buf + qp->tx_buf_size)
			r->page[i] = r->held[j++];
		if (qp->tx_zc && r->page[i] && sendpage_ok(r->page[i]))
			r->zc |= BIT_ULL(i);
	}
	r->n = runs;
}

/*
 * The open message's next FPDU into tx_runs: gathered (framing octets in
 * tx_buf, payload in place) where the message allows it, else copied
 * into tx_buf, also when gathering finds memory it cannot send in place
 * or more runs than tx_runs holds. Wire octets or a negative errno.
 */
static int xiw_tx_next(struct xiw_qp *qp)
{
	struct xiw_device *xdev = to_xiw_dev(qp->ibqp.device);
	struct xiw_tx_runs *r = &qp->tx_runs;
	struct xiw_cursor cursor = qp->tx_cursor;
	u32 pos = qp->tx_cursor_pos, runs = XIW_TX_RUNS;
	int n;

	if (qp->tx_mode != XIW_TX_COPY) {
		n = xiw_stx_next_iov(qp->stx, qp->tx_buf, qp->tx_buf_size,
				     xiw_tx_view, qp, r->iov, &runs);
		if (n > 0) {
			xiw_tx_runs_ready(qp, runs);
			xiw_stat_inc(xdev, XIW_STAT_TX_GATHER_FPDU);
			return n;
		}
		xiw_tx_runs_drop(qp);
		if (n != -ENOBUFS && n != -EOPNOTSUPP)
			return n;
		qp->tx_cursor = cursor;	/* fetch again from the FPDU's start */
		qp->tx_cursor_pos = pos;
		xiw_stat_inc(xdev, XIW_STAT_TX_GATHER_COPY);
	}
	return xiw_stx_next(qp->stx, qp->tx_buf, qp->tx_buf_size, xiw_tx_fetch,
			    qp);
}

/*
 * One send call for the runs from the first unsent on that TCP takes the
 * same way: copied (framing octets, gathered payload), or as pages under
 * the message's zero-copy notification. Octets taken, or an error.
 *
 * FPDU Alignment (RFC 5044 section 6: each TCP segment begins with an
 * FPDU): TCP appends to its last unsent skb and cuts skbs into segments
 * every MSS from the skb's start. An FPDU that fills the MSS (or the GSO
 * size) exactly keeps the next one on a segment boundary; any shorter
 * one (a message's last, a small message, a TERMINATE) ends its skb with
 * MSG_EOR, so the next FPDU starts a new skb and a new segment. Full
 * FPDUs still share skbs: a bulk transfer keeps TCP's batching.
 */
static int xiw_tx_send(struct xiw_qp *qp)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct xiw_tx_runs *r = &qp->tx_runs;
	bool zc = r->zc & BIT_ULL(r->first);
	struct bio_vec bv[XIW_TX_RUNS];
	struct kvec *kv;
	size_t len = 0;
	u32 i;

	for (i = r->first; i < r->n && !!(r->zc & BIT_ULL(i)) == zc; i++) {
		kv = &r->kv[i];
		len += kv->iov_len;
		if (zc)
			bvec_set_page(&bv[i - r->first], r->page[i],
				      kv->iov_len, offset_in_page(kv->iov_base));
	}
	if (i < r->n)
		msg.msg_flags |= MSG_MORE;
	else if (qp->tx_len != qp->tx_size)
		msg.msg_flags |= MSG_EOR;
	if (!zc)
		return kernel_sendmsg(qp->tx_sock, &msg, &r->kv[r->first],
				      i - r->first, len);
	msg.msg_flags |= MSG_ZEROCOPY;
	msg.msg_ubuf = xiw_zc_ubuf(qp->tx_zc);
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, bv, i - r->first, len);
	qp->tx_zc_pages = true;
	return sock_sendmsg(qp->tx_sock, &msg);
}

/*
 * Sends what is left of the FPDU: 0 when all went, -EAGAIN, or an error.
 * Once it is all in TCP's hands our page references go (TCP copied the
 * pages, or holds its own).
 */
static int xiw_tx_push(struct xiw_qp *qp)
{
	struct xiw_tx_runs *r = &qp->tx_runs;
	struct kvec *kv;
	int n;

	while (qp->tx_off < qp->tx_len) {
		n = xiw_tx_send(qp);
		if (n <= 0)
			return n ? n : -EPIPE;
		qp->tx_off += n;
		while (n) {
			kv = &r->kv[r->first];
			if (n < kv->iov_len) {
				kv->iov_base += n;
				kv->iov_len -= n;
				break;
			}
			n -= kv->iov_len;
			r->first++;
		}
	}
	xiw_tx_runs_drop(qp);
	return 0;
}

/*
 * Under sq_lock: the next message to transmit, or NULL. The core passes
 * over what is done (bad user WQEs are done already; REG_MR and
 * LOCAL_INV are done here as the queue reaches them), stops past the first
 * that failed (*@failed), and decides whether a fence or the ORD holds the
 * next one back. *@idx is the message's index; *@passed says whether work
 * was passed over that may now complete.
 */
static struct xiw_swqe *xiw_tx_next_wqe(struct xiw_qp *qp, bool *failed,
					bool *passed, u32 *idx)
{
	struct xiw_swqe *w;
	u8 status;
	int rc;

	lockdep_assert_held(&qp->sq_lock);
	for (;;) {
		rc = xiw_sq_next(&qp->sq_ring, &qp->order, READ_ONCE(qp->ord),
				 idx);
		if (rc != XIW_SQ_START) {
			*failed = rc == XIW_SQ_FAILED;
			*passed |= *failed;
			return NULL;
		}
		w = xiw_swqe_at(qp, *idx);
		if (xiw_swqe_start(qp, w, &status)) {
			xiw_sq_start(&qp->sq_ring, &qp->order, *idx);
			return w;
		}
		xiw_sq_done(&qp->sq_ring, *idx, status);
		*passed = true;
	}
}

/* Under sq_lock: the Read Response in @slot is the next message. */
static void xiw_tx_pick_rresp(struct xiw_qp *qp, struct xiw_msg *m, u32 slot)
{
	lockdep_assert_held(&qp->sq_lock);
	qp->tx_rreq = qp->irq[slot];
	qp->tx_read_resp = true;
	m->opcode = XIW_OP_READ_RESP;
	m->len = qp->tx_rreq.len;
	m->stag = qp->tx_rreq.sink_stag;
	m->to = qp->tx_rreq.sink_to;
	qp->tx_mode = xiw_params_tx_payload();
}

/*
 * The next message to start: a Read Response first, unless the send queue
 * has waited out a burst of them (xiw_tx_rresp_first()); then the send
 * queue, and a Read Response if the send queue has nothing to start.
 */
static bool xiw_tx_pick(struct xiw_qp *qp, struct xiw_msg *m)
{
	struct xiw_swqe *w;
	unsigned long flags;
	bool found = false, failed = false, passed = false;
	u32 idx, slot;

	memset(m, 0, sizeof(*m));
	spin_lock_irqsave(&qp->sq_lock, flags);
	if (xiw_tx_rresp_first(&qp->order) &&
	    xiw_tx_rresp_next(&qp->order, &slot)) {
		xiw_tx_pick_rresp(qp, m, slot);
		found = true;
		goto out;
	}
	xiw_qp_pull_usq(qp);
	w = xiw_tx_next_wqe(qp, &failed, &passed, &idx);
	if (!w) {
		if (!failed && xiw_tx_rresp_next(&qp->order, &slot)) {
			xiw_tx_pick_rresp(qp, m, slot);
			found = true;
		}
		goto out;
	}
	qp->tx_read_resp = false;
	qp->tx_cur = idx;
	m->len = w->len;
	switch (w->opcode) {
	case IB_WR_RDMA_WRITE:
		m->opcode = XIW_OP_WRITE;
		m->stag = w->rkey;
		m->to = w->remote_addr;
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		/* The response lands in our SGE, named by its lkey, at 0. */
		m->opcode = XIW_OP_READ_REQ;
		m->len = 0;
		m->read_size = w->len;
		m->sink_stag = w->num_sge ? w->sge[0].lkey : 0;
		m->sink_to = 0;
		m->src_stag = w->rkey;
		m->src_to = w->remote_addr;
		/* Its response completes it: nothing to mark once sent. */
		qp->tx_cur = ~0U;
		break;
	case IB_WR_SEND_WITH_INV:
		m->opcode = w->flags & XIW_WQE_SOLICITED ? XIW_OP_SEND_SE_INV :
							   XIW_OP_SEND_INV;
		m->stag = w->inv;
		xiw_stat_inc(to_xiw_dev(qp->ibqp.device), XIW_STAT_TX_SEND_INV);
		break;
	default:
		m->opcode = w->flags & XIW_WQE_SOLICITED ? XIW_OP_SEND_SE :
							   XIW_OP_SEND;
		break;
	}
	xiw_cursor_init(&qp->tx_cursor, qp->ibqp.pd, 0, w->sge,
			w->flags & XIW_WQE_INLINE ? 0 : w->num_sge, 0);
	qp->tx_cursor_pos = 0;
	/* Inline data is in the WQE, not in registered memory: copied. */
	qp->tx_mode = w->flags & XIW_WQE_INLINE ? XIW_TX_COPY :
						  xiw_params_tx_payload();
	found = true;
out:
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (passed)
		xiw_qp_complete_sq(qp);	/* those passed over are done */
	if (failed)
		xiw_qp_to_error(qp);	/* after its error completion */
	return found;
}

/*
 * The message's last FPDU went out: SENDs and WRITEs are complete, or
 * under zero-copy will be once TCP lets go of their pages (zcopy.c).
 */
static void xiw_tx_message_sent(struct xiw_qp *qp)
{
	struct xiw_zc *zc = qp->tx_zc;
	unsigned long flags;

	qp->tx_zc = NULL;
	if (zc && qp->tx_zc_pages)
		xiw_stat_inc(to_xiw_dev(qp->ibqp.device), XIW_STAT_TX_ZCOPY_MSG);
	if (!qp->tx_read_resp && qp->tx_cur != ~0U) {
		spin_lock_irqsave(&qp->sq_lock, flags);
		WARN_ON_ONCE(xiw_sq_sent(&qp->sq_ring, qp->tx_cur, !!zc));
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		qp->tx_cur = ~0U;
		if (!zc)
			xiw_qp_complete_sq(qp);
	}
	if (zc)
		xiw_zc_put(zc);	/* may complete it right here */
}

/*
 * Zero-copy pays where FPDUs carry a page or more (GSO-sized FPDUs, jumbo
 * frames) and the message fills one: each FPDU costs three send calls
 * (framing, pages, trailer), which for MSS-sized FPDUs cost more than the
 * copy saved (Documentation/performance.rst). Other messages, and any
 * without memory for a notification, are copied; completing when the
 * send call returns is worth more to small ones than a saved copy.
 */
static void xiw_tx_zc_begin(struct xiw_qp *qp, const struct xiw_msg *m)
{
	if (qp->tx_mode != XIW_TX_ZEROCOPY)
		return;
	if (m->len >= PAGE_SIZE && qp->tx_size >= PAGE_SIZE)
		qp->tx_zc = xiw_zc_new(qp, qp->tx_read_resp ? ~0U : qp->tx_cur);
	if (!qp->tx_zc)
		qp->tx_mode = XIW_TX_COPY;
	qp->tx_zc_pages = false;
}

/* The stream stops mid-message: the notification is ours no longer. */
static void xiw_tx_zc_abandon(struct xiw_qp *qp)
{
	if (qp->tx_zc)
		xiw_zc_put(qp->tx_zc);
	qp->tx_zc = NULL;
}

/*
 * What one FPDU may fill: TCP's MSS (RFC 5044 section 4.5: MULPDU follows
 * EMSS), or, where the peer agreed to GSO-sized FPDUs, the size TCP builds
 * its segments to before GSO cuts them (MSS times gso_segs).
 */
static u32 xiw_tx_size(struct xiw_qp *qp, u32 mss)
{
	u16 segs = READ_ONCE(tcp_sk(qp->tx_sock->sk)->gso_segs);

	return qp->tx_gso && segs > 1 ? mss * segs : mss;
}

/*
 * Between FPDUs: if TCP's MSS (or GSO size) changed, size the FPDUs from
 * the next one on to it, growing the buffer if need be; short of memory,
 * it falls back to FPDUs that fit the buffer it has. An MSS change comes
 * from an MTU or path MTU change; TCP updates its MSS as it sends, so the
 * FPDU in hand when the MTU drops may still be cut in two by TCP; the
 * ones after it are not.
 */
static void xiw_tx_follow_mss(struct xiw_qp *qp)
{
	u32 mss = READ_ONCE(tcp_sk(qp->tx_sock->sk)->mss_cache);
	u32 want = xiw_tx_size(qp, mss);
	u16 mulpdu;
	size_t size;
	u8 *buf;

	if (want == qp->tx_size)
		return;
	mulpdu = xiw_stx_set_mulpdu(qp->stx,
				    xiw_mpa_mulpdu(want, qp->tx_markers));
	size = xiw_stx_fpdu_max(qp->stx);
	if (size > qp->tx_buf_size) {
		buf = kvmalloc(size, GFP_KERNEL);
		if (!buf) {
			xiw_stx_set_mulpdu(qp->stx,
					   xiw_mpa_mulpdu(qp->tx_size,
							  qp->tx_markers));
			return;
		}
		kvfree(qp->tx_buf);
		qp->tx_buf = buf;
		qp->tx_buf_size = size;
	}
	pr_debug("xiw: qp %u mss %u -> %u, fpdu room %u: mulpdu %u\n",
		 qp->ibqp.qp_num, qp->tx_mss, mss, want, mulpdu);
	if (qp->tx_mss && mss != qp->tx_mss)
		xiw_stat_inc(to_xiw_dev(qp->ibqp.device), XIW_STAT_TX_MULPDU);
	qp->tx_mss = mss;
	qp->tx_size = want;
}

/*
 * The fault_tx_* test aids: spoil the FPDU of @n octets that starts at
 * stream position @start. fault_tx_crc inverts the CRC's last octet;
 * fault_tx_marker changes the FPDUPTR of its first Marker, if it has one.
 */
static void xiw_tx_fault(struct xiw_qp *qp, u32 start, int n)
{
	u32 m = (XIW_MPA_MARKER_INTERVAL - start % XIW_MPA_MARKER_INTERVAL) %
		XIW_MPA_MARKER_INTERVAL;

	if (qp->tx_crc && xiw_params_fault_tx_crc())
		qp->tx_buf[n - 1] ^= 0xff;
	if (qp->tx_markers && m + 4 <= n && xiw_params_fault_tx_marker())
		qp->tx_buf[m + 3] ^= 0x04;	/* the low two bits are ignored */
}

/*
 * The last FPDU of a Read Response is built: its Read Request no longer
 * counts against the IRD. That must happen before its octets reach TCP.
 * Once they have, the requester may have its READ complete and send the
 * next Read Request, which we can receive before the send call returns
 * (TCP processes what arrived while the socket was ours as it releases
 * it). Counted after the send, that request found the IRD still full.
 */
static void xiw_tx_read_resp_built(struct xiw_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	xiw_tx_rresp_built(&qp->order);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
}

/* Builds the next FPDU; 0 when there is nothing to send. */
static int xiw_tx_build(struct xiw_qp *qp)
{
	struct xiw_msg m;
	u32 start;
	int n;

	if (READ_ONCE(qp->term_pending)) {
		WRITE_ONCE(qp->term_pending, false);
		xiw_stat_inc(to_xiw_dev(qp->ibqp.device), XIW_STAT_TX_TERMINATE);
		return xiw_stx_terminate(qp->stx, qp->srx, qp->tx_buf,
					 qp->tx_buf_size);
	}
	if (READ_ONCE(qp->tx_fenced))
		return 0;
	xiw_tx_follow_mss(qp);
	if (xiw_stx_idle(qp->stx)) {
		if (!xiw_tx_pick(qp, &m))
			return 0;
		n = xiw_stx_begin(qp->stx, &m);
		pr_debug("xiw: qp %u tx op %u len %u stag %#x to %#llx: %d\n",
			 qp->ibqp.qp_num, m.opcode, m.len, m.stag, (u64)m.to, n);
		if (n)
			return n;
		xiw_tx_zc_begin(qp, &m);
	}
	start = xiw_stx_position(qp->stx);
	n = xiw_tx_next(qp);
	if (n > 0 && qp->tx_read_resp && xiw_stx_idle(qp->stx))
		xiw_tx_read_resp_built(qp);
	if (n > 0 && !qp->tx_runs.n)
		xiw_tx_fault(qp, start, n);
	/* n may be a negative errno: compared as an int, never as a u32. */
	if (n > 0 && n > (int)qp->tx_mss)
		xiw_stat_inc(to_xiw_dev(qp->ibqp.device), XIW_STAT_TX_GSO_FPDU);
	return n;
}

/*
 * Flush with receive held off (it runs under the socket lock). The work
 * requests flush whatever transmit still holds: an FPDU half sent, and the
 * TERMINATE behind it, go out if the peer reads again, but a peer that
 * stops reading must not hold up the consumer's drain. The message in
 * hand then belongs to no work request: its slot may be posted again.
 */
static void xiw_tx_flush(struct xiw_qp *qp)
{
	struct sock *sk = qp->tx_sock ? qp->tx_sock->sk : NULL;

	if (sk)
		lock_sock(sk);
	xiw_qp_flush(qp);
	if (sk)
		release_sock(sk);
	qp->tx_cur = ~0U;
	xiw_qp_last_wqe(qp);
}

/*
 * Octets one run of the transmit loop builds before it lets go of
 * tx_mutex. A peer's Read Requests (as many READs as it likes, one after
 * another) or a deep send queue always have more to send while TCP
 * drains as fast as the CPU fills it, as under emulation: without a
 * bound, the poster's post call (xiw_qp_tx_now()) did not return, and the
 * connection manager's close (xiw_qp_stream_stop()) waited, for as long
 * as the peer kept reading (30 s and more on the debug kernel,
 * Documentation/security.rst).
 */
#define XIW_TX_BUDGET	(256 * 1024)

/*
 * Under tx_mutex: sends FPDUs until there is nothing to send, the socket
 * is full (-EAGAIN; sk_write_space kicks us again), XIW_TX_BUDGET octets
 * are built (-EINPROGRESS: the caller queues the tx work to go on) or an
 * error.
 */
static int xiw_tx_run(struct xiw_qp *qp)
{
	int budget = XIW_TX_BUDGET;
	int rc = 0;

	lockdep_assert_held(&qp->tx_mutex);
	while (qp->tx_sock) {
		if (qp->tx_off < qp->tx_len) {
			rc = xiw_tx_push(qp);
			if (rc)
				break;
			if (xiw_stx_idle(qp->stx))
				xiw_tx_message_sent(qp);
			/* A doorbell loop may keep the queue full for long. */
			cond_resched();
			continue;
		}
		if (READ_ONCE(qp->state) == IB_QPS_ERR && !READ_ONCE(qp->term_pending))
			break;
		if (budget <= 0) {
			rc = -EINPROGRESS;	/* at an FPDU boundary */
			break;
		}
		rc = xiw_tx_build(qp);
		if (rc <= 0)
			break;
		budget -= rc;
		if (!qp->tx_runs.n) {	/* built in tx_buf: one run */
			qp->tx_runs.kv[0].iov_base = qp->tx_buf;
			qp->tx_runs.kv[0].iov_len = rc;
			qp->tx_runs.n = 1;
		}
		qp->tx_len = rc;
		qp->tx_off = 0;
		rc = 0;
	}
	return rc;
}

static void xiw_tx_work(struct work_struct *work)
{
	struct xiw_qp *qp = container_of(work, struct xiw_qp, tx_work);
	void (*close)(struct xiw_qp *qp);
	bool drop = false, more = false;
	int rc;

	mutex_lock(&qp->tx_mutex);
	if (READ_ONCE(qp->state) == IB_QPS_ERR) {
		xiw_tx_flush(qp);
		/*
		 * Octets still to go from the flushed messages' own pages
		 * (gathered runs, or zero-copy pages TCP holds) would be read
		 * after their owner got them back: the connection goes now,
		 * without the rest of the FPDU and the TERMINATE (reset where
		 * TCP holds pages, xiw_cep_close_sock()).
		 */
		if ((qp->tx_off < qp->tx_len && qp->tx_runs.nheld) ||
		    xiw_zc_pending(qp)) {
			drop = qp->tx_sock;
			goto out;
		}
		if (!READ_ONCE(qp->term_pending) && qp->tx_off == qp->tx_len) {
			drop = qp->tx_sock;	/* still connected: close */
			goto out;
		}
	}
	rc = xiw_tx_run(qp);
	more = rc == -EINPROGRESS;
	if (rc && rc != -EAGAIN && !more) {
		pr_debug("xiw: qp %u tx error %d\n", qp->ibqp.qp_num, rc);
		drop = true;
	}
	if (READ_ONCE(qp->state) == IB_QPS_ERR && qp->tx_off == qp->tx_len) {
		drop = true;	/* the TERMINATE, if any, is out */
		xiw_tx_flush(qp);
	}
out:
	mutex_unlock(&qp->tx_mutex);
	if (more)
		xiw_qp_kick(qp);	/* the rest, after whoever waits */
	xiw_qp_report_event(qp);
	if (drop) {
		if (READ_ONCE(qp->state) != IB_QPS_ERR)
			xiw_qp_to_error(qp);
		close = READ_ONCE(qp->llp_close);
		if (close)
			close(qp);	/* the CM ends the connection */
	}
}

void xiw_qp_tx_setup(struct xiw_qp *qp)
{
	INIT_WORK(&qp->tx_work, xiw_tx_work);
	qp->tx_cur = ~0U;
}

/* The QP goes away: the transmit work is done for good. */
void xiw_qp_tx_release(struct xiw_qp *qp)
{
	xiw_tx_runs_drop(qp);
	xiw_tx_zc_abandon(qp);
	kvfree(qp->tx_buf);
	qp->tx_buf = NULL;
}

/*
 * A user QP's doorbell, in the poster's process context: transmit now
 * instead of after a workqueue hop, which is most of a small message's
 * latency, but at most XIW_TX_BUDGET octets. Anything else (more than
 * that, the tx work busy, an error, ERROR to flush, an event to report)
 * is left to the tx work, which finds it again.
 */
void xiw_qp_tx_now(struct xiw_qp *qp)
{
	int rc;

	if (READ_ONCE(qp->state) != IB_QPS_RTS ||
	    !mutex_trylock(&qp->tx_mutex)) {
		xiw_qp_kick(qp);
		return;
	}
	rc = xiw_tx_run(qp);
	mutex_unlock(&qp->tx_mutex);
	if ((rc && rc != -EAGAIN) || READ_ONCE(qp->state) != IB_QPS_RTS ||
	    READ_ONCE(qp->pending_event))
		xiw_qp_kick(qp);
}

/*
 * The CM hands over a connection in Full Operation. The stream starts
 * where the CM's own framing (RTR) left it; @fenced holds transmit until
 * the peer's first FPDU (MPA fencing), @gso allows FPDUs of TCP's GSO size.
 */
int xiw_qp_stream_start(struct xiw_qp *qp, struct socket *sock,
			const struct xiw_stream_cfg *tx,
			const struct xiw_stream_cfg *rx, bool fenced, bool gso)
{
	u8 *buf;
	u32 size;

	mutex_lock(&qp->tx_mutex);
	xiw_stx_init(qp->stx, &xiw_kernel_env, tx);
	xiw_srx_init(qp->srx, &xiw_kernel_env, rx);
	size = xiw_stx_fpdu_max(qp->stx);
	buf = kvmalloc(size, GFP_KERNEL);
	if (!buf) {
		mutex_unlock(&qp->tx_mutex);
		return -ENOMEM;
	}
	kvfree(qp->tx_buf);
	qp->tx_buf = buf;
	qp->tx_buf_size = size;
	qp->tx_mss = 0;		/* the first FPDU sizes MULPDU to the MSS */
	qp->tx_size = 0;
	qp->tx_gso = gso;
	qp->tx_markers = tx->markers;
	qp->tx_crc = tx->crc;
	qp->tx_len = 0;
	qp->tx_off = 0;
	xiw_tx_runs_drop(qp);
	xiw_tx_zc_abandon(qp);
	qp->tx_cur = ~0U;
	WRITE_ONCE(qp->term_pending, false);
	WRITE_ONCE(qp->tx_fenced, fenced);
	xiw_qp_rx_start(qp);
	qp->tx_sock = sock;
	mutex_unlock(&qp->tx_mutex);
	xiw_qp_kick(qp);
	return 0;
}

/* The CM takes the socket back; nothing is sent after this returns. */
void xiw_qp_stream_stop(struct xiw_qp *qp)
{
	mutex_lock(&qp->tx_mutex);
	qp->tx_sock = NULL;
	qp->tx_len = 0;
	qp->tx_off = 0;
	xiw_tx_runs_drop(qp);
	xiw_tx_zc_abandon(qp);
	mutex_unlock(&qp->tx_mutex);
}
