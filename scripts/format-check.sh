#!/usr/bin/env bash
# Style gate run by `make format-check` (and so by `make test`):
#  1. strict: `clang-format --dry-run --Werror` on the files listed in scripts/format-files.txt;
#  2. cheap, on every C file under src/, include/ and tests/: no line over 110 columns (tabs
#     count to the next multiple of 8), no trailing whitespace, no CRLF, indentation made of
#     tabs (a space before a tab, or 8 spaces in a row, in the leading whitespace is an error;
#     fewer than 8 spaces after the tabs are alignment and allowed).
# Prints FILE:LINE: reason for each violation; exits 1 if there is any.
set -uo pipefail
cd "$(dirname "$0")/.."

MAX_COLS=${MAX_COLS:-110}
LIST=scripts/format-files.txt
status=0

if [ -s "$LIST" ]; then
	mapfile -t strict < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$LIST")
	if [ ${#strict[@]} -gt 0 ]; then
		if ! command -v clang-format >/dev/null; then
			echo "format-check: clang-format not found (scripts/install-deps.sh)" >&2
			exit 1
		fi
		for f in "${strict[@]}"; do
			if [ ! -f "$f" ]; then
				echo "$f: listed in $LIST but missing"
				status=1
				continue
			fi
			if ! out=$(clang-format --dry-run --Werror "$f" 2>&1); then
				printf '%s\n' "$out" | grep -E '^[^ ]+:[0-9]+:[0-9]+: ' | head -20
				echo "$f: differs from clang-format output (clang-format -i $f)"
				status=1
			fi
		done
	fi
fi

DIRS=${FORMAT_DIRS:-src include tests}
# shellcheck disable=SC2086
mapfile -t files < <(find $DIRS -type f \( -name '*.c' -o -name '*.h' \) \
	-not -path '*/corpus/*' 2>/dev/null | sort)
if [ ${#files[@]} -gt 0 ]; then
	awk -v max="$MAX_COLS" '
	function width(s,    i, c, w) {
		w = 0
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "\t")
				w += 8 - w % 8
			else
				w++
		}
		return w
	}
	{
		line = $0
		if (line ~ /\r$/) {
			printf "%s:%d: CRLF line ending\n", FILENAME, FNR; bad = 1
			sub(/\r$/, "", line)
		}
		if (line ~ /[ \t]+$/) {
			printf "%s:%d: trailing whitespace\n", FILENAME, FNR; bad = 1
		}
		match(line, /^[ \t]*/)
		lead = substr(line, 1, RLENGTH)
		if (lead ~ / \t/ || lead ~ /        /) {
			printf "%s:%d: spaces used for indentation (use tabs)\n", FILENAME, FNR
			bad = 1
		}
		w = width(line)
		if (w > max) {
			printf "%s:%d: line is %d columns (max %d)\n", FILENAME, FNR, w, max
			bad = 1
		}
	}
	END { exit bad }
	' "${files[@]}" || status=1
fi

if [ $status -ne 0 ]; then
	echo "format-check: FAILED" >&2
else
	echo "format-check: OK (${#files[@]} C files, strict list: $LIST)"
fi
exit $status
