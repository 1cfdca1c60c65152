// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/numopt.c: strict decimal durations and counts of the command line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "numopt.h"

#define MAX_NS 1000000000000000000ULL	/* 1e12 ms, pwz-render's bound */

static void ms_is(const char *s, uint64_t want)
{
	uint64_t ns = 12345;

	assert_int_equal(numopt_parse_ns(s, 6, MAX_NS, &ns), 0);
	assert_int_equal(ns, want);
}

static void ms_refused(const char *s, int err)
{
	uint64_t ns = 12345;

	assert_int_equal(numopt_parse_ns(s, 6, MAX_NS, &ns), err);
	assert_int_equal(ns, 12345);	/* unchanged */
}

static void test_ms_accepted(void **state)
{
	(void)state;
	ms_is("0", 0);
	ms_is("250", 250000000);
	ms_is("1.5", 1500000);
	ms_is(".25", 250000);
	ms_is("7.", 7000000);
	ms_is("0.000001", 1);			/* one nanosecond */
	ms_is("1.000000500e1", 10000005);	/* 10.000005 ms: whole ns after the exponent */
	ms_is("2.5e2", 250000000);
	ms_is("1E-6", 1);
	ms_is("10e-7", 1);			/* 1.0e-6 written with a trailing zero */
	ms_is("0.0000010000", 1);		/* trailing zeros are not sub-ns digits */
	ms_is("1000000000000", MAX_NS);
}

static void test_ms_refused(void **state)
{
	(void)state;
	ms_refused("", -EINVAL);
	ms_refused(".", -EINVAL);
	ms_refused("nan", -EINVAL);
	ms_refused("inf", -EINVAL);
	ms_refused("infinity", -EINVAL);
	ms_refused("0x10", -EINVAL);
	ms_refused("0x1p3", -EINVAL);
	ms_refused("-1", -EINVAL);
	ms_refused("+1", -EINVAL);
	ms_refused(" 5", -EINVAL);
	ms_refused("5 ", -EINVAL);
	ms_refused("1e", -EINVAL);
	ms_refused("1e+", -EINVAL);
	ms_refused("1.2.3", -EINVAL);
	ms_refused("0.0000001", -EDOM);		/* 0.1 ns */
	ms_refused("1.0000005", -EDOM);
	ms_refused("1e-7", -EDOM);
	ms_refused("15e-8", -EDOM);		/* 0.15 ns */
	ms_refused("1000000000000.001", -ERANGE);
	ms_refused("1e400", -ERANGE);
	ms_refused("1e99999999999999999999", -ERANGE);
}

static void test_seconds(void **state)
{
	uint64_t ns = 0;

	(void)state;
	assert_int_equal(numopt_parse_ns("0.000000001", 9, 86400000000000ULL, &ns), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(numopt_parse_ns("86400", 9, 86400000000000ULL, &ns), 0);
	assert_int_equal(ns, 86400000000000ULL);
	assert_int_equal(numopt_parse_ns("86400.000000001", 9, 86400000000000ULL, &ns), -ERANGE);
	assert_int_equal(numopt_parse_ns("1e-10", 9, 86400000000000ULL, &ns), -EDOM);
}

static void test_count(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(numopt_parse_count("1", 1024, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(numopt_parse_count("1024", 1024, &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(numopt_parse_count("18446744073709551615", UINT64_MAX, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	v = 7;
	assert_int_equal(numopt_parse_count("1025", 1024, &v), -ERANGE);
	assert_int_equal(numopt_parse_count("18446744073709551616", UINT64_MAX, &v), -ERANGE);
	assert_int_equal(numopt_parse_count("0", 1024, &v), -ERANGE);
	assert_int_equal(numopt_parse_count("", 1024, &v), -EINVAL);
	assert_int_equal(numopt_parse_count("0x10", 1024, &v), -EINVAL);
	assert_int_equal(numopt_parse_count("+5", 1024, &v), -EINVAL);
	assert_int_equal(numopt_parse_count(" 5", 1024, &v), -EINVAL);
	assert_int_equal(numopt_parse_count("1e3", 1024, &v), -EINVAL);
	assert_int_equal(v, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ms_accepted),
		cmocka_unit_test(test_ms_refused),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
