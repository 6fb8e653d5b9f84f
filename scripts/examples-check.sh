#!/usr/bin/env bash
# Checks examples/*.cfg and examples/lua/*.cfg with `haproxy -c` from the top of the tree
# (their relative paths start there): quickstart.cfg must be valid; any other example must
# be valid or refused only by "not supported yet" alerts that name file:line.
set -euo pipefail
cd "$(dirname "$0")/.."
rc=0
for f in examples/*.cfg examples/lua/*.cfg; do
	if out=$(./haproxy -c -f "$f" 2>&1); then
		echo "examples-check: $f: valid"
		continue
	fi
	if [ "$f" = examples/quickstart.cfg ]; then
		echo "examples-check: $f must be valid:"; echo "$out"; rc=1; continue
	fi
	bad=$(echo "$out" | grep '^\[ALERT\]' | grep -v 'not supported yet' \
		| grep -v 'Fatal errors found in configuration' \
		| grep -v 'Error(s) found in configuration file' || true)
	if [ -n "$bad" ]; then
		echo "examples-check: $f: unexpected alerts:"; echo "$bad"; rc=1
	elif ! echo "$out" | grep -q "parsing \[$f:[0-9]*\].*not supported yet"; then
		echo "examples-check: $f: refused without a 'not supported yet' alert:"; echo "$out"; rc=1
	else
		echo "examples-check: $f: refused only for keywords not supported yet:"
		echo "$out" | grep 'not supported yet' | sed 's/^/    /'
	fi
done
exit $rc
