#!/usr/bin/python3
"""How diverse can the hits found be? VS_1 (Tanimoto) of a scored
library's hits, all of them and random subsets of given sizes.

    hits_diversity.py PREFIX SIZE... [--maximize] [--top 0.01] [--draws 5]

PREFIX.npy and PREFIX.scores.csv as scripts/fingerprints.py writes them;
hits as scripts/screen_bench.py counts them (the top --top of the scores,
ties included; lower is better unless --maximize). For each SIZE, the mean
VS_1 of --draws subsets of SIZE hits drawn uniformly (numpy seed 0): what a
search that found SIZE hits with no preference among them would score.

With --most-diverse N, also the VS_1 of the most diverse subset of SIZE
hits found by a search that knows every hit: greedy on VS_2 (the closed
form SIZE^2 / sum of squared similarities), then N random one-for-one
swaps kept when they raise VS_1 (numpy seed 0). It is a lower bound of the
best subset's VS_1 (a local search), an upper estimate of what any search
that finds SIZE hits can show.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from screen_bench import count, tanimoto, vs1  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("sizes", nargs="+", type=int)
    ap.add_argument("--maximize", action="store_true")
    ap.add_argument("--top", default="0.01")
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--most-diverse", type=int, default=0, metavar="N", help="swap trials of the most-diverse search (0: skip it)")
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
        if a.most_diverse > 0:
            greedy, best = most_diverse(bits, pop, m, a.most_diverse)
            print("%d hits, the most diverse found: VS_1 %.1f (greedy on VS_2 %.1f, then %d swap trials)" % (m, best, greedy, a.most_diverse))


def most_diverse(bits, pop, m, trials):
    """VS_1 of the greedy VS_2 subset of m rows, and after trials swaps."""
    k = tanimoto(bits, bits, pop, pop)
    k2 = k * k
    n = len(k)

    def score(s):
        lam = np.linalg.eigvalsh(k[np.ix_(s, s)] / len(s))
        lam = lam[lam > 1e-12]
        return float(np.exp(-np.sum(lam * np.log(lam))))

    first = int(np.argmin(k2.sum(axis=1)))
    s, acc = [first], k2[:, first].copy()
    while len(s) < m:
        # adding i raises the sum of squared similarities by 2·acc[i] + 1
        gain = 2 * acc + 1
        gain[s] = np.inf
        i = int(np.argmin(gain))
        s.append(i)
        acc += k2[:, i]
    greedy = best = score(s)
    rng = np.random.default_rng(0)
    inside = np.zeros(n, bool)
    inside[s] = True
    for _ in range(trials):
        out = np.flatnonzero(~inside)
        if len(out) == 0:
            break
        a, b = int(rng.integers(m)), int(out[rng.integers(len(out))])
        t = list(s)
        t[a] = b
        v = score(t)
        if v > best:
            inside[s[a]], inside[b] = False, True
            s, best = t, v
    return greedy, best


if __name__ == "__main__":
    main()
