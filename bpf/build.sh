#!/usr/bin/env bash
# Builds the four TC egress programs for both byte orders and the wf-tcx helper.
#   bpf/build/bpfel/<program>.o   little-endian BPF (x86_64, aarch64, ramips/mt7621 mipsel)
#   bpf/build/bpfeb/<program>.o   big-endian BPF (ath79/QCA9558 mips)
#   bpf/build/wf-tcx              helper for the build host
#   bpf/build/<arch>/wf-tcx       the helper cross-built, static, for routers' CPUs: mipsel (ramips,
#                                 MT7621), mips (ath79, QCA9558; big-endian), aarch64 (filogic, IPQ807x).
#                                 Needs Debian's gcc-<triple> and libc6-dev-<arch>-cross (test/system-deps.sh
#                                 installs them); WF_CROSS=0 skips them.
# Idempotent: outputs are rebuilt into a temp file and replaced only when they differ.
set -euo pipefail
cd "$(dirname "$0")"

CLANG=${CLANG:-clang}
CC=${CC:-cc}
OUT=build
PROGRAMS=(set_ip_id_zero set_ip_ttl set_tcp_syn_window clear_tcp_syn_ts wf_chain)
# asm/types.h lives in the multiarch dir on Debian; harmless elsewhere.
MULTIARCH_INC=/usr/include/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
# -mcpu=v2: ALU32 + JMP32, kernel >= 5.1 (OpenWrt 23.05 ships 5.15); -g: BTF, so
# `bpftool map dump` prints the counters by field name.
CFLAGS=(-O2 -g -mcpu=v2 -Wall -Werror -Iinclude -I"$MULTIARCH_INC")

replace_if_changed() { # tmp final
  if [[ -f "$2" ]] && cmp -s "$1" "$2"; then rm -f "$1"; else mv -f "$1" "$2"; fi
}

for endian in bpfel bpfeb; do
  mkdir -p "$OUT/$endian"
  for p in "${PROGRAMS[@]}"; do
    tmp="$OUT/$endian/.$p.o.tmp"
    "$CLANG" "${CFLAGS[@]}" -target "$endian" -c "$p.bpf.c" -o "$tmp"
    replace_if_changed "$tmp" "$OUT/$endian/$p.o"
  done
done

tmp="$OUT/.wf-tcx.tmp"
"$CC" -O2 -Wall -Werror -o "$tmp" tcx-helper/wf-tcx.c
replace_if_changed "$tmp" "$OUT/wf-tcx"
chmod 0755 "$OUT/wf-tcx"

# Static (routers run musl, not this glibc) and stripped (each is ~0.6 MB, the bundle carries
# all three). -Os: the helper makes a few syscalls per run; size matters more on flash.
CROSS=(mipsel:mipsel-linux-gnu mips:mips-linux-gnu aarch64:aarch64-linux-gnu)
built_cross=()
if [[ "${WF_CROSS:-1}" != 0 ]]; then
  for entry in "${CROSS[@]}"; do
    arch=${entry%%:*} triple=${entry#*:}
    if ! command -v "$triple-gcc" >/dev/null; then
      echo "bpf: $triple-gcc is missing: wf-tcx for $arch routers not built (apt install gcc-$triple)" >&2
      exit 1
    fi
    mkdir -p "$OUT/$arch"
    tmp="$OUT/$arch/.wf-tcx.tmp"
    "$triple-gcc" -static -Os -s -Wall -Werror -o "$tmp" tcx-helper/wf-tcx.c
    replace_if_changed "$tmp" "$OUT/$arch/wf-tcx"
    chmod 0755 "$OUT/$arch/wf-tcx"
    built_cross+=("$arch")
  done
fi

echo "bpf: built ${#PROGRAMS[@]} programs x {bpfel,bpfeb}, wf-tcx, and wf-tcx for ${built_cross[*]:-no router CPU} in bpf/$OUT"
