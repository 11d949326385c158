// SPDX-License-Identifier: GPL-2.0
/*
 * xiw_pattern: a user-space RDMA pattern checker over librdmacm and
 * libibverbs, for the VM tests. It runs on any iWARP device the
 * distribution's providers drive (xiw and upstream siw alike).
 *
 *   xiw_pattern -s ADDR [-p PORT] [-q] serve one connection
 *   xiw_pattern -c ADDR [-p PORT] [-t SECONDS]
 *                                      connect and check (-t: repeat the
 *                                      checks until SECONDS have passed)
 *
 * The server registers a 1 MiB buffer open to remote reads and writes and,
 * once the client has said "HELLO", sends its address, rkey and length
 * ("INFO"), then echoes every SEND it receives until "DONE". The client
 * speaks first because an MPA responder in client-server mode may not send
 * before the initiator has (RFC 5044 startup rules, "MPA fencing"). Then, for
 * each size 0, 1, 4095, 4096, 65536 and 1 MiB, the client:
 *
 *   - SENDs a pattern from three SGEs and checks the echo byte for byte
 *     (IBV_WC_SEND for its SEND; IBV_WC_RECV with byte_len == size);
 *   - for sizes up to the QP's inline limit, does the same with an
 *     inline SEND;
 *   - RDMA WRITEs another pattern from three SGEs, unsignaled, then RDMA
 *     READs it back, signaled, and checks it byte for byte: the READ must
 *     be the only completion (IBV_WC_RDMA_READ, byte_len == size).
 *
 * The client disconnects once its "DONE" has completed; the server waits
 * for that (a posted receive flushes) rather than closing first, which
 * could flush the client's last SEND before its RNIC completed it; then
 * it disconnects too, which must succeed (both sides may disconnect).
 *
 * Every completion's status, opcode, wr_id and byte_len are checked. It
 * prints "ok sends=N inline=N writes=N reads=N" and exits 0, or names the
 * failing step and exits 1.
 *
 * With -q the server's QP takes its receives from a shared receive queue
 * holding both receive buffers, armed with a limit of two. It checks that
 * an out-of-range limit is refused, that the first receive raises IBV_EVENT_SRQ_LIMIT_REACHED once
 * and no more, and that the QP reports IBV_EVENT_QP_LAST_WQE_REACHED once
 * the connection is gone.
 */
#include <fcntl.h>
#include <poll.h>
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define BUF_LEN (1u << 20)
#define SLOTS 2
#define INLINE_MAX 64

struct info {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

struct peer {
	struct rdma_cm_id *id;
	uint8_t *rx[SLOTS], *out, *back;
	struct ibv_mr *rx_mr[SLOTS], *out_mr, *back_mr;
	uint32_t max_inline;
	struct ibv_pd *pd;
	struct ibv_srq *srq;	/* -q: the server's receives come from here */
};

static const char *step = "setup";

static int fail(const char *what, int err)
{
	fprintf(stderr, "FAIL step=%s: %s (%d)\n", step, what, err);
	return 1;
}

static void pattern(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)((i * 31 + seed * 7 + (i >> 8)) & 0xff);
}

static uint8_t *buffer(struct peer *p, struct ibv_mr **mr, int access)
{
	void *b;

	if (posix_memalign(&b, 4096, BUF_LEN + 4096))
		return NULL;
	memset(b, 0, BUF_LEN + 4096);
	*mr = ibv_reg_mr(p->pd, b, BUF_LEN + 4096, access);
	return *mr ? b : NULL;
}

static int post_recv(struct peer *p, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->rx[slot],
		.length = BUF_LEN + 4096,
		.lkey = p->rx_mr[slot]->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (p->srq)
		return ibv_post_srq_recv(p->srq, &wr, &bad);
	return ibv_post_recv(p->id->qp, &wr, &bad);
}

/* The next asynchronous event of @type within @ms milliseconds (0: only
 * one already queued); any other event is a failure. */
static int async_event(struct peer *p, enum ibv_event_type type, int ms)
{
	struct pollfd pfd = { .fd = p->id->verbs->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int got;

	fcntl(pfd.fd, F_SETFL, fcntl(pfd.fd, F_GETFL) | O_NONBLOCK);
	if (poll(&pfd, 1, ms) != 1 || ibv_get_async_event(p->id->verbs, &ev))
		return -1;
	got = ev.event_type;
	ibv_ack_async_event(&ev);
	if (got != (int)type) {
		fprintf(stderr, "event %s, want %s\n", ibv_event_type_str(got),
			ibv_event_type_str(type));
		return fail("unexpected async event", got);
	}
	return 0;
}

/* -q, once the connection is gone: in ERROR the QP takes no more receives
 * from the SRQ and says so, once; the limit, disarmed when it fired, has
 * raised nothing since. */
static int srq_done(struct peer *p)
{
	struct pollfd pfd = { .fd = p->id->verbs->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int type;

	step = "srq-events";
	for (;;) {
		if (poll(&pfd, 1, 10000) != 1 || ibv_get_async_event(p->id->verbs, &ev))
			return fail("no LAST_WQE_REACHED", errno);
		type = ev.event_type;
		ibv_ack_async_event(&ev);
		if (type == IBV_EVENT_QP_LAST_WQE_REACHED)
			break;
		fprintf(stderr, "event %s\n", ibv_event_type_str(type));
		if (type == IBV_EVENT_SRQ_LIMIT_REACHED)
			return fail("a second SRQ limit event", 0);
	}
	if (poll(&pfd, 1, 1000) == 1)
		return fail("an event after LAST_WQE_REACHED", 0);
	return 0;
}

/* -q: the QP on a shared receive queue of SLOTS entries, on our own PD. */
static int srq_qp(struct peer *p)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = SLOTS, .max_sge = 1 } };
	/* max_recv_wr makes rdma_create_qp() create a receive CQ; the
	 * QP itself has no receive queue. */
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_send_sge = 3,
			 .max_recv_wr = SLOTS, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	step = "srq";
	p->pd = ibv_alloc_pd(p->id->verbs);
	p->srq = p->pd ? ibv_create_srq(p->pd, &sa) : NULL;
	if (!p->srq || sa.attr.max_wr < SLOTS)
		return fail("ibv_create_srq", errno);
	qa.srq = p->srq;
	/* ibv_post_recv() to this QP is not tried: the siw provider
	 * indexes the QP's absent receive ring (a division by zero). */
	if (rdma_create_qp(p->id, p->pd, &qa))
		return fail("rdma_create_qp on the SRQ", errno);
	return 0;
}

/* -q: arm the limit at SLOTS with SLOTS posted; too high a limit fails.
 * (The siw provider has no ibv_query_srq.) */
static int srq_arm(struct peer *p)
{
	struct ibv_srq_attr a = { .srq_limit = 1u << 20 };

	if (!ibv_modify_srq(p->srq, &a, IBV_SRQ_LIMIT))
		return fail("an SRQ limit above max_wr was accepted", 0);
	a.srq_limit = SLOTS;
	if (ibv_modify_srq(p->srq, &a, IBV_SRQ_LIMIT))
		return fail("ibv_modify_srq", errno);
	return 0;
}

#define ANY_WR UINT64_MAX

/* The next completion of the send or receive queue, which must be @opcode
 * for @wr_id (ANY_WR: any) with @len bytes (len < 0: any). */
static int expect(struct peer *p, int send, enum ibv_wc_opcode opcode,
		  uint64_t wr_id, long len, struct ibv_wc *wc)
{
	int n = send ? rdma_get_send_comp(p->id, wc) : rdma_get_recv_comp(p->id, wc);

	if (n != 1)
		return fail("no completion", errno);
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "status %s\n", ibv_wc_status_str(wc->status));
		return fail("completion status", wc->status);
	}
	if (wc->opcode != opcode)
		return fail("completion opcode", wc->opcode);
	if (wr_id != ANY_WR && wc->wr_id != wr_id)
		return fail("completion wr_id", (int)wc->wr_id);
	if (len >= 0 && wc->byte_len != (uint32_t)len) {
		fprintf(stderr, "byte_len %u, want %ld\n", wc->byte_len, len);
		return fail("completion byte_len", (int)wc->byte_len);
	}
	return 0;
}

/* Splits [buf, buf + len) into three SGEs (fewer for short buffers). */
static int three_sges(struct ibv_sge *sge, uint8_t *buf, size_t len, uint32_t lkey)
{
	size_t cut[4] = { 0, len / 3, 2 * len / 3, len };
	int n = 0;

	for (int i = 0; i < 3; i++) {
		if (cut[i + 1] == cut[i])
			continue;
		sge[n].addr = (uintptr_t)(buf + cut[i]);
		sge[n].length = cut[i + 1] - cut[i];
		sge[n].lkey = lkey;
		n++;
	}
	return n;
}

static int post_send(struct peer *p, enum ibv_wr_opcode op, uint8_t *buf, size_t len,
		     uint32_t lkey, unsigned int flags, uint64_t wr_id,
		     const struct info *remote)
{
	struct ibv_sge sge[3];
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = sge, .opcode = op, .send_flags = flags,
	}, *bad;

	wr.num_sge = three_sges(sge, buf, len, lkey);
	if (remote) {
		wr.wr.rdma.remote_addr = remote->addr;
		wr.wr.rdma.rkey = remote->rkey;
	}
	return ibv_post_send(p->id->qp, &wr, &bad);
}

static int alloc_buffers(struct peer *p, int remote)
{
	int lw = IBV_ACCESS_LOCAL_WRITE;

	for (int i = 0; i < SLOTS; i++) {
		p->rx[i] = buffer(p, &p->rx_mr[i], lw);
		if (!p->rx[i] || post_recv(p, i))
			return fail("receive buffers", errno);
	}
	p->out = buffer(p, &p->out_mr, remote ?
			lw | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ : lw);
	p->back = buffer(p, &p->back_mr, lw);
	if (!p->out || !p->back)
		return fail("buffers", errno);
	return 0;
}

/* A connected endpoint's QP comes with it unless it is a server on an SRQ. */
static struct rdma_cm_id *endpoint(const char *addr, const char *port, int passive,
				   struct peer *p, int with_qp)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 16, .max_recv_wr = SLOTS,
			 .max_send_sge = 3, .max_recv_sge = 1,
			 .max_inline_data = INLINE_MAX },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_cm_id *id;

	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &res)) {
		fail("rdma_getaddrinfo", errno);
		return NULL;
	}
	if (rdma_create_ep(&id, res, NULL, with_qp ? &attr : NULL)) {
		fail("rdma_create_ep", errno);
		id = NULL;
	}
	rdma_freeaddrinfo(res);
	p->max_inline = attr.cap.max_inline_data;
	return id;
}

/* The peer's disconnect moves our QP to ERROR: a posted receive flushes. */
static int await_flush(struct peer *p)
{
	struct ibv_wc wc;

	step = "disconnect";
	if (rdma_get_recv_comp(p->id, &wc) != 1)
		return fail("no completion", errno);
	if (wc.status != IBV_WC_WR_FLUSH_ERR)
		return fail("receive completed, not flushed", wc.status);
	return 0;
}

static int serve(const char *addr, const char *port, int use_srq)
{
	struct rdma_conn_param param = { .responder_resources = 4, .initiator_depth = 4 };
	struct peer p = {};
	struct rdma_cm_id *listen_id = endpoint(addr, port, 1, &p, !use_srq);
	struct info *info;
	struct ibv_wc wc;
	int echoes = 0;

	if (!listen_id)
		return 1;
	step = "listen";
	if (rdma_listen(listen_id, 1) || rdma_get_request(listen_id, &p.id))
		return fail("rdma_listen/rdma_get_request", errno);
	if (use_srq ? srq_qp(&p) : !(p.pd = p.id->pd))
		return 1;
	if (alloc_buffers(&p, 1) || (use_srq && srq_arm(&p)))
		return 1;
	step = "accept";
	if (rdma_accept(p.id, &param))
		return fail("rdma_accept", errno);
	step = "hello";
	if (expect(&p, 0, IBV_WC_RECV, ANY_WR, 5, &wc))
		return 1;
	if (memcmp(p.rx[wc.wr_id], "HELLO", 5))
		return fail("hello", 0);
	/* One of two taken: below the limit of two. */
	if (use_srq && async_event(&p, IBV_EVENT_SRQ_LIMIT_REACHED, 5000))
		return fail("no SRQ limit event", errno);
	if (post_recv(&p, (int)wc.wr_id))
		return fail("hello", errno);
	step = "info";
	info = (struct info *)p.back;
	info->addr = htobe64((uintptr_t)p.out);
	info->rkey = htonl(p.out_mr->rkey);
	info->len = htonl(BUF_LEN);
	if (post_send(&p, IBV_WR_SEND, p.back, sizeof(*info), p.back_mr->lkey,
		      IBV_SEND_SIGNALED, 1, NULL) ||
	    expect(&p, 1, IBV_WC_SEND, 1, -1, &wc))
		return 1;
	step = "echo";
	for (;;) {
		int slot;
		uint32_t len;

		if (expect(&p, 0, IBV_WC_RECV, ANY_WR, -1, &wc))
			return 1;
		slot = (int)wc.wr_id;
		len = wc.byte_len;
		if (len == 4 && !memcmp(p.rx[slot], "DONE", 4))
			break;
		if (post_send(&p, IBV_WR_SEND, p.rx[slot], len, p.rx_mr[slot]->lkey,
			      IBV_SEND_SIGNALED, 2, NULL) ||
		    expect(&p, 1, IBV_WC_SEND, 2, -1, &wc) || post_recv(&p, slot))
			return fail("echo", errno);
		echoes++;
	}
	/* The client disconnects: were we first, our close could flush
	 * its DONE before its RNIC completed it. */
	if (use_srq ? srq_done(&p) : await_flush(&p))
		return 1;
	/* Both sides may disconnect; ours comes after the peer's and must
	 * still succeed (librdmacm first moves an iWARP QP to SQD). */
	step = "disconnect";
	if (rdma_disconnect(p.id))
		return fail("rdma_disconnect after the peer's", errno);
	printf("ok echoes=%d%s\n", echoes, use_srq ? " srq-limit-event last-wqe" : "");
	return 0;
}

/* SEND @len pattern bytes (inline or from three SGEs); check the echo. */
static int check_send(struct peer *p, size_t len, uint32_t seed, int inl)
{
	struct ibv_wc wc;
	int slot;

	pattern(p->out, len, seed);
	if (post_send(p, IBV_WR_SEND, p->out, len, p->out_mr->lkey,
		      IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0), seed, NULL))
		return fail("post SEND", errno);
	if (expect(p, 1, IBV_WC_SEND, seed, -1, &wc) ||
	    expect(p, 0, IBV_WC_RECV, ANY_WR, (long)len, &wc))
		return 1;
	slot = (int)wc.wr_id;
	if (memcmp(p->rx[slot], p->out, len))
		return fail("echo differs", (int)len);
	return post_recv(p, slot) ? fail("post receive", errno) : 0;
}

/* Unsignaled RDMA WRITE of @len pattern bytes from three SGEs, read back by
 * a signaled RDMA READ: the READ must be the only completion. */
static int check_write_read(struct peer *p, size_t len, uint32_t seed,
			    const struct info *remote)
{
	struct ibv_sge sge = { .addr = (uintptr_t)p->back, .length = len,
			       .lkey = p->back_mr->lkey };
	struct ibv_send_wr rd = {
		.wr_id = seed, .sg_list = &sge, .num_sge = len ? 1 : 0,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	pattern(p->out, len, seed);
	memset(p->back, 0xa5, len + 1);
	rd.wr.rdma.remote_addr = remote->addr;
	rd.wr.rdma.rkey = remote->rkey;
	if (post_send(p, IBV_WR_RDMA_WRITE, p->out, len, p->out_mr->lkey, 0,
		      seed + 1, remote) ||
	    ibv_post_send(p->id->qp, &rd, &bad))
		return fail("post WRITE/READ", errno);
	if (expect(p, 1, IBV_WC_RDMA_READ, seed, (long)len, &wc))
		return 1;
	if (memcmp(p->back, p->out, len))
		return fail("read back differs", (int)len);
	if (p->back[len] != 0xa5)
		return fail("READ placed past its end", (int)len);
	return 0;
}

/* Seconds since @t0. */
static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int check(const char *addr, const char *port, double min_secs)
{
	struct timespec t0;
	static const size_t sizes[] = { 0, 1, 4095, 4096, 65536, BUF_LEN };
	struct rdma_conn_param param = { .responder_resources = 4, .initiator_depth = 4 };
	int sends = 0, inl = 0, writes = 0, rc = 0;
	struct peer p = {};
	struct info remote;
	struct ibv_wc wc;

	p.id = endpoint(addr, port, 0, &p, 1);
	if (p.id)
		p.pd = p.id->pd;
	if (!p.id || alloc_buffers(&p, 0))
		return 1;
	step = "connect";
	if (rdma_connect(p.id, &param))
		return fail("rdma_connect", errno);
	step = "hello";
	memcpy(p.out, "HELLO", 5);
	if (post_send(&p, IBV_WR_SEND, p.out, 5, p.out_mr->lkey, IBV_SEND_SIGNALED, 8, NULL) ||
	    expect(&p, 1, IBV_WC_SEND, 8, -1, &wc))
		return 1;
	step = "info";
	if (expect(&p, 0, IBV_WC_RECV, ANY_WR, sizeof(remote), &wc))
		return 1;
	memcpy(&remote, p.rx[wc.wr_id], sizeof(remote));
	remote.addr = be64toh(remote.addr);
	remote.rkey = ntohl(remote.rkey);
	remote.len = ntohl(remote.len);
	if (remote.len < BUF_LEN || post_recv(&p, (int)wc.wr_id))
		return fail("info", (int)remote.len);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int round = 0; !rc && (!round || since(&t0) < min_secs); round++)
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && !rc; i++) {
		size_t len = sizes[i];
		uint32_t seed = 100 * round + 10 * (uint32_t)i + 10;

		step = "send";
		rc = check_send(&p, len, seed, 0);
		sends += !rc;
		if (!rc && len <= p.max_inline) {
			step = "inline-send";
			rc = check_send(&p, len, seed + 3, 1);
			inl += !rc;
		}
		if (!rc) {
			step = "write-read";
			rc = check_write_read(&p, len, seed + 5, &remote);
			writes += !rc;
		}
		if (rc)
			fprintf(stderr, "size %zu\n", len);
	}
	if (rc)
		return 1;
	step = "done";
	memcpy(p.out, "DONE", 4);
	if (post_send(&p, IBV_WR_SEND, p.out, 4, p.out_mr->lkey, IBV_SEND_SIGNALED, 9, NULL) ||
	    expect(&p, 1, IBV_WC_SEND, 9, -1, &wc))
		return 1;
	rdma_disconnect(p.id);
	printf("ok sends=%d inline=%d writes=%d reads=%d\n", sends, inl, writes, writes);
	return 0;
}

int main(int argc, char **argv)
{
	const char *server = NULL, *client = NULL, *port = "7474";
	double min_secs = 0;
	int c, use_srq = 0;

	while ((c = getopt(argc, argv, "s:c:p:qt:")) != -1) {
		switch (c) {
		case 's': server = optarg; break;
		case 'c': client = optarg; break;
		case 'p': port = optarg; break;
		case 'q': use_srq = 1; break;
		case 't': min_secs = atof(optarg); break;
		default: goto usage;
		}
	}
	if (!server == !client)
		goto usage;
	if ((use_srq && !server) || (min_secs && !client))
		goto usage;
	return server ? serve(server, port, use_srq) : check(client, port, min_secs);
usage:
	fprintf(stderr, "usage: %s -s ADDR [-q] | -c ADDR [-p PORT] [-t SECONDS]\n", argv[0]);
	return 2;
}
