// SPDX-License-Identifier: GPL-2.0
// Browser suite, Firefox part: each page opened in Firefox ESR (WebDriver BiDi) and in Chromium
// (both through puppeteer-core) must load from file:// with no console message, no request,
// every tab drawn, and show the same table cells and legend counts in both browsers (the
// Chromium side is held against `pwz-render --list --json` by check.py).
// Usage: FIREFOX_PATH=... CHROMIUM_PATH=... node firefox.js PAGE.html...
// Prints "ok: ..." / "FAIL: ..." lines; exits 1 if any check failed.
"use strict";
const puppeteer = require("puppeteer-core");
const path = require("path");
const { check, finish, open } = require("./lib");

// What a person sees that the tests can compare: table cells, legend counts, drawn tabs.
async function look(browser, file) {
	const { page, problems } = await open(browser, file, { hash: "#all", timeout: 60000 });
	const seen = await page.evaluate(() => ({
		state: document.body.dataset.state,
		errors: +(document.body.dataset.errors || 0),
		tabs: document.querySelectorAll("[id^='panel-']").length,
		drawn: document.querySelectorAll("[id^='panel-'][data-drawn='1']").length,
		cells: [...document.querySelectorAll("td[data-v]")].map((t) => t.dataset.v),
		legend: [...document.querySelectorAll("[data-count]")].map((e) => e.dataset.count),
		text: document.body.innerText.length,
	}));
	await page.close();
	return { seen, problems };
}

(async () => {
	const ff = await puppeteer.launch({ browser: "firefox", executablePath: process.env.FIREFOX_PATH,
					    headless: true, protocol: "webDriverBiDi" });
	const cr = await puppeteer.launch({ executablePath: process.env.CHROMIUM_PATH, headless: true,
					    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
						   "--disable-component-update", "--disable-sync", "--no-first-run"] });
	for (const file of process.argv.slice(2)) {
		const name = path.basename(file);
		const f = await look(ff, file), c = await look(cr, file);
		check(f.seen.state === "ready" && f.seen.errors === 0, `firefox: ${name} ready, no error in the page (${f.seen.state})`);
		check(f.problems.length === 0, `firefox: ${name} no console message, dialog or request` +
		      (f.problems.length ? " (" + f.problems.slice(0, 3).join("; ") + ")" : ""));
		check(f.seen.tabs > 0 && f.seen.drawn === f.seen.tabs, `firefox: ${name} every tab drawn (${f.seen.drawn}/${f.seen.tabs})`);
		check(f.seen.cells.length + f.seen.legend.length > 0 && JSON.stringify(f.seen.cells) === JSON.stringify(c.seen.cells) &&
		      JSON.stringify(f.seen.legend) === JSON.stringify(c.seen.legend),
		      `firefox: ${name} shows the same ${f.seen.cells.length} cells and ${f.seen.legend.length} legend counts as Chromium`);
	}
	await ff.close();
	await cr.close();
	finish();
})().catch((e) => { console.log("FAIL: firefox run: " + e.message); process.exit(1); });
