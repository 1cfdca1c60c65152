// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/lhist.h: the log-linear histogram's buckets and percentiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "lhist.h"

static void test_log2(void **state)
{
	(void)state;
	assert_int_equal(pwz_log2(1), 0);
	assert_int_equal(pwz_log2(2), 1);
	assert_int_equal(pwz_log2(3), 1);
	assert_int_equal(pwz_log2(4), 2);
	assert_int_equal(pwz_log2(1023), 9);
	assert_int_equal(pwz_log2(1024), 10);
	assert_int_equal(pwz_log2(1ull << 40), 40);
	assert_int_equal(pwz_log2(UINT64_MAX), 63);
	for (int k = 0; k < 64; k++) {
		assert_int_equal(pwz_log2(1ull << k), k);
		if (k > 1)
			assert_int_equal(pwz_log2((1ull << k) - 1), k - 1);
	}
}

static void test_buckets(void **state)
{
	(void)state;
	/* 0..7 exact */
	for (uint64_t v = 0; v < 8; v++) {
		assert_int_equal(pwz_lhist_bucket(v), v);
		assert_int_equal(pwz_lhist_lower((uint32_t)v), v);
		assert_int_equal(pwz_lhist_upper((uint32_t)v), v + 1);
	}
	/* octave [8, 16): width 1; [16, 32): width 2; [1024, 2048): width 128 */
	assert_int_equal(pwz_lhist_bucket(8), 8);
	assert_int_equal(pwz_lhist_bucket(15), 15);
	assert_int_equal(pwz_lhist_bucket(16), 16);
	assert_int_equal(pwz_lhist_bucket(17), 16);
	assert_int_equal(pwz_lhist_bucket(18), 17);
	assert_int_equal(pwz_lhist_lower(pwz_lhist_bucket(1100)), 1024);
	assert_int_equal(pwz_lhist_upper(pwz_lhist_bucket(1100)), 1152);
	/* the case: p99 80 us vs 120 us, and 80 vs 90 us, are different buckets */
	assert_true(pwz_lhist_bucket(80000) != pwz_lhist_bucket(120000));
	assert_true(pwz_lhist_bucket(80000) != pwz_lhist_bucket(90000));
	/* the top */
	assert_int_equal(pwz_lhist_bucket(1ull << 40), PWZ_LHIST_BUCKETS - 1);
	assert_int_equal(pwz_lhist_bucket(UINT64_MAX), PWZ_LHIST_BUCKETS - 1);
	assert_int_equal(pwz_lhist_bucket((1ull << 40) - 1), PWZ_LHIST_BUCKETS - 1);
	assert_int_equal(pwz_lhist_bucket((1ull << 39) + 6 * (1ull << 36)), PWZ_LHIST_BUCKETS - 2);
}

/* Every value lies in its bucket's [lower, upper), buckets never go backwards, and a bucket is
 * at most 1/8 of its lower bound wide. */
static void test_bucket_bounds(void **state)
{
	uint64_t v = 1, prev_b = 0, x = 88172645463325252ull;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		uint32_t b;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (x % 64);
		b = pwz_lhist_bucket(v);
		assert_true(b < PWZ_LHIST_BUCKETS);
		assert_true(pwz_lhist_lower(b) <= v);
		if (b < PWZ_LHIST_BUCKETS - 1) {
			assert_true(v < pwz_lhist_upper(b));
			assert_true((pwz_lhist_upper(b) - pwz_lhist_lower(b)) * 8 <=
				    (pwz_lhist_lower(b) > 8 ? pwz_lhist_lower(b) : 8));
		}
	}
	for (v = 0; v < 100000; v++) {
		uint32_t b = pwz_lhist_bucket(v);

		assert_true(b >= prev_b);
		assert_true(b <= prev_b + 1);
		prev_b = b;
	}
	for (uint32_t b = 0; b + 1 < PWZ_LHIST_BUCKETS; b++) {
		assert_int_equal(pwz_lhist_bucket(pwz_lhist_lower(b)), b);
		assert_int_equal(pwz_lhist_bucket(pwz_lhist_upper(b) - 1), b);
	}
}

static void test_quantile(void **state)
{
	static uint64_t h[PWZ_LHIST_BUCKETS];
	uint64_t q;

	(void)state;
	memset(h, 0, sizeof(h));
	assert_int_equal(pwz_lhist_quantile(h, 0.5, 0), 0);
	/* 1..1000 us, one each */
	for (uint64_t us = 1; us <= 1000; us++)
		h[pwz_lhist_bucket(us * 1000)]++;
	q = pwz_lhist_quantile(h, 0.5, 1000000);
	assert_int_equal(pwz_lhist_bucket(q), pwz_lhist_bucket(500000));
	q = pwz_lhist_quantile(h, 0.9, 1000000);
	assert_int_equal(pwz_lhist_bucket(q), pwz_lhist_bucket(900000));
	q = pwz_lhist_quantile(h, 0.99, 1000000);
	assert_int_equal(pwz_lhist_bucket(q), pwz_lhist_bucket(990000));
	/* within one bucket: 12.5 % */
	assert_true(q > 990000 * 0.875 && q < 990000 * 1.125);
	/* the top never above the largest value seen */
	assert_true(pwz_lhist_quantile(h, 1.0, 1000000) <= 1000000);
	/* 99 values of 80 us and one of 120 us: p99 is 80 us's bucket, p99.9 120 us's */
	memset(h, 0, sizeof(h));
	h[pwz_lhist_bucket(80000)] = 99;
	h[pwz_lhist_bucket(120000)] = 1;
	assert_int_equal(pwz_lhist_bucket(pwz_lhist_quantile(h, 0.99, 120000)),
			 pwz_lhist_bucket(80000));
	/* 120 us's bucket is [114688, 122880): its middle; a maximum below it caps it */
	assert_int_equal(pwz_lhist_lower(pwz_lhist_bucket(120000)), 114688);
	assert_int_equal(pwz_lhist_upper(pwz_lhist_bucket(120000)), 122880);
	assert_int_equal(pwz_lhist_quantile(h, 0.999, 120000), 118784);
	assert_int_equal(pwz_lhist_quantile(h, 0.999, 118000), 118000);
	/* exact buckets give the value itself */
	memset(h, 0, sizeof(h));
	h[3] = 5;
	assert_int_equal(pwz_lhist_quantile(h, 0.5, 0), 3);
}

/* The range of the bucket holding a quantile, cut to the longest value: one wait of 200.04 ms
 * is every percentile of itself, inside the range [184.5 ms, 200.04 ms], never above it. */
static void test_range(void **state)
{
	static uint64_t h[PWZ_LHIST_BUCKETS];
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
	static const uint64_t rank_of_1000[] = { 500, 900, 990, 999, 1000 };	/* ceil(q n) */
	uint64_t lo = 1, hi = 1;

	(void)state;
	memset(h, 0, sizeof(h));
	assert_false(pwz_lhist_range(h, 0.5, 0, &lo, &hi));
	assert_true(lo == 0 && hi == 0);
	h[pwz_lhist_bucket(200040000)] = 1;
	for (int i = 0; i < 5; i++) {
		assert_true(pwz_lhist_range(h, qs[i], 200040000, &lo, &hi));
		assert_int_equal(lo, pwz_lhist_lower(pwz_lhist_bucket(200040000)));
		assert_int_equal(hi, 200040000);
		assert_true(lo <= 200040000 && lo > 200040000 * 0.875);
	}
	/* 1..1000 us, one each: each range holds the exact nearest-rank percentile, its top at
	 * most the bucket's last value */
	memset(h, 0, sizeof(h));
	for (uint64_t us = 1; us <= 1000; us++)
		h[pwz_lhist_bucket(us * 1000)]++;
	for (int i = 0; i < 5; i++) {
		uint64_t exact = rank_of_1000[i] * 1000;

		assert_true(pwz_lhist_range(h, qs[i], 1000000, &lo, &hi));
		assert_true(lo <= exact && exact <= hi);
		assert_int_equal(pwz_lhist_bucket(lo), pwz_lhist_bucket(hi));
		assert_int_equal(pwz_lhist_bucket(hi + 1), pwz_lhist_bucket(hi) + (hi < 1000000));
	}
	/* the last bucket has no top but the longest value; without one it stays open */
	memset(h, 0, sizeof(h));
	h[PWZ_LHIST_BUCKETS - 1] = 2;
	assert_true(pwz_lhist_range(h, 0.5, 3000000000000ull, &lo, &hi));
	assert_int_equal(lo, pwz_lhist_lower(PWZ_LHIST_BUCKETS - 1));
	assert_int_equal(hi, 3000000000000ull);
	assert_true(pwz_lhist_range(h, 0.5, 0, &lo, &hi));
	assert_int_equal(hi, UINT64_MAX);
	/* exact buckets: one value */
	memset(h, 0, sizeof(h));
	h[3] = 5;
	assert_true(pwz_lhist_range(h, 0.5, 0, &lo, &hi));
	assert_true(lo == 3 && hi == 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log2),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_bucket_bounds),
		cmocka_unit_test(test_quantile),
		cmocka_unit_test(test_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
