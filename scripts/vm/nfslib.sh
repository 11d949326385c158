# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA in the harness VMs, sourced by scripts/vm/tests/nfs*.sh
# after lib.sh. VM 0 serves: kernel nfsd exports a tmpfs and listens for
# RPC-over-RDMA on port 20049 besides TCP 2049; VM 1 mounts. The root is
# the host's read-only /, so the server's state lives in tmpfs and the
# export is made with exportfs on the command line, not /etc/exports.

SRV_VM=0
SRV_IP=10.77.0.1
EXPORT=/mnt/export
NFSD=/proc/fs/nfsd
RDMA_PORT=20049

# nfs_server_start: nfsd with 4 threads on TCP and RDMA. NFSv4 lease and
# grace are 10 s, so that a restarted server serves again quickly.
nfs_server_start() {
	mkdir -p /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /run/rpcbind $EXPORT &&
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab &&
	{ mountpoint -q $EXPORT || mount -t tmpfs -o size=900M tmpfs $EXPORT; } &&
	modprobe nfsd && modprobe rpcrdma &&
	{ mountpoint -q $NFSD || mount -t nfsd nfsd $NFSD; } &&
	{ pgrep -x rpcbind >/dev/null || rpcbind -w; } &&
	exportfs -o rw,no_root_squash,insecure,no_subtree_check,fsid=0 "*:$EXPORT" &&
	{ pgrep -x rpc.mountd >/dev/null || rpc.mountd; } &&
	nfsd_start
}

nfsd_start() {
	echo 10 > $NFSD/nfsv4leasetime && echo 10 > $NFSD/nfsv4gracetime &&
	rpc.nfsd 4 && echo "rdma $RDMA_PORT" > $NFSD/portlist &&
	grep -q "^rdma $RDMA_PORT" $NFSD/portlist
}

nfsd_stop() { rpc.nfsd 0; }

# nfs_mount VERS DIR [tcp]: mount the export over RDMA (or TCP) and check
# that the kernel says so in /proc/mounts.
nfs_mount() {
	mkdir -p "$2"
	if [ "${3:-rdma}" = tcp ]; then
		opts=proto=tcp
	else
		opts=proto=rdma,port=$RDMA_PORT
	fi
	src=$SRV_IP:$EXPORT
	# NFSv4 sees the export (fsid=0) as its root.
	case $1 in 4*) src=$SRV_IP:/ ;; esac
	timeout 120 mount -t nfs -o vers=$1,$opts,nolock,retry=1 "$src" "$2" &&
		grep " $2 nfs" /proc/mounts | tee /dev/stderr | grep -q "proto=${3:-rdma}"
}

drop_caches() { sync && echo 3 > /proc/sys/vm/drop_caches; }

# one_host_nfs: the server mounts its own export over RDMA, client and
# nfsd on one xiw device, TCP over the loopback device (each send can run
# the other end's receive in the same call chain). 4 MiB written, dropped
# from the cache, read back and compared.
one_host_nfs() {
	dd if=/dev/urandom of=/tmp/self.src bs=64k count=64 status=none &&
		nfs_mount 4.2 /mnt/self && cp /tmp/self.src /mnt/self/self && sync &&
		drop_caches && cmp /tmp/self.src /mnt/self/self && nfs_umount /mnt/self
}

# bounded SECONDS FUNCTION ARGS...: run one of this file's functions with a
# time limit, so that a stalled mount fails its case instead of holding the
# VM until the harness's limit. NFS waits are killable: SIGKILL follows
# SIGTERM after 10 s. On failure the state of the transport is logged
# (nfs_diag), and the server logs its own (nfs_stuck_watch).
bounded() {
	t=$1
	shift
	timeout -k 10 "$t" sh -c '. "$XIW_TOP/scripts/vm/nfslib.sh" && "$@"' bounded "$@" && return 0
	echo "$1: failed or ran out of its ${t} s"
	nfs_diag
	# The server logs its side while the transport is still as it was.
	touch "$SYNC/nfs-stuck"
	n=0
	while [ -e "$SYNC/nfs-stuck" ] && [ $n -lt 30 ]; do
		sleep 1
		n=$((n + 1))
	done
	return 1
}

# nfs_diag: what an engineer needs to tell a stalled RDMA transport from a
# stalled server: the TCP queues of every connection, the RNIC's QPs and
# counters, the RPC transport's statistics and the kernel's last words.
nfs_diag() {
	echo "---- nfs_diag $(cat /proc/uptime)"
	ss -tinm
	rdma resource show qp
	for d in /sys/class/infiniband/*/ports/1/hw_counters; do
		[ -d "$d" ] && (cd "$d" && grep . *)
	done
	cat /proc/self/mountstats 2>/dev/null | grep -A12 'xprt:'
	dmesg | tail -n 60
	echo "---- end nfs_diag"
}

# nfs_stuck_watch: the server's half of a failed case's log, taken when a
# client's bounded case gives up (run in the background for the test).
nfs_stuck_watch() {
	while :; do
		if [ -e "$SYNC/nfs-stuck" ]; then
			nfs_diag
			rm -f "$SYNC/nfs-stuck"
		fi
		sleep 5
	done
}

# nfs_umount DIR: unmount, forcibly and lazily when a stalled transport
# blocks the plain unmount (the case that stalled has failed already).
nfs_umount() {
	timeout -k 5 60 umount "$1" && return 0
	umount -f -l "$1"
	return 1
}

# make_sources MAX: random files of 0 B to MAX octets in /tmp/src and
# their digests in /tmp/src.sha256 (client side).
make_sources() {
	mkdir -p /tmp/src
	for s in 0 1 4095 4096 65537 1048576 16777216 67108864; do
		[ "$s" -le "$1" ] || continue
		head -c "$s" /dev/urandom > /tmp/src/f$s || return 1
	done
	(cd /tmp/src && sha256sum f*) > /tmp/src.sha256
}

# integrity DIR [MAX]: the sources (those of at most MAX octets, if
# given) written to DIR, synced, dropped from the page cache, read back
# and checksummed. The sources' names sort the same way in both places.
integrity() {
	rm -rf "$1" /tmp/want.sha256 && mkdir -p "$1" || return 1
	for f in /tmp/src/f*; do
		[ -z "$2" ] || [ "${f##*/f}" -le "$2" ] || continue
		cp "$f" "$1"/ && grep "  ${f##*/}\$" /tmp/src.sha256 >> /tmp/want.sha256 ||
			return 1
	done
	drop_caches && (cd "$1" && sha256sum f*) | cmp - /tmp/want.sha256
}

# dirops DIR: a tree of 100 files, renamed, hard and symbolic links,
# checked after a cache drop, then removed.
dirops() {
	d=$1/tree
	rm -rf "$d" && mkdir -p "$d/a/b/c" || return 1
	for i in $(seq 100); do echo "$i" > "$d/a/b/c/n$i" || return 1; done
	mv "$d/a/b/c" "$d/a/moved" && ln "$d/a/moved/n1" "$d/a/hard" &&
		ln -s moved/n2 "$d/a/sym" && drop_caches &&
		[ "$(ls "$d/a/moved" | wc -l)" = 100 ] && [ ! -e "$d/a/b/c" ] &&
		[ "$(cat "$d/a/hard")" = 1 ] && [ "$(cat "$d/a/sym")" = 2 ] &&
		[ "$(stat -c %h "$d/a/hard")" = 2 ] &&
		rm -rf "$d" && [ ! -e "$d" ]
}

# parallel DIR N KIB: N writers at once, each its own file of KIB KiB,
# then read back after a cache drop.
parallel() {
	mkdir -p "$1" || return 1
	pids=""
	for i in $(seq "$2"); do
		[ -f /tmp/src/p$i ] || head -c $(($3 * 1024)) /dev/urandom > /tmp/src/p$i
		dd if=/tmp/src/p$i of="$1/p$i" bs=64k conv=fsync status=none &
		pids="$pids $!"
	done
	rc=0
	for p in $pids; do wait "$p" || rc=1; done
	[ $rc = 0 ] && drop_caches || return 1
	for i in $(seq "$2"); do cmp "/tmp/src/p$i" "$1/p$i" || return 1; done
}
