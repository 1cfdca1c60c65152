#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A Parquet table folder planted by another user in a sticky shared folder. An unprivileged
# user (nobody) plants, at a table's name in SHARED, either
# - symlink: sched_slice, a symlink to a root-only folder. fs.protected_symlinks guards only
#   the last component of a path, so a writer that opens SHARED/sched_slice/<id>.parquet by
#   path writes into the root-only folder;
# - folder: thread, a folder of theirs (0777), where root's table would be theirs to rename,
#   replace or remove;
# then root runs `pwz-render --export parquet --output-dir SHARED`.
# Usage: parquet-planted-table.sh BINDIR WORK symlink|folder (root; WORK an empty folder).
# Exit 0: the export is refused with a message naming the planted name, and nothing is written
# behind it; 1: root's file landed there (the defect); 2: cannot run here.
set -u
BINDIR=$1 WORK=$2 KIND=$3
[[ $(id -u) == 0 ]] && command -v setpriv >/dev/null || { echo "needs root and setpriv"; exit 2; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chmod 0755 "$WORK"
"$BINDIR/gen-synthetic" -n 2k -o "$WORK/cap.cdict" >/dev/null || exit 2
mkdir -m 1777 "$WORK/shared"
if [[ $KIND == symlink ]]; then
	mkdir -m 0700 "$WORK/rootonly"
	as_nobody ln -s "$WORK/rootonly" "$WORK/shared/sched_slice" || exit 2
	behind=$WORK/rootonly said='sched_slice: a symlink'
else
	as_nobody mkdir -m 0777 "$WORK/shared/thread" || exit 2
	behind=$WORK/shared/thread said='thread: owned by uid 65534'
fi
"$BINDIR/pwz-render" --export parquet --output-dir "$WORK/shared" "$WORK/cap.cdict" >"$WORK/out" 2>"$WORK/err"
rc=$?
echo "exit $rc: $(cat "$WORK/err")"
if [[ -n $(ls -A "$behind") ]]; then
	echo "root's file behind the planted $KIND: $(ls -l "$behind" | tail -n +2)"
	exit 1
fi
[[ $rc != 0 ]] && grep -q "$said" "$WORK/err" || exit 1
