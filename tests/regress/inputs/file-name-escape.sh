#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A capture whose file name holds ESC and an OSC sequence (x ESC ]0;pwned BEL ESC [31m .cdict:
# it retitles the terminal and turns it red) given to `pwz-render --perfetto` and `--export
# parquet`, and the same name for a file that does not exist (the error path): the programs
# printed the name raw in their messages, errors and standard output, where --list and the
# pages escape it.
# Usage: file-name-escape.sh BINDIR WORK (WORK an empty folder). Exit 0: every run names the
# file (its "pwned" shows) with no raw ESC or BEL on stdout or stderr; 1: a raw ESC or BEL (the
# defect); 2: cannot run here.
set -u
BINDIR=$1 WORK=$2
name=$'x\e]0;pwned\a\e[31m.cdict'
mkdir "$WORK/out" "$WORK/pq" || exit 2
"$BINDIR/gen-synthetic" -n 2k -o "$WORK/$name" >/dev/null || exit 2
defects=0
# clean WHAT WANT CMD...: CMD exits 0 (WANT ok) or non-zero (WANT error), its output names the
# file and holds no ESC (0x1b) or BEL (0x07)
clean() {
	local what=$1 want=$2 rc got=ok
	shift 2
	timeout 60 "$@" </dev/null >"$WORK/stdout" 2>"$WORK/stderr"
	rc=$?
	((rc == 0)) || got=error
	if ((rc >= 124)); then
		echo "$what: exit $rc: $(head -c 300 "$WORK/stderr" | od -c | head -n 3)"
	elif [[ $got != "$want" ]]; then
		echo "$what: $got (exit $rc), expected $want: $(head -c 300 "$WORK/stderr" | od -c | head -n 3)"
	elif LC_ALL=C grep -q $'[\e\a]' "$WORK/stdout" "$WORK/stderr"; then
		echo "$what: raw ESC or BEL: $(LC_ALL=C grep -h $'[\e\a]' "$WORK/stdout" "$WORK/stderr" |
			head -n 2 | od -c | head -n 4)"
	elif ! grep -q pwned "$WORK/stdout" "$WORK/stderr"; then
		echo "$what: the file name is in no message: $(head -c 300 "$WORK/stderr")"
	else
		echo "$what: escaped: $(cat "$WORK/stderr" "$WORK/stdout" | grep -m 1 pwned)"
		return
	fi
	defects=$((defects + 1))
}
clean "--perfetto" ok "$BINDIR/pwz-render" --perfetto --output-dir "$WORK/out" "$WORK/$name"
clean "--export parquet" ok "$BINDIR/pwz-render" --export parquet --output-dir "$WORK/pq" "$WORK/$name"
clean "--perfetto of a missing file" error "$BINDIR/pwz-render" --perfetto --output-dir "$WORK/out" \
	"$WORK/missing-$name"
clean "--export parquet of a missing file" error "$BINDIR/pwz-render" --export parquet \
	--output-dir "$WORK/pq" "$WORK/missing-$name"
echo "$defects of 4 runs printed the file name raw or not at all"
((defects == 0)) || exit 1
