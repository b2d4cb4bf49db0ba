#!/usr/bin/env bash
# Sums up the tests skipped for missing data in one line (make test).
#
#   scripts/skipped-data.sh LOG
#
# LOG holds one "TEST<tab>REASON" line per skipped test, written by the test
# binaries (internal/testutil, QVS_SKIP_LOG). Prints nothing when LOG is
# empty or absent; always exits 0, so make test keeps go test's status.
log="${1:-}"
[ -n "$log" ] && [ -s "$log" ] || exit 0
n=$(wc -l <"$log")
# The most frequent reason, and how many others there are.
reasons=$(cut -f2- "$log" | sort | uniq -c | sort -rn)
top=$(echo "$reasons" | head -1 | sed -E 's/^ *[0-9]+ //')
others=$(($(echo "$reasons" | wc -l) - 1))
more=""
[ "$others" -gt 0 ] && more=" (and $others other reason(s))"
echo "make test: $n test(s) skipped for missing data: $top$more; go test -v ./... names them"
exit 0
