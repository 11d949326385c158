#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that the C++ object rule of scripts/Kbuild.cxx refuses what the
# kernel cannot run. Each probe is a tiny module built with the same rule
# as xiw.ko; all but the control must fail, and fail for the right reason.
#
# Usage: test-cxx-guard.sh KDIR CC OUTDIR RESULTS
# Appends "PASS guard/<probe>" or "FAIL guard/<probe>" lines to RESULTS.
set -u
kdir=$1 cc=$2 out=$3 results=$4
top=$(cd "$(dirname "$0")/.." && pwd)

# name | expected outcome ("ok" or a string the failure must print) | source
probes=(
"control|ok|extern \"C\" int xiw_probe(int x) { return x * 2; }"
"global-constructor|section:.init_array|extern \"C\" int xiw_probe(int x);
struct Counter { Counter() : n(xiw_probe(1)) {} int n; };
Counter counter;"
"int128-division|symbol:__udivti3|extern \"C\" unsigned long long xiw_probe(unsigned __int128 a, unsigned __int128 b) { return (unsigned long long)(a / b); }"
"operator-new|symbol:_Znwm|struct Box { int v; };
extern \"C\" void *xiw_probe(void) { return new Box; }"
"two-cxx-objects|exactly one C++ object|extern \"C\" int xiw_probe(int x) { return x; }"
)

run_probe() {
	local name=$1 expect=$2 src=$3 dir="$out/$1"
	rm -rf "$dir" && mkdir -p "$dir"
	printf '%s\n' "$src" > "$dir/core.cpp"
	cat > "$dir/glue.c" <<-'EOC'
	// SPDX-License-Identifier: GPL-2.0
	#include <linux/module.h>
	MODULE_LICENSE("GPL");
	EOC
	local objs='$(obj)/core.o'
	[ "$name" = two-cxx-objects ] && objs='$(obj)/core.o $(obj)/glue.o'
	cat > "$dir/Kbuild" <<-EOK
	obj-m := probe.o
	probe-y := glue.o core.o
	cxx-obj := $objs
	cxx-check := $top/scripts/cxx-object-check.sh
	include $top/scripts/Kbuild.cxx
	EOK
	local log="$dir/build.log" rc
	make -C "$kdir" M="$dir" CC="$cc" modules >"$log" 2>&1
	rc=$?
	if [ "$expect" = ok ]; then
		[ $rc = 0 ] && [ -f "$dir/probe.ko" ] && return 0
	else
		[ $rc != 0 ] && [ ! -f "$dir/core.o" ] && grep -qF -- "$expect" "$log" && return 0
	fi
	echo "guard/$name: expected '$expect', build exited $rc; log:" >&2
	tail -n 15 "$log" >&2
	return 1
}

for p in "${probes[@]}"; do
	IFS='|' read -r name expect src <<<"$p"
	src=${p#*|*|}
	if run_probe "$name" "$expect" "$src"; then
		echo "PASS guard/$name" >> "$results"
	else
		echo "FAIL guard/$name" >> "$results"
	fi
done
