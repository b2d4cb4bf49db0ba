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


def run(body, *flags):
    """Runs fingerprints.py on a CSV of body; returns its ids file, its
    scores file (text) and its packed fingerprints."""
    d = tempfile.mkdtemp()
    src, out = os.path.join(d, "lib.csv"), os.path.join(d, "lib")
    with open(src, "w") as f:
        f.write(body)
    fingerprints.main([src, out] + list(flags))
    with open(out + ".ids.txt") as f, open(out + ".scores.csv") as g:
        return f.read(), g.read(), np.load(out + ".npy")


class PartlyScored(unittest.TestCase):
    def test_unscored_molecules_stay_in_the_pool(self):
        ids, scores, packed = run("name,smiles,ic50\na,CCO,1.5\nb,notasmiles,2\nc,c1ccccc1,\nd,CCN,nan\ne,CCC,FAILED\nf,CO,abc\n",
                                  "--id-column", "name", "--score-column", "ic50", "--bits", "64")
        self.assertEqual(ids, "id\na\nc\nd\ne\n")
        self.assertEqual(scores, "id,value\na,1.5\nd,nan\ne,FAILED\n")
        from rdkit import Chem
        from rdkit.Chem import rdMolDescriptors
        want = []
        for smi in ["CCO", "c1ccccc1", "CCN", "CCC"]:
            fp = rdMolDescriptors.GetMorganFingerprintAsBitVect(Chem.MolFromSmiles(smi), 2, nBits=64)
            bits = np.zeros(64, dtype=np.uint8)
            bits[list(fp.GetOnBits())] = 1
            want.append(np.packbits(bits))
        np.testing.assert_array_equal(packed, np.stack(want))

    def test_scored_only_keeps_the_finite_scores(self):
        ids, scores, packed = run("smiles,score\nCCO,1.5\nc1ccccc1,\nCCN,nan\nCCC,-2\n", "--scored-only")
        self.assertEqual(ids, "id\nm1\nm4\n")
        self.assertEqual(scores, "id,value\nm1,1.5\nm4,-2\n")
        self.assertEqual(packed.shape, (2, 256))

    def test_a_missing_score_column_is_an_error_when_needed(self):
        # named by --score-column, or needed by --scored-only: exit 2 (the
        # molecules were kept without scores); the default column is optional
        for flags in (["--score-column", "ic50"], ["--scored-only"]):
            with self.assertRaises(SystemExit) as e:
                run("smiles,score_\nCCO,1.5\n", *flags)
            self.assertEqual(e.exception.code, 2, flags)
        d = tempfile.mkdtemp()
        src, out = os.path.join(d, "lib.csv"), os.path.join(d, "lib")
        with open(src, "w") as f:
            f.write("smiles\nCCO\n")
        fingerprints.main([src, out])
        self.assertFalse(os.path.exists(out + ".scores.csv"))

if __name__ == "__main__":
    unittest.main()
