#!/usr/bin/python3
"""Tests of fingerprints.py (RDKit from Debian's python3-rdkit):

    /usr/bin/python3 scripts/test_fingerprints.py

A library whose score column is partly filled (the usual case before a
screen: most molecules not measured yet) keeps every parseable molecule in
the pool; only the scored ones go to OUT.scores.csv, and a failed
measurement (nan, failed) is written as qvs reads it. The expected bits
come from RDKit directly, packed as numpy.packbits does.
"""
import os
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fingerprints  # noqa: E402


class PartlyScored(unittest.TestCase):
    def test_unscored_molecules_stay_in_the_pool(self):
        d = tempfile.mkdtemp()
        src = os.path.join(d, "lib.csv")
        with open(src, "w") as f:
            f.write("name,smiles,ic50\na,CCO,1.5\nb,notasmiles,2\nc,c1ccccc1,\nd,CCN,nan\ne,CCC,FAILED\nf,CO,abc\n")
        out = os.path.join(d, "lib")
        fingerprints.main([src, out, "--id-column", "name", "--score-column", "ic50", "--bits", "64"])
        with open(out + ".ids.txt") as f:
            self.assertEqual(f.read(), "id\na\nc\nd\ne\n")
        with open(out + ".scores.csv") as f:
            self.assertEqual(f.read(), "id,value\na,1.5\nd,nan\ne,FAILED\n")
        from rdkit import Chem
        from rdkit.Chem import rdMolDescriptors
        want = []
        for smi in ["CCO", "c1ccccc1", "CCN", "CCC"]:
            fp = rdMolDescriptors.GetMorganFingerprintAsBitVect(Chem.MolFromSmiles(smi), 2, nBits=64)
            bits = np.zeros(64, dtype=np.uint8)
            bits[list(fp.GetOnBits())] = 1
            want.append(np.packbits(bits))
        np.testing.assert_array_equal(np.load(out + ".npy"), np.stack(want))

    def test_scored_only_keeps_the_finite_scores(self):
        d = tempfile.mkdtemp()
        src = os.path.join(d, "lib.csv")
        with open(src, "w") as f:
            f.write("smiles,score\nCCO,1.5\nc1ccccc1,\nCCN,nan\nCCC,-2\n")
        out = os.path.join(d, "lib")
        fingerprints.main([src, out, "--scored-only"])
        with open(out + ".ids.txt") as f:
            self.assertEqual(f.read(), "id\nm1\nm4\n")
        with open(out + ".scores.csv") as f:
            self.assertEqual(f.read(), "id,value\nm1,1.5\nm4,-2\n")
        self.assertEqual(np.load(out + ".npy").shape, (2, 256))


if __name__ == "__main__":
    unittest.main()
