#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A legacy (perfwhiz) bomb: a 2 MB zlib stream that inflates to a valid msgpack map head and
# its first key, then 2 GiB of one byte. The reader inflated all of it before it looked at the
# columns (2.1 GB and 15.7 s for `pwz-render --list`), within its 4 GiB inflate bound but
# 1000:1.
# Usage: legacy-map-bomb.sh BINDIR WORK (WORK an empty folder; needs /usr/bin/time). Exit 0:
# `pwz-render --list` refuses it within 30 s (timeout) with a message naming the file, at a
# maximum resident size under 256 MiB; 1: more memory, no message, or a timeout (the defect);
# 2: cannot run here.
set -u
BINDIR=$1 WORK=$2
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time"; exit 2; }
python3 - "$WORK/bomb.cdict" <<'PY' || exit 2
import struct, sys, zlib
# a zlib stream written a 16 MiB deflate block at a time: after a full flush the compressor
# starts afresh, so each block of zeros compresses to the same bytes, made once
head, zero = b"\x88\xa5event", bytes(1 << 24)  # a map of 8 columns, its first key "event"
z = zlib.compressobj(9, zlib.DEFLATED, -15)
first = b"\x78\xda" + z.compress(head) + z.flush(zlib.Z_FULL_FLUSH)
block = z.compress(zero) + z.flush(zlib.Z_FULL_FLUSH)
adler = zlib.adler32(head)
with open(sys.argv[1], "wb") as f:
    f.write(first)
    for _ in range(128):  # 2 GiB
        f.write(block)
        adler = zlib.adler32(zero, adler)
    f.write(z.flush() + struct.pack(">I", adler))
PY
/usr/bin/time -f %M -o "$WORK/rss" timeout 30 "$BINDIR/pwz-render" --list "$WORK/bomb.cdict" \
	</dev/null >/dev/null 2>"$WORK/err"
rc=$?
kb=$(tail -n 1 "$WORK/rss"); [[ $kb =~ ^[0-9]+$ ]] || kb=$((1 << 30))
echo "$(($(stat -c %s "$WORK/bomb.cdict") >> 10)) KiB file: exit $rc, max RSS $((kb >> 10)) MiB:" \
	"$(head -c 300 "$WORK/err")"
((rc != 0 && rc < 124 && kb < (256 << 10))) && grep -q 'bomb\.cdict' "$WORK/err" || exit 1
