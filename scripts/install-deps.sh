#!/usr/bin/env bash
# Installs the Debian packages that the build, the tests and the benchmark need, only those
# missing. Quiet when nothing is missing; loud and non-zero on failure. Must run as root
# (or through sudo). Packaged services (nginx, haproxy, redis, prometheus) are never left running: tests and
# the benchmark start their own instances on loopback ports.
set -euo pipefail

PKGS=(
	build-essential make gcc clang libclang-rt-dev pkg-config
	libssl-dev libpcre2-dev liblua5.4-dev zlib1g-dev libcrypt-dev
	python3 python3-pytest python3-pytest-xdist python3-cryptography
	curl socat wrk netcat-openbsd iproute2 procps util-linux openssl nftables
	nginx-light haproxy redis-server valgrind clang-format chromium prometheus
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
	libssl-dev:arm64
)
SERVICES=(nginx haproxy redis-server prometheus)

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	# a package of two architectures answers once per architecture ("installedinstalled")
	[ -n "$st" ] && [ -z "${st//installed/}" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing missing packages: ${missing[*]}" >&2
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: need root or sudo" >&2; exit 1; }
	SUDO=sudo
fi

# make check-arm64 links OpenSSL for aarch64 (libssl-dev:arm64): a foreign architecture.
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	$SUDO dpkg --add-architecture arm64
fi

# Forbid service starts during the installation (invoke-rc.d honours policy-rc.d), unless
# the machine already has a policy, which we then leave alone.
POLICY=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$POLICY" ]; then
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
	$SUDO chmod 755 "$POLICY"
	own_policy=1
fi
cleanup() {
	[ "$own_policy" = 1 ] && $SUDO rm -f "$POLICY"
	return 0
}
trap cleanup EXIT

APT=($SUDO env DEBIAN_FRONTEND=noninteractive apt-get)
APT_OPTS=(-y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
if ! "${APT[@]}" update -q >/tmp/install-deps-update.log 2>&1; then
	cat /tmp/install-deps-update.log >&2
	echo "install-deps: apt-get update failed" >&2
	exit 1
fi
if ! "${APT[@]}" install "${APT_OPTS[@]}" --no-install-recommends "${missing[@]}" \
	>/tmp/install-deps.log 2>&1; then
	cat /tmp/install-deps.log >&2
	echo "install-deps: apt-get install failed (log above)" >&2
	exit 1
fi

# Belt and braces: if a packaged service got started anyway (a machine with a real init and
# its own policy), stop it and keep it from starting at boot. Only services of packages we
# just installed are touched.
for svc in "${SERVICES[@]}"; do
	case " ${missing[*]} " in
	*" $svc"*) ;;
	*) continue ;;
	esac
	if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
		$SUDO systemctl disable --now "$svc" >/dev/null 2>&1 || true
	else
		$SUDO service "$svc" stop >/dev/null 2>&1 || true
		command -v update-rc.d >/dev/null && $SUDO update-rc.d "$svc" disable \
			>/dev/null 2>&1 || true
	fi
done

still=()
for p in "${missing[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ -n "$st" ] && [ -z "${st//installed/}" ] || still+=("$p")
done
if [ ${#still[@]} -ne 0 ]; then
	echo "install-deps: still missing after install: ${still[*]}" >&2
	exit 1
fi
echo "install-deps: done" >&2
