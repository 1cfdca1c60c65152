/* SPDX-License-Identifier: GPL-2.0 */
/* A whole capture in memory: what pwz-render works on, loaded from any cdict. */
#ifndef PWZ_TRACE_H
#define PWZ_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include "cdict.h"

struct task_map;
struct trace_loader;

struct trace_load_opts {
	bool streams;			/* keep slices, wakeups and exits (false: metadata, tasks
					 * and aggregates only, as --list needs) */
	bool streams_if_meta;		/* with streams false: keep them still when the capture's
					 * META, delivered before any record, says it has KVM exits
					 * or slices' prev_state (has_kvm, has_prev_state), so that
					 * one reading serves the views that need them then */
	const struct task_map *map;	/* renames tasks by tid after loading; may be NULL */
};

/* A thread's death: the end of its slice that switched out in state X or Z (model.h R8). */
struct trace_end {
	uint32_t tid;
	uint64_t end_ns;
};

/*
 * Arrays are owned by the trace. tasks holds the last naming of every thread instance
 * (model.h R8: a recycled tid is another thread), sorted by (tid, since_ns).
 */
struct trace {
	char *path;				/* the file loaded */
	struct pwz_meta meta;
	struct cdict_read_info info;
	struct pwz_task *tasks;
	size_t nr_tasks;
	bool streams;				/* slices, wakeups and exits were kept */
	struct pwz_slice *slices;		/* in file order */
	size_t nr_slices;
	struct pwz_wakeup *wakeups;
	size_t nr_wakeups;
	struct pwz_kvm_exit *exits;
	size_t nr_exits;
	struct pwz_cpu_agg *cpu_aggs;		/* one per (tid, since, cpu), summed */
	size_t nr_cpu_aggs;
	struct pwz_kvm_agg *kvm_aggs;		/* one per (tid, since, isa, reason), summed */
	size_t nr_kvm_aggs;
	struct pwz_wait_agg *wait_aggs;		/* one per (tid, since), summed (max: largest) */
	size_t nr_wait_aggs;
	struct pwz_irq_agg *irq_aggs;		/* --irq: one per (cpu, kind, vector, tid, since),
						 * summed, in pwz_irq_merge()'s order (irq.h) */
	size_t nr_irq_aggs;
	struct pwz_vcpu_ledger *vcpu_ledgers;	/* one per vCPU thread instance (model.h R10),
						 * summed per (tid, since), sorted by them */
	size_t nr_vcpu_ledgers;
	struct trace_end *ends;			/* the threads that died: kept with or without the
						 * streams, sorted by (tid, end_ns) */
	size_t nr_ends;
	struct trace_loader *loading;			/* while trace__new() fills it; NULL after settling */
};

/* Loads path (v2 or legacy; resolved with cdict_resolve_path()). NULL with errno set and err
 * filled on error. A cut file loads (trace->info.cut says so). */
struct trace *trace__load(const char *path, const struct trace_load_opts *opts, char *err,
			  size_t errlen);

/*
 * An empty trace, to be filled through *v (the same visitor trace__load() reads a file with;
 * streams: keep slices, wakeups and exits too), then settled with trace__settle(). label
 * stands for its path in messages. NULL with errno ENOMEM.
 */
struct trace *trace__new(const char *label, bool streams, struct cdict_visitor *v);

/* Frees the slices, wakeups and exits of t (the streams): t is then as loaded without them. */
void trace__drop_streams(struct trace *t);

/* Ends the filling: the tasks sorted by (tid, since_ns) (the last naming of each instance kept
 * as it came), the aggregates summed per key and sorted, as trace__load() leaves them.
 * Returns 0 or -ENOMEM. */
int trace__settle(struct trace *t);

/* The task record of tid's latest instance, or NULL. */
const struct pwz_task *trace__task(const struct trace *t, uint32_t tid);

/* The task record of the instance of tid alive at time_ns (model.h R8: the latest born at or
 * before it; the earliest when time_ns precedes them all), or NULL. trace__task_at(t, tid,
 * since_ns) finds the instance of an aggregate. */
const struct pwz_task *trace__task_at(const struct trace *t, uint32_t tid, uint64_t time_ns);

/* The end of the instance of tid born at since_ns (a task record's since_ns): the first death
 * of tid at or after it, or the birth of its next instance, whichever comes first; UINT64_MAX
 * when neither is in the capture. */
uint64_t trace__instance_end(const struct trace *t, uint32_t tid, uint64_t since_ns);

/* The ledger of the vCPU thread instance of tid born at since_ns (a task record's since_ns),
 * or NULL: the capture has none for it. */
const struct pwz_vcpu_ledger *trace__vcpu_ledger(const struct trace *t, uint32_t tid,
						 uint64_t since_ns);

/* trace__task_at() for a run of lookups that mostly repeat a tid (the slices of one thread):
 * a tid with a single instance is answered from the cache, one with several is looked for
 * among its own. Zero the cache before the run. */
struct trace_task_cache {
	uint32_t tid;
	const struct pwz_task *only;	/* tid's one instance; NULL: not cached */
	const struct pwz_task *first;	/* tid's first instance of several; NULL: not cached */
};
const struct pwz_task *trace__task_at_cached(const struct trace *t, struct trace_task_cache *c,
					     uint32_t tid, uint64_t time_ns);

/* NULL is a no-op. */
void trace__free(struct trace *t);

#endif /* PWZ_TRACE_H */
