// SPDX-License-Identifier: GPL-2.0
/* The tracepoints' definitions (xiw_trace.h). */
#define CREATE_TRACE_POINTS
#include "xiw_trace.h"
