# SPDX-License-Identifier: GPL-2.0
#
# Load the KUnit suites (debug kernel only) on the first VM. The suites
# run at module load and print KTAP to the kernel log; the host parses it
# from the saved dmesg (scripts/vm/ktap.sh) and counts every case.
. "$XIW_TOP/scripts/vm/lib.sh"
[ "$VM_IDX" = 0 ] || exit 77	# nothing to do on the other VM

kunit_runs() {
	load_xiw && load_module "$XIW_KUNIT_KO" &&
	in_dmesg '# Subtest: xiw_'
}
kunit_unloads() { rmmod xiw_kunit && rmmod xiw; }

check kunit-load kunit_runs
check kunit-unload kunit_unloads
