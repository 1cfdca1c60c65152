/* SPDX-License-Identifier: GPL-2.0 */
/* `pwz-render --list`: what is inside a capture, as a table or as one JSON document. */
#ifndef PWZ_LIST_H
#define PWZ_LIST_H

#include "json.h"
#include "summary.h"

/*
 * Appends the JSON object of one capture to b:
 *   {"file", "capture": {format, source, path, host, kernel, nr_cpus, start_wall_ns,
 *    duration_ns, window_start_ns, window_end_ns, cut, drops: {name: count}, drops_total,
 *    tracer_cpu_ns, has_switch_kind, has_wait, has_kvm},
 *    "tasks": [{tid, pid, name, comm, runtime_ns, cpu_pct, switches, voluntary, involuntary,
 *    cpu_runtime_ns: [per CPU], cpu_switches: [per CPU], wait_ns, wait_count, wait_max_ns,
 *    wait_pct, migrations, exits_total, kvm_exits: [{isa, code, name, count, handling_ns}]}],
 *    "vm_figures", "vms": render/vmtab.h's array}
 * Figures a capture cannot provide are null (voluntary/involuntary and wait_* of a legacy
 * file, pid when unknown, an exit name the capture does not know). Documented in
 * docs/cdict.md; scripts depend on these names.
 */
void list_json(struct jbuf *b, const struct trace *t, const struct summary *s);

/* Appends the plain table of one capture to b: a header line, then one line per task
 * (tid, name, runtime, CPU %, switches, exits), sorted by runtime. */
void list_plain(struct jbuf *b, const struct trace *t, const struct summary *s);

#endif /* PWZ_LIST_H */
