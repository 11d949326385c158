/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPA startup frames (RFC 5044 section 7.1) with the enhanced connection
 * establishment data of RFC 6581 section 9, as seen across the boundary.
 *
 * Frame layout on the wire (network byte order):
 *
 *   0..15  Key: "MPA ID Req Frame" or "MPA ID Rep Frame"
 *   16     M|C|R|S|Res(4)
 *   17     Rev
 *   18..19 PD_Length
 *   20..   Private Data; if S is set it starts with A|B|IRD(14)|C|D|ORD(14)
 *
 * The enhanced data is carried in struct xiw_mpa_frame, never inside the
 * ULP private data, so the ULP never sees the 4-byte prefix.
 */
#ifndef XIW_MPA_H
#define XIW_MPA_H

#include "types.h"

#define XIW_MPA_KEY_LEN		16
#define XIW_MPA_HDR_LEN		20	/* Key, flags, Rev, PD_Length */
#define XIW_MPA_PD_MAX		512	/* RFC 5044: Private Data <= 512 */
#define XIW_MPA_MARKER_INTERVAL	512	/* a Marker every 512 stream octets */
#define XIW_MPA_ENH_LEN		4	/* RFC 6581 enhanced data */
#define XIW_MPA_FRAME_MAX	(XIW_MPA_HDR_LEN + XIW_MPA_PD_MAX)
#define XIW_MPA_IRD_ORD_MAX	0x3fff	/* 14 bits; all ones: no negotiation */

/* xiw_mpa_frame.type */
#define XIW_MPA_REQUEST		1
#define XIW_MPA_REPLY		2

/* xiw_mpa_frame.flags: the bits of octet 16, at their wire positions */
#define XIW_MPA_FLAG_M		0x80	/* markers required */
#define XIW_MPA_FLAG_C		0x40	/* CRC preferred */
#define XIW_MPA_FLAG_R		0x20	/* rejected (Reply only) */
#define XIW_MPA_FLAG_S		0x10	/* enhanced data present (Rev >= 2) */
/*
 * Not RFC 5044: the first Res bit, which upstream siw (MPA_RR_FLAG_GSO_EXP)
 * sets to say "FPDUs larger than one TCP segment welcome". RFC 5044 has
 * Res sent as zero and ignored, so it is sent only when configured.
 */
#define XIW_MPA_FLAG_G		0x08

/* xiw_mpa_frame.ctrl: RFC 6581 control flags A..D */
#define XIW_MPA_CTRL_A		0x01	/* peer-to-peer model */
#define XIW_MPA_CTRL_B		0x02	/* zero-length SEND RTR */
#define XIW_MPA_CTRL_C		0x04	/* zero-length RDMA WRITE RTR */
#define XIW_MPA_CTRL_D		0x08	/* zero-length RDMA READ RTR */

/*
 * MPA errors in a TERMINATE: Layer 2 (LLP), Error Type 0 (MPA), and the
 * codes of RFC 5044 section 8 (1-4) and RFC 6581 section 8 (5-7).
 */
#define XIW_TERM_LAYER_LLP	2
#define XIW_TERM_ETYPE_MPA	0
#define XIW_MPA_ERR_LLP_LOST	1	/* TCP connection closed or lost */
#define XIW_MPA_ERR_CRC		2	/* CRC error */
#define XIW_MPA_ERR_MARKER	3	/* Marker and ULPDU_Length disagree */
#define XIW_MPA_ERR_BAD_STARTUP	4	/* invalid Request or Reply Frame */
#define XIW_MPA_ERR_LOCAL	5	/* local catastrophic */
#define XIW_MPA_ERR_IRD		6	/* insufficient IRD resources */
#define XIW_MPA_ERR_RTR		7	/* no matching RTR option */

struct xiw_mpa_frame {
	xiw_u8 type;		/* XIW_MPA_REQUEST or XIW_MPA_REPLY */
	xiw_u8 flags;		/* XIW_MPA_FLAG_* */
	xiw_u8 rev;		/* 1 or 2 */
	xiw_u8 ctrl;		/* XIW_MPA_CTRL_*, meaningful with FLAG_S */
	xiw_u16 ird;		/* meaningful with FLAG_S */
	xiw_u16 ord;		/* meaningful with FLAG_S */
	xiw_u16 pd_len;		/* ULP private data, enhanced data excluded */
	xiw_u16 pd_off;		/* decode: offset of ULP private data */
};

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Encode @f followed by @f->pd_len bytes of ULP private data from @pd into
 * @buf. Returns the frame length, -EINVAL for a frame the RFCs forbid us to
 * send, or -ENOSPC if @len is too small.
 */
int xiw_mpa_encode(const struct xiw_mpa_frame *f, const void *pd,
		   void *buf, xiw_size len);

/*
 * Validate the fixed header in @hdr (XIW_MPA_HDR_LEN bytes) for a frame of
 * type @expect and return the total frame length it announces, or:
 * -EBADMSG  improperly formatted (unknown key, PD_Length > 512);
 * -EPROTO   a well-formed key of the other type (e.g. a Request received
 *           by an initiator: initiator/initiator);
 * -EPROTONOSUPPORT  a revision other than 1 or 2.
 */
int xiw_mpa_frame_len(const void *hdr, xiw_u8 expect);

/*
 * Decode the complete frame of exactly @len bytes at @buf into @f. Returns
 * 0 or the errors of xiw_mpa_frame_len(), plus -EBADMSG when @len does not
 * match PD_Length or the enhanced data is missing.
 */
int xiw_mpa_decode(const void *buf, xiw_size len, xiw_u8 expect,
		   struct xiw_mpa_frame *f);

#ifdef __cplusplus
}
#endif

XIW_STATIC_ASSERT(sizeof(struct xiw_mpa_frame) == 12, "xiw_mpa_frame size");
XIW_STATIC_ASSERT(XIW_OFFSETOF(struct xiw_mpa_frame, ird) == 4,
		  "xiw_mpa_frame.ird offset");
XIW_STATIC_ASSERT(XIW_OFFSETOF(struct xiw_mpa_frame, pd_off) == 10,
		  "xiw_mpa_frame.pd_off offset");

#endif /* XIW_MPA_H */
