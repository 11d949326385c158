# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: what xiw does so far, shown in each of two VMs. Writes a
# readable report to $OUT/report; scripts/vm/demo.sh prints both.
. "$XIW_TOP/scripts/vm/lib.sh"
report=$OUT/report

say() { printf '%s\n' "$*" >> "$report"; }
show() {
	say "\$ $*"
	"$@" >> "$report" 2>&1
	say ""
}

say "== vm$VM_IDX ($MY_IP), kernel $(uname -r)"
load_xiw
check demo-load in_dmesg 'xiw: loaded'
say "xiw.ko loaded; its core checked itself in this kernel:"
dmesg | grep -E 'xiw: (loaded|core)' | sed 's/^\[[^]]*\] /  /' >> "$report"
say ""
check demo-link-add rdma link add xiw0 type xiw netdev eth0
show rdma link show xiw0/1
show ibv_devices
ibv_devinfo -d xiw0 > "$OUT/devinfo" 2>&1
check demo-devinfo grep -q 'transport:.*iWARP' "$OUT/devinfo"
say "\$ ibv_devinfo -d xiw0   (excerpt)"
grep -E 'hca_id|transport|node_guid|vendor_id|port:|state|active_mtu|link_layer' \
	"$OUT/devinfo" >> "$report"
say ""
barrier shown
check demo-link-delete rdma link delete xiw0
check demo-unload rmmod xiw
