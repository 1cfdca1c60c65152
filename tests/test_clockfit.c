// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/clockfit.h: the scheduler's clock fitted to CLOCK_MONOTONIC from pairs
 * with a known drift, noise, offsets per CPU, and too few pairs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "clockfit.h"

/* n pairs on cpu f, one every step ns of the rq clock from rq0: mono = rq + off + drift (ppb)
 * of the time since rq0, plus noise[i % nn] ns. */
static void feed(struct clockfit_cpu *f, uint64_t rq0, int64_t off, int64_t ppb, uint64_t step,
		 int n, const int64_t *noise, int nn)
{
	for (int i = 0; i < n; i++) {
		uint64_t rq = rq0 + (uint64_t)i * step;
		int64_t drift = (int64_t)((double)(rq - rq0) * (double)ppb / 1e9);

		clockfit_add(f, rq, rq + (uint64_t)(off + drift + (nn ? noise[i % nn] : 0)));
	}
}

/* A drift of 12.5 ppm over an hour of pairs, a negative offset (mono behind rq, as on the
 * project's machine): the drift to the ppb, a residual within the pairs' rounding to whole ns
 * and the sums' over 45 ms of drift (2 ns measured). */
static void test_drift_exact(void **state)
{
	struct clockfit_cpu f = { 0 };
	struct pwz_sched_clock out = { .stamped = 7 };

	(void)state;
	feed(&f, 5000000000000ull, -1931532, 12500, 50000000ull, 72000, NULL, 0);
	assert_true(clockfit_solve(&f, 1, &out));
	assert_int_equal(out.pairs, 72000);
	assert_in_range(out.drift_ppb, 12499, 12501);
	assert_in_range(out.residual_ns, 0, 3);
	assert_int_equal(out.spread_ns, 0);
	assert_int_equal(out.stamped, 7);	/* left as it was */
}

/* Noise of +-100 ns around the line: the residual is its root mean square (100), the drift
 * still found. */
static void test_noise(void **state)
{
	static const int64_t noise[] = { 100, -100 };
	struct clockfit_cpu f = { 0 };
	struct pwz_sched_clock out;

	(void)state;
	feed(&f, 1000, 42, -3000, 50000000ull, 2000, noise, 2);
	assert_true(clockfit_solve(&f, 1, &out));
	assert_in_range(out.drift_ppb, -3001, -2999);
	assert_in_range(out.residual_ns, 99, 101);
}

/* Two CPUs 700 ns apart with the same drift: spread 700, drift the same; a third CPU with 2
 * pairs counts in pairs only. */
static void test_cpus(void **state)
{
	struct clockfit_cpu f[3] = { 0 };
	struct pwz_sched_clock out;

	(void)state;
	feed(&f[0], 9000000000ull, 5000, 2000, 10000000ull, 500, NULL, 0);
	feed(&f[1], 9000000000ull, 5700, 2000, 10000000ull, 500, NULL, 0);
	feed(&f[2], 9000000000ull, 999999, 900000, 10000000ull, 2, NULL, 0);
	assert_true(clockfit_solve(f, 3, &out));
	assert_int_equal(out.pairs, 1002);
	assert_in_range(out.drift_ppb, 1999, 2001);
	assert_in_range(out.spread_ns, 699, 701);
}

/* Fewer than 3 pairs on every CPU: no fit, all zero but the pairs. */
static void test_too_few(void **state)
{
	struct clockfit_cpu f[2] = { 0 };
	struct pwz_sched_clock out = { .drift_ppb = 5, .residual_ns = 5 };

	(void)state;
	feed(&f[0], 100, 0, 0, 1000, 2, NULL, 0);
	assert_false(clockfit_solve(f, 2, &out));
	assert_int_equal(out.pairs, 2);
	assert_int_equal(out.drift_ppb, 0);
	assert_int_equal(out.residual_ns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drift_exact),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_too_few),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
