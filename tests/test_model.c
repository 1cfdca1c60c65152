// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/model.c: the one fold, its windows (R6) and aggregates (R7). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "model.h"

static const struct pwz_cpu_agg *cpu_agg(struct model_fold *f, uint32_t tid, uint32_t cpu)
{
	const struct pwz_cpu_agg *a;
	size_t n = model_fold__cpu_aggs(f, &a);

	for (size_t i = 0; i < n; i++)
		if (a[i].tid == tid && a[i].cpu == cpu)
			return &a[i];
	return NULL;
}

/* R6: a slice adds its part inside the window; its switch-out counts where it happens. */
static void test_window_clip(void **state)
{
	struct pwz_slice s = { .tid = 7, .cpu = 1, .start_ns = 100, .dur_ns = 200,
			       .end = PWZ_END_PREEMPTED };
	struct model_window in = { 200, 250 }, tail = { 200, 400 }, before = { 0, 100 },
			    after = { 300, 400 };
	struct model_fold *f = model_fold__new(&in);
	const struct pwz_cpu_agg *a;

	(void)state;
	assert_int_equal(model_slice_run_in(&s, &in), 50);
	assert_false(model_slice_switch_in_window(&s, &in));
	assert_int_equal(model_slice_run_in(&s, &tail), 100);
	assert_true(model_slice_switch_in_window(&s, &tail));
	assert_false(model_slice_touches(&s, &before));	/* [0, 100) ends where s starts */
	assert_true(model_slice_touches(&s, &after));	/* the switch-out at 300 is in it */
	assert_int_equal(model_slice_run_in(&s, &after), 0);

	assert_int_equal(model_fold__slice(f, &s), 0);
	a = cpu_agg(f, 7, 1);
	assert_non_null(a);
	assert_int_equal(a->runtime_ns, 50);
	assert_int_equal(a->switches, 0);
	model_fold__free(f);

	f = model_fold__new(&tail);
	assert_int_equal(model_fold__slice(f, &s), 0);
	a = cpu_agg(f, 7, 1);
	assert_int_equal(a->runtime_ns, 100);
	assert_int_equal(a->switches, 1);
	assert_int_equal(a->involuntary, 1);
	assert_int_equal(a->voluntary, 0);
	/* a slice outside the window makes no row */
	s.tid = 8;
	s.start_ns = 500;
	assert_int_equal(model_fold__slice(f, &s), 0);
	assert_null(cpu_agg(f, 8, 1));
	model_fold__free(f);
}

/* R1-R3: end kinds, open slices (no switch-out), unseen switch-ins kept apart (R2). */
static void test_slice_kinds(void **state)
{
	struct model_fold *f = model_fold__new(NULL);
	struct pwz_slice s[] = {
		{ .tid = 3, .cpu = 0, .start_ns = 0, .dur_ns = 10, .end = PWZ_END_SLEPT },
		{ .tid = 3, .cpu = 0, .start_ns = 20, .dur_ns = 5, .end = PWZ_END_EXITED },
		{ .tid = 3, .cpu = 0, .start_ns = 30, .dur_ns = 40, .end = PWZ_END_PREEMPTED,
		  .flags = PWZ_SLICE_UNSEEN_START },
		{ .tid = 3, .cpu = 0, .start_ns = 90, .dur_ns = 10, .end = PWZ_END_OPEN },
		{ .tid = 3, .cpu = 0, .start_ns = 100, .dur_ns = 1, .end = PWZ_END_UNKNOWN },
	};
	const struct pwz_cpu_agg *a;

	(void)state;
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		assert_int_equal(model_fold__slice(f, &s[i]), 0);
	a = cpu_agg(f, 3, 0);
	assert_int_equal(a->runtime_ns, 10 + 5 + 10 + 1);
	assert_int_equal(a->unseen_ns, 40);
	assert_int_equal(a->unseen, 1);
	assert_int_equal(a->switches, 4);	/* not the open one */
	assert_int_equal(a->voluntary, 2);
	assert_int_equal(a->involuntary, 1);	/* the unknown one is neither */
	model_fold__free(f);
}

/* R4, R6: a wait counts whole where it ends; zero-length waits count; maxima. */
static void test_waits(void **state)
{
	struct model_window w = { 100, 200 };
	struct model_fold *f = model_fold__new(&w);
	struct pwz_wakeup wk[] = {
		{ .tid = 4, .cpu = 0, .wake_ns = 50, .wait_ns = 60 },	/* ends at 110: in */
		{ .tid = 4, .cpu = 1, .wake_ns = 150, .wait_ns = 0 },	/* zero length: in */
		{ .tid = 4, .cpu = 0, .wake_ns = 190, .wait_ns = 10 },	/* ends at 200: out */
		{ .tid = 4, .cpu = 0, .wake_ns = 20, .wait_ns = 79 },	/* ends at 99: out */
	};
	const struct pwz_wait_agg *a;

	(void)state;
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(model_fold__wait(f, &wk[i]), 0);
	assert_int_equal(model_fold__wait_aggs(f, &a), 1);
	assert_int_equal(a->tid, 4);
	assert_int_equal(a->count, 2);
	assert_int_equal(a->wait_ns, 60);
	assert_int_equal(a->max_ns, 60);
	model_fold__free(f);
}

/* R5: exits count where they happen; an unpaired one is not in the handling time, a paired
 * one of 0 ns is. */
static void test_exits(void **state)
{
	struct model_fold *f = model_fold__new(NULL);
	struct pwz_kvm_exit e = { .tid = 9, .time_ns = 5, .isa = PWZ_ISA_SVM, .reason = 0x7b,
				  .handling_ns = 3000 };
	const struct pwz_kvm_agg *a;

	(void)state;
	assert_int_equal(model_fold__kvm_exit(f, &e), 0);
	e.handling_ns = 0;
	e.flags = PWZ_EXIT_UNPAIRED;
	assert_int_equal(model_fold__kvm_exit(f, &e), 0);
	e.reason = 0x78;
	e.flags = 0;
	assert_int_equal(model_fold__kvm_exit(f, &e), 0);
	assert_int_equal(model_fold__kvm_aggs(f, &a), 2);
	assert_int_equal(a[0].reason, 0x78);	/* sorted by (tid, isa, reason) */
	assert_int_equal(a[0].hist[0], 1);	/* paired in 0 ns */
	assert_int_equal(a[1].count, 2);
	assert_int_equal(a[1].handling_ns, 3000);
	assert_int_equal(a[1].hist[pwz_hist_bucket(3000)], 1);
	assert_int_equal(a[1].hist[0], 0);
	model_fold__free(f);
}

/* R7: aggregates from elsewhere add up with folded records; the tables grow, sort and keep
 * working after a sort; emit delivers them in key order. */
struct emitted {
	uint32_t last_tid, last_cpu;
	size_t cpu, wait, kvm;
	bool ordered;
};

static int e_cpu(void *ctx, const struct pwz_cpu_agg *a)
{
	struct emitted *e = ctx;

	if (e->cpu && (a->tid < e->last_tid || (a->tid == e->last_tid && a->cpu <= e->last_cpu)))
		e->ordered = false;
	e->last_tid = a->tid;
	e->last_cpu = a->cpu;
	e->cpu++;
	return 0;
}

static int e_wait(void *ctx, const struct pwz_wait_agg *a)
{
	(void)a;
	((struct emitted *)ctx)->wait++;
	return 0;
}

static int e_kvm(void *ctx, const struct pwz_kvm_agg *a)
{
	(void)a;
	((struct emitted *)ctx)->kvm++;
	return a->tid == 77 ? -EIO : 0;
}

/* R9: a wait's kernel charge counts whole in the window of its end (R6), into the wait
 * aggregate of its thread's instance (R8); a measured one adds its wall time, another its
 * charge apart. */
static void test_run_delay(void **state)
{
	struct model_window w = { 100, 200 };
	struct model_fold *f = model_fold__new(&w);
	const struct pwz_wait_agg *a;

	(void)state;
	assert_int_equal(model_fold__born(f, 4, 150), 0);
	assert_int_equal(model_fold__run_delay(f, 4, 110, 50, true, 60), 0);	/* in, instance 0 */
	assert_int_equal(model_fold__run_delay(f, 4, 199, 7, false, 0), 0);	/* in, born 150 */
	assert_int_equal(model_fold__run_delay(f, 4, 160, 5, true, 9), 0);	/* in, born 150 */
	assert_int_equal(model_fold__run_delay(f, 4, 200, 1000, true, 1000), 0);	/* out */
	assert_int_equal(model_fold__run_delay(f, 4, 99, 1000, false, 0), 0);	/* out */
	assert_int_equal(model_fold__wait_aggs(f, &a), 2);
	assert_int_equal(a[0].since_ns, 0);
	assert_int_equal(a[0].run_delay_ns, 50);
	assert_int_equal(a[0].run_delay_wait_ns, 60);
	assert_int_equal(a[0].run_delay_unmeasured_ns, 0);
	assert_int_equal(a[0].count, 0);	/* the waits themselves come from model_fold__wait */
	assert_int_equal(a[1].since_ns, 150);
	assert_int_equal(a[1].run_delay_ns, 12);
	assert_int_equal(a[1].run_delay_wait_ns, 9);
	assert_int_equal(a[1].run_delay_unmeasured_ns, 7);
	model_fold__free(f);
}

static void test_aggregates(void **state)
{
	struct model_fold *f = model_fold__new(NULL);
	struct pwz_slice s = { .end = PWZ_END_SLEPT, .start_ns = 100, .dur_ns = 50 };
	struct pwz_cpu_agg k = { .tid = 1234, .cpu = 1, .runtime_ns = 1000, .switches = 3,
				 .voluntary = 1, .involuntary = 2, .unseen = 1, .unseen_ns = 9 };
	struct pwz_wait_agg w = { .tid = 1234, .count = 2, .wait_ns = 70, .max_ns = 60,
				  .run_delay_ns = 50, .run_delay_wait_ns = 40,
				  .run_delay_unmeasured_ns = 3 };
	struct pwz_kvm_agg kv = { .tid = 77, .isa = PWZ_ISA_VMX, .reason = 1, .count = 4 };
	struct emitted em = { .ordered = true };
	struct cdict_visitor v = { .ctx = &em, .cpu_agg = e_cpu, .wait_agg = e_wait,
				   .kvm_agg = e_kvm };
	const struct pwz_cpu_agg *a;

	(void)state;
	/* 3000 threads on 2 CPUs, thread t with t % 5 + 1 slices on each, in descending order */
	for (uint32_t t = 3000; t >= 1; t--)
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			s.tid = t;
			s.cpu = cpu;
			for (uint32_t n = 0; n <= t % 5; n++)
				assert_int_equal(model_fold__slice(f, &s), 0);
		}
	assert_int_equal(model_fold__cpu_aggs(f, &a), 6000);
	assert_int_equal(a[0].tid, 1);	/* sorted */
	a = cpu_agg(f, 1234, 1);
	assert_int_equal(a->switches, 1234 % 5 + 1);
	/* added after a sort: the table is re-indexed, nothing is lost or doubled */
	assert_int_equal(model_fold__cpu_agg(f, &k), 0);
	assert_int_equal(model_fold__cpu_agg(f, &(struct pwz_cpu_agg){ .tid = 9999 }), 0);
	assert_int_equal(model_fold__wait_agg(f, &w), 0);
	w.max_ns = 10;
	assert_int_equal(model_fold__wait_agg(f, &w), 0);
	assert_int_equal(model_fold__kvm_agg(f, &kv), 0);
	assert_int_equal(model_fold__kvm_agg(f, &kv), 0);
	a = cpu_agg(f, 1234, 1);
	assert_int_equal(a->switches, 1234 % 5 + 1 + 3);
	assert_int_equal(a->runtime_ns, 50 * (1234 % 5 + 1) + 1000);
	assert_int_equal(a->voluntary, 1234 % 5 + 1 + 1);
	assert_int_equal(a->involuntary, 2);
	assert_int_equal(a->unseen_ns, 9);
	assert_int_equal(model_fold__cpu_aggs(f, &a), 6001);
	{
		const struct pwz_wait_agg *wa;
		const struct pwz_kvm_agg *ka;

		assert_int_equal(model_fold__wait_aggs(f, &wa), 1);
		assert_int_equal(wa->count, 4);
		assert_int_equal(wa->wait_ns, 140);
		assert_int_equal(wa->max_ns, 60);
		assert_int_equal(wa->run_delay_ns, 100);
		assert_int_equal(wa->run_delay_wait_ns, 80);
		assert_int_equal(wa->run_delay_unmeasured_ns, 6);
		assert_int_equal(model_fold__kvm_aggs(f, &ka), 1);
		assert_int_equal(ka->count, 8);
	}
	/* emit: every aggregate in key order; a callback's error stops it and is returned */
	assert_int_equal(model_fold__emit(f, &v), -EIO);
	assert_int_equal(em.cpu, 6001);
	assert_true(em.ordered);
	assert_int_equal(em.kvm, 1);
	assert_int_equal(em.wait, 0);	/* after the error */
	model_fold__free(f);
	model_fold__free(NULL);
}

/* model_fold__take(): the aggregates of the tids picked leave the fold through the sink; the
 * others stay, still found by key; a taken tid starts afresh; an error keeps what was not sent. */
struct taken {
	uint64_t runtime_ns, wait_ns;
	size_t cpu, wait, kvm;
	size_t fail_at;		/* the cpu_agg call that fails (1-based), 0 never */
};

static int t_cpu(void *ctx, const struct pwz_cpu_agg *a)
{
	struct taken *t = ctx;

	if (t->fail_at && t->cpu + 1 == t->fail_at)
		return -EIO;
	assert_true(a->tid % 2 || a->tid == 201);
	t->runtime_ns += a->runtime_ns;
	t->cpu++;
	return 0;
}

static int t_wait(void *ctx, const struct pwz_wait_agg *a)
{
	struct taken *t = ctx;

	assert_int_equal(a->tid % 2, 1);
	t->wait_ns += a->wait_ns;
	t->wait++;
	return 0;
}

static int t_kvm(void *ctx, const struct pwz_kvm_agg *a)
{
	assert_int_equal(a->tid % 2, 1);
	((struct taken *)ctx)->kvm++;
	return 0;
}

static bool odd(void *ctx, uint32_t tid, uint64_t since_ns)
{
	(void)ctx;
	(void)since_ns;
	return tid % 2;
}

/* R8: the instance of tid 201 born at 1 ms, not the one born at 5 ms */
static bool first_201(void *ctx, uint32_t tid, uint64_t since_ns)
{
	(void)ctx;
	return tid == 201 && since_ns == 1000000;
}

static bool last_201(void *ctx, uint32_t tid, uint64_t since_ns)
{
	(void)ctx;
	return tid == 201 && since_ns == 5000000;
}

static struct model_fold *hundred_threads(void)
{
	struct model_fold *f = model_fold__new(NULL);

	for (uint32_t tid = 1; tid <= 100; tid++) {
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			struct pwz_slice s = { .tid = tid, .cpu = cpu, .start_ns = 10 * tid,
					       .dur_ns = tid, .end = PWZ_END_SLEPT };

			assert_int_equal(model_fold__slice(f, &s), 0);
		}
		assert_int_equal(model_fold__wait_agg(f, &(struct pwz_wait_agg){ .tid = tid, .count = 1,
						      .wait_ns = 3 }), 0);
	}
	assert_int_equal(model_fold__kvm_agg(f, &(struct pwz_kvm_agg){ .tid = 7, .count = 2 }), 0);
	assert_int_equal(model_fold__kvm_agg(f, &(struct pwz_kvm_agg){ .tid = 8, .count = 5 }), 0);
	return f;
}

static void test_take(void **state)
{
	struct model_fold *f = hundred_threads();
	struct taken tk = { 0 };
	struct cdict_visitor v = { .ctx = &tk, .cpu_agg = t_cpu, .wait_agg = t_wait, .kvm_agg = t_kvm };
	const struct pwz_kvm_agg *ka;
	const struct pwz_cpu_agg *a;
	uint64_t left = 0;
	size_t n;

	(void)state;
	assert_int_equal(model_fold__count(f), 200 + 100 + 2);
	assert_int_equal(model_fold__take(f, odd, NULL, &v), 0);
	/* the 50 odd tids: 2 CPUs each, their waits, tid 7's exits; runtime 2 x (1 + 3 + ... + 99) */
	assert_int_equal(tk.cpu, 100);
	assert_int_equal(tk.wait, 50);
	assert_int_equal(tk.kvm, 1);
	assert_int_equal(tk.runtime_ns, 2 * 2500);
	assert_int_equal(tk.wait_ns, 150);
	assert_int_equal(model_fold__count(f), 100 + 50 + 1);
	n = model_fold__cpu_aggs(f, &a);
	assert_int_equal(n, 100);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].tid % 2, 0);
		left += a[i].runtime_ns;
	}
	assert_int_equal(left, 2 * 2550);
	assert_int_equal(model_fold__kvm_aggs(f, &ka), 1);
	assert_int_equal(ka->tid, 8);
	/* still found by key: an even tid adds up, a taken one starts a new aggregate */
	assert_int_equal(model_fold__slice(f, &(struct pwz_slice){ .tid = 2, .cpu = 1, .dur_ns = 5,
					       .end = PWZ_END_SLEPT }), 0);
	assert_int_equal(model_fold__slice(f, &(struct pwz_slice){ .tid = 3, .cpu = 1, .dur_ns = 5,
					       .end = PWZ_END_SLEPT }), 0);
	assert_int_equal(cpu_agg(f, 2, 1)->runtime_ns, 2 + 5);
	assert_int_equal(cpu_agg(f, 2, 1)->switches, 2);
	assert_int_equal(cpu_agg(f, 3, 1)->runtime_ns, 5);
	assert_int_equal(cpu_agg(f, 3, 1)->switches, 1);
	assert_null(cpu_agg(f, 3, 0));
	assert_int_equal(model_fold__count(f), 100 + 50 + 1 + 1);
	model_fold__free(f);

	/* the sink fails on its 3rd aggregate: the 2 sent are gone, every other one stays */
	f = hundred_threads();
	tk = (struct taken){ .fail_at = 3 };
	assert_int_equal(model_fold__take(f, odd, NULL, &v), -EIO);
	assert_int_equal(tk.cpu, 2);
	assert_int_equal(model_fold__count(f), 302 - 2);
	assert_null(cpu_agg(f, 1, 0));
	assert_null(cpu_agg(f, 1, 1));
	assert_non_null(cpu_agg(f, 3, 0));
	assert_int_equal(model_fold__cpu_agg(f, &(struct pwz_cpu_agg){ .tid = 3, .cpu = 0,
						  .runtime_ns = 1 }), 0);
	assert_int_equal(cpu_agg(f, 3, 0)->runtime_ns, 3 + 1);
	model_fold__free(f);

	/* a recycled tid: only the instance picked leaves */
	f = model_fold__new(NULL);
	tk = (struct taken){ 0 };
	assert_int_equal(model_fold__born(f, 201, 1000000), 0);
	assert_int_equal(model_fold__born(f, 201, 5000000), 0);
	assert_int_equal(model_fold__slice(f, &(struct pwz_slice){ .tid = 201, .start_ns = 1000000,
					       .dur_ns = 7, .end = PWZ_END_EXITED }), 0);
	assert_int_equal(model_fold__slice(f, &(struct pwz_slice){ .tid = 201, .start_ns = 5000000,
					       .dur_ns = 9, .end = PWZ_END_SLEPT }), 0);
	assert_int_equal(model_fold__count(f), 2);
	assert_int_equal(model_fold__take(f, first_201, NULL, &v), 0);
	assert_int_equal(tk.cpu, 1);
	assert_int_equal(tk.runtime_ns, 7);
	assert_int_equal(model_fold__cpu_aggs(f, &a), 1);
	assert_int_equal(a->since_ns, 5000000);
	assert_int_equal(a->runtime_ns, 9);
	/* the ended instance's birth stays for its late records, the live one's too */
	assert_int_equal(model_fold__instance(f, 201, 2000000), 1000000);
	assert_int_equal(model_fold__instance(f, 201, 6000000), 5000000);
	assert_int_equal(model_fold__take(f, last_201, NULL, &v), 0);
	assert_int_equal(model_fold__count(f), 0);
	/* the first one's birth went with the second's end; a late record of the second (read
	 * from another CPU's batch, or the kernel's part of its dropped slices) keeps its key */
	assert_int_equal(model_fold__instance(f, 201, 2000000), 0);
	assert_int_equal(model_fold__slice(f, &(struct pwz_slice){ .tid = 201, .start_ns = 5000010,
					       .dur_ns = 4, .end = PWZ_END_PREEMPTED }), 0);
	assert_int_equal(model_fold__cpu_agg(f, &(struct pwz_cpu_agg){ .tid = 201,
						  .since_ns = model_fold__instance(f, 201, UINT64_MAX),
						  .runtime_ns = 3, .switches = 1 }), 0);
	assert_int_equal(model_fold__cpu_aggs(f, &a), 1);
	assert_int_equal(a->since_ns, 5000000);
	assert_int_equal(a->runtime_ns, 4 + 3);
	assert_int_equal(a->switches, 2);
	model_fold__free(f);

	/* 3,000 threads born, 1,500 ended: the ended ones' births stay for their late records,
	 * a later birth and the live threads' count */
	f = model_fold__new(NULL);
	for (uint32_t tid = 1; tid <= 3000; tid++) {
		assert_int_equal(model_fold__born(f, tid, 1000 * tid), 0);
		assert_int_equal(model_fold__slice(f, &(struct pwz_slice){ .tid = tid,
						       .start_ns = 1000 * tid, .dur_ns = 10,
						       .end = PWZ_END_EXITED }), 0);
	}
	tk = (struct taken){ 0 };
	assert_int_equal(model_fold__take(f, odd, NULL, &v), 0);
	assert_int_equal(tk.cpu, 1500);
	assert_int_equal(model_fold__instance(f, 1, 5000), 1000);
	assert_int_equal(model_fold__instance(f, 2, 5000), 2000);
	assert_int_equal(model_fold__born(f, 1, 9000000), 0);
	assert_int_equal(model_fold__instance(f, 1, 9000001), 9000000);
	assert_int_equal(model_fold__instance(f, 2998, 9000001), 2998000);
	model_fold__free(f);
}

/* The visitor folds what a reader delivers. */
/* Sums of the file's figures saturate (records.h): two halves of 2^64 and more stay at
 * 2^64 - 1, a smaller sum is exact; so do the drop counters and their total. */
static void test_sums_saturate(void **state)
{
	struct model_fold *f = model_fold__new(NULL);
	const uint64_t half = 1ull << 63;
	struct pwz_cpu_agg k = { .tid = 7, .cpu = 0, .runtime_ns = half, .switches = half,
				 .unseen_ns = 5 };
	struct pwz_slice s = { .tid = 7, .cpu = 0, .end = PWZ_END_SLEPT, .dur_ns = half };
	struct pwz_wait_agg w = { .tid = 7, .count = half, .wait_ns = half };
	struct pwz_meta m = { 0 };
	const struct pwz_cpu_agg *a;
	const struct pwz_wait_agg *wa;

	(void)state;
	assert_int_equal(model_fold__cpu_agg(f, &k), 0);
	assert_int_equal(model_fold__cpu_agg(f, &k), 0);
	a = cpu_agg(f, 7, 0);
	assert_true(a->runtime_ns == PWZ_SATURATED);	/* wrapped, it was 0 */
	assert_true(a->switches == PWZ_SATURATED);
	assert_int_equal(a->unseen_ns, 10);
	assert_int_equal(model_fold__slice(f, &s), 0);	/* a saturated sum stays there */
	assert_true(cpu_agg(f, 7, 0)->runtime_ns == PWZ_SATURATED);
	assert_int_equal(model_fold__wait_agg(f, &w), 0);
	w.count = half - 2;
	assert_int_equal(model_fold__wait_agg(f, &w), 0);
	assert_int_equal(model_fold__wait_aggs(f, &wa), 1);
	assert_true(wa->count == PWZ_SATURATED - 1);	/* just below: exact */
	assert_true(wa->wait_ns == PWZ_SATURATED);
	model_fold__free(f);

	assert_int_equal(pwz_meta_add_drop(&m, "slice", half), 0);
	assert_int_equal(pwz_meta_add_drop(&m, "kvm_exit", half), 0);
	assert_true(pwz_meta_total_drops(&m) == PWZ_SATURATED);	/* wrapped, "0 dropped" */
	assert_int_equal(pwz_meta_add_drop(&m, "slice", half), 0);
	assert_true(m.drops[0].value == PWZ_SATURATED);
	assert_int_equal(pwz_meta_add_drop(&m, "task", 3), 0);
	assert_true(pwz_meta_total_drops(&m) == PWZ_SATURATED);
	assert_string_equal(pwz_sat_more(PWZ_SATURATED), " or more");
	assert_string_equal(pwz_sat_more(3), "");
	pwz_meta_free(&m);
}

static void test_visitor(void **state)
{
	struct model_fold *f = model_fold__new(NULL);
	struct cdict_visitor v = model_fold__visitor(f);
	struct pwz_slice s = { .tid = 2, .cpu = 0, .dur_ns = 8, .end = PWZ_END_SLEPT };
	struct pwz_wakeup wk = { .tid = 2, .wait_ns = 3 };
	const struct pwz_wait_agg *w;

	(void)state;
	assert_null(v.meta);
	assert_null(v.task);
	assert_int_equal(v.slice(v.ctx, &s), 0);
	assert_int_equal(v.wakeup(v.ctx, &wk), 0);
	assert_int_equal(cpu_agg(f, 2, 0)->runtime_ns, 8);
	assert_int_equal(model_fold__wait_aggs(f, &w), 1);
	assert_int_equal(w->wait_ns, 3);
	model_fold__free(f);
}

/* R8: births split a tid's records into instances by time; aggregates keep their instance. */
static void test_instances(void **state)
{
	struct model_fold *f = model_fold__new(NULL);
	struct pwz_slice a = { .tid = 9, .cpu = 0, .start_ns = 0, .dur_ns = 100,
			       .end = PWZ_END_EXITED };
	struct pwz_slice b = { .tid = 9, .cpu = 0, .start_ns = 500, .dur_ns = 50,
			       .end = PWZ_END_SLEPT };
	struct pwz_slice c = { .tid = 9, .cpu = 1, .start_ns = 900, .dur_ns = 10,
			       .end = PWZ_END_SLEPT };
	struct pwz_wakeup w = { .tid = 9, .cpu = 0, .wake_ns = 480, .wait_ns = 20 };
	struct pwz_kvm_exit e = { .tid = 9, .time_ns = 520, .isa = PWZ_ISA_VMX, .reason = 1,
				  .handling_ns = 5 };
	struct pwz_cpu_agg k = { .tid = 9, .cpu = 0, .since_ns = 400, .runtime_ns = 7 };
	const struct pwz_cpu_agg *ca;
	const struct pwz_wait_agg *wa;
	const struct pwz_kvm_agg *ka;

	(void)state;
	/* births may come in any order; a repeated one changes nothing */
	assert_int_equal(model_fold__born(f, 9, 800), 0);
	assert_int_equal(model_fold__born(f, 9, 400), 0);
	assert_int_equal(model_fold__born(f, 9, 400), 0);
	assert_int_equal(model_fold__born(f, 9, 0), 0);	/* 0: the instance there at the start */
	assert_int_equal(model_fold__instance(f, 9, 399), 0);
	assert_int_equal(model_fold__instance(f, 9, 400), 400);
	assert_int_equal(model_fold__instance(f, 9, 799), 400);
	assert_int_equal(model_fold__instance(f, 9, UINT64_MAX), 800);
	assert_int_equal(model_fold__instance(f, 10, 900), 0);
	assert_int_equal(model_fold__slice(f, &a), 0);
	assert_int_equal(model_fold__slice(f, &b), 0);
	assert_int_equal(model_fold__slice(f, &c), 0);
	assert_int_equal(model_fold__wait(f, &w), 0);
	assert_int_equal(model_fold__kvm_exit(f, &e), 0);
	assert_int_equal(model_fold__cpu_agg(f, &k), 0);
	assert_int_equal(model_fold__cpu_aggs(f, &ca), 3);	/* sorted by (tid, since, cpu) */
	assert_int_equal(ca[0].since_ns, 0);
	assert_int_equal(ca[0].runtime_ns, 100);
	assert_int_equal(ca[1].since_ns, 400);
	assert_int_equal(ca[1].runtime_ns, 57);			/* 50 + the added 7 */
	assert_int_equal(ca[2].since_ns, 800);
	assert_int_equal(ca[2].cpu, 1);
	assert_int_equal(model_fold__wait_aggs(f, &wa), 1);
	assert_int_equal(wa[0].since_ns, 400);
	assert_int_equal(model_fold__kvm_aggs(f, &ka), 1);
	assert_int_equal(ka[0].since_ns, 400);
	/* an exit of another instance is another aggregate, even for the same reason */
	e.time_ns = 950;
	assert_int_equal(model_fold__kvm_exit(f, &e), 0);
	assert_int_equal(model_fold__kvm_aggs(f, &ka), 2);
	assert_int_equal(ka[1].since_ns, 800);
	assert_int_equal(ka[1].count, 1);
	model_fold__free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_clip),
		cmocka_unit_test(test_slice_kinds),
		cmocka_unit_test(test_waits),
		cmocka_unit_test(test_exits),
		cmocka_unit_test(test_run_delay),
		cmocka_unit_test(test_aggregates),
		cmocka_unit_test(test_sums_saturate),
		cmocka_unit_test(test_visitor),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_instances),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
