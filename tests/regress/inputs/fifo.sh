#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A FIFO given as a capture to `pwz-render --list`, `--perfetto` and `--export parquet`, and as
# a perf.data to `pwz-bpf --use-perf-data`: with no writer on the other end, a reader that
# opens it by path waits in open() forever, where /dev/zero is refused.
# Usage: fifo.sh BINDIR WORK (WORK an empty folder). Each run has 20 s (timeout).
# Exit 0: every run exits non-zero at once with a message naming the FIFO; 1: one waited (a
# timeout) or was refused without a word (the defect); 2: cannot run here.
set -u
BINDIR=$1 WORK=$2
mkfifo "$WORK/fifo.cdict" && mkdir "$WORK/out" || exit 2
defects=0
# refused WHAT CMD...: CMD exits non-zero below 124 with a message naming the FIFO
refused() {
	local what=$1 rc
	shift
	timeout 20 "$@" </dev/null >"$WORK/stdout" 2>"$WORK/stderr"
	rc=$?
	if ((rc == 124)); then
		echo "$what: waited 20 s on the FIFO (killed)"
	elif ((rc == 0 || rc > 124)); then
		echo "$what: exit $rc: $(head -c 300 "$WORK/stderr")"
	elif ! grep -q 'fifo\.cdict' "$WORK/stderr"; then
		echo "$what: exit $rc without a message naming the FIFO: $(head -c 300 "$WORK/stderr")"
	else
		echo "$what: refused: $(head -n 1 "$WORK/stderr")"
		return
	fi
	defects=$((defects + 1))
}
refused "--list" "$BINDIR/pwz-render" --list "$WORK/fifo.cdict"
refused "--perfetto" "$BINDIR/pwz-render" --perfetto --output-dir "$WORK/out" "$WORK/fifo.cdict"
refused "--export parquet" "$BINDIR/pwz-render" --export parquet --output-dir "$WORK/out" "$WORK/fifo.cdict"
refused "--use-perf-data" "$BINDIR/pwz-bpf" --use-perf-data "$WORK/fifo.cdict" --dest-folder "$WORK/out" run
echo "$defects of 4 readers waited on a FIFO or said nothing"
((defects == 0)) || exit 1
