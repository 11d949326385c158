#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or find in the cache) the debug test kernel: linux-source-6.12 with
# defconfig + kvm_guest.config + scripts/vm/debug.config, plus upstream siw
# as a module. The result lives in
#   ~/.cache/xiw/kernel-debug-<key>/{bzImage,build/,modules/}
# where <key> hashes the source package version, the config fragment and
# this script: a change of any of them builds a new kernel.
#
# Prints the cache directory on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
"$top/scripts/deps.sh" build kbuild >&2

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$(cat "$here/debug.config" "$0" | sha256sum | cut -c1-12)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/xiw/kernel-debug-$srcver-$key"
if [ -f "$cache/done" ]; then
	echo "$cache"
	exit 0
fi

echo "debug-kernel: building $srcver ($key), about 10 minutes on 2 cores" >&2
t0=$SECONDS
rm -rf "$cache" && mkdir -p "$cache"
tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$cache"
mv "$cache"/linux-source-6.12 "$cache/build"
cd "$cache/build"
make -s defconfig kvm_guest.config >&2
scripts/kconfig/merge_config.sh -m .config "$here/debug.config" >/dev/null
make -s olddefconfig >&2

# Every option of the fragment must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case $line in CONFIG_*=*) ;; *) continue ;; esac
	opt=${line%%=*} val=${line#*=}
	if [ "$val" = n ]; then
		grep -qE "^$opt=" .config && { echo "debug-kernel: $opt is set" >&2; bad=1; }
	else
		grep -qx "$line" .config || { echo "debug-kernel: want $line, have $(grep -E "^(# )?$opt[= ]" .config)" >&2; bad=1; }
	fi
done < "$here/debug.config"
[ $bad = 0 ] || exit 1

make -s -j"$(nproc)" bzImage modules >&2
make -s modules_install INSTALL_MOD_PATH="$cache/modules" INSTALL_MOD_STRIP=1 >&2
cp arch/x86/boot/bzImage "$cache/bzImage"
make -s kernelrelease > "$cache/release"
echo "debug-kernel: built in $((SECONDS - t0)) s" >&2
touch "$cache/done"
echo "$cache"
