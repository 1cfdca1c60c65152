/* SPDX-License-Identifier: GPL-2.0 */
/* `pwz-render --list`: what is inside a capture, as a table or as one JSON document. */
#ifndef PWZ_LIST_H
#define PWZ_LIST_H

#include "json.h"
#include "summary.h"

struct tasksel;

/*
 * Appends the JSON object of one capture to b:
 *   {"file", "capture": {format, source, path, host, kernel, nr_cpus, start_wall_ns,
 *    duration_ns, window_start_ns, window_end_ns, cut, drops: {name: count}, drops_total,
 *    tracer_cpu_ns, has_switch_kind, has_wait, has_kvm},
 *    "tasks": [{tid, pid, name, comm, runtime_ns, cpu_pct, switches, voluntary, involuntary,
 *    cpus: [{cpu, runtime_ns, switches}] (the CPUs it ran on), wait_ns, wait_count,
 *    wait_max_ns, wait_p50, wait_p90, wait_p99, wait_pct, migrations, exits_total,
 *    kvm_exits: [{isa, code, name, count, handling_ns}]}],
 *    "vm_figures", "vms": render/vmtab.h's array}
 * wait_p50/p90/p99 are {lo_ns, hi_ns}: the closed range of the wait histogram's bucket
 * (bpf/whist.h) that holds the percentile, its top cut to wait_max_ns; they come with the
 * aggregates (or the window's fold), so every capture with waits has them, exact under drops.
 * wait_pct (render/vmtab.h) reads them (and p99.9) from the streams, when they are loaded, in
 * the same bucket layout, so that its ranges and these compare bucket for bucket.
 * Figures a capture cannot provide are null (voluntary/involuntary and wait_* of a legacy
 * file, pid when unknown, an exit name the capture does not know, wait_p* of a file written
 * before the histogram or of a task whose histogram holds fewer waits than wait_count: the
 * kernel's hist_miss, summary_wait_range()). Documented in
 * docs/cdict.md; scripts depend on these names.
 * The tasks are the rows of s (with -t, those of the selection: tasksel_keep_rows()); sel
 * (NULL: every thread) selects the IRQ section's thread rows (render/irqtab.h).
 */
void list_json(struct jbuf *b, const struct trace *t, const struct summary *s,
	       const struct tasksel *sel);

/* Appends the plain table of one capture to b: a header line (the capture's length, and the
 * window's start and length when it is not the whole capture), then one line per task (tid,
 * name, runtime, CPU %, switches, exits, the range of the wait p99's bucket: "-" no wait,
 * "n/a" no histogram or a short one), sorted by runtime; rows and sel as list_json(). Then,
 * as "# " lines, the VMs worst first (vms__worst_first()), the threads whose two ready
 * figures differ, and the --irq section. Durations as user/lib/fmt.h writes them. */
void list_plain(struct jbuf *b, const struct trace *t, const struct summary *s,
		const struct tasksel *sel);

#endif /* PWZ_LIST_H */
