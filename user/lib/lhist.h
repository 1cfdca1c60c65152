/* SPDX-License-Identifier: GPL-2.0 */
/* A log-linear latency histogram: octaves split into linear sub-buckets, for percentiles. */
#ifndef PWZ_LHIST_H
#define PWZ_LHIST_H

/*
 * The contract (the same in BPF and userspace: fixed-width types, no loops in the bucket
 * function, no library calls):
 * - values are nanoseconds, 64-bit;
 * - 0 .. PWZ_LHIST_SUB - 1 each have a bucket of their own (exact);
 * - each octave [2^k, 2^(k+1)) for PWZ_LHIST_SUB_BITS <= k < PWZ_LHIST_MAX_LOG2 is split into
 *   PWZ_LHIST_SUB equal buckets of width 2^(k - PWZ_LHIST_SUB_BITS): a bucket is at most
 *   1/PWZ_LHIST_SUB (12.5 %) of its lower bound wide, so 80 us and 120 us (or 80 and 90 us)
 *   always fall in different buckets;
 * - every value of 2^PWZ_LHIST_MAX_LOG2 ns (1100 s) or more goes to the last bucket.
 * A histogram is PWZ_LHIST_BUCKETS counters; which counter width is the user's (host code
 * uses uint64_t). A percentile read from it is right to within its bucket.
 * The log2 histograms of records.h (pwz_hist_bucket) stay as they are, for compatibility.
 */
#include "../../bpf/log2.h"

#if defined(__bpf__) || defined(__VMLINUX_H__)
typedef __u64 pwz_lhist_u64;
typedef __u32 pwz_lhist_u32;
#else
#include <stdbool.h>
#include <stdint.h>
typedef uint64_t pwz_lhist_u64;
typedef uint32_t pwz_lhist_u32;
#endif

#define PWZ_LHIST_SUB_BITS 3
#define PWZ_LHIST_SUB (1u << PWZ_LHIST_SUB_BITS)	/* 8 linear buckets per octave */
#define PWZ_LHIST_MAX_LOG2 40				/* values >= 2^40 ns share the last bucket */
#define PWZ_LHIST_BUCKETS (PWZ_LHIST_SUB + (PWZ_LHIST_MAX_LOG2 - PWZ_LHIST_SUB_BITS) * PWZ_LHIST_SUB)

/* The bucket of v: 0 .. PWZ_LHIST_BUCKETS - 1. */
static inline pwz_lhist_u32 pwz_lhist_bucket(pwz_lhist_u64 v)
{
	pwz_lhist_u32 k, sub;

	if (v < PWZ_LHIST_SUB)
		return (pwz_lhist_u32)v;
	k = pwz_log2(v);
	if (k >= PWZ_LHIST_MAX_LOG2)
		return PWZ_LHIST_BUCKETS - 1;
	sub = (pwz_lhist_u32)(v >> (k - PWZ_LHIST_SUB_BITS)) & (PWZ_LHIST_SUB - 1);
	return PWZ_LHIST_SUB + (k - PWZ_LHIST_SUB_BITS) * PWZ_LHIST_SUB + sub;
}

/* The smallest value of bucket b (b < PWZ_LHIST_BUCKETS). */
static inline pwz_lhist_u64 pwz_lhist_lower(pwz_lhist_u32 b)
{
	pwz_lhist_u32 k, sub;

	if (b < PWZ_LHIST_SUB)
		return b;
	k = (b - PWZ_LHIST_SUB) / PWZ_LHIST_SUB + PWZ_LHIST_SUB_BITS;
	sub = (b - PWZ_LHIST_SUB) % PWZ_LHIST_SUB;
	return ((pwz_lhist_u64)1 << k) + ((pwz_lhist_u64)sub << (k - PWZ_LHIST_SUB_BITS));
}

/* One past the largest value of bucket b (the last bucket: 2^64 - 1). */
static inline pwz_lhist_u64 pwz_lhist_upper(pwz_lhist_u32 b)
{
	if (b >= PWZ_LHIST_BUCKETS - 1)
		return ~(pwz_lhist_u64)0;
	return pwz_lhist_lower(b + 1);
}

#if !defined(__bpf__) && !defined(__VMLINUX_H__)
/*
 * The q-quantile (0 < q <= 1) of the n counts in h: the value v of the bucket that holds the
 * ceil(q * total)-th smallest value, reported as the middle of that bucket (its only value for
 * the exact buckets), and never above max_ns when max_ns is not 0 (the largest value seen).
 * 0 for an empty histogram.
 */
uint64_t pwz_lhist_quantile(const uint64_t h[PWZ_LHIST_BUCKETS], double q, uint64_t max_ns);

/*
 * What h says of its q-quantile (0 < q <= 1): the bucket that holds the ceil(q * total)-th
 * smallest value, as the closed range [*lo, *hi] of the values it can hold, *hi cut to max_ns
 * when max_ns is not 0 (the longest value seen; the last bucket has no other top). This is
 * all the histogram knows; pwz_lhist_quantile()'s middle is one guess inside it. Returns
 * false, *lo = *hi = 0, for an empty histogram.
 */
bool pwz_lhist_range(const uint64_t h[PWZ_LHIST_BUCKETS], double q, uint64_t max_ns,
		     uint64_t *lo, uint64_t *hi);
#endif

#endif /* PWZ_LHIST_H */
