// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: a ring of struct ib_wc per CQ for kernel consumers.
 * User-space CQs (the mmap'ed siw ABI ring) are not implemented yet and
 * are refused with -EOPNOTSUPP.
 */
#include <linux/slab.h>

#include "xiw.h"

#define XIW_MAX_CQE	(64 * 1024)

int xiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  XIW_CREATE_CQ_LAST_ARG)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);

	if (attr->flags || attr->cqe < 1 || attr->cqe > XIW_MAX_CQE)
		return -EINVAL;
	if (xiw_create_cq_is_user(XIW_CREATE_CQ_LAST_NAME))
		return -EOPNOTSUPP;
	cq->size = roundup_pow_of_two(attr->cqe);
	cq->queue = kvcalloc(cq->size, sizeof(*cq->queue), GFP_KERNEL);
	if (!cq->queue)
		return -ENOMEM;
	spin_lock_init(&cq->lock);
	ibcq->cqe = cq->size;
	return 0;
}

int xiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	kvfree(to_xiw_cq(ibcq)->queue);
	return 0;
}

int xiw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num && cq->tail != cq->head) {
		wc[n++] = cq->queue[cq->tail & (cq->size - 1)];
		cq->tail++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int xiw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);
	unsigned long irqf;
	int pending = 0;

	spin_lock_irqsave(&cq->lock, irqf);
	cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if (flags & IB_CQ_REPORT_MISSED_EVENTS)
		pending = cq->tail != cq->head;
	spin_unlock_irqrestore(&cq->lock, irqf);
	return pending;
}
