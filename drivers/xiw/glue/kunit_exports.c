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

EXPORT_SYMBOL_IF_KUNIT(xiw_core_check_env);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_encode);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_frame_len);
EXPORT_SYMBOL_IF_KUNIT(xiw_mpa_decode);
