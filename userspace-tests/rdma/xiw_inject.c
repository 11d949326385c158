// SPDX-License-Identifier: GPL-2.0
/*
 * xiw_inject: the verbs and connection calls of an unprivileged process,
 * each round under the kernel's failslab (scripts/vm/tests/inject.sh sets
 * it up, with task-filter on), for the VM tests.
 *
 *   xiw_inject -d DEV -c ADDR [-p PORT] [-n ROUNDS]
 *
 * Each round marks this task (/proc/self/make-it-fail), then allocates a
 * PD, a CQ, a 64 KiB MR open to remote access, an SRQ, a QP on the SRQ and
 * one of its own, and connects to ADDR:PORT through rdma_cm with a QP and
 * CQs of rdma_create_qp()'s making (an rping server, which sees the
 * connection go away again), then destroys all of it in reverse, and
 * unmarks. Any call may fail; each failure is counted
 * by step and errno. A connection event that does not come within 20 s is
 * a hang. Nothing is printed while marked: the VM's files are 9p, whose
 * client does not survive allocation failures of its own.
 *
 * Afterwards one round runs unmarked and must succeed whole. Prints one
 * line per step ("step ok=N failed=N [errno:count ...]"), then "hangs=N"
 * and exits 0 if that last round succeeded and nothing hung, else 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

enum step { PD, CQ, MR, SRQ, QP, QP_SRQ, CM_ID, ADDR, ROUTE, CM_QP, CONNECT,
	    STEPS };

static const char *const names[STEPS] = {
	"alloc_pd", "create_cq", "reg_mr", "create_srq", "create_qp",
	"create_qp_srq", "create_id", "resolve_addr", "resolve_route",
	"rdma_create_qp", "connect",
};

struct tally {
	unsigned int ok, failed, err[135];
};

static struct tally tally[STEPS];
static unsigned int hangs;
static int mark_fd = -1;

static void mark(int on)
{
	if (pwrite(mark_fd, on ? "1" : "0", 1, 0) != 1) {
		perror("make-it-fail");
		exit(2);
	}
}

/* Records step @s: @ok, or failed with errno @e. Returns @ok. */
static int note(enum step s, int ok, int e)
{
	if (ok) {
		tally[s].ok++;
	} else {
		tally[s].failed++;
		tally[s].err[e > 0 && e < 135 ? e : 0]++;
	}
	return ok;
}

/* The next event on @ch, which must be @want for @id, within 20 s. */
static int await(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int type;

	if (poll(&pfd, 1, 20000) != 1) {
		hangs++;
		errno = ETIMEDOUT;
		return -1;
	}
	if (rdma_get_cm_event(ch, &ev))
		return -1;
	type = ev->event;
	rdma_ack_cm_event(ev);
	if (type == (int)want)
		return 0;
	errno = type == RDMA_CM_EVENT_REJECTED ? ECONNREFUSED : EPROTO;
	return -1;
}

/*
 * One connection through rdma_cm to @ai: up, then torn down. Its QP, with
 * the CQs rdma_create_qp() makes for it, is on the device context and PD
 * of librdmacm's own.
 */
static int connect_once(struct rdma_event_channel *ch, struct addrinfo *ai)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1, .retry_count = 1 };
	struct rdma_cm_id *id;
	int ok = 0;

	if (!note(CM_ID, !rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), errno))
		return 0;
	if (!note(ADDR, !rdma_resolve_addr(id, NULL, ai->ai_addr, 5000) &&
		  !await(ch, RDMA_CM_EVENT_ADDR_RESOLVED), errno))
		goto out;
	if (!note(ROUTE, !rdma_resolve_route(id, 5000) &&
		  !await(ch, RDMA_CM_EVENT_ROUTE_RESOLVED), errno))
		goto out;
	errno = 0;	/* librdmacm may fail without saying why */
	if (!note(CM_QP, !rdma_create_qp(id, NULL, &qa), errno))
		goto out;
	ok = note(CONNECT, !rdma_connect(id, &cp) &&
		  !await(ch, RDMA_CM_EVENT_ESTABLISHED), errno);
	if (ok && !rdma_disconnect(id))
		await(ch, RDMA_CM_EVENT_DISCONNECTED);
	rdma_destroy_qp(id);
out:
	rdma_destroy_id(id);
	return ok;
}

/* One round of every step; 1 if all of them succeeded. */
static int round_once(struct ibv_context *ctx, struct rdma_event_channel *ch,
		      struct addrinfo *ai, void *buf, size_t len)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};
	struct ibv_pd *pd;
	struct ibv_cq *cq = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL, *qp_srq = NULL;
	int all = 0;

	pd = ibv_alloc_pd(ctx);
	if (!note(PD, pd != NULL, errno))
		return 0;
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!note(CQ, cq != NULL, errno))
		goto out;
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	all = note(MR, mr != NULL, errno);
	srq = ibv_create_srq(pd, &sa);
	all &= note(SRQ, srq != NULL, errno);
	qa.send_cq = qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	all &= note(QP, qp != NULL, errno);
	if (srq) {
		qa.srq = srq;
		qp_srq = ibv_create_qp(pd, &qa);
		all &= note(QP_SRQ, qp_srq != NULL, errno);
	}
	all &= connect_once(ch, ai);
out:
	if (qp_srq)
		ibv_destroy_qp(qp_srq);
	if (qp)
		ibv_destroy_qp(qp);
	if (srq)
		ibv_destroy_srq(srq);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	return all;
}

static void report(void)
{
	unsigned int s, e;

	for (s = 0; s < STEPS; s++) {
		printf("%s ok=%u failed=%u", names[s], tally[s].ok, tally[s].failed);
		for (e = 0; e < 135; e++)
			if (tally[s].err[e])
				printf(" %s:%u", e ? strerror(e) : "?", tally[s].err[e]);
		printf("\n");
	}
}

static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	const char *dev = NULL, *addr = NULL, *port = "7174";
	struct rdma_event_channel *ch;
	struct ibv_context *ctx;
	struct addrinfo *ai;
	unsigned int rounds = 10, i;
	size_t len = 64 << 10;
	void *buf;
	int c, last;

	while ((c = getopt(argc, argv, "d:c:p:n:")) != -1) {
		if (c == 'd')
			dev = optarg;
		else if (c == 'c')
			addr = optarg;
		else if (c == 'p')
			port = optarg;
		else if (c == 'n')
			rounds = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (!dev || !addr) {
		fprintf(stderr, "usage: xiw_inject -d DEV -c ADDR [-p PORT] [-n ROUNDS]\n");
		return 2;
	}
	mark_fd = open("/proc/self/make-it-fail", O_WRONLY);
	ctx = open_device(dev);
	ch = rdma_create_event_channel();
	buf = aligned_alloc(4096, len);
	if (mark_fd < 0 || !ctx || !ch || !buf || getaddrinfo(addr, port, &hints, &ai)) {
		fprintf(stderr, "xiw_inject: setup failed: %s\n", strerror(errno));
		return 2;
	}
	/* Everything the libraries load lazily, loaded before any round. */
	if (!round_once(ctx, ch, ai, buf, len)) {
		fprintf(stderr, "xiw_inject: a round without injection failed\n");
		report();
		return 1;
	}
	memset(tally, 0, sizeof(tally));
	for (i = 0; i < rounds; i++) {
		mark(1);
		round_once(ctx, ch, ai, buf, len);
		mark(0);
	}
	last = round_once(ctx, ch, ai, buf, len);
	report();
	printf("hangs=%u after=%s\n", hangs, last ? "ok" : "FAILED");
	return last && !hangs ? 0 : 1;
}
