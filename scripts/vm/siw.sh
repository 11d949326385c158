#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build upstream siw, the reference peer, out of tree from Debian's
# linux-source-6.12 against the kernel tree KDIR. Cached under
# ~/.cache/xiw/siw-<kernel release>-<key>/siw.ko, keyed by the source
# package version and this script.
#
# Usage: siw.sh KDIR   (prints the path of siw.ko)
set -euo pipefail
kdir=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/scripts/deps.sh" kbuild >&2

rel=$("$top/scripts/kernel.sh" release "$kdir")
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$( (echo "$srcver"; cat "$0") | sha256sum | cut -c1-12)
out="${XDG_CACHE_HOME:-$HOME/.cache}/xiw/siw-$rel-$key"
if [ -f "$out/siw.ko" ]; then echo "$out/siw.ko"; exit 0; fi

rm -rf "$out" && mkdir -p "$out"
tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$out" --strip-components=5 \
	linux-source-6.12/drivers/infiniband/sw/siw
cat > "$out/Kbuild" <<'EOK'
obj-m := siw.o
siw-y := siw_cm.o siw_cq.o siw_main.o siw_mem.o siw_qp.o siw_qp_rx.o \
	 siw_qp_tx.o siw_verbs.o
EOK
cc=$("$top/scripts/kernel.sh" cc "$kdir")
make -C "$kdir" M="$out" CC="$cc" modules >"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; exit 1; }
echo "$out/siw.ko"
