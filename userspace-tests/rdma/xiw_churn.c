// SPDX-License-Identifier: GPL-2.0
/*
 * xiw_churn: connections torn down in every way while RDMA WRITEs and
 * READs are in flight in both directions, for the VM teardown stress
 * (scripts/vm/tests/teardown.sh).
 *
 *   xiw_churn -s ADDR [-p PORT] [-x CMD]                  server, until SIGTERM
 *   xiw_churn -c ADDR [-p PORT] [-n ROUNDS] [-r SEED] [-m MODE] [-x CMD]
 *                                                         client
 *
 * (-d DEV is accepted and ignored: rdma_cm picks the device by address.)
 * -m MODE: every round ends its connection that way (below), not each
 * way in turn. -x CMD: when a connection has not ended in time, CMD runs
 * (sh -c) while it is still there, to show the sockets and QPs stuck.
 *
 * Each side of a connection keeps DEPTH work requests on its send queue,
 * 64 KiB RDMA WRITEs and RDMA READs in turn, against the other side's
 * buffer (address and STag in the private data). So each side sends
 * WRITEs and Read Requests, and Read Responses for the other's READs,
 * with GSO-sized FPDUs from registered pages that TCP holds (zero-copy).
 *
 * The client runs each round in a child process, which connects and ends
 * the connection after 300 to 1500 ms of traffic in one of these ways
 * (the round number picks it; the client tells the server in its private
 * data):
 *   kill             the child gets SIGKILL;
 *   destroy          it destroys its QP, then its cm_id, then exits;
 *   disconnect       it disconnects, and every work request it posted
 *                    must complete once (flushed or not) and
 *                    DISCONNECTED come, within 30 s;
 *   peer-disconnect  the server disconnects; the same checks;
 *   peer-destroy     the server destroys its QP and cm_id; the same;
 *   read-flood       the client posts only READs of 512 KiB, its ORD's
 *                    worth always out, so Read Requests keep arriving at
 *                    the server, which ends the connection as in
 *                    peer-disconnect: its own post calls must return and
 *                    its work requests complete meanwhile.
 * The server serves several connections at once. Of every connection
 * that it did not end itself it checks the same: DISCONNECTED and every
 * work request completed once within 30 s of the peer's end.
 *
 * The client prints "MODE ok=N failed=N" per way and exits 0 if every
 * round went as said. The server, on SIGTERM, prints "connections=N
 * traffic=N bad=N hangs=N" (bad: a work request completed twice or not
 * at all, or a connection that did not come up) and exits 0 if bad and
 * hangs are 0.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define LEN	(1 << 20)	/* each side's buffer */
#define MSG	(64 << 10)	/* each WRITE and READ */
#define DEPTH	8		/* send work requests kept in flight */
#define RECVS	4		/* receives posted (flushed at the end) */
#define MAX_WR	(1 << 16)	/* work request ids of one connection */
#define CONNS	8		/* connections a server holds at once */
#define WAIT_MS	30000		/* for the end of a connection */

enum mode {
	KILL, DESTROY, DISCONNECT, PEER_DISCONNECT, PEER_DESTROY, READ_FLOOD,
	MODES
};
static const char *const mode_name[MODES] = {
	"kill", "destroy", "disconnect", "peer-disconnect", "peer-destroy",
	"read-flood",
};

/* Private data, both ways. */
struct hello {
	uint8_t magic, mode;
	uint16_t ms;
	uint32_t rkey;
	uint64_t addr;
} __attribute__((packed));
#define MAGIC 0xc5

struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
	struct hello peer;
	enum mode mode;
	long long end_at;	/* ms: when this side ends it, or 0 */
	long long up_at;	/* ms: when it came up (the server's) */
	long long gone_at;	/* ms: when the end began, or 0 */
	int up, err, disconnected;
	int reads_only;		/* read-flood's client */
	unsigned int next, outstanding, sends, ok;
	unsigned char posted[MAX_WR];	/* enum kind, by work request id */
};

enum kind { NONE, SEND, RECV };

static unsigned int bad, hangs, served, traffic;
static const char *on_hang;	/* -x */
static volatile sig_atomic_t stop;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A work request's id: the next one, marked as posted. */
static uint64_t wr_id(struct conn *c, enum kind k)
{
	unsigned int id = c->next++ % MAX_WR;

	if (c->posted[id] != NONE) {
		fprintf(stderr, "wr %u still outstanding when reused\n", id);
		bad++;
	}
	c->posted[id] = k;
	c->outstanding++;
	return id;
}

/* Takes back work request @id, which was not posted after all. */
static void unpost(struct conn *c, uint64_t id)
{
	c->posted[id] = NONE;
	c->outstanding--;
}

static void post_recvs(struct conn *c)
{
	struct ibv_sge sge = { .addr = (uintptr_t)c->buf, .length = 64,
			       .lkey = c->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *badw;
	int i;

	for (i = 0; i < RECVS; i++) {
		wr.wr_id = wr_id(c, RECV);
		if (ibv_post_recv(c->id->qp, &wr, &badw))
			unpost(c, wr.wr_id);
	}
}

/*
 * Tops the send queue up to DEPTH: WRITEs and READs in turn, or (read-flood)
 * READs of half the peer's buffer, which keep the peer's Read Responses
 * longer than what its socket takes at once.
 */
static void post_sends(struct conn *c)
{
	while (c->up && !c->err && !c->gone_at && c->sends < DEPTH) {
		int read = c->reads_only || c->next % 2;
		struct ibv_sge sge = {
			.addr = (uintptr_t)c->buf + (read ? LEN / 2 : 0),
			.length = c->reads_only ? LEN / 2 : MSG,
			.lkey = c->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.sg_list = &sge, .num_sge = 1,
			.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = c->peer.addr +
				     (c->reads_only ? 0 : (c->next % 8) * MSG / 2),
				     .rkey = c->peer.rkey },
		}, *badw;

		wr.wr_id = wr_id(c, SEND);
		if (ibv_post_send(c->id->qp, &wr, &badw)) {
			unpost(c, wr.wr_id);
			c->err = 1;	/* the QP left RTS */
			return;
		}
		c->sends++;
	}
}

/* Takes every completion in @c's CQ; how many. */
static unsigned int reap(struct conn *c)
{
	struct ibv_wc wc[16];
	unsigned int got = 0;
	int n, i;

	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0) {
		got += n;
		for (i = 0; i < n; i++) {
			enum kind k = wc[i].wr_id < MAX_WR ?
				c->posted[wc[i].wr_id] : NONE;

			if (k == NONE) {
				fprintf(stderr, "wr %llu completed twice or unposted\n",
					(unsigned long long)wc[i].wr_id);
				bad++;
				continue;
			}
			/* A flushed completion's opcode is undefined: the id says. */
			unpost(c, wc[i].wr_id);
			if (k == SEND)
				c->sends--;
			if (wc[i].status == IBV_WC_SUCCESS) {
				c->ok++;
				continue;
			}
			if (!c->err && !c->gone_at && !c->disconnected)
				fprintf(stderr, "%s: first error: %s (%s) after %u ok\n",
					mode_name[c->mode],
					ibv_wc_status_str(wc[i].status),
					k == SEND ? "send" : "receive", c->ok);
			c->err = 1;
		}
	}
	return got;
}

/* The CQ's event, re-armed, then what it holds. */
static void poll_cq(struct conn *c)
{
	void *ctx;

	if (!ibv_get_cq_event(c->cc, &c->cq, &ctx))
		ibv_ack_cq_events(c->cq, 1);
	ibv_req_notify_cq(c->cq, 0);
	reap(c);
}

/*
 * Completions in the CQ that no event announced (the CQ is armed after
 * every event, before it is polled): a lost notification if any.
 */
static void unannounced(struct conn *c, const char *side)
{
	struct pollfd p = { .fd = c->cc->fd, .events = POLLIN };
	int r = poll(&p, 1, 0);
	unsigned int n = reap(c);

	fprintf(stderr, "%s: %u completions waited in the CQ without an event (channel readable: %d); ok=%u sends=%u outstanding=%u\n",
		side, n, r, c->ok, c->sends, c->outstanding);
}

/* PD, CQ, buffer, MR and QP for @c->id. */
static int conn_setup(struct conn *c)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cc = ibv_create_comp_channel(c->id->verbs);
	c->buf = aligned_alloc(4096, LEN);
	if (!c->pd || !c->cc || !c->buf)
		return -1;
	memset(c->buf, 0x5a, LEN);
	c->cq = ibv_create_cq(c->id->verbs, DEPTH + RECVS, c, c->cc, 0);
	c->mr = ibv_reg_mr(c->pd, c->buf, LEN, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!c->cq || !c->mr || ibv_req_notify_cq(c->cq, 0))
		return -1;
	qa.send_cq = qa.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return -1;
	post_recvs(c);
	return 0;
}

static void conn_free(struct conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

static struct rdma_conn_param conn_param(struct conn *c, struct hello *h)
{
	struct rdma_conn_param cp = {
		.responder_resources = 4, .initiator_depth = 4,
		.private_data = h, .private_data_len = sizeof(*h),
	};

	h->magic = MAGIC;
	h->rkey = htonl(c->mr->rkey);
	h->addr = htobe64((uintptr_t)c->buf);
	return cp;
}

static int peer_hello(struct conn *c, const void *data, unsigned int len)
{
	const struct hello *h = data;

	if (len < sizeof(*h) || h->magic != MAGIC || h->mode >= MODES)
		return -1;
	c->peer.rkey = ntohl(h->rkey);
	c->peer.addr = be64toh(h->addr);
	c->peer.mode = h->mode;
	c->peer.ms = ntohs(h->ms);
	return 0;
}

/* The end of a connection it did not end itself, checked at last. */
static int conn_ended(struct conn *c)
{
	return c->disconnected && !c->outstanding;
}

/* A connection has not ended in time: what is stuck, while it is there. */
static void hang_diag(void)
{
	fflush(stdout);
	fflush(stderr);
	if (on_hang && system(on_hang) == -1)
		perror("xiw_churn: -x");
}

/* ---- the server ---------------------------------------------------------- */

static struct conn conns[CONNS];

static void server_event(struct rdma_cm_event *ev)
{
	struct conn *c = ev->id->context;
	struct hello h = { 0 };
	struct rdma_conn_param cp;
	int i;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		for (i = 0; i < CONNS && conns[i].id; i++)
			;
		if (i == CONNS) {
			rdma_reject(ev->id, NULL, 0);
			rdma_destroy_id(ev->id);
			bad++;
			return;
		}
		c = &conns[i];
		c->id = ev->id;
		ev->id->context = c;
		if (peer_hello(c, ev->param.conn.private_data,
			       ev->param.conn.private_data_len) || conn_setup(c)) {
			fprintf(stderr, "server: connection setup failed\n");
			bad++;
			rdma_reject(ev->id, NULL, 0);
			conn_free(c);
			return;
		}
		c->mode = c->peer.mode;
		cp = conn_param(c, &h);
		if (rdma_accept(ev->id, &cp)) {
			fprintf(stderr, "server: accept: %s\n", strerror(errno));
			bad++;
			c->gone_at = now_ms();
			c->disconnected = 1;
		}
		served++;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		c->up = 1;
		c->up_at = now_ms();
		post_sends(c);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		c->disconnected = 1;
		if (!c->gone_at)
			c->gone_at = now_ms();
		break;
	default:	/* an error: the connection never came up */
		fprintf(stderr, "server: %s\n", rdma_event_str(ev->event));
		if (c && !c->up) {
			bad++;	/* every accepted connection must come up */
			c->disconnected = 1;
			if (!c->gone_at)
				c->gone_at = now_ms();
		}
		break;
	}
}

/* What is due on connection @c now; frees it when it has ended. */
static void server_tick(struct conn *c, long long t)
{
	/*
	 * Ended by this side the time the client chose after it came up,
	 * which is when the client's 30 s wait for the end begins. (Timed
	 * from this side's first completion, as it was, the end came late
	 * whenever that completion did: on the debug kernel a zero-copy
	 * WRITE completes only once TCP has had every octet queued before
	 * it acknowledged, up to 30 s and more there.)
	 */
	if ((c->mode == PEER_DISCONNECT || c->mode == PEER_DESTROY ||
	     c->mode == READ_FLOOD) && c->up && !c->end_at)
		c->end_at = c->up_at + c->peer.ms;
	if (c->end_at && t >= c->end_at && !c->gone_at) {
		c->gone_at = t;
		if (c->mode == PEER_DESTROY) {
			traffic += !!c->ok;
			conn_free(c);	/* with its work requests in flight */
			return;
		}
		rdma_disconnect(c->id);
	}
	if (c->gone_at && conn_ended(c)) {
		traffic += !!c->ok;
		conn_free(c);
	} else if (c->gone_at && t - c->gone_at > WAIT_MS) {
		fprintf(stderr, "server: connection (%s) not ended after %d ms: disconnected=%d outstanding=%u\n",
			mode_name[c->mode], WAIT_MS, c->disconnected, c->outstanding);
		hang_diag();
		hangs++;
		conn_free(c);
	}
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int server(struct rdma_event_channel *ch, struct addrinfo *ai)
{
	struct rdma_cm_id *listen_id;
	struct rdma_cm_event *ev;
	struct pollfd pfd[CONNS + 1];
	long long stop_at = 0;
	int i, n;

	signal(SIGTERM, on_term);
	signal(SIGPIPE, SIG_IGN);
	if (rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, ai->ai_addr) || rdma_listen(listen_id, 16)) {
		perror("xiw_churn: listen");
		return 2;
	}
	printf("listening\n");
	fflush(stdout);
	/* After SIGTERM, until the connections still open have ended. */
	for (;;) {
		for (i = 0; i < CONNS && !conns[i].id; i++)
			;
		if (stop && (i == CONNS || !stop_at))
			stop_at = now_ms();
		if (stop && (i == CONNS || now_ms() - stop_at > WAIT_MS + 5000))
			break;
		pfd[0] = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
		for (i = 0; i < CONNS; i++)
			pfd[i + 1] = (struct pollfd){
				.fd = conns[i].cc ? conns[i].cc->fd : -1,
				.events = POLLIN };
		n = poll(pfd, CONNS + 1, 100);
		if (n > 0 && (pfd[0].revents & POLLIN) && !rdma_get_cm_event(ch, &ev)) {
			/* Acked first: a failed request's id is destroyed. */
			struct rdma_cm_event copy = *ev;
			struct hello h = { 0 };

			if (ev->param.conn.private_data_len >= sizeof(h))
				memcpy(&h, ev->param.conn.private_data, sizeof(h));
			copy.param.conn.private_data = &h;
			copy.param.conn.private_data_len = sizeof(h);
			rdma_ack_cm_event(ev);
			server_event(&copy);
		}
		for (i = 0; i < CONNS; i++) {
			struct conn *c = &conns[i];

			if (!c->id)
				continue;
			if (n > 0 && (pfd[i + 1].revents & POLLIN))
				poll_cq(c);
			post_sends(c);
			server_tick(c, now_ms());
		}
	}
	for (i = 0; i < CONNS; i++)
		if (conns[i].id) {
			fprintf(stderr, "server: a connection (%s) still open at the end\n",
				mode_name[conns[i].mode]);
			hangs++;
			conn_free(&conns[i]);
		}
	rdma_destroy_id(listen_id);
	printf("connections=%u traffic=%u bad=%u hangs=%u\n", served, traffic,
	       bad, hangs);
	return bad || hangs ? 1 : 0;
}

/* ---- the client ---------------------------------------------------------- */

static int await(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		 struct conn *c)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int type, ok = 0;

	if (poll(&pfd, 1, 20000) != 1 || rdma_get_cm_event(ch, &ev)) {
		fprintf(stderr, "client: no %s\n", rdma_event_str(want));
		return -1;
	}
	type = ev->event;
	if (type == (int)want)
		ok = type != RDMA_CM_EVENT_ESTABLISHED ||
		     !peer_hello(c, ev->param.conn.private_data,
				 ev->param.conn.private_data_len);
	rdma_ack_cm_event(ev);
	if (!ok)
		fprintf(stderr, "client: %s, wanted %s\n", rdma_event_str(type),
			rdma_event_str(want));
	return ok ? 0 : -1;
}

/* One round in a child process: its exit status. */
static int round_child(struct rdma_event_channel *ch, struct addrinfo *ai,
		       enum mode mode, unsigned int ms)
{
	static struct conn cc;
	struct conn *c = &cc;
	struct hello h = { .mode = mode, .ms = htons(ms) };
	struct rdma_conn_param cp;
	long long start, t0 = 0;

	if (rdma_create_id(ch, &c->id, c, RDMA_PS_TCP) ||
	    rdma_resolve_addr(c->id, NULL, ai->ai_addr, 5000) ||
	    await(ch, RDMA_CM_EVENT_ADDR_RESOLVED, c) ||
	    rdma_resolve_route(c->id, 5000) ||
	    await(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, c) || conn_setup(c))
		return 1;
	c->mode = mode;
	c->reads_only = mode == READ_FLOOD;
	cp = conn_param(c, &h);
	if (rdma_connect(c->id, &cp) || await(ch, RDMA_CM_EVENT_ESTABLISHED, c))
		return 1;
	c->up = 1;
	post_sends(c);
	start = now_ms();
	for (;;) {
		struct pollfd pfd[2] = { { .fd = ch->fd, .events = POLLIN },
					 { .fd = c->cc->fd, .events = POLLIN } };
		long long t = now_ms();

		/* The end is timed from the first completed work request. */
		if (!t0 && c->ok)
			t0 = t;
		if (t0 && !c->gone_at && t - t0 >= ms) {
			/* Kill and destroy check nothing after this point. */
			if (bad && mode <= DESTROY) {
				fprintf(stderr, "client: %s: bad=%u before the end\n",
					mode_name[mode], bad);
				return 1;
			}
			switch (mode) {
			case KILL:
				kill(getpid(), SIGKILL);
				break;
			case DESTROY:
				/* In this order, with work requests in flight. */
				rdma_destroy_qp(c->id);
				rdma_destroy_id(c->id);
				c->id = NULL;
				conn_free(c);
				return 0;
			case DISCONNECT:
				c->gone_at = t;
				rdma_disconnect(c->id);
				break;
			default:	/* the server ends it */
				break;
			}
		}
		if (!c->gone_at && (c->err || c->disconnected)) {
			c->gone_at = t;
			if (mode < PEER_DISCONNECT) {
				fprintf(stderr, "client: %s: the connection ended before its time (err=%d disconnected=%d ok=%u)\n",
					mode_name[mode], c->err, c->disconnected, c->ok);
				bad++;
			}
		}
		if (c->gone_at && conn_ended(c))
			break;
		if (t - start > ms + WAIT_MS) {
			fprintf(stderr, "client: %s not ended after %d ms: disconnected=%d outstanding=%u ok=%u\n",
				mode_name[mode], WAIT_MS, c->disconnected,
				c->outstanding, c->ok);
			unannounced(c, "client");
			hang_diag();
			return 1;
		}
		if (poll(pfd, 2, 100) > 0) {
			struct rdma_cm_event *ev;

			if ((pfd[0].revents & POLLIN) && !rdma_get_cm_event(ch, &ev)) {
				if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
					c->disconnected = 1;
				rdma_ack_cm_event(ev);
			}
			if (pfd[1].revents & POLLIN)
				poll_cq(c);
		}
		post_sends(c);
	}
	if (bad || !c->ok) {
		fprintf(stderr, "client: %s: bad=%u ok=%u\n", mode_name[mode],
			bad, c->ok);
		return 1;
	}
	conn_free(c);
	return 0;
}

static int client(struct addrinfo *ai, unsigned int rounds, unsigned int seed,
		  int only)
{
	unsigned int ok[MODES] = { 0 }, failed[MODES] = { 0 }, i, m;
	int all = 1;

	srand(seed);
	for (i = 0; i < rounds; i++) {
		enum mode mode = only < 0 ? (enum mode)(i % MODES) : (enum mode)only;
		unsigned int ms = 300 + rand() % 1200;
		long long t0 = now_ms();
		int status = 0, good, lost = 0;
		pid_t pid, w;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			struct rdma_event_channel *ch = rdma_create_event_channel();

			_exit(ch ? round_child(ch, ai, mode, ms) : 2);
		}
		if (pid < 0) {
			perror("client: fork");
			lost = 1;
		}
		/* A round whose end we could not see is a failed round. */
		while (pid > 0 && (w = waitpid(pid, &status, WNOHANG)) != pid) {
			if (w < 0) {
				perror("client: waitpid");
				lost = 1;
				break;
			}
			if (now_ms() - t0 > ms + WAIT_MS + 30000) {
				fprintf(stderr, "client: round %u (%s) hangs\n",
					i, mode_name[mode]);
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
				lost = 1;
				break;
			}
			usleep(50000);
		}
		if (lost)
			good = 0;
		else if (mode == KILL)
			good = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
		else
			good = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		if (!good)
			fprintf(stderr, "client: round %u (%s, %u ms) failed: status %#x\n",
				i, mode_name[mode], ms, status);
		ok[mode] += good;
		failed[mode] += !good;
		all &= good;
	}
	for (m = 0; m < MODES; m++)
		printf("%s ok=%u failed=%u\n", mode_name[m], ok[m], failed[m]);
	return all ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	const char *addr = NULL, *port = "7176";
	unsigned int rounds = 10, seed = 1;
	struct rdma_event_channel *ch;
	struct addrinfo *ai;
	int c, srv = 0, only = -1;

	while ((c = getopt(argc, argv, "d:s:c:p:n:r:m:x:")) != -1) {
		if (c == 'd')
			;	/* rdma_cm picks the device by address */
		else if (c == 's' || c == 'c')
			addr = optarg, srv = c == 's';
		else if (c == 'p')
			port = optarg;
		else if (c == 'n')
			rounds = strtoul(optarg, NULL, 0);
		else if (c == 'r')
			seed = strtoul(optarg, NULL, 0);
		else if (c == 'x')
			on_hang = optarg;
		else if (c == 'm')
			for (only = MODES - 1; only >= 0; only--)
				if (!strcmp(optarg, mode_name[only]))
					break;
		if (c == '?' || (c == 'm' && only < 0))
			return 2;
	}
	if (!addr || getaddrinfo(addr, port, &hints, &ai)) {
		fprintf(stderr, "usage: xiw_churn -s|-c ADDR [-p PORT] [-n ROUNDS] [-r SEED] [-m MODE] [-x CMD]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!srv)
		return client(ai, rounds, seed, only);
	ch = rdma_create_event_channel();
	if (!ch) {
		perror("xiw_churn: event channel");
		return 2;
	}
	return server(ch, ai);
}
