// SPDX-License-Identifier: GPL-2.0
/* Percentiles of a log-linear latency histogram (user/lib/lhist.h). */
#include <math.h>
#include "lhist.h"

_Static_assert(PWZ_LHIST_BUCKETS == 304, "lhist layout changed: BPF and userspace must agree");

/* The bucket holding the q-quantile of h (nearest rank); false for an empty histogram. */
static bool quantile_bucket(const uint64_t h[PWZ_LHIST_BUCKETS], double q, uint32_t *bucket)
{
	uint64_t total = 0, rank, seen = 0;
	uint32_t b;

	for (b = 0; b < PWZ_LHIST_BUCKETS; b++)
		total += h[b];
	if (!total)
		return false;
	if (q > 1)
		q = 1;
	rank = (uint64_t)ceil(q * (double)total);
	if (rank < 1)
		rank = 1;
	for (b = 0; b < PWZ_LHIST_BUCKETS; b++) {
		seen += h[b];
		if (seen >= rank)
			break;
	}
	*bucket = b < PWZ_LHIST_BUCKETS ? b : PWZ_LHIST_BUCKETS - 1;
	return true;
}

uint64_t pwz_lhist_quantile(const uint64_t h[PWZ_LHIST_BUCKETS], double q, uint64_t max_ns)
{
	uint64_t lo, hi, v;
	uint32_t b;

	if (!quantile_bucket(h, q, &b))
		return 0;
	lo = pwz_lhist_lower(b);
	hi = pwz_lhist_upper(b);
	v = b < PWZ_LHIST_SUB ? lo : lo + (hi - lo) / 2;
	if (b == PWZ_LHIST_BUCKETS - 1)
		v = lo;
	if (max_ns && v > max_ns)
		v = max_ns;
	return v;
}

bool pwz_lhist_range(const uint64_t h[PWZ_LHIST_BUCKETS], double q, uint64_t max_ns,
		     uint64_t *lo, uint64_t *hi)
{
	uint32_t b;

	*lo = *hi = 0;
	if (!quantile_bucket(h, q, &b))
		return false;
	*lo = pwz_lhist_lower(b);
	*hi = b == PWZ_LHIST_BUCKETS - 1 ? UINT64_MAX : pwz_lhist_upper(b) - 1;
	if (max_ns && *hi > max_ns)
		*hi = max_ns;
	if (*lo > *hi)		/* a max below its bucket: the histogram and max disagree */
		*lo = *hi;
	return true;
}
