/* SPDX-License-Identifier: GPL-2.0 */
/* BPF ring-buffer records and map values (bpf/pwz.h) into capture records (records.h). */
#ifndef PWZ_CAPTURE_RECORDS_H
#define PWZ_CAPTURE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "records.h"
#include "../bpf/pwz.h"

/* Where decoded ring-buffer records go. A callback returning non-zero stops with that value. */
struct capture_sink {
	void *ctx;
	int (*slice)(void *ctx, const struct rec_slice *r);	/* with the wait before it */
	int (*kvm_exit)(void *ctx, const struct rec_kvm_exit *r);
	int (*task)(void *ctx, const struct rec_task *r);
};

/*
 * Decodes one ring-buffer record of size bytes and calls the sink's callback for its type.
 * Records shorter than their type's struct, and unknown types, are skipped (return 0).
 */
int capture_dispatch(const void *data, size_t size, const struct capture_sink *sink);

/*
 * A slice record as pwz records, times made relative to t0 (CLOCK_MONOTONIC capture start):
 * a slice running since before the capture (start_ns 0) starts at 0 and lasts from t0.
 * Returns true when the record also carries a run-queue wait, written to *w.
 */
bool capture_conv_slice(const struct rec_slice *r, uint64_t t0, struct pwz_slice *s,
			struct pwz_wakeup *w);

/*
 * The slice still running on cpu at the end (t_end, absolute) from its cpu_state, as a
 * PWZ_END_OPEN slice; true when a wait preceded it (written to *w).
 */
bool capture_conv_open(const struct cpu_state *st, uint32_t cpu, uint64_t t0, uint64_t t_end,
		       struct pwz_slice *s, struct pwz_wakeup *w);

/* A KVM exit record, time relative to t0. */
void capture_conv_kvm_exit(const struct rec_kvm_exit *r, uint64_t t0, struct pwz_kvm_exit *e);

/* Sums the per-CPU slots of a kvm_aggs value / the waits of a cpu_aggs value. */
void capture_sum_kvm(const struct kvm_agg_val *per_cpu, int nr_cpus, struct kvm_agg_val *sum);
void capture_sum_wait(const struct cpu_agg_val *per_cpu, int nr_cpus, struct wait_agg_val *sum);

/*
 * Folds one slice record into v exactly as bpf/pwz.bpf.c folds a slice into its cpu_aggs slot:
 * runtime from switch timestamps (a slice running since before the capture, start_ns 0,
 * counts from t0), one switch-out (voluntary or not by its end), and the run-queue wait before
 * it when it has one that ended after it began (start_ns > wake_ns).
 */
void capture_fold_slice(struct cpu_agg_val *v, const struct rec_slice *r, uint64_t t0);

/*
 * Per (tid, cpu) aggregates kept in userspace. With streams on, the kernel folds a slice into
 * cpu_aggs only when its record cannot be reserved; the reader folds every record it reads into
 * one of these, and the sum of both is the exact aggregate (each slice is counted once).
 */
struct capture_aggs;

/* An empty table; NULL with errno ENOMEM. */
struct capture_aggs *capture_aggs__new(void);

/* Frees the table. NULL is a no-op. */
void capture_aggs__free(struct capture_aggs *a);

/* Adds v into (tid, cpu): every field summed, wait_max_ns the larger. Returns 0 or -ENOMEM. */
int capture_aggs__add(struct capture_aggs *a, uint32_t tid, uint32_t cpu,
		      const struct cpu_agg_val *v);

/* Folds a slice record into (r->tid, r->cpu) with capture_fold_slice(). 0 or -ENOMEM. */
int capture_aggs__add_slice(struct capture_aggs *a, const struct rec_slice *r, uint64_t t0);

/* The value of (tid, cpu), NULL when none was added. Valid until the next add. */
const struct cpu_agg_val *capture_aggs__get(const struct capture_aggs *a, uint32_t tid,
					    uint32_t cpu);

/* A copy of a (NULL with errno ENOMEM). */
struct capture_aggs *capture_aggs__dup(const struct capture_aggs *a);

/* Number of (tid, cpu) entries. */
size_t capture_aggs__count(const struct capture_aggs *a);

/* Calls cb per entry, in no particular order. A callback's non-zero value stops the walk and is
 * returned; else 0. */
int capture_aggs__each(const struct capture_aggs *a,
		       int (*cb)(void *ctx, uint32_t tid, uint32_t cpu, const struct cpu_agg_val *v),
		       void *ctx);

#endif /* PWZ_CAPTURE_RECORDS_H */
