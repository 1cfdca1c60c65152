/* SPDX-License-Identifier: GPL-2.0 */
/* The --stats report: a human summary of a capture made from its kernel aggregates. */
#ifndef PWZ_CAPTURE_STATS_H
#define PWZ_CAPTURE_STATS_H

#include <stddef.h>
#include <stdio.h>
#include "records.h"

struct capture_stats_in {
	const struct pwz_meta *meta;		/* duration, CPUs, drops, exit names */
	const struct pwz_cpu_agg *cpu;		/* per (tid, cpu) */
	size_t nr_cpu;
	const struct pwz_wait_agg *wait;	/* per tid */
	size_t nr_wait;
	const struct pwz_kvm_agg *kvm;		/* per (tid, isa, reason) */
	size_t nr_kvm;
	const char *(*name)(void *ctx, uint32_t tid);	/* display name of tid, or NULL */
	void *name_ctx;
};

/*
 * Writes the report to f: one line per task sorted by runtime (runtime ms, % of one CPU,
 * switches, voluntary, involuntary, waits, average and maximum wait ms), then KVM exits per
 * task and reason (count, share, total and average handling us, median and p99 from the
 * histogram). Returns 0, or -errno (-ENOMEM, or a write error).
 */
int capture_stats_write(FILE *f, const struct capture_stats_in *in);

#endif /* PWZ_CAPTURE_STATS_H */
