/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xiw's tracepoints (Documentation/admin-guide.rst, Tracepoints): the
 * MPA negotiation's result, each connection that ends in the Startup
 * Phase, each TERMINATE sent or received, QP state changes and the events
 * xiw gives the connection manager. Every field is copied into the event:
 * nothing points into xiw, which may be unloaded before the trace is read.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xiw

#if !defined(XIW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define XIW_TRACE_H

#include <xiw/mpa_conn.h>

#include <linux/tracepoint.h>
#include <linux/socket.h>
#include <linux/in6.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

/* The peer's address: an IPv4 or IPv6 sockaddr, printed with %pISpc. */
#define XIW_TRACE_ADDR_LEN	sizeof(struct sockaddr_in6)

TRACE_DEFINE_ENUM(IB_QPS_RESET);
TRACE_DEFINE_ENUM(IB_QPS_INIT);
TRACE_DEFINE_ENUM(IB_QPS_RTR);
TRACE_DEFINE_ENUM(IB_QPS_RTS);
TRACE_DEFINE_ENUM(IB_QPS_SQD);
TRACE_DEFINE_ENUM(IB_QPS_SQE);
TRACE_DEFINE_ENUM(IB_QPS_ERR);
#define XIW_TRACE_QPS						\
	{ IB_QPS_RESET, "RESET" }, { IB_QPS_INIT, "INIT" },	\
	{ IB_QPS_RTR, "RTR" }, { IB_QPS_RTS, "RTS" },		\
	{ IB_QPS_SQD, "SQD" }, { IB_QPS_SQE, "SQE" },		\
	{ IB_QPS_ERR, "ERR" }

TRACE_DEFINE_ENUM(IW_CM_EVENT_CONNECT_REQUEST);
TRACE_DEFINE_ENUM(IW_CM_EVENT_CONNECT_REPLY);
TRACE_DEFINE_ENUM(IW_CM_EVENT_ESTABLISHED);
TRACE_DEFINE_ENUM(IW_CM_EVENT_DISCONNECT);
TRACE_DEFINE_ENUM(IW_CM_EVENT_CLOSE);
#define XIW_TRACE_IW_EVENTS						\
	{ IW_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST" },		\
	{ IW_CM_EVENT_CONNECT_REPLY, "CONNECT_REPLY" },			\
	{ IW_CM_EVENT_ESTABLISHED, "ESTABLISHED" },			\
	{ IW_CM_EVENT_DISCONNECT, "DISCONNECT" },			\
	{ IW_CM_EVENT_CLOSE, "CLOSE" }

TRACE_EVENT(xiw_mpa_agreed,
	TP_PROTO(bool initiator, const struct sockaddr_storage *peer,
		 const struct xiw_mpa_agreed *a, u16 ird_sent, u16 ord_sent,
		 u16 ird_recv, u16 ord_recv),
	TP_ARGS(initiator, peer, a, ird_sent, ord_sent, ird_recv, ord_recv),
	TP_STRUCT__entry(
		__field(bool, initiator)
		__array(u8, peer, XIW_TRACE_ADDR_LEN)
		__field(u8, rev)
		__field(u8, crc)
		__field(u8, markers_tx)
		__field(u8, markers_rx)
		__field(u8, p2p)
		__field(u8, rtr)
		__field(u8, gso)
		__field(u16, ird_sent)
		__field(u16, ord_sent)
		__field(u16, ird_recv)
		__field(u16, ord_recv)
		__field(u16, ird)
		__field(u16, ord)
	),
	TP_fast_assign(
		__entry->initiator = initiator;
		memcpy(__entry->peer, peer, XIW_TRACE_ADDR_LEN);
		__entry->rev = a->rev;
		__entry->crc = a->crc;
		__entry->markers_tx = a->send_markers;
		__entry->markers_rx = a->recv_markers;
		__entry->p2p = a->peer_to_peer;
		__entry->rtr = a->rtr;
		__entry->gso = a->gso;
		__entry->ird_sent = ird_sent;
		__entry->ord_sent = ord_sent;
		__entry->ird_recv = ird_recv;
		__entry->ord_recv = ord_recv;
		__entry->ird = a->ird;
		__entry->ord = a->ord;
	),
	TP_printk("%s peer %pISpc rev %u crc %u markers %u/%u p2p %u rtr %#x gso %u ird %u/%u/%u ord %u/%u/%u",
		  __entry->initiator ? "initiator" : "responder",
		  __entry->peer, __entry->rev, __entry->crc,
		  __entry->markers_tx, __entry->markers_rx, __entry->p2p,
		  __entry->rtr, __entry->gso, __entry->ird_sent,
		  __entry->ird_recv, __entry->ird, __entry->ord_sent,
		  __entry->ord_recv, __entry->ord)
);

TRACE_EVENT(xiw_mpa_refused,
	TP_PROTO(bool initiator, const struct sockaddr_storage *peer,
		 const char *why, int err, u8 term),
	TP_ARGS(initiator, peer, why, err, term),
	TP_STRUCT__entry(
		__field(bool, initiator)
		__array(u8, peer, XIW_TRACE_ADDR_LEN)
		__array(char, why, 64)
		__field(int, err)
		__field(u8, term)
	),
	TP_fast_assign(
		__entry->initiator = initiator;
		memcpy(__entry->peer, peer, XIW_TRACE_ADDR_LEN);
		strscpy(__entry->why, why, sizeof(__entry->why));
		__entry->err = err;
		__entry->term = term;
	),
	TP_printk("%s peer %pISpc err %d term %#x: %s",
		  __entry->initiator ? "initiator" : "responder",
		  __entry->peer, __entry->err, __entry->term, __entry->why)
);

TRACE_EVENT(xiw_terminate,
	TP_PROTO(bool sent, u32 qpn, const struct sockaddr_storage *peer,
		 u8 layer, u8 etype, u8 code),
	TP_ARGS(sent, qpn, peer, layer, etype, code),
	TP_STRUCT__entry(
		__field(bool, sent)
		__field(u32, qpn)
		__array(u8, peer, XIW_TRACE_ADDR_LEN)
		__field(u8, layer)
		__field(u8, etype)
		__field(u8, code)
	),
	TP_fast_assign(
		__entry->sent = sent;
		__entry->qpn = qpn;
		memcpy(__entry->peer, peer, XIW_TRACE_ADDR_LEN);
		__entry->layer = layer;
		__entry->etype = etype;
		__entry->code = code;
	),
	TP_printk("%s qp %u peer %pISpc layer %u type %u code %#x",
		  __entry->sent ? "sent" : "received", __entry->qpn,
		  __entry->peer, __entry->layer, __entry->etype,
		  __entry->code)
);

TRACE_EVENT(xiw_qp_state,
	TP_PROTO(u32 qpn, int from, int to),
	TP_ARGS(qpn, from, to),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(int, from)
		__field(int, to)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("qp %u %s -> %s", __entry->qpn,
		  __print_symbolic(__entry->from, XIW_TRACE_QPS),
		  __print_symbolic(__entry->to, XIW_TRACE_QPS))
);

TRACE_EVENT(xiw_cm_event,
	TP_PROTO(bool initiator, const struct sockaddr_storage *peer,
		 int event, int status),
	TP_ARGS(initiator, peer, event, status),
	TP_STRUCT__entry(
		__field(bool, initiator)
		__array(u8, peer, XIW_TRACE_ADDR_LEN)
		__field(int, event)
		__field(int, status)
	),
	TP_fast_assign(
		__entry->initiator = initiator;
		memcpy(__entry->peer, peer, XIW_TRACE_ADDR_LEN);
		__entry->event = event;
		__entry->status = status;
	),
	TP_printk("%s peer %pISpc %s status %d",
		  __entry->initiator ? "initiator" : "responder",
		  __entry->peer,
		  __print_symbolic(__entry->event, XIW_TRACE_IW_EVENTS),
		  __entry->status)
);

#endif /* XIW_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE xiw_trace
#include <trace/define_trace.h>
