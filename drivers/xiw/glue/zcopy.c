// SPDX-License-Identifier: GPL-2.0
/*
 * Zero-copy transmit (tx_payload=zero-copy): TCP puts a message's pages
 * into its skbs instead of copying them (MSG_ZEROCOPY with a notification
 * of our own, as io_uring does), so the pages must stay as they are until
 * TCP lets go of the last skb that holds them, after the peer has
 * acknowledged the data. The message's work request completes then, not
 * when the send call returns. One notification per message: TCP takes a
 * reference per skb, qp_tx.c holds one while it sends, and the last one
 * dropped runs xiw_zc_complete().
 *
 * Lifetimes: a notification may outlive its QP (skbs of a closed
 * connection), so it points at the QP's owner record, which the QP
 * detaches when it is destroyed; a late notification then only frees
 * itself. skbs call back into this module, so module exit waits for every
 * notification. A connection that closes while notifications are
 * pending is reset rather than closed gracefully (xiw_zc_pending()): its
 * pending work requests are flushed anyway, and the reset frees the skbs
 * at once instead of after TCP's retransmissions give up.
 */
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "xiw.h"

struct xiw_zc_owner {
	struct kref ref;	/* the QP's and one per notification */
	spinlock_t lock;
	struct xiw_qp *qp;	/* NULL once the QP is destroyed */
	atomic_t pending;	/* notifications not yet complete */
};

static void xiw_zc_owner_free(struct kref *ref)
{
	kfree(container_of(ref, struct xiw_zc_owner, ref));
}

#ifdef XIW_HAVE_UBUF_OPS

/* Whether this build can send payload zero-copy (the load line says). */
const bool xiw_zc_built = true;

struct xiw_zc {
	struct ubuf_info ubuf;
	struct xiw_zc_owner *owner;
	u32 sq_idx;		/* the message's SQ index, or ~0 */
};

static atomic_t xiw_zc_live = ATOMIC_INIT(0);

/* Each skb's release and xiw_zc_put(); the last one completes. */
static void xiw_zc_complete(struct sk_buff *skb, struct ubuf_info *ubuf,
			    bool zerocopy_success)
{
	struct xiw_zc *zc = container_of(ubuf, struct xiw_zc, ubuf);
	struct xiw_zc_owner *o = zc->owner;
	struct xiw_qp *qp;
	unsigned long flags;

	if (!refcount_dec_and_test(&ubuf->refcnt))
		return;
	/* A QP being destroyed has no references left to take. */
	spin_lock_irqsave(&o->lock, flags);
	qp = o->qp;
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	spin_unlock_irqrestore(&o->lock, flags);
	if (qp) {
		if (zc->sq_idx != ~0U)
			xiw_qp_zc_sent(qp, zc->sq_idx);
		xiw_qp_put(qp);
	}
	atomic_dec(&o->pending);
	kref_put(&o->ref, xiw_zc_owner_free);
	kfree(zc);
	if (atomic_dec_and_test(&xiw_zc_live))
		wake_up_var(&xiw_zc_live);
}

static const struct ubuf_info_ops xiw_zc_ops = {
	.complete = xiw_zc_complete,
};

/*
 * A notification for the message about to be sent: @sq_idx names its work
 * request, ~0 a Read Response. NULL if memory is short (the caller
 * copies instead); never sleeps.
 */
struct xiw_zc *xiw_zc_new(struct xiw_qp *qp, u32 sq_idx)
{
	struct xiw_zc_owner *o = qp->zc_owner;
	struct xiw_zc *zc;

	if (!o)
		return NULL;
	zc = kmalloc(sizeof(*zc), GFP_NOWAIT | __GFP_NOWARN);
	if (!zc)
		return NULL;
	zc->ubuf.ops = &xiw_zc_ops;
	zc->ubuf.flags = SKBFL_ZEROCOPY_FRAG | SKBFL_DONT_ORPHAN;
	refcount_set(&zc->ubuf.refcnt, 1);
	zc->owner = o;
	zc->sq_idx = sq_idx;
	kref_get(&o->ref);
	atomic_inc(&o->pending);
	atomic_inc(&xiw_zc_live);
	return zc;
}

struct ubuf_info *xiw_zc_ubuf(struct xiw_zc *zc)
{
	return &zc->ubuf;
}

/* The sender is done with it: the message is all in TCP's hands. */
void xiw_zc_put(struct xiw_zc *zc)
{
	xiw_zc_complete(NULL, &zc->ubuf, true);
}

/* Module exit: every skb that could call us back is gone. */
void xiw_zc_exit(void)
{
	wait_var_event(&xiw_zc_live, !atomic_read(&xiw_zc_live));
}

#else /* !XIW_HAVE_UBUF_OPS: no notification ops to hook; copy instead. */

const bool xiw_zc_built;

struct xiw_zc *xiw_zc_new(struct xiw_qp *qp, u32 sq_idx)
{
	return NULL;
}

struct ubuf_info *xiw_zc_ubuf(struct xiw_zc *zc)
{
	return NULL;
}

void xiw_zc_put(struct xiw_zc *zc)
{
}

void xiw_zc_exit(void)
{
}

#endif

int xiw_zc_attach(struct xiw_qp *qp)
{
	struct xiw_zc_owner *o = kzalloc(sizeof(*o), GFP_KERNEL);

	if (!o)
		return -ENOMEM;
	kref_init(&o->ref);
	spin_lock_init(&o->lock);
	o->qp = qp;
	qp->zc_owner = o;
	return 0;
}

/* The QP is being destroyed: notifications still out no longer reach it. */
void xiw_zc_detach(struct xiw_qp *qp)
{
	struct xiw_zc_owner *o = qp->zc_owner;
	unsigned long flags;

	if (!o)
		return;
	spin_lock_irqsave(&o->lock, flags);
	o->qp = NULL;
	spin_unlock_irqrestore(&o->lock, flags);
	qp->zc_owner = NULL;
	kref_put(&o->ref, xiw_zc_owner_free);
}

/* Are skbs still holding pages of this QP's messages? */
bool xiw_zc_pending(struct xiw_qp *qp)
{
	return qp->zc_owner && atomic_read(&qp->zc_owner->pending);
}
