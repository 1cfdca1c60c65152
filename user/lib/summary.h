/* SPDX-License-Identifier: GPL-2.0 */
/* Per-task figures of a capture over a time window: what --list and the dashboards show. */
#ifndef PWZ_SUMMARY_H
#define PWZ_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "exitroll.h"
#include "trace.h"

/* A task's figures on one CPU it ran on (or switched out of). */
struct summary_task_cpu {
	uint32_t cpu;
	uint64_t runtime_ns;
	uint64_t switches;
};

/* One thread instance (model.h R8: a recycled tid is another row), or one merged name. */
struct task_summary {
	uint32_t tid;
	uint64_t since_ns;			/* birth of the instance in the capture; 0: there at
						 * the start (or unknown) */
	uint32_t pid;				/* tgid; 0 unknown */
	char name[PWZ_NAME_MAX];		/* display name (after --map, merge, append-tid) */
	char comm[PWZ_COMM_LEN];
	uint64_t runtime_ns;			/* in the window */
	uint64_t switches;			/* switch-outs in the window */
	uint64_t voluntary;			/* meaningful only with has_switch_kind */
	uint64_t involuntary;
	uint64_t unseen;			/* switch-outs whose switch-in was unseen (model.h R2) */
	uint64_t unseen_ns;			/* their slices' time: not in runtime_ns, may be partly
						 * another thread's */
	uint64_t charged_ns;			/* the kernel's charge (se.sum_exec_runtime) of
						 * the slices whose charge is known; only with
						 * has_charged */
	uint64_t charged_run_ns;		/* runtime_ns of those slices: charged_run_ns -
						 * charged_ns is what the kernel did not charge
						 * (steal, IRQ time) */
	struct summary_task_cpu *cpus;		/* the CPUs it ran on, sorted by cpu, each once:
						 * sparse, so that a file of many tasks and a high
						 * CPU number costs its records, not tasks x CPUs */
	size_t nr_cpus;
	size_t cpus_cap;			/* entries allocated */
	uint64_t wait_ns;			/* run-queue wait; meaningful only with has_wait */
	uint64_t wait_count;
	uint64_t wait_max_ns;
	uint64_t wait_hist[PWZ_WHIST_BUCKETS];	/* the waits by bucket (bpf/whist.h); all 0: the
						 * file has no histogram (summary_wait_range()) */
	uint64_t run_delay_ns;			/* the kernel's charge of the waits whose charge
						 * is known (sched_info.run_delay, model.h R9);
						 * only with has_run_delay */
	uint64_t run_delay_wait_ns;		/* wait_ns of the measured waits among them */
	uint64_t run_delay_unmeasured_ns;	/* the charge of the others (model.h R9) */
	struct exitroll exits;			/* its exits by reason (plain entries, each with
						 * its name from the capture's table and its
						 * histogram), sorted by (isa, code) */
	uint64_t exits_total;
};

struct summary_opts {
	uint64_t from_ns;		/* window start from capture start (-f) */
	uint64_t cap_ns;		/* window end; 0 = capture end (-c) */
	bool merge_sys;			/* swapper/3 -> swapper, merged into one row */
	bool append_tid;		/* name:tid */
};

/* One CPU's account of the window: its threads' runtime, unseen time and the remainder. */
struct summary_cpu {
	uint64_t tasks_ns;		/* runtime of every thread on it, the idle task included */
	uint64_t unseen_ns;		/* time in slices whose switch-in was unseen (R2) */
	uint64_t unaccounted_ns;	/* window minus both: in no slice (dropped records of a
					 * windowed view, a cut file); meaningful only if complete */
	bool complete;			/* every thread was captured (the idle task is there, on
					 * some CPU), so the three add up to the window */
};

struct summary {
	uint32_t nr_cpus;
	uint64_t window_start_ns;
	uint64_t window_end_ns;
	bool has_switch_kind;
	bool has_wait;
	bool has_charged;		/* charged_ns known: a live capture's whole-capture
					 * aggregates (not a window, import or legacy file) */
	bool has_run_delay;		/* run_delay_ns known: likewise, where the kernel has
					 * sched_info (META has_run_delay) */
	bool whole_capture;		/* the window is the whole capture (no -f, no -c before
					 * its end): whole-capture figures (the vCPU ledgers) hold */
	bool from_aggregates;		/* the file's aggregates (whole capture; exact under drops
					 * for live captures) vs. folded from the streams */
	bool saturated;			/* a task's figure is a sum held at PWZ_SATURATED (the
					 * file's values add past 2^64 - 1: records.h) */
	struct summary_cpu *cpus;	/* nr_cpus entries */
	struct task_summary *tasks;	/* sorted by runtime, largest first */
	size_t nr_tasks;
};

/*
 * Computes the summary of t over the window in opts (NULL = whole capture). The whole
 * capture uses the file's aggregates; a narrower window needs the streams (trace loaded with
 * streams = true) and clips slices to it. Returns NULL with errno set and err filled
 * (e.g. a window outside the capture).
 */
struct summary *summary__new(const struct trace *t, const struct summary_opts *opts, char *err,
			     size_t errlen);

/* NULL is a no-op. */
void summary__free(struct summary *s);

/* Keeps the rows of s that keep(row, ctx) accepts, in their order, and frees the others (the
 * per-CPU figures stay those of every thread). */
void summary_keep(struct summary *s, bool (*keep)(const struct task_summary *ts, void *ctx),
		  void *ctx);

/* The figures of ts on cpu (binary search), NULL if it never ran there. */
const struct summary_task_cpu *summary_task_cpu(const struct task_summary *ts, uint32_t cpu);

/* Of ts's runtime, the part the kernel did not charge it (steal, IRQ time): charged_run_ns -
 * charged_ns, 0 when the charge came out higher (clock granularity). Meaningful only with
 * has_charged. */
uint64_t summary_uncharged_ns(const struct task_summary *ts);

/*
 * The q-quantile (0 < q <= 1) of ts's run-queue waits as the closed range [*lo, *hi] ns of
 * the histogram bucket that holds it, cut to wait_max_ns (pwz_whist_quantile()). false, with
 * *lo = *hi = 0, when ts has no wait histogram (no waits, or a file written before it) or
 * one that holds fewer waits than wait_count (the kernel could not make a thread's histogram
 * entry: "hist_miss" in the file's drops), whose percentiles would be those of the rest.
 */
bool summary_wait_range(const struct task_summary *ts, double q, uint64_t *lo, uint64_t *hi);

/*
 * Whether ts's ready time as lived (wait_ns: wakeup or preemption to switch-in, model.h R4)
 * and as the kernel charged it (run_delay_ns, R9) differ by more than a bucket of the views:
 * the same waits (the measured ones whose charge is known: run_delay_wait_ns against
 * run_delay_ns - run_delay_unmeasured_ns) more than SUMMARY_READY_BUCKET_PCT % apart, one in
 * a hundred, finer than any figure the views round to. The views then show both. False
 * without the charge (has_run_delay false).
 */
#define SUMMARY_READY_BUCKET_PCT 1.0
bool summary_ready_differs(const struct summary *s, const struct task_summary *ts);

/* The rule of summary_ready_differs() on the figures of some waits (a thread's, an
 * interval's): lived_ns, the wall time of the measured ones (run_delay_wait_ns), against the
 * kernel's charge of them, charge_ns less unmeasured_ns (run_delay_ns less
 * run_delay_unmeasured_ns): more than SUMMARY_READY_BUCKET_PCT % of the larger apart. False
 * when both are 0. */
bool summary_ready_figures_differ(uint64_t lived_ns, uint64_t charge_ns, uint64_t unmeasured_ns);

/* CPU use of a task in % of one core over the window. */
double summary_cpu_pct(const struct summary *s, const struct task_summary *ts);

#endif /* PWZ_SUMMARY_H */
