#!/usr/bin/env python3
"""Writes the scipy.sparse.save_npz fixtures of csrnpz_test.go (needs scipy;
the tests do not). Run from internal/fileio: python3 testdata/make-csr-npz.py

csr-scipy.npz: the 4 x 5 matrix below, compressed (save_npz's default).
csr-scipy-stored.npz: the same, compressed=False.
csc-scipy.npz: the same matrix in CSC format (refused, naming .tocsr()).
"""
import numpy as np
import scipy.sparse as sp

m = sp.csr_matrix(np.array([
    [0.0, 0.5, 0.0, 0.0, 0.25],
    [1.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.125, 0.75, 0.0, 1.0],
]))
sp.save_npz("testdata/csr-scipy.npz", m)
sp.save_npz("testdata/csr-scipy-stored.npz", m, compressed=False)
sp.save_npz("testdata/csc-scipy.npz", m.tocsc())
