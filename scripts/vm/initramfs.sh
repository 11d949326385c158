#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A minimal initramfs for booting a Debian stock kernel on the harness's
# 9p root: busybox, the modules a 9p root needs (decompressed), and an init
# that loads them, mounts the host's / read-only and switches to it.
#
# Usage: initramfs.sh KERNEL_RELEASE   (prints the cached image path)
set -euo pipefail
rel=$1
here=$(cd "$(dirname "$0")" && pwd)
moddir=/lib/modules/$rel
key=$(cat "$0" | sha256sum | cut -c1-12)
img="${XDG_CACHE_HOME:-$HOME/.cache}/xiw/initramfs-$rel-$key.cpio.gz"
if [ -f "$img" ]; then echo "$img"; exit 0; fi

# In load order. 6.1 also needs the virtio core, which 6.12 builds in.
mods="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
      netfs fscache 9pnet 9pnet_virtio 9p"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,lib/modules}
cp /bin/busybox "$tmp/bin/busybox"
for m in $mods; do
	f=$(find "$moddir/kernel" -name "$m.ko*" | head -n1)
	[ -n "$f" ] || continue		# built in on this kernel
	case $f in
	*.xz) xz -dc "$f" > "$tmp/lib/modules/$m.ko" ;;
	*.zst) zstd -qdc "$f" > "$tmp/lib/modules/$m.ko" ;;
	*) cp "$f" "$tmp/lib/modules/$m.ko" ;;
	esac
	echo "$m" >> "$tmp/lib/modules/order"
done

cat > "$tmp/init" <<'EOI'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /lib/modules/order); do insmod /lib/modules/$m.ko; done
init=/sbin/init
for arg in $(cat /proc/cmdline); do
	case $arg in xiw.init=*) init=${arg#xiw.init=} ;; esac
done
# Read-only and unchanging during a run: cached (run.sh says why).
if ! mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose host0 /newroot; then
	echo "initramfs: cannot mount the 9p root"; echo o > /proc/sysrq-trigger
fi
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot "$init"
EOI
chmod +x "$tmp/init"
mkdir -p "$(dirname "$img")"
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) > "$img.tmp"
mv "$img.tmp" "$img"
echo "$img"
