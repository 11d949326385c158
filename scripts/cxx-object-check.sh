#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Reject a C++ object that carries runtime leftovers the kernel cannot
# honour: constructors that never run, unwind tables, RTTI, exception and
# atexit machinery, 128-bit division or soft-float helpers.
#
# Usage: cxx-object-check.sh NM READELF OBJECT
set -eu
nm=$1 readelf=$2 obj=$3
bad=""

sections=$($readelf -SW "$obj" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\).*/\1/p')
for s in $sections; do
	case "$s" in
	.init_array*|.fini_array*|.ctors*|.dtors*|.eh_frame*|.gcc_except_table*)
		bad="$bad section:$s" ;;
	esac
done

# Undefined symbols that only a C++ or libgcc runtime would provide.
forbidden='^(__cxa_|_Unwind|_ZTI|_ZTS|__gxx_personality|__dso_handle$|atexit$'
forbidden="$forbidden"'|_Znw|_Zna|_Zdl|_Zda|__(u?div|u?mod)ti3$'
forbidden="$forbidden"'|__(add|sub|mul|div|neg|cmp|eq|ne|lt|le|gt|ge|unord|float|fix|extend|trunc|pow)[a-z]*[sdtx]f[0-9a-z]*$)'
for sym in $($nm -u "$obj" | awk '{print $2}' | grep -E "$forbidden" |
	     grep -vx __cxa_pure_virtual); do
	bad="$bad symbol:$sym"
done

if [ -n "$bad" ]; then
	echo "$obj: C++ runtime leftovers:$bad" >&2
	echo "$obj: see Documentation/design.rst, 'C++ in the kernel'" >&2
	rm -f "$obj"
	exit 1
fi
