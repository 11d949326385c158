/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What newer kernels have and older ones lack. Each gap is detected from
 * the kernel tree's headers by Kbuild (XIW_HAVE_*), never by version
 * number, so distribution backports are honoured.
 */
#ifndef XIW_COMPAT_H
#define XIW_COMPAT_H

#include <rdma/ib_verbs.h>

#ifndef XIW_HAVE_NAME_ASSIGN_TYPE
/* Before name_assign_type, every name given through netlink was the user's. */
static inline void ib_mark_name_assigned_by_user(struct ib_device *ibdev)
{
}
#endif

#endif /* XIW_COMPAT_H */
