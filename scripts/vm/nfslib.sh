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

# integrity DIR: the sources written to DIR, synced, dropped from the
# page cache, read back and checksummed.
integrity() {
	rm -rf "$1" && mkdir -p "$1" && cp /tmp/src/f* "$1"/ && drop_caches &&
		(cd "$1" && sha256sum f*) | cmp - /tmp/src.sha256
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
