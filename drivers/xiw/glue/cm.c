// SPDX-License-Identifier: GPL-2.0
/*
 * The iWARP connection manager: kernel TCP sockets driven by the core's
 * MPA Startup Phase state machine (include/xiw/mpa_conn.h).
 *
 * One connection endpoint (cep) per TCP connection or listener. Socket
 * callbacks only queue the cep's work; all CM processing runs in that work
 * (or in the iw_cm call) under the cep's mutex, on xiw_cm_wq. Timers are
 * delayed work feeding the state machine's timeout event.
 *
 * iw_cm contract kept here: a failed connect ends with CONNECT_REPLY and a
 * non-zero status; after a successful accept the responder always delivers
 * ESTABLISHED, so in peer-to-peer mode accept waits for the RTR (bounded
 * by mpa_rtr_timeout_ms) and fails instead; after ESTABLISHED or a good
 * CONNECT_REPLY the connection ends with CLOSE (DISCONNECT first when the
 * peer closed). The provider's cm_id reference is dropped after the last
 * event.
 */
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/xarray.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>

#include <xiw/ddp.h>
#include <xiw/mpa_conn.h>

#include "cm.h"
#include "params.h"
#include "xiw.h"
#include "xiw_trace.h"

enum xiw_cep_state {
	XIW_CEP_IDLE,
	XIW_CEP_LISTEN,
	XIW_CEP_CONNECTING,	/* TCP connect in flight */
	XIW_CEP_MPA,		/* Startup Phase */
	XIW_CEP_CONNECTED,	/* Full Operation */
	XIW_CEP_CLOSED,
};

struct xiw_cep {
	struct kref ref;
	struct mutex lock;
	u32 handle;		/* its index in xiw_ceps, what iw_cm holds */
	struct xiw_device *xdev;
	enum xiw_cep_state state;
	bool initiator;
	bool reported;		/* the ULP saw a good CONNECT_REPLY/ESTABLISHED */
	bool drop;		/* the QP asked to close */
	bool full_op;		/* MPA Full Operation framing has begun */
	bool streaming;		/* the QP's data path owns the socket's data */
	u8 rtr_sent, rtr_recv;	/* the RTR exchanged (RFC 6581 9.2) */
	struct socket *sock;
	struct iw_cm_id *cm_id;	/* with a reference, while events may follow */
	struct xiw_qp *qp;	/* with a reference */
	struct xiw_cep *listener;
	/*
	 * children_lock guards a listener's children, each child's place
	 * on that list (child) and half_open, the listener's n_half_open
	 * and cm_id.
	 */
	struct list_head children;	/* listener: not yet accepted */
	struct list_head child;
	spinlock_t children_lock;
	bool half_open;		/* child: its MPA Request is not complete */
	u32 n_half_open;	/* listener: children with half_open set */
	struct work_struct work;
	struct delayed_work timer;
	bool quiet;		/* no events: inside xiw_iw_accept() (its
				 * failure goes to accept_rc), or ending
				 * where iw_cm takes none
				 */
	int accept_rc;		/* the failure xiw_iw_accept() returns */
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	struct xiw_mpa_depths depths;
	struct xiw_mpa_agreed agreed;
	u16 pd_len;
	u8 pd[XIW_MPA_PD_MAX];
	u8 buf[XIW_MPA_FRAME_MAX];	/* startup frame or first FPDU */
	u32 have;
	struct xiw_mpa_hs *hs;		/* xiw_mpa_hs_size() octets */
	struct xiw_mpa_tx *tx;		/* xiw_mpa_tx_size() */
	struct xiw_mpa_rx *rx;		/* xiw_mpa_rx_size() */
};

static struct workqueue_struct *xiw_cm_wq;
static atomic_t xiw_cep_count = ATOMIC_INIT(0);
/*
 * Every cep by handle. iw_cm's cm_id->provider_data holds a handle, never
 * a pointer: a CONNECT_REQUEST that iw_cm drops (its listener is being
 * destroyed) is never answered, so nothing it carries may keep a cep
 * alive or point at one that is gone. A downcall finds the cep, if it
 * still exists, with xiw_cep_get(); xa_lock (taken _bh: the last put may
 * come from a socket callback) orders that with the cep's release.
 * Handles are handed out cyclically: one that a cm_id still holds after
 * its cep is gone (the ULP answers a Request whose connection xiw ended)
 * names no other connection until 2^31 more have come and gone.
 */
static DEFINE_XARRAY_FLAGS(xiw_ceps, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
static u32 xiw_cep_next;	/* the next handle to try; under xa_lock */
/* cm_id->provider_data: a downcall may race with the work that clears it. */
static DEFINE_SPINLOCK(xiw_cm_id_lock);

static void xiw_cep_release(struct kref *ref)
{
	struct xiw_cep *cep = container_of(ref, struct xiw_cep, ref);

	xa_erase_bh(&xiw_ceps, cep->handle);
	kfree(cep->hs);
	kfree(cep->tx);
	kfree(cep->rx);
	kfree(cep);
	if (atomic_dec_and_test(&xiw_cep_count))
		wake_up_var(&xiw_cep_count);
}

static void xiw_cep_put(struct xiw_cep *cep)
{
	kref_put(&cep->ref, xiw_cep_release);
}

#define xiw_cep_dbg(cep, fmt, ...)					\
	pr_debug("xiw: cep %p %s: " fmt, cep,				\
		 (cep)->initiator ? "ini" : "res", ##__VA_ARGS__)

static void xiw_cep_work(struct work_struct *w);
static void xiw_cep_timeout(struct work_struct *w);

static struct xiw_cep *xiw_cep_alloc(struct xiw_device *xdev)
{
	struct xiw_cep *cep = kzalloc(sizeof(*cep), GFP_KERNEL);

	if (!cep)
		return NULL;
	atomic_inc(&xiw_cep_count);
	cep->hs = kzalloc(xiw_mpa_hs_size(), GFP_KERNEL);
	cep->tx = kzalloc(xiw_mpa_tx_size(), GFP_KERNEL);
	cep->rx = kzalloc(xiw_mpa_rx_size(), GFP_KERNEL);
	kref_init(&cep->ref);
	if (!cep->hs || !cep->tx || !cep->rx) {
		xiw_cep_put(cep);
		return NULL;
	}
	mutex_init(&cep->lock);
	spin_lock_init(&cep->children_lock);
	INIT_LIST_HEAD(&cep->children);
	INIT_LIST_HEAD(&cep->child);
	INIT_WORK(&cep->work, xiw_cep_work);
	INIT_DELAYED_WORK(&cep->timer, xiw_cep_timeout);
	cep->xdev = xdev;
	if (xa_alloc_cyclic_bh(&xiw_ceps, &cep->handle, cep,
			       XA_LIMIT(1, INT_MAX), &xiw_cep_next,
			       GFP_KERNEL) < 0) {
		xiw_cep_put(cep);
		return NULL;
	}
	return cep;
}

/* The cep a handle names, with a reference; NULL if it is gone. */
static struct xiw_cep *xiw_cep_get(unsigned long handle)
{
	struct xiw_cep *cep;

	xa_lock_bh(&xiw_ceps);
	cep = xa_load(&xiw_ceps, handle);
	if (cep && !kref_get_unless_zero(&cep->ref))
		cep = NULL;
	xa_unlock_bh(&xiw_ceps);
	return cep;
}

static void *xiw_cep_handle(const struct xiw_cep *cep)
{
	return (void *)(unsigned long)cep->handle;
}

static void xiw_cep_queue(struct xiw_cep *cep)
{
	kref_get(&cep->ref);
	if (!queue_work(xiw_cm_wq, &cep->work))
		xiw_cep_put(cep);
}

/* ---- sockets ------------------------------------------------------------ */

/*
 * The socket callbacks take sk_callback_lock with softirqs off: TCP runs
 * them from softirq, but also from release_sock()'s backlog with softirqs
 * on, and a reader there that a softirq interrupts could deadlock against
 * inet_child_forget(), which takes the lock for writing under the
 * socket's spinlock (lockdep reported the pair when nfsd stopped).
 */
static void xiw_cm_sk_event(struct sock *sk)
{
	struct xiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep)
		xiw_cep_queue(cep);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* The peer closed its side (its FIN came), or the connection is gone. */
static bool xiw_sock_gone(struct socket *s)
{
	int st = READ_ONCE(s->sk->sk_state);

	return st == TCP_CLOSE || st == TCP_CLOSE_WAIT || st == TCP_LAST_ACK;
}

/* Data: the CM's during MPA, the QP's receive path in Full Operation. */
static void xiw_cm_sk_data_ready(struct sock *sk)
{
	struct xiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep && cep->streaming)
		xiw_qp_rx(cep->qp, sk);
	else if (cep)
		xiw_cep_queue(cep);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Room in the send buffer: the QP's transmit continues. Nothing else
 * waits on these sockets, so the previous callback is not chained.
 */
static void xiw_cm_sk_write_space(struct sock *sk)
{
	struct xiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	/* As sk_stream_write_space(): only once there is room again. */
	if (cep && cep->streaming && sk_stream_is_writeable(sk) &&
	    sk->sk_socket) {
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		xiw_qp_kick(cep->qp);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * The socket's callbacks become ours until xiw_cep_close_sock() puts back
 * the saved ones. An accepted socket (@l, its listener) was born with
 * copies of the listener's, which are ours: it gets the listener's saved
 * ones back instead, so that no socket that outlives its cep, or this
 * module, still points into our code.
 */
static void xiw_cep_attach(struct xiw_cep *cep, struct socket *s,
			   const struct xiw_cep *l)
{
	struct sock *sk = s->sk;

	kref_get(&cep->ref);	/* held by sk_user_data */
	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = l ? l->saved_data_ready : sk->sk_data_ready;
	cep->saved_state_change = l ? l->saved_state_change : sk->sk_state_change;
	cep->saved_write_space = l ? l->saved_write_space : sk->sk_write_space;
	sk->sk_user_data = cep;
	sk->sk_data_ready = xiw_cm_sk_data_ready;
	sk->sk_state_change = xiw_cm_sk_event;
	sk->sk_write_space = xiw_cm_sk_write_space;
	write_unlock_bh(&sk->sk_callback_lock);
	cep->sock = s;
}

/* Under cep->lock; the caller holds a reference of its own. */
static void xiw_cep_close_sock(struct xiw_cep *cep)
{
	struct socket *s = cep->sock;
	struct sock *sk;

	lockdep_assert_held(&cep->lock);
	if (!s)
		return;
	sk = s->sk;
	/* The socket may outlive this module (xiw_cep_attach()). */
	WARN_ON_ONCE(cep->saved_data_ready == xiw_cm_sk_data_ready ||
		     cep->saved_state_change == xiw_cm_sk_event ||
		     cep->saved_write_space == xiw_cm_sk_write_space);
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_data_ready = cep->saved_data_ready;
	sk->sk_state_change = cep->saved_state_change;
	sk->sk_write_space = cep->saved_write_space;
	sk->sk_user_data = NULL;
	cep->streaming = false;
	write_unlock_bh(&sk->sk_callback_lock);
	/* No receive runs now; stop transmit before the socket goes. */
	if (cep->qp)
		xiw_qp_stream_stop(cep->qp);
	/* skbs hold zero-copy pages: reset, freeing them now (zcopy.c). */
	if (cep->qp && xiw_zc_pending(cep->qp))
		sock_no_linger(sk);
	kernel_sock_shutdown(s, SHUT_RDWR);
	sock_release(s);
	cep->sock = NULL;
	xiw_cep_put(cep);	/* sk_user_data's */
}

/*
 * An MPA frame or an FPDU the connection manager sends (a startup frame,
 * an RTR, a TERMINATE) ends its skb: the first FPDU of Full Operation
 * begins a TCP segment (qp_tx.c, xiw_tx_send).
 */
static int xiw_cep_send(struct xiw_cep *cep, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {
		.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR,
	};
	int rc;

	if (!cep->sock)
		return -ENOTCONN;
	rc = kernel_sendmsg(cep->sock, &msg, &iov, 1, len);
	if (rc == len)
		return 0;
	return rc < 0 ? rc : -EAGAIN;
}

/* Frames @len ULPDU octets as one FPDU of Full Operation and sends it. */
static int xiw_cep_send_fpdu(struct xiw_cep *cep, const void *ulpdu,
			     size_t len)
{
	u8 fpdu[XIW_DDP_MSG_MAX + 32];
	int n = xiw_mpa_tx_encode(cep->tx, ulpdu, len, fpdu, sizeof(fpdu));

	return n < 0 ? n : xiw_cep_send(cep, fpdu, n);
}

static int xiw_cep_recv(struct xiw_cep *cep, void *buf, size_t len,
			int flags)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | flags };

	if (!cep->sock)
		return -ENOTCONN;
	return kernel_recvmsg(cep->sock, &msg, &iov, 1, len, msg.msg_flags);
}

static struct socket *xiw_cm_socket(struct xiw_device *xdev,
				    struct sockaddr_storage *addr)
{
	struct socket *s;
	int rc;

	rc = sock_create_kern(dev_net(xdev->netdev), addr->ss_family,
			      SOCK_STREAM, IPPROTO_TCP, &s);
	if (rc)
		return ERR_PTR(rc);
	sock_set_reuseaddr(s->sk);
	tcp_sock_set_nodelay(s->sk);
	return s;
}

/* ---- events to the ULP ---------------------------------------------------- */

/* The cep a cm_id names, with a reference of the caller's; NULL if gone. */
static struct xiw_cep *xiw_cep_of(struct iw_cm_id *id)
{
	unsigned long handle;

	spin_lock_bh(&xiw_cm_id_lock);
	handle = (unsigned long)id->provider_data;
	spin_unlock_bh(&xiw_cm_id_lock);
	return handle ? xiw_cep_get(handle) : NULL;
}

static void xiw_cm_id_set(struct iw_cm_id *id, struct xiw_cep *cep)
{
	spin_lock_bh(&xiw_cm_id_lock);
	id->provider_data = xiw_cep_handle(cep);
	spin_unlock_bh(&xiw_cm_id_lock);
}

/* Forgets the cep; a reference that came with it is the caller's to drop. */
static void xiw_cm_id_clear(struct iw_cm_id *id)
{
	spin_lock_bh(&xiw_cm_id_lock);
	id->provider_data = NULL;
	spin_unlock_bh(&xiw_cm_id_lock);
}

/*
 * No more events to this cm_id. Its reference on the cep goes; every
 * caller holds one of its own, so the cep outlives the call.
 */
static void xiw_cep_drop_cm_id(struct xiw_cep *cep)
{
	struct iw_cm_id *id = cep->cm_id;

	if (!id)
		return;
	xiw_cm_id_clear(id);
	cep->cm_id = NULL;
	id->rem_ref(id);
	xiw_cep_put(cep);	/* the cm_id's, from xiw_cep_bind_qp() */
}

/*
 * iw_cm's event fields are 8 bits wide, MPA's IRD, ORD and private data
 * length 14 and 16: a larger value (0x3FFF, "left to the ULP", among
 * them) reads 255, not its low octet.
 */
static u8 xiw_iw_u8(u16 v)
{
	return min_t(u16, v, U8_MAX);
}

/* An address's port, 0 if it has none (a closed socket's peer). */
static u16 xiw_sa_port(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	if (a->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	return 0;
}

/* The event handler's verdict: non-zero if iw_cm dropped the event. */
static int xiw_cep_event(struct xiw_cep *cep, struct iw_cm_id *id,
			 enum iw_cm_event_type type, int status,
			 bool with_pd)
{
	struct iw_cm_event ev = { .event = type, .status = status };
	struct xiw_mpa_frame f;
	const void *pd;

	if (!id)
		return 0;
	if (type == IW_CM_EVENT_CONNECT_REQUEST || with_pd)
		xiw_mpa_hs_peer_frame(cep->hs, &f, &pd);
	if (type == IW_CM_EVENT_CONNECT_REQUEST) {
		ev.provider_data = xiw_cep_handle(cep);
		/*
		 * The peer's IRD and ORD, as siw reports them: rdma_cm hands
		 * ird on as the listener's initiator_depth (its ORD may not
		 * exceed the peer's IRD) and ord as its responder_resources
		 * (its IRD should cover the peer's ORD). svcrdma refuses a
		 * client whose initiator_depth reads 0.
		 */
		ev.ird = f.flags & XIW_MPA_FLAG_S ? xiw_iw_u8(f.ird) : XIW_MAX_IRD;
		ev.ord = f.flags & XIW_MPA_FLAG_S ? xiw_iw_u8(f.ord) : XIW_MAX_ORD;
	} else if (type == IW_CM_EVENT_ESTABLISHED ||
		   (type == IW_CM_EVENT_CONNECT_REPLY && !status)) {
		/*
		 * What was agreed (RFC 6581 section 9.1), in the same sense:
		 * rdma_cm hands ird on as the ULP's initiator_depth (its ORD)
		 * and ord as its responder_resources (its IRD).
		 */
		ev.ird = xiw_iw_u8(cep->agreed.ord);
		ev.ord = xiw_iw_u8(cep->agreed.ird);
	}
	if (with_pd) {
		/* Private data longer than 255 octets reaches the ULP cut. */
		ev.private_data = (void *)pd;
		ev.private_data_len = xiw_iw_u8(f.pd_len);
		if (type == IW_CM_EVENT_CONNECT_REPLY && status) {
			/* RFC 6581 9.1: also on reject */
			ev.ird = xiw_iw_u8(f.ird);
			ev.ord = xiw_iw_u8(f.ord);
		}
	}
	if (cep->sock) {
		kernel_getsockname(cep->sock, (struct sockaddr *)&ev.local_addr);
		kernel_getpeername(cep->sock, (struct sockaddr *)&ev.remote_addr);
	}
	if (trace_xiw_cm_event_enabled())
		trace_xiw_cm_event(cep->initiator,
				   xiw_sa_port(&ev.remote_addr) ?
				   &ev.remote_addr : &id->remote_addr,
				   type, status);
	return id->event_handler(id, &ev);
}

/* ---- the state machine's steps ---------------------------------------- */

/* Once, when the first octet of Full Operation may flow either way. */
static void xiw_cep_full_operation(struct xiw_cep *cep)
{
	if (cep->full_op)
		return;
	cep->full_op = true;
	xiw_mpa_hs_agreed(cep->hs, &cep->agreed);
	xiw_mpa_tx_init(cep->tx, &xiw_kernel_env, cep->agreed.send_markers,
			cep->agreed.crc);
	xiw_mpa_rx_init(cep->rx, &xiw_kernel_env, cep->agreed.recv_markers,
			cep->agreed.crc);
}

static void xiw_cep_timer(struct xiw_cep *cep, const struct xiw_mpa_step *s)
{
	if (s->timer == XIW_MPA_TIMER_ARM) {
		kref_get(&cep->ref);
		if (mod_delayed_work(xiw_cm_wq, &cep->timer,
				     msecs_to_jiffies(s->timer_ms)))
			xiw_cep_put(cep);	/* it was pending: one ref */
	} else if (s->timer == XIW_MPA_TIMER_CANCEL) {
		if (cancel_delayed_work(&cep->timer))
			xiw_cep_put(cep);
	}
}

/* Under the listener's children_lock: CEP no longer counts as half-open. */
static void xiw_cep_not_half_open(struct xiw_cep *l, struct xiw_cep *cep)
{
	lockdep_assert_held(&l->children_lock);
	if (cep->half_open) {
		cep->half_open = false;
		l->n_half_open--;
	}
}

static void xiw_cep_unlink_child(struct xiw_cep *cep)
{
	struct xiw_cep *l = cep->listener;

	if (!l)
		return;
	spin_lock(&l->children_lock);
	list_del_init(&cep->child);
	xiw_cep_not_half_open(l, cep);
	spin_unlock(&l->children_lock);
	cep->listener = NULL;
	xiw_cep_put(l);
	xiw_cep_put(cep);	/* the listener list's */
}

static void xiw_cep_detach_qp(struct xiw_cep *cep)
{
	struct xiw_qp *qp = cep->qp;

	if (!qp)
		return;
	xiw_qp_disconnected(qp);
	spin_lock_bh(&qp->lock);
	if (qp->cep == cep) {
		qp->cep = NULL;
		xiw_cep_put(cep);
	}
	spin_unlock_bh(&qp->lock);
	cep->qp = NULL;
	xiw_qp_put(qp);
}

/* The end of a connection, whatever the cause. */
/*
 * One line for the administrator per connection that ends in the MPA
 * Startup Phase (Documentation/admin-guide.rst, Logging): the peer and the
 * reason in RFC terms, from the handshake. A TCP connect that fails is
 * logged with mpa_log only: the ULP gets its error, and ULPs retry.
 * Teardown our own side asked for (a ULP that gave up, a device going
 * away) leaves the handshake unfailed and logs nothing.
 */
static void xiw_cep_log_failure(struct xiw_cep *cep, enum xiw_cep_state was,
				int err)
{
	struct sockaddr_storage peer = {};
	const char *why = NULL;
	char errname[32] = "";
	int term = 0;

	if (was == XIW_CEP_MPA)
		why = xiw_mpa_hs_failure(cep->hs, &term);
	else if (was == XIW_CEP_CONNECTING && err)
		why = "TCP connect failed";
	if (!why)
		return;
	if (!cep->sock ||
	    kernel_getpeername(cep->sock, (struct sockaddr *)&peer) < 0) {
		if (cep->cm_id)
			peer = cep->cm_id->remote_addr;
	}
	trace_xiw_mpa_refused(cep->initiator, &peer, why, err, term);
	if (was == XIW_CEP_CONNECTING && !xiw_params_log())
		return;
	if (err)
		snprintf(errname, sizeof(errname), " (%pe)", ERR_PTR(err));
	pr_notice_ratelimited("xiw: %s peer %pISpc: connection refused: %s%s%s%s\n",
			      cep->initiator ? "initiator" : "responder", &peer,
			      why, errname, term ? ": " : "",
			      term ? xiw_term_name(XIW_TERM_LAYER_LLP,
						   XIW_TERM_ETYPE_MPA, term) : "");
}

static void xiw_cep_finish(struct xiw_cep *cep, int err)
{
	enum xiw_cep_state was = cep->state;

	if (was == XIW_CEP_CLOSED)
		return;
	xiw_cep_dbg(cep, "finish state %d err %d reported %d\n", was, err,
		    cep->reported);
	xiw_cep_log_failure(cep, was, err);
	cep->state = XIW_CEP_CLOSED;
	xiw_cep_close_sock(cep);
	if (cancel_delayed_work(&cep->timer))
		xiw_cep_put(cep);
	xiw_cep_unlink_child(cep);
	xiw_cep_detach_qp(cep);
	if (cep->reported) {
		xiw_cep_event(cep, cep->cm_id, IW_CM_EVENT_CLOSE, 0, false);
	} else if (cep->initiator && cep->cm_id) {
		/* A Reject carries the peer's private data, IRD and ORD. */
		xiw_cep_event(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY,
			      err ? err : -ECONNRESET,
			      xiw_mpa_hs_state(cep->hs) == XIW_MPA_HS_REJECTED);
	} else if (!cep->initiator && cep->cm_id && cep->quiet) {
		/* Inside the accept call: it fails, and no events follow. */
		cep->accept_rc = err ? err : -ECONNRESET;
		return;
	} else if (!cep->initiator && cep->cm_id) {
		/*
		 * Accepted, and lost before the RTR (peer-to-peer). iw_cm
		 * leaves an accepted cm_id only on ESTABLISHED (its close
		 * handler takes no other state), so the ULP hears
		 * ESTABLISHED with the error as its status, then CLOSE.
		 */
		xiw_cep_event(cep, cep->cm_id, IW_CM_EVENT_ESTABLISHED,
			      err ? err : -ECONNRESET, false);
		xiw_cep_event(cep, cep->cm_id, IW_CM_EVENT_CLOSE, 0, false);
	}
	xiw_cep_drop_cm_id(cep);
}

/*
 * The end of a responder's connection where iw_cm expects no event: a
 * failed accept, or a reject.
 */
static void xiw_cep_finish_quietly(struct xiw_cep *cep, int err)
{
	cep->reported = false;
	cep->quiet = true;
	xiw_cep_finish(cep, err);
	cep->quiet = false;
	xiw_cep_drop_cm_id(cep);
}

/*
 * Hands the connection to the QP's data path, which continues the MPA
 * stream where the RTR left it, and feeds it what already arrived.
 */
static int xiw_cep_stream(struct xiw_cep *cep)
{
	struct xiw_mpa_agreed *a = &cep->agreed;
	struct xiw_stream_cfg tx = {}, rx = {};
	struct sock *sk = cep->sock->sk;
	struct sockaddr_storage peer = {};
	int rc;

	tx.markers = a->send_markers;
	rx.markers = a->recv_markers;
	tx.crc = a->crc;
	rx.crc = a->crc;
	tx.rtr_sent = cep->rtr_sent;
	rx.rtr_sent = cep->rtr_sent;
	tx.rtr_recv = cep->rtr_recv;
	rx.rtr_recv = cep->rtr_recv;
	tx.mulpdu = xiw_mpa_mulpdu(READ_ONCE(tcp_sk(sk)->mss_cache),
				   a->send_markers);
	tx.pos = xiw_mpa_tx_position(cep->tx);
	rx.pos = xiw_mpa_rx_position(cep->rx);
	/* For log lines only: a failure leaves it empty. */
	kernel_getpeername(cep->sock, (struct sockaddr *)&peer);
	/* MPA fencing: a client-server responder waits for an FPDU. */
	rc = xiw_qp_stream_start(cep->qp, cep->sock, &tx, &rx,
				 !cep->initiator && !a->peer_to_peer, a->gso);
	if (rc)
		return rc;
	/*
	 * RTS before the first octet is placed: a receive may complete as
	 * soon as the data path has the socket, and a ULP posts from its
	 * completion handler (before its ESTABLISHED, as rdma_cm allows).
	 * Without RFC 6581 the peer never learned our IRD: it stays the
	 * ULP's, but at least one READ is served (a ULP's 0 there meant
	 * "not negotiated").
	 */
	xiw_qp_connected(cep->qp, a, &peer,
			 a->enhanced ? a->ird : max_t(u16, a->ird, 1),
			 a->ord);
	write_lock_bh(&sk->sk_callback_lock);
	cep->streaming = true;
	write_unlock_bh(&sk->sk_callback_lock);
	lock_sock(sk);
	xiw_qp_rx(cep->qp, sk);
	release_sock(sk);
	return 0;
}

static void xiw_cep_connected(struct xiw_cep *cep)
{
	struct xiw_mpa_agreed *a = &cep->agreed;
	int rc = cep->qp ? xiw_cep_stream(cep) : -ENOTCONN;

	if (rc) {
		xiw_cep_finish(cep, rc);
		return;
	}
	cep->state = XIW_CEP_CONNECTED;
	/* The QP learned the peer's address in xiw_cep_stream(). */
	trace_xiw_mpa_agreed(cep->initiator, &cep->qp->peer, a, cep->depths.ird,
			     cep->depths.ord, a->peer_ird, a->peer_ord);
	if (xiw_params_log())
		pr_info("xiw: %s: rev %u crc %u markers %u/%u p2p %u rtr %#x ird %u ord %u gso %u\n",
			cep->initiator ? "initiator" : "responder", a->rev,
			a->crc, a->send_markers, a->recv_markers,
			a->peer_to_peer, a->rtr, a->ird, a->ord, a->gso);
	if (xiw_params_fault_connect_delay_ms())
		msleep(xiw_params_fault_connect_delay_ms());
	cep->reported = true;
	if (cep->initiator) {
		xiw_cep_event(cep, cep->cm_id, IW_CM_EVENT_CONNECT_REPLY, 0,
			      true);
	} else {
		xiw_cep_event(cep, cep->cm_id, IW_CM_EVENT_ESTABLISHED, 0,
			      false);
	}
	/*
	 * A peer that closed during the handshake (its FIN behind its
	 * Request, while the ULP had yet to accept) raised its socket event
	 * when the handshake had no use for it: look again now, or the
	 * connection would stay up, half closed, until the ULP drops it.
	 */
	if (cep->state == XIW_CEP_CONNECTED && cep->sock &&
	    xiw_sock_gone(cep->sock))
		xiw_cep_queue(cep);
}

/* Responder: hand the Request to the listener's ULP. */
static void xiw_cep_connect_request(struct xiw_cep *cep)
{
	struct xiw_cep *l = cep->listener;
	struct iw_cm_id *lid = NULL;

	if (l) {
		spin_lock(&l->children_lock);
		xiw_cep_not_half_open(l, cep);
		lid = l->cm_id;
		if (lid)
			lid->add_ref(lid);
		spin_unlock(&l->children_lock);
	}
	if (!lid) {
		xiw_cep_finish(cep, -ECONNABORTED);
		return;
	}
	/* The event carries the cep's handle, and no reference. */
	if (xiw_cep_event(cep, lid, IW_CM_EVENT_CONNECT_REQUEST, 0, true)) {
		/*
		 * iw_cm dropped the Request (the listener's backlog of
		 * events is used up): no cm_id will ever accept or reject
		 * it, so the connection goes here.
		 */
		xiw_stat_inc(cep->xdev, XIW_STAT_CM_REQ_DROPPED);
		xiw_cep_finish(cep, -ECONNREFUSED);
	}
	lid->rem_ref(lid);
}

static int xiw_cep_retry_unenhanced(struct xiw_cep *cep);

/* One line per TERMINATE of the Startup Phase (RFC 6581 section 9.3). */
static void xiw_cep_log_term(struct xiw_cep *cep, u8 code)
{
	struct sockaddr_storage peer = {};

	if (cep->sock)
		kernel_getpeername(cep->sock, (struct sockaddr *)&peer);
	trace_xiw_terminate(true, 0, &peer, XIW_TERM_LAYER_LLP,
			    XIW_TERM_ETYPE_MPA, code);
	pr_notice_ratelimited("xiw: %s peer %pISpc: TERMINATE sent: layer %u type %u code %#x: %s\n",
			      cep->initiator ? "initiator" : "responder", &peer,
			      XIW_TERM_LAYER_LLP, XIW_TERM_ETYPE_MPA, code,
			      xiw_term_name(XIW_TERM_LAYER_LLP,
					    XIW_TERM_ETYPE_MPA, code));
}

static void xiw_cep_step(struct xiw_cep *cep, const struct xiw_mpa_step *s)
{
	struct xiw_mpa_step next;
	u8 msg[XIW_DDP_MSG_MAX];
	int rc = 0, n;

	xiw_cep_dbg(cep, "step send %u term %u rtr %#x up %u timer %u/%u hs %d err %d\n",
		    s->send_len, s->terminate, s->rtr, s->upcall, s->timer,
		    s->timer_ms, xiw_mpa_hs_state(cep->hs),
		    xiw_mpa_hs_error(cep->hs));

	if (s->send_len)
		rc = xiw_cep_send(cep, s->send, s->send_len);
	if (!rc && (s->rtr || s->terminate || s->upcall == XIW_MPA_UP_CONNECTED ||
		    xiw_mpa_hs_state(cep->hs) == XIW_MPA_HS_AWAIT_RTR))
		xiw_cep_full_operation(cep);
	if (!rc && s->terminate) {
		/* RFC 6581 9.3: the TERMINATE goes out before the reset. */
		n = xiw_ddp_encode_mpa_term(s->terminate, 1, msg, sizeof(msg));
		if (n > 0 && !xiw_cep_send_fpdu(cep, msg, n)) {
			xiw_stat_inc(cep->xdev, XIW_STAT_TX_TERMINATE);
			xiw_cep_log_term(cep, s->terminate);
		}
	}
	if (!rc && s->rtr) {
		n = xiw_ddp_encode_rtr(s->rtr, msg, sizeof(msg));
		rc = n < 0 ? n : xiw_cep_send_fpdu(cep, msg, n);
		if (!rc) {
			cep->rtr_sent = s->rtr;
			xiw_mpa_hs_rtr_sent(cep->hs, &next);
			xiw_cep_step(cep, &next);
			return;
		}
	}
	xiw_cep_timer(cep, s);
	if (rc) {
		xiw_cep_finish(cep, rc);
		return;
	}
	switch (s->upcall) {
	case XIW_MPA_UP_REQUEST:
		xiw_cep_connect_request(cep);
		return;
	case XIW_MPA_UP_CONNECTED:
		xiw_cep_connected(cep);
		break;
	case XIW_MPA_UP_REJECTED:
		xiw_cep_finish(cep, -ECONNREFUSED);
		return;
	case XIW_MPA_UP_FAILED:
		if (s->retry_unenhanced && !xiw_cep_retry_unenhanced(cep))
			return;
		xiw_cep_finish(cep, xiw_mpa_hs_error(cep->hs));
		return;
	}
	if (s->close_after_send || s->terminate)
		xiw_cep_finish(cep, xiw_mpa_hs_error(cep->hs));
}

/* ---- receiving ------------------------------------------------------------ */

struct xiw_rtr_sink {
	u8 ulpdu[XIW_DDP_MSG_MAX];
	u32 len;
	bool done;
};

static int xiw_rtr_begin(void *ctx, xiw_u16 len)
{
	return len > XIW_DDP_MSG_MAX ? -EMSGSIZE : 0;
}

static int xiw_rtr_data(void *ctx, const void *buf, xiw_size len)
{
	struct xiw_rtr_sink *s = ctx;

	if (s->len + len > sizeof(s->ulpdu))
		return -EMSGSIZE;
	memcpy(s->ulpdu + s->len, buf, len);
	s->len += len;
	return 0;
}

static int xiw_rtr_end(void *ctx)
{
	((struct xiw_rtr_sink *)ctx)->done = true;
	return 0;
}

static const struct xiw_mpa_rx_sink xiw_rtr_ops = {
	.begin = xiw_rtr_begin, .data = xiw_rtr_data, .end = xiw_rtr_end,
};

/*
 * Responder, peer-to-peer: read exactly the first FPDU, which must be the
 * RTR; anything after it stays in the socket for the data path.
 */
static void xiw_cep_read_rtr(struct xiw_cep *cep)
{
	size_t prefix = cep->agreed.recv_markers ? 6 : 2, want;
	struct xiw_rtr_sink sink = {};
	struct xiw_mpa_step s;
	struct xiw_ddp_rtr rtr = {};
	u8 msg[XIW_DDP_MSG_MAX];
	int n, rc;

	if (cep->have < prefix) {
		n = xiw_cep_recv(cep, cep->buf + cep->have, prefix - cep->have, 0);
		if (n == -EAGAIN)
			return;
		if (n <= 0)
			goto lost;
		cep->have += n;
		if (cep->have < prefix)
			return;
	}
	want = xiw_mpa_fpdu_wire_len(cep->buf[prefix - 2] << 8 |
				     cep->buf[prefix - 1],
				     0, cep->agreed.recv_markers);
	if (want > sizeof(cep->buf)) {
		xiw_mpa_hs_first_fpdu_unreadable(cep->hs, 0, &s);
		xiw_cep_step(cep, &s);
		return;
	}
	while (cep->have < want) {
		n = xiw_cep_recv(cep, cep->buf + cep->have, want - cep->have, 0);
		if (n == -EAGAIN)
			return;
		if (n <= 0)
			goto lost;
		cep->have += n;
	}
	rc = xiw_mpa_rx_consume(cep->rx, cep->buf, want, &xiw_rtr_ops, &sink);
	if (rc || !sink.done) {
		/* A CRC or Marker error, or an FPDU too long for an RTR. */
		xiw_mpa_hs_first_fpdu_unreadable(cep->hs,
						 xiw_mpa_rx_error(cep->rx), &s);
		xiw_cep_step(cep, &s);
		return;
	}
	if (xiw_ddp_parse_rtr(sink.ulpdu, sink.len, &rtr) == 0 &&
	    rtr.rtr == XIW_MPA_CTRL_D) {
		/* The zero-length Read Response to a READ RTR. */
		n = xiw_ddp_encode_rtr_response(&rtr, msg, sizeof(msg));
		if (n > 0)
			xiw_cep_send_fpdu(cep, msg, n);
	}
	cep->rtr_recv = rtr.rtr;
	xiw_mpa_hs_first_fpdu(cep->hs, rtr.rtr, &s);
	xiw_cep_step(cep, &s);
	return;
lost:
	xiw_mpa_hs_llp_closed(cep->hs, &s);
	xiw_cep_step(cep, &s);
}

static void xiw_cep_read_startup(struct xiw_cep *cep)
{
	struct xiw_mpa_step s;
	size_t need;
	int n;

	while (cep->state == XIW_CEP_MPA && (need = xiw_mpa_hs_rx_need(cep->hs))) {
		n = xiw_cep_recv(cep, cep->buf, min(need, sizeof(cep->buf)), 0);
		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			xiw_mpa_hs_llp_closed(cep->hs, &s);
			xiw_cep_step(cep, &s);
			return;
		}
		xiw_mpa_hs_receive(cep->hs, cep->buf, n, &s);
		xiw_cep_step(cep, &s);
	}
	if (cep->state == XIW_CEP_MPA &&
	    xiw_mpa_hs_state(cep->hs) == XIW_MPA_HS_AWAIT_RTR)
		xiw_cep_read_rtr(cep);
}

static void xiw_cep_listen_work(struct xiw_cep *l);

static void xiw_cep_work(struct work_struct *w)
{
	struct xiw_cep *cep = container_of(w, struct xiw_cep, work);
	struct xiw_mpa_step s;

	mutex_lock(&cep->lock);
	xiw_cep_dbg(cep, "work state %d sk %d\n", cep->state,
		    cep->sock ? READ_ONCE(cep->sock->sk->sk_state) : -1);
	switch (cep->state) {
	case XIW_CEP_LISTEN:
		xiw_cep_listen_work(cep);
		break;
	case XIW_CEP_CONNECTING:
		if (READ_ONCE(cep->sock->sk->sk_state) == TCP_ESTABLISHED) {
			cep->state = XIW_CEP_MPA;
			xiw_mpa_hs_connect(cep->hs, &cep->depths, cep->pd,
					   cep->pd_len, &s);
			xiw_cep_step(cep, &s);
		} else if (xiw_sock_gone(cep->sock)) {
			xiw_cep_finish(cep, sock_error(cep->sock->sk) ?: -ECONNREFUSED);
		}
		break;
	case XIW_CEP_MPA:
		xiw_cep_read_startup(cep);
		break;
	case XIW_CEP_CONNECTED:
		/* The data path has the data: a closing peer is ours. */
		if (cep->drop || (cep->sock && xiw_sock_gone(cep->sock))) {
			if (!cep->drop)
				xiw_cep_event(cep, cep->cm_id,
					      IW_CM_EVENT_DISCONNECT, 0, false);
			xiw_cep_finish(cep, 0);
		}
		break;
	default:
		break;
	}
	mutex_unlock(&cep->lock);
	xiw_cep_put(cep);
}

static void xiw_cep_timeout(struct work_struct *w)
{
	struct xiw_cep *cep = container_of(to_delayed_work(w), struct xiw_cep,
					   timer);
	struct xiw_mpa_step s;

	mutex_lock(&cep->lock);
	xiw_cep_dbg(cep, "timeout in state %d\n", cep->state);
	if (cep->state == XIW_CEP_MPA) {
		xiw_mpa_hs_timeout(cep->hs, &s);
		xiw_cep_step(cep, &s);
	} else if (cep->state == XIW_CEP_CONNECTING) {
		xiw_cep_finish(cep, -ETIMEDOUT);
	}
	mutex_unlock(&cep->lock);
	xiw_cep_put(cep);	/* the armed timer's */
}

/* ---- passive side ---------------------------------------------------------- */

static int xiw_cep_init_hs(struct xiw_cep *cep)
{
	struct xiw_mpa_policy p;

	xiw_params_policy(&p);
	return xiw_mpa_hs_init(cep->hs, xiw_mpa_hs_size(), &p) ? 0 : -EINVAL;
}

/*
 * mpa_max_half_open: before a listener that holds that many connections
 * still waiting for their MPA Request takes one more, the one that has
 * waited longest goes. xiw accepts every connection TCP completes, so the
 * listen backlog no longer bounds them; a peer that opens connections and
 * stops (RFC 5044 leaves the wait to the responder's timer) now holds at
 * most this many, and a real client's connection, the newest, goes last.
 */
static void xiw_listen_make_room(struct xiw_cep *l)
{
	unsigned int max = xiw_params_max_half_open();
	struct xiw_cep *old = NULL, *c;

	spin_lock(&l->children_lock);
	if (max && l->n_half_open >= max) {
		list_for_each_entry(c, &l->children, child) {
			if (c->half_open) {
				old = c;
				break;
			}
		}
	}
	if (old) {
		xiw_cep_not_half_open(l, old);
		kref_get(&old->ref);
	}
	spin_unlock(&l->children_lock);
	if (!old)
		return;
	mutex_lock_nested(&old->lock, SINGLE_DEPTH_NESTING);
	/* Unless its Request completed meanwhile. */
	if (old->state == XIW_CEP_MPA &&
	    xiw_mpa_hs_state(old->hs) == XIW_MPA_HS_AWAIT_REQUEST) {
		xiw_stat_inc(old->xdev, XIW_STAT_CM_HALF_OPEN_CLOSED);
		xiw_cep_finish(old, -ECONNABORTED);
	}
	mutex_unlock(&old->lock);
	xiw_cep_put(old);
}

static void xiw_cep_listen_work(struct xiw_cep *l)
{
	struct xiw_mpa_step s;
	struct xiw_cep *cep;
	struct socket *ns;

	while (l->sock && kernel_accept(l->sock, &ns, O_NONBLOCK) == 0) {
		xiw_listen_make_room(l);
		cep = xiw_cep_alloc(l->xdev);
		if (!cep || xiw_cep_init_hs(cep)) {
			if (cep)
				xiw_cep_put(cep);
			sock_release(ns);
			continue;
		}
		tcp_sock_set_nodelay(ns->sk);
		kref_get(&l->ref);
		cep->listener = l;
		kref_get(&cep->ref);	/* the listener list's */
		spin_lock(&l->children_lock);
		list_add_tail(&cep->child, &l->children);
		cep->half_open = true;
		l->n_half_open++;
		spin_unlock(&l->children_lock);
		/* Listener, then child: a child never takes its listener's lock. */
		mutex_lock_nested(&cep->lock, SINGLE_DEPTH_NESTING);
		xiw_cep_attach(cep, ns, l);
		cep->state = XIW_CEP_MPA;
		xiw_mpa_hs_listen(cep->hs, &s);
		xiw_cep_step(cep, &s);
		mutex_unlock(&cep->lock);
		xiw_cep_queue(cep);	/* the Request may be queued already */
		xiw_cep_put(cep);	/* ours */
	}
}

static bool xiw_addr_any(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET6)
		return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	       htonl(INADDR_ANY);
}

/*
 * Binds a listener's socket. A wildcard listener takes connections that
 * arrive on this device's netdev only: rdma_cm listens on every device for
 * a wildcard address, and each xiw device has its own socket. An IPv6
 * wildcard that is not IPv6-only shares its port with the IPv4 wildcard
 * of the same rdma_cm port (NFS/RDMA's nfsd listens on both): when that
 * listener holds the port, IPv4 is already served and this one listens
 * for IPv6 only.
 */
static int xiw_listen_bind(struct xiw_device *xdev, struct socket *s,
			   struct iw_cm_id *id)
{
	struct sockaddr *a = (struct sockaddr *)&id->local_addr;
	bool v6 = a->sa_family == AF_INET6;
	int rc;

	if (v6 && id->afonly) {
		rc = ip6_sock_set_v6only(s->sk);
		if (rc)
			return rc;
	}
	if (xiw_addr_any(&id->local_addr)) {
		rc = sock_bindtoindex(s->sk, xdev->netdev->ifindex, true);
		if (rc)
			return rc;
	}
	rc = kernel_bind(s, a, sizeof(id->local_addr));
	if (rc == -EADDRINUSE && v6 && !id->afonly &&
	    xiw_addr_any(&id->local_addr)) {
		rc = ip6_sock_set_v6only(s->sk);
		if (!rc)
			rc = kernel_bind(s, a, sizeof(id->local_addr));
	}
	return rc;
}

int xiw_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct xiw_device *xdev = to_xiw_dev(id->device);
	struct xiw_cep *cep;
	struct socket *s;
	int rc;

	cep = xiw_cep_alloc(xdev);
	if (!cep)
		return -ENOMEM;
	s = xiw_cm_socket(xdev, &id->local_addr);
	if (IS_ERR(s)) {
		xiw_cep_put(cep);
		return PTR_ERR(s);
	}
	rc = xiw_listen_bind(xdev, s, id);
	if (rc) {
		sock_release(s);
		xiw_cep_put(cep);
		return rc;
	}
	/*
	 * The callbacks are ours before the socket listens: a connection
	 * that completes at once must wake the listener's work, which runs
	 * once this lock is let go.
	 */
	mutex_lock(&cep->lock);
	cep->state = XIW_CEP_LISTEN;
	xiw_cep_attach(cep, s, NULL);
	rc = kernel_listen(s, backlog);
	if (rc) {
		cep->state = XIW_CEP_CLOSED;
		xiw_cep_close_sock(cep);
		mutex_unlock(&cep->lock);
		xiw_cep_put(cep);
		return rc;
	}
	cep->cm_id = id;
	id->add_ref(id);
	xiw_cm_id_set(id, cep);
	mutex_unlock(&cep->lock);
	return 0;
}

int xiw_iw_destroy_listen(struct iw_cm_id *id)
{
	struct xiw_cep *l = xiw_cep_of(id), *cep;

	if (!l)
		return 0;
	mutex_lock(&l->lock);
	l->state = XIW_CEP_CLOSED;
	xiw_cep_close_sock(l);
	spin_lock(&l->children_lock);
	l->cm_id = NULL;
	spin_unlock(&l->children_lock);
	xiw_cm_id_clear(id);
	id->rem_ref(id);
	mutex_unlock(&l->lock);
	/*
	 * Connections no ULP has seen yet go with the listener. One whose
	 * Request iw_cm has may have reached its ULP, which may still
	 * accept it; or iw_cm drops the event with the listener, and the
	 * connection ends at the ULP timeout, a close by the peer, or the
	 * device's removal (xiw_cm_device_gone()).
	 */
	for (;;) {
		spin_lock(&l->children_lock);
		cep = list_first_entry_or_null(&l->children, struct xiw_cep,
					       child);
		if (cep)
			kref_get(&cep->ref);
		spin_unlock(&l->children_lock);
		if (!cep)
			break;
		mutex_lock(&cep->lock);
		if (cep->listener == l) {
			if (xiw_mpa_hs_state(cep->hs) == XIW_MPA_HS_AWAIT_ULP) {
				/* The ULP owns it now: it keeps the cep. */
				xiw_cep_unlink_child(cep);
			} else {
				xiw_cep_finish(cep, -ECONNABORTED);
			}
		}
		mutex_unlock(&cep->lock);
		xiw_cep_put(cep);
	}
	flush_workqueue(xiw_cm_wq);
	xiw_cep_put(l);		/* ours */
	xiw_cep_put(l);		/* create_listen's */
	return 0;
}

static void xiw_depths(struct xiw_mpa_depths *d, struct iw_cm_conn_param *p)
{
	d->ird = min_t(u32, p->ird, XIW_MAX_IRD);
	d->ord = min_t(u32, p->ord, XIW_MAX_ORD);
	d->max_ird = XIW_MAX_IRD;
	d->max_ord = XIW_MAX_ORD;
}

static int xiw_cep_bind_qp(struct xiw_cep *cep, struct iw_cm_id *id, u32 qpn)
{
	struct xiw_qp *qp = xiw_qp_lookup(cep->xdev, qpn);

	if (!qp)
		return -EINVAL;
	spin_lock_bh(&qp->lock);
	if (qp->cep) {
		spin_unlock_bh(&qp->lock);
		xiw_qp_put(qp);
		return -EBUSY;
	}
	kref_get(&cep->ref);
	qp->cep = cep;
	WRITE_ONCE(qp->llp_close, xiw_cm_qp_drop);
	spin_unlock_bh(&qp->lock);
	cep->qp = qp;
	cep->cm_id = id;
	id->add_ref(id);
	kref_get(&cep->ref);	/* the cm_id's, while events may follow */
	xiw_cm_id_set(id, cep);
	return 0;
}

int xiw_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct xiw_cep *cep = xiw_cep_of(id);
	struct xiw_mpa_step s;
	int rc;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->lock);
	if (cep->state != XIW_CEP_MPA ||
	    xiw_mpa_hs_state(cep->hs) != XIW_MPA_HS_AWAIT_ULP) {
		rc = -ECONNRESET;
		goto out;
	}
	rc = xiw_cep_bind_qp(cep, id, p->qpn);
	if (rc) {
		/* iw_cm gives up the cm_id: the connection goes too. */
		xiw_cep_finish(cep, rc);
		goto out;
	}
	xiw_cep_unlink_child(cep);
	xiw_depths(&cep->depths, p);
	xiw_mpa_hs_accept(cep->hs, &cep->depths, p->private_data,
			  p->private_data_len, &s);
	cep->quiet = true;
	cep->accept_rc = 0;
	xiw_cep_step(cep, &s);
	cep->quiet = false;
	rc = cep->accept_rc;
	if (!rc && xiw_mpa_hs_state(cep->hs) == XIW_MPA_HS_AWAIT_RTR) {
		/*
		 * Peer-to-peer: the accept returns now, without waiting for
		 * the RTR (iw_cm may call it on its only work queue); the
		 * work reports ESTABLISHED or the failure as events.
		 */
		xiw_cep_queue(cep);	/* the RTR may be there already */
	} else if (!rc && cep->state != XIW_CEP_CONNECTED) {
		rc = xiw_mpa_hs_error(cep->hs) ?: -ECONNRESET;
	}
	/* An error on accept precludes provider events. */
	if (rc)
		xiw_cep_finish_quietly(cep, rc);
out:
	if (rc)
		xiw_cm_id_clear(id);
	mutex_unlock(&cep->lock);
	xiw_cep_put(cep);	/* ours */
	return rc;
}

/*
 * Before accept: the Reject goes out. After a successful accept (the
 * cm_id is bound to the cep; iw_cm allows a reject until ESTABLISHED),
 * the connection just closes: iw_cm has left CONN_RECV and takes no more
 * events.
 */
int xiw_iw_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	struct xiw_cep *cep = xiw_cep_of(id);
	struct xiw_mpa_step s;
	bool accepted;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->lock);
	accepted = cep->cm_id == id;
	if (!accepted)
		xiw_cm_id_clear(id);
	if (!accepted && cep->state == XIW_CEP_MPA &&
	    xiw_mpa_hs_state(cep->hs) == XIW_MPA_HS_AWAIT_ULP) {
		xiw_mpa_hs_reject(cep->hs, pdata, len, &s);
		xiw_cep_step(cep, &s);
	}
	xiw_cep_finish_quietly(cep, -ECONNREFUSED);
	mutex_unlock(&cep->lock);
	xiw_cep_put(cep);
	return 0;
}

/* ---- active side --------------------------------------------------------- */

/*
 * Opens the initiator's TCP connection from the cm_id's addresses. Never
 * blocks: the work continues once TCP is connected. The Reply timeout
 * also bounds the TCP connect. Under cep->lock.
 */
static int xiw_cep_dial(struct xiw_cep *cep, u32 timeout_ms)
{
	struct xiw_mpa_step t = { .timer = XIW_MPA_TIMER_ARM,
				  .timer_ms = timeout_ms };
	struct iw_cm_id *id = cep->cm_id;
	struct socket *s;
	int rc;

	lockdep_assert_held(&cep->lock);
	s = xiw_cm_socket(cep->xdev, &id->remote_addr);
	if (IS_ERR(s))
		return PTR_ERR(s);
	rc = kernel_bind(s, (struct sockaddr *)&id->local_addr,
			 sizeof(id->local_addr));
	if (rc) {
		sock_release(s);
		return rc;
	}
	cep->state = XIW_CEP_CONNECTING;
	xiw_cep_attach(cep, s, NULL);
	rc = kernel_connect(s, (struct sockaddr *)&id->remote_addr,
			    sizeof(id->remote_addr), O_NONBLOCK);
	if (rc && rc != -EINPROGRESS)
		return rc;
	if (timeout_ms)
		xiw_cep_timer(cep, &t);
	xiw_cep_queue(cep);
	return 0;
}

/*
 * RFC 6581 section 10: the peer closed on our enhanced Request without a
 * Reply, so it may speak RFC 5044 only. Try once more on a new connection
 * from the same address with a Rev 1 Request. The first socket is reset,
 * not closed, so that the new one can take its address and port at once.
 * Returns 0 when the new connection is under way.
 */
static int xiw_cep_retry_unenhanced(struct xiw_cep *cep)
{
	struct xiw_mpa_policy p;

	if (!cep->cm_id || !cep->sock)
		return -ENOTCONN;
	if (xiw_params_log())
		pr_info("xiw: initiator: peer closed on the enhanced Request, retrying with Rev 1\n");
	sock_no_linger(cep->sock->sk);
	xiw_cep_close_sock(cep);
	xiw_params_policy(&p);
	p.rev = 1;
	if (!xiw_mpa_hs_init(cep->hs, xiw_mpa_hs_size(), &p))
		return -EINVAL;
	return xiw_cep_dial(cep, p.reply_ms);
}

int xiw_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct xiw_device *xdev = to_xiw_dev(id->device);
	struct xiw_mpa_policy pol;
	struct xiw_cep *cep;
	int rc;

	pr_debug("xiw: connect qpn %u to %pISpc\n", p->qpn, &id->remote_addr);
	/* Refused here, not later in the Request: RFC 6581 takes 4 of 512. */
	xiw_params_policy(&pol);
	if (p->private_data_len >
	    XIW_MPA_PD_MAX - (pol.rev >= 2 ? XIW_MPA_ENH_LEN : 0))
		return -EINVAL;
	cep = xiw_cep_alloc(xdev);
	if (!cep)
		return -ENOMEM;
	rc = xiw_cep_init_hs(cep);
	if (rc)
		goto put;
	mutex_lock(&cep->lock);
	rc = xiw_cep_bind_qp(cep, id, p->qpn);
	if (rc) {
		mutex_unlock(&cep->lock);
		goto put;
	}
	cep->initiator = true;
	xiw_depths(&cep->depths, p);
	cep->pd_len = p->private_data_len;
	memcpy(cep->pd, p->private_data, cep->pd_len);
	rc = xiw_cep_dial(cep, pol.reply_ms);
	if (rc) {
		/* A synchronous failure: no events follow. */
		cep->initiator = false;
		cep->state = XIW_CEP_CLOSED;
		xiw_cep_close_sock(cep);
		xiw_cep_detach_qp(cep);
		xiw_cep_drop_cm_id(cep);
	}
	mutex_unlock(&cep->lock);
put:
	xiw_cep_put(cep);
	return rc;
}

void xiw_cm_qp_drop(struct xiw_qp *qp)
{
	struct xiw_cep *cep;

	spin_lock_bh(&qp->lock);
	cep = qp->cep;
	if (cep)
		kref_get(&cep->ref);
	spin_unlock_bh(&qp->lock);
	if (!cep)
		return;
	mutex_lock(&cep->lock);
	cep->drop = true;
	if (cep->state == XIW_CEP_CONNECTED)
		xiw_cep_queue(cep);	/* closes, then CLOSE to the ULP */
	else if (cep->qp == qp && cep->cm_id)
		/*
		 * Still connecting, or accepted and waiting for the RTR:
		 * iw_cm holds the QP and waits for CONNECT_REPLY or
		 * ESTABLISHED, and destroying the cm_id waits with it. With
		 * the QP gone the connection cannot come up: end it now, not
		 * at the Reply or RTR timeout.
		 */
		xiw_cep_finish(cep, -ECONNABORTED);
	else if (cep->qp == qp)
		xiw_cep_detach_qp(cep);
	mutex_unlock(&cep->lock);
	xiw_cep_put(cep);
}

int xiw_cm_init(void)
{
	xiw_cm_wq = alloc_workqueue("xiw_cm", WQ_MEM_RECLAIM, 0);
	return xiw_cm_wq ? 0 : -ENOMEM;
}

/*
 * The device is going (its dealloc, after every ULP let go of it): each
 * connection still on it ends. What is left here is a Request no ULP will
 * answer (iw_cm dropped it with its listener); nothing may outlive the
 * device, which the cep's work would otherwise touch.
 */
void xiw_cm_device_gone(struct xiw_device *xdev)
{
	unsigned long i = 0;
	struct xiw_cep *cep;

	for (;; i++) {
		xa_lock_bh(&xiw_ceps);
		cep = xa_find(&xiw_ceps, &i, ULONG_MAX, XA_PRESENT);
		if (!cep) {
			xa_unlock_bh(&xiw_ceps);
			break;
		}
		if (!kref_get_unless_zero(&cep->ref))
			cep = NULL;	/* being released */
		xa_unlock_bh(&xiw_ceps);
		if (!cep)
			continue;
		mutex_lock(&cep->lock);
		if (cep->xdev == xdev && !cep->cm_id)
			xiw_cep_finish(cep, -ENODEV);
		mutex_unlock(&cep->lock);
		xiw_cep_put(cep);
	}
	flush_workqueue(xiw_cm_wq);
}

/*
 * A snapshot for `rdma resource show cm_id`. No cep->lock: the lock is
 * held while events go up, and a ULP that destroys its rdma_cm id from
 * its handler waits there for this dump to let go of the id (restrack).
 * The state may be stale by the time it is printed, as any such listing.
 */
int xiw_cm_info(struct iw_cm_id *id, struct xiw_cm_info *info)
{
	static const char *const names[] = {
		[XIW_CEP_IDLE] = "idle",
		[XIW_CEP_LISTEN] = "listen",
		[XIW_CEP_CONNECTING] = "connecting",
		[XIW_CEP_MPA] = "mpa",
		[XIW_CEP_CONNECTED] = "connected",
		[XIW_CEP_CLOSED] = "closed",
	};
	struct xiw_cep *cep = xiw_cep_of(id);
	enum xiw_cep_state state;

	if (!cep)
		return -ENOENT;
	/* Written under cep->lock, which this snapshot may not take. */
	state = data_race(cep->state);
	info->state = state < ARRAY_SIZE(names) ? names[state] : "?";
	info->initiator = cep->initiator;
	info->listener = state == XIW_CEP_LISTEN;
	spin_lock(&cep->children_lock);
	info->half_open = cep->n_half_open;
	spin_unlock(&cep->children_lock);
	xiw_cep_put(cep);
	return 0;
}

void xiw_cm_exit(void)
{
	/* Devices are gone, so every cep is closing: wait for the last. */
	wait_var_event_timeout(&xiw_cep_count, !atomic_read(&xiw_cep_count),
			       30 * HZ);
	if (atomic_read(&xiw_cep_count))
		pr_err("xiw: %d connection endpoints outlived their device\n",
		       atomic_read(&xiw_cep_count));
	destroy_workqueue(xiw_cm_wq);
}
