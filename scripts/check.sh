#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: run every test tier that exists, print one line per test
# case and close with "N passed, N failed, N skipped". Exits non-zero if any
# case failed. With WERROR=1 (CI) a compiler or modpost warning in a build
# fails that build case.
#
# DEPTH=quick (make check, within CI's budget) or full (make check-full):
# full runs every VM test's whole matrix on the debug kernel too, every
# interop cell and siw variant, and each fuzz target ten minutes. quick
# keeps every feature's cases in the stock-kernel boots and one case per
# code path in the debug boot (Documentation/testing.rst, Tiers).
#
# Tiers: build (6.12 and 6.1 modules), package (the DKMS .deb, built by
# DKMS for both kernels), guard (the C++ object rule refuses
# runtime leftovers), host (GoogleTest, ASan+UBSan), fuzz (each libFuzzer
# target for FUZZ_TIME seconds, default 10, or 600 at DEPTH=full), style
# (checkpatch on the C glue, clang-format on the C++ core), vm (self-tests and KUnit in
# two-VM runs on the stock 6.12 and 6.1 kernels and the debug kernel), conformance (the RFC
# requirement matrix names only tests that passed in this run).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/check
results=$out/results.txt
rm -rf "$out" && mkdir -p "$out"
: > "$results"
WERROR=${WERROR:-0}
DEPTH=${DEPTH:-quick}
# Builds use every core; the fuzz targets run one per core.
JOBS=$(nproc)
case $DEPTH in quick|full) ;; *) echo "check.sh: DEPTH is quick or full" >&2; exit 2 ;; esac

pass() { echo "PASS $1" | tee -a "$results"; }
# Where the time goes (Documentation/testing.rst, Times): one entry per
# tier or VM boot, printed as a table before the closing line.
t_start=$SECONDS
tiers=()
tier_done() {	# NAME START
	local s=$((SECONDS - $2))
	tiers+=("$s $1")
	echo "  ($1: $s s)" >&2
}
# The warm-cache budget of issue 20 (CI's limit is 5400 s): a warning.
BUDGET_S=2400
fail() { echo "FAIL $1" | tee -a "$results"; }
case_result() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1"; fi; }

scripts/deps.sh build host style >&2 || { fail deps/install; }

kdir_612=$(scripts/kernel.sh headers-6.12)
kdir_61=$(scripts/kernel.sh headers-6.1)
krel() { scripts/kernel.sh release "$1"; }
kcc() { scripts/kernel.sh cc "$1"; }

# ---- tier: build ----------------------------------------------------------
build_module() {	# name kdir
	local name=$1 kdir=$2 rel log=$out/build-$1.log ko
	rel=$(krel "$kdir")
	ko=$top/build/$rel/xiw.ko
	local kcflags=()
	[ "$WERROR" = 1 ] && kcflags=(KCFLAGS=-Werror)
	make -j"$JOBS" -C "$top" module KDIR="$kdir" "${kcflags[@]}" >"$log" 2>&1
	local rc=$?
	if [ $rc != 0 ]; then
		tail -n 30 "$log" >&2
	elif [ "$WERROR" = 1 ] && grep -qiE 'warning[:!]' "$log"; then
		grep -iE 'warning[:!]' "$log" >&2; rc=1
	elif [ ! -f "$ko" ]; then
		echo "$ko missing" >&2; rc=1
	fi
	case_result "build/module-$name" $rc
	[ $rc = 0 ] || return 0
	# modpost marks retpoline-built modules; the kernel taints others.
	modinfo -F retpoline "$ko" | grep -qx Y
	case_result "build/retpoline-$name" $?
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$rel" ]
	case_result "build/vermagic-$name" $?
	# objtool ran over the C++ code: on the object itself, or on the
	# module link where Kbuild defers it (IBT kernels).
	grep -qs 'objtool/objtool .*xiw_core.o' "$top/build/$rel/drivers/xiw/core/.xiw_core.o.cmd" ||
		grep -qs 'objtool/objtool .*--link.*xiw.o' "$top/build/$rel/.xiw.o.cmd"
	case_result "build/objtool-$name" $?
}
# The KUnit suites run in the debug-kernel VM; against the stock headers
# (no KUnit) we can still compile them, warnings included.
build_kunit_object() {	# kdir
	local rel log=$out/build-kunit.log
	rel=$(krel "$1")
	make -j"$JOBS" -C "$1" M="$top/build/$rel" CC="$(kcc "$1")" CONFIG_KUNIT=m \
		kunit/codec_kunit.o kunit/conn_kunit.o kunit/cq_kunit.o \
		kunit/mem_kunit.o >"$log" 2>&1
	local rc=$?
	[ $rc = 0 ] && grep -qiE 'warning[:!]' "$log" && rc=1
	[ $rc = 0 ] || tail -n 30 "$log" >&2
	case_result build/kunit-compile-6.12 $rc
}
t0=$SECONDS
build_module 6.12 "$kdir_612"
build_module 6.1 "$kdir_61"
build_kunit_object "$kdir_612"
tier_done build "$t0"

# ---- tier: package --------------------------------------------------------
# The DKMS package (make deb), and DKMS building it for the 6.12 and the
# 6.1 headers in a private DKMS tree (no installed package or module
# changes; DKMS makes its module signing key under /var/lib/dkms on first
# use, as on any machine). The stock-kernel boot below loads the 6.12
# module DKMS built.
t0=$SECONDS
dkms_ko=""
package_tier() {
	local deb ver root k kdir rel ko rc d
	scripts/deps.sh deb >&2 || { fail package/deps; return; }
	ver=$(cat VERSION)
	deb=$(scripts/deb.sh 2>"$out/deb.log")
	rc=$?
	[ $rc = 0 ] || cat "$out/deb.log" >&2
	case_result package/deb $rc
	[ $rc = 0 ] || return
	# The sources, dkms.conf with the version filled in, the DKMS
	# maintainer scripts; no build output, no test modules.
	dpkg-deb -c "$deb" | awk '{print $6}' >"$out/deb-contents.txt"
	dpkg-deb -f "$deb" Depends >>"$out/deb-contents.txt"
	root=$out/dkms
	rm -rf "$root" && mkdir -p "$root/pkg" "$root/tree" &&
		dpkg-deb -x "$deb" "$root/pkg" &&
		dpkg-deb -e "$deb" "$root/control"
	rc=$?
	for want in "usr/src/xiw-$ver/dkms.conf" "usr/src/xiw-$ver/Kbuild" \
		"usr/src/xiw-$ver/drivers/xiw/core/xiw_core.cpp" \
		"usr/src/xiw-$ver/scripts/dkms-make.sh" '^dkms'; do
		grep -q -- "$want" "$out/deb-contents.txt" || { echo "deb: no $want" >&2; rc=1; }
	done
	grep -E '\.(o|ko|cmd)$|/(testmod|kunit|build)/' "$out/deb-contents.txt" >&2 && rc=1
	grep -qx "PACKAGE_VERSION=\"$ver\"" "$root/pkg/usr/src/xiw-$ver/dkms.conf" || rc=1
	grep -q 'dkms' "$root/control/postinst" || rc=1
	case_result package/deb-contents $rc
	d=(--dkmstree "$root/tree" --sourcetree "$root/pkg/usr/src")
	dkms add -m xiw -v "$ver" "${d[@]}" >"$out/dkms.log" 2>&1
	case_result package/dkms-add $?
	for k in 6.12 6.1; do
		kdir=$(scripts/kernel.sh "headers-$k")
		rel=$(krel "$kdir")
		dkms build -m xiw -v "$ver" -k "$rel" --kernelsourcedir "$kdir" \
			"${d[@]}" >>"$out/dkms.log" 2>&1
		rc=$?
		ko=$(find "$root/tree/xiw/$ver/$rel" -name 'xiw.ko*' 2>/dev/null | head -n1)
		if [ $rc != 0 ] || [ -z "$ko" ]; then
			tail -n 30 "$out/dkms.log" >&2
			find "$root/tree" -name make.log -exec tail -n 30 {} \; >&2
			rc=1
		elif [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$rel" ] ||
		     [ "$(modinfo -F version "$ko")" != "$ver" ]; then
			modinfo "$ko" >&2
			rc=1
		fi
		case_result "package/dkms-build-$k" $rc
		[ $rc = 0 ] && [ "$k" = 6.12 ] && dkms_ko=$ko
	done
}
package_tier
tier_done package "$t0"

# ---- tier: guard ----------------------------------------------------------
t0=$SECONDS
scripts/test-cxx-guard.sh "$kdir_612" "$(kcc "$kdir_612")" "$out/guard" "$results"
grep guard/ "$results"
tier_done guard "$t0"

# ---- tier: host -----------------------------------------------------------
t0=$SECONDS
kwarn=$top/build/$(krel "$kdir_612")/drivers/xiw/core/xiw_core.warnings
if make -j"$JOBS" -C userspace-tests OUT="$out/host" KWARN_FILE="$kwarn" >"$out/host-build.log" 2>&1; then
	"$out/host/unit_tests" --gtest_output="json:$out/host.json" >"$out/host.log" 2>&1
	rc=$?
	# A test passed only if it ran and did not fail; one that did not run
	# (DISABLED_, filtered, GTEST_SKIP) is a SKIP.
	python3 - "$out/host.json" >>"$results" <<-'EOP'
	import json, sys
	for suite in json.load(open(sys.argv[1]))["testsuites"]:
	    for t in suite["testsuite"]:
	        ran = t.get("status") == "RUN" and t.get("result") == "COMPLETED"
	        state = "FAIL" if t.get("failures") else ("PASS" if ran else "SKIP")
	        print(f"{state} host/{suite['name']}.{t['name']}")
	EOP
	[ $rc = 0 ] || grep -B2 -A12 'Failure' "$out/host.log" >&2
	# The binary's own verdict counts too: a crash (sanitizer abort) leaves
	# no JSON, and LeakSanitizer reports after the JSON is written.
	if [ $rc != 0 ] || [ ! -s "$out/host.json" ]; then
		tail -n 30 "$out/host.log" >&2
		fail host/unit_tests
	fi
	grep host/ "$results"
else
	tail -n 30 "$out/host-build.log" >&2
	fail host/build
fi
# The core's benchmark (make bench-core) builds and runs every case once,
# briefly: the receiver's placement checked against the sent pattern, and
# no FPDU refused. Its figures are not judged here.
if make -j"$JOBS" -C userspace-tests OUT="$out/host" KWARN_FILE="$kwarn" "$out/host/bench/core_bench" \
	>"$out/core-bench-build.log" 2>&1; then
	"$out/host/bench/core_bench" --benchmark_min_time=0.001 --benchmark_format=json \
		>"$out/core-bench.json" 2>"$out/core-bench.log" &&
	python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"]
bad = [x["name"] for x in b if x.get("error_occurred")]
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad or len(b) < 42 else 0)' "$out/core-bench.json"
	case_result host/core-bench $?
else
	tail -n 30 "$out/core-bench-build.log" >&2
	fail host/core-bench
fi
# The capture checkers' own tests (scripts/wire/test_*.py), one case each:
# captures written octet by octet, good ones pass, each broken rule is
# found. A module that loads no test fails.
python3 - scripts/wire >>"$results" 2>"$out/wire-tests.log" <<-'EOP'
import sys, unittest
sys.path.insert(0, sys.argv[1])
suite = unittest.defaultTestLoader.discover(sys.argv[1], pattern="test_*.py")
class Lines(unittest.TextTestResult):
    def addSuccess(self, test):
        super().addSuccess(test)
        print(f"PASS host/wire.{test.id()}")
    def addFailure(self, test, err):
        super().addFailure(test, err)
        print(f"FAIL host/wire.{test.id()}")
    addError = addFailure
    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print(f"SKIP host/wire.{test.id()}")
r = unittest.TextTestRunner(resultclass=Lines, stream=sys.stderr).run(suite)
if r.testsRun == 0:
    print("FAIL host/wire.tests-found")
EOP
grep '^[A-Z]* host/wire\.' "$results"
grep -q '^FAIL host/wire' "$results" && tail -n 40 "$out/wire-tests.log" >&2
tier_done host "$t0"

# ---- tier: fuzz -----------------------------------------------------------
# Each libFuzzer target (userspace-tests/fuzz) for FUZZ_TIME seconds from its
# seed corpus; `make fuzz` runs them longer.
t0=$SECONDS
if [ "$DEPTH" = full ]; then FUZZ_TIME=${FUZZ_TIME:-600}; else FUZZ_TIME=${FUZZ_TIME:-10}; fi
fuzz_one() {	# NAME: one target, its exit status in fuzz-NAME.rc
	make -C userspace-tests OUT="$out/host" FUZZERS="$1" FUZZ_TIME="$FUZZ_TIME" FUZZ_RUNS= \
		fuzz >"$out/fuzz-$1.log" 2>&1
	echo $? >"$out/fuzz-$1.rc"
}
if make -j"$JOBS" -C userspace-tests OUT="$out/host" fuzz-build >"$out/fuzz-build.log" 2>&1; then
	names=()
	for f in userspace-tests/fuzz/fuzz_*.cpp; do
		name=$(basename "$f" .cpp)
		names+=("${name#fuzz_}")
	done
	# One target per core at a time: each is a single process.
	for name in "${names[@]}"; do
		while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
		fuzz_one "$name" &
	done
	wait
	for name in "${names[@]}"; do
		rc=$(cat "$out/fuzz-$name.rc" 2>/dev/null || echo missing)
		[ "$rc" = 0 ] || tail -n 40 "$out/fuzz-$name.log" >&2
		grep -h 'executed_units' "$out/host/fuzz/$name.log" >&2
		case_result "fuzz/$name" "$rc"
	done
else
	tail -n 30 "$out/fuzz-build.log" >&2
	fail fuzz/build
fi
tier_done fuzz "$t0"

# ---- tier: style ----------------------------------------------------------
t0=$SECONDS
for f in drivers/xiw/glue/*.[ch] include/xiw/*.h kunit/*.c testmod/*.c; do
	ignore=""
	# The ABI headers are shared with C++ and cannot use kernel types.
	case $f in
	include/*) ignore=--ignore=NEW_TYPEDEFS ;;
	# Exports of symbols defined in C++ cannot follow their definitions.
	*/kunit_exports.c) ignore=--ignore=EXPORT_SYMBOL ;;
	# __print_symbolic() takes its table as a bare list of pairs.
	*/xiw_trace.h) ignore=--ignore=COMPLEX_MACRO ;;
	esac
	scripts/checkpatch.sh $ignore "$f" >"$out/checkpatch.log" 2>&1
	rc=$?
	[ $rc = 0 ] || cat "$out/checkpatch.log" >&2
	case_result "style/checkpatch:$f" $rc
done
# Memory a test module hands an RNIC through the local DMA lkey or the
# global rkey must be in the direct map (cmt_dma_alloc() in
# testmod/xiw_cmtest.c says why): vmalloc memory there made upstream siw
# send other pages and corrupt its host's memory.
! grep -nE '\b(kv[mz]alloc|vz?alloc)\(' testmod/*.c >&2
case_result style/testmod-dma-memory $?
for f in $(find drivers/xiw/core userspace-tests -name '*.cpp' -o -name '*.h' | sort); do
	clang-format --dry-run --Werror "$f" 2>"$out/clang-format.log"
	rc=$?
	[ $rc = 0 ] || head -n 20 "$out/clang-format.log" >&2
	case_result "style/clang-format:$f" $rc
done
tier_done style "$t0"

# ---- tier: vm -------------------------------------------------------------
# Two VMs per kernel (scripts/vm/run.sh): the Debian stock kernel users run,
# and the debug kernel (KUnit, KASAN, lockdep, kmemleak) built and cached
# by scripts/vm/debug-kernel.sh.
vm_tier() {	# kind tests timeout [run.sh options]
	local before after rc kind=$1 tests=$2 timeout=$3 name t1=$SECONDS
	shift 3
	name=vm-$kind-${tests// /-}
	before=$(wc -l < "$results")
	scripts/vm/run.sh --kernel "$kind" --tests "$tests" --timeout "$timeout" \
		--out "$out/$name" --results "$results" "$@"
	rc=$?
	after=$(wc -l < "$results")
	# A harness that could not even boot must not pass by reporting nothing.
	[ "$after" -gt "$before" ] || fail "$name/harness"
	[ $rc = 0 ] || echo "  ($name: run.sh exited $rc)" >&2
	sed -n "$((before + 1)),\$p" "$results"
	tier_done "$name" "$t1"
}
# The debug kernel first, on its own line: a cold cache builds it here.
t0=$SECONDS
scripts/vm/debug-kernel.sh >"$out/debug-kernel.log" 2>&1 ||
	{ tail -n 30 "$out/debug-kernel.log" >&2; fail vm-debug/kernel-build; }
tier_done debug-kernel "$t0"
# The stock kernel's uncaptured tests in one boot (not timeouts, whose
# every case the debug boot runs; each boot costs the
# module and siw builds' checks, the initramfs and the boot, about 45 s),
# rdma-core's own test suite (rdmacore, Documentation/interop.rst) and
# NFS over RDMA among them (Documentation/nfs.rst): nfsd and the NFS
# client on xiw, and each with upstream siw on the other side; and NVMe
# over Fabrics, xiw to xiw and with a siw host (Documentation/nvme.rst;
# with a siw target in check-full, INTEROP_SIW_SERVER).
# The module is the one DKMS built from the package (tier package), the
# way users get it; the tree's own build if that failed (and was counted).
# make check's stock kernels move less data through NFS and NVMe-oF than
# check-full's (VOLUME, scripts/vm/run.sh; the sizes in nfs.sh, nvme.sh).
volume=$([ "$DEPTH" = full ] && echo full || echo small)
VOLUME=$volume INTEROP_SIW_SERVER=$([ "$DEPTH" = full ] && echo Y || echo N) \
	vm_tier stock "selftest user rdmacore scale hostile teardown nfs nvme" 1500 \
	${dkms_ko:+--xiw-ko "$dkms_ko"}
# The xiw to xiw matrix, xiw against stock upstream siw (the fast
# interop subset; `make interop` and check-full add the siw variants) and
# bulk perftest streams for FPDU Alignment (bulk.sh), and RPC-over-RDMA
# between our tools (rpcrdma.sh), on the wire checked by tshark, by our
# RFC 6581 checker and by our RPC-over-RDMA checker.
if [ "$DEPTH" = full ]; then
	SIW_VARIANTS="stock v1 p2p p2p_read crc crc_strict gso" INTEROP=full \
		vm_tier stock "cm interop bulk rpcrdma" 2400 --pcap
else
	# The user-space tools against a siw server only in check-full:
	# siw's RTR race can end in a kernel BUG on siw's host
	# (Documentation/interop.rst, item 13).
	INTEROP_SIW_SERVER=N vm_tier stock "cm interop bulk rpcrdma" 1000 --pcap
fi
if [ -s "$out/vm-stock-cm-interop-bulk-rpcrdma/wire.pcap" ]; then
	scripts/wire/check.sh "$out/vm-stock-cm-interop-bulk-rpcrdma/wire.pcap" vm-stock/wire rpcrdma |
		tee -a "$results"
else
	fail vm-stock/wire/capture
fi
# Debian 12's default kernel, 6.1 (Documentation/testing.rst, Kernels):
# the self-test, the user-space tools, the cm cases of the quick set,
# interop with 6.1's own siw both ways, and NFS over RDMA. xiw's 6.1 build differs by its compat paths (glue/compat.h):
# user CQs, the device name, and zero-copy built out.
# make check runs each test's quick set there, and with 6.1's siw only
# the kernel ULP's cells (the user-space tools and NFS against 6.1's siw
# hung once each in CI, Documentation/interop.rst); check-full all of it.
cells61='(default|client-server|rev1|crc-off|markers)-(xi|si)' user61=N
[ "$DEPTH" = full ] && cells61='.*' user61=Y
VOLUME=$volume INTEROP_CELLS=$cells61 INTEROP_USER=$user61 DEPTH=$DEPTH \
	vm_tier stock61 "selftest user cm interop nfs nvme" 1500
# On the debug kernel, the interop cells that take xiw's error paths
# (refusals, a peer that reports no IRD) and the FRWR checks both ways,
# none with siw as a peer-to-peer responder: siw then trips lockdep itself
# (Documentation/interop.rst, what siw does differently). DEPTH=quick: the
# cm and user tests run their quick cases here (at_depth in the scripts).
INTEROP_CELLS='default-si|client-server-xi|rev1-xi|markers-(xi|si)|pd-253-xi' DEPTH=$DEPTH \
	vm_tier debug "kunit selftest cm user timeouts hostile inject teardown scale interop nfs nvme" 4200


# ---- conformance ----------------------------------------------------------
# Documentation/conformance.rst: every requirement row names tests that
# exist and passed above.
python3 scripts/conformance.py --results "$results" >"$out/conformance.log" 2>&1
rc=$?
[ $rc = 0 ] || cat "$out/conformance.log" >&2
tail -n 1 "$out/conformance.log" >&2
case_result conformance/matrix $rc

# ---- summary --------------------------------------------------------------
# A kernel report in a few lines: the first two offending lines, the
# Comm: and RIP: lines, and the call trace's reliable frames (no "?"),
# folded at 160 columns.
brief_trace() {
	awk '
	function strip(l) { sub(/^\[ *[0-9.]+\] /, "", l); return substr(l, 1, 160) }
	NR <= 2 || / Comm: / || /RIP: 00/ { if (!seen[$0]++) print "  " strip($0) }
	/Call Trace:/ { on = 1; next }
	on && /<\/TASK>|---\[ end trace/ { on = 0 }
	on && !/ \? / && /\+0x/ {
		f = strip($0); sub(/\+0x.*/, "", f); gsub(/^ +/, "", f)
		t = t (t == "" ? "" : " < ") f
	}
	END {
		while (length(t) > 0) { print "  trace: " substr(t, 1, 150); t = substr(t, 151) }
	}' "$1" | head -n 10
}
p=$(grep -c '^PASS' "$results")
f=$(grep -c '^FAIL' "$results")
s=$(grep -c '^SKIP' "$results")
if [ "$f" != 0 ]; then
	# A failed kernel-log case's first offending lines and call trace
	# (scripts/vm/run.sh saves them), then the failed cases and each
	# log's first offending lines once more: a CI log that keeps only the
	# end of this output still shows what failed and why.
	for b in "$out"/vm-*/vm*.badlines; do
		[ -s "$b" ] || continue
		echo "${b#"$out"/}:" >&2
		cat "$b" >&2
	done
	# Each failed VM case's own output (its log from its `===` line to
	# its FAILED line, the last 30 lines): CI keeps only this output.
	grep '^FAIL vm-' "$results" | cut -d' ' -f2 | while read -r c; do
		kind=${c%%/*} rest=${c#*/}
		vm=${rest%%/*} name=${rest#*/}
		for log in "$out/$kind"-*/share/"$vm/${name%%/*}.log"; do
			[ -f "$log" ] || continue
			awk -v c="$name" '
				$0 == "=== " c ": FAILED" { printf "%s%s\n", buf, $0; on = 0; next }
				/^=== / && index($0, " " c ": ") { buf = ""; on = 1 }
				on { buf = buf $0 "\n" }' "$log" | tail -n 30 |
				sed "s|^|$c: |" >&2
		done
	done
	echo "failed cases:" >&2
	grep '^FAIL' "$results" >&2
fi
total=$((SECONDS - t_start))
echo "time by tier (s):"
printf '%s\n' "${tiers[@]}" | sort -rn | sed 's/^/  /'
echo "  $total total"
# Last before the count, where a CI log that keeps only its tail still
# has them: each kernel report's first lines, its task, where it was, and
# its call trace as function names (the innermost first).
for b in "$out"/vm-*/vm*.badlines; do
	[ -s "$b" ] || continue
	echo "${b#"$out"/}:"
	brief_trace "$b"
done
# make check's budget; check-full has none (it runs for hours).
if [ "$DEPTH" = quick ] && [ "$total" -gt "$BUDGET_S" ]; then
	echo "BUDGET: make check took $total s, over its $BUDGET_S s budget; slowest:" \
		"$(printf '%s\n' "${tiers[@]}" | sort -rn | head -n 3 | awk '{printf "%s%s (%d s)", (NR > 1 ? ", " : ""), $2, $1}')"
fi
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
