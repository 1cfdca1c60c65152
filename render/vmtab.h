/* SPDX-License-Identifier: GPL-2.0 */
/* The VMs' figures (user/lib/vms.h) as JSON, for --list --json and the basic dashboard's VMs tab. */
#ifndef PWZ_VMTAB_H
#define PWZ_VMTAB_H

#include "json.h"
#include "vms.h"

/*
 * Appends the JSON array of v's VMs:
 *   [{name, pid, cgroup ("" unknown), other_threads, other_runtime_ns, alive_ns, running_ns, ready_ns, ready_pct,
 *     sleep_ns, uncharged_ns, [LEDGER], exits_total, exits: [EXIT], vcpus: [{tid, vcpu (null unknown), name,
 *     alive_ns, running_ns, ready_ns, ready_pct, ready_kernel_ns, ready_differs, sleep_ns,
 *     unseen_ns, uncharged_ns, [LEDGER], waits, migrations, wait_pct,
 *     preempters: [{tid, name, ns}], exits_total, exits_per_s, exits: [EXIT]}]}]
 *   EXIT = {isa, code, name, count, per_s, paired, total_ns, on_cpu_ns, off_sleep_ns,
 *     off_ready_ns, p50_ns, p90_ns, p99_ns, max_ns}
 *   LEDGER = ledger_alive_ns, states: {guest: {ns, count}, ... unseen: {ns, count}}: the
 *     vCPU's ledger (a VM's: their sum; vms.h), keyed by pwz_vcpu_state_name() in enum order;
 *     the two members are there only with a ledger (has_ledger).
 * The stream figures (migrations, preempters, paired and the split, the percentiles) are null
 * when v has no streams. Percentages and rates are of the window.
 */
void vms_json_array(struct jbuf *b, const struct vms *v);

/* Appends one task's wait percentiles {count, p50, p90, p99, p999: {lo_ns, hi_ns} (the
 * bucket's range), p50_ns, p90_ns, p99_ns, p999_ns (its middle), max_ns}, or null when p is
 * NULL. */
void vms_wait_json(struct jbuf *b, const struct vms_wait_pct *p);

/* Appends {"from": "streams" | null, "records_dropped": bool}: where v's percentiles and other
 * stream figures come from (null: the capture's streams were not loaded). */
void vms_figures_json(struct jbuf *b, const struct vms *v);

/*
 * The basic dashboard's VM data of one run, appended as the members
 *   "vms": vms_json_array(), "vm_figures": ..., "waits": [[tid, name, count, [lo, hi] of
 *   each of p50, p90, p99, p999 (pwz_whist_quantile()'s range), max], ...],
 * (each followed by a comma) for the tasks of s (the rows of a selection, tasksel_keep_rows():
 * the VMs of its threads). Returns 0 or -ENOMEM.
 */
int vms_dash_json(struct jbuf *b, const struct trace *t, const struct summary *s);

#endif /* PWZ_VMTAB_H */
