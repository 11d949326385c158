// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: a ring of struct ib_wc per CQ for kernel consumers.
 * Completions are added by the data path from softirq or work context.
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

/*
 * Adds a completion and calls the consumer's handler when the CQ is armed
 * for it. A full CQ is a fatal CQ error: the completion is lost and the
 * consumer hears IB_EVENT_CQ_ERR.
 */
void xiw_cq_post(struct ib_cq *ibcq, const struct ib_wc *wc, bool solicited)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);
	bool notify, overflow;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	overflow = cq->head - cq->tail == cq->size;
	if (!overflow) {
		cq->queue[cq->head & (cq->size - 1)] = *wc;
		cq->head++;
	}
	notify = cq->notify == IB_CQ_NEXT_COMP ||
		 (cq->notify == IB_CQ_SOLICITED &&
		  (solicited || wc->status != IB_WC_SUCCESS));
	if (notify)
		cq->notify = 0;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (overflow && ibcq->event_handler) {
		struct ib_event ev = {
			.device = ibcq->device,
			.element.cq = ibcq,
			.event = IB_EVENT_CQ_ERR,
		};

		pr_warn_ratelimited("xiw: CQ overflow, completion lost\n");
		ibcq->event_handler(&ev, ibcq->cq_context);
	}
	if (notify && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}
