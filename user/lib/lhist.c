// SPDX-License-Identifier: GPL-2.0
/* Percentiles of a log-linear latency histogram (user/lib/lhist.h). */
#include <math.h>
#include "lhist.h"

_Static_assert(PWZ_LHIST_BUCKETS == 304, "lhist layout changed: BPF and userspace must agree");

uint64_t pwz_lhist_quantile(const uint64_t h[PWZ_LHIST_BUCKETS], double q, uint64_t max_ns)
{
	uint64_t total = 0, rank, seen = 0, lo, hi, v;
	uint32_t b;

	for (b = 0; b < PWZ_LHIST_BUCKETS; b++)
		total += h[b];
	if (!total)
		return 0;
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
	if (b >= PWZ_LHIST_BUCKETS)
		b = PWZ_LHIST_BUCKETS - 1;
	lo = pwz_lhist_lower(b);
	hi = pwz_lhist_upper(b);
	v = b < PWZ_LHIST_SUB ? lo : lo + (hi - lo) / 2;
	if (b == PWZ_LHIST_BUCKETS - 1)
		v = lo;
	if (max_ns && v > max_ns)
		v = max_ns;
	return v;
}
