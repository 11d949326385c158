/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few DDP/RDMAP messages the connection manager builds and checks
 * itself: the RFC 6581 RTR indications, the zero-length Read Response that
 * answers a READ RTR, and the TERMINATE of an MPA error.
 */
#ifndef XIW_DDP_H
#define XIW_DDP_H

#include "types.h"

#define XIW_DDP_MSG_MAX	72	/* longest ULPDU built here */

struct xiw_ddp_rtr {
	xiw_u8 rtr;		/* XIW_MPA_CTRL_B/C/D, 0: not an RTR */
	xiw_u8 reserved[3];
	xiw_u32 sink_stag;	/* READ RTR: where the response goes */
	xiw_u64 sink_to;
};

#ifdef __cplusplus
extern "C" {
#endif

/* ULPDU of the RTR @rtr (XIW_MPA_CTRL_B/C/D); length or -EINVAL/-ENOSPC */
int xiw_ddp_encode_rtr(xiw_u8 rtr, void *buf, xiw_size len);
/* Classifies a received ULPDU as an RTR; 0, or -EPROTO if malformed */
int xiw_ddp_parse_rtr(const void *ulpdu, xiw_size len,
		      struct xiw_ddp_rtr *out);
/* ULPDU of the zero-length Read Response to a READ RTR */
int xiw_ddp_encode_rtr_response(const struct xiw_ddp_rtr *rtr, void *buf,
				xiw_size len);
/* ULPDU of a TERMINATE reporting MPA error @code (Layer 2, EType 0) */
int xiw_ddp_encode_mpa_term(xiw_u8 code, xiw_u32 msn, void *buf,
			    xiw_size len);
/*
 * The RFCs' name of the error a TERMINATE carries (@layer, @etype, @code),
 * for log lines; "unknown error" if they define none. Never NULL.
 */
const char *xiw_term_name(xiw_u8 layer, xiw_u8 etype, xiw_u8 code);

#ifdef __cplusplus
}
#endif

XIW_STATIC_ASSERT(sizeof(struct xiw_ddp_rtr) == 16, "xiw_ddp_rtr size");

#endif /* XIW_DDP_H */
