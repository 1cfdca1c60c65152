#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Holds a decoded pwz-render --perfetto trace against pwz-render --list --json of the same capture.

Usage: check.py LABEL DECODED.txt LIST.json [--exits [--exact-dur]] [--states] [--window] ...
DECODED.txt is `protoc --decode=perfetto.protos.Trace tests/perfetto/trace.proto` of the trace.
Rebuilds, from the compact switch stream alone, per CPU and per thread the switch-outs and the
on-CPU time, and compares them, the names, the wakeups and the KVM exits with --list. Prints
ok/FAIL lines and "LABEL: N passed, N failed, N skipped" (tests/lib/report.py). --exact-dur:
the exit slices last exactly --list's handling time (nothing cut). With dump_exits=FILE in the environment, writes every exit
slice as decoded (vCPU, name, isa, ts, dur, code, guest_ns) to FILE, to compare two encodings.
--states: the vCPU state tracks; with dump_states=FILE, appends each of their slices to FILE
("tid start end state", times from the capture start).
"""
import json
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from report import done, report  # noqa: E402

label, decoded, listing = sys.argv[1:4]
flags = {a.lstrip("-") for a in sys.argv[4:]}


def ok(msg):
    report(True, "%s: %s" % (label, msg))


def ko(msg):
    report(False, "%s: %s" % (label, msg))


def check(cond, msg):
    report(cond, "%s: %s" % (label, msg))


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
# one trace-wide snapshot (the primary clock BOOTTIME, MONOTONIC); the others set a vCPU
# sequence's own clock (64..127) against BOOTTIME
clocks = [p for p in packets if "clock_snapshot" in p]
ids = [{c["clock_id"][0] for c in p["clock_snapshot"][0]["clocks"]} for p in clocks]
glob = [i for p, i in zip(clocks, ids) if "primary_trace_clock" in p["clock_snapshot"][0]]
check(len(glob) == 1 and glob[0] >= {3, 6} and
      all(i == glob[0] or (6 in i and len(i) == 2 and max(i) in range(64, 128)) for i in ids),
      "one ClockSnapshot with BOOTTIME and MONOTONIC, %d of sequence clocks" % (len(clocks) - 1))
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
# The track events are read as trace_processor reads a trace (trace_packet.proto,
# trace_packet_defaults.proto, clock_snapshot.proto): per trusted_packet_sequence_id, the
# incremental state (interned names, TracePacketDefaults, sequence-scoped clocks) starts valid
# at a packet flagged SEQ_INCREMENTAL_STATE_CLEARED and is cleared there; a packet flagged
# SEQ_NEEDS_INCREMENTAL_STATE on a sequence without it would be skipped; a timestamp is on the
# packet's timestamp_clock_id, else the defaults', else BOOTTIME (the trace clock here); an
# incremental clock adds each timestamp to its previous value, starting from its snapshot's;
# a track event without track_uuid is on the defaults' track.
SEQ_CLEARED, SEQ_NEEDS = 1, 2
BOOTTIME = 6


class Sequence:
    def __init__(self):
        self.valid = False
        self.clear()

    def clear(self):
        self.ev_names, self.da_names = {}, {}
        self.defaults = {}
        self.clocks = {}        # clock id -> [value, incremental, offset to BOOTTIME]
        self.npackets = 0


def read_track_events(packets):
    """Returns (events, tracks, problems): events as dicts in file order with ts (trace time),
    uuid, type, name, annotations; tracks: uuid -> track descriptor; problems: messages."""
    seqs = defaultdict(Sequence)
    events, tracks, problems = [], {}, []
    for p in packets:
        sid = p.get("trusted_packet_sequence_id", [0])[0]
        sq = seqs[sid]
        flags = p.get("sequence_flags", [0])[0]
        sq.npackets += 1
        first = sq.npackets == 1
        if flags & SEQ_CLEARED:
            if not sid:
                problems.append("SEQ_INCREMENTAL_STATE_CLEARED on sequence 0")
            sq.clear()
            sq.npackets = 1
            sq.valid = True
        uses_state = False
        for d in p.get("trace_packet_defaults", []):
            sq.defaults = {"clock": d.get("timestamp_clock_id", [0])[0],
                           "uuid": [t.get("track_uuid", [0])[0]
                                    for t in d.get("track_event_defaults", [])] or [0]}
            sq.defaults["uuid"] = sq.defaults["uuid"][0]
        for d in p.get("interned_data", []):
            if not sq.valid:
                problems.append("interned data on sequence %d before its state is cleared" % sid)
            for n in d.get("event_names", []):
                sq.ev_names[n["iid"][0]] = n["name"][0]
            for n in d.get("debug_annotation_names", []):
                sq.da_names[n["iid"][0]] = n["name"][0]
        if "clock_snapshot" in p:
            snap = p["clock_snapshot"][0]["clocks"]
            boot = [c["timestamp"][0] for c in snap if c["clock_id"][0] == BOOTTIME]
            for c in snap:
                cid = c["clock_id"][0]
                if 64 <= cid < 128:
                    if not sid or not boot:
                        problems.append("sequence clock %d without a sequence or BOOTTIME" % cid)
                        continue
                    inc = c.get("is_incremental", ["false"])[0] in (1, "true")
                    sq.clocks[cid] = [c["timestamp"][0], inc, boot[0] - c["timestamp"][0]]
            continue    # trace_processor reads nothing else of a clock snapshot packet
        if flags & SEQ_NEEDS and not sq.valid:
            problems.append("a packet of sequence %d needs incremental state it does not have" % sid)
            continue
        ts = None
        if "timestamp" in p:
            cid = p.get("timestamp_clock_id", [0])[0]
            if not cid and sq.defaults.get("clock"):
                cid = sq.defaults["clock"]
                uses_state = True
            ts = p["timestamp"][0]
            if 64 <= cid < 128:
                clk = sq.clocks.get(cid)
                if clk is None:
                    problems.append("timestamp on clock %d, which sequence %d never defined" % (cid, sid))
                    continue
                if clk[1]:
                    clk[0] += ts
                    ts = clk[0]
                ts += clk[2]
            elif cid not in (0, BOOTTIME):
                problems.append("timestamp on clock %d" % cid)
        for td in p.get("track_descriptor", []):
            tracks[td["uuid"][0]] = td
        for te in p.get("track_event", []):
            uuid = te.get("track_uuid", [None])[0]
            if uuid is None:
                uuid = sq.defaults.get("uuid", 0)
                uses_state = True
            name = te.get("name", [None])[0]
            if "name_iid" in te:
                uses_state = True
                name = sq.ev_names.get(te["name_iid"][0])
                if name is None:
                    problems.append("name iid %d not interned on sequence %d" % (te["name_iid"][0], sid))
            ann = {}
            for a in te.get("debug_annotations", []):
                an = sq.da_names.get(a["name_iid"][0]) if "name_iid" in a else a.get("name", [None])[0]
                if "name_iid" in a:
                    uses_state = True
                ann[an] = a.get("uint_value", a.get("string_value", [None]))[0]
            if uses_state and not flags & SEQ_NEEDS:
                problems.append("a track event uses incremental state without SEQ_NEEDS_INCREMENTAL_STATE")
            if ts is None:
                problems.append("a track event without timestamp")
                continue
            events.append({"ts": ts, "uuid": uuid, "type": te["type"][0], "name": name,
                           "ann": ann, "seq": sid, "first": first})
    return events, tracks, problems, seqs


def exit_slices(events, tracks):
    """The exit slices: (tid, name, isa, ts, dur or None, code, guest_ns) per begin/instant, and
    the count of nesting or unmatched ends."""
    open_, out, unbalanced = {}, [], 0
    for ev in sorted(events, key=lambda e: e["ts"]):    # stable: file order at equal times
        td = tracks.get(ev["uuid"])
        if not td or "thread" not in td:
            continue    # not a vCPU's track (the flight recorder's trigger)
        tid = td["thread"][0]["tid"][0]
        m = re.match(r"KVM exits \((\w+)\)$", td.get("name", [""])[0])
        isa = ev["ann"].get("isa", m.group(1) if m else None)
        if ev["type"] in ("TYPE_SLICE_BEGIN", "TYPE_INSTANT"):
            rec = [tid, ev["name"], isa, ev["ts"], 0 if ev["type"] == "TYPE_INSTANT" else None,
                   ev["ann"].get("code"), ev["ann"].get("guest_ns"), sorted(ev["ann"])]
            out.append(rec)
            if ev["type"] == "TYPE_SLICE_BEGIN":
                if tid in open_:
                    unbalanced += 1
                open_[tid] = rec
        elif ev["type"] == "TYPE_SLICE_END":
            rec = open_.pop(tid, None)
            if rec is None:
                unbalanced += 1
            else:
                rec[4] = ev["ts"] - rec[3]
    return out, unbalanced + len(open_)


if "exits" in flags or "dump_exits" in os.environ:
    events, tracks, problems, seqs = read_track_events(packets)
    exits, unbalanced = exit_slices(events, tracks)
    if "dump_exits" in os.environ:
        with open(os.environ["dump_exits"], "w") as f:
            for e in sorted(exits, key=lambda e: (e[0], e[3])):
                f.write("%s\n" % e[:7])
if "exits" in flags:
    check(not problems, "the track events decode by the sequences' incremental state (%s)" % problems[:3])
    # each vCPU's exits are on a sequence of its own that starts cleared, as a first packet
    exit_seqs = {e["seq"] for e in events if e["uuid"] in tracks and "thread" in tracks[e["uuid"]]}
    per_seq = defaultdict(set)
    for e in events:
        per_seq[e["seq"]].add(e["uuid"])
    firsts = [p for p in packets if p.get("first_packet_on_sequence", ["false"])[0] in (1, "true")]
    first_seqs = {p["trusted_packet_sequence_id"][0] for p in firsts
                  if p.get("sequence_flags", [0])[0] & SEQ_CLEARED}
    check(exit_seqs and all(len(per_seq[s]) == 1 for s in exit_seqs) and exit_seqs <= first_seqs,
          "%d vCPU tracks, each on a sequence of its own whose first packet clears the "
          "incremental state" % len(exit_seqs))
    bad_da = [e for e in exits if not set(e[7]) >= {"code", "guest_ns"} or e[2] not in ("vmx", "svm", "unknown")]
    check(not bad_da, "every exit carries code and guest_ns annotations and an ISA (its track's "
          "or its own) (%s)" % bad_da[:2])
    got, got_dur = defaultdict(int), defaultdict(int)
    for e in exits:
        got[(e[0], e[1], e[2], e[5])] += 1
        got_dur[(e[0], e[1])] += e[4] or 0
    want, want_dur = defaultdict(int), defaultdict(int)
    for t in lst["tasks"]:
        for e in t["kvm_exits"]:
            name = e["name"] or "exit %d" % e["code"]
            want[(t["tid"], name, e["isa"], e["code"])] += e["count"]
            want_dur[(t["tid"], name)] += e["handling_ns"]
    check(sum(want.values()) > 0, "the capture has %d KVM exits" % sum(want.values()))
    check(dict(got) == dict(want), "KVM exit slices per (vCPU, name, isa, code) equal --list: %s" %
          sorted(want.items())[:6])
    # a slice lasts from the exit to the next entry, cut at the vCPU's next exit and at the
    # window's end: never longer than --list's handling time, equal when nothing was cut
    longer = [(k, got_dur[k], v) for k, v in want_dur.items() if got_dur[k] > v]
    check(not longer, "exit slice durations per (vCPU, name) at most --list handling_ns (%s)" % longer[:3])
    if "exact-dur" in flags:
        diff = [(k, got_dur[k], v) for k, v in want_dur.items() if got_dur[k] != v]
        check(not diff, "exit slice durations per (vCPU, name) equal --list handling_ns (%s)" % diff[:3])
    check(unbalanced == 0, "exit slices never nest and every begin has its end")

# ---- vCPU state tracks ----
# One per vCPU thread of --list (vms[].vcpus[]), named "<thread> state", child of its VM
# process's track; its slices (the timeline of user/lib/vcpu_timeline.h) are consecutive, never
# overlap, cover the thread's life in the window (--list's alive_ns) and nothing else; their
# ready total is its waits' (--list wait_ns), their guest total its exits' guest_ns. Both are
# exact over the whole capture; a window may cut a wait or a guest time at its start (at most).
STATE_NAMES = {"guest", "exit", "other_on_cpu", "ready", "halt"}
if "states" in flags:
    events, tracks, problems, seqs = read_track_events(packets)
    check(not problems, "the track events decode by the sequences' incremental state (%s)" % problems[:3])
    base = cap["start_mono_ns"]
    w0, w1 = cap["window_start_ns"], cap["window_end_ns"]
    st_tracks = {u: td for u, td in tracks.items() if "parent_uuid" in td}
    procs = {u: td["process"][0]["pid"][0] for u, td in tracks.items() if "process" in td}
    spans, open_, unbalanced = defaultdict(list), {}, 0
    for ev in events:   # one sequence, in time order
        if ev["uuid"] not in st_tracks:
            continue
        if ev["type"] == "TYPE_SLICE_BEGIN":
            unbalanced += ev["uuid"] in open_
            open_[ev["uuid"]] = ev
        elif ev["type"] == "TYPE_SLICE_END" and ev["uuid"] in open_:
            b = open_.pop(ev["uuid"])
            spans[ev["uuid"]].append((b["ts"] - base, ev["ts"] - base, b["name"]))
        else:
            unbalanced += 1
    check(unbalanced == 0 and not open_, "state slices never nest and every begin has its end")
    by_name = {td["name"][0]: u for u, td in st_tracks.items()}
    vcpus = [(vm, vc) for vm in lst["vms"] for vc in vm["vcpus"]]
    check(len(vcpus) > 0 and len(st_tracks) == len(vcpus),
          "%d state tracks for the %d vCPUs of --list" % (len(st_tracks), len(vcpus)))
    guest_of = defaultdict(int)
    for e in exit_slices(events, tracks)[0]:
        guest_of[e[0]] += e[6] or 0
    wait_of = defaultdict(int)
    for t in lst["tasks"]:
        wait_of[t["tid"]] += t["wait_ns"] or 0
    bad_track, bad_seq, bad_life, bad_ready, bad_guest = [], [], [], [], []
    totals = defaultdict(int)
    for vm, vc in vcpus:
        u = by_name.get(vc["name"] + " state")
        if u is None or procs.get(st_tracks[u]["parent_uuid"][0]) != vm["pid"]:
            bad_track.append((vc["tid"], vc["name"], u))
            continue
        sp = spans[u]
        if "dump_states" in os.environ:
            with open(os.environ["dump_states"], "a") as f:
                f.writelines("%d %d %d %s\n" % (vc["tid"], a, b, n) for a, b, n in sp)
        tot = defaultdict(int)
        for i, (a, b, n) in enumerate(sp):
            tot[n] += b - a
            if n not in STATE_NAMES or b <= a or a < w0 or b > w1 or \
               (i and (a != sp[i - 1][1] or n == sp[i - 1][2])):
                bad_seq.append((vc["tid"], a, b, n))
        for n, v in tot.items():
            totals[n] += v
        life = sp[-1][1] - sp[0][0] if sp else 0
        if life != vc["alive_ns"]:
            bad_life.append((vc["tid"], life, vc["alive_ns"]))
        exact = "window" not in flags
        if tot["ready"] != wait_of[vc["tid"]] and (exact or tot["ready"] > wait_of[vc["tid"]]):
            bad_ready.append((vc["tid"], tot["ready"], wait_of[vc["tid"]]))
        if tot["guest"] != guest_of[vc["tid"]] and (exact or tot["guest"] > guest_of[vc["tid"]]):
            bad_guest.append((vc["tid"], tot["guest"], guest_of[vc["tid"]]))
    check(not bad_track, "each vCPU's track is named '<thread> state', under its VM process's track (%s)" % bad_track[:3])
    check(not bad_seq, "state slices are named by state, consecutive, non-overlapping, inside the window (%s)" % bad_seq[:3])
    check(not bad_life, "state slices cover each vCPU's life in the window, --list alive_ns (%s)" % bad_life[:3])
    rel = "at most" if "window" in flags else "equals"
    check(not bad_ready, "ready total per vCPU %s its --list wait_ns (%s)" % (rel, bad_ready[:3]))
    check(not bad_guest, "guest total per vCPU %s its exits' guest_ns (%s)" % (rel, bad_guest[:3]))
    check(totals["guest"] > 0 and totals["ready"] > 0 and totals["exit"] > 0,
          "state totals over the vCPUs: %s" % dict(sorted(totals.items())))

done(label)
