// SPDX-License-Identifier: GPL-2.0
/* Strict decimal parsing of durations and counts given on the command line. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "numopt.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int numopt_parse_ns(const char *s, unsigned int unit_digits, uint64_t max_ns, uint64_t *ns)
{
	size_t int_digits = strspn(s, "0123456789"), frac_digits = 0;
	const char *p = s + int_digits;
	long last = LONG_MIN, exp = 0, pos;
	bool neg_exp = false;
	double x;

	/* the shape first: strtod alone takes "nan", "inf", hex, signs and blanks */
	if (*p == '.') {
		frac_digits = strspn(p + 1, "0123456789");
		p += 1 + frac_digits;
	}
	if (!int_digits && !frac_digits)
		return -EINVAL;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			neg_exp = *p++ == '-';
		if (!is_digit(*p))
			return -EINVAL;
		for (; is_digit(*p); p++)
			exp = exp < 100000 ? exp * 10 + (*p - '0') : exp;
		if (neg_exp)
			exp = -exp;
	}
	if (*p)
		return -EINVAL;
	/* the last non-zero digit's decimal place (1 = tenths, 0 = units, -1 = tens) */
	for (size_t i = 0; i < int_digits; i++) {
		pos = -(long)(int_digits - 1 - i);
		if (s[i] != '0' && pos > last)
			last = pos;
	}
	for (size_t i = 0; i < frac_digits; i++) {
		if (s[int_digits + 1 + i] != '0')
			last = (long)i + 1;
	}
	if (last != LONG_MIN && last - exp > (long)unit_digits)
		return -EDOM;
	x = strtod(s, NULL) * pow(10, unit_digits);
	if (!isfinite(x) || x > (double)max_ns)
		return -ERANGE;
	*ns = (uint64_t)llround(x);
	return 0;
}

const char *numopt_strerror(int err)
{
	switch (err) {
	case -EDOM:
		return "is finer than a nanosecond";
	case -ERANGE:
		return "is too large";
	default:
		return "is not a plain decimal number";
	}
}

int numopt_parse_count(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *p;

	if (!*s)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (!is_digit(*p))
			return -EINVAL;
		if (v > max / 10 || v * 10 + (uint64_t)(*p - '0') > max)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (!v)
		return -ERANGE;
	*out = v;
	return 0;
}
