#!/usr/bin/env python3
"""Writes graph-scipy.npz for graphpool_test.go (needs scipy; the tests do
not): a 4-item directed similarity graph with a self loop (ignored), a zero
(dropped) and a tie (broken by the lower index), saved by
scipy.sparse.save_npz. Run from internal/datasets:
python3 testdata/make-graph-npz.py
"""
import numpy as np
import scipy.sparse as sp

W = np.array([
    [1.0, 0.5, 0.5, 0.0],
    [0.9, 0.0, 0.0, 0.2],
    [0.0, 0.3, 0.0, 0.0],
    [0.25, 0.0, 1.0, 0.0],
])
sp.save_npz("testdata/graph-scipy.npz", sp.csr_matrix(W))
