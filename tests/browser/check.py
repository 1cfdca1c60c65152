#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Checks one dashboard as Chromium drew it (--dump-dom) against `pwz-render --list --json`.
"""Usage: check.py KIND PAGE.html DOM.html LIST.json [--diff] [--hostile] [--grid]

KIND is charts or heatmaps. PAGE is the file pwz-render wrote, DOM what Chromium serialized
after the page ran (every tab drawn, #all). LIST is `pwz-render --list --json` of the same
capture(s) with the same options. Prints one line per failed check and exits 1 if any failed.
"""
import base64
import gzip
import json
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    """A flat list of elements: (tag, attrs, text directly inside)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elems = []
        self.stack = []

    def handle_starttag(self, tag, attrs):
        e = {"tag": tag, "attrs": dict(attrs), "text": "", "parent": self.stack[-1] if self.stack else None}
        self.elems.append(e)
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
        for e in self.elems:
            if tag and e["tag"] != tag:
                continue
            if all(e["attrs"].get(k.replace("_", "-")) == v for k, v in attrs.items()):
                out.append(e)
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


def cells(dom, row):
    return {e["attrs"].get("data-col"): e for e in dom.elems
            if e["tag"] == "td" and e["parent"] is row}


def check_charts(dom, lst, data, diff):
    # CPU tab table against --list
    rows = [e for e in dom.find("tr") if "data-tid" in e["attrs"] and
            dom.within(e, (dom.find("table", id="table-cpu") or [None])[0])]
    nsel = sum(len(r["tasks"]) for r in data["runs"])
    check(len(rows) == nsel, "cpu table: %d rows, data has %d tasks" % (len(rows), nsel))
    list_by = {}
    for ri, run in enumerate(lst):
        for t in run["tasks"]:
            # the idle task (tid 0) has one row per CPU, swapper/N: tid and name make the key
            list_by[(ri, t["tid"], t["name"])] = t
    tids0 = {(k[0], k[1]) for k in list_by}
    check(len(list_by) == sum(len(run["tasks"]) for run in lst), "--list: two tasks with the same tid and name")
    seen = 0
    for r in rows:
        key = (int(r["attrs"]["data-run"]), int(r["attrs"]["data-tid"]), r["attrs"].get("data-name"))
        t = list_by.get(key)
        if not check(t is not None, "cpu table: tid %s of run %s not in --list" % (key[1], key[0])):
            continue
        seen += 1
        c = cells(dom, r)
        check(close(float(c["CPU %"]["attrs"]["data-v"]), t["cpu_pct"], 1e-4),
              "cpu table: tid %d CPU %% %s != list %s" % (key[1], c["CPU %"]["attrs"]["data-v"], t["cpu_pct"]))
        check(int(c["switch-outs"]["attrs"]["data-v"]) == t["switches"],
              "cpu table: tid %d switches %s != list %s" % (key[1], c["switch-outs"]["attrs"]["data-v"], t["switches"]))
        check(int(c["runtime"]["attrs"]["data-v"]) == t["runtime_ns"],
              "cpu table: tid %d runtime differs from list" % key[1])
        if t.get("voluntary") is not None and "voluntary" in c:
            check(int(c["voluntary"]["attrs"]["data-v"]) == t["voluntary"],
                  "cpu table: tid %d voluntary differs from list" % key[1])
            check(int(c["involuntary"]["attrs"]["data-v"]) == t["involuntary"],
                  "cpu table: tid %d involuntary differs from list" % key[1])
        check(c["task"]["text"].startswith(t["name"]), "cpu table: tid %d name %r != list %r"
              % (key[1], c["task"]["text"], t["name"]))
    check(seen > 0, "cpu table: no row checked")

    # KVM table: per reason and total
    ktab = dom.find("table", id="table-kvm")
    if any(t["exits_total"] for run in lst for t in run["tasks"] if (0, t["tid"]) in tids0):
        check(bool(ktab), "kvm: exits in --list but no KVM table")
    if ktab:
        krows = [e for e in dom.find("tr") if "data-tid" in e["attrs"] and dom.within(e, ktab[0])]
        check(len(krows) > 0, "kvm table: no rows")
        for r in krows:
            key = (int(r["attrs"]["data-run"]), int(r["attrs"]["data-tid"]), r["attrs"].get("data-name"))
            t = list_by[key]
            c = cells(dom, r)
            check(int(c["total"]["attrs"]["data-v"]) == t["exits_total"],
                  "kvm table: tid %d total %s != list %d" % (key[1], c["total"]["attrs"]["data-v"], t["exits_total"]))
            for e in t["kvm_exits"]:
                name = e["name"] or ("VMX" if e["isa"] == 1 else "SVM") + " %d" % e["code"]
                check(name in c and int(c[name]["attrs"]["data-v"]) == e["count"],
                      "kvm table: tid %d reason %s: page %s, list %d" % (key[1], name, c.get(name, {}).get("attrs", {}).get("data-v"), e["count"]))
        legend = [e["attrs"].get("data-reason") for e in dom.elems if e["attrs"].get("data-reason")
                  and e["parent"] and e["parent"]["attrs"].get("id") == "kvm-legend"]
        check(len(legend) > 0, "kvm: no legend")

    # CoreMap: switch-outs per core of run 0 against the list's per-CPU figures
    cm = dom.find("table", id="coremap-table")
    if check(bool(cm), "coremap: no table"):
        ncpu = data["runs"][0]["nr_cpus"]
        for tr in [e for e in dom.find("tr") if "data-task" in e["attrs"] and dom.within(e, cm[0])]:
            name = tr["attrs"]["data-task"]
            tds = [e for e in dom.elems if e["tag"] == "td" and e["parent"] is tr]
            check(len(tds) == ncpu + 1, "coremap: row %r has %d cells for %d cores + all" % (name, len(tds), ncpu))
            if name == "all tasks":
                continue
            tid = tr["attrs"].get("data-tid")
            lt = [t for t in lst[0]["tasks"] if t["name"] == name and (tid is None or t["tid"] == int(tid))]
            if len(lt) != 1:
                continue
            sw = lt[0].get("cpu_switches") or []
            rt = lt[0].get("cpu_runtime_ns") or []
            win = lst[0]["capture"]["window_end_ns"] - lst[0]["capture"]["window_start_ns"]
            for td in tds[:ncpu]:
                cpu = int(td["attrs"]["data-cpu"])
                want = sw[cpu] if cpu < len(sw) else 0
                check(int(td["attrs"]["data-switches"]) == want,
                      "coremap: %r core %d switches %s != list %d" % (name, cpu, td["attrs"]["data-switches"], want))
                want = 100.0 * (rt[cpu] if cpu < len(rt) else 0) / win
                check(abs(float(td["attrs"]["data-pct"]) - want) < 0.0006,
                      "coremap: %r core %d %s%% of the window, list %.4f%%" % (name, cpu, td["attrs"]["data-pct"], want))
            check(int(tds[ncpu]["attrs"]["data-switches"]) == lt[0]["switches"],
                  "coremap: %r all-cores switches != list" % name)

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
        for tr in [e for e in dom.find("tr") if dtab and dom.within(e, dtab[0])]:
            c = cells(dom, tr)
            if "task" not in c:
                continue
            name = c["task"]["text"]
            a = [t for t in lst[0]["tasks"] if t["name"] == name]
            b = [t for t in lst[1]["tasks"] if t["name"] == name]
            if not a or not b:
                continue
            want = sum(t["switches"] for t in b) * wl[0] / wl[1] - sum(t["switches"] for t in a)
            got = float(c["Δ switches " + short1]["attrs"]["data-v"])
            check(close(got, want, 1e-6, 1e-6), "delta: %r switches %s, from --list %s" % (name, got, want))
            want = sum(t["cpu_pct"] for t in b) - sum(t["cpu_pct"] for t in a)
            got = float(c["Δ CPU % " + short1]["attrs"]["data-v"])
            check(close(got, want, 1e-3, 1e-3), "delta: %r CPU %% %s, from --list %s" % (name, got, want))
            nchecked += 1
        check(nchecked > 0, "delta: no row checked")


def check_heatmaps(dom, lst, data, expect_grid=None):
    run = lst[0]
    by_name = {}
    for t in run["tasks"]:
        by_name.setdefault(t["name"], []).append(t)
    # locality legend: slices per task == switch-outs in --list (every slice ends in one)
    items = [e for e in dom.elems if e["attrs"].get("data-task") is not None and e["parent"]
             and e["parent"]["attrs"].get("id") == "locality-legend"]
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
            opts = [e for e in dom.elems if e["tag"] == "option" and e["parent"] is sel[0]]
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


if __name__ == "__main__":
    sys.exit(main())
