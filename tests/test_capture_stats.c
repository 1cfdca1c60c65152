// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/capture_stats.c: the --stats report from synthetic kernel aggregates. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "capture_stats.h"

static const char *names(void *ctx, uint32_t tid)
{
	(void)ctx;
	return tid == 10 ? "vm1.vcpu0" : tid == 20 ? "worker" : NULL;
}

/* The report line that starts with prefix (NULL if none). */
static const char *line_of(const char *text, const char *prefix)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, prefix, strlen(prefix)))
			return p;
	return NULL;
}

static void test_report(void **state)
{
	struct pwz_meta m = { 0 };
	struct pwz_cpu_agg cpu[] = {
		{ .tid = 20, .cpu = 0, .runtime_ns = 100000000, .switches = 7, .voluntary = 7 },
		{ .tid = 10, .cpu = 0, .runtime_ns = 300000000, .switches = 30, .voluntary = 20,
		  .involuntary = 10 },
		{ .tid = 10, .cpu = 1, .runtime_ns = 200000000, .switches = 5, .voluntary = 5 },
		{ .tid = 30, .cpu = 1, .runtime_ns = 1000000, .switches = 1, .voluntary = 1 },
	};
	struct pwz_wait_agg wait[] = {
		{ .tid = 10, .count = 4, .wait_ns = 2000000, .max_ns = 1000000 },
	};
	struct pwz_kvm_agg kvm[2];
	struct capture_stats_in in = {
		.meta = &m, .cpu = cpu, .nr_cpu = 4, .wait = wait, .nr_wait = 1, .kvm = kvm,
		.nr_kvm = 2, .name = names,
	};
	char *text = NULL, name[64];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	const char *l10, *l20, *l30, *lio, *lunk;
	unsigned tid;
	double rt, pct, avgw, maxw, hms, avg;
	unsigned long long sw, vol, invol, waits, count;

	(void)state;
	m.duration_ns = 1000000000;
	m.nr_cpus = 2;
	assert_int_equal(pwz_meta_add_exit_name(&m, PWZ_ISA_SVM, 0x7b, "io"), 0);
	assert_int_equal(pwz_meta_add_drop(&m, "slice", 3), 0);
	memset(kvm, 0, sizeof(kvm));
	kvm[0] = (struct pwz_kvm_agg){ .tid = 10, .isa = PWZ_ISA_SVM, .reason = 0x7b, .count = 700,
				       .handling_ns = 7000000 };
	kvm[0].hist[pwz_hist_bucket(10000)] = 700;
	kvm[1] = (struct pwz_kvm_agg){ .tid = 10, .isa = PWZ_ISA_SVM, .reason = 0x999, .count = 300 };

	assert_non_null(f);
	assert_int_equal(capture_stats_write(f, &in), 0);
	fclose(f);

	l10 = line_of(text, "vm1.vcpu0 ");
	l20 = line_of(text, "worker ");
	l30 = line_of(text, "tid-30 ");
	assert_non_null(l10);
	assert_non_null(l20);
	assert_non_null(l30);
	assert_true(l10 < l20 && l20 < l30);	/* by runtime */
	assert_int_equal(sscanf(l10, "%63s %u %lf %lf %llu %llu %llu %llu %lf %lf", name, &tid, &rt, &pct,
				&sw, &vol, &invol, &waits, &avgw, &maxw), 10);
	assert_int_equal(tid, 10);
	assert_true(rt > 499.999 && rt < 500.001);	/* both CPUs */
	assert_true(pct > 49.99 && pct < 50.01);
	assert_int_equal(sw, 35);
	assert_int_equal(vol, 25);
	assert_int_equal(invol, 10);
	assert_int_equal(waits, 4);
	assert_true(avgw > 0.4999 && avgw < 0.5001);
	assert_true(maxw > 0.9999 && maxw < 1.0001);

	lio = strstr(text, " io ");
	assert_non_null(lio);
	assert_int_equal(sscanf(lio, " io %llu %lf %lf %lf", &count, &pct, &hms, &avg), 4);
	assert_int_equal(count, 700);
	assert_true(pct > 69.99 && pct < 70.01);
	assert_true(hms > 6.999 && hms < 7.001);
	assert_true(avg > 9.999 && avg < 10.001);
	lunk = strstr(text, "svm 0x999");	/* unknown code kept as a number */
	assert_non_null(lunk);
	assert_true(lunk > lio);	/* by count within the task */
	assert_non_null(strstr(text, "3 records dropped"));
	free(text);
	pwz_meta_free(&m);
}

static void test_empty(void **state)
{
	struct pwz_meta m = { 0 };
	struct capture_stats_in in = { .meta = &m };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(capture_stats_write(f, &in), 0);
	fclose(f);
	assert_non_null(strstr(text, "KVM exits\n(none)"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
