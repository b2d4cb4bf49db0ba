#!/usr/bin/python3
"""qvs beside the usual peers on a fully scored screening library (run by
scripts/screen-bench.sh).

Replays a virtual screen on a library whose every molecule has a score:
an initial batch drawn at random (--init, a fraction of the library or a
count; the same molecules for every method of a seed), then --rounds
batches of --batch each method chooses from what it has seen. A hit is a
molecule of the library's top --top (fraction or count k, ties with the
k-th best score included: MolPAL's Enamine 10k has 115 molecules at or
below its 104th best docking score). Methods, on the same fingerprints,
seeds and initial batches:

  random  uniform batches of the unlabelled molecules;
  rf      scikit-learn RandomForestRegressor(n_estimators=100, max_depth=8,
          random_state=seed) on the fingerprint bits, fitted to the scores
          seen, batch = the best predicted;
  gp      an exact GP in NumPy on the labelled molecules: Tanimoto kernel,
          constant mean, signal and noise variances by maximum marginal
          likelihood (L-BFGS-B over the eigendecomposition of the labelled
          kernel), batch = the best posterior means;
  qvs         qvs's scored search with its defaults (GP + greedy qVS): `qvs as replay`
              (the built binary, --qvs), run once for every seed;
  qvs-greedy  the same replay's GP greedy (top posterior means).

When a qvs method runs, the initial batches are the replay's (round 0 of
its records, repeat r for seed r), so every method starts from the same
molecules; otherwise seed r draws them with numpy.random.default_rng(r).

Per method: hits found after every round (mean over seeds, and each
seed's), VS_1 of the hits found at the end under Tanimoto (exp of the
Shannon entropy of the eigenvalues of K/n, K the hits' Tanimoto matrix;
computed here with NumPy, independently of qvs, from the molecules each
method acquired), and the wall and CPU seconds of a round's choice (model
fit plus batch; qvs's as its replay records them, the process's own CPU
time with runs executed one at a time).

Usage: screen_bench.py LIBRARY OUT_MARKDOWN [--qvs BINARY] [--seeds 3]
       [--methods random,rf,gp,qvs,qvs-greedy] [--type morgan] [--init 0.01]
       [--batch 0.01] [--rounds 5] [--top 0.01] [--maximize]
       [--smiles-column smiles] [--score-column score] [--cache DIR]
       [--json OUT.json]

LIBRARY is a CSV or CSV.gz with SMILES and scores (fingerprints.py turns it
into OUT.npy, ids and scores, cached under --cache), or the prefix of files
fingerprints.py wrote (PREFIX.npy, PREFIX.ids.txt, PREFIX.scores.csv).
"""
import argparse
import csv
import glob
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.optimize import minimize as sp_minimize

HERE = os.path.dirname(os.path.abspath(__file__))

# The script's names of qvs's methods and the replay's.
QVS_METHODS = {"qvs": "qvs", "qvs-greedy": "greedy"}

def count(spec, n):
    """A fraction in (0, 1) of n (rounded, at least 1) or a count."""
    v = float(spec)
    if 0 < v < 1:
        return max(1, int(math.floor(v * n + 0.5)))  # as qvs rounds (half away from zero)
    if v >= 1 and v == int(v):
        return int(v)
    raise SystemExit("screen_bench: %r: expected a fraction in (0, 1) or a whole count" % spec)


def load_library(a):
    """(packed uint8 fingerprints, ids, scores) and the file prefix."""
    prefix = a.library
    if not os.path.exists(prefix + ".npy"):
        cache = a.cache or tempfile.mkdtemp(prefix="screen-bench-")
        os.makedirs(cache, exist_ok=True)
        base = os.path.basename(a.library)
        for ext in (".gz", ".csv"):
            if base.endswith(ext):
                base = base[: -len(ext)]
        prefix = os.path.join(cache, "%s-%s" % (base, a.type))
        if not os.path.exists(prefix + ".scores.csv"):
            subprocess.run([sys.executable, os.path.join(HERE, "fingerprints.py"), a.library, prefix,
                            "--type", a.type, "--smiles-column", a.smiles_column,
                            "--score-column", a.score_column, "--scored-only"], check=True)
    packed = np.load(prefix + ".npy")
    with open(prefix + ".ids.txt") as f:
        ids = [line.rstrip("\n") for line in f][1:]
    with open(prefix + ".scores.csv") as f:
        rows = list(csv.reader(f))[1:]
    if [r[0] for r in rows] != ids:
        raise SystemExit("%s.scores.csv: ids differ from %s.ids.txt" % (prefix, prefix))
    scores = np.array([float(r[1]) for r in rows])
    return packed, ids, scores, prefix


def tanimoto(a, b, pa, pb):
    """Tanimoto matrix of 0/1 float32 rows a, b with popcounts pa, pb."""
    inter = a @ b.T
    union = pa[:, None] + pb[None, :] - inter
    out = np.ones_like(inter, dtype=np.float64)
    nz = union > 0
    out[nz] = inter[nz] / union[nz]
    return out


def vs1(bits, pop):
    """VS_1 of rows under Tanimoto: exp(-sum l log l), l the eigenvalues of K/n."""
    n = len(bits)
    if n == 0:
        return 0.0
    k = tanimoto(bits, bits, pop, pop)
    lam = np.linalg.eigvalsh(k / n)
    lam = lam[lam > 1e-12]
    return float(math.exp(-np.sum(lam * np.log(lam))))


class Library:
    def __init__(self, packed, scores, maximize):
        self.bits = np.unpackbits(packed, axis=1).astype(np.float32)
        self.pop = self.bits.sum(axis=1)
        self.y = scores if maximize else -scores  # larger is better
        self.n = len(scores)


def choose_random(lib, seen, y, b, rng, seed, rnd):
    rest = np.setdiff1d(np.arange(lib.n), seen)
    return rng.choice(rest, size=b, replace=False)


def top_unseen(pred, seen, b):
    pred = pred.copy()
    pred[seen] = -np.inf
    order = np.argsort(-pred, kind="stable")
    return order[:b]


def choose_rf(lib, seen, y, b, rng, seed, rnd):
    from sklearn.ensemble import RandomForestRegressor
    rf = RandomForestRegressor(n_estimators=100, max_depth=8, random_state=seed * 1000 + rnd, n_jobs=1)
    rf.fit(lib.bits[seen], y)
    return top_unseen(rf.predict(lib.bits), seen, b)


def gp_fit(k, y):
    """Constant mean, signal and noise variance maximising the marginal
    likelihood of standardised y under s2*K + n2*I; returns (m, s2, n2, alpha)."""
    lam, u = np.linalg.eigh(k)
    lam = np.clip(lam, 0, None)
    uy, u1 = u.T @ y, u.T @ np.ones(len(y))

    def nll(p):
        m, s2, n2 = p[0], math.exp(p[1]), math.exp(p[2])
        d = s2 * lam + n2
        r = uy - m * u1
        return 0.5 * np.sum(r * r / d) + 0.5 * np.sum(np.log(d))

    best = None
    for ls, ln in ((0.0, -2.0), (0.0, -5.0), (1.0, 0.0)):
        res = sp_minimize(nll, [0.0, ls, ln], method="L-BFGS-B",
                          bounds=[(-10, 10), (math.log(1e-3), math.log(1e3)), (math.log(1e-6), math.log(1e2))])
        if best is None or res.fun < best.fun:
            best = res
    m, s2, n2 = best.x[0], math.exp(best.x[1]), math.exp(best.x[2])
    alpha = u @ ((uy - m * u1) / (s2 * lam + n2))
    return m, s2, n2, alpha


def choose_gp(lib, seen, y, b, rng, seed, rnd):
    mu, sd = y.mean(), y.std() or 1.0
    z = (y - mu) / sd
    xs, ps = lib.bits[seen], lib.pop[seen]
    m, s2, n2, alpha = gp_fit(tanimoto(xs, xs, ps, ps), z)
    pred = np.empty(lib.n)
    for lo in range(0, lib.n, 8192):
        hi = min(lib.n, lo + 8192)
        pred[lo:hi] = m + s2 * tanimoto(lib.bits[lo:hi], xs, lib.pop[lo:hi], ps) @ alpha
    return top_unseen(pred, seen, b)


def run_replay(a, prefix, n_init, b, k, seeds, tmp):
    """qvs's replay of the qvs methods: {method: [records of seed r]} with
    records (round, index, seconds, cpu_seconds) of every acquired item."""
    methods = [m for m in a.methods.split(",") if m in QVS_METHODS]
    out = os.path.join(tmp, "replay")
    args = [a.qvs, "as", "replay", "--pool", prefix + ".npy", "--ids", prefix + ".ids.txt",
            "--scores", prefix + ".scores.csv", "--metric", "tanimoto",
            "--init", str(n_init), "--batch", str(b), "--budget", str(a.rounds * b), "--top", str(k),
            "--methods", ",".join(QVS_METHODS[m] for m in methods),
            "--repeats", str(len(seeds)), "--seed", "0", "--out", out, "--cache-dir", os.path.join(tmp, "cache")]
    if not a.maximize:
        args.append("--minimize")
    print("screen_bench: " + " ".join(args), file=sys.stderr, flush=True)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    recs = {}
    for m in methods:
        key = {"qvs": "qvs-q*", "qvs-greedy": "greedy"}[m]  # qvs at the default order
        recs[m] = []
        for r in range(len(seeds)):
            found = sorted(glob.glob(os.path.join(out, "runs", "%s-r%02d.csv" % (key, r))))
            if len(found) != 1:
                raise SystemExit("screen_bench: expected one %s record for repeat %d, found %s" % (key, r, found))
            with open(found[0]) as f:
                rows = list(csv.DictReader(f))
            recs[m].append([(int(x["round"]), int(x["index"]), float(x["seconds"]), float(x["cpu_seconds"])) for x in rows])
    return recs


def cpu_now():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("library")
    ap.add_argument("out")
    ap.add_argument("--qvs", default="")
    ap.add_argument("--seeds", type=int, default=3, help="how many seeds (0, 1, ...)")
    ap.add_argument("--methods", default="random,rf,gp,qvs,qvs-greedy")
    ap.add_argument("--type", default="morgan", choices=["morgan", "atompair"])
    ap.add_argument("--init", default="0.01")
    ap.add_argument("--batch", default="0.01")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--top", default="0.01")
    ap.add_argument("--maximize", action="store_true", help="larger scores are better (default: lower)")
    ap.add_argument("--smiles-column", default="smiles")
    ap.add_argument("--score-column", default="score")
    ap.add_argument("--cache", default="")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    seeds = list(range(a.seeds))
    methods = a.methods.split(",")
    for m in methods:
        if m not in ("random", "rf", "gp") and m not in QVS_METHODS:
            raise SystemExit("screen_bench: unknown method %r" % m)
    if any(m in QVS_METHODS for m in methods) and not a.qvs:
        raise SystemExit("screen_bench: the qvs methods need --qvs BINARY")

    packed, ids, scores, prefix = load_library(a)
    lib = Library(packed, scores, a.maximize)
    n = lib.n
    n_init, b, k = count(a.init, n), count(a.batch, n), count(a.top, n)
    kth = np.sort(lib.y)[::-1][k - 1]
    hit = lib.y >= kth
    nhits = int(hit.sum())
    print("screen_bench: %d molecules, %d hits (top %d, ties included), init %d, %d rounds of %d"
          % (n, nhits, k, n_init, a.rounds, b), file=sys.stderr)

    tmp = tempfile.mkdtemp(prefix="screen-bench-run-")
    choosers = {"random": choose_random, "rf": choose_rf, "gp": choose_gp}
    replayed = {}
    if any(m in QVS_METHODS for m in methods):
        replayed = run_replay(a, prefix, n_init, b, k, seeds, tmp)
    res = {m: {"hits": [], "vs1": [], "wall": [], "cpu": []} for m in methods}
    for seed in seeds:
        if replayed:
            first = next(iter(replayed.values()))[seed]
            init = np.array([i for rnd, i, _, _ in first if rnd == 0])
        else:
            init = np.random.default_rng(seed).choice(n, size=n_init, replace=False)
        for m in methods:
            rng = np.random.default_rng([seed, 1])
            seen = list(init)
            curve = [int(hit[seen].sum())]
            for rnd in range(1, a.rounds + 1):
                if m in replayed:
                    rows = [x for x in replayed[m][seed] if x[0] == rnd]
                    picks = np.array([x[1] for x in rows])
                    res[m]["wall"].append(rows[0][2])
                    res[m]["cpu"].append(rows[0][3])
                else:
                    w0, c0 = time.perf_counter(), cpu_now()
                    picks = choosers[m](lib, np.array(seen), lib.y[seen], b, rng, seed, rnd)
                    res[m]["wall"].append(time.perf_counter() - w0)
                    res[m]["cpu"].append(cpu_now() - c0)
                if len(picks) != b or len(set(picks) | set(seen)) != len(seen) + b:
                    raise SystemExit("%s: round %d: %d molecules, or one acquired before" % (m, rnd, len(picks)))
                seen.extend(int(i) for i in picks)
                curve.append(int(hit[seen].sum()))
            if m in replayed and [x[1] for x in replayed[m][seed]] != seen:
                raise SystemExit("%s: seed %d: the replay's records do not start from the shared initial batch" % (m, seed))
            found = np.array([i for i in seen if hit[i]], dtype=int)
            res[m]["hits"].append(curve)
            res[m]["vs1"].append(vs1(lib.bits[found], lib.pop[found]))
            print("screen_bench: seed %d %-10s hits by round %s, VS_1 %.2f, %.2f s/round"
                  % (seed, m, curve, res[m]["vs1"][-1], statistics.mean(res[m]["wall"][-a.rounds:])),
                  file=sys.stderr, flush=True)

    acquired = [n_init + r * b for r in range(a.rounds + 1)]
    lines = [
        "%d molecules, %d hits (the top %d scores, ties included), initial batch %d at random (shared by the methods of a seed), %d rounds of %d (%.1f %% acquired), %d seeds, %s fingerprints."
        % (n, nhits, k, n_init, a.rounds, b, 100.0 * acquired[-1] / n, len(seeds), a.type),
        "",
        "| method | hits found at %d acquired (mean [min, max]) | mean hits by round (%s acquired) | VS_1 of the hits found (mean) | wall s/round (median) | CPU s/round (median) |"
        % (acquired[-1], ", ".join(map(str, acquired))),
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for m in methods:
        r = res[m]
        final = [c[-1] for c in r["hits"]]
        means = [statistics.mean(c[i] for c in r["hits"]) for i in range(a.rounds + 1)]
        lines.append("| %s | %.1f [%d, %d] | %s | %.2f | %.2f | %.2f |" % (
            m, statistics.mean(final), min(final), max(final), ", ".join("%.1f" % v for v in means),
            statistics.mean(r["vs1"]), statistics.median(r["wall"]), statistics.median(r["cpu"])))
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"n": n, "hits": nhits, "init": n_init, "batch": b, "rounds": a.rounds,
                       "seeds": seeds, "results": res}, f, indent=1)


if __name__ == "__main__":
    main()
