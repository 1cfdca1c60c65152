// SPDX-License-Identifier: GPL-2.0
/* The kvm_exit table's per-exit split (render/export_split.h): when an exit is decided, and how. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "export_split.h"

struct got {
	size_t n;
	struct {
		uint64_t ts;
		bool known;
		uint64_t on, ready, sleep;
	} r[64];
	size_t total;			/* every emit, past the 64 kept */
};

static int emit(void *ctx, const struct pwz_kvm_exit *e, uint32_t utid, bool known, uint64_t on,
		uint64_t ready, uint64_t sleep)
{
	struct got *g = ctx;

	assert_int_equal(utid, 1);
	if (known)
		assert_int_equal(on + ready + sleep, e->handling_ns);
	if (g->n < 64)
		g->r[g->n++] = (typeof(g->r[0])){ e->time_ns, known, on, ready, sleep };
	g->total++;
	return 0;
}

static struct pwz_slice sl(uint32_t cpu, uint64_t start, uint64_t dur)
{
	return (struct pwz_slice){ .tid = 7, .cpu = cpu, .start_ns = start, .dur_ns = dur,
				   .end = PWZ_END_PREEMPTED };
}

static struct pwz_kvm_exit ex(uint64_t t0, uint64_t dur)
{
	return (struct pwz_kvm_exit){ .tid = 7, .time_ns = t0, .isa = PWZ_ISA_VMX, .reason = 12,
				      .handling_ns = dur, .flags = dur ? 0 : PWZ_EXIT_UNPAIRED };
}

static void expect(const struct got *g, size_t i, uint64_t ts, bool known, uint64_t on,
		   uint64_t ready, uint64_t sleep)
{
	assert_true(i < g->n);
	assert_int_equal(g->r[i].ts, ts);
	assert_int_equal(g->r[i].known, known);
	assert_int_equal(g->r[i].on, on);
	assert_int_equal(g->r[i].ready, ready);
	assert_int_equal(g->r[i].sleep, sleep);
}

/* An import's order: exits before the slice that covers them; an unpaired exit at once. */
static void test_ordered(void **state)
{
	struct got g = { 0 };
	struct export_split *xs = export_split__new(true, false, 2, emit, &g);
	struct pwz_slice a = sl(0, 100, 900), b = sl(1, 1500, 1000);
	struct pwz_wakeup w = { .tid = 7, .cpu = 1, .wake_ns = 1200, .wait_ns = 300 };
	struct pwz_kvm_exit e1 = ex(200, 100), e2 = ex(800, 1000), e3 = ex(2000, 0);

	(void)state;
	assert_non_null(xs);
	assert_int_equal(export_split__exit(xs, 1, &e1), 0);
	assert_int_equal(g.n, 0);			/* its slice is not read yet */
	assert_int_equal(export_split__slice(xs, 1, &a), 0);
	expect(&g, 0, 200, true, 100, 0, 0);		/* inside a: on-CPU */
	assert_int_equal(export_split__wait(xs, 1, &w), 0);
	assert_int_equal(export_split__exit(xs, 1, &e2), 0);	/* [800, 1800) */
	assert_int_equal(export_split__exit(xs, 1, &e3), 0);
	expect(&g, 1, 2000, false, 0, 0, 0);		/* no entry: unknown, at once */
	assert_int_equal(g.n, 2);
	assert_int_equal(export_split__slice(xs, 1, &b), 0);
	/* on [800, 1000) + [1500, 1800), ready [1200, 1500), asleep [1000, 1200) */
	expect(&g, 2, 800, true, 500, 300, 200);
	assert_int_equal(export_split__finish(xs), 0);
	assert_int_equal(g.n, 3);
	export_split__free(xs);
}

/* A live capture's order: CPU 0's slices come late; the exit waits for every CPU's watermark. */
static void test_live_watermark(void **state)
{
	struct got g = { 0 };
	struct export_split *xs = export_split__new(false, false, 2, emit, &g);
	struct pwz_slice a = sl(0, 100, 900), b = sl(1, 1500, 1000), idle0 = sl(0, 1000, 2000);
	struct pwz_kvm_exit e = ex(800, 1000);

	(void)state;
	idle0.tid = 0;
	assert_int_equal(export_split__exit(xs, 1, &e), 0);
	assert_int_equal(export_split__slice(xs, 1, &b), 0);
	assert_int_equal(g.n, 0);		/* CPU 0 not read up to 1800 yet */
	assert_int_equal(export_split__slice(xs, 1, &a), 0);
	assert_int_equal(g.n, 0);		/* CPU 0 read up to 1000 only */
	assert_int_equal(export_split__slice(xs, 2, &idle0), 0);
	/* another thread's slice moved the watermark: the held exit is retried at the end at the
	 * latest, with the same split */
	assert_int_equal(export_split__finish(xs), 0);
	expect(&g, 0, 800, true, 500, 0, 500);
	export_split__free(xs);
}

/* A thread without slices, and a capture without any: unknown. */
static void test_no_slices(void **state)
{
	struct got g = { 0 };
	struct export_split *xs = export_split__new(true, false, 1, emit, &g);
	struct pwz_kvm_exit e = ex(800, 1000);

	(void)state;
	assert_int_equal(export_split__exit(xs, 1, &e), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(export_split__finish(xs), 0);
	expect(&g, 0, 800, false, 0, 0, 0);
	export_split__free(xs);
	memset(&g, 0, sizeof(g));
	xs = export_split__new(true, true, 1, emit, &g);
	assert_int_equal(export_split__exit(xs, 1, &e), 0);
	expect(&g, 0, 800, false, 0, 0, 0);		/* at once: nothing is held */
	export_split__free(xs);
}

/* Held records are bounded: past the bound the oldest pending exits are let go of and replayed;
 * a thread with no pending exit keeps its last slices only, and an exit reaching before them is
 * unknown. */
static void test_bounds(void **state)
{
	struct got g = { 0 };
	struct export_split *xs = export_split__new(true, false, 1, emit, &g);
	size_t n = EXPORT_SPLIT_MAX_PENDING + 10, i;
	struct pwz_kvm_exit e;
	struct pwz_slice s;

	(void)state;
	/* a vCPU never switched out: its exits wait for its one slice, past the bound */
	for (i = 0; i < n; i++) {
		e = ex(1000 + 10 * i, 5);
		assert_int_equal(export_split__exit(xs, 1, &e), 0);
	}
	assert_int_equal(g.total, 0);
	assert_true(export_split__evicted(xs) > 0 && export_split__evicted(xs) < n);
	s = sl(0, 500, 1000 + 10 * n);
	assert_int_equal(export_split__slice(xs, 1, &s), 0);
	assert_int_equal(g.total, n - export_split__evicted(xs));	/* those held: at once */
	assert_true(g.r[0].known);
	assert_int_equal(export_split__finish(xs), 0);
	assert_true(export_split__needs_replay(xs));
	/* the file's exits again: the ones let go of come out, all on-CPU */
	memset(&g, 0, sizeof(g));
	for (i = 0; i < n; i++) {
		e = ex(1000 + 10 * i, 5);
		assert_int_equal(export_split__replay_exit(xs, 1, &e), 0);
	}
	assert_int_equal(g.total, export_split__evicted(xs));
	expect(&g, 0, 1000, true, 5, 0, 0);
	expect(&g, 63, 1000 + 10 * 63, true, 5, 0, 0);
	assert_int_equal(export_split__overflowed(xs), 0);
	export_split__free(xs);

	memset(&g, 0, sizeof(g));
	xs = export_split__new(true, false, 1, emit, &g);
	for (i = 0; i < 3 * EXPORT_SPLIT_KEEP; i++) {
		s = sl(0, 1000 * i, 500);
		assert_int_equal(export_split__slice(xs, 1, &s), 0);
	}
	e = ex(1000 * 2 + 100, 50);	/* inside the 3rd slice, let go */
	assert_int_equal(export_split__exit(xs, 1, &e), 0);
	expect(&g, 0, 2100, false, 0, 0, 0);
	assert_int_equal(export_split__overflowed(xs), 1);
	e = ex(1000 * (3 * EXPORT_SPLIT_KEEP - 2) + 100, 50);	/* inside a kept one */
	assert_int_equal(export_split__exit(xs, 1, &e), 0);
	expect(&g, 1, e.time_ns, true, 50, 0, 0);
	export_split__free(xs);
}

/* Live, a CPU without slices holds the watermark: past the bound, the exits that wait only for
 * it are decided with what was read. */
static void test_live_forced(void **state)
{
	struct got g = { 0 };
	struct export_split *xs = export_split__new(false, false, 2, emit, &g);
	size_t n = EXPORT_SPLIT_MAX_PENDING / 2 + 100, i;
	struct pwz_kvm_exit e;
	struct pwz_slice s;

	(void)state;
	for (i = 0; i < n; i++) {
		s = sl(1, 100 * i, 50);
		assert_int_equal(export_split__slice(xs, 1, &s), 0);
		e = ex(100 * i + 40, 70);	/* on 10, asleep 50, on 10 */
		assert_int_equal(export_split__exit(xs, 1, &e), 0);
	}
	assert_true(export_split__forced(xs) > 0);
	assert_int_equal(g.total, export_split__forced(xs));
	expect(&g, 0, 40, true, 20, 0, 50);
	expect(&g, 63, 100 * 63 + 40, true, 20, 0, 50);
	assert_int_equal(export_split__evicted(xs), 0);
	export_split__free(xs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordered),
		cmocka_unit_test(test_live_watermark),
		cmocka_unit_test(test_no_slices),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_live_forced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
