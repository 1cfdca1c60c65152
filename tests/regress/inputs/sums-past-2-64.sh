#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The limits of the numbers: a capture whose two drop counters are 2^63 each (they add past
# 2^64) wrapped to 0, so the file claims drops and `pwz-render --list` and `--list --json` said
# none were; a thread's runtime of CPU_AGG records past 2^64 wrapped likewise; and `--export
# parquet` of a capture with tid 4294967295 wrote the tid as a signed integer, which every
# reader takes as -1.
# Usage: sums-past-2-64.sh BINDIR WORK (WORK an empty folder; the crafted captures need
# tests/badinput/craft built, PWZ_BADINPUT_CRAFT or the tree's .output/). Exit 0: --list warns
# of 18446744073709551615 or more dropped events, --list --json has drops_total and the runtime
# 2^64 - 1, and the Parquet tid columns are unsigned integers whose maximum reads 4294967295;
# 1: a wrapped sum or a signed tid (the defect); 2: cannot run here.
set -u
BINDIR=$1 WORK=$2
LIB=$(dirname "$(realpath "$0")")/../../lib
python3 - "$LIB" "$WORK" <<'PY' 2>"$WORK/err" || { echo "cannot craft: $(tail -n 1 "$WORK/err")"; exit 2; }
import sys
sys.path.insert(0, sys.argv[1])
from cdict_craft import META, records, write_v2
drops = {"slice": 1 << 63, "kvm_exit": 1 << 63}
recs, end = records(meta={"drops": drops}, end_meta={"drops": drops})
write_v2(sys.argv[2] + "/drops.cdict", recs, end)
recs, end = records(extra=[[6, 4242, 1, 1 << 63, 1, 1, 0, 0, 0]] * 2)
write_v2(sys.argv[2] + "/runtime.cdict", recs, end)
big = 4294967295
recs = [[1, dict(META)], [2, big, big, 0, b"big", b"big", b"big"], [2, 5, 5, 0, b"five", b"five", b"five"],
        [6, big, 1, 2000, 1, 1, 0, 0, 0], [6, 5, 0, 1000, 1, 1, 0, 0, 0]]
write_v2(sys.argv[2] + "/bigtid.cdict", recs, [9, dict(META, duration_ns=1000000)])
PY
defects=0
defect() { echo "$*"; defects=$((defects + 1)); }
"$BINDIR/pwz-render" --list "$WORK/drops.cdict" >"$WORK/list" 2>&1 || exit 2
warn=$(grep -o 'WARNING: [0-9]*[a-z ]* events dropped' "$WORK/list")
if [[ $warn == "WARNING: 18446744073709551615 or more events dropped" ]]; then
	echo "--list: $warn"
else
	defect "--list: '${warn:-no drop warning}', expected 18446744073709551615 or more events dropped"
fi
"$BINDIR/pwz-render" --list --json "$WORK/drops.cdict" >"$WORK/json" 2>&1 || exit 2
total=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["capture"]["drops_total"])' \
	"$WORK/json")
if [[ $total == 18446744073709551615 ]]; then
	echo "--list --json: drops_total $total"
else
	defect "--list --json: drops_total $total, expected 18446744073709551615"
fi
"$BINDIR/pwz-render" --list --json "$WORK/runtime.cdict" >"$WORK/json" 2>&1 || exit 2
runtime=$(python3 -c 'import json, sys; print([t["runtime_ns"] for t in json.load(open(sys.argv[1]))["tasks"]
	if t["tid"] == 4242])' "$WORK/json")
if [[ $runtime == "[18446744073709551615]" ]]; then
	echo "--list --json: runtime_ns $runtime of a thread of 3 CPU_AGG records (2^63, 2^63, 500000)"
else
	defect "--list --json: runtime_ns $runtime, expected [18446744073709551615]"
fi
"$BINDIR/pwz-render" --export parquet --output-dir "$WORK/pq" "$WORK/bigtid.cdict" >/dev/null 2>"$WORK/err" ||
	{ echo "the export failed: $(cat "$WORK/err")"; exit 2; }
# Each table's tid column as its footer declares it: the compact-Thrift FileMetaData read far
# enough for the schema's logical type and the column statistics' maximum
python3 - "$WORK/pq" >"$WORK/tids" <<'PY' || defects=$((defects + 1))
import glob, struct, sys


def varint(b, i):
    v = s = 0
    while True:
        v |= (b[i] & 0x7f) << s
        s += 7
        i += 1
        if not b[i - 1] & 0x80:
            return v, i


def value(b, i, t):
    """The compact-Thrift value of type t at b[i]: (value, next i)."""
    if t in (1, 2):
        return t == 1, i
    if t == 3:
        return b[i], i + 1
    if t in (4, 5, 6):
        v, i = varint(b, i)
        return (v >> 1) ^ -(v & 1), i
    if t == 7:
        return b[i:i + 8], i + 8
    if t == 8:
        n, i = varint(b, i)
        return b[i:i + n], i + n
    if t in (9, 10):
        n, et = b[i] >> 4, b[i] & 15
        i += 1
        if n == 15:
            n, i = varint(b, i)
        out = []
        for _ in range(n):
            v, i = value(b, i, 3 if et in (1, 2) else et)
            out.append(v)
        return out, i
    if t == 12:
        out, fid = {}, 0
        while b[i]:
            d, ft = b[i] >> 4, b[i] & 15
            i += 1
            if d:
                fid += d
            else:
                fid, i = value(b, i, 4)
            out[fid], i = value(b, i, ft)
        return out, i + 1
    raise ValueError("compact type %d" % t)


bad = 0
for f in sorted(glob.glob(sys.argv[1] + "/*/*.parquet")):
    b = open(f, "rb").read()
    n = struct.unpack("<I", b[-8:-4])[0]
    meta, _ = value(b, len(b) - 8 - n, 12)
    schema = [e for e in meta[2] if e.get(4) == b"tid"]
    if not schema:
        continue
    e = schema[0]
    logical = e.get(10, {}).get(10)  # LogicalType.INTEGER: {1: bitWidth, 2: isSigned}
    unsigned = logical[2] is False if logical else e.get(6) in (11, 12, 13, 14)  # UINT_8..UINT_64
    cols = [c[3] for g in meta[4] for c in g[1] if c[3][3] == [b"tid"]]
    raw = cols[0].get(12, {}).get(5, cols[0].get(12, {}).get(1)) if cols else None
    fmt = {4: "<i", 8: "<q"}.get(len(raw or b""))
    if not fmt:
        continue  # no row, no maximum
    mx = struct.unpack(fmt.upper() if unsigned else fmt, raw)[0]
    table = f.split("/")[-2]
    print("%s: tid %s, its maximum reads %s" % (table, "unsigned" if unsigned else "signed", mx))
    bad += not unsigned or mx != 4294967295
sys.exit(bad > 0)
PY
sed 's/^/--export parquet: /' "$WORK/tids"
[[ -s $WORK/tids ]] || defect "--export parquet: no table with a tid column and rows"
echo "$defects of 4 views wrapped a sum or signed a tid"
((defects == 0)) || exit 1
