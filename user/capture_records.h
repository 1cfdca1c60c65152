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
	/* tgid's command line after its exec at time_ns (absolute): len bytes of args
	 * (NUL-separated), cut when the command line went on (struct rec_exec); NULL: not wanted */
	int (*exec)(void *ctx, uint32_t tgid, uint64_t time_ns, const char *args, size_t len, bool cut);
};

/*
 * Decodes one ring-buffer record of size bytes and calls the sink's callback for its type.
 * Records shorter than their type's struct, and unknown types, are skipped (return 0).
 */
int capture_dispatch(const void *data, size_t size, const struct capture_sink *sink);

/*
 * A slice record as pwz records, times made relative to t0 (CLOCK_MONOTONIC capture start):
 * a slice running since before the capture (start_ns 0) starts at 0 and lasts from t0; the
 * unseen-start flag (model.h R2) carried over. Returns true when the record also carries a
 * run-queue wait, written to *w.
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

/* Sums the per-CPU slots of a kvm_aggs value. */
void capture_sum_kvm(const struct kvm_agg_val *per_cpu, int nr_cpus, struct kvm_agg_val *sum);

/*
 * One CPU's slot of a cpu_aggs value (the kernel's fold of the slices whose records it could
 * not send, user/lib/model.h R7) as the model's aggregates: the (tid, cpu) figures into *a,
 * the waits that ended on that CPU into *w (count 0: none).
 */
void capture_conv_cpu_agg(uint32_t tid, uint32_t cpu, const struct cpu_agg_val *v,
			  struct pwz_cpu_agg *a, struct pwz_wait_agg *w);

/*
 * One CPU's slot of a wait_hists value (bpf/pwz.h) as a wait aggregate holding only the
 * histogram (count, total and maximum 0: cpu_aggs has them), to be added to the same thread's
 * aggregate with model_fold__wait_agg().
 */
void capture_conv_wait_hist(uint32_t tid, const struct wait_hist_val *v, struct pwz_wait_agg *w);

#endif /* PWZ_CAPTURE_RECORDS_H */
