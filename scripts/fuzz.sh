#!/usr/bin/env bash
# Builds and runs the libFuzzer targets tests/fuzz/fuzz_T.c.
#   scripts/fuzz.sh fuzz SECONDS T...         fuzz each target for SECONDS on its corpus
#   scripts/fuzz.sh fuzz-replay SECONDS T...  only replay tests/fuzz/corpus/T/* (no fuzzing)
# Each target names the sources it links on "// FUZZ_SRCS: a.c b.c" comments in its first 12
# lines, and may add compiler and linker flags on a "// FUZZ_FLAGS: -DUSE_X -lx" one there.
# Binaries go to tests/fuzz/bin/T; new inputs found while fuzzing to tests/fuzz/bin/T.corpus/.
set -euo pipefail

usage() {
	echo "usage: $0 fuzz|fuzz-replay SECONDS TARGET..." >&2
	exit 2
}

[ $# -ge 2 ] || usage
mode=$1
secs=$2
shift 2
case "$mode" in fuzz|fuzz-replay) ;; *) usage ;; esac
case "$secs" in ''|*[!0-9]*) usage ;; esac

cd "$(dirname "$0")/.."

if ! command -v clang >/dev/null 2>&1; then
	echo "$0: clang is missing (scripts/install-deps.sh installs it)" >&2
	exit 1
fi

CFLAGS=(-O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-std=c11 -D_GNU_SOURCE -fwrapv -fno-strict-aliasing -Wall -Wextra -Werror
	-Wno-unused-parameter -Iinclude)

build() {
	local t=$1 src=tests/fuzz/fuzz_$1.c srcs flags
	[ -f "$src" ] || { echo "$0: no target $src" >&2; return 1; }
	srcs=$(head -n 12 "$src" | sed -n 's|^// FUZZ_SRCS:||p' | tr '\n' ' ')
	flags=$(head -n 12 "$src" | sed -n 's|^// FUZZ_FLAGS:||p' | head -n 1)
	mkdir -p tests/fuzz/bin
	# shellcheck disable=SC2086 # the source and flag lists are word-split on purpose
	clang "${CFLAGS[@]}" -o "tests/fuzz/bin/$t" "$src" $srcs $flags
}

status=0
for t in "$@"; do
	corpus=tests/fuzz/corpus/$t
	echo "== $mode $t"
	build "$t" || { status=1; continue; }
	mkdir -p "$corpus"
	if [ "$mode" = fuzz-replay ]; then
		files=("$corpus"/*)
		[ -e "${files[0]}" ] || { echo "$t: empty corpus $corpus"; continue; }
		"tests/fuzz/bin/$t" "${files[@]}" || status=1
	else
		new=tests/fuzz/bin/$t.corpus
		mkdir -p "$new"
		"tests/fuzz/bin/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix="tests/fuzz/bin/$t-" \
			"$new" "$corpus" || status=1
	fi
done
exit $status
