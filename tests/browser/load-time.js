// SPDX-License-Identifier: GPL-2.0
// Prints how long a dashboard takes to be ready in headless Chromium, by the wall clock.
// Usage: node load-time.js PAGE.html [HASH]: one line "ready N ms (first tab)" per run, three
// runs in fresh pages; the time runs from navigation to body[data-state] being set.
"use strict";
const { chromium } = require("playwright-core");

(async () => {
	const [file, hash] = process.argv.slice(2);
	const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
		args: ["--no-sandbox", "--disable-gpu"] });
	const times = [];
	let state = "?";
	for (let i = 0; i < 3; i++) {
		const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
		const t0 = Date.now();
		await page.goto("file://" + file + (hash ? "#" + hash : ""), { waitUntil: "commit", timeout: 120000 });
		await page.waitForSelector("body[data-state]", { timeout: 120000 });
		times.push(Date.now() - t0);
		state = await page.$eval("body", (b) => b.dataset.state);
		await page.close();
	}
	await browser.close();
	times.sort((a, b) => a - b);
	console.log(state + " in " + times[1] + " ms [" + times[0] + ".." + times[2] + "] by the wall clock (median of 3)");
})().catch((e) => { console.log("load-time: " + e.message.split("\n")[0]); process.exit(1); });
