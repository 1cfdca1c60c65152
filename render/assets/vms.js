// SPDX-License-Identifier: GPL-2.0
// pwz dashboards: the basic dashboard's VMs tab (one row per VM, worst first; per VM and vCPU:
// running, ready, sleeping; who ran while a vCPU was ready; where each exit reason's time went;
// run-queue wait percentiles; where the capture has them, each vCPU's ledger states as a bar
// and each VM's guest and halt shares). It is the first tab when the capture has a VM. dash.js
// calls window.pwzVmsTab(data, tabs, lib) with its helpers; capture strings go through
// textContent only (lib.el).
"use strict";
window.pwzVmsTab = function (data, tabs, lib) {
	const { el, table, fmtNs, fmtRange, fmtInt } = lib;
	const runs = data.runs.filter((r) => (r.vms && r.vms.length) || (r.waits && r.waits.length));
	if (!runs.length)
		return;
	const pct = (v) => v.toFixed(2) + "%";
	const opt = (f) => (v) => v === null || v === undefined ? "–" : f(v);
	const reason = (e) => e.name || ((e.isa === "svm" ? "SVM " : "VMX ") + e.code);
	const span = (r) => r.window[1] - r.window[0];

	// running / ready / sleeping as one bar, in % of the window: what is left of it is the
	// window's time the vCPU was not alive (born or ended inside it)
	function stateBar(vc, w) {
		const part = (ns, color, what) => el("span", { class: "vm-" + what,
			title: what + " " + fmtNs(ns), style: "display:inline-block;height:12px;width:" +
			(w ? 100 * ns / w : 0).toFixed(3) + "%;background:" + color });
		return el("div", { class: "vm-bar", "data-tid": vc.tid, style: "width:240px;" +
			"background:#eef1f5;white-space:nowrap;overflow:hidden" },
			part(vc.running_ns, "#54a24b", "running"), part(vc.ready_ns, "#e45756", "ready"),
			part(vc.sleep_ns, "#bab0ac", "sleeping"));
	}

	// the ledger's states (docs/dashboards.md "vCPU states"): a fixed colour each; the states
	// themselves and their order are the JSON's (render/vmtab.c)
	const stateColor = { guest: "#54a24b", exit_kernel: "#f58518", exit_user: "#eeca3b",
		halt_poll: "#9ecae9", halt: "#bab0ac", ready: "#e45756", other_on_cpu: "#b279a2",
		unseen: "#fff repeating-linear-gradient(45deg, #fff 0 3px, #c8ccd4 3px 5px)" };
	const colorOf = (st) => stateColor[st] || "#79706e";
	// a state's share of a ledger's life, in %; null without a ledger
	const stateShare = (x, st) => x.states && x.ledger_alive_ns ?
		100 * x.states[st].ns / x.ledger_alive_ns : null;

	// the ledger's states as one stacked bar, each in % of the vCPU's life (ledger_alive_ns),
	// each segment's title its state, time, share and entries
	function ledgerBar(vc) {
		const bar = el("div", { class: "vm-ledger", "data-tid": vc.tid });
		for (const [st, v] of Object.entries(vc.states)) {
			const share = stateShare(vc, st) || 0;
			bar.appendChild(el("span", { class: "vm-st", "data-state": st,
				title: st + ": " + (v.ns / 1e6).toFixed(3) + " ms (" + pct(share) + "), " +
				fmtInt(v.count) + " entries", style: "width:" + share.toFixed(4) +
				"%;background:" + colorOf(st) }));
		}
		return bar;
	}

	// a ledger's ready causes above 0, largest first, each in % of its ready time, then its
	// co-stop (docs/dashboards.md "vCPU states")
	function readyCauses(x) {
		const ready = x.states.ready.ns;
		const parts = Object.entries(x.ready_causes || {}).filter(([, ns]) => ns > 0)
			.sort((a, b) => b[1] - a[1]).map(([c, ns]) => c + " " + pct(100 * ns / ready));
		parts.push("co-stop " + pct(ready ? 100 * x.costop_ns / ready : 0));
		return parts.join(" · ");
	}

	// the legend of the state bars of vcpus (the states of the first with a ledger)
	function ledgerLegend(vcpus) {
		const lg = el("div", { class: "legend vm-states-legend" });
		for (const st of Object.keys(vcpus.find((vc) => vc.states).states))
			lg.appendChild(el("span", { class: "item", "data-state": st }, el("span", {
				class: "swatch", style: "background:" + colorOf(st) }), st));
		return lg;
	}

	// a VM's figures over its vCPUs: the worst ready p99 (as its bucket's range), migrations,
	// the thread that ran longest while one of them was ready
	function vmRollup(vm) {
		let p99 = null, migr = null;
		const by = new Map();
		for (const vc of vm.vcpus) {
			if (vc.wait_pct && (!p99 || vc.wait_pct.p99.lo_ns > p99.lo_ns))
				p99 = vc.wait_pct.p99;
			if (vc.migrations !== null && vc.migrations !== undefined)
				migr = (migr || 0) + vc.migrations;
			for (const p of vc.preempters || []) {
				const k = p.tid + " " + p.name;
				by.set(k, { name: p.name, tid: p.tid, ns: (by.has(k) ? by.get(k).ns : 0) + p.ns });
			}
		}
		const top = [...by.values()].sort((a, b) => b.ns - a.ns || a.tid - b.tid)[0] || null;
		return { p99, migr, top };
	}

	// one row per VM, worst first; a row opens its VM's section (its vCPUs and state bars)
	function drawSummary(panel, r, worst, idx) {
		const w = span(r), m = r.meta || {};
		const cols = [
			["VM", (x) => x.vm.name],
			["vCPUs", (x) => x.vm.vcpus.length, "num"],
			["ready %", (x) => x.vm.ready_pct, "num", pct],
			["ready p99", (x) => x.p99 ? x.p99.lo_ns : null, "num",
				(v, x) => v === null ? "–" : fmtRange(x.p99.lo_ns, x.p99.hi_ns)],
			["sleeping %", (x) => x.vm.alive_ns ? 100 * x.vm.sleep_ns / x.vm.alive_ns : 0, "num",
				pct],
			...(worst.some((vm) => vm.states) ? [
				["guest %", (x) => stateShare(x.vm, "guest"), "num", opt(pct)],
				["halt %", (x) => stateShare(x.vm, "halt"), "num", opt(pct)],
				["co-stop %", (x) => x.vm.states && x.vm.ledger_alive_ns ?
					100 * x.vm.costop_ns / x.vm.ledger_alive_ns : null, "num", opt(pct)],
			] : []),
			// what the kernel did not charge its vCPUs of their running time: the steal of the
			// host CPUs they ran on, and IRQ time (vms.h uncharged_ns; null: not read)
			...(worst.some((vm) => vm.uncharged_ns !== null && vm.uncharged_ns !== undefined) ? [
				["steal+IRQ %", (x) => x.vm.uncharged_ns === null || !x.vm.running_ns ? null :
					100 * x.vm.uncharged_ns / x.vm.running_ns, "num", opt(pct)],
			] : []),
			["exits/s", (x) => w ? x.vm.exits_total * 1e9 / w : 0, "num", (v) => v.toFixed(1)],
			["top exit", (x) => x.vm.exits.length ? reason(x.vm.exits[0]) + " (" +
				fmtInt(x.vm.exits[0].count) + ")" : "–"],
			["migrations", (x) => x.migr, "num", opt(fmtInt)],
			["ran most while ready", (x) => x.top ? x.top.name + " (" + x.top.tid + ") " +
				fmtNs(x.top.ns) : "–"],
		];
		const rows = worst.map((vm) => Object.assign({ vm }, vmRollup(vm)));
		const t = table("vms-summary-" + idx, cols, rows, (x) => ({ "data-vm": x.vm.name,
			class: "vm-row", title: "open VM " + x.vm.name }));
		t.addEventListener("click", (ev) => {
			const tr = ev.target.closest("tr[data-vm]");
			const sec = tr && [...panel.querySelectorAll("details.vm-section")].find((d) =>
				d.dataset.vm === tr.dataset.vm && d.dataset.run === String(idx));
			if (!sec)
				return;
			sec.open = true;
			sec.scrollIntoView({ block: "start" });
		});
		panel.appendChild(t);
		if (m.steal_ns !== null && m.steal_ns !== undefined && m.steal_cpu_time_ns)
			panel.appendChild(el("p", { class: "note vm-steal", text: "The host's steal: " +
				pct(100 * m.steal_ns / m.steal_cpu_time_ns) + " of its CPU time (" +
				fmtNs(m.steal_ns) + "), time the hypervisor ran something else on these " +
				"CPUs, which every VM here lived as running." }));
	}

	function drawVm(panel, r, vm, multi, open) {
		const w = span(r);
		const sec = el("details", { class: "vm-section", "data-vm": vm.name,
			"data-run": String(data.runs.indexOf(r)) });
		sec.open = open;
		panel.appendChild(sec);
		panel = sec;
		panel.appendChild(el("summary", {}, el("h3", { class: "vm-name", "data-vm": vm.name,
			"data-pid": vm.pid, style: "display:inline",
			text: (multi ? r.short + ": " : "") + "VM " + vm.name + " (pid " + vm.pid + ")" })));
		panel.appendChild(el("p", { class: "note", text: vm.vcpus.length + " vCPU(s), " +
			vm.other_threads + " other thread(s) (" + fmtNs(vm.other_runtime_ns) + "), " +
			fmtInt(vm.exits_total) + " exits (" + (w ? (vm.exits_total * 1e9 / w).toFixed(1) : 0) +
			"/s)" }));
		const cols = [
			["vCPU", (x) => x.name],
			["tid", (x) => x.tid, "num"],
			["index", (x) => x.vcpu === null ? -1 : x.vcpu, "num", (v) => v < 0 ? "?" : String(v)],
			["alive", (x) => x.alive_ns, "num", fmtNs],
			["running", (x) => x.running_ns, "num", fmtNs],
			// as lived, and as the kernel charged it where the two differ (vms.h)
			["ready", (x) => x.ready_ns, "num", (v, x) => fmtNs(v) +
				(x.ready_differs ? " (kernel " + fmtNs(x.ready_kernel_ns) + ")" : "")],
			["ready %", (x) => x.ready_pct, "num", pct],
			["sleeping", (x) => x.sleep_ns, "num", fmtNs],
			["migrations", (x) => x.migrations, "num", opt(fmtInt)],
			["wait p50", (x) => x.wait_pct ? x.wait_pct.p50.lo_ns : null, "num",
				(v, x) => v === null ? "–" : fmtRange(x.wait_pct.p50.lo_ns, x.wait_pct.p50.hi_ns)],
			["wait p99", (x) => x.wait_pct ? x.wait_pct.p99.lo_ns : null, "num",
				(v, x) => v === null ? "–" : fmtRange(x.wait_pct.p99.lo_ns, x.wait_pct.p99.hi_ns)],
			["ran while ready", (x) => x.preempters ? x.preempters.map((p) => p.name + " (" +
				p.tid + ") " + fmtNs(p.ns)).join(", ") : "–"],
			["exits/s", (x) => x.exits_per_s, "num", (v) => v.toFixed(1)],
		];
		const ledger = vm.vcpus.some((vc) => vc.states);
		// the bar's column sorts by the share in the guest; the causes by the co-stop
		if (ledger)
			cols.push(["states", (x) => stateShare(x, "guest"), "num",
				(v, x) => x.states ? ledgerBar(x) : "–"],
			["ready by (kernel)", (x) => x.states ? x.costop_ns : null, "num",
				(v, x) => x.states ? readyCauses(x) : "–"]);
		panel.appendChild(table("vm-" + vm.pid, cols, vm.vcpus, (x) => ({ "data-tid": x.tid })));
		if (ledger)
			panel.appendChild(ledgerLegend(vm.vcpus));
		const bars = el("div", { class: "vm-bars" });
		for (const vc of vm.vcpus)
			bars.appendChild(el("div", { style: "display:flex;gap:8px;align-items:center" },
				el("span", { style: "width:200px", text: vc.name }), stateBar(vc, w),
				el("span", { class: "note", text: "ready " + pct(vc.ready_pct) })));
		panel.appendChild(bars);
		if (!vm.exits.length)
			return;
		const ecols = [
			["exit reason", reason],
			["count", (e) => e.count, "num", fmtInt],
			["exits/s", (e) => e.per_s, "num", (v) => v.toFixed(1)],
			["total", (e) => e.total_ns, "num", opt(fmtNs)],
			["on-CPU", (e) => e.on_cpu_ns, "num", opt(fmtNs)],
			["off-CPU ready", (e) => e.off_ready_ns, "num", opt(fmtNs)],
			["off-CPU sleeping", (e) => e.off_sleep_ns, "num", opt(fmtNs)],
			["p50", (e) => e.p50_ns, "num", opt(fmtNs)],
			["p90", (e) => e.p90_ns, "num", opt(fmtNs)],
			["p99", (e) => e.p99_ns, "num", opt(fmtNs)],
			["max", (e) => e.max_ns, "num", opt(fmtNs)],
		];
		panel.appendChild(table("vm-exits-" + vm.pid, ecols, vm.exits, (e) => ({
			"data-reason": reason(e) })));
	}

	function draw(panel) {
		const multi = data.runs.length > 1;
		panel.appendChild(el("p", { class: "note", text: "Per VM (a process whose threads " +
			"enter KVM) and vCPU over the window: running, ready (runnable on the host's run " +
			"queue: CPU ready) and sleeping; who ran on the CPU while a vCPU was ready; where " +
			"each exit reason's time went (on-CPU, or off-CPU ready or sleeping)." }));
		for (const r of runs) {
			if (r.vm_figures && r.vm_figures.from !== "streams")
				panel.appendChild(el("p", { class: "warn vm-nostreams", text: "Migrations, " +
					"who ran, the exits' split and the percentiles need the recorded streams." }));
			else if (r.vm_figures && r.vm_figures.records_dropped)
				panel.appendChild(el("p", { class: "warn vm-dropped", text: "The capture " +
					"dropped records: the percentiles and the exits' split are from the " +
					"recorded streams and miss them." }));
			// worst first: ready time in % of the vCPUs' lives (vms.h vms__worst_first()),
			// ties in name order
			const worst = (r.vms || []).map((vm, i) => [vm, i]).sort((a, b) =>
				b[0].ready_pct - a[0].ready_pct || a[1] - b[1]).map(([vm]) => vm);
			if (worst.length) {
				panel.appendChild(el("h3", { text: (multi ? r.short + ": " : "") +
					"VMs, worst ready first" }));
				drawSummary(panel, r, worst, data.runs.indexOf(r));
			}
			// every section open for a few VMs; a row of the summary opens one of many
			for (const vm of worst)
				drawVm(panel, r, vm, multi, worst.length <= 4);
			if (!r.waits || !r.waits.length)
				continue;
			panel.appendChild(el("h3", { text: (multi ? r.short + ": " : "") +
				"Run-queue wait percentiles per task" }));
			// each percentile as the range of its histogram bucket (render/vmtab.c), sorted
			// by the bucket's bottom
			const q = (i) => [(x) => x[i][0], "num", (v, x) => fmtRange(x[i][0], x[i][1])];
			const wcols = [
				["task", (x) => x[1]],
				["tid", (x) => x[0], "num"],
				["waits", (x) => x[2], "num", fmtInt],
				["p50", ...q(3)],
				["p90", ...q(4)],
				["p99", ...q(5)],
				["p99.9", ...q(6)],
				["max", (x) => x[7], "num", fmtNs],
			];
			panel.appendChild(table("waits-" + data.runs.indexOf(r), wcols, r.waits,
				(x) => ({ "data-tid": x[0] })));
		}
	}
	// first when there is a VM: the question a VM host's engineer asks first
	if (runs.some((r) => r.vms && r.vms.length))
		tabs.unshift({ id: "vms", title: "VMs", draw });
	else
		tabs.push({ id: "vms", title: "VMs", draw });
};
