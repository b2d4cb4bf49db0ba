#!/bin/sh
# screen-bench.sh: qvs's scored search beside the usual peers (random, a
# random forest, a NumPy Tanimoto GP) on a fully scored screening library,
# the same fingerprints, seeds and initial batches for every method
# (scripts/screen_bench.py); writes the table into docs/results.md between
# the markers <!-- screen-bench NAME --> and <!-- /screen-bench NAME -->,
# NAME the library file's name. Not part of make test.
#
#   scripts/screen-bench.sh LIBRARY.csv[.gz] [--seeds 5] [--maximize]
#       [--smiles-column smiles] [--score-column score] [--type morgan]
#       [--init 0.01] [--batch 0.01] [--rounds 5] [--top 0.01]
#       [--methods random,rf,gp,qvs,qvs-greedy]
#
# LIBRARY holds SMILES and scores (lower is better unless --maximize);
# fingerprints (scripts/fingerprints.py) are cached under .cache/screen-bench.
# It installs Debian's python3-rdkit and python3-sklearn (apt-get, as root)
# when /usr/bin/python3 cannot import them. Runtime on 2 idle cores, 5 seeds
# of MolPAL's Enamine 10k: about 10 min (the random forest dominates).
set -eu
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
[ $# -ge 1 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
lib=$1
shift
for mod in rdkit:python3-rdkit sklearn:python3-sklearn scipy:python3-scipy; do
	if ! $PY -c "import ${mod%%:*}" 2>/dev/null; then
		echo "screen-bench: installing ${mod#*:}" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${mod#*:}" >&2
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/qvs" .
mkdir -p .cache/screen-bench
$PY scripts/screen_bench.py "$lib" "$tmp/table.md" --qvs "$tmp/qvs" --cache .cache/screen-bench "$@"
name=$(basename "$lib")
name=${name%.gz}
name=${name%.csv}
load=$(cut -d' ' -f1-3 /proc/loadavg)
$PY - "$tmp/table.md" "$name" "$load" "$(basename "$lib") $*" <<'PYEOF'
import sys
table, name, load, args = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], sys.argv[4]
doc = "docs/results.md"
text = open(doc).read()
open_m, close_m = "<!-- screen-bench %s -->" % name, "<!-- /screen-bench %s -->" % name
block = ("%s\n`scripts/screen-bench.sh %s` (load average at the end %s):\n\n%s%s"
         % (open_m, args, load, table, close_m))
start, end = text.find(open_m), text.find(close_m)
if start >= 0 and end > start:
    text = text[:start] + block + text[end + len(close_m):]
else:
    text += "\n" + block + "\n"
open(doc, "w").write(text)
PYEOF
echo "screen-bench: table written to docs/results.md" >&2
