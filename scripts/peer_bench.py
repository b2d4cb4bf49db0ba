#!/usr/bin/python3
"""qvs beside Optuna on four test functions (run by scripts/peer-bench.sh).

Every method gets 100 evaluations in rounds of 5 on Ackley-10 (box
[-5, 10]^10, minimum off-centre), Levy-8, Styblinski-Tang-6 and
Rosenbrock-5, for each seed. qvs methods are driven by the README's loop
(`qvs bayesopt suggest ... --minimize` per round, the user's evaluations
file growing by 5 rows); Optuna's by ask/tell, 5 asks per round (TPE
multivariate with the constant liar, CMA-ES, random). Reported per function
and method (median over seeds): simple regret after 25, 50 and 100
evaluations; CPU-bound time per round (qvs: the suggest call's wall time;
Optuna: 5 asks and 5 tells) as the median over rounds; and the diversity of
the M = 3 solutions `qvs bayesopt solutions` picks from the method's
evaluations (the same rule for every method): their VS (order 1,
exp(-d^2/2), d the unit-scaled Euclidean distance) and the number of
distinct basins among them (the largest subset pairwise at least 0.5 apart
in that distance: ROBOT's tau).

Usage: peer_bench.py QVS_BINARY OUT_MARKDOWN [--seeds 3] [--functions a,b]
"""
import argparse
import csv
import io
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time


def ackley(x):
    n = len(x)
    s1 = sum(v * v for v in x)
    s2 = sum(math.cos(2 * math.pi * v) for v in x)
    return -20 * math.exp(-0.2 * math.sqrt(s1 / n)) - math.exp(s2 / n) + 20 + math.e


def levy(x):
    w = [1 + (v - 1) / 4 for v in x]
    s = math.sin(math.pi * w[0]) ** 2
    for wi in w[:-1]:
        s += (wi - 1) ** 2 * (1 + 10 * math.sin(math.pi * wi + 1) ** 2)
    return s + (w[-1] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[-1]) ** 2)


def styblinski_tang(x):
    return sum(v ** 4 - 16 * v * v + 5 * v for v in x) / 2


def rosenbrock(x):
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (x[i] - 1) ** 2 for i in range(len(x) - 1))


# name: (function, d, lower, upper, global minimum); the same as
# internal/bayesopt/space/peer_test.go.
FUNCTIONS = {
    "Ackley-10": (ackley, 10, -5.0, 10.0, 0.0),
    "Levy-8": (levy, 8, -10.0, 10.0, 0.0),
    "Styblinski-Tang-6": (styblinski_tang, 6, -5.0, 5.0, -39.16616570377142 * 6),
    "Rosenbrock-5": (rosenbrock, 5, -5.0, 10.0, 0.0),
}

BUDGET, BATCH, M = 100, 5, 3
QVS_METHODS = [
    ("qvs q=0.5", ["--method", "qvs", "--q", "0.5"]),
    ("qvs q=1", ["--method", "qvs", "--q", "1"]),
    ("qvs q=1.5", ["--method", "qvs", "--q", "1.5"]),
    ("qvs authors", ["--method", "qvs", "--q", "1", "--qvs-mode", "authors"]),
    ("turbo", ["--method", "turbo"]),
    ("robot", ["--method", "robot"]),
    ("qvs random", ["--method", "random"]),
]
OPTUNA_METHODS = ["optuna TPE", "optuna CMA-ES", "optuna random"]


def space_file(tmp, name):
    _, d, lo, hi, _ = FUNCTIONS[name]
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w") as f:
        f.write("parameters:\n")
        for j in range(d):
            f.write("  - {name: x%d, lower: %r, upper: %r}\n" % (j + 1, lo, hi))
    return path


def write_evals(path, d, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["x%d" % (j + 1) for j in range(d)] + ["value", "region"])
        for x, v, r in rows:
            w.writerow([repr(c) for c in x] + [repr(v), r])


def run_qvs(qvs, tmp, name, flags, seed):
    f, d, _, _, _ = FUNCTIONS[name]
    space = space_file(tmp, name)
    evals = os.path.join(tmp, "evals.csv")
    rows, secs = [], []
    while len(rows) < BUDGET:
        write_evals(evals, d, rows)
        t0 = time.perf_counter()
        out = subprocess.run([qvs, "bayesopt", "suggest", "--space", space, "--observed", evals, "--batch", str(BATCH),
                              "--minimize", "--seed", str(seed)] + flags, check=True, capture_output=True, text=True).stdout
        secs.append(time.perf_counter() - t0)
        for r in list(csv.reader(io.StringIO(out)))[1:]:
            x = [float(c) for c in r[1:1 + d]]
            rows.append((x, f(x), int(r[-1])))
    write_evals(evals, d, rows[:BUDGET])
    return [v for _, v, _ in rows[:BUDGET]], secs, evals


def run_optuna(tmp, name, method, seed):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    f, d, lo, hi, _ = FUNCTIONS[name]
    if method == "optuna TPE":
        sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True, constant_liar=True)
    elif method == "optuna CMA-ES":
        sampler = optuna.samplers.CmaEsSampler(seed=seed)
    else:
        sampler = optuna.samplers.RandomSampler(seed=seed)
    study = optuna.create_study(sampler=sampler, direction="minimize")
    dists = {"x%d" % (j + 1): optuna.distributions.FloatDistribution(lo, hi) for j in range(d)}
    rows, secs = [], []
    while len(rows) < BUDGET:
        t0 = time.perf_counter()
        trials = [study.ask(dists) for _ in range(BATCH)]
        xs = [[t.params["x%d" % (j + 1)] for j in range(d)] for t in trials]
        secs.append(time.perf_counter() - t0)
        vals = [f(x) for x in xs]
        t0 = time.perf_counter()
        for t, v in zip(trials, vals):
            study.tell(t, v)
        secs[-1] += time.perf_counter() - t0
        rows += [(x, v, -1) for x, v in zip(xs, vals)]
    evals = os.path.join(tmp, "evals.csv")
    write_evals(evals, d, rows[:BUDGET])
    return [v for _, v, _ in rows[:BUDGET]], secs, evals


def diversity(qvs, tmp, name, evals):
    _, d, lo, hi, _ = FUNCTIONS[name]
    out = subprocess.run([qvs, "bayesopt", "solutions", "--space", space_file(tmp, name), "--observed", evals,
                          "--minimize", "--m", str(M), "--format", "json"], check=True, capture_output=True, text=True).stdout
    js = json.loads(out)
    pts = [[(row["x%d" % (j + 1)] - lo) / (hi - lo) for j in range(d)] for row in js["rows"]]
    basins = 0
    for k in range(len(pts), 0, -1):
        if any(all(math.dist(a, b) >= 0.5 for a, b in itertools.combinations(sub, 2))
               for sub in itertools.combinations(pts, k)):
            basins = k
            break
    return js["vs"], basins


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("qvs")
    ap.add_argument("out")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--functions", default=",".join(FUNCTIONS))
    a = ap.parse_args()
    names = a.functions.split(",")
    methods = [m for m, _ in QVS_METHODS] + OPTUNA_METHODS
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            fmin = FUNCTIONS[name][4]
            for m in methods:
                per = []
                for seed in range(1, a.seeds + 1):
                    if m in OPTUNA_METHODS:
                        vals, secs, evals = run_optuna(tmp, name, m, seed)
                    else:
                        vals, secs, evals = run_qvs(a.qvs, tmp, name, dict(QVS_METHODS)[m], seed)
                    regret = [min(vals[:n]) - fmin for n in (25, 50, 100)]
                    vs, basins = diversity(a.qvs, tmp, name, evals)
                    per.append((regret, statistics.median(secs), vs, basins))
                    print("%s %s seed %d: regret %s, %.3f s/round, VS %.3f, basins %d" % (name, m, seed, regret, per[-1][1], vs, basins), file=sys.stderr, flush=True)
                res[(name, m)] = per
    med = statistics.median
    with open(a.out, "w") as f:
        f.write("| function | method | regret @25 | @50 | @100 | s per round | VS of the 3 solutions | basins |\n")
        f.write("|---|---|---:|---:|---:|---:|---:|---:|\n")
        for name in names:
            for m in methods:
                per = res[(name, m)]
                f.write("| %s | %s | %.4g | %.4g | %.4g | %.3f | %.3f | %g |\n" % (
                    name, m, med(p[0][0] for p in per), med(p[0][1] for p in per), med(p[0][2] for p in per),
                    med(p[1] for p in per), med(p[2] for p in per), med(p[3] for p in per)))


if __name__ == "__main__":
    main()
