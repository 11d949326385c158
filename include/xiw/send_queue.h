/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The send queue's life cycle: which work request starts next, when each
 * is done, and which completes next (RFC 5040 section 5.5: in the order
 * they were posted, each once).
 *
 * Three free-running indices, head <= tx <= tail:
 *
 *   head  the oldest work request not completed
 *   tx    the next one to start
 *   tail  the next free slot
 *
 * and a state per slot:
 *
 *   POSTED  waiting to start (or done already: a bad user WQE, which
 *           completes with its error once the queue reaches it)
 *   OUT     started: a message being sent, or a READ waiting for its
 *           whole Read Response
 *   ZC      sent; TCP still holds its pages (zero-copy), and it is done
 *           when TCP lets them go
 *   DONE    done, with a status; completes once every older one has
 *
 * A late event (a zero-copy release or a "sent" for a work request that a
 * flush completed, a Read Response for no READ) changes nothing: each
 * event names its slot by index and the state it expects there.
 *
 * The glue holds the work requests themselves in an array of the same
 * size and the slot states in an array of struct xiw_sq_slot it gives to
 * xiw_sq_init(); it embeds struct xiw_sq and makes every call under its
 * send-queue lock, but never reads or writes the fields itself. Statuses
 * are the glue's own values, stored and given back; 0 means success.
 */
#ifndef XIW_SEND_QUEUE_H
#define XIW_SEND_QUEUE_H

#include "tx_order.h"
#include "types.h"

struct xiw_sq_slot {
	xiw_u8 state;		/* XIW_SQ_POSTED ... (core use only) */
	xiw_u8 flags;		/* XIW_WR_* of include/xiw/tx_order.h */
	xiw_u8 status;		/* once DONE; 0 is success */
	xiw_u8 pad;
};

struct xiw_sq {
	struct xiw_sq_slot *slot;	/* size of them, the glue's memory */
	xiw_u32 size;			/* a power of two */
	xiw_u32 head;
	xiw_u32 tx;
	xiw_u32 tail;
};

/* What xiw_sq_next() found at tx. */
#define XIW_SQ_NONE	0	/* nothing may start now */
#define XIW_SQ_START	1	/* *idx may start: xiw_sq_start() or xiw_sq_done() */
#define XIW_SQ_FAILED	2	/* a work request done with an error was passed */

/* A completion: its slot, its status, and whether a flush ended it. */
struct xiw_sq_cqe {
	xiw_u32 idx;
	xiw_u8 status;
	xiw_u8 flushed;
};

#ifdef __cplusplus
extern "C" {
#endif

/* @size slots, a power of two, zeroed or not. */
void xiw_sq_init(struct xiw_sq *q, struct xiw_sq_slot *slots, xiw_u32 size);
/* 0 and the index of the next free slot, or -XIW_ENOMEM when full. */
int xiw_sq_reserve(const struct xiw_sq *q, xiw_u32 *idx);
/* The reserved slot holds a work request of XIW_WR_* @flags now. */
void xiw_sq_post(struct xiw_sq *q, xiw_u32 flags);
/* The reserved slot holds a work request done already with @status. */
void xiw_sq_post_done(struct xiw_sq *q, xiw_u8 status);
/*
 * Whether the next work request may start under the transmit order @o
 * and @ord. Passes over those done already (success), and stops past the
 * first done with an error (XIW_SQ_FAILED: the QP goes to ERROR).
 */
int xiw_sq_next(struct xiw_sq *q, const struct xiw_tx_order *o, xiw_u32 ord,
		xiw_u32 *idx);
/* The work request at @idx (xiw_sq_next()'s) starts as a message. */
void xiw_sq_start(struct xiw_sq *q, struct xiw_tx_order *o, xiw_u32 idx);
/*
 * The work request at @idx (xiw_sq_next()'s) is done without a message
 * (REG_MR, LOCAL_INV, or SGEs that fail their check), with @status.
 */
void xiw_sq_done(struct xiw_sq *q, xiw_u32 idx, xiw_u8 status);
/*
 * The last FPDU of the message at @idx went out: done, or with @zc
 * waiting for TCP to let its pages go. A READ waits for its response
 * instead. 0, or -XIW_EINVAL if @idx is not a message out.
 */
int xiw_sq_sent(struct xiw_sq *q, xiw_u32 idx, int zc);
/*
 * TCP let go of the pages of the message at @idx. Done, unless the QP is
 * in ERROR (@in_error: TCP may have dropped them unsent; the flush
 * completes it) or it is no longer waiting (a flush completed it).
 */
void xiw_sq_zc_released(struct xiw_sq *q, xiw_u32 idx, int in_error);
/* 0 and the oldest READ waiting for its response, or XIW_RX_UNEXPECTED. */
int xiw_sq_read_oldest(const struct xiw_sq *q, xiw_u32 *idx);
/*
 * The oldest READ's response arrived in full: it is done, and no longer
 * counts against the ORD in @o. 0 and its index, or XIW_RX_UNEXPECTED.
 */
int xiw_sq_read_done(struct xiw_sq *q, struct xiw_tx_order *o, xiw_u32 *idx);
/* 1 and the next completion, in posting order, or 0. */
int xiw_sq_complete(struct xiw_sq *q, struct xiw_sq_cqe *c);
/*
 * 1 and the next completion of a flush (done ones keep their status, the
 * rest are flushed), or 0 once the queue is empty; nothing is then left
 * to start.
 */
int xiw_sq_flush(struct xiw_sq *q, struct xiw_sq_cqe *c);

#ifdef __cplusplus
}
#endif

XIW_STATIC_ASSERT(sizeof(struct xiw_sq_slot) == 4, "xiw_sq_slot size");
XIW_STATIC_ASSERT(sizeof(struct xiw_sq_cqe) == 8, "xiw_sq_cqe size");
XIW_STATIC_ASSERT(XIW_OFFSETOF(struct xiw_sq, size) == sizeof(void *),
		  "xiw_sq layout");
XIW_STATIC_ASSERT(sizeof(struct xiw_sq) == sizeof(void *) + 16,
		  "xiw_sq size");

#endif /* XIW_SEND_QUEUE_H */
