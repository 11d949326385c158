// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues. A kernel CQ is a ring of struct ib_wc polled through
 * ib_poll_cq(). A user CQ is the siw ABI ring of struct siw_cqe mapped
 * into the process, followed by struct siw_cq_ctrl, in which the process
 * arms the CQ (rdma-core's siw provider polls and arms it without system
 * calls). Completions are added by the data path from softirq or work
 * context under the CQ's lock.
 */
#include <kunit/visibility.h>
#include <linux/slab.h>

#include "xiw.h"

#define XIW_MAX_CQE	(64 * 1024)

static atomic_t xiw_cq_ids = ATOMIC_INIT(0);

static int xiw_create_ucq(struct xiw_cq *cq, struct ib_udata *udata)
{
	struct siw_uresp_create_cq uresp = {};
	size_t len = cq->size * sizeof(struct siw_cqe) +
		     sizeof(struct siw_cq_ctrl);
	struct ib_ucontext *uctx = xiw_uctx(udata);
	int rc;

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	cq->uring = xiw_umap_alloc(uctx, len, &uresp.cq_key, &cq->umap);
	if (!cq->uring)
		return -ENOMEM;
	cq->uctrl = (struct siw_cq_ctrl *)&cq->uring[cq->size];
	uresp.cq_id = atomic_inc_return(&xiw_cq_ids);
	uresp.num_cqe = cq->size;
	rc = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
	if (rc) {
		xiw_umap_remove(cq->umap);
		cq->umap = NULL;
	}
	return rc;
}

int xiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  XIW_CREATE_CQ_LAST_ARG)
{
	struct ib_udata *udata = xiw_create_cq_udata(XIW_CREATE_CQ_LAST_NAME);
	struct xiw_cq *cq = to_xiw_cq(ibcq);

	if (attr->flags || attr->cqe < 1 || attr->cqe > XIW_MAX_CQE)
		return -EINVAL;
	spin_lock_init(&cq->lock);
	cq->size = roundup_pow_of_two(attr->cqe);
	ibcq->cqe = cq->size;
	if (udata)
		return xiw_create_ucq(cq, udata);
	cq->queue = kvcalloc(cq->size, sizeof(*cq->queue), GFP_KERNEL);
	return cq->queue ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(xiw_create_cq);

/*
 * A kernel CQ moves to a new ring of at least @cqe entries, its pending
 * completions with it, in order; one that holds more than @cqe is not
 * shrunk (-EINVAL). A user CQ's ring is mapped by rdma-core's siw
 * provider, which has no resize and could not follow a new mapping.
 */
int xiw_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);
	struct ib_wc *queue, *old;
	unsigned long flags;
	u32 size, n = 0;

	if (!cq->queue)
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe > XIW_MAX_CQE)
		return -EINVAL;
	size = roundup_pow_of_two(cqe);
	queue = kvcalloc(size, sizeof(*queue), GFP_KERNEL);
	if (!queue)
		return -ENOMEM;
	spin_lock_irqsave(&cq->lock, flags);
	if (cq->head - cq->tail > size) {
		spin_unlock_irqrestore(&cq->lock, flags);
		kvfree(queue);
		return -EINVAL;
	}
	for (; cq->tail != cq->head; cq->tail++)
		queue[n++] = cq->queue[cq->tail & (cq->size - 1)];
	old = cq->queue;
	cq->queue = queue;
	cq->size = size;
	cq->head = n;
	cq->tail = 0;
	ibcq->cqe = size;
	spin_unlock_irqrestore(&cq->lock, flags);
	kvfree(old);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xiw_resize_cq);

int xiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);

	xiw_umap_remove(cq->umap);
	kvfree(cq->queue);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xiw_destroy_cq);

int xiw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);
	unsigned long flags;
	int n = 0;

	if (!cq->queue)
		return 0;	/* a user CQ is polled in user space */
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num && cq->tail != cq->head) {
		wc[n++] = cq->queue[cq->tail & (cq->size - 1)];
		cq->tail++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(xiw_poll_cq);

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

static u8 xiw_siw_opcode(enum ib_wc_opcode op)
{
	switch (op) {
	case IB_WC_RDMA_WRITE:
		return SIW_OP_WRITE;
	case IB_WC_RDMA_READ:
		return SIW_OP_READ;
	case IB_WC_RECV:
		return SIW_OP_RECEIVE;
	case IB_WC_REG_MR:
		return SIW_OP_REG_MR;
	case IB_WC_LOCAL_INV:
		return SIW_OP_INVAL_STAG;
	default:
		return SIW_OP_SEND;
	}
}

static u16 xiw_siw_status(enum ib_wc_status st)
{
	switch (st) {
	case IB_WC_SUCCESS:
		return SIW_WC_SUCCESS;
	case IB_WC_LOC_LEN_ERR:
		return SIW_WC_LOC_LEN_ERR;
	case IB_WC_LOC_PROT_ERR:
		return SIW_WC_LOC_PROT_ERR;
	case IB_WC_LOC_QP_OP_ERR:
		return SIW_WC_LOC_QP_OP_ERR;
	case IB_WC_WR_FLUSH_ERR:
		return SIW_WC_WR_FLUSH_ERR;
	case IB_WC_REM_ACCESS_ERR:
		return SIW_WC_REM_ACCESS_ERR;
	case IB_WC_REM_INV_REQ_ERR:
		return SIW_WC_REM_INV_REQ_ERR;
	default:
		return SIW_WC_GENERAL_ERR;
	}
}

/* Under cq->lock: one CQE into the user ring; false if it is full. */
static bool xiw_ucq_add(struct xiw_cq *cq, const struct ib_wc *wc)
{
	struct siw_cqe *cqe = &cq->uring[cq->head & (cq->size - 1)];

	lockdep_assert_held(&cq->lock);
	if (READ_ONCE(cqe->flags) & SIW_WQE_VALID)
		return false;
	cqe->id = wc->wr_id;
	cqe->opcode = xiw_siw_opcode(wc->opcode);
	cqe->status = xiw_siw_status(wc->status);
	cqe->bytes = wc->byte_len;
	cqe->inval_stag = wc->wc_flags & IB_WC_WITH_INVALIDATE ?
			  wc->ex.invalidate_rkey : 0;
	cqe->qp_id = wc->qp->qp_num;
	/* The entry, then its VALID flag: user space polls the flag. */
	smp_store_release(&cqe->flags, SIW_WQE_VALID);
	cq->head++;
	return true;
}

/* Under cq->lock: is the consumer armed for this completion? Disarms. */
static bool xiw_cq_armed(struct xiw_cq *cq, bool solicited)
{
	u32 f;

	lockdep_assert_held(&cq->lock);
	if (!cq->uctrl) {
		f = cq->notify;
		if (f == IB_CQ_NEXT_COMP || (f == IB_CQ_SOLICITED && solicited)) {
			cq->notify = 0;
			return true;
		}
		return false;
	}
	f = READ_ONCE(cq->uctrl->flags);
	if (!(f & SIW_NOTIFY_NEXT_COMPLETION) &&
	    !(f & SIW_NOTIFY_SOLICITED && solicited))
		return false;
	/* Lose the race with a re-arm rather than call twice. */
	return cmpxchg(&cq->uctrl->flags, f, SIW_NOTIFY_NOT) == f;
}

/*
 * Adds a completion; the caller may hold its queue's lock, so that
 * completions enter the CQ in the order the queue ends its work requests.
 * Returns XIW_CQ_* for xiw_cq_kick(), which the caller calls once it has
 * dropped its locks: the consumer's handler may post new work at once. A
 * full CQ loses the completion and reports IB_EVENT_CQ_ERR once.
 */
int xiw_cq_add(struct ib_cq *ibcq, const struct ib_wc *wc, bool solicited)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);
	unsigned long flags;
	bool added;
	int todo = 0;

	solicited |= wc->status != IB_WC_SUCCESS;
	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflowed) {
		added = false;
	} else if (cq->uring) {
		added = xiw_ucq_add(cq, wc);
	} else {
		added = cq->head - cq->tail < cq->size;
		if (added)
			cq->queue[cq->head++ & (cq->size - 1)] = *wc;
	}
	if (!added && !cq->overflowed) {
		cq->overflowed = true;
		todo |= XIW_CQ_OVERFLOW;
	}
	cq->added += added;
	if (added && xiw_cq_armed(cq, solicited)) {
		todo |= XIW_CQ_NOTIFY;
		cq->events++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return todo;
}
EXPORT_SYMBOL_IF_KUNIT(xiw_cq_add);

/*
 * Calls the consumer's handlers for what xiw_cq_add() returned. An
 * overflow is logged and counted whether or not the consumer has an event
 * handler (ib_alloc_cq()'s CQs have none): the completions it lost are
 * likely to leave that consumer waiting.
 */
void xiw_cq_kick(struct ib_cq *ibcq, int todo)
{
	if (todo & XIW_CQ_OVERFLOW) {
		struct ib_event ev = {
			.device = ibcq->device,
			.element.cq = ibcq,
			.event = IB_EVENT_CQ_ERR,
		};

		pr_warn_ratelimited("xiw: CQ of %u entries overflowed, completions lost\n",
				    to_xiw_cq(ibcq)->size);
		xiw_stat_inc(to_xiw_dev(ibcq->device), XIW_STAT_CQ_OVERFLOW);
		if (ibcq->event_handler)
			ibcq->event_handler(&ev, ibcq->cq_context);
	}
	if (todo & XIW_CQ_NOTIFY && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}
EXPORT_SYMBOL_IF_KUNIT(xiw_cq_kick);
