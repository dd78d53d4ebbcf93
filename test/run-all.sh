#!/usr/bin/env bash
# `npm test`: every check CI runs, in the order a failure is cheapest to read.
set -euo pipefail
cd "$(dirname "$0")/.."

bash test/system-deps.sh
[ -d node_modules ] || npm ci --no-audit --no-fund
[ -d prisma/generated/client ] || npm run -s db:generate

# The checks before the tests are independent and each mostly single-threaded: they run side by
# side (CI has 2 cores), each into its own log, printed below in the order a failure is cheapest
# to read; every check runs to its end, and any failure fails the run before the tests.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
names=()
pids=()
check() { # <title> <command...>
  names+=("$1")
  shift
  "$@" >"$logs/${#names[@]}" 2>&1 &
  pids+=($!)
}
check "format (Prettier)" npm run -s format:check
if [ -f bpf/format.sh ]; then
  check "format (clang-format, bpf/)" bash bpf/format.sh --check
fi
check "lint (ESLint)" npm run -s lint
check "typecheck" npm run -s typecheck
check "proto is up to date" npm run -s proto:check
check "console API types are up to date" npm run -s web:api:check
if [ -f bpf/build.sh ]; then
  check "BPF objects (bpfel, bpfeb)" npm run -s bpf:build
fi
failed=()
for i in "${!names[@]}"; do
  rc=0
  wait "${pids[$i]}" || rc=$?
  echo "== ${names[$i]}"
  cat "$logs/$((i + 1))"
  if [ "$rc" != 0 ]; then failed+=("${names[$i]}"); fi
done
if ((${#failed[@]})); then
  printf '== failed: %s\n' "${failed[@]}" >&2
  exit 1
fi

echo "== tests"
report=$(mktemp)
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
# One plain closing line that any CI reader understands.
node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));' "$report" || true
rm -f "$report"

# The other supported Node lines, each on its own node (test/compat/run.sh); it runs whatever the
# suite's outcome, and either failing fails `npm test`.
echo "== compatibility tier (test/compat/run.sh)"
compat=0
bash test/compat/run.sh || compat=$?
if [ "$status" = 0 ]; then status=$compat; fi
exit "$status"
