#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# DKMS's build command (dkms.conf), run in the DKMS build directory:
# xiw.ko against the kernel tree KDIR, with the compiler that tree was
# built with (its C++ twin builds the core: scripts/Kbuild.cxx).
#
# Usage: sh scripts/dkms-make.sh KDIR
set -eu
kdir=$1
cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^ ]*\) .*/\1/p' "$kdir/include/config/auto.conf")
exec make -C "$kdir" M="$(pwd)" CC="${cc:-gcc}" modules
