// SPDX-License-Identifier: GPL-2.0
/* The fit of a capture's scheduler clock to CLOCK_MONOTONIC (clockfit.h). */
#include <math.h>
#include "clockfit.h"

void clockfit_add(struct clockfit_cpu *f, uint64_t rq, uint64_t mono)
{
	int64_t off = (int64_t)(mono - rq);
	double x, o, dx, d_o;

	if (!f->n) {
		f->rq0 = rq;
		f->off0 = off;
	}
	x = (double)(int64_t)(rq - f->rq0);
	o = (double)(off - f->off0);
	f->n++;
	dx = x - f->mx;
	d_o = o - f->mo;
	f->mx += dx / (double)f->n;
	f->mo += d_o / (double)f->n;
	f->cxx += dx * (x - f->mx);
	f->cxo += dx * (o - f->mo);
	f->coo += d_o * (o - f->mo);
}

bool clockfit_solve(const struct clockfit_cpu *cpus, uint32_t nr, struct pwz_sched_clock *out)
{
	double slope_sum = 0, rss = 0, dof = 0, lo = 0, hi = 0;
	uint64_t weight = 0;
	bool any = false;

	out->pairs = 0;
	out->drift_ppb = 0;
	out->residual_ns = 0;
	out->spread_ns = 0;
	for (uint32_t i = 0; i < nr; i++) {
		const struct clockfit_cpu *f = &cpus[i];
		double slope, r, mean;

		out->pairs += f->n;
		if (f->n < 3 || f->cxx <= 0)
			continue;
		slope = f->cxo / f->cxx;
		r = f->coo - slope * f->cxo;
		slope_sum += slope * (double)f->n;
		weight += f->n;
		rss += r > 0 ? r : 0;
		dof += (double)(f->n - 2);
		/* the CPU's mean offset, on the scale of the first CPU fitted */
		mean = (double)f->off0 + f->mo;
		if (!any || mean < lo)
			lo = mean;
		if (!any || mean > hi)
			hi = mean;
		any = true;
	}
	if (!any)
		return false;
	out->drift_ppb = (int64_t)llround(slope_sum / (double)weight * 1e9);
	out->residual_ns = (uint64_t)llround(sqrt(rss / dof));
	out->spread_ns = (uint64_t)llround(hi - lo);
	return true;
}
