#!/usr/bin/env bash
# Builds the big-endian MIPS lab guest (issue 34, the router lab). Debian 12 has no
# big-endian mips port, so nothing can be unpacked from .debs: the kernel is cross-built
# from Debian's linux-source-6.1 (tinyconfig + mips-kernel.config, everything built in),
# and a static userland is cross-built from Debian's own source packages (busybox, dropbear,
# iproute2 and bpftool with libbpf, zlib and elfutils' libelf), all with gcc-mips-linux-gnu.
#
# Usage: mips.sh OUTDIR      build vmlinux, initrd.cpio.gz, rootfs/ and manifest.json into OUTDIR
#        mips.sh --inputs    print the pinned versions the image depends on (the cache key)
# WRTFLEET_LAB_WORK=DIR keeps the work tree in DIR and resumes finished stages (development).
set -euo pipefail

ARCH=mips
TARGET=mips-linux-gnu
# Debian source packages, pinned: the image is what these versions build. zlib is the
# bookworm release, not the security update (its source is not on every mirror).
SOURCES=(
  "busybox 1:1.35.0-4+deb12u1"
  "dropbear 2022.83-1+deb12u3"
  "iproute2 6.1.0-3"
  "elfutils 0.188-2.1"
  "zlib 1:1.2.13.dfsg-1"
)
HOST_PACKAGES=(linux-source-6.1 gcc-mips-linux-gnu libc6-dev-mips-cross flex bison bc
  libssl-dev libelf-dev zlib1g-dev cpio make dpkg-dev xz-utils bzip2 pkg-config m4 file)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${WRTFLEET_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wrtfleet-lab}
downloads=$cache/downloads/$ARCH-sources
jobs=$(nproc)

log() { printf '[%s %s] %s\n' "$ARCH" "$(date +%T)" "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

source_version() {
  local entry
  for entry in "${SOURCES[@]}"; do
    [[ ${entry%% *} == "$1" ]] && {
      echo "${entry#* }"
      return
    }
  done
  die "no pinned version for $1"
}

if [[ ${1:-} == --inputs ]]; then
  # The versions apt would install, not the installed ones: the build installs them, and the
  # key must be the same before the first build and after it.
  apt-cache show --no-all-versions linux-source-6.1 gcc-mips-linux-gnu |
    awk '/^Package: / { p = $2 } /^Version: / { print p, $2 }'
  printf '%s\n' "${SOURCES[@]}"
  exit 0
fi

out=${1:?usage: mips.sh OUTDIR | --inputs}
start=$(date +%s)
mkdir -p "$out" "$downloads"
out=$(cd "$out" && pwd)
if [[ -n ${WRTFLEET_LAB_WORK:-} ]]; then
  work=$WRTFLEET_LAB_WORK
  mkdir -p "$work"
else
  # The kernel build is metadata-heavy (tens of thousands of small files): on a tmpfs it is
  # CPU-bound rather than disk-bound. It needs about 2 GiB there.
  tmpbase=${TMPDIR:-/tmp}
  if [[ -z ${TMPDIR:-} && -d /dev/shm && $(df -Pk /dev/shm | awk 'NR == 2 { print $4 }') -gt 4194304 ]]; then
    tmpbase=/dev/shm
  fi
  work=$(mktemp -d "$tmpbase/wflab-$ARCH.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)
sysroot=$work/sysroot # the static cross libraries (zlib, libelf) the tools link
root=$work/root       # the guest's root filesystem
src=$work/src
mkdir -p "$sysroot"/{include,lib/pkgconfig} "$src" "$root"

# Sets cpu_now to the CPU seconds (user + system) the script's finished children used so
# far: unlike wall time, it does not grow when other work shares the host's cores. `times`
# must run in this shell (in a pipe or $(...) it would count a subshell's children).
cpu_now=0
children_cpu() {
  times >"$work/.times"
  cpu_now=$(awk 'NR == 2 {
    total = 0
    for (i = 1; i <= 2; i++) { split($i, t, "m"); total += t[1] * 60 + t[2] }
    printf "%d\n", total
  }' "$work/.times")
}

# A stage runs once per work tree; its wall and CPU seconds go into the manifest.
stage() {
  local name=$1 t0 cpu0
  shift
  if [[ -f $work/.done-$name ]]; then
    log "$name: already built in $work"
    return
  fi
  log "$name: building"
  t0=$(date +%s)
  children_cpu
  cpu0=$cpu_now
  "$@"
  children_cpu
  echo "$name $(($(date +%s) - t0)) $((cpu_now - cpu0))" >>"$work/times"
  touch "$work/.done-$name"
  log "$name: done in $(($(date +%s) - t0))s ($((cpu_now - cpu0)) CPU seconds)"
}

ensure_host_tools() {
  local missing=() p
  for p in "${HOST_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "installing host packages: ${missing[*]}"
    apt-get install -y --no-install-recommends "${missing[@]}" >&2
  fi
  # Source packages need a deb-src entry; Debian's images ship only binary ones.
  if [[ -z $(apt-cache showsrc busybox 2>/dev/null | head -n1) ]]; then
    log "adding Debian's deb-src entries to apt"
    local list=/etc/apt/sources.list.d/wrtfleet-lab-deb-src.sources
    cat >"$list" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt-get update >&2
  fi
}

# Unpacks source package NAME (Debian patches applied) into $src/NAME, downloading the
# pinned version into the cache first.
unpack_source() {
  local name=$1 version dsc
  version=$(source_version "$name")
  dsc=$downloads/${name}_${version#*:}.dsc
  if [[ ! -f $dsc ]]; then
    log "downloading the $name $version source"
    (cd "$downloads" && apt-get source -o APT::Sandbox::User=root --download-only "$name=$version" >&2) ||
      die "cannot download the $name $version source package"
  fi
  rm -rf "${src:?}/$name"
  dpkg-source --no-check -x "$dsc" "$src/$name" >/dev/null
}

build_kernel() {
  local ksrc=$src/linux kbuild=$work/kbuild missing=()
  rm -rf "$ksrc" "$kbuild"
  mkdir -p "$ksrc" "$kbuild"
  tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$ksrc" --strip-components=1
  local kmake=(make -C "$ksrc" O="$kbuild" ARCH=mips CROSS_COMPILE="$TARGET-")
  "${kmake[@]}" tinyconfig >/dev/null
  "$ksrc/scripts/kconfig/merge_config.sh" -m -O "$kbuild" "$kbuild/.config" "$here/mips-kernel.config" >/dev/null
  "${kmake[@]}" olddefconfig >/dev/null
  # olddefconfig drops an option whose dependencies are unmet without a word: check each.
  local line opt
  while read -r line; do
    grep -qx "$line" "$kbuild/.config" || missing+=("$line")
  done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$here/mips-kernel.config")
  while read -r opt; do
    grep -q "^$opt=" "$kbuild/.config" && missing+=("# $opt is not set")
  done < <(sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p' "$here/mips-kernel.config")
  ((${#missing[@]} == 0)) || die "kernel options lost by olddefconfig: ${missing[*]}"
  "${kmake[@]}" -j"$jobs" vmlinux >"$work/kernel-build.log" 2>&1 || {
    tail -n 30 "$work/kernel-build.log" >&2
    die "kernel build failed (log: $work/kernel-build.log)"
  }
  "${kmake[@]}" -s kernelrelease >"$work/kernel-release"
  cp "$kbuild/vmlinux" "$work/vmlinux"
  "$TARGET-strip" "$work/vmlinux"
}

build_zlib() {
  unpack_source zlib
  cd "$src/zlib"
  CHOST=$TARGET CFLAGS="-O2" ./configure --static --prefix="$sysroot" >/dev/null
  make -j"$jobs" libz.a >/dev/null
  make install >/dev/null
}

# Only libelf: bpftool's libbpf and tc's ELF loader need nothing else from elfutils.
build_libelf() {
  unpack_source elfutils
  cd "$src/elfutils"
  ./configure --host="$TARGET" --prefix="$sysroot" --disable-debuginfod --disable-libdebuginfod \
    --disable-nls --without-bzlib --without-lzma --without-zstd --disable-demangler \
    CFLAGS="-O2 -I$sysroot/include" LDFLAGS="-L$sysroot/lib" >/dev/null
  make -C lib -j"$jobs" >/dev/null
  make -C libelf -j"$jobs" libelf.a >/dev/null
  install -m 0644 libelf/libelf.a "$sysroot/lib/"
  install -m 0644 libelf/libelf.h libelf/gelf.h libelf/nlist.h "$sysroot/include/"
  cat >"$sysroot/lib/pkgconfig/libelf.pc" <<EOF
Name: libelf
Description: elfutils libelf, static, for $TARGET
Version: 0.188
Cflags: -I$sysroot/include
Libs: -L$sysroot/lib -lelf -lz
EOF
}

build_busybox() {
  unpack_source busybox
  cd "$src/busybox"
  local bmake=(make CROSS_COMPILER_PREFIX="$TARGET-" CROSS_COMPILE="$TARGET-")
  # Busybox's old kconfig ignores KCONFIG_ALLCONFIG: set the lines, then let oldconfig settle.
  "${bmake[@]}" allnoconfig >/dev/null
  local syms
  syms=$(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=.*/\1/p' "$here/mips/busybox.config" | paste -sd'|')
  grep -Ev "^(# )?($syms)( is not set|=)" .config >.config.new
  grep -E '^CONFIG_[A-Z0-9_]+=' "$here/mips/busybox.config" >>.config.new
  mv .config.new .config
  "${bmake[@]}" oldconfig < <(yes '') >/dev/null
  local line missing=()
  while read -r line; do
    grep -qx "$line" .config || missing+=("$line")
  done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$here/mips/busybox.config")
  ((${#missing[@]} == 0)) || die "busybox options lost by its config: ${missing[*]}"
  "${bmake[@]}" -j"$jobs" busybox >"$work/busybox-build.log" 2>&1 || {
    tail -n 30 "$work/busybox-build.log" >&2
    die "busybox build failed"
  }
  "${bmake[@]}" busybox.links >/dev/null
  install -D -m 0755 busybox "$root/bin/busybox"
  local link dir
  while read -r link; do
    dir=$root$(dirname "$link")
    mkdir -p "$dir"
    [[ -e $root$link ]] || ln -s "$(realpath --relative-to="$dir" "$root/bin/busybox")" "$root$link"
  done <busybox.links
}

build_dropbear() {
  unpack_source dropbear
  cd "$src/dropbear"
  ./configure --host="$TARGET" --enable-static --disable-zlib --disable-pam \
    --disable-lastlog --disable-utmp --disable-utmpx --disable-wtmp --disable-wtmpx \
    --disable-pututline --disable-pututxline CFLAGS="-O2" >/dev/null
  cp "$here/mips/dropbear-localoptions.h" localoptions.h
  patch -p1 --quiet <"$here/mips/dropbear-accept-s.patch"
  make -j"$jobs" PROGRAMS="dropbear dropbearkey scp" MULTI=1 STATIC=1 >"$work/dropbear-build.log" 2>&1 || {
    tail -n 30 "$work/dropbear-build.log" >&2
    die "dropbear build failed"
  }
  install -D -m 0755 dropbearmulti "$root/usr/sbin/dropbearmulti"
  ln -sf dropbearmulti "$root/usr/sbin/dropbear"
  ln -sf dropbearmulti "$root/usr/sbin/dropbearkey"
  mkdir -p "$root/usr/bin"
  ln -sf ../sbin/dropbearmulti "$root/usr/bin/scp"
}

# The libbpf the kernel tree vendors (v1.1), static, for tc: with it `tc ... bpf obj FILE.o`
# loads objects built for libbpf (.maps, .rodata), as Debian's tc on the mipsel guest does.
build_libbpf() {
  local dir=$src/linux/tools/lib/bpf objdir=$work/libbpf-build/
  mkdir -p "$objdir"
  local lmake=(make -C "$dir" CROSS_COMPILE="$TARGET-" ARCH=mips OUTPUT="$objdir")
  "${lmake[@]}" -j"$jobs" EXTRA_CFLAGS="-O2 -I$sysroot/include" "${objdir}libbpf.a" >"$work/libbpf-build.log" 2>&1 || {
    tail -n 30 "$work/libbpf-build.log" >&2
    die "libbpf build failed"
  }
  "${lmake[@]}" DESTDIR="$sysroot" prefix=/ install_headers >>"$work/libbpf-build.log" 2>&1
  install -m 0644 "${objdir}libbpf.a" "$sysroot/lib/"
  local major minor
  major=$(sed -n 's/^#define LIBBPF_MAJOR_VERSION \([0-9]*\)/\1/p' "$dir/libbpf_version.h")
  minor=$(sed -n 's/^#define LIBBPF_MINOR_VERSION \([0-9]*\)/\1/p' "$dir/libbpf_version.h")
  cat >"$sysroot/lib/pkgconfig/libbpf.pc" <<EOF
Name: libbpf
Description: the kernel tree's libbpf, static, for $TARGET
Version: $major.$minor.0
Cflags: -I$sysroot/include
Libs: -L$sysroot/lib -lbpf -lelf -lz
EOF
}

# tc's `bpf ... object-pinned PATH` would need neither libelf nor libbpf (bpf_obj_pinned in
# lib/bpf_legacy.c is outside HAVE_ELF); `bpf obj FILE.o` needs libbpf for today's objects.
build_iproute2() {
  unpack_source iproute2
  cd "$src/iproute2"
  CC="$TARGET-gcc" AR="$TARGET-ar" PKG_CONFIG_LIBDIR="$sysroot/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="" \
    ./configure --libbpf_force on >"$work/iproute2-configure.log"
  grep -q 'ELF support: yes' "$work/iproute2-configure.log" || die "iproute2 configure found no libelf"
  grep -q 'libbpf support: yes' "$work/iproute2-configure.log" || die "iproute2 configure found no libbpf"
  make -j"$jobs" CC="$TARGET-gcc" AR="$TARGET-ar" SHARED_LIBS=n LDFLAGS="-static" \
    SUBDIRS="lib ip tc" >"$work/iproute2-build.log" 2>&1 || {
    tail -n 30 "$work/iproute2-build.log" >&2
    die "iproute2 build failed"
  }
  install -D -m 0755 ip/ip "$root/usr/sbin/ip"
  install -D -m 0755 tc/tc "$root/usr/sbin/tc"
}

# bpftool from the kernel tree it belongs to, with the libbpf it vendors. No BPF skeletons
# (`prog show`'s PID column, `prog profile`): the host's clang would build them little-endian
# against the host kernel's BTF, and this kernel has no BTF for them anyway.
build_bpftool() {
  local dir=$src/linux/tools/bpf/bpftool
  make -C "$dir" -j"$jobs" ARCH=mips CROSS_COMPILE="$TARGET-" \
    EXTRA_CFLAGS="-I$sysroot/include" EXTRA_LDFLAGS="-static -L$sysroot/lib" \
    feature-libbfd=0 feature-libcap=0 feature-llvm=0 feature-clang-bpf-co-re=0 >"$work/bpftool-build.log" 2>&1 || {
    tail -n 30 "$work/bpftool-build.log" >&2
    die "bpftool build failed"
  }
  install -D -m 0755 "$dir/bpftool" "$root/usr/sbin/bpftool"
}

finish_root() {
  # Every driver is built into the kernel: /init has no module to load.
  mkdir -p "$root/etc"
  : >"$root/etc/lab-modules"
  find "$root" -type f -perm -u+x -exec sh -c 'file -b "$1" | grep -q "^ELF" && '"$TARGET"'-strip "$1"' _ {} \;
}

pack() {
  # A userland binary that is not a static big-endian MIPS executable would fail only on the router.
  local f
  while read -r f; do
    file -b "$f" | grep -q 'ELF 32-bit MSB executable, MIPS.*statically linked' ||
      die "not a static big-endian MIPS executable: $f ($(file -b "$f"))"
  done < <(find "$root" -type f -perm -u+x ! -name init)
  "$here/pack-initramfs.sh" "$root" "$work/initrd.cpio.gz" "$ARCH"
}

ensure_host_tools
stage kernel build_kernel
stage zlib build_zlib
stage libelf build_libelf
stage libbpf build_libbpf
stage busybox build_busybox
stage dropbear build_dropbear
stage iproute2 build_iproute2
stage bpftool build_bpftool
finish_root
pack

rm -rf "$out/rootfs"
cp -a "$root" "$out/rootfs"
cp "$work/vmlinux" "$work/initrd.cpio.gz" "$out/"

seconds=$(($(date +%s) - start))
size() { stat -c %s "$1"; }
{
  printf '{\n  "arch": "%s",\n  "kernelVersion": "%s",\n' "$ARCH" "$(cat "$work/kernel-release")"
  printf '  "kernelSource": "linux-source-6.1 %s",\n' "$(dpkg-query -W -f='${Version}' linux-source-6.1)"
  printf '  "compiler": "%s",\n' "$("$TARGET-gcc" --version | head -n1)"
  printf '  "buildSeconds": %d,\n' "$seconds"
  printf '  "stageSeconds": {%s},\n' "$(awk '{ printf "%s\"%s\": %d", (NR > 1 ? ", " : ""), $1, $2 }' "$work/times")"
  printf '  "stageCpuSeconds": {%s},\n' "$(awk '{ printf "%s\"%s\": %d", (NR > 1 ? ", " : ""), $1, $3 }' "$work/times")"
  printf '  "sizes": {"vmlinux": %d, "initrd": %d},\n  "rootBytes": %d,\n' \
    "$(size "$out/vmlinux")" "$(size "$out/initrd.cpio.gz")" "$(($(du -sk "$root" | cut -f1) * 1024))"
  printf '  "binarySizes": {"busybox": %d, "dropbearmulti": %d, "ip": %d, "tc": %d, "bpftool": %d},\n' \
    "$(size "$root/bin/busybox")" "$(size "$root/usr/sbin/dropbearmulti")" "$(size "$root/usr/sbin/ip")" \
    "$(size "$root/usr/sbin/tc")" "$(size "$root/usr/sbin/bpftool")"
  printf '  "sources": {\n'
  printf '%s\n' "${SOURCES[@]}" | awk '{ printf "%s    \"%s\": \"%s\"", (NR > 1 ? ",\n" : ""), $1, $2 } END { print "" }'
  printf '  }\n}\n'
} >"$out/manifest.json"
log "done in ${seconds}s: $(du -h "$out/initrd.cpio.gz" | cut -f1) initrd, $(du -h "$out/vmlinux" | cut -f1) kernel"
