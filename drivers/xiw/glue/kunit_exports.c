// SPDX-License-Identifier: GPL-2.0
/*
 * Core entry points exported for the KUnit suites in kunit/, and only when
 * the kernel has KUnit. They are defined in the C++ core, so the exports
 * cannot follow their definitions as kernel style would have them; this
 * file is checked with that one rule relaxed (scripts/check.sh).
 */
#include <kunit/visibility.h>
#include <linux/export.h>

#include <xiw/core.h>
#include <xiw/mpa.h>
#include <xiw/mpa_conn.h>

EXPORT_SYMBOL_IF_KUNIT(xiw_core_check_env);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_encode);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_frame_len);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_decode);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_size);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_init);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_connect);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_listen);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_receive);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_accept);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_reject);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_rtr_sent);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_first_fpdu);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_timeout);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_llp_closed);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_state);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_error);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_may_send);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_agreed);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_peer_frame);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_tx_size);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_tx_init);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_tx_encode);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_rx_size);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_rx_init);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_rx_consume);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_rx_error);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_hs_rx_need);
