#!/usr/bin/env bash
# Fetch the third-party data the qvs tests and campaigns read, and verify it.
#
#   scripts/fetch-data.sh [DIR]     (make data)
#
# DIR defaults to $QVS_DATA_DIR, else ../shared/data beside this checkout
# (where qvs and its tests look). Every file of scripts/data.sha256 is
# downloaded from its upstream URL (a pinned commit or release) into
# DIR/PATH.part, resumed if a .part is already there, checked against its
# sha256 and only then renamed to DIR/PATH, so DIR never holds a file that
# failed verification. Files already present and verified are skipped;
# a present file with another sha256 is reported and left alone.
#
# Environment:
#   QVS_DATA_MIRROR    fetch from a mirror instead of upstream: a local folder
#                      or a URL (http://, https://, file://) laid out like DIR;
#                      file PATH is then taken from $QVS_DATA_MIRROR/PATH
#   QVS_DATA_MANIFEST  another manifest (default scripts/data.sha256)
#
# Needs bash, curl and sha256sum. Exit status 0 if every file is verified,
# 1 if some could not be fetched or verified (each named on stderr), 2 on
# bad usage.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
manifest="${QVS_DATA_MANIFEST:-$here/data.sha256}"
if [ $# -gt 1 ]; then
	echo "usage: $0 [DIR]" >&2
	exit 2
fi
dest="${1:-${QVS_DATA_DIR:-$root/../shared/data}}"
mirror="${QVS_DATA_MIRROR:-}"
for tool in curl sha256sum; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "fetch-data: $tool is needed but not installed" >&2
		exit 2
	fi
done
if [ ! -r "$manifest" ]; then
	echo "fetch-data: manifest $manifest not found" >&2
	exit 2
fi
# A local mirror folder is read through curl's file:// so that resuming
# works the same way as for a download.
case "$mirror" in
"" | *://*) ;;
*)
	if [ ! -d "$mirror" ]; then
		echo "fetch-data: QVS_DATA_MIRROR=$mirror is neither a folder nor a URL" >&2
		exit 2
	fi
	mirror="file://$(cd "$mirror" && pwd)"
	;;
esac

sha() { sha256sum "$1" | cut -d' ' -f1; }

ok=0 fetched=0 failed=0
while read -r want path url; do
	case "$want" in "" | \#*) continue ;; esac
	target="$dest/$path"
	if [ -f "$target" ]; then
		got="$(sha "$target")"
		if [ "$got" = "$want" ]; then
			ok=$((ok + 1))
			continue
		fi
		echo "fetch-data: $target exists but its sha256 is $got, expected $want: delete it and rerun" >&2
		failed=$((failed + 1))
		continue
	fi
	src="$url"
	if [ -n "$mirror" ]; then
		src="${mirror%/}/$path"
	fi
	mkdir -p "$(dirname "$target")" || {
		failed=$((failed + 1))
		continue
	}
	part="$target.part"
	# A complete .part left by an interrupted run needs no download.
	if [ ! -f "$part" ] || [ "$(sha "$part")" != "$want" ]; then
		echo "fetch-data: $path <- $src" >&2
		if ! curl -fsSL --retry 3 -C - -o "$part" "$src"; then
			echo "fetch-data: $path: download from $src failed (rerun to resume)" >&2
			failed=$((failed + 1))
			continue
		fi
	fi
	got="$(sha "$part")"
	if [ "$got" != "$want" ]; then
		# A wrong .part cannot be resumed into a right file: start over next time.
		rm -f "$part"
		echo "fetch-data: $path from $src has sha256 $got, expected $want: not installed" >&2
		failed=$((failed + 1))
		continue
	fi
	mv -f "$part" "$target"
	fetched=$((fetched + 1))
done <"$manifest"

echo "fetch-data: $dest: $fetched fetched, $ok already verified, $failed failed" >&2
[ "$failed" -eq 0 ]
