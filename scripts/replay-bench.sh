#!/bin/sh
# `qvs bayesopt suggest --space` on long evaluation files: the time to
# replay an n-row history (no iteration or region column, so suggest groups
# the rows into iterations and places each in a trust region itself) and
# ask for the next batch of 4 (qvs, the command's defaults, one failed row).
# The rows are those of BenchmarkSuggestReplay
# (internal/bayesopt/space/replay_bench_test.go): row i is
# ((7919 i mod 10007)/10007, (104729 i mod 10009)/1000.9), value
# (37 i mod 101)/101, row 5 failed.
#
#   scripts/replay-bench.sh                 sizes 2000 10000 200000
#   SIZES="2000 10000" scripts/replay-bench.sh
#
# Prints, per size, the wall time and the CPU time (user + system) of the
# command, and the load average. Not part of make test.
set -eu
cd "$(dirname "$0")/.."
SIZES=${SIZES:-2000 10000 200000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/qvs" .
printf 'parameters:\n  - {name: a, lower: 0, upper: 1}\n  - {name: b, lower: 0, upper: 10}\n' >"$tmp/space.yaml"
echo "| rows | wall (s) | CPU (s) |"
echo "|---:|---:|---:|"
for n in $SIZES; do
	awk -v n="$n" 'BEGIN {
		print "a,b,value"
		for (i = 0; i < n; i++) {
			v = (i == 5) ? "failed" : sprintf("%.17g", ((i * 37) % 101) / 101)
			printf "%.17g,%.17g,%s\n", ((i * 7919) % 10007) / 10007, ((i * 104729) % 10009) / 1000.9, v
		}
	}' >"$tmp/obs.csv"
	/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$tmp/qvs" bayesopt suggest --space "$tmp/space.yaml" \
		--observed "$tmp/obs.csv" --batch 4 --workers 1 >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	read -r wall user sys <"$tmp/time"
	echo "| $n | $wall | $(echo "$user + $sys" | bc) |"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
