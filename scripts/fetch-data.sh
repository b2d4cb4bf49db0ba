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
# Before downloading, the source of the first missing file is probed once
# with short timeouts: without network the script fails within seconds
# (not after every file's retries) and creates nothing. A download that
# fails to connect stops the rest the same way. Folders made for a file
# that was not installed are removed again.
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

# Short timeouts: a host that does not answer fails in seconds.
curlopts=(-fsSL --connect-timeout 10 --retry 3 --retry-connrefused --retry-max-time 60)

# source PATH URL: where file PATH is fetched from.
source_of() {
	if [ -n "$mirror" ]; then
		echo "${mirror%/}/$1"
	else
		echo "$2"
	fi
}

# Probe the first missing file's source once (HEAD, or a 1-byte range for
# servers that refuse HEAD): no network means one clear error, not minutes
# of retries per file.
probe=""
while read -r want path url; do
	case "$want" in "" | \#*) continue ;; esac
	[ -f "$dest/$path" ] && continue
	probe="$(source_of "$path" "$url")"
	break
done <"$manifest"
if [ -n "$probe" ] && [ "${probe#file://}" = "$probe" ]; then
	if ! out="$(curl -fsS --connect-timeout 5 --max-time 15 -r 0-0 -o /dev/null "$probe" 2>&1)"; then
		host="$(echo "$probe" | sed -E 's#^[a-z]+://([^/]+).*#\1#')"
		echo "fetch-data: cannot reach $host ($out): no network? Nothing was fetched." >&2
		echo "fetch-data: rerun with network, or set QVS_DATA_MIRROR to a folder or URL holding the files (see scripts/fetch-data.sh)" >&2
		exit 1
	fi
fi

# made DIR...: remove the folders of a file that was not installed, if
# they are empty (deepest first).
remove_empty() {
	local d
	for ((i = $# ; i > 0 ; i--)); do
		d="${!i}"
		rmdir "$d" 2>/dev/null || break
	done
}

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
	src="$(source_of "$path" "$url")"
	# The folders this file needs that do not exist yet, outermost first.
	made=()
	d="$(dirname "$target")"
	while [ ! -d "$d" ]; do
		made=("$d" "${made[@]}")
		d="$(dirname "$d")"
	done
	mkdir -p "$(dirname "$target")" || {
		failed=$((failed + 1))
		continue
	}
	part="$target.part"
	# A complete .part left by an interrupted run needs no download.
	if [ ! -f "$part" ] || [ "$(sha "$part")" != "$want" ]; then
		echo "fetch-data: $path <- $src" >&2
		curl "${curlopts[@]}" -C - -o "$part" "$src"
		rc=$?
		if [ "$rc" -ne 0 ]; then
			[ -s "$part" ] || rm -f "$part"
			remove_empty "${made[@]}"
			echo "fetch-data: $path: download from $src failed (curl exit $rc; rerun to resume)" >&2
			failed=$((failed + 1))
			case "$rc" in
			6 | 7 | 28) # could not resolve, connect, or timed out: the network is gone
				echo "fetch-data: the network went away: stopping (rerun to resume)" >&2
				break
				;;
			esac
			continue
		fi
	fi
	got="$(sha "$part")"
	if [ "$got" != "$want" ]; then
		# A wrong .part cannot be resumed into a right file: start over next time.
		rm -f "$part"
		remove_empty "${made[@]}"
		echo "fetch-data: $path from $src has sha256 $got, expected $want: not installed" >&2
		failed=$((failed + 1))
		continue
	fi
	mv -f "$part" "$target"
	fetched=$((fetched + 1))
done <"$manifest"

echo "fetch-data: $dest: $fetched fetched, $ok already verified, $failed failed" >&2
[ "$failed" -eq 0 ]
