#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what a tier of the build needs, from Debian's archive only.
# Idempotent: when everything is present it only queries dpkg and exits.
# Runs `apt-get update` at most once per invocation, and only when
# something is missing.
#
# Usage: scripts/deps.sh TIER...   (tiers: build host style kbuild vm vm61 wire deb)
set -euo pipefail

# Packages by tier. Versioned kernel packages are resolved at run time.
tier_build="build-essential g++ gcc make bc bison flex kmod libelf-dev rsync
	libssl-dev dwarves binutils python3 linux-headers-amd64"
tier_host="g++ clang libclang-rt-14-dev libgtest-dev libbenchmark-dev
	cmake pkg-config"
tier_style="clang-format perl xz-utils linux-source-6.12"
tier_kbuild="bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
	linux-source-6.12"
tier_vm="busybox-static cpio xz-utils zstd kmod rdma-core
	ibverbs-utils ibverbs-providers rdmacm-utils perftest iproute2
	iputils-ping gcc librdmacm-dev libibverbs-dev nfs-kernel-server
	nfs-common rpcbind fio python3-pyverbs nvme-cli"
tier_wire="tshark python3"
tier_deb="debhelper dh-dkms dkms dpkg-dev"
# Debian 12's default kernel for the 6.1 boot: its image (matching the
# newest installed 6.1 headers, added below) and its source, for siw.
tier_vm61="linux-source-6.1"

updated=0
apt_update() {
	if [ "$updated" = 0 ]; then
		apt-get update -qq >/dev/null
		updated=1
	fi
}

# apt_install [APT-GET OPTION...] PACKAGE...: quiet, and apt's own words
# on failure.
apt_install() {
	local log rc=0
	log=$(mktemp)
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "$@" >"$log" 2>&1 || rc=$?
	[ $rc = 0 ] || cat "$log" >&2
	rm -f "$log"
	[ $rc = 0 ] || { echo "deps: apt-get install failed" >&2; exit 1; }
}

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# Newest linux-headers-6.12.N+deb12-amd64 in the archive (or installed).
newest_612_headers() {
	local pat='^linux-headers-6\.12\.[0-9]+\+deb12-amd64$'
	local name
	name=$(apt-cache search --names-only "$pat" 2>/dev/null |
	       awk '{print $1}' | sort -V | tail -n1)
	if [ -z "$name" ]; then
		apt_update
		name=$(apt-cache search --names-only "$pat" |
		       awk '{print $1}' | sort -V | tail -n1)
	fi
	[ -n "$name" ] || { echo "deps: no 6.12 headers in the archive" >&2; exit 1; }
	echo "$name"
}

# The stock kernel image that matches the installed 6.12 headers (RELEASE):
# nothing if it is installed, else the signed package or, where that has no
# candidate yet (the signed build reaches the archive after the headers),
# its -unsigned twin: the same kernel, the same files in /boot.
stock_image() {	# RELEASE
	local p=linux-image-$1
	installed "$p" || installed "$p-unsigned" && return 0
	apt_update
	apt-cache policy "$p" | grep -q 'Candidate: [0-9]' || p=$p-unsigned
	echo "$p"
}

# The emulator comes from bookworm-backports (Debian's archive, QEMU 10):
# Debian 12's own QEMU 7.2 saves wrong RFLAGS, TF, DF and IOPL among
# them, when an RCL or RCR that writes memory faults, and the test
# kernels crashed under it now and then with garbage in their flags
# (userspace-tests/emulator/xiw_flagcheck.c, Documentation/testing.rst).
qemu_min=1:10.0
qemu_current() {
	local v
	v=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) &&
		dpkg --compare-versions "$v" ge "$qemu_min"
}
qemu_from_backports() {
	local f=/etc/apt/sources.list.d/xiw-bookworm-backports.sources
	if ! grep -rqsE '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		echo "deps: adding bookworm-backports for QEMU ($f)" >&2
		cat > "$f" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
		updated=0
	fi
	apt_update
	echo "deps: installing qemu-system-x86 from bookworm-backports" >&2
	apt_install -t bookworm-backports qemu-system-x86
	qemu_current || { echo "deps: QEMU older than $qemu_min" >&2; exit 1; }
}

want=""
qemu=0
for tier in "$@"; do
	var="tier_$tier"
	[ -n "${!var+x}" ] || { echo "deps: unknown tier '$tier'" >&2; exit 2; }
	want="$want ${!var}"
	# The stock kernel image that matches the installed 6.12 headers.
	if [ "$tier" = vm ]; then
		qemu_current || qemu=1
		h=$("$(dirname "$0")/kernel.sh" headers-6.12 || true)
		[ -n "$h" ] && want="$want $(stock_image "${h#/usr/src/linux-headers-}")"
	fi
	if [ "$tier" = vm61 ]; then
		h=$("$(dirname "$0")/kernel.sh" headers-6.1 || true)
		[ -n "$h" ] && want="$want $(stock_image "${h#/usr/src/linux-headers-}")"
	fi
	if [ "$tier" = build ] &&
	   [ -z "$("$(dirname "$0")/kernel.sh" headers-6.12 || true)" ]; then
		want="$want $(newest_612_headers)"
	fi
done

missing=""
for p in $want; do
	installed "$p" || missing="$missing $p"
done
[ "$qemu" = 1 ] && qemu_from_backports
[ -z "$missing" ] && exit 0

echo "deps: installing$missing" >&2
apt_update
apt_install $missing
