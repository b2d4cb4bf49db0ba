#!/usr/bin/env python3
"""A noisy Branin "experiment" for the qvs examples (standard library only).

Reads a CSV on stdin whose header names x1 and x2 (other columns, such as
the rank and region that `qvs bayesopt suggest` prints, are ignored) and
prints, per row,

  default:  the measured value, one per line (the --objective-cmd protocol);
  --rows:   x1,x2,value,region lines to append to an evaluation file.

Branin's minimum is 0.397887 (at (-pi, 12.275), (pi, 2.275) and
(9.42478, 2.475)); the noise (sd 0.01 by default, --noise SD) is drawn from
a generator seeded by the point itself, so the same point always measures
the same and reruns are reproducible.
"""
import csv
import math
import random
import sys


def branin(x1, x2):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x2 - b * x1 ** 2 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10


def main(argv):
    rows_mode = "--rows" in argv
    noise = 0.01
    if "--noise" in argv:
        noise = float(argv[argv.index("--noise") + 1])
    for row in csv.DictReader(sys.stdin):
        x1, x2 = float(row["x1"]), float(row["x2"])
        rng = random.Random(f"{row['x1']},{row['x2']}")
        value = branin(x1, x2) + rng.gauss(0, noise)
        if rows_mode:
            print(f"{row['x1']},{row['x2']},{value!r},{row.get('region', '-1')}")
        else:
            print(repr(value))


if __name__ == "__main__":
    main(sys.argv[1:])
