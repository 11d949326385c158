/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transmit order: which message the send side may start next, and the
 * two counts that bound RDMA READs (RFC 5040 sections 4.8 and 6.4).
 *
 *   ORD  our READs outstanding: a READ counts from its Read Request until
 *        its whole Read Response has arrived;
 *   IRD  the peer's Read Requests held: one counts from its arrival until
 *        the last FPDU of its Read Response is built, that is before any
 *        of that FPDU's octets can reach the peer (the peer may send its
 *        next Read Request as soon as it has the response, and that one
 *        must find its slot free).
 *
 * A work request with a fence waits until no READ is outstanding; a READ
 * waits while ORD READs are (ORD 0 lets one go: the peer, which then
 * offered IRD 0, refuses it with the TERMINATE RFC 5040 names). Read
 * Responses go in the order their requests arrived, at message
 * boundaries, and first, but not for ever: after XIW_TX_RRESP_BURST of
 * them in a row, a send queue message that may start goes next. RFC 5040
 * leaves that interleaving to the implementation; strict priority let a
 * peer that keeps its ORD's worth of READs outstanding hold our send
 * queue back for as long as it kept reading.
 *
 * The glue holds the send queue and the slots of the inbound Read
 * Requests; the core keeps the counts in struct xiw_tx_order and decides.
 * The glue embeds the struct and makes every call under its send-queue
 * lock, but never reads or writes the fields itself.
 */
#ifndef XIW_TX_ORDER_H
#define XIW_TX_ORDER_H

#include "stream.h"
#include "types.h"

/* Slots for inbound Read Requests: the largest IRD there is. */
#define XIW_TX_IRQ_SLOTS	128
/* Read Responses in a row while a send queue message waits to start. */
#define XIW_TX_RRESP_BURST	4

struct xiw_tx_order {
	xiw_u32 reads_out;	/* our READs outstanding */
	xiw_u32 irq_tail;	/* Read Requests arrived */
	xiw_u32 irq_head;	/* Read Responses started */
	xiw_u32 irq_done;	/* Read Responses built in full */
	xiw_u32 rresp_run;	/* Responses started since our last message */
};

/* What a work request asks of the order. */
#define XIW_WR_FENCE	1	/* wait for every earlier READ */
#define XIW_WR_READ	2	/* an RDMA READ: counts against the ORD */

#ifdef __cplusplus
extern "C" {
#endif

void xiw_tx_order_init(struct xiw_tx_order *o);
/* 1 if the next work request (XIW_WR_* @flags) may start under @ord. */
int xiw_tx_may_start(const struct xiw_tx_order *o, xiw_u32 flags,
		     xiw_u32 ord);
/* The work request of @flags started: a READ is now outstanding. */
void xiw_tx_started(struct xiw_tx_order *o, xiw_u32 flags);
/* The oldest READ's response arrived in full: 0, or XIW_RX_UNEXPECTED. */
int xiw_tx_read_done(struct xiw_tx_order *o);
/* Inbound Read Requests held, to compare with the IRD in force. */
xiw_u32 xiw_tx_rreq_held(const struct xiw_tx_order *o);
/*
 * A Read Request arrived, within the IRD (the placer decides that, from
 * xiw_tx_rreq_held): 0 and the slot to keep it in, or
 * XIW_RX_READ_QUEUE_FULL when all XIW_TX_IRQ_SLOTS are held, which the
 * placer's rule makes impossible.
 */
int xiw_tx_rreq_admit(struct xiw_tx_order *o, xiw_u32 *slot);
/*
 * 1 if a Read Response is to start before the send queue's next message:
 * one is waiting, and fewer than XIW_TX_RRESP_BURST have started since
 * the send queue's last message. If not, the send queue goes first, and
 * a Read Response only if it has nothing that may start.
 */
int xiw_tx_rresp_first(const struct xiw_tx_order *o);
/* 1 and the slot of the next Read Response to start, or 0. */
int xiw_tx_rresp_next(struct xiw_tx_order *o, xiw_u32 *slot);
/* The last FPDU of the Read Response started first is built. */
void xiw_tx_rresp_built(struct xiw_tx_order *o);
/* A flush: nothing is outstanding or held any more. */
void xiw_tx_order_flush(struct xiw_tx_order *o);

#ifdef __cplusplus
}
#endif

XIW_STATIC_ASSERT(sizeof(struct xiw_tx_order) == 20, "xiw_tx_order size");

#endif /* XIW_TX_ORDER_H */
