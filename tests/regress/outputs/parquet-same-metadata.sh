#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two captures whose metadata agree get one Parquet trace_id when the id hashes the metadata
# only (once the wall-clock start is known): a live capture and a copy of it renamed with
# `pwz-bpf --remap` (same META record, other task names), exported into one fleet tree, leave
# one set of tables; the second replaced the first's.
# Usage: parquet-same-metadata.sh BINDIR WORK (root, BPF: run it holding /tmp/pwz-bpf.lock; WORK an
# empty folder). Exit 0: two trace_ids, each with its own thread table, and a second export
# says "already there" for both; 1: one trace_id (the defect); 2: cannot run here.
set -u
BINDIR=$1 WORK=$2
[[ $(id -u) == 0 ]] || { echo "needs root (BPF)"; exit 2; }
"$BINDIR/pwz-bpf" -q -s 0.3 --dest-folder "$WORK" live >/dev/null 2>&1 ||
	{ echo "the live capture failed"; exit 2; }
cp "$WORK/live.cdict" "$WORK/renamed.cdict"
tid=$("$BINDIR/pwz-render" --list --json "$WORK/live.cdict" |
	python3 -c 'import json, sys; print([t["tid"] for t in json.load(sys.stdin)["tasks"] if t["tid"]][0])')
echo "$tid,lv,vcpu0,uuid,vm,1,Renamed" >"$WORK/map.csv"
"$BINDIR/pwz-bpf" --remap "$WORK/renamed.cdict" --map "$WORK/map.csv" 2>/dev/null || exit 2
"$BINDIR/pwz-render" --export parquet --output-dir "$WORK/fleet" "$WORK/live.cdict" \
	"$WORK/renamed.cdict" >"$WORK/ids" 2>"$WORK/err" || { cat "$WORK/err"; exit 1; }
cat "$WORK/ids"
[[ $(cut -f2 "$WORK/ids" | sort -u | wc -l) == 2 && $(ls "$WORK/fleet/thread" | wc -l) == 2 ]] || exit 1
"$BINDIR/pwz-render" --export parquet --output-dir "$WORK/fleet" "$WORK/live.cdict" \
	"$WORK/renamed.cdict" >"$WORK/again" 2>"$WORK/err" || { cat "$WORK/err"; exit 1; }
[[ $(grep -c 'already there' "$WORK/again") == 2 && "$(cut -f2 "$WORK/again")" == "$(cut -f2 "$WORK/ids")" ]] ||
	{ echo "again: $(cat "$WORK/again")"; exit 1; }
