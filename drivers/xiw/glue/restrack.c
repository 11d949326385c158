// SPDX-License-Identifier: GPL-2.0
/*
 * Driver attributes of `rdma -dd resource show qp|cm_id|cq|mr`
 * (Documentation/admin-guide.rst): per QP what MPA agreed and how full its
 * queues are, per connection (cm_id) where its MPA exchange stands, per CQ
 * its depth and whether it overflowed, per MR its kind and whether its
 * STag is valid.
 */
#include <rdma/rdma_cm.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include <xiw/mpa.h>

#include "cm.h"
#include "xiw.h"

struct xiw_res_u32 {
	const char *name;
	u32 value;
};

/* Puts @n attributes inside the driver table already opened. */
static int xiw_res_put(struct sk_buff *msg, const struct xiw_res_u32 *a,
		       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (rdma_nl_put_driver_u32(msg, a[i].name, a[i].value))
			return -EMSGSIZE;
	return 0;
}

/*
 * Every entry's attributes go in one driver table: opened by the caller
 * (NULL: no room), then closed here, or taken back whole if @err says a
 * put did not fit.
 */
static int xiw_res_close(struct sk_buff *msg, struct nlattr *table, int err)
{
	if (err) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/* The RTR an initiator sends or a responder accepted (RFC 6581 9.2). */
static const char *xiw_res_rtr(u8 rtr)
{
	if (rtr & XIW_MPA_CTRL_C)
		return "write";
	if (rtr & XIW_MPA_CTRL_D)
		return "read";
	if (rtr & XIW_MPA_CTRL_B)
		return "send";
	return "none";
}

static int xiw_res_qp_mpa(struct sk_buff *msg, const struct xiw_mpa_agreed *m)
{
	const struct xiw_res_u32 a[] = {
		{ "mpa_rev", m->rev },
		{ "enhanced", m->enhanced },
		{ "crc", m->crc },
		{ "markers_tx", m->send_markers },
		{ "markers_rx", m->recv_markers },
		{ "peer_to_peer", m->peer_to_peer },
		{ "gso", m->gso },
	};

	if (xiw_res_put(msg, a, ARRAY_SIZE(a)) ||
	    rdma_nl_put_driver_string(msg, "rtr", xiw_res_rtr(m->rtr)))
		return -EMSGSIZE;
	/* As the peer sent them: only RFC 6581 carries them. */
	if (m->enhanced &&
	    (rdma_nl_put_driver_u32(msg, "peer_ird", m->peer_ird) ||
	     rdma_nl_put_driver_u32(msg, "peer_ord", m->peer_ord)))
		return -EMSGSIZE;
	return 0;
}

static int xiw_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct xiw_qp *qp = to_xiw_qp(ibqp);
	struct xiw_mpa_agreed mpa;
	struct nlattr *table;
	unsigned long flags;
	u32 reads_out, rreqs;
	int err;

	spin_lock_bh(&qp->lock);
	mpa = qp->mpa;
	spin_unlock_bh(&qp->lock);
	spin_lock_irqsave(&qp->sq_lock, flags);
	reads_out = qp->order.reads_out;
	rreqs = xiw_tx_rreq_held(&qp->order);
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	{
		const struct xiw_res_u32 a[] = {
			{ "ird", READ_ONCE(qp->ird) },
			{ "ord", READ_ONCE(qp->ord) },
			{ "sq_depth", qp->sq_size },
			{ "rq_depth", qp->srq ? 0 : qp->rq_size },
			{ "srq", !!qp->srq },
			{ "reads_out", reads_out },
			{ "read_reqs_held", rreqs },
		};

		err = xiw_res_put(msg, a, ARRAY_SIZE(a));
	}
	if (!err && mpa.rev)	/* MPA completed */
		err = xiw_res_qp_mpa(msg, &mpa);
	return xiw_res_close(msg, table, err);
}

static int xiw_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct xiw_cq *cq = to_xiw_cq(ibcq);
	struct nlattr *table;
	unsigned long flags;
	u32 used, added, events, armed;
	bool overflowed;
	int err;

	spin_lock_irqsave(&cq->lock, flags);
	used = cq->head - cq->tail;
	overflowed = cq->overflowed;
	added = cq->added;
	events = cq->events;
	/* A user CQ's consumer arms it in the shared control word. */
	armed = cq->uctrl ? READ_ONCE(cq->uctrl->flags) : cq->notify;
	spin_unlock_irqrestore(&cq->lock, flags);

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	{
		const struct xiw_res_u32 a[] = {
			{ "cq_depth", cq->size },
			{ "user", !!cq->uring },
			/* kernel CQ: completions not yet polled */
			{ "pending", cq->uring ? 0 : used },
			{ "overflowed", overflowed },
			/* For a consumer that waits: was it told? */
			{ "completions", added },
			{ "events", events },
			{ "armed", armed },
		};

		err = xiw_res_put(msg, a, ARRAY_SIZE(a));
	}
	return xiw_res_close(msg, table, err);
}

static int xiw_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct xiw_mr *mr = to_xiw_mr(ibmr);
	struct nlattr *table;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	return xiw_res_close(msg, table,
			     rdma_nl_put_driver_string(msg, "kind",
						       mr->frwr ? "frwr" :
						       mr->umem ? "user" : "dma") ||
			     rdma_nl_put_driver_u32(msg, "valid",
						    READ_ONCE(mr->valid)) ||
			     rdma_nl_put_driver_u32(msg, "pages", mr->npages));
}

static int xiw_fill_res_cm_id_entry(struct sk_buff *msg,
				    struct rdma_cm_id *id)
{
	struct iw_cm_id *iw = rdma_iw_cm_id(id);
	struct xiw_cm_info info;
	struct nlattr *table;

	if (!iw || xiw_cm_info(iw, &info))
		return 0;	/* no connection endpoint (yet, or any more) */
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	return xiw_res_close(msg, table,
			     rdma_nl_put_driver_string(msg, "cep", info.state) ||
			     rdma_nl_put_driver_u32(msg, "initiator",
						    info.initiator) ||
			     (info.listener &&
			      rdma_nl_put_driver_u32(msg, "half_open",
						     info.half_open)));
}

const struct ib_device_ops xiw_restrack_ops = {
	.fill_res_cm_id_entry = xiw_fill_res_cm_id_entry,
	.fill_res_qp_entry = xiw_fill_res_qp_entry,
	.fill_res_cq_entry = xiw_fill_res_cq_entry,
	.fill_res_mr_entry = xiw_fill_res_mr_entry,
};
