// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions. Only the DMA MR that kernel protection domains take
 * exists so far, with an STag from the device's table; user MRs and FRWR
 * come with the data path.
 */
#include <linux/slab.h>

#include "xiw.h"

struct xiw_mr {
	struct ib_mr ibmr;
	u32 index;
};

struct ib_mr *xiw_get_dma_mr(struct ib_pd *pd, int access)
{
	struct xiw_device *xdev = to_xiw_dev(pd->device);
	struct xiw_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	int rc;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	/* STag = 24-bit index | 8-bit key (RFC 5040 section 2.1). */
	rc = xa_alloc(&xdev->mrs, &mr->index, mr, XA_LIMIT(1, 0xffffff),
		      GFP_KERNEL);
	if (rc) {
		kfree(mr);
		return ERR_PTR(rc);
	}
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
	kfree(mr);
	return 0;
}
