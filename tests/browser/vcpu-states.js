// SPDX-License-Identifier: GPL-2.0
// Browser suite, the VMs tab's vCPU states (render/assets/vms.js) in headless Chromium
// (playwright-core): each vCPU's state bar as laid out against `pwz-render --list --json` of the
// same capture, the VMs' guest and halt shares, and a capture without ledger that shows neither.
// Usage: node vcpu-states.js LEDGER.html LEDGER-LIST.json NO-LEDGER.html
// Prints "ok: ..." / "FAIL: ..." lines; exits 1 if any check failed.
"use strict";
const fs = require("fs");
const { chromium } = require("playwright-core");
const { check, finish, open, noProblems } = require("./lib");

// a segment's width may differ from its state's share by this much of the bar (layout rounding)
const TOLERANCE = 0.005;
const pct = (v) => v.toFixed(2) + "%";

// What the page shows of vCPU vc's bar: its segments' states, widths in parts of the bar's
// inside, and titles; null without a bar.
function barOf(page, pid, tid) {
	return page.evaluate(([p, t]) => {
		const bar = document.querySelector(`#table-vm-${p} tr[data-tid="${t}"] .vm-ledger`);
		if (!bar)
			return null;
		const inner = bar.clientWidth;
		return [...bar.querySelectorAll(".vm-st")].map((s) => ({ state: s.dataset.state,
			part: s.getBoundingClientRect().width / inner, title: s.title }));
	}, [pid, tid]);
}

// Every segment of vc's bar against its ledger: the states in order, each width its share of
// ledger_alive_ns, each title naming the state, its share and its entries.
function checkBar(who, vc, segs) {
	const want = Object.entries(vc.states);
	let worst = 0, bad = [];
	if (!check(segs && segs.length === want.length, `${who}: a state bar of ${want.length} segments` +
		` (page: ${segs ? segs.length : "no bar"})`))
		return;
	want.forEach(([st, v], i) => {
		const share = v.ns / vc.ledger_alive_ns, s = segs[i];
		worst = Math.max(worst, Math.abs(s.part - share));
		const title = `${st}: ${(v.ns / 1e6).toFixed(3)} ms (${pct(100 * share)}), ` +
			`${v.count.toLocaleString("en-US")} entries`;
		if (s.state !== st || s.title !== title)
			bad.push(`segment ${i}: ${s.state} "${s.title}", want ${st} "${title}"`);
	});
	check(worst <= TOLERANCE, `${who}: each segment's width is its state's share of ` +
		`ledger_alive_ns ${vc.ledger_alive_ns} within ${100 * TOLERANCE}% of the bar ` +
		`(largest difference ${(100 * worst).toFixed(3)}%)`);
	check(!bad.length, `${who}: each segment's title names its state, time, share and entries` +
		(bad.length ? ` (${bad.slice(0, 2).join("; ")})` : ""));
}

async function withLedger(browser, file, list) {
	const { page, problems } = await open(browser, file);
	// layout needs the sections open (they start open for up to four VMs)
	await page.evaluate(() => document.querySelectorAll("details.vm-section").forEach((d) => {
		d.open = true;
	}));
	const vms = list.vms.filter((vm) => vm.vcpus.some((vc) => vc.states));
	check(vms.length > 1, `ledger: ${vms.length} VMs of --list have vCPU states`);
	for (const vm of vms) {
		for (const vc of vm.vcpus)
			checkBar(`ledger: VM ${vm.name} vCPU ${vc.tid}`, vc, await barOf(page, vm.pid, vc.tid));
		const legend = await page.$$eval(`details.vm-section[data-vm="${vm.name}"] .vm-states-legend`,
			(ls) => ls.map((l) => [...l.querySelectorAll(".item")].map((i) => i.dataset.state)));
		const states = Object.keys(vm.vcpus.find((vc) => vc.states).states);
		check(legend.length === 1 && legend[0].join() === states.join(),
			`ledger: VM ${vm.name}: one legend of the ${states.length} states (${JSON.stringify(legend)})`);
	}
	// the summary: guest % and halt % of each VM, its states' shares of ledger_alive_ns
	const rows = await page.$$eval("#table-vms-summary-0 tr[data-vm]", (trs) => trs.map((tr) => ({
		vm: tr.dataset.vm,
		guest: tr.querySelector("td[data-col='guest %']")?.textContent,
		halt: tr.querySelector("td[data-col='halt %']")?.textContent,
		costop: tr.querySelector("td[data-col='co-stop %']")?.textContent })));
	const bad = [];
	for (const vm of list.vms) {
		const r = rows.find((x) => x.vm === vm.name);
		const want = (st) => vm.states ? pct(100 * vm.states[st].ns / vm.ledger_alive_ns) : "–";
		const costop = vm.states ? pct(100 * vm.costop_ns / vm.ledger_alive_ns) : "–";
		if (!r || r.guest !== want("guest") || r.halt !== want("halt") || r.costop !== costop)
			bad.push(`${vm.name}: ${JSON.stringify(r)}, want ${want("guest")} ${want("halt")} ${costop}`);
	}
	check(rows.length === list.vms.length && !bad.length, `ledger: the summary's guest %, halt % and co-stop % ` +
		`of its ${rows.length} VMs are their states' shares of ledger_alive_ns` +
		(bad.length ? ` (${bad.slice(0, 2).join("; ")})` : ""));
	noProblems(problems, "ledger");
	await page.close();
}

async function withoutLedger(browser, file) {
	const { page, problems } = await open(browser, file);
	const got = await page.evaluate(() => ({
		summary: !!document.querySelector("#table-vms-summary-0 tr[data-vm]"),
		vcpus: document.querySelectorAll("table[id^='table-vm-'] tr[data-tid]").length,
		bars: document.querySelectorAll(".vm-ledger, .vm-states-legend").length,
		cols: [...document.querySelectorAll("#panel-vms th")].map((th) => th.dataset.col)
			.filter((c) => ["guest %", "halt %", "co-stop %", "states", "ready by (kernel)"].includes(c)) }));
	check(got.summary && got.vcpus > 0 && !got.bars && !got.cols.length, "no ledger: the VMs tab " +
		`shows ${got.vcpus} vCPU rows and no state bar, legend, guest %, halt % or states column ` +
		`(${got.bars} bars and legends, columns ${JSON.stringify(got.cols)})`);
	noProblems(problems, "no ledger");
	await page.close();
}

(async () => {
	const [ledgerHtml, ledgerJson, plainHtml] = process.argv.slice(2);
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
		args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
	try {
		await withLedger(browser, ledgerHtml, JSON.parse(fs.readFileSync(ledgerJson, "utf8")));
		await withoutLedger(browser, plainHtml);
	} catch (e) {
		check(false, "vcpu-states: " + e.message.split("\n")[0]);
	}
	await browser.close();
	finish();
})();
