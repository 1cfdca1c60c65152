#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""XXH64 (seed 0) of each file named, as 16 hex digits, from the specification
(github.com/Cyan4973/xxHash, doc/xxhash_spec.md): what docs/fleet.md says a capture's trace_id
is, computed apart from pwz-render. Usage: xxh64.py FILE..."""
import struct
import sys

P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
M = (1 << 64) - 1


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def rnd(acc, lane):
    return rotl((acc + lane * P2) & M, 31) * P1 & M


def xxh64(data):
    n, i = len(data), 0
    if n >= 32:
        v = [(P1 + P2) & M, P2, 0, (-P1) & M]
        lanes = struct.unpack_from("<%dQ" % (n // 32 * 4), data)
        for k in range(0, len(lanes), 4):
            v = [rnd(v[j], lanes[k + j]) for j in range(4)]
        i = n // 32 * 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for j in range(4):
            h = ((h ^ rnd(0, v[j])) * P1 + P4) & M
    else:
        h = P5
    h = (h + n) & M
    while i + 8 <= n:
        h = (rotl(h ^ rnd(0, struct.unpack_from("<Q", data, i)[0]), 27) * P1 + P4) & M
        i += 8
    if i + 4 <= n:
        h = (rotl(h ^ (struct.unpack_from("<I", data, i)[0] * P1 & M), 23) * P2 + P3) & M
        i += 4
    while i < n:
        h = rotl(h ^ (data[i] * P5 & M), 11) * P1 & M
        i += 1
    h = (h ^ (h >> 33)) * P2 & M
    h = (h ^ (h >> 29)) * P3 & M
    return h ^ (h >> 32)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            print("%016x" % xxh64(f.read()))
