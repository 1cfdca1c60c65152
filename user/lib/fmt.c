// SPDX-License-Identifier: GPL-2.0
/* Durations as text by the one rule of fmt.h. */
#include <stdio.h>
#include <string.h>
#include "fmt.h"

#define SIG_DIGITS 3

static const struct {
	uint64_t ns;		/* nanoseconds in one */
	int max_dec;		/* decimals down to the nanosecond */
	const char *name;
} units[] = {
	{ 1, 0, "ns" }, { 1000, 3, "us" }, { 1000000, 6, "ms" }, { 1000000000, 9, "s" },
};
#define NR_UNITS (sizeof(units) / sizeof(units[0]))

static const uint64_t pow10s[] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

/* v / div rounded to the nearest, halves up, with no overflow. */
static uint64_t div_round(uint64_t v, uint64_t div)
{
	return v / div + (v % div >= div - div / 2);
}

static int ndigits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* The unit and decimals of ns by the rule: *u an index of units[], *dec its decimals. */
static void choose(uint64_t ns, size_t *u, int *dec)
{
	size_t i = 0;
	int d;

	while (i + 1 < NR_UNITS && ns >= units[i + 1].ns)
		i++;
	d = SIG_DIGITS - ndigits(ns / units[i].ns);
	if (d < 0 || !units[i].max_dec)
		d = 0;
	/* rounding may carry into a fourth digit: 9.996 ms is 10.0 ms, 999.6 us is 1.00 ms */
	while (div_round(ns, units[i].ns / pow10s[d]) >= pow10s[SIG_DIGITS]) {
		if (d > 0) {
			d--;
		} else if (i + 1 < NR_UNITS) {
			i++;
			d = SIG_DIGITS - 1;
		} else {
			break;		/* whole seconds from 1000 s */
		}
	}
	*u = i;
	*dec = d;
}

/* ns in unit u with dec decimals, no unit name, into buf. */
static void number(char *buf, size_t size, uint64_t ns, size_t u, int dec)
{
	uint64_t q = div_round(ns, units[u].ns / pow10s[dec]);

	if (dec)
		snprintf(buf, size, "%llu.%0*llu", (unsigned long long)(q / pow10s[dec]), dec,
			 (unsigned long long)(q % pow10s[dec]));
	else
		snprintf(buf, size, "%llu", (unsigned long long)q);
}

const char *fmt_duration(char *buf, size_t size, uint64_t ns)
{
	char num[32];
	size_t u;
	int dec;

	choose(ns, &u, &dec);
	number(num, sizeof(num), ns, u, dec);
	if (size)
		snprintf(buf, size, "%s %s", num, units[u].name);
	return buf;
}

const char *fmt_duration_avg(char *buf, size_t size, uint64_t total_ns, uint64_t count)
{
	if (!count) {
		if (size)
			snprintf(buf, size, "-");
		return buf;
	}
	return fmt_duration(buf, size, div_round(total_ns, count));
}

const char *fmt_duration_range(char *buf, size_t size, uint64_t lo, uint64_t hi)
{
	char a[32], b[32];
	size_t u;
	int dec;

	if (lo > hi) {
		uint64_t t = lo;

		lo = hi;
		hi = t;
	}
	if (hi == UINT64_MAX) {
		if (size)
			snprintf(buf, size, ">=%s", fmt_duration(a, sizeof(a), lo));
		return buf;
	}
	if (lo == hi)
		return fmt_duration(buf, size, lo);
	choose(hi, &u, &dec);
	for (;;) {
		number(a, sizeof(a), lo, u, dec);
		number(b, sizeof(b), hi, u, dec);
		if (strcmp(a, b) || dec >= units[u].max_dec)
			break;
		dec++;
	}
	if (size)
		snprintf(buf, size, "%s-%s %s", a, b, units[u].name);
	return buf;
}
