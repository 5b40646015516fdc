#!/usr/bin/env bash
# Runs every fuzz target listed in scripts/fuzz-targets.txt ("package FuzzName"
# a line) for a short, fixed amount of work each: `scripts/fuzz.sh 100000x`.
# The default is a count of executions, not a duration: with a duration, Go
# 1.26's fuzz coordinator can report "context deadline exceeded" as a failure
# when the time runs out (golang/go#75804, fixed in Go 1.27), with no crasher.
set -euo pipefail
time=${1:-100000x}
cd "$(dirname "$0")/.."
grep -v '^\s*#' scripts/fuzz-targets.txt | while read -r pkg target; do
  [ -z "${pkg:-}" ] && continue
  echo "fuzz: $pkg $target ($time)"
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" "$pkg"
done
