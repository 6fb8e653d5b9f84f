#!/usr/bin/env bash
# `make check-arm64`: cross-compiles the tree for aarch64 with -march=armv8.1-a (OpenSSL
# from libssl-dev:arm64, the other libraries off, unit-test runner linked static) into
# build/arm64, checks in the disassembly that
# every atomic read-modify-write became an LSE instruction (ldadd, cas, swp, ...) and that
# no object holds an exclusive ldxr/stxr loop or an out-of-line __aarch64_* helper call,
# then runs the unit tests under qemu-aarch64 -cpu max. Exits non-zero on any violation.
# Knobs (for testing the check itself): CHECK_ARM64_MARCH, CHECK_ARM64_BUILD.
set -euo pipefail
cd "$(dirname "$0")/.."

MAKE=${MAKE:-make}
unset MAKEFLAGS MFLAGS # independent of the caller's variables (CC, BUILD, -j)
MARCH=${CHECK_ARM64_MARCH:-armv8.1-a}
B=${CHECK_ARM64_BUILD:-build/arm64}
XCC=aarch64-linux-gnu-gcc
OBJDUMP=aarch64-linux-gnu-objdump
QEMU=qemu-aarch64
PROBE_SRC=scripts/check-arm64-probe.c
PROBE_OBJ=$B/probe/atomic-probe.o
NOLIBS=(USE_OPENSSL=1 USE_PCRE2=0 USE_LUA=0 USE_ZLIB=0 USE_LIBCRYPT=0)
XMAKE=("$MAKE" --no-print-directory -j"$(nproc)" BUILD="$B" CC="$XCC" "${NOLIBS[@]}")

fails=0
fail() {
	echo "check-arm64: FAIL: $*" >&2
	fails=$((fails + 1))
}

for t in "$XCC" "$OBJDUMP" "$QEMU"; do
	command -v "$t" >/dev/null || { echo "check-arm64: $t missing (make deps)" >&2; exit 1; }
done

# 1. Both spellings of the build option must reach the compiler command line.
for opt in CPU=armv81 ARCH=armv8.1-a; do
	if ! "${XMAKE[@]}" -n -B "$opt" "$B/src/conn/listener.o" | grep -q -- '-march=armv8.1-a'; then
		fail "make $opt does not add -march=armv8.1-a"
	else
		echo "check-arm64: make $opt adds -march=armv8.1-a"
	fi
done

# 2. Cross build: every object of the daemon and the unit-test runner, plus the probe.
t0=$(date +%s)
mkdir -p "$B"
if ! "${XMAKE[@]}" -s ARCH="$MARCH" EXTRA_LDFLAGS=-static UNIT_BIN="$B/unit-run" \
	"$B/unit-run" "$B/src/proc/main.o" >"$B/build.log" 2>&1; then
	grep -v "statically linked applications" "$B/build.log" >&2 || true
	echo "check-arm64: cross build failed (log: $B/build.log)" >&2
	exit 1
fi
mkdir -p "$(dirname "$PROBE_OBJ")"
"$XCC" -std=c11 -O2 -Wall -Wextra -Werror -Wstrict-prototypes -march="$MARCH" -Iinclude \
	-c -o "$PROBE_OBJ" "$PROBE_SRC"
echo "check-arm64: built $B with $XCC -march=$MARCH in $(($(date +%s) - t0))s"

# Reads `objdump -dr` on stdin; prints "function mnemonic family" for each instruction and
# each call relocation to an out-of-line atomic helper (family "outline").
CLASSIFY='
/^[0-9a-f]+ <.*>:$/ { fn = substr($2, 2, length($2) - 3); next }
/R_AARCH64_(CALL26|JUMP26)/ && $NF ~ /^__aarch64_(cas|swp|ldadd|ldclr|ldeor|ldset)/ {
	print fn, $NF, "outline"; next
}
/^ +[0-9a-f]+:\t/ {
	split($0, f, "\t"); m = f[2]; fam = "-"
	if (m ~ /^(ldx|ldax|stx|stlx)[rp][bh]?$/) fam = "EXCL"
	else if (m ~ /^ldadd(a|al|l)?[bh]?$/) fam = "ldadd"
	else if (m ~ /^stadd(l)?[bh]?$/) fam = "stadd"
	else if (m ~ /^casp?(a|al|l)?[bh]?$/) fam = "cas"
	else if (m ~ /^swp(a|al|l)?[bh]?$/) fam = "swp"
	else if (m ~ /^ld(clr|set|eor)(a|al|l)?[bh]?$/) fam = substr(m, 1, 5)
	else if (m ~ /^st(clr|set|eor)(l)?[bh]?$/) fam = substr(m, 1, 5)
	else if (m ~ /^ld[su](max|min)(a|al|l)?[bh]?$/) fam = "ldminmax"
	else if (m ~ /^st[su](max|min)(l)?[bh]?$/) fam = "stminmax"
	else if (m ~ /^ld(a|ap)r[bh]?$/) fam = "ldar"
	else if (m ~ /^stlr[bh]?$/) fam = "stlr"
	else if (m ~ /^dmb$/) fam = "dmb"
	print fn, m, fam
}'
LSE_FAMS="ldadd stadd cas swp ldclr ldset ldeor stclr stset steor ldminmax stminmax"
ALL_FAMS="$LSE_FAMS ldar stlr dmb EXCL outline"

classify() {
	"$OBJDUMP" -dr --no-show-raw-insn "$1" | awk "$CLASSIFY"
}

# Prints "fam=N" for the non-zero families of a classified listing on stdin.
count_fams() {
	awk -v fams="$ALL_FAMS" '{ c[$3]++ }
	END { n = split(fams, f, " "); s = ""
	      for (i = 1; i <= n; i++) if (c[f[i]]) s = s " " f[i] "=" c[f[i]]
	      print (s == "" ? " (no atomic instruction)" : s) }'
}

# 3. The probe: every macro of atomic.h has a probe, and each probe became what it should.
PROBE_DIS=$(classify "$PROBE_OBJ")
macros=$(grep -oE '^#define +HA_[A-Z0-9_]+\(' include/base/atomic.h | sed -E 's/^#define +//; s/\($//')
for mac in $macros; do
	name=$(echo "${mac#HA_}" | tr 'A-Z' 'a-z')
	grep -qE "^probe_${name}(_u32|_u64)? " <<<"$PROBE_DIS" ||
		fail "$mac has no probe_${name}_* function in $PROBE_SRC"
done
echo "check-arm64: probe $PROBE_OBJ (one function per macro and width):"
for fn in $(awk '{ print $1 }' <<<"$PROBE_DIS" | uniq); do
	base=${fn#probe_}
	base=${base%_u32}
	base=${base%_u64}
	case "$base" in
	atomic_load) want='^ld(a|ap)r$' ;;
	atomic_load_rlx) want='^ldr$' ;;
	atomic_store) want='^stlr$' ;;
	atomic_store_rlx) want='^str$' ;;
	atomic_add | atomic_sub | atomic_fetch_add | atomic_fetch_sub | atomic_inc | atomic_dec)
		want='^ldadd(a|al|l)?$' ;;
	atomic_xchg) want='^swp(a|al|l)?$' ;;
	atomic_cas | atomic_update_max) want='^cas(a|al|l)?$' ;;
	counter_*) want='^(ldadd|stadd)$' ;; # relaxed: no acquire/release suffix
	owner_*) want='^str$' ;;              # single writer: plain load and store, no LSE
	*or) want='^(ldset|stset)' ;;
	*and) want='^(ldclr|stclr)' ;;
	*xor) want='^(ldeor|steor)' ;;
	barrier) want='^dmb$' ;;
	*) want='^(ld|st|cas|swp|dmb)' ;; # a new macro: any memory access, no loop (below)
	esac
	insns=$(awk -v f="$fn" '$1 == f { print $2 }' <<<"$PROBE_DIS")
	printf '  %-28s %s\n' "$fn" "$(grep -vE '^(nop|ret)$' <<<"$insns" | tr '\n' ' ')"
	grep -qE "$want" <<<"$insns" || fail "$fn: expected an instruction matching $want"
	case "$base" in
	owner_*)
		awk -v f="$fn" -v fams=" $LSE_FAMS " '$1 == f && index(fams, " " $3 " ")' \
			<<<"$PROBE_DIS" | grep -q . && fail "$fn: a locked instruction in an owner update"
		;;
	esac
	awk -v f="$fn" '$1 == f && ($3 == "EXCL" || $3 == "outline")' <<<"$PROBE_DIS" |
		grep -q . && fail "$fn: exclusive loop or out-of-line helper"
done

# 4. The project's objects: none may hold an exclusive loop or a helper call; those whose
# source does atomic read-modify-writes (plus listener.o and backend.o) must show LSE.
RMW_RE='HA_(ATOMIC_(ADD|SUB|FETCH_[A-Z]+|INC|DEC|XCHG|CAS|OR|AND|XOR)|COUNTER_[A-Z]+)\('
must_lse=" $B/src/conn/listener.o $B/src/backend/backend.o "
for src in $(grep -rlE "$RMW_RE" src tests/unit | grep '\.c$' | sort); do
	must_lse+="$B/${src%.c}.o "
done
echo "check-arm64: objects (LSE required where marked *):"
tot=""
nobj=0
for obj in $(find "$B/src" "$B/tests" -name '*.o' | sort); do
	dis=$(classify "$obj")
	tot+="$dis"$'\n'
	nobj=$((nobj + 1))
	lse=$(awk -v fams=" $LSE_FAMS " 'index(fams, " " $3 " ")' <<<"$dis" | wc -l)
	bad=$(awk '$3 == "EXCL" || $3 == "outline"' <<<"$dis")
	mark=" "
	case "$must_lse" in *" $obj "*) mark="*" ;; esac
	if [ "$mark" = "*" ] || [ "$lse" -gt 0 ] || [ -n "$bad" ]; then
		printf '  %s %-44s%s\n' "$mark" "${obj#"$B"/}" "$(count_fams <<<"$dis")"
	fi
	[ "$mark" = "*" ] && [ "$lse" -eq 0 ] && fail "$obj: atomics in the source, no LSE instruction"
	[ -n "$bad" ] && fail "$obj: exclusive loop or helper call: $(echo $bad | head -c 200)"
done
echo "check-arm64: all $nobj objects:$(count_fams <<<"$tot")"

# 5. The unit tests, aarch64 code under qemu's most capable CPU model (it implements LSE).
if ! aarch64-linux-gnu-readelf -h "$B/unit-run" | grep -q 'Machine: *AArch64' ||
	aarch64-linux-gnu-readelf -l "$B/unit-run" | grep -q INTERP; then
	fail "$B/unit-run is not a static aarch64 executable"
fi
t0=$(date +%s)
if ! "$QEMU" -cpu max "$B/unit-run" >"$B/unit-run.log" 2>&1; then
	grep -E "FAIL" "$B/unit-run.log" >&2 || true
	fail "unit tests under $QEMU -cpu max"
fi
echo "check-arm64: unit tests under $QEMU -cpu max ($(($(date +%s) - t0))s): $(tail -n 1 "$B/unit-run.log")"

if [ "$fails" -ne 0 ]; then
	echo "check-arm64: $fails violation(s)" >&2
	exit 1
fi
echo "check-arm64: OK"
