#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two captures with one base name (a/run.cdict, b/run.cdict) given to one `pwz-render --perfetto
# --output-dir OUT`: both traces are named OUT/run.pftrace, and the second replaced the first
# without a word.
# Usage: perfetto-same-base-name.sh BINDIR WORK (WORK an empty folder). Exit 0: two traces,
# both paths printed (and with --force the run is refused before writing anything); 1: one
# trace left (the defect); 2: cannot run here.
set -u
BINDIR=$1 WORK=$2
mkdir -p "$WORK/a" "$WORK/b" "$WORK/out" || exit 2
"$BINDIR/gen-synthetic" -n 2k -s 1 -o "$WORK/a/run.cdict" >/dev/null || exit 2
"$BINDIR/gen-synthetic" -n 2k -s 2 -o "$WORK/b/run.cdict" >/dev/null || exit 2
"$BINDIR/pwz-render" --perfetto --output-dir "$WORK/out" "$WORK/a/run.cdict" "$WORK/b/run.cdict" \
	>"$WORK/paths" 2>"$WORK/err" || { cat "$WORK/err"; exit 1; }
n=$(ls "$WORK/out" | wc -l)
echo "$n traces: $(tr '\n' ' ' <"$WORK/paths")"
((n == 2)) && [[ $(sort -u "$WORK/paths" | wc -l) == 2 ]] || exit 1
cmp -s "$WORK/out/run.pftrace" "$WORK/out/run-2.pftrace" && exit 1
mkdir "$WORK/forced"
if "$BINDIR/pwz-render" --perfetto --force --output-dir "$WORK/forced" "$WORK/a/run.cdict" \
	"$WORK/b/run.cdict" >/dev/null 2>"$WORK/err"; then
	echo "--force with two inputs of one name: $(ls "$WORK/forced")"
	exit 1
fi
echo "--force: $(cat "$WORK/err")"
[[ -z $(ls -A "$WORK/forced") ]] || exit 1
