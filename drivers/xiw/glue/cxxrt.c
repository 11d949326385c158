// SPDX-License-Identifier: GPL-2.0
/*
 * The only C++ runtime support the core may use. Everything else the
 * compiler could call (exceptions, RTTI, static initialisation guards,
 * atexit) is switched off at compile time and rejected by the object check
 * in scripts/cxx-object-check.sh.
 */
#include <linux/bug.h>
#include <linux/compiler.h>

void __cxa_pure_virtual(void);

/* Called through a vtable slot that has no implementation: a core bug. */
void __cxa_pure_virtual(void)
{
	BUG();
}
