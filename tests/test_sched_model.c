// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/sched_model.c: slices, switch kinds, waits and KVM pairing from event streams. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "sched_model.h"

#define MAXR 64

struct got {
	struct pwz_slice slices[MAXR];
	struct pwz_wakeup wakeups[MAXR];
	struct pwz_kvm_exit exits[MAXR];
	struct pwz_cpu_agg cpu_aggs[MAXR];
	struct pwz_kvm_agg kvm_aggs[MAXR];
	struct pwz_wait_agg wait_aggs[MAXR];
	int ns, nw, ne, nca, nka, nwa;
};

static int s_slice(void *c, const struct pwz_slice *s)
{
	struct got *g = c;

	assert_true(g->ns < MAXR);
	g->slices[g->ns++] = *s;
	return 0;
}

static int s_wakeup(void *c, const struct pwz_wakeup *w)
{
	struct got *g = c;

	g->wakeups[g->nw++] = *w;
	return 0;
}

static int s_exit(void *c, const struct pwz_kvm_exit *e)
{
	struct got *g = c;

	g->exits[g->ne++] = *e;
	return 0;
}

static int s_cpu_agg(void *c, const struct pwz_cpu_agg *a)
{
	struct got *g = c;

	g->cpu_aggs[g->nca++] = *a;
	return 0;
}

static int s_kvm_agg(void *c, const struct pwz_kvm_agg *a)
{
	struct got *g = c;

	g->kvm_aggs[g->nka++] = *a;
	return 0;
}

static int s_wait_agg(void *c, const struct pwz_wait_agg *a)
{
	struct got *g = c;

	g->wait_aggs[g->nwa++] = *a;
	return 0;
}

static struct sched_model *model(struct got *g, uint64_t preempt_bit)
{
	struct sched_model_opts o = { .preempt_bit = preempt_bit, .emit_slices = true,
				      .emit_wakeups = true, .emit_kvm_exits = true };
	struct cdict_visitor s = { .ctx = g, .slice = s_slice, .wakeup = s_wakeup, .kvm_exit = s_exit,
				   .cpu_agg = s_cpu_agg, .kvm_agg = s_kvm_agg, .wait_agg = s_wait_agg };
	struct sched_model *m;

	memset(g, 0, sizeof(*g));
	m = sched_model__new(&o, &s);
	assert_non_null(m);
	return m;
}

static const struct pwz_cpu_agg *cpu_agg(const struct got *g, uint32_t tid, uint32_t cpu)
{
	int i;

	for (i = 0; i < g->nca; i++)
		if (g->cpu_aggs[i].tid == tid && g->cpu_aggs[i].cpu == cpu)
			return &g->cpu_aggs[i];
	return NULL;
}

/* CPU 0: task 10 runs from the start, 20 from t=100 to 250, 10 again until the end (400). */
static void test_slices_first_and_open(void **state)
{
	struct sched_model_stats st;
	struct got g;
	struct sched_model *m = model(&g, 0x100);

	(void)state;
	assert_int_equal(sched_model__switch(m, 100, 0, 10, 1 /* S */, 20), 0);
	assert_int_equal(sched_model__switch(m, 250, 0, 20, 0 /* R */, 10), 0);
	assert_int_equal(sched_model__finish(m, 400), 0);
	assert_int_equal(g.ns, 3);
	assert_int_equal(g.slices[0].tid, 10);
	assert_int_equal(g.slices[0].start_ns, 0);
	assert_int_equal(g.slices[0].dur_ns, 100);
	assert_int_equal(g.slices[0].end, PWZ_END_SLEPT);
	assert_int_equal(g.slices[1].tid, 20);
	assert_int_equal(g.slices[1].start_ns, 100);
	assert_int_equal(g.slices[1].dur_ns, 150);
	assert_int_equal(g.slices[1].end, PWZ_END_PREEMPTED);
	assert_int_equal(g.slices[2].tid, 10);
	assert_int_equal(g.slices[2].start_ns, 250);
	assert_int_equal(g.slices[2].dur_ns, 150);
	assert_int_equal(g.slices[2].end, PWZ_END_OPEN);
	assert_int_equal(g.nca, 2);
	/* sorted by tid */
	assert_int_equal(g.cpu_aggs[0].tid, 10);
	assert_int_equal(g.cpu_aggs[0].runtime_ns, 250);
	assert_int_equal(g.cpu_aggs[0].switches, 1);
	assert_int_equal(g.cpu_aggs[0].voluntary, 1);
	assert_int_equal(g.cpu_aggs[0].involuntary, 0);
	assert_int_equal(g.cpu_aggs[1].tid, 20);
	assert_int_equal(g.cpu_aggs[1].runtime_ns, 150);
	assert_int_equal(g.cpu_aggs[1].involuntary, 1);
	sched_model__stats(m, &st);
	assert_int_equal(st.first_slices, 1);
	assert_int_equal(st.unseen, 0);
	sched_model__free(m);
}

/* R2: a switch-out whose switch-in is missing closes a flagged slice from the CPU's last event;
 * its time is unseen, not runtime, and the CPU's slices still tile the capture. */
static void test_unseen_switch_in(void **state)
{
	struct sched_model_stats st;
	struct got g;
	struct sched_model *m = model(&g, 0x100);
	const struct pwz_cpu_agg *a;
	uint64_t cpu1 = 0;

	(void)state;
	assert_int_equal(sched_model__switch(m, 50, 1, 0, 0, 30), 0);
	/* 30 -> idle is missing, then idle -> 40 is missing; 40 switches out at 300 */
	assert_int_equal(sched_model__switch(m, 300, 1, 40, 1, 0), 0);
	/* 30 was taken as gone at 300: a wakeup now starts a wait (R4), measured at 350 */
	assert_int_equal(sched_model__wakeup(m, 310, 30), 0);
	assert_int_equal(sched_model__switch(m, 350, 1, 0, 0, 30), 0);
	assert_int_equal(sched_model__finish(m, 400), 0);
	sched_model__stats(m, &st);
	assert_int_equal(st.unseen, 1);
	a = cpu_agg(&g, 40, 1);
	assert_non_null(a);
	assert_int_equal(a->switches, 1);
	assert_int_equal(a->voluntary, 1);
	assert_int_equal(a->runtime_ns, 0);
	assert_int_equal(a->unseen, 1);
	assert_int_equal(a->unseen_ns, 250);
	assert_int_equal(g.slices[1].flags & ~(uint32_t)PWZ_SLICE_STATE, PWZ_SLICE_UNSEEN_START);
	assert_int_equal(g.slices[1].start_ns, 50);
	for (int i = 0; i < g.ns; i++) {
		if (g.slices[i].cpu == 1)
			cpu1 += g.slices[i].dur_ns;
		if (i != 1)
			assert_int_equal(g.slices[i].flags & PWZ_SLICE_UNSEEN_START, 0);
	}
	assert_int_equal(cpu1, 400);	/* 0-50 idle, 50-300 unseen, 300-350 idle, 350-400 30 */
	/* the switch-out's prev_state as the event reported it (40 went to sleep: S) */
	assert_int_equal(pwz_slice_state(&g.slices[1]), PWZ_STATE_SLEEPING);
	assert_true(g.slices[1].flags & PWZ_SLICE_STATE);
	assert_int_equal(g.nw, 1);
	assert_int_equal(g.wakeups[0].wait_ns, 40);
	a = cpu_agg(&g, 30, 1);
	assert_non_null(a);
	assert_int_equal(a->runtime_ns, 50);	/* the open slice, 350-400 */
	assert_int_equal(a->switches, 0);
	sched_model__free(m);
}

static void test_end_kinds(void **state)
{
	(void)state;
	assert_int_equal(sched_model_end_kind(0, 0x100), PWZ_END_PREEMPTED);
	assert_int_equal(sched_model_end_kind(0x100, 0x100), PWZ_END_PREEMPTED);	/* R+ */
	assert_int_equal(sched_model_end_kind(0x100, 0), PWZ_END_SLEPT);	/* bit unknown */
	assert_int_equal(sched_model_end_kind(0x1, 0x100), PWZ_END_SLEPT);
	assert_int_equal(sched_model_end_kind(0x2, 0x100), PWZ_END_SLEPT);
	assert_int_equal(sched_model_end_kind(0x80, 0x100), PWZ_END_SLEPT);	/* I */
	assert_int_equal(sched_model_end_kind(0x10, 0x100), PWZ_END_EXITED);
	assert_int_equal(sched_model_end_kind(0x20, 0x100), PWZ_END_EXITED);
}

static void test_wakeup_wait(void **state)
{
	struct got g;
	struct sched_model *m = model(&g, 0x100);

	(void)state;
	assert_int_equal(sched_model__switch(m, 10, 0, 0, 0, 5), 0);
	assert_int_equal(sched_model__switch(m, 20, 0, 5, 1, 0), 0);	/* 5 sleeps */
	assert_int_equal(sched_model__wakeup(m, 100, 5), 0);
	assert_int_equal(sched_model__wakeup(m, 120, 5), 0);		/* the first one counts */
	assert_int_equal(sched_model__switch(m, 130, 0, 0, 0, 5), 0);	/* waited 30 */
	assert_int_equal(sched_model__wakeup(m, 135, 5), 0);		/* running: no wait */
	assert_int_equal(sched_model__switch(m, 140, 0, 5, 1, 0), 0);
	assert_int_equal(sched_model__wakeup(m, 200, 5), 0);
	assert_int_equal(sched_model__switch(m, 290, 1, 0, 0, 5), 0);	/* waited 90 on CPU 1 */
	assert_int_equal(sched_model__finish(m, 300), 0);
	assert_int_equal(g.nw, 2);
	assert_int_equal(g.wakeups[0].wake_ns, 100);
	assert_int_equal(g.wakeups[0].wait_ns, 30);
	assert_int_equal(g.wakeups[0].cpu, 0);
	assert_int_equal(g.wakeups[1].wait_ns, 90);
	assert_int_equal(g.wakeups[1].cpu, 1);
	assert_int_equal(g.nwa, 1);
	assert_int_equal(g.wait_aggs[0].count, 2);
	assert_int_equal(g.wait_aggs[0].wait_ns, 120);
	assert_int_equal(g.wait_aggs[0].max_ns, 90);
	sched_model__free(m);
}

/* R4: a preemption starts a wait, a wakeup while it waits does not restart it, a zero-length
 * wait counts, a sleep forgets nothing it should not. */
static void test_preempt_wait(void **state)
{
	struct got g;
	struct sched_model *m = model(&g, 0x100);

	(void)state;
	assert_int_equal(sched_model__switch(m, 10, 0, 0, 0, 5), 0);
	assert_int_equal(sched_model__switch(m, 20, 0, 5, 0x100 /* R+ */, 6), 0);
	assert_int_equal(sched_model__wakeup(m, 25, 5), 0);		/* already waiting */
	assert_int_equal(sched_model__switch(m, 70, 0, 6, 0 /* R */, 5), 0);	/* 5 waited 50 */
	assert_int_equal(sched_model__switch(m, 70, 1, 0, 0, 6), 0);	/* 6 waited 0 */
	assert_int_equal(sched_model__switch(m, 80, 0, 5, 1 /* S */, 0), 0);
	assert_int_equal(sched_model__switch(m, 90, 0, 0, 0, 5), 0);	/* no wakeup: no wait */
	assert_int_equal(sched_model__finish(m, 100), 0);
	assert_int_equal(g.nw, 2);
	assert_int_equal(g.wakeups[0].tid, 5);
	assert_int_equal(g.wakeups[0].wake_ns, 20);
	assert_int_equal(g.wakeups[0].wait_ns, 50);
	assert_int_equal(g.wakeups[1].tid, 6);
	assert_int_equal(g.wakeups[1].wait_ns, 0);
	assert_int_equal(g.nwa, 2);
	assert_int_equal(g.wait_aggs[1].tid, 6);
	assert_int_equal(g.wait_aggs[1].count, 1);
	sched_model__free(m);
}

static void test_kvm_pairing(void **state)
{
	struct got g;
	struct sched_model *m = model(&g, 0x100);

	(void)state;
	assert_int_equal(sched_model__kvm_entry(m, 1000, 0, 7), 0);
	assert_int_equal(sched_model__kvm_exit(m, 1500, 0, 7, 0, PWZ_ISA_SVM, 0x7b), 0);
	assert_int_equal(sched_model__kvm_entry(m, 1700, 0, 7), 0);	/* handled in 200 */
	assert_int_equal(sched_model__kvm_exit(m, 2000, 0, 7, 0, PWZ_ISA_SVM, 0x7b), 0);
	assert_int_equal(sched_model__kvm_entry(m, 6000, 0, 7), 0);	/* 4000 */
	assert_int_equal(sched_model__kvm_exit(m, 7000, 0, 7, 0, PWZ_ISA_SVM, 0x78), 0);
	assert_int_equal(sched_model__finish(m, 8000), 0);		/* hlt never entered */
	assert_int_equal(g.ne, 3);
	assert_int_equal(g.exits[0].time_ns, 1500);
	assert_int_equal(g.exits[0].guest_ns, 500);
	assert_int_equal(g.exits[0].handling_ns, 200);
	assert_int_equal(g.exits[1].guest_ns, 300);
	assert_int_equal(g.exits[1].handling_ns, 4000);
	assert_int_equal(g.exits[2].reason, 0x78);
	assert_int_equal(g.exits[2].guest_ns, 1000);
	assert_int_equal(g.exits[2].handling_ns, 0);
	assert_int_equal(g.nka, 2);
	assert_int_equal(g.kvm_aggs[0].reason, 0x78);	/* sorted by reason */
	assert_int_equal(g.kvm_aggs[0].count, 1);
	assert_int_equal(g.kvm_aggs[0].handling_ns, 0);
	assert_int_equal(g.kvm_aggs[1].reason, 0x7b);
	assert_int_equal(g.kvm_aggs[1].count, 2);
	assert_int_equal(g.kvm_aggs[1].handling_ns, 4200);
	assert_int_equal(g.kvm_aggs[1].hist[pwz_hist_bucket(200)], 1);
	assert_int_equal(g.kvm_aggs[1].hist[pwz_hist_bucket(4000)], 1);
	sched_model__free(m);
}

static void test_kvm_resets(void **state)
{
	struct sched_model_stats st;
	struct got g;
	struct sched_model *m = model(&g, 0x100);

	(void)state;
	/* lost events between exit and entry: unpaired, and no guest time for the next exit */
	assert_int_equal(sched_model__kvm_exit(m, 100, 0, 7, 0, PWZ_ISA_VMX, 30), 0);
	sched_model__lost(m, 150);
	assert_int_equal(sched_model__kvm_entry(m, 200, 0, 7), 0);
	assert_int_equal(sched_model__kvm_exit(m, 300, 0, 7, 0, PWZ_ISA_VMX, 30), 0);
	/* R5: an entry on another CPU than the exit (the thread migrated) still pairs */
	assert_int_equal(sched_model__kvm_entry(m, 400, 1, 7), 0);
	assert_int_equal(sched_model__kvm_exit(m, 500, 1, 7, 0, PWZ_ISA_VMX, 30), 0);
	assert_int_equal(sched_model__kvm_entry(m, 600, 0, 7), 0);
	assert_int_equal(sched_model__finish(m, 700), 0);
	assert_int_equal(g.ne, 3);
	assert_int_equal(g.exits[0].time_ns, 100);
	assert_int_equal(g.exits[0].handling_ns, 0);
	assert_int_equal(g.exits[1].time_ns, 300);
	assert_int_equal(g.exits[1].guest_ns, 100);	/* entry at 200 came after the loss */
	assert_int_equal(g.exits[1].handling_ns, 100);
	assert_int_equal(g.exits[2].guest_ns, 100);
	assert_int_equal(g.exits[2].handling_ns, 100);
	assert_int_equal(g.nka, 1);
	assert_int_equal(g.kvm_aggs[0].count, 3);
	assert_int_equal(g.kvm_aggs[0].handling_ns, 200);
	sched_model__stats(m, &st);
	assert_int_equal(st.kvm_unpaired, 1);
	assert_int_equal(st.kvm_resets, 1);
	sched_model__free(m);
}

static void test_bad_cpu(void **state)
{
	struct got g;
	struct sched_model *m = model(&g, 0);

	(void)state;
	assert_int_equal(sched_model__switch(m, 1, PWZ_MAX_CPUS, 1, 0, 2), -EINVAL);
	assert_int_equal(sched_model__finish(m, 2), 0);
	assert_int_equal(sched_model__finish(m, 2), -EALREADY);
	sched_model__free(m);
	sched_model__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slices_first_and_open),
		cmocka_unit_test(test_unseen_switch_in),
		cmocka_unit_test(test_end_kinds),
		cmocka_unit_test(test_wakeup_wait),
		cmocka_unit_test(test_preempt_wait),
		cmocka_unit_test(test_kvm_pairing),
		cmocka_unit_test(test_kvm_resets),
		cmocka_unit_test(test_bad_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
