// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/report.c: the --stats report of a summary of synthetic aggregates. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "report.h"
#include "trace.h"

/* The report of a trace made of m, two named tasks and the aggregates given. */
static char *report(struct pwz_meta *m, const struct pwz_cpu_agg *cpu, size_t nr_cpu,
		    const struct pwz_wait_agg *wait, size_t nr_wait, const struct pwz_kvm_agg *kvm,
		    size_t nr_kvm)
{
	struct pwz_task t10 = { .tid = 10, .tgid = 10, .comm = "CPU 0/KVM", .name = "vm1.vcpu0" };
	struct pwz_task t20 = { .tid = 20, .tgid = 20, .comm = "worker", .name = "worker" };
	struct cdict_visitor v;
	struct trace *t = trace__new("test", false, &v);
	struct summary *s;
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(t);
	assert_non_null(f);
	assert_int_equal(v.meta(v.ctx, m), 0);
	assert_int_equal(v.task(v.ctx, &t20), 0);
	assert_int_equal(v.task(v.ctx, &t10), 0);
	for (size_t i = 0; i < nr_cpu; i++)
		assert_int_equal(v.cpu_agg(v.ctx, &cpu[i]), 0);
	for (size_t i = 0; i < nr_wait; i++)
		assert_int_equal(v.wait_agg(v.ctx, &wait[i]), 0);
	for (size_t i = 0; i < nr_kvm; i++)
		assert_int_equal(v.kvm_agg(v.ctx, &kvm[i]), 0);
	trace__settle(t);
	t->info.has_aggregates = true;
	s = summary__new(t, NULL, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(report_write_stats(f, s, &t->meta), 0);
	fclose(f);
	summary__free(s);
	trace__free(t);
	return text;
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
		{ .tid = 30, .cpu = 1, .runtime_ns = 1000000, .switches = 1, .voluntary = 1,
		  .unseen = 1, .unseen_ns = 4000000 },
		{ .tid = 0, .cpu = 1, .runtime_ns = 700000000, .switches = 9, .voluntary = 9 },
	};
	struct pwz_wait_agg wait[] = {
		{ .tid = 10, .count = 4, .wait_ns = 2000000, .max_ns = 1000000 },
	};
	char p50[32], p99[32], u[6][8];
	struct pwz_kvm_agg kvm[2];
	char *text, name[64];
	const char *l10, *l20, *l30, *lio, *lunk, *lcpu;
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

	/* three waits of 333.3 us, one of 1 ms: p50 in [327.68, 393.216) us, p99 in the bucket
	 * [917.504, 1048.576) us, cut to the longest wait */
	wait[0].hist[pwz_whist_bucket(333333)] = 3;
	wait[0].hist[pwz_whist_bucket(1000000)] = 1;
	text = report(&m, cpu, 5, wait, 1, kvm, 2);

	l10 = line_of(text, "vm1.vcpu0 ");
	l20 = line_of(text, "worker ");
	l30 = line_of(text, "30 ");	/* no task record: named by its tid */
	assert_non_null(l10);
	assert_non_null(l20);
	assert_non_null(l30);
	assert_true(l10 < l20 && l20 < l30);	/* by runtime */
	/* durations by user/lib/fmt.h's rule: its unseen time, kept out of runtime; no waits:
	 * no average, longest or percentiles */
	assert_non_null(strstr(l30, "  1.00 ms    0.10         1         1         0         0"
				    "          -          -    4.00 ms                   -"
				    "                   -\n"));
	/* CPU 1: threads 200 + 1 + 700 ms, 4 unseen, the rest of the 1000 ms unaccounted */
	lcpu = line_of(text, "1      ");
	assert_non_null(lcpu);
	assert_non_null(strstr(text, "\n1      " "      901 ms" "      4.00 ms" "      95.0 ms\n"));
	lcpu = line_of(text, "0      ");	/* every thread captured: the rest is unaccounted */
	assert_non_null(lcpu);
	assert_int_equal(sscanf(lcpu, "%u %lf %7s %lf %7s %lf %7s", &tid, &rt, u[0], &hms, u[1],
				&avg, u[2]), 7);
	assert_true(rt == 400 && !strcmp(u[0], "ms") && avg == 600 && !strcmp(u[2], "ms"));
	assert_int_equal(sscanf(l10, "%63s %u %lf %7s %lf %llu %llu %llu %llu %lf %7s %lf %7s %lf %7s "
				"%31s %7s %31s %7s", name, &tid, &rt, u[0], &pct, &sw, &vol, &invol,
				&waits, &avgw, u[1], &maxw, u[2], &hms, u[3], p50, u[4], p99, u[5]),
			 19);
	/* the buckets: [327.68, 393.216) us, [917.504, 1048.576) us cut to the longest wait */
	assert_string_equal(p50, "328-393");
	assert_string_equal(u[4], "us");
	assert_string_equal(p99, "0.92-1.00");
	assert_string_equal(u[5], "ms");
	assert_int_equal(tid, 10);
	assert_true(rt == 500 && !strcmp(u[0], "ms"));	/* both CPUs */
	assert_true(pct > 49.99 && pct < 50.01);
	assert_int_equal(sw, 35);
	assert_int_equal(vol, 25);
	assert_int_equal(invol, 10);
	assert_int_equal(waits, 4);
	assert_true(avgw == 500 && !strcmp(u[1], "us"));
	assert_true(maxw == 1 && !strcmp(u[2], "ms"));
	assert_true(hms == 0 && !strcmp(u[3], "ns"));

	lio = strstr(text, " io ");
	assert_non_null(lio);
	/* 7 ms over 700 exits, all in the log2 bucket [8192, 16384) ns */
	assert_int_equal(sscanf(lio, " io %llu %lf %lf %7s %lf %7s %31s %7s %31s", &count, &pct,
				&hms, u[0], &avg, u[1], p50, u[2], p99), 9);
	assert_int_equal(count, 700);
	assert_true(pct > 69.99 && pct < 70.01);
	assert_true(hms == 7 && !strcmp(u[0], "ms"));
	assert_true(avg == 10 && !strcmp(u[1], "us"));
	assert_string_equal(p50, "8.2-16.4");
	assert_string_equal(p99, "8.2-16.4");
	assert_string_equal(u[2], "us");
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
	char *text;

	(void)state;
	text = report(&m, NULL, 0, NULL, 0, NULL, 0);
	assert_non_null(strstr(text, "KVM exits\n(none)"));
	free(text);
}

/* R9: the report shows, after its task table, the threads whose ready time as lived and as
 * the kernel charged it differ by more than a bucket (summary_ready_differs()), both figures:
 * 10 here (18 ms charged against 20 ms lived, -10 %), not 20 (1 % apart); nothing without
 * the charge (has_run_delay false). */
static void test_ready_kernel(void **state)
{
	struct pwz_cpu_agg cpu[] = {
		{ .tid = 10, .cpu = 0, .runtime_ns = 300000000, .switches = 30 },
		{ .tid = 20, .cpu = 1, .runtime_ns = 100000000, .switches = 7 },
	};
	struct pwz_wait_agg wait[] = {
		{ .tid = 10, .count = 4, .wait_ns = 20000000, .max_ns = 9000000,
		  .run_delay_ns = 25000000, .run_delay_wait_ns = 20000000,
		  .run_delay_unmeasured_ns = 7000000 },
		{ .tid = 20, .count = 2, .wait_ns = 10000000, .max_ns = 6000000,
		  .run_delay_ns = 9900000, .run_delay_wait_ns = 10000000 },
	};
	const char *rows = "     TID  NAME                                    READY       KERNEL    DIFF%\n"
			   "      10  vm1.vcpu0                             20.0 ms      25.0 ms    -10.0\n"
			   "\nCPUs (";
	const char *title = "\nready time as lived and as the kernel charged it (run_delay: schedstat, libvirt, KubeVirt), where they differ by more than 1 %:\n";

	(void)state;
	for (int known = 0; known < 2; known++) {
		struct pwz_meta m = { .duration_ns = 1000000000, .nr_cpus = 2, .has_wait = true,
				      .has_run_delay = known };
		char *text = report(&m, cpu, 2, wait, 2, NULL, 0);
		const char *at = strstr(text, title), *cpus = strstr(text, "\nCPUs (");

		assert_int_equal(at != NULL, known);
		assert_null(strstr(text, "9.90 ms"));
		if (known) {
			/* after the task table, before the CPUs; one row: 10's */
			assert_true(at < cpus);
			at += strlen(title);
			assert_int_equal(strncmp(at, rows, strlen(rows)), 0);
		}
		free(text);
		pwz_meta_free(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_ready_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
