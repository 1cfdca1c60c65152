#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Checks one dashboard as Chromium drew it (--dump-dom) against `pwz-render --list --json`.
"""Usage: check.py KIND PAGE.html DOM.html LIST.json [--diff] [--hostile] [--grid]

KIND is charts or heatmaps. PAGE is the file pwz-render wrote, DOM what Chromium serialized
after the page ran (every tab drawn, #all). LIST is `pwz-render --list --json` of the same
capture(s) with the same options. Prints one line per failed check and exits 1 if any failed.
"""
import base64
import datetime
import gzip
import json
import os
import sys
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from durfmt import dur, dur_range  # noqa: E402 (user/lib/fmt.h's rule, written again)


class Dom(HTMLParser):
    """A flat list of elements: (tag, attrs, text directly inside)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elems = []
        self.stack = []
        self.ids = {}

    def handle_starttag(self, tag, attrs):
        e = {"tag": tag, "attrs": dict(attrs), "text": "", "parent": self.stack[-1] if self.stack else None,
             "kids": []}
        self.elems.append(e)
        if "id" in e["attrs"]:
            self.ids.setdefault(e["attrs"]["id"], []).append(e)
        if e["parent"] is not None:
            e["parent"]["kids"].append(e)
        if tag not in ("meta", "br", "img", "input", "link", "hr"):
            self.stack.append(e)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i]["tag"] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if self.stack:
            self.stack[-1]["text"] += data

    def find(self, tag=None, **attrs):
        out = []
        pool = self.ids.get(attrs["id"], []) if "id" in attrs else self.elems
        for e in pool:
            if tag and e["tag"] != tag:
                continue
            if all(e["attrs"].get(k.replace("_", "-")) == v for k, v in attrs.items()):
                out.append(e)
        return out

    def kids(self, e, tag):
        """The elements directly inside e with this tag."""
        return [k for k in e["kids"] if k["tag"] == tag]

    def descendants(self, anc, tag):
        """The elements inside anc, at any depth, with this tag, in document order."""
        out, todo = [], list(reversed(anc["kids"]))
        while todo:
            e = todo.pop()
            if e["tag"] == tag:
                out.append(e)
            todo.extend(reversed(e["kids"]))
        return out

    def within(self, e, anc):
        while e is not None:
            if e is anc:
                return True
            e = e["parent"]
        return False


fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
    return cond


def close(a, b, rel=1e-6, abs_=1e-3):
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def page_data(page):
    """The JSON data embedded in the page, decoded as a tool would."""
    p = Dom()
    p.feed(page)
    node = [e for e in p.elems if e["attrs"].get("id") == "pwz-data"]
    check(len(node) == 1, "page: one pwz-data element")
    enc = node[0]["attrs"].get("data-encoding")
    text = node[0]["text"]
    if enc == "gzip+base64":
        text = gzip.decompress(base64.b64decode(text)).decode("utf-8")
    else:
        check(enc == "json", "page: data-encoding is json or gzip+base64, not %r" % enc)
    return json.loads(text)


def main():
    args = sys.argv[1:]
    kind, page_path, dom_path, list_path = args[:4]
    diff = "--diff" in args
    hostile = "--hostile" in args
    page = open(page_path, encoding="utf-8").read()
    dom_text = open(dom_path, encoding="utf-8", errors="replace").read()
    lst = json.load(open(list_path))
    if isinstance(lst, dict):
        lst = [lst]
    dom = Dom()
    dom.feed(dom_text)

    # --- the page itself: self-contained, data apart from the code
    check("</script" not in page.split('id="pwz-data"', 1)[1].split("</script>", 1)[0],
          "page: '</script' inside the data element")
    pg = Dom()
    pg.feed(page)
    for e in pg.elems:
        for a in ("src", "href"):
            check(a not in e["attrs"], "page: <%s %s=...> would fetch something" % (e["tag"], a))
    check("http://" not in page and "https://" not in page, "page: an http(s) URL in the page")
    data = page_data(page)
    check(data.get("kind") == kind, "page: data kind %r, expected %r" % (data.get("kind"), kind))

    # --- the DOM after the script ran
    body = dom.find("body")
    check(body and body[0]["attrs"].get("data-state") == "ready",
          "dom: body state %r (not ready)" % (body and body[0]["attrs"].get("data-state")))
    errs = [e["text"] for e in dom.find("pre") if e["attrs"].get("class") == "err"]
    check(not errs, "dom: errors shown: %s" % errs[:3])
    panels = dom.find("section")
    check(len(panels) >= 3, "dom: only %d tabs" % len(panels))
    for p in panels:
        check(p["attrs"].get("data-drawn") == "1", "dom: tab %s not drawn" % p["attrs"].get("data-tab"))
    scripts = dom.find("script")
    check(len(scripts) == 2, "dom: %d script elements (a task name became markup?)" % len(scripts))
    check(not dom.find("img"), "dom: an <img> element appeared (a task name became markup)")
    check(len(dom.find("canvas")) >= (1 if kind == "charts" else 2),
          "dom: only %d canvases drawn" % len(dom.find("canvas")))
    footer = dom.find("footer")
    check(footer and "pwz" in footer[0]["text"], "dom: no footer with pwz's version")

    tasks_by = {}
    for ri, run in enumerate(lst):
        for t in run["tasks"]:
            tasks_by[(ri, t["tid"], t["name"])] = t

    if kind == "charts":
        check_charts(dom, lst, data, diff)
        check_units(dom, lst, diff)
    else:
        check_heatmaps(dom, lst, data, True if "--grid" in args else None)

    # hostile names render as text, exactly
    if hostile:
        texts = set(e["text"] for e in dom.elems)
        names = set(t["name"] for run in lst for t in run["tasks"])
        names = [n for n in names if any(ch in n for ch in "<>&\"'\\\ufffd")]
        check(len(names) >= 3, "hostile: the capture has only %d hostile names" % len(names))
        for name in names:
            check(any(name == t or t.startswith(name + " [") or t.startswith(name + " (") for t in texts),
                  "hostile name %r not shown as text" % name)

    # drops: a visible warning
    # unpaired switch-outs are stored beside the drops but are not lost events
    lost = sum(v for r in lst for k, v in (r["capture"].get("drops") or {}).items() if k != "unpaired_switch")
    warn = [e for e in dom.elems if e["attrs"].get("id") == "warn"]
    if not lost and not any(r["capture"].get("cut") for r in lst):
        check(warn and "hidden" in warn[0]["attrs"], "dom: a warning shown for a capture that lost nothing")
    if lost:
        warn = [e for e in dom.elems if e["attrs"].get("id") == "warn"]
        check(warn and "hidden" not in warn[0]["attrs"] and "lost" in warn[0]["text"],
              "dom: capture with drops but no visible warning")

    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


def page_text(text):
    """A duration of durfmt as the pages write it: "µs" for "us", an en dash in a range."""
    return text.replace(" us", " µs").replace("-", "–").replace(">=", "≥ ")


def check_units(dom, lst, diff):
    """Durations by the one rule: the CPU table's runtime and wait percentiles, the VMs tab's
    wait percentiles (the ranges of --list --json's wait_pct), and when each capture started."""
    by_name = [{} for _ in lst]
    for ri, run in enumerate(lst):
        for t in run["tasks"]:
            by_name[ri].setdefault(t["name"], []).append(t)
    n = 0
    for r in table_rows(dom, "table-cpu"):
        ts = by_name[int(r["attrs"]["data-run"])].get(r["attrs"].get("data-name"))
        if r["attrs"].get("data-other") == "1" or not ts:
            continue
        c = cells(dom, r)
        want = page_text(dur(sum(t["runtime_ns"] for t in ts)))
        n += check(c["runtime"]["text"] == want, "units: runtime of %r shown as %r, the rule says %r"
                   % (ts[0]["name"], c["runtime"]["text"], want))
        for q in ("p50", "p99"):
            if len(ts) == 1 and ts[0].get("wait_" + q) and "wait " + q in c:
                want = page_text(dur_range(ts[0]["wait_" + q]["lo_ns"], ts[0]["wait_" + q]["hi_ns"]))
                check(c["wait " + q]["text"] == want, "units: wait %s of %r shown as %r, the rule says %r"
                      % (q, ts[0]["name"], c["wait " + q]["text"], want))
    check(n > 0, "units: no runtime checked")
    # the VMs tab: per vCPU and per task, each wait percentile the range of its bucket
    for ri, run in enumerate(lst):
        pct = {t["tid"]: t["wait_pct"] for t in run["tasks"] if t.get("wait_pct")}
        for vm in run.get("vms") or []:
            alive = {vc["tid"]: vc["alive_ns"] for vc in vm["vcpus"]}
            for r in table_rows(dom, "table-vm-%d" % vm["pid"]):
                p, c = pct.get(int(r["attrs"]["data-tid"])), cells(dom, r)
                want = page_text(dur(alive[int(r["attrs"]["data-tid"])]))
                check(c["alive"]["text"] == want, "units: VMs tab, vCPU %s alive shown as %r, the rule "
                      "says %r" % (r["attrs"]["data-tid"], c["alive"]["text"], want))
                for q in ("p50", "p99"):
                    want = page_text(dur_range(p[q]["lo_ns"], p[q]["hi_ns"])) if p else "–"
                    check(c["wait " + q]["text"] == want, "units: VMs tab, vCPU %s wait %s shown as %r, "
                          "the rule says %r" % (r["attrs"]["data-tid"], q, c["wait " + q]["text"], want))
        for r in table_rows(dom, "table-waits-%d" % ri):
            p, c = pct.get(int(r["attrs"]["data-tid"])), cells(dom, r)
            if not check(p is not None, "units: waits table row %s has no wait_pct" % r["attrs"]["data-tid"]):
                continue
            for q, col in (("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p999", "p99.9")):
                want = page_text(dur_range(p[q]["lo_ns"], p[q]["hi_ns"]))
                check(c[col]["text"] == want, "units: waits table, tid %s %s shown as %r, the rule says %r"
                      % (r["attrs"]["data-tid"], col, c[col]["text"], want))
    # the Capture tab: the host's steal as --list has it, or "not read"
    steal = [e for e in dom.find("tr") if e["attrs"].get("data-key") == "host steal"]
    check(len(steal) == len(lst), "capture tab: %d host steal rows for %d runs" % (len(steal), len(lst)))
    for tr, run in zip(steal, lst):
        c, got = run["capture"], dom.kids(tr, "td")[0]["text"]
        want = "not read" if c.get("steal_ns") is None else page_text(dur(c["steal_ns"])) + " of " + \
            page_text(dur(c["steal_cpu_time_ns"]))
        check(got.startswith(want), "capture tab: host steal %r, expected %r..." % (got, want))
    # the Capture tab: the wall clock's start when recorded, else the start on the record clock
    started = [e for e in dom.find("tr") if e["attrs"].get("data-key") == "started"]
    check(len(started) == len(lst), "capture tab: %d started rows for %d runs" % (len(started), len(lst)))
    for tr, run in zip(started, lst):
        c, got = run["capture"], dom.kids(tr, "td")[0]["text"]
        if c.get("start_wall_ns"):
            sec, ms = divmod(c["start_wall_ns"] // 1000000, 1000)
            want = datetime.datetime.fromtimestamp(sec, datetime.timezone.utc).strftime(
                "%Y-%m-%dT%H:%M:%S") + ".%03dZ" % ms
        elif c.get("start_mono_ns") is not None:
            want = "%.6f s on " % (c["start_mono_ns"] / 1e9)
        else:
            want = "unknown"
        check(got.startswith(want), "capture tab: started %r, expected %r..." % (got, want))


def cells(dom, row):
    return {e["attrs"].get("data-col"): e for e in dom.kids(row, "td")}


def table_rows(dom, tid):
    tab = (dom.find("table", id=tid) or [None])[0]
    if tab is None:
        return []
    return [e for e in dom.descendants(tab, "tr") if "data-key" in e["attrs"]]


def reason_name(e):
    return e["name"] or ("VMX" if e["isa"] == 1 else "SVM") + " %d" % e["code"]


def group_sums(tasks):
    """What a row of threads must show: the sums of --list (the largest wait for wait max)."""
    g = {"n": len(tasks), "cpu_pct": sum(t["cpu_pct"] for t in tasks)}
    for k in ("runtime_ns", "switches", "voluntary", "involuntary", "wait_ns", "wait_count",
              "exits_total"):
        g[k] = sum(t.get(k) or 0 for t in tasks)
    g["wait_max_ns"] = max([t.get("wait_max_ns") or 0 for t in tasks] + [0])
    # each thread's wait percentile buckets (--list --json wait_p50/wait_p99: {lo_ns, hi_ns})
    for q in ("p50", "p99"):
        g["wait_" + q] = [t["wait_" + q] for t in tasks if t.get("wait_" + q)]
    # sleeps by state (render/sleeps.h): [S, D, other counts, then ns], None when unknown
    g["sleep"] = None
    if tasks and all(t.get("sleep") for t in tasks):
        g["sleep"] = [sum(t["sleep"][k][f] for t in tasks) for f in ("count", "ns") for k in ("S", "D", "other")]
    g["exits"] = {}
    for t in tasks:
        for e in t["kvm_exits"]:
            g["exits"][reason_name(e)] = g["exits"].get(reason_name(e), 0) + e["count"]
    return g


def check_group_row(what, c, want, kind_known, has_wait):
    """c: the row's cells by column; want: group_sums() of the threads it stands for."""
    check(int(c["threads"]["attrs"]["data-v"]) == want["n"],
          "%s: %s threads, list %d" % (what, c["threads"]["attrs"]["data-v"], want["n"]))
    check(close(float(c["CPU %"]["attrs"]["data-v"]), want["cpu_pct"], 1e-4),
          "%s: CPU %% %s != list %s" % (what, c["CPU %"]["attrs"]["data-v"], want["cpu_pct"]))
    check(int(c["switch-outs"]["attrs"]["data-v"]) == want["switches"],
          "%s: switches %s != list %s" % (what, c["switch-outs"]["attrs"]["data-v"], want["switches"]))
    check(int(c["runtime"]["attrs"]["data-v"]) == want["runtime_ns"],
          "%s: runtime %s != list %s" % (what, c["runtime"]["attrs"]["data-v"], want["runtime_ns"]))
    if kind_known and "voluntary" in c:
        check(int(c["voluntary"]["attrs"]["data-v"]) == want["voluntary"], "%s: voluntary differs from list" % what)
        check(int(c["involuntary"]["attrs"]["data-v"]) == want["involuntary"], "%s: involuntary differs from list" % what)
    if has_wait and check("waits" in c, "%s: no wait columns" % what):
        check(int(c["waits"]["attrs"]["data-v"]) == want["wait_count"], "%s: waits %s != list %d"
              % (what, c["waits"]["attrs"]["data-v"], want["wait_count"]))
        check(int(c["wait total"]["attrs"]["data-v"]) == want["wait_ns"], "%s: wait total differs from list" % what)
        check(int(c["wait max"]["attrs"]["data-v"]) == want["wait_max_ns"], "%s: wait max differs from list" % what)
        mean = want["wait_ns"] / want["wait_count"] if want["wait_count"] else 0
        check(close(float(c["wait mean"]["attrs"]["data-v"]), mean, 1e-9), "%s: wait mean differs from list" % what)
        # the percentiles from the threads' summed wait histograms: a thread's bucket bottom
        # is --list's; a group's q-quantile lies between its threads' (a mixture's quantile
        # lies within its parts'), so its bucket bottom within theirs; n/a without histograms
        for q in ("p50", "p99"):
            cell, parts = c["wait " + q], want["wait_" + q]
            if not parts:
                check(cell["text"] == "n/a", "%s: a wait %s without histograms: %r" % (what, q, cell["text"]))
                continue
            if not check("data-v" in cell["attrs"], "%s: no wait %s (%r)" % (what, q, cell["text"])):
                continue
            v = int(cell["attrs"]["data-v"])
            los = [p["lo_ns"] for p in parts]
            if want["n"] == 1:
                check(v == los[0], "%s: wait %s from %d ns, --list %d" % (what, q, v, los[0]))
            else:
                check(min(los) <= v <= max(p["hi_ns"] for p in parts),
                      "%s: wait %s %d ns outside its threads' [%d, %d]" % (what, q, v, min(los),
                                                                          max(p["hi_ns"] for p in parts)))
    # sleeps by the state slept in: the times of S, D, other and the count of D sleeps
    if want["sleep"] is not None and check("sleep D" in c, "%s: no sleep columns (the capture reports the states)" % what):
        for col, i in (("sleep S", 3), ("sleep D", 4), ("sleep other", 5), ("D sleeps", 1)):
            check(int(c[col]["attrs"]["data-v"]) == want["sleep"][i], "%s: %s %s != list %d"
                  % (what, col, c[col]["attrs"]["data-v"], want["sleep"][i]))


def check_charts(dom, lst, data, diff):
    # CPU tab, rows by task name (the default): each row the sums of the --list threads of
    # that name, the rows past the top N summed in an "other" row per run
    by_name = [{} for _ in lst]
    for ri, run in enumerate(lst):
        for t in run["tasks"]:
            by_name[ri].setdefault(t["name"], []).append(t)
    rows = table_rows(dom, "table-cpu")
    top = 50
    ngroups = sum(len(b) for b in by_name)
    named = [r for r in rows if r["attrs"].get("data-other") != "1"]
    others = [r for r in rows if r["attrs"].get("data-other") == "1"]
    check(len(named) == min(top, ngroups), "cpu table: %d named rows, expected %d (top %d of %d names)"
          % (len(named), min(top, ngroups), top, ngroups))
    check(bool(others) == (ngroups > top), "cpu table: %d other rows for %d names" % (len(others), ngroups))
    kind_known = any(r["capture"].get("has_switch_kind") for r in lst) if lst and "capture" in lst[0] else True
    has_wait = any(t.get("wait_count") is not None for run in lst for t in run["tasks"]) and \
        any(r["has_wait"] for r in data["runs"])
    shown = [set() for _ in lst]
    cpu = []
    for r in named:
        ri, name = int(r["attrs"]["data-run"]), r["attrs"].get("data-name")
        ts = by_name[ri].get(name)
        if not check(ts is not None, "cpu table: %r of run %d not in --list" % (name, ri)):
            continue
        shown[ri].add(name)
        c = cells(dom, r)
        check(c["task"]["text"].startswith(name), "cpu table: row %r shows %r" % (name, c["task"]["text"]))
        check_group_row("cpu table: %r" % name, c, group_sums(ts), kind_known, has_wait)
        cpu.append(float(c["CPU %"]["attrs"]["data-v"]))
    if len(lst) == 1:
        check(all(cpu[i] >= cpu[i + 1] for i in range(len(cpu) - 1)), "cpu table: rows not sorted by CPU, largest first")
    for r in others:
        ri = int(r["attrs"]["data-run"])
        rest = [t for n, ts in by_name[ri].items() if n not in shown[ri] for t in ts]
        check_group_row("cpu table: other row of run %d" % ri, cells(dom, r), group_sums(rest), kind_known, has_wait)
    check(len(named) > 0, "cpu table: no row checked")
    legend = {e["attrs"].get("data-marker") for e in dom.elems if e["attrs"].get("data-marker")}
    check("total" in legend and (not kind_known or "involuntary" in legend),
          "cpu legend: markers %s, expected the total (and involuntary) switch-outs" % sorted(legend))
    check(any("% of one core" in e["text"] for e in dom.elems), "cpu tab: the unit (% of one core) is not said")

    # KVM table: per reason and total, of the rows that have exits
    ktab = dom.find("table", id="table-kvm")
    if any(t["exits_total"] for run in lst for t in run["tasks"]):
        check(bool(ktab), "kvm: exits in --list but no KVM table")
    else:
        check(not ktab and not any(e["text"].startswith("KVM exits") for e in dom.find("button")),
              "kvm: a KVM tab for a capture without KVM exits")
        title = (dom.find("title") or [{"text": ""}])[0]["text"]
        check("KVM" not in title, "kvm: the title %r names KVM exits the capture has not" % title)
    if ktab:
        krows = table_rows(dom, "table-kvm")
        check(len(krows) > 0, "kvm table: no rows")
        shown = [set() for _ in lst]
        for r in krows:
            if r["attrs"].get("data-other") == "1":
                continue
            ri, name = int(r["attrs"]["data-run"]), r["attrs"].get("data-name")
            shown[ri].add(name)
            want = group_sums(by_name[ri][name])
            c = cells(dom, r)
            check(int(c["total"]["attrs"]["data-v"]) == want["exits_total"],
                  "kvm table: %r total %s != list %d" % (name, c["total"]["attrs"]["data-v"], want["exits_total"]))
            for rn, n in want["exits"].items():
                check(rn in c and int(c[rn]["attrs"]["data-v"]) == n,
                      "kvm table: %r reason %s: page %s, list %d" % (name, rn, c.get(rn, {}).get("attrs", {}).get("data-v"), n))
        for r in krows:
            if r["attrs"].get("data-other") == "1":
                ri = int(r["attrs"]["data-run"])
                rest = [t for n, ts in by_name[ri].items() if n not in shown[ri] for t in ts]
                check(int(cells(dom, r)["total"]["attrs"]["data-v"]) == group_sums(rest)["exits_total"],
                      "kvm table: the other row's total differs from list")
        legend = [e["attrs"].get("data-reason") for e in dom.elems if e["attrs"].get("data-reason")
                  and e["parent"] and e["parent"]["attrs"].get("id") == "kvm-legend"]
        check(len(legend) > 0, "kvm: no legend")
        # handling-time percentiles: a power-of-two range or n/a, never a false precision
        rtab = dom.find("table", id="table-reasons")
        if check(bool(rtab), "kvm: no handling-time table"):
            for tr in dom.descendants(rtab[0], "tr"):
                c = cells(dom, tr)
                if "median" not in c:
                    continue
                for q in ("median", "p99"):
                    txt = c[q]["text"]
                    ok_ = txt == "n/a" if int(c["with handling time"]["attrs"]["data-v"]) == 0 else \
                        ("–" in txt or txt.startswith("≥"))
                    check(ok_, "kvm: %s shown as %r (a range or n/a expected)" % (q, txt))

    # CoreMap of run 0: the "all tasks" row first, then rows by name, per core against --list
    cm = dom.find("table", id="coremap-table")
    if check(bool(cm), "coremap: no table"):
        ncpu = data["runs"][0]["nr_cpus"]
        win = lst[0]["capture"]["window_end_ns"] - lst[0]["capture"]["window_start_ns"]
        trs = [e for e in dom.descendants(cm[0], "tr") if "data-task" in e["attrs"]]
        check(trs and trs[0]["attrs"]["data-task"] == "all tasks", "coremap: the \"all tasks\" row is not first")
        nchecked = 0
        for tr in trs:
            name = tr["attrs"]["data-task"]
            tds = dom.kids(tr, "td")
            check(len(tds) == ncpu + 1, "coremap: row %r has %d cells for %d cores + all" % (name, len(tds), ncpu))
            if tr["attrs"].get("data-other") == "1":
                continue
            lt = lst[0]["tasks"] if name == "all tasks" else by_name[0].get(name)
            if not check(lt is not None, "coremap: row %r not in --list" % name):
                continue
            # cpus is sparse: the CPUs each task ran on
            sw = [sum(x["switches"] for t in lt for x in t.get("cpus") or [] if x["cpu"] == c) for c in range(ncpu)]
            rt = [sum(x["runtime_ns"] for t in lt for x in t.get("cpus") or [] if x["cpu"] == c) for c in range(ncpu)]
            for td in tds[:ncpu]:
                cpu = int(td["attrs"]["data-cpu"])
                check(int(td["attrs"]["data-switches"]) == sw[cpu],
                      "coremap: %r core %d switches %s != list %d" % (name, cpu, td["attrs"]["data-switches"], sw[cpu]))
                want = 100.0 * rt[cpu] / win
                check(abs(float(td["attrs"]["data-pct"]) - want) < 0.0006,
                      "coremap: %r core %d %s%% of one core, list %.4f%%" % (name, cpu, td["attrs"]["data-pct"], want))
            check(int(tds[ncpu]["attrs"]["data-switches"]) == sum(sw), "coremap: %r all-cores switches != list" % name)
            # the "all" column in % of one core, as the CPU tab
            check(abs(float(tds[ncpu]["attrs"]["data-pct"]) - 100.0 * sum(rt) / win) < 0.0006,
                  "coremap: %r all-cores %s%%, list %.4f%% of one core" % (name, tds[ncpu]["attrs"]["data-pct"], 100.0 * sum(rt) / win))
            nchecked += 1
        check(nchecked > 1, "coremap: no row checked")

    # capture tab: drops
    if diff:
        check(bool(dom.find("table", id="table-delta")), "diff: no delta table")
        sel = dom.find("select", id="coremap-run")
        check(bool(sel), "diff: no run selector on the CoreMap")
        # delta cells recomputed from --list: counts scaled to the first run's window length
        wl = [r["capture"]["window_end_ns"] - r["capture"]["window_start_ns"] for r in lst]
        dtab = dom.find("table", id="table-delta")
        short1 = data["runs"][1]["short"]
        nchecked = 0
        nabsent = [0]
        for tr in (dom.descendants(dtab[0], "tr") if dtab else []):
            c = cells(dom, tr)
            if "task" not in c:
                continue
            name = c["task"]["text"]
            a = [t for t in lst[0]["tasks"] if t["name"] == name]
            b = [t for t in lst[1]["tasks"] if t["name"] == name]
            short0 = data["runs"][0]["short"]
            if not a or not b:
                # a task of one run only: marked absent in the other, its change "new"/"gone"
                gone = short0 if not a else short1
                check(c["switches " + gone]["text"] == "absent" and c["CPU % " + gone]["text"] == "absent",
                      "delta: %r has no task in %s but is not marked absent" % (name, gone))
                check(c["Δ% switches " + short1]["text"] == ("new" if not a else "gone"),
                      "delta: %r change shown as %r" % (name, c["Δ% switches " + short1]["text"]))
                nabsent[0] += 1
                continue
            sa = sum(t["switches"] for t in a)
            sb = sum(t["switches"] for t in b) * wl[0] / wl[1]
            check(close(float(c["switches " + short0]["attrs"]["data-v"]), sa, 1e-9),
                  "delta: %r switches of %s differ from list" % (name, short0))
            check(close(float(c["switches " + short1]["attrs"]["data-v"]), sb, 1e-6, 1e-6),
                  "delta: %r scaled switches of %s differ from list" % (name, short1))
            check(c["switches " + short1]["text"].replace(",", "") == "%d" % round(sb),
                  "delta: %r switch count shown as %r, not a whole count" % (name, c["switches " + short1]["text"]))
            check("." not in c["Δ switches " + short1]["text"],
                  "delta: %r switch change shown as %r" % (name, c["Δ switches " + short1]["text"]))
            if sa:
                check(close(float(c["Δ% switches " + short1]["attrs"]["data-v"]), (sb - sa) / sa * 100, 1e-6, 1e-6),
                      "delta: %r %% change of switches differs from list" % name)
            want = sum(t["switches"] for t in b) * wl[0] / wl[1] - sum(t["switches"] for t in a)
            got = float(c["Δ switches " + short1]["attrs"]["data-v"])
            check(close(got, want, 1e-6, 1e-6), "delta: %r switches %s, from --list %s" % (name, got, want))
            want = sum(t["cpu_pct"] for t in b) - sum(t["cpu_pct"] for t in a)
            got = float(c["Δ CPU % " + short1]["attrs"]["data-v"])
            check(close(got, want, 1e-3, 1e-3), "delta: %r CPU %% %s, from --list %s" % (name, got, want))
            nchecked += 1
        check(nchecked > 0, "delta: no row checked")
        names = [{t["name"] for t in r["tasks"]} for r in lst[:2]]
        check(nabsent[0] == len(names[0] ^ names[1]) or nabsent[0] + nchecked >= 50,
              "delta: %d rows marked absent, the runs differ by %d names" % (nabsent[0], len(names[0] ^ names[1])))


def check_heatmaps(dom, lst, data, expect_grid=None):
    run = lst[0]
    by_name = {}
    for t in run["tasks"]:
        by_name.setdefault(t["name"], []).append(t)
    # locality legend: slices per task == switch-outs in --list (every slice ends in one)
    items = [e for e in dom.elems if e["attrs"].get("data-task") is not None and e["parent"]
             and e["parent"]["attrs"].get("id") in ("locality-legend", "locality-more")]
    check(len(items) == len(data["tasks"]), "locality legend: %d items, data has %d tasks" % (len(items), len(data["tasks"])))
    checked = 0
    grid_tasks = []
    dtasks = {t["name"]: t for t in data["tasks"]}
    drops = run["capture"].get("drops_total") or 0
    for it in items:
        name = it["attrs"]["data-task"]
        ts = by_name.get(name)
        if not check(ts is not None, "locality legend: %r not in --list" % name):
            continue
        got = int(it["attrs"]["data-count"])
        sl = dtasks[name]["slices"]
        check(got == sl["n"], "locality legend: %r shows %d slices, the data holds %d" % (name, got, sl["n"]))
        if "d" in sl:
            # embedded whole: the points are there, and add up to the stated total
            check(len(sl["d"]) == sl["n"] == len(sl["t"]) == len(sl["c"]),
                  "data: %r slices: n %d, %d durations" % (name, sl["n"], len(sl["d"])))
            # the points hold every slice; slices_ns leaves out the unseen-start ones (R2)
            want = dtasks[name]["slices_ns"] + dtasks[name].get("unseen_ns", 0)
            check(sum(sl["d"]) == want,
                  "data: %r slices add up to %d ns, slices_ns + unseen_ns say %d" % (name, sum(sl["d"]), want))
        else:
            # a grid: every slice counted in exactly one cell, cells strictly increasing
            b = sl["bins_d"]
            check(sum(b["c"]) == sl["n"], "data: %r grid cells count %d slices, n is %d" % (name, sum(b["c"]), sl["n"]))
            check(all(k > 0 for k in b["k"][1:]) and len(b["k"]) == len(b["c"]),
                  "data: %r grid keys not strictly increasing" % name)
            grid_tasks.append(name)
        # every slice but one still running at either end of the capture ends in a switch-out
        # (an import may miss switch-ins, so there can be fewer slices, never more)
        want = sum(t["switches"] for t in ts)
        check(got <= want + 2 * len(ts), "locality legend: %r has %d slices, list %d switch-outs" % (name, got, want))
        # the slices drawn add up to the runtime --list reports
        runtime = sum(t["runtime_ns"] for t in ts)
        drawn = dtasks[name]["slices_ns"]
        if not drops:
            check(abs(drawn - runtime) <= max(1e-3 * runtime, 1000 * max(1, got)),
                  "locality: %r slices add up to %d ns, list runtime %d ns" % (name, drawn, runtime))
        checked += 1
    check(checked > 0, "locality legend: nothing checked")
    if expect_grid is not None:
        check(bool(grid_tasks) == expect_grid, "data: slices embedded as a grid for %r, expected %s" % (grid_tasks, expect_grid))
    if grid_tasks:
        # core locality from per-column summaries: busy time per core adds up to the slices
        lanes = data.get("lanes")
        if check(lanes is not None, "data: slices as a grid but no locality columns"):
            busy = sum(sum(c["b"]) for c in lanes["cores"])
            total = sum(t["slices_ns"] for t in data["tasks"])
            check(busy == total, "locality columns: %d ns busy, the slices hold %d ns" % (busy, total))
        note = [e for e in dom.elems if e["attrs"].get("class") == "note grid-note"]
        check(bool(note), "switches tab: a series is a grid but the page does not say so")
    # the first task of the switches tab: legend count of run slices
    lab = [e for e in dom.elems if e["attrs"].get("data-series") == "run slices"]
    check(bool(lab), "switches tab: no 'run slices' legend")
    # exits tab: per reason counts of the first vCPU against the list
    reasons = [e for e in dom.elems if e["parent"] and e["parent"]["attrs"].get("id") == "exit-reasons"]
    if any(t["exits_total"] for t in run["tasks"]):
        sel = dom.find("select", id="exit-task")
        if check(bool(sel) and bool(reasons), "exits tab: no task selector or reason legend"):
            opts = dom.kids(sel[0], "option")
            opt = ([o for o in opts if "selected" in o["attrs"]] or opts)[0]
            tname = opt["text"].rsplit(" (", 1)[0]
            box = [e for e in dom.elems if e["attrs"].get("id") == "exit-reasons"]
            check(box and box[0]["attrs"].get("data-task") == tname,
                  "exits tab: the selector shows %r, the reason legend is of %r" % (tname, box and box[0]["attrs"].get("data-task")))
            ts = by_name.get(tname, [])
            want = {}
            for t in ts:
                for e in t["kvm_exits"]:
                    n = e["name"] or ("VMX" if e["isa"] == 1 else "SVM") + " %d" % e["code"]
                    want[n] = want.get(n, 0) + e["count"]
            got = {e["attrs"]["data-reason"]: int(e["attrs"]["data-count"]) for e in reasons}
            check(got == want, "exits tab: %r per reason %s != list %s" % (tname, got, want))
            # the series drawn: one per reason (embedded whole, or a grid per reason, the
            # most frequent ones and "other reasons" for the rest), counted as --list counts
            lg = dom.find(id="exit-legend")
            ser = {e["attrs"]["data-series"]: int(e["attrs"]["data-count"]) for e in dom.elems
                   if lg and e["attrs"].get("data-series") and dom.within(e, lg[0])}
            dt = [t for t in data["tasks"] if t["name"] == tname][0]["exits"]
            named = {k: v for k, v in ser.items() if k != "other reasons"}
            check(all(want.get(k) == v for k, v in named.items()) and
                  ser.get("other reasons", 0) == sum(want.values()) - sum(named.values()) and
                  sum(ser.values()) == sum(want.values()) and len(ser) >= min(2, len(want)),
                  "exits tab: %r series %s, list per reason %s" % (tname, ser, want))
            if "by_reason" in dt:
                check(all(sum(z["bins_h"]["c"]) == z["n"] == sum(z["bins_g"]["c"]) for z in dt["by_reason"]),
                      "data: %r exits by reason: grid cells do not count each reason's exits" % tname)
                check(expect_grid is not False, "data: %r exits as grids in a page of points" % tname)


if __name__ == "__main__":
    sys.exit(main())
