// SPDX-License-Identifier: GPL-2.0
// Browser suite: what the node scripts (interact.js, scale.js, firefox.js) share: the ok/FAIL
// reporter the suite's runner reads, and opening a page as a person would (1400 x 1000) with
// everything that would show a problem recorded (console messages, page errors, dialogs,
// requests for anything but the page itself). Works with a playwright-core or a puppeteer-core browser.
"use strict";

let failed = 0;

// Prints "ok: what" or "FAIL: what" (one line, read by tests/browser/run); returns cond.
function check(cond, what) {
	console.log((cond ? "ok: " : "FAIL: ") + what);
	if (!cond)
		failed++;
	return cond;
}

// Exits with 1 if any check failed, else 0.
function finish() {
	process.exit(failed ? 1 : 0);
}

// Opens file (an absolute path; opts.hash: "#all", "#tab=..." or "") in a new page and waits
// for the dashboard to settle (body[data-state]). Returns { page, problems }.
async function open(browser, file, opts = {}) {
	const viewport = { width: 1400, height: 1000 };
	const playwright = typeof browser.newContext === "function";
	const page = playwright ? await browser.newPage({ viewport }) : await browser.newPage();
	const problems = [];
	page.on("console", (m) => problems.push("console " + m.type() + ": " + m.text()));
	page.on("pageerror", (e) => problems.push("page error: " + e.message));
	page.on("dialog", (d) => { problems.push("dialog: " + d.message()); d.dismiss().catch(() => {}); });
	// file: (the page) and data: (inline: Firefox loads its own fonts so) fetch nothing
	page.on("request", (r) => {
		if (!/^(file|data):/.test(r.url()))
			problems.push("request " + r.url().slice(0, 120));
	});
	if (!playwright)
		await page.setViewport(viewport);
	await page.goto("file://" + file + (opts.hash || ""));
	await page.waitForSelector("body[data-state]", { timeout: opts.timeout || 120000 });
	return { page, problems };
}

// A check that nothing in problems (from open()) happened.
function noProblems(problems, who) {
	return check(problems.length === 0, who + ": no console message, error, dialog or request" +
		(problems.length ? " (" + problems.slice(0, 3).join("; ") + ")" : ""));
}

module.exports = { check, finish, open, noProblems };
