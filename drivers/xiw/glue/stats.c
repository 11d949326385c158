// SPDX-License-Identifier: GPL-2.0
/*
 * Per-device event counters, read through the RDMA core's hardware
 * statistics: `rdma statistic show link xiw0/1` or
 * /sys/class/infiniband/xiw0/ports/1/hw_counters/. They make visible what
 * a ULP cannot see from its completions alone, such as whether a peer's
 * Send with Invalidate really invalidated an STag here
 * (Documentation/admin-guide.rst lists them).
 */
#include "xiw.h"

static const struct rdma_stat_desc xiw_stat_descs[XIW_NUM_STATS] = {
	[XIW_STAT_RX_SEND_INV] = { .name = "rx_send_inv" },
	[XIW_STAT_TX_SEND_INV] = { .name = "tx_send_inv" },
	[XIW_STAT_READ_INV] = { .name = "read_inv" },
	[XIW_STAT_LOCAL_INV] = { .name = "local_inv" },
	[XIW_STAT_REG_MR] = { .name = "reg_mr" },
	[XIW_STAT_RX_READ_REQ] = { .name = "rx_read_req" },
	[XIW_STAT_TX_TERMINATE] = { .name = "tx_terminate" },
	[XIW_STAT_RX_TERMINATE] = { .name = "rx_terminate" },
	[XIW_STAT_TX_MULPDU] = { .name = "tx_mulpdu_change" },
	[XIW_STAT_TX_GSO_FPDU] = { .name = "tx_gso_fpdu" },
	[XIW_STAT_TX_GATHER_FPDU] = { .name = "tx_gather_fpdu" },
	[XIW_STAT_TX_GATHER_COPY] = { .name = "tx_gather_copy" },
	[XIW_STAT_TX_ZCOPY_MSG] = { .name = "tx_zcopy_msg" },
	[XIW_STAT_CM_REQ_DROPPED] = { .name = "cm_req_dropped" },
	[XIW_STAT_CM_HALF_OPEN_CLOSED] = { .name = "cm_half_open_closed" },
	[XIW_STAT_CQ_OVERFLOW] = { .name = "cq_overflow" },
};

static struct rdma_hw_stats *xiw_alloc_hw_port_stats(struct ib_device *ibdev,
						     u32 port)
{
	return rdma_alloc_hw_stats_struct(xiw_stat_descs, XIW_NUM_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int xiw_get_hw_stats(struct ib_device *ibdev,
			    struct rdma_hw_stats *stats, u32 port, int index)
{
	struct xiw_device *xdev = to_xiw_dev(ibdev);
	int i;

	for (i = 0; i < XIW_NUM_STATS; i++)
		stats->value[i] = atomic64_read(&xdev->stats[i]);
	return XIW_NUM_STATS;
}

const struct ib_device_ops xiw_stats_ops = {
	.alloc_hw_port_stats = xiw_alloc_hw_port_stats,
	.get_hw_stats = xiw_get_hw_stats,
};
