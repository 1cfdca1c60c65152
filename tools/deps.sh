#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Installs the Debian 12 packages pwz needs to build, run and test, and mounts tracefs (the
# capture and perf record read tracepoint formats from it); quick when all is in place.
# `make deps` runs it (`make demo` with build, `make check` with all); a plain `make` never does.
# Usage: tools/deps.sh [build|test|all]   (default: all)
set -euo pipefail

build_pkgs=(make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev
	liblz4-dev libmsgpack-dev libtraceevent-dev)
test_pkgs=(libcmocka-dev linux-perf chromium firefox-esr python3 util-linux procps busybox-static
	qemu-system-x86 cpio xz-utils debian-archive-keyring libclang-rt-14-dev nodejs npm ca-certificates
	jq bc protobuf-compiler dpkg-dev lintian devscripts tmux prometheus python3-pandas
	python3-msgpack python3-prometheus-client)
# The browser suite npm-installs playwright-core and puppeteer-core (tests/browser/package.json)
# and runs them with node; protoc decodes the Perfetto exports (tests/perfetto); jq and bc are
# for `make bench`, python3-pandas and python3-msgpack for its legacy part (tools/bench/legacy,
# pandas reading a perfwhiz file as perfwhiz did); dpkg-dev (dpkg-shlibdeps, dpkg-gencontrol)
# for `make deb`, lintian and devscripts (hardening-check) for tests/deb; xz-utils and
# debian-archive-keyring let tools/vmtest fetch and unpack other Debian releases' kernels
# (trixie's modules are .ko.xz).
# tmux drives `pwz-bpf --live` in tests/liveview.
# prometheus gives promtool, which checks `pwz-bpf --serve`'s page in tests/serve, and a server
# that scrapes it; python3-prometheus-client's OpenMetrics parser (a strict one, run with
# Debian's /usr/bin/python3) reads the page in OpenMetrics there.
# A node from elsewhere (e.g. NodeSource's nodejs, which bundles npm) counts as installed when
# its command is there.
declare -A by_command=([nodejs]=node [npm]=npm)

case "${1:-all}" in
build) want=("${build_pkgs[@]}") ;;
test | all) want=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
*) echo "usage: $0 [build|test|all]" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
	[[ -n ${by_command[$p]:-} ]] && command -v "${by_command[$p]}" >/dev/null && continue
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
	if [[ $(id -u) -ne 0 ]]; then
		echo "deps: missing packages: ${missing[*]} (run tools/deps.sh as root)" >&2
		exit 1
	fi
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# tracefs: the capture reads tracepoint formats from it.
if [[ $(id -u) -eq 0 && ! -e /sys/kernel/tracing/events ]]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
fi
exit 0
