#!/usr/bin/python3
"""How diverse can the hits found be? VS_1 (Tanimoto) of a scored
library's hits, all of them and random subsets of given sizes.

    hits_diversity.py PREFIX SIZE... [--maximize] [--top 0.01] [--draws 5]

PREFIX.npy and PREFIX.scores.csv as scripts/fingerprints.py writes them;
hits as scripts/screen_bench.py counts them (the top --top of the scores,
ties included; lower is better unless --maximize). For each SIZE, the mean
VS_1 of --draws subsets of SIZE hits drawn uniformly (numpy seed 0): what a
search that found SIZE hits with no preference among them would score.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from screen_bench import count, vs1  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("sizes", nargs="+", type=int)
    ap.add_argument("--maximize", action="store_true")
    ap.add_argument("--top", default="0.01")
    ap.add_argument("--draws", type=int, default=5)
    a = ap.parse_args()
    packed = np.load(a.prefix + ".npy")
    with open(a.prefix + ".scores.csv") as f:
        y = np.array([float(line.split(",")[1]) for line in list(f)[1:]])
    if not a.maximize:
        y = -y
    k = count(a.top, len(y))
    hits = np.where(y >= np.sort(y)[::-1][k - 1])[0]
    bits = np.unpackbits(packed[hits], axis=1).astype(np.float32)
    pop = bits.sum(axis=1)
    print("%d hits: VS_1 of all %.1f" % (len(hits), vs1(bits, pop)))
    rng = np.random.default_rng(0)
    for m in a.sizes:
        v = [vs1(bits[s], pop[s]) for s in (rng.choice(len(hits), m, replace=False) for _ in range(a.draws))]
        print("%d hits at random: VS_1 %.1f (range %.1f-%.1f over %d draws)" % (m, np.mean(v), min(v), max(v), a.draws))


if __name__ == "__main__":
    main()
