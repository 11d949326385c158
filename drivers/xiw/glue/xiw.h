/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the glue's C files. */
#ifndef XIW_GLUE_H
#define XIW_GLUE_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include <xiw/env.h>
#include <xiw/mpa_conn.h>
#include <xiw/placer.h>
#include <xiw/send_queue.h>
#include <xiw/tx_order.h>
#include <xiw/stream.h>

#include "compat.h"

#define XIW_PORT	1
#define XIW_VENDOR_ID	0x626d74	/* as siw: the siw provider accepts it */
#define XIW_MAX_PD	(64 * 1024)
#define XIW_MAX_SRQ	1024
#define XIW_MAX_IRD	XIW_TX_IRQ_SLOTS /* inbound RDMA Reads per QP */
#define XIW_MAX_ORD	128	/* outbound RDMA Reads per QP */
#define XIW_MAX_INLINE	256
#define XIW_MAX_SGE	16
#define XIW_MAX_QP_WR	4096

struct xiw_cep;
struct xiw_zc;
struct xiw_zc_owner;

/* Event counters (stats.c), one set per device. */
enum xiw_stat {
	XIW_STAT_RX_SEND_INV,	/* Send with Invalidate received, STag invalidated */
	XIW_STAT_TX_SEND_INV,	/* Send with Invalidate posted */
	XIW_STAT_READ_INV,	/* READ_WITH_INV sink STags invalidated */
	XIW_STAT_LOCAL_INV,	/* LOCAL_INV work requests */
	XIW_STAT_REG_MR,	/* REG_MR work requests */
	XIW_STAT_RX_READ_REQ,	/* RDMA Read Requests received */
	XIW_STAT_TX_TERMINATE,	/* TERMINATE messages queued to send */
	XIW_STAT_RX_TERMINATE,	/* TERMINATE messages received */
	XIW_STAT_TX_MULPDU,	/* MULPDU changes after a TCP MSS change */
	XIW_STAT_TX_GSO_FPDU,	/* FPDUs longer than one TCP segment sent */
	XIW_STAT_TX_GATHER_FPDU, /* FPDUs sent with their payload in place */
	XIW_STAT_TX_GATHER_COPY, /* FPDUs copied instead (memory, run count) */
	XIW_STAT_TX_ZCOPY_MSG,	/* messages TCP sent pages of itself */
	XIW_STAT_CM_REQ_DROPPED, /* Connection Requests iw_cm could not take */
	XIW_STAT_CM_HALF_OPEN_CLOSED, /* over mpa_max_half_open */
	XIW_STAT_CQ_OVERFLOW,	/* CQs that overflowed (completions lost) */
	XIW_NUM_STATS
};

struct xiw_device {
	struct ib_device ibdev;
	struct net_device *netdev;	/* held by ib_device_set_netdev() */
	u8 raw_gid[ETH_ALEN];
	struct list_head list;		/* on xiw_devices, until dealloc */
	struct work_struct unregister_work;
	atomic_t num_pd;
	atomic_t num_srq;
	struct xarray qps;		/* qpn -> struct xiw_qp */
	struct xarray mrs;		/* STag index -> struct xiw_mr */
	atomic64_t stats[XIW_NUM_STATS];
};

static inline void xiw_stat_inc(struct xiw_device *xdev, enum xiw_stat s)
{
	atomic64_inc(&xdev->stats[s]);
}

struct xiw_cq {
	struct ib_cq ibcq;
	spinlock_t lock;
	struct ib_wc *queue;		/* kernel CQ: size entries */
	u32 size;			/* a power of two */
	u32 head;			/* producer */
	u32 tail;			/* consumer */
	enum ib_cq_notify_flags notify;
	bool overflowed;		/* a completion was lost: CQ in error */
	u32 added;			/* completions added, under lock */
	u32 events;			/* of them notified, under lock */
	/* User CQ: the siw ABI ring, then its control word. */
	struct siw_cqe *uring;
	struct siw_cq_ctrl *uctrl;
	struct rdma_user_mmap_entry *umap;
};

/* A send queue entry: the work request, copied at post time. */
struct xiw_swqe {
	u64 wr_id;
	u64 remote_addr;	/* WRITE/READ */
	u32 rkey;		/* WRITE/READ: remote STag; REG_MR, LOCAL_INV:
				 * the local STag they validate or invalidate
				 */
	u32 inv;		/* SEND_INV: remote STag; READ_INV: local */
	u32 access;		/* REG_MR: the rights it grants */
	u32 len;		/* payload octets */
	u8 opcode;		/* enum ib_wr_opcode */
	u8 num_sge;
	u8 flags;		/* XIW_WQE_* */
	union {
		struct ib_sge sge[XIW_MAX_SGE];
		u8 inline_data[XIW_MAX_INLINE];
	};
};

#define XIW_WQE_SIGNALED	0x01
#define XIW_WQE_SOLICITED	0x02
#define XIW_WQE_INLINE		0x04
#define XIW_WQE_FENCE		0x08

static inline bool xiw_wr_is_read(u8 opcode)
{
	return opcode == IB_WR_RDMA_READ || opcode == IB_WR_RDMA_READ_WITH_INV;
}

/* What a work request asks of the transmit order (XIW_WR_*). */
static inline u32 xiw_wr_order(const struct xiw_swqe *w)
{
	return (w->flags & XIW_WQE_FENCE ? XIW_WR_FENCE : 0) |
	       (xiw_wr_is_read(w->opcode) ? XIW_WR_READ : 0);
}

/*
 * A user ring slot's VALID flag is the handshake with the siw provider:
 * the writer fills the entry, then sets the flag with release semantics;
 * the reader tests the flag with acquire semantics, then reads the entry.
 */
static inline bool xiw_uslot_valid(const u16 *flags)
{
	/* Pairs with the provider's release store of VALID. */
	return smp_load_acquire(flags) & SIW_WQE_VALID;
}

static inline void xiw_uslot_free(u16 *flags)
{
	/* Full barrier: a later look at the next slot must not pass this. */
	smp_store_mb(*flags, 0);
}

/* A receive queue entry. */
struct xiw_rwqe {
	u64 wr_id;
	u32 len;		/* octets the SGEs hold */
	u32 num_sge;
	struct ib_sge sge[XIW_MAX_SGE];
};

/* A shared receive queue (srq.c). */
struct xiw_srq {
	struct ib_srq ibsrq;
	spinlock_t lock;
	struct siw_rqe *ring;		/* size slots, kernel or user memory */
	u32 size;			/* a power of two */
	u32 max_sge;
	u32 get;			/* next slot to take, under lock */
	u32 put;			/* next slot to post (kernel), under lock */
	u32 limit;
	bool armed;			/* the limit event is due */
	struct rdma_user_mmap_entry *umap;	/* user SRQ: the ring's */
};

/* An inbound RDMA Read Request waiting for its response. */
struct xiw_rreq {
	u32 sink_stag;
	u32 src_stag;
	u64 sink_to;
	u64 src_to;
	u32 len;
};

/*
 * An FPDU on its way into TCP (qp_tx.c): framing octets in the FPDU
 * buffer, payload in the buffer too or, for a gathering send, where the
 * message lies (one run per page, up to 17 for a 64 KiB FPDU, more at SGE
 * ends). A page of payload is held until TCP has copied it.
 */
#define XIW_TX_RUNS	40

struct xiw_tx_runs {
	union {
		struct xiw_iov iov[XIW_TX_RUNS];	/* the core's */
		struct kvec kv[XIW_TX_RUNS];		/* then TCP's */
	};
	struct page *held[XIW_TX_RUNS];	/* payload pages, as viewed */
	struct page *page[XIW_TX_RUNS];	/* per run; NULL: in tx_buf */
	u64 zc;			/* runs TCP sends without copying */
	u32 n;			/* runs */
	u32 first;		/* the first not sent in full */
	u32 nheld;
};

/* Where placement stands inside a list of SGEs. */
struct xiw_cursor {
	struct xiw_device *xdev;
	struct ib_pd *pd;	/* whose MRs the SGEs must name */
	int access;		/* and the rights they must grant */
	const struct ib_sge *sge;
	u32 num_sge;
	u32 i;			/* current SGE */
	u32 off;		/* octets into it */
};

struct xiw_qp {
	struct ib_qp ibqp;
	struct kref ref;		/* the core's, plus the CM's */
	struct completion freed;	/* last reference dropped */
	spinlock_t lock;		/* state, attributes, cep */
	enum ib_qp_state state;		/* written under lock (WRITE_ONCE),
					 * read anywhere with READ_ONCE
					 */
	int access;
	u16 ird;			/* inbound reads we serve, and */
	u16 ord;			/* outbound reads we issue: written
					 * under lock when the QP connects or
					 * is modified (WRITE_ONCE), read
					 * under sq_lock with READ_ONCE
					 */
	bool sq_sig_all;
	struct xiw_cep *cep;		/* the connection, while there is one */
	/*
	 * What MPA agreed and the peer's address, once connected: written
	 * under lock before the data path starts, read under lock
	 * (restrack.c) or by the data path (log lines). mpa.rev is 0 until
	 * then (the QP starts zeroed).
	 */
	struct xiw_mpa_agreed mpa;
	struct sockaddr_storage peer;
	/*
	 * How the data path ends the connection: set by the CM when it binds
	 * the QP (under lock, WRITE_ONCE), read with READ_ONCE, never
	 * cleared (xiw_cm_qp_drop() copes with a connection already gone).
	 */
	void (*llp_close)(struct xiw_qp *qp);

	/*
	 * Send queue, under sq_lock: the work requests, and their life cycle
	 * (include/xiw/send_queue.h) in the core's sq_ring over sq_slots.
	 */
	spinlock_t sq_lock;
	struct xiw_swqe *sq;
	struct xiw_sq_slot *sq_slots;
	struct xiw_sq sq_ring;
	u32 sq_size;			/* a power of two */
	/* Our READs out and the peer's Read Requests held, under sq_lock. */
	struct xiw_tx_order order;

	/* Receive queue, under rq_lock. */
	spinlock_t rq_lock;
	struct xiw_rwqe *rq;
	u32 rq_size;
	u32 rq_head;
	u32 rq_tail;

	struct xiw_srq *srq;		/* receives come from here if set */
	bool last_wqe_reported;		/* IB_EVENT_QP_LAST_WQE_REACHED */

	/* User QP: the siw ABI rings; the SQ ring's slots match sq's. */
	struct siw_sqe *usq;
	struct siw_rqe *urq;
	u32 urq_get;			/* next RQ ring slot, under rq_lock */
	struct rdma_user_mmap_entry *sq_umap;
	struct rdma_user_mmap_entry *rq_umap;

	/* Inbound Read Requests, in the slots order names, under sq_lock. */
	struct xiw_rreq *irq;		/* XIW_MAX_IRD slots */

	/* Transmit: only the tx work touches these, under tx_mutex. */
	struct mutex tx_mutex;
	struct work_struct tx_work;
	struct socket *tx_sock;		/* borrowed from the CM while streaming */
	struct xiw_stx *stx;		/* xiw_stx_size() */
	u8 *tx_buf;			/* one FPDU */
	u32 tx_buf_size;
	u32 tx_mss;			/* the TCP MSS MULPDU was sized to */
	u32 tx_size;			/* what an FPDU may fill: MSS or GSO */
	bool tx_gso;			/* the peer agreed to GSO-sized FPDUs */
	bool tx_markers;		/* we insert Markers */
	bool tx_crc;			/* our FPDUs carry a CRC */
	u32 tx_len, tx_off;		/* FPDU octets built, sent */
	struct xiw_tx_runs tx_runs;	/* what of the FPDU is left to send */
	u8 tx_mode;			/* enum xiw_tx_payload, per message */
	struct xiw_zc *tx_zc;		/* zero-copy: the message's notification */
	bool tx_zc_pages;		/* TCP took pages of it (not all slab) */
	struct xiw_zc_owner *zc_owner;	/* zcopy.c */
	u32 tx_cur;			/* SQ index of the message, or ~0 */
	bool tx_read_resp;		/* the message is a Read Response */
	struct xiw_rreq tx_rreq;
	struct xiw_cursor tx_cursor;
	u32 tx_cursor_pos;		/* message offset of tx_cursor */
	bool term_pending;		/* a TERMINATE is due, then close; set
					 * by receive, cleared by transmit:
					 * READ_ONCE/WRITE_ONCE
					 */
	int pending_event;		/* enum ib_event_type + 1, or 0 */
	bool tx_fenced;			/* MPA fencing: nothing before an FPDU
					 * in; set by transmit, cleared by
					 * receive: READ_ONCE/WRITE_ONCE
					 */

	/* Receive: runs under the socket lock (data_ready). */
	struct xiw_srx *srx;		/* xiw_srx_size() */
	struct xiw_placer *placer;	/* xiw_placer_size() */
	bool rx_dead;
	struct xiw_rwqe rx_wqe;		/* the receive being filled */
	bool rx_wqe_valid;		/* under rq_lock */
	u8 rx_target;			/* XIW_TARGET_* of this segment, or 0 */
	u32 rx_left;			/* octets the target still takes */
	u32 rx_stag;			/* WRITE: the segment's STag */
	u64 rx_to;			/* and where its next octet goes */
	/*
	 * One cursor per kind of message, so that a segment never lands
	 * where another message's segment left off: the open SEND's receive
	 * (bound at MO 0, kept until its last segment) and the oldest
	 * READ's sink (set from each Read Response segment's own TO).
	 */
	struct xiw_cursor rx_send_cursor;
	struct xiw_cursor rx_resp_cursor;
};

struct xiw_pd {
	struct ib_pd ibpd;
};

struct xiw_mr {
	struct ib_mr ibmr;
	u32 index;		/* STag bits 31..8 */
	u8 key;			/* STag bits 7..0 */
	bool frwr;		/* fast-register MR, else a DMA MR */
	bool valid;		/* the STag may be used */
	u8 page_shift;
	int access;
	u64 iova;		/* FRWR: as registered */
	u64 length;
	u64 fbo;		/* first octet's offset in pages[0] */
	u64 *pages;		/* kernel virtual page addresses, or NULL */
	struct ib_umem *umem;	/* user MR: the pinned pages */
	u32 npages;
	u32 max_pages;
	struct rcu_head rcu;
};

#define XIW_MAX_FRWR_PAGES	256
#define XIW_MAX_USER_MR		(1ULL << 40)

struct xiw_ucontext {
	struct ib_ucontext ibuctx;
};

/* The user context of a verb called with @udata (from user space). */
static inline struct ib_ucontext *xiw_uctx(struct ib_udata *udata)
{
	return &rdma_udata_to_drv_context(udata, struct xiw_ucontext,
					  ibuctx)->ibuctx;
}

static inline struct xiw_device *to_xiw_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct xiw_device, ibdev);
}

static inline struct xiw_cq *to_xiw_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct xiw_cq, ibcq);
}

static inline struct xiw_qp *to_xiw_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct xiw_qp, ibqp);
}

/* The work request in send queue slot @idx (free-running). */
static inline struct xiw_swqe *xiw_swqe_at(struct xiw_qp *qp, u32 idx)
{
	return &qp->sq[idx & (qp->sq_size - 1)];
}

static inline struct xiw_srq *to_xiw_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct xiw_srq, ibsrq);
}

static inline struct xiw_mr *to_xiw_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct xiw_mr, ibmr);
}

/* device.c: rdma link ops, device lifetime, netdev events */
int xiw_device_init(void);
void xiw_device_exit(void);

/* verbs.c */
extern const struct ib_device_ops xiw_verbs_ops;
extern const struct ib_device_ops xiw_stats_ops;
/* restrack.c */
extern const struct ib_device_ops xiw_restrack_ops;

/* cq.c */
#ifdef XIW_HAVE_CQ_ATTRS
int xiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs);
#else
int xiw_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata);
#endif
int xiw_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int xiw_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int xiw_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int xiw_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
#define XIW_CQ_NOTIFY	0x1
#define XIW_CQ_OVERFLOW	0x2
int xiw_cq_add(struct ib_cq *ibcq, const struct ib_wc *wc, bool solicited);
void xiw_cq_kick(struct ib_cq *ibcq, int todo);

/* mr.c */
struct ib_mr *xiw_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *xiw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 virt, int access, struct ib_udata *udata);
int xiw_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *xiw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg);
int xiw_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
int xiw_mr_register(struct xiw_device *xdev, struct ib_pd *pd, u32 stag,
		    int access);
int xiw_mr_invalidate(struct xiw_device *xdev, u32 stag, struct ib_pd *pd);
int xiw_mr_check(struct xiw_device *xdev, u32 stag, struct ib_pd *pd,
		 int access, u64 addr, u64 len);
int xiw_mem_copy(struct xiw_device *xdev, u32 stag, struct ib_pd *pd,
		 int access, u64 addr, void *buf, u32 len, bool to_mem);
int xiw_mem_view(struct xiw_device *xdev, u32 stag, struct ib_pd *pd,
		 int access, u64 addr, u32 len, const void **p,
		 struct page **page);

/* qp_verbs.c */
int xiw_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata);
int xiw_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int xiw_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int xiw_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int xiw_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad);
int xiw_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad);

/* qp.c: the queues and state, called from everything above */
int xiw_tx_init(void);
void xiw_tx_exit(void);
void xiw_qp_kick(struct xiw_qp *qp);
struct xiw_qp *xiw_qp_lookup(struct xiw_device *xdev, u32 qpn);
void xiw_qp_get(struct xiw_qp *qp);
void xiw_qp_put(struct xiw_qp *qp);
void xiw_qp_connected(struct xiw_qp *qp, const struct xiw_mpa_agreed *a,
		      const struct sockaddr_storage *peer, u16 ird, u16 ord);
void xiw_qp_disconnected(struct xiw_qp *qp);
void xiw_qp_to_error(struct xiw_qp *qp);
void xiw_qp_fatal(struct xiw_qp *qp, enum ib_event_type ev);
void xiw_qp_report_event(struct xiw_qp *qp);
void xiw_qp_last_wqe(struct xiw_qp *qp);
void xiw_qp_complete_sq(struct xiw_qp *qp);
void xiw_qp_zc_sent(struct xiw_qp *qp, u32 sq_idx);
void xiw_qp_flush(struct xiw_qp *qp);
void xiw_cursor_init(struct xiw_cursor *c, struct ib_pd *pd, int access,
		     const struct ib_sge *sge, u32 num_sge, u32 off);
int xiw_cursor_put(struct xiw_cursor *c, const void *src, u32 len);
int xiw_cursor_get(struct xiw_cursor *c, void *dst, u32 len);
int xiw_cursor_view(struct xiw_cursor *c, u32 len, const void **p,
		    struct page **page);

s64 xiw_sge_len(const struct ib_sge *sge, int num);
bool xiw_sge_usable(struct xiw_qp *qp, const struct ib_sge *sge, int num,
		    int access);
void xiw_qp_pull_usq(struct xiw_qp *qp);
bool xiw_swqe_start(struct xiw_qp *qp, struct xiw_swqe *w, u8 *status);

/* srq.c */
int xiw_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int xiw_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int xiw_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int xiw_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int xiw_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad);
bool xiw_rqe_take(struct siw_rqe *slot, struct xiw_rwqe *r);
bool xiw_srq_take(struct xiw_srq *srq, struct xiw_rwqe *r, bool *limit);
void xiw_srq_limit_event(struct xiw_srq *srq);

/* qp_tx.c: the transmit work */
void xiw_qp_tx_setup(struct xiw_qp *qp);
void xiw_qp_tx_release(struct xiw_qp *qp);
void xiw_qp_tx_now(struct xiw_qp *qp);
int xiw_qp_stream_start(struct xiw_qp *qp, struct socket *sock,
			const struct xiw_stream_cfg *tx,
			const struct xiw_stream_cfg *rx, bool fenced, bool gso);
void xiw_qp_stream_stop(struct xiw_qp *qp);

/* zcopy.c: zero-copy transmit's notifications */
extern const bool xiw_zc_built;
int xiw_zc_attach(struct xiw_qp *qp);
void xiw_zc_detach(struct xiw_qp *qp);
bool xiw_zc_pending(struct xiw_qp *qp);
struct xiw_zc *xiw_zc_new(struct xiw_qp *qp, u32 sq_idx);
struct ubuf_info *xiw_zc_ubuf(struct xiw_zc *zc);
void xiw_zc_put(struct xiw_zc *zc);
void xiw_zc_exit(void);

/* qp_rx.c: placement from sk_data_ready */
void xiw_qp_rx_start(struct xiw_qp *qp);
void xiw_qp_rx(struct xiw_qp *qp, struct sock *sk);

/* umap.c: rings shared with user space */
void *xiw_umap_alloc(struct ib_ucontext *uctx, size_t len, u64 *key,
		     struct rdma_user_mmap_entry **entry);
void xiw_umap_remove(struct rdma_user_mmap_entry *entry);
int xiw_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void xiw_mmap_free(struct rdma_user_mmap_entry *e);

/* crc.c: CRC32c through the kernel crypto API */
int xiw_crc_init(void);
void xiw_crc_exit(void);
const char *xiw_crc_driver(void);
extern const struct xiw_env xiw_kernel_env;
int xiw_crc32c_update(void *ctx, xiw_u32 *state, const void *buf,
		      xiw_size len);

#endif /* XIW_GLUE_H */
