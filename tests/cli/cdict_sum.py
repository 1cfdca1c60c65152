#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the whole chunks of a cdict v2 file hold, read independently of pwz's reader.

Usage: cdict_sum.py [--waits] FILE.cdict  ->  JSON on stdout:
  {"chunks": N, "cut": bool, "slices": N, "wakeups": N, "tasks": [tid...],
   "wakers": {"known": N, "unknown": N, "none": N},
   "per_tid": {tid: {"runtime_ns", "unseen_ns", "unseen_gap_ns", "switches", "wait_count",
                     "wait_ns"}},
   "waits": {tid: [wait_ns, ... sorted]} (with --waits)}
Walks the chunks as docs/cdict.md describes them ("PWZK", frame length, decompressed length,
record count, an LZ4 frame of msgpack records), decompresses each with liblz4's frame API
(ctypes) and decodes the records with the small msgpack decoder below. It stops at the first
chunk that is not whole (a cut file) or at the trailer. Slices by model.h R1-R3: runtime is the
time of slices whose switch-in was seen (flags bit 0 clear), unseen_gap_ns the time from the end
of the thread's slice before each slice whose switch-in was unseen (the file's first slice start
for its first) to that slice's end: the wait that switch-in ended lies in it (model.h R2: the slice's
start_ns is the CPU's previous switch, at or before the unseen one), every slice but an OPEN one
(end 3) is a switch-out; each WAKEUP record is one measured wait. "wakers" counts the WAKEUP
records that name their waker (elements 6 and 7, waker_cpu not 4294967295), that say it is
unknown (waker_cpu 4294967295) and that have neither (a wait begun by a preemption, with META
has_waker).
"""
import ctypes
import ctypes.util
import json
import struct
import sys

lz4 = ctypes.CDLL(ctypes.util.find_library("lz4") or "liblz4.so.1")
lz4.LZ4F_createDecompressionContext.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
lz4.LZ4F_decompress.restype = ctypes.c_size_t
lz4.LZ4F_decompress.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t),
                                ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p]
lz4.LZ4F_isError.argtypes = [ctypes.c_size_t]
lz4.LZ4F_freeDecompressionContext.argtypes = [ctypes.c_void_p]


def lz4_frame(data, out_len):
    ctx = ctypes.c_void_p()
    if lz4.LZ4F_createDecompressionContext(ctypes.byref(ctx), 100):
        raise ValueError("LZ4F context")
    out = ctypes.create_string_buffer(out_len + 1)
    src = ctypes.create_string_buffer(data, len(data))
    dst_n, src_n = ctypes.c_size_t(out_len + 1), ctypes.c_size_t(len(data))
    r = lz4.LZ4F_decompress(ctx, out, ctypes.byref(dst_n), src, ctypes.byref(src_n), None)
    lz4.LZ4F_freeDecompressionContext(ctx)
    if lz4.LZ4F_isError(r) or dst_n.value != out_len:
        raise ValueError("bad LZ4 frame")
    return out.raw[:out_len]


def unpack(b, i):
    """One msgpack object at b[i:]: (value, next index)."""
    c = b[i]
    i += 1
    if c <= 0x7f:
        return c, i
    if c >= 0xe0:
        return c - 256, i
    if 0x80 <= c <= 0x8f:
        return unpack_map(b, i, c & 15)
    if 0x90 <= c <= 0x9f:
        return unpack_arr(b, i, c & 15)
    if 0xa0 <= c <= 0xbf:
        n = c & 31
        return b[i:i + n], i + n
    if c == 0xc0:
        return None, i
    if c in (0xc2, 0xc3):
        return c == 0xc3, i
    sizes = {0xc4: 1, 0xc5: 2, 0xc6: 4, 0xd9: 1, 0xda: 2, 0xdb: 4}
    if c in sizes:
        k = sizes[c]
        n = int.from_bytes(b[i:i + k], "big")
        return b[i + k:i + k + n], i + k + n
    if c == 0xca:
        return struct.unpack(">f", b[i:i + 4])[0], i + 4
    if c == 0xcb:
        return struct.unpack(">d", b[i:i + 8])[0], i + 8
    ints = {0xcc: (1, False), 0xcd: (2, False), 0xce: (4, False), 0xcf: (8, False),
            0xd0: (1, True), 0xd1: (2, True), 0xd2: (4, True), 0xd3: (8, True)}
    if c in ints:
        k, signed = ints[c]
        return int.from_bytes(b[i:i + k], "big", signed=signed), i + k
    if c in (0xdc, 0xdd):
        k = 2 if c == 0xdc else 4
        return unpack_arr(b, i + k, int.from_bytes(b[i:i + k], "big"))
    if c in (0xde, 0xdf):
        k = 2 if c == 0xde else 4
        return unpack_map(b, i + k, int.from_bytes(b[i:i + k], "big"))
    raise ValueError("msgpack type 0x%02x not handled" % c)


def unpack_arr(b, i, n):
    out = []
    for _ in range(n):
        v, i = unpack(b, i)
        out.append(v)
    return out, i


def unpack_map(b, i, n):
    out = {}
    for _ in range(n):
        k, i = unpack(b, i)
        v, i = unpack(b, i)
        out[k if not isinstance(k, (bytes, bytearray)) else bytes(k)] = v
    return out, i


def main(path, with_waits=False):
    data = open(path, "rb").read()
    if data[:8] != b"PWZCDICT":
        raise SystemExit("%s: not a cdict v2 file" % path)
    off = struct.unpack_from("<H", data, 10)[0]
    chunks, cut, tasks, per, nslices, nwake, waits = 0, True, set(), {}, 0, 0, {}
    spans = {}  # tid -> [(start, end, unseen start)]
    wakers = {"known": 0, "unknown": 0, "none": 0}

    def row(tid):
        return per.setdefault(tid, {"runtime_ns": 0, "unseen_ns": 0, "unseen_gap_ns": 0,
                                    "switches": 0, "wait_count": 0, "wait_ns": 0})
    while off + 16 <= len(data):
        if data[off:off + 8] == b"PWZTRAIL":
            cut = False
            break
        if data[off:off + 4] != b"PWZK":
            raise SystemExit("%s: no chunk at offset %d" % (path, off))
        flen, dlen, nrec = struct.unpack_from("<III", data, off + 4)
        if off + 16 + flen > len(data):
            break       # the chunk being written when the writer died
        recs = lz4_frame(data[off + 16:off + 16 + flen], dlen)
        i = n = 0
        while i < len(recs):
            r, i = unpack(recs, i)
            n += 1
            if r[0] == 2:
                tasks.add(r[1])
            elif r[0] == 3:
                nslices += 1
                tid, dur, end = r[1], r[4], r[5]
                flags = r[6] if len(r) > 6 else 0
                t = row(tid)
                if flags & 1:
                    t["unseen_ns"] += dur
                else:
                    t["runtime_ns"] += dur
                if end != 3:
                    t["switches"] += 1
                spans.setdefault(tid, []).append((r[3], r[3] + dur, flags & 1))
            elif r[0] == 4:
                nwake += 1
                t = row(r[1])
                t["wait_count"] += 1
                t["wait_ns"] += r[4]
                waits.setdefault(r[1], []).append(r[4])
                wakers["none" if len(r) < 7 else "unknown" if r[6] == 0xffffffff else "known"] += 1
        if n != nrec:
            raise SystemExit("%s: chunk at %d: %d records, header says %d" % (path, off, n, nrec))
        chunks += 1
        off += 16 + flen
    first = min((sp[0][0] for sp in map(sorted, spans.values())), default=0)
    for tid, sl in spans.items():
        prev_end, gap = first, 0
        for start, stop, unseen in sorted(sl):
            if unseen:
                gap += max(stop - prev_end, 0)
            prev_end = stop
        row(tid)["unseen_gap_ns"] = gap
    out = {"chunks": chunks, "cut": cut, "slices": nslices, "wakeups": nwake, "wakers": wakers,
           "tasks": sorted(tasks), "per_tid": {str(k): v for k, v in sorted(per.items())}}
    if with_waits:
        out["waits"] = {str(k): sorted(v) for k, v in sorted(waits.items())}
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main(sys.argv[-1], "--waits" in sys.argv[1:-1])
