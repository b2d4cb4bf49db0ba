#!/bin/sh
# kNN graphs of clustered Gaussian 32-d float32 pools,
# qvs exact, qvs approximate and FAISS HNSW (M = 32, efConstruction =
# efSearch = 64) on the same generated file, k = 20, in the same run.
#
#   scripts/knn-bench.sh                   sizes 10000 100000 1000000
#   SIZES="10000 100000" scripts/knn-bench.sh
#   EXACT_MAX=100000 ...                   skip qvs exact above this size
#   TIMEOUT=1800 ...                       stop any one build after this many s
#   QUALITY_ONLY=1 ...                     only the campaign comparison below
#   FP=1 SIZES="100000 1000000" ...        2,048-bit fingerprints instead (below)
#   NO_QUALITY=1 ...                       skip the campaign comparison
#
# FP=1: pools of clustered 2,048-bit fingerprints like folded ECFP4 ones
# (scripts/fp_pool.py: skewed bit popularity, scaffold families, series,
# ~5-15 % of bits set), packed as numpy.packbits writes them; `qvs as suggest
# --pool fps.npy --metric tanimoto --batch 5` timed twice (graph built, then
# from the cache), the recall@20 against brute-force Tanimoto being qvs's own
# (200 sampled rows); then FAISS's IndexBinaryHNSW (M = 32, efConstruction =
# efSearch = 64) on the same bytes as a speed reference only: it ranks by
# Hamming distance, not Tanimoto (its recall@20 is against the Tanimoto
# neighbours of 50 rows, NumPy brute force). No campaign comparison.
#
# Installs python3-faiss (and python3-numpy) with apt-get when missing
# (needs root); not part of `make test`. Pools: SIZES/1000 centres (at least
# 10) drawn N(0, 2^2) per axis (overlapping), unit Gaussian noise around them, seed 1.
# Each row: wall seconds, peak memory (max RSS) and recall@20. qvs's recall
# is the one it measures and prints (brute force on 200 sampled rows); FAISS's
# is measured here the same way (NumPy brute force on 200 rows drawn with
# seed 2, a neighbour found if within the exact 20th distance). qvs exact:
# `qvs graph --knn exact --out W.npz` whole (load, build, write). qvs
# approximate: `qvs as suggest --knn approx --batch 5` timed twice on the
# same pool: the first call builds the graph (cache cleared; the build's own
# time in brackets), the second reads it from the cache.
# Then the picks' quality: `qvs as` campaigns (qVS-AS q = 1, one-step;
# QREPEATS repeats, default 5, budget 100, batch 5) on a labelled pool of
# QN items (default 20000; 3 of its QN/1000 clusters 30 % positive, the
# rest 0.5 %) with the exact graph and with the approximate one (pool.csv.knn
# exact | approx), printed as the two campaigns' tables.
# Prints Markdown tables; every row has the 1-minute load average when it
# started and its CPU seconds (user + system) beside the wall time, and
# each size ends with the ratio of qvs's first call (graph built, first
# batch) to FAISS's build + search, both measured back to back on the same
# file (the machine is shared: compare rows of one run, not runs).
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
echo "| items | method | seconds | CPU seconds | load | peak memory | recall@20 |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
# measure CMD...: runs CMD under /usr/bin/time, prints wall s, max RSS MB,
# CPU s and the 1-minute load average at the start
measure() {
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f '%e %M %U %S' -o "$WORK/time" timeout "$TIMEOUT" "$@" >"$WORK/out" 2>"$WORK/err" || {
		echo "timeout - - $load"
		return
	}
	awk -v load="$load" '{printf "%s %.0f %.1f %s\n", $1, $2/1024, $3+$4, load}' "$WORK/time"
}
# row N METHOD RECALL WALL MB CPU LOAD: one table row
row() {
	echo "| $1 | $2 | $4 | $6 | $7 | ${5:+$5 MB} | $3 |"
}
# timed_row N LABEL RECALL CMD...: runs CMD under measure and prints its
# row (a timeout shows as "> TIMEOUT" seconds); RECALL starting with
# @stdout: what CMD printed (the FAISS scripts print their recall) and the
# rest; @stderr: the recall@20 qvs printed; " (graph X s)" is added to LABEL when qvs
# said it built the graph in X s. Sets wall to the wall seconds.
timed_row() {
	n=$1 label=$2 recall=$3
	shift 3
	# shellcheck disable=SC2046 # measure's fields are words
	set -- $(measure "$@")
	[ "$1" = timeout ] && set -- "> $TIMEOUT" "" "" "$4"
	wall=$1
	case $recall in
	@stdout*) recall="$(cat "$WORK/out")${recall#@stdout}" ;;
	@stderr) recall=$(sed -n 's/.*recall@20 \([0-9.]*\).*/\1/p' "$WORK/err") ;;
	esac
	built=$(sed -n 's/.*built in \([0-9.]*\) s.*/\1/p' "$WORK/err")
	row "$n" "$label${built:+ (graph $built s)}" "$recall" "$@"
}
# suggest_twice N LABEL "ARGS": \`qvs as suggest ARGS --batch 5\` with the
# cache cleared (the graph built: the time to the first batch) and again
# (the graph from the cache), one row each; qvsfirst is the first's wall s.
suggest_twice() {
	printf 'index,label\n0,1\n1,0\n' >"$WORK/observed.csv"
	rm -rf "$WORK/cache"
	for pass in first cached; do
		# shellcheck disable=SC2086 # ARGS are words
		timed_row "$1" "$2, $pass call" @stderr "$QVS" as suggest $3 --observed "$WORK/observed.csv" --batch 5 --cache-dir "$WORK/cache"
		if [ "$pass" = first ]; then qvsfirst=$wall; fi
	done
}
[ -n "${QUALITY_ONLY:-}" ] && SIZES=
if [ -n "${FP:-}" ]; then
	for n in $SIZES; do
		pool=$WORK/fp$n.npy
		$PY scripts/fp_pool.py "$n" "$pool"
		suggest_twice "$n" "qvs: \`as suggest --metric tanimoto --batch 5\`" "--pool $pool --metric tanimoto"
		timed_row "$n" "FAISS IndexBinaryHNSW (Hamming; speed reference only)" "@stdout (Tanimoto)" $PY - "$pool" <<'PYEOF'
import sys
import numpy as np
import faiss
x = np.load(sys.argv[1])
n, nbytes = x.shape
k = 20
index = faiss.IndexBinaryHNSW(8 * nbytes, 32)
index.hnsw.efConstruction = 64
index.add(x)
index.hnsw.efSearch = 64
D, I = index.search(x, k + 1)
pc = np.array([bin(v).count("1") for v in range(256)], dtype=np.int32)
count = pc[x].sum(axis=1)
rows = np.random.default_rng(2).choice(n, min(n, 50), replace=False)
found = 0
for i in rows:
    both = pc[x & x[i]].sum(axis=1)
    either = count + count[i] - both
    dist = 1 - np.where(either > 0, both / np.maximum(either, 1), 1.0)
    dist[i] = np.inf
    kth = np.partition(dist, k - 1)[k - 1]
    nb = [j for j in I[i] if j != i][:k]
    found += int((dist[nb] <= kth).sum())
print(found / (len(rows) * k))
PYEOF
	done
	exit 0
fi
for n in $SIZES; do
	pool=$WORK/pool$n.npy
	$PY - "$n" "$pool" <<'PYEOF'
import sys
import numpy as np
n, path = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(1)
centres = rng.normal(0, 2, (max(n // 1000, 10), 32))
# Written in chunks of 10^6 rows (10^7 rows would need 2.56 GB of float64
# at once); up to 10^6 rows the draws are those of one chunk.
out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, 32))
for a in range(0, n, 1_000_000):
    m = min(n - a, 1_000_000)
    x = centres[rng.integers(0, len(centres), m)]
    x += rng.normal(0, 1, (m, 32))
    out[a:a + m] = x.astype(np.float32)
out.flush()
PYEOF
	if [ "$n" -le "$EXACT_MAX" ]; then
		rm -rf "$WORK/cache"
		timed_row "$n" "qvs exact (\`qvs graph --knn exact\`)" 1 "$QVS" graph --pool "$pool" --k 20 --knn exact --out "$WORK/w.npz" --cache-dir "$WORK/cache"
	else
		echo "| $n | qvs exact | (skipped) | | | | |"
	fi
	# The approximate graph timed inside the first suggest call (cache
	# cleared): the time to the first batch; the second call reads the cache.
	suggest_twice "$n" "qvs approx: \`as suggest --knn approx --batch 5\`" "--pool $pool --knn approx"
	timed_row "$n" "FAISS HNSW (build + search all)" @stdout $PY - "$pool" <<'PYEOF'
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
	echo "| $n | qvs first batch / FAISS build + search | $(awk -v a="$qvsfirst" -v b="$wall" 'BEGIN { if (b + 0 > 0 && a + 0 > 0) printf "%.2f", a / b; else print "-" }') | | | | |"
done

[ -n "${NO_QUALITY:-}" ] && exit 0
QN=${QN:-20000}
QREPEATS=${QREPEATS:-5}
$PY - "$QN" "$WORK/labelled.csv" <<'PYEOF'
import sys
import numpy as np
n, path = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(3)
c = max(n // 1000, 10)
centres = rng.normal(0, 2, (c, 32))
which = rng.integers(0, c, n)
x = centres[which] + rng.normal(0, 1, (n, 32))
rate = np.where(which < 3, 0.3, 0.005)
y = (rng.random(n) < rate).astype(int)
with open(path, "w") as f:
    f.write("id," + ",".join(f"x{j}" for j in range(32)) + ",label\n")
    for i in range(n):
        f.write(f"c{i}," + ",".join(f"{v:.6g}" for v in x[i]) + f",{y[i]}\n")
PYEOF
for m in exact approx; do
	cat >"$WORK/quality-$m.yaml" <<YAML
task: quality-$m
pool:
  kind: csv
  csv:
    file: $WORK/labelled.csv
    id_column: id
    feature_prefix: x
    k: 20
    knn: $m
methods: [qvs, one-step]
q: ["1"]
repeats: $QREPEATS
budget: 100
batch: 5
YAML
	echo
	echo "qVS-AS and one-step on $QN labelled items, graph $m:"
	echo
	"$QVS" --config "$WORK/quality-$m.yaml" --quiet --cache-dir "$WORK/cache" as --out "$WORK/quality-$m"
	grep -h "knn" "$WORK/quality-$m/config.yaml" || echo "(config.yaml: no knn key: exact)"
done
