// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/fmt.c: the unit at each boundary, rounding, digits, ranges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fmt.h"

static void dur(uint64_t ns, const char *want)
{
	char buf[FMT_DURATION_MAX];

	assert_string_equal(fmt_duration(buf, sizeof(buf), ns), want);
}

static void range(uint64_t lo, uint64_t hi, const char *want)
{
	char buf[FMT_DURATION_MAX];

	assert_string_equal(fmt_duration_range(buf, sizeof(buf), lo, hi), want);
}

/* The unit is the largest in which the rounded value is at least 1, on each side of each
 * boundary. */
static void test_unit_boundaries(void **state)
{
	(void)state;
	dur(0, "0 ns");
	dur(1, "1 ns");
	dur(999, "999 ns");
	dur(1000, "1.00 us");
	dur(999999, "1.00 ms");		/* 999.999 us rounds to 1000 us: 1.00 ms */
	dur(999499, "999 us");
	dur(999500, "1.00 ms");		/* a half rounds up, and carries into ms */
	dur(1000000, "1.00 ms");
	dur(999499999, "999 ms");
	dur(999500000, "1.00 s");
	dur(1000000000, "1.00 s");
	dur(999499999999ull, "999 s");
	dur(999500000000ull, "1000 s");	/* whole seconds from 1000 s */
	dur(3600000000000ull, "3600 s");
	dur(UINT64_MAX, "18446744074 s");
}

/* Three significant digits, trailing zeros kept, halves up; a carry drops a decimal. */
static void test_digits_and_rounding(void **state)
{
	(void)state;
	dur(1049, "1.05 us");		/* 1.049 */
	dur(1044, "1.04 us");
	dur(1045, "1.05 us");		/* half up */
	dur(10449, "10.4 us");
	dur(10450, "10.5 us");
	dur(104499, "104 us");
	dur(104500, "105 us");
	dur(9995000, "10.0 ms");	/* 9.995 ms: the carry makes 10.0, not 10.00 */
	dur(9994999, "9.99 ms");
	dur(99950000, "100 ms");
	dur(200040000, "200 ms");
	dur(22257000, "22.3 ms");
	dur(1500000000, "1.50 s");
	dur(59949999999ull, "59.9 s");
	dur(59950000000ull, "60.0 s");
}

/* Every value read back lies within half a unit of its last digit, which is the third
 * significant one (or the nanosecond, or the second from 1000 s). */
static void test_read_back(void **state)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char buf[FMT_DURATION_MAX], num[32], unit[8];
	uint64_t ns = 1;

	(void)state;
	srand(7);
	for (int i = 0; i < 20000; i++) {
		double v, step;
		int digits = 0, dec = 0, k;
		const char *dot;

		ns = (uint64_t)rand() * (uint64_t)rand() >> (rand() % 40);
		fmt_duration(buf, sizeof(buf), ns);
		assert_int_equal(sscanf(buf, "%31s %7s", num, unit), 2);
		for (k = 0; k < 4 && strcmp(unit, units[k].name); k++)
			;
		assert_true(k < 4);
		v = strtod(num, NULL);
		dot = strchr(num, '.');
		dec = dot ? (int)strlen(dot + 1) : 0;
		for (const char *p = num; *p; p++)
			digits += *p >= '0' && *p <= '9' && (digits || *p != '0');
		step = units[k].ns;
		for (int d = 0; d < dec; d++)
			step /= 10;
		assert_true((double)ns >= v * units[k].ns - step / 2 - 1e-6 * step);
		assert_true((double)ns < v * units[k].ns + step / 2 + 1e-6 * step);
		/* at least 1 in its unit, and under 1000 unless whole seconds */
		assert_true(v >= 1 || ns == 0);
		assert_true(v < 1000 || (k == 3 && dec == 0));
		if (k > 0 && v < 1000)
			assert_int_equal(digits, 3);
	}
}

/* A range is written in the unit of its top, its bottom to as many decimals. */
static void test_ranges(void **state)
{
	(void)state;
	/* the whist bucket [2^27, 2^27 + 2^25): 134.2 to 167.8 ms */
	range(134217728, 167772159, "134-168 ms");
	range(1049000, 1062000, "1.05-1.06 ms");
	range(918000, 1050000, "0.92-1.05 ms");	/* the bottom in the top's unit */
	range(0, 1023, "0.00-1.02 us");		/* bucket 0 of the wait histogram */
	range(500, 900, "500-900 ns");
	range(1062000, 1049000, "1.05-1.06 ms");	/* ends given the other way */
	/* the same value: one duration */
	range(200040000, 200040000, "200 ms");
	/* ends that read the same at three digits: decimals until they differ */
	range(184549376, 184600000, "184.5-184.6 ms");
	range(1000000000, 1000000001, "1.000000000-1.000000001 s");
	/* the top's carry decides the unit: 999.6 us is 1.00 ms */
	range(900000, 999600, "0.90-1.00 ms");
	/* no top */
	range(34359738368ull, UINT64_MAX, ">=34.4 s");
}

/* An average to the nearest nanosecond, halves up; none without a count. */
static void test_average(void **state)
{
	char buf[FMT_DURATION_MAX];

	(void)state;
	assert_string_equal(fmt_duration_avg(buf, sizeof(buf), 7100, 16), "444 ns");	/* 443.75 */
	assert_string_equal(fmt_duration_avg(buf, sizeof(buf), 7, 2), "4 ns");		/* 3.5 */
	assert_string_equal(fmt_duration_avg(buf, sizeof(buf), 2000000, 4), "500 us");
	assert_string_equal(fmt_duration_avg(buf, sizeof(buf), UINT64_MAX, 1), "18446744074 s");
	assert_string_equal(fmt_duration_avg(buf, sizeof(buf), 5, 0), "-");
}

/* The buffer is never overrun, the result cut and NUL-terminated. */
static void test_small_buffers(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'Z', sizeof(buf));
	fmt_duration(buf, 5, 1049);
	assert_string_equal(buf, "1.05");
	assert_int_equal(buf[5], 'Z');
	fmt_duration_range(buf, 6, 1049000, 1062000);
	assert_string_equal(buf, "1.05-");
	fmt_duration(buf, 0, 1);	/* size 0: nothing written */
	assert_string_equal(buf, "1.05-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_boundaries),
		cmocka_unit_test(test_digits_and_rounding),
		cmocka_unit_test(test_read_back),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_average),
		cmocka_unit_test(test_small_buffers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
