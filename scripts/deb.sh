#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the DKMS package, build/deb/xiw-dkms_VERSION_all.deb, built
# from a copy of what it ships (debian/rules says what goes where).
# Prints the package's path.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ver=$(cat VERSION)
# The package's version is the changelog's: they must agree.
chver=$(dpkg-parsechangelog -l debian/changelog -S Version)
if [ "$chver" != "$ver" ]; then
	echo "deb: VERSION says $ver, debian/changelog says $chver" >&2
	exit 1
fi
out=$top/build/deb
rm -rf "$out" && mkdir -p "$out/xiw-$ver"
rsync -a --relative debian Kbuild VERSION dkms.conf drivers include \
	scripts/Kbuild.cxx scripts/cxx-object-check.sh scripts/dkms-make.sh \
	"$out/xiw-$ver/"
if ! (cd "$out/xiw-$ver" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	exit 1
fi
deb=$out/xiw-dkms_${ver}_all.deb
[ -f "$deb" ] || { echo "deb: $deb was not made" >&2; exit 1; }
echo "$deb"
