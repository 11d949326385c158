// SPDX-License-Identifier: GPL-2.0
/*
 * xiw_cmtest: a kernel rdma_cm consumer for the VM tests. It connects (or
 * listens and accepts) through rdma_cm and iw_cm exactly as a kernel ULP
 * would, and reports what it saw in the read-only parameter "result":
 *
 *   server: "requests=N established=N disconnected=N rejected=N
 *            pd_len=N pd_ok=0|1 ird=N ord=N"   (the last request)
 *   client: "established|rejected|error=E|timeout ird=N ord=N pd_len=N
 *            pd_ok=0|1 disconnected=0|1"
 *
 * Private data is a pattern (octet i = i * 7 + 1) of pd_len octets both
 * ways, so either side can check it arrived intact.
 *
 *   insmod xiw_cmtest.ko role=server port=7471 [reject=1]
 *   insmod xiw_cmtest.ko role=client addr=10.77.0.2 port=7471 pd_len=N ird=N ord=N
 */
#include <linux/completion.h>
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
static char result[256] = "none";
module_param_string(result, result, sizeof(result), 0444);
MODULE_PARM_DESC(result, "what the test saw (read-only)");

struct cmt_conn {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool has_qp;
};

static struct rdma_cm_id *listen_id;
static struct cmt_conn client;
static struct cmt_conn served[8];
static int nserved;
static DEFINE_MUTEX(cmt_lock);
static DECLARE_COMPLETION(client_done);
static int requests, established, disconnected, rejected;
static int last_pd_len, last_pd_ok, last_ird, last_ord;
static u8 pattern[256];

static bool pd_intact(const void *p, int len)
{
	return len >= 0 && len <= sizeof(pattern) && (!len || memcmp(p, pattern, len) == 0);
}

static int cmt_qp(struct cmt_conn *c, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int rc;

	c->id = id;
	c->pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(c->pd))
		return PTR_ERR(c->pd);
	c->cq = ib_alloc_cq(id->device, c, 8, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(c->cq)) {
		ib_dealloc_pd(c->pd);
		return PTR_ERR(c->cq);
	}
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	rc = rdma_create_qp(id, c->pd, &qa);
	if (rc) {
		ib_free_cq(c->cq);
		ib_dealloc_pd(c->pd);
		return rc;
	}
	c->has_qp = true;
	return 0;
}

static void cmt_free(struct cmt_conn *c)
{
	if (!c->has_qp)
		return;
	rdma_destroy_qp(c->id);
	ib_free_cq(c->cq);
	ib_dealloc_pd(c->pd);
	c->has_qp = false;
}

static void server_result(void)
{
	snprintf(result, sizeof(result),
		 "requests=%d established=%d disconnected=%d rejected=%d pd_len=%d pd_ok=%d ird=%d ord=%d",
		 requests, established, disconnected, rejected, last_pd_len,
		 last_pd_ok, last_ird, last_ord);
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
		requests++;
		last_pd_len = ev->param.conn.private_data_len;
		last_pd_ok = pd_intact(ev->param.conn.private_data, last_pd_len);
		last_ird = ev->param.conn.responder_resources;
		last_ord = ev->param.conn.initiator_depth;
		if (READ_ONCE(reject) || nserved == ARRAY_SIZE(served)) {
			rejected++;
			rdma_reject(id, pattern, min(pd_len, 196),
				    IB_CM_REJ_CONSUMER_DEFINED);
			destroy = 1;	/* rdma_cm destroys the id */
			break;
		}
		c = &served[nserved++];
		rc = cmt_qp(c, id);
		if (rc) {
			pr_err("xiw_cmtest: server QP: %d\n", rc);
			break;
		}
		cp.private_data = pattern;
		cp.private_data_len = min(pd_len, 196);
		cp.responder_resources = min_t(int, ird, ev->param.conn.responder_resources);
		cp.initiator_depth = min_t(int, ord, ev->param.conn.initiator_depth);
		rc = rdma_accept(id, &cp);
		if (rc)
			pr_err("xiw_cmtest: accept: %d\n", rc);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		established++;
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
		rc = cmt_qp(&client, id);
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

static int __init cmt_init(void)
{
	struct sockaddr_in sin = {};
	struct rdma_cm_id *id;
	int i, rc;

	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = i * 7 + 1;
	if (pd_len < 0 || pd_len > 196)
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
			rc = rdma_listen(id, 8);
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
	if (!wait_for_completion_timeout(&client_done, 30 * HZ))
		strscpy(result, "timeout", sizeof(result));
	return 0;
}

static void __exit cmt_exit(void)
{
	int i;

	if (listen_id)
		rdma_destroy_id(listen_id);
	for (i = 0; i < nserved; i++) {
		rdma_disconnect(served[i].id);
		cmt_free(&served[i]);
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
