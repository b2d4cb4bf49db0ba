#!/usr/bin/python3
"""Clustered 2,048-bit fingerprints like folded ECFP4 ones, packed for qvs.

    fp_pool.py N OUT.npy [NBITS] [SEED]

Writes an N x NBITS/8 uint8 .npy (numpy.packbits, most significant bit
first: `qvs ... --pool OUT.npy --metric tanimoto`). The structure imitates
a screening library: bit popularity is skewed (bit b's weight 1/(r_b+10)^0.8
for a random rank r_b: a few bits, the common atom environments, are set in
many molecules); N/2000 scaffold families (at least 10) each own a core of
60 bits drawn by popularity; N/50 chemical series (at least 20) each take
a family, keep each core bit with probability 0.9 and add 50 bits of their
own; a molecule takes a series, keeps each series bit with probability 0.85
and adds Poisson(L) substituent bits by popularity, L uniform in [40, 200)
(molecule size). About 5-15 % of the bits are set (mean ~7.5 %); a
molecule's nearest neighbours are mostly in its series, at Tanimoto
distances ~0.3-0.6, as analogues in a series are.
"""
import sys

import numpy as np

n, path = int(sys.argv[1]), sys.argv[2]
nbits = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
rng = np.random.default_rng(seed)
pop = 1.0 / (rng.permutation(nbits) + 10.0) ** 0.8
pop /= pop.sum()


def draw(count, size):
    """count rows of size bits each, drawn by popularity (repeats merge)."""
    rows = np.zeros((count, nbits), dtype=bool)
    cols = rng.choice(nbits, size=(count, size), p=pop)
    rows[np.arange(count)[:, None], cols] = True
    return rows


families = draw(max(n // 2000, 10), 60)
nseries = max(n // 50, 20)
series = families[rng.integers(0, len(families), nseries)]
series &= rng.random(series.shape) < 0.9
series |= draw(nseries, 50)
out = np.lib.format.open_memmap(path, mode="w+", dtype=np.uint8, shape=(n, nbits // 8))
chunk = 20000
for lo in range(0, n, chunk):
    m = min(chunk, n - lo)
    x = series[rng.integers(0, nseries, m)]
    x &= rng.random(x.shape) < 0.85
    extra = rng.poisson(rng.uniform(40, 200, m))
    rows = np.repeat(np.arange(m), extra)
    x[rows, rng.choice(nbits, size=rows.size, p=pop)] = True
    out[lo:lo + m] = np.packbits(x, axis=1)
out.flush()
