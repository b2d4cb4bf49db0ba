#!/bin/sh
# Prove that two commits of qvs write the same records: build qvs at BASE and
# at HEAD, run the same set of campaigns and commands with each binary into
# two folders, and compare every record byte for byte, timings aside.
#
#   scripts/equivalence.sh BASE [HEAD]     e.g. scripts/equivalence.sh main HEAD
#   scripts/equivalence.sh BASE .          HEAD = the working tree, uncommitted changes included
#   scripts/equivalence.sh --list          print the set and exit
#
# Exit status: 0 when every record matches, 1 when any differs (each
# difference is printed: missing files, and the first differing lines of a
# file), 2 on a usage error or a build failure.
#
# Environment: QVS_DATA_DIR (default ../shared/data beside the checkout),
# WORK (default a new temp folder, kept on a difference and removed
# otherwise), KEEP=1 keeps WORK in every case, ONLY="name ..." runs only the
# named items of the set, TAGS (go build tags, default none: pure Go, so
# the two binaries differ only by the code under test).
#
# The set (the paper campaigns' records and the README's commands), scaled
# where a full run takes more than a minute or two on a loaded 2-core machine:
#   as-photoswitch   configs/photoswitch.yaml: every method, both fantasies' grids, 2 repeats (full budget 200)
#   as-bmg           configs/bmg.yaml: every method, 1 repeat, budget 60 (paper: 10 x 200)
#   as-default       `qvs as` (README's first command: synthetic pool, default settings)
#   rover            configs/rover.yaml: every method, 1 repeat, budget 110 (paper: 10 x 800)
#   lunar            configs/lunar.yaml: every method, 1 repeat, budget 22, init 10, batch 6,
#                    3 regions, 300 candidates (paper: 10 x 150, 20 regions, 1,000)
#   synthetic-bo     configs/synthetic-bo.yaml: every method, 1 repeat, budget 60 (paper: 5 x 120)
#   photoswitch-bo   configs/photoswitch-bo.yaml: every method and q, 1 repeat, budget 32 (paper: 10 x 102)
#   own-kernel       README: bayesopt --config own-kernel.yaml --data-dir . (full: 3 repeats)
#   branin           README: bayesopt --space branin-space.yaml --objective-cmd "python3 branin.py"
#                    --minimize, 1 repeat, budget 30 (README: 3 x 60)
#   readme-select    README: both `qvs select` commands
#   readme-score     README: qvs score on kernel3.csv + quality3.csv, q = 0,0.1,1,inf
#   readme-as-suggest    README: both `qvs as suggest` commands
#   readme-bo-suggest    README: the `bayesopt suggest --space` loop, 3 rounds (README: 15)
#   readme-bo-suggest-kernel  README: `bayesopt suggest --kernel` from an empty history, then one round more
#   readme-evaluate  README: qvs bayesopt evaluate --task rover --points (5 points)
#   toy              README: qvs toy (Figure 1)
#   eval             qvs eval over the campaign folders above (tables and figure data)
#
# What is compared: every file the commands write, and each command's
# stdout and exit status (stderr is not compared: it holds progress and
# timings). Timing columns are removed before comparing: the `seconds`
# column of every CSV (summary.csv, runs/KEY.csv, runs/KEY.summary.csv), and
# eval's run times (the "run time" column of OUT/README.md's campaigns
# table, the "(N s of run time)" lines of its stdout). config.yaml is compared without
# its first line (the "written by qvs VERSION" comment) and without a
# top-level `kind:` line (older commits do not record it and infer the
# kind). Lock files are ignored. PNG figures are compared byte for byte.
set -u

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

case "${1:-}" in
-h | --help) usage; exit 0 ;;
--list) usage | sed -n '/^The set/,/^What is compared/p' | sed '$d'; exit 0 ;;
"" | -*) echo "equivalence.sh: usage: scripts/equivalence.sh BASE [HEAD] (see --help)" >&2; exit 2 ;;
esac
BASE=$1
HEAD=${2:-HEAD}

REPO=$(git rev-parse --show-toplevel) || exit 2
DATA=${QVS_DATA_DIR:-$REPO/../shared/data}
DATA=$(cd "$DATA" 2>/dev/null && pwd) || { echo "equivalence.sh: data folder ${QVS_DATA_DIR:-$REPO/../shared/data} not found (set QVS_DATA_DIR)" >&2; exit 2; }
ONLY=${ONLY:-}
TAGS=${TAGS:-}
GO=${GO:-go}
if [ -n "${WORK:-}" ]; then
	mkdir -p "$WORK" || exit 2
else
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/qvs-equivalence.XXXXXX") || exit 2
fi
WORK=$(cd "$WORK" && pwd)

# build REV NAME: qvs at REV into $WORK/NAME/qvs, the tree at $WORK/NAME/src.
build() {
	rev=$1
	dir=$WORK/$2
	rm -rf "$dir" && mkdir -p "$dir/src" || return 1
	if [ "$rev" = . ]; then
		# The working tree: tracked and untracked files that git does not ignore.
		(cd "$REPO" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$dir/src" || return 1
		desc="working tree ($(git -C "$REPO" describe --always --dirty))"
	else
		git -C "$REPO" rev-parse --verify -q "$rev^{commit}" >/dev/null || { echo "equivalence.sh: unknown commit $rev" >&2; return 1; }
		git -C "$REPO" archive "$rev" | tar -xf - -C "$dir/src" || return 1
		desc="$rev ($(git -C "$REPO" rev-parse --short "$rev"))"
	fi
	echo "== building qvs at $desc"
	(cd "$dir/src" && $GO build -tags "$TAGS" -o "$dir/qvs" .) || { echo "equivalence.sh: build of $desc failed" >&2; return 1; }
}

selected() {
	[ -z "$ONLY" ] && return 0
	for o in $ONLY; do [ "$o" = "$1" ] && return 0; done
	return 1
}

# run NAME ARGS...: one qvs command in $OUT (inputs from $IN), its stdout in
# $OUT/NAME.stdout and exit status in $OUT/NAME.rc.
run() {
	name=$1
	shift
	t0=$(date +%s)
	(cd "$OUT" && "$QVS" "$@" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr")
	echo $? >"$OUT/$name.rc"
	printf '   %-26s exit %s, %3d s\n' "$name" "$(cat "$OUT/$name.rc")" $(($(date +%s) - t0))
}

# campaigns SIDE: every item of the set with $WORK/SIDE/qvs into $WORK/SIDE/out.
# Inputs (configs/, examples/) are BASE's for both sides, so the commands
# are the same and only the binary differs.
campaigns() {
	QVS=$WORK/$1/qvs
	OUT=$WORK/$1/out
	IN=$WORK/base/src
	rm -rf "$OUT" && mkdir -p "$OUT" || return 1
	cp -R "$IN/examples/." "$OUT/" || return 1
	cp -R "$IN/configs" "$OUT/configs" || return 1
	echo "== running the set with $1's qvs in $OUT"
	G="--data-dir $DATA --cache-dir $WORK/$1/cache --workers 2 --quiet"
	# shellcheck disable=SC2086 # G is a list of words by design
	{
		selected as-photoswitch && run as-photoswitch as --config configs/photoswitch.yaml --repeats 2 --out c/photoswitch $G
		selected as-bmg && run as-bmg as --config configs/bmg.yaml --repeats 1 --budget 60 --out c/bmg $G
		selected as-default && run as-default as --out c/synthetic $G
		selected rover && run rover bayesopt --config configs/rover.yaml --repeats 1 --budget 110 --out c/rover $G
		selected lunar && run lunar bayesopt --config configs/lunar.yaml --repeats 1 --budget 22 --init 10 --batch 6 --regions 3 --candidates 300 --out c/lunar $G
		selected synthetic-bo && run synthetic-bo bayesopt --config configs/synthetic-bo.yaml --repeats 1 --budget 60 --out c/synthetic-bo $G
		selected photoswitch-bo && run photoswitch-bo bayesopt --config configs/photoswitch-bo.yaml --repeats 1 --budget 32 --out c/photoswitch-bo $G
		selected own-kernel && run own-kernel bayesopt --config own-kernel.yaml --data-dir . --cache-dir "$WORK/$1/cache" --workers 2 --quiet --out c/own-kernel
		selected branin && run branin bayesopt --space branin-space.yaml --objective-cmd "python3 branin.py" --minimize \
			--repeats 1 --budget 30 --init 10 --batch 5 --objective-timeout 1m --out c/branin --workers 2 --quiet
	}
	if selected readme-select; then
		run readme-select-1 select --kernel kernel3.csv --quality quality3.csv --k 2 --q 1
		run readme-select-2 select --embeddings own-pool.csv --id-column id --embedding-kernel rbf --k 5 --q 1
	fi
	selected readme-score && run readme-score score --kernel kernel3.csv --quality quality3.csv --q 0,0.1,1,inf
	if selected readme-as-suggest; then
		run readme-as-suggest-1 as suggest --pool own-pool.csv --id-column id --feature-prefix x --observed own-labels.csv --batch 5
		run readme-as-suggest-2 as suggest --config own-pool.yaml --observed own-labels.csv --batch 5
	fi
	if selected readme-bo-suggest; then
		echo "x1,x2,value,region" >"$OUT/my-evals.csv"
		for round in 1 2 3; do
			run readme-bo-suggest-$round bayesopt suggest --space branin-space.yaml --observed my-evals.csv --batch 5 --minimize
			(cd "$OUT" && python3 branin.py --rows <"readme-bo-suggest-$round.stdout" >>my-evals.csv) ||
				echo "   branin.py failed on round $round" >>"$OUT/readme-bo-suggest-$round.stdout"
		done
	fi
	if selected readme-bo-suggest-kernel; then
		printf 'id,value\n' >"$OUT/my-kernel-evals.csv"
		run readme-bo-suggest-kernel-1 bayesopt suggest --kernel own-kernel.csv --ids own-kernel-items.csv --observed my-kernel-evals.csv --batch 5
		# Measure the five suggested items (their values in the table), ask again.
		(cd "$OUT" && awk -F, 'NR == FNR { if (FNR > 1) v[$1] = $2; next } FNR > 1 { print $3 "," v[$3] }' \
			own-kernel-items.csv readme-bo-suggest-kernel-1.stdout >>my-kernel-evals.csv)
		run readme-bo-suggest-kernel-2 bayesopt suggest --kernel own-kernel.csv --ids own-kernel-items.csv --observed my-kernel-evals.csv --batch 5
	fi
	if selected readme-evaluate; then
		printf '%s\n' 0.1 0.2 0.3 0.4 0.5 | awk '{ s = ""; for (j = 0; j < 60; j++) s = s (j ? "," : "") sprintf("%.4f", -0.03 + 0.09 * (($1 + j / 100) % 1)); print s }' >"$OUT/rover-points.csv"
		run readme-evaluate bayesopt evaluate --task rover --points rover-points.csv
	fi
	selected toy && run toy toy --out c/toy --workers 2 --quiet
	selected eval && [ -d "$OUT/c" ] && run eval eval c --out c-eval $G
	return 0
}

# strip FILE: FILE as compared (timing columns and lines removed).
strip() {
	case "$1" in
	*.csv)
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) drop[i] = ($i == "seconds") }
			{ s = ""; n = 0; for (i = 1; i <= NF; i++) if (!drop[i]) { s = s (n++ ? "," : "") $i }; print s }' "$1"
		;;
	*/config.yaml) sed '1{/^# /d;}' "$1" | grep -v '^kind:' ;;
	*/c-eval/README.md)
		# The campaigns table's "run time (sum over runs)" column.
		awk -F'|' -v OFS='|' '/run time/ { t = 1 } t && /^\|/ { $5 = "" } !/^\|/ { t = 0 } { print }' "$1"
		;;
	*eval.stdout) grep -v 'of run time' "$1" ;;
	*) cat "$1" ;;
	esac
}

compare() {
	a=$WORK/base/out
	b=$WORK/head/out
	(cd "$a" && find . -type f ! -name '*.lock' ! -name '.*' ! -name '*.stderr' | sort) >"$WORK/files.base"
	(cd "$b" && find . -type f ! -name '*.lock' ! -name '.*' ! -name '*.stderr' | sort) >"$WORK/files.head"
	ndiff=0
	nsame=0
	comm -23 "$WORK/files.base" "$WORK/files.head" | sed 's|^\./||' | while read -r f; do echo "DIFF only in base: $f"; done
	comm -13 "$WORK/files.base" "$WORK/files.head" | sed 's|^\./||' | while read -r f; do echo "DIFF only in head: $f"; done
	ndiff=$(comm -3 "$WORK/files.base" "$WORK/files.head" | wc -l)
	for f in $(comm -12 "$WORK/files.base" "$WORK/files.head"); do
		f=${f#./}
		strip "$a/$f" >"$WORK/cmp.base"
		strip "$b/$f" >"$WORK/cmp.head"
		if cmp -s "$WORK/cmp.base" "$WORK/cmp.head"; then
			nsame=$((nsame + 1))
		else
			ndiff=$((ndiff + 1))
			echo "DIFF $f"
			case "$f" in
			*.png | *.npy) cmp "$WORK/cmp.base" "$WORK/cmp.head" | sed 's/^/    /' ;;
			*) diff "$WORK/cmp.base" "$WORK/cmp.head" | head -8 | sed 's/^/    /' ;;
			esac
		fi
	done
	nrec=$(grep -c '/runs/.*\.csv$\|summary\.csv$' "$WORK/files.base")
	echo "== compared $((nsame + ndiff)) files ($nrec campaign record files): $nsame identical, $ndiff different"
	[ "$ndiff" = 0 ]
}

build "$BASE" base || exit 2
build "$HEAD" head || exit 2
start=$(date +%s)
campaigns base || exit 2
campaigns head || exit 2
echo "== runs took $(($(date +%s) - start)) s (load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"
if compare; then
	echo "equivalence: $BASE and $HEAD write identical records (timings aside)"
	[ "${KEEP:-0}" = 1 ] && echo "kept $WORK" || rm -rf "$WORK"
	exit 0
fi
echo "equivalence: $BASE and $HEAD DIFFER (folders kept in $WORK)" >&2
exit 1
