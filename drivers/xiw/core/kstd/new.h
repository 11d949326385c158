// SPDX-License-Identifier: GPL-2.0
// Placement new, the only form of `new` the core uses: objects are built in
// memory the glue allocated. Included only by core translation units (the
// hosted tests get it from <new>).
#pragma once

#include "types.h"

inline void* operator new(kstd::usize, void* where) noexcept { return where; }
