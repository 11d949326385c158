# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: xiw in each of two VMs, and rdma-core's tools between them.
# Writes a readable report to $OUT/report; scripts/vm/demo.sh prints both.
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

# Traffic between the VMs with rdma-core's own tools, unchanged: VM 0
# serves, VM 1 connects.
modprobe rdma_ucm
retry 10 ping -c 1 -W 2 "$PEER_IP" >/dev/null
barrier traffic 60
if [ "$VM_IDX" = 0 ]; then
	timeout 120 rping -s -a "$MY_IP" -V -C 10 -S 4096 > "$OUT/rping" 2>&1
	check demo-rping-server test $? = 0
	barrier rping-done 150
	timeout 120 ib_write_bw -R -d xiw0 -s 65536 -n 500 -F > "$OUT/bw" 2>&1
	check demo-write-bw-server test $? = 0
else
	sleep 2
	say "\$ rping -c -a $PEER_IP -V -C 10 -S 4096   (verifies every byte)"
	retry 10 timeout 120 rping -c -a "$PEER_IP" -V -C 10 -S 4096 -v > "$OUT/rping" 2>&1
	check demo-rping-client test $? = 0
	head -n 2 "$OUT/rping" | cut -c1-72 | sed 's/^/  /;s/$/.../' >> "$report"
	say "  ... $(grep -c '^ping data' "$OUT/rping") pings, verified"
	say ""
	barrier rping-done 150
	sleep 2
	say "\$ ib_write_bw -R -d xiw0 -s 65536 -n 500 $PEER_IP   (QEMU without KVM: slow)"
	retry 10 timeout 120 ib_write_bw -R -d xiw0 -s 65536 -n 500 -F "$PEER_IP" > "$OUT/bw" 2>&1
	check demo-write-bw-client test $? = 0
	grep -E '#bytes|^ 65536' "$OUT/bw" | sed 's/^/  /' >> "$report"
	say ""
fi
barrier traffic-done 150
check demo-link-delete rdma link delete xiw0
check demo-unload rmmod xiw
