#!/usr/bin/python3
"""Fingerprints of a SMILES table, packed for qvs, with ids and scores.

    fingerprints.py IN.csv[.gz] OUT_PREFIX [--smiles-column smiles]
        [--score-column score] [--scored-only] [--id-column COL]
        [--type morgan|atompair] [--radius 2] [--bits 2048]

Reads a CSV (gzip-compressed when the name ends in .gz or the file starts
with gzip's magic bytes) with a header row and writes:

  OUT_PREFIX.npy         N x ceil(bits/8) uint8, numpy.packbits of each
                         fingerprint (most significant bit first): the
                         packed format qvs reads (`--pool OUT_PREFIX.npy
                         --metric tanimoto`, internal/datasets/npypool.go);
  OUT_PREFIX.ids.txt     one id per line after the header `id`, one per row
                         of the .npy (`--ids OUT_PREFIX.ids.txt`);
  OUT_PREFIX.scores.csv  `id,value` (when the score column exists): the
                         scores of the same rows, as written in the input;
                         a molecule whose score cell is empty (not measured
                         yet) is in the .npy and the ids but not here, and
                         one whose score is nan or failed (any case: a
                         failed measurement, as qvs reads it) is here as
                         written. --scored-only leaves out of every file
                         the molecules without a finite score, for `qvs as
                         replay`, which needs every molecule's score.

Ids are the --id-column's cells, else `m` and the molecule's data row
number in the input (m1 is the first row after the header), so an id names
the same molecule whatever rows were skipped. Fingerprints: `morgan` is
RDKit's Morgan (ECFP-like) bit vector of --radius and --bits; `atompair`
RDKit's hashed atom-pair bit vector of --bits. Rows whose SMILES RDKit
cannot parse, or whose score is neither a finite number, empty, nan nor
failed, are skipped and reported on stderr (their count and the first few, with row numbers); the
exit status is 1 when no row is left, 2 for a bad command line or a missing
column. RDKit's own parse warnings are silenced (the report replaces them).

RDKit is Debian's python3-rdkit: run with /usr/bin/python3. When it cannot
import rdkit and runs as root, the script installs python3-rdkit with
apt-get, as scripts/peer-bench.sh does for optuna.
"""
import argparse
import csv
import gzip
import io
import math
import os
import subprocess
import sys

import numpy as np

SHOW = 5  # skipped rows listed by number


def import_rdkit():
    try:
        from rdkit import Chem, RDLogger  # noqa: F401
    except ImportError:
        if os.geteuid() != 0:
            sys.exit("fingerprints: RDKit missing: apt-get install python3-rdkit (as root), then run with /usr/bin/python3")
        print("fingerprints: installing python3-rdkit", file=sys.stderr)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "python3-rdkit"],
                       check=True, stdout=sys.stderr, env=env)
    from rdkit import Chem, RDLogger
    from rdkit.Chem import rdMolDescriptors
    RDLogger.DisableLog("rdApp.*")
    return Chem, rdMolDescriptors


def open_text(path):
    """A text reader of path, gunzipped when it starts with gzip's magic."""
    f = open(path, "rb")
    magic = f.read(2)
    f.seek(0)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.GzipFile(fileobj=f), encoding="utf-8", newline="")
    return io.TextIOWrapper(f, encoding="utf-8", newline="")


def fingerprint(chem, desc, mol, kind, radius, nbits):
    if kind == "morgan":
        fp = desc.GetMorganFingerprintAsBitVect(mol, radius, nBits=nbits)
    else:
        fp = desc.GetHashedAtomPairFingerprintAsBitVect(mol, nBits=nbits)
    bits = np.zeros(nbits, dtype=np.uint8)
    on = list(fp.GetOnBits())
    bits[on] = 1
    return bits


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input")
    ap.add_argument("out_prefix")
    ap.add_argument("--smiles-column", default="smiles")
    ap.add_argument("--score-column", default=None,
                    help="written to OUT_PREFIX.scores.csv (default score, when the column exists; "
                         "a column named here, or with --scored-only, must exist)")
    ap.add_argument("--scored-only", action="store_true",
                    help="skip molecules whose score is empty, nan or failed (a replay needs every score)")
    ap.add_argument("--id-column", default="")
    ap.add_argument("--type", choices=["morgan", "atompair"], default="morgan")
    ap.add_argument("--radius", type=int, default=2)
    ap.add_argument("--bits", type=int, default=2048)
    a = ap.parse_args(argv)
    if a.bits < 1 or a.radius < 0:
        ap.error("--bits must be at least 1 and --radius at least 0")
    chem, desc = import_rdkit()

    with open_text(a.input) as f:
        rd = csv.reader(f)
        try:
            header = next(rd)
        except StopIteration:
            sys.exit("%s: empty file, expected a header row" % a.input)
        header = [h.strip() for h in header]

        def col(name, flag, required):
            if name in header:
                return header.index(name)
            if required:
                print("%s: no column %r (%s); the header has %s" % (a.input, name, flag, ", ".join(header)),
                      file=sys.stderr)
                sys.exit(2)
            return -1

        si = col(a.smiles_column, "--smiles-column", True)
        ii = col(a.id_column, "--id-column", True) if a.id_column else -1
        # the default column is optional, unless --scored-only needs it
        vi = col(a.score_column or "score", "--score-column", a.score_column is not None or a.scored_only)

        rows, ids, scores, bad = [], [], [], []
        seen = {}
        for r, cells in enumerate(rd, start=1):
            line = r + 1
            if not cells:
                continue
            if len(cells) != len(header):
                bad.append("row %d (line %d): %d cells, expected %d" % (r, line, len(cells), len(header)))
                continue
            smi = cells[si].strip()
            mid = cells[ii] if ii >= 0 else "m%d" % r
            if ii >= 0 and (mid == "" or mid in seen):
                sys.exit("%s: row %d (line %d): id %r is empty or repeats row %s; ids must be unique"
                         % (a.input, r, line, mid, seen.get(mid, "")))
            score = None
            if vi >= 0:
                score = cells[vi].strip()
                if not score_ok(score):
                    bad.append("row %d (line %d): score %r is not a finite number, empty, nan or failed" % (r, line, score))
                    continue
                if a.scored_only and not finite(score):
                    bad.append("row %d (line %d): score %r is not a finite number (--scored-only)" % (r, line, score))
                    continue
            mol = chem.MolFromSmiles(smi) if smi else None
            if mol is None:
                bad.append("row %d (line %d): RDKit cannot parse SMILES %r" % (r, line, smi))
                continue
            seen[mid] = r
            rows.append(np.packbits(fingerprint(chem, desc, mol, a.type, a.radius, a.bits)))
            ids.append(mid)
            scores.append(score)

    if bad:
        print("fingerprints: %s: skipped %d row(s); first %d:" % (a.input, len(bad), min(SHOW, len(bad))),
              file=sys.stderr)
        for b in bad[:SHOW]:
            print("  " + b, file=sys.stderr)
    if not rows:
        sys.exit("%s: no molecule left" % a.input)
    packed = np.stack(rows).astype(np.uint8)
    write_atomic(a.out_prefix + ".npy", lambda f: np.save(f, packed), binary=True)
    write_atomic(a.out_prefix + ".ids.txt", lambda f: f.write("id\n" + "".join(i + "\n" for i in ids)))
    if vi >= 0:
        scored = [[i, v] for i, v in zip(ids, scores) if v != ""]
        write_atomic(a.out_prefix + ".scores.csv",
                     lambda f: csv.writer(f, lineterminator="\n").writerows([["id", "value"]] + scored))
        if len(scored) < len(ids):
            print("fingerprints: %d of %d molecules have no score yet (an empty cell): in the pool, not in %s.scores.csv"
                  % (len(ids) - len(scored), len(ids), a.out_prefix), file=sys.stderr)
    print("fingerprints: %d molecules, %s %d bits%s -> %s.npy" %
          (len(rows), a.type, a.bits, " radius %d" % a.radius if a.type == "morgan" else "", a.out_prefix),
          file=sys.stderr)


def finite(cell):
    """Whether a score cell is a finite number."""
    try:
        return math.isfinite(float(cell))
    except ValueError:
        return False


def score_ok(cell):
    """Whether a score cell is kept: a finite number, empty (not measured
    yet), or nan or failed in any case (a failed measurement)."""
    return cell == "" or cell.lower() in ("nan", "failed") or finite(cell)


def write_atomic(path, fill, binary=False):
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "wb" if binary else "w", newline=None if binary else "") as f:
        fill(f)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
