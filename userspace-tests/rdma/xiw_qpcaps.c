// SPDX-License-Identifier: GPL-2.0
/*
 * xiw_qpcaps: a user QP gets what the device advertises, for the VM tests.
 *
 *   xiw_qpcaps -d DEV
 *
 * Queries DEV (ibv_query_device, as rdma-core's own tests do), then
 * creates RC QPs, with ibv_create_qp and with ibv_create_qp_ex, that ask
 * for every limit the device reports (max_qp_wr work requests and max_sge
 * SGEs each way) on a CQ of 100 entries, and queries each back:
 *
 *   - creation succeeds, the QP is in INIT (an RNIC's QP is created Idle,
 *     which verbs report as INIT), and every capability it reports is at
 *     least what was asked;
 *   - the inline size the QP reports can be asked for and is granted;
 *   - one SGE or one work request more than the device advertises is
 *     refused with EINVAL.
 *
 * Prints one line per check and exits 0 if all passed, else 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

static int failures;

static void verdict(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAILED", what);
	failures += !ok;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/* Creates an RC QP with @cap, by the legacy or the extended call. */
static struct ibv_qp *create(struct ibv_context *ctx, struct ibv_pd *pd,
			     struct ibv_cq *cq, const struct ibv_qp_cap *cap,
			     int ex)
{
	if (ex) {
		struct ibv_qp_init_attr_ex a = {
			.send_cq = cq, .recv_cq = cq, .cap = *cap,
			.qp_type = IBV_QPT_RC, .comp_mask = IBV_QP_INIT_ATTR_PD,
			.pd = pd,
		};

		return ibv_create_qp_ex(ctx, &a);
	}
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .cap = *cap, .qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &a);
}

/* Creation with @cap fails, and with EINVAL. */
static void refused(struct ibv_context *ctx, struct ibv_pd *pd,
		    struct ibv_cq *cq, const struct ibv_qp_cap *cap,
		    const char *what)
{
	struct ibv_qp *qp;
	char line[160];

	errno = 0;
	qp = create(ctx, pd, cq, cap, 0);
	snprintf(line, sizeof(line), "%s refused with EINVAL (errno %d)",
		 what, qp ? 0 : errno);
	verdict(!qp && errno == EINVAL, line);
	if (qp)
		ibv_destroy_qp(qp);
}

static void at_limits(struct ibv_context *ctx, struct ibv_pd *pd,
		      struct ibv_cq *cq, const struct ibv_device_attr *dev,
		      int ex)
{
	const char *how = ex ? "ibv_create_qp_ex" : "ibv_create_qp";
	struct ibv_qp_cap want = {
		.max_send_wr = dev->max_qp_wr, .max_recv_wr = dev->max_qp_wr,
		.max_send_sge = dev->max_sge, .max_recv_sge = dev->max_sge,
	};
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_qp *qp;
	char line[200];

	errno = 0;
	qp = create(ctx, pd, cq, &want, ex);
	snprintf(line, sizeof(line),
		 "%s with %u WRs and %u SGEs each way (errno %d)", how,
		 want.max_send_wr, want.max_send_sge, qp ? 0 : errno);
	verdict(qp != NULL, line);
	if (!qp)
		return;
	if (ibv_query_qp(qp, &attr, IBV_QP_STATE | IBV_QP_CAP, &init)) {
		verdict(0, "ibv_query_qp");
		ibv_destroy_qp(qp);
		return;
	}
	snprintf(line, sizeof(line), "%s: state %d after creation (INIT is %d)",
		 how, attr.qp_state, IBV_QPS_INIT);
	verdict(attr.qp_state == IBV_QPS_INIT, line);
	snprintf(line, sizeof(line),
		 "%s: reports wr %u/%u sge %u/%u inline %u, asked wr %u/%u sge %u/%u",
		 how, init.cap.max_send_wr, init.cap.max_recv_wr,
		 init.cap.max_send_sge, init.cap.max_recv_sge,
		 init.cap.max_inline_data, want.max_send_wr, want.max_recv_wr,
		 want.max_send_sge, want.max_recv_sge);
	verdict(init.cap.max_send_wr >= want.max_send_wr &&
		init.cap.max_recv_wr >= want.max_recv_wr &&
		init.cap.max_send_sge >= want.max_send_sge &&
		init.cap.max_recv_sge >= want.max_recv_sge &&
		init.cap.max_inline_data > 0, line);
	want.max_inline_data = init.cap.max_inline_data;
	ibv_destroy_qp(qp);

	qp = create(ctx, pd, cq, &want, ex);
	snprintf(line, sizeof(line), "%s with the reported %u octets inline",
		 how, want.max_inline_data);
	verdict(qp != NULL, line);
	if (qp)
		ibv_destroy_qp(qp);
}

int main(int argc, char **argv)
{
	struct ibv_device_attr dev;
	struct ibv_context *ctx;
	struct ibv_qp_cap over;
	const char *name = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int c;

	while ((c = getopt(argc, argv, "d:")) != -1) {
		if (c != 'd') {
			fprintf(stderr, "usage: xiw_qpcaps -d DEV\n");
			return 2;
		}
		name = optarg;
	}
	ctx = name ? open_dev(name) : NULL;
	if (!ctx || ibv_query_device(ctx, &dev)) {
		fprintf(stderr, "xiw_qpcaps: cannot open or query %s\n",
			name ? name : "(no -d)");
		return 2;
	}
	verdict(ctx->device->node_type == IBV_NODE_RNIC, "node type RNIC");
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 100, NULL, NULL, 0) : NULL;
	if (!cq) {
		fprintf(stderr, "xiw_qpcaps: no PD or CQ\n");
		return 2;
	}
	at_limits(ctx, pd, cq, &dev, 0);
	at_limits(ctx, pd, cq, &dev, 1);

	over = (struct ibv_qp_cap){ .max_send_wr = 1, .max_recv_wr = 1,
				    .max_send_sge = dev.max_sge + 1,
				    .max_recv_sge = 1 };
	refused(ctx, pd, cq, &over, "max_sge + 1 send SGEs");
	over.max_send_sge = 1;
	over.max_recv_sge = dev.max_sge + 1;
	refused(ctx, pd, cq, &over, "max_sge + 1 receive SGEs");
	over.max_recv_sge = 1;
	over.max_send_wr = dev.max_qp_wr + 1;
	refused(ctx, pd, cq, &over, "max_qp_wr + 1 send WRs");

	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("%d failed\n", failures);
	return failures ? 1 : 0;
}
