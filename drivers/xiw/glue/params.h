/* SPDX-License-Identifier: GPL-2.0 */
/* Module parameters (params.c). */
#ifndef XIW_PARAMS_H
#define XIW_PARAMS_H

#include <xiw/mpa_conn.h>

/* The MPA policy for a new connection, from the current parameters. */
void xiw_params_policy(struct xiw_mpa_policy *p);
/* mpa_log: report each connection's MPA parameters at KERN_INFO. */
bool xiw_params_log(void);
/* mpa_max_half_open: 0 is no limit. */
unsigned int xiw_params_max_half_open(void);
enum xiw_tx_payload {
	XIW_TX_COPY,		/* into the FPDU buffer, which TCP copies */
	XIW_TX_GATHER,		/* TCP copies it from where it lies */
	XIW_TX_ZEROCOPY,	/* TCP sends its pages; completion on release */
};

/* tx_payload, or copy while a fault_tx_* test aid is armed. */
enum xiw_tx_payload xiw_params_tx_payload(void);
/* fault_tx_crc: true (and one fewer left) if this FPDU's CRC is to be wrong. */
bool xiw_params_fault_tx_crc(void);
/* fault_tx_marker: the same for a Marker's FPDUPTR. */
bool xiw_params_fault_tx_marker(void);
/* fault_connect_delay_ms: the pause before a new connection's CM event. */
unsigned int xiw_params_fault_connect_delay_ms(void);

#endif /* XIW_PARAMS_H */
