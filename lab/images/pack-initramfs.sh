#!/usr/bin/env bash
# Packs a guest root tree into the initramfs the lab boots (both arches share it, so the
# archive format, /init and the files a root needs around it come from one place): cpio newc,
# gzip, with guest-init.sh as /init.
# Usage: pack-initramfs.sh ROOTDIR OUT.cpio.gz ARCH
set -euo pipefail

usage='usage: pack-initramfs.sh ROOTDIR OUT.cpio.gz ARCH'
root=${1:?$usage}
out=${2:?$usage}
arch=${3:?$usage}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

install -m 0755 "$here/guest-init.sh" "$root/init"
# What /init, busybox and dropbear expect of a root: mount points, root without a password
# (dropbear takes keys only), a hostname.
mkdir -p "$root"/{proc,sys,dev,tmp,run,root,var/log,var/run,etc/dropbear,sys/fs/bpf}
ln -sfn /proc/mounts "$root/etc/mtab"
printf 'root::0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
printf '/bin/sh\n' >"$root/etc/shells"
printf 'wflab-%s\n' "$arch" >"$root/etc/hostname"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"
# The kernel opens /dev/console before /init runs: without the node the init has no stdout.
mkdir -p "$root/dev"
[[ -e $root/dev/console ]] || mknod -m 600 "$root/dev/console" c 5 1
[[ -e $root/dev/null ]] || mknod -m 666 "$root/dev/null" c 1 3

# Sorted names and fixed owners keep the archive the same for the same tree.
(cd "$root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
  cpio --null --create --format=newc --owner=0:0 --quiet) | gzip -6 -n >"$out.tmp"
mv -f "$out.tmp" "$out"
