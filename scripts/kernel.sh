#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Facts about kernel trees, kept in one place for the Makefile and scripts.
#
#   kernel.sh headers-6.12   newest installed Debian 6.12 headers tree
#   kernel.sh headers-6.1    newest installed Debian 6.1 headers tree
#   kernel.sh release KDIR   the tree's kernel release (uname -r)
#   kernel.sh cc KDIR        the compiler the tree was built with
set -euo pipefail
newest() { ls -d "$@" 2>/dev/null | sort -V | tail -n1; }
case ${1:-} in
headers-6.12) newest /usr/src/linux-headers-6.12.*+deb12-amd64 ;;
headers-6.1) newest /usr/src/linux-headers-6.1.*-amd64 ;;
release) sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' "$2/include/generated/utsrelease.h" ;;
cc) sed -n 's/^CONFIG_CC_VERSION_TEXT="\?\([^ ]*\) .*/\1/p' "$2/include/config/auto.conf" ;;
*) echo "usage: kernel.sh headers-6.12|headers-6.1|release KDIR|cc KDIR" >&2; exit 2 ;;
esac
