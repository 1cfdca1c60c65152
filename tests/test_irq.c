// SPDX-License-Identifier: GPL-2.0
/* Unit tests of --irq's records: the IRQ_AGG codec (user/lib/cdict*), user/lib/irq.c, render/irqtab.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cdict.h"
#include "irq.h"
#include "irqtab.h"
#include "report.h"
#include "tasksel.h"
#include "trace.h"
#include "truth.h"

static char dir[] = "/tmp/pwz-test-irq-XXXXXX";

#define HARD PWZ_IRQ_KIND_HARD
#define SOFT PWZ_IRQ_KIND_SOFT

/* Thread 100 (two instances: the second born at 5000), the idle task, the unselected ones. */
static const struct pwz_irq_agg recs[] = {
	/* cpu tid since kind vector count time max nested name */
	{ 1, 100, 0, SOFT, 4, 10, 5000, 900, 300, "BLOCK" },
	{ 1, 100, 0, HARD, 36, 10, 700, 90, 0, "virtio1-req.0" },
	{ 0, 0, 0, SOFT, 1, 3, 60, 30, 0, "TIMER" },
	{ 1, 100, 0, SOFT, 4, 5, 2000, 1200, 0, "" },	/* repeats the first key: summed */
	{ 1, 100, 5000, SOFT, 4, 1, 100, 100, 0, "BLOCK" },	/* the tid's next instance */
	{ 1, PWZ_IRQ_OTHER_TID, 0, HARD, 36, 2, 150, 80, 0, "virtio1-req.0" },
	{ 0, 100, 0, SOFT, 3, 7, 800, 200, 0, "NET_RX" },
};
#define NRECS (sizeof(recs) / sizeof(recs[0]))

static void test_softirq_names(void **state)
{
	struct pwz_irq_agg a = { .kind = SOFT, .vector = 8 };

	(void)state;
	assert_string_equal(pwz_softirq_name(0), "HI");
	assert_string_equal(pwz_softirq_name(3), "NET_RX");
	assert_string_equal(pwz_softirq_name(9), "RCU");
	assert_null(pwz_softirq_name(10));
	assert_string_equal(pwz_irq_name(&a), "HRTIMER");	/* no name: the vector's */
	a.kind = HARD;
	assert_null(pwz_irq_name(&a));				/* a hard IRQ unnamed */
	strcpy(a.name, "eth0");
	assert_string_equal(pwz_irq_name(&a), "eth0");
}

static void test_merge_and_rows(void **state)
{
	struct pwz_irq_agg a[NRECS];
	struct irq_vector_row *v;
	struct irq_thread_row *t;
	size_t n;
	long nv, nt;

	(void)state;
	memcpy(a, recs, sizeof(a));
	n = pwz_irq_merge(a, NRECS);
	assert_int_equal(n, NRECS - 1);
	/* (cpu, kind, vector, tid, since) order */
	assert_int_equal(a[0].cpu, 0);
	assert_int_equal(a[0].vector, 1);
	assert_int_equal(a[1].vector, 3);
	assert_int_equal(a[2].cpu, 1);
	assert_int_equal(a[2].kind, HARD);
	assert_int_equal(a[2].tid, 100);
	assert_int_equal(a[3].tid, PWZ_IRQ_OTHER_TID);
	assert_int_equal(a[4].kind, SOFT);
	assert_int_equal(a[4].since_ns, 0);
	assert_int_equal(a[4].count, 15);
	assert_int_equal(a[4].time_ns, 7000);
	assert_int_equal(a[4].max_ns, 1200);
	assert_int_equal(a[4].nested_ns, 300);
	assert_string_equal(a[4].name, "BLOCK");
	assert_int_equal(a[5].since_ns, 5000);

	nv = irq_vector_rows(a, n, &v);
	assert_int_equal(nv, 4);	/* 0/soft 1, 0/soft 3, 1/hard 36, 1/soft 4 */
	assert_int_equal(v[2].cpu, 1);
	assert_int_equal(v[2].count, 12);
	assert_int_equal(v[2].time_ns, 850);
	assert_int_equal(v[2].max_ns, 90);
	assert_string_equal(v[2].name, "virtio1-req.0");
	assert_int_equal(v[3].count, 16);
	assert_int_equal(v[3].time_ns, 7100);
	assert_int_equal(v[3].nested_ns, 300);
	free(v);

	nt = irq_thread_rows(a, n, &t);
	assert_int_equal(nt, 4);	/* 100, 100 born at 5000, idle, the others */
	assert_int_equal(t[0].tid, 100);	/* 7000 + 700 + 800 ns, largest first */
	assert_int_equal(t[0].since_ns, 0);
	assert_int_equal(t[0].hard_ns, 700);
	assert_int_equal(t[0].hard_count, 10);
	assert_int_equal(t[0].soft_ns, 7800);
	assert_int_equal(t[0].soft_count, 22);
	assert_int_equal(t[1].tid, PWZ_IRQ_OTHER_TID);	/* 150 */
	assert_int_equal(t[2].tid, 100);		/* 100, its second instance */
	assert_int_equal(t[2].since_ns, 5000);
	assert_int_equal(t[3].tid, 0);			/* 60 */
	free(t);
	assert_int_equal(irq_vector_rows(a, 0, &v), 0);
	assert_null(v);
}

static void write_capture(const char *path, bool has_irq, const struct pwz_irq_agg *a, size_t n)
{
	struct pwz_meta meta = { .source = PWZ_SOURCE_SYNTHETIC, .nr_cpus = 2, .has_irq = has_irq,
				 .duration_ns = 10000 };
	struct pwz_task t = { .tid = 100, .tgid = 100, .comm = "spin", .name = "spin" };
	struct pwz_task t2 = { .tid = 100, .tgid = 100, .time_ns = 5000, .flags = PWZ_TASK_BORN,
			       .comm = "again", .name = "again" };
	char err[256];
	struct cdict_writer *w = cdict_writer__new(path, &meta, NULL, err, sizeof(err));

	assert_non_null(w);
	assert_int_equal(cdict_writer__task(w, &t), 0);
	assert_int_equal(cdict_writer__task(w, &t2), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(cdict_writer__irq_agg(w, &a[i]), 0);
	assert_int_equal(cdict_writer__finish(w, &meta, err, sizeof(err)), 0);
	cdict_writer__free(w);
}

static void test_round_trip(void **state)
{
	char path[256], err[256];
	struct trace *t;

	(void)state;
	snprintf(path, sizeof(path), "%s/irq.cdict", dir);
	write_capture(path, true, recs, NRECS);
	t = trace__load(path, NULL, err, sizeof(err));
	assert_non_null(t);
	assert_true(t->meta.has_irq);
	assert_int_equal(t->nr_irq_aggs, NRECS - 1);
	assert_int_equal(t->irq_aggs[4].count, 15);
	assert_int_equal(t->irq_aggs[4].nested_ns, 300);
	assert_int_equal(t->irq_aggs[5].since_ns, 5000);
	assert_string_equal(t->irq_aggs[2].name, "virtio1-req.0");
	assert_int_equal(t->irq_aggs[3].tid, PWZ_IRQ_OTHER_TID);
	trace__free(t);

	/* without --irq: has_irq false (no IRQ data), whatever else the file holds */
	write_capture(path, false, NULL, 0);
	t = trace__load(path, NULL, err, sizeof(err));
	assert_non_null(t);
	assert_false(t->meta.has_irq);
	assert_int_equal(t->nr_irq_aggs, 0);
	trace__free(t);
}

static int count_task(void *ctx, const struct pwz_task *t)
{
	(void)t;
	(*(int *)ctx)++;
	return 0;
}

/* A reader without the IRQ_AGG callback (an older pwz: its visitor lacks it, and its switch
 * skips type 10 as unknown) reads the rest; a kind of a later version is skipped. */
static void test_older_reader_and_unknown_kind(void **state)
{
	struct pwz_irq_agg later = recs[0];
	char path[256], err[256];
	struct cdict_read_info info;
	struct cdict_visitor v = { 0 };
	struct trace *t;
	int tasks = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/older.cdict", dir);
	later.kind = 7;
	write_capture(path, true, &later, 1);
	v.ctx = &tasks;
	v.task = count_task;
	assert_int_equal(cdict_read(path, &v, &info, err, sizeof(err)), 0);
	assert_int_equal(tasks, 2);
	assert_false(info.cut);
	t = trace__load(path, NULL, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(t->nr_irq_aggs, 0);	/* kind 7: not ours, skipped */
	trace__free(t);
}

static void test_hostile_cpu(void **state)
{
	struct pwz_irq_agg bad = recs[0];
	char path[256], err[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/bad.cdict", dir);
	bad.cpu = PWZ_MAX_CPUS;
	write_capture(path, true, &bad, 1);
	assert_null(trace__load(path, NULL, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err, "IRQ_AGG cpu out of range"));
}

static void test_report_and_json(void **state)
{
	char path[256], err[256], *text = NULL;
	struct jbuf b = { 0 };
	size_t len = 0;
	struct trace *t;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/irq.cdict", dir);
	write_capture(path, true, recs, NRECS);
	t = trace__load(path, NULL, err, sizeof(err));
	assert_non_null(t);
	f = open_memstream(&text, &len);
	assert_int_equal(report_write_irq(f, t, 0), 0);
	fclose(f);
	/* CPU 1's BLOCK: 16 runs, 7.1 us, 443.75 ns average, 1.2 us max (user/lib/fmt.h) */
	assert_non_null(strstr(text, "1    soft       4 BLOCK                        16    7.10 us     444 ns    1.20 us\n"));
	assert_non_null(strstr(text, "CPU 1: hard 850 ns, soft 7.10 us, 79.50 % of the capture"));
	assert_non_null(strstr(text, "spin                                100         10       700 ns         22      7.80 us\n"));
	assert_non_null(strstr(text, "(threads not selected)"));
	assert_non_null(strstr(text, "again                               100"));
	free(text);

	irq_json_members(&b, t, NULL);
	assert_int_equal(b.err, 0);
	assert_non_null(strstr(b.buf, "{\"cpu\":1,\"kind\":\"soft\",\"vector\":4,\"name\":\"BLOCK\",\"count\":16,\"time_ns\":7100,\"max_ns\":1200,\"nested_ns\":300}"));
	assert_non_null(strstr(b.buf, "{\"tid\":null,\"born_ns\":null,\"name\":\"(threads not selected)\",\"hard_count\":2,\"hard_ns\":150,"));
	assert_non_null(strstr(b.buf, "{\"tid\":100,\"born_ns\":5000,\"name\":\"again\""));
	jbuf_free(&b);
	/* pwz-render -t again: the thread rows of that instance only; the per-CPU rows of all */
	{
		const char *pat = "again";
		struct task_patterns *p = task_patterns__new(&pat, 1, err, sizeof(err));
		struct tasksel *sel = tasksel__new(p, NULL, t);

		assert_int_equal(tasksel__count(sel), 1);
		irq_json_members(&b, t, sel);
		assert_non_null(strstr(b.buf, "\"name\":\"TIMER\""));	/* the idle task's CPU 0 */
		assert_non_null(strstr(b.buf, "\"irq_threads\":[\n{\"tid\":100,\"born_ns\":5000,\"name\":\"again\""));
		assert_null(strstr(b.buf, "\"spin\""));
		assert_null(strstr(b.buf, "\"tid\":null"));
		jbuf_free(&b);
		irq_plain(&b, t, sel, 10);
		assert_non_null(strstr(b.buf, "per CPU of every thread, then the threads -t selects"));
		assert_non_null(strstr(b.buf, "TIMER"));
		assert_non_null(strstr(b.buf, "again"));
		assert_null(strstr(b.buf, "spin"));
		assert_null(strstr(b.buf, "(threads not selected)"));
		jbuf_free(&b);
		tasksel__free(sel);
		task_patterns__free(p);
	}
	trace__free(t);

	write_capture(path, false, NULL, 0);
	t = trace__load(path, NULL, err, sizeof(err));
	assert_non_null(t);
	irq_json_members(&b, t, NULL);
	assert_string_equal(b.buf, "\"irq\":null,\"irq_threads\":null");
	jbuf_free(&b);
	text = NULL;
	f = open_memstream(&text, &len);
	assert_int_equal(report_write_irq(f, t, 0), 0);
	fclose(f);
	assert_int_equal(len, 0);	/* no section without --irq */
	free(text);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_softirq_names),
		cmocka_unit_test(test_merge_and_rows),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_older_reader_and_unknown_kind),
		cmocka_unit_test(test_hostile_cpu),
		cmocka_unit_test(test_report_and_json),
	};

	return RUN_IN_TMPDIR(tests, dir);
}
