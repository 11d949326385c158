// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kernel completion queues in xiw.ko (glue/cq.c): the
 * ring's order and overflow, and resizing with completions pending. The
 * CQ here is a bare struct xiw_cq; kernel CQs need nothing else.
 */
#include <kunit/test.h>

#include "../drivers/xiw/glue/xiw.h"

static struct xiw_cq *cq_new(struct kunit *test, int cqe)
{
	const struct ib_cq_init_attr attr = { .cqe = cqe };
	struct xiw_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cq);
	KUNIT_ASSERT_EQ(test, xiw_create_cq(&cq->ibcq, &attr, NULL), 0);
	return cq;
}

static int cq_put(struct xiw_cq *cq, u64 wr_id)
{
	const struct ib_wc wc = { .wr_id = wr_id, .opcode = IB_WC_SEND };

	return xiw_cq_add(&cq->ibcq, &wc, false);
}

/* Polls everything; expects wr_ids first, first + 1, ... count of them. */
static void cq_expect(struct kunit *test, struct xiw_cq *cq, u64 first,
		      int count)
{
	struct ib_wc wc[8];
	int n, i, seen = 0;

	while ((n = xiw_poll_cq(&cq->ibcq, ARRAY_SIZE(wc), wc)) > 0) {
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ(test, wc[i].wr_id, first + seen + i);
		seen += n;
	}
	KUNIT_EXPECT_EQ(test, seen, count);
}

/* Growing a full CQ keeps what is pending, in order, and makes room. */
static void xiw_cq_grow_keeps_order(struct kunit *test)
{
	struct xiw_cq *cq = cq_new(test, 4);
	struct ib_wc wc;
	u64 id;

	KUNIT_EXPECT_EQ(test, cq->ibcq.cqe, 4);
	for (id = 1; id <= 3; id++)
		KUNIT_EXPECT_EQ(test, cq_put(cq, id), 0);
	KUNIT_ASSERT_EQ(test, xiw_poll_cq(&cq->ibcq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	/* 2..5 pending: full, and the ring has wrapped. */
	KUNIT_EXPECT_EQ(test, cq_put(cq, 4), 0);
	KUNIT_EXPECT_EQ(test, cq_put(cq, 5), 0);
	KUNIT_EXPECT_EQ(test, xiw_resize_cq(&cq->ibcq, 10, NULL), 0);
	KUNIT_EXPECT_EQ(test, cq->ibcq.cqe, 16);
	for (id = 6; id <= 17; id++)
		KUNIT_EXPECT_EQ(test, cq_put(cq, id), 0);
	KUNIT_EXPECT_EQ(test, cq_put(cq, 18), XIW_CQ_OVERFLOW);
	cq_expect(test, cq, 2, 16);
	xiw_destroy_cq(&cq->ibcq, NULL);
}

/* A CQ shrinks only to what it holds; a refused resize loses nothing. */
static void xiw_cq_shrink(struct kunit *test)
{
	struct xiw_cq *cq = cq_new(test, 16);
	struct ib_wc wc[3];
	u64 id;

	for (id = 1; id <= 5; id++)
		cq_put(cq, id);
	KUNIT_EXPECT_EQ(test, xiw_resize_cq(&cq->ibcq, 4, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, cq->ibcq.cqe, 16);
	KUNIT_ASSERT_EQ(test, xiw_poll_cq(&cq->ibcq, 3, wc), 3);
	KUNIT_EXPECT_EQ(test, xiw_resize_cq(&cq->ibcq, 2, NULL), 0);
	KUNIT_EXPECT_EQ(test, cq->ibcq.cqe, 2);
	KUNIT_EXPECT_EQ(test, cq_put(cq, 6), XIW_CQ_OVERFLOW);
	cq_expect(test, cq, 4, 2);
	xiw_destroy_cq(&cq->ibcq, NULL);
}

/* Sizes outside 1..max_cqe, and a CQ with no kernel ring (a user CQ). */
static void xiw_cq_resize_refused(struct kunit *test)
{
	struct xiw_cq *cq = cq_new(test, 8);
	struct xiw_cq *ucq = kunit_kzalloc(test, sizeof(*ucq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ucq);
	KUNIT_EXPECT_EQ(test, xiw_resize_cq(&cq->ibcq, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, xiw_resize_cq(&cq->ibcq, 64 * 1024 + 1, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cq->ibcq.cqe, 8);
	KUNIT_EXPECT_EQ(test, xiw_resize_cq(&ucq->ibcq, 16, NULL),
			-EOPNOTSUPP);
	xiw_destroy_cq(&cq->ibcq, NULL);
}

static void cq_event(struct ib_event *ev, void *ctx)
{
	int *events = ctx;

	if (ev->event == IB_EVENT_CQ_ERR)
		(*events)++;
}

/*
 * A full CQ loses the completion, reports IB_EVENT_CQ_ERR and counts
 * cq_overflow once, and takes no more, even once polled empty.
 */
static void xiw_cq_overflow_reported(struct kunit *test)
{
	struct xiw_device *xdev = kunit_kzalloc(test, sizeof(*xdev),
						GFP_KERNEL);
	struct xiw_cq *cq = cq_new(test, 2);
	int events = 0;

	KUNIT_ASSERT_NOT_NULL(test, xdev);
	cq->ibcq.device = &xdev->ibdev;
	cq->ibcq.event_handler = cq_event;
	cq->ibcq.cq_context = &events;
	KUNIT_EXPECT_EQ(test, cq_put(cq, 1), 0);
	KUNIT_EXPECT_EQ(test, cq_put(cq, 2), 0);
	xiw_cq_kick(&cq->ibcq, cq_put(cq, 3));
	KUNIT_EXPECT_EQ(test, events, 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&xdev->stats[XIW_STAT_CQ_OVERFLOW]),
			1LL);
	xiw_cq_kick(&cq->ibcq, cq_put(cq, 4));
	cq_expect(test, cq, 1, 2);
	xiw_cq_kick(&cq->ibcq, cq_put(cq, 5));
	cq_expect(test, cq, 0, 0);
	KUNIT_EXPECT_EQ(test, events, 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&xdev->stats[XIW_STAT_CQ_OVERFLOW]),
			1LL);
	xiw_destroy_cq(&cq->ibcq, NULL);
}

static struct kunit_case xiw_cq_cases[] = {
	KUNIT_CASE(xiw_cq_grow_keeps_order),
	KUNIT_CASE(xiw_cq_shrink),
	KUNIT_CASE(xiw_cq_resize_refused),
	KUNIT_CASE(xiw_cq_overflow_reported),
	{}
};

static struct kunit_suite xiw_cq_suite = {
	.name = "xiw_cq",
	.test_cases = xiw_cq_cases,
};

kunit_test_suite(xiw_cq_suite);
