# SPDX-License-Identifier: GPL-2.0
"""Crafted cdict v2 files for the suites (tests/badinput/run; the Python snippets of the bash
suites import it from tests/lib): msgpack written by hand, so that a record can hold what no
writer of pwz would put there, and tests/badinput/craft.c (PWZ_BADINPUT_CRAFT) to wrap a
record stream into the header, chunks and trailer of a file."""
import os
import struct
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Raw(bytes):
    """Bytes put into a msgpack stream as they are."""


def mp(o):
    if isinstance(o, Raw):
        return bytes(o)
    if o is None:
        return b"\xc0"
    if o is True:
        return b"\xc3"
    if o is False:
        return b"\xc2"
    if isinstance(o, int):
        if 0 <= o < 128:
            return bytes([o])
        if 0 <= o < 1 << 8:
            return b"\xcc" + struct.pack(">B", o)
        if 0 <= o < 1 << 16:
            return b"\xcd" + struct.pack(">H", o)
        if 0 <= o < 1 << 32:
            return b"\xce" + struct.pack(">I", o)
        if o >= 0:
            return b"\xcf" + struct.pack(">Q", o)
        if o >= -32:
            return struct.pack(">b", o)
        return b"\xd3" + struct.pack(">q", o)
    if isinstance(o, bytes):
        return b"\xc6" + struct.pack(">I", len(o)) + o
    if isinstance(o, str):
        b = o.encode()
        return (bytes([0xa0 | len(b)]) if len(b) < 32 else b"\xd9" + bytes([len(b)])) + b
    if isinstance(o, list):
        return b"\xdd" + struct.pack(">I", len(o)) + b"".join(mp(x) for x in o)
    if isinstance(o, dict):
        return b"\xdf" + struct.pack(">I", len(o)) + b"".join(mp(k) + mp(v) for k, v in o.items())
    raise TypeError(o)


def nested(depth):
    return Raw(b"\x91" * depth + b"\xc0")


META = {"format": 2, "source": "synthetic", "host": b"craft", "kernel": b"6.18", "nr_cpus": 2,
        "clock_id": 1, "start_mono_ns": 0, "start_wall_ns": 0, "duration_ns": 0,
        "has_switch_kind": True, "has_wait": False, "has_kvm": False}


def records(meta=None, task_name=b"crafted", extra=(), end_meta=None):
    m = dict(META, **(meta or {}))
    e = dict(META, duration_ns=1000000, **(end_meta or {}))
    recs = [[1, m], [2, 4242, 4242, 0, b"crafted", b"crafted", task_name],
            [3, 4242, 1, 1000, 500000, 1], [6, 4242, 1, 500000, 1, 1, 0]]
    recs += list(extra)
    return recs, [9, e]


def craft_bin():
    """The craft program: PWZ_BADINPUT_CRAFT, else the default build's."""
    p = os.environ.get("PWZ_BADINPUT_CRAFT", ".output/tests/badinput/craft")
    return p if os.path.isabs(p) else os.path.join(REPO, p)


def write_v2(path, recs, end, opts=(), raw_stream=None):
    """A v2 file at path: every record but END in a first chunk, END alone in a second, a
    trailer; opts are craft's options that make one of them wrong."""
    first = raw_stream if raw_stream is not None else b"".join(mp(r) for r in recs)
    stream = first + mp(end)
    p = subprocess.run([craft_bin(), path, "--split", str(len(first)), "--count", str(len(recs))]
                       + list(opts), input=stream, capture_output=True)
    if p.returncode:
        raise RuntimeError("craft: " + p.stderr.decode())
    return path
