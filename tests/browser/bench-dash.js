// SPDX-License-Identifier: GPL-2.0
// Prints how fast a dashboard is to a person: first paint (navigation to the first tab drawn,
// by the wall clock) and the time of each interaction (the handler and the layout it causes,
// then to the next frame), in headless Chromium. Prints, never asserts (make bench).
// Usage: CHROMIUM_PATH=... node bench-dash.js charts|heatmaps PAGE.html
"use strict";
const { chromium } = require("playwright-core");

const median = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];

// Runs act (a function source, in the page) n times, each after pre (untimed, then a frame);
// returns [sync ms, to next frame ms], medians.
async function time(page, act, arg, n = 5, pre = "") {
	const sync = [], frame = [];
	for (let i = 0; i < n; i++) {
		const [a, b] = await page.evaluate(async ([src, arg, i, pre]) => {
			const f = new Function("arg", "i", src);
			if (pre) {
				new Function("arg", "i", pre)(arg, i);
				await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
			}
			const t0 = performance.now();
			f(arg, i);
			document.body.getBoundingClientRect();	// the layout the change causes
			const t1 = performance.now();
			await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
			return [t1 - t0, performance.now() - t0];
		}, [act, arg, i, pre]);
		sync.push(a);
		frame.push(b);
	}
	return [median(sync), median(frame)];
}

const SET = (sel, ev) => `const e = document.querySelector(${JSON.stringify(sel)});
	e.value = arg[i % arg.length]; e.dispatchEvent(new Event(${JSON.stringify(ev)}, { bubbles: true }));`;
const CLICK = (sel) => `document.querySelector(${JSON.stringify(sel)}).click();`;
const WHEEL = (sel) => `const c = document.querySelector(${JSON.stringify(sel)}), b = c.getBoundingClientRect();
	c.dispatchEvent(new WheelEvent("wheel", { deltaY: i % 2 ? 300 : -300, clientX: b.left + b.width / 2,
		clientY: b.top + b.height / 2, bubbles: true, cancelable: true }));`;
const PAN = (sel) => `const c = document.querySelector(${JSON.stringify(sel)}), b = c.getBoundingClientRect();
	const y = b.top + b.height / 2, x = b.left + b.width / 2;
	c.dispatchEvent(new MouseEvent("mousedown", { clientX: x, clientY: y, bubbles: true }));
	c.dispatchEvent(new MouseEvent("mousemove", { clientX: x + (i % 2 ? -150 : 150), clientY: y, bubbles: true }));
	window.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));`;
const HOVER = (sel) => `const c = document.querySelector(${JSON.stringify(sel)}), b = c.getBoundingClientRect();
	c.dispatchEvent(new MouseEvent("mousemove", { clientX: b.left + b.width * (0.3 + 0.1 * i),
		clientY: b.top + b.height * 0.4, bubbles: true }));`;

const CHARTS = [
	["sort by switch-outs", CLICK("#table-cpu th[data-col='switch-outs']")],
	["sort by CPU", CLICK("#table-cpu th[data-col='CPU %']")],
	["rows by thread / name", SET("#cpu-group", "change"), ["thread", "name"]],
	["rows by process / name", SET("#cpu-group", "change"), ["process", "name"]],
	["filter typed (task1, task12, none)", SET("#cpu-filter", "input"), ["task1", "task12", ""]],
	["top 50 to 200", SET("#cpu-top", "change"), ["200"], 5, SET("#cpu-top", "change").replace("arg[i % arg.length]", "'50'")],
	["top 50 to 1000", SET("#cpu-top", "change"), ["1000"], 5, SET("#cpu-top", "change").replace("arg[i % arg.length]", "'50'")],
	["top 1000 to 50", SET("#cpu-top", "change"), ["50"], 5, SET("#cpu-top", "change").replace("arg[i % arg.length]", "'1000'")],
	["hover a bar", HOVER("#panel-cpu canvas")],
	["CoreMap tab (first: draw)", CLICK("#tab-coremap") + CLICK("#tab-cpu"), null, 1],
	["CoreMap and back", CLICK("#tab-coremap") + CLICK("#tab-cpu")],
];
const HEATMAPS = [
	["zoom step (wheel)", WHEEL("#panel-switches canvas")],
	["pan (drag)", PAN("#panel-switches canvas")],
	["hover a point", HOVER("#panel-switches canvas")],
	["isolate a series (only)", CLICK("#switch-legend button[data-only='sleeps']")],
	["next task", SET("#switch-task", "change"), ["1", "2", "0"]],
	["timeline tab (first: draw)", CLICK("#tab-locality"), null, 1],
	["timeline zoom step", WHEEL("#panel-locality canvas")],
	["timeline hover", HOVER("#panel-locality canvas")],
	["timeline isolate a task", CLICK("#locality-legend .item[data-task]")],
];

(async () => {
	const [kind, file] = process.argv.slice(2);
	const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
		args: ["--no-sandbox", "--disable-gpu"] });
	const loads = [];
	let page = null;
	for (let i = 0; i < 3; i++) {
		if (page)
			await page.close();
		page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
		const t0 = Date.now();
		await page.goto("file://" + file, { waitUntil: "commit", timeout: 120000 });
		await page.waitForSelector("body[data-state]", { timeout: 120000 });
		loads.push(Date.now() - t0);
	}
	const state = await page.$eval("body", (b) => b.dataset.state);
	console.log(`  first paint ${median(loads)} ms [${Math.min(...loads)}..${Math.max(...loads)}] ` +
		`(navigation to the first tab drawn, wall clock, median of 3; ${state})`);
	for (const [what, act, arg, n, pre] of kind === "charts" ? CHARTS : HEATMAPS) {
		try {
			const [s, f] = await time(page, act, arg || [], n || 5, pre);
			console.log(`  ${what.padEnd(36)} ${s.toFixed(1).padStart(7)} ms handler + layout, ` +
				`${f.toFixed(1).padStart(7)} ms to the next frame`);
		} catch (e) {
			console.log(`  ${what.padEnd(36)} failed: ${e.message.split("\n")[0]}`);
		}
	}
	await browser.close();
})().catch((e) => { console.log("bench-dash: " + e.message.split("\n")[0]); process.exit(1); });
