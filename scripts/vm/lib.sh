# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the test scripts in scripts/vm/tests/ inside a VM.
# Environment: VM_IDX, VM_COUNT, MY_IP, OUT (this VM's result directory),
# XIW_TOP, XIW_KO, XIW_KUNIT_KO, SIW_KOS (siw_ko), KERNEL_KIND (stock or debug).

PEER_IP=10.77.0.$(( (VM_IDX + 1) % VM_COUNT + 1 ))
SYNC=$OUT/../sync
mkdir -p "$SYNC"

# check NAME CMD...: run CMD, record "PASS TEST/NAME" or "FAIL TEST/NAME".
# The log line starts with the uptime, to show where a run's time goes.
check() {
	name=$TEST/$1
	shift
	read -r up _ < /proc/uptime
	echo "=== $up $name: $*"
	if "$@"; then
		echo "PASS $name" >> "$OUT/results"
		return 0
	fi
	echo "FAIL $name" >> "$OUT/results"
	echo "=== $name: FAILED"
	return 1
}

# barrier NAME [TIMEOUT]: wait until every VM has reached NAME (TIMEOUT
# seconds, default 300). It looks five times a second: a test passes
# hundreds of barriers, and a whole second's polling cost each one half a
# second on average.
barrier() {
	touch "$SYNC/$TEST.$1.$VM_IDX"
	left=$((${2:-300} * 5))
	while [ "$(ls "$SYNC" | grep -c "^$TEST\.$1\.")" -lt "$VM_COUNT" ]; do
		left=$((left - 1))
		[ $left -gt 0 ] || { echo "barrier $1: timed out"; return 1; }
		sleep 0.2
	done
}

# at_depth NAME: whether case NAME runs in this boot. DEPTH=full (the
# default, and `make check-full`) runs every case; DEPTH=quick (make check's
# debug-kernel boot) only those the test script lists in QUICK, a regular
# expression, and records the rest as skipped. The test keeps its whole
# matrix on the stock kernel in `make check`.
at_depth() {
	in_depth "$1" && return 0
	echo "SKIP $TEST/$1" >> "$OUT/results"
	return 1
}

# in_depth NAME: at_depth's answer, recording nothing.
in_depth() {
	[ "${DEPTH:-full}" = full ] && return 0
	echo "$1" | grep -qE "^(${QUICK:-.*})$"
}

# wait_file FILE SECONDS: FILE exists, looked for every 0.2 s (retry's
# whole seconds add up when every case waits for a file).
wait_file() {
	_left=$(($2 * 5))
	while [ ! -e "$1" ]; do
		_left=$((_left - 1))
		[ $_left -gt 0 ] || return 1
		sleep 0.2
	done
}

# listening PORT: a TCP socket listens on PORT (xiw's kernel listeners
# too): a client may connect now. retry 30 listening PORT waits for one.
listening() { ss -ltn "sport = :$1" | grep -q LISTEN; }

# retry TRIES CMD...: run CMD until it succeeds, a second apart.
retry() {
	tries=$1
	shift
	while ! "$@"; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 1
		sleep 1
	done
}

# in_dmesg PATTERN: the kernel log has a line matching PATTERN.
in_dmesg() { dmesg | grep -qE "$1"; }

# zc_built: the loaded xiw sends zero-copy (its load line says so; 6.1
# builds it out, Documentation/admin-guide.rst).
zc_built() { ! in_dmesg 'xiw: loaded .*zero-copy: no'; }

# xiw_cmtest's client data checks (testmod/xiw_cmtest.c): every size up to
# 1 MiB, or up to 64 KiB on the debug kernel, where KASAN under TCG makes
# each 1 MiB transfer slow; the stock kernel's runs move the 1 MiB.
if [ "$KERNEL_KIND" = debug ]; then
	CMT_DATA="data=1 max_size=65536" CMT_DATA_OK='data=ok sends=5 writes=5 reads=5'
else
	CMT_DATA="data=1" CMT_DATA_OK='data=ok sends=6 writes=6 reads=6'
fi

# load_xiw [PARAM=VALUE...]: xiw.ko with what it needs beside its module
# dependencies (the crc32c driver it asks the crypto API for, uverbs for
# user space).
load_xiw() { modprobe crc32c && modprobe ib_uverbs && load_module "$XIW_KO" "$@"; }

# load_module KO [PARAM=VALUE...]: insmod an out-of-tree module after
# modprobing what it depends on (insmod does not resolve dependencies).
# Out-of-tree dependencies, which modprobe cannot find, must be loaded first.
# Tests load the same module once per case: each KO's dependencies are
# asked of modinfo once, and /proc/modules is read with shell builtins
# (on the debug kernel every exec costs a tenth of a second or more, and
# this took 1.5 s a load).
KO_DEPS='|'
load_module() {
	case $KO_DEPS in
	*"|$1="*) _deps=${KO_DEPS#*"|$1="}; _deps=${_deps%%|*} ;;
	*)	_deps=$(modinfo -F depends "$1") || return 1
		KO_DEPS="$KO_DEPS$1=$_deps|" ;;
	esac
	_old_ifs=$IFS
	IFS=,
	for dep in $_deps; do
		IFS=$_old_ifs
		module_loaded "$dep" || modprobe "$dep" || return 1
	done
	IFS=$_old_ifs
	insmod "$@"
}

# module_loaded NAME: NAME is in /proc/modules.
module_loaded() {
	while read -r _m _; do
		[ "$_m" = "$1" ] && return 0
	done < /proc/modules
	return 1
}

# xiw0's event counters (Documentation/admin-guide.rst, Counters).
# xiw_counter NAME: its value, or a failure if it cannot be read as a
# number. at NAME...: remember the values now.
# grew NAME MIN: NAME rose by at least MIN since `at`.
# stayed NAME: NAME did not rise since `at`. Both fail when either value
# could not be read, so that `stayed` never passes on a missing counter.
xiw_counter() {
	# read, not cat: a test reads counters by the dozen, and every exec
	# costs a debug-kernel VM a tenth of a second.
	{ read -r _v < "/sys/class/infiniband/xiw0/ports/1/hw_counters/$1"; } 2>/dev/null ||
		return 1
	case $_v in ''|*[!0-9]*) return 1 ;; esac
	echo "$_v"
}
# counter_read NAME: its value in _v, or "unreadable" (no subshell: `at`
# reads a dozen counters per case).
counter_read() { xiw_counter "$1" > /dev/null || _v=unreadable; }
at() {
	for c in "$@"; do
		counter_read "$c"
		eval "at_$c=$_v"
	done
}
counter_delta() {
	eval "was=\${at_$1:-unset}"
	counter_read "$1"
	now=$_v
	echo "$1: $was -> $now"
	case "$was$now" in *[!0-9]*) echo "$1: not readable as a number"; return 1 ;; esac
	delta=$((now - was))
}
grew() { counter_delta "$1" && echo "(want +$2)" && [ "$delta" -ge "$2" ]; }
stayed() { counter_delta "$1" && [ "$delta" = 0 ]; }

# siw_ko VARIANT: the path of that siw variant's siw.ko in this VM.
siw_ko() {
	for kv in $SIW_KOS; do
		[ "${kv%%=*}" = "$1" ] && { echo "/run/host${kv#*=}"; return 0; }
	done
	echo "siw_ko: variant $1 was not built (SIW_VARIANTS)" >&2
	return 1
}

# rnic_use xiw|siw|none: the RDMA device on eth0 comes from that driver.
RNIC=none
rnic_use() {
	[ "$RNIC" = "$1" ] && return 0
	case $RNIC in
	xiw) rdma link delete xiw0 && rmmod xiw || return 1 ;;
	siw) rdma link delete siw0 && rmmod siw || return 1 ;;
	esac
	RNIC=none
	case $1 in
	xiw) load_xiw && rdma link add xiw0 type xiw netdev eth0 || return 1 ;;
	siw) load_module "$(siw_ko stock)" && rdma link add siw0 type siw netdev eth0 || return 1 ;;
	esac
	RNIC=$1
}
