// SPDX-License-Identifier: GPL-2.0
// Browser suite, large captures: what the dashboards do with 10,000 threads and with series
// carried as grids, in Chromium and in Firefox (puppeteer-core; Firefox over WebDriver BiDi):
// grouping, sorting, the filter, top N with its "other" row, one CPU unit across tabs, the
// heatmaps' re-binning on zoom, isolating a series or a task, exits coloured by reason.
// Usage: CHROMIUM_PATH=... [FIREFOX_PATH=...] node scale.js CHARTS-10K.html GRID-HEATMAPS.html
//        POINTS-HEATMAPS.html CHARTS-10K-LIST.json (its `pwz-render --list --json`)
//        [KVM-CHARTS.html KVM-LIST.json] (a capture with VMs and idle tasks: rows by VM)
// Prints "ok: ..." / "FAIL: ..." lines; exits 1 if any check failed. Nothing here is timed.
"use strict";
const puppeteer = require("puppeteer-core");
const { check, finish, open } = require("./lib");

// The rows a table shows: key, label, run, other?, and the raw value of each column.
function rowsOf(page, id) {
	return page.$$eval("#table-" + id + " tbody tr[data-key]", (trs) => trs.map((tr) => {
		const v = {};
		tr.querySelectorAll("td").forEach((td) => { v[td.dataset.col] = td.dataset.v; });
		return { key: tr.dataset.key, name: tr.dataset.name, other: tr.dataset.other === "1",
			threads: +tr.dataset.threads, tid: tr.dataset.tid, v };
	}));
}

async function set(page, sel, value, ev) {
	await page.$eval(sel, (e, value, ev) => {
		e.value = value;
		e.dispatchEvent(new Event(ev, { bubbles: true }));
	}, value, ev);
}

const sorted = (a, desc) => a.every((x, i) => i === 0 || (desc ? a[i - 1] >= x : a[i - 1] <= x));

async function charts(browser, file, who) {
	const { page, problems } = await open(browser, file);
	await page.click("#tab-cpu");	// a capture with a VM opens on its VMs tab
	// what the page's data holds, grouped as the test groups it
	const truth = await page.evaluate(() => {
		const ts = window.pwzData.runs[0].tasks, by = (f) => {
			const m = new Map();
			for (const t of ts) {
				const k = f(t), g = m.get(k) || { n: 0, cpu: 0, sw: 0, rt: 0 };
				g.n++; g.cpu += t.cpu_pct; g.sw += t.switches; g.rt += t.runtime_ns;
				m.set(k, g);
			}
			return [...m.entries()];
		};
		return { threads: ts.length, names: by((t) => t.name), pids: by((t) => t.pid || t.tid),
			// the VMs: the VMs tab's and the processes of threads with exits; the idle
			// tasks a row of their own, the other threads the host's
			...(() => {
				const vm = new Set([...(window.pwzData.runs[0].vms || []).map((v) => v.pid),
					...ts.filter((t) => t.exits_total > 0).map((t) => t.pid || t.tid)]);
				return { vmPids: vm.size, idle: ts.filter((t) => !t.tid).length,
					host: ts.some((t) => t.tid && !vm.has(t.pid || t.tid)) };
			})(),
			pidThreads: ts.reduce((m, t) => { m[t.pid] = (m[t.pid] || 0) + 1; return m; }, {}),
			sw: ts.reduce((a, t) => a + t.switches, 0),
			maxThreadCpu: Math.max(...ts.map((t) => t.cpu_pct)) };
	});
	check(truth.threads >= 10000, `${who}: the capture has ${truth.threads} threads`);
	const byName = new Map(truth.names);

	// default: by task name, sorted by CPU, top 50 and one "other" row
	let rows = await rowsOf(page, "cpu");
	let named = rows.filter((r) => !r.other);
	check(named.length === 50 && rows.length === 51 && rows[50].other,
		`${who}: 50 rows and an "other" row by default (${named.length} + ${rows.length - named.length})`);
	check(named.every((r) => byName.has(r.name) && byName.get(r.name).n === r.threads &&
		Math.abs(byName.get(r.name).cpu - +r.v["CPU %"]) < 1e-6),
		`${who}: rows are task names, each the sum of its threads`);
	check(named.some((r) => r.threads > 1), `${who}: some names hold several threads`);
	check(sorted(named.map((r) => +r.v["CPU %"]), true), `${who}: rows sorted by CPU, largest first`);
	const best = Math.max(...truth.names.map(([, g]) => g.cpu));
	check(Math.abs(+named[0].v["CPU %"] - best) < 1e-6, `${who}: the first row is the busiest name`);
	check(rows.reduce((a, r) => a + r.threads, 0) === truth.threads &&
		rows.reduce((a, r) => a + +r.v["switch-outs"], 0) === truth.sw,
		`${who}: the rows and "other" add up to every thread and switch-out`);
	check(await page.$eval("#cpu-count", (e) => +e.dataset.matched) === truth.names.length,
		`${who}: the count says ${truth.names.length} names`);

	// sorting: any column, the top N follows the sort
	await page.click("#table-cpu th[data-col='switch-outs']");
	rows = await rowsOf(page, "cpu");
	named = rows.filter((r) => !r.other);
	const maxSw = Math.max(...truth.names.map(([, g]) => g.sw));
	check(sorted(named.map((r) => +r.v["switch-outs"]), true) && +named[0].v["switch-outs"] === maxSw,
		`${who}: sorted by switch-outs, the name with the most (${maxSw}) first`);
	await page.click("#table-cpu th[data-col='switch-outs']");
	named = (await rowsOf(page, "cpu")).filter((r) => !r.other);
	check(sorted(named.map((r) => +r.v["switch-outs"]), false) &&
		+named[0].v["switch-outs"] === Math.min(...truth.names.map(([, g]) => g.sw)),
		`${who}: second click: fewest switch-outs first`);
	await page.click("#table-cpu th[data-col='task']");
	named = (await rowsOf(page, "cpu")).filter((r) => !r.other);
	const labels = named.map((r) => r.v.task);
	check(sorted(labels, false), `${who}: sorted by name`);
	await page.click("#table-cpu th[data-col='CPU %']");

	// grouping: threads, processes, VMs
	await set(page, "#cpu-group", "thread", "change");
	rows = await rowsOf(page, "cpu");
	named = rows.filter((r) => !r.other);
	check(named.length === 50 && named.every((r) => r.threads === 1 && r.tid) &&
		await page.$eval("#cpu-count", (e) => +e.dataset.matched) === truth.threads &&
		Math.abs(+named[0].v["CPU %"] - truth.maxThreadCpu) < 1e-6,
		`${who}: by thread: one thread a row, ${truth.threads} rows, the busiest first`);
	await set(page, "#cpu-group", "process", "change");
	check(await page.$eval("#cpu-count", (e) => +e.dataset.matched) === truth.pids.length,
		`${who}: by process: ${truth.pids.length} rows`);
	const vmOpt = await page.$("#cpu-group option[value='vm']");
	check(vmOpt !== null, `${who}: a VM grouping (the capture has KVM exits)`);
	if (vmOpt) {
		await set(page, "#cpu-group", "vm", "change");
		const want = truth.vmPids + (truth.idle ? 1 : 0) + (truth.host ? 1 : 0);
		check(await page.$eval("#cpu-count", (e) => +e.dataset.matched) === want,
			`${who}: by VM: ${truth.vmPids} VMs` + (truth.idle ? ", the idle tasks" : "") +
			(truth.host ? " and the host" : ""));
		if (truth.idle) {
			await set(page, "#cpu-filter", "idle (not a VM)", "input");
			rows = (await rowsOf(page, "cpu")).filter((r) => !r.other);
			check(rows.length === 1 && rows[0].key === "idle" &&
				rows[0].threads === truth.idle,
				`${who}: by VM: the idle tasks in a row of their own, not the host's`);
			await set(page, "#cpu-filter", "", "input");
		}
		// a VM's row holds all its threads, the vCPUs and the others
		await set(page, "#cpu-filter", "VM *", "input");
		rows = (await rowsOf(page, "cpu")).filter((r) => !r.other);
		check(rows.length > 0 && rows.every((r) => r.key.startsWith("p") && r.threads === truth.pidThreads[r.key.slice(1)]),
			`${who}: by VM: each VM row holds every thread of its process`);
		await set(page, "#cpu-filter", "", "input");
	}
	// the other tabs show the same view
	await page.click("#tab-coremap");
	check(await page.$eval("#coremap-group", (e) => e.value) === (vmOpt ? "vm" : "process"),
		`${who}: the CoreMap keeps the grouping chosen on the CPU tab`);
	await page.click("#tab-cpu");
	await set(page, "#cpu-group", "name", "change");

	// the filter: a substring, then a glob
	await set(page, "#cpu-filter", "vcpu", "input");
	rows = await rowsOf(page, "cpu");
	named = rows.filter((r) => !r.other);
	const wantV = truth.names.filter(([n]) => n.includes("vcpu")).length;
	check(named.length === Math.min(50, wantV) && named.every((r) => r.name.includes("vcpu")) &&
		await page.$eval("#cpu-count", (e) => +e.dataset.matched) === wantV,
		`${who}: filter "vcpu": ${wantV} names match, only they are shown`);
	await set(page, "#cpu-filter", "task1?", "input");
	rows = await rowsOf(page, "cpu");
	const wantG = truth.names.filter(([n]) => /^task1.$/.test(n)).map(([n]) => n).sort();
	check(JSON.stringify(rows.map((r) => r.name).sort()) === JSON.stringify(wantG) && !rows.some((r) => r.other),
		`${who}: glob "task1?": exactly ${wantG.join(", ")}, no other row`);
	await set(page, "#cpu-filter", "", "input");

	// top N
	await set(page, "#cpu-top", "10", "change");
	rows = await rowsOf(page, "cpu");
	named = rows.filter((r) => !r.other);
	const other = rows.find((r) => r.other);
	check(named.length === 10 && other && +other.v["switch-outs"] ===
		truth.sw - named.reduce((a, r) => a + +r.v["switch-outs"], 0),
		`${who}: top 10: ten rows, "other" holds the remaining switch-outs`);
	check(await page.$eval("#panel-cpu canvas", (c) => +c.dataset.rows) === 11,
		`${who}: the chart draws the 10 rows and "other"`);

	// one unit: the CoreMap's "all" column is the CPU tab's CPU %, in % of one core
	await page.click("#tab-coremap");
	const cm = await page.$$eval("#coremap-table tr[data-task]", (trs) => trs.map((tr) =>
		[tr.dataset.task, +tr.querySelector("td[data-cpu='all']").dataset.pct]));
	check(cm[0][0] === "all tasks", `${who}: CoreMap: "all tasks" is the first row`);
	check(cm.length === 12 && cm.slice(1, 11).every(([n, p]) => byName.has(n) &&
		Math.abs(byName.get(n).cpu - p) < 0.001),
		`${who}: CoreMap: 10 rows and "other", the "all" column equals the CPU % of one core`);
	check(await page.$eval("#coremap-legend", (e) => e.querySelectorAll(".ramp").length) === 2,
		`${who}: CoreMap: colour scales for CPU and switch-outs`);
	await set(page, "#cpu-top", "50", "change");
	check(problems.length === 0, `${who}: no console message or error ` + problems.slice(0, 3).join("; "));
	await page.close();
}

// The CPU table at top 1000 rows by thread: a virtual table (only the rows in view are
// elements), whose rows after scrolling, by wheel or keys, are the right rows of the whole
// sorted list, with the values of `pwz-render --list --json`.
async function virtualTable(browser, file, listFile, who) {
	const { page, problems } = await open(browser, file);
	await page.click("#tab-cpu");	// a capture with a VM opens on its VMs tab
	const list = JSON.parse(require("fs").readFileSync(listFile, "utf8")).tasks.filter((t) => t.tid);
	const cmpv = (x, y) => (x < y ? -1 : x > y ? 1 : 0);
	const label = (t) => t.name + " (" + t.tid + ")";
	// the order the page must show: by the column, then by label (as dash.js's pick())
	const order = (f, asc) => list.map((t) => [f(t), label(t), t]).sort((a, b) =>
		cmpv(a[0], b[0]) * (asc ? 1 : -1) || cmpv(a[1], b[1])).map((x) => x[2]);
	await set(page, "#cpu-group", "thread", "change");
	await set(page, "#cpu-top", "1000", "change");
	const info = () => page.$eval("#table-cpu", (t) => ({ rows: +t.dataset.rows, first: +t.dataset.first,
		last: +t.dataset.last, elems: t.querySelectorAll("tbody tr[data-key]").length,
		virtual: t.classList.contains("virtual") }));
	let inf = await info();
	check(inf.virtual && inf.rows === 1001 && inf.elems < 150 && inf.first === 0,
		`${who}: top 1000 threads: a virtual table of ${inf.rows} rows, ${inf.elems} of them elements`);
	// the rows that are elements: [index in the list, tid, values]
	const shown = () => page.$$eval("#table-cpu tbody tr[data-key]", (trs) => trs.map((tr) => {
		const v = {};
		tr.querySelectorAll("td").forEach((td) => { v[td.dataset.col] = td.dataset.v; });
		return { i: +tr.getAttribute("aria-rowindex") - 2, tid: tr.dataset.tid, other: tr.dataset.other === "1", v };
	}));
	const inView = () => page.$eval("#table-cpu", (t) => {
		const box = t.parentNode.getBoundingClientRect();
		const head = t.querySelector("thead").getBoundingClientRect().height;
		return [...t.querySelectorAll("tbody tr[data-key]")].filter((tr) => {
			const b = tr.getBoundingClientRect();
			return b.top >= box.top + head - 1 && b.bottom <= box.bottom + 1;
		}).map((tr) => +tr.getAttribute("aria-rowindex") - 2);
	});
	const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 20))));
	const rightRows = async (want, what) => {
		const rows = await shown(), view = await inView();
		const bad = rows.filter((r) => !r.other && (String(want[r.i].tid) !== r.tid ||
			Math.abs(+r.v["CPU %"] - want[r.i].cpu_pct) > 1e-6 || +r.v["switch-outs"] !== want[r.i].switches ||
			+r.v.runtime !== want[r.i].runtime_ns));
		check(rows.length > 0 && bad.length === 0 && view.length > 10 &&
			view.every((i) => rows.some((r) => r.i === i)),
			`${who}: ${what}: rows ${view[0]}-${view[view.length - 1]} in view are the list's, ` +
			`values as --list --json` + (bad.length ? ` (first wrong: ${JSON.stringify(bad[0])})` : ""));
		return view;
	};
	const byCpu = order((t) => t.cpu_pct, false);
	await rightRows(byCpu, "at the top");
	// scrolling the box (as the wheel does) brings the rows of that place in
	for (const y of [6000, 18000]) {
		await page.$eval("#table-cpu", (t, y) => { t.parentNode.scrollTop = y; }, y);
		await frame();
		const v = await rightRows(byCpu, `scrolled to ${y} px`);
		check(v[0] >= Math.floor(y / 24) - 2 && v[0] <= Math.floor(y / 24) + 2,
			`${who}: scrolled to ${y} px: the rows there (from row ${v[0]}), not the first ones`);
	}
	// keys on the focused box: End shows the last row ("other"), Home the first
	await page.focus("#panel-cpu .scroll");
	await page.keyboard.press("End");
	await frame();
	let rows = await shown();
	check(rows.some((r) => r.other && r.i === 1000), `${who}: End: the last row, "other", is shown`);
	await page.keyboard.press("Home");
	await frame();
	await page.keyboard.press("PageDown");
	await frame();
	const v = await rightRows(byCpu, "Home then PageDown");
	check(v[0] > 15 && v[0] < 40, `${who}: PageDown scrolls one box down (row ${v[0]} at the top)`);
	// sorting covers all rows, not the elements: the fewest switch-outs first, every row
	await page.click("#table-cpu th[data-col='switch-outs']");
	await page.click("#table-cpu th[data-col='switch-outs']");
	inf = await info();
	const bySw = order((t) => t.switches, true);
	check(inf.rows === 1001 && inf.first === 0, `${who}: a sort shows the first rows of the new order`);
	await page.$eval("#table-cpu", (t) => { t.parentNode.scrollTop = 12000; });
	await frame();
	await rightRows(bySw, "sorted by switch-outs, fewest first, scrolled to 12000 px");
	await set(page, "#cpu-top", "50", "change");
	await set(page, "#cpu-group", "name", "change");
	check(!(await info()).virtual, `${who}: top 50: a plain table again`);
	check(problems.length === 0, `${who}: no console message or error ` + problems.slice(0, 3).join("; "));
	await page.close();
}

// The points of the visible grid cells of the given series of task name, counted from the
// page's data as the page must count them (in the page: the data stays there).
function visibleCount(page, name, series, t0, t1) {
	return page.evaluate((name, series, t0, t1) => {
		const data = window.pwzData, t = data.tasks.find((x) => x.name === name), g = data.grid;
		const win = data.run.window, colNs = (win[1] - win[0]) / g.cols;
		let n = 0;
		for (const s of series) {
			const b = t[s].bins_d;
			let k = 0;
			for (let i = 0; i < b.k.length; i++) {
				k += b.k[i];
				const ta = win[0] + Math.floor(k / g.rows) * colNs;
				if (ta + colNs > t0 && ta < t1)
					n += b.c[i];
			}
		}
		return n;
	}, name, series, t0, t1);
}

async function gridHeatmaps(browser, file, who) {
	const { page, problems } = await open(browser, file);
	const cv = "#panel-switches canvas";
	const state = () => page.$eval(cv, (c) => ({ t0: +c.dataset.view.split(" ")[0], t1: +c.dataset.view.split(" ")[1],
		binNs: +c.dataset.binNs, bins: +c.dataset.bins, count: +c.dataset.binCount }));
	const name = await page.$eval("#switch-task", (s) => s.options[s.selectedIndex].text.replace(/ \([^)]*\)$/, ""));
	const grid = await page.$$eval("#switch-legend label[data-grid='1']", (l) => l.length);
	check(grid === 3, `${who}: the task's three series are grids (${grid})`);
	const data = await page.evaluate(() => ({ ntasks: window.pwzData.tasks.length,
		cols: window.pwzData.grid.cols, window: window.pwzData.run.window }));
	const all = ["slices", "waits", "sleeps"];
	const s0 = await state();
	check(s0.count === await visibleCount(page, name, all, s0.t0, s0.t1),
		`${who}: full view: ${s0.count} points in ${s0.bins} bins of ${s0.binNs} ns, as the data holds`);
	const zoom = (steps) => page.$eval(cv, (c, steps) => {
		const b = c.getBoundingClientRect();
		for (let i = 0; i < steps; i++)
			c.dispatchEvent(new WheelEvent("wheel", { deltaY: -300, clientX: b.left + b.width / 2,
				clientY: b.top + b.height / 2, bubbles: true, cancelable: true }));
	}, steps);
	await zoom(6);
	const s1 = await state();
	check(s1.t1 - s1.t0 < (s0.t1 - s0.t0) / 3 && s1.binNs < s0.binNs,
		`${who}: zoomed in ${((s0.t1 - s0.t0) / (s1.t1 - s1.t0)).toFixed(1)}x: bins of ${s1.binNs} ns (were ${s0.binNs})`);
	check(s1.count === await visibleCount(page, name, all, s1.t0, s1.t1) && s1.count < s0.count,
		`${who}: zoomed: ${s1.count} points in view, re-binned from the carried grid`);
	await zoom(10);
	const s2 = await state();
	const colNs = Math.round((data.window[1] - data.window[0]) / data.cols);
	check(s2.binNs === colNs && s2.count === await visibleCount(page, name, all, s2.t0, s2.t1),
		`${who}: zoomed further: down to one grid column a bin (${s2.binNs} ns)`);
	// isolate: "only" keeps one series, again brings every series back
	await page.click("#switch-legend button[data-only='sleeps']");
	const on = await page.$$eval("#switch-legend input", (i) => i.map((x) => x.checked));
	const s3 = await state();
	check(JSON.stringify(on) === "[false,false,true]" &&
		s3.count === await visibleCount(page, name, ["sleeps"], s3.t0, s3.t1),
		`${who}: "only" on sleeps draws the sleeps alone (${s3.count} points)`);
	await page.click("#switch-legend button[data-only='sleeps']");
	check((await page.$$eval("#switch-legend input", (i) => i.map((x) => x.checked))).every(Boolean),
		`${who}: "only" again shows every series`);
	// the timeline: 19 colours, the rest in one; a legend entry isolates a task
	await page.click("#tab-locality");
	const named = await page.$$eval("#locality-legend .item[data-task]", (i) => i.length);
	const more = await page.$$eval("#locality-more .item[data-task]", (i) => i.length);
	check(named === 19 && more === data.ntasks - 19,
		`${who}: timeline: 19 tasks with a colour, ${more} more in one`);
	const lc = "#panel-locality canvas";
	const before = await page.$eval(lc, (c) => c.toDataURL());
	await page.click("#locality-legend .item[data-task]");
	check(await page.$$eval("#locality-legend .item.isolated", (i) => i.length) === 1 &&
		await page.$eval(lc, (c) => c.toDataURL()) !== before, `${who}: timeline: a legend click isolates a task`);
	// exits carried as grids: one grid per reason, coloured by reason; "only" draws one alone
	await page.click("#tab-exits");
	const ser = await page.$$eval("#exit-legend label[data-series]", (l) => l.map((x) =>
		[x.dataset.series, +x.dataset.count, x.dataset.grid === "1"]));
	const rs = new Map(await page.$$eval("#exit-reasons [data-reason]", (l) => l.map((x) => [x.dataset.reason, +x.dataset.count])));
	const byReason = ser.filter(([n]) => n !== "other reasons");
	const rest = [...rs.values()].reduce((a, n) => a + n, 0) - byReason.reduce((a, [, n]) => a + n, 0);
	check(ser.length > 1 && ser.every(([, , g]) => g) && byReason.every(([n, c]) => rs.get(n) === c) &&
		(ser.find(([n]) => n === "other reasons") || [0, 0])[1] === rest,
		`${who}: exits as grids by reason: ${ser.map(([n, c]) => n + " " + c).join(", ")}`);
	await page.click("#exit-legend button[data-only='" + ser[0][0] + "']");
	const drawn = await page.$eval("#panel-exits canvas", (c) => +c.dataset.binCount);
	check(drawn === ser[0][1], `${who}: "only" ${ser[0][0]}: its ${drawn} exits drawn alone (of ${ser[0][1]})`);
	check(problems.length === 0, `${who}: no console message or error ` + problems.slice(0, 3).join("; "));
	await page.close();
}

async function pointHeatmaps(browser, file, who) {
	const { page, problems } = await open(browser, file);
	// a point's tooltip: its CPU and thread (one of the task's)
	const [tipText, tids, ncpu] = await page.$eval("#panel-switches canvas", (c) => {
		const b = c.getBoundingClientRect(), sel = document.querySelector("#switch-task");
		const name = sel.options[sel.selectedIndex].text.replace(/ \([^)]*\)$/, "");
		const tids = window.pwzData.tasks.find((t) => t.name === name).tids;
		const tip = () => { const t = document.querySelector(".tip"); return t && !t.hidden ? t.textContent : ""; };
		for (let y = b.top + 15; y < b.bottom - 40; y += 3)
			for (let x = b.left + 80; x < b.right - 20; x += 3) {
				c.dispatchEvent(new MouseEvent("mousemove", { clientX: x, clientY: y, bubbles: true }));
				if (/CPU \d+, thread \d+/.test(tip()))
					return [tip(), tids, window.pwzData.run.nr_cpus];
			}
		return [tip(), tids, window.pwzData.run.nr_cpus];
	});
	const m = /CPU (\d+), thread (\d+)/.exec(tipText);
	check(m && +m[1] < ncpu && tids.includes(+m[2]),
		`${who}: a point's tooltip names its CPU and thread: ${JSON.stringify(tipText.slice(0, 70))}`);
	await page.click("#tab-exits");
	// exits embedded whole: one series a reason, counted as the reason legend counts them
	const ser = await page.$$eval("#exit-legend label[data-series]", (l) => l.map((x) => [x.dataset.series, +x.dataset.count]));
	const rs = await page.$$eval("#exit-reasons [data-reason]", (l) => l.map((x) => [x.dataset.reason, +x.dataset.count]));
	check(ser.length > 1 && JSON.stringify(ser) === JSON.stringify(rs),
		`${who}: exits coloured by reason: ${ser.length} series, counts as per reason`);
	const cv = "#panel-exits canvas", img = () => page.$eval(cv, (c) => c.toDataURL());
	const a = await img();
	await page.click("#exit-legend button[data-only='" + ser[0][0] + "']");
	check(await img() !== a && (await page.$$eval("#exit-legend input", (i) => i.filter((x) => x.checked).length)) === 1,
		`${who}: "only" isolates the reason ${ser[0][0]}`);
	check(problems.length === 0, `${who}: no console message or error ` + problems.slice(0, 3).join("; "));
	await page.close();
}

// Rows by VM on a capture with VMs and idle tasks: one row per VM of --list (its process's
// threads), the idle tasks in a row of their own, every other thread in the host's.
async function vmRows(browser, file, listFile, who) {
	const list = JSON.parse(require("fs").readFileSync(listFile, "utf8"));
	const { page, problems } = await open(browser, file);
	await page.click("#tab-cpu");	// the page opens on its VMs tab
	const vm = new Set(list.vms.map((v) => v.pid)), want = new Map();
	for (const t of list.tasks) {
		const pid = t.pid || t.tid;
		const key = vm.has(pid) ? "p" + pid : t.tid ? "host" : "idle";
		want.set(key, (want.get(key) || 0) + 1);
	}
	await set(page, "#cpu-group", "vm", "change");
	const rows = (await rowsOf(page, "cpu")).filter((r) => !r.other);
	const got = new Map(rows.map((r) => [r.key, r.threads]));
	const text = (m) => [...m].sort().map(([k, n]) => k + ":" + n).join(" ");
	const ok = want.has("idle") && vm.size > 0 && text(got) === text(want);
	check(ok, `${who}: by VM: ${vm.size} VMs, ${want.get("idle")} idle tasks in their own row, ` +
		`the host apart` + (ok ? "" : ` (rows ${text(got)}, --list ${text(want)})`));
	check(problems.length === 0, `${who}: no console message or error ` + problems.slice(0, 3).join("; "));
	await page.close();
}

(async () => {
	const [chartsPage, gridPage, pointsPage, chartsList, kvmPage, kvmList] = process.argv.slice(2);
	const browsers = [["chromium", () => puppeteer.launch({ executablePath: process.env.CHROMIUM_PATH,
		headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run"] })]];
	if (process.env.FIREFOX_PATH)
		browsers.push(["firefox", () => puppeteer.launch({ browser: "firefox", headless: true,
			executablePath: process.env.FIREFOX_PATH, protocol: "webDriverBiDi" })]);
	for (const [who, launch] of browsers) {
		const b = await launch();
		try {
			await charts(b, chartsPage, who + " 10k threads");
			await virtualTable(b, chartsPage, chartsList, who + " 10k threads, top 1000");
			await gridHeatmaps(b, gridPage, who + " grid heatmaps");
			await pointHeatmaps(b, pointsPage, who + " heatmaps");
			if (kvmPage)
				await vmRows(b, kvmPage, kvmList, who + " imported KVM capture");
		} catch (e) {
			check(false, who + ": " + (e && e.message || e));
		} finally {
			await b.close();
		}
	}
	finish();
})().catch((e) => { console.log("FAIL: scale run: " + e.message); process.exit(1); });
