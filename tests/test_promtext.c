// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/promtext.c: names, label escaping, sample values, sticky errors. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "promtext.h"

/* The page of pt as a NUL-terminated string (the caller frees it). */
static char *page(const struct promtext *pt)
{
	char *s = malloc(pt->len + 1);

	assert_non_null(s);
	memcpy(s, pt->buf, pt->len);
	s[pt->len] = '\0';
	return s;
}

/* The sample line of one label a=value with value 1. */
static void check_label(const char *value, const char *want)
{
	struct promtext pt;
	struct promtext_label l = { "a", value };
	char *s;

	promtext_init(&pt);
	promtext_sample_u64(&pt, "m", &l, 1, 1);
	assert_int_equal(promtext_error(&pt), 0);
	s = page(&pt);
	assert_string_equal(s, want);
	free(s);
	promtext_release(&pt);
}

static void test_label_escapes(void **state)
{
	(void)state;
	check_label("plain", "m{a=\"plain\"} 1\n");
	check_label("back\\slash", "m{a=\"back\\\\slash\"} 1\n");
	check_label("say \"hi\"", "m{a=\"say \\\"hi\\\"\"} 1\n");
	check_label("two\nlines", "m{a=\"two\\nlines\"} 1\n");
	check_label("", "m 1\n");	/* an empty value: no label (the format reads it so) */
	/* valid UTF-8 kept, each invalid byte one '?', tab and other controls kept as they are */
	check_label("\xc3\xa9t\xc3\xa9", "m{a=\"\xc3\xa9t\xc3\xa9\"} 1\n");
	check_label("x\xff\xc3(y", "m{a=\"x?" "?(y\"} 1\n");
	check_label("t\tb", "m{a=\"t\tb\"} 1\n");
}

/* Labels with an empty value are left out wherever they stand; a NULL value is an error. */
static void test_empty_labels(void **state)
{
	struct promtext_label l[3] = { { "a", "" }, { "b", "y" }, { "c", "" } };
	struct promtext pt;
	char *s;

	(void)state;
	promtext_init(&pt);
	promtext_sample_u64(&pt, "m", l, 3, 1);
	l[0].value = "x";
	promtext_sample_u64(&pt, "m", l, 3, 2);
	l[1].value = "";
	l[2].value = "z";
	promtext_sample_u64(&pt, "m", l, 3, 3);
	assert_int_equal(promtext_error(&pt), 0);
	assert_int_equal(pt.series, 3);
	s = page(&pt);
	assert_string_equal(s, "m{b=\"y\"} 1\nm{a=\"x\",b=\"y\"} 2\nm{a=\"x\",c=\"z\"} 3\n");
	free(s);
	l[1].value = NULL;
	promtext_sample_u64(&pt, "m", l, 3, 4);
	assert_int_equal(promtext_error(&pt), -EINVAL);
	promtext_release(&pt);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(promtext_metric_name_ok("pwz_cpu_busy_seconds_total"));
	assert_true(promtext_metric_name_ok("job:rate5m"));
	assert_true(promtext_metric_name_ok("_x9"));
	assert_false(promtext_metric_name_ok("9x"));
	assert_false(promtext_metric_name_ok("a-b"));
	assert_false(promtext_metric_name_ok(""));
	assert_false(promtext_metric_name_ok("a b"));
	assert_true(promtext_label_name_ok("vcpu"));
	assert_true(promtext_label_name_ok("_v"));
	assert_false(promtext_label_name_ok("__name__"));
	assert_false(promtext_label_name_ok("a:b"));
	assert_false(promtext_label_name_ok("0a"));
}

static void test_family_and_values(void **state)
{
	struct promtext pt;
	struct promtext_label l[2] = { { "vm", "guest1" }, { "vcpu", "0" } };
	char *s;

	(void)state;
	promtext_init(&pt);
	promtext_family(&pt, "pwz_x_seconds_total", "counter", "Time in x.\nSecond \\ line.");
	promtext_sample_ns(&pt, "pwz_x_seconds_total", l, 2, 1000000002ull);
	promtext_sample_ns(&pt, "pwz_x_seconds_total", l, 1, 999);
	promtext_sample_u64(&pt, "pwz_x_seconds_total", NULL, 0, 18446744073709551615ull);
	promtext_sample_f(&pt, "g", NULL, 0, 0.25);
	promtext_sample_f(&pt, "g", NULL, 0, NAN);
	promtext_sample_f(&pt, "g", NULL, 0, -INFINITY);
	assert_int_equal(promtext_error(&pt), 0);
	assert_int_equal(pt.series, 6);
	s = page(&pt);
	assert_string_equal(s,
		"# HELP pwz_x_seconds_total Time in x.\\nSecond \\\\ line.\n"
		"# TYPE pwz_x_seconds_total counter\n"
		"pwz_x_seconds_total{vm=\"guest1\",vcpu=\"0\"} 1.000000002\n"
		"pwz_x_seconds_total{vm=\"guest1\"} 0.000000999\n"
		"pwz_x_seconds_total 18446744073709551615\n"
		"g 0.25\n"
		"g NaN\n"
		"g -Inf\n");
	free(s);
	/* reset keeps nothing of the page */
	promtext_reset(&pt);
	assert_int_equal(pt.len, 0);
	assert_int_equal(pt.series, 0);
	promtext_release(&pt);
}

/* A bad name or type writes nothing of its line, and nothing after it. */
static void test_errors_sticky(void **state)
{
	struct promtext pt;
	struct promtext_label bad = { "__reserved", "v" };
	size_t len;

	(void)state;
	promtext_init(&pt);
	promtext_sample_u64(&pt, "ok", NULL, 0, 1);
	len = pt.len;
	promtext_sample_u64(&pt, "ok", &bad, 1, 2);
	assert_int_equal(promtext_error(&pt), -EINVAL);
	assert_int_equal(pt.len, len);
	promtext_sample_u64(&pt, "ok", NULL, 0, 3);
	assert_int_equal(pt.len, len);
	assert_int_equal(pt.series, 1);
	promtext_reset(&pt);
	promtext_family(&pt, "x", "histogramm", "h");
	assert_int_equal(promtext_error(&pt), -EINVAL);
	assert_int_equal(pt.len, 0);
	promtext_reset(&pt);
	promtext_sample_u64(&pt, "bad-name", NULL, 0, 1);
	assert_int_equal(promtext_error(&pt), -EINVAL);
	assert_int_equal(pt.len, 0);
	promtext_release(&pt);
}

/* A page bigger than the first allocation grows and keeps every byte. */
/* OpenMetrics: a counter family named without its samples' _total, untyped as unknown, quotes
 * in HELP escaped, "# EOF" at the end; a counter not ending in _total refused. */
static void test_openmetrics(void **state)
{
	struct promtext pt;
	char *s;

	(void)state;
	promtext_init(&pt);
	pt.openmetrics = true;
	promtext_family(&pt, "x_seconds_total", "counter", "a \"b\"");
	promtext_sample_u64(&pt, "x_seconds_total", NULL, 0, 3);
	promtext_family(&pt, "y", "untyped", "c");
	promtext_end(&pt);
	assert_int_equal(promtext_error(&pt), 0);
	s = page(&pt);
	assert_string_equal(s, "# HELP x_seconds a \\\"b\\\"\n# TYPE x_seconds counter\n"
			       "x_seconds_total 3\n# HELP y c\n# TYPE y unknown\n# EOF\n");
	free(s);
	promtext_reset(&pt);
	promtext_family(&pt, "z_seconds", "counter", "no _total");
	assert_int_equal(promtext_error(&pt), -EINVAL);
	/* the text format: as before, no "# EOF" */
	promtext_reset(&pt);
	pt.openmetrics = false;
	promtext_family(&pt, "x_total", "counter", "q \"");
	promtext_end(&pt);
	s = page(&pt);
	assert_string_equal(s, "# HELP x_total q \"\n# TYPE x_total counter\n");
	free(s);
	promtext_release(&pt);
}

/* A histogram: one family name in both formats, its samples suffixed, le in exact seconds. */
static void test_histogram(void **state)
{
	struct promtext_label l[2] = { { "vm", "a" }, { "le", NULL } };
	struct promtext pt;
	char le[PROMTEXT_SECONDS_MAX];
	char *s;

	(void)state;
	assert_string_equal(promtext_seconds(le, 1024), "0.000001024");
	assert_string_equal(promtext_seconds(le, 34359738368ull), "34.359738368");
	for (int om = 0; om < 2; om++) {
		promtext_init(&pt);
		pt.openmetrics = om;
		promtext_family(&pt, "w_seconds", "histogram", "h");
		l[1].value = promtext_seconds(le, 1024);
		promtext_sample_u64(&pt, "w_seconds_bucket", l, 2, 2);
		l[1].value = "+Inf";
		promtext_sample_u64(&pt, "w_seconds_bucket", l, 2, 3);
		promtext_sample_ns(&pt, "w_seconds_sum", l, 1, 1500);
		promtext_sample_u64(&pt, "w_seconds_count", l, 1, 3);
		assert_int_equal(promtext_error(&pt), 0);
		s = page(&pt);
		assert_string_equal(s, "# HELP w_seconds h\n# TYPE w_seconds histogram\n"
				       "w_seconds_bucket{vm=\"a\",le=\"0.000001024\"} 2\n"
				       "w_seconds_bucket{vm=\"a\",le=\"+Inf\"} 3\n"
				       "w_seconds_sum{vm=\"a\"} 0.000001500\n"
				       "w_seconds_count{vm=\"a\"} 3\n");
		free(s);
		promtext_release(&pt);
	}
}

/* The Accept header: OpenMetrics only when asked for at a q no lower than the text format's. */
static void test_accept(void **state)
{
	(void)state;
	assert_true(promtext_wants_openmetrics("application/openmetrics-text;version=1.0.0,"
		"application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	assert_true(promtext_wants_openmetrics("application/openmetrics-text"));
	assert_true(promtext_wants_openmetrics("Application/OpenMetrics-Text; version=1.0.0"));
	assert_true(promtext_wants_openmetrics("text/plain;q=0.5, application/openmetrics-text"));
	assert_false(promtext_wants_openmetrics(NULL));
	assert_false(promtext_wants_openmetrics(""));
	assert_false(promtext_wants_openmetrics("*/*"));
	assert_false(promtext_wants_openmetrics("text/plain;version=0.0.4"));
	assert_false(promtext_wants_openmetrics("application/openmetrics-text;q=0,text/plain"));
	assert_false(promtext_wants_openmetrics("application/openmetrics-text;q=0.2,text/plain;q=0.9"));
	assert_false(promtext_wants_openmetrics("application/openmetrics-text;q=0.2,*/*"));
	assert_false(promtext_wants_openmetrics("application/openmetrics-text;version=2.0.0"));
}

static void test_growth(void **state)
{
	struct promtext pt;
	char v[16];

	(void)state;
	promtext_init(&pt);
	for (int i = 0; i < 2000; i++) {
		struct promtext_label l = { "i", v };

		snprintf(v, sizeof(v), "%d", i);
		promtext_sample_u64(&pt, "m", &l, 1, (uint64_t)i);
	}
	assert_int_equal(promtext_error(&pt), 0);
	assert_int_equal(pt.series, 2000);
	assert_true(pt.len > 4096);
	assert_memory_equal(pt.buf + pt.len - 17, "m{i=\"1999\"} 1999\n", 17);
	promtext_release(&pt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_escapes),
		cmocka_unit_test(test_empty_labels),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_family_and_values),
		cmocka_unit_test(test_errors_sticky),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_accept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
