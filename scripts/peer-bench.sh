#!/bin/sh
# peer-bench.sh: qvs's methods beside Optuna (TPE, CMA-ES, random) on
# Ackley-10, Levy-8, Styblinski-Tang-6 and Rosenbrock-5; writes the table
# into docs/performance.md between the markers <!-- peer-bench --> and
# <!-- /peer-bench -->. Not part of make test.
#
#   scripts/peer-bench.sh [--seeds 3] [--functions Ackley-10,Levy-8,...]
#
# It installs Debian's python3-optuna (apt-get, as root) when
# /usr/bin/python3 cannot import optuna. Runtime: 10 methods x 4 functions x
# 3 seeds of 100 evaluations; the qvs runs dominate (20 suggest calls each):
# about 30-40 min on 2 idle cores, much longer on a loaded machine.
set -eu
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
if ! $PY -c 'import optuna' 2>/dev/null; then
	echo "peer-bench: installing python3-optuna" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-optuna >&2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/qvs" .
$PY scripts/peer_bench.py "$tmp/qvs" "$tmp/table.md" "$@"
date=$(date -u +%Y-%m-%d)
load=$(cut -d' ' -f1-3 /proc/loadavg)
$PY - "$tmp/table.md" "$date" "$load" "$*" <<'PYEOF'
import sys
table, date, load, args = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], sys.argv[4]
doc = "docs/performance.md"
text = open(doc).read()
block = ("<!-- peer-bench -->\nscripts/peer-bench.sh %s (%s, load average at the end %s):\n\n%s<!-- /peer-bench -->"
         % (args, date, load, table))
start, end = text.find("<!-- peer-bench -->"), text.find("<!-- /peer-bench -->")
if start >= 0 and end > start:
    text = text[:start] + block + text[end + len("<!-- /peer-bench -->"):]
else:
    text += "\n" + block + "\n"
open(doc, "w").write(text)
PYEOF
echo "peer-bench: table written to docs/performance.md" >&2
