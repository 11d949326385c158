/* SPDX-License-Identifier: GPL-2.0 */
/* Module parameters (params.c). */
#ifndef XIW_PARAMS_H
#define XIW_PARAMS_H

#include <xiw/mpa_conn.h>

/* The MPA policy for a new connection, from the current parameters. */
void xiw_params_policy(struct xiw_mpa_policy *p);
/* mpa_log: report each connection's MPA parameters at KERN_INFO. */
bool xiw_params_log(void);
/* fault_tx_crc: true (and one fewer left) if this FPDU's CRC is to be wrong. */
bool xiw_params_fault_tx_crc(void);
/* fault_tx_marker: the same for a Marker's FPDUPTR. */
bool xiw_params_fault_tx_marker(void);

#endif /* XIW_PARAMS_H */
