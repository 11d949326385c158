/* SPDX-License-Identifier: GPL-2.0 */
/* Entry points of the core that concern the whole module. */
#ifndef XIW_CORE_H
#define XIW_CORE_H

#include "env.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Check @env before the core relies on it: the CRC32c callback must give
 * the RFC 3720 known answers, and the startup frame codec must round-trip
 * a reference frame. Returns 0, or -EIO naming nothing more: a failure
 * here means the build or the environment is broken.
 */
int xiw_core_check_env(const struct xiw_env *env);

#ifdef __cplusplus
}
#endif

#endif /* XIW_CORE_H */
