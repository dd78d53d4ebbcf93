#!/usr/bin/env bash
# Packs a guest root tree into the initramfs the lab boots (both arches share it, so the
# archive format and /init come from one place): cpio newc, gzip, with guest-init.sh as /init.
# Usage: pack-initramfs.sh ROOTDIR OUT.cpio.gz
set -euo pipefail

root=${1:?usage: pack-initramfs.sh ROOTDIR OUT.cpio.gz}
out=${2:?usage: pack-initramfs.sh ROOTDIR OUT.cpio.gz}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

install -m 0755 "$here/guest-init.sh" "$root/init"
# The kernel opens /dev/console before /init runs: without the node the init has no stdout.
mkdir -p "$root/dev"
[[ -e $root/dev/console ]] || mknod -m 600 "$root/dev/console" c 5 1
[[ -e $root/dev/null ]] || mknod -m 666 "$root/dev/null" c 1 3

# Sorted names and fixed owners keep the archive the same for the same tree.
(cd "$root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
  cpio --null --create --format=newc --owner=0:0 --quiet) | gzip -6 -n >"$out.tmp"
mv -f "$out.tmp" "$out"
