// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/vcpu_timeline.c: a vCPU's states over time from its slices, waits, exits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "vcpu_timeline.h"

#define MAX_OUT 64

struct got {
	size_t n;
	enum vcpu_tl_state s[MAX_OUT];
	uint64_t from[MAX_OUT], to[MAX_OUT];
	int stop_at;			/* the call that returns non-zero (1-based); 0 never */
};

/* Records each interval, and holds the promise: consecutive, non-empty, neighbours differ. */
static int record(void *ctx, enum vcpu_tl_state s, uint64_t from, uint64_t to)
{
	struct got *g = ctx;

	assert_true(g->n < MAX_OUT);
	assert_true(from < to);
	if (g->n) {
		assert_int_equal(from, g->to[g->n - 1]);
		assert_int_not_equal(s, g->s[g->n - 1]);
	}
	g->s[g->n] = s;
	g->from[g->n] = from;
	g->to[g->n] = to;
	g->n++;
	return g->stop_at && (int)g->n == g->stop_at ? 42 : 0;
}

struct want {
	enum vcpu_tl_state s;
	uint64_t from, to;
};

static void expect(const struct got *g, const struct want *w, size_t n)
{
	assert_int_equal(g->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(g->s[i], w[i].s);
		assert_int_equal(g->from[i], w[i].from);
		assert_int_equal(g->to[i], w[i].to);
	}
}

/*
 * One vCPU over [0, 1000) ns. Slices [100,300) preempted, [500,600) slept, [800,900) slept.
 * Waits: the preemption [300,500) (ready after a slice that ended preempted), a wakeup
 * [780,800). Exits: at 150 (guest 40, handled 30); at 250 (guest 50, handled 300: on CPU
 * [250,300) and [500,550), ready between); at 580 (guest 30, handled 250: on [580,600), halted
 * [600,780), ready [780,800), on [800,830)); at 860 (guest 30) without entry: handled to the end.
 */
static const struct vcpu_tl_span slices[] = { { 100, 300 }, { 500, 600 }, { 800, 900 } };
static const struct vcpu_tl_span waits[] = { { 300, 500 }, { 780, 800 } };
static const struct vcpu_tl_exit exits[] = {
	{ 150, 40, 30 }, { 250, 50, 300 }, { 580, 30, 250 }, { 860, 30, 0 },
};

static struct vcpu_tl_input input(uint64_t from, uint64_t to)
{
	return (struct vcpu_tl_input){ .slices = slices, .nr_slices = 3, .waits = waits,
				       .nr_waits = 2, .exits = exits, .nr_exits = 4,
				       .from_ns = from, .to_ns = to };
}

static void test_whole(void **state)
{
	static const struct want w[] = {
		{ VCPU_TL_HALT, 0, 100 },		{ VCPU_TL_OTHER_ON_CPU, 100, 110 },
		{ VCPU_TL_GUEST, 110, 150 },		{ VCPU_TL_EXIT, 150, 180 },
		{ VCPU_TL_OTHER_ON_CPU, 180, 200 },	{ VCPU_TL_GUEST, 200, 250 },
		{ VCPU_TL_EXIT, 250, 300 },		{ VCPU_TL_READY, 300, 500 },
		{ VCPU_TL_EXIT, 500, 550 },		{ VCPU_TL_GUEST, 550, 580 },
		{ VCPU_TL_EXIT, 580, 600 },		{ VCPU_TL_HALT, 600, 780 },
		{ VCPU_TL_READY, 780, 800 },		{ VCPU_TL_EXIT, 800, 830 },
		{ VCPU_TL_GUEST, 830, 860 },		{ VCPU_TL_EXIT, 860, 900 },
		{ VCPU_TL_HALT, 900, 1000 },
	};
	struct vcpu_tl_input in = input(0, 1000);
	struct got g = { 0 };
	uint64_t total[VCPU_TL_STATES] = { 0 };

	(void)state;
	assert_int_equal(vcpu_tl_derive(&in, record, &g), 0);
	expect(&g, w, sizeof(w) / sizeof(w[0]));
	for (size_t i = 0; i < g.n; i++)
		total[g.s[i]] += g.to[i] - g.from[i];
	assert_int_equal(total[VCPU_TL_GUEST], 40 + 50 + 30 + 30);	/* the exits' guest_ns */
	assert_int_equal(total[VCPU_TL_READY], 200 + 20);		/* the waits */
	assert_int_equal(total[VCPU_TL_EXIT] + total[VCPU_TL_GUEST] +
			 total[VCPU_TL_OTHER_ON_CPU], 200 + 100 + 100);	/* the slices */
}

/* A window [120, 870): the first guest interval, the slices, the last exit cut at its edges. */
static void test_window(void **state)
{
	static const struct want w[] = {
		{ VCPU_TL_GUEST, 120, 150 },		{ VCPU_TL_EXIT, 150, 180 },
		{ VCPU_TL_OTHER_ON_CPU, 180, 200 },	{ VCPU_TL_GUEST, 200, 250 },
		{ VCPU_TL_EXIT, 250, 300 },		{ VCPU_TL_READY, 300, 500 },
		{ VCPU_TL_EXIT, 500, 550 },		{ VCPU_TL_GUEST, 550, 580 },
		{ VCPU_TL_EXIT, 580, 600 },		{ VCPU_TL_HALT, 600, 780 },
		{ VCPU_TL_READY, 780, 800 },		{ VCPU_TL_EXIT, 800, 830 },
		{ VCPU_TL_GUEST, 830, 860 },		{ VCPU_TL_EXIT, 860, 870 },
	};
	struct vcpu_tl_input in = input(120, 870);
	struct got g = { 0 };

	(void)state;
	assert_int_equal(vcpu_tl_derive(&in, record, &g), 0);
	expect(&g, w, sizeof(w) / sizeof(w[0]));

	/* inside one wait: ready alone; an empty window: nothing */
	in = input(350, 450);
	memset(&g, 0, sizeof(g));
	assert_int_equal(vcpu_tl_derive(&in, record, &g), 0);
	expect(&g, (const struct want[]){ { VCPU_TL_READY, 350, 450 } }, 1);
	in = input(450, 450);
	memset(&g, 0, sizeof(g));
	assert_int_equal(vcpu_tl_derive(&in, record, &g), 0);
	assert_int_equal(g.n, 0);
}

/*
 * An exit without entry inside the stream (the entry's record lost) is handled until the next
 * exit's guest time begins; an exit without guest time leaves other_on_cpu before it; a wait
 * that overlaps a slice is ready only off CPU.
 */
static void test_unpaired_and_overlap(void **state)
{
	static const struct vcpu_tl_span sl[] = { { 0, 400 } };
	static const struct vcpu_tl_span wk[] = { { 300, 500 } };
	static const struct vcpu_tl_exit ex[] = { { 100, 0, 0 }, { 250, 50, 20 } };
	static const struct want w[] = {
		{ VCPU_TL_OTHER_ON_CPU, 0, 100 },	{ VCPU_TL_EXIT, 100, 200 },
		{ VCPU_TL_GUEST, 200, 250 },		{ VCPU_TL_EXIT, 250, 270 },
		{ VCPU_TL_OTHER_ON_CPU, 270, 400 },	{ VCPU_TL_READY, 400, 500 },
		{ VCPU_TL_HALT, 500, 600 },
	};
	struct vcpu_tl_input in = { .slices = sl, .nr_slices = 1, .waits = wk, .nr_waits = 1,
				    .exits = ex, .nr_exits = 2, .from_ns = 0, .to_ns = 600 };
	struct got g = { 0 };

	(void)state;
	assert_int_equal(vcpu_tl_derive(&in, record, &g), 0);
	expect(&g, w, sizeof(w) / sizeof(w[0]));
}

/* No streams at all (a vCPU named so that never ran in the window): halt throughout. */
static void test_nothing(void **state)
{
	struct vcpu_tl_input in = { .from_ns = 5, .to_ns = 9 };
	struct got g = { 0 };

	(void)state;
	assert_int_equal(vcpu_tl_derive(&in, record, &g), 0);
	expect(&g, (const struct want[]){ { VCPU_TL_HALT, 5, 9 } }, 1);
}

/* The emitter's non-zero value stops the derivation and is returned. */
static void test_stop(void **state)
{
	struct vcpu_tl_input in = input(0, 1000);
	struct got g = { .stop_at = 3 };

	(void)state;
	assert_int_equal(vcpu_tl_derive(&in, record, &g), 42);
	assert_int_equal(g.n, 3);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(vcpu_tl_state_name(VCPU_TL_GUEST), "guest");
	assert_string_equal(vcpu_tl_state_name(VCPU_TL_EXIT), "exit");
	assert_string_equal(vcpu_tl_state_name(VCPU_TL_OTHER_ON_CPU), "other_on_cpu");
	assert_string_equal(vcpu_tl_state_name(VCPU_TL_READY), "ready");
	assert_string_equal(vcpu_tl_state_name(VCPU_TL_HALT), "halt");
	assert_null(vcpu_tl_state_name(VCPU_TL_STATES));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_unpaired_and_overlap),
		cmocka_unit_test(test_nothing),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
