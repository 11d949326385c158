// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the placement checks in xiw.ko (glue/mr.c): every copy
 * into or out of registered memory names an STag, the protection domain
 * of the QP (or SRQ) doing it and the access it needs (RFC 5040 section
 * 6.4, RFC 5042 section 5). A user process can put any lkey in its mapped
 * receive ring, so an STag of another PD must be refused at the copy.
 *
 * The device here is a bare struct xiw_device holding only the STag
 * table: enough for DMA MRs, which name kernel memory directly.
 */
#include <kunit/test.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "../drivers/xiw/glue/xiw.h"

struct mem_env {
	struct xiw_device *xdev;
	struct ib_pd pd, other_pd;
	struct ib_mr *mr;
	u8 mem[64];
};

static struct mem_env *mem_env_new(struct kunit *test, int access)
{
	struct mem_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->xdev = kunit_kzalloc(test, sizeof(*e->xdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->xdev);
	xa_init_flags(&e->xdev->mrs, XA_FLAGS_ALLOC1);
	e->pd.device = &e->xdev->ibdev;
	e->other_pd.device = &e->xdev->ibdev;
	e->mr = xiw_get_dma_mr(&e->pd, access);
	KUNIT_ASSERT_FALSE(test, IS_ERR(e->mr));
	/* The RDMA core sets these after the verb. */
	e->mr->device = &e->xdev->ibdev;
	e->mr->pd = &e->pd;
	return e;
}

static void mem_env_free(struct mem_env *e)
{
	if (e->mr)
		xiw_dereg_mr(e->mr, NULL);
	rcu_barrier();		/* the MR is freed after a grace period */
	xa_destroy(&e->xdev->mrs);
}

static int put(struct mem_env *e, u32 stag, struct ib_pd *pd, int access,
	       const char *what)
{
	char buf[16];

	strscpy_pad(buf, what, sizeof(buf));
	return xiw_mem_copy(e->xdev, stag, pd, access,
			    (u64)(uintptr_t)e->mem, buf, sizeof(buf), true);
}

/* The owner's PD with the right it holds: the data lands. */
static void xiw_mem_own_pd_places(struct kunit *test)
{
	struct mem_env *e = mem_env_new(test, IB_ACCESS_LOCAL_WRITE);

	KUNIT_EXPECT_EQ(test, put(e, e->mr->lkey, &e->pd,
				  IB_ACCESS_LOCAL_WRITE, "placed"), 0);
	KUNIT_EXPECT_STREQ(test, (char *)e->mem, "placed");
	KUNIT_EXPECT_EQ(test, xiw_mr_check(e->xdev, e->mr->lkey, &e->pd,
					   IB_ACCESS_LOCAL_WRITE,
					   (u64)(uintptr_t)e->mem, 16), 0);
	mem_env_free(e);
}

/* A receive ring naming another PD's lkey: refused, memory untouched. */
static void xiw_mem_foreign_pd_refused(struct kunit *test)
{
	struct mem_env *e = mem_env_new(test, IB_ACCESS_LOCAL_WRITE |
					IB_ACCESS_REMOTE_WRITE);

	KUNIT_EXPECT_EQ(test, put(e, e->mr->lkey, &e->other_pd,
				  IB_ACCESS_LOCAL_WRITE, "stolen"), -EFAULT);
	KUNIT_EXPECT_EQ(test, e->mem[0], 0);
	KUNIT_EXPECT_EQ(test, xiw_mr_check(e->xdev, e->mr->rkey, &e->other_pd,
					   IB_ACCESS_REMOTE_WRITE,
					   (u64)(uintptr_t)e->mem, 16),
			XIW_RX_NOT_IN_STREAM);
	mem_env_free(e);
}

/* A right the MR does not grant, a wrong key, a freed STag: refused. */
static void xiw_mem_access_key_and_lifetime(struct kunit *test)
{
	struct mem_env *e = mem_env_new(test, IB_ACCESS_LOCAL_WRITE);
	u32 stag = e->mr->lkey;

	KUNIT_EXPECT_EQ(test, put(e, stag, &e->pd, IB_ACCESS_REMOTE_WRITE,
				  "no right"), -EFAULT);
	KUNIT_EXPECT_EQ(test, xiw_mr_check(e->xdev, stag, &e->pd,
					   IB_ACCESS_REMOTE_WRITE,
					   (u64)(uintptr_t)e->mem, 16),
			XIW_RX_ACCESS);
	KUNIT_EXPECT_EQ(test, put(e, stag ^ 0x01, &e->pd,
				  IB_ACCESS_LOCAL_WRITE, "bad key"), -EFAULT);
	KUNIT_EXPECT_EQ(test, e->mem[0], 0);
	xiw_dereg_mr(e->mr, NULL);
	e->mr = NULL;
	KUNIT_EXPECT_EQ(test, put(e, stag, &e->pd, IB_ACCESS_LOCAL_WRITE,
				  "freed"), -EFAULT);
	KUNIT_EXPECT_EQ(test, e->mem[0], 0);
	mem_env_free(e);
}

static struct kunit_case xiw_mem_cases[] = {
	KUNIT_CASE(xiw_mem_own_pd_places),
	KUNIT_CASE(xiw_mem_foreign_pd_refused),
	KUNIT_CASE(xiw_mem_access_key_and_lifetime),
	{}
};

static struct kunit_suite xiw_mem_suite = {
	.name = "xiw_mem_access",
	.test_cases = xiw_mem_cases,
};

kunit_test_suite(xiw_mem_suite);
