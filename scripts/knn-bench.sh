#!/bin/sh
# Issue 21's table: kNN graphs of clustered Gaussian 32-d float32 pools,
# qvs exact, qvs approximate and FAISS HNSW (M = 32, efConstruction =
# efSearch = 64) on the same generated file, k = 20, in the same run.
#
#   scripts/knn-bench.sh                   sizes 10000 100000 1000000
#   SIZES="10000 100000" scripts/knn-bench.sh
#   EXACT_MAX=100000 ...                   skip qvs exact above this size
#   TIMEOUT=1800 ...                       stop any one build after this many s
#
# Installs python3-faiss (and python3-numpy) with apt-get when missing
# (needs root); not part of `make test`. Pools: SIZES/1000 centres (at least
# 10) drawn N(0, 2^2) per axis (overlapping), unit Gaussian noise around them, seed 1.
# Each row: wall seconds, peak memory (max RSS) and recall@20. qvs's recall
# is the one it measures and prints (brute force on 200 sampled rows); FAISS's
# is measured here the same way (NumPy brute force on 200 rows drawn with
# seed 2, a neighbour found if within the exact 20th distance). qvs times
# are `qvs graph --knn exact|approx --out W.npz` whole (load, build, write);
# `qvs as suggest` is then timed twice on the same pool: the first call
# builds the graph (cache cleared), the second reads it from the cache.
# Prints a Markdown table; the load average is printed first (the machine
# is shared: compare rows of one run, not runs).
set -eu
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"10000 100000 1000000"}
EXACT_MAX=${EXACT_MAX:-1000000}
TIMEOUT=${TIMEOUT:-3600}
PY=/usr/bin/python3
if ! $PY -c 'import faiss, numpy' 2>/dev/null; then
	echo "knn-bench: installing python3-faiss python3-numpy" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-faiss python3-numpy >/dev/null
fi
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
go build -o "$WORK/qvs" .
QVS=$WORK/qvs
echo "load: $(uptime | sed 's/.*load average: //') ($(nproc) cores)"
echo
echo "| items | method | seconds | peak memory | recall@20 |"
echo "| ---: | --- | ---: | ---: | ---: |"
# row NAME N CMD...: runs CMD under /usr/bin/time, prints wall s and max RSS MB
measure() {
	/usr/bin/time -f '%e %M' -o "$WORK/time" timeout "$TIMEOUT" "$@" >"$WORK/out" 2>"$WORK/err" || {
		echo "timeout"
		return
	}
	awk '{printf "%s %.0f\n", $1, $2/1024}' "$WORK/time"
}
for n in $SIZES; do
	pool=$WORK/pool$n.npy
	$PY - "$n" "$pool" <<'PYEOF'
import sys
import numpy as np
n, path = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(1)
centres = rng.normal(0, 2, (max(n // 1000, 10), 32))
x = centres[rng.integers(0, len(centres), n)]
x += rng.normal(0, 1, (n, 32))
np.save(path, x.astype(np.float32))
PYEOF
	for m in exact approx; do
		if [ "$m" = exact ] && [ "$n" -gt "$EXACT_MAX" ]; then
			echo "| $n | qvs $m | (skipped) | | |"
			continue
		fi
		rm -rf "$WORK/cache"
		set -- $(measure "$QVS" graph --pool "$pool" --k 20 --knn $m --out "$WORK/w.npz" --cache-dir "$WORK/cache")
		recall=1
		[ "$m" = approx ] && recall=$(sed -n 's/.*recall@20 \([0-9.]*\).*/\1/p' "$WORK/err")
		[ "$1" = timeout ] && set -- "> $TIMEOUT" "" && recall=
		echo "| $n | qvs $m (\`qvs graph\`) | $1 | ${2:+$2 MB} | $recall |"
	done
	printf 'index,label\n0,1\n1,0\n' >"$WORK/observed.csv"
	rm -rf "$WORK/cache"
	for pass in first cached; do
		set -- $(measure "$QVS" as suggest --pool "$pool" --observed "$WORK/observed.csv" --batch 5 --cache-dir "$WORK/cache")
		echo "| $n | qvs \`as suggest --batch 5\`, $pass call | $1 | ${2:+$2 MB} | |"
	done
	set -- $(measure $PY - "$pool" <<'PYEOF'
import sys, time
import numpy as np
import faiss
x = np.load(sys.argv[1])
n, d = x.shape
k = 20
index = faiss.IndexHNSWFlat(d, 32)
index.hnsw.efConstruction = 64
index.add(x)
index.hnsw.efSearch = 64
D, I = index.search(x, k + 1)
rows = np.random.default_rng(2).choice(n, min(n, 200), replace=False)
found = 0
for i in rows:
    d2 = ((x - x[i]) ** 2).sum(axis=1)
    d2[i] = np.inf
    kth = np.partition(d2, k - 1)[k - 1]
    nb = [j for j in I[i] if j != i][:k]
    found += int((d2[nb] <= kth).sum())
print(found / (len(rows) * k))
PYEOF
)
	echo "| $n | FAISS HNSW (build + search all) | $1 | ${2:+$2 MB} | $(cat "$WORK/out") |"
done
