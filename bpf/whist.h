/* SPDX-License-Identifier: GPL-2.0 */
/* The run-queue wait histogram's buckets: one layout for the kernel (pwz.bpf.c) and the host. */
#ifndef PWZ_WHIST_H
#define PWZ_WHIST_H

/* Fixed-width types on both sides: this header is included by bpf/pwz.h (BPF and user/) and
 * by user/lib/records.h. */
#include "log2.h"

#if defined(__bpf__) || defined(__VMLINUX_H__)
typedef __u64 pwz_whist_u64;
typedef __u32 pwz_whist_u32;
#else
#include <stdbool.h>
#include <stdint.h>
typedef uint64_t pwz_whist_u64;
typedef uint32_t pwz_whist_u32;
#endif

/*
 * The run-queue wait histogram of a thread (user/lib/model.h R7), one layout for the kernel's
 * fold (fold_dropped() of pwz.bpf.c) and the host's (model_fold): a log-linear histogram with
 * PWZ_WHIST_SUB buckets per power of two.
 * - bucket 0 holds [0, 2^PWZ_WHIST_MIN_LOG2) = [0, 1.024 us);
 * - each octave [2^k, 2^(k+1)), PWZ_WHIST_MIN_LOG2 <= k < PWZ_WHIST_MAX_LOG2, is split into
 *   PWZ_WHIST_SUB equal buckets of width 2^(k - PWZ_WHIST_SUB_BITS): a bucket's top is at most
 *   1.25 times its bottom, so a percentile read from it is known to within 25 %;
 * - the last bucket holds [2^PWZ_WHIST_MAX_LOG2, inf) = 34.4 s and more.
 * 102 buckets. The kernel counts in __u32 (struct wait_hist_val of pwz.h: 408 bytes per
 * thread per CPU that waited; 4 G waits of one thread on one CPU in one bucket would wrap
 * one), the host in uint64_t.
 * The bucket function has no loop and no library call, so the verifier takes it as is.
 * The host reads the streams' waits in this layout too (user/lib/vms.c), so that the wait
 * percentiles of the aggregates and of the streams are buckets of one layout.
 */
#define PWZ_WHIST_SUB_BITS 2
#define PWZ_WHIST_SUB (1 << PWZ_WHIST_SUB_BITS)
#define PWZ_WHIST_MIN_LOG2 10
#define PWZ_WHIST_MAX_LOG2 35
#define PWZ_WHIST_BUCKETS (2 + (PWZ_WHIST_MAX_LOG2 - PWZ_WHIST_MIN_LOG2) * PWZ_WHIST_SUB)

/* The bucket of a wait of v ns: 0 .. PWZ_WHIST_BUCKETS - 1. */
static inline pwz_whist_u32 pwz_whist_bucket(pwz_whist_u64 v)
{
	pwz_whist_u32 k;

	if (v < (1ULL << PWZ_WHIST_MIN_LOG2))
		return 0;
	k = pwz_log2(v);
	if (k >= PWZ_WHIST_MAX_LOG2)
		return PWZ_WHIST_BUCKETS - 1;
	return 1 + (k - PWZ_WHIST_MIN_LOG2) * PWZ_WHIST_SUB +
	       ((pwz_whist_u32)(v >> (k - PWZ_WHIST_SUB_BITS)) & (PWZ_WHIST_SUB - 1));
}

/* The smallest value of bucket b (b < PWZ_WHIST_BUCKETS). */
static inline pwz_whist_u64 pwz_whist_lower(pwz_whist_u32 b)
{
	pwz_whist_u32 k;

	if (b == 0)
		return 0;
	if (b >= PWZ_WHIST_BUCKETS - 1)
		return 1ULL << PWZ_WHIST_MAX_LOG2;
	k = (b - 1) / PWZ_WHIST_SUB + PWZ_WHIST_MIN_LOG2;
	return (1ULL << k) + ((pwz_whist_u64)((b - 1) % PWZ_WHIST_SUB) << (k - PWZ_WHIST_SUB_BITS));
}

/* One past the largest value of bucket b; 0 for the last bucket, which has no top. */
static inline pwz_whist_u64 pwz_whist_upper(pwz_whist_u32 b)
{
	return b >= PWZ_WHIST_BUCKETS - 1 ? 0 : pwz_whist_lower(b + 1);
}

#if !defined(__bpf__) && !defined(__VMLINUX_H__)
/*
 * What a histogram h of n waits whose longest is max_ns says of their q-quantile
 * (0 < q <= 1): the bucket holding the ceil(q * n)-th smallest wait, as the closed range
 * [*lo, *hi] ns of the values it can hold, the top cut to max_ns (so the last bucket, which
 * has no top, is bounded too). Returns false, *lo = *hi = 0, when h is empty (n == 0).
 */
bool pwz_whist_quantile(const uint64_t h[PWZ_WHIST_BUCKETS], double q, uint64_t max_ns,
			uint64_t *lo, uint64_t *hi);
#endif

#endif /* PWZ_WHIST_H */
