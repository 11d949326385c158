// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters: the MPA, connection and transmit knobs. Every one is
 * writable at run time (0644) and applies to connections set up
 * afterwards; tx_payload to the next message sent, the fault_tx_* test
 * aids to the next FPDUs.
 * Documentation/admin-guide.rst describes each; the defaults interoperate
 * with upstream siw.
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "params.h"

struct xiw_enum_param {
	int *val;
	const char * const *names;
	int count;
};

static int xiw_enum_set(const char *s, const struct kernel_param *kp)
{
	const struct xiw_enum_param *e = kp->arg;
	int i = __sysfs_match_string(e->names, e->count, s);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(*e->val, i);
	return 0;
}

static int xiw_enum_get(char *buf, const struct kernel_param *kp)
{
	const struct xiw_enum_param *e = kp->arg;

	return sysfs_emit(buf, "%s\n", e->names[READ_ONCE(*e->val)]);
}

static const struct kernel_param_ops xiw_enum_ops = {
	.set = xiw_enum_set,
	.get = xiw_enum_get,
};

#define XIW_ENUM_PARAM(name, def, desc, ...)				\
	static int name##_val = def;					\
	static const char * const name##_names[] = { __VA_ARGS__ };	\
	static struct xiw_enum_param name##_param = {			\
		&name##_val, name##_names, ARRAY_SIZE(name##_names)	\
	};								\
	module_param_cb(name, &xiw_enum_ops, &name##_param, 0644);	\
	MODULE_PARM_DESC(name, desc)

/* Values in the order of XIW_MPA_CRC_* and XIW_MPA_MARKERS_* */
XIW_ENUM_PARAM(mpa_crc, XIW_MPA_CRC_REQUIRED,
	       "CRC: required (default), preferred (a responder follows the initiator), suppress",
	       "required", "preferred", "suppress");
XIW_ENUM_PARAM(mpa_markers, XIW_MPA_MARKERS_ACCEPT,
	       "Markers towards us: accept (default: M = 0, send if asked), require, refuse",
	       "accept", "require", "refuse");

/* Values in the order of enum xiw_tx_payload */
XIW_ENUM_PARAM(tx_payload, XIW_TX_ZEROCOPY,
	       "How payload reaches TCP: zero-copy (default: TCP sends the pages of FPDUs of a page or more, completion once it releases them; else copy), copy (into an FPDU buffer first), gather (TCP copies it from registered memory)",
	       "copy", "gather", "zero-copy");

static uint mpa_rev = 2;
module_param(mpa_rev, uint, 0644);
MODULE_PARM_DESC(mpa_rev, "MPA revision: 2 (RFC 6581, default) or 1 (RFC 5044 only)");

static bool mpa_peer_to_peer = true;
module_param(mpa_peer_to_peer, bool, 0644);
MODULE_PARM_DESC(mpa_peer_to_peer, "Initiators offer the peer-to-peer model with an RTR (default: yes)");

static bool mpa_rtr_send = true;
module_param(mpa_rtr_send, bool, 0644);
MODULE_PARM_DESC(mpa_rtr_send, "Zero-length SEND is an RTR type we use (default: yes)");

static bool mpa_rtr_write = true;
module_param(mpa_rtr_write, bool, 0644);
MODULE_PARM_DESC(mpa_rtr_write, "Zero-length RDMA WRITE is an RTR type we use (default: yes)");

static bool mpa_rtr_read = true;
module_param(mpa_rtr_read, bool, 0644);
MODULE_PARM_DESC(mpa_rtr_read, "Zero-length RDMA READ is an RTR type we use (default: yes)");

static bool mpa_reject_short_ird;
module_param(mpa_reject_short_ird, bool, 0644);
MODULE_PARM_DESC(mpa_reject_short_ird,
		 "Responders reject an initiator IRD below the ULP's ORD (default: no, lower the ORD)");

static bool mpa_retry_unenhanced = true;
module_param(mpa_retry_unenhanced, bool, 0644);
MODULE_PARM_DESC(mpa_retry_unenhanced,
		 "Retry once with a Rev 1 Request when the peer closes on an enhanced one (default: yes)");

static uint mpa_request_timeout_ms = 10000;
module_param(mpa_request_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_request_timeout_ms, "Responder wait for the MPA Request, ms (0: none; default 10000)");

static uint mpa_reply_timeout_ms = 10000;
module_param(mpa_reply_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_reply_timeout_ms, "Initiator wait for the MPA Reply, ms (0: none; default 10000)");

static uint mpa_ulp_timeout_ms = 60000;
module_param(mpa_ulp_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_ulp_timeout_ms, "Responder wait for the ULP to accept or reject, ms (0: none; default 60000)");

static uint mpa_rtr_timeout_ms = 10000;
module_param(mpa_rtr_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_rtr_timeout_ms, "Responder wait for the peer-to-peer RTR, ms (0: none; default 10000)");

/*
 * Accepted connections per listener still waiting for their whole MPA
 * Request. xiw takes every connection TCP completes, so the listen
 * backlog no longer bounds them; this does, by closing the oldest.
 */
static uint mpa_max_half_open = 1024;
module_param(mpa_max_half_open, uint, 0644);
MODULE_PARM_DESC(mpa_max_half_open,
		 "Connections per listener waiting for their MPA Request; beyond it the oldest is closed (0: no limit; default 1024)");

unsigned int xiw_params_max_half_open(void)
{
	return READ_ONCE(mpa_max_half_open);
}

/*
 * GSO-sized FPDUs: not in RFC 5044, whose Res bits are sent as zero, so
 * off by default; upstream siw built with try_gso offers the same bit.
 */
static bool mpa_gso;
module_param(mpa_gso, bool, 0644);
MODULE_PARM_DESC(mpa_gso,
		 "Offer GSO-sized FPDUs (a reserved MPA bit, as siw's try_gso); used when both sides offer (default: no)");

static bool mpa_log;
module_param(mpa_log, bool, 0644);
MODULE_PARM_DESC(mpa_log, "Log what MPA agreed for every connection (default: no)");

bool xiw_params_log(void)
{
	return READ_ONCE(mpa_log);
}

/*
 * Test aids: the receiver's CRC and Marker checks over real TCP need a
 * sender that gets them wrong; a race between a connection's first
 * completions and its CM event needs the event late.
 */
static uint fault_tx_crc;
module_param(fault_tx_crc, uint, 0644);
MODULE_PARM_DESC(fault_tx_crc, "Test aid: send the next N FPDUs with a wrong CRC (default 0)");

static uint fault_tx_marker;
module_param(fault_tx_marker, uint, 0644);
MODULE_PARM_DESC(fault_tx_marker, "Test aid: send the next N Marked FPDUs with a wrong FPDUPTR (default 0)");

static uint fault_connect_delay_ms;
module_param(fault_connect_delay_ms, uint, 0644);
MODULE_PARM_DESC(fault_connect_delay_ms, "Test aid: pause this long between a connection's data path starting and its ULP hearing of it (default 0)");

/* Takes one from a fault counter: true if it was not yet 0. */
static bool xiw_fault_take(uint *count)
{
	uint n = READ_ONCE(*count);

	while (n && !try_cmpxchg(count, &n, n - 1))
		;
	return n != 0;
}

enum xiw_tx_payload xiw_params_tx_payload(void)
{
	/* A spoiled FPDU is spoiled in the FPDU buffer. */
	if (READ_ONCE(fault_tx_crc) || READ_ONCE(fault_tx_marker))
		return XIW_TX_COPY;
	return READ_ONCE(tx_payload_val);
}

bool xiw_params_fault_tx_crc(void)
{
	return xiw_fault_take(&fault_tx_crc);
}

bool xiw_params_fault_tx_marker(void)
{
	return xiw_fault_take(&fault_tx_marker);
}

unsigned int xiw_params_fault_connect_delay_ms(void)
{
	return READ_ONCE(fault_connect_delay_ms);
}

void xiw_params_policy(struct xiw_mpa_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->rev = READ_ONCE(mpa_rev) == 1 ? 1 : 2;
	p->crc = READ_ONCE(mpa_crc_val);
	p->markers = READ_ONCE(mpa_markers_val);
	p->peer_to_peer = READ_ONCE(mpa_peer_to_peer);
	p->rtr_types = (READ_ONCE(mpa_rtr_send) ? XIW_MPA_CTRL_B : 0) |
		       (READ_ONCE(mpa_rtr_write) ? XIW_MPA_CTRL_C : 0) |
		       (READ_ONCE(mpa_rtr_read) ? XIW_MPA_CTRL_D : 0);
	/* An enhanced endpoint supports at least one RTR type. */
	if (!p->rtr_types)
		p->rtr_types = XIW_MPA_CTRL_C;
	p->reject_short_ird = READ_ONCE(mpa_reject_short_ird);
	p->retry_unenhanced = READ_ONCE(mpa_retry_unenhanced);
	p->gso = READ_ONCE(mpa_gso);
	p->request_ms = READ_ONCE(mpa_request_timeout_ms);
	p->reply_ms = READ_ONCE(mpa_reply_timeout_ms);
	p->ulp_ms = READ_ONCE(mpa_ulp_timeout_ms);
	p->rtr_ms = READ_ONCE(mpa_rtr_timeout_ms);
}
