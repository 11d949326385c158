#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 inside a harness VM. The root is the host's / over 9p, read-only;
# the run's shared directory is the 9p tag "xiwout". Sets up writable
# paths, the network and the kernel's modules, runs the test scripts named
# in run.env (TESTS) one after the other, saves the kernel log and the
# kmemleak report, marks the run done and powers off.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
HOME=/tmp
export PATH HOME

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts && mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# The host's / stays reachable at /run/host even where tmpfs covers it
# below (a checkout under /tmp, say); paths in run.env are the host's.
mount -t tmpfs tmpfs /run
mkdir -p /run/host /run/share
mount --bind / /run/host
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=none xiwout /run/share
for d in /tmp /var/tmp /var/lib /var/log /mnt; do mount -t tmpfs tmpfs "$d"; done

# Power off. PID 1 must not exit meanwhile (that panics the kernel), and
# must not exec anything: the 9p root goes away under it.
halt() {
	sync
	echo o > /proc/sysrq-trigger
	while :; do :; done
}

. /run/share/run.env || halt
for var in XIW_TOP XIW_KO XIW_KUNIT_KO XIW_CMTEST_KO XIW_PATTERN XIW_INJECT XIW_CHURN XIW_QPCAPS XIW_FLAGCHECK MODULES_DIR; do
	eval "path=\$$var"
	[ -n "$path" ] && eval "$var=/run/host\$path"
done
VM_IDX=0
for arg in $(cat /proc/cmdline); do
	case $arg in xiw.vm=*) VM_IDX=${arg#xiw.vm=} ;; esac
done
OUT=/run/share/vm$VM_IDX
mkdir -p "$OUT"
export VM_IDX OUT VM_COUNT XIW_TOP XIW_KO XIW_KUNIT_KO XIW_CMTEST_KO KERNEL_KIND TESTS CM_CASES CAPTURED DEPTH VOLUME
export SIW_KOS INTEROP INTEROP_SIW_BUGS INTEROP_CELLS INTEROP_USER INTEROP_SIW_SERVER XIW_PATTERN XIW_INJECT XIW_CHURN XIW_QPCAPS XIW_FLAGCHECK
export CHURN_MODE CHURN_ROUNDS

# A kernel whose modules are not under the host's /lib/modules (the debug
# kernel) brings them in its cache: lay them over /lib/modules.
rel=$(uname -r)
if [ -n "$MODULES_DIR" ]; then
	mount -t tmpfs tmpfs /lib/modules
	mkdir -p "/lib/modules/$rel"
	mount --bind "$MODULES_DIR/lib/modules/$rel" "/lib/modules/$rel"
fi

hostname "vm$VM_IDX"
modprobe virtio_net 2>/dev/null
ip link set lo up
ip link set eth0 up
MY_IP=10.77.0.$((VM_IDX + 1))
ip addr add "$MY_IP/24" dev eth0
export MY_IP

# Leaks from boot are not ours: start the tests with a clean kmemleak list.
kmemleak=/sys/kernel/debug/kmemleak
[ -w $kmemleak ] && echo scan > $kmemleak && echo clear > $kmemleak

# A test script records its cases with check (lib.sh). It exits 0 or 1
# (some check failed, already recorded), or 77 when it has nothing to do
# on this VM. Anything else, or no case recorded, fails the test here, so
# a script that cannot run never passes by saying nothing.
cd /tmp
touch "$OUT/results"
for TEST in $TESTS; do
	export TEST
	echo "xiw-harness: vm$VM_IDX kernel $rel running $TEST" > /dev/kmsg
	before=$(grep -c "^[A-Z]* $TEST/" "$OUT/results")
	t0=$(cut -d. -f1 /proc/uptime)
	timeout "$TEST_TIMEOUT" sh "$XIW_TOP/scripts/vm/tests/$TEST.sh" \
		> "$OUT/$TEST.log" 2>&1
	rc=$?
	after=$(grep -c "^[A-Z]* $TEST/" "$OUT/results")
	echo "$TEST exited $rc after $(( $(cut -d. -f1 /proc/uptime) - t0 )) s" >> "$OUT/exits"
	case $rc in
	0|1) [ "$after" -gt "$before" ] ||
		echo "FAIL $TEST/no-results" >> "$OUT/results" ;;
	77) ;;
	124) echo "FAIL $TEST/timed-out" >> "$OUT/results" ;;
	*) echo "FAIL $TEST/exit-$rc" >> "$OUT/results" ;;
	esac
done

# kmemleak reports an object once it has stayed unreferenced across scans.
if [ -w $kmemleak ]; then
	echo scan > $kmemleak
	sleep 6
	echo scan > $kmemleak
	cat $kmemleak > "$OUT/kmemleak"
fi
dmesg > "$OUT/dmesg"
echo "xiw-harness: vm$VM_IDX done" > /dev/kmsg
touch "$OUT/done"
halt
