// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/ledger_fold.c: the vCPU ledger (model.h R10) from crafted records. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ledger_fold.h"

#define MAXL 8

struct got {
	struct pwz_vcpu_ledger l[MAXL];
	int n;
};

static int on_ledger(void *ctx, const struct pwz_vcpu_ledger *l)
{
	struct got *g = ctx;

	assert_true(g->n < MAXL);
	g->l[g->n++] = *l;
	return 0;
}

/* ledger_fold__emit() of f at end into g. */
static int emit(struct ledger_fold *f, uint64_t end, struct got *g)
{
	struct cdict_visitor into = { .ctx = g, .vcpu_ledger = on_ledger };

	return ledger_fold__emit(f, end, &into);
}

static void task(struct ledger_fold *f, uint32_t tid, uint32_t tgid, uint64_t t, bool born,
		 const char *comm)
{
	struct pwz_task k = { .tid = tid, .tgid = tgid, .time_ns = t,
			      .flags = born ? PWZ_TASK_BORN : 0 };

	snprintf(k.comm, sizeof(k.comm), "%s", comm);
	assert_int_equal(ledger_fold__task(f, &k), 0);
}

static void slice(struct ledger_fold *f, uint32_t tid, uint32_t cpu, uint64_t start, uint64_t end,
		  uint32_t kind)
{
	struct pwz_slice s = { .tid = tid, .cpu = cpu, .start_ns = start, .dur_ns = end - start,
			       .end = kind };

	assert_int_equal(ledger_fold__slice(f, &s), 0);
}

static void wait(struct ledger_fold *f, uint32_t tid, uint32_t cpu, uint64_t wake, uint64_t in,
		 uint32_t flags)
{
	struct pwz_wakeup w = { .tid = tid, .cpu = cpu, .wake_ns = wake, .wait_ns = in - wake,
				.flags = flags };

	assert_int_equal(ledger_fold__wait(f, &w), 0);
}

/* An exit at t after guest ns of guest time (0 unknown), handled for handling ns (0: no
 * entry followed). */
static void kexit(struct ledger_fold *f, uint32_t tid, uint64_t t, uint64_t guest,
		  uint64_t handling)
{
	struct pwz_kvm_exit e = { .tid = tid, .time_ns = t, .isa = PWZ_ISA_VMX, .reason = 30,
				  .vcpu = tid % 100 + 4, .guest_ns = guest, .handling_ns = handling,
				  .flags = handling ? 0 : PWZ_EXIT_UNPAIRED };

	assert_int_equal(ledger_fold__kvm_exit(f, &e), 0);
}

static uint64_t sum_states(const struct pwz_vcpu_ledger *l)
{
	uint64_t s = 0;

	for (int i = 0; i < PWZ_VCPU_STATES; i++)
		s += l->ns[i];
	return s;
}

static uint64_t sum_causes(const struct pwz_vcpu_ledger *l)
{
	uint64_t s = 0;

	for (int i = 0; i < PWZ_READY_CAUSES; i++)
		s += l->cause_ns[i];
	return s;
}

static void assert_states(const struct pwz_vcpu_ledger *l, const uint64_t want[PWZ_VCPU_STATES])
{
	for (int i = 0; i < PWZ_VCPU_STATES; i++) {
		if (l->ns[i] != want[i])
			fail_msg("tid %u state %s: %llu ns, want %llu", l->tid,
				 pwz_vcpu_state_name(i), (unsigned long long)l->ns[i],
				 (unsigned long long)want[i]);
	}
	assert_int_equal(sum_states(l), l->alive_ns);
}

/*
 * vCPU 100 (process 100) and its sibling 102 ("CPU 1/KVM"), VMM thread 101, host thread 200.
 * CPU 0: 100 [0, 1000) slept, 102 [1000, 1800) slept, idle to the end (4000).
 * CPU 1: idle [0, 2000), 100 [2000, 3000) preempted, 200 [3000, 3200), 101 [3200, 3500),
 * 100 [3500, 4000) open. 100: entries 100, 400, 2100; exits 300 (handled 100), 600 (handled
 * to 2100); kvm_userspace_exit 700; woken 1500.
 */
static void build_vm(struct ledger_fold *f)
{
	task(f, 100, 100, 0, false, "qemu");
	task(f, 101, 100, 0, false, "qemu-io");
	task(f, 102, 100, 0, false, "CPU 1/KVM");
	task(f, 200, 200, 0, false, "hog");
	slice(f, 100, 0, 0, 1000, PWZ_END_SLEPT);
	slice(f, 102, 0, 1000, 1800, PWZ_END_SLEPT);
	slice(f, 0, 0, 1800, 4000, PWZ_END_OPEN);
	slice(f, 0, 1, 0, 2000, PWZ_END_PREEMPTED);
	slice(f, 100, 1, 2000, 3000, PWZ_END_PREEMPTED);
	slice(f, 200, 1, 3000, 3200, PWZ_END_SLEPT);
	slice(f, 101, 1, 3200, 3500, PWZ_END_SLEPT);
	slice(f, 100, 1, 3500, 4000, PWZ_END_OPEN);
	wait(f, 100, 1, 1500, 2000, PWZ_WAKEUP_WOKEN);
	wait(f, 100, 1, 3000, 3500, PWZ_WAKEUP_PREEMPTED);
	kexit(f, 100, 300, 200, 100);
	kexit(f, 100, 600, 200, 1500);
	assert_int_equal(ledger_fold__uexit(f, 100, 700, 2, 0), 0);
}

/* Every rule of R10 on one VM: guest between entry and exit, exit_kernel, exit_user after a
 * userspace exit, halt on a sleep, ready after a wakeup and on a preemption, unseen before a
 * first event that does not say; causes and co-stop. */
static void test_states(void **state)
{
	struct ledger_fold *f = ledger_fold__new();
	struct got g = { 0 };
	const struct pwz_vcpu_ledger *l;
	/* guest, exit_kernel, exit_user, halt_poll, halt, ready, other_on_cpu, unseen */
	const uint64_t want100[] = { 1300, 700, 400, 0, 500, 1000, 0, 100 };
	const uint64_t want102[] = { 0, 0, 0, 0, 2200, 1000, 0, 800 };

	(void)state;
	build_vm(f);
	assert_true(ledger_fold__has_vcpus(f));
	assert_int_equal(emit(f, 4000, &g), 0);
	assert_int_equal(g.n, 2);
	l = &g.l[0];
	assert_int_equal(l->tid, 100);
	assert_int_equal(l->alive_ns, 4000);
	assert_states(l, want100);
	assert_int_equal(l->count[PWZ_VCPU_GUEST], 3);
	assert_int_equal(l->count[PWZ_VCPU_EXIT_KERNEL], 2);
	assert_int_equal(l->count[PWZ_VCPU_EXIT_USER], 1);
	assert_int_equal(l->count[PWZ_VCPU_HALT], 1);
	assert_int_equal(l->count[PWZ_VCPU_READY], 2);
	assert_int_equal(l->count[PWZ_VCPU_UNSEEN], 1);
	/* [1500, 2000) CPU 1 idle; [3000, 3500): the hog 200, then the VMM 101 */
	assert_int_equal(l->cause_ns[PWZ_CAUSE_IDLE], 500);
	assert_int_equal(l->cause_ns[PWZ_CAUSE_HOST], 200);
	assert_int_equal(l->cause_ns[PWZ_CAUSE_SAME_VM_VMM], 300);
	assert_int_equal(sum_causes(l), l->ns[PWZ_VCPU_READY]);
	assert_int_equal(l->costop_ns, 300);	/* 102 ran [1000, 1800) */
	assert_true(l->has_vcpu);		/* the vcpu_id of its exits */
	assert_int_equal(l->vcpu, 4);
	/* the stretches: guest 3, ready 2, the open exit_kernel one at the end none */
	assert_int_equal(pwz_hist_total(l->hist[PWZ_VCPU_GUEST]), 3);
	assert_int_equal(pwz_hist_total(l->hist[PWZ_VCPU_READY]), 2);
	assert_int_equal(pwz_hist_total(l->hist[PWZ_VCPU_EXIT_KERNEL]), 2);

	/* 102, named a vCPU at the start: its first event, a switch-in, says it was ready */
	l = &g.l[1];
	assert_int_equal(l->tid, 102);
	assert_states(l, want102);
	assert_int_equal(l->count[PWZ_VCPU_READY], 1);
	assert_int_equal(l->cause_ns[PWZ_CAUSE_SAME_VM_VCPU], 1000);
	assert_int_equal(l->costop_ns, 1000);
	assert_false(l->has_vcpu);		/* no exit: its index unknown */
	ledger_fold__free(f);
}

/* A switch-in after a sleep with no wakeup in the records: halted or ready, unseen; a
 * thread's life ends at its exit. */
static void test_lost_wakeup(void **state)
{
	struct ledger_fold *f = ledger_fold__new();
	struct got g = { 0 };
	const uint64_t want[] = { 50, 150, 0, 0, 0, 0, 0, 400 };

	(void)state;
	task(f, 7, 7, 0, false, "vm");
	kexit(f, 7, 50, 0, 0);
	slice(f, 7, 0, 0, 100, PWZ_END_SLEPT);
	slice(f, 7, 0, 500, 600, PWZ_END_EXITED);
	slice(f, 0, 0, 100, 500, PWZ_END_SLEPT);
	assert_int_equal(emit(f, 1000, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.l[0].alive_ns, 600);
	assert_states(&g.l[0], want);
	assert_int_equal(g.l[0].count[PWZ_VCPU_HALT], 1);
	ledger_fold__free(f);
}

/*
 * R10's edges of the ready state. Preempted at 100, vCPU 7 is switched out asleep at 300 with
 * its switch-in unseen (R2: its slice starts at the last switch seen on CPU 0, its own
 * switch-out at 100): ready ends there, at once, and [100, 300) is unseen. Woken at 500,
 * in at 600 (CPU 0 idle meanwhile), preempted at 700: ready to the end (1000), which no
 * switch-in charges: unseen, so that the causes add up to the ready state.
 */
static void test_ready_edges(void **state)
{
	struct ledger_fold *f = ledger_fold__new();
	struct pwz_slice lost = { .tid = 7, .cpu = 0, .start_ns = 100, .dur_ns = 200,
				  .end = PWZ_END_SLEPT, .flags = PWZ_SLICE_UNSEEN_START };
	struct got g = { 0 };
	/* guest, exit_kernel, exit_user, halt_poll, halt, ready, other_on_cpu, unseen */
	const uint64_t want[] = { 50, 150, 0, 0, 200, 400, 0, 200 };

	(void)state;
	task(f, 7, 7, 0, false, "vm");
	kexit(f, 7, 50, 0, 0);
	slice(f, 7, 0, 0, 100, PWZ_END_PREEMPTED);
	assert_int_equal(ledger_fold__slice(f, &lost), 0);
	slice(f, 0, 0, 300, 600, PWZ_END_PREEMPTED);
	wait(f, 7, 0, 500, 600, PWZ_WAKEUP_WOKEN);
	slice(f, 7, 0, 600, 700, PWZ_END_PREEMPTED);
	assert_int_equal(emit(f, 1000, &g), 0);
	assert_int_equal(g.n, 1);
	assert_states(&g.l[0], want);
	assert_int_equal(g.l[0].cause_ns[PWZ_CAUSE_IDLE], 100);
	assert_int_equal(g.l[0].cause_ns[PWZ_CAUSE_UNSEEN], 300);
	assert_int_equal(sum_causes(&g.l[0]), g.l[0].ns[PWZ_VCPU_READY]);
	ledger_fold__free(f);
}

/* A tid reused (R8): each vCPU instance its own ledger over its own life. */
static void test_instances(void **state)
{
	struct ledger_fold *f = ledger_fold__new();
	struct got g = { 0 };
	const uint64_t want0[] = { 0, 0, 0, 0, 0, 0, 0, 300 };
	const uint64_t want1[] = { 0, 0, 0, 0, 300, 100, 0, 100 };

	(void)state;
	task(f, 9, 9, 0, false, "CPU 0/KVM");
	slice(f, 9, 0, 0, 300, PWZ_END_EXITED);
	task(f, 9, 9, 500, true, "CPU 0/KVM");
	wait(f, 9, 0, 500, 600, PWZ_WAKEUP_WOKEN);
	slice(f, 9, 0, 600, 700, PWZ_END_SLEPT);
	assert_int_equal(emit(f, 1000, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.l[0].since_ns, 0);
	assert_states(&g.l[0], want0);
	assert_int_equal(g.l[1].since_ns, 500);
	assert_int_equal(g.l[1].alive_ns, 500);
	assert_states(&g.l[1], want1);
	ledger_fold__free(f);
}

/* kvm_vcpu_wakeup moves the halt's on-CPU part to halt_poll; a run a signal ends is
 * other_on_cpu. */
static void test_halt_poll(void **state)
{
	struct ledger_fold *f = ledger_fold__new();
	struct got g = { 0 };
	/* entry 100, exit 200, the halt polls [300, 800), entry 900, an interrupted run at 950 */
	const uint64_t want[] = { 150, 200, 0, 500, 0, 0, 50, 100 };

	(void)state;
	task(f, 5, 5, 0, false, "vm");
	slice(f, 5, 0, 0, 1000, PWZ_END_OPEN);
	kexit(f, 5, 200, 100, 700);
	assert_int_equal(ledger_fold__halt_end(f, 5, 800, 500, false), 0);
	assert_int_equal(ledger_fold__uexit(f, 5, 950, 10, 0), 0);
	assert_int_equal(emit(f, 1000, &g), 0);
	assert_int_equal(g.n, 1);
	assert_states(&g.l[0], want);
	assert_int_equal(g.l[0].count[PWZ_VCPU_HALT_POLL], 1);
	assert_int_equal(g.l[0].count[PWZ_VCPU_OTHER_ON_CPU], 1);
	ledger_fold__free(f);
}

/*
 * A flight dump's window [0, 1000) (user/flight.h): its task records at 0, no births. vCPU 20
 * was there at its start, ready (its wait began before: no record), CPU 0 held by host thread
 * 30; switched in at 200, entry 250, exit 400, entry 450, slept at 600. vCPU 21 of the same
 * process was born inside (at 400: late), woken at 450, ran on CPU 1 from 500 (idle before),
 * entry 600, exit 700, entry 800, exited at 900. late: folded with and without it.
 */
static void window(struct ledger_fold *f, bool late)
{
	task(f, 20, 20, 0, false, "CPU 0/KVM");
	task(f, 21, 20, 0, true, "CPU 1/KVM");
	task(f, 30, 30, 0, false, "hog");
	if (late)
		assert_int_equal(ledger_fold__late(f, 21), 0);
	slice(f, 30, 0, 0, 200, PWZ_END_PREEMPTED);
	slice(f, 20, 0, 200, 600, PWZ_END_SLEPT);
	kexit(f, 20, 400, 150, 50);
	slice(f, 0, 1, 0, 500, PWZ_END_PREEMPTED);
	wait(f, 21, 1, 450, 500, PWZ_WAKEUP_WOKEN);
	slice(f, 21, 1, 500, 900, PWZ_END_EXITED);
	kexit(f, 21, 700, 100, 100);
}

/* The window's ledger: a vCPU there at its start has the state its first event says before
 * it (ready); one ledger_fold__late() names is unseen before its first event (the wakeup),
 * not halted; each adds up to its life within the window. */
static void test_window(void **state)
{
	/* guest, exit_kernel, exit_user, halt_poll, halt, ready, other_on_cpu, unseen */
	const uint64_t want20[] = { 300, 50, 0, 0, 400, 200, 0, 50 };
	const uint64_t want21[] = { 200, 100, 0, 0, 0, 50, 0, 550 };
	const uint64_t early21[] = { 200, 100, 0, 0, 450, 50, 0, 100 };

	(void)state;
	for (int late = 0; late < 2; late++) {
		struct ledger_fold *f = ledger_fold__new();
		struct got g = { 0 };

		window(f, late);
		assert_int_equal(emit(f, 1000, &g), 0);
		assert_int_equal(g.n, 2);
		assert_int_equal(g.l[0].tid, 20);
		assert_int_equal(g.l[0].alive_ns, 1000);
		assert_states(&g.l[0], want20);
		assert_int_equal(g.l[0].count[PWZ_VCPU_READY], 1);
		assert_int_equal(g.l[0].cause_ns[PWZ_CAUSE_HOST], 200);
		assert_int_equal(g.l[1].tid, 21);
		assert_int_equal(g.l[1].since_ns, 0);
		assert_int_equal(g.l[1].alive_ns, 900);
		assert_states(&g.l[1], late ? want21 : early21);
		assert_int_equal(g.l[1].count[PWZ_VCPU_HALT], !late);
		assert_int_equal(g.l[1].count[PWZ_VCPU_UNSEEN], late);
		assert_int_equal(g.l[1].cause_ns[PWZ_CAUSE_IDLE], 50);
		assert_int_equal(g.l[1].costop_ns, 50);	/* 20 ran [200, 600) */
		ledger_fold__free(f);
	}
}

/* No KVM event and no vCPU name: no ledger; emit twice: -EALREADY. */
static void test_none(void **state)
{
	struct ledger_fold *f = ledger_fold__new();
	struct got g = { 0 };

	(void)state;
	task(f, 3, 3, 0, false, "bash");
	slice(f, 3, 0, 0, 100, PWZ_END_SLEPT);
	assert_false(ledger_fold__has_vcpus(f));
	assert_int_equal(emit(f, 1000, &g), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(emit(f, 1000, &g), -EALREADY);
	ledger_fold__free(f);
	ledger_fold__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_lost_wakeup),
		cmocka_unit_test(test_ready_edges),
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_halt_poll),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
