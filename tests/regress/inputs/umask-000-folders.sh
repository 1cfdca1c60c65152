#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Modes whatever the umask: under umask 000, `pwz-render --export parquet --output-dir` made
# its table folders 0777 (mkdir with the caller's umask), where a folder pwz makes is 0700
# unless --mode; `--perfetto --output-dir` of a missing folder must make it 0700 likewise.
# Usage: umask-000-folders.sh BINDIR WORK (WORK an empty folder). Exit 0: every folder the two
# runs made is 0700; 1: another mode, or a folder not made (the defect); 2: cannot run here.
set -u
BINDIR=$1 WORK=$2
"$BINDIR/gen-synthetic" -n 2k -o "$WORK/cap.cdict" >/dev/null || exit 2
defects=0
# modes WHAT DIR: every folder under DIR, DIR too, is 0700
modes() {
	local wrong

	if [[ ! -d $2 ]]; then
		echo "$1: $2 was not made: $(head -n 1 "$WORK/err")"
		defects=$((defects + 1))
		return
	fi
	wrong=$(find "$2" -type d ! -perm 0700 -printf '%p %m, ')
	if [[ -n $wrong ]]; then
		echo "$1: folders not 0700: ${wrong%, }"
		defects=$((defects + 1))
	else
		echo "$1: $(find "$2" -type d | wc -l) folders, all 0700"
	fi
}
(umask 000 && "$BINDIR/pwz-render" --export parquet --output-dir "$WORK/pq" "$WORK/cap.cdict") \
	>/dev/null 2>"$WORK/err"
modes "--export parquet" "$WORK/pq"
(umask 000 && "$BINDIR/pwz-render" --perfetto --output-dir "$WORK/traces" "$WORK/cap.cdict") \
	>/dev/null 2>"$WORK/err"
modes "--perfetto --output-dir" "$WORK/traces"
echo "$defects of 2 runs made a folder other than 0700 under umask 000"
((defects == 0)) || exit 1
