#!/usr/bin/env bash
# Builds the little-endian lab guest (docs: issue 34, the router lab) from Debian 12's own
# mipsel packages: the 4kc-malta kernel and its modules, and a userland unpacked from .debs
# (busybox, dropbear, iproute2, nftables, bpftool, iperf3, node, tcpdump, ethtool) into an
# initramfs. Nothing is compiled, so a cold build is a download plus an unpack.
#
# Usage: mipsel.sh OUTDIR      build vmlinux, initrd.cpio.gz and manifest.json into OUTDIR
#        mipsel.sh --inputs    print the package versions the image is made of (the cache key)
set -euo pipefail

ARCH=mipsel
# The userland the agent and the checks need on the router, beyond the libraries they pull.
ROOTS=(busybox dropbear-bin iproute2 nftables bpftool iperf3 nodejs tcpdump ethtool)
# Packages a minimal initramfs does without: package management, debconf, perl, python,
# init systems, PAM and login machinery, certificates. Their dependencies are not followed.
SKIP_RE='^(debconf|debconf-2\.0|cdebconf|adduser|dpkg|install-info|passwd|login|perl|perl-base|perl-modules-.*|libperl.*|python3.*|libpython3.*|init-system-helpers|systemd.*|sysvinit.*|lsb-base|tar|ca-certificates|openssl|mailcap|media-types|mime-support|readline-common|libdebian-installer.*|libnewt.*|libslang2|libtextwrap1|libpam.*|libsemanage.*|libsepol.*|libaudit.*|libdb5\.3|libcap2-bin|libelogind0|gcc-12-base|sensible-utils|debianutils|coreutils|base-files|nodejs-doc)$'
# Kernel modules loaded at boot (with their dependencies): the NICs, the flash disk
# (virtio_blk: the one place a reboot does not wipe, guest-init.sh), tc/BPF attach points,
# the VLAN, and the nftables pieces fw4 and the agent's nftables fallback (agent/datapath/nft.ts) use.
# crc32c_generic is libcrc32c's soft dependency (nf_tables needs it), which modules.dep omits.
# sch_cake, ifb, act_mirred, cls_matchall: SQM as sqm-scripts sets it up (cake on the WAN and on
# an ifb fed from the WAN's ingress), to check that offloaded flows bypass it.
MODULES=(virtio_pci virtio_net virtio_blk veth 8021q sch_ingress cls_bpf act_bpf crc32c_generic
  sch_cake ifb act_mirred cls_matchall
  nf_tables nf_conntrack nf_nat nft_ct nft_nat nft_masq nft_chain_nat nft_redir nft_reject nft_reject_inet
  nft_fib_inet nft_limit nft_log nft_quota nft_hash nft_numgen nf_flow_table nf_flow_table_inet nft_flow_offload)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${WRTFLEET_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wrtfleet-lab}
debs=$cache/downloads/$ARCH-debs
# A binary cache of our own: Debian's docker images turn apt's off, and rebuilding it costs
# about 2 s per apt-cache call.
mkdir -p "$cache/apt"
APT_OPTS=(-o APT::Sandbox::User=root -o "Dir::Cache::pkgcache=$cache/apt/pkgcache.bin"
  -o "Dir::Cache::srcpkgcache=$cache/apt/srcpkgcache.bin")

log() { printf '[%s %s] %s\n' "$ARCH" "$(date +%T)" "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

ensure_host_tools() {
  local missing=()
  command -v cpio >/dev/null || missing+=(cpio)
  command -v depmod >/dev/null || missing+=(kmod)
  command -v readelf >/dev/null || missing+=(binutils)
  # Runs the guest's busybox on the build host to list its applets.
  command -v "qemu-$ARCH-static" >/dev/null || missing+=(qemu-user-static)
  if ((${#missing[@]})); then
    log "installing host tools: ${missing[*]}"
    apt-get install -y --no-install-recommends "${missing[@]}" >&2
  fi
  if ! dpkg --print-foreign-architectures | grep -qx "$ARCH"; then
    log "adding the $ARCH foreign architecture to apt"
    dpkg --add-architecture "$ARCH"
    apt-get update >&2
  fi
}

# The current kernel package behind the linux-image-4kc-malta metapackage.
kernel_package() {
  apt-cache "${APT_OPTS[@]}" depends "linux-image-4kc-malta:$ARCH" | awk '/^  Depends: linux-image-[0-9]/ { sub(/:.*/, "", $2); print $2; exit }'
}

# Depends and Pre-Depends of the given packages, the first alternative of each, a virtual
# name replaced by its first provider; one line "package dependency" each.
direct_deps() {
  apt-cache "${APT_OPTS[@]}" depends --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "$@" |
    awk '
      /^[^ ]/ { pkg = $1; skip_alt = 0; virtual = 0; next }
      /^ [ |](Pre)?Depends: / {
        alt_next = ($0 ~ /^ \|/)
        name = $2
        if (skip_alt) { skip_alt = alt_next; virtual = 0; next }
        skip_alt = alt_next
        if (name ~ /^</) { virtual = 1; next }
        virtual = 0; print pkg, name; next
      }
      /^    / { if (virtual) { print pkg, $1; virtual = 0 } next }
      { virtual = 0 }'
}

# The names among the given bare names that exist as mipsel packages (the others are
# Architecture: all, whose own dependencies apt names without an architecture).
arch_specific() {
  apt-cache "${APT_OPTS[@]}" show --no-all-versions "${@/%/:$ARCH}" 2>/dev/null |
    awk -v arch="$ARCH" '/^Package: / { p = $2 } /^Architecture: / && $2 == arch { print p }'
}

# Breadth first, one apt-cache call per level (each call costs a cache load).
resolve_packages() {
  local -A seen=() mipsel=()
  local level=() next=() bare=() pkg dep name
  for pkg in "${ROOTS[@]}"; do level+=("$pkg:$ARCH"); done
  while ((${#level[@]})); do
    next=()
    for pkg in "${level[@]}"; do seen[$pkg]=1; done
    local deps=()
    mapfile -t deps < <(direct_deps "${level[@]}" | awk '{ print $2 }' | LC_ALL=C sort -u)
    bare=()
    for dep in "${deps[@]}"; do
      name=${dep%%:*}
      [[ $name =~ $SKIP_RE ]] && continue
      [[ $dep == *:* && $dep != *:any ]] || bare+=("$name")
    done
    if ((${#bare[@]})); then
      while read -r name; do mipsel[$name]=1; done < <(arch_specific "${bare[@]}")
    fi
    for dep in "${deps[@]}"; do
      name=${dep%%:*}
      [[ $name =~ $SKIP_RE ]] && continue
      if [[ $dep == *:"$ARCH" || -n ${mipsel[$name]:-} ]]; then dep=$name:$ARCH; else dep=$name; fi
      [[ -z ${seen[$dep]:-} ]] && next+=("$dep")
      seen[$dep]=1
    done
    level=("${next[@]}")
  done
  printf '%s\n' "${!seen[@]}" | LC_ALL=C sort
}

# "name version arch" for each package, the version apt would download.
package_versions() {
  apt-cache "${APT_OPTS[@]}" show --no-all-versions "$@" | awk '
    /^Package: / { p = $2 } /^Version: / { v = $2 } /^Architecture: / { a = $2 }
    /^$/ { if (p != "") print p, v, a; p = "" }
    END { if (p != "") print p, v, a }'
}

if [[ ${1:-} == --inputs ]]; then
  # On a fresh machine apt knows no mipsel package until the architecture is added.
  ensure_host_tools
  # Every package in the image, so a security update of any library makes a new image.
  # (lab/image-cache.ts keeps this answer until apt's lists change: the resolution takes seconds.)
  kpkg=$(kernel_package)
  mapfile -t pkgs < <(resolve_packages)
  package_versions "$kpkg:$ARCH" "${pkgs[@]}"
  exit 0
fi

out=${1:?usage: mipsel.sh OUTDIR | --inputs}
start=$(date +%s)
ensure_host_tools
mkdir -p "$out" "$debs"
work=$(mktemp -d "${TMPDIR:-/tmp}/wflab-$ARCH.XXXXXX")
trap 'rm -rf "$work"' EXIT

log "resolving packages"
kpkg=$(kernel_package)
[[ -n $kpkg ]] || die "cannot resolve linux-image-4kc-malta:$ARCH (is the $ARCH architecture in apt's sources?)"
mapfile -t pkgs < <(resolve_packages)
package_versions "$kpkg:$ARCH" "${pkgs[@]}" >"$work/versions"

# Download only what the cache does not hold; apt names files name_version_arch.deb, epoch ':' as %3a.
missing=()
while read -r name version arch; do
  file="$debs/${name}_${version//:/%3a}_${arch}.deb"
  [[ -f $file ]] || missing+=("$name:$arch=$version")
done <"$work/versions"
if ((${#missing[@]})); then
  log "downloading ${#missing[@]} packages into $debs"
  (cd "$debs" && apt-get "${APT_OPTS[@]}" download "${missing[@]}" >&2)
else
  log "all $(wc -l <"$work/versions") packages already downloaded"
fi

root=$work/root
mkdir -p "$root"
log "unpacking userland"
while read -r name version arch; do
  [[ $name == "$kpkg" ]] && continue
  dpkg-deb -x "$debs/${name}_${version//:/%3a}_${arch}.deb" "$root"
done <"$work/versions"
rm -rf "$root"/usr/share/{doc,man,locale,info,lintian,bash-completion,zsh} "$root"/usr/include "$root"/etc/init.d \
  "$root"/usr/share/nodejs/@types
# glibc's iconv modules, and iproute2's arpd (Berkeley DB) and ATM qdisc: nothing here uses them.
rm -rf "$root/usr/lib/$ARCH-linux-gnu/gconv" "$root/usr/sbin/arpd" "$root/usr/lib/$ARCH-linux-gnu/tc/q_atm.so"

log "unpacking the kernel and selecting modules"
kroot=$work/kernel
read -r _ kversion karch < <(grep "^$kpkg " "$work/versions")
dpkg-deb -x "$debs/${kpkg}_${kversion//:/%3a}_${karch}.deb" "$kroot"
kver=$(basename "$(find "$kroot/lib/modules" -mindepth 1 -maxdepth 1 -type d | head -n1)")
depmod -b "$kroot" "$kver"
moddir=/lib/modules/$kver

# Depth-first over modules.dep: each module after everything it needs.
declare -A modpath=() moddeps=() placed=()
while IFS= read -r line; do
  path=${line%%:*}
  mod=${path##*/}
  mod=${mod%.ko}
  mod=${mod//-/_}
  modpath[$mod]=$path
  moddeps[$mod]=${line#*:}
done <"$kroot$moddir/modules.dep"
order=()
place() {
  local m=$1 d dm
  [[ -n ${placed[$m]:-} ]] && return
  [[ -n ${modpath[$m]:-} ]] || die "kernel $kver has no module $m"
  placed[$m]=1
  for d in ${moddeps[$m]}; do
    dm=${d##*/}
    dm=${dm%.ko}
    place "${dm//-/_}"
  done
  order+=("${modpath[$m]}")
}
for m in "${MODULES[@]}"; do place "$m"; done
mkdir -p "$root$moddir"
cp "$kroot$moddir"/modules.{builtin,builtin.modinfo,order} "$root$moddir/" 2>/dev/null || true
for p in "${order[@]}"; do install -D -m 0644 "$kroot$moddir/$p" "$root$moddir/$p"; done
depmod -b "$root" "$kver"
mkdir -p "$root/etc"
printf '%s\n' "${order[@]}" >"$root/etc/lab-modules"

log "installing busybox applets and the base files"
# Links only where no package installed the real tool (iproute2's ip and tc, not busybox's).
# Debian's dynamic busybox, not busybox-static: the static one's shell prefers its own applets
# to PATH, so `ip` and `tc` in any script would be busybox's.
while read -r applet; do
  [[ $applet == busybox || -z $applet ]] && continue
  found=0
  for d in bin sbin usr/bin usr/sbin; do [[ -e $root/$d/$applet || -L $root/$d/$applet ]] && found=1; done
  ((found)) || ln -s busybox "$root/bin/$applet"
done < <(qemu-"$ARCH"-static -L "$root" "$root/bin/busybox" --list)
[[ -e $root/bin/sh ]] || die "busybox applets were not installed (qemu-$ARCH-static missing?)"

# Every shared library a binary asks for must be in the image: a missing one is a build error
# here, not a "not found" on the router.
log "checking shared libraries"
mapfile -t libs < <(find "$root" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
  xargs -0 readelf -d 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u)
absent=()
for lib in "${libs[@]}"; do
  found=0
  for d in lib/mipsel-linux-gnu usr/lib/mipsel-linux-gnu lib usr/lib; do [[ -e $root/$d/$lib ]] && found=1; done
  ((found)) || absent+=("$lib")
done
((${#absent[@]} == 0)) || die "libraries missing from the image: ${absent[*]}"

log "packing the initramfs"
"$here/pack-initramfs.sh" "$root" "$work/initrd.cpio.gz" "$ARCH"
cp "$kroot/boot/vmlinuz-$kver" "$work/vmlinux"
mv -f "$work/initrd.cpio.gz" "$work/vmlinux" "$out/"

seconds=$(($(date +%s) - start))
root_kib=$(du -sk "$root" | cut -f1)
{
  printf '{\n  "arch": "%s",\n  "kernelVersion": "%s",\n  "kernelPackage": "%s %s",\n' "$ARCH" "$kver" "$kpkg" "$kversion"
  printf '  "buildSeconds": %d,\n  "rootBytes": %d,\n' "$seconds" $((root_kib * 1024))
  printf '  "modules": [%s],\n' "$(printf '"%s",' "${order[@]}" | sed 's/,$//')"
  printf '  "packages": {\n'
  awk '{ printf "%s    \"%s\": \"%s\"", (NR > 1 ? ",\n" : ""), $1, $2 } END { print "" }' "$work/versions"
  printf '  }\n}\n'
} >"$out/manifest.json"
log "done in ${seconds}s: $(du -h "$out/initrd.cpio.gz" | cut -f1) initrd, $(du -h "$out/vmlinux" | cut -f1) kernel, $((root_kib / 1024)) MiB unpacked"
