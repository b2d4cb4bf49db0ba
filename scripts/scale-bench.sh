#!/bin/sh
# scale-bench.sh: one round of a scored search at library scale, qvs
# (`qvs as suggest --observed scores.csv`, its defaults) beside a random
# forest's fit and prediction (scikit-learn), on the same synthetic
# fingerprints (scripts/fp_pool.py) and scores; prints each side's CPU
# seconds and peak resident memory (scripts/scale_bench.py). Not part of
# make test.
#
#   scripts/scale-bench.sh [--n 1000000] [--labelled 60000] [--batch 10000]
#       [--chunk 50000] [--methods qvs,forest] [--cache .cache/scale-bench]
#
# The library and scores are cached under .cache/scale-bench (256 MB at
# 10^6). Runtime at 10^6: the forest's fit and prediction dominate (1,250
# CPU-s, 35 min wall on the shared 2-core machine; qvs's round about 130
# CPU-s).
set -eu
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
if ! $PY -c "import sklearn" 2>/dev/null; then
	echo "scale-bench: installing python3-sklearn" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-sklearn >&2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/qvs" .
$PY scripts/scale_bench.py "$tmp/qvs" "$@"
