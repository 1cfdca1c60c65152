/* SPDX-License-Identifier: GPL-2.0 */
/* The --stats report: a capture's summary (user/lib/summary.h) as a text table. */
#ifndef PWZ_REPORT_H
#define PWZ_REPORT_H

#include <stdio.h>
#include "summary.h"

/*
 * Writes the report of s (a capture with metadata m) to f: a header (host, kernel, CPUs,
 * length, dropped records), one line per row of s in its order (runtime, % of one CPU,
 * switches, voluntary, involuntary, waits, average and longest wait, the time of slices whose
 * switch-in was unseen, model.h R2, and the wait p50 and p99 as the ranges of their histogram
 * buckets), the threads whose two ready figures differ (report_ready_lines(), all of them),
 * each CPU's account of the window (threads, unseen, unaccounted), then the KVM
 * exits per task by count (share, total and average handling time, median and p99 as the log2
 * buckets that hold them). Durations as user/lib/fmt.h writes them; strings from the capture
 * go through termsafe(). Returns 0, -ENOMEM, or -EIO when f reports a write error.
 */
int report_write_stats(FILE *f, const struct summary *s, const struct pwz_meta *m);

/*
 * The comparison of ready time as lived and as the kernel charged it (model.h R9: run_delay,
 * what schedstat, libvirt and KubeVirt report) that the text views print after their task
 * table (--stats, pwz-render --list): a title line (prefix before it), the columns TID, NAME,
 * READY (wait_ns), KERNEL (run_delay_ns) and DIFF% (the same waits on the two clocks:
 * run_delay_ns - run_delay_unmeasured_ns against run_delay_wait_ns), one row per thread of s
 * for which summary_ready_differs(), the first max (0: all) in s's order, then how many more
 * (prefix before it). Each line, '\n' included, goes to put(ctx, line). Nothing when no
 * thread differs or s has no charge. Names go through termsafe(). Never fails.
 */
void report_ready_lines(const struct summary *s, size_t max, const char *prefix,
			void (*put)(void *ctx, const char *line), void *ctx);

struct vms;

/*
 * Writes the VM section of a report to f (after report_write_stats()): the host's steal time
 * over the capture when the metadata has it; per VM and per vCPU, running, ready (run-queue
 * wait, "CPU ready") and sleeping as times and % of the window, migrations and the top threads
 * that ran while the vCPU was ready; per VM and reason, exits, exits/s, handling total and its
 * on-CPU / off-CPU-ready / off-CPU-sleeping split with p50/p90/p99/max (exact); then the
 * vCPU state table (report_vcpu_state_lines(), where the VMs have ledgers), then the
 * run-queue wait percentiles (p50, p90, p99, p99.9: the ranges of their buckets; max) of every
 * task of s with waits. The figures of
 * the streams say so when v has none, and that they miss dropped records when the capture
 * dropped some. Returns 0 or -EIO on a write error.
 */
int report_write_vms(FILE *f, const struct summary *s, const struct pwz_meta *m,
		     const struct vms *v);

struct vms_vm;

/*
 * The vCPU state table of the text views (--stats after the VMs, pwz-render --list after its
 * VM lines): for each of the n VMs of vms in their order that has a ledger (vms.h has_ledger),
 * a row of the VM (its name and pid; its ledger, the sum of its vCPUs') and one per vCPU with
 * a ledger (name and tid, indented): LIFE (the ledger's alive_ns) and the share of it of each
 * state (enum pwz_vcpu_state, in its order), in %, under a title line and a header (prefix
 * before each line; at most 100 columns with a prefix of 2 and names of 20). Each line, '\n'
 * included, goes to put(ctx, line). Nothing when no VM has a ledger. Names go through
 * termsafe(). Never fails.
 */
void report_vcpu_state_lines(const struct vms_vm *const *vms, size_t n, const char *prefix,
			     void (*put)(void *ctx, const char *line), void *ctx);

struct trace;

/*
 * The --stats section of t's interrupts (after report_write_stats()): nothing when the capture
 * was made without --irq, else per CPU and vector the count, total, average and longest, each
 * CPU's total and share of the capture, and the threads that lost the most time to them
 * (at most top, 0 = 20). Names from the capture go through termsafe(). Returns 0 or -EIO /
 * -ENOMEM.
 */
int report_write_irq(FILE *f, const struct trace *t, size_t top);

#endif /* PWZ_REPORT_H */
