#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Makes a damaged copy of a file-mode perf.data, one damage per KIND, for the bad-input tests.
"""usage: corrupt.py KIND IN OUT     (prints the file offset it damaged)"""
import struct
import sys

kind, src, dst = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
magic, hsize, attr_size = struct.unpack_from('<8sQQ', b, 0)
a_off, a_size, d_off, d_size = struct.unpack_from('<QQQQ', b, 24)
feat_bits = int.from_bytes(b[72:104], 'little')


def feature_section(bit):
    """(offset of its table entry, section offset, size) of feature bit."""
    table = d_off + d_size
    idx = bin(feat_bits & ((1 << bit) - 1)).count('1')
    off, size = struct.unpack_from('<QQ', b, table + 16 * idx)
    return table + 16 * idx, off, size


where = 0
if kind == 'truncated':
    b = b[:len(b) // 2]
    where = len(b)
elif kind == 'magic':
    b[0:8] = b'NOTPERF!'
elif kind == 'bigendian':
    b[0:8] = b'PERFILE2'[::-1]
elif kind == 'attr_size':
    struct.pack_into('<Q', b, 16, 7)
    where = 16
elif kind == 'attr_section':
    struct.pack_into('<Q', b, 24, len(b) + 4096)
    where = 24
elif kind == 'data_section':
    struct.pack_into('<Q', b, 48, len(b))
    where = 48
elif kind == 'feature_section':
    ent, off, size = feature_section(1)
    struct.pack_into('<Q', b, ent, len(b) + 100)
    where = ent
elif kind == 'record_zero':
    struct.pack_into('<H', b, d_off + 6, 0)
    where = d_off
elif kind == 'record_past_end':
    # the last record of the data section claims 16 more bytes than the section holds
    p = last = d_off
    while p < d_off + d_size:
        last = p
        p += struct.unpack_from('<H', b, p + 6)[0]
    size = struct.unpack_from('<H', b, last + 6)[0]
    struct.pack_into('<H', b, last + 6, size + 16)
    where = last
elif kind == 'tracing_data':
    ent, off, size = feature_section(1)
    b[off:off + 10] = b'\x17\x08\x44garbage'
    where = off
elif kind == 'tracing_formats':
    # the event system count of the tracing data becomes huge
    ent, off, size = feature_section(1)
    # past magic and version string
    p = off + 10
    p = b.index(0, p) + 1 + 2 + 4
    for tag in (b'header_page', b'header_event'):
        assert b[p:p + len(tag)] == tag
        p += len(tag) + 1
        n, = struct.unpack_from('<Q', b, p)
        p += 8 + n
    nf, = struct.unpack_from('<I', b, p)
    p += 4
    for _ in range(nf):
        n, = struct.unpack_from('<Q', b, p)
        p += 8 + n
    struct.pack_into('<I', b, p, 0x7fffffff)
    where = p
else:
    sys.exit(f'corrupt.py: unknown kind {kind}')
open(dst, 'wb').write(b)
print(where)
