// SPDX-License-Identifier: GPL-2.0
/* Per-task summaries and --list output: hand-built traces with known answers, and the legacy sample. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "list.h"
#include "model.h"
#include "tasknames.h"
#include "truth.h"

#define SAMPLE PWZ_TESTDATA "/perfwhiz/legacy_umsgpack.cdict"
#define TRUTH PWZ_TESTDATA "/perfwhiz/legacy_umsgpack.truth.json"
#define MS 1000000ull

/* A 100 ms capture on 2 CPUs: task 10 runs [0,30) on cpu0 and [50,70) on cpu1, task 11 runs
 * [30,50) on cpu0 (preempted), and 10 waits 5 ms before its second slice. */
static struct trace *hand_built(void)
{
	static struct pwz_slice slices[] = {
		{ 10, 0, 0, 30 * MS, PWZ_END_SLEPT, 0, 0, 0 },
		{ 11, 0, 30 * MS, 20 * MS, PWZ_END_PREEMPTED, 0, 0, 0 },
		{ 10, 1, 50 * MS, 20 * MS, PWZ_END_OPEN, 0, 0, 0 },
	};
	static struct pwz_wakeup wakeups[] = { { 10, 1, 45 * MS, 5 * MS, 0, 0, 0 } };
	static struct pwz_kvm_exit exits[] = {
		{ 10, 0, 10 * MS, PWZ_ISA_SVM, 0x7b, 1000, 2000, 0 },
		{ 10, 0, 60 * MS, PWZ_ISA_SVM, 0x7b, 1000, 4000, 0 },
		{ 10, 0, 61 * MS, PWZ_ISA_SVM, 0x72, 1000, 300, 0 },
	};
	static struct pwz_task tasks[] = {
		{ .tid = 10, .tgid = 10, .comm = "vcpu", .name = "vm.vcpu0" },
		{ .tid = 11, .tgid = 11, .comm = "hog", .name = "hog" },
	};
	struct trace *t = calloc(1, sizeof(*t));

	t->path = strdup("hand-built");
	t->meta.duration_ns = 100 * MS;
	t->meta.nr_cpus = 2;
	t->meta.has_switch_kind = true;
	t->meta.has_wait = true;
	pwz_meta_add_exit_name(&t->meta, PWZ_ISA_SVM, 0x7b, "io");
	t->info.format = CDICT_FORMAT_V2;
	t->slices = malloc(sizeof(slices));
	memcpy(t->slices, slices, sizeof(slices));
	t->nr_slices = 3;
	t->wakeups = malloc(sizeof(wakeups));
	memcpy(t->wakeups, wakeups, sizeof(wakeups));
	t->nr_wakeups = 1;
	t->exits = malloc(sizeof(exits));
	memcpy(t->exits, exits, sizeof(exits));
	t->nr_exits = 3;
	t->tasks = malloc(sizeof(tasks));
	memcpy(t->tasks, tasks, sizeof(tasks));
	t->nr_tasks = 2;
	return t;
}

static const struct task_summary *find(const struct summary *s, uint32_t tid)
{
	for (size_t i = 0; i < s->nr_tasks; i++) {
		if (s->tasks[i].tid == tid)
			return &s->tasks[i];
	}
	fail_msg("tid %u not in summary", tid);
	return NULL;
}

/* ts's runtime and switch-outs on cpu; 0 where it never ran (the figures are sparse). */
static uint64_t rt_on(const struct task_summary *ts, uint32_t cpu)
{
	const struct summary_task_cpu *c = summary_task_cpu(ts, cpu);

	return c ? c->runtime_ns : 0;
}

static uint64_t sw_on(const struct task_summary *ts, uint32_t cpu)
{
	const struct summary_task_cpu *c = summary_task_cpu(ts, cpu);

	return c ? c->switches : 0;
}

static void test_whole_capture(void **state)
{
	struct trace *t = hand_built();
	char err[256];
	struct summary *s = summary__new(t, NULL, err, sizeof(err));
	const struct task_summary *a, *b;

	(void)state;
	assert_non_null(s);
	assert_false(s->from_aggregates);
	assert_int_equal(s->nr_tasks, 2);
	a = find(s, 10);
	b = find(s, 11);
	assert_ptr_equal(a, &s->tasks[0]);	/* sorted by runtime */
	assert_int_equal(a->runtime_ns, 50 * MS);
	assert_int_equal(rt_on(a, 0), 30 * MS);
	assert_int_equal(rt_on(a, 1), 20 * MS);
	assert_int_equal(a->switches, 1);	/* the open slice did not end */
	assert_int_equal(a->voluntary, 1);
	assert_int_equal(b->involuntary, 1);
	assert_int_equal(sw_on(b, 0), 1);
	assert_true(summary_cpu_pct(s, a) > 49.999 && summary_cpu_pct(s, a) < 50.001);
	assert_int_equal(a->wait_ns, 5 * MS);
	{
		uint64_t lo, hi;

		/* one wait of 5 ms: its bucket [4.194, 5.243) ms, cut to 5 ms; 11 has none */
		assert_true(summary_wait_range(a, 0.99, &lo, &hi));
		assert_int_equal(lo, 4194304);
		assert_int_equal(hi, 5 * MS);
		assert_false(summary_wait_range(b, 0.5, &lo, &hi));
		/* a wait counted and not bucketed (the kernel's hist_miss): no percentile, not
		 * the rest's */
		struct task_summary short_hist = *a;

		short_hist.wait_count++;
		assert_false(summary_wait_range(&short_hist, 0.99, &lo, &hi));
		assert_int_equal(lo, 0);
		assert_int_equal(hi, 0);
	}
	assert_int_equal(a->exits_total, 3);
	assert_int_equal(a->exits.n, 2);
	assert_int_equal(exitroll_at(&a->exits, 0)->code, 0x72);	/* sorted by code */
	assert_null(exitroll_at(&a->exits, 0)->name);
	assert_string_equal(exitroll_at(&a->exits, 1)->name, "io");
	assert_int_equal(exitroll_at(&a->exits, 1)->count, 2);
	assert_int_equal(exitroll_at(&a->exits, 1)->handling_ns, 6000);
	summary__free(s);
	trace__free(t);
}

static void test_window(void **state)
{
	struct trace *t = hand_built();
	struct summary_opts o = { .from_ns = 20 * MS, .cap_ns = 60 * MS };
	char err[256];
	struct summary *s = summary__new(t, &o, err, sizeof(err));
	const struct task_summary *a, *b;

	(void)state;
	assert_non_null(s);
	a = find(s, 10);
	b = find(s, 11);
	/* [20,30) on cpu0 + [50,60) on cpu1 */
	assert_int_equal(a->runtime_ns, 20 * MS);
	assert_int_equal(rt_on(a, 1), 10 * MS);
	assert_int_equal(b->runtime_ns, 20 * MS);
	/* CPU % over the 40 ms window, not over the capture's end (perfmap's mistake) */
	assert_true(summary_cpu_pct(s, a) > 49.999 && summary_cpu_pct(s, a) < 50.001);
	assert_int_equal(a->switches, 1);
	assert_int_equal(a->exits_total, 0);	/* exits at 10, 60, 61 ms: all outside */
	assert_int_equal(a->wait_count, 1);	/* switched in at 50 ms */
	summary__free(s);

	/* windows outside the capture are refused with a message */
	o.from_ns = 200 * MS;
	o.cap_ns = 0;
	assert_null(summary__new(t, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "past the end"));
	o.from_ns = 0;
	o.cap_ns = 101 * MS;
	assert_null(summary__new(t, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "the window ends at 101.000 ms"));
	o.from_ns = 50 * MS;
	o.cap_ns = 40 * MS;
	assert_null(summary__new(t, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "after its start"));
	trace__free(t);
}

static void test_merge_append(void **state)
{
	struct trace *t = hand_built();
	struct summary_opts o = { .append_tid = true };
	char err[256];
	struct summary *s;

	(void)state;
	snprintf(t->tasks[1].name, sizeof(t->tasks[1].name), "swapper/1");
	snprintf(t->tasks[0].name, sizeof(t->tasks[0].name), "swapper/0");
	snprintf(t->tasks[0].comm, sizeof(t->tasks[0].comm), "swapper/0");
	snprintf(t->tasks[1].comm, sizeof(t->tasks[1].comm), "swapper/1");
	s = summary__new(t, &o, err, sizeof(err));
	assert_string_equal(find(s, 10)->name, "swapper/0:10");
	summary__free(s);
	o.append_tid = false;
	o.merge_sys = true;
	/* 11 waited 2 ms before its slice at 30 ms: the merged row holds both waits' buckets */
	t->wakeups = realloc(t->wakeups, 2 * sizeof(*t->wakeups));
	t->wakeups[1] = (struct pwz_wakeup){ 11, 0, 28 * MS, 2 * MS, 0, 0, 0 };
	t->nr_wakeups = 2;
	s = summary__new(t, &o, err, sizeof(err));
	assert_int_equal(s->nr_tasks, 1);
	assert_string_equal(s->tasks[0].name, "swapper");
	assert_int_equal(s->tasks[0].runtime_ns, 70 * MS);
	{
		uint64_t lo, hi;

		assert_int_equal(s->tasks[0].wait_count, 2);
		assert_true(summary_wait_range(&s->tasks[0], 0.5, &lo, &hi));
		assert_int_equal(lo, 1835008);		/* 2 ms: [1.835, 2.097) ms */
		assert_int_equal(hi, 2097151);
		assert_true(summary_wait_range(&s->tasks[0], 0.99, &lo, &hi));
		assert_int_equal(lo, 4194304);
		assert_int_equal(hi, 5 * MS);
	}
	/* the merged row's CPUs: 10's (cpu0, cpu1) then 11's cpu0, summed and in CPU order */
	assert_int_equal(s->tasks[0].nr_cpus, 2);
	assert_int_equal(s->tasks[0].cpus[0].cpu, 0);
	assert_int_equal(s->tasks[0].cpus[0].runtime_ns, 50 * MS);
	assert_int_equal(s->tasks[0].cpus[0].switches, 2);
	assert_int_equal(s->tasks[0].cpus[1].cpu, 1);
	assert_int_equal(s->tasks[0].cpus[1].runtime_ns, 20 * MS);
	assert_int_equal(s->tasks[0].cpus[1].switches, 0);
	assert_null(summary_task_cpu(&s->tasks[0], 2));
	summary__free(s);
	trace__free(t);
}

/* A cut capture holds the aggregates of the threads that exited before the cut only (pwz-bpf
 * writes the rest at the end): its figures come from its streams. */
static void test_cut_uses_streams(void **state)
{
	struct trace *t = hand_built();
	struct pwz_cpu_agg early = { .tid = 11, .cpu = 0, .runtime_ns = 20 * MS, .switches = 1 };
	char err[256];
	struct summary *s;

	(void)state;
	t->cpu_aggs = malloc(sizeof(early));
	memcpy(t->cpu_aggs, &early, sizeof(early));
	t->nr_cpu_aggs = 1;
	t->info.has_aggregates = true;
	t->info.cut = true;
	s = summary__new(t, NULL, err, sizeof(err));
	assert_non_null(s);
	assert_false(s->from_aggregates);
	assert_int_equal(s->nr_tasks, 2);
	assert_int_equal(find(s, 10)->runtime_ns, 50 * MS);
	assert_int_equal(find(s, 11)->runtime_ns, 20 * MS);
	summary__free(s);
	/* the same file complete: its aggregates are the figures */
	t->info.cut = false;
	s = summary__new(t, NULL, err, sizeof(err));
	assert_non_null(s);
	assert_true(s->from_aggregates);
	assert_int_equal(s->nr_tasks, 1);
	summary__free(s);
	trace__free(t);
}

/* A malloc'd copy of size bytes at src (the trace frees it). */
static void *copy_of(const void *src, size_t size)
{
	void *p = malloc(size);

	assert_non_null(p);
	return memcpy(p, src, size);
}

/* R9: the kernel's charge of the waits comes with the whole capture's aggregates of a file
 * that has it, and the views show it beside the waits where the same waits differ by more
 * than a bucket (summary_ready_differs()): 10 here by 10 %, 11 by 1 % only. */
static void test_run_delay(void **state)
{
	struct pwz_wait_agg wa[] = {
		{ .tid = 10, .count = 4, .wait_ns = 20 * MS, .max_ns = 9 * MS,
		  .run_delay_ns = 25 * MS, .run_delay_wait_ns = 20 * MS,
		  .run_delay_unmeasured_ns = 7 * MS },
		{ .tid = 11, .count = 2, .wait_ns = 10 * MS, .max_ns = 6 * MS,
		  .run_delay_ns = 9900000, .run_delay_wait_ns = 10 * MS },
	};
	struct pwz_cpu_agg ca[] = {
		{ .tid = 10, .cpu = 0, .runtime_ns = 50 * MS, .switches = 1 },
		{ .tid = 11, .cpu = 0, .runtime_ns = 20 * MS, .switches = 1 },
	};
	struct summary_opts win = { .from_ns = 10 * MS };
	struct trace *t = hand_built();
	struct jbuf b = { 0 };
	char err[256];
	struct summary *s;

	(void)state;
	t->cpu_aggs = copy_of(ca, sizeof(ca));
	t->nr_cpu_aggs = 2;
	t->wait_aggs = copy_of(wa, sizeof(wa));
	t->nr_wait_aggs = 2;
	t->info.has_aggregates = true;
	for (int known = 0; known < 2; known++) {
		t->meta.has_run_delay = known;
		s = summary__new(t, NULL, err, sizeof(err));
		assert_non_null(s);
		assert_int_equal(s->has_run_delay, known);
		assert_int_equal(find(s, 10)->run_delay_ns, 25 * MS);
		assert_int_equal(find(s, 10)->run_delay_unmeasured_ns, 7 * MS);
		/* 18 ms charged against 20 ms lived for the measured waits: 10 % apart */
		assert_int_equal(summary_ready_differs(s, find(s, 10)), known);
		assert_false(summary_ready_differs(s, find(s, 11)));
		list_plain(&b, t, s, NULL);
		assert_int_equal(b.err, 0);
		assert_int_equal(strstr(b.buf, "# ready time as lived") != NULL, known);
		assert_int_equal(strstr(b.buf, "20.0 ms      25.0 ms    -10.0") != NULL, known);
		assert_null(strstr(b.buf, "9.90 ms"));
		jbuf_free(&b);
		memset(&b, 0, sizeof(b));
		list_json(&b, t, s, NULL);
		assert_int_equal(b.err, 0);
		assert_non_null(strstr(b.buf, known ? "\"run_delay_ns\":25000000,\"run_delay_wait_ns\":20000000,\"run_delay_unmeasured_ns\":7000000" :
					   "\"run_delay_ns\":null,\"run_delay_wait_ns\":null,\"run_delay_unmeasured_ns\":null"));
		jbuf_free(&b);
		memset(&b, 0, sizeof(b));
		summary__free(s);
	}
	/* a window has no charge: the streams carry none */
	s = summary__new(t, &win, err, sizeof(err));
	assert_non_null(s);
	assert_false(s->has_run_delay);
	assert_false(summary_ready_differs(s, find(s, 10)));
	summary__free(s);
	trace__free(t);
}

/* The rule on the figures of some waits (the live view's): more than 1 % of the larger apart,
 * either way, the unmeasured waits' charge left out; nothing to compare when both are 0. */
static void test_ready_figures_differ(void **state)
{
	(void)state;
	assert_false(summary_ready_figures_differ(0, 0, 0));
	assert_true(summary_ready_figures_differ(1000, 0, 0));
	assert_true(summary_ready_figures_differ(0, 1000, 0));
	assert_false(summary_ready_figures_differ(100000, 99000, 0));	/* exactly 1 % */
	assert_true(summary_ready_figures_differ(100000, 98999, 0));
	assert_true(summary_ready_figures_differ(98999, 100000, 0));
	assert_false(summary_ready_figures_differ(UINT64_MAX, UINT64_MAX - 1000, 0));
	/* the charge of the unmeasured waits is left out of the comparison, and never wraps */
	assert_false(summary_ready_figures_differ(100000, 150000, 50000));
	assert_true(summary_ready_figures_differ(100000, 150000, 60000));
	assert_true(summary_ready_figures_differ(1000, 500, 800));
}

/* Many tasks and a high CPU number (fuzz_render's tasks x CPUs timeout): each task carries
 * the CPUs it ran on, and --list --json grows with the records, not with tasks x CPUs. */
static void test_sparse_cpus(void **state)
{
	enum { N = 2000, HIGH = 4000 };
	struct trace *t = calloc(1, sizeof(*t));
	struct summary *s;
	struct jbuf b = { 0 };
	char err[256];

	(void)state;
	t->path = strdup("sparse");
	t->meta.duration_ns = 100 * MS;
	t->meta.nr_cpus = HIGH + 1;
	t->info.format = CDICT_FORMAT_V2;
	t->slices = calloc(N + 1, sizeof(*t->slices));
	for (uint32_t i = 0; i < N; i++)
		t->slices[i] = (struct pwz_slice){ .tid = 100 + i, .cpu = HIGH, .start_ns = i * 1000,
						   .dur_ns = 500, .end = PWZ_END_SLEPT };
	t->slices[N] = (struct pwz_slice){ .tid = 100, .cpu = 1, .start_ns = 50 * MS, .dur_ns = 1000,
					   .end = PWZ_END_SLEPT };
	t->nr_slices = N + 1;
	s = summary__new(t, NULL, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(s->nr_cpus, HIGH + 1);
	assert_int_equal(s->nr_tasks, N);
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *ts = &s->tasks[i];

		assert_int_equal(ts->nr_cpus, ts->tid == 100 ? 2 : 1);
		assert_int_equal(rt_on(ts, HIGH), 500);
		assert_int_equal(sw_on(ts, HIGH), 1);
		assert_int_equal(rt_on(ts, 1), ts->tid == 100 ? 1000 : 0);
		assert_int_equal(rt_on(ts, 0), 0);
	}
	list_json(&b, t, s, NULL);
	assert_int_equal(b.err, 0);
	/* dense arrays would be 2 x 4001 numbers per task (16 KB a task, 16 MB); sparse: the
	 * task's other figures (well under 2 KB) and two CPUs at most */
	assert_true(b.len < (size_t)N * 2048);
	assert_non_null(strstr(b.buf, "\"cpus\":[{\"cpu\":1,\"runtime_ns\":1000,\"switches\":1},"
				  "{\"cpu\":4000,\"runtime_ns\":500,\"switches\":1}]"));
	jbuf_free(&b);
	summary__free(s);
	trace__free(t);
}

static void test_idle_per_cpu(void **state)
{
	struct trace *t = hand_built();
	struct summary_opts o = { .merge_sys = true };
	char err[256];
	struct summary *s;
	const struct pwz_slice idle[] = { { 0, 0, 70 * MS, 30 * MS, PWZ_END_PREEMPTED, 0, 0, 0 },
					  { 0, 1, 0, 50 * MS, PWZ_END_PREEMPTED, 0, 0, 0 } };

	(void)state;
	t->slices = realloc(t->slices, 5 * sizeof(*t->slices));
	memcpy(t->slices + 3, idle, sizeof(idle));
	t->nr_slices = 5;
	/* the idle task has one row per CPU, named as the kernel names it */
	s = summary__new(t, NULL, err, sizeof(err));
	assert_int_equal(s->nr_tasks, 4);
	for (size_t i = 0; i < s->nr_tasks; i++) {
		if (!strcmp(s->tasks[i].name, "swapper/0"))
			assert_int_equal(s->tasks[i].runtime_ns, 30 * MS);
		else if (!strcmp(s->tasks[i].name, "swapper/1"))
			assert_int_equal(rt_on(&s->tasks[i], 1), 50 * MS);
		else
			assert_int_not_equal(s->tasks[i].tid, 0);
	}
	summary__free(s);
	/* --merge-sys-tasks folds them into one row */
	s = summary__new(t, &o, err, sizeof(err));
	assert_int_equal(s->nr_tasks, 3);
	assert_string_equal(s->tasks[0].name, "swapper");
	assert_int_equal(s->tasks[0].runtime_ns, 80 * MS);
	summary__free(s);
	trace__free(t);
}

static void test_list_json_legacy(void **state)
{
	char err[512], path[] = "/tmp/pwz-test-list-XXXXXX";
	struct tj *list, *truth;
	const struct tj *task, *exits, *pids;
	long long want, sum = 0, seen[256];
	size_t npids = 0;
	struct task_map *map = task_map__load(PWZ_TESTDATA "/perfwhiz/tmap.csv", err, sizeof(err));
	struct trace_load_opts lo = { .map = map };
	struct trace *t = trace__load(SAMPLE, &lo, err, sizeof(err));
	struct summary *s;
	struct jbuf b = { 0 };
	int fd;

	(void)state;
	assert_non_null(t);
	s = summary__new(t, NULL, err, sizeof(err));
	assert_non_null(s);
	assert_true(s->from_aggregates);
	list_json(&b, t, s, NULL);
	assert_int_equal(b.err, 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.buf, b.len), (ssize_t)b.len);
	close(fd);
	/* the renamed vCPU thread carries the figures of vm_router.vcpu0 in the truth */
	list = tj_load(path);
	truth = tj_load(TRUTH);
	assert_non_null(list);
	assert_non_null(truth);
	task = tj_find(tj_get(list, "tasks"), "name", "Router.02.vcpu0");
	assert_non_null(task);
	want = tj_int(tj_at(truth, "sched_switch_by_task_name/vm_router.vcpu0/switch_duration_sum_us"));
	assert_true(want > 0);
	assert_int_equal(tj_int(tj_get(task, "runtime_ns")), 1000 * want);
	want = tj_int(tj_at(truth, "sched_switch_by_task_name/vm_router.vcpu0/switch_count"));
	assert_true(want > 0);
	assert_int_equal(tj_int(tj_get(task, "switches")), want);
	exits = tj_get(task, "kvm_exits");
	assert_true(tj_len(exits) > 0);
	for (size_t k = 0; k < exits->n; k++)
		sum += tj_int(tj_get(&exits->kids[k], "count"));
	assert_int_equal(sum, tj_int(tj_at(truth, "kvm_by_task_name/vm_router.vcpu0/exit_count")));
	want = tj_int(tj_at(truth, "kvm_by_task_name/vm_router.vcpu0/exit_reasons/32"));
	assert_true(want > 0);
	assert_int_equal(tj_int(tj_get(tj_find(exits, "name", "MSR_WRITE"), "count")), want);
	/* what a legacy file cannot say is null, not invented */
	for (size_t k = 0; k < 3; k++) {
		const char *key = (const char *[]){ "voluntary", "wait_ns", "pid" }[k];

		assert_non_null(tj_get(task, key));
		assert_int_equal(tj_get(task, key)->type, TJ_NULL);
	}
	assert_non_null(tj_str(tj_at(list, "capture/format")));
	assert_string_equal(tj_str(tj_at(list, "capture/format")), "legacy");
	assert_int_equal(tj_int(tj_at(list, "capture/nr_cpus")), 2);
	/* one row per thread that was switched out: the truth's pids per task name */
	pids = tj_get(truth, "pids_by_task_name");
	assert_true(tj_len(pids) > 0);
	for (size_t k = 0; k < pids->n; k++) {
		for (size_t m = 0; m < pids->kids[k].n; m++) {
			long long pid = tj_int(&pids->kids[k].kids[m]);
			size_t j = 0;

			/* distinct pids: a pid counts once even if it had several names */
			while (j < npids && seen[j] != pid)
				j++;
			if (j == npids) {
				assert_true(npids < 256);
				seen[npids++] = pid;
			}
		}
	}
	assert_int_equal(tj_len(tj_get(list, "tasks")), npids);
	/* the whole file's switches: every sched_switch row is one switch-out */
	sum = 0;
	for (size_t k = 0; k < tj_get(list, "tasks")->n; k++)
		sum += tj_int(tj_get(&tj_get(list, "tasks")->kids[k], "switches"));
	want = tj_int(tj_at(truth, "rows_per_event/sched__sched_switch"));
	assert_true(want > 0);
	assert_int_equal(sum, want);
	tj_free(list);
	tj_free(truth);
	unlink(path);
	jbuf_free(&b);
	summary__free(s);
	trace__free(t);
	task_map__free(map);
}

/* Each CPU's account is complete when every thread was captured: as the file says, or (files
 * that do not say) when the idle task is there. hand_built() has no idle task. */
static void test_cpu_account_complete(void **state)
{
	struct trace *t = hand_built();
	uint32_t says[] = { PWZ_THREADS_UNKNOWN, PWZ_THREADS_ALL, PWZ_THREADS_SELECTED };
	char err[256];

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct summary *s;

		t->meta.threads = says[i];
		s = summary__new(t, NULL, err, sizeof(err));
		assert_non_null(s);
		assert_int_equal(s->cpus[0].complete, says[i] == PWZ_THREADS_ALL);
		if (says[i] == PWZ_THREADS_ALL) {
			/* cpu0: 10 [0,30) and 11 [30,50) of 100 ms; cpu1: 10 [50,70) */
			assert_int_equal(s->cpus[0].unaccounted_ns, 50 * MS);
			assert_int_equal(s->cpus[1].unaccounted_ns, 80 * MS);
		}
		summary__free(s);
	}
	trace__free(t);
}

/* The row of the instance of tid born at since (model.h R8). */
static const struct task_summary *find_instance(const struct summary *s, uint32_t tid,
						uint64_t since)
{
	for (size_t i = 0; i < s->nr_tasks; i++) {
		if (s->tasks[i].tid == tid && s->tasks[i].since_ns == since)
			return &s->tasks[i];
	}
	fail_msg("tid %u born at %llu not in summary", tid, (unsigned long long)since);
	return NULL;
}

/*
 * R8: tid 20 is a thread ("old") until it exits at 30 ms; the kernel hands tid 20 to a new
 * thread ("new") born at 40 ms, renamed "new2" at 60 ms. A late rename of the old one (at 10
 * ms) arrives after the birth. The two are two rows, from the aggregates (written by a fold
 * told of the birth, as the writers do) and from the streams alike.
 */
static void test_reused_tid(void **state)
{
	struct pwz_task tasks[] = {
		{ .tid = 20, .tgid = 20, .time_ns = 0, .comm = "old", .name = "old" },
		{ .tid = 20, .tgid = 20, .time_ns = 40 * MS, .flags = PWZ_TASK_BORN, .comm = "new",
		  .name = "new" },
		{ .tid = 20, .tgid = 20, .time_ns = 60 * MS, .comm = "new2", .name = "new2" },
		{ .tid = 20, .tgid = 20, .time_ns = 10 * MS, .comm = "old2", .name = "old2" },
	};
	struct pwz_slice slices[] = {
		{ 20, 0, 0, 30 * MS, PWZ_END_EXITED, 0, 0, 0 },
		{ 20, 1, 45 * MS, 25 * MS, PWZ_END_SLEPT, 0, 0, 0 },
		{ 0, 0, 30 * MS, 70 * MS, PWZ_END_OPEN, 0, 0, 0 },
	};
	struct pwz_wakeup wk = { 20, 1, 42 * MS, 3 * MS, 0, 0, 0 };
	struct pwz_kvm_exit ex = { 20, 0, 50 * MS, PWZ_ISA_VMX, 12, 100, 200, 0 };
	struct pwz_meta m = { .duration_ns = 100 * MS, .nr_cpus = 2, .has_switch_kind = true,
			      .has_wait = true };
	struct summary_opts win = { .from_ns = 0, .cap_ns = 99 * MS };	/* from the streams */
	struct model_fold *f = model_fold__new(NULL);
	struct cdict_visitor v;
	struct trace *t = trace__new("reused", true, &v);
	const struct task_summary *a, *b;
	struct summary *s;
	char err[256];

	(void)state;
	assert_non_null(t);
	assert_int_equal(v.meta(v.ctx, &m), 0);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(v.task(v.ctx, &tasks[i]), 0);
	assert_int_equal(model_fold__born(f, 20, 40 * MS), 0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(v.slice(v.ctx, &slices[i]), 0);
		assert_int_equal(model_fold__slice(f, &slices[i]), 0);
	}
	assert_int_equal(v.wakeup(v.ctx, &wk), 0);
	assert_int_equal(v.kvm_exit(v.ctx, &ex), 0);
	assert_int_equal(model_fold__wait(f, &wk), 0);
	assert_int_equal(model_fold__kvm_exit(f, &ex), 0);
	assert_int_equal(model_fold__emit(f, &v), 0);
	assert_int_equal(trace__settle(t), 0);
	t->info.format = CDICT_FORMAT_V2;

	assert_int_equal(t->nr_tasks, 2);	/* one entry per instance, the last naming of each */
	assert_string_equal(trace__task_at(t, 20, 5 * MS)->name, "old2");
	assert_string_equal(trace__task_at(t, 20, 41 * MS)->name, "new2");
	assert_string_equal(trace__task(t, 20)->name, "new2");
	assert_int_equal(trace__task_at(t, 20, 41 * MS)->since_ns, 40 * MS);

	for (int pass = 0; pass < 2; pass++) {
		s = summary__new(t, pass ? &win : NULL, err, sizeof(err));
		assert_non_null(s);
		assert_int_equal(s->from_aggregates, !pass);
		a = find_instance(s, 20, 0);
		b = find_instance(s, 20, 40 * MS);
		assert_string_equal(a->name, "old2");
		assert_int_equal(a->runtime_ns, 30 * MS);
		assert_int_equal(a->voluntary, 1);
		assert_int_equal(a->wait_count, 0);
		assert_int_equal(a->exits_total, 0);
		assert_string_equal(b->name, "new2");
		assert_int_equal(b->runtime_ns, 25 * MS);
		assert_int_equal(b->wait_count, 1);
		assert_int_equal(b->wait_ns, 3 * MS);
		assert_int_equal(b->exits_total, 1);
		summary__free(s);
	}
	model_fold__free(f);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_capture),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_merge_append),
		cmocka_unit_test(test_idle_per_cpu),
		cmocka_unit_test(test_sparse_cpus),
		cmocka_unit_test(test_cut_uses_streams),
		cmocka_unit_test(test_run_delay),
		cmocka_unit_test(test_ready_figures_differ),
		cmocka_unit_test(test_list_json_legacy),
		cmocka_unit_test(test_reused_tid),
		cmocka_unit_test(test_cpu_account_complete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
