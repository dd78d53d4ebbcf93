#!/usr/bin/env bash
# Formats the BPF programs, their headers, the wf-tcx helper and the bench's and tests' BPF sources with
# bpf/.clang-format (clang-format 14). --check changes nothing and fails if a file is not formatted.
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
STYLE=(--style=file:bpf/.clang-format)
shopt -s nullglob globstar
FILES=()
for f in bpf/**/*.c bpf/**/*.h bench/datapath/*.bpf.c test/e2e/datapath/*.bpf.c; do
  [[ $f == bpf/build/* ]] || FILES+=("$f")
done

case "${1:-}" in
  --check)
    "$CLANG_FORMAT" "${STYLE[@]}" --dry-run -Werror "${FILES[@]}"
    echo "bpf: ${#FILES[@]} files are formatted"
    ;;
  '')
    "$CLANG_FORMAT" "${STYLE[@]}" -i "${FILES[@]}"
    ;;
  *)
    echo "usage: bpf/format.sh [--check]" >&2
    exit 2
    ;;
esac
