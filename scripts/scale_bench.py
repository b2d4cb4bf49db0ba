#!/usr/bin/python3
"""One round of a scored search at library scale: qvs beside a random
forest (run by scripts/scale-bench.sh).

    scale_bench.py QVS_BINARY [--n 1000000] [--labelled 60000]
        [--batch 10000] [--chunk 50000] [--cache DIR] [--seed 1]

The library is scripts/fp_pool.py's synthetic fingerprints (N x 2,048
bits, packed; cached under --cache). Scores: a fixed random linear function
of 256 of the bits plus Gaussian noise (sd 10 % of the signal's), larger is
better; the first --labelled items of a seeded permutation are scored.

Both sides run as child processes, one at a time, and each is measured by
os.wait4 on it: CPU seconds (user + system, all threads) and peak resident
memory (ru_maxrss), loading the library included.

  qvs     `qvs as suggest --pool LIB.npy --metric tanimoto --observed
          scores.csv --batch B`
          (its defaults: GP + greedy qVS);
  forest  scikit-learn RandomForestRegressor(n_estimators=100, max_depth=8,
          n_jobs=2) fitted on the labelled items' unpacked bits, then its
          prediction for every item, --chunk rows unpacked at a time (the
          unpacked library, N x 2,048 float32 values, would be 8 GB at
          10^6), and the top B unlabelled predictions.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def scores_of(packed, seed):
    rng = np.random.default_rng(seed + 100)
    bits = rng.choice(packed.shape[1] * 8, size=256, replace=False)
    w = rng.normal(size=256)
    out = np.empty(len(packed))
    for lo in range(0, len(packed), 50000):
        x = np.unpackbits(packed[lo:lo + 50000], axis=1)[:, bits].astype(np.float64)
        out[lo:lo + 50000] = x @ w
    return out + 0.1 * out.std() * rng.normal(size=len(out))


def measure(args):
    """Runs args, returns (wall s, CPU s, peak RSS MB, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("scale_bench: %s exited %d" % (" ".join(args), p.returncode))
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, out


def forest(lib, scores, batch, chunk):
    """The forest side (a child process): prints the top batch's indices."""
    from sklearn.ensemble import RandomForestRegressor
    packed = np.load(lib, mmap_mode="r")
    idx, y = [], []
    with open(scores) as f:
        next(f)
        for line in f:
            i, v = line.split(",")
            idx.append(int(i))
            y.append(float(v))
    idx = np.array(idx)
    rf = RandomForestRegressor(n_estimators=100, max_depth=8, n_jobs=2, random_state=0)
    rf.fit(np.unpackbits(packed[np.sort(idx)], axis=1)[np.argsort(np.argsort(idx))].astype(np.float32), y)
    pred = np.empty(len(packed))
    for lo in range(0, len(packed), chunk):
        pred[lo:lo + chunk] = rf.predict(np.unpackbits(packed[lo:lo + chunk], axis=1).astype(np.float32))
    pred[idx] = -np.inf
    print("\n".join(map(str, np.argsort(-pred, kind="stable")[:batch])))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--forest-child":
        forest(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("qvs")
    ap.add_argument("--n", type=int, default=1000000)
    ap.add_argument("--labelled", type=int, default=60000)
    ap.add_argument("--batch", type=int, default=10000)
    ap.add_argument("--chunk", type=int, default=50000)
    ap.add_argument("--cache", default=".cache/scale-bench")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--methods", default="qvs,forest")
    a = ap.parse_args()
    os.makedirs(a.cache, exist_ok=True)
    lib = os.path.join(a.cache, "fp%d-s%d.npy" % (a.n, a.seed))
    if not os.path.exists(lib):
        print("scale_bench: writing %s" % lib, file=sys.stderr, flush=True)
        subprocess.run([sys.executable, os.path.join(HERE, "fp_pool.py"), str(a.n), lib + ".tmp.npy", "2048", str(a.seed)], check=True)
        os.replace(lib + ".tmp.npy", lib)
    scores = os.path.join(a.cache, "fp%d-s%d-l%d.scores.csv" % (a.n, a.seed, a.labelled))
    if not os.path.exists(scores):
        packed = np.load(lib, mmap_mode="r")
        s = scores_of(packed, a.seed)
        lab = np.random.default_rng(a.seed).permutation(a.n)[:a.labelled]
        with open(scores + ".tmp", "w") as f:
            f.write("index,value\n")
            for i in lab:
                f.write("%d,%.6f\n" % (i, s[i]))
        os.replace(scores + ".tmp", scores)
    res = {"n": a.n, "labelled": a.labelled, "batch": a.batch, "chunk": a.chunk}
    for m in a.methods.split(","):
        if m == "qvs":
            args = [a.qvs, "as", "suggest", "--pool", lib, "--metric", "tanimoto", "--observed", scores, "--batch", str(a.batch), "--format", "csv"]
        elif m == "forest":
            args = [sys.executable, os.path.abspath(__file__), "--forest-child", lib, scores, str(a.batch), str(a.chunk)]
        else:
            raise SystemExit("scale_bench: unknown method %r" % m)
        print("scale_bench: " + " ".join(args), file=sys.stderr, flush=True)
        wall, cpu, rss, out = measure(args)
        picks = len(out.decode().strip().splitlines()) - (1 if m == "qvs" else 0)
        if picks != a.batch:
            raise SystemExit("scale_bench: %s suggested %d items, expected %d" % (m, picks, a.batch))
        res[m] = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "peak_rss_mb": round(rss)}
        print("%-6s n=%d labelled=%d batch=%d: CPU %.1f s, peak RSS %.0f MB, wall %.1f s (load %s)"
              % (m, a.n, a.labelled, a.batch, cpu, rss, wall, " ".join(open("/proc/loadavg").read().split()[:3])), flush=True)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
