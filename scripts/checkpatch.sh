#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl on files of the C glue. checkpatch is not
# in the headers packages; it is taken from Debian's linux-source-6.12 and
# cached under ~/.cache/xiw/, keyed by that package's version.
#
# Usage: checkpatch.sh FILE...
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" style

ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/xiw/checkpatch-$ver"
if [ ! -x "$cache/scripts/checkpatch.pl" ]; then
	mkdir -p "$(dirname "$cache")"
	tmp=$(mktemp -d "${cache}.XXXX")
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$tmp" --strip-components=1 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	rm -rf "$cache" && mv "$tmp" "$cache"
fi
exec perl "$cache/scripts/checkpatch.pl" --no-tree --quiet \
	--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES -f "$@"
