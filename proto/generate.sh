#!/usr/bin/env bash
# Generates the TypeScript of the agent contract (proto/gen/) with buf and ts-proto, offline.
# With --check, generates into a scratch folder and fails when the committed code is stale.
set -euo pipefail
cd "$(dirname "$0")"
buf=../node_modules/.bin/buf
if [[ "${1:-}" == "--check" ]]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  "$buf" generate --template buf.gen.yaml -o "$scratch"
  if ! diff -r "$scratch/gen" gen >/dev/null 2>&1; then
    echo "proto/gen is stale: run 'npm run proto:gen' and commit the result" >&2
    diff -r "$scratch/gen" gen | head -20 >&2 || true
    exit 1
  fi
  echo "proto/gen is up to date"
else
  rm -rf gen
  "$buf" generate --template buf.gen.yaml
  echo "generated proto/gen"
fi
