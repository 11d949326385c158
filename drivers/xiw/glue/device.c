// SPDX-License-Identifier: GPL-2.0
/*
 * The xiw ib_device: one per net_device, created by
 * `rdma link add <name> type xiw netdev <dev>` and removed by
 * `rdma link delete`, by the net_device going away or at module exit.
 *
 * xiw reports driver id RDMA_DRIVER_SIW and speaks the siw user ABI, so
 * that rdma-core's siw provider drives it unchanged; the devices of this
 * module are therefore tracked in a list of our own, never looked up by
 * driver id (that would find upstream siw's devices too).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_netlink.h>

#include "cm.h"
#include "compat.h"
#include "xiw.h"

static LIST_HEAD(xiw_devices);
static DEFINE_MUTEX(xiw_devices_lock);
static struct workqueue_struct *xiw_wq;

static void xiw_dealloc_driver(struct ib_device *ibdev)
{
	struct xiw_device *xdev = to_xiw_dev(ibdev);

	xiw_cm_device_gone(xdev);
	mutex_lock(&xiw_devices_lock);
	list_del_init(&xdev->list);
	mutex_unlock(&xiw_devices_lock);
	dev_put(xdev->netdev);
}

/*
 * The port's net_device, for the RDMA core (`rdma link`, the GID cache,
 * rdma_cm). Through this op and not ib_device_set_netdev(): that one also
 * files the device in the core's table that ib_device_get_by_netdev()
 * searches, where upstream siw, whose driver id we report, would find it
 * and take it for one of its own (6.1's siw writes its own fields into
 * such a device on every link event). xiw holds the reference it returns
 * a copy of from newlink until dealloc_driver.
 */
static struct net_device *xiw_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct net_device *netdev = to_xiw_dev(ibdev)->netdev;

	dev_hold(netdev);
	return netdev;
}

static const struct ib_device_ops xiw_device_ops = {
	.owner = THIS_MODULE,
	.uverbs_abi_ver = SIW_ABI_VERSION,
	.driver_id = RDMA_DRIVER_SIW,
	.dealloc_driver = xiw_dealloc_driver,
	.get_netdev = xiw_get_netdev,
};

/*
 * Runs on xiw_wq: unregistering under RTNL (the notifier) would deadlock.
 * The notifier took a reference, so the device outlives a concurrent
 * `rdma link delete`; unregistering twice is harmless.
 */
static void xiw_unregister_work(struct work_struct *work)
{
	struct xiw_device *xdev =
		container_of(work, struct xiw_device, unregister_work);

	ib_unregister_device(&xdev->ibdev);
	put_device(&xdev->ibdev.dev);
}

static struct xiw_device *xiw_find_by_netdev(struct net_device *netdev)
{
	struct xiw_device *xdev;

	lockdep_assert_held(&xiw_devices_lock);
	list_for_each_entry(xdev, &xiw_devices, list)
		if (xdev->netdev == netdev)
			return xdev;
	return NULL;
}

static struct xiw_device *xiw_device_alloc(struct net_device *netdev)
{
	struct xiw_device *xdev = ib_alloc_device(xiw_device, ibdev);
	struct ib_device *ibdev;

	if (!xdev)
		return NULL;
	ibdev = &xdev->ibdev;
	INIT_LIST_HEAD(&xdev->list);
	INIT_WORK(&xdev->unregister_work, xiw_unregister_work);
	xa_init_flags(&xdev->qps, XA_FLAGS_ALLOC1);
	xa_init_flags(&xdev->mrs, XA_FLAGS_ALLOC1);
	xdev->netdev = netdev;

	/* The GID is the MAC; a device without one gets a random unicast. */
	if (netdev->addr_len >= ETH_ALEN)
		ether_addr_copy(xdev->raw_gid, netdev->dev_addr);
	else
		eth_random_addr(xdev->raw_gid);
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, xdev->raw_gid);

	ibdev->node_type = RDMA_NODE_RNIC;
	strscpy(ibdev->node_desc, "xiw software iWARP RNIC",
		sizeof(ibdev->node_desc));
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
	strscpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
	ib_set_device_ops(ibdev, &xiw_device_ops);
	ib_set_device_ops(ibdev, &xiw_verbs_ops);
	ib_set_device_ops(ibdev, &xiw_stats_ops);
	ib_set_device_ops(ibdev, &xiw_restrack_ops);
	/* The siw provider's doorbell is an empty post_send command. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	return xdev;
}

static int xiw_newlink(const char *ibdev_name, struct net_device *netdev)
{
	struct xiw_device *xdev;
	int rc;

	if (netdev->type != ARPHRD_ETHER && netdev->type != ARPHRD_NONE) {
		pr_err("%s: not an Ethernet device\n", netdev->name);
		return -EINVAL;
	}
	mutex_lock(&xiw_devices_lock);
	if (xiw_find_by_netdev(netdev)) {
		mutex_unlock(&xiw_devices_lock);
		return -EEXIST;
	}
	mutex_unlock(&xiw_devices_lock);

	xdev = xiw_device_alloc(netdev);
	if (!xdev)
		return -ENOMEM;
	dev_hold(netdev);	/* put by dealloc_driver, or below */
	ib_mark_name_assigned_by_user(&xdev->ibdev);
	/* Listed before registration: a NETDEV_UNREGISTER must find it. */
	mutex_lock(&xiw_devices_lock);
	list_add_tail(&xdev->list, &xiw_devices);
	mutex_unlock(&xiw_devices_lock);
	rc = ib_register_device(&xdev->ibdev, ibdev_name, NULL);
	if (rc) {
		mutex_lock(&xiw_devices_lock);
		list_del_init(&xdev->list);
		mutex_unlock(&xiw_devices_lock);
		goto err_dealloc;
	}
	ibdev_info(&xdev->ibdev, "created on %s\n", netdev->name);
	return 0;

err_dealloc:
	dev_put(netdev);
	ib_dealloc_device(&xdev->ibdev);
	return rc;
}

static struct rdma_link_ops xiw_link_ops = {
	.type = "xiw",
	.newlink = xiw_newlink,
};

static void xiw_port_event(struct xiw_device *xdev, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &xdev->ibdev,
		.event = type,
		.element.port_num = XIW_PORT,
	};

	ib_dispatch_event(&event);
}

/* Every QP of the device to ERROR, with IB_EVENT_QP_FATAL. */
static void xiw_qps_to_error(struct xiw_device *xdev)
{
	struct xiw_qp *qp;
	unsigned long i;

	xa_lock(&xdev->qps);
	xa_for_each(&xdev->qps, i, qp)
		if (READ_ONCE(qp->state) == IB_QPS_RTS ||
		    READ_ONCE(qp->state) == IB_QPS_SQD)
			xiw_qp_fatal(qp, IB_EVENT_QP_FATAL);
	xa_unlock(&xdev->qps);
}

static int xiw_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *arg)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(arg);
	struct xiw_device *xdev;

	mutex_lock(&xiw_devices_lock);
	xdev = xiw_find_by_netdev(netdev);
	if (xdev) {
		switch (event) {
		case NETDEV_UP:
			xiw_port_event(xdev, IB_EVENT_PORT_ACTIVE);
			break;
		case NETDEV_GOING_DOWN:
			/* Connections cannot survive: fail them now, not
			 * after TCP's retransmissions give up.
			 */
			xiw_qps_to_error(xdev);
			break;
		case NETDEV_DOWN:
			xiw_port_event(xdev, IB_EVENT_PORT_ERR);
			break;
		case NETDEV_UNREGISTER:
			get_device(&xdev->ibdev.dev);
			if (!queue_work(xiw_wq, &xdev->unregister_work))
				put_device(&xdev->ibdev.dev);
			break;
		}
	}
	mutex_unlock(&xiw_devices_lock);
	return NOTIFY_OK;
}

static struct notifier_block xiw_netdev_nb = {
	.notifier_call = xiw_netdev_event,
};

int xiw_device_init(void)
{
	int rc;

	xiw_wq = alloc_workqueue("xiw", WQ_UNBOUND, 0);
	if (!xiw_wq)
		return -ENOMEM;
	rc = register_netdevice_notifier(&xiw_netdev_nb);
	if (rc) {
		destroy_workqueue(xiw_wq);
		return rc;
	}
	rdma_link_register(&xiw_link_ops);
	return 0;
}

void xiw_device_exit(void)
{
	struct xiw_device *xdev;

	rdma_link_unregister(&xiw_link_ops);
	unregister_netdevice_notifier(&xiw_netdev_nb);
	/* Unregistrations queued by netdev events finish first. */
	destroy_workqueue(xiw_wq);

	mutex_lock(&xiw_devices_lock);
	while (!list_empty(&xiw_devices)) {
		xdev = list_first_entry(&xiw_devices, struct xiw_device, list);
		list_del_init(&xdev->list);
		mutex_unlock(&xiw_devices_lock);
		ib_unregister_device(&xdev->ibdev);
		mutex_lock(&xiw_devices_lock);
	}
	mutex_unlock(&xiw_devices_lock);
}
