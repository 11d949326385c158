#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot harness VMs, run test scripts in them, collect per-case results.
#
#   run.sh --kernel stock|stock61|debug --tests "selftest kunit" [--vms 2]
#          [--timeout SECONDS] [--out DIR] [--results FILE] [--pcap]
#          [--xiw-ko PATH]
#
# --xiw-ko: the xiw.ko the guests load (make check gives the stock boot the
# module DKMS built from the package); by default this tree's build.
# --pcap records every frame on VM 0's NIC into DIR/wire.pcap (QEMU's
# filter-dump, outside the guests, so capturing costs them nothing).
# SIW_VARIANTS (environment) names the siw variants (scripts/vm/siw.sh) the
# tests may load besides stock siw; INTEROP (fast or full), INTEROP_CELLS
# (a regular expression), INTEROP_USER (N: no user-space tools),
# INTEROP_SIW_SERVER (N: none where siw serves) and
# INTEROP_SIW_BUGS (Y) choose the cells of the
# interop test, CM_CASES the cases of the cm test, VOLUME (full, the
# default, or small) how much data the nfs and nvme tests move, DEPTH (full, the
# default, or quick) whether each test runs its whole matrix or only the
# cases it lists as quick (scripts/vm/lib.sh, at_depth). CHURN_MODE and
# CHURN_ROUNDS make the teardown test end every connection one way, that
# many times (to chase a rare fault). XIW_VM_APPEND
# adds to both guests' kernel command line, for a debugging run (e.g.
# "page_poison=1 slub_debug=FZP kfence.sample_interval=5" on the stock
# kernel, which has those detectors built but off).
#
# Topology (see Documentation/testing.rst): each VM has one vCPU under QEMU
# TCG, the host's / as a read-only 9p root, a writable 9p share for results
# and one virtio-net NIC; two VMs are joined by a pair of Unix datagram
# sockets (QEMU -netdev dgram) and get 10.77.0.1 and 10.77.0.2.
#
# Appends one line per case to FILE: "PASS|FAIL vm-<kernel>/<test>/<case>",
# plus per VM "clean-exit" (the VM ran every test and powered off in time)
# and "kernel-log" (no WARN, BUG, Oops, KASAN, lockdep, kmemleak, hung task
# or Call Trace in its console or kernel log). Never leaves QEMU behind.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

kind=stock tests=selftest vms=2 timeout=600 out="" results=/dev/stdout pcap=0 xiw_ko=""
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kind=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--vms) vms=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--pcap) pcap=1; shift ;;
	--xiw-ko) xiw_ko=$2; shift 2 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
case $vms in 1|2) ;; *) echo "run.sh: --vms must be 1 or 2" >&2; exit 2 ;; esac
case $xiw_ko in ""|/*) ;; *) xiw_ko=$PWD/$xiw_ko ;; esac
[ -z "$xiw_ko" ] || [ -f "$xiw_ko" ] || { echo "run.sh: no $xiw_ko" >&2; exit 2; }
[ -n "$out" ] || out=$top/build/vm/$kind
mkdir -p "$(dirname "$out")"
"$top/scripts/deps.sh" build kbuild vm >&2 || exit 1

# ---- kernel, initramfs, modules ------------------------------------------
case $kind in
stock|stock61)
	# Debian's stock 6.12, or its default 6.1 (the newest installed).
	if [ "$kind" = stock61 ]; then
		"$top/scripts/deps.sh" vm61 >&2 || exit 1
		kdir=$("$top/scripts/kernel.sh" headers-6.1)
	else
		kdir=$("$top/scripts/kernel.sh" headers-6.12)
	fi
	rel=$("$top/scripts/kernel.sh" release "$kdir")
	kernel=/boot/vmlinuz-$rel
	initrd=$("$here/initramfs.sh" "$rel") || exit 1
	modules_dir=""
	;;
debug)
	d=$("$here/debug-kernel.sh") || exit 1
	kdir=$d/build rel=$(cat "$d/release") kernel=$d/bzImage initrd="" modules_dir=$d/modules
	;;
*) echo "run.sh: --kernel is stock, stock61 or debug" >&2; exit 2 ;;
esac

make -C "$top" module KDIR="$kdir" >"$out.xiw-build.log" 2>&1 ||
	{ tail -n 20 "$out.xiw-build.log" >&2; exit 1; }
# The user-space pattern checker, allocation-failure driver, teardown
# stress and QP-limits check, run in the VMs from the host's tree.
pattern=$top/build/user/xiw_pattern
mkdir -p "$(dirname "$pattern")"
for p in xiw_pattern xiw_inject xiw_churn xiw_qpcaps; do
	gcc -O2 -Wall -Wextra -Werror -o "$top/build/user/$p" \
		"$top/userspace-tests/rdma/$p.c" -lrdmacm -libverbs || exit 1
done
# The emulator's flags check (selftest), which needs no library.
gcc -O2 -Wall -Wextra -Werror -o "$top/build/user/xiw_flagcheck" \
	"$top/userspace-tests/emulator/xiw_flagcheck.c" || exit 1
# The RPC-over-RDMA tools (Documentation/rpcrdma.rst).
make -C "$top/userspace-tests/rpcrdma" OUT="$top/build/user" tools >>"$out.xiw-build.log" 2>&1 ||
	{ tail -n 20 "$out.xiw-build.log" >&2; exit 1; }
siw_ko=$("$here/siw.sh" "$kdir") || exit 1
siw_kos=stock=$siw_ko
for v in ${SIW_VARIANTS:-}; do
	[ "$v" = stock ] && continue
	ko=$("$here/siw.sh" "$kdir" "$v") || exit 1
	siw_kos="$siw_kos $v=$ko"
done

# ---- the run's shared directory ------------------------------------------
rm -rf "$out" && mkdir -p "$out/share"
cat > "$out/share/run.env" <<EOV
TESTS="$tests"
TEST_TIMEOUT=$((timeout - 30))
VM_COUNT=$vms
KERNEL_KIND=$kind
XIW_TOP=$top
XIW_KO=${xiw_ko:-$top/build/$rel/xiw.ko}
XIW_KUNIT_KO=$top/build/$rel/kunit/xiw_kunit.ko
XIW_CMTEST_KO=$top/build/$rel/testmod/xiw_cmtest.ko
XIW_PATTERN=$pattern
XIW_INJECT=$top/build/user/xiw_inject
XIW_CHURN=$top/build/user/xiw_churn
XIW_QPCAPS=$top/build/user/xiw_qpcaps
XIW_FLAGCHECK=$top/build/user/xiw_flagcheck
SIW_KOS="$siw_kos"
INTEROP=${INTEROP:-fast}
INTEROP_SIW_BUGS=${INTEROP_SIW_BUGS:-N}
INTEROP_CELLS="${INTEROP_CELLS:-}"
INTEROP_USER=${INTEROP_USER:-Y}
INTEROP_SIW_SERVER=${INTEROP_SIW_SERVER:-Y}
MODULES_DIR=$modules_dir
CM_CASES="${CM_CASES:-}"
VOLUME=${VOLUME:-full}
DEPTH=${DEPTH:-full}
CHURN_MODE="${CHURN_MODE:-}"
CHURN_ROUNDS="${CHURN_ROUNDS:-}"
CAPTURED=$pcap
EOV

# ---- boot ----------------------------------------------------------------
pids=()
# timeout(1) passes TERM on to its QEMU; anything still alive after that
# is found by the share path on its command line and killed.
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	sleep 1
	pkill -9 -f "path=$out/share," 2>/dev/null
	wait 2>/dev/null
	[ -n "$netdir" ] && rm -rf "$netdir"
}
netdir=""
trap cleanup EXIT INT TERM

# The emulator: Debian's unless XIW_QEMU names another binary, whose own
# firmware directory XIW_QEMU_DATA names (the system's is searched after it).
qemu=${XIW_QEMU:-qemu-system-x86_64}
qemu_data=${XIW_QEMU_DATA:-}

# -cpu max gives the guest SSE4.2 (crc32c-intel) under TCG; 5-level paging
# is off because KASAN kernels hit a wild-memory-access report in early
# boot with it under TCG (identify_cpu, before any module is loaded).
boot_vm() {	# index netdev
	local i=$1 init=$top/scripts/vm/guest-init.sh append dump=""
	[ "$pcap" = 1 ] && [ "$i" = 0 ] && dump=$out/wire.pcap
	# The tests read the kernel log per case (with xiw's dynamic debug on)
	# and the harness scans all of it: a ring buffer large enough that
	# nothing of a run is overwritten.
	append="console=ttyS0 panic=-1 log_buf_len=16M xiw.vm=$i xiw.init=$init"
	# The root is read-only and nothing under it changes during a run:
	# cache it in the guest (cache=loose). Uncached, every exec reads the
	# binary and its libraries over 9p again, about 0.6 s on the debug
	# kernel, and the test scripts exec thousands of times.
	append="$append root=host0 rootfstype=9p ro"
	append="$append rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose"
	# QEMU's i440fx _PRT method builds its table in an AML loop that the
	# debug kernel's interpreter cannot finish within ACPICA's 30 s loop
	# timeout (three times per boot). virtio uses MSI-X; route the rest
	# without ACPI.
	[ "$kind" = debug ] && append="$append pci=noacpi"
	[ -z "$initrd" ] && append="$append init=$init"
	append="$append${XIW_VM_APPEND:+ $XIW_VM_APPEND}"
	timeout --kill-after=10 "$timeout" "$qemu" ${qemu_data:+-L "$qemu_data" -L /usr/share/qemu} \
		-accel tcg -cpu max,la57=off -m 2G -smp 1 \
		-display none -monitor none -no-reboot \
		-serial "file:$out/vm$i.console" \
		-kernel "$kernel" ${initrd:+-initrd "$initrd"} -append "$append" \
		-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=root,mount_tag=host0 \
		-fsdev local,id=share,path="$out/share",security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=share,mount_tag=xiwout \
		-netdev "$2,id=n0" \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:77:00:0$((i + 1)) \
		${dump:+-object "filter-dump,id=dump0,netdev=n0,file=$dump"} \
		>"$out/vm$i.qemu.log" 2>&1 &
	pids+=($!)
}
# The guests' network: a pair of Unix datagram sockets, a frame per
# datagram. QEMU's stream backend (-netdev socket,listen=...) carried the
# frames over a host TCP connection, where the second of two frames sent
# together waited about 22 ms (as Nagle's algorithm against a delayed ACK
# would): every message longer than one TCP segment paid it, on any RDMA
# driver and on plain TCP (ib_send_lat at 4 KiB: 22 ms; over datagrams
# 0.8 ms, 16 octets 0.2 ms). Unix datagrams are not lost: QEMU holds a
# frame while the other side's socket is full. The paths stay short
# (sun_path holds 108 octets); a lone VM's frames go nowhere.
t0=$SECONDS
netdir=$(mktemp -d /tmp/xiw-net.XXXXXX) || exit 1
for i in $(seq 0 $((vms - 1))); do
	boot_vm "$i" "dgram,local.type=unix,local.path=$netdir/$i,remote.type=unix,remote.path=$netdir/$((1 - i))"
done
# A VM that stops before its tests finish (a panic: -no-reboot makes QEMU
# exit) would leave its peer waiting at barriers until the timeout: the
# peer gets 30 s more, then it is stopped too (both fail clean-exit).
if [ "${#pids[@]}" = 2 ]; then
	wait -n "${pids[@]}"
	for i in 0 1; do
		kill -0 "${pids[$i]}" 2>/dev/null && continue
		[ -f "$out/share/vm$i/done" ] && continue
		other=$((1 - i))
		echo "  vm$i stopped before its tests finished; stopping vm$other" >&2
		for _ in $(seq 30); do
			kill -0 "${pids[$other]}" 2>/dev/null || break
			sleep 1
		done
		kill "${pids[$other]}" 2>/dev/null
	done
fi
for p in "${pids[@]}"; do wait "$p"; done
pids=()
echo "  (vm-$kind [$tests]: $((SECONDS - t0)) s)" >&2
# Where the time went, test by test (VM 0's view).
[ -f "$out/share/vm0/exits" ] && sed 's/^/    /' "$out/share/vm0/exits" >&2

# ---- results -------------------------------------------------------------
# Kernel log lines that fail a run. Boot lines merely mentioning lockdep
# ("RCU lockdep checking is enabled") are not splats and do not match.
bad='WARNING:|-----------\[ cut here \]|BUG:|BUG |Oops|KASAN|UBSAN:|general protection|Call Trace:|'
bad+='possible (circular|recursive) locking|inconsistent lock state|DEBUG_LOCKS_WARN_ON|'
bad+='suspicious RCU usage|blocked for more than|soft lockup|self-detected stall|'
bad+='unreferenced object|suspected memory leak|Kernel panic|refcount_t:|list_(add|del) corruption|'
# xiw's own: a module unloaded while connection endpoints (and their
# sockets, which call into it) were still alive.
bad+='outlived their device'
prefix=vm-$kind
rc=0
for i in $(seq 0 $((vms - 1))); do
	d=$out/share/vm$i
	case " $tests " in *" kunit "*)
		[ "$i" = 0 ] && "$here/ktap.sh" "$d/dmesg" "$prefix/kunit" >> "$results" 2>/dev/null
	esac
	[ -f "$d/results" ] && sed "s#^\(PASS\|FAIL\|SKIP\) #\1 $prefix/vm$i/#" "$d/results" >> "$results"
	grep -q '^FAIL' "$d/results" 2>/dev/null && rc=1
	if [ -f "$d/done" ]; then
		echo "PASS $prefix/vm$i/clean-exit" >> "$results"
	else
		echo "FAIL $prefix/vm$i/clean-exit" >> "$results"; rc=1
		echo "vm$i did not finish; console tail:" >&2
		tail -n 40 "$out/vm$i.console" >&2
	fi
	logs=()
	for f in "$out/vm$i.console" "$d/dmesg" "$d/kmemleak"; do [ -f "$f" ] && logs+=("$f"); done
	# A boot that failed allocations on purpose (tests/inject.sh) shows
	# the kernel's report of such failures (warn_alloc: its line, a stack
	# up to </TASK>, the memory state): those reports, and nothing else,
	# are expected there and left out of the check.
	if [ -f "$d/alloc-failures-injected" ]; then
		for j in "${!logs[@]}"; do
			awk '/(vmalloc error|page allocation failure):/ { skip = 1 }
			     !skip { print }
			     skip && /<\/TASK>/ { skip = 0 }' "${logs[$j]}" > "$out/vm$i.log$j"
			logs[j]=$out/vm$i.log$j
		done
	fi
	rm -f "$out/vm$i.badlines"
	if grep -E -B2 -A20 "$bad" "${logs[@]}" > "$out/vm$i.badlog"; then
		# The first offending lines and the first call trace whole,
		# for make check's summary (where a CI log's tail keeps them).
		# The task and where it was (the Comm: and RIP: lines) too.
		{ grep -hE "$bad" "${logs[@]}" | head -n 4
		  grep -h -m1 ' Comm: ' "${logs[@]}"
		  grep -h -m1 'RIP: 00' "${logs[@]}"
		  grep -h -m1 -A40 'Call Trace:' "${logs[@]}" | head -n 41; } > "$out/vm$i.badlines"
		echo "FAIL $prefix/vm$i/kernel-log" >> "$results"; rc=1
		echo "vm$i kernel log:" >&2
		head -n 60 "$out/vm$i.badlog" >&2
	else
		echo "PASS $prefix/vm$i/kernel-log" >> "$results"
	fi
done
exit $rc
