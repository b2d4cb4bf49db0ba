#!/usr/bin/python3
"""qvs beside Optuna on mixed (categorical + conditional) spaces and a
failing third (run by scripts/mixed-bench.sh).

Problems (held out: none is used by qvs's tests):
  switch    a categorical family in {branin, hartmann, bowl}, each with its
            own conditional continuous children, plus a shared s in [0, 1];
            minimum 0.397887 (family branin, s = 0.7).
  svc       scikit-learn model selection on the bundled breast-cancer data:
            SVC kernel in {rbf, poly, sigmoid}, degree 2..5 when poly, C and
            gamma on log scales; the objective is the 3-fold CV error
            (StandardScaler, fixed folds); regret is against the best error
            any method found in this run.
  svc-fail  svc whose experiments fail (nan) for every C > 10: a third of
            the space in log C.
Every method gets 60 evaluations in rounds of 5 for each seed. qvs is driven
by the README's loop (`qvs bayesopt suggest --space` per round, failed rows
written as failed); Optuna by ask/tell with define-by-run conditional
parameters, 5 asks per round (TPE multivariate, group, constant liar;
random), failed trials told as FAIL. Reported per problem and method
(median over seeds): regret after 30 and 60 evaluations; failures among the
last 30; the VS (order 1, exp(-d^2/2), the space's mixed distance) of the
M = 3 solutions `qvs bayesopt solutions` picks from the method's
evaluations, and for TPE also of its three best trials (the same distance);
the CPU-bound time per round (qvs: the suggest call's wall time; Optuna: 5
asks and 5 tells), median over rounds; and, less exposed to the load of a
shared machine, one round on the same 55-row history repeated 10 times
(round_timing). Then per seed: the regret at 60 evaluations (svc and
svc-fail as misclassified samples above the best found, decoded from the
3-fold error: two folds of 190 samples and one of 189 make one extra
misclassified sample 0.001754 or 0.001764 of error, so medians of the error
can differ where the counts do not) and the VS of the solutions.

Usage: mixed_bench.py QVS_BINARY OUT_MARKDOWN [--seeds 3] [--problems a,b] [--keep DIR]
(--keep: copy each problem's space file and each run's evaluations,
PROBLEM-METHOD-SEED.csv, into DIR.)
"""
import argparse
import csv
import io
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

BUDGET, BATCH, M = 60, 5, 3


def branin(x1, x2):
    return ((x2 - 5.1 / (4 * math.pi ** 2) * x1 ** 2 + 5 / math.pi * x1 - 6) ** 2
            + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10)


def hartmann3(x):
    a = [[3, 10, 30], [0.1, 10, 35], [3, 10, 30], [0.1, 10, 35]]
    c = [1, 1.2, 3, 3.2]
    p = [[0.3689, 0.117, 0.2673], [0.4699, 0.4387, 0.747], [0.1091, 0.8732, 0.5547], [0.03815, 0.5743, 0.8828]]
    return -sum(c[i] * math.exp(-sum(a[i][j] * (x[j] - p[i][j]) ** 2 for j in range(3))) for i in range(4))


# A parameter: (name, kind, spec, when) with kind float (lo, hi, log),
# int (lo, hi) or categorical (choices); when: {parent: [choices]} or None.
SWITCH = [
    ("family", "categorical", ["branin", "hartmann", "bowl"], None),
    ("x1", "float", (-5.0, 10.0, False), {"family": ["branin"]}),
    ("x2", "float", (0.0, 15.0, False), {"family": ["branin"]}),
    ("y1", "float", (0.0, 1.0, False), {"family": ["hartmann"]}),
    ("y2", "float", (0.0, 1.0, False), {"family": ["hartmann"]}),
    ("y3", "float", (0.0, 1.0, False), {"family": ["hartmann"]}),
    ("z1", "float", (0.0, 1.0, False), {"family": ["bowl"]}),
    ("z2", "float", (0.0, 1.0, False), {"family": ["bowl"]}),
    ("s", "float", (0.0, 1.0, False), None),
]


def switch_f(p):
    shared = 0.5 * (p["s"] - 0.7) ** 2
    if p["family"] == "branin":
        return branin(p["x1"], p["x2"]) + shared
    if p["family"] == "hartmann":
        return hartmann3([p["y1"], p["y2"], p["y3"]]) + 4.5 + shared
    return 1 + (p["z1"] - 0.3) ** 2 + (p["z2"] - 0.3) ** 2 + shared


SVC_SPACE = [
    ("kernel", "categorical", ["rbf", "poly", "sigmoid"], None),
    ("degree", "int", (2, 5), {"kernel": ["poly"]}),
    ("C", "float", (1e-3, 1e3, True), None),
    ("gamma", "float", (1e-4, 10.0, True), None),
]

_DATA = None


def svc_f(p):
    global _DATA
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    if _DATA is None:
        _DATA = load_breast_cancer(return_X_y=True)
    X, y = _DATA
    m = make_pipeline(StandardScaler(), SVC(kernel=p["kernel"], degree=int(p.get("degree") or 3), C=p["C"],
                                            gamma=p["gamma"], max_iter=100000))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = cross_val_score(m, X, y, cv=StratifiedKFold(3, shuffle=True, random_state=0))
    return 1 - s.mean()


def svc_folds():
    """The sizes of the 3 stratified folds svc_f scores on."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import StratifiedKFold
    X, y = load_breast_cancer(return_X_y=True)
    return [len(te) for _, te in StratifiedKFold(3, shuffle=True, random_state=0).split(X, y)]


def misclassified(err, folds):
    """The number of misclassified samples behind a 3-fold CV error: err =
    mean over folds of e_k / n_k, solved for integers e_k (folds of equal
    size pooled; unique while no fold is misclassified whole)."""
    sizes = sorted(set(folds))
    mult = [folds.count(n) for n in sizes]
    best = None

    def walk(i, acc, count):
        nonlocal best
        if i == len(sizes):
            gap = abs(acc / len(folds) - err)
            if best is None or gap < best[0]:
                best = (gap, count)
            return
        for e in range(mult[i] * sizes[i] + 1):
            walk(i + 1, acc + e / sizes[i], count + e)

    walk(0, 0.0, 0)
    if best[0] > 1e-9:
        raise ValueError("%r is no 3-fold error on folds %s" % (err, folds))
    return best[1]


def svc_fail_f(p):
    if p["C"] > 10:
        return float("nan")
    return svc_f(p)


PROBLEMS = {
    "switch": (SWITCH, switch_f, 0.397887),
    "svc": (SVC_SPACE, svc_f, None),
    "svc-fail": (SVC_SPACE, svc_fail_f, None),
}
METHODS = ["qvs q=1", "turbo", "optuna TPE", "optuna random"]
QVS_FLAGS = {"qvs q=1": ["--method", "qvs", "--q", "1"], "turbo": ["--method", "turbo"]}


def space_yaml(params):
    out = ["parameters:"]
    for name, kind, spec, when in params:
        w = ""
        if when:
            w = ", when: {%s}" % ", ".join("%s: [%s]" % (k, ", ".join(v)) for k, v in when.items())
        if kind == "categorical":
            out.append("  - {name: %s, type: categorical, choices: [%s]%s}" % (name, ", ".join(spec), w))
        elif kind == "int":
            out.append("  - {name: %s, lower: %d, upper: %d, type: int%s}" % (name, spec[0], spec[1], w))
        else:
            out.append("  - {name: %s, lower: %r, upper: %r%s%s}" % (name, spec[0], spec[1], ", scale: log" if spec[2] else "", w))
    return "\n".join(out) + "\ndirection: minimize\n"


def active(params, p, when):
    return when is None or all(k in p and p[k] in v for k, v in when.items())


def write_evals(path, params, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([n for n, _, _, _ in params] + ["value"])
        for p, v in rows:
            w.writerow([("" if n not in p else p[n] if isinstance(p[n], str) else repr(p[n])) for n, _, _, _ in params]
                       + ["failed" if math.isnan(v) else repr(v)])


def run_qvs(qvs, tmp, prob, flags, seed):
    params, f, _ = PROBLEMS[prob]
    space = os.path.join(tmp, prob + ".yaml")
    with open(space, "w") as fh:
        fh.write(space_yaml(params))
    evals = os.path.join(tmp, "evals.csv")
    rows, secs = [], []
    kinds = {n: k for n, k, _, _ in params}
    while len(rows) < BUDGET:
        write_evals(evals, params, rows)
        t0 = time.perf_counter()
        out = subprocess.run([qvs, "bayesopt", "suggest", "--space", space, "--observed", evals, "--batch", str(BATCH),
                              "--seed", str(seed)] + flags, check=True, capture_output=True, text=True).stdout
        secs.append(time.perf_counter() - t0)
        rd = list(csv.DictReader(io.StringIO(out)))
        for r in rd:
            p = {}
            for n, _, _, _ in params:
                if r[n] == "":
                    continue
                p[n] = r[n] if kinds[n] == "categorical" else int(r[n]) if kinds[n] == "int" else float(r[n])
            rows.append((p, f(p)))
    rows = rows[:BUDGET]
    write_evals(evals, params, rows)
    return rows, secs, evals, space


def run_optuna(tmp, prob, method, seed, space):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.simplefilter("ignore")
    params, f, _ = PROBLEMS[prob]
    if method == "optuna TPE":
        sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True, constant_liar=True)
    else:
        sampler = optuna.samplers.RandomSampler(seed=seed)
    study = optuna.create_study(sampler=sampler, direction="minimize")

    rows, secs = [], []
    while len(rows) < BUDGET:
        t0 = time.perf_counter()
        trials = [study.ask() for _ in range(BATCH)]
        ps = [suggest_params(t, params) for t in trials]
        secs.append(time.perf_counter() - t0)
        vals = [f(p) for p in ps]
        t0 = time.perf_counter()
        for t, v in zip(trials, vals):
            if math.isnan(v):
                study.tell(t, state=optuna.trial.TrialState.FAIL)
            else:
                study.tell(t, v)
        secs[-1] += time.perf_counter() - t0
        rows += list(zip(ps, vals))
    rows = rows[:BUDGET]
    evals = os.path.join(tmp, "evals.csv")
    write_evals(evals, params, rows)
    return rows, secs, evals


def optuna_distribution(kind, spec):
    import optuna
    if kind == "categorical":
        return optuna.distributions.CategoricalDistribution(spec)
    if kind == "int":
        return optuna.distributions.IntDistribution(spec[0], spec[1])
    return optuna.distributions.FloatDistribution(spec[0], spec[1], log=spec[2])


def round_timing(qvs, tmp, prob, reps=10):
    """One round on the same 55-row history (qvs's seed-1 run), repeated:
    the wall time of a qvs suggest call, and of 5 TPE asks and tells on a
    study holding the same 55 trials; returns the two medians."""
    import optuna
    params, _, _ = PROBLEMS[prob]
    global BUDGET
    budget, BUDGET = BUDGET, 55
    rows, _, evals, space = run_qvs(qvs, tmp, prob, QVS_FLAGS["qvs q=1"], 1)
    BUDGET = budget
    qs, ts = [], []
    for rep in range(reps):
        t0 = time.perf_counter()
        subprocess.run([qvs, "bayesopt", "suggest", "--space", space, "--observed", evals, "--batch", str(BATCH), "--seed", "1"],
                       check=True, capture_output=True)
        qs.append(time.perf_counter() - t0)
        study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=rep, multivariate=True, group=True, constant_liar=True),
                                    direction="minimize")
        for p, v in rows:
            d = {n: optuna_distribution(k, sp) for n, k, sp, _ in params if n in p}
            if math.isnan(v):
                study.add_trial(optuna.trial.create_trial(params=p, distributions=d, state=optuna.trial.TrialState.FAIL))
            else:
                study.add_trial(optuna.trial.create_trial(params=p, distributions=d, value=v))
        t0 = time.perf_counter()
        trials = [study.ask() for _ in range(BATCH)]
        for t in trials:
            suggest_params(t, params)
        for t in trials:
            study.tell(t, 0.5)
        ts.append(time.perf_counter() - t0)
    return statistics.median(qs), statistics.median(ts)


def suggest_params(trial, params):
    p = {}
    for name, kind, spec, when in params:
        if not active(params, p, when):
            continue
        if kind == "categorical":
            p[name] = trial.suggest_categorical(name, spec)
        elif kind == "int":
            p[name] = trial.suggest_int(name, spec[0], spec[1])
        else:
            p[name] = trial.suggest_float(name, spec[0], spec[1], log=spec[2])
    return p


def solutions_vs(qvs, space, evals):
    out = subprocess.run([qvs, "bayesopt", "solutions", "--space", space, "--observed", evals, "--m", str(M), "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["vs"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("qvs")
    ap.add_argument("out")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--problems", default=",".join(PROBLEMS))
    ap.add_argument("--keep", help="folder to copy the space files and every run's evaluations into")
    a = ap.parse_args()
    probs = a.problems.split(",")
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for prob in probs:
            params, _, fmin = PROBLEMS[prob]
            space = os.path.join(tmp, prob + ".yaml")
            with open(space, "w") as fh:
                fh.write(space_yaml(params))
            if a.keep:
                os.makedirs(a.keep, exist_ok=True)
                shutil.copy(space, os.path.join(a.keep, prob + ".yaml"))
            runs = {}
            for m in METHODS:
                for seed in range(1, a.seeds + 1):
                    if m in QVS_FLAGS:
                        rows, secs, evals, _ = run_qvs(a.qvs, tmp, prob, QVS_FLAGS[m], seed)
                    else:
                        rows, secs, evals = run_optuna(tmp, prob, m, seed, space)
                    if a.keep:
                        shutil.copy(evals, os.path.join(a.keep, "%s-%s-%d.csv" % (prob, m.replace(" ", "_").replace("=", ""), seed)))
                    vs = solutions_vs(a.qvs, space, evals)
                    top_vs = float("nan")
                    if m == "optuna TPE":
                        ok = sorted((r for r in rows if not math.isnan(r[1])), key=lambda r: r[1])[:3]
                        top = os.path.join(tmp, "top.csv")
                        write_evals(top, params, ok)
                        top_vs = solutions_vs(a.qvs, space, top)
                    runs[(m, seed)] = (rows, statistics.median(secs), vs, top_vs)
                    best = min((v for _, v in rows if not math.isnan(v)), default=float("nan"))
                    print("%s %s seed %d: best %.5g, %d failed, %.3f s/round, VS %.3f" % (
                        prob, m, seed, best, sum(math.isnan(v) for _, v in rows), runs[(m, seed)][1], vs),
                        file=sys.stderr, flush=True)
            if fmin is None:  # the best any method found
                fmin = min(v for (rows, _, _, _) in runs.values() for _, v in rows if not math.isnan(v))
            res["fmin " + prob] = fmin
            for m in METHODS:
                per = []
                for seed in range(1, a.seeds + 1):
                    rows, sec, vs, top_vs = runs[(m, seed)]
                    vals = [v for _, v in rows]
                    reg = [min((v for v in vals[:n] if not math.isnan(v)), default=float("inf")) - fmin for n in (30, 60)]
                    late = sum(math.isnan(v) for v in vals[BUDGET // 2:])
                    per.append((reg, late, vs, top_vs, sec))
                res[(prob, m)] = per
            res[prob] = round_timing(a.qvs, tmp, prob)
            print("%s: one round on 55 rows: qvs suggest %.3f s, TPE 5 asks and tells %.3f s" % ((prob,) + res[prob]), file=sys.stderr, flush=True)
    med = statistics.median
    folds = svc_folds() if any(p.startswith("svc") for p in probs) else None
    with open(a.out, "w") as f:
        f.write("| problem | method | regret @30 | regret @60 | failures in the last 30 | VS of the 3 solutions | VS of the 3 best trials | s per round |\n")
        f.write("|---|---|---:|---:|---:|---:|---:|---:|\n")
        for prob in probs:
            for m in METHODS:
                per = res[(prob, m)]
                top = med(p[3] for p in per)
                f.write("| %s | %s | %.4g | %.4g | %g | %.3f | %s | %.3f |\n" % (
                    prob, m, med(p[0][0] for p in per), med(p[0][1] for p in per), med(p[1] for p in per),
                    med(p[2] for p in per), "-" if math.isnan(top) else "%.3f" % top, med(p[4] for p in per)))
        f.write("\nOne round on the same 55-row history (qvs q=1's seed-1 run), median of 10: the wall time of a "
                "`qvs bayesopt suggest` call against 5 TPE asks and tells on a study holding the same trials.\n\n")
        f.write("| problem | qvs suggest (s) | TPE 5 asks + tells (s) |\n|---|---:|---:|\n")
        for prob in probs:
            f.write("| %s | %.3f | %.3f |\n" % ((prob,) + res[prob]))
        f.write("\nPer seed (seeds 1..%d in order): regret at 60 evaluations, for svc and svc-fail as misclassified "
                "samples above the best any method found (of 569, decoded from the 3-fold error, folds of %s); "
                "VS of the 3 solutions (TPE: and of its three best trials).\n\n"
                % (a.seeds, folds and ", ".join(map(str, folds))))
        f.write("| problem | method | regret @60 per seed | median | mean | VS per seed |\n|---|---|---|---:|---:|---|\n")
        for prob in probs:
            fmin = res["fmin " + prob]
            for m in METHODS:
                per = res[(prob, m)]
                if prob.startswith("svc"):
                    base = misclassified(fmin, folds)
                    regs = [misclassified(fmin + p[0][1], folds) - base if math.isfinite(p[0][1]) else float("inf") for p in per]
                    cells = " ".join("%g" % r for r in regs)
                else:
                    regs = [p[0][1] for p in per]
                    cells = " ".join("%.3g" % r for r in regs)
                vs = " ".join("%.2f" % p[2] for p in per)
                if m == "optuna TPE":
                    vs += "; three best trials " + " ".join("%.2f" % p[3] for p in per)
                f.write("| %s | %s | %s | %.3g | %.3g | %s |\n" % (prob, m, cells, med(regs), statistics.mean(regs), vs))


if __name__ == "__main__":
    main()
