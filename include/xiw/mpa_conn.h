/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MPA connection as the glue drives it: the Startup Phase state
 * machine (RFC 5044 section 7.1, RFC 6581) and the Full Operation framer.
 *
 * Objects live in memory the caller provides: ask for the size, allocate,
 * then init. They hold no pointers to kernel objects and need no destroy.
 */
#ifndef XIW_MPA_CONN_H
#define XIW_MPA_CONN_H

#include "env.h"
#include "mpa.h"

/* xiw_mpa_policy.crc */
#define XIW_MPA_CRC_REQUIRED	0	/* C = 1 always */
#define XIW_MPA_CRC_PREFERRED	1	/* C = 1; a Reply echoes the Request */
#define XIW_MPA_CRC_SUPPRESS	2	/* C = 0; CRC if the peer sets C */

/* xiw_mpa_policy.markers */
#define XIW_MPA_MARKERS_ACCEPT	0	/* M = 0; send Markers if asked */
#define XIW_MPA_MARKERS_REQUIRE	1	/* M = 1 */
#define XIW_MPA_MARKERS_REFUSE	2	/* M = 0; refuse a peer's M = 1 */

struct xiw_mpa_policy {
	xiw_u8 rev;		/* 1: RFC 5044 only, 2: RFC 6581 */
	xiw_u8 crc;		/* XIW_MPA_CRC_* */
	xiw_u8 markers;		/* XIW_MPA_MARKERS_* */
	xiw_u8 peer_to_peer;	/* initiator offers the peer-to-peer model */
	xiw_u8 rtr_types;	/* XIW_MPA_CTRL_B|C|D we generate and accept */
	xiw_u8 reject_short_ird;/* responder rejects a short initiator IRD */
	xiw_u8 retry_unenhanced;/* initiator: see xiw_mpa_step */
	xiw_u8 gso;		/* offer GSO-sized FPDUs (XIW_MPA_FLAG_G) */
	xiw_u32 request_ms;	/* timeouts, 0 for none */
	xiw_u32 reply_ms;
	xiw_u32 ulp_ms;
	xiw_u32 rtr_ms;
};

/* Read queue depths: ULP wishes (0x3fff: left to the ULP), device limits */
struct xiw_mpa_depths {
	xiw_u16 ird;
	xiw_u16 ord;
	xiw_u16 max_ird;
	xiw_u16 max_ord;
};

struct xiw_mpa_agreed {
	xiw_u8 rev;
	xiw_u8 enhanced;
	xiw_u8 crc;
	xiw_u8 send_markers;
	xiw_u8 recv_markers;
	xiw_u8 peer_to_peer;
	xiw_u8 rtr;		/* initiator: the RTR it sends; responder: accepted */
	xiw_u8 gso;		/* both offered G: FPDUs may span TCP segments */
	xiw_u16 ird;		/* local values to program */
	xiw_u16 ord;
	xiw_u16 peer_ird;	/* as the peer sent them (0x3fff: none) */
	xiw_u16 peer_ord;
};

/* xiw_mpa_step.timer */
#define XIW_MPA_TIMER_KEEP	0
#define XIW_MPA_TIMER_ARM	1
#define XIW_MPA_TIMER_CANCEL	2

/* xiw_mpa_step.upcall */
#define XIW_MPA_UP_NONE		0
#define XIW_MPA_UP_REQUEST	1	/* responder: a Request for the ULP */
#define XIW_MPA_UP_CONNECTED	2	/* Full Operation */
#define XIW_MPA_UP_REJECTED	3	/* initiator: the peer said R = 1 */
#define XIW_MPA_UP_FAILED	4	/* see xiw_mpa_hs_error() */

/* xiw_mpa_hs_state() */
#define XIW_MPA_HS_IDLE		0
#define XIW_MPA_HS_AWAIT_REQUEST 1
#define XIW_MPA_HS_AWAIT_REPLY	2
#define XIW_MPA_HS_AWAIT_ULP	3
#define XIW_MPA_HS_AWAIT_RTR	4
#define XIW_MPA_HS_RTR_PENDING	5
#define XIW_MPA_HS_ESTABLISHED	6
#define XIW_MPA_HS_REJECTED	7
#define XIW_MPA_HS_CLOSED	8

/*
 * What the glue does after an event, in this order: write @send_len bytes
 * at @send to TCP; send a TERMINATE with MPA code @terminate if non-zero;
 * send the RTR @rtr if non-zero and then call xiw_mpa_hs_rtr_sent(); close
 * if @close_after_send or @terminate; handle the timer; tell the ULP.
 */
struct xiw_mpa_step {
	const void *send;	/* points into the handshake object */
	xiw_u32 send_len;
	xiw_u32 consumed;	/* receive: input octets that were frames */
	xiw_u32 timer_ms;
	xiw_u8 timer;		/* XIW_MPA_TIMER_* */
	xiw_u8 upcall;		/* XIW_MPA_UP_* */
	xiw_u8 terminate;	/* XIW_MPA_ERR_* or 0 */
	xiw_u8 rtr;		/* XIW_MPA_CTRL_B|C|D or 0 */
	xiw_u8 close_after_send;
	xiw_u8 retry_unenhanced;/* failed on a close: may retry Rev 1 */
	xiw_u8 reserved[6];
};

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Opaque handles: the caller gives each xiw_mpa_*_size() octets (8-aligned)
 * and init() builds the object there, returning the handle to pass on.
 */
struct xiw_mpa_hs;
struct xiw_mpa_tx;
struct xiw_mpa_rx;

xiw_size xiw_mpa_hs_size(void);
/* The handle, or NULL for a policy out of range or @len too small. */
struct xiw_mpa_hs *xiw_mpa_hs_init(void *mem, xiw_size len,
				   const struct xiw_mpa_policy *p);
void xiw_mpa_hs_connect(struct xiw_mpa_hs *hs, const struct xiw_mpa_depths *d,
			const void *pd, xiw_u16 pd_len,
			struct xiw_mpa_step *out);
void xiw_mpa_hs_listen(struct xiw_mpa_hs *hs, struct xiw_mpa_step *out);
void xiw_mpa_hs_receive(struct xiw_mpa_hs *hs, const void *buf, xiw_size len,
			struct xiw_mpa_step *out);
/* Octets to read before the next xiw_mpa_hs_receive(); 0: none awaited */
xiw_size xiw_mpa_hs_rx_need(const struct xiw_mpa_hs *hs);
void xiw_mpa_hs_accept(struct xiw_mpa_hs *hs, const struct xiw_mpa_depths *d,
		       const void *pd, xiw_u16 pd_len,
		       struct xiw_mpa_step *out);
void xiw_mpa_hs_reject(struct xiw_mpa_hs *hs, const void *pd, xiw_u16 pd_len,
		       struct xiw_mpa_step *out);
void xiw_mpa_hs_rtr_sent(struct xiw_mpa_hs *hs, struct xiw_mpa_step *out);
void xiw_mpa_hs_first_fpdu(struct xiw_mpa_hs *hs, xiw_u8 rtr,
			   struct xiw_mpa_step *out);
/*
 * Responder, peer-to-peer: the first FPDU could not be taken whole;
 * framing is xiw_mpa_rx_error() (an XIW_MPA_ERR_* code, or 0 if it framed
 * well but is too long to be an RTR).
 */
void xiw_mpa_hs_first_fpdu_unreadable(struct xiw_mpa_hs *hs, int framing,
				      struct xiw_mpa_step *out);
void xiw_mpa_hs_timeout(struct xiw_mpa_hs *hs, struct xiw_mpa_step *out);
void xiw_mpa_hs_llp_closed(struct xiw_mpa_hs *hs, struct xiw_mpa_step *out);
int xiw_mpa_hs_state(const struct xiw_mpa_hs *hs);
int xiw_mpa_hs_error(const struct xiw_mpa_hs *hs);
int xiw_mpa_hs_may_send(const struct xiw_mpa_hs *hs);
/*
 * Why the Startup Phase ended without Full Operation, in RFC terms (a
 * static string for a log line), or NULL; *term gets the MPA code of the
 * TERMINATE sent for it, or 0.
 */
const char *xiw_mpa_hs_failure(const struct xiw_mpa_hs *hs, int *term);
void xiw_mpa_hs_agreed(const struct xiw_mpa_hs *hs,
		       struct xiw_mpa_agreed *out);
/* The peer's frame (Request or Reply) as decoded; ULP data at @pd_off. */
void xiw_mpa_hs_peer_frame(const struct xiw_mpa_hs *hs,
			   struct xiw_mpa_frame *out, const void **pd);

/*
 * Full Operation framing. The sink gets each ULPDU in runs; it counts as
 * delivered only at end(). A negative return stops the stream.
 */
struct xiw_mpa_rx_sink {
	int (*begin)(void *ctx, xiw_u16 len);
	int (*data)(void *ctx, const void *buf, xiw_size len);
	int (*end)(void *ctx);
};

xiw_size xiw_mpa_tx_size(void);
struct xiw_mpa_tx *xiw_mpa_tx_init(void *mem, const struct xiw_env *env,
				   int markers, int crc);
/* Whole FPDU for @len ULPDU octets; bytes written or -ENOSPC/-EMSGSIZE */
int xiw_mpa_tx_encode(struct xiw_mpa_tx *tx, const void *ulpdu, xiw_size len,
		      void *out, xiw_size out_len);
/* Stream octets framed (tx) or parsed (rx) since Full Operation began */
xiw_u32 xiw_mpa_tx_position(const struct xiw_mpa_tx *tx);
xiw_u32 xiw_mpa_rx_position(const struct xiw_mpa_rx *rx);
/* MULPDU for an effective MSS (RFC 5044 section 4.5), 128..64768 */
xiw_u16 xiw_mpa_mulpdu(xiw_u32 emss, int markers);
/* Wire octets of the FPDU for @len ULPDU octets at stream position @pos */
xiw_size xiw_mpa_fpdu_wire_len(xiw_size len, xiw_u32 pos, int markers);
xiw_size xiw_mpa_rx_size(void);
struct xiw_mpa_rx *xiw_mpa_rx_init(void *mem, const struct xiw_env *env,
				   int markers, int crc);
/* 0, -EBADMSG (CRC), -EPROTO (Marker) or the sink's error */
int xiw_mpa_rx_consume(struct xiw_mpa_rx *rx, const void *buf, xiw_size len,
		       const struct xiw_mpa_rx_sink *sink, void *ctx);
/* XIW_MPA_ERR_* that stopped the stream, or 0 */
int xiw_mpa_rx_error(const struct xiw_mpa_rx *rx);

#ifdef __cplusplus
}
#endif

XIW_STATIC_ASSERT(sizeof(struct xiw_mpa_policy) == 24, "xiw_mpa_policy size");
XIW_STATIC_ASSERT(sizeof(struct xiw_mpa_depths) == 8, "xiw_mpa_depths size");
XIW_STATIC_ASSERT(sizeof(struct xiw_mpa_rx_sink) == 3 * sizeof(void *),
		  "xiw_mpa_rx_sink size");
XIW_STATIC_ASSERT(sizeof(struct xiw_mpa_agreed) == 16, "xiw_mpa_agreed size");
XIW_STATIC_ASSERT(sizeof(struct xiw_mpa_step) == 32, "xiw_mpa_step size");
XIW_STATIC_ASSERT(XIW_OFFSETOF(struct xiw_mpa_step, timer) == 20,
		  "xiw_mpa_step.timer offset");

#endif /* XIW_MPA_CONN_H */
