// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions. Only DMA MRs exist so far: kernel protection domains
 * take one for their local DMA lkey (and, asked for it, the unsafe global
 * rkey). Their addresses are kernel virtual addresses, as the device does
 * virtual DMA. User MRs and FRWR come next.
 *
 * An STag is a 24-bit index into the device's table and an 8-bit key
 * (RFC 5040 section 2.1); DMA MRs use key 0. Lookups run under RCU from
 * the receive path, so MRs are freed after a grace period.
 */
#include <linux/slab.h>

#include "xiw.h"

struct ib_mr *xiw_get_dma_mr(struct ib_pd *pd, int access)
{
	struct xiw_device *xdev = to_xiw_dev(pd->device);
	struct xiw_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	int rc;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	rc = xa_alloc(&xdev->mrs, &mr->index, mr, XA_LIMIT(1, 0xffffff),
		      GFP_KERNEL);
	if (rc) {
		kfree(mr);
		return ERR_PTR(rc);
	}
	mr->access = access;
	mr->ibmr.lkey = mr->index << 8;
	mr->ibmr.rkey = mr->index << 8;
	return &mr->ibmr;
}

struct ib_mr *xiw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 virt, int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

int xiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct xiw_mr *mr = container_of(ibmr, struct xiw_mr, ibmr);

	xa_erase(&to_xiw_dev(ibmr->device)->mrs, mr->index);
	kfree_rcu(mr, rcu);
	return 0;
}

/*
 * May @stag be used by @pd for @access over [addr, addr + len)? Returns 0
 * or the XIW_RX_* reason to refuse it.
 */
int xiw_mr_check(struct xiw_device *xdev, u32 stag, struct ib_pd *pd,
		 int access, u64 addr, u64 len)
{
	struct xiw_mr *mr;
	int rc = 0;

	rcu_read_lock();
	mr = xa_load(&xdev->mrs, stag >> 8);
	if (!mr || (stag & 0xff) != (mr->ibmr.lkey & 0xff))
		rc = XIW_RX_STAG_INVALID;
	else if (mr->ibmr.pd != pd)
		rc = XIW_RX_NOT_IN_STREAM;
	else if ((mr->access & access) != access)
		rc = XIW_RX_ACCESS;
	else if (addr + len < addr)
		rc = XIW_RX_BOUNDS;	/* a DMA MR spans all the rest */
	rcu_read_unlock();
	return rc;
}
