// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/tasksel.c (-t resolved against a capture) and of the one display-name
 * rule (task_label(), user/lib/tasknames.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tasksel.h"

/*
 * Three threads named cc1, two vCPUs, hogA, a recycled tid 500 (old, then new born at 5 ms), a
 * thread 400 that only its aggregates name, and the idle task on CPUs 0 and 1.
 */
static struct pwz_task tasks[] = {
	{ .tid = 100, .comm = "cc1", .name = "cc1" },
	{ .tid = 101, .comm = "cc1", .name = "cc1" },
	{ .tid = 102, .comm = "cc1", .name = "cc1" },
	{ .tid = 200, .comm = "CPU 0/KVM", .name = "vm.vcpu0" },
	{ .tid = 201, .comm = "CPU 1/KVM", .name = "vm.vcpu1" },
	{ .tid = 300, .comm = "hogA" },
	{ .tid = 500, .comm = "old", .name = "old" },
	{ .tid = 500, .since_ns = 5000000, .time_ns = 5000000, .comm = "new", .name = "new" },
	{ .tid = 600, .comm = "ksoftirqd/1", .name = "ksoftirqd/1" },
};
static struct pwz_cpu_agg cpu_aggs[] = {
	{ .tid = 0, .cpu = 0, .runtime_ns = 1 },
	{ .tid = 0, .cpu = 1, .runtime_ns = 1 },
	{ .tid = 100, .cpu = 0, .runtime_ns = 1 },
	{ .tid = 400, .cpu = 1, .runtime_ns = 1 },
	{ .tid = 500, .cpu = 0, .runtime_ns = 1 },
	{ .tid = 500, .cpu = 0, .since_ns = 5000000, .runtime_ns = 1 },
};

static void hand_trace(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->path = "hand.cdict";
	t->tasks = tasks;
	t->nr_tasks = sizeof(tasks) / sizeof(tasks[0]);
	t->cpu_aggs = cpu_aggs;
	t->nr_cpu_aggs = sizeof(cpu_aggs) / sizeof(cpu_aggs[0]);
}

/* The selection of one pattern under o; *p receives it compiled. */
static struct tasksel *sel(const struct trace *t, const struct task_label_opts *o,
			   struct task_patterns **p, const char *pattern)
{
	char err[128];

	*p = task_patterns__new(&pattern, 1, err, sizeof(err));
	assert_non_null(*p);
	return tasksel__new(*p, o, t);
}

/* How many threads one pattern selects in t under o. */
static size_t count(const struct trace *t, const struct task_label_opts *o, const char *pattern)
{
	struct task_patterns *p;
	struct tasksel *s = sel(t, o, &p, pattern);
	size_t n = tasksel__count(s);

	tasksel__free(s);
	task_patterns__free(p);
	return n;
}

static void test_label(void **state)
{
	struct task_label_opts merge = { .merge_sys = true }, tid = { .append_tid = true };
	struct task_label_opts both = { .merge_sys = true, .append_tid = true };
	char out[PWZ_NAME_MAX], small[12];

	(void)state;
	task_label(&tasks[3], NULL, out, sizeof(out));
	assert_string_equal(out, "vm.vcpu0");
	task_label(&tasks[5], NULL, out, sizeof(out));	/* no name: its comm */
	assert_string_equal(out, "hogA");
	task_label(&tasks[5], &tid, out, sizeof(out));
	assert_string_equal(out, "hogA:300");
	task_label(&tasks[8], &both, out, sizeof(out));
	assert_string_equal(out, "ksoftirqd:600");
	task_label_name("swapper/3", 0, &merge, out, sizeof(out));
	assert_string_equal(out, "swapper");
	task_label_name("", 400, &tid, out, sizeof(out));	/* unnamed: its tid */
	assert_string_equal(out, "400:400");
	/* the name is cut, never the tid */
	task_label_name("averyverylongname", 123456, &tid, small, sizeof(small));
	assert_string_equal(small, "aver:123456");
	/* --map comes first */
	{
		const char csv[] = "300,x,vcpu0,u,FULL,2,Router\n";
		char err[128];
		struct task_map *m = task_map__parse(csv, sizeof(csv) - 1, "map", err, sizeof(err));
		struct task_label_opts mapped = { .map = m, .append_tid = true };

		assert_non_null(m);
		task_label(&tasks[5], &mapped, out, sizeof(out));
		assert_string_equal(out, "Router.02.vcpu0:300");
		task_map__free(m);
	}
}

static void test_reading(void **state)
{
	struct task_label_opts none = { 0 }, tid = { .append_tid = true };
	struct trace t;

	(void)state;
	hand_trace(&t);
	assert_int_equal(count(&t, &none, "vm"), 2);		/* a word: the start, as perfwhiz */
	assert_int_equal(count(&t, &none, "vcpu0"), 0);
	assert_int_equal(count(&t, &none, "*vcpu0"), 1);	/* a glob: the whole name */
	assert_int_equal(count(&t, &none, "vm.*1"), 1);		/* a regex: from the start */
	assert_int_equal(count(&t, &none, "300"), 1);		/* a tid */
	assert_int_equal(count(&t, &none, "cc"), 3);
	/* --append-tid: the name with and without its tid */
	assert_int_equal(count(&t, &tid, "hogA"), 1);
	assert_int_equal(count(&t, &tid, "hog?"), 1);
	assert_int_equal(count(&t, &tid, "hogA:300"), 1);
	assert_int_equal(count(&t, &tid, "*:10[01]"), 2);
	assert_int_equal(count(&t, &tid, "hogA:301"), 0);
	/* a thread only its aggregates name is named by its tid */
	assert_int_equal(count(&t, &none, "400"), 1);
	assert_int_equal(count(&t, &none, "4*"), 1);
	/* the idle task, once per CPU */
	assert_int_equal(count(&t, &none, "swapper"), 2);
	assert_int_equal(count(&t, &none, "swapper/1"), 1);
}

static void test_membership(void **state)
{
	struct task_label_opts none = { 0 }, merge = { .merge_sys = true };
	struct task_summary idle0 = { .tid = 0 }, idle1 = { .tid = 0 }, both = { .tid = 0 };
	struct summary_task_cpu c0 = { .cpu = 0 }, c1 = { .cpu = 1 }, c01[] = { { .cpu = 0 },
										 { .cpu = 1 } };
	struct task_summary cc = { .tid = 101 };
	struct task_patterns *p;
	struct tasksel *s;
	struct trace t;

	(void)state;
	hand_trace(&t);
	idle0.cpus = &c0;
	idle0.nr_cpus = 1;
	idle1.cpus = &c1;
	idle1.nr_cpus = 1;
	both.cpus = c01;
	both.nr_cpus = 2;
	/* a recycled tid: each instance is its own thread */
	s = sel(&t, &none, &p, "new");
	assert_int_equal(tasksel__count(s), 1);
	assert_true(tasksel_has(s, 500, 5000000));
	assert_false(tasksel_has(s, 500, 0));
	assert_true(tasksel_has_tid(s, 500));
	assert_false(tasksel_has_tid(s, 100));
	tasksel__free(s);
	task_patterns__free(p);

	s = sel(&t, &none, &p, "swapper/1");
	assert_true(tasksel_has_row(s, &idle1));
	assert_false(tasksel_has_row(s, &idle0));
	assert_true(tasksel_has_row(s, &both));		/* merged: all its CPUs */
	assert_false(tasksel_has_row(s, &cc));
	assert_true(tasksel_has_tid(s, 0));
	tasksel__free(s);
	task_patterns__free(p);

	s = sel(&t, &merge, &p, "swapper");		/* merged names: every CPU's */
	assert_int_equal(tasksel__count(s), 2);
	assert_true(tasksel_has_row(s, &idle0));
	tasksel__free(s);
	task_patterns__free(p);

	s = sel(&t, &none, &p, "400");
	assert_true(tasksel_has(s, 400, 0));
	assert_false(tasksel_has(s, 401, 0));
	tasksel__free(s);
	task_patterns__free(p);

	/* no patterns: every thread */
	s = tasksel__new(NULL, &none, &t);
	assert_true(tasksel_has(s, 12345, 0));
	assert_true(tasksel_has_row(s, &idle0));
	tasksel__free(s);
	assert_true(tasksel_has(NULL, 1, 0));
}

/* The message names the patterns, lists each distinct close name once with its threads and
 * says what to type. */
static void test_nomatch(void **state)
{
	struct task_label_opts none = { 0 }, tid = { .append_tid = true };
	struct task_patterns *p;
	struct tasksel *s;
	struct trace t;
	char err[2048];
	const char *c;

	(void)state;
	hand_trace(&t);
	s = sel(&t, &tid, &p, "CC1");
	assert_int_equal(tasksel__count(s), 0);
	tasksel_nomatch(s, err, sizeof(err));
	assert_non_null(strstr(err, "hand.cdict: -t 'CC1' matches no thread"));
	c = strstr(err, "the names closest to it: \"cc1\" (x3)");
	assert_non_null(c);
	assert_null(strstr(c + 30, "\"cc1\""));		/* once, not once per thread */
	assert_null(strstr(err, "ksoftirqd"));		/* not close */
	assert_null(strstr(err, "cc1:10"));		/* names, not name:tid */
	assert_non_null(strstr(err, "type -t 'cc1'"));
	assert_null(strchr(err, '\n'));
	tasksel__free(s);
	task_patterns__free(p);

	s = sel(&t, &none, &p, "vcpu");
	tasksel_nomatch(s, err, sizeof(err));
	assert_non_null(strstr(err, "\"vm.vcpu0\", \"vm.vcpu1\""));
	assert_non_null(strstr(err, "type -t '*vcpu*'"));
	tasksel__free(s);
	task_patterns__free(p);

	/* nothing close: the names with the most threads first */
	s = sel(&t, &none, &p, "zzzzzzzz");
	tasksel_nomatch(s, err, sizeof(err));
	assert_non_null(strstr(err, "the capture's names: \"cc1\" (x3), \"400\", \"hogA\""));
	assert_non_null(strstr(err, "see --list"));
	/* a small buffer holds a cut message, never more */
	tasksel_nomatch(s, err, 40);
	assert_int_equal(strlen(err), 39);
	tasksel_none_ran(s, 1000000, 2000000, err, sizeof(err));
	assert_non_null(strstr(err, "-t 'zzzzzzzz' selects 0 threads, none of which ran from 1.000 to 2.000 ms"));
	tasksel__free(s);
	task_patterns__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_reading),
		cmocka_unit_test(test_membership),
		cmocka_unit_test(test_nomatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
