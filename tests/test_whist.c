// SPDX-License-Identifier: GPL-2.0
/* Unit tests of bpf/whist.h (the run-queue wait histogram's buckets, shared with the kernel,
 * and the floor(log2) of bpf/log2.h under them) and its percentiles (pwz_whist_quantile(),
 * user/lib/records.c), and of model_fold's count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "model.h"
#include "records.h"

_Static_assert(PWZ_WHIST_BUCKETS == 102, "the wait histogram's layout changed: docs/cdict.md");

/* floor(log2(v)) at the bottom and the top of every octave [2^k, 2^(k+1)); 0 for 0. */
static void test_log2(void **state)
{
	(void)state;
	assert_int_equal(pwz_log2(0), 0);
	for (int k = 0; k < 64; k++) {
		assert_int_equal(pwz_log2(1ull << k), k);
		assert_int_equal(pwz_log2((1ull << k) | ((1ull << k) - 1)), k);
	}
}

static void test_bucket_edges(void **state)
{
	(void)state;
	/* [0, 1024) is bucket 0 */
	assert_int_equal(pwz_whist_bucket(0), 0);
	assert_int_equal(pwz_whist_bucket(1023), 0);
	/* [1024, 2048) in four: 1024, 1280, 1536, 1792 */
	assert_int_equal(pwz_whist_bucket(1024), 1);
	assert_int_equal(pwz_whist_bucket(1279), 1);
	assert_int_equal(pwz_whist_bucket(1280), 2);
	assert_int_equal(pwz_whist_bucket(1792), 4);
	assert_int_equal(pwz_whist_bucket(2047), 4);
	assert_int_equal(pwz_whist_bucket(2048), 5);
	/* 80 us and 90 us and 120 us apart; 100 us in [98.304, 114.688) */
	assert_int_not_equal(pwz_whist_bucket(80000), pwz_whist_bucket(90000));
	assert_int_not_equal(pwz_whist_bucket(90000), pwz_whist_bucket(120000));
	assert_int_equal(pwz_whist_lower(pwz_whist_bucket(100000)), 98304);
	assert_int_equal(pwz_whist_upper(pwz_whist_bucket(100000)), 114688);
	/* the last finite bucket and the overflow bucket (2^35 ns = 34.4 s and more) */
	assert_int_equal(pwz_whist_bucket((1ull << 35) - 1), PWZ_WHIST_BUCKETS - 2);
	assert_int_equal(pwz_whist_bucket(1ull << 35), PWZ_WHIST_BUCKETS - 1);
	assert_int_equal(pwz_whist_bucket(UINT64_MAX), PWZ_WHIST_BUCKETS - 1);
	assert_int_equal(pwz_whist_lower(PWZ_WHIST_BUCKETS - 1), 1ull << 35);
	assert_int_equal(pwz_whist_upper(PWZ_WHIST_BUCKETS - 1), 0);	/* no top */
	assert_int_equal(pwz_whist_upper(PWZ_WHIST_BUCKETS - 2), 1ull << 35);
}

/* Every bucket's bounds hold exactly its values, and no bucket is wider than 25 % of its
 * bottom. */
static void test_bucket_bounds(void **state)
{
	(void)state;
	for (uint32_t b = 0; b < PWZ_WHIST_BUCKETS - 1; b++) {
		uint64_t lo = pwz_whist_lower(b), hi = pwz_whist_upper(b);

		assert_true(lo < hi);
		assert_int_equal(pwz_whist_bucket(lo), b);
		assert_int_equal(pwz_whist_bucket(hi - 1), b);
		assert_int_equal(pwz_whist_bucket(hi), b + 1);
		assert_int_equal(pwz_whist_lower(b + 1), hi);
		if (b)
			assert_true(hi * 4 <= lo * 5);
	}
	srandom(7);
	for (int i = 0; i < 200000; i++) {
		uint64_t v = ((uint64_t)random() << 31 | (uint64_t)random()) >> (random() % 62);
		uint32_t b = pwz_whist_bucket(v);

		assert_true(b < PWZ_WHIST_BUCKETS);
		assert_true(pwz_whist_lower(b) <= v);
		assert_true(b == PWZ_WHIST_BUCKETS - 1 || v < pwz_whist_upper(b));
	}
}

/* Percentile q of h (longest wait max_ns) is the range [want_lo, want_hi]; a macro, so that a
 * failure names the line of the case. */
#define EXPECT_RANGE(h, q, max_ns, want_lo, want_hi)                                \
	do {                                                                        \
		uint64_t lo_ = 1, hi_ = 1;                                          \
		assert_true(pwz_whist_quantile(h, q, max_ns, &lo_, &hi_));          \
		assert_int_equal(lo_, want_lo);                                     \
		assert_int_equal(hi_, want_hi);                                     \
	} while (0)

static void test_quantile(void **state)
{
	uint64_t h[PWZ_WHIST_BUCKETS] = { 0 }, lo = 1, hi = 1;

	(void)state;
	/* empty: no percentile */
	assert_false(pwz_whist_quantile(h, 0.5, 0, &lo, &hi));
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 0);
	/* one wait of 5 us: every percentile is its bucket [4096, 5120), cut to 5000 */
	h[pwz_whist_bucket(5000)] = 1;
	EXPECT_RANGE(h, 0.01, 5000, 4096, 5000);
	EXPECT_RANGE(h, 1.0, 5000, 4096, 5000);
	/* zero-length waits only: [0, 0] */
	memset(h, 0, sizeof(h));
	h[0] = 3;
	EXPECT_RANGE(h, 0.99, 0, 0, 0);
	/* 90 waits of 2 us, 10 of 100 us: p50 and p90 (the 90th smallest) in [1792, 2047], p91
	 * and p99 in [98304, 100000] (the bucket's top cut to the longest) */
	memset(h, 0, sizeof(h));
	h[pwz_whist_bucket(2000)] = 90;
	h[pwz_whist_bucket(100000)] = 10;
	EXPECT_RANGE(h, 0.5, 100000, 1792, 2047);
	EXPECT_RANGE(h, 0.9, 100000, 1792, 2047);
	EXPECT_RANGE(h, 0.91, 100000, 98304, 100000);
	EXPECT_RANGE(h, 0.99, 100000, 98304, 100000);
	/* the overflow bucket: a 40 s wait, bounded above by the longest */
	h[PWZ_WHIST_BUCKETS - 1] = 100;
	EXPECT_RANGE(h, 0.99, 40000000000ull, 1ull << 35, 40000000000ull);
}

/* 1 .. 1000 us, one wait each: every range holds the exact nearest-rank percentile and is one
 * bucket, whole but where the longest wait cuts it. */
static void test_quantile_exact(void **state)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
	static const uint64_t rank_of_1000[] = { 500, 900, 990, 999, 1000 };	/* ceil(q n) */
	uint64_t h[PWZ_WHIST_BUCKETS] = { 0 }, lo, hi;

	(void)state;
	for (uint64_t us = 1; us <= 1000; us++)
		h[pwz_whist_bucket(us * 1000)]++;
	for (int i = 0; i < 5; i++) {
		uint64_t exact = rank_of_1000[i] * 1000;
		uint32_t b = pwz_whist_bucket(exact);
		uint64_t top = pwz_whist_upper(b) - 1;

		assert_true(pwz_whist_quantile(h, qs[i], 1000000, &lo, &hi));
		assert_true(lo <= exact && exact <= hi);
		assert_int_equal(lo, pwz_whist_lower(b));
		assert_int_equal(hi, top < 1000000 ? top : 1000000);
	}
}

/* model_fold counts each wait in its bucket (the window's waits only, R6), and adds the
 * histograms of aggregates; one without a histogram (an older file's) adds none. */
static void test_fold(void **state)
{
	struct model_window w = { 1000000, 2000000 };
	struct model_fold *f = model_fold__new(&w);
	const struct pwz_wait_agg *a;
	struct pwz_wait_agg old = { .tid = 5, .count = 4, .wait_ns = 40, .max_ns = 10 };
	struct pwz_wait_agg more = { .tid = 5, .count = 2, .wait_ns = 2 * 300000,
				     .max_ns = 300000 };
	static const uint64_t waits[] = { 0, 900, 1024, 50000, 50001, 300000 };

	(void)state;
	assert_non_null(f);
	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
		struct pwz_wakeup wk = { .tid = 5, .cpu = 0, .wake_ns = 1100000, .wait_ns = waits[i] };

		assert_int_equal(model_fold__wait(f, &wk), 0);
	}
	/* ends outside the window: not counted */
	assert_int_equal(model_fold__wait(f, &(struct pwz_wakeup){ .tid = 5, .wake_ns = 1500000,
								   .wait_ns = 600000 }), 0);
	assert_int_equal(model_fold__wait_aggs(f, &a), 1);
	assert_int_equal(a[0].count, 6);
	assert_int_equal(a[0].hist[0], 2);
	assert_int_equal(a[0].hist[1], 1);
	assert_int_equal(a[0].hist[pwz_whist_bucket(50000)], 2);
	assert_int_equal(a[0].hist[pwz_whist_bucket(300000)], 1);
	assert_true(pwz_wait_agg_has_hist(&a[0]));
	more.hist[pwz_whist_bucket(300000)] = 2;
	assert_int_equal(model_fold__wait_agg(f, &more), 0);
	assert_int_equal(model_fold__wait_agg(f, &old), 0);
	assert_int_equal(model_fold__wait_aggs(f, &a), 1);
	assert_int_equal(a[0].count, 12);
	assert_int_equal(a[0].hist[pwz_whist_bucket(300000)], 3);
	assert_int_equal(a[0].hist[0], 2);
	model_fold__free(f);
	assert_false(pwz_wait_agg_has_hist(&old));
}

/* A live capture's kernel keeps a thread's waits in two maps: cpu_aggs' count, total and max
 * (capture_conv_cpu_agg()) and wait_hists' buckets (capture_conv_wait_hist(), count 0); the
 * fold adds them into one aggregate, whose histogram holds its count. One the kernel could not
 * bucket a wait of (CNT_HIST_MISS) holds fewer: no histogram to read percentiles from. */
static void test_kernel_parts(void **state)
{
	struct model_fold *f = model_fold__new(NULL);
	const struct pwz_wait_agg *a;
	struct pwz_wait_agg counts = { .tid = 7, .count = 3, .wait_ns = 3 * 5000, .max_ns = 5000 };
	struct pwz_wait_agg hist = { .tid = 7 };

	(void)state;
	assert_non_null(f);
	hist.hist[pwz_whist_bucket(5000)] = 3;
	assert_int_equal(model_fold__wait_agg(f, &counts), 0);
	assert_int_equal(model_fold__wait_agg(f, &hist), 0);
	assert_int_equal(model_fold__wait_aggs(f, &a), 1);
	assert_int_equal(a[0].count, 3);
	assert_int_equal(a[0].max_ns, 5000);
	assert_int_equal(a[0].hist[pwz_whist_bucket(5000)], 3);
	assert_true(pwz_wait_agg_has_hist(&a[0]));
	/* one more wait on another CPU, whose histogram entry could not be made */
	counts.count = 1;
	assert_int_equal(model_fold__wait_agg(f, &counts), 0);
	assert_int_equal(model_fold__wait_aggs(f, &a), 1);
	assert_int_equal(a[0].count, 4);
	assert_false(pwz_wait_agg_has_hist(&a[0]));
	model_fold__free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log2),
		cmocka_unit_test(test_bucket_edges),
		cmocka_unit_test(test_bucket_bounds),
		cmocka_unit_test(test_quantile),
		cmocka_unit_test(test_quantile_exact),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_kernel_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
