/* SPDX-License-Identifier: GPL-2.0 */
/* The fit of a capture's scheduler clock to CLOCK_MONOTONIC, from sampled pairs (model.h R0). */
#ifndef PWZ_CLOCKFIT_H
#define PWZ_CLOCKFIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "records.h"

/*
 * One CPU's pairs (the run queue's clock, CLOCK_MONOTONIC) taken together, fitted as
 * offset = mono - rq = a + drift * rq by least squares, accumulated one pair at a time
 * (Welford's updates on the pair's distance from the first one, so that neither a long capture
 * nor a large offset costs precision). Zero it to start.
 */
struct clockfit_cpu {
	uint64_t n;		/* pairs */
	uint64_t rq0;		/* the first pair's rq clock */
	int64_t off0;		/* and its offset, mono - rq */
	double mx, mo;		/* means of rq - rq0 and of offset - off0 */
	double cxx, cxo, coo;	/* sums of products of the deviations */
};

/* Adds the pair (rq, mono) to f. */
void clockfit_add(struct clockfit_cpu *f, uint64_t rq, uint64_t mono);

/* The fit of the nr CPUs of cpus into out's pairs, drift_ppb, residual_ns and spread_ns (its
 * other fields untouched). Returns whether any CPU has 3 pairs (the others are left out of
 * the fit, not of pairs). */
bool clockfit_solve(const struct clockfit_cpu *cpus, uint32_t nr, struct pwz_sched_clock *out);

#endif /* PWZ_CLOCKFIT_H */
