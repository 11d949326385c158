# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test, in every VM of a two-VM run:
# - the emulator keeps a faulting instruction's flags;
# - on the stock kernels, `modprobe xiw` loads the module under test from
#   updates/dkms, where DKMS installs it;
# - xiw loads (its core self-check passes in this kernel), creates xiw0 on
#   the VM's NIC, is listed by `rdma link` and `ibv_devices`, and unloads
#   cleanly;
# - upstream siw between the two VMs passes `rping -V`, which proves the
#   topology independently of xiw.
. "$XIW_TOP/scripts/vm/lib.sh"

# First, the machine: the emulator saves the right RFLAGS when an
# instruction that writes memory faults (userspace-tests/emulator,
# Documentation/testing.rst "The emulator"). QEMU 7.2 does not, and the
# kernels it ran crashed now and then with garbage in their flags.
check emulator-flags "$XIW_FLAGCHECK"

xiw_loads() {
	load_xiw && in_dmesg 'xiw: loaded \(crc32c: '
}
# What a module loaded without parameters does is what users get: CRC32c
# required (RFC 5044 section 4.4: suppression SHOULD NOT be an
# administrative default), MPA Rev 2, and no GSO bit (a bit RFC 5044
# reserves).
param_is() { [ "$(cat /sys/module/xiw/parameters/$1)" = "$2" ]; }
xiw_rfc_defaults() {
	param_is mpa_crc required && param_is mpa_rev 2 && param_is mpa_gso N
}
xiw_link_add() { rdma link add xiw0 type xiw netdev eth0; }
xiw_listed() {
	rdma link show | tee /dev/stderr | grep -q '^link xiw0/1 .*netdev eth0' &&
	ibv_devices | tee /dev/stderr | grep -qw xiw0
}
# Through uverbs: alloc_ucontext (siw ABI), query_device, query_port.
xiw_devinfo() {
	info=$(ibv_devinfo -d xiw0) && echo "$info" &&
	echo "$info" | grep -q 'transport:.*iWARP' &&
	echo "$info" | grep -q 'state:.*PORT_ACTIVE'
}
# Negative checks first prove they can read what they look at: a list
# that could not be read is no proof that a device is gone.
links() { rdma link show > "$OUT/links.txt"; }
no_link() { links && ! grep -q "$1" "$OUT/links.txt"; }
xiw_link_delete() { rdma link delete xiw0 && no_link xiw0; }
# A device whose net_device goes away goes with it.
xiw_netdev_gone() {
	ip link add xv0 type veth peer name xv1 &&
	rdma link add xiwv type xiw netdev xv0 &&
	rdma link show | grep -q '^link xiwv/1 ' &&
	ip link delete xv0 &&
	retry 10 no_link xiwv
}
xiw_unloads() { rmmod xiw && ! grep -q '^xiw ' /proc/modules && in_dmesg 'xiw: unloaded'; }

# Installed where DKMS installs it (updates/dkms), the module under test
# is what `modprobe xiw` finds, with its dependencies (ib_uverbs, rdma_cm
# and theirs); the stock boot of make check tests the module DKMS built.
# The root is read-only, and depmod over all of this kernel's modules
# takes 40 s under TCG: the module tree is a tmpfs one with the kernel's
# RDMA and configfs modules bound in, and updates/dkms.
XIW_VERSION=$(cat "$XIW_TOP/VERSION")
mods=/lib/modules/$(uname -r)
mroot=/tmp/modroot
mtree=$mroot$mods
xiw_modprobe() {
	case $XIW_KO in *.xz) ko=xiw.ko.xz ;; *) ko=xiw.ko ;; esac
	mkdir -p "$mtree/updates/dkms" &&
	cp "$mods"/modules.order "$mods"/modules.builtin* "$mtree/" &&
	cp "$XIW_KO" "$mtree/updates/dkms/$ko" || return 1
	for d in kernel/drivers/infiniband kernel/fs/configfs; do
		[ -d "$mods/$d" ] || continue
		mkdir -p "$mtree/$d" && mount --bind "$mods/$d" "$mtree/$d" || return 1
	done
	depmod -b $mroot && modprobe -d $mroot xiw &&
	modinfo -b $mroot -n xiw | tee /dev/stderr | grep -q "^$mtree/updates/dkms/$ko\$" &&
	[ "$(cat /sys/module/xiw/version)" = "$XIW_VERSION" ] && rmmod xiw
}
if [ "$KERNEL_KIND" != debug ]; then
	check xiw-modprobe-updates xiw_modprobe
	module_loaded xiw && rmmod xiw
	grep -o " $mtree/[^ ]*" /proc/mounts | while read -r m; do umount "$m"; done
fi
check xiw-load xiw_loads
check xiw-rfc-defaults xiw_rfc_defaults
check xiw-link-add xiw_link_add
check xiw-listed xiw_listed
check xiw-devinfo xiw_devinfo
check xiw-link-delete xiw_link_delete
check xiw-netdev-gone xiw_netdev_gone
check xiw-unload xiw_unloads

siw_up() {
	modprobe rdma_ucm && load_module "$(siw_ko stock)" &&
	rdma link add siw0 type siw netdev eth0 &&
	rdma link show | grep -q '^link siw0/1 '
}
net_up() { retry 10 ping -c 1 -W 2 "$PEER_IP" >/dev/null; }
rping_server() { timeout 120 rping -s -a "$MY_IP" -V -C 20 -S 4096; }
# The server may not listen yet when the barrier opens: retry refusals.
rping_client() { sleep 2; retry 10 timeout 60 rping -c -a "$PEER_IP" -V -C 20 -S 4096; }
# Coexistence (README): xiw beside siw on one net_device, and siw's module
# exit removing xiw's devices too (it unregisters by driver id).
xiw_beside_siw() {
	load_xiw &&
	rdma link add xiw0 type xiw netdev eth0 &&
	rdma link show | grep -q '^link xiw0/1 ' &&
	rdma link show | grep -q '^link siw0/1 '
}
# siw never takes xiw's device for one of its own: xiw does not file its
# net_device in the table siw searches (ib_device_get_by_netdev), so with
# siw0 gone siw adds siw1 on the net_device xiw0 is on (siw still refuses
# a second device of its own there: the first try, with siw0 in place).
siw_blind_to_xiw() {
	! rdma link add siw1 type siw netdev eth0 2> "$OUT/siw1.txt" &&
	grep -qi 'exist' "$OUT/siw1.txt" &&
	rdma link delete siw0 && rdma link add siw1 type siw netdev eth0 &&
	rdma link show | grep -q '^link siw1/1 ' && rdma link delete siw1
}
# Unloading siw replays every net_device's going-down events to its
# notifier, eth0's among them (6.1's siw wrote its own fields into a
# device it took for its own there, and crashed).
siw_down() { rmmod siw; }
xiw_gone_with_siw() { no_link xiw0; }

check net-up net_up
check siw-up siw_up
barrier siw-up
if [ "$VM_IDX" = 0 ]; then
	check siw-rping-server rping_server
else
	check siw-rping-client rping_client
fi
barrier rping-done
check coexist-xiw-beside-siw xiw_beside_siw
check coexist-siw-blind-to-xiw siw_blind_to_xiw
check siw-down siw_down
check coexist-siw-exit-took-xiw xiw_gone_with_siw
check coexist-xiw-unload xiw_unloads
