/* SPDX-License-Identifier: GPL-2.0 */
/* pwz-bpf --serve: the kernel's aggregates as counters that only grow, one page per scrape. */
#ifndef PWZ_SERVE_METRICS_H
#define PWZ_SERVE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct capture;
struct task_table;
struct pwz_meta;
struct promtext;

/*
 * Each scrape reads the kernel's totals (user/live.h live__sample(): per thread, per exit
 * reason, per CPU, with the slice running on each CPU counted up to the reading, each vCPU
 * thread's ledger up to the reading) and adds the differences since the previous scrape to
 * counters kept here, keyed by what a series names,
 * never by a thread id: per CPU, per VM, per vCPU (the VM's name and the vCPU's index), with
 * cgroup_depth > 0 per cgroup (its path cut to that many components), and, with threads > 0,
 * per thread for the busiest (then "other"). So every counter only grows, whatever threads
 * come, go or reuse a tid, and the number of series is bounded by the CPUs, the VMs and the
 * cut cgroup paths seen, and threads + 1. docs/metrics.md lists the families.
 *
 * A thread's cgroup is its process leader's cgroup v2 path as the task table keeps it
 * (task_table__cgroup()); a thread whose path is unknown counts in cgroup="unknown" (a path
 * starts with '/': no cgroup has that name). A VM's series carry the cgroup of the process it
 * was first seen in, whole, taken when the VM is first seen and never changed (no label while
 * unknown then: promtext.h leaves an empty label out).
 *
 * A vCPU thread: one whose display name (user/lib/tasknames.h task_display_vcpu()) names a
 * vCPU ("<vm>.vcpu<n>", or "CPU <n>/KVM" in a process whose name then names the VM), or that
 * had KVM exits (its vcpu label is then "tid<tid>"). Its process's other threads are the VM's
 * emulator threads.
 */
struct serve_metrics_opts {
	uint32_t threads;		/* per-thread series for this many busiest threads; 0 none */
	unsigned int cgroup_depth;	/* per-cgroup series, each thread's cgroup path cut to
					 * this many components (cgroup_path_prefix()); 0 none */
	bool (*selected)(void *ctx, uint32_t tid);	/* -p / -t (NULL every thread) */
	void *ctx;
};

struct serve_metrics;

/*
 * Metrics of cap (started, aggregates only), naming threads from tt and exits from meta (both
 * borrowed, and meta's kernel and tool_version for pwz_build_info). Takes the first reading:
 * the counters start at 0 then. NULL with errno and err filled.
 */
struct serve_metrics *serve_metrics__new(struct capture *cap, struct task_table *tt, uint64_t t0,
					 const struct pwz_meta *meta,
					 const struct serve_metrics_opts *o, char *err,
					 size_t errlen);

/*
 * Reads the aggregates now, adds what happened since the previous call, and writes the whole
 * page into pt (emptied first; promtext.h). Returns 0, -errno when the kernel's maps cannot be
 * read (the counters are then unchanged), or pt's error.
 */
int serve_metrics__scrape(struct serve_metrics *sm, struct promtext *pt);

/* NULL is a no-op. */
void serve_metrics__free(struct serve_metrics *sm);

#endif /* PWZ_SERVE_METRICS_H */
