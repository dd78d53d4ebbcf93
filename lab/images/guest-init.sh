#!/bin/sh
# /init of both lab guests (busybox sh, PID 1): turns the booted kernel into the router the
# lab drives. It mounts what the agent expects (proc, sys, devtmpfs, bpffs, tmpfs), loads the
# modules in /etc/lab-modules, names and addresses the NICs, starts dropbear with a host key
# made at this boot, and announces LAB-HOSTKEY then LAB-READY on the serial console, which
# the host side (lab/guest.ts) waits for. Settings come from the kernel command line:
#   wf.key=<base64 ed25519 public key blob>  root's authorized key
#   wf.jit=0|1                               net.core.bpf_jit_enable
# A guest's root is this initramfs, so nothing written to it survives a reboot but what is on
# the lab's "flash" (/dev/vda, a disk lab/guest.ts attaches blank at each lab start): a tar
# laid over / at boot, before dropbear, so it may hold the host key and release files.
# shellcheck shell=sh
set -eu
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

say() { echo "lab-init: $*"; }
fail() {
  echo "LAB-FAILED $*"
  # PID 1 must not exit (a kernel panic hides the message): stay, reaping, for the console log.
  printf '::ctrlaltdel:/sbin/reboot\n' >/etc/inittab
  exec /bin/busybox init </dev/console >/dev/console 2>&1
}
trap 'fail "init script error (exit $?)"' EXIT

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null || true
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true

# The malta board's PCI interrupts (PIIX4 PIRQA-D onto IRQ 10 and 11) are shared by the NICs,
# and nothing sets the i8259's ELCR to make them level-triggered: left edge-triggered, a shared
# line stays high across an event and the LAN NIC stopped receiving mid-stream, for good. Set
# IRQ 10 and 11 level-triggered (ELCR2 at port 0x4d1) before any NIC driver loads. Big-endian
# and little-endian guests alike: it is one byte.
if [ -c /dev/port ] || mknod /dev/port c 1 4 2>/dev/null; then
  elcr2=$(dd if=/dev/port bs=1 skip=$((0x4d1)) count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
  # shellcheck disable=SC2059 # the format is the byte itself, built from a number
  printf "$(printf '\\%03o' $((${elcr2:-0} | 0x0c)))" | dd of=/dev/port bs=1 seek=$((0x4d1)) count=1 2>/dev/null ||
    say "could not set ELCR: shared PCI interrupts stay edge-triggered"
  say "ELCR2 $(dd if=/dev/port bs=1 skip=$((0x4d1)) count=1 2>/dev/null | od -An -tx1 | tr -d " ") (IRQ 10, 11 level-triggered)"
else
  say "no /dev/port: shared PCI interrupts stay edge-triggered"
fi

cmdline_value() {
  # shellcheck disable=SC2013 # the command line is words, not lines
  for word in $(cat /proc/cmdline); do
    case $word in "$1="*) echo "${word#*=}" ;; esac
  done
}
key=$(cmdline_value wf.key)
jit=$(cmdline_value wf.jit)

# Load order is the file's order (dependencies first). A path is insmod'ed, a name modprobe'd.
if [ -s /etc/lab-modules ]; then
  while read -r mod; do
    [ -n "$mod" ] || continue
    case $mod in
      */*) insmod "/lib/modules/$(uname -r)/$mod" || fail "insmod $mod" ;;
      *) modprobe "$mod" || fail "modprobe $mod" ;;
    esac
  done </etc/lab-modules
fi

# QEMU gives each NIC a fixed MAC (52:54:00:00:00:0N, N = 1 LAN, 2 WAN, 3 management): name
# them by MAC, through temporary names, so eth0/eth1/eth2 never depend on probe order.
want_name() {
  case $1 in
    52:54:00:00:00:01) echo eth0 ;;
    52:54:00:00:00:02) echo eth1 ;;
    52:54:00:00:00:03) echo eth2 ;;
  esac
}
nic_count() {
  n=0
  for path in /sys/class/net/eth*; do [ -e "$path" ] && n=$((n + 1)); done
  echo "$n"
}
tries=0
while [ "$(nic_count)" -lt 3 ]; do
  tries=$((tries + 1))
  [ $tries -le 100 ] || fail "expected 3 NICs, found: $(echo /sys/class/net/*)"
  sleep 0.1
done
for path in /sys/class/net/*; do
  dev=${path##*/}
  if [ -n "$(want_name "$(cat "$path/address")")" ]; then ip link set "$dev" name "tmp-$dev"; fi
done
for path in /sys/class/net/*; do
  dev=${path##*/}
  name=$(want_name "$(cat "$path/address")")
  if [ -n "$name" ]; then ip link set "$dev" name "$name"; fi
done

sysctl -qw net.ipv4.ip_forward=1
sysctl -qw net.ipv6.conf.all.forwarding=1
sysctl -qw net.ipv6.conf.default.accept_dad=0
if [ -n "$jit" ]; then sysctl -qw "net.core.bpf_jit_enable=$jit"; fi
hostname "$(cat /etc/hostname)"

ip link set lo up
for dev in eth0 eth1 eth2; do
  sysctl -qw "net.ipv6.conf.$dev.accept_dad=0"
  sysctl -qw "net.ipv6.conf.$dev.accept_ra=0"
  ip link set "$dev" up
done
ip addr add 192.168.1.1/24 dev eth0
ip addr add fd00:1::1/64 dev eth0
ip addr add 203.0.113.2/24 dev eth1
ip addr add 2001:db8:1::2/64 dev eth1
ip link add link eth1 name eth1.100 type vlan id 100
ip link set eth1.100 up
ip addr add 198.51.100.2/24 dev eth1.100
# Management: QEMU user networking, reached only through its port forward; no default route.
ip addr add 10.0.2.15/24 dev eth2
ip route add default via 203.0.113.1 dev eth1
ip -6 route add default via 2001:db8:1::1 dev eth1

# virtio_blk's probe may finish after its insmod returned: give /dev/vda a moment to appear.
if [ -d /sys/module/virtio_blk ]; then
  tries=0
  until [ -b /dev/vda ] || [ $tries -ge 20 ]; do
    tries=$((tries + 1))
    sleep 0.1
  done
fi
if [ -b /dev/vda ] && [ "$(dd if=/dev/vda bs=1 skip=257 count=5 2>/dev/null)" = ustar ]; then
  tar -xf /dev/vda -C / || fail "cannot unpack the flash (/dev/vda)"
  say "laid $(tar -tf /dev/vda | wc -l) files from the flash (/dev/vda) over the initramfs"
fi

mkdir -p /root/.ssh /etc/dropbear
chmod 700 /root /root/.ssh
if [ -n "$key" ]; then
  echo "ssh-ed25519 $key lab" >/root/.ssh/authorized_keys
  chmod 600 /root/.ssh/authorized_keys
else
  say "no wf.key on the kernel command line: nobody can log in over SSH"
fi
hostkey=/etc/dropbear/dropbear_ed25519_host_key
# A host key from the flash is kept: the proxy that pinned it must still reach this router.
[ -s "$hostkey" ] || dropbearkey -t ed25519 -f "$hostkey" >/dev/null 2>&1 || fail "dropbearkey"
blob=$(dropbearkey -y -f "$hostkey" | sed -n 's/^ssh-ed25519 \([^ ]*\).*/\1/p')
fingerprint=$(echo "$blob" | base64 -d | sha256sum | cut -c1-64 | xxd -r -p | base64 | tr -d '=')
# -s: keys only; -R would make a key at first connection, too late to announce it.
# -F -E: in the foreground, logging to /tmp/dropbear.log (there is no syslog daemon to read).
dropbear -F -E -s -r "$hostkey" -p 22 -P /run/dropbear.pid 2>>/tmp/dropbear.log &
tries=0
# Listening on port 22 (0x0016) in /proc/net/tcp, state 0A (LISTEN).
until grep -q ':0016 00000000:0000 0A' /proc/net/tcp; do
  tries=$((tries + 1))
  [ $tries -le 100 ] || fail "dropbear did not start: $(tail -n 3 /tmp/dropbear.log)"
  sleep 0.1
done

trap - EXIT
echo "LAB-HOSTKEY SHA256:$fingerprint"
echo "LAB-READY kernel=$(uname -r) machine=$(uname -m) jit=$(cat /proc/sys/net/core/bpf_jit_enable)"

# busybox init as PID 1 reaps orphans; its inittab only handles shutdown (no console shells).
printf '::ctrlaltdel:/sbin/reboot\n::shutdown:/bin/umount -a -r\n' >/etc/inittab
exec /bin/busybox init
