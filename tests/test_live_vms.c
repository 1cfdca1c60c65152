// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/live_vms.c: a live frame's threads rolled up per VM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "live_vms.h"

#define MS 1000000ull

static struct live_task task(uint32_t tid, uint32_t tgid, const char *name, uint64_t run,
			     uint64_t wait)
{
	struct live_task t = { .tid = tid, .tgid = tgid, .run_ns = run, .wait_ns = wait };

	snprintf(t.name, sizeof(t.name), "%s", name);
	return t;
}

static const char *proc_name(void *ctx, uint32_t tgid)
{
	(void)ctx;
	return tgid == 200 ? "qemu-plain" : NULL;
}

/* Threads of two named VMs, a bare "CPU n/KVM" process, a thread with exits and a host
 * thread: grouped by VM, summed, worst ready first, each thread's vm index set. */
static void test_roll_up(void **state)
{
	struct live_task t[] = {
		task(101, 100, "vm1.vcpu0", 400 * MS, 100 * MS),	/* 10 % ready */
		task(102, 100, "vm1.vcpu1", 200 * MS, 300 * MS),	/* 30 % */
		task(103, 100, "vm1.emulator", 50 * MS, 0),
		task(201, 200, "CPU 0/KVM", 100 * MS, 500 * MS),	/* 50 % */
		task(301, 300, "vm3.vcpu0", 10 * MS, 0),
		task(401, 400, "worker", 30 * MS, 900 * MS),	/* exits: a vCPU */
		task(501, 500, "bash", 70 * MS, 900 * MS),	/* host */
	};
	struct live_frame f = { .dt_ns = 1000 * MS, .tasks = t, .nr_tasks = 7 };

	(void)state;
	t[0].waits = 3;
	t[0].wait_hist[pwz_whist_bucket(50 * MS)] = 3;
	t[0].wait_max_ns = 60 * MS;
	t[0].has_wait_p99 = true;
	t[1].waits = 1;
	t[1].wait_hist[pwz_whist_bucket(2 * MS)] = 1;
	t[1].has_wait_p99 = true;
	t[5].exits = 7;
	assert_int_equal(live_frame_vms(&f, proc_name, NULL), 0);
	assert_int_equal(f.nr_vms, 4);
	/* worst first: 90 % (the thread with exits, named by itself), 50 %, 20 % mean, 0 % */
	assert_string_equal(f.vms[0].name, "worker");
	assert_string_equal(f.vms[1].name, "qemu-plain");
	assert_string_equal(f.vms[2].name, "vm1");
	assert_string_equal(f.vms[3].name, "vm3");
	assert_int_equal(f.vms[2].vcpus, 2);
	assert_int_equal(f.vms[2].run_ns, 600 * MS);
	assert_int_equal(f.vms[2].wait_ns, 400 * MS);
	assert_int_equal(f.vms[2].emu_run_ns, 50 * MS);
	assert_int_equal(f.vms[2].tgid, 100);
	assert_true(live_vm_ready_pct(&f.vms[2], &f) > 19.99 && live_vm_ready_pct(&f.vms[2], &f) < 20.01);
	assert_int_equal(f.vms[0].exits, 7);
	/* the p99 of the VM's four waits: the bucket of the 50 ms ones, its top cut to 60 ms */
	assert_true(f.vms[2].has_wait_p99);
	assert_true(f.vms[2].wait_p99_lo_ns <= 50 * MS && 50 * MS <= f.vms[2].wait_p99_hi_ns);
	assert_false(f.vms[3].has_wait_p99);	/* no waits */
	/* each thread's VM */
	assert_int_equal(t[0].vm, 2);
	assert_true(t[0].vcpu);
	assert_int_equal(t[2].vm, 2);
	assert_false(t[2].vcpu);	/* the emulator */
	assert_int_equal(t[3].vm, 1);
	assert_int_equal(t[6].vm, -1);
	/* a vCPU whose histogram missed entries: no p99 for its VM */
	t[1].has_wait_p99 = false;
	assert_int_equal(live_frame_vms(&f, proc_name, NULL), 0);
	assert_false(f.vms[2].has_wait_p99);
	free(f.vms);
}

/* No thread, or no VM: no rows. */
/* R10: a VM's states and co-stop are the sums over its vCPUs with a ledger; their mean share
 * of the interval is over those vCPUs alone, cut to 100. */
static void test_ledger_roll_up(void **state)
{
	struct live_task t[] = {
		task(101, 100, "vm1.vcpu0", 400 * MS, 100 * MS),
		task(102, 100, "vm1.vcpu1", 200 * MS, 300 * MS),
		task(103, 100, "vm1.vcpu2", 100 * MS, 0),		/* no ledger */
	};
	struct live_frame f = { .dt_ns = 1000 * MS, .tasks = t, .nr_tasks = 3 };
	const struct live_vm *v;

	(void)state;
	t[0].has_ledger = t[1].has_ledger = true;
	t[0].state_ns[PWZ_VCPU_GUEST] = 300 * MS;
	t[0].state_ns[PWZ_VCPU_HALT] = 500 * MS;
	t[0].costop_ns = 40 * MS;
	t[1].state_ns[PWZ_VCPU_GUEST] = 1100 * MS;	/* read a moment later: over the interval */
	t[1].state_ns[PWZ_VCPU_HALT] = 100 * MS;
	t[1].costop_ns = 60 * MS;
	t[2].state_ns[PWZ_VCPU_GUEST] = 999 * MS;	/* not a ledger: left out */
	assert_int_equal(live_frame_vms(&f, proc_name, NULL), 0);
	assert_int_equal(f.nr_vms, 1);
	v = &f.vms[0];
	assert_int_equal(v->vcpus, 3);
	assert_int_equal(v->ledger_vcpus, 2);
	assert_int_equal(v->state_ns[PWZ_VCPU_GUEST], 1400 * MS);
	assert_int_equal(v->state_ns[PWZ_VCPU_HALT], 600 * MS);
	assert_int_equal(v->costop_ns, 100 * MS);
	assert_true(live_vm_ledger_pct(v, v->state_ns[PWZ_VCPU_GUEST], &f) > 69.99 &&
		    live_vm_ledger_pct(v, v->state_ns[PWZ_VCPU_GUEST], &f) < 70.01);
	assert_true(live_vm_ledger_pct(v, v->costop_ns, &f) > 4.99 &&
		    live_vm_ledger_pct(v, v->costop_ns, &f) < 5.01);
	assert_true(live_vm_ledger_pct(v, 5000 * MS, &f) == 100);	/* cut */
	free(f.vms);
}

static void test_none(void **state)
{
	struct live_task t[] = { task(501, 500, "bash", 70 * MS, 0) };
	struct live_frame f = { .dt_ns = 1000 * MS, .tasks = t, .nr_tasks = 1 };
	char vm[64], label[24];

	(void)state;
	assert_int_equal(live_frame_vms(&f, proc_name, NULL), 0);
	assert_int_equal(f.nr_vms, 0);
	assert_null(f.vms);
	assert_false(live_vcpu_of(&t[0], NULL, vm, sizeof(vm), label, sizeof(label)));
	t[0] = task(7, 6, "CPU 3/KVM", 0, 0);
	assert_true(live_vcpu_of(&t[0], NULL, vm, sizeof(vm), label, sizeof(label)));
	assert_string_equal(vm, "CPU 3/KVM");	/* no process name: the thread's */
	assert_string_equal(label, "3");
	f.nr_tasks = 0;
	assert_int_equal(live_frame_vms(&f, proc_name, NULL), 0);
	assert_int_equal(f.nr_vms, 0);
}

/* A frame task is empty only when nothing of it grew: a histogram bucket alone (a wait the
 * next interval counts) or a ledger state alone (a vCPU halted throughout) keeps it. */
static void test_task_empty(void **state)
{
	struct live_task t = { .tid = 7 };

	(void)state;
	assert_true(live_task_empty(&t));
	t.wait_hist[PWZ_WHIST_BUCKETS - 1] = 1;
	assert_false(live_task_empty(&t));
	t.wait_hist[PWZ_WHIST_BUCKETS - 1] = 0;
	t.state_ns[PWZ_VCPU_STATES - 1] = 5;
	assert_true(live_task_empty(&t));	/* no ledger: state_ns means nothing */
	t.has_ledger = true;
	assert_false(live_task_empty(&t));
	t = (struct live_task){ .tid = 7, .run_delay_ns = 1 };
	assert_false(live_task_empty(&t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roll_up),
		cmocka_unit_test(test_ledger_roll_up),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_task_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
