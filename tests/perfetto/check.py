#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Holds a decoded pwz-render --perfetto trace against pwz-render --list --json of the same capture.

Usage: check.py LABEL DECODED.txt LIST.json [--exits] [--window]
DECODED.txt is `protoc --decode=perfetto.protos.Trace tests/perfetto/trace.proto` of the trace.
Rebuilds, from the compact switch stream alone, per CPU and per thread the switch-outs and the
on-CPU time, and compares them, the names, the wakeups and the KVM exits with --list. Prints
ok/FAIL lines and "LABEL: N passed, N failed".
"""
import json
import re
import sys
from collections import defaultdict

label, decoded, listing = sys.argv[1:4]
flags = {a.lstrip("-") for a in sys.argv[4:]}
passed = failed = 0


def ok(msg):
    global passed
    passed += 1
    print("ok: %s: %s" % (label, msg))


def ko(msg):
    global failed
    failed += 1
    print("FAIL: %s: %s" % (label, msg))


def check(cond, msg):
    (ok if cond else ko)(msg)


TOKEN = re.compile(r'\s*(?:(\})|([A-Za-z_0-9]+)\s*(\{)|([A-Za-z_0-9]+):\s*("(?:[^"\\]|\\.)*"|\S+))')


def unquote(v):
    if v.startswith('"'):
        # protoc escapes bytes as \NNN octal and \n, \", \\ ...
        raw = v[1:-1].encode("latin-1").decode("unicode_escape").encode("latin-1")
        return raw.decode("utf-8", "replace")
    try:
        return int(v)
    except ValueError:
        return v


def parse(text):
    """protoc's text format -> nested dicts of lists."""
    root = defaultdict(list)
    stack = [root]
    pos = 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            if text[pos:].strip():
                raise ValueError("cannot parse at %d: %r" % (pos, text[pos:pos + 40]))
            break
        pos = m.end()
        if m.group(1):
            stack.pop()
        elif m.group(3):
            child = defaultdict(list)
            stack[-1][m.group(2)].append(child)
            stack.append(child)
        else:
            stack[-1][m.group(4)].append(unquote(m.group(5)))
    return root


trace = parse(open(decoded, encoding="utf-8", errors="replace").read())
lst = json.load(open(listing))
cap = lst["capture"]
packets = trace["packet"]
check(len(packets) > 0, "%d packets decoded" % len(packets))

# ---- header ----
clocks = [p for p in packets if "clock_snapshot" in p]
check(len(clocks) == 1 and {c["clock_id"][0] for c in clocks[0]["clock_snapshot"][0]["clock"
      "s"]} >= {3, 6}, "one ClockSnapshot with BOOTTIME and MONOTONIC")
si = [p for p in packets if "system_info" in p]
rel = si[0]["system_info"][0]["utsname"][0]["release"][0] if si else None
want_rel = cap["kernel"] or "6.0.0-unknown"
check(rel == want_rel, "SystemInfo utsname.release %r (capture: %r)" % (rel, cap["kernel"]))

# ---- names: process tree packets in time order, the last naming wins (as --list) ----
trees = sorted((p for p in packets if "process_tree" in p), key=lambda p: p["timestamp"][0])
name = {}
tgid = {}
timeline = defaultdict(list)
for p in trees:
    for th in p["process_tree"][0].get("threads", []):
        name[th["tid"][0]] = th["name"][0]
        timeline[th["tid"][0]].append((p["timestamp"][0], th["name"][0]))


if "renames" in flags:
    check(len(trees) > 1, "%d ProcessTree packets: the renames during the capture" % len(trees))


def name_at(tid, ts):
    got = None
    for t, n in timeline.get(tid, []):
        if got is None or t <= ts:
            got = n
    return got


# ---- the switch stream ----
bundles = defaultdict(list)
for p in packets:
    for b in p.get("ftrace_events", []):
        bundles[b["cpu"][0] if "cpu" in b else 0].append(b)
nr_cpus = cap["nr_cpus"]
runtime = defaultdict(int)
cpu_runtime = defaultdict(lambda: defaultdict(int))
switches = defaultdict(int)
preempted = defaultdict(int)
last_comm = {}
wakings = defaultdict(int)
births = defaultdict(list)
states = set()
bad_order = 0
lost = 0
first_ok = 0
for cpu, bl in sorted(bundles.items()):
    cur = None
    since = None
    last_ts = 0
    for b in bl:
        lost += 1 if b.get("lost_events", [0])[0] in (1, "true") else 0
        for ev in b.get("event", []):
            if "task_newtask" in ev:
                n = ev["task_newtask"][0]
                births[n["pid"][0]].append((ev["timestamp"][0], unquote(n["comm"][0])))
            if "sched_waking" in ev:
                w = ev["sched_waking"][0]
                wakings[w["pid"][0]] += 1
                # without a waker (today's records) the event sits on its target CPU
                if "pid" not in ev and w["target_cpu"][0] != cpu:
                    bad_order += 1
        for cs in b.get("compact_sched", []):
            ts_d = cs.get("switch_timestamp", [])
            st = cs.get("switch_prev_state", [])
            pid = cs.get("switch_next_pid", [])
            prio = cs.get("switch_next_prio", [])
            ci = cs.get("switch_next_comm_index", [])
            table = cs.get("intern_table", [])
            if not (len(ts_d) == len(st) == len(pid) == len(prio) == len(ci)):
                ko("cpu %d: compact_sched columns of unequal lengths" % cpu)
                continue
            ts = 0
            for i in range(len(ts_d)):
                ts = ts_d[i] if i == 0 else ts + ts_d[i]
                if ts < last_ts:
                    bad_order += 1
                last_ts = ts
                nxt = pid[i]
                if ci[i] >= len(table):
                    ko("cpu %d: comm index %d outside the intern table" % (cpu, ci[i]))
                    continue
                if cur is None:
                    # the first switch of a CPU: to idle (Perfetto drops it)
                    first_ok += 1 if nxt == 0 else 0
                else:
                    states.add(st[i])
                    if cur != 0:
                        runtime[cur] += ts - since
                        cpu_runtime[cur][cpu] += ts - since
                        # prev_state R (0) is the cut of a thread still running at the end
                        switches[cur] += 1 if st[i] != 0 else 0
                        if st[i] == 0x100:
                            preempted[cur] += 1
                if nxt != 0 and table[ci[i]] != name_at(nxt, ts):
                    last_comm[nxt] = (ts, table[ci[i]], name_at(nxt, ts))
                cur, since = nxt, ts
    check(cur == 0, "cpu %d: the stream ends on idle" % cpu)
check(first_ok == len(bundles), "every CPU's first switch is to idle (%d of %d CPUs)" %
      (first_ok, len(bundles)))
check(bad_order == 0, "switch timestamps ascend per CPU, wakings on their target CPU")
check(states <= {0, 1, 2, 4, 8, 0x10, 0x20, 0x40, 0x80, 0x100},
      "prev_state values are the kernel's reported bits (R, S, D, T, t, X, Z, P, I, R+): %s" %
      sorted(states))
drops = cap["drops_total"]
check((lost > 0) == (drops > 0), "lost_events on %d bundles, capture drops %d" % (lost, drops))

# ---- against --list ----
rows = defaultdict(list)
for t in lst["tasks"]:
    rows[t["tid"]].append(t)
bad_sw, bad_rt, bad_cpu, bad_name, bad_comm, bad_pre, bad_wake = [], [], [], [], [], [], []
for tid, rs in rows.items():
    if tid == 0:
        continue
    sw = sum(r["switches"] for r in rs)
    # a switch stream cannot flag a slice whose switch-in was unseen (user/lib/model.h R2): the
    # trace holds that time as the thread's, --list keeps it apart as unseen_ns
    unseen = sum(r.get("unseen_ns", 0) for r in rs)
    rt = sum(r["runtime_ns"] for r in rs) + unseen
    if switches[tid] != sw:
        bad_sw.append((tid, switches[tid], sw))
    # with --overlaps (slices that overlap on their CPU, as legacy files have), the export cuts
    # the earlier slice: it can only lose time
    if runtime[tid] != rt and not ("overlaps" in flags and runtime[tid] < rt):
        bad_rt.append((tid, runtime[tid], rt))
    for c in range(nr_cpus):
        want = sum(x["runtime_ns"] for r in rs for x in r["cpus"] if x["cpu"] == c)
        got = cpu_runtime[tid][c]
        if got != want and not ("overlaps" in flags and got < want) and not (unseen and got > want):
            bad_cpu.append((tid, c, got, want))
    # a recycled tid has a row per thread instance (model.h R8): the tree names the latest
    latest = max(rs, key=lambda r: r.get("born_ns") or 0)
    if name.get(tid) != latest["name"]:
        bad_name.append((tid, name.get(tid), latest["name"]))
    if tid in last_comm:
        bad_comm.append((tid, last_comm[tid]))
    if cap["has_switch_kind"] and "window" not in flags:
        inv = sum(r["involuntary"] for r in rs)
        if preempted[tid] != inv:
            bad_pre.append((tid, preempted[tid], inv))
    if cap["has_wait"] and "window" not in flags:
        wc = sum(r["wait_count"] for r in rs)
        if wakings[tid] != wc:
            bad_wake.append((tid, wakings[tid], wc))
n = len([t for t in rows if t])
check(not bad_sw, "switch-outs of %d threads equal --list (first differences: %s)" % (n, bad_sw[:3]))
check(not bad_rt, ("on-CPU time from the switch stream at most" if "overlaps" in flags else "on-CPU time from the switch stream equals") + " --list runtime_ns (%s)" % bad_rt[:3])
check(not bad_cpu, ("per-CPU on-CPU time at most" if "overlaps" in flags else "per-CPU on-CPU time equals") + " --list cpus (%s)" % bad_cpu[:3])
if "no-names" not in flags:
    check(not bad_name, "ProcessTree names equal --list names (%s)" % bad_name[:3])
check(not bad_comm, "every switch's comm (intern table) is the display name in effect then (%s)" % bad_comm[:3])
extra = [t for t in switches if t not in rows]
check(not extra, "no thread in the stream that --list lacks (%s)" % extra[:5])
if cap["has_switch_kind"] and "window" not in flags:
    check(not bad_pre, "R+ switch-outs equal involuntary (%s)" % bad_pre[:3])
if cap["has_wait"] and "window" not in flags:
    check(not bad_wake, "sched_waking per thread equals wait_count (%s)" % bad_wake[:3])

# a thread born during the capture (a recycled tid's new thread, model.h R8) is a task_newtask
# (named as at its birth, before any exec renamed it), so that Perfetto gives it a thread of its
# own: as many per tid as --list has rows born in the capture
if "window" not in flags:
    want_b = defaultdict(int)
    for t in lst["tasks"]:
        if t["tid"] and t.get("born_ns") is not None:
            want_b[t["tid"]] += 1
    bad_b = [(tid, len(births.get(tid, [])), n) for tid, n in want_b.items() if len(births.get(tid, [])) != n]
    bad_b += [(tid, len(v), 0) for tid, v in births.items() if tid not in want_b]
    bad_b += [(tid, "no comm") for tid, v in births.items() if any(not c for _, c in v)]
    check(not bad_b, "task_newtask per thread born in the capture (%d threads), as many as --list's "
          "rows born then (%s)" % (len(want_b), bad_b[:3]))

# ---- KVM exits ----
if "exits" in flags:
    uuid_tid = {}
    for p in packets:
        for td in p.get("track_descriptor", []):
            uuid_tid[td["uuid"][0]] = td["thread"][0]["tid"][0]
    got = defaultdict(int)
    depth = defaultdict(int)
    unbalanced = 0
    # interned names: valid from the packet that defines them on (one sequence here)
    ev_names, da_names, bad_iid, bad_da = {}, {}, 0, 0
    for p in packets:
        for d in p.get("interned_data", []):
            for n in d.get("event_names", []):
                ev_names[n["iid"][0]] = n["name"][0]
            for n in d.get("debug_annotation_names", []):
                da_names[n["iid"][0]] = n["name"][0]
        for te in p.get("track_event", []):
            if "name_iid" in te and te["name_iid"][0] not in ev_names:
                bad_iid += 1
            got_da = {da_names.get(a["name_iid"][0]) for a in te.get("debug_annotations", [])}
            if te["type"][0] != "TYPE_SLICE_END" and got_da != {"code", "isa", "guest_ns"}:
                bad_da += 1
    check(bad_iid == 0, "every exit's name iid is interned before it is used")
    check(bad_da == 0, "every exit carries code, isa and guest_ns annotations")
    for p in sorted((p for p in packets if "track_event" in p), key=lambda p: p["timestamp"][0]):
        te = p["track_event"][0]
        tid = uuid_tid.get(te["track_uuid"][0])
        typ = te["type"][0]
        if typ in ("TYPE_SLICE_BEGIN", "TYPE_INSTANT"):
            got[(tid, ev_names.get(te["name_iid"][0]))] += 1
            if typ == "TYPE_SLICE_BEGIN":
                depth[tid] += 1
                if depth[tid] > 1:
                    unbalanced += 1
        elif typ == "TYPE_SLICE_END":
            depth[tid] -= 1
            if depth[tid] < 0:
                unbalanced += 1
    want = defaultdict(int)
    for t in lst["tasks"]:
        for e in t["kvm_exits"]:
            want[(t["tid"], e["name"] or "exit %d" % e["code"])] += e["count"]
    check(sum(want.values()) > 0, "the capture has %d KVM exits" % sum(want.values()))
    check(dict(got) == dict(want), "KVM exit slices per (vCPU, name) equal --list: %s" %
          sorted(want.items())[:6])
    check(unbalanced == 0 and all(v == 0 for v in depth.values()),
          "exit slices never nest and every begin has its end")

print("%s: %d passed, %d failed" % (label, passed, failed))
