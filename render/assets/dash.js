// SPDX-License-Identifier: GPL-2.0
// pwz dashboards: reads the page's JSON data and draws the tabs (canvas charts, tables), offline.
"use strict";
(function () {

// ---------- small helpers (every capture string goes through textContent, never HTML) ----------
function el(tag, attrs, ...kids) {
	const e = document.createElement(tag);
	if (attrs) {
		for (const k in attrs) {
			const v = attrs[k];
			if (v === undefined || v === null || v === false)
				continue;
			if (k === "text")
				e.textContent = String(v);
			else if (k === "class")
				e.className = v;
			else if (k.startsWith("on"))
				e.addEventListener(k.slice(2), v);
			else if (k === "style")
				e.style.cssText = v;
			else
				e.setAttribute(k, String(v));
		}
	}
	for (const kid of kids) {
		if (kid === null || kid === undefined)
			continue;
		e.appendChild(typeof kid === "string" ? document.createTextNode(kid) : kid);
	}
	return e;
}

const errors = [];
window.pwzErrors = errors;
function reportError(msg) {
	errors.push(String(msg));
	document.body.dataset.errors = String(errors.length);
	const main = document.getElementById("main");
	if (main)
		main.appendChild(el("pre", { class: "err", text: "Error: " + msg }));
}
window.addEventListener("error", (ev) => reportError(ev.message || "script error"));
window.addEventListener("unhandledrejection", (ev) => reportError(ev.reason && ev.reason.stack ||
	String(ev.reason)));

function maxOf(list, f, floor) {
	let m = floor;
	for (const x of list)
		m = Math.max(m, f(x));
	return m;
}

// Thousands separators by hand: toLocaleString is slow enough to show in tables of 1,000 rows.
function fmtInt(v) {
	const r = Math.round(v), s = String(Math.abs(r));
	return (r < 0 ? "-" : "") + (s.length > 3 ? s.replace(/\B(?=(\d{3})+(?!\d))/g, ",") : s);
}
function fmtPct(v) { return v.toFixed(2) + "%"; }
// Durations by the one rule of user/lib/fmt.h (pwz's text outputs follow it too): the largest
// of ns, µs, ms, s in which the value, rounded, is at least 1; three significant digits
// (whole ns below 1 µs, whole s from 1000 s), halves up, exact on whole nanoseconds.
const DUR_UNITS = [[1, "ns"], [1e3, "µs"], [1e6, "ms"], [1e9, "s"]];
function durRound(ns, div) {
	const r = ns % div;
	return (ns - r) / div + (r >= div - Math.floor(div / 2) ? 1 : 0);
}
// [unit index, decimals] of ns by the rule
function durChoose(ns) {
	let u = 0;
	while (u < 3 && ns >= DUR_UNITS[u + 1][0])
		u++;
	const whole = (ns - ns % DUR_UNITS[u][0]) / DUR_UNITS[u][0];
	let d = u ? Math.max(0, 3 - String(whole).length) : 0;
	// rounding may carry into a fourth digit: 9.996 ms is 10.0 ms, 999.6 µs is 1.00 ms
	while (durRound(ns, DUR_UNITS[u][0] / 10 ** d) >= 1000) {
		if (d > 0)
			d--;
		else if (u < 3)
			u++, d = 2;
		else
			break;
	}
	return [u, d];
}
function durNumber(ns, u, d) {
	const q = String(durRound(ns, DUR_UNITS[u][0] / 10 ** d));
	if (!d)
		return q;
	const s = q.padStart(d + 1, "0");
	return s.slice(0, -d) + "." + s.slice(-d);
}
function fmtNs(ns) {
	ns = Math.max(0, Math.round(Number(ns)));
	const [u, d] = durChoose(ns);
	return durNumber(ns, u, d) + " " + DUR_UNITS[u][1];
}
// The closed range [lo, hi] ns (a histogram bucket) by the same rule: in hi's unit, lo to as
// many decimals, decimals added while the two ends read alike; one value when lo == hi;
// "≥ lo" when hi is null (a bucket with no top).
function fmtRange(lo, hi) {
	lo = Math.max(0, Math.round(Number(lo)));
	if (hi === null || hi === undefined)
		return "≥ " + fmtNs(lo);
	hi = Math.round(Number(hi));
	if (lo === hi)
		return fmtNs(lo);
	let [u, d] = durChoose(hi), a, b;
	for (;;) {
		a = durNumber(lo, u, d);
		b = durNumber(hi, u, d);
		if (a !== b || 10 ** d >= DUR_UNITS[u][0])
			break;
		d++;
	}
	return a + "–" + b + " " + DUR_UNITS[u][1];
}
// 10^e ns as a short axis label: 1 µs, 10 µs, 100 µs, 1 ms, ... 1 s, 10 s, ...
function fmtDecade(e) {
	const units = [[9, "s"], [6, "ms"], [3, "µs"], [0, "ns"]];
	for (const [p, u] of units)
		if (e >= p)
			return Math.pow(10, e - p).toLocaleString("en-US") + " " + u;
	return Math.pow(10, e) + " ns";
}
function fmtMs(ns) { return (ns / 1e6).toLocaleString("en-US", { maximumFractionDigits: 3 }) + " ms"; }
function isaName(isa) { return isa === 1 ? "VMX" : isa === 2 ? "SVM" : "ISA" + isa; }
function reasonName(r) { return r.name || (isaName(r.isa) + " " + r.code); }
function reasonKey(isa, code) { return isa + ":" + code; }

// 20 colours that stay apart (dark and light pairs of ten hues). Charts that may have more
// series (tasks on the timeline) colour the 19 largest and draw the rest in OTHER_SEL, with a
// legend that isolates any of them; color() past 20 cycles with a hue shift.
const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
	"#17becf", "#bcbd22", "#393b79", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
	"#c49c94", "#f7b6d2", "#9edae5", "#dbdb8d", "#6b6ecf"];
const OTHER_SEL = "#7f8794", OTHER_FILL = "#d5dae2", FADED = "#e4e7ec";
function color(i) {
	if (i < PALETTE.length)
		return PALETTE[i];
	return "hsl(" + ((i * 137.5) % 360).toFixed(0) + ",55%,52%)";
}
function rgb(hex) {
	if (hex[0] === "#")
		return [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16),
			parseInt(hex.slice(5, 7), 16)];
	const m = /hsl\((\d+),(\d+)%,(\d+)%\)/.exec(hex);
	const h = m[1] / 360, s = m[2] / 100, l = m[3] / 100;
	const q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
	const f = (t) => {
		t = (t + 1) % 1;
		if (t < 1 / 6) return p + (q - p) * 6 * t;
		if (t < 1 / 2) return q;
		if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
		return p;
	};
	return [f(h + 1 / 3) * 255, f(h) * 255, f(h - 1 / 3) * 255].map(Math.round);
}

// Blue / orange scales for the CoreMap cells: 0 is white, 1 full colour.
const rgbCache = new Map();
function scale(v, base) {
	let c = rgbCache.get(base);
	if (!c) {
		c = rgb(base);
		rgbCache.set(base, c);
	}
	const t = Math.max(0, Math.min(1, v));
	return "rgb(" + c.map((x) => Math.round(255 + (x - 255) * t)).join(",") + ")";
}

// ---------- tooltip ----------
let tipEl = null;
function tip(ev, text) {
	if (!tipEl) {
		tipEl = el("div", { class: "tip", role: "tooltip" });
		document.body.appendChild(tipEl);
	}
	if (text === null) {
		tipEl.hidden = true;
		return;
	}
	tipEl.hidden = false;
	tipEl.textContent = text;
	const x = Math.min(ev.clientX + 14, window.innerWidth - tipEl.offsetWidth - 4);
	tipEl.style.left = x + "px";
	tipEl.style.top = (ev.clientY + 14) + "px";
}

// ---------- canvas helpers ----------
function makeCanvas(parent, height) {
	const wrap = el("div", { class: "chart" });
	const cv = el("canvas");
	wrap.appendChild(cv);
	parent.appendChild(wrap);
	// from the window's width (as main's CSS lays it out): reading the wrapper's would force a
	// layout of the whole page, slow beside a large table
	const width = Math.max(480, Math.min(2400, (window.innerWidth || 1000) - 52));
	const dpr = window.devicePixelRatio || 1;
	cv.width = Math.round(width * dpr);
	cv.height = Math.round(height * dpr);
	cv.style.height = height + "px";
	const ctx = cv.getContext("2d");
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	return { cv, ctx, width, height, dpr };
}

function niceStep(span, n) {
	const raw = span / Math.max(1, n), p = Math.pow(10, Math.floor(Math.log10(raw)));
	const m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

function ellipsize(ctx, s, w) {
	if (ctx.measureText(s).width <= w)
		return s;
	while (s.length > 1 && ctx.measureText(s + "…").width > w)
		s = s.slice(0, -1);
	return s + "…";
}

// ---------- tabs ----------
function setupTabs(tabs) {
	const nav = document.getElementById("tabs"), main = document.getElementById("main");
	const panels = [];
	tabs.forEach((t, i) => {
		const b = el("button", { role: "tab", id: "tab-" + t.id, "aria-selected": "false",
			text: t.title, onclick: () => show(i) });
		nav.appendChild(b);
		const p = el("section", { class: "panel", id: "panel-" + t.id, role: "tabpanel",
			"data-tab": t.id });
		p.hidden = true;
		main.appendChild(p);
		panels.push({ t, b, p, drawn: false });
	});
	function draw(x) {
		if (x.drawn)
			return;
		x.drawn = true;
		try {
			x.t.draw(x.p);
			x.p.dataset.drawn = "1";
		} catch (e) {
			reportError(x.t.title + ": " + (e && e.stack || e));
		}
	}
	function show(i) {
		panels.forEach((x, j) => {
			x.p.hidden = j !== i;
			x.b.setAttribute("aria-selected", String(j === i));
		});
		draw(panels[i]);
		// a tab hidden when the shared view changed is brought up to date when shown
		if (panels[i].p.pwzDirty) {
			panels[i].p.pwzDirty = false;
			panels[i].p.pwzRefresh();
		}
	}
	// #all draws every tab (for tests and printing); #tab=ID opens one.
	const hash = location.hash.slice(1);
	const m = /^tab=(.+)$/.exec(hash);
	let first = 0;
	if (m)
		first = Math.max(0, panels.findIndex((x) => x.t.id === m[1]));
	if (hash === "all") {
		panels.forEach((x) => { x.p.hidden = false; draw(x); });
		panels.forEach((x, j) => x.b.setAttribute("aria-selected", String(j === 0)));
	} else {
		show(first);
	}
}

// ---------- data loading ----------
async function loadData() {
	const node = document.getElementById("pwz-data");
	let text = node.textContent;
	if (node.dataset.encoding === "gzip+base64") {
		const bin = atob(text.trim());
		const bytes = new Uint8Array(bin.length);
		for (let i = 0; i < bin.length; i++)
			bytes[i] = bin.charCodeAt(i);
		const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
		text = await new Response(stream).text();
	}
	return JSON.parse(text);
}

// Counters a capture stores beside its drops that are not lost events.
const NOT_LOST = { unpaired_switch: "switch-outs whose switch-in was never reported (older " +
	"pwz files): not lost events" };
function lost(r) {
	return r.drops.filter((d) => d[1] > 0 && !NOT_LOST[d[0]]);
}

// A flight recorder dump's trigger ({ t: ns from the capture start, text }), marked on the
// time charts; null for an ordinary capture.
let TRIGGER = null;

// What fired a dump: its reason, and the thread whose wait or exit did (as
// pwz_meta_trigger_text() of user/lib/records.h says it).
function triggerText(m) {
	return m.trigger_tid ? m.trigger + " of thread " + (m.trigger_thread || "?") + " (tid " +
		m.trigger_tid + ")" : m.trigger;
}

function triggerNote(runs) {
	const r = runs.find((x) => x.meta.trigger);
	const box = document.getElementById("warn");
	if (!r || !box)
		return;
	TRIGGER = { t: r.meta.trigger_ns, text: triggerText(r.meta) };
	box.parentNode.insertBefore(el("p", { id: "trigger", class: "note", text:
		"Flight recorder dump, triggered by " + TRIGGER.text + " at " +
		fmtMs(r.meta.trigger_ns) + " from the window's start (the red line on the time charts)" }),
		box);
}

function warnings(runs) {
	triggerNote(runs);
	const w = [];
	for (const r of runs) {
		const who = runs.length > 1 ? r.short + ": " : "";
		const l = lost(r);
		if (l.length)
			w.push(who + "the capture lost " + fmtInt(l.reduce((a, d) => a + d[1], 0)) +
				" events (" + l.map((d) => d[0] + " " + fmtInt(d[1])).join(", ") +
				"): figures from the streams are lower bounds");
		if (r.meta.cut)
			w.push(who + "the file was cut short (offset " + r.meta.cut_offset +
				"): the capture's end is missing");
	}
	const box = document.getElementById("warn");
	if (w.length) {
		box.hidden = false;
		box.textContent = "⚠ " + w.join("; ");
	}
}

// ---------- basic dashboard ----------
// Rows are groups of threads: by task name (perfwhiz's unit, as the heatmaps group), by
// thread, by process, or by VM (when the capture has a VM: vms.h's, or a thread with KVM exits;
// the idle tasks are a row of their own, every other thread the host's). A group's figures are the sums
// of its threads' (CPU in % of one core too: a process of 4 busy threads shows 400 %).
const GROUPINGS = [["name", "task name"], ["thread", "thread"], ["process", "process"],
	["vm", "VM"]];
const TOPS = [10, 20, 50, 100, 200, 500, 1000];
// Runs' bar colours in a diff: never the switch markers' orange.
const RUN_COLORS = ["#4c78a8", "#54a24b", "#b279a2", "#9d755d", "#72b7b2", "#2f5d8a"];
const MARK = "#c05a00";
const CPU_UNIT = "CPU in % of one core over the window: 100 % is one core busy for the " +
	"whole window (a group of threads can exceed 100 %).";

// The view the basic dashboard's tabs share: grouping, filter, top N; each drawn tab adds a
// refresh function to `refresh` and every control bar a sync function to `sync`.
const view = { group: "name", filter: "", top: 50, refresh: [], sync: [] };

// The VMs' processes of run r: the VMs of its VMs tab (vms.h: vCPU threads named or exiting)
// and the processes of threads with KVM exits.
function vmPids(r) {
	const vm = new Set((r.vms || []).map((v) => v.pid));
	for (const t of r.tasks)
		if (t.exits_total > 0)
			vm.add(t.pid || t.tid);
	return vm;
}

function hasVms(data) {
	return data.runs.some((r) => vmPids(r).size > 0);
}

function newGroup(key, label, ri, r) {
	return { key, label, run: ri, r, tasks: [], tids: [], cpu_pct: 0, runtime_ns: 0,
		switches: 0, voluntary: 0, involuntary: 0, wait_ns: 0, wait_count: 0,
		wait_max_ns: 0, run_delay_ns: 0, run_delay_wait_ns: 0, run_delay_unmeasured_ns: 0,
		unseen_ns: 0, exits_total: 0, exits: new Map(), cpu: null,
		sleep: [0, 0, 0, 0, 0, 0] };
}

function addTask(g, t) {
	g.tasks.push(t);
	g.tids.push(t.tid);
	g.cpu_pct += t.cpu_pct;
	g.runtime_ns += t.runtime_ns;
	g.switches += t.switches;
	g.voluntary += t.voluntary;
	g.involuntary += t.involuntary;
	g.wait_ns += t.wait_ns;
	g.wait_count += t.wait_count;
	g.wait_max_ns = Math.max(g.wait_max_ns, t.wait_max_ns);
	g.run_delay_ns += t.run_delay_ns || 0;
	g.run_delay_wait_ns += t.run_delay_wait_ns || 0;
	g.run_delay_unmeasured_ns += t.run_delay_unmeasured_ns || 0;
	g.unseen_ns += t.unseen_ns;
	g.exits_total += t.exits_total;
	if (t.sleep)	// [S, D, other sleeps, then their ns] (render/sleeps.h)
		for (let i = 0; i < 6; i++)
			g.sleep[i] += t.sleep[i];
	for (const e of t.exits) {
		const k = reasonKey(e[0], e[1]);
		g.exits.set(k, (g.exits.get(k) || 0) + e[2]);
	}
}

// Adds group g's sums to o (an "other" row): by group, not thread by thread.
function addGroup(o, g) {
	for (const t of g.tasks)
		o.tasks.push(t);
	for (const t of g.tids)
		o.tids.push(t);
	for (const k of ["cpu_pct", "runtime_ns", "switches", "voluntary", "involuntary", "wait_ns",
		"wait_count", "run_delay_ns", "run_delay_wait_ns", "run_delay_unmeasured_ns", "unseen_ns",
		"exits_total"])
		o[k] += g[k];
	o.wait_max_ns = Math.max(o.wait_max_ns, g.wait_max_ns);
	for (let i = 0; i < 6; i++)
		o.sleep[i] += g.sleep[i];
	for (const [k, n] of g.exits)
		o.exits.set(k, (o.exits.get(k) || 0) + n);
}

// Per-core runtime and switch-outs of a group, summed when first needed (CoreMap).
function groupCpu(g) {
	if (g.cpu)
		return g.cpu;
	const n = g.r.nr_cpus, rt = new Float64Array(n), sw = new Float64Array(n);
	for (const t of g.tasks)	// t.cpus is sparse: [[cpu, runtime_ns, switch-outs]...]
		for (const [c, ns, k] of t.cpus)
			if (c < n) {
				rt[c] += ns;
				sw[c] += k;
			}
	g.cpu = { rt, sw };
	return g.cpu;
}

// The sum of a group's wait histograms (render/dash.c: each thread's sparse "wait_hist", the
// buckets of bpf/whist.h whose bottoms the run gives in "wait_bucket_lo"), null when none of
// its threads has one, or when one that waited has none (a file before the histogram, or a
// histogram short of its waits: summary_wait_range()), whose percentiles would be the rest's;
// computed once per group.
function waitHist(g) {
	if (g.whist !== undefined)
		return g.whist;
	let h = null;
	for (const t of g.tasks)
		if (t.wait_hist) {
			h = h || new Float64Array(g.r.wait_bucket_lo.length);
			for (const [b, n] of t.wait_hist)
				h[b] += n;
		}
	if (h && g.tasks.some((t) => t.wait_count > 0 && !t.wait_hist))
		h = null;
	g.whist = h;
	return h;
}

// Run-queue wait percentile q of a group: the bucket that holds it, [lo, hi] ns, its top cut
// to the group's longest wait (as pwz_whist_quantile() reads it for --list), from the summed
// histograms; else a single thread's range from the streams (wait_p50_range /
// wait_p99_range: the VMs data's); else null ("n/a").
function waitQuantile(g, q) {
	const h = waitHist(g), lo = g.r.wait_bucket_lo;
	if (h) {
		let total = 0, seen = 0, b = 0;
		for (const n of h)
			total += n;
		const rank = Math.max(1, Math.ceil(q * total));
		for (; b < h.length - 1; b++) {
			seen += h[b];
			if (seen >= rank)
				break;
		}
		const top = b + 1 < lo.length ? lo[b + 1] - 1 : g.wait_max_ns;
		const hi = Math.min(top, g.wait_max_ns);
		return [Math.min(lo[b], hi), hi];
	}
	const f = q === 0.5 ? "wait_p50_range" : "wait_p99_range";
	if (g.tasks.length === 1 && g.tasks[0][f])
		return g.tasks[0][f];
	return null;
}

// Groups of every run under a grouping, computed once per grouping.
function groupsOf(data, mode) {
	data.groupCache = data.groupCache || {};
	if (data.groupCache[mode])
		return data.groupCache[mode];
	const rows = [], multi = data.runs.length > 1;
	data.runs.forEach((r, ri) => {
		const by = new Map(), pname = new Map(), vm = vmPids(r);
		for (const t of r.tasks) {
			if (t.tid === t.pid && t.tid)
				pname.set(t.pid, t.name);
		}
		for (const t of r.tasks) {
			const pid = t.pid || t.tid;
			let key, label;
			if (mode === "thread") {
				// a recycled tid is another thread instance (born_ns tells them apart)
				key = "t" + t.tid + "@" + (t.born_ns || 0) + " " + t.name;
				label = t.name + " (" + t.tid + ")";
			} else if (mode === "process" || (mode === "vm" && vm.has(pid))) {
				key = "p" + pid;
				label = pid ? (pname.get(pid) || t.name) + " (pid " + pid + ")" : "idle (pid 0)";
				if (mode === "vm")
					label = "VM " + label;
			} else if (mode === "vm" && !t.tid) {
				key = "idle";
				label = "idle (not a VM)";
			} else if (mode === "vm") {
				key = "host";
				label = "host (not a VM)";
			} else {
				key = "n" + t.name;
				label = t.name;
			}
			let g = by.get(key);
			if (!g) {
				g = newGroup(key, multi ? label + " [" + r.short + "]" : label, ri, r);
				g.name = label;
				by.set(key, g);
				rows.push(g);
			}
			addTask(g, t);
		}
	});
	data.groupCache[mode] = rows;
	return rows;
}

// The filter box: a glob (* ? [) on the whole label, else a case-insensitive substring.
function filterFn(text) {
	text = text.trim();
	if (!text)
		return () => true;
	if (/[*?[]/.test(text)) {
		const re = new RegExp("^" + text.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\*/g, ".*")
			.replace(/\?/g, ".") + "$", "i");
		return (g) => re.test(g.name);
	}
	const low = text.toLowerCase();
	return (g) => g.name.toLowerCase().includes(low);
}

// Sorted, filtered rows cut at view.top; the rest of each run summed in an "other" row.
// sort = {f, asc}; in a diff a group's rows stay together, ordered by their best value.
function pick(data, rows, sort, keep) {
	const match = filterFn(view.filter);
	const list = rows.filter((g) => (!keep || keep(g)) && match(g));
	const f = sort.f, dir = sort.asc ? 1 : -1;
	const cmpv = (x, y) => (x < y ? -1 : x > y ? 1 : 0);
	if (data.runs.length > 1) {
		const best = new Map();
		for (const g of list) {
			const v = f(g), b = best.get(g.key);
			if (b === undefined || cmpv(v, b) * dir > 0)
				best.set(g.key, v);
		}
		list.sort((a, b) => cmpv(best.get(a.key), best.get(b.key)) * dir ||
			cmpv(a.key, b.key) || a.run - b.run);
	} else {
		// the keys computed once, not at each comparison
		const keyed = list.map((g) => [f(g), g]);
		keyed.sort((a, b) => cmpv(a[0], b[0]) * dir || cmpv(a[1].label, b[1].label));
		for (let i = 0; i < keyed.length; i++)
			list[i] = keyed[i][1];
	}
	const shown = list.slice(0, view.top), rest = list.slice(view.top);
	const others = [];
	data.runs.forEach((r, ri) => {
		const mine = rest.filter((g) => g.run === ri);
		if (!mine.length)
			return;
		const o = newGroup("other", "", ri, r);
		const nt = mine.reduce((a, g) => a + g.tasks.length, 0);
		o.name = "other (" + fmtInt(mine.length) + " rows, " + fmtInt(nt) + " threads)";
		o.label = data.runs.length > 1 ? o.name + " [" + r.short + "]" : o.name;
		o.other = true;
		o.nrows = mine.length;
		for (const g of mine)
			addGroup(o, g);
		others.push(o);
	});
	return { shown, others, all: shown.concat(others), matched: list.length };
}

// The grouping / filter / top N bar of a tab; every bar shows the same view.
function controlBar(data, panel, id) {
	const modes = GROUPINGS.filter(([m]) => m !== "vm" || hasVms(data));
	const sel = el("select", { id: id + "-group", "aria-label": "rows",
		onchange: () => { view.group = sel.value; changed(); } });
	for (const [m, t] of modes)
		sel.appendChild(el("option", { value: m, text: t }));
	const top = el("select", { id: id + "-top", "aria-label": "top N",
		onchange: () => { view.top = +top.value; changed(); } });
	for (const n of TOPS)
		top.appendChild(el("option", { value: n, text: String(n) }));
	const box = el("input", { type: "search", id: id + "-filter", placeholder: "filter: text or glob",
		"aria-label": "filter rows", oninput: () => { view.filter = box.value; changed(); } });
	const count = el("span", { class: "note", id: id + "-count" });
	panel.appendChild(el("div", { class: "controls" }, el("label", { text: "rows by " }), sel,
		el("label", { text: "top " }), top, box, count));
	const syncMe = () => {
		sel.value = view.group;
		top.value = String(view.top);
		if (box.value !== view.filter)
			box.value = view.filter;
	};
	view.sync.push(syncMe);
	syncMe();
	return (shown, matched, total) => {
		count.textContent = fmtInt(shown) + " of " + fmtInt(matched) + " rows shown" +
			(matched !== total ? " (" + fmtInt(total) + " before the filter)" : "") +
			(matched > shown ? "; the rest summed in \"other\"" : "");
		count.dataset.shown = shown;
		count.dataset.matched = matched;
	};
}

function changed() {
	for (const s of view.sync)
		s();
	for (const p of view.refresh) {
		if (p.hidden)
			p.pwzDirty = true;
		else
			p.pwzRefresh();
	}
}

// Redraws panel's tab when the shared view changes (at once when shown, else when next shown).
function register(panel, refresh) {
	panel.pwzRefresh = refresh;
	view.refresh.push(panel);
}

function windowText(r) {
	return (r.window[0] / 1e6).toLocaleString("en-US", { maximumFractionDigits: 3 }) + "–" +
		fmtMs(r.window[1]) + " from the capture start, " + fmtNs(r.window[1] - r.window[0]);
}

// A wait percentile's [lo, hi] ns (the bucket that holds it) as text; one value when exact.
function fmtWaitQ(r) {
	return r ? fmtRange(r[0], r[1]) : "n/a";
}

// The CPU tab's columns: [title, value(row), class, format, first click sorts ascending]
// Ready time as the kernel charged it (run_delay_ns, user/lib/model.h R9) beside a row's
// waits as lived, " (kernel 1.23 ms)", where the same waits differ by more than the run's
// ready_bucket_pct % (the rule of summary_ready_differs(), its threshold from the page data);
// "" otherwise or without the charge.
function fmtKernelReady(x) {
	const a = x.run_delay_wait_ns, k = x.run_delay_ns - x.run_delay_unmeasured_ns;
	const big = Math.max(a, k);

	if (!x.r.has_run_delay || !big || Math.abs(a - k) <= big * x.r.ready_bucket_pct / 100)
		return "";
	return " (kernel " + fmtNs(k) + ")";
}

function cpuCols(data) {
	const anyKind = data.runs.some((r) => r.has_switch_kind);
	const cols = [
		["task", (x) => x.label, "name", null, true],
		["threads", (x) => x.tasks.length, null, fmtInt],
		["CPU %", (x) => x.cpu_pct, null, fmtPct],
		["runtime", (x) => x.runtime_ns, null, fmtNs],
		["switch-outs", (x) => x.switches, null, fmtInt],
	];
	if (anyKind)
		cols.push(["voluntary", (x) => x.voluntary, null, fmtInt],
			["involuntary", (x) => x.involuntary, null, fmtInt]);
	if (data.runs.some((r) => r.has_wait))
		cols.push(["waits", (x) => x.wait_count, null, fmtInt],
			["wait total", (x) => x.wait_ns, null, (v, x) => fmtNs(v) + fmtKernelReady(x)],
			["wait mean", (x) => x.wait_count ? x.wait_ns / x.wait_count : 0, null,
				(v) => fmtNs(Math.round(v))],
			["wait p50", (x) => { const r = waitQuantile(x, 0.5); return r ? r[0] : null; },
				null, (v, x) => fmtWaitQ(waitQuantile(x, 0.5))],
			["wait p99", (x) => { const r = waitQuantile(x, 0.99); return r ? r[0] : null; },
				null, (v, x) => fmtWaitQ(waitQuantile(x, 0.99))],
			["wait max", (x) => x.wait_max_ns, null, fmtNs]);
	if (data.runs.some((r) => r.tasks.some((t) => t.unseen_ns > 0)))
		cols.push(["unseen", (x) => x.unseen_ns, null, fmtNs]);
	// sleeps by the state slept in: S interruptible, D uninterruptible, other (I, T, P ...)
	if (data.runs.some((r) => r.has_sleep_states)) {
		const sl = (i) => (x) => x.r.has_sleep_states ? x.sleep[i] : null;
		const na = (f) => (v) => v === null ? "n/a" : f(v);
		cols.push(["sleep S", sl(3), null, na(fmtNs)], ["sleep D", sl(4), null, na(fmtNs)],
			["sleep other", sl(5), null, na(fmtNs)], ["D sleeps", sl(1), null, na(fmtInt)]);
	}
	return cols;
}

function rowAttrs(x) {
	return { "data-key": x.key, "data-run": x.run, "data-threads": x.tasks.length,
		"data-tid": x.tasks.length === 1 && !x.other ? x.tasks[0].tid : null,
		"data-name": x.other ? null : x.name, "data-other": x.other ? "1" : null,
		class: x.other ? "other" : null };
}

function drawCpu(data, panel) {
	const anyKind = data.runs.some((r) => r.has_switch_kind);
	panel.appendChild(el("p", { class: "note", text: CPU_UNIT + " Window: " +
		data.runs.map(windowText).join("; ") + ". Rows sorted by CPU; click a column to sort." +
		(data.runs.some((r) => r.has_sleep_states) ? " Sleeps by the state the thread slept " +
		"in (its switch-out's prev_state): sleep S = interruptible, sleep D = uninterruptible " +
		"(I/O, locks), other = I, T, P...; the time in the window from each voluntary switch-out " +
		"to the thread's next switch-in, and the count of D sleeps begun in it (recorded slices)." +
		(data.runs.some((r) => !r.has_sleep_states) ? " n/a: the capture does not report the " +
		"state." : "") : "") }));
	const counter = controlBar(data, panel, "cpu");
	const lg = el("div", { class: "legend", id: "cpu-legend" });
	if (data.runs.length > 1)
		data.runs.forEach((r, i) => lg.appendChild(el("span", { class: "item", "data-marker": "run",
			"data-run": i }, el("span", { class: "swatch", style: "background:" +
			RUN_COLORS[i % RUN_COLORS.length] }), "CPU (% of one core) [" + r.short + "] " + r.name)));
	else
		lg.appendChild(el("span", { class: "item", "data-marker": "cpu" }, el("span",
			{ class: "swatch", style: "background:" + RUN_COLORS[0] }), "CPU (% of one core)"));
	lg.appendChild(el("span", { class: "item", "data-marker": "total", style: "color:" + MARK,
		text: "○ switch-outs, total" }));
	if (anyKind)
		lg.appendChild(el("span", { class: "item", "data-marker": "involuntary",
			style: "color:" + MARK, text: "◆ involuntary switch-outs (preempted)" }));
	panel.appendChild(lg);
	const chartBox = el("div"), tableBox = el("div");
	panel.appendChild(chartBox);
	panel.appendChild(tableBox);
	const cols = cpuCols(data);
	const sort = { i: 2, asc: false };
	function refresh() {
		const rows = groupsOf(data, view.group);
		const p = pick(data, rows, { f: cols[sort.i][1], asc: sort.asc });
		counter(p.shown.length, p.matched, rows.length);
		cpuChart(chartBox, p.all);
		tableBox.textContent = "";
		tableBox.appendChild(table("cpu", cols, p.all, rowAttrs, sort, refresh));
	}
	register(panel, refresh);
	refresh();
}

// The bar chart canvas of holder, kept while it is tall enough (a new canvas costs more than
// drawing: its buffer is allocated again): a taller one is cut to height by its wrapper, so
// that going from top 50 to 1000 and back allocates once. c.onmove is its hover handler.
function chartCanvas(holder, height) {
	let c = holder.pwzChart;
	if (c && c.alloc >= height) {
		c.height = height;
		c.cv.parentNode.style.height = height + "px";
		c.ctx.setTransform(c.dpr, 0, 0, c.dpr, 0, 0);
		c.ctx.clearRect(0, 0, c.width, height);
		return c;
	}
	holder.textContent = "";
	c = makeCanvas(holder, height);
	c.alloc = height;
	c.cv.parentNode.style.height = height + "px";
	c.cv.parentNode.style.overflow = "hidden";
	c.cv.addEventListener("mousemove", (ev) => c.onmove && c.onmove(ev));
	c.cv.addEventListener("mouseleave", (ev) => tip(ev, null));
	holder.pwzChart = c;
	return c;
}

// Bar charts draw at most this many rows of their table (then its "other" rows): 100 rows are
// 2,200 px already, and a canvas of 1,000 costs more to allocate than the table to build.
const CHART_ROWS = 100;
function chartRows(holder, rows) {
	const named = rows.filter((x) => !x.other);
	let note = holder.previousSibling && holder.previousSibling.classList &&
		holder.previousSibling.classList.contains("chart-cut") ? holder.previousSibling : null;
	if (named.length <= CHART_ROWS) {
		if (note)
			note.hidden = true;
		return rows;
	}
	if (!note) {
		note = el("p", { class: "note chart-cut" });
		holder.parentNode.insertBefore(note, holder);
	}
	note.hidden = false;
	note.textContent = "The chart shows the first " + CHART_ROWS + " of the " +
		fmtInt(named.length) + " rows (and \"other\"); the table below has them all.";
	return named.slice(0, CHART_ROWS).concat(rows.filter((x) => x.other));
}

function cpuChart(holder, rows) {
	const rowH = 22, top = 46, left = 250, right = 30;
	rows = chartRows(holder, rows);
	const c = chartCanvas(holder, top + Math.max(1, rows.length) * rowH + 38);
	const { ctx, width } = c;
	const plotW = width - left - right;
	// the scale ends at the busiest row, rounded up (not at 100 %: idle captures would be
	// flat); "other" rows do not set it: their bars end in an arrow and their figures
	const named = rows.filter((x) => !x.other);
	const pmax = maxOf(named, (x) => x.cpu_pct, 1), pst = niceStep(pmax, 8);
	const maxPct = Math.ceil(pmax / pst - 1e-9) * pst;
	const maxSw = maxOf(named, (x) => x.switches, 1);
	const clip = (v) => Math.min(left + plotW, v);
	const xp = (v) => clip(left + v / maxPct * plotW), xs = (v) => clip(left + v / maxSw * plotW);
	const H = rows.length * rowH;
	ctx.font = "12px system-ui, sans-serif";
	ctx.textAlign = "center";
	for (let v = 0; v <= maxPct + 1e-9; v += pst) {
		ctx.fillStyle = "#eef1f5";
		ctx.fillRect(xp(v), top, 1, H);
		ctx.fillStyle = "#2f5d8a";
		const lab = (pst < 1 ? v.toFixed(1) : v.toFixed(0)) + "%";
		ctx.fillText(lab, xp(v), top - 26);
		ctx.fillText(lab, xp(v), top + H + 14);
	}
	ctx.fillStyle = MARK;
	const ss = niceStep(maxSw, 6);
	for (let v = 0; v <= maxSw + 1e-9; v += ss)
		ctx.fillText(fmtInt(v), xs(v), top - 8);
	ctx.textAlign = "right";
	ctx.fillStyle = "#2f5d8a";
	ctx.fillText("CPU (% of one core) ▬", left - 22, top - 26);
	ctx.fillStyle = MARK;
	ctx.fillText("switch-outs (count) ○ ◆", left - 22, top - 8);
	ctx.textAlign = "center";
	ctx.fillStyle = "#2f5d8a";
	ctx.fillText("CPU (% of one core)", left + plotW / 2, top + H + 30);
	rows.forEach((x, i) => {
		const y = top + i * rowH, cy = y + rowH / 2;
		ctx.fillStyle = x.other ? "#5b6475" : "#1d2330";
		ctx.textAlign = "right";
		ctx.fillText(ellipsize(ctx, x.label, left - 10), left - 8, y + 15);
		ctx.fillStyle = x.other ? "#aab3c0" : RUN_COLORS[x.run % RUN_COLORS.length];
		ctx.fillRect(left, y + 4, Math.max(1, xp(x.cpu_pct) - left), rowH - 8);
		if (x.other && (x.cpu_pct > maxPct || x.switches > maxSw)) {
			ctx.fillStyle = "#1d2330";
			ctx.textAlign = "right";
			ctx.fillText("off scale: " + fmtPct(x.cpu_pct) + ", " + fmtInt(x.switches) +
				" switch-outs ▸", left + plotW - 4, y + 15);
			return;
		}
		// total: a ring; involuntary: a diamond
		ctx.beginPath();
		ctx.arc(xs(x.switches), cy, 5, 0, 2 * Math.PI);
		ctx.strokeStyle = MARK;
		ctx.lineWidth = 2;
		ctx.stroke();
		if (x.r.has_switch_kind) {
			const dx = xs(x.involuntary);
			ctx.beginPath();
			ctx.moveTo(dx, cy - 6); ctx.lineTo(dx + 6, cy); ctx.lineTo(dx, cy + 6);
			ctx.lineTo(dx - 6, cy); ctx.closePath();
			ctx.fillStyle = MARK;
			ctx.fill();
		}
	});
	c.cv.dataset.rowTop = String(top);
	c.cv.dataset.rowH = String(rowH);
	c.cv.dataset.rows = String(rows.length);
	c.onmove = (ev) => {
		const b = c.cv.getBoundingClientRect();
		const i = Math.floor((ev.clientY - b.top - top) / rowH);
		if (i < 0 || i >= rows.length)
			return tip(ev, null);
		const t = rows[i];
		tip(ev, t.label + "\n" + (t.tasks.length === 1 ? "tid " + t.tids[0] : fmtInt(t.tasks.length) +
			" threads") + "\nCPU " + fmtPct(t.cpu_pct) + " of one core (" + fmtNs(t.runtime_ns) +
			")\nswitch-outs " + fmtInt(t.switches) + (t.r.has_switch_kind ? " (voluntary " +
			fmtInt(t.voluntary) + ", involuntary " + fmtInt(t.involuntary) + ")" : "") +
			(t.r.has_wait ? "\nrun-queue waits " + fmtInt(t.wait_count) + ", total " +
			fmtNs(t.wait_ns) + fmtKernelReady(t) + ", max " + fmtNs(t.wait_max_ns) : ""));
	};
}

// A sortable table of the given rows; cols = [title, value(row), class, format, asc first,
// cell class(value, row)]. Cells carry data-v = the raw value; a format that returns an element
// (a bar) puts it in the cell, any other result is the cell's text. A header click sorts
// through sort = {i, asc} and onsort() (which redraws, so that top N follows the sort); without
// onsort it sorts the rows it was given.
// More than VIRTUAL_MIN rows: a virtual table (class "virtual"): rows of fixed height
// (VIRTUAL_ROW_H px, text on one line, cut with an ellipsis), only those in view in the
// scroll box and VIRTUAL_MARGIN rows either side are elements, spacer rows stand for the
// rest; sorting covers every row, scrolling (wheel, keys on the focused box) brings rows in.
// A virtual table's data-rows, data-first, data-last say which rows are elements (for tests).
const VIRTUAL_MIN = 100, VIRTUAL_ROW_H = 24, VIRTUAL_MARGIN = 30;
function table(id, cols, rows, attrs, sort, onsort) {
	const t = el("table", { class: "data", id: "table-" + id });
	const thead = el("thead"), tb = el("tbody");
	const hr = el("tr");
	sort = sort || { i: -1, asc: true };
	cols.forEach((c, i) => hr.appendChild(el("th", { class: c[2] || null, "data-col": c[0],
		"aria-sort": sort.i === i ? (sort.asc ? "ascending" : "descending") : null,
		text: c[0] + (sort.i === i ? (sort.asc ? " ▲" : " ▼") : ""), title: "sort",
		onclick: () => sortBy(i) })));
	thead.appendChild(hr);
	const virtual = rows.length > VIRTUAL_MIN;
	const box = el("div", { class: "scroll" }, t);
	let list = rows, first = 0, last = 0;
	function rowEl(r, i) {
		const tr = el("tr", attrs ? attrs(r) : null);
		if (virtual)
			tr.setAttribute("aria-rowindex", String(i + 2));
		for (const c of cols) {
			const v = c[1](r);
			const td = document.createElement("td");
			if (c[2])
				td.className = c[2];
			if (c[5]) {
				const k = c[5](v, r);
				if (k)
					td.classList.add(k);
			}
			td.setAttribute("data-col", c[0]);
			if (v !== null && v !== undefined)
				td.setAttribute("data-v", v);
			const shown = c[3] ? c[3](v, r) : String(v);
			if (shown instanceof Node)
				td.appendChild(shown);
			else
				td.textContent = shown;
			tr.appendChild(td);
		}
		return tr;
	}
	const spacer = (h) => {
		const td = el("td", { class: "spacer", colspan: cols.length, "aria-hidden": "true",
			style: "height:" + h + "px" });
		return el("tr", { class: "spacer" }, td);
	};
	// rows [a, b) as elements, spacers for the others
	function fill(a, b) {
		const frag = document.createDocumentFragment();
		if (a > 0)
			frag.appendChild(spacer(a * VIRTUAL_ROW_H));
		for (let i = a; i < b; i++)
			frag.appendChild(rowEl(list[i], i));
		if (b < list.length)
			frag.appendChild(spacer((list.length - b) * VIRTUAL_ROW_H));
		tb.textContent = "";
		tb.appendChild(frag);
		first = a;
		last = b;
		if (virtual) {
			t.dataset.first = String(a);
			t.dataset.last = String(b);
		}
	}
	// the rows in view (the header counted as one row), from the box's scroll position
	function inView() {
		const h = box.clientHeight || Math.round((window.innerHeight || 800) * 0.7);
		const v0 = Math.max(0, Math.floor(box.scrollTop / VIRTUAL_ROW_H) - 1);
		return [v0, Math.min(list.length, Math.ceil((box.scrollTop + h) / VIRTUAL_ROW_H))];
	}
	function update(force) {
		if (!virtual)
			return fill(0, list.length);
		const [v0, v1] = inView(), n = list.length, m = VIRTUAL_MARGIN;
		if (!force && v0 >= first && v1 <= last && (first === 0 || v0 - first >= m / 2) &&
			(last === n || last - v1 >= m / 2))
			return;
		fill(Math.max(0, v0 - m), Math.min(n, v1 + m));
	}
	function sortBy(i) {
		sort.asc = sort.i === i ? !sort.asc : !!cols[i][4];
		sort.i = i;
		if (onsort)
			return onsort();
		const f = cols[i][1];
		list = rows.slice().sort((a, b) => {
			const x = f(a), y = f(b);
			return (x < y ? -1 : x > y ? 1 : 0) * (sort.asc ? 1 : -1);
		});
		hr.querySelectorAll("th").forEach((th, j) => {
			th.textContent = cols[j][0] + (j === i ? (sort.asc ? " ▲" : " ▼") : "");
		});
		box.scrollTop = 0;
		update(true);
	}
	t.appendChild(thead);
	t.appendChild(tb);
	if (virtual) {
		t.dataset.rows = String(rows.length);
		t.classList.add("virtual");
		t.setAttribute("aria-rowcount", String(rows.length + 1));
		// columns as wide as their widest cell, so that they keep their width while scrolling
		cols.forEach((c, i) => {
			let w = 0;
			for (const r of rows) {
				const v = c[1](r), s = c[3] ? c[3](v, r) : String(v);
				if (!(s instanceof Node) && s.length > w)
					w = s.length;
			}
			hr.children[i].style.minWidth = Math.min(w, c[2] === "name" ? 36 : 24) + "ch";
		});
		box.tabIndex = 0;
		box.setAttribute("aria-label", "table of " + rows.length + " rows: scroll or use the keys");
		box.addEventListener("scroll", () => update(false), { passive: true });
		box.addEventListener("keydown", (ev) => {
			const page = Math.max(1, box.clientHeight - 2 * VIRTUAL_ROW_H);
			const to = { ArrowDown: box.scrollTop + VIRTUAL_ROW_H, ArrowUp: box.scrollTop -
				VIRTUAL_ROW_H, PageDown: box.scrollTop + page, PageUp: box.scrollTop - page,
				Home: 0, End: box.scrollHeight }[ev.key];
			if (to === undefined || ev.altKey || ev.ctrlKey || ev.metaKey)
				return;
			ev.preventDefault();
			box.scrollTop = to;
			update(false);
		});
	}
	update(true);
	return box;
}

// A log2 histogram bucket [lo, hi) in ns (hi -1: no top) as text: the precision its
// percentile has.
function fmtBucket(r) {
	if (!r)
		return "n/a";
	return fmtRange(r[0], r[1] < 0 ? null : r[1] - 1);
}

function drawKvm(data, panel) {
	// reasons over all runs
	const rmap = new Map();
	for (const r of data.runs)
		for (const x of r.reasons)
			if (!rmap.has(reasonKey(x.isa, x.code)))
				rmap.set(reasonKey(x.isa, x.code), x);
	const reasons = [...rmap.values()].sort((a, b) => a.isa - b.isa || a.code - b.code);
	const rkeys = reasons.map((x) => reasonKey(x.isa, x.code));
	panel.appendChild(el("p", { class: "note", text: "KVM exits per row and exit reason over " +
		"the window; hover for counts." }));
	const counter = controlBar(data, panel, "kvm");
	const legend = el("div", { class: "legend", id: "kvm-legend" });
	reasons.forEach((x, i) => legend.appendChild(el("span", { class: "item",
		"data-reason": reasonName(x) }, el("span", { class: "swatch",
		style: "background:" + color(i) }), reasonName(x))));
	panel.appendChild(legend);
	const chartBox = el("div"), tableBox = el("div");
	panel.appendChild(chartBox);
	panel.appendChild(tableBox);
	const cols = [["task", (x) => x.label, "name", null, true]];
	rkeys.forEach((k, i) => cols.push([reasonName(reasons[i]), (x) => x.exits.get(k) || 0, null, fmtInt]));
	cols.push(["total", (x) => x.exits_total, null, fmtInt]);
	const sort = { i: cols.length - 1, asc: false };
	function refresh() {
		const rows = groupsOf(data, view.group);
		const p = pick(data, rows, { f: cols[sort.i][1], asc: sort.asc }, (g) => g.exits_total > 0);
		counter(p.shown.length, p.matched, rows.filter((g) => g.exits_total > 0).length);
		kvmChart(chartBox, p.all, rkeys, reasons);
		tableBox.textContent = "";
		tableBox.appendChild(table("kvm", cols, p.all, rowAttrs, sort, refresh));
	}
	register(panel, refresh);
	refresh();
	panel.appendChild(el("h2", { text: "Exit handling time per reason" }));
	panel.appendChild(el("p", { class: "note", text: "Percentiles come from log2 histograms: " +
		"each is the power-of-two range it falls in, which is all the histogram holds. n/a: no " +
		"exit of the reason has a handling time (an exit with no following entry)." }));
	const rrows = [];
	data.runs.forEach((r, k) => r.reasons.forEach((x) => rrows.push({ r, x, run: k })));
	const rcols = [];
	if (data.runs.length > 1)
		rcols.push(["run", (z) => z.r.short, "name"]);
	rcols.push(["reason", (z) => reasonName(z.x), "name"], ["exits", (z) => z.x.count, null, fmtInt],
		["with handling time", (z) => z.x.hist_n, null, fmtInt],
		["median", (z) => z.x.median_range ? z.x.median_range[0] : null, null,
			(v, z) => fmtBucket(z.x.median_range)],
		["p99", (z) => z.x.p99_range ? z.x.p99_range[0] : null, null,
			(v, z) => fmtBucket(z.x.p99_range)]);
	panel.appendChild(table("reasons", rcols, rrows));
}

function kvmChart(holder, rows, rkeys, reasons) {
	const rowH = 22, top = 10, left = 250, right = 30;
	rows = chartRows(holder, rows);
	const c = chartCanvas(holder, top + Math.max(1, rows.length) * rowH + 34);
	const { ctx, width } = c;
	const plotW = width - left - right;
	const max = maxOf(rows, (x) => x.exits_total, 1);
	const xv = (v) => v / max * plotW;
	ctx.font = "12px system-ui, sans-serif";
	const st = niceStep(max, 8);
	ctx.textAlign = "center";
	for (let v = 0; v <= max + 1e-9; v += st) {
		ctx.fillStyle = "#eef1f5";
		ctx.fillRect(left + xv(v), top, 1, rows.length * rowH);
		ctx.fillStyle = "#5b6475";
		ctx.fillText(fmtInt(v), left + xv(v), top + rows.length * rowH + 14);
	}
	ctx.fillText("exits (count)", left + plotW / 2, top + rows.length * rowH + 30);
	rows.forEach((x, i) => {
		const y = top + i * rowH;
		ctx.fillStyle = "#1d2330";
		ctx.textAlign = "right";
		ctx.fillText(ellipsize(ctx, x.label, left - 10), left - 8, y + 15);
		let acc = 0;
		rkeys.forEach((k, j) => {
			const n = x.exits.get(k) || 0;
			if (!n)
				return;
			ctx.fillStyle = color(j);
			ctx.fillRect(left + xv(acc), y + 4, Math.max(1, xv(n)), rowH - 8);
			acc += n;
		});
	});
	c.onmove = (ev) => {
		const b = c.cv.getBoundingClientRect();
		const i = Math.floor((ev.clientY - b.top - top) / rowH);
		if (i < 0 || i >= rows.length)
			return tip(ev, null);
		const t = rows[i];
		const lines = rkeys.map((k, j) => [reasonName(reasons[j]), t.exits.get(k) || 0])
			.filter((z) => z[1]).map((z) => z[0] + ": " + fmtInt(z[1]));
		tip(ev, t.label + " — " + fmtInt(t.exits_total) + " exits\n" + lines.join("\n"));
	};
}

// A colour scale legend: a gradient from white to base, 0 to max.
function scaleLegend(text, base, max, fmt) {
	const bar = el("span", { class: "ramp", style: "background:linear-gradient(to right," +
		scale(0, base) + "," + scale(0.25, base) + "," + scale(0.5, base) + "," + scale(1, base) + ")" });
	return el("span", { class: "item", "data-scale": text, "data-max": max }, text + " 0", bar,
		fmt(max) + " (square-root scale)");
}

function drawCoremap(data, panel) {
	const multi = data.runs.length > 1;
	let sel = null;
	if (multi) {
		sel = el("select", { id: "coremap-run", onchange: () => refresh() });
		data.runs.forEach((r, i) => sel.appendChild(el("option", { value: i, text: r.short })));
		panel.appendChild(el("div", { class: "controls" }, el("label", { text: "run " }), sel));
	}
	panel.appendChild(el("p", { class: "note", text: "Each cell: top = CPU in % of one core the " +
		"row used on that core (blue, with the number where it fits), bottom = switch-outs on " +
		"that core (orange). \"all\": every core, % of one core (as the CPU tab). The \"all " +
		"tasks\" row (first) sums every thread of the run, filtered or not. Thick lines separate " +
		"packages, thin ones last-level caches; rows sorted by CPU." }));
	const counter = controlBar(data, panel, "coremap");
	const legend = el("div", { class: "legend", id: "coremap-legend" });
	panel.appendChild(legend);
	const holder = el("div");
	panel.appendChild(holder);
	function refresh() {
		const k = sel ? +sel.value : 0;
		const r = data.runs[k];
		const ncpu = r.nr_cpus;
		const win = Math.max(1, r.window[1] - r.window[0]);
		const rows = groupsOf(data, view.group).filter((g) => g.run === k);
		const p = pick(data, rows, { f: (g) => g.cpu_pct, asc: false });
		counter(p.shown.length, p.matched, rows.length);
		let all = r.allRow;
		if (!all) {
			all = r.allRow = newGroup("all", "all tasks", k, r);
			all.name = "all tasks";
			for (const t of r.tasks)
				addTask(all, t);
		}
		const sep = (c) => {
			if (!r.topo || c === 0 || !r.topo[c] || !r.topo[c - 1])
				return null;
			if (r.topo[c][0] !== r.topo[c - 1][0])
				return "pkg";
			if (r.topo[c][2] !== r.topo[c - 1][2])
				return "llc";
			return null;
		};
		const sum = (a) => { let s = 0; for (const v of a) s += v; return s; };
		// colour scales: row cells, the "all" column and the "all tasks" row each have their own
		const mx = { cell: [1e-9, 1], col: [1e-9, 1], row: [1e-9, 1] };
		const upd = (key, pct, sw) => {
			mx[key][0] = Math.max(mx[key][0], pct);
			mx[key][1] = Math.max(mx[key][1], sw);
		};
		for (const g of p.shown) {
			const { rt, sw } = groupCpu(g);
			for (let c = 0; c < ncpu; c++)
				upd("cell", rt[c] / win * 100, sw[c]);
			upd("col", sum(rt) / win * 100, sum(sw));
		}
		const ac = groupCpu(all);
		for (let c = 0; c < ncpu; c++)
			upd("row", ac.rt[c] / win * 100, ac.sw[c]);
		legend.textContent = "";
		legend.appendChild(scaleLegend("CPU % of one core, cells:", "#2b6cb0", mx.cell[0], fmtPct));
		legend.appendChild(scaleLegend("switch-outs, cells:", "#e07b00", mx.cell[1], fmtInt));
		legend.appendChild(el("span", { class: "item note", text: "the \"all\" column (up to " +
			fmtPct(mx.col[0]) + ", " + fmtInt(mx.col[1]) + ") and the \"all tasks\" row (up to " +
			fmtPct(mx.row[0]) + ", " + fmtInt(mx.row[1]) + "; \"other\" rows too) have scales " +
			"of their own" }));
		// few cores: wider, taller cells, with numbers
		// (from the window's width: reading the holder's would force a layout of the page)
		const cw = Math.max(22, Math.min(64, Math.floor((Math.min(2400, window.innerWidth || 1000) -
			300) / (ncpu + 1))));
		const nums = cw >= 30;
		const tbl = el("table", { class: "coremap" + (nums ? " nums" : ""), id: "coremap-table",
			"data-run": k, style: "--cell-w:" + cw + "px;--cell-h:" + (nums ? 14 : 11) + "px" });
		const hr = el("tr", null, el("th", { class: "name", text: "row \\ core" }));
		for (let c = 0; c < ncpu; c++)
			hr.appendChild(el("th", { class: sep(c), text: String(c) }));
		hr.appendChild(el("th", { class: "all", text: "all" }));
		tbl.appendChild(hr);
		const short = (v) => v >= 1e6 ? (v / 1e6).toFixed(1) + "M" : v >= 1e4 ? Math.round(v / 1e3) + "k" :
			v >= 1e3 ? (v / 1e3).toFixed(1) + "k" : String(v);
		const pctText = (v) => v >= 10 ? v.toFixed(0) : v >= 0.05 ? v.toFixed(1) : v > 0 ? "·" : "";
		const addRow = (g, isAll) => {
			const tr = el("tr", { class: isAll ? "alltasks" : g.other ? "other" : null,
				"data-task": g.name, "data-key": g.key, "data-other": g.other ? "1" : null,
				"data-tid": !isAll && !g.other && g.tasks.length === 1 ? g.tasks[0].tid : null });
			tr.appendChild(el("th", { class: "name", text: g.name, title: g.name }));
			const { rt, sw } = groupCpu(g);
			// built by hand (1,000s of cells); the tooltip is made on hover (see below)
			const cell = (c, pct, sws, cls, m) => {
				const td = document.createElement("td");
				if (cls)
					td.className = cls;
				td.dataset.cpu = c;
				td.dataset.pct = pct.toFixed(3);
				td.dataset.switches = sws;
				// square-root scales: small shares stay visible next to a busy cell
				const tp = Math.sqrt(pct / m[0]), bt = Math.sqrt(sws / m[1]);
				const a = document.createElement("div"), b = document.createElement("div");
				a.style.background = scale(tp, "#2b6cb0");
				if (tp > 0.6)
					a.style.color = "#fff";
				if (nums)
					a.textContent = pctText(pct);
				b.style.background = scale(bt, "#e07b00");
				if (nums && cw >= 40 && sws)
					b.textContent = short(sws);
				td.appendChild(a);
				td.appendChild(b);
				tr.appendChild(td);
			};
			// "other" rows sum many: on the "all tasks" scales
			const big = isAll || g.other;
			for (let c = 0; c < ncpu; c++)
				cell(c, rt[c] / win * 100, sw[c], sep(c), big ? mx.row : mx.cell);
			cell("all", sum(rt) / win * 100, sum(sw), "all", big ? mx.row : mx.col);
			tbl.appendChild(tr);
		};
		addRow(all, true);
		p.all.forEach((g) => addRow(g, false));
		tbl.addEventListener("mouseover", (ev) => {
			const td = ev.target.closest("td");
			if (!td || td.title)
				return;
			const c = td.dataset.cpu, name = td.parentNode.dataset.task;
			td.title = name + " on " + (c === "all" ? "all cores" : "core " + c) + ": " +
				fmtPct(+td.dataset.pct) + " of one core, " + fmtInt(+td.dataset.switches) +
				" switch-outs";
		});
		holder.textContent = "";
		holder.appendChild(el("div", { class: "scroll" }, tbl));
	}
	register(panel, refresh);
	refresh();
}

// --irq (render/irqtab.c): per CPU and vector, then the threads interrupted the most.
function drawIrq(panel, r) {
	panel.appendChild(el("h2", { text: "Interrupts (--irq)" }));
	panel.appendChild(el("p", { class: "note", text: "Hard IRQ handlers and softirq vectors per " +
		"CPU over the whole capture, charged to the thread they interrupted; a hard IRQ that " +
		"came during a softirq counts in the hard IRQ only." }));
	if (!r.irq.length) {
		panel.appendChild(el("p", { class: "note", text: "no interrupt counted" }));
		return;
	}
	const t = el("table", { class: "data irq" });
	t.appendChild(el("tr", {}, ...["CPU", "kind", "vector", "name", "count", "time", "max"]
		.map((h) => el("th", { text: h }))));
	for (const [cpu, kind, vec, name, count, ns, max] of r.irq)
		t.appendChild(el("tr", { "data-cpu": cpu, "data-vector": vec },
			el("td", { text: cpu }), el("td", { text: kind ? "soft" : "hard" }),
			el("td", { text: vec }), el("td", { class: "name", text: name || "?" }),
			el("td", { "data-v": count, text: fmtInt(count) }),
			el("td", { "data-v": ns, text: fmtNs(ns) }), el("td", { "data-v": max, text: fmtNs(max) })));
	panel.appendChild(t);
	const th = el("table", { class: "data irq-threads" });
	th.appendChild(el("tr", {}, ...["thread", "tid", "hard IRQ time", "softirq time"]
		.map((h) => el("th", { text: h }))));
	for (const [tid, name, hard, soft] of r.irq_threads)
		th.appendChild(el("tr", { "data-tid": tid }, el("td", { class: "name", text: name || "?" }),
			el("td", { text: tid < 0 ? "-" : tid }), el("td", { "data-v": hard, text: fmtNs(hard) }),
			el("td", { "data-v": soft, text: fmtNs(soft) })));
	panel.appendChild(th);
}

// When the capture started: the wall clock's time when the file records it, else its start on
// the record clock (a perf.data recorded without -k has perf's clock only: time since boot).
function startedText(m) {
	if (m.start_wall_ns)
		return new Date(m.start_wall_ns / 1e6).toISOString();
	if (!m.start_mono_ns && m.clock_id < 0)	// as --list --json's null
		return "unknown (the file does not record it)";
	const on = m.clock_id === 1 ? "CLOCK_MONOTONIC (time since boot)" : m.clock_id >= 0 ?
		"clock " + m.clock_id : "perf's clock (time since boot)";
	return (m.start_mono_ns / 1e9).toFixed(6) + " s on " + on + "; the wall clock's time is " +
		"not in the file" + (m.source === "perf.data" ? " (perf record -k monotonic records it)" :
		"");
}

function drawCapture(data, panel) {
	for (const r of data.runs) {
		if (data.runs.length > 1)
			panel.appendChild(el("h2", { text: r.short }));
		const m = r.meta;
		const rows = [
			["file", r.file], ["format", m.format], ["source", m.source], ["host", m.host],
			["kernel", m.kernel], ["CPUs", m.nr_cpus],
			["duration", m.duration_ns ? fmtNs(m.duration_ns) : "unknown"],
			["window", windowText(r)],
			["started", startedText(m)],
			["command", m.cmdline], ["options", m.options], ["written by", m.tool_version],
			["trigger", m.trigger ? fmtMs(m.trigger_ns) + " from the start: " + triggerText(m) :
				"none (not a flight recorder dump)"],
			["switch kinds", m.has_switch_kind ? "voluntary / involuntary known" : "unknown"],
			["run-queue wait", m.has_wait ? "measured" : "not measured"],
			["KVM", m.has_kvm ? "traced" : "not traced"],
			["interrupts", m.has_irq ? "traced (--irq)" : "not traced (no --irq)"],
			["figures from", r.from_aggregates ? "the capture's aggregates: exact runtime, " +
				"switches, waits and exit counts (a live capture's include the records it " +
				"dropped)" : "the recorded slices, waits and exits, clipped to the window " +
				"(exact for what was recorded; dropped records are missing)"],
			["derived", "CPU % (runtime over the window); exit handling percentiles " +
				"(estimated from log2 histograms); sleeps (gaps between slices)"],
			["host steal", m.steal_ns === null || m.steal_ns === undefined ? "not read (the " +
				"hypervisor's steal time is read from /proc/stat by live captures)" :
				fmtNs(m.steal_ns) + " of " + fmtNs(m.steal_cpu_time_ns) + " CPU time (" +
				fmtPct(m.steal_cpu_time_ns ? m.steal_ns / m.steal_cpu_time_ns * 100 : 0) + ")"],
			["tracer CPU time", m.tracer_cpu_ns ? fmtNs(m.tracer_cpu_ns) + (m.duration_ns ?
				" (" + fmtPct(m.tracer_cpu_ns / m.duration_ns * 100) + " of one core)" : "") :
				"not recorded"],
			["BPF run time", m.bpf_run_ns ? fmtNs(m.bpf_run_ns) + " over " + fmtInt(m.bpf_run_cnt) +
				" runs (" + fmtNs(m.bpf_run_ns / Math.max(1, m.bpf_run_cnt)) + " each)" :
				"not recorded"],
		];
		const t = el("table", { class: "data meta" });
		for (const [k, v] of rows)
			t.appendChild(el("tr", { "data-key": k }, el("th", { class: "name", text: k }),
				el("td", { class: "name", text: v === null || v === undefined ? "unknown" : v })));
		panel.appendChild(t);
		if (r.cpus && r.cpus.length) {
			const span = r.window[1] - r.window[0];
			panel.appendChild(el("h2", { text: "Time of each CPU" }));
			panel.appendChild(el("p", { class: "note", text: "Per CPU: the runtime of its " +
				"threads (idle included), the time of slices whose switch-in the tracepoint " +
				"never reported (unseen: it belongs to the thread that switched out or to " +
				"the one before it, so it is shown apart), and what no slice covers." }));
			const c = el("table", { class: "data cpus" });
			c.appendChild(el("tr", {}, el("th", { text: "CPU" }), el("th", { text: "threads" }),
				el("th", { text: "unseen" }), el("th", { text: "unaccounted" })));
			r.cpus.forEach(([tasks, unseen, rest], i) => c.appendChild(el("tr",
				{ "data-cpu": i }, el("td", { text: i }),
				el("td", { "data-v": tasks, text: fmtNs(tasks) + " (" + fmtPct(tasks / span * 100) + ")" }),
				el("td", { "data-v": unseen, text: fmtNs(unseen) }),
				el("td", { "data-v": rest, text: rest < 0 ? "n/a (not every thread captured)" :
					fmtNs(rest) }))));
			panel.appendChild(c);
		}
		if (r.irq)
			drawIrq(panel, r);
		panel.appendChild(el("h2", { text: "Drops per stream" }));
		if (!r.drops.length) {
			panel.appendChild(el("p", { class: "note", text: "no drops recorded" }));
		} else {
			const d = el("table", { class: "data drops" });
			for (const [k, v] of r.drops)
				d.appendChild(el("tr", { class: v > 0 && !NOT_LOST[k] ? "lost" : null },
					el("th", { class: "name", text: k }),
					el("td", { "data-v": v, text: fmtInt(v) }),
					el("td", { class: "name note", text: NOT_LOST[k] || (v > 0 ?
						"lost: figures from this stream are lower bounds" : "") })));
			panel.appendChild(d);
		}
	}
}

function drawDelta(data, panel) {
	const d = data.delta, A = data.runs[0].short;
	panel.appendChild(el("p", { class: "note", text: "Each task (matched by name) in the first " +
		"run, " + A + ", and in each other run: both values, the change and the change in % " +
		"of the first. \"absent\": the run has no task of that name (its values count as 0). " +
		(d.scaled ? "The captures differ in length: counts are scaled to the first run's window (" +
		data.runs.map((r, i) => r.short + " ×" + d.scale[i].toFixed(3)).join(", ") + ") and " +
		"rounded to whole counts; CPU % is a rate and is not scaled." : "The windows have the " +
		"same length: counts are not scaled.") + " " + CPU_UNIT }));
	const box = el("input", { type: "search", id: "delta-filter", placeholder: "filter: text or glob",
		"aria-label": "filter rows", oninput: () => refresh() });
	const top = el("select", { id: "delta-top", "aria-label": "top N", onchange: () => refresh() });
	for (const n of TOPS)
		top.appendChild(el("option", { value: n, text: String(n) }));
	top.value = String(view.top);
	const count = el("span", { class: "note", id: "delta-count" });
	panel.appendChild(el("div", { class: "controls" }, el("label", { text: "top " }), top, box, count));
	const holder = el("div");
	panel.appendChild(holder);
	const absent = (c) => !c;	// a run without the task has a null cell
	const val = (row, k, f) => absent(row.cells[k]) ? null : f(row.cells[k]);
	const delta = (row, k, f) => {
		const a = row.cells[0], b = row.cells[k];
		if (absent(a) && absent(b))
			return null;
		return (absent(b) ? 0 : f(b)) - (absent(a) ? 0 : f(a));
	};
	const pct = (row, k, f) => {
		const a = row.cells[0], b = row.cells[k];
		if (absent(a) || absent(b))
			return null;
		const x = f(a);
		return x ? (f(b) - x) / x * 100 : null;
	};
	const signed = (fmt) => (v) => v === null ? "absent" : (v > 0 ? "+" : v < 0 ? "−" : "") + fmt(Math.abs(v));
	const count0 = (v) => fmtInt(v);
	const plain = (fmt) => (v) => v === null ? "absent" : fmt(v);
	const pctFmt = (k) => (v, row) => {
		if (v !== null)
			return (v > 0 ? "+" : v < 0 ? "−" : "") + Math.abs(v).toFixed(1) + "%";
		const a = row.cells[0], b = row.cells[k];
		return absent(a) && !absent(b) ? "new" : !absent(a) && absent(b) ? "gone" : "—";
	};
	const qty = [["CPU %", (c) => c.cpu_pct, fmtPct, (v) => v.toFixed(2) + "%"],
		["switches", (c) => c.switches, count0, count0]];
	if (d.reasons.length)
		qty.push(["exits", (c) => c.exits_total, count0, count0]);
	const cols = [["task", (x) => x.name, "name", null, true]];
	const absentCls = (v) => v === null ? "absent" : null;
	for (const [q, f, fmt] of qty)
		cols.push([q + " " + A, (x) => val(x, 0, f), null, plain(fmt), false, absentCls]);
	for (let k = 1; k < data.runs.length; k++) {
		const B = data.runs[k].short;
		for (const [q, f, fmt, dfmt] of qty)
			cols.push([q + " " + B, (x) => val(x, k, f), null, plain(fmt), false, absentCls],
				["Δ " + q + " " + B, (x) => delta(x, k, f), null, signed(dfmt), false, absentCls],
				["Δ% " + q + " " + B, (x) => pct(x, k, f), null, pctFmt(k)]);
		d.reasons.forEach((r, i) => cols.push(["Δ " + reasonName(r) + " " + B,
			(x) => delta(x, k, (c) => c.exits[i] || 0), null, signed(count0), false, absentCls]));
	}
	// largest change of CPU first
	const sort = { i: cols.findIndex((c) => c[0].startsWith("Δ CPU %")), asc: false };
	const absKey = (f) => (x) => { const v = f(x); return v === null ? -1 : Math.abs(v); };
	function refresh() {
		view.top = +top.value;
		const match = filterFn(box.value);
		let f = cols[sort.i][1];
		if (cols[sort.i][0].startsWith("Δ"))
			f = absKey(f);
		const dir = sort.asc ? 1 : -1;
		const list = d.rows.filter((x) => match(x)).sort((a, b) => {
			const x = f(a), y = f(b);
			return ((x === null) - (y === null)) || (x < y ? -1 : x > y ? 1 : 0) * dir ||
				(a.name < b.name ? -1 : 1);
		});
		const shown = list.slice(0, view.top);
		count.textContent = fmtInt(shown.length) + " of " + fmtInt(list.length) + " tasks shown" +
			(list.length > shown.length ? " (filter to find the others)" : "") +
			(cols[sort.i][0].startsWith("Δ") ? "; Δ columns sort by the size of the change" : "");
		holder.textContent = "";
		holder.appendChild(table("delta", cols, shown, (x) => ({ "data-name": x.name,
			"data-absent": data.runs.map((r, k) => absent(x.cells[k]) ? r.short : "")
				.filter(Boolean).join(" ") || null }), sort, refresh));
	}
	refresh();
}

// The per-thread wait percentiles of the VMs data (render/vmtab.c: waits, [tid, name, count,
// then the [lo, hi] of p50, p90, p99, p99.9, then max]) onto the tasks, where waitQuantile()
// reads them.
function attachWaitQuantiles(data) {
	for (const r of data.runs) {
		const by = new Map((r.waits || []).map((w) => [w[0] + "\u0000" + w[1], w]));
		for (const t of r.tasks) {
			const w = by.get(t.tid + "\u0000" + t.name);
			if (w && w[2] > 0) {
				t.wait_p50_range = w[3];
				t.wait_p99_range = w[5];
			}
		}
	}
}

function charts(data) {
	warnings(data.runs);
	attachWaitQuantiles(data);
	const tabs = [{ id: "cpu", title: "CPU and context switches", draw: (p) => drawCpu(data, p) }];
	if (data.runs.some((r) => r.tasks.some((t) => t.exits_total > 0)))
		tabs.push({ id: "kvm", title: "KVM exits by type", draw: (p) => drawKvm(data, p) });
	tabs.push({ id: "coremap", title: "CoreMap", draw: (p) => drawCoremap(data, p) });
	if (data.delta)
		tabs.push({ id: "delta", title: "Delta", draw: (p) => drawDelta(data, p) });
	// room for more tabs of the same data (a VMs tab: render/vms.c and assets/vms.js): a
	// script before this one in the same script element pushes {id, title, when(data),
	// draw(data, panel, view)} to window.pwzExtraTabs; window.pwzDash has the helpers
	for (const t of window.pwzExtraTabs || [])
		if (!t.when || t.when(data))
			tabs.push({ id: t.id, title: t.title, draw: (p) => t.draw(data, p, view) });
	if (window.pwzVmsTab)	// render/assets/vms.js
		window.pwzVmsTab(data, tabs, { el, table, fmtNs, fmtRange, fmtInt });
	tabs.push({ id: "capture", title: "Capture", draw: (p) => drawCapture(data, p) });
	setupTabs(tabs);
}

// ---------- heatmaps ----------
function undelta(a) {
	const out = new Float64Array(a.length);
	let v = 0;
	for (let i = 0; i < a.length; i++) {
		v += a[i];
		out[i] = v;
	}
	return out;
}

// Scatter height: taller on a tall screen, within reason.
function chartHeight() {
	return Math.max(420, Math.min(900, Math.round((window.innerHeight || 800) * 0.55)));
}

// A zoomable time-axis chart. opts: {height, yLog, yLabel, draw(ctx, view), hover(t, y)}
function timeChart(parent, win, opts) {
	const c = makeCanvas(parent, opts.height);
	const left = 78, right = 16, top = 10, bottom = 38;
	const plotW = c.width - left - right, plotH = c.height - top - bottom;
	const view = { t0: win[0], t1: win[1], left, top, plotW, plotH };
	view.x = (t) => left + (t - view.t0) / (view.t1 - view.t0) * plotW;
	view.tAt = (px) => view.t0 + (px - left) / plotW * (view.t1 - view.t0);
	function axes() {
		const ctx = c.ctx;
		ctx.fillStyle = "#5b6475";
		ctx.font = "12px system-ui, sans-serif";
		ctx.textAlign = "center";
		// ticks in ms, or in s when the visible range is longer than 20 s
		const span = view.t1 - view.t0, unit = span > 20e9 ? 1e9 : 1e6;
		const st = niceStep(span / unit, Math.max(4, Math.floor(plotW / 110))) * unit;
		for (let t = Math.ceil(view.t0 / st) * st; t <= view.t1; t += st) {
			ctx.fillStyle = "#eef1f5";
			ctx.fillRect(view.x(t), top, 1, plotH);
			ctx.fillStyle = "#5b6475";
			ctx.fillText((t / unit).toLocaleString("en-US", { maximumFractionDigits: 3 }),
				view.x(t), top + plotH + 14);
		}
		ctx.fillText("time from capture start (" + (unit === 1e9 ? "s" : "ms") +
			") — wheel: zoom, drag: pan, double-click: reset", left + plotW / 2, top + plotH + 30);
		ctx.save();
		ctx.translate(14, top + plotH / 2);
		ctx.rotate(-Math.PI / 2);
		ctx.fillText(opts.yLabel, 0, 0);
		ctx.restore();
	}
	function redraw() {
		const ctx = c.ctx;
		ctx.clearRect(0, 0, c.width, c.height);
		axes();
		ctx.save();
		ctx.beginPath();
		ctx.rect(left, top, plotW, plotH);
		ctx.clip();
		opts.draw(ctx, view, c);
		if (TRIGGER && TRIGGER.t >= view.t0 && TRIGGER.t <= view.t1) {
			ctx.fillStyle = "#d0342c";
			ctx.fillRect(Math.round(view.x(TRIGGER.t)) - 1, top, 2, plotH);
		}
		c.cv.dataset.trigger = TRIGGER ? String(TRIGGER.t) : "";
		ctx.restore();
		if (opts.yAxis)
			opts.yAxis(ctx, view);
		ctx.strokeStyle = "#c5ccd8";
		ctx.strokeRect(left + 0.5, top + 0.5, plotW, plotH);
		// the visible time range, for tests and tools
		c.cv.dataset.t0 = String(Math.round(view.t0));
		c.cv.dataset.t1 = String(Math.round(view.t1));
		c.cv.dataset.view = view.t0 + " " + view.t1;	/* exact, for tests */
	}
	c.cv.addEventListener("wheel", (ev) => {
		ev.preventDefault();
		const b = c.cv.getBoundingClientRect(), t = view.tAt(ev.clientX - b.left);
		const f = ev.deltaY < 0 ? 0.8 : 1.25;
		let t0 = t - (t - view.t0) * f, t1 = t + (view.t1 - t) * f;
		if (t1 - t0 < 1000)
			return;
		view.t0 = Math.max(win[0], t0);
		view.t1 = Math.min(win[1], t1);
		redraw();
	}, { passive: false });
	let drag = null;
	c.cv.addEventListener("mousedown", (ev) => { drag = { x: ev.clientX, t0: view.t0, t1: view.t1 }; });
	window.addEventListener("mouseup", () => { drag = null; });
	c.cv.addEventListener("mousemove", (ev) => {
		const b = c.cv.getBoundingClientRect();
		if (drag) {
			const dt = (ev.clientX - drag.x) / plotW * (drag.t1 - drag.t0);
			let t0 = drag.t0 - dt, t1 = drag.t1 - dt;
			if (t0 < win[0]) { t1 += win[0] - t0; t0 = win[0]; }
			if (t1 > win[1]) { t0 -= t1 - win[1]; t1 = win[1]; }
			view.t0 = Math.max(win[0], t0);
			view.t1 = t1;
			redraw();
			return;
		}
		const px = ev.clientX - b.left, py = ev.clientY - b.top;
		if (px < left || px > left + plotW || py < top || py > top + plotH || !opts.hover)
			return tip(ev, null);
		const text = opts.hover(view, px, py);
		tip(ev, text);
	});
	c.cv.addEventListener("mouseleave", (ev) => tip(ev, null));
	c.cv.addEventListener("dblclick", () => { view.t0 = win[0]; view.t1 = win[1]; redraw(); });
	redraw();
	return { redraw, view, canvas: c };
}

// Log y scale from 1 µs to the largest value (ns).
function logScale(view, maxNs) {
	const lo = 3, hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(maxNs, 1e4))));
	const y = (v) => view.top + view.plotH - (Math.log10(Math.max(v, 1e3)) - lo) / (hi - lo) * view.plotH;
	return { lo, hi, y, inv: (py) => Math.pow(10, lo + (view.top + view.plotH - py) / view.plotH *
		(hi - lo)) };
}

function yTicks(ctx, view, ls) {
	ctx.fillStyle = "#5b6475";
	ctx.font = "12px system-ui, sans-serif";
	ctx.textAlign = "right";
	for (let e = ls.lo; e <= ls.hi; e++)
		ctx.fillText(fmtDecade(e), view.left - 6, ls.y(Math.pow(10, e)) + 4);
}

// Scatter of many points straight into pixels. series: [{t, v, color, on}] with every point,
// or [{bins: {k, c}, color, on}]: cells of data.grid, each drawn over its time column and
// value row (at least 2 x 2 device pixels).
function scatter(ctx, view, c, series, ls, grid, win) {
	delete c.cv.dataset.bins;
	delete c.cv.dataset.binCount;
	delete c.cv.dataset.binNs;
	for (let e = ls.lo; e <= ls.hi; e++) {
		ctx.fillStyle = "#eef1f5";
		ctx.fillRect(view.left, ls.y(Math.pow(10, e)), view.plotW, 1);
	}
	const w = Math.round(view.plotW * c.dpr), h = Math.round(view.plotH * c.dpr);
	const img = ctx.createImageData(w, h);
	const px = new Uint32Array(img.data.buffer);
	const sx = w / (view.t1 - view.t0);
	// the first series (run slices, guest time) is drawn last, on top
	for (const s of series.slice().reverse()) {
		if (!s.on)
			continue;
		const [r, g, b] = rgb(s.color);
		const val = (255 << 24) | (b << 16) | (g << 8) | r;
		if (s.bins) {
			rebin(px, w, h, view, c, s, ls, grid, win, [r, g, b]);
			continue;
		}
		const t = s.t, v = s.v, n = t.length;
		// few points: bigger dots, so that they can be seen; many: 2 x 2 device pixels
		const d = Math.max(2, Math.round((n <= 2000 ? 4 : n <= 50000 ? 3 : 2) * c.dpr));
		for (let i = 0; i < n; i++) {
			const x = ((t[i] - view.t0) * sx) | 0;
			if (x < 0 || x > w - d)
				continue;
			const y = ((ls.y(v[i]) - view.top) * c.dpr) | 0;
			if (y < 0 || y > h - d)
				continue;
			if (d === 2) {
				const o = y * w + x;
				px[o] = val; px[o + 1] = val; px[o + w] = val; px[o + w + 1] = val;
			} else {
				for (let yy = y; yy < y + d; yy++)
					px.fill(val, yy * w + x, yy * w + x + d);
			}
		}
	}
	const tmp = document.createElement("canvas");
	tmp.width = w;
	tmp.height = h;
	tmp.getContext("2d").putImageData(img, 0, 0);
	ctx.drawImage(tmp, view.left, view.top, view.plotW, view.plotH);
}

/*
 * A series carried as grid cells (data.grid: cols time columns over the window x rpd rows a
 * decade), binned again for the view: while a column is narrower than 2 device pixels the
 * columns falling in one 2-pixel bin are summed, once zoomed in each column is drawn over
 * its own extent. The colour is the log of a bin's count against the fullest bin in view, so
 * that contrast follows the zoom. The canvas gets data-bin-ns (time per bin), data-bins
 * (non-empty bins drawn) and data-bin-count (points in them), summed over the series drawn.
 */
function rebin(px, w, h, view, c, s, ls, grid, win, rgbv) {
	const [r, g, b] = rgbv;
	const k = s.bins.k, cnt = s.bins.c, rows = grid.rows, colNs = (win[1] - win[0]) / grid.cols;
	const sx = w / (view.t1 - view.t0), colPx = colNs * sx;
	const merge = colPx < 2, bw = merge ? 2 : colPx;
	const nbx = merge ? Math.ceil(w / 2) + 1 : 0;
	const acc = merge ? new Float64Array(nbx * rows) : null;
	const cells = [];
	let maxc = 1, nb = 0, total = 0;
	for (let i = 0; i < k.length; i++) {
		const col = Math.floor(k[i] / rows), row = k[i] - col * rows;
		const ta = win[0] + col * colNs;
		if (ta + colNs <= view.t0 || ta >= view.t1)
			continue;
		total += cnt[i];
		if (merge) {
			const bx = Math.max(0, Math.min(nbx - 1, Math.floor((ta - view.t0) * sx / 2)));
			const j = bx * rows + row;
			if (!acc[j])
				nb++;
			acc[j] += cnt[i];
			if (acc[j] > maxc) maxc = acc[j];
		} else {
			cells.push(i);
			nb++;
			if (cnt[i] > maxc) maxc = cnt[i];
		}
	}
	const shade = [];
	for (let j = 0; j <= 8; j++) {
		const f = 0.3 + 0.7 * j / 8, m = (x) => Math.round(255 + (x - 255) * f);
		shade.push((255 << 24) | (m(b) << 16) | (m(g) << 8) | m(r));
	}
	const lmax = Math.log(1 + maxc);
	const paint = (x0, x1, row, n) => {
		const cv = shade[Math.round(8 * Math.log(1 + n) / lmax)];
		let y0 = Math.floor((ls.y(Math.pow(10, (row + 1) / grid.rpd)) - view.top) * c.dpr);
		let y1 = Math.ceil((ls.y(Math.pow(10, row / grid.rpd)) - view.top) * c.dpr);
		if (x1 - x0 < 2) x1 = x0 + 2;
		if (y1 - y0 < 2) y0 = y1 - 2;
		x0 = Math.max(0, x0); x1 = Math.min(w, x1);
		y0 = Math.max(0, y0); y1 = Math.min(h, y1);
		for (let y = y0; y < y1; y++)
			px.fill(cv, y * w + x0, y * w + x1);
	};
	if (merge) {
		for (let j = 0; j < acc.length; j++)
			if (acc[j]) {
				const bx = Math.floor(j / rows);
				paint(bx * 2, bx * 2 + 2, j - bx * rows, acc[j]);
			}
	} else {
		for (const i of cells) {
			const col = Math.floor(k[i] / rows), ta = win[0] + col * colNs;
			paint(Math.floor((ta - view.t0) * sx), Math.ceil((ta + colNs - view.t0) * sx),
				k[i] - col * rows, cnt[i]);
		}
	}
	const cd = c.cv.dataset;
	cd.binNs = String(Math.round(merge ? bw / sx : colNs));
	cd.bins = String(+(cd.bins || 0) + nb);
	cd.binCount = String(+(cd.binCount || 0) + total);
}

// The largest value of the series (ns): every point, or the top of the highest grid row.
function seriesMax(list, grid) {
	let max = 1e4;
	for (const s of list) {
		if (s.bins) {
			for (let i = 0; i < s.bins.k.length; i++) {
				const row = s.bins.k[i] % grid.rows;
				max = Math.max(max, Math.pow(10, (row + 1) / grid.rpd));
			}
		} else {
			for (let i = 0; i < s.v.length; i++)
				if (s.v[i] > max) max = s.v[i];
		}
	}
	return max;
}

function gridNote(data, list) {
	if (!list.some((s) => s.bins))
		return null;
	return el("p", { class: "note grid-note", text: "Series marked ▦ hold more than " +
		fmtInt(data.max_points) + " points: they are drawn from a grid of " +
		fmtInt(data.grid.cols) + " time columns × " + data.grid.rpd + " rows per decade " +
		"(every point counted, the legend has the exact counts; the stronger the colour, the " +
		"more points in the cell). Zooming re-bins the grid to the view: columns are summed " +
		"into 2-pixel bins while narrower than that, down to one column (" +
		fmtNs((data.run.window[1] - data.run.window[0]) / data.grid.cols) + "); below that it " +
		"shows grid cells, not single points. Render a narrower window (-f/-c) or raise " +
		"--max-points to see every point." });
}

function legendToggles(parent, id, series, onchange) {
	const lg = el("div", { class: "legend", id });
	const boxes = [];
	series.forEach((s) => {
		const cb = el("input", { type: "checkbox", checked: s.on ? "" : null,
			onchange: () => { s.on = cb.checked; onchange(); } });
		boxes.push(cb);
		// "only": isolate this series (drawn alone); again: every series back
		const only = el("button", { class: "only", type: "button", "data-only": s.name,
			title: "show only this series (again: show all)", text: "only",
			onclick: (ev) => {
				ev.preventDefault();
				const alone = s.on && series.every((x) => x === s || !x.on);
				series.forEach((x, i) => { x.on = alone || x === s; boxes[i].checked = x.on; });
				onchange();
			} });
		lg.appendChild(el("label", { "data-series": s.name, "data-count": s.n,
			"data-grid": s.bins ? "1" : null }, cb,
			el("span", { class: "swatch", style: "background:" + s.color }),
			s.name + " (" + fmtInt(s.n) + (s.bins ? " ▦" : "") + ")", only));
	});
	parent.appendChild(lg);
}

// A series embedded whole ({n, t: [delta], f...}) or as grid cells ({n, bins_f: {k, c}}).
function series(x, fields, grid) {
	const out = { n: x.n };
	if (!x.t && x.by_reason) {	// exits as one grid per reason (-1: the other reasons)
		out.by_reason = x.by_reason.map((z) => {
			const o = { r: z.r, n: z.n };
			for (const f of fields)
				if (z["bins_" + f])
					o["bins_" + f] = { k: undelta(z["bins_" + f].k), c: z["bins_" + f].c };
			return o;
		});
		return out;
	}
	if (x.t) {
		out.t = undelta(x.t);
		for (const f of fields)
			out[f] = Float64Array.from(x[f] || []);
	} else {
		for (const f of fields)
			if (x["bins_" + f])
				out["bins_" + f] = { k: undelta(x["bins_" + f].k), c: x["bins_" + f].c };
	}
	return out;
}

// The embedded point of series list nearest to (px, py), within 6 px: {s, i} or null. Points
// are in time order, so only those within 6 px of px in time are looked at.
function nearest(list, view, ls, px, py) {
	const dt = 6 / view.plotW * (view.t1 - view.t0), t = view.tAt(px);
	let best = null, bd = 37;
	for (const s of list) {
		if (!s.on || !s.t)
			continue;
		let lo = 0, hi = s.t.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (s.t[mid] < t - dt) lo = mid + 1; else hi = mid;
		}
		for (let i = lo; i < s.t.length && s.t[i] <= t + dt; i++) {
			const dx = view.x(s.t[i]) - px, dy = ls.y(s.v[i]) - py, d = dx * dx + dy * dy;
			if (d < bd) {
				bd = d;
				best = { s, i };
			}
		}
	}
	return best;
}

function heatmaps(data) {
	const run = data.run;
	warnings([run]);
	const grid = data.grid;
	const tasks = data.tasks.map((t, i) => ({ i, name: t.name, tids: t.tids,
		slices_ns: t.slices_ns, exit_reasons: t.exit_reasons,
		slices: series(t.slices, ["d", "c", "e", "p"], grid),
		waits: series(t.waits, ["d", "c", "p"], grid),
		sleeps: series(t.sleeps, ["d"], grid),
		sleeps_d: t.sleeps_d ? series(t.sleeps_d, ["d"], grid) : null,
		sleeps_o: t.sleeps_o ? series(t.sleeps_o, ["d"], grid) : null,
		exits: series(t.exits, ["g", "h", "r"], grid) }));
	tasks.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
	// timeline colours: the 19 tasks with the most run time get their own, the rest OTHER_SEL
	const byTime = tasks.slice().sort((a, b) => b.slices_ns - a.slices_ns || a.i - b.i);
	const rank = new Map(byTime.map((t, k) => [t.i, k]));
	const NAMED = PALETTE.length - 1;
	const taskColor = (i) => rank.get(i) < NAMED ? PALETTE[rank.get(i)] : OTHER_SEL;
	const threadOf = (t, s, i) => t.tids.length === 1 ? t.tids[0] :
		s.p && s.p.length > i ? t.tids[s.p[i]] : null;
	const win = run.window;
	function taskSelector(panel, id, onchange, filter) {
		const list = tasks.filter(filter || (() => true));
		const sel = el("select", { id, onchange: () => onchange(list[+sel.value]) });
		list.forEach((t, i) => sel.appendChild(el("option", { value: i, text: t.name + " (" +
			(t.tids.length > 8 ? fmtInt(t.tids.length) + " threads" : t.tids.join(",")) + ")" })));
		panel.appendChild(el("div", { class: "controls" }, el("label", { text: "task " }), sel,
			el("span", { class: "note", text: "(sorted by name; the busiest is shown first)" })));
		// start on the task with the most points, not the first name
		let best = 0;
		list.forEach((t, i) => {
			if (t.slices.n + t.exits.n > list[best].slices.n + list[best].exits.n)
				best = i;
		});
		sel.value = String(best);
		if (sel.options[best])
			sel.options[best].setAttribute("selected", "");
		list.first = list[best];
		return list;
	}
	function drawSwitches(panel) {
		panel.appendChild(el("p", { class: "note", text: "Every run slice of the task: when it " +
			"started (x) and how long it ran (y, log). Run-queue waits (wakeup to switch-in) and " +
			"sleeps (switch-out to the next switch-in, after a voluntary switch) are derived from " +
			"the switch stream" + (data.sleep_states ? "; sleeps are split by the state the thread " +
			"slept in: S interruptible, D uninterruptible (I/O, locks), other (I, T, P ...)" : "") +
			". \"only\" in the legend isolates a series; hover a point for its thread and CPU." }));
		const holder = el("div");
		const list = taskSelector(panel, "switch-task", (t) => show(t));
		panel.appendChild(holder);
		function show(t) {
			holder.textContent = "";
			const series = [
				{ name: "run slices", n: t.slices.n, t: t.slices.t, v: t.slices.d,
					bins: t.slices.bins_d, color: "#1f77b4", on: true, task: t, src: t.slices },
				{ name: "run-queue waits", n: t.waits.n, t: t.waits.t, v: t.waits.d,
					bins: t.waits.bins_d, color: "#ff7f0e", on: true, task: t, src: t.waits },
			];
			// sleeps by the state slept in when the capture reports it (render/sleeps.h)
			const sleep = (name, tipName, x, colour) => ({ name, tipName, n: x.n, t: x.t, v: x.d,
				bins: x.bins_d, color: colour, on: true, task: t });
			if (data.sleep_states)
				series.push(sleep("sleeps S", "interruptible sleep (S)", t.sleeps, "#2ca02c"),
					sleep("sleeps D", "uninterruptible sleep (D)", t.sleeps_d, "#9467bd"),
					sleep("sleeps other", "sleep (I, T, P ...)", t.sleeps_o, "#8c564b"));
			else
				series.push(sleep("sleeps", "sleep", t.sleeps, "#2ca02c"));
			logScatter(holder, "switch-legend", series, null, "duration", (h) => {
				const s = h.s, i = h.i, tid = threadOf(t, s.src || {}, i);
				let text = (s.tipName || s.name.replace(/s$/, "")) + " at " + fmtMs(s.t[i]) + ": " +
					fmtNs(s.v[i]);
				if (s.src)
					text += "\nCPU " + s.src.c[i] + ", thread " + (tid === null ? "?" : tid);
				else
					text += "\n" + t.name + (t.tids.length === 1 ? " (thread " + t.tids[0] + ")" :
						" (" + fmtInt(t.tids.length) + " threads)");
				return text;
			});
		}
		if (list.length)
			show(list.first);
	}
	// A time chart of series on a log y axis in holder: series toggles (legendId), then extra
	// (an element, or null), the grid note when series are gridded, then the chart. what
	// names the y value: the axis says "<what> (log scale)", the hover "<what> ≈ ..."; point(h)
	// describes the embedded point under the pointer.
	function logScatter(holder, legendId, series, extra, what, point) {
		const max = seriesMax(series, grid);
		let chart = null;
		legendToggles(holder, legendId, series, () => chart.redraw());
		if (extra)
			holder.appendChild(extra);
		const gn = gridNote(data, series);
		if (gn)
			holder.appendChild(gn);
		chart = timeChart(holder, win, { height: chartHeight(), yLabel: what + " (log scale)",
			draw: (ctx, view, c) => scatter(ctx, view, c, series, logScale(view, max), grid, win),
			yAxis: (ctx, view) => yTicks(ctx, view, logScale(view, max)),
			hover: (view, px, py) => {
				const ls = logScale(view, max), h = point ? nearest(series, view, ls, px, py) : null;
				if (h)
					return point(h);
				return "t = " + fmtMs(view.tAt(px)) + ", " + what + " ≈ " + fmtNs(ls.inv(py));
			} });
	}
	function drawExits(panel) {
		panel.appendChild(el("p", { class: "note", text: "Every KVM exit of the vCPU: when it " +
			"happened (x) and the time to handle it or the guest run time before it (y, log), " +
			"coloured by exit reason; \"only\" isolates a reason." }));
		const holder = el("div");
		const list = taskSelector(panel, "exit-task", (t) => show(t), (t) => t.exits.n > 0);
		const ysel = el("select", { id: "exit-y", onchange: () => show(cur) });
		ysel.appendChild(el("option", { value: "h", text: "exit handling time" }));
		ysel.appendChild(el("option", { value: "g", text: "guest time before the exit" }));
		panel.appendChild(el("div", { class: "controls" }, el("label", { text: "y: " }), ysel));
		panel.appendChild(holder);
		let cur = null;
		function show(t) {
			cur = t;
			holder.textContent = "";
			const x = t.exits, y = ysel.value;
			const byReason = el("div", { class: "legend", id: "exit-reasons", "data-task": t.name });
			t.exit_reasons.forEach(([r, n]) =>
				byReason.appendChild(el("span", { class: "item", "data-reason":
					reasonName(data.reasons[r]), "data-count": n, text:
					reasonName(data.reasons[r]) + ": " + fmtInt(n) })));
			let series, note = null;
			if (x.t) {
				// one series per reason, the points split once
				const idx = new Map();
				t.exit_reasons.forEach(([r], k) => idx.set(r, k));
				const parts = t.exit_reasons.map(() => ({ t: [], v: [] }));
				for (let i = 0; i < x.t.length; i++) {
					const p = parts[idx.get(x.r[i])];
					p.t.push(x.t[i]);
					p.v.push(y === "h" ? x.h[i] : x.g[i]);
				}
				series = t.exit_reasons.map(([r, n], k) => ({ name: reasonName(data.reasons[r]),
					n, t: Float64Array.from(parts[k].t), v: Float64Array.from(parts[k].v),
					color: color(r), on: true }));
			} else if (x.by_reason) {
				// a grid per reason: the most frequent reasons of the task, then the rest
				series = x.by_reason.map((z) => ({ name: z.r < 0 ? "other reasons" :
					reasonName(data.reasons[z.r]), n: z.n, bins: y === "h" ? z.bins_h : z.bins_g,
					color: z.r < 0 ? OTHER_SEL : color(z.r), on: true, reason: z.r }));
				if (x.by_reason.some((z) => z.r < 0))
					note = el("p", { class: "note", text: "The exits are grids, one per " +
						"reason: the " + (x.by_reason.length - 1) + " most frequent reasons " +
						"of the task have their own, \"other reasons\" holds the rest." });
			} else {
				series = [{ name: y === "h" ? "exit handling time" : "guest time before exit",
					n: x.n, bins: y === "h" ? x.bins_h : x.bins_g, color: "#d62728", on: true }];
			}
			logScatter(holder, "exit-legend", series, el("div", null, byReason, note), y === "h" ? "handling time" :
				"guest time", (h) => h.s.name + " at " + fmtMs(h.s.t[h.i]) + ": " +
				fmtNs(h.s.v[h.i]) + "\n" + t.name + (t.tids.length === 1 ? " (thread " +
				t.tids[0] + ")" : ""));
		}
		if (list.length)
			show(list.first);
		else
			panel.appendChild(el("p", { class: "note", text: "No KVM exit in the selection." }));
	}
	function drawLocality(panel) {
		const lanesAgg = data.lanes, others = data.others;
		panel.appendChild(el("p", { class: "note", text: "Which thread ran when: one lane per " +
			"CPU, " + (lanesAgg ? "in " + fmtInt(lanesAgg.cols) + " time columns (a task has " +
			"more than " + fmtInt(data.max_points) + " slices): each column coloured by the task " +
			"that ran longest in it, its height the share of the column the selected tasks kept " +
			"the CPU busy. Render a narrower window (-f/-c) or raise --max-points to see every " +
			"slice." : "each run slice a rectangle from its start to its end, coloured by task.") +
			" The " + NAMED + " tasks with the most run time have their own colour, the others " +
			"share one; click a legend entry to isolate a task." + (others ? " Grey fill: " +
			"threads -t left out (its height: their share of the column)." : "") +
			" Gaps: idle." }));
		const ncpu = Math.max(1, run.nr_cpus);
		let isolated = null;
		const legend = el("div", { class: "legend", id: "locality-legend" });
		const more = el("div", { class: "legend", id: "locality-more" });
		const items = [];
		const pickTask = (t, item) => {
			isolated = isolated === t.i ? null : t.i;
			for (const x of items)
				x.classList.toggle("isolated", isolated === +x.dataset.i);
			chart.redraw();
		};
		byTime.forEach((t, k) => {
			const item = el("span", { class: "item", "data-task": t.name, "data-count": t.slices.n,
				"data-i": t.i, title: "click: isolate", onclick: () => pickTask(t, item) },
				el("span", { class: "swatch", style: "background:" + taskColor(t.i) }),
				t.name + " (" + fmtInt(t.slices.n) + ")");
			items.push(item);
			(k < NAMED ? legend : more).appendChild(item);
		});
		panel.appendChild(legend);
		if (byTime.length > NAMED)
			panel.appendChild(el("details", null, el("summary", { text: fmtInt(byTime.length - NAMED) +
				" more tasks, drawn in one colour" }, el("span", { class: "swatch", style:
				"background:" + OTHER_SEL + ";margin-left:6px" })), more));
		if (others)
			legend.appendChild(el("span", { class: "item", "data-others": "1" }, el("span",
				{ class: "swatch", style: "background:" + OTHER_FILL }), "threads not selected"));
		const byIndex = new Map(tasks.map((t) => [t.i, t]));
		const fill = (i) => isolated === null ? taskColor(i) : i === isolated ? "#d62728" : FADED;
		// columns of a per-CPU summary ({cols, cores: [{k, ...}]}) as [start, ns, index]
		const columns = (agg, f) => {
			const colNs = (win[1] - win[0]) / agg.cols;
			return Array.from({ length: ncpu }, (_, c) => {
				const l = agg.cores[c], out = [];
				if (!l)
					return out;
				const k = undelta(l.k);
				for (let i = 0; i < k.length; i++)
					out.push([win[0] + k[i] * colNs, colNs, i, f(l, i)]);
				return out;
			});
		};
		const otherCols = others ? columns(others, (l, i) => l.b[i]) : null;
		// per core: slices sorted by start, for hit tests (built at the first hover when every
		// slice is embedded: drawing goes task by task and needs no sort); or the columns
		let lanes = null;
		function buildLanes() {
			if (lanesAgg) {
				lanes = columns(lanesAgg, (l, i) => [l.g[i], l.b[i]]);
				return;
			}
			lanes = Array.from({ length: ncpu }, () => []);
			tasks.forEach((t) => {
				const s = t.slices;
				for (let i = 0; i < s.t.length; i++)
					if (s.c[i] < ncpu)
						lanes[s.c[i]].push([s.t[i], s.d[i], t.i, i]);
			});
			for (const l of lanes)
				l.sort((a, b) => a[0] - b[0]);
		}
		if (lanesAgg)
			buildLanes();
		const laneH = Math.max(6, Math.min(48, Math.floor(Math.max(560, window.innerHeight * 0.6) / ncpu)));
		const bars = (ctx, view, cols, y, f) => {
			for (const [t, d, , v] of cols) {
				if (t + d < view.t0 || t > view.t1)
					continue;
				const x0 = view.x(t), x1 = view.x(t + d);
				const hh = (laneH - 2) * Math.min(1, f(v) / d);
				ctx.fillRect(x0, y + laneH - 1 - hh, Math.max(1, x1 - x0), Math.max(1, hh));
			}
		};
		const chart = timeChart(panel, win, { height: ncpu * laneH + 50, yLabel: "CPU",
			draw: (ctx, view) => {
				if (otherCols) {
					ctx.fillStyle = OTHER_FILL;
					otherCols.forEach((l, c) => bars(ctx, view, l, view.top + c * laneH, (v) => v));
				}
				if (lanesAgg) {
					lanes.forEach((l, c) => {
						const y = view.top + c * laneH;
						for (const col of l) {
							ctx.fillStyle = fill(col[3][0]);
							bars(ctx, view, [col], y, (v) => v[1]);
						}
					});
					return;
				}
				// task by task (each in time order); skip slices that would repaint the same
				// pixel of the same lane in the same colour; the isolated task last, on top
				const lastX = new Float64Array(ncpu);
				const order = isolated === null ? tasks : tasks.filter((t) => t.i !== isolated)
					.concat(tasks.filter((t) => t.i === isolated));
				for (const tk of order) {
					const s = tk.slices, n = s.t.length;
					lastX.fill(-1);
					ctx.fillStyle = fill(tk.i);
					for (let i = 0; i < n; i++) {
						const t = s.t[i], d = s.d[i], c = s.c[i];
						if (c >= ncpu || t + d < view.t0 || t > view.t1)
							continue;
						const x0 = view.x(t), x1 = view.x(t + d);
						if (Math.floor(x1) <= lastX[c])
							continue;
						ctx.fillRect(x0, view.top + c * laneH + 1, Math.max(1, x1 - x0), laneH - 2);
						lastX[c] = Math.floor(x1);
					}
				}
			},
			yAxis: (ctx, view) => {
				ctx.font = "11px system-ui, sans-serif";
				ctx.fillStyle = "#5b6475";
				ctx.textAlign = "right";
				for (let c = 0; c < ncpu; c += Math.ceil(12 / laneH))
					ctx.fillText(String(c), view.left - 4, view.top + c * laneH + laneH / 2 + 4);
			},
			hover: (view, px, py) => {
				const c = Math.floor((py - view.top) / laneH);
				if (c < 0 || c >= ncpu)
					return null;
				if (!lanes)
					buildLanes();
				const t = view.tAt(px);
				const find = (l) => {
					let lo = 0, hi = l.length;
					while (lo < hi) {
						const mid = (lo + hi) >> 1;
						if (l[mid][0] <= t) lo = mid + 1; else hi = mid;
					}
					const s = l[lo - 1];
					return s && s[0] + s[1] >= t ? s : null;
				};
				const o = otherCols ? find(otherCols[c]) : null;
				const otext = o ? "\nthreads not selected: " + fmtPct(o[3] / o[1] * 100) +
					" of " + fmtMs(o[0]) + " to " + fmtMs(o[0] + o[1]) : "";
				const s = find(lanes[c]);
				if (!s)
					return "CPU " + c + " at " + fmtMs(t) + ": no selected task" + otext;
				if (lanesAgg) {
					const tk = byIndex.get(s[3][0]);
					return "CPU " + c + ", " + fmtMs(s[0]) + " to " + fmtMs(s[0] + s[1]) +
						"\nbusy " + fmtPct(s[3][1] / s[1] * 100) + " (selected tasks)\nlongest: " +
						(tk ? tk.name + (tk.tids.length === 1 ? ", thread " + tk.tids[0] : " (" +
						fmtInt(tk.tids.length) + " threads)") : "?") + otext;
				}
				const tk = byIndex.get(s[2]), tid = tk ? threadOf(tk, tk.slices, s[3]) : null;
				return (tk ? tk.name : "?") + "\nthread " + (tid === null ? "?" : tid) + ", CPU " + c +
					", from " + fmtMs(s[0]) + " for " + fmtNs(s[1]) + otext;
			} });
	}
	const tabs = [{ id: "switches", title: "Context switches", draw: drawSwitches }];
	if (tasks.some((t) => t.exits.n))
		tabs.push({ id: "exits", title: "KVM exits", draw: drawExits });
	tabs.push({ id: "locality", title: "Per-CPU timeline", draw: drawLocality });
	tabs.push({ id: "capture", title: "Capture", draw: (p) => drawCapture({ runs: [run] }, p) });
	setupTabs(tabs);
}

// The helpers a tab of another asset may use (see charts()).
window.pwzDash = { el, table, tip, makeCanvas, fmtInt, fmtNs, fmtPct, fmtRange, reasonName,
	groupsOf, pick, controlBar, register, view, CPU_UNIT };

async function main() {
	const t0 = performance.now();
	const data = await loadData();
	window.pwzData = data;
	if (data.kind === "heatmaps")
		heatmaps(data);
	else
		charts(data);
	document.body.dataset.loadMs = String(Math.round(performance.now() - t0));
	document.body.dataset.readyMs = String(Math.round(performance.now()));	/* since navigation */
	document.body.dataset.state = errors.length ? "error" : "ready";
}

main().catch((e) => {
	reportError(e && e.stack || e);
	document.body.dataset.state = "error";
});
})();
