// SPDX-License-Identifier: GPL-2.0
// pwz dashboards: the basic dashboard's VMs tab (per VM and vCPU: running, ready, sleeping; who
// ran while a vCPU was ready; where each exit reason's time went; run-queue wait percentiles).
// dash.js calls window.pwzVmsTab(data, tabs, lib) with its helpers; capture strings go through
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

	function drawVm(panel, r, vm, multi) {
		const w = span(r);
		panel.appendChild(el("h3", { class: "vm-name", "data-vm": vm.name, "data-pid": vm.pid,
			text: (multi ? r.short + ": " : "") + "VM " + vm.name + " (pid " + vm.pid + ")" }));
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
		panel.appendChild(table("vm-" + vm.pid, cols, vm.vcpus, (x) => ({ "data-tid": x.tid })));
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
			for (const vm of worst)
				drawVm(panel, r, vm, multi);
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
	tabs.push({ id: "vms", title: "VMs", draw });
};
