#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build upstream siw, the reference peer, out of tree from Debian's
# linux-source-6.12 (or linux-source-6.1, for a 6.1 tree) against the
# kernel tree KDIR. Cached under
# ~/.cache/xiw/siw-<kernel release>-<variant>-<key>/siw.ko, keyed by the
# source package version and this script.
#
# Several siw behaviours are compile-time constants. A variant is siw
# with some of them changed, so that the interop matrix can reach the
# cells stock siw closes off (Documentation/interop.rst):
#
#   stock      as shipped: MPA Rev 2 client-server, CRC if the peer asks
#   v1         mpa_version = 1 (initiates with an MPA Rev 1 Request)
#   p2p        peer_to_peer = true, offering its default RTR types
#              (RDMA WRITE and RDMA READ)
#   p2p_read   peer_to_peer = true, offering the RDMA READ RTR only
#   crc        mpa_crc_required = true
#   crc_strict mpa_crc_strict = true (CRC off, enforced)
#
# Usage: siw.sh KDIR [VARIANT]   (prints the path of siw.ko)
set -euo pipefail
kdir=$1 variant=${2:-stock}
top=$(cd "$(dirname "$0")/../.." && pwd)

# The edits of each variant, as sed expressions on siw_main.c and siw_cm.c.
case $variant in
stock) edits=() ;;
v1) edits=(-e 's/^u_char mpa_version = MPA_REVISION_2;/u_char mpa_version = MPA_REVISION_1;/') ;;
p2p) edits=(-e 's/^const bool peer_to_peer;/const bool peer_to_peer = true;/') ;;
p2p_read) edits=(-e 's/^const bool peer_to_peer;/const bool peer_to_peer = true;/'
		 -e 's/^\(static __be16 rtr_type =\) .*;/\1 MPA_V2_RDMA_READ_RTR;/') ;;
crc) edits=(-e 's/^const bool mpa_crc_required;/const bool mpa_crc_required = true;/') ;;
crc_strict) edits=(-e 's/^const bool mpa_crc_strict;/const bool mpa_crc_strict = true;/') ;;
gso) edits=(-e 's/^const bool try_gso;/const bool try_gso = true;/') ;;
*) echo "siw.sh: unknown variant '$variant'" >&2; exit 2 ;;
esac

"$top/scripts/deps.sh" kbuild >&2
rel=$("$top/scripts/kernel.sh" release "$kdir")
# The source of the tree's own series: 6.1.0-57-amd64 is 6.1.
case $rel in 6.1.*) series=6.1 ;; *) series=6.12 ;; esac
[ "$series" = 6.12 ] || "$top/scripts/deps.sh" vm61 >&2
srcver=$(dpkg-query -W -f='${Version}' "linux-source-$series")
key=$( (echo "$srcver"; cat "$0") | sha256sum | cut -c1-12)
out="${XDG_CACHE_HOME:-$HOME/.cache}/xiw/siw-$rel-$variant-$key"
if [ -f "$out/siw.ko" ]; then echo "$out/siw.ko"; exit 0; fi

rm -rf "$out" && mkdir -p "$out"
tar -xJf "/usr/src/linux-source-$series.tar.xz" -C "$out" --strip-components=5 \
	"linux-source-$series/drivers/infiniband/sw/siw"
if [ ${#edits[@]} -gt 0 ]; then
	cat "$out/siw_main.c" "$out/siw_cm.c" > "$out/before"
	sed -i "${edits[@]}" "$out/siw_main.c" "$out/siw_cm.c"
	# Every edit must have changed something: a silent no-op would
	# build stock siw under a variant's name.
	n=$(cat "$out/siw_main.c" "$out/siw_cm.c" | diff "$out/before" - | grep -c '^>' || true)
	[ "$n" = $(( ${#edits[@]} / 2 )) ] ||
		{ echo "siw.sh: variant $variant: $n of $(( ${#edits[@]} / 2 )) edits applied" >&2; exit 1; }
fi
cat > "$out/Kbuild" <<'EOK'
obj-m := siw.o
siw-y := siw_cm.o siw_cq.o siw_main.o siw_mem.o siw_qp.o siw_qp_rx.o \
	 siw_qp_tx.o siw_verbs.o
EOK
cc=$("$top/scripts/kernel.sh" cc "$kdir")
make -C "$kdir" M="$out" CC="$cc" modules >"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; exit 1; }
echo "$out/siw.ko"
