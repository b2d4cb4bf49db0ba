#!/bin/sh
# NumPy and qvs measured side by side on the same inputs,
# qvs built pure Go (the `go install` default) and with the OpenBLAS backend
# (-tags openblas), and optionally a baseline revision for "before".
#
#   scripts/perf-compare.sh                  NumPy, pure Go, OpenBLAS
#   BASE=REV scripts/perf-compare.sh         plus qvs built at revision REV
#   SKIP_NUMPY_GREEDY=1 ...                  skip NumPy's greedy (about 15 s)
#   SKIP_AS=1 ...                            skip the photoswitch qVS-AS row
#   ONLY_AS=1 ...                            the photoswitch qVS-AS row alone
#
# The last row is a photoswitch qVS-AS campaign: one run at q = 1,
# budget 100, batch 5, ties by index, from configs/photoswitch.yaml (the
# data under QVS_DATA_DIR, default ../shared/data; the row is skipped
# without it), the kNN graph read from a cache warmed by one untimed run,
# against the same loop in NumPy (Tanimoto kNN graph from the CSV, kNN
# model, exact greedy with a batched eigvalsh over the candidates linked to
# the chosen set, from qvs's start), its queries checked equal to qvs's;
# NumPy runs twice, with OpenBLAS's default threads and with one.
#
# Needs python3 with numpy (Debian: python3-numpy) for the inputs and the
# NumPy side, /usr/bin/time for memory, and libopenblas-dev liblapacke-dev
# for the OpenBLAS build (skipped when missing). Inputs are generated with a
# fixed seed in a temporary folder (removed at the end; WORK=dir keeps them).
# Prints a Markdown table: wall and CPU seconds and peak memory (max RSS),
# each qvs row's output checked equal (to 1e-6) across builds and NumPy.
# The machine's load average is printed first: the numbers mean something
# only on an idle machine.
set -eu
cd "$(dirname "$0")/.."

# The first python3 that has numpy (a pyenv shim may hide Debian's).
PY=
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then
		PY=$p
		break
	fi
done
[ -n "$PY" ] || {
	echo "perf-compare: needs python3 with numpy (apt-get install python3-numpy; or PYTHON=...)" >&2
	exit 1
}
KEEP=${WORK:-}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(date -u +%Y-%m-%dT%H:%MZ); NumPy $("$PY" -c 'import numpy; print(numpy.__version__)')"

# --- builds ---------------------------------------------------------------
go build -o "$WORK/qvs-go" .
BUILDS="go"
if [ -f /usr/include/lapacke.h ]; then
	go build -tags openblas -o "$WORK/qvs-openblas" .
	BUILDS="$BUILDS openblas"
fi
if [ -n "${BASE:-}" ]; then
	mkdir -p "$WORK/base"
	git archive "$BASE" | tar -x -C "$WORK/base"
	(cd "$WORK/base" && go build -o "$WORK/qvs-base" .)
	BUILDS="base $BUILDS"
fi

# --- inputs (fixed seed) ----------------------------------------------------
"$PY" - "$WORK" "${ONLY_AS:-}" <<'EOF'
import sys, numpy as np
w = sys.argv[1]
if sys.argv[2]:
    sys.exit(0)  # ONLY_AS: no inputs needed
rng = np.random.default_rng(15)
# 10,000 x 2,048 float32 embeddings (a generative model's features)
np.save(f"{w}/E.npy", rng.standard_normal((10000, 2048), dtype=np.float32))
# the same values in float64, NumPy's default dtype
np.save(f"{w}/E64.npy", np.load(f"{w}/E.npy").astype(np.float64))
# dense 1,000 x 1,000 kernel: RBF of 1,000 points in 10-d (full rank, PSD)
P = rng.standard_normal((1000, 10))
D = ((P[:, None, :] - P[None, :, :]) ** 2).sum(-1)
np.save(f"{w}/K.npy", np.exp(-D / (2 * np.median(D))))
# 4,000 x 16 embeddings and qualities for select
np.savetxt(f"{w}/X.csv", rng.standard_normal((4000, 16)), delimiter=",", fmt="%.10g")
np.savetxt(f"{w}/s.csv", rng.random(4000), fmt="%.10g")
EOF

# --- NumPy side -------------------------------------------------------------
cat >"$WORK/np.py" <<'EOF'
import sys, time, numpy as np
w, what = sys.argv[1], sys.argv[2]
def vs1(ev):
    ev = np.clip(ev, 0, None); p = ev / ev.sum(); p = p[p > 1e-10]
    return float(np.exp(-(p * np.log(p)).sum()))
t = time.perf_counter()
if what in ("emb", "emb64"):
    X = np.load(f"{w}/E.npy" if what == "emb" else f"{w}/E64.npy")
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    out = vs1(np.linalg.eigvalsh(X.T @ X / X.shape[0]))
elif what == "kernel":
    K = np.load(f"{w}/K.npy")
    out = vs1(np.linalg.eigvalsh(K / K.shape[0]))
else:  # greedy over the 16 x 16 dual, batched eigvalsh (what a NumPy user writes)
    X = np.loadtxt(f"{w}/X.csv", delimiter=","); s = np.loadtxt(f"{w}/s.csv")
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    C = np.zeros((16, 16)); chosen = []; free = np.ones(len(X), bool); sq = 0.0
    for m in range(100):
        Cs = C[None] + X[:, :, None] * X[:, None, :]
        ev = np.clip(np.linalg.eigvalsh(Cs), 0, None)
        p = ev / ev.sum(1, keepdims=True)
        h = -np.where(p > 1e-10, p * np.log(np.where(p > 0, p, 1)), 0).sum(1)
        v = (sq + s) / (m + 1) * np.exp(h)
        v[~free] = -np.inf
        c = int(np.argmax(v)); chosen.append(c); free[c] = False
        C += np.outer(X[c], X[c]); sq += s[c]
    out = ",".join(map(str, chosen[:5]))
print(f"{time.perf_counter() - t:.3f} {out}")
EOF

# --- the photoswitch qVS-AS loop in NumPy -----------------------------------
cat >"$WORK/as.py" <<'EOF'
import sys, time, csv, numpy as np
# qVS-AS (q = 1, batch 5) on the photoswitch pool, what a NumPy user writes:
# Tanimoto kNN graph (k = 100, ties to the lower index) of the CSV's
# fingerprints, the kNN model with the authors' prior, and the exact greedy
# of Algorithm 2 with a batched eigvalsh over the candidates linked to the
# chosen set (the unlinked ones share one value).
path, start, budget = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = time.perf_counter()
rows = list(csv.reader(open(path, newline="")))[1:]
X = np.frombuffer("".join(r[2] for r in rows).encode(), dtype=np.uint8).reshape(len(rows), -1) - ord("0")
X = X.astype(np.float32)
y = np.array([float(r[3]) for r in rows]) >= 450
n, k, b = len(rows), 100, 5
inter = (X @ X.T).astype(np.float64)
cnt = X.sum(1).astype(np.float64)
union = cnt[:, None] + cnt[None, :] - inter
with np.errstate(invalid="ignore", divide="ignore"):
    S = np.where(union > 0, inter / union, 1.0)
np.fill_diagonal(S, -np.inf)
nbr = np.argsort(-S, axis=1, kind="stable")[:, :k]
W = np.zeros((n, n))
rr = np.repeat(np.arange(n), k)
W[rr, nbr.ravel()] = S[rr, nbr.ravel()]
K = (W + W.T) / 2
np.fill_diagonal(K, 1.0)
a1 = np.round(y.mean(), 3); a0 = 1 - a1
obs = np.zeros(n, bool); lab = np.zeros(n, bool)
obs[start] = True; lab[start] = y[start]
def vs1(ev):  # eigenvalues of the m x m kernels, clipped; VS_1 = exp(entropy of ev / sum)
    ev = np.clip(ev, 0, None)
    p = ev / ev.sum(-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(p > 1e-12, p * np.log(p), 0).sum(-1)
    return np.exp(h)
picks_all = []
while obs.sum() - 1 < budget:
    pos = W[:, obs & lab].sum(1); neg = W[:, obs & ~lab].sum(1)
    prob = (a1 + pos) / (a0 + neg + a1 + pos)
    chosen = list(np.flatnonzero(obs & lab)); qsum = float(len(chosen))
    cand = ~obs
    batch = []
    for _ in range(min(b, budget - (obs.sum() - 1))):
        m = len(chosen)
        KS = K[np.ix_(chosen, chosen)]
        c = np.flatnonzero(cand)
        kc = K[np.ix_(c, chosen)]
        linked = (kc != 0).any(1)
        vs = np.empty(len(c))
        M = np.empty((linked.sum(), m + 1, m + 1))
        M[:, :m, :m] = KS; M[:, m, :m] = kc[linked]; M[:, :m, m] = kc[linked]; M[:, m, m] = 1
        vs[linked] = vs1(np.linalg.eigvalsh(M))
        if (~linked).any():
            iso = np.zeros((m + 1, m + 1)); iso[:m, :m] = KS; iso[m, m] = 1
            vs[~linked] = vs1(np.linalg.eigvalsh(iso))
        val = (qsum + prob[c]) / (m + 1) * vs
        best = val.max()
        pick = int(c[np.flatnonzero(val >= best - 1e-10 * abs(best))[0]])
        batch.append(pick); chosen.append(pick); qsum += prob[pick]; cand[pick] = False
    for x in batch:
        obs[x] = True; lab[x] = y[x]
    picks_all += batch
print(f"{time.perf_counter() - t:.3f} {','.join(map(str, picks_all))}")
EOF

header="| work | NumPy |"
sep="| --- | --- |"
for b in $BUILDS; do
	header="$header qvs $b |"
	sep="$sep --- |"
done
echo
echo "$header"
echo "$sep"

# Each cell: wall seconds (CPU seconds, user + system) and peak memory.
cell() { # time file
	read -r secs user sys kb <"$1"
	echo "$secs s ($(awk "BEGIN { printf \"%.2f\", $user + $sys }") s CPU), $((kb / 1024)) MB"
}
np_time() { # what
	/usr/bin/time -f "%e %U %S %M" -o "$WORK/nptime" "$PY" "$WORK/np.py" "$WORK" "$1" >"$WORK/np-$1"
	read -r s _ <"$WORK/np-$1"
	echo "$s s in NumPy; process $(cell "$WORK/nptime")"
}
qvs_row() { # label, numpy cell, output name, qvs arguments...
	line="| $1 | $2 |"
	out=$3
	shift 3
	for b in $BUILDS; do
		/usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$WORK/qvs-$b" "$@" --format csv >"$WORK/$out-$b" 2>"$WORK/$out-$b.err" || true
		line="$line $(cell "$WORK/time") |"
	done
	echo "$line"
}

if [ -z "${ONLY_AS:-}" ]; then
qvs_row "score --embeddings E.npy --q 1 (10,000 x 2,048 float32)" "$(np_time emb)" emb score --embeddings "$WORK/E.npy" --q 1
qvs_row "score --embeddings E64.npy --q 1 (the same, float64)" "$(np_time emb64)" emb64 score --embeddings "$WORK/E64.npy" --q 1
qvs_row "score --kernel K.npy --q 1 (1,000 x 1,000)" "$(np_time kernel)" ker score --kernel "$WORK/K.npy" --q 1
npg="skipped"
[ -n "${SKIP_NUMPY_GREEDY:-}" ] || npg=$(np_time greedy)
qvs_row "select --embeddings X.csv --quality s.csv --k 100 --q 1 (4,000 x 16)" "$npg" sel \
	select --embeddings "$WORK/X.csv" --quality "$WORK/s.csv" --k 100 --q 1
fi

# The photoswitch qVS-AS campaign: qvs first (the NumPy loop
# starts from qvs's start item), each build after one untimed run that
# warms the kNN graph cache.
DATA=${QVS_DATA_DIR:-../shared/data}
PS=$DATA/photoswitch/UMAP-AllHits.csv
if [ -z "${SKIP_AS:-}" ] && [ -f "$PS" ]; then
	sed 's/^ties:.*/ties: index/' configs/photoswitch.yaml >"$WORK/ps.yaml"
	line=""
	for b in $BUILDS; do
		set -- as --config "$WORK/ps.yaml" --data-dir "$DATA" --cache-dir "$WORK/cache" --methods qvs --q 1 --repeats 1 --budget 100 --quiet
		rm -rf "$WORK/as-$b"
		"$WORK/qvs-$b" "$@" --out "$WORK/as-$b" >/dev/null 2>&1 || true
		rm -rf "$WORK/as-$b"
		/usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$WORK/qvs-$b" "$@" --out "$WORK/as-$b" >/dev/null 2>"$WORK/as-$b.err" || true
		line="$line $(cell "$WORK/time") |"
	done
	first=$(echo "$BUILDS" | cut -d' ' -f1)
	start=$(awk -F, 'NR == 2 { print $3 }' "$WORK/as-$first/runs/qvs-q1-r00.csv")
	/usr/bin/time -f "%e %U %S %M" -o "$WORK/nptime" "$PY" "$WORK/as.py" "$PS" "$start" 100 >"$WORK/np-as"
	read -r s _ <"$WORK/np-as"
	# The same loop with one BLAS thread: its matrices are small (at most
	# 31 x 31 eigvalsh, a 1,919 x 2,048 product), and OpenBLAS's threads
	# spin for work on a 2-core machine shared with other jobs.
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 /usr/bin/time -f "%e %U %S %M" -o "$WORK/nptime1" "$PY" "$WORK/as.py" "$PS" "$start" 100 >"$WORK/np-as1"
	read -r s1 _ <"$WORK/np-as1"
	echo "| as photoswitch qVS-AS q = 1, budget 100, batch 5 (1,919 molecules, k = 100) | $s s in NumPy; process $(cell "$WORK/nptime"); 1 BLAS thread: $s1 s, process $(cell "$WORK/nptime1") |$line"
fi

# --- agreement ----------------------------------------------------------------
echo
"$PY" - "$WORK" $BUILDS <<'EOF'
import sys, csv, os
w, builds = sys.argv[1], sys.argv[2:]
def val(path):
    rows = list(csv.reader(open(path)))
    return float(rows[1][1])
for what, npf in (("emb", "np-emb"), ("emb64", "np-emb64"), ("ker", "np-kernel")):
    if not os.path.exists(f"{w}/{npf}"):
        continue  # ONLY_AS
    ref = float(open(f"{w}/{npf}").read().split()[1])
    got = {b: val(f"{w}/{what}-{b}") for b in builds}
    bad = {b: v for b, v in got.items() if abs(v - ref) > 1e-6 * ref}
    print(f"{what}: NumPy VS_1 {ref:.10g}; qvs {got}" + (f"  DISAGREE: {bad}" if bad else "  (agree to 1e-6)"))
if os.path.exists(f"{w}/sel-{builds[0]}"):
    picks = {b: [r[1] for r in list(csv.reader(open(f"{w}/sel-{b}")))[1:]] for b in builds}
    same = all(p == picks[builds[0]] for p in picks.values())
    first = picks[builds[0]][:5]
    try:
        npp = open(f"{w}/np-greedy").read().split()[1].split(",")
        npmsg = f"; NumPy's first 5 picks {npp} " + ("match" if npp == first else "DIFFER")
    except FileNotFoundError:
        npmsg = ""
    print(f"select: picks {'identical' if same else 'DIFFER'} across {builds}{npmsg}")
if os.path.exists(f"{w}/np-as") and len(open(f"{w}/np-as").read().split()) == 2:
    npa = open(f"{w}/np-as").read().split()[1].split(",")
    np1 = open(f"{w}/np-as1").read().split()[1].split(",")
    qa = {b: [r[2] for r in list(csv.reader(open(f"{w}/as-{b}/runs/qvs-q1-r00.csv")))[2:]] for b in builds}
    ok = all(v == npa for v in qa.values()) and np1 == npa
    print(f"as: the {len(npa)} queries {'identical' if ok else 'DIFFER'} across {builds} and NumPy (both thread settings)")
EOF
[ -n "$KEEP" ] || rm -rf "$WORK"
