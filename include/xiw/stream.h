/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DDP/RDMAP stream of one connection in Full Operation (RFC 5040,
 * RFC 5041 over RFC 5044): the sender segments RDMAP messages into FPDUs,
 * the receiver parses and checks FPDUs and DDP segments and hands each
 * segment to the glue for placement. Queues, memory and completions are
 * the glue's; the protocol rules and the TERMINATE codes are the core's.
 */
#ifndef XIW_STREAM_H
#define XIW_STREAM_H

#include "env.h"
#include "types.h"

/* RDMAP opcodes (RFC 5040 section 4.3) */
#define XIW_OP_WRITE		0
#define XIW_OP_READ_REQ		1
#define XIW_OP_READ_RESP	2
#define XIW_OP_SEND		3
#define XIW_OP_SEND_INV		4
#define XIW_OP_SEND_SE		5
#define XIW_OP_SEND_SE_INV	6
#define XIW_OP_TERMINATE	7

/*
 * Why the glue refuses a segment; the core turns it into the TERMINATE's
 * layer, type and code for the kind of segment refused.
 */
#define XIW_RX_STAG_INVALID	1	/* no such STag, or not valid */
#define XIW_RX_BOUNDS		2	/* outside the region */
#define XIW_RX_ACCESS		3	/* access rights */
#define XIW_RX_NOT_IN_STREAM	4	/* the STag's PD is not the QP's */
#define XIW_RX_NO_BUFFER	5	/* untagged: no receive posted */
#define XIW_RX_TOO_LONG		6	/* untagged: message above the buffer */
#define XIW_RX_CANNOT_INVALIDATE 7	/* Send with Invalidate refused */
#define XIW_RX_READ_QUEUE_FULL	8	/* Read Requests above the IRD */
#define XIW_RX_UNEXPECTED	9	/* e.g. a Read Response nobody asked for */
#define XIW_RX_LOCAL		10	/* local catastrophic error */
#define XIW_RX_TO_WRAP		11	/* tagged: TO + length beyond 2^64 */

struct xiw_stream_cfg {
	xiw_u8 markers;		/* tx: insert, rx: expect MPA Markers */
	xiw_u8 crc;		/* CRC32c in use */
	xiw_u8 rtr_sent;	/* RTR we sent: XIW_MPA_CTRL_B/C/D, or 0 */
	xiw_u8 rtr_recv;	/* RTR we received: XIW_MPA_CTRL_B/C/D, or 0 */
	xiw_u16 mulpdu;		/* tx: largest ULPDU */
	xiw_u16 reserved2;
	xiw_u32 pos;		/* stream octets since Full Operation began */
};

/* One outbound RDMAP message. */
struct xiw_msg {
	xiw_u8 opcode;		/* XIW_OP_* */
	xiw_u8 reserved[3];
	xiw_u32 len;		/* payload octets */
	xiw_u32 stag;		/* tagged: sink STag; SEND_INV: STag to invalidate */
	xiw_u32 read_size;	/* READ_REQ: octets to read */
	xiw_u64 to;		/* tagged: sink tagged offset */
	xiw_u32 sink_stag;	/* READ_REQ */
	xiw_u32 src_stag;	/* READ_REQ */
	xiw_u64 sink_to;	/* READ_REQ */
	xiw_u64 src_to;		/* READ_REQ */
};

/* One received DDP segment, checked and decoded. */
struct xiw_seg {
	xiw_u8 opcode;		/* XIW_OP_* */
	xiw_u8 last;		/* the message's last segment */
	xiw_u8 reserved[2];
	xiw_u32 len;		/* payload octets in this segment */
	xiw_u32 stag;		/* tagged: STag; SEND_INV: STag to invalidate */
	xiw_u32 msn;		/* untagged */
	xiw_u32 mo;		/* untagged: message offset of this segment */
	xiw_u32 read_size;	/* READ_REQ */
	xiw_u64 to;		/* tagged: tagged offset of this segment */
	xiw_u32 sink_stag;	/* READ_REQ */
	xiw_u32 src_stag;	/* READ_REQ */
	xiw_u64 sink_to;	/* READ_REQ */
	xiw_u64 src_to;		/* READ_REQ */
};

/* A READ this side has outstanding, as the Read Response placement sees it. */
struct xiw_read_sink {
	xiw_u32 stag;		/* the sink STag its Read Request named, at TO 0 */
	xiw_u32 len;		/* octets it asked for */
	xiw_u32 got;		/* octets of its response placed so far */
	xiw_u32 reserved;
};

/* Layer, type and code of a TERMINATE (RFC 5040 section 4.8). */
struct xiw_term_cause {
	xiw_u8 layer;		/* 0 RDMAP, 1 DDP, 2 LLP */
	xiw_u8 etype;
	xiw_u8 code;
	xiw_u8 valid;		/* 0: none */
};

struct xiw_stream_sink {
	/* A segment's headers arrived: 0, or XIW_RX_* to refuse it. */
	int (*seg_begin)(void *ctx, const struct xiw_seg *seg);
	/* The segment's payload, in order, in runs. */
	int (*seg_data)(void *ctx, const void *buf, xiw_size len);
	/* The segment passed its CRC: it may be delivered. */
	int (*seg_end)(void *ctx, const struct xiw_seg *seg);
	/* The peer sent a TERMINATE. */
	void (*terminate)(void *ctx, const struct xiw_term_cause *cause);
};

/* Copies message octets [off, off + len) to @dst: 0 or a negative errno */
typedef int (*xiw_fetch_fn)(void *ctx, xiw_u32 off, void *dst, xiw_size len);

/*
 * Points *@src at message octets [off, off + n) where they lie, for
 * 1 <= n <= @len, and returns n; or a negative errno. -EOPNOTSUPP: this
 * memory cannot be sent in place; the FPDU is to be copied instead.
 */
typedef int (*xiw_view_fn)(void *ctx, xiw_u32 off, xiw_size len,
			   const void **src);

/* One run of an FPDU described in place: the FPDU is its runs in order. */
struct xiw_iov {
	const void *base;
	xiw_size len;
};

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The stream's two halves are opaque handles: the caller gives them
 * xiw_stx_size() / xiw_srx_size() octets (8-aligned) and init() starts a
 * new stream in that memory, returning the handle to pass to the rest.
 */
struct xiw_stx;
struct xiw_srx;

xiw_size xiw_stx_size(void);
struct xiw_stx *xiw_stx_init(void *mem, const struct xiw_env *env,
			     const struct xiw_stream_cfg *cfg);
/* Starts a message: 0, -EBUSY (one is open), -EINVAL or -EMSGSIZE */
int xiw_stx_begin(struct xiw_stx *tx, const struct xiw_msg *msg);
/* No message open */
int xiw_stx_idle(const struct xiw_stx *tx);
/* Octets a buffer for next() must hold */
xiw_size xiw_stx_fpdu_max(const struct xiw_stx *tx);
/* MULPDU from the next FPDU on, clamped to 128..64768: what is in effect */
xiw_u16 xiw_stx_set_mulpdu(struct xiw_stx *tx, xiw_u16 mulpdu);
/* The open message's next FPDU into @buf: wire octets or a negative errno */
int xiw_stx_next(struct xiw_stx *tx, void *buf, xiw_size len,
		 xiw_fetch_fn fetch, void *ctx);
/*
 * The same FPDU as at most *@runs runs into @iov (*@runs: how many on
 * return): framing octets written to @buf, payload in place (@view).
 * Wire octets, or a negative errno with nothing of the FPDU taken:
 * -ENOBUFS if it needs more runs, or @view's error.
 */
int xiw_stx_next_iov(struct xiw_stx *tx, void *buf, xiw_size len,
		     xiw_view_fn view, void *ctx, struct xiw_iov *iov,
		     xiw_u32 *runs);
/* A TERMINATE FPDU for @cause, with the refused segment's headers if any */
int xiw_stx_terminate(struct xiw_stx *tx, const struct xiw_srx *rx,
		      void *buf, xiw_size len);
/* Stream octets sent so far */
xiw_u32 xiw_stx_position(const struct xiw_stx *tx);

xiw_size xiw_srx_size(void);
struct xiw_srx *xiw_srx_init(void *mem, const struct xiw_env *env,
			     const struct xiw_stream_cfg *cfg);
/* 0, or a negative errno once the stream is broken; see xiw_srx_cause() */
int xiw_srx_consume(struct xiw_srx *rx, const void *buf, xiw_size len,
		    const struct xiw_stream_sink *sink, void *ctx);
/* What the TERMINATE for the error that stopped the stream says */
void xiw_srx_cause(const struct xiw_srx *rx, struct xiw_term_cause *out);
/* Blame an error found outside the stream (a local catastrophe) */
void xiw_srx_fail(struct xiw_srx *rx, const struct xiw_term_cause *cause);

#ifdef __cplusplus
}
#endif

XIW_STATIC_ASSERT(sizeof(struct xiw_stream_cfg) == 12, "xiw_stream_cfg size");
XIW_STATIC_ASSERT(sizeof(struct xiw_msg) == 48, "xiw_msg size");
XIW_STATIC_ASSERT(sizeof(struct xiw_seg) == 56, "xiw_seg size");
XIW_STATIC_ASSERT(sizeof(struct xiw_read_sink) == 16, "xiw_read_sink size");
XIW_STATIC_ASSERT(sizeof(struct xiw_term_cause) == 4, "xiw_term_cause size");
XIW_STATIC_ASSERT(sizeof(struct xiw_iov) == 2 * sizeof(xiw_size), "xiw_iov size");
XIW_STATIC_ASSERT(sizeof(struct xiw_stream_sink) == 4 * sizeof(void *),
		  "xiw_stream_sink size");

#endif /* XIW_STREAM_H */
