/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What newer kernels have and older ones lack. Each gap is detected from
 * the kernel tree's headers by Kbuild (XIW_HAVE_*), never by version
 * number, so distribution backports are honoured.
 */
#ifndef XIW_COMPAT_H
#define XIW_COMPAT_H

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#ifndef XIW_HAVE_NAME_ASSIGN_TYPE
/* Before name_assign_type, every name given through netlink was the user's. */
static inline void ib_mark_name_assigned_by_user(struct ib_device *ibdev)
{
}
#endif

/* create_cq's last argument: the uverbs attribute bundle since 6.9ish. */
#ifdef XIW_HAVE_CQ_ATTRS
#define XIW_CREATE_CQ_LAST_ARG	struct uverbs_attr_bundle *attrs
#define XIW_CREATE_CQ_LAST_NAME	attrs
#else
#define XIW_CREATE_CQ_LAST_ARG	struct ib_udata *cq_udata
#define XIW_CREATE_CQ_LAST_NAME	cq_udata
#endif
/* The user's data, NULL for kernel CQs. */
#ifdef XIW_HAVE_CQ_ATTRS
#define xiw_create_cq_udata(attrs)	((attrs) ? &(attrs)->driver_udata : NULL)
#else
#define xiw_create_cq_udata(udata)	(udata)
#endif

/*
 * Zero-copy transmit needs a notification of our own on the skbs
 * (struct ubuf_info_ops, 6.10); before it, zcopy.c lets callers copy.
 */

#endif /* XIW_COMPAT_H */
