#!/bin/sh
# mixed-bench.sh: qvs beside Optuna (TPE, random) on mixed spaces
# (categorical and conditional parameters) and on a space whose third
# fails; writes the table into docs/results.md between the markers
# <!-- mixed-bench --> and <!-- /mixed-bench -->. Not part of make test.
#
#   scripts/mixed-bench.sh [--seeds 3] [--problems switch,svc,svc-fail]
#
# Needs /usr/bin/python3 with optuna and scikit-learn (Debian's
# python3-optuna and python3-sklearn). Runtime: 4 methods x 3 problems x N
# seeds of 60 evaluations, about 20 s per seed on 2 cores (10 min for 30).
set -eu
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
if ! $PY -c 'import optuna, sklearn' 2>/dev/null; then
	echo "mixed-bench: /usr/bin/python3 needs optuna and scikit-learn (apt-get install python3-optuna python3-sklearn)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/qvs" .
$PY scripts/mixed_bench.py "$tmp/qvs" "$tmp/table.md" "$@"
load=$(cut -d' ' -f1-3 /proc/loadavg)
$PY - "$tmp/table.md" "$load" "$*" <<'PYEOF'
import sys
table, load, args = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
doc = "docs/results.md"
text = open(doc).read()
block = ("<!-- mixed-bench -->\nscripts/mixed-bench.sh %s (load average at the end %s):\n\n%s<!-- /mixed-bench -->"
         % (args, load, table))
start, end = text.find("<!-- mixed-bench -->"), text.find("<!-- /mixed-bench -->")
if start >= 0 and end > start:
    text = text[:start] + block + text[end + len("<!-- /mixed-bench -->"):]
else:
    text += "\n" + block + "\n"
open(doc, "w").write(text)
PYEOF
echo "mixed-bench: table written to docs/results.md" >&2
