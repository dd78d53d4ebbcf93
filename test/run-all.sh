#!/usr/bin/env bash
# `npm test`: every check CI runs, in the order a failure is cheapest to read.
set -euo pipefail
cd "$(dirname "$0")/.."

bash test/system-deps.sh
[ -d node_modules ] || npm ci --no-audit --no-fund
[ -d prisma/generated/client ] || npm run -s db:generate

# The router lab's guest images (lab/images/; cached in ~/.cache/wrtfleet-lab): a cold build
# compiles a big-endian MIPS kernel, about 15 minutes of CPU. It starts now at the lowest
# priority, so it takes only what the checks and the suite leave idle; the lab tier waits for
# it (one build per image at a time: lab/image-cache.ts). Warm, it only finds both images.
lab_log=$(mktemp)
lab_rc=$(mktemp -u)
setsid bash -c 'nice -n 19 npm run -s lab -- build mipsel && nice -n 19 npm run -s lab -- build mips; echo $? >"$0"' "$lab_rc" >"$lab_log" 2>&1 &
lab_build=$!

# The checks before the tests are independent and each mostly single-threaded: they run side by
# side (CI has 2 cores), each into its own log, printed below in the order a failure is cheapest
# to read; every check runs to its end, and any failure fails the run before the tests.
logs=$(mktemp -d)
trap 'kill -- -"$lab_build" 2>/dev/null || true; rm -rf "$logs" "$lab_log" "$lab_rc"' EXIT
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
# One plain closing line that any CI reader understands, and the failed tests by name: they are
# printed again at the very end, since a CI log is often read from its tail.
main_summary=$(mktemp)
node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
  const lines=[`main tier: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : "")];
  for (const f of r.testResults) {
    const failed=f.assertionResults.filter((a)=>a.status==="failed");
    if (f.status==="failed" && failed.length===0) lines.push(`  FAIL ${f.name.replace(process.cwd()+"/","")}: ${(f.message||"").split("\n")[0]}`);
    for (const a of failed) lines.push(`  FAIL ${f.name.replace(process.cwd()+"/","")} > ${a.fullName}: ${(a.failureMessages[0]||"").split("\n")[0].slice(0,300)}`);
  }
  console.log(lines.join("\n"));' "$report" | tee "$main_summary" || echo "main tier: no report (vitest exit $status)" | tee "$main_summary"
rm -f "$report"

# The other supported Node lines (test/compat/run.sh) and the router lab (docs/LAB.md: real
# 32-bit MIPS kernels under QEMU, both guests side by side, one core each) run at the same time:
# the compatibility tier's Node processes fit beside the guests, and neither compares timings.
# Both run whatever the suite's outcome; either failing fails `npm test`. A guest that cannot be
# built or booted fails the lab tier with its build log or serial console.
lab_tier_log=$(mktemp)
(
  # The images' build (started at the top) ends by writing its exit status.
  while [ ! -s "$lab_rc" ] && kill -0 "$lab_build" 2>/dev/null; do sleep 5; done
  if [ "$(cat "$lab_rc" 2>/dev/null)" != 0 ]; then
    echo "the lab's image build failed (the tier tries once more):"
    tail -n 40 "$lab_log"
  fi
  npx vitest run --config vitest.lab.config.ts
) >"$lab_tier_log" 2>&1 &
lab_tier=$!
echo "== compatibility tier (test/compat/run.sh)"
compat=0
bash test/compat/run.sh || compat=$?
if [ "$status" = 0 ]; then status=$compat; fi

echo "== router lab tier (npm run test:lab)"
lab=0
wait "$lab_tier" || lab=$?
cat "$lab_tier_log"
rm -f "$lab_tier_log"
if [ "$status" = 0 ]; then status=$lab; fi
echo "== summary"
cat "$main_summary"
echo "compatibility tier: exit $compat"
echo "router lab tier: exit $lab"
rm -f "$main_summary"
exit "$status"
