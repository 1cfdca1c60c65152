/* SPDX-License-Identifier: GPL-2.0 */
/* Scheduler and KVM event stream -> pwz records: run slices, waits, KVM exits, aggregates. */
#ifndef PWZ_SCHED_MODEL_H
#define PWZ_SCHED_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "cdict.h"
#include "records.h"

/*
 * A source that sees individual scheduler events (a perf.data file, a raw tracepoint stream)
 * feeds them here in time order, with times in ns from the capture start; the model calls
 * the sink for every record it completes and, at sched_model__finish(), for the open slices,
 * the unpaired exits and every aggregate.
 *
 * It applies the rules of model.h (R1-R5) to the events, and folds what it emits with
 * model_fold (R7). Its own notes:
 * - End kind (R3) from prev_state: 0 (R) and any state with only the preempt bit set (R+) is
 *   preempted; X (0x10) or Z (0x20) in the TASK_REPORT bits is exited; anything else slept.
 *   The preempt bit is TASK_REPORT_MAX, which the caller passes (0 when unknown: then only 0
 *   counts as preempted).
 * - "Running" (R4: a wakeup of a running thread starts no wait) is what the switches say: from
 *   a switch-in to the next switch-out of that thread, or to an unseen switch-out (R2).
 * - sched_model__lost() forgets every pending wait and KVM pairing (the events between are
 *   unknown); an exit left without its entry is emitted unpaired (handling 0).
 */

struct sched_model;

/*
 * Where records go: the same visitor the cdict reader feeds (user/lib/cdict.h), so that a model
 * and a file are interchangeable sources. The model calls slice, wakeup, kvm_exit, cpu_agg,
 * kvm_agg and wait_agg (never meta or task). Each callback returns 0 or -errno (which stops
 * the model); NULL skips.
 */

struct sched_model_opts {
	uint64_t preempt_bit;	/* TASK_REPORT_MAX of the traced kernel (prev_state "R+"); 0 none */
	bool emit_slices;	/* call sink->slice (aggregates are always kept) */
	bool emit_wakeups;	/* call sink->wakeup */
	bool emit_kvm_exits;	/* call sink->kvm_exit */
	bool no_waits;		/* the source records no wakeups: measure no waits at all (those
				 * begun by preemptions alone would understate them) */
};

struct sched_model_stats {
	uint64_t switches;		/* sched_model__switch() calls */
	uint64_t unseen;		/* switch-outs whose switch-in was unseen (model.h R2) */
	uint64_t first_slices;		/* slices starting at 0 (first switch on a CPU) */
	uint64_t slices;		/* slices emitted, open ones included */
	uint64_t wakeups;		/* waits measured */
	uint64_t kvm_exits;		/* exits emitted */
	uint64_t kvm_unpaired;		/* of which without a following entry */
	uint64_t kvm_resets;		/* pairings dropped by lost events */
	uint64_t cpu_aggs;		/* aggregate records emitted, per kind */
	uint64_t kvm_aggs;
	uint64_t wait_aggs;
};

/* NULL on -ENOMEM (errno set). opts may be NULL (defaults: emit everything, no preempt bit). */
struct sched_model *sched_model__new(const struct sched_model_opts *opts,
				     const struct cdict_visitor *sink);

/* NULL is a no-op. */
void sched_model__free(struct sched_model *m);

/* A context switch at time t on cpu. Returns 0, -EINVAL for cpu >= PWZ_MAX_CPUS, or the sink's
 * error. */
int sched_model__switch(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t prev_tid,
			uint64_t prev_state, uint32_t next_tid);

/* tid was woken (sched_wakeup or sched_wakeup_new) at t. Returns 0 or -ENOMEM. */
int sched_model__wakeup(struct sched_model *m, uint64_t t, uint32_t tid);

/* tid was created at t (model.h R8: a new instance of the tid; its aggregates are its own).
 * Returns 0 or -ENOMEM. */
int sched_model__born(struct sched_model *m, uint64_t t, uint32_t tid);

/* Events were lost at t: every KVM pairing and pending wakeup is dropped. */
void sched_model__lost(struct sched_model *m, uint64_t t);

/* kvm_exit of vCPU thread tid on cpu at t. Returns 0 or -errno. */
int sched_model__kvm_exit(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t tid,
			  uint32_t vcpu, uint32_t isa, uint32_t reason);

/* kvm_entry of vCPU thread tid on cpu at t. Returns 0 or -errno. */
int sched_model__kvm_entry(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t tid);

/*
 * The capture ended at end_ns: emits each CPU's running task as a PWZ_END_OPEN slice, every
 * pending exit (unpaired), then every aggregate of the fold (model_fold__emit(): per (tid,
 * cpu), per (tid, isa, reason), per tid wait, sorted by key). Call once. Returns 0, -ENOMEM or
 * the sink's error.
 */
int sched_model__finish(struct sched_model *m, uint64_t end_ns);

/* Counters so far. */
void sched_model__stats(const struct sched_model *m, struct sched_model_stats *out);

/* The end kind of a switch-out with this prev_state (see the rules above). */
enum pwz_slice_end sched_model_end_kind(uint64_t prev_state, uint64_t preempt_bit);

#endif /* PWZ_SCHED_MODEL_H */
