// SPDX-License-Identifier: GPL-2.0
/*
 * xiw_cmtest: a kernel rdma_cm consumer for the VM tests. It connects (or
 * listens and accepts) through rdma_cm and iw_cm exactly as a kernel ULP
 * would, and reports what it saw in the read-only parameter "result":
 *
 *   server: "requests=N established=N disconnected=N rejected=N
 *            est_failed=N est_ird=N est_ord=N pd_len=N pd_ok=0|1 ird=N
 *            ord=N est_req=N"   (est_failed: ESTABLISHED with an error
 *            status, an accepted connection lost before it was up;
 *            est_ird/est_ord: responder_resources and initiator_depth of
 *            the last good ESTABLISHED; est_req: which request, counted
 *            from 1, that ESTABLISHED's id came with; the rest of the
 *            last request)
 *   client: "established|rejected|error=E|timeout ird=N ord=N pd_len=N
 *            pd_ok=0|1 [data=ok sends=N writes=N reads=N | data=fail
 *            step=S err=E] disconnected=0|1"
 *
 * Private data is a pattern (octet i = i * 7 + 1) of pd_len octets both
 * ways, so either side can check it arrived intact.
 *
 * Data (client data=1): the server echoes every SEND it receives and
 * answers the 4-octet SEND "INFO" with the address, rkey and length of a
 * 1 MiB buffer open to remote reads and writes. The client then checks,
 * for sizes 0, 1, 4095, 4096, 65536 and 1 MiB: SENDs from three SGEs come
 * back byte for byte; an unsignaled multi-SGE RDMA WRITE into the server's
 * buffer read back with a signaled RDMA READ matches, with only the READ
 * completing. Buffers are kernel virtual addresses: software iWARP
 * devices do virtual DMA. max_size=N leaves out the sizes above N (the
 * debug kernel's runs, where KASAN makes each 1 MiB transfer slow).
 *
 * FRWR (client frwr=1, after the data checks), the NFS-over-RDMA pattern
 * on MRs of 16 scattered pages: an RDMA READ_WITH_INV into a registered
 * sink leaves its STag invalid (REG_MR succeeds on it again); one chain
 * of REG_MR, an RDMA WRITE from the MR it registers and LOCAL_INV of that
 * MR takes effect in send queue order (a READ back matches); the server, asked
 * with "WINV" (addr, rkey, len, seed), WRITEs into a registered MR and
 * answers with SEND_WITH_INV, which the client sees as
 * IB_WC_WITH_INVALIDATE of that rkey with the data placed;
 * a second WINV to the now invalid rkey is refused by the client's RNIC
 * (TERMINATE), so its posted receive flushes and its QP reports
 * IB_EVENT_QP_ACCESS_ERR. Result " frwr=ok" or
 * " frwr=fail step=S err=E".
 *
 * SRQ (server srq=1): each served QP takes its receives from a shared
 * receive queue of its own, created armed with a limit of two before its
 * two buffers are posted, so the first receive raises the limit event.
 * The read-only parameter "srq_events" says "srq_limit=N last_wqe=N":
 * limit events, and IB_EVENT_QP_LAST_WQE_REACHED events once connections
 * are gone (they arrive in any context, after the CM events).
 *
 * Probe (client probe=1), the target of scripts/vm/ddp_peer.py: see
 * cmt_probe(). Server backlog=N and req_delay_ms=N make a slow ULP whose
 * iw_cm event queue runs over.
 *
 *   insmod xiw_cmtest.ko role=server port=7471 [reject=1] [srq=1]
 *   insmod xiw_cmtest.ko role=client addr=10.77.0.2 port=7471 pd_len=N ird=N ord=N [data=1]
 *
 * Client abort_ms=N: a ULP that gives up on a connect; see its description.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

static char *role = "client";
module_param(role, charp, 0444);
static char *addr = "0.0.0.0";
module_param(addr, charp, 0444);
static int port = 7471;
module_param(port, int, 0444);
static int pd_len = 16;
module_param(pd_len, int, 0444);
static int ird = 4;
module_param(ird, int, 0444);
static int ord = 4;
module_param(ord, int, 0444);
static bool reject;
module_param(reject, bool, 0644);
static bool data;
module_param(data, bool, 0444);
static bool frwr;
module_param(frwr, bool, 0444);
static uint max_size = 1 << 20;
module_param(max_size, uint, 0444);
MODULE_PARM_DESC(max_size, "client: the largest size the data checks move (default 1 MiB)");
static bool srq;
module_param(srq, bool, 0444);
MODULE_PARM_DESC(srq, "server: receives from a shared receive queue");
static bool probe;
module_param(probe, bool, 0444);
MODULE_PARM_DESC(probe, "client: post one receive, SEND where to read, READ 64 octets, report (for scripts/vm/ddp_peer.py)");
static uint probe_flood;
module_param(probe_flood, uint, 0444);
MODULE_PARM_DESC(probe_flood, "client probe=1: then an RDMA WRITE of this many KiB (up to 1024), more than a peer that stops reading takes");
static int backlog = 8;
module_param(backlog, int, 0444);
MODULE_PARM_DESC(backlog, "server: rdma_listen()'s backlog");
static bool hello;
module_param(hello, bool, 0444);
MODULE_PARM_DESC(hello, "server: SEND \"HELO\" once established; client: check it waits for our first FPDU (MPA fencing)");
static bool reject_after_accept;
module_param(reject_after_accept, bool, 0444);
MODULE_PARM_DESC(reject_after_accept, "server: reject each connection right after accepting it");
static uint req_delay_ms;
module_param(req_delay_ms, uint, 0444);
MODULE_PARM_DESC(req_delay_ms, "server: a slow ULP, sleeping this long on each CONNECT_REQUEST");
static uint abort_ms;
module_param(abort_ms, uint, 0444);
MODULE_PARM_DESC(abort_ms, "client: destroy the QP if not connected after this long, then wait 8 s more for the connect's outcome");
static char result[256] = "none";
module_param_string(result, result, sizeof(result), 0444);
MODULE_PARM_DESC(result, "what the test saw (read-only)");

#define CMT_BUF		(1 << 20)
#define CMT_DATA_LEN	(CMT_BUF + 1)	/* the client's buffers: one too many */
#define CMT_SLOTS	2

/*
 * Memory that the RNIC reaches through the local DMA lkey or the global
 * rkey must be DMA-able: in the kernel's direct map. A software RNIC turns
 * such an address into its page with virt_to_page(), and for vmalloc
 * memory (what kvmalloc falls back to once the page allocator is
 * fragmented) that is some other page: a peer that sends from it with
 * zero copy sends the wrong octets and takes and drops references on
 * pages that are not its own, corrupting that host's memory. Contiguous
 * pages, each with its own count.
 */
static void *cmt_dma_alloc(size_t len)
{
	return alloc_pages_exact(len, GFP_KERNEL | __GFP_RETRY_MAYFAIL |
				 __GFP_ZERO);
}

static void cmt_dma_free(void *p, size_t len)
{
	if (p)
		free_pages_exact(p, len);
}

struct cmt_conn;

/* Server: one receive buffer and the echo sent from it. */
struct cmt_slot {
	struct cmt_conn *c;
	struct ib_cqe recv_cqe;
	struct ib_cqe send_cqe;
	u8 *buf;
	u8 info[16];
};

struct cmt_conn {
	struct rdma_cm_id *id;
	int req;		/* server: its request, counted from 1 */
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_srq *srq;	/* server srq=1 */
	bool has_qp;
	struct cmt_slot slot[CMT_SLOTS];
	u8 *mem;		/* server: open to the client's WRITEs and READs */
	u8 *wbuf;		/* server: source of WINV's WRITE */
	void *probe_mem[5];	/* client probe=1: freed with the QP */
	struct ib_qp *orphan_qp;	/* its id went first (see below) */
	struct ib_cqe hello_cqe;	/* server hello=1 */
	u8 hello_buf[4];
	void *hello_mem;	/* client hello=1: freed with the QP */
	/*
	 * Client data=1: out, in and back. Freed with the QP, not when the
	 * checks end: a check that fails or times out can leave a receive
	 * or a READ posted into them, which the QP would still fill.
	 */
	u8 *data[3];
};

static struct rdma_cm_id *listen_id;
static struct cmt_conn client;
static struct cmt_conn served[8];
static int nserved;
static DEFINE_MUTEX(cmt_lock);
static DECLARE_COMPLETION(client_done);
static int requests, established, disconnected, rejected, est_failed;
static int est_ird = -1, est_ord = -1;	/* the last good ESTABLISHED's */
static int est_req;			/* its id's request, from 1 */
static int last_pd_len, last_pd_ok, last_ird, last_ord;
static u8 pattern[255];	/* rdma_conn_param's limit on private data */
static atomic_t qp_event = ATOMIC_INIT(-1);	/* the client QP's last */
static atomic_t srq_limit_events, last_wqe_events;

static int cmt_srq_events_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "srq_limit=%d last_wqe=%d\n",
			  atomic_read(&srq_limit_events),
			  atomic_read(&last_wqe_events));
}

static const struct kernel_param_ops cmt_srq_events_ops = {
	.get = cmt_srq_events_get,
};
module_param_cb(srq_events, &cmt_srq_events_ops, NULL, 0444);
MODULE_PARM_DESC(srq_events, "server srq=1: the SRQ events seen (read-only)");

static void cmt_qp_event(struct ib_event *ev, void *ctx)
{
	pr_info("xiw_cmtest: QP event %s\n", ib_event_msg(ev->event));
	atomic_set(&qp_event, ev->event);
	if (ev->event == IB_EVENT_QP_LAST_WQE_REACHED)
		atomic_inc(&last_wqe_events);
}

static void cmt_srq_event(struct ib_event *ev, void *ctx)
{
	pr_info("xiw_cmtest: SRQ event %s\n", ib_event_msg(ev->event));
	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		atomic_inc(&srq_limit_events);
}

/* srq=1: two slots' worth, armed at two, so the first receive fires. */
static int cmt_srq(struct cmt_conn *c, struct ib_qp_init_attr *qa)
{
	struct ib_srq_init_attr sa = {
		.event_handler = cmt_srq_event,
		.attr = { .max_wr = CMT_SLOTS, .max_sge = 1,
			  .srq_limit = CMT_SLOTS },
		.srq_type = IB_SRQT_BASIC,
	};

	c->srq = ib_create_srq(c->pd, &sa);
	if (IS_ERR(c->srq)) {
		int rc = PTR_ERR(c->srq);

		c->srq = NULL;
		return rc;
	}
	qa->srq = c->srq;
	qa->cap.max_recv_wr = 0;
	qa->cap.max_recv_sge = 0;
	return 0;
}

static bool pd_intact(const void *p, int len)
{
	return len >= 0 && len <= sizeof(pattern) && (!len || memcmp(p, pattern, len) == 0);
}

static int cmt_qp(struct cmt_conn *c, struct rdma_cm_id *id,
		  enum ib_poll_context poll, bool use_srq)
{
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 4, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.event_handler = cmt_qp_event,
	};
	int rc;

	c->id = id;
	c->pd = ib_alloc_pd(id->device, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(c->pd))
		return PTR_ERR(c->pd);
	c->cq = ib_alloc_cq(id->device, c, 16, 0, poll);
	if (IS_ERR(c->cq)) {
		ib_dealloc_pd(c->pd);
		return PTR_ERR(c->cq);
	}
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	rc = use_srq ? cmt_srq(c, &qa) : 0;
	rc = rc ?: rdma_create_qp(id, c->pd, &qa);
	if (rc) {
		if (c->srq)
			ib_destroy_srq(c->srq);
		c->srq = NULL;
		ib_free_cq(c->cq);
		ib_dealloc_pd(c->pd);
		return rc;
	}
	c->has_qp = true;
	return 0;
}

static void cmt_free(struct cmt_conn *c)
{
	int i;

	if (!c->has_qp)
		return;
	if (c->orphan_qp)
		ib_destroy_qp(c->orphan_qp);
	else
		rdma_destroy_qp(c->id);
	c->orphan_qp = NULL;
	if (c->srq)
		ib_destroy_srq(c->srq);
	c->srq = NULL;
	ib_free_cq(c->cq);
	ib_dealloc_pd(c->pd);
	c->has_qp = false;
	for (i = 0; i < CMT_SLOTS; i++)
		cmt_dma_free(c->slot[i].buf, CMT_BUF);
	cmt_dma_free(c->mem, CMT_BUF);
	cmt_dma_free(c->wbuf, CMT_BUF);
	for (i = 0; i < ARRAY_SIZE(c->probe_mem); i++)
		kfree(c->probe_mem[i]);
	for (i = 0; i < ARRAY_SIZE(c->data); i++) {
		cmt_dma_free(c->data[i], CMT_DATA_LEN);
		c->data[i] = NULL;
	}
	kfree(c->hello_mem);
}

static void cmt_fill(u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 31 + (i >> 9));
}

/* ---- server: echo ------------------------------------------------------- */

static int cmt_post_recv(struct cmt_slot *s)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)s->buf,
		.length = CMT_BUF,
		.lkey = s->c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &s->recv_cqe, .sg_list = &sge, .num_sge = 1,
	};

	if (s->c->srq)
		return ib_post_srq_recv(s->c->srq, &wr, NULL);
	return ib_post_recv(s->c->id->qp, &wr, NULL);
}

static void cmt_echo_sent(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cmt_slot *s = container_of(wc->wr_cqe, struct cmt_slot,
					  send_cqe);

	if (wc->status == IB_WC_SUCCESS)
		cmt_post_recv(s);
}

/* "WINV" addr rkey len seed: RDMA WRITE there, then SEND_WITH_INV rkey. */
static void cmt_winv(struct cmt_conn *c, struct cmt_slot *s)
{
	u64 addr;
	u32 v[3];
	struct ib_sge src = { .addr = (uintptr_t)c->wbuf,
			      .lkey = c->pd->local_dma_lkey };
	struct ib_sge done = { .addr = (uintptr_t)s->info, .length = 4,
			       .lkey = c->pd->local_dma_lkey };
	struct ib_send_wr inv = {
		.wr_cqe = &s->send_cqe, .sg_list = &done, .num_sge = 1,
		.opcode = IB_WR_SEND_WITH_INV, .send_flags = IB_SEND_SIGNALED,
	};
	struct ib_rdma_wr w = {
		.wr = { .sg_list = &src, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE, .next = &inv },
	};

	memcpy(&addr, s->buf + 4, 8);
	memcpy(v, s->buf + 12, 12);
	if (v[1] > CMT_BUF)
		return;
	cmt_fill(c->wbuf, v[1], v[2]);
	src.length = v[1];
	w.remote_addr = addr;
	w.rkey = v[0];
	inv.ex.invalidate_rkey = v[0];
	memcpy(s->info, "DONE", 4);
	if (ib_post_send(c->id->qp, &w.wr, NULL))
		pr_err("xiw_cmtest: WINV post_send failed\n");
}

static void cmt_echo(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cmt_slot *s = container_of(wc->wr_cqe, struct cmt_slot,
					  recv_cqe);
	struct cmt_conn *c = s->c;
	struct ib_sge sge = {
		.addr = (uintptr_t)s->buf,
		.length = wc->byte_len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &s->send_cqe, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	u64 v[2];

	if (wc->status != IB_WC_SUCCESS)
		return;		/* flushed */
	if (wc->opcode != IB_WC_RECV)
		pr_err("xiw_cmtest: receive completed as opcode %d\n",
		       wc->opcode);
	if (wc->byte_len == 24 && !memcmp(s->buf, "WINV", 4)) {
		cmt_winv(c, s);
		return;
	}
	if (wc->byte_len == 4 && !memcmp(s->buf, "INFO", 4)) {
		v[0] = (uintptr_t)c->mem;
		v[1] = (u64)c->pd->unsafe_global_rkey << 32 | CMT_BUF;
		memcpy(s->info, v, sizeof(v));
		sge.addr = (uintptr_t)s->info;
		sge.length = sizeof(s->info);
	}
	if (ib_post_send(c->id->qp, &wr, NULL))
		pr_err("xiw_cmtest: echo post_send failed\n");
}

static int cmt_serve(struct cmt_conn *c)
{
	int i, rc;

	c->mem = cmt_dma_alloc(CMT_BUF);
	c->wbuf = cmt_dma_alloc(CMT_BUF);
	if (!c->mem || !c->wbuf)
		return -ENOMEM;
	for (i = 0; i < CMT_SLOTS; i++) {
		struct cmt_slot *s = &c->slot[i];

		s->c = c;
		s->recv_cqe.done = cmt_echo;
		s->send_cqe.done = cmt_echo_sent;
		s->buf = cmt_dma_alloc(CMT_BUF);
		if (!s->buf)
			return -ENOMEM;
		rc = cmt_post_recv(s);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- client: checks ------------------------------------------------------ */

struct cmt_check {
	struct cmt_conn *c;
	u8 *out, *in, *back;	/* sent, received, read back */
	u64 raddr;
	u32 rkey;
	const char *step;
	int sends, writes, reads;
};

/* Waits for @n completions; each must succeed. */
static int cmt_wait(struct cmt_check *t, int n, struct ib_wc *wc)
{
	unsigned long end = jiffies + 20 * HZ;
	int got = 0, r, i;

	while (got < n) {
		r = ib_poll_cq(t->c->cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (got == n)
			break;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		usleep_range(50, 500);
	}
	for (i = 0; i < n; i++)
		if (wc[i].status != IB_WC_SUCCESS)
			return -EIO;
	return 0;
}

static int cmt_recv(struct cmt_check *t)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)t->in, .length = CMT_BUF,
		.lkey = t->c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(t->c->id->qp, &wr, NULL);
}

/* @len octets of t->out in up to three SGEs. */
static int cmt_sges(struct cmt_check *t, struct ib_sge *sge, u32 len)
{
	u32 cut[3] = { len / 3, len / 3, len - 2 * (len / 3) };
	int i, n = 0;
	u32 off = 0;

	for (i = 0; i < 3; i++) {
		if (!cut[i] && (n || i < 2))
			continue;
		sge[n].addr = (uintptr_t)t->out + off;
		sge[n].length = cut[i];
		sge[n].lkey = t->c->pd->local_dma_lkey;
		off += cut[i];
		n++;
	}
	return n;
}

/* SEND from three SGEs, the echo must match. */
static int cmt_send_check(struct cmt_check *t, u32 len)
{
	struct ib_sge sge[3];
	struct ib_send_wr wr = {
		.wr_id = 2, .sg_list = sge, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_wc wc[2];
	int rc, i;

	cmt_fill(t->out, len, len);
	memset(t->in, 0xee, len + 1);
	wr.num_sge = cmt_sges(t, sge, len);
	rc = cmt_recv(t) ?: ib_post_send(t->c->id->qp, &wr, NULL) ?:
	     cmt_wait(t, 2, wc);
	if (rc)
		return rc;
	for (i = 0; i < 2; i++) {
		if (wc[i].wr_id == 2 && wc[i].opcode != IB_WC_SEND)
			return -EPROTO;
		if (wc[i].wr_id == 1 && (wc[i].opcode != IB_WC_RECV ||
					 wc[i].byte_len != len))
			return -EPROTO;
	}
	if (memcmp(t->in, t->out, len) || t->in[len] != 0xee)
		return -EBADMSG;
	t->sends++;
	return 0;
}

/* Unsignaled WRITE from three SGEs, signaled READ back: they match. */
static int cmt_write_read_check(struct cmt_check *t, u32 len)
{
	struct ib_sge sge[3], back = {
		.addr = (uintptr_t)t->back, .length = len,
		.lkey = t->c->pd->local_dma_lkey,
	};
	struct ib_rdma_wr w = {
		.wr = { .wr_id = 3, .sg_list = sge, .opcode = IB_WR_RDMA_WRITE },
		.remote_addr = t->raddr, .rkey = t->rkey,
	};
	struct ib_rdma_wr r = {
		.wr = { .wr_id = 4, .sg_list = &back, .num_sge = 1,
			.opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = t->raddr, .rkey = t->rkey,
	};
	struct ib_wc wc;
	int rc;

	cmt_fill(t->out, len, len + 1);
	memset(t->back, 0xee, len + 1);
	w.wr.num_sge = cmt_sges(t, sge, len);
	w.wr.next = &r.wr;
	rc = ib_post_send(t->c->id->qp, &w.wr, NULL) ?: cmt_wait(t, 1, &wc);
	if (rc)
		return rc;
	if (wc.wr_id != 4 || wc.opcode != IB_WC_RDMA_READ || wc.byte_len != len)
		return -EPROTO;
	if (memcmp(t->back, t->out, len) || t->back[len] != 0xee)
		return -EBADMSG;
	t->writes++;
	t->reads++;
	return 0;
}

static const u32 cmt_sizes[] = { 0, 1, 4095, 4096, 65536, CMT_BUF };

static int cmt_checks(struct cmt_check *t)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)t->out, .length = 4,
		.lkey = t->c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	struct ib_wc wc[2];
	u64 v[2];
	int i, rc;

	t->step = "info";
	memcpy(t->out, "INFO", 4);
	rc = cmt_recv(t) ?: ib_post_send(t->c->id->qp, &wr, NULL) ?:
	     cmt_wait(t, 2, wc);
	if (rc)
		return rc;
	memcpy(v, t->in, sizeof(v));
	t->raddr = v[0];
	t->rkey = v[1] >> 32;
	if ((u32)v[1] != CMT_BUF)
		return -EPROTO;
	t->step = "send";
	for (i = 0; i < ARRAY_SIZE(cmt_sizes) && cmt_sizes[i] <= max_size; i++) {
		rc = cmt_send_check(t, cmt_sizes[i]);
		if (rc)
			return rc;
	}
	t->step = "write-read";
	for (i = 0; i < ARRAY_SIZE(cmt_sizes) && cmt_sizes[i] <= max_size; i++) {
		rc = cmt_write_read_check(t, cmt_sizes[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- client: FRWR ------------------------------------------------------- */

#define CMT_MR_PAGES	16

struct cmt_mr {
	struct page *page[CMT_MR_PAGES];
	struct scatterlist sg[CMT_MR_PAGES];
	struct ib_mr *mr;
};

static void cmt_mr_free(struct cmt_check *t, struct cmt_mr *m)
{
	int i;

	if (m->mr && !IS_ERR(m->mr)) {
		ib_dma_unmap_sg(t->c->id->device, m->sg, CMT_MR_PAGES,
				DMA_BIDIRECTIONAL);
		ib_dereg_mr(m->mr);
	}
	for (i = 0; i < CMT_MR_PAGES; i++)
		if (m->page[i])
			__free_page(m->page[i]);
}

/* @reg registers @m with @access under its next key, as ULPs do. */
static void cmt_reg_next_key(struct ib_reg_wr *reg, struct cmt_mr *m,
			     int access)
{
	ib_update_fast_reg_key(m->mr, ib_inc_rkey(m->mr->rkey) & 0xff);
	reg->wr.opcode = IB_WR_REG_MR;
	reg->mr = m->mr;
	reg->key = m->mr->rkey;
	reg->access = access;
}

/* Posts REG_MR for @m with @access and waits for it. */
static int cmt_mr_reg(struct cmt_check *t, struct cmt_mr *m, int access)
{
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 5, .send_flags = IB_SEND_SIGNALED },
	};
	struct ib_wc wc;
	int rc;

	cmt_reg_next_key(&reg, m, access);
	rc = ib_post_send(t->c->id->qp, &reg.wr, NULL) ?: cmt_wait(t, 1, &wc);
	if (!rc && (wc.opcode != IB_WC_REG_MR || wc.wr_id != 5))
		rc = -EPROTO;
	return rc;
}

/* 16 separate pages behind one FRWR MR, mapped and registered. */
static int cmt_mr_new(struct cmt_check *t, struct cmt_mr *m, int access)
{
	struct ib_device *dev = t->c->id->device;
	int i, n;

	sg_init_table(m->sg, CMT_MR_PAGES);
	for (i = 0; i < CMT_MR_PAGES; i++) {
		m->page[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!m->page[i])
			return -ENOMEM;
		sg_set_page(&m->sg[i], m->page[i], PAGE_SIZE, 0);
	}
	if (ib_dma_map_sg(dev, m->sg, CMT_MR_PAGES, DMA_BIDIRECTIONAL) !=
	    CMT_MR_PAGES)
		return -EIO;
	m->mr = ib_alloc_mr(t->c->pd, IB_MR_TYPE_MEM_REG, CMT_MR_PAGES);
	if (IS_ERR(m->mr))
		return PTR_ERR(m->mr);
	n = ib_map_mr_sg(m->mr, m->sg, CMT_MR_PAGES, NULL, PAGE_SIZE);
	if (n != CMT_MR_PAGES)
		return n < 0 ? n : -EIO;
	return cmt_mr_reg(t, m, access);
}

/* The MR's pages hold @len octets of pattern @seed. */
static bool cmt_mr_holds(struct cmt_mr *m, u32 len, u32 seed, u8 *tmp)
{
	int i;

	for (i = 0; i < CMT_MR_PAGES; i++)
		memcpy(tmp + i * PAGE_SIZE, page_address(m->page[i]), PAGE_SIZE);
	cmt_fill(tmp + CMT_MR_PAGES * PAGE_SIZE, len, seed);
	return !memcmp(tmp, tmp + CMT_MR_PAGES * PAGE_SIZE, len);
}

static int cmt_local_inv(struct cmt_check *t, u32 key)
{
	struct ib_send_wr wr = {
		.wr_id = 6, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED, .ex.invalidate_rkey = key,
	};
	struct ib_wc wc;
	int rc = ib_post_send(t->c->id->qp, &wr, NULL);

	if (rc)
		return rc;
	rc = cmt_wait(t, 1, &wc);
	return rc ?: wc.opcode == IB_WC_LOCAL_INV ? 0 : -EPROTO;
}

/* READ_WITH_INV into a registered sink (what svcrdma does on iWARP). */
static int cmt_read_inv(struct cmt_check *t, struct cmt_mr *m)
{
	u32 len = CMT_MR_PAGES * PAGE_SIZE;
	struct ib_sge sge = { .length = len };
	struct ib_rdma_wr r = {
		.wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_READ_WITH_INV,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = t->raddr, .rkey = t->rkey,
	};
	struct ib_wc wc;
	int rc;

	t->step = "read-inv";
	rc = cmt_mr_new(t, m, IB_ACCESS_LOCAL_WRITE);
	if (rc)
		return rc;
	/* The server's buffer holds the last WRITE: 1 MiB of seed 1 MiB + 1. */
	sge.addr = m->mr->iova;
	sge.lkey = m->mr->lkey;
	/*
	 * As rdma_rw (svcrdma) posts it: ex.invalidate_rkey holds the key
	 * the MR had before REG_MR bumped it. The RNIC invalidates the
	 * sink's STag, which REG_MR below then finds invalid.
	 */
	r.wr.ex.invalidate_rkey = m->mr->lkey ^ 1;
	rc = ib_post_send(t->c->id->qp, &r.wr, NULL) ?: cmt_wait(t, 1, &wc);
	if (rc)
		return rc;
	if (wc.opcode != IB_WC_RDMA_READ || wc.byte_len != len)
		return -EPROTO;
	if (!cmt_mr_holds(m, len, CMT_DATA_LEN, t->back))
		return -EBADMSG;
	/* REG_MR fails on a valid STag. */
	t->step = "read-inv-invalidated";
	return cmt_mr_reg(t, m, IB_ACCESS_LOCAL_WRITE) ?:
	       cmt_local_inv(t, m->mr->lkey);
}

/*
 * One chain, as a ULP may post it: REG_MR, an RDMA WRITE from the MR it
 * registers, LOCAL_INV of that MR, and a READ of what the WRITE placed.
 * Each takes effect in send queue order, so the WRITE reads the MR after
 * its registration and before its invalidation.
 */
static int cmt_sq_order(struct cmt_check *t, struct cmt_mr *m)
{
	u32 len = CMT_MR_PAGES * PAGE_SIZE;
	struct ib_sge src = { .length = len }, back = {
		.addr = (uintptr_t)t->back, .length = len,
		.lkey = t->c->pd->local_dma_lkey,
	};
	struct ib_reg_wr reg = { .wr = { .wr_id = 8 } };
	struct ib_rdma_wr w = {
		.wr = { .wr_id = 9, .sg_list = &src, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE },
		.remote_addr = t->raddr, .rkey = t->rkey,
	};
	struct ib_send_wr inv = {
		.wr_id = 10, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_rdma_wr r = {
		.wr = { .wr_id = 11, .sg_list = &back, .num_sge = 1,
			.opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = t->raddr, .rkey = t->rkey,
	};
	struct ib_wc wc[2];
	int rc, i;

	t->step = "sq-order";
	rc = cmt_mr_new(t, m, IB_ACCESS_LOCAL_WRITE) ?:
	     cmt_local_inv(t, m->mr->lkey);
	if (rc)
		return rc;
	cmt_fill(t->out, len, 99);
	for (i = 0; i < CMT_MR_PAGES; i++)
		memcpy(page_address(m->page[i]), t->out + i * PAGE_SIZE,
		       PAGE_SIZE);
	memset(t->back, 0xee, len);
	cmt_reg_next_key(&reg, m, IB_ACCESS_LOCAL_WRITE);
	src.addr = m->mr->iova;
	src.lkey = m->mr->lkey;
	inv.ex.invalidate_rkey = m->mr->lkey;
	reg.wr.next = &w.wr;
	w.wr.next = &inv;
	inv.next = &r.wr;
	rc = ib_post_send(t->c->id->qp, &reg.wr, NULL) ?: cmt_wait(t, 2, wc);
	if (rc)
		return rc;
	if (wc[0].wr_id != 10 || wc[0].opcode != IB_WC_LOCAL_INV ||
	    wc[1].wr_id != 11 || wc[1].byte_len != len)
		return -EPROTO;
	if (memcmp(t->back, t->out, len))
		return -EBADMSG;
	/* And the LOCAL_INV did invalidate it: REG_MR succeeds again. */
	t->step = "sq-order-invalidated";
	return cmt_mr_reg(t, m, IB_ACCESS_LOCAL_WRITE);
}

/* Asks the server to WRITE into @m and SEND_WITH_INV its rkey. */
static int cmt_ask_winv(struct cmt_check *t, struct cmt_mr *m, u32 seed,
			struct ib_wc *wc)
{
	unsigned long end = jiffies + 20 * HZ;
	u32 len = CMT_MR_PAGES * PAGE_SIZE;
	struct ib_sge sge = {
		.addr = (uintptr_t)t->out, .length = 24,
		.lkey = t->c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	u64 addr = m->mr->iova;
	u32 v[3] = { m->mr->rkey, len, seed };
	int rc, i, got = 0;

	memcpy(t->out, "WINV", 4);
	memcpy(t->out + 4, &addr, 8);
	memcpy(t->out + 12, v, 12);
	rc = cmt_recv(t) ?: ib_post_send(t->c->id->qp, &wr, NULL);
	if (rc)
		return rc;
	/* Whatever the outcome, both complete: sorted, the receive first. */
	while (got < 2 && time_before(jiffies, end)) {
		rc = ib_poll_cq(t->c->cq, 2 - got, wc + got);
		if (rc < 0)
			return rc;
		got += rc;
		usleep_range(50, 500);
	}
	if (got < 2)
		return -ETIMEDOUT;
	if (wc[0].wr_id != 1)
		swap(wc[0], wc[1]);
	for (i = 0; i < 2; i++)
		pr_info("xiw_cmtest: winv wc wr_id %llu status %d opcode %d flags %#x inv %#x len %u\n",
			wc[i].wr_id, wc[i].status, wc[i].opcode,
			wc[i].wc_flags, wc[i].ex.invalidate_rkey,
			wc[i].byte_len);
	return 0;
}

static int cmt_send_inv(struct cmt_check *t, struct cmt_mr *m)
{
	u32 len = CMT_MR_PAGES * PAGE_SIZE;
	struct ib_wc wc[2];
	int rc, i;

	t->step = "send-inv";
	rc = cmt_mr_new(t, m, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	if (!rc)
		rc = cmt_ask_winv(t, m, 77, wc);
	if (rc)
		return rc;
	if (wc[0].status != IB_WC_SUCCESS || wc[0].opcode != IB_WC_RECV ||
	    !(wc[0].wc_flags & IB_WC_WITH_INVALIDATE) ||
	    wc[0].ex.invalidate_rkey != m->mr->rkey || wc[0].byte_len != 4 ||
	    memcmp(t->in, "DONE", 4))
		return -EPROTO;
	if (!cmt_mr_holds(m, len, 77, t->back))
		return -EBADMSG;
	/* The rkey is invalid now: a WRITE to it must be refused. */
	t->step = "write-after-inv";
	rc = cmt_ask_winv(t, m, 78, wc);
	if (rc)
		return rc;
	if (wc[0].status != IB_WC_WR_FLUSH_ERR)
		return -EPROTO;
	if (cmt_mr_holds(m, len, 78, t->back))
		return -EBADMSG;	/* placed anyway */
	/* The consumer hears of the access violation. */
	t->step = "access-event";
	for (i = 0; i < 100 && atomic_read(&qp_event) != IB_EVENT_QP_ACCESS_ERR; i++)
		msleep(20);
	return atomic_read(&qp_event) == IB_EVENT_QP_ACCESS_ERR ? 0 : -EPROTO;
}

static int cmt_frwr_checks(struct cmt_check *t)
{
	/* Off the stack: scatterlists are large under KASAN. */
	struct cmt_mr *m = kcalloc(3, sizeof(*m), GFP_KERNEL);
	int rc, i;

	if (!m)
		return -ENOMEM;
	/* send_inv last: it ends with the QP in error. */
	rc = cmt_read_inv(t, &m[0]) ?: cmt_sq_order(t, &m[1]) ?:
	     cmt_send_inv(t, &m[2]);
	for (i = 0; i < 3; i++)
		cmt_mr_free(t, &m[i]);
	kfree(m);
	return rc;
}

static void cmt_data(void)
{
	struct cmt_check t = { .c = &client };
	int rc = -ENOMEM;

	t.out = client.data[0] = cmt_dma_alloc(CMT_DATA_LEN);
	t.in = client.data[1] = cmt_dma_alloc(CMT_DATA_LEN);
	t.back = client.data[2] = cmt_dma_alloc(CMT_DATA_LEN);
	t.step = "alloc";
	if (t.out && t.in && t.back)
		rc = cmt_checks(&t);
	if (rc)
		snprintf(result + strlen(result), sizeof(result) - strlen(result),
			 " data=fail step=%s err=%d", t.step, rc);
	else
		snprintf(result + strlen(result), sizeof(result) - strlen(result),
			 " data=ok sends=%d writes=%d reads=%d", t.sends,
			 t.writes, t.reads);
	if (!rc && frwr) {
		rc = cmt_frwr_checks(&t);
		if (rc)
			snprintf(result + strlen(result),
				 sizeof(result) - strlen(result),
				 " frwr=fail step=%s err=%d", t.step, rc);
		else
			strlcat(result, " frwr=ok", sizeof(result));
	}
}

static void server_result(void)
{
	snprintf(result, sizeof(result),
		 "requests=%d established=%d disconnected=%d rejected=%d est_failed=%d est_ird=%d est_ord=%d pd_len=%d pd_ok=%d ird=%d ord=%d est_req=%d",
		 requests, established, disconnected, rejected, est_failed,
		 est_ird, est_ord, last_pd_len, last_pd_ok, last_ird, last_ord,
		 est_req);
}

static void cmt_hello_sent(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS)
		pr_err("xiw_cmtest: HELO completed with status %d\n", wc->status);
}

/*
 * Server hello=1: a SEND posted the moment the connection is up, before
 * the client has sent anything. The responder's RNIC must hold it until
 * the initiator's first FPDU arrived (RFC 5044 section 7.1.2, fencing).
 */
static void cmt_send_hello(struct rdma_cm_id *id)
{
	struct cmt_conn *c = NULL;
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int i;

	for (i = 0; i < nserved; i++)
		if (served[i].id == id)
			c = &served[i];
	if (!c || !c->has_qp)
		return;
	memcpy(c->hello_buf, "HELO", 4);
	c->hello_cqe.done = cmt_hello_sent;
	wr.wr_cqe = &c->hello_cqe;
	sge = (struct ib_sge){ (uintptr_t)c->hello_buf, 4, c->pd->local_dma_lkey };
	if (ib_post_send(id->qp, &wr, NULL))
		pr_err("xiw_cmtest: HELO post_send failed\n");
}

/* The request a served id came with, from 1; 0 if none. Under cmt_lock. */
static int cmt_request_of(struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < nserved; i++)
		if (served[i].id == id)
			return served[i].req;
	return 0;
}

static int server_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rdma_conn_param cp = {};
	struct cmt_conn *c;
	int rc, destroy = 0;

	pr_info("xiw_cmtest: server event %s (%d)\n", rdma_event_msg(ev->event),
		ev->status);
	mutex_lock(&cmt_lock);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (req_delay_ms)
			msleep(req_delay_ms);
		requests++;
		last_pd_len = ev->param.conn.private_data_len;
		last_pd_ok = pd_intact(ev->param.conn.private_data, last_pd_len);
		last_ird = ev->param.conn.responder_resources;
		last_ord = ev->param.conn.initiator_depth;
		if (READ_ONCE(reject) || nserved == ARRAY_SIZE(served)) {
			rejected++;
			rdma_reject(id, pattern, pd_len,
				    IB_CM_REJ_CONSUMER_DEFINED);
			destroy = 1;	/* rdma_cm destroys the id */
			break;
		}
		c = &served[nserved++];
		c->req = requests;
		rc = cmt_qp(c, id, IB_POLL_WORKQUEUE, srq) ?: cmt_serve(c);
		if (rc) {
			pr_err("xiw_cmtest: server QP: %d\n", rc);
			break;
		}
		cp.private_data = pattern;
		cp.private_data_len = pd_len;
		cp.responder_resources = min_t(int, ird, ev->param.conn.responder_resources);
		cp.initiator_depth = min_t(int, ord, ev->param.conn.initiator_depth);
		rc = rdma_accept(id, &cp);
		if (rc)
			pr_err("xiw_cmtest: accept: %d\n", rc);
		/* iw_cm allows it until ESTABLISHED: a peer-to-peer RTR wait. */
		if (!rc && reject_after_accept) {
			rejected++;
			rc = rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
			if (rc)
				pr_err("xiw_cmtest: reject after accept: %d\n", rc);
			/*
			 * iw_cm keeps the QP it took at accept until the id is
			 * destroyed: the id goes first (rdma_cm destroys it as
			 * we return 1), the QP at module exit.
			 */
			c->orphan_qp = id->qp;
			c->id = NULL;
			destroy = 1;
		}
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		/* A failure after a successful accept comes this way too. */
		if (ev->status) {
			est_failed++;
			break;
		}
		established++;
		est_req = cmt_request_of(id);
		est_ird = ev->param.conn.responder_resources;
		est_ord = ev->param.conn.initiator_depth;
		if (hello)
			cmt_send_hello(id);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		disconnected++;
		rdma_disconnect(id);
		break;
	default:
		break;
	}
	server_result();
	mutex_unlock(&cmt_lock);
	return destroy;
}

/* ---- client: probe (a hostile peer's target) ----------------------------- */

#define CMT_PROBE_LEN	64

/* @len octets of @p as runs, "A16B16": letters as they are, others '?'. */
static void cmt_runs(char *out, size_t size, const u8 *p, u32 len)
{
	size_t n = 0;
	u32 i = 0, j;
	char ch;

	out[0] = 0;
	while (i < len && n + 16 < size) {
		ch = p[i] >= 'A' && p[i] <= 'Z' ? p[i] : '?';
		for (j = i; j < len && p[j] == p[i]; j++)
			;
		n += scnprintf(out + n, size - n, "%c%u", ch, j - i);
		i = j;
	}
}

/*
 * One receive of 64 octets, a SEND telling the peer where 64 octets of
 * 'S' may be read (address, rkey, length), and a READ of 64 octets from
 * the peer's STag 0x1234 at 0; with probe_flood=K, a second later a
 * WRITE of K KiB to that STag. Then whatever completes within 10 s (4 s
 * with a WRITE: its peer waits 5 s to show that nothing waits for it):
 * " probe send=S recv=S:LEN:RUNS read=S:RUNS[ write=S]" (S: the status,
 * or -1).
 */
static void cmt_probe(void)
{
	struct cmt_conn *c = &client;
	u8 *in = kzalloc(CMT_PROBE_LEN, GFP_KERNEL);
	u8 *back = kmalloc(CMT_PROBE_LEN, GFP_KERNEL);
	u8 *mem = kmalloc(CMT_PROBE_LEN, GFP_KERNEL);
	u64 *info = kmalloc(16, GFP_KERNEL);
	u32 flood = min(probe_flood, 1024U) * 1024;
	u8 *fmem = flood ? kmalloc(flood, GFP_KERNEL) : NULL;
	struct ib_sge rs, ss, bs, fs;
	struct ib_recv_wr rw = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 };
	struct ib_send_wr sw = {
		.wr_id = 2, .sg_list = &ss, .num_sge = 1, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_rdma_wr r = {
		.wr = { .wr_id = 3, .sg_list = &bs, .num_sge = 1,
			.opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = 0, .rkey = 0x1234,
	};
	struct ib_rdma_wr f = {
		.wr = { .wr_id = 4, .sg_list = &fs, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = 0, .rkey = 0x1234,
	};
	int st[5] = { -1, -1, -1, -1, -1 }, got = 0, want = flood ? 4 : 3, n;
	unsigned long end = jiffies + (flood ? 4 : 10) * HZ;
	char in_runs[40], back_runs[40];
	u32 in_len = 0;
	struct ib_wc wc;

	if (!in || !back || !mem || !info || (flood && !fmem)) {
		strlcat(result, " probe=nomem", sizeof(result));
		goto out;
	}
	memset(back, 0xee, CMT_PROBE_LEN);
	memset(mem, 'S', CMT_PROBE_LEN);
	info[0] = (uintptr_t)mem;
	info[1] = (u64)c->pd->unsafe_global_rkey << 32 | CMT_PROBE_LEN;
	rs = (struct ib_sge){ (uintptr_t)in, CMT_PROBE_LEN, c->pd->local_dma_lkey };
	ss = (struct ib_sge){ (uintptr_t)info, 16, c->pd->local_dma_lkey };
	bs = (struct ib_sge){ (uintptr_t)back, CMT_PROBE_LEN, c->pd->local_dma_lkey };
	sw.next = &r.wr;
	if (ib_post_recv(c->id->qp, &rw, NULL) || ib_post_send(c->id->qp, &sw, NULL)) {
		strlcat(result, " probe=post", sizeof(result));
		goto out;
	}
	if (flood) {
		/* A second later: the peer has read the SEND and READ by then. */
		msleep(1000);
		memset(fmem, 'F', flood);
		fs = (struct ib_sge){ (uintptr_t)fmem, flood, c->pd->local_dma_lkey };
		if (ib_post_send(c->id->qp, &f.wr, NULL)) {
			strlcat(result, " probe=post", sizeof(result));
			goto out;
		}
	}
	while (got < want && time_before(jiffies, end)) {
		n = ib_poll_cq(c->cq, 1, &wc);
		if (n <= 0) {
			usleep_range(1000, 2000);
			continue;
		}
		got++;
		if (wc.wr_id >= 1 && wc.wr_id <= 4)
			st[wc.wr_id] = wc.status;
		if (wc.wr_id == 1 && wc.status == IB_WC_SUCCESS)
			in_len = min_t(u32, wc.byte_len, CMT_PROBE_LEN);
	}
	cmt_runs(in_runs, sizeof(in_runs), in, in_len);
	cmt_runs(back_runs, sizeof(back_runs), back, CMT_PROBE_LEN);
	snprintf(result + strlen(result), sizeof(result) - strlen(result),
		 " probe send=%d recv=%d:%u:%s read=%d:%s", st[2], st[1],
		 in_len, in_runs, st[3], back_runs);
	if (flood)
		snprintf(result + strlen(result), sizeof(result) - strlen(result),
			 " write=%d", st[4]);
out:
	/* The QP may still place into these until it is gone: keep them. */
	c->probe_mem[0] = in;
	c->probe_mem[1] = back;
	c->probe_mem[2] = mem;
	c->probe_mem[3] = info;
	c->probe_mem[4] = fmem;
}

/*
 * Client hello=1, against a server with hello=1: two receives, 2 s in
 * which nothing may arrive (the server's HELO waits for our first FPDU),
 * then a SEND "PING": HELO must come, then PING's echo.
 * " hello=ok", or " hello=early" or " hello=fail step=S".
 */
static void cmt_hello(void)
{
	struct cmt_conn *c = &client;
	u8 *buf = kzalloc(3 * 16, GFP_KERNEL);
	struct ib_sge rs[2], ss;
	struct ib_recv_wr rw[2] = {
		{ .wr_id = 1, .sg_list = &rs[0], .num_sge = 1, .next = &rw[1] },
		{ .wr_id = 2, .sg_list = &rs[1], .num_sge = 1 },
	};
	struct ib_send_wr sw = {
		.wr_id = 3, .sg_list = &ss, .num_sge = 1, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	unsigned long end = jiffies + 2 * HZ;
	struct cmt_check t = { .c = c };
	const char *step = "post";
	struct ib_wc wc[3];
	int i;

	if (!buf)
		goto fail;
	for (i = 0; i < 2; i++)
		rs[i] = (struct ib_sge){ (uintptr_t)buf + 16 * i, 16, c->pd->local_dma_lkey };
	memcpy(buf + 32, "PING", 4);
	ss = (struct ib_sge){ (uintptr_t)buf + 32, 4, c->pd->local_dma_lkey };
	if (ib_post_recv(c->id->qp, rw, NULL))
		goto fail;
	while (time_before(jiffies, end)) {
		if (ib_poll_cq(c->cq, 1, wc) > 0) {
			strlcat(result, " hello=early", sizeof(result));
			goto out;
		}
		usleep_range(5000, 10000);
	}
	step = "send";
	if (ib_post_send(c->id->qp, &sw, NULL))
		goto fail;
	step = "wait";
	if (cmt_wait(&t, 3, wc))
		goto fail;
	step = "data";
	if (!memcmp(buf, "HELO", 4) && !memcmp(buf + 16, "PING", 4)) {
		strlcat(result, " hello=ok", sizeof(result));
		goto out;
	}
fail:
	snprintf(result + strlen(result), sizeof(result) - strlen(result),
		 " hello=fail step=%s", step);
out:
	c->hello_mem = buf;
}

static int client_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rdma_conn_param cp = {};
	int rc = 0;

	pr_info("xiw_cmtest: client event %s (%d)\n", rdma_event_msg(ev->event),
		ev->status);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		rc = rdma_resolve_route(id, 5000);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rc = cmt_qp(&client, id, IB_POLL_DIRECT, false);
		if (rc)
			break;
		cp.private_data = pattern;
		cp.private_data_len = pd_len;
		cp.responder_resources = ird;
		cp.initiator_depth = ord;
		rc = rdma_connect_locked(id, &cp);	/* inside the handler */
		pr_info("xiw_cmtest: connect: %d\n", rc);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		snprintf(result, sizeof(result),
			 "established ird=%d ord=%d pd_len=%d pd_ok=%d",
			 ev->param.conn.responder_resources,
			 ev->param.conn.initiator_depth,
			 ev->param.conn.private_data_len,
			 pd_intact(ev->param.conn.private_data,
				   ev->param.conn.private_data_len));
		complete(&client_done);
		break;
	case RDMA_CM_EVENT_REJECTED:
		snprintf(result, sizeof(result),
			 "rejected status=%d pd_len=%d pd_ok=%d",
			 ev->status, ev->param.conn.private_data_len,
			 pd_intact(ev->param.conn.private_data,
				   ev->param.conn.private_data_len));
		complete(&client_done);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		strlcat(result, " disconnected=1", sizeof(result));
		break;
	default:
		snprintf(result, sizeof(result), "error=%d event=%s",
			 ev->status, rdma_event_msg(ev->event));
		complete(&client_done);
		break;
	}
	if (rc) {
		snprintf(result, sizeof(result), "error=%d", rc);
		complete(&client_done);
	}
	return 0;
}

static int cmt_sockaddr(struct sockaddr_in *sin)
{
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	return in4_pton(addr, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL) ? 0 : -EINVAL;
}

/*
 * Client abort_ms: a ULP that gives up on a connect destroys its QP; the
 * connect must end soon after (within 8 s here), not at the Reply timeout.
 * Returns whether it ended.
 */
static bool cmt_give_up(void)
{
	if (!abort_ms)
		return false;
	pr_info("xiw_cmtest: not connected after %u ms: QP destroyed\n",
		abort_ms);
	cmt_free(&client);
	return wait_for_completion_timeout(&client_done, 8 * HZ);
}

static int __init cmt_init(void)
{
	struct sockaddr_in sin = {};
	struct rdma_cm_id *id;
	bool done = true;
	int i, rc;

	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = i * 7 + 1;
	if (pd_len < 0 || pd_len > sizeof(pattern))
		return -EINVAL;
	rc = cmt_sockaddr(&sin);
	if (rc)
		return rc;
	if (!strcmp(role, "server")) {
		id = rdma_create_id(&init_net, server_handler, NULL,
				    RDMA_PS_TCP, IB_QPT_RC);
		if (IS_ERR(id))
			return PTR_ERR(id);
		rc = rdma_bind_addr(id, (struct sockaddr *)&sin);
		if (!rc)
			rc = rdma_listen(id, backlog);
		if (rc) {
			pr_err("xiw_cmtest: listen %pISpc: %d\n", &sin, rc);
			rdma_destroy_id(id);
			return rc;
		}
		listen_id = id;
		server_result();
		return 0;
	}
	id = rdma_create_id(&init_net, client_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	client.id = id;
	rc = rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 5000);
	if (rc) {
		pr_err("xiw_cmtest: resolve_addr %pISpc: %d\n", &sin, rc);
		rdma_destroy_id(id);
		return rc;
	}
	if (!wait_for_completion_timeout(&client_done, abort_ms ?
					 msecs_to_jiffies(abort_ms) : 30 * HZ))
		done = cmt_give_up();
	if (!done)
		strscpy(result, "timeout", sizeof(result));
	else if (!strncmp(result, "established", 11)) {
		if (hello)
			cmt_hello();
		if (data)
			cmt_data();
		else if (probe)
			cmt_probe();
	}
	return 0;
}

static void __exit cmt_exit(void)
{
	int i;

	if (listen_id)
		rdma_destroy_id(listen_id);
	for (i = 0; i < nserved; i++) {
		if (served[i].id)
			rdma_disconnect(served[i].id);
		cmt_free(&served[i]);
		if (served[i].id)
			rdma_destroy_id(served[i].id);
	}
	if (client.id) {
		rdma_disconnect(client.id);
		cmt_free(&client);
		rdma_destroy_id(client.id);
	}
}

module_init(cmt_init);
module_exit(cmt_exit);
MODULE_DESCRIPTION("rdma_cm test client for the xiw VM tests");
MODULE_LICENSE("GPL");
