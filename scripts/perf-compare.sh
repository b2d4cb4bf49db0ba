#!/bin/sh
# Issue 15's table, measured side by side: NumPy and qvs on the same inputs,
# qvs built pure Go (the `go install` default) and with the OpenBLAS backend
# (-tags openblas), and optionally a baseline revision for "before".
#
#   scripts/perf-compare.sh                  NumPy, pure Go, OpenBLAS
#   BASE=4133a35 scripts/perf-compare.sh     plus qvs built at BASE
#   SKIP_NUMPY_GREEDY=1 ...                  skip NumPy's greedy (about 15 s)
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
"$PY" - "$WORK" <<'EOF'
import sys, numpy as np
w = sys.argv[1]
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

qvs_row "score --embeddings E.npy --q 1 (10,000 x 2,048 float32)" "$(np_time emb)" emb score --embeddings "$WORK/E.npy" --q 1
qvs_row "score --embeddings E64.npy --q 1 (the same, float64)" "$(np_time emb64)" emb64 score --embeddings "$WORK/E64.npy" --q 1
qvs_row "score --kernel K.npy --q 1 (1,000 x 1,000)" "$(np_time kernel)" ker score --kernel "$WORK/K.npy" --q 1
npg="skipped"
[ -n "${SKIP_NUMPY_GREEDY:-}" ] || npg=$(np_time greedy)
qvs_row "select --embeddings X.csv --quality s.csv --k 100 --q 1 (4,000 x 16)" "$npg" sel \
	select --embeddings "$WORK/X.csv" --quality "$WORK/s.csv" --k 100 --q 1

# --- agreement ----------------------------------------------------------------
echo
"$PY" - "$WORK" $BUILDS <<'EOF'
import sys, csv
w, builds = sys.argv[1], sys.argv[2:]
def val(path):
    rows = list(csv.reader(open(path)))
    return float(rows[1][1])
for what, npf in (("emb", "np-emb"), ("emb64", "np-emb64"), ("ker", "np-kernel")):
    ref = float(open(f"{w}/{npf}").read().split()[1])
    got = {b: val(f"{w}/{what}-{b}") for b in builds}
    bad = {b: v for b, v in got.items() if abs(v - ref) > 1e-6 * ref}
    print(f"{what}: NumPy VS_1 {ref:.10g}; qvs {got}" + (f"  DISAGREE: {bad}" if bad else "  (agree to 1e-6)"))
picks = {b: [r[1] for r in list(csv.reader(open(f"{w}/sel-{b}")))[1:]] for b in builds}
same = all(p == picks[builds[0]] for p in picks.values())
first = picks[builds[0]][:5]
try:
    npp = open(f"{w}/np-greedy").read().split()[1].split(",")
    npmsg = f"; NumPy's first 5 picks {npp} " + ("match" if npp == first else "DIFFER")
except FileNotFoundError:
    npmsg = ""
print(f"select: picks {'identical' if same else 'DIFFER'} across {builds}{npmsg}")
EOF
[ -n "$KEEP" ] || rm -rf "$WORK"
