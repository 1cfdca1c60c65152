// SPDX-License-Identifier: GPL-2.0
// Browser suite, interactive part: drives pages with playwright-core in headless Chromium.
// Usage: node interact.js CHARTS.html HEATMAPS.html HOSTILE-CHARTS.html
// Prints "ok: ..." / "FAIL: ..." lines; exits 1 if any check failed.
"use strict";
const { chromium } = require("playwright-core");
const { check, finish, open } = require("./lib");

async function charts(browser, file) {
	const { page, problems } = await open(browser, file);
	// tabs are drawn when first shown; a capture with a VM (this one) opens on the VMs tab
	check(await page.$("#panel-vms[data-drawn='1']") !== null &&
		await page.$eval("#tabs button", (b) => b.id) === "tab-vms", "charts: the VMs tab first, drawn at load");
	check(await page.$("#panel-cpu[data-drawn='1']") === null, "charts: the CPU tab not drawn before shown");
	await page.click("#tab-cpu");
	check(await page.$("#panel-cpu[data-drawn='1']") !== null, "charts: the CPU tab drawn when shown");
	check(await page.$("#panel-coremap[data-drawn='1']") === null, "charts: CoreMap not drawn before shown");
	await page.click("#tab-coremap");
	check(await page.$("#panel-coremap[data-drawn='1']") !== null, "charts: CoreMap drawn when shown");
	check(await page.isHidden("#panel-cpu"), "charts: other tabs hidden");
	await page.click("#tab-cpu");

	// sorting a column
	await page.click("#table-cpu th[data-col='switch-outs']");
	const sw = await page.$$eval("#table-cpu td[data-col='switch-outs']", (tds) => tds.map((t) => +t.dataset.v));
	check(sw.length > 1 && sw.every((v, i) => i === 0 || sw[i - 1] >= v), "charts: sorted by switch-outs, largest first");
	await page.click("#table-cpu th[data-col='switch-outs']");
	const sw2 = await page.$$eval("#table-cpu td[data-col='switch-outs']", (tds) => tds.map((t) => +t.dataset.v));
	check(sw2.every((v, i) => i === 0 || sw2[i - 1] <= v), "charts: second click sorts smallest first");

	// the chart follows the table's sort: the tooltip of the first bar row names the first
	// row of the table (now the one with the fewest switch-outs)
	const box = await page.locator("#panel-cpu canvas").boundingBox();
	const geo = await page.$eval("#panel-cpu canvas", (c) => [+c.dataset.rowTop, +c.dataset.rowH]);
	await page.mouse.move(box.x + box.width / 2, box.y + geo[0] + geo[1] / 2);
	const tip = await page.$eval(".tip", (t) => (t.hidden ? "" : t.textContent));
	const first = await page.$eval("#table-cpu tbody td[data-col='task']", (td) => td.textContent);
	check(tip.startsWith(first), "charts: tooltip shows " + JSON.stringify(first) + " (got " + JSON.stringify(tip.slice(0, 40)) + ")");
	check(problems.length === 0, "charts: no console message, error, dialog or request " + problems.slice(0, 3).join("; "));
	await page.close();
}

async function heatmaps(browser, file) {
	const { page, problems } = await open(browser, file);
	const cv = page.locator("#panel-switches canvas");
	const range = async () => cv.evaluate((c) => [+c.dataset.t0, +c.dataset.t1]);
	const [w0, w1] = await range();
	check(w1 > w0, "heatmaps: time range shown " + w0 + ".." + w1);
	const box = await cv.boundingBox();
	const px = await cv.evaluate((c) => c.toDataURL());
	// wheel zooms around the pointer
	await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
	await page.mouse.wheel(0, -300);
	await page.waitForTimeout(50);
	const [z0, z1] = await range();
	check(z1 - z0 < (w1 - w0) * 0.9 && z0 >= w0 && z1 <= w1, "heatmaps: wheel zooms in (" + z0 + ".." + z1 + ")");
	// drag pans
	await page.mouse.down();
	await page.mouse.move(box.x + box.width / 2 + 200, box.y + box.height / 2, { steps: 4 });
	await page.mouse.up();
	const [p0, p1] = await range();
	check(p0 < z0 && Math.abs((p1 - p0) - (z1 - z0)) <= 2, "heatmaps: drag pans to earlier times (" + p0 + ".." + p1 + ")");
	// double-click resets
	await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
	const [r0, r1] = await range();
	check(r0 === w0 && r1 === w1, "heatmaps: double-click resets the range");
	// a series toggle redraws
	await page.uncheck("#switch-legend label[data-series='run slices'] input");
	const px2 = await cv.evaluate((c) => c.toDataURL());
	check(px2 !== px, "heatmaps: hiding a series redraws the chart");
	// the task selector switches the legend to that task's counts
	const opts = await page.$$eval("#switch-task option", (o) => o.length);
	if (opts > 1) {
		await page.selectOption("#switch-task", "1");
		const shown = await page.$eval("#switch-legend label[data-series='run slices']", (l) => +l.dataset.count);
		const want = await page.evaluate(() => {
			const t = window.pwzData.tasks.slice().sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)[1];
			// the points embedded, or the counts of the grid's cells
			return t.slices.d ? t.slices.d.length : t.slices.bins_d.c.reduce((a, b) => a + b, 0);
		});
		check(shown === want, "heatmaps: second task's legend shows its " + want + " slices (got " + shown + ")");
	}
	// locality tooltip names a task and a core
	await page.click("#tab-locality");
	const lc = page.locator("#panel-locality canvas");
	const lb = await lc.boundingBox();
	let tipText = "";
	const lanes = await page.evaluate(() => window.pwzData.run.nr_cpus);
	const laneH = Math.max(6, Math.min(40, Math.floor(560 / lanes)));
	for (let c = 0; c < lanes && !/\nthread /.test(tipText); c++) {
		for (let x = 0.1; x < 0.95 && !/\nthread /.test(tipText); x += 0.02) {
			await page.mouse.move(lb.x + 70 + (lb.width - 86) * x, lb.y + 10 + c * laneH + laneH / 2);
			tipText = await page.$eval(".tip", (t) => (t.hidden ? "" : t.textContent));
		}
	}
	check(/\nthread \d+, CPU \d+, from /.test(tipText), "heatmaps: timeline tooltip names the thread and the CPU " + JSON.stringify(tipText.slice(0, 60)));
	check(problems.length === 0, "heatmaps: no console message, error, dialog or request " + problems.slice(0, 3).join("; "));
	await page.close();
}

async function hostile(browser, file) {
	const { page, problems } = await open(browser, file);
	await page.click("#tab-cpu");	// a capture with a VM opens on its VMs tab
	const names = await page.evaluate(() => window.pwzData.runs[0].tasks.map((t) => t.name));
	const shown = await page.$$eval("#table-cpu td[data-col='task']", (tds) => tds.map((t) => t.textContent));
	const evil = names.filter((n) => /[<>&"'\\]/.test(n));
	check(evil.length >= 3 && evil.every((n) => shown.includes(n)), "hostile: " + evil.length + " hostile names shown verbatim as text");
	check(await page.$$eval("script", (s) => s.length) === 2, "hostile: no script element injected");
	check(await page.$$eval("img", (s) => s.length) === 0, "hostile: no img element injected");
	for (const tab of ["kvm", "coremap", "capture"]) {
		if (await page.$("#tab-" + tab))
			await page.click("#tab-" + tab);
	}
	check(problems.length === 0, "hostile: no alert, console message or error " + problems.slice(0, 3).join("; "));
	await page.close();
}

(async () => {
	const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
		args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
	try {
		await charts(browser, process.argv[2]);
		await heatmaps(browser, process.argv[3]);
		await hostile(browser, process.argv[4]);
	} finally {
		await browser.close();
	}
	finish();
})().catch((e) => {
	console.log("FAIL: " + (e && e.stack || e));
	process.exit(1);
});
