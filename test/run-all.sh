#!/usr/bin/env bash
# `npm test`: every check CI runs, in the order a failure is cheapest to read.
set -euo pipefail
cd "$(dirname "$0")/.."

bash test/system-deps.sh
[ -d node_modules ] || npm ci --no-audit --no-fund
[ -d prisma/generated/client ] || npm run -s db:generate

echo "== format (Prettier)";    npm run -s format:check
if [ -f bpf/format.sh ]; then
  echo "== format (clang-format, bpf/)"; bash bpf/format.sh --check
fi
echo "== lint (ESLint)";         npm run -s lint
echo "== typecheck";            npm run -s typecheck
echo "== proto is up to date";   npm run -s proto:check
echo "== console API types are up to date"; npm run -s web:api:check
if [ -f bpf/build.sh ]; then
  echo "== BPF objects (bpfel, bpfeb)"; npm run -s bpf:build
fi
echo "== tests"
report=$(mktemp)
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
# One plain closing line that any CI reader understands.
node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));' "$report" || true
rm -f "$report"
exit "$status"
