/* SPDX-License-Identifier: GPL-2.0 */
/* pwz-bpf --live: per-interval figures from the kernel aggregates, shown by user/live_screen.h. */
#ifndef PWZ_LIVE_H
#define PWZ_LIVE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "records.h"

struct capture;
struct task_table;

/* One thread over one interval: differences of the kernel's totals (bpf/pwz.h cpu_aggs, with
 * the slice running at each end counted up to then) between the interval's two readings. */
struct live_task {
	uint32_t tid;
	uint32_t tgid;			/* 0 unknown */
	char name[PWZ_NAME_MAX];	/* display name (task table), raw bytes: print via termsafe */
	uint64_t run_ns;		/* CPU time in the interval, all CPUs */
	uint64_t switches;		/* switch-outs */
	uint64_t voluntary;		/* of which slept or exited */
	uint64_t involuntary;		/* of which preempted */
	uint64_t waits;			/* run-queue waits that ended in the interval */
	uint64_t wait_ns;		/* their total */
	uint64_t wait_max_ns;		/* the longest wait since the start (a reading's) */
	uint32_t wait_hist[PWZ_WHIST_BUCKETS];	/* the waits by bucket (bpf/whist.h), as the
					 * kernel counts them: a reading's totals, a frame's
					 * differences (modulo 2^32, as the kernel's counters wrap) */
	bool has_wait_p99;		/* a frame's: the interval's waits had a histogram that
					 * the kernel did not miss entries of (CNT_HIST_MISS) */
	uint64_t wait_p99_lo_ns;	/* then the bucket [lo, hi] holding their p99 (hi cut to
					 * wait_max_ns: the interval's longest is no longer) */
	uint64_t wait_p99_hi_ns;
	uint64_t exits;			/* KVM exits */
};

/* The index of tid in tasks[0 .. n) (sorted by tid), with *found, or where it would go. */
size_t live_task_find(const struct live_task *tasks, size_t n, uint32_t tid, bool *found);

/* One (vCPU thread, exit reason) over one interval. */
struct live_exit {
	uint32_t tid;
	uint32_t isa;			/* enum pwz_isa */
	uint32_t reason;
	uint64_t count;			/* exits in the interval */
	uint64_t handling_ns;		/* their handling time (paired exits) */
};

/* What one interval shows. */
struct live_frame {
	uint64_t seq;			/* 1, 2, ...: the interval's number */
	uint64_t t_ns;			/* its end, ns from the start of the view */
	uint64_t wall_ns;		/* its end, CLOCK_REALTIME */
	uint64_t dt_ns;			/* its length */
	int nr_cpus;
	uint64_t idle_ns;		/* the idle task's time (tid 0), all CPUs */
	uint64_t switches;		/* every switch seen (CNT_SWITCHES) */
	uint64_t drops;			/* records or map entries refused (map_full, task,
					 * hist_miss) */
	uint64_t bpf_ns;		/* time in the BPF programs (0: stats off) */
	struct live_task *tasks;	/* threads active in the interval (idle excluded), by tid */
	size_t nr_tasks;
	struct live_exit *exits;	/* by (tid, isa, reason) */
	size_t nr_exits;
};

struct live;

/* A reader of cap's aggregates (started, streams off) that names threads from tt (borrowed).
 * selected (NULL: every thread) says which threads -p / -t chose: the slice running on a CPU
 * at a reading is counted only for them (the kernel's aggregates hold only them already).
 * Takes the first reading now. NULL with errno and err filled. */
struct live *live__new(struct capture *cap, struct task_table *tt, uint64_t t0,
		       bool (*selected)(void *ctx, uint32_t tid), void *ctx, char *err, size_t errlen);

/* Reads the kernel's totals now and fills *f (owned by l, valid until the next call) with the
 * differences since the previous reading. Returns 0 or -errno. */
int live__sample(struct live *l, struct live_frame **f);

/* NULL is a no-op. */
void live__free(struct live *l);

/* The options of the loop below. */
struct live_opts {
	double interval_s;		/* sampling period */
	uint64_t count;			/* intervals, then return; 0 until quit or a signal */
	bool batch;			/* text blocks on out instead of the screen */
	bool json;			/* JSON lines on out */
	bool kvm_view;			/* start in the KVM view */
	bool (*selected)(void *ctx, uint32_t tid);	/* -p / -t, as for live__new() */
	void *ctx;
};

struct pwz_meta;

/* The live view's loop: samples every interval, shows each frame (user/live_screen.h) until
 * count intervals, the q key or *stop (set by a signal handler). Drains cap's task records
 * meanwhile (capture__poll()). meta names the KVM exits. Returns 0 or -errno with err. */
int live_run(struct capture *cap, struct task_table *tt, uint64_t t0, const struct pwz_meta *meta,
	     const struct live_opts *o, volatile sig_atomic_t *stop, char *err, size_t errlen);

#endif /* PWZ_LIVE_H */
