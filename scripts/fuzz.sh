#!/usr/bin/env bash
# Runs every fuzz target listed in scripts/fuzz-targets.txt ("package FuzzName"
# a line) for a short, fixed time each: `scripts/fuzz.sh 10s`.
set -euo pipefail
time=${1:-10s}
cd "$(dirname "$0")/.."
grep -v '^\s*#' scripts/fuzz-targets.txt | while read -r pkg target; do
  [ -z "${pkg:-}" ] && continue
  echo "fuzz: $pkg $target ($time)"
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" "$pkg"
done
