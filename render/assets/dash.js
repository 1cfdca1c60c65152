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

// A canvas cannot be taller than about 32,000 px: bar charts show at most this many rows (the
// busiest), the tables below them show every row.
const MAX_BAR_ROWS = 1000;
function busiest(rows, f, panel) {
	if (rows.length <= MAX_BAR_ROWS)
		return rows;
	panel.appendChild(el("p", { class: "note", text: "The chart shows the " + MAX_BAR_ROWS +
		" busiest of " + fmtInt(rows.length) + " rows; the table below has them all." }));
	const keep = new Set(rows.slice().sort((a, b) => f(b) - f(a)).slice(0, MAX_BAR_ROWS));
	return rows.filter((x) => keep.has(x));
}

function fmtInt(v) { return Math.round(v).toLocaleString("en-US"); }
function fmtPct(v) { return v.toFixed(2) + "%"; }
function fmtNs(ns) {
	ns = Number(ns);
	if (ns >= 1e9) return (ns / 1e9).toFixed(3) + " s";
	if (ns >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
	if (ns >= 1e3) return (ns / 1e3).toFixed(1) + " µs";
	return ns + " ns";
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

// A palette that stays distinct for a dozen series, then cycles with a hue shift.
const PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b",
	"#9d755d", "#ff9da6", "#bab0ac", "#439894", "#d67195", "#83bcb6", "#8f6d31", "#2f5d8a"];
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
function scale(v, base) {
	const c = rgb(base), t = Math.max(0, Math.min(1, v));
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
	const width = Math.max(480, wrap.clientWidth || parent.clientWidth || 960);
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

function triggerNote(runs) {
	const r = runs.find((x) => x.meta.trigger);
	const box = document.getElementById("warn");
	if (!r || !box)
		return;
	TRIGGER = { t: r.meta.trigger_ns, text: r.meta.trigger };
	box.parentNode.insertBefore(el("p", { id: "trigger", class: "note", text:
		"Flight recorder dump, triggered by " + r.meta.trigger + " at " +
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
function rowsOf(data) {
	// one row per (run, task); names suffixed by the run's short name in a diff
	const rows = [];
	const multi = data.runs.length > 1;
	data.runs.forEach((r, ri) => {
		// names several threads share (bash, kworker...) get their tid
		const seen = new Map();
		for (const t of r.tasks)
			seen.set(t.name, (seen.get(t.name) || 0) + 1);
		for (const t of r.tasks) {
			const name = seen.get(t.name) > 1 ? t.name + " (" + t.tid + ")" : t.name;
			rows.push({ run: ri, r, t, label: multi ? name + " [" + r.short + "]" : name });
		}
	});
	rows.sort((a, b) => a.t.name < b.t.name ? -1 : a.t.name > b.t.name ? 1 : a.run - b.run);
	return rows;
}

function windowText(r) {
	return (r.window[0] / 1e6).toLocaleString("en-US", { maximumFractionDigits: 3 }) + "–" +
		fmtMs(r.window[1]) + " from the capture start, " + fmtNs(r.window[1] - r.window[0]);
}

function drawCpu(data, panel) {
	let rows = rowsOf(data);
	const anyKind = data.runs.some((r) => r.has_switch_kind);
	panel.appendChild(el("p", { class: "note", text: "CPU usage in % of one core over the window (" +
		data.runs.map(windowText).join("; ") + "); markers: switch-outs" +
		(anyKind ? " (voluntary ○, involuntary ◆)" : "") + ". Rows sorted by name." }));
	if (data.runs.length > 1) {
		const lg = el("div", { class: "legend", id: "cpu-runs" });
		data.runs.forEach((r, i) => lg.appendChild(el("span", { class: "item" }, el("span",
			{ class: "swatch", style: "background:" + color(i) }), "[" + r.short + "] " + r.name)));
		panel.appendChild(lg);
	}
	const allRows = rows;
	rows = busiest(rows, (x) => x.t.cpu_pct, panel);
	const rowH = 22, top = 58, left = 230, right = 30;
	const c = makeCanvas(panel, top + rows.length * rowH + 38);
	const { ctx, width } = c;
	const plotW = width - left - right;
	// the scale ends at the busiest row, rounded up (not at 100 %: idle captures would be flat)
	const pmax = maxOf(rows, (x) => x.t.cpu_pct, 1), pst = niceStep(pmax, 8);
	const maxPct = Math.ceil(pmax / pst - 1e-9) * pst;
	const maxSw = maxOf(rows, (x) => x.t.switches, 1);
	const xp = (v) => left + v / maxPct * plotW, xs = (v) => left + v / maxSw * plotW;
	ctx.font = "12px system-ui, sans-serif";
	ctx.textAlign = "center";
	// CPU % on top (and at the bottom), switch-outs in orange under it: two scales, one plot
	const ps = pst, ss = niceStep(maxSw, 6);
	for (let v = 0; v <= maxPct + 1e-9; v += ps) {
		ctx.fillStyle = "#eef1f5";
		ctx.fillRect(xp(v), top, 1, rows.length * rowH);
		ctx.fillStyle = "#2f5d8a";
		const lab = (pst < 1 ? v.toFixed(1) : v.toFixed(0)) + "%";
		ctx.fillText(lab, xp(v), top - 36);
		ctx.fillText(lab, xp(v), top + rows.length * rowH + 14);
	}
	ctx.fillStyle = "#c05a00";
	for (let v = 0; v <= maxSw + 1e-9; v += ss)
		ctx.fillText(fmtInt(v), xs(v), top - 8);
	ctx.textAlign = "right";
	ctx.fillStyle = "#2f5d8a";
	ctx.fillText("CPU (% of one core) ▬", left - 22, top - 36);
	ctx.fillStyle = "#c05a00";
	ctx.fillText("switch-outs (count) ◆", left - 22, top - 8);
	ctx.textAlign = "center";
	ctx.fillStyle = "#2f5d8a";
	ctx.fillText("CPU (% of one core)", left + plotW / 2, top + rows.length * rowH + 30);
	rows.forEach((x, i) => {
		const y = top + i * rowH;
		ctx.fillStyle = "#1d2330";
		ctx.textAlign = "right";
		ctx.fillText(ellipsize(ctx, x.label, left - 10), left - 8, y + 15);
		ctx.fillStyle = color(x.run);
		ctx.fillRect(left, y + 4, Math.max(1, xp(x.t.cpu_pct) - left), rowH - 8);
		const mark = (v, shape) => {
			const cx = xs(v), cy = y + rowH / 2;
			ctx.beginPath();
			if (shape === "o") {
				ctx.arc(cx, cy, 5, 0, 2 * Math.PI);
				ctx.strokeStyle = "#c05a00";
				ctx.lineWidth = 2;
				ctx.stroke();
			} else {
				ctx.moveTo(cx, cy - 6); ctx.lineTo(cx + 6, cy); ctx.lineTo(cx, cy + 6);
				ctx.lineTo(cx - 6, cy); ctx.closePath();
				ctx.fillStyle = "#c05a00";
				ctx.fill();
			}
		};
		if (x.r.has_switch_kind) {
			mark(x.t.voluntary, "o");
			mark(x.t.involuntary, "d");
		} else {
			mark(x.t.switches, "d");
		}
	});
	// where the rows are, for tests
	c.cv.dataset.rowTop = String(top);
	c.cv.dataset.rowH = String(rowH);
	c.cv.addEventListener("mousemove", (ev) => {
		const b = c.cv.getBoundingClientRect();
		const i = Math.floor((ev.clientY - b.top - top) / rowH);
		if (i < 0 || i >= rows.length)
			return tip(ev, null);
		const t = rows[i].t;
		tip(ev, rows[i].label + " (tid " + t.tid + ")\nCPU " + fmtPct(t.cpu_pct) + " (" +
			fmtNs(t.runtime_ns) + ")\nswitch-outs " + fmtInt(t.switches) +
			(rows[i].r.has_switch_kind ? " (voluntary " + fmtInt(t.voluntary) +
			", involuntary " + fmtInt(t.involuntary) + ")" : ""));
	});
	c.cv.addEventListener("mouseleave", (ev) => tip(ev, null));

	// the same figures as a table
	const cols = [
		["task", (x) => x.label, "name"],
		["tid", (x) => x.t.tid],
		["CPU %", (x) => x.t.cpu_pct, null, fmtPct],
		["runtime", (x) => x.t.runtime_ns, null, fmtNs],
		["switch-outs", (x) => x.t.switches, null, fmtInt],
	];
	if (anyKind)
		cols.push(["voluntary", (x) => x.t.voluntary, null, fmtInt],
			["involuntary", (x) => x.t.involuntary, null, fmtInt]);
	if (data.runs.some((r) => r.has_wait))
		cols.push(["run-queue wait", (x) => x.t.wait_ns, null, fmtNs]);
	// slices whose switch-in the tracepoint never reported: not in the runtime (Capture tab)
	if (allRows.some((x) => x.t.unseen_ns > 0))
		cols.push(["unseen", (x) => x.t.unseen_ns, null, fmtNs]);
	panel.appendChild(table("cpu", cols, allRows, (x) => ({ "data-tid": x.t.tid,
		"data-name": x.t.name, "data-run": x.run })));
}

// A sortable table; cols = [title, value(row), class, format]. Cells carry data-v = raw value.
function table(id, cols, rows, rowAttrs) {
	const t = el("table", { class: "data", id: "table-" + id });
	const thead = el("thead"), tb = el("tbody");
	const hr = el("tr");
	let sortCol = -1, asc = true;
	cols.forEach((c, i) => hr.appendChild(el("th", { class: c[2] || null, "data-col": c[0],
		text: c[0], title: "sort", onclick: () => sortBy(i) })));
	thead.appendChild(hr);
	function fill(list) {
		tb.textContent = "";
		for (const r of list) {
			const tr = el("tr", rowAttrs ? rowAttrs(r) : null);
			for (const c of cols) {
				const v = c[1](r);
				tr.appendChild(el("td", { class: c[2] || null, "data-col": c[0], "data-v": v,
					text: c[3] ? c[3](v) : String(v) }));
			}
			tb.appendChild(tr);
		}
	}
	function sortBy(i) {
		asc = sortCol === i ? !asc : i === 0;
		sortCol = i;
		const f = cols[i][1];
		const list = rows.slice().sort((a, b) => {
			const x = f(a), y = f(b);
			return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
		});
		fill(list);
	}
	fill(rows);
	t.appendChild(thead);
	t.appendChild(tb);
	return el("div", { class: "scroll" }, t);
}

function drawKvm(data, panel) {
	let rows = rowsOf(data).filter((x) => x.t.exits_total > 0);
	// reasons over all runs
	const rmap = new Map();
	for (const r of data.runs)
		for (const x of r.reasons)
			if (!rmap.has(reasonKey(x.isa, x.code)))
				rmap.set(reasonKey(x.isa, x.code), x);
	const reasons = [...rmap.values()].sort((a, b) => a.isa - b.isa || a.code - b.code);
	const ri = new Map(reasons.map((x, i) => [reasonKey(x.isa, x.code), i]));
	const count = (t, i) => {
		let n = 0;
		for (const e of t.exits)
			if (ri.get(reasonKey(e[0], e[1])) === i)
				n += e[2];
		return n;
	};
	panel.appendChild(el("p", { class: "note", text: "KVM exits per task and exit reason over " +
		"the window; hover for counts." }));
	const legend = el("div", { class: "legend", id: "kvm-legend" });
	reasons.forEach((x, i) => legend.appendChild(el("span", { class: "item",
		"data-reason": reasonName(x) }, el("span", { class: "swatch",
		style: "background:" + color(i) }), reasonName(x))));
	panel.appendChild(legend);
	const allRows = rows;
	rows = busiest(rows, (x) => x.t.exits_total, panel);
	const rowH = 22, top = 10, left = 230, right = 30;
	const c = makeCanvas(panel, top + rows.length * rowH + 34);
	const { ctx, width } = c;
	const plotW = width - left - right;
	const max = maxOf(rows, (x) => x.t.exits_total, 1);
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
		reasons.forEach((r, k) => {
			const n = count(x.t, k);
			if (!n)
				return;
			ctx.fillStyle = color(k);
			ctx.fillRect(left + xv(acc), y + 4, Math.max(1, xv(n)), rowH - 8);
			acc += n;
		});
	});
	c.cv.addEventListener("mousemove", (ev) => {
		const b = c.cv.getBoundingClientRect();
		const i = Math.floor((ev.clientY - b.top - top) / rowH);
		if (i < 0 || i >= rows.length)
			return tip(ev, null);
		const t = rows[i].t;
		const lines = reasons.map((r, k) => [reasonName(r), count(t, k)]).filter((z) => z[1])
			.map((z) => z[0] + ": " + fmtInt(z[1]));
		tip(ev, rows[i].label + " — " + fmtInt(t.exits_total) + " exits\n" + lines.join("\n"));
	});
	c.cv.addEventListener("mouseleave", (ev) => tip(ev, null));
	const cols = [["task", (x) => x.label, "name"]];
	reasons.forEach((r, k) => cols.push([reasonName(r), (x) => count(x.t, k), null, fmtInt]));
	cols.push(["total", (x) => x.t.exits_total, null, fmtInt]);
	panel.appendChild(table("kvm", cols, allRows, (x) => ({ "data-tid": x.t.tid, "data-name": x.t.name, "data-run": x.run })));
	panel.appendChild(el("h2", { text: "Exit handling time per reason (from the histograms)" }));
	const rrows = [];
	data.runs.forEach((r, k) => r.reasons.forEach((x) => rrows.push({ r, x, run: k })));
	const rcols = [];
	if (data.runs.length > 1)
		rcols.push(["run", (z) => z.r.short, "name"]);
	rcols.push(["reason", (z) => reasonName(z.x), "name"], ["exits", (z) => z.x.count, null, fmtInt],
		["median", (z) => z.x.median_ns, null, fmtNs], ["p99", (z) => z.x.p99_ns, null, fmtNs]);
	panel.appendChild(table("reasons", rcols, rrows));
}

function drawCoremap(data, panel) {
	const multi = data.runs.length > 1;
	let sel = null;
	const holder = el("div");
	if (multi) {
		sel = el("select", { id: "coremap-run", onchange: () => render(+sel.value) });
		data.runs.forEach((r, i) => sel.appendChild(el("option", { value: i, text: r.short })));
		panel.appendChild(el("div", { class: "controls" }, el("label", { text: "run " }), sel));
	}
	panel.appendChild(el("p", { class: "note", text: "Each cell: top = % of the window the task " +
		"ran on that core (blue), bottom = switch-outs on that core (orange), both on a " +
		"square-root colour scale; hover a cell for its figures. Thick lines separate packages, " +
		"thin ones last-level caches." }));
	const legend = el("div", { class: "legend", id: "coremap-legend" });
	panel.appendChild(legend);
	panel.appendChild(holder);
	function render(k) {
		const r = data.runs[k];
		const ncpu = r.nr_cpus;
		const win = Math.max(1, r.window[1] - r.window[0]);
		const tasks = r.tasks.slice().sort((a, b) => a.name < b.name ? -1 : a.name > b.name);
		const all = { name: "all tasks", cpu_runtime: new Array(ncpu).fill(0),
			cpu_switches: new Array(ncpu).fill(0) };
		for (const t of tasks)
			for (let c = 0; c < ncpu; c++) {
				all.cpu_runtime[c] += t.cpu_runtime[c] || 0;
				all.cpu_switches[c] += t.cpu_switches[c] || 0;
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
		// colour scales: task cells, the "all" column and the "all tasks" row each have their own
		const mx = { cell: [1e-9, 1], col: [1e-9, 1], row: [1e-9, 1] };
		const upd = (key, pct, sw) => {
			mx[key][0] = Math.max(mx[key][0], pct);
			mx[key][1] = Math.max(mx[key][1], sw);
		};
		const sum = (a) => a.reduce((x, y) => x + (y || 0), 0);
		for (const t of tasks) {
			for (let c = 0; c < ncpu; c++)
				upd("cell", (t.cpu_runtime[c] || 0) / win * 100, t.cpu_switches[c] || 0);
			upd("col", sum(t.cpu_runtime) / ncpu / win * 100, sum(t.cpu_switches));
		}
		for (let c = 0; c < ncpu; c++)
			upd("row", all.cpu_runtime[c] / win * 100, all.cpu_switches[c]);
		upd("row", sum(all.cpu_runtime) / ncpu / win * 100, sum(all.cpu_switches));
		legend.textContent = "";
		legend.appendChild(el("span", { class: "item" }, el("span", { class: "swatch",
			style: "background:" + scale(1, "#2b6cb0") }), "busiest cell: " +
			fmtPct(mx.cell[0]) + " of the window"));
		legend.appendChild(el("span", { class: "item" }, el("span", { class: "swatch",
			style: "background:" + scale(1, "#e07b00") }), "most switch-outs in a cell: " +
			fmtInt(mx.cell[1])));
		// few cores: wider, taller cells
		const cw = Math.max(22, Math.min(56, Math.floor(((holder.clientWidth || 960) - 260) / (ncpu + 1))));
		const tbl = el("table", { class: "coremap", id: "coremap-table", "data-run": k,
			style: "--cell-w:" + cw + "px;--cell-h:" + (cw >= 40 ? 14 : 11) + "px" });
		const hr = el("tr", null, el("th", { class: "name", text: "task \\ core" }));
		for (let c = 0; c < ncpu; c++)
			hr.appendChild(el("th", { class: sep(c), text: String(c) }));
		hr.appendChild(el("th", { class: "all", text: "all" }));
		tbl.appendChild(hr);
		const dup = new Map();
		for (const t of tasks)
			dup.set(t.name, (dup.get(t.name) || 0) + 1);
		const addRow = (t, isAll) => {
			const tr = el("tr", { class: isAll ? "alltasks" : null, "data-task": t.name,
				"data-tid": isAll ? null : t.tid });
			const label = !isAll && dup.get(t.name) > 1 ? t.name + " (" + t.tid + ")" : t.name;
			tr.appendChild(el("th", { class: "name", text: label, title: label }));
			const cell = (c, pct, sws, cls, m) => {
				const td = el("td", { class: cls, "data-cpu": c, "data-pct": pct.toFixed(3),
					"data-switches": sws, title: t.name + " on " + (c === "all" ? "all cores" :
					"core " + c) + ": " + fmtPct(pct) + " of the window, " + fmtInt(sws) +
					" switch-outs" });
				// square-root scales: small shares stay visible next to a busy cell
				td.appendChild(el("div", { style: "background:" + scale(Math.sqrt(pct / m[0]), "#2b6cb0") }));
				td.appendChild(el("div", { style: "background:" + scale(Math.sqrt(sws / m[1]), "#e07b00") }));
				tr.appendChild(td);
			};
			for (let c = 0; c < ncpu; c++)
				cell(c, (t.cpu_runtime[c] || 0) / win * 100, t.cpu_switches[c] || 0, sep(c),
					isAll ? mx.row : mx.cell);
			// "all": the share of the whole machine (all cores) and every switch-out
			cell("all", sum(t.cpu_runtime) / ncpu / win * 100, sum(t.cpu_switches), "all",
				isAll ? mx.row : mx.col);
			tbl.appendChild(tr);
		};
		tasks.forEach((t) => addRow(t, false));
		addRow(all, true);
		holder.textContent = "";
		holder.appendChild(el("div", { class: "scroll" }, tbl));
	}
	render(0);
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
			["started", m.start_wall_ns ? new Date(m.start_wall_ns / 1e6).toISOString() : "unknown"],
			["command", m.cmdline], ["options", m.options], ["written by", m.tool_version],
			["trigger", m.trigger ? fmtMs(m.trigger_ns) + " from the start: " + m.trigger :
				"none (not a flight recorder dump)"],
			["switch kinds", m.has_switch_kind ? "voluntary / involuntary known" : "unknown"],
			["run-queue wait", m.has_wait ? "measured" : "not measured"],
			["KVM", m.has_kvm ? "traced" : "not traced"],
			["figures from", r.from_aggregates ? "the capture's aggregates: exact runtime, " +
				"switches, waits and exit counts (a live capture's include the records it " +
				"dropped)" : "the recorded slices, waits and exits, clipped to the window " +
				"(exact for what was recorded; dropped records are missing)"],
			["derived", "CPU % (runtime over the window); exit handling percentiles " +
				"(estimated from log2 histograms); sleeps (gaps between slices)"],
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
	const d = data.delta, base = data.runs[0];
	panel.appendChild(el("p", { class: "note", text: "Change of each task (matched by name) " +
		"against the first run, " + base.short + ". " + (d.scaled ? "The captures differ in " +
		"length: counts are scaled to the first run's window (" + data.runs.map((r, i) =>
		r.short + " ×" + d.scale[i].toFixed(3)).join(", ") + "); CPU % is a rate and is not " +
		"scaled." : "The windows have the same length: counts are not scaled.") }));
	const cols = [["task", (x) => x.name, "name"]];
	const num = (v) => v === null ? "—" : (v > 0 ? "+" : "") + (Math.abs(v) >= 100 ?
		fmtInt(v) : v.toFixed(2));
	const diff = (row, k, f) => {
		const a = row.cells[0], b = row.cells[k];
		return (a || b) ? (b ? f(b) : 0) - (a ? f(a) : 0) : null;
	};
	for (let k = 1; k < data.runs.length; k++) {
		const s = " " + data.runs[k].short;
		cols.push(["Δ CPU %" + s, (x) => diff(x, k, (c) => c.cpu_pct), null, num],
			["Δ switches" + s, (x) => diff(x, k, (c) => c.switches), null, num]);
		d.reasons.forEach((r, i) => cols.push(["Δ " + reasonName(r) + s,
			(x) => diff(x, k, (c) => c.exits[i] || 0), null, num]));
	}
	panel.appendChild(table("delta", cols, d.rows));
}

function charts(data) {
	warnings(data.runs);
	const tabs = [{ id: "cpu", title: "CPU and context switches", draw: (p) => drawCpu(data, p) }];
	if (data.runs.some((r) => r.tasks.some((t) => t.exits_total > 0)))
		tabs.push({ id: "kvm", title: "KVM exits by type", draw: (p) => drawKvm(data, p) });
	tabs.push({ id: "coremap", title: "CoreMap", draw: (p) => drawCoremap(data, p) });
	if (data.delta)
		tabs.push({ id: "delta", title: "Delta", draw: (p) => drawDelta(data, p) });
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
			// a heatmap: the fuller the cell, the stronger the colour (log of the count)
			const k = s.bins.k, cnt = s.bins.c, rows = grid.rows, colNs = (win[1] - win[0]) / grid.cols;
			let maxc = 1;
			for (let i = 0; i < cnt.length; i++)
				if (cnt[i] > maxc) maxc = cnt[i];
			const shade = [];
			for (let j = 0; j <= 8; j++) {
				const f = 0.3 + 0.7 * j / 8, m = (x) => Math.round(255 + (x - 255) * f);
				shade.push((255 << 24) | (m(b) << 16) | (m(g) << 8) | m(r));
			}
			for (let i = 0; i < k.length; i++) {
				const cv = shade[Math.round(8 * Math.log(1 + cnt[i]) / Math.log(1 + maxc))];
				const col = Math.floor(k[i] / rows), row = k[i] - col * rows;
				const ta = win[0] + col * colNs;
				let x0 = Math.floor((ta - view.t0) * sx), x1 = Math.ceil((ta + colNs - view.t0) * sx);
				if (x1 < 0 || x0 >= w)
					continue;
				let y0 = Math.floor((ls.y(Math.pow(10, (row + 1) / grid.rpd)) - view.top) * c.dpr);
				let y1 = Math.ceil((ls.y(Math.pow(10, row / grid.rpd)) - view.top) * c.dpr);
				if (x1 - x0 < 2) x1 = x0 + 2;
				if (y1 - y0 < 2) y0 = y1 - 2;
				x0 = Math.max(0, x0); x1 = Math.min(w, x1);
				y0 = Math.max(0, y0); y1 = Math.min(h, y1);
				for (let y = y0; y < y1; y++)
					px.fill(cv, y * w + x0, y * w + x1);
			}
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
		"more points in the cell); zooming in shows that grid, " +
		"not single points. Render a narrower window (-f/-c) or raise --max-points to see " +
		"every point." });
}

function legendToggles(parent, id, series, onchange) {
	const lg = el("div", { class: "legend", id });
	series.forEach((s) => {
		const cb = el("input", { type: "checkbox", checked: s.on ? "" : null,
			onchange: () => { s.on = cb.checked; onchange(); } });
		lg.appendChild(el("label", { "data-series": s.name, "data-count": s.n,
			"data-grid": s.bins ? "1" : null }, cb,
			el("span", { class: "swatch", style: "background:" + s.color }),
			s.name + " (" + fmtInt(s.n) + (s.bins ? " ▦" : "") + ")"));
	});
	parent.appendChild(lg);
}

// A series embedded whole ({n, t: [delta], f...}) or as grid cells ({n, bins_f: {k, c}}).
function series(x, fields, grid) {
	const out = { n: x.n };
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

function heatmaps(data) {
	const run = data.run;
	warnings([run]);
	const grid = data.grid;
	const tasks = data.tasks.map((t, i) => ({ i, name: t.name, tids: t.tids,
		slices_ns: t.slices_ns, exit_reasons: t.exit_reasons,
		slices: series(t.slices, ["d", "c", "e"], grid),
		waits: series(t.waits, ["d"], grid),
		sleeps: series(t.sleeps, ["d"], grid),
		exits: series(t.exits, ["g", "h", "r"], grid) }));
	tasks.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
	const win = run.window;
	function taskSelector(panel, id, onchange, filter) {
		const list = tasks.filter(filter || (() => true));
		const sel = el("select", { id, onchange: () => onchange(list[+sel.value]) });
		list.forEach((t, i) => sel.appendChild(el("option", { value: i, text: t.name + " (" +
			t.tids.join(",") + ")" })));
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
			"the switch stream." }));
		const holder = el("div");
		const list = taskSelector(panel, "switch-task", (t) => show(t));
		panel.appendChild(holder);
		function show(t) {
			holder.textContent = "";
			const series = [
				{ name: "run slices", n: t.slices.n, t: t.slices.t, v: t.slices.d,
					bins: t.slices.bins_d, color: "#4c78a8", on: true },
				{ name: "run-queue waits", n: t.waits.n, t: t.waits.t, v: t.waits.d,
					bins: t.waits.bins_d, color: "#f58518", on: true },
				{ name: "sleeps", n: t.sleeps.n, t: t.sleeps.t, v: t.sleeps.d,
					bins: t.sleeps.bins_d, color: "#54a24b", on: true },
			];
			logScatter(holder, "switch-legend", series, null, "duration");
		}
		if (list.length)
			show(list.first);
	}
	// A time chart of series on a log y axis in holder: series toggles (legendId), then extra
	// (an element, or null), the grid note when series are gridded, then the chart. what
	// names the y value: the axis says "<what> (log scale)", the hover "<what> ≈ ...".
	function logScatter(holder, legendId, series, extra, what) {
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
			hover: (view, px, py) => "t = " + fmtMs(view.tAt(px)) + ", " + what + " ≈ " +
				fmtNs(logScale(view, max).inv(py)) });
	}
	function drawExits(panel) {
		panel.appendChild(el("p", { class: "note", text: "Every KVM exit of the vCPU: when it " +
			"happened (x), the guest run time before it and the time to handle it (y, log)." }));
		const holder = el("div");
		const list = taskSelector(panel, "exit-task", (t) => show(t), (t) => t.exits.n > 0);
		panel.appendChild(holder);
		function show(t) {
			holder.textContent = "";
			const series = [
				{ name: "guest time before exit", n: t.exits.n, t: t.exits.t, v: t.exits.g,
					bins: t.exits.bins_g, color: "#4c78a8", on: true },
				{ name: "exit handling time", n: t.exits.n, t: t.exits.t, v: t.exits.h,
					bins: t.exits.bins_h, color: "#e45756", on: true },
			];
			const byReason = el("div", { class: "legend", id: "exit-reasons", "data-task": t.name });
			t.exit_reasons.forEach(([r, n]) =>
				byReason.appendChild(el("span", { class: "item", "data-reason":
					reasonName(data.reasons[r]), "data-count": n, text:
					reasonName(data.reasons[r]) + ": " + fmtInt(n) })));
			logScatter(holder, "exit-legend", series, byReason, "time");
		}
		if (list.length)
			show(list.first);
		else
			panel.appendChild(el("p", { class: "note", text: "No KVM exit in the selection." }));
	}
	function drawLocality(panel) {
		const lanesAgg = data.lanes;
		panel.appendChild(el("p", { class: "note", text: lanesAgg ?
			"One lane per core, in " + fmtInt(lanesAgg.cols) + " time columns (the window holds " +
			"more than " + fmtInt(data.max_points) + " slices of a task): each column is " +
			"coloured by the task that ran longest in it, its height the share of the column " +
			"the selected tasks kept the core busy. Render a narrower window (-f/-c) or raise " +
			"--max-points to see every slice." :
			"One lane per core; each run slice of a selected task is a rectangle from its start " +
			"to its end, coloured by task. Gaps: idle, or a task not selected." }));
		const ncpu = Math.max(1, run.nr_cpus);
		const legend = el("div", { class: "legend", id: "locality-legend" });
		tasks.forEach((t, k) => legend.appendChild(el("span", { class: "item",
			"data-task": t.name, "data-count": t.slices.n }, el("span", { class: "swatch",
			style: "background:" + color(t.i) }), t.name + " (" + fmtInt(t.slices.n) + ")")));
		panel.appendChild(legend);
		const byIndex = new Map(tasks.map((t) => [t.i, t]));
		// per core: slices sorted by start, for hit tests (built at the first hover when every
		// slice is embedded: drawing goes task by task and needs no sort); or the columns
		let lanes = null;
		function buildLanes() {
			lanes = Array.from({ length: ncpu }, () => []);
			if (lanesAgg) {
				const colNs = (win[1] - win[0]) / lanesAgg.cols;
				lanesAgg.cores.forEach((l, c) => {
					if (c >= ncpu)
						return;
					const k = undelta(l.k);
					for (let i = 0; i < k.length; i++)
						lanes[c].push([win[0] + k[i] * colNs, colNs, l.g[i], l.b[i] / colNs]);
				});
				return;
			}
			tasks.forEach((t) => {
				for (let i = 0; i < t.slices.t.length; i++) {
					const c = t.slices.c[i];
					if (c < ncpu)
						lanes[c].push([t.slices.t[i], t.slices.d[i], t.i, 1]);
				}
			});
			for (const l of lanes)
				l.sort((a, b) => a[0] - b[0]);
		}
		if (lanesAgg)
			buildLanes();
		const laneH = Math.max(6, Math.min(48, Math.floor(Math.max(560, window.innerHeight * 0.6) / ncpu)));
		timeChart(panel, win, { height: ncpu * laneH + 50, yLabel: "core",
			draw: (ctx, view) => {
				if (lanesAgg) {
					lanes.forEach((l, c) => {
						const y = view.top + c * laneH;
						for (const [t, d, k, busy] of l) {
							if (t + d < view.t0 || t > view.t1)
								continue;
							const x0 = view.x(t), x1 = view.x(t + d);
							const hh = (laneH - 2) * Math.min(1, busy);
							ctx.fillStyle = color(k);
							ctx.fillRect(x0, y + laneH - 1 - hh, Math.max(1, x1 - x0), Math.max(1, hh));
						}
					});
					return;
				}
				// task by task (each in time order); skip slices that would repaint the same
				// pixel of the same lane in the same colour
				const lastX = new Float64Array(ncpu);
				for (const tk of tasks) {
					const s = tk.slices, n = s.t.length;
					lastX.fill(-1);
					ctx.fillStyle = color(tk.i);
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
				const t = view.tAt(px), l = lanes[c];
				let lo = 0, hi = l.length;
				while (lo < hi) {
					const mid = (lo + hi) >> 1;
					if (l[mid][0] <= t) lo = mid + 1; else hi = mid;
				}
				const s = l[lo - 1];
				if (!s || s[0] + s[1] < t)
					return "core " + c + " at " + fmtMs(t) + ": no selected task";
				const name = byIndex.get(s[2]) ? byIndex.get(s[2]).name : "?";
				if (lanesAgg)
					return "core " + c + ", " + fmtMs(s[0]) + " to " + fmtMs(s[0] + s[1]) +
						"\nbusy " + fmtPct(s[3] * 100) + " (selected tasks)\nlongest: " + name;
				return name + "\ncore " + c + ", from " + fmtMs(s[0]) + " for " + fmtNs(s[1]);
			} });
	}
	const tabs = [{ id: "switches", title: "Context switches", draw: drawSwitches }];
	if (tasks.some((t) => t.exits.n))
		tabs.push({ id: "exits", title: "KVM exits", draw: drawExits });
	tabs.push({ id: "locality", title: "Core locality over time", draw: drawLocality });
	tabs.push({ id: "capture", title: "Capture", draw: (p) => drawCapture({ runs: [run] }, p) });
	setupTabs(tabs);
}

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
