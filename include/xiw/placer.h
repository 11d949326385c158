/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive placement (RFC 5040 sections 5 to 7, RFC 5041 section 5): the
 * core decides where every payload octet of a received segment goes, and
 * refuses the segment with the XIW_RX_* reason that the stream receiver
 * turns into the TERMINATE the RFCs name.
 *
 * The placer sits behind the stream receiver (include/xiw/stream.h): it
 * is the receiver's sink. It keeps the receive side's own state (the open
 * SEND's receive and how far it is filled, how much of the oldest READ's
 * response has arrived, whether the peer has terminated) and asks the
 * glue, through struct xiw_rx_ops, for what only the glue has: posted
 * receives, the READs outstanding on the send queue, the inbound Read
 * Request queue, and the memory registry's STag checks. The glue copies
 * a payload run only to the target the placer named (ops->target) and
 * never more octets than that target's length.
 */
#ifndef XIW_PLACER_H
#define XIW_PLACER_H

#include "stream.h"
#include "types.h"

/* The glue's queue pair: a handle the core passes back, never reads. */
struct xiw_qp;
/* The core's placer: xiw_placer_size() octets, owned by the glue. */
struct xiw_placer;

/* Access rights a tagged segment needs of its STag (RFC 5040 section 5). */
#define XIW_ACCESS_REMOTE_READ	1
#define XIW_ACCESS_REMOTE_WRITE	2

/* Where a segment's payload goes. */
#define XIW_TARGET_RECV		1	/* the open SEND's receive */
#define XIW_TARGET_TAGGED	2	/* a WRITE's STag, at a tagged offset */
#define XIW_TARGET_SINK		3	/* the oldest READ's sink */

struct xiw_target {
	xiw_u8 kind;		/* XIW_TARGET_* */
	xiw_u8 reserved[3];
	xiw_u32 stag;		/* TAGGED: the STag; SINK: the READ's sink STag */
	/* RECV: offset in the receive; TAGGED: the TO; SINK: in the sink */
	xiw_u64 off;
	xiw_u32 len;		/* payload octets that follow, in runs */
	xiw_u32 reserved2;
};

/* The open receive is complete. */
#define XIW_RECV_SOLICITED	1	/* a Send with Solicited Event */
#define XIW_RECV_INVALIDATED	2	/* a Send with Invalidate: inv_stag */

struct xiw_recv_done {
	xiw_u32 byte_len;	/* octets of the message */
	xiw_u32 inv_stag;	/* XIW_RECV_INVALIDATED: the STag invalidated */
	xiw_u32 flags;		/* XIW_RECV_* */
	xiw_u32 reserved;
};

struct xiw_rx_ops {
	/* A new SEND takes the next receive: 0 and its length, or NO_BUFFER */
	int (*recv_take)(struct xiw_qp *qp, xiw_u32 *len);
	/* The oldest READ outstanding (sink STag, length) or RX_UNEXPECTED */
	int (*read_oldest)(struct xiw_qp *qp, struct xiw_read_sink *read);
	/* Read Requests queued or being answered, and the IRD in force. */
	void (*read_queue)(struct xiw_qp *qp, xiw_u32 *used, xiw_u32 *ird);
	/*
	 * A tagged access to [to, to + len) of @stag with XIW_ACCESS_*
	 * rights by the QP's PD: 0 or the XIW_RX_* refusal.
	 */
	int (*mr_check)(struct xiw_qp *qp, xiw_u32 stag, xiw_u64 to,
			xiw_u32 len, xiw_u32 access);
	/*
	 * The next payload runs go to @t: 0, or XIW_RX_LOCAL if the target
	 * went away (a flush) since the placer chose it.
	 */
	int (*target)(struct xiw_qp *qp, const struct xiw_target *t);
	/* The next payload run for the target: 0 or XIW_RX_*. */
	int (*put)(struct xiw_qp *qp, const void *buf, xiw_size len);
	/* Invalidates @stag for a Send with Invalidate: 0 or XIW_RX_*. */
	int (*invalidate)(struct xiw_qp *qp, xiw_u32 stag);
	/* The open receive holds a whole SEND: it completes. */
	void (*recv_done)(struct xiw_qp *qp, const struct xiw_recv_done *d);
	/*
	 * The oldest READ has its whole response: it completes. 0, or
	 * XIW_RX_* if no READ was outstanding after all (read_oldest said one
	 * was: a broken invariant, which ends the stream).
	 */
	int (*read_done)(struct xiw_qp *qp);
	/*
	 * A Read Request, checked against the IRD and its source STag, to
	 * queue: 0, or XIW_RX_* if it cannot be queued (read_queue said it
	 * could: a broken invariant, which ends the stream).
	 */
	int (*read_req)(struct xiw_qp *qp, const struct xiw_seg *seg);
	/* A segment passed its CRC (MPA fencing may end). */
	void (*validated)(struct xiw_qp *qp);
	/* The peer sent a TERMINATE: nothing after it takes effect. */
	void (*terminated)(struct xiw_qp *qp,
			   const struct xiw_term_cause *cause);
};

#ifdef __cplusplus
extern "C" {
#endif

xiw_size xiw_placer_size(void);
/* A placer for a new stream in @mem, answering to @ops for @qp */
struct xiw_placer *xiw_placer_init(void *mem, const struct xiw_rx_ops *ops,
				   struct xiw_qp *qp);
/*
 * Feeds stream octets to the receiver @srx with @p placing its segments:
 * xiw_srx_consume()'s result.
 */
int xiw_placer_consume(struct xiw_placer *p, struct xiw_srx *srx,
		       const void *buf, xiw_size len);
/*
 * The placer as a stream sink, its context the struct xiw_placer: for a
 * caller that feeds segments itself (the host tests) or watches them.
 */
const struct xiw_stream_sink *xiw_placer_sink(void);

#ifdef __cplusplus
}
#endif

XIW_STATIC_ASSERT(sizeof(struct xiw_target) == 24, "xiw_target size");
XIW_STATIC_ASSERT(sizeof(struct xiw_recv_done) == 16, "xiw_recv_done size");
XIW_STATIC_ASSERT(sizeof(struct xiw_rx_ops) == 12 * sizeof(void *),
		  "xiw_rx_ops size");

#endif /* XIW_PLACER_H */
