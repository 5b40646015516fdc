#!/usr/bin/env bash
# Compares the main benchmarks of a reference commit with the working tree
# on this machine (docs/performance.md, "Comparing with a reference
# commit"). Each benchmark package's test binary is built from both trees
# (the reference's files come from `git archive`, so the checkout and its
# worktrees are left alone); the binaries then run interleaved, COUNT times
# each: reference and working tree alternate, and so does which of the two
# goes first in a round, so that a change in the machine's load falls on
# both. Each run's load average is printed and kept. The comparison is
# benchstat's (golang.org/x/perf), run with `go run` at the version below:
# nothing is installed.
#
# Usage: scripts/bench-compare.sh REF   (a commit, branch or tag)
#   COUNT  runs of each benchmark on each side (default 6; benchstat wants
#          at least 6 for a confidence interval)
#   BENCH  the benchmarks to run, by the names of the table below
#          (default: all of them), e.g. BENCH="csv plan"
#   OUT    directory for the raw results ref.txt, new.txt and load.txt
#          (default: a new temporary directory, named at the end)
set -euo pipefail
ref=${1:?usage: scripts/bench-compare.sh REF (a commit, branch or tag)}
count=${COUNT:-6}
GO=${GO:-go}
benchstat=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
# The main benchmarks, one a line: name, package, -bench regexp, -benchtime.
table='
csv      ./source/csvfile  ^BenchmarkRead1M                2x
expr     ./source/expr     ^BenchmarkRun$                  1s
merge    ./source          ^BenchmarkMerge1M$              3x
plan     ./reconcile       ^BenchmarkDiffAndBatches1M$     3x
listing  ./target/umapi    ^BenchmarkDecodeOrgListing$     1x
okta     ./source/okta     ^BenchmarkRead100k(Expressions)?$  5x
entra    ./source/entra    ^BenchmarkRead100k(Expressions)?$  5x
google   ./source/google   ^BenchmarkRead100k(Expressions)?$  3x
'
root=$(git rev-parse --show-toplevel)
commit=$(git -C "$root" rev-parse --verify --quiet "$ref^{commit}") ||
  { echo "bench-compare: $ref is not a commit of this repository" >&2; exit 2; }
selected=${BENCH:-$(awk 'NF {print $1}' <<<"$table")}
for name in $selected; do
  awk -v n="$name" '$1 == n {found=1} END {exit !found}' <<<"$table" ||
    { echo "bench-compare: no benchmark named $name (use: $(awk 'NF {printf "%s ", $1}' <<<"$table"))" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${OUT:-$(mktemp -d)}
mkdir -p "$out" "$work/ref" "$work/bin"
: >"$out/ref.txt"; : >"$out/new.txt"; : >"$out/load.txt"
git -C "$root" archive "$commit" | tar -x -C "$work/ref"
echo "bench-compare: reference $ref ($(git -C "$root" log -1 --format='%h %cs' "$commit")) against the working tree of $(git -C "$root" log -1 --format=%h HEAD); load $(cut -d' ' -f1-3 /proc/loadavg)"

# build side name pkg: the test binary of pkg in side's tree; a package the
# tree lacks, or that does not build there, is left out of that side.
build() {
  local side=$1 name=$2 pkg=$3 tree=$root
  [ "$side" = ref ] && tree=$work/ref
  if [ ! -d "$tree/$pkg" ] || ! (cd "$tree" && $GO test -c -o "$work/bin/$side-$name.test" "$pkg" 2>"$work/build.log"); then
    echo "bench-compare: $name ($pkg) does not build in the $side tree; left out:" >&2
    sed 's/^/  /' "$work/build.log" >&2
  fi
}
for name in $selected; do
  read -r _ pkg _ _ < <(awk -v n="$name" '$1 == n' <<<"$table")
  build ref "$name" "$pkg"
  build new "$name" "$pkg"
done

# run side name: one run of benchmark name on side, appended to side.txt.
run() {
  local side=$1 name=$2 bin=$work/bin/$1-$2.test tree=$root pkg re bt load
  [ -x "$bin" ] || return 0
  [ "$side" = ref ] && tree=$work/ref
  read -r _ pkg re bt < <(awk -v n="$name" '$1 == n' <<<"$table")
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "$(date +%T) $side $name load $load" | tee -a "$out/load.txt"
  (cd "$tree/$pkg" && "$bin" -test.run '^$' -test.bench "$re" -test.benchtime "$bt" -test.benchmem -test.count 1) >>"$out/$side.txt"
}
for round in $(seq 1 "$count"); do
  for name in $selected; do
    if ((round % 2)); then run ref "$name"; run new "$name"; else run new "$name"; run ref "$name"; fi
  done
done

echo
echo "load average (1 min) over the runs: $(awk '{print $5}' "$out/load.txt" | sort -n | sed -n '1p;$p' | paste -sd- -)"
(cd "$root" && $GO run "$benchstat" ref="$out/ref.txt" new="$out/new.txt")
echo "raw results: $out/ref.txt and $out/new.txt (benchstat them again with other options), loads: $out/load.txt"
