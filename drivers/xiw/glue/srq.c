// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues.
 *
 * An SRQ is a ring of siw ABI receive entries (struct siw_rqe) for kernel
 * and user consumers alike: user space writes the ring through its
 * mapping, the kernel through xiw_post_srq_recv(). A slot belongs to the
 * poster until its VALID flag is set and to xiw until xiw clears it, so
 * producer and consumer share no index. Posted entries form one run of
 * valid slots starting at srq->get. The QPs attached to the SRQ take them
 * in ring order under srq->lock, from their receive path.
 *
 * Limit event: an SRQ armed with limit L raises IB_EVENT_SRQ_LIMIT_REACHED
 * once, when a QP takes an entry and fewer than L stay posted, and is then
 * disarmed until modify_srq arms it again.
 */
#include <linux/vmalloc.h>

#include "xiw.h"

/* The ring's SGEs are copied as ib_sge lists. */
static_assert(sizeof(struct siw_sge) == sizeof(struct ib_sge) &&
	      offsetof(struct siw_sge, length) == offsetof(struct ib_sge, length) &&
	      offsetof(struct siw_sge, lkey) == offsetof(struct ib_sge, lkey));

/*
 * Copies a valid ring entry into @r and frees its slot. The poster's
 * SGEs are trusted for nothing: placement checks each against the PD.
 */
bool xiw_rqe_take(struct siw_rqe *slot, struct xiw_rwqe *r)
{
	u64 len = 0;
	u32 i, n;

	if (!xiw_uslot_valid(&slot->flags))
		return false;
	r->wr_id = READ_ONCE(slot->id);
	n = min_t(u32, READ_ONCE(slot->num_sge), SIW_MAX_SGE);
	memcpy(r->sge, slot->sge, n * sizeof(r->sge[0]));
	xiw_uslot_free(&slot->flags);
	r->num_sge = n;
	for (i = 0; i < n; i++)
		len += r->sge[i].length;
	r->len = min_t(u64, len, U32_MAX);
	return true;
}

static struct siw_rqe *xiw_srq_slot(struct xiw_srq *srq, u32 idx)
{
	return &srq->ring[idx & (srq->size - 1)];
}

/*
 * Takes the next posted entry into @r. Returns false if none is posted;
 * sets *@limit if this take crossed the armed limit (the caller raises
 * the event with xiw_srq_limit_event() once it holds no lock).
 */
bool xiw_srq_take(struct xiw_srq *srq, struct xiw_rwqe *r, bool *limit)
{
	unsigned long flags;
	bool taken;

	spin_lock_irqsave(&srq->lock, flags);
	taken = xiw_rqe_take(xiw_srq_slot(srq, srq->get), r);
	if (taken) {
		srq->get++;
		/* Fewer than limit left: the limit'th slot from get is free. */
		if (srq->armed &&
		    !xiw_uslot_valid(&xiw_srq_slot(srq, srq->get +
						   srq->limit - 1)->flags)) {
			srq->armed = false;
			*limit = true;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return taken;
}

void xiw_srq_limit_event(struct xiw_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

static int xiw_srq_user_ring(struct xiw_srq *srq, struct ib_udata *udata)
{
	struct ib_ucontext *uctx = xiw_uctx(udata);
	struct siw_uresp_create_srq uresp = {};

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	srq->ring = xiw_umap_alloc(uctx,
				   srq->size * sizeof(struct siw_rqe),
				   &uresp.srq_key, &srq->umap);
	if (!srq->ring)
		return -ENOMEM;
	uresp.num_rqe = srq->size;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

int xiw_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct xiw_device *xdev = to_xiw_dev(ibsrq->device);
	struct xiw_srq *srq = to_xiw_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int rc;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > XIW_MAX_QP_WR ||
	    attr->max_sge > SIW_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (atomic_inc_return(&xdev->num_srq) > XIW_MAX_SRQ) {
		rc = -ENOMEM;
		goto err;
	}
	spin_lock_init(&srq->lock);
	srq->size = roundup_pow_of_two(attr->max_wr);
	srq->max_sge = attr->max_sge;
	srq->limit = attr->srq_limit;
	srq->armed = srq->limit != 0;
	if (udata) {
		rc = xiw_srq_user_ring(srq, udata);
		if (rc)
			goto err;
	} else {
		srq->ring = kvcalloc(srq->size, sizeof(*srq->ring), GFP_KERNEL);
		if (!srq->ring) {
			rc = -ENOMEM;
			goto err;
		}
	}
	attr->max_wr = srq->size;
	return 0;
err:
	xiw_umap_remove(srq->umap);
	atomic_dec(&xdev->num_srq);
	return rc;
}

int xiw_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct xiw_srq *srq = to_xiw_srq(ibsrq);
	unsigned long flags;
	int rc = 0;

	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;	/* no resizing */
	spin_lock_irqsave(&srq->lock, flags);
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->size) {
			rc = -EINVAL;
		} else {
			srq->limit = attr->srq_limit;
			srq->armed = srq->limit != 0;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return rc;
}

int xiw_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct xiw_srq *srq = to_xiw_srq(ibsrq);

	attr->max_wr = srq->size;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int xiw_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct xiw_srq *srq = to_xiw_srq(ibsrq);

	/* The core destroyed every QP attached to it first. */
	if (srq->umap)
		xiw_umap_remove(srq->umap);
	else
		kvfree(srq->ring);
	atomic_dec(&to_xiw_dev(ibsrq->device)->num_srq);
	return 0;
}

/* Kernel consumers only: user space posts through its mapping. */
int xiw_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad)
{
	struct xiw_srq *srq = to_xiw_srq(ibsrq);
	struct siw_rqe *slot;
	unsigned long flags;
	int rc = 0;

	if (srq->umap) {
		*bad = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		slot = xiw_srq_slot(srq, srq->put);
		if (xiw_uslot_valid(&slot->flags)) {
			rc = -ENOMEM;
			break;
		}
		if (wr->num_sge > srq->max_sge) {
			rc = -EINVAL;
			break;
		}
		slot->id = wr->wr_id;
		slot->num_sge = wr->num_sge;
		memcpy(slot->sge, wr->sg_list,
		       wr->num_sge * sizeof(slot->sge[0]));
		/* The entry, then VALID: pairs with xiw_uslot_valid(). */
		smp_store_release(&slot->flags, SIW_WQE_VALID);
		srq->put++;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (rc)
		*bad = wr;
	return rc;
}
