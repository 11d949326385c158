/* SPDX-License-Identifier: GPL-2.0 */
/* The iWARP connection manager (cm.c). */
#ifndef XIW_CM_H
#define XIW_CM_H

#include <rdma/iw_cm.h>

struct xiw_device;
struct xiw_qp;

int xiw_cm_init(void);
void xiw_cm_exit(void);
void xiw_cm_device_gone(struct xiw_device *xdev);

int xiw_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p);
int xiw_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p);
int xiw_iw_reject(struct iw_cm_id *id, const void *pdata, u8 len);
int xiw_iw_create_listen(struct iw_cm_id *id, int backlog);
int xiw_iw_destroy_listen(struct iw_cm_id *id);

/*
 * The QP leaves RTS or is destroyed: close its connection. Every close is
 * the same: TCP's orderly close, or a reset while TCP still holds
 * zero-copy pages (zcopy.c); iw_cm's graceful and abortive disconnects
 * (SQD and ERROR) differ only in what the QP does with its queues.
 */
void xiw_cm_qp_drop(struct xiw_qp *qp);

/* What `rdma resource show cm_id` shows of a connection (restrack.c). */
struct xiw_cm_info {
	const char *state;	/* listen, connecting, mpa, connected, ... */
	bool initiator;
	bool listener;
	u32 half_open;		/* listener: Requests not yet complete */
};

/* 0 and @info filled if @id has a connection endpoint, else -ENOENT. */
int xiw_cm_info(struct iw_cm_id *id, struct xiw_cm_info *info);

#endif /* XIW_CM_H */
