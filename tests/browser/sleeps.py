#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sleeps by state (S, D, other) from a capture's own records, against what pwz shows.

Usage: sleeps.py CAPTURE.cdict LIST.json HEATMAPS.html [--d NAME] [--s NAME:MIN_MS:MAX_MS]

Decodes the cdict v2 records independently of pwz (tests/cli/cdict_sum.py's chunk reader and
msgpack decoder): TASK records for thread births (model.h R8), SLICE records with their
prev_state (docs/cdict.md element 8, implied by `end` when META has has_prev_state). A sleep
(render/sleeps.h) begins at a slice that ended slept (end 1) and lasts to the same thread
instance's next switch-in, or to the window's end; S is prev_state 0x1, D 0x2, other the rest.
Checks:
  - `--list --json`'s "sleep" of every thread equals the records' (counts of sleeps begun in
    the window, their time clipped to it);
  - the heatmaps page's sleep series (S, D, other) hold, per task name, the sleeps that ended
    at a switch-in, with their lengths;
  - --d NAME: the threads named NAME slept in D (at least 10 times), never in S;
  - --s NAME:MIN:MAX: each thread named NAME slept in S between MIN and MAX ms in all, in D at
    most a tenth of that (a cold exec's page-ins).
Prints "ok: ..." / "FAIL: ..." lines; exits 1 if any check failed.
"""
import base64
import gzip
import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from cdict_sum import lz4_frame, unpack  # noqa: E402  (the same independent reader)

S, D, OTHER = 0, 1, 2
D_SHARE_OF_S = 0.1	# --s: the D time a thread sleeping in S may show (program page-ins)
SLEPT = 1
failed = 0


def check(cond, what):
    global failed
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failed += 1
    return cond


def records(path):
    """Every record of the whole chunks, in file order."""
    data = open(path, "rb").read()
    if data[:8] != b"PWZCDICT":
        raise SystemExit("%s: not a cdict v2 file" % path)
    off = struct.unpack_from("<H", data, 10)[0]
    while off + 16 <= len(data) and data[off:off + 4] == b"PWZK":
        flen, dlen, _ = struct.unpack_from("<III", data, off + 4)
        if off + 16 + flen > len(data):
            break
        recs = lz4_frame(data[off + 16:off + 16 + flen], dlen)
        i = 0
        while i < len(recs):
            r, i = unpack(recs, i)
            yield r
        off += 16 + flen


def klass(state):
    state &= ~0x100
    return S if state == 0x1 else D if state == 0x2 else OTHER


def decode(path, ws, we):
    meta, births, slices = {}, {}, []
    for r in records(path):
        if r[0] == 1:
            meta = {(k.decode() if isinstance(k, bytes) else k): v for k, v in r[1].items()}
        elif r[0] == 2 and len(r) > 7 and r[7] & 1:
            births.setdefault(r[1], []).append(r[3])
        elif r[0] == 3:
            tid, start, dur, end = r[1], r[3], r[4], r[5]
            if len(r) > 7:
                state = r[7]
            elif end == SLEPT and meta.get("has_prev_state"):
                state = 0x1     # what `end` implies
            else:
                state = None
            slices.append((tid, start, dur, end, state))
    per = {}        # (tid, born) -> [counts, ns, [points by class]]
    for tid, start, dur, end, state in slices:
        if tid == 0:
            continue
        b = max([x for x in births.get(tid, []) if x <= start + dur], default=0)
        per.setdefault((tid, b), []).append((start, dur, end, state))
    out = {}
    for key, sl in per.items():
        sl.sort()
        cnt, ns, pts = [0, 0, 0], [0, 0, 0], [[], [], []]
        for i, (start, dur, end, state) in enumerate(sl):
            if end != SLEPT:
                continue
            c, since = klass(state), start + dur
            nxt = sl[i + 1][0] if i + 1 < len(sl) else None
            if ws <= since < we:
                cnt[c] += 1
                if nxt is not None and nxt >= since:
                    pts[c].append(nxt - since)
            z = min(nxt if nxt is not None else we, we)
            a = max(since, ws)
            if z > a:
                ns[c] += z - a
        out[key] = (cnt, ns, pts)
    return meta, out


def page_data(path):
    page = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="pwz-data" data-encoding="([^"]*)">(.*?)</script>',
                  page, re.S)
    text = m.group(2)
    if m.group(1) == "gzip+base64":
        text = gzip.decompress(base64.b64decode(text)).decode("utf-8")
    return json.loads(text)


def main():
    args = sys.argv[1:]
    cap, lst, heat = args[:3]
    want_d = [args[i + 1] for i, a in enumerate(args) if a == "--d"]
    want_s = [args[i + 1].split(":") for i, a in enumerate(args) if a == "--s"]
    lst = json.load(open(lst))
    ws, we = lst["capture"]["window_start_ns"], lst["capture"]["window_end_ns"]
    meta, rec = decode(cap, ws, we)
    what = os.path.basename(cap)
    if not check(meta.get("has_prev_state") is True, "%s: the capture reports prev_state" % what):
        return 1
    names = ("S", "D", "other")
    bad, nd, ns_total = [], 0, [0, 0, 0]
    for t in lst["tasks"]:
        if t["tid"] == 0:
            continue
        cnt, ns, _ = rec.get((t["tid"], t["born_ns"] or 0), ([0, 0, 0], [0, 0, 0], None))
        got = t["sleep"]
        if got is None or [got[n]["count"] for n in names] != cnt or [got[n]["ns"] for n in names] != ns:
            bad.append("%s (%d): list %s, records %s %s" % (t["name"], t["tid"], got, cnt, ns))
        nd += cnt[D]
        for c in range(3):
            ns_total[c] += ns[c]
    check(not bad, "%s: --list --json sleeps by state of %d threads equal the records' (%d D sleeps, "
          "S %.1f ms, D %.1f ms, other %.1f ms)%s" % (what, len(lst["tasks"]), nd, ns_total[S] / 1e6,
                                                       ns_total[D] / 1e6, ns_total[OTHER] / 1e6,
                                                       "; " + "; ".join(bad[:3]) if bad else ""))
    for name in want_d:
        ts = [t for t in lst["tasks"] if t["name"] == name]
        dn = sum(t["sleep"]["D"]["count"] for t in ts)
        check(ts and dn >= 10 and all(t["sleep"]["S"]["count"] == 0 for t in ts),
              "%s: %s slept in D %d times (%.1f ms), never in S" % (
                  what, name, dn, sum(t["sleep"]["D"]["ns"] for t in ts) / 1e6))
    # a sleep(1) may block in D while its exec pages the program in from a cold disk (a fresh
    # CI host): a few ms, a small share of the interruptible sleep it was asked for
    for name, lo, hi in want_s:
        ts = [t for t in lst["tasks"] if t["name"] == name]
        check(ts and all(float(lo) <= t["sleep"]["S"]["ns"] / 1e6 <= float(hi) and
                         t["sleep"]["D"]["ns"] <= D_SHARE_OF_S * t["sleep"]["S"]["ns"] for t in ts),
              "%s: each %s thread slept in S %s ms (the workload asked %s-%s), in D %s ms (at most "
              "%d %% of S: the exec's page-ins)" % (
                  what, name, [round(t["sleep"]["S"]["ns"] / 1e6, 1) for t in ts], lo, hi,
                  [round(t["sleep"]["D"]["ns"] / 1e6, 1) for t in ts], D_SHARE_OF_S * 100))

    # the heatmaps' sleep series: per task name, the sleeps that ended at a switch-in
    data = page_data(heat)
    check(data.get("sleep_states") is True, "%s: the heatmaps split the sleeps by state" % what)
    by_name = {}
    for t in lst["tasks"]:
        by_name.setdefault(t["name"], []).append((t["tid"], t["born_ns"] or 0))
    bad, nchecked = [], 0
    for t in data["tasks"]:
        keys = by_name.get(t["name"], [])
        for c, series in enumerate(("sleeps", "sleeps_d", "sleeps_o")):
            pts = sorted(p for k in keys for p in rec.get(k, (0, 0, [[], [], []]))[2][c])
            s = t.get(series)
            if s is None or s["n"] != len(pts) or ("d" in s and sorted(s["d"]) != pts):
                bad.append("%s %s: page %s, records %d" % (t["name"], series, s and s["n"], len(pts)))
            nchecked += len(pts)
    check(not bad and nchecked > 0, "%s: heatmaps sleep series S / D / other of %d tasks hold the "
          "records' %d sleeps%s" % (what, len(data["tasks"]), nchecked, "; " + "; ".join(bad[:3]) if bad else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
