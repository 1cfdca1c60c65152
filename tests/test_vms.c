// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/vms.c: VM grouping, ready time, migrations, who ran, exit time split. */
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
#include "report.h"
#include "tjson.h"
#include "trace.h"
#include "vms.h"
#include "vmtab.h"

#define US 1000ull

/*
 * 1 ms on 2 CPUs (times in us). VM "vmA" (pid 100): vCPU 101 ("CPU 0/KVM"), emulator 102.
 * VM "vmB" (pid 300): vCPU 301 with one exit, vCPU 401 ("CPU 1/KVM") with none. A hog, 200.
 *   CPU 0: [0,100) idle, [100,300) 101 preempted, [300,500) 200 preempted, [500,600) 101 slept,
 *          [600,700) 102 slept, [700,1000) idle
 *   CPU 1: [0,200) 301 slept, [200,800) idle, [800,900) 101 slept, [900,950) 401 slept,
 *          [950,1000) idle
 *   waits: 200 woken at 100, in at 300 (200 us); 101 preempted at 300, in at 500 (200 us);
 *          101 woken at 780, in at 800 on CPU 1 (20 us)
 *   exits of 101 (VMX): io at 150 for 250 -> [150,400): on 150, ready 100;
 *          hlt at 550 for 300 -> [550,850): on 50 + 50, ready 20, sleeping 180;
 *          io at 820 for 10 (on 10); external interrupt at 880, unpaired.
 *   exit of 301: io at 50 for 40 (on 40).
 */
static const struct pwz_slice slices[] = {
	{ 0, 0, 0, 100 * US, PWZ_END_PREEMPTED, 0, 0, 0 },
	{ 101, 0, 100 * US, 200 * US, PWZ_END_PREEMPTED, 0, 0, 0 },
	{ 200, 0, 300 * US, 200 * US, PWZ_END_PREEMPTED, 0, 0, 0 },
	{ 101, 0, 500 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
	{ 102, 0, 600 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
	{ 0, 0, 700 * US, 300 * US, PWZ_END_OPEN, 0, 0, 0 },
	{ 301, 1, 0, 200 * US, PWZ_END_SLEPT, 0, 0, 0 },
	{ 0, 1, 200 * US, 600 * US, PWZ_END_PREEMPTED, 0, 0, 0 },
	{ 101, 1, 800 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
	{ 401, 1, 900 * US, 50 * US, PWZ_END_SLEPT, 0, 0, 0 },
	{ 0, 1, 950 * US, 50 * US, PWZ_END_OPEN, 0, 0, 0 },
};

static const struct pwz_wakeup waits[] = {
	{ 200, 0, 100 * US, 200 * US, 0, 0, 0 },
	{ 101, 0, 300 * US, 200 * US, 0, 0, 0 },
	{ 101, 1, 780 * US, 20 * US, 0, 0, 0 },
};

static const struct pwz_kvm_exit exits[] = {
	{ 301, 0, 50 * US, PWZ_ISA_VMX, 30, 0, 40 * US, 0 },
	{ 101, 0, 150 * US, PWZ_ISA_VMX, 30, 10 * US, 250 * US, 0 },
	{ 101, 0, 550 * US, PWZ_ISA_VMX, 12, 0, 300 * US, 0 },
	{ 101, 0, 820 * US, PWZ_ISA_VMX, 30, 0, 10 * US, 0 },
	{ 101, 0, 880 * US, PWZ_ISA_VMX, 1, 0, 0, PWZ_EXIT_UNPAIRED },
};

static const struct pwz_task tasks[] = {
	{ .tid = 101, .tgid = 100, .comm = "CPU 0/KVM", .proc_name = "qemu-system-x86",
	  .name = "vmA.vcpu0" },
	{ .tid = 102, .tgid = 100, .comm = "qemu-system-x86", .proc_name = "qemu-system-x86",
	  .name = "vmA.emulator" },
	{ .tid = 200, .tgid = 200, .comm = "hog", .name = "hog" },
	{ .tid = 301, .tgid = 300, .comm = "CPU 0/KVM", .proc_name = "qemu-system-x86",
	  .name = "vmB.vcpu0" },
	{ .tid = 401, .tgid = 300, .comm = "CPU 1/KVM", .proc_name = "qemu-system-x86",
	  .name = "vmB.vcpu1" },
};

struct fixture {
	struct trace *t;
	struct summary *s;
	struct vms *v;
};

/* The fixture, its streams in the order above or (reversed) each in the reverse order. */
static struct fixture *build_order(bool streams, bool reversed)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct pwz_meta m = { .nr_cpus = 2, .duration_ns = 1000 * US, .has_wait = true,
			      .has_switch_kind = true, .has_kvm = true };
	struct cdict_visitor v;
	char err[256];
	size_t i;

	assert_non_null(fx);
	fx->t = trace__new("test", true, &v);
	assert_non_null(fx->t);
	assert_int_equal(pwz_meta_add_exit_name(&m, PWZ_ISA_VMX, 30, "IO_INSTRUCTION"), 0);
	assert_int_equal(pwz_meta_add_exit_name(&m, PWZ_ISA_VMX, 12, "HLT"), 0);
	assert_int_equal(v.meta(v.ctx, &m), 0);
	for (i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		assert_int_equal(v.task(v.ctx, &tasks[i]), 0);
#define AT(arr, i) (&(arr)[reversed ? sizeof(arr) / sizeof((arr)[0]) - 1 - (i) : (i)])
	for (i = 0; i < sizeof(slices) / sizeof(slices[0]); i++)
		assert_int_equal(v.slice(v.ctx, AT(slices, i)), 0);
	for (i = 0; i < sizeof(waits) / sizeof(waits[0]); i++)
		assert_int_equal(v.wakeup(v.ctx, AT(waits, i)), 0);
	for (i = 0; i < sizeof(exits) / sizeof(exits[0]); i++)
		assert_int_equal(v.kvm_exit(v.ctx, AT(exits, i)), 0);
#undef AT
	assert_int_equal(trace__settle(fx->t), 0);
	pwz_meta_free(&m);
	fx->s = summary__new(fx->t, NULL, err, sizeof(err));
	assert_non_null(fx->s);
	if (!streams) {
		/* the same summary, the streams forgotten: what a --stats of a live capture has */
		fx->t->nr_slices = fx->t->nr_wakeups = fx->t->nr_exits = 0;
	}
	fx->v = vms__new(fx->t, fx->s, err, sizeof(err));
	assert_non_null(fx->v);
	return fx;
}

static struct fixture *build(bool streams)
{
	return build_order(streams, false);
}

static void fixture_free(struct fixture *fx)
{
	vms__free(fx->v);
	summary__free(fx->s);
	trace__free(fx->t);
	free(fx);
}

/* Settles t, then its summary (*s) and its VMs. */
static struct vms *settled_vms(struct trace *t, struct summary **s)
{
	struct vms *vm;
	char err[256];

	assert_int_equal(trace__settle(t), 0);
	*s = summary__new(t, NULL, err, sizeof(err));
	assert_non_null(*s);
	vm = vms__new(t, *s, err, sizeof(err));
	assert_non_null(vm);
	return vm;
}

static const struct vms_exit *reason(const struct exitroll *r, uint32_t code)
{
	for (size_t i = 0; i < r->n; i++)
		if (vms_exit_at(r, i)->ex.code == code)
			return vms_exit_at(r, i);
	return NULL;
}

static void test_grouping(void **state)
{
	struct fixture *fx = build(true);
	const struct vms *v = fx->v;

	(void)state;
	assert_true(v->has_streams);
	assert_false(v->records_dropped);
	assert_int_equal(v->nr_vms, 2);
	assert_string_equal(v->vms[0].name, "vmA");
	assert_int_equal(v->vms[0].pid, 100);
	assert_int_equal(v->vms[0].nr_vcpus, 1);
	assert_int_equal(v->vms[0].vcpus[0].tid, 101);
	assert_int_equal(v->vms[0].vcpus[0].vcpu, 0);
	assert_int_equal(v->vms[0].nr_other, 1);
	assert_int_equal(v->vms[0].other_runtime_ns, 100 * US);
	assert_string_equal(v->vms[1].name, "vmB");
	assert_int_equal(v->vms[1].pid, 300);
	/* a vCPU without exits is a vCPU by its comm; its index too */
	assert_int_equal(v->vms[1].nr_vcpus, 2);
	assert_int_equal(v->vms[1].vcpus[0].tid, 301);
	assert_int_equal(v->vms[1].vcpus[1].tid, 401);
	assert_int_equal(v->vms[1].vcpus[1].vcpu, 1);
	assert_int_equal(v->vms[1].vcpus[1].exits_total, 0);
	assert_int_equal(v->vms[1].nr_other, 0);
	fixture_free(fx);
}

static void test_states(void **state)
{
	struct fixture *fx = build(true);
	const struct vms_vcpu *a = &fx->v->vms[0].vcpus[0], *b = &fx->v->vms[1].vcpus[0];

	(void)state;
	assert_int_equal(a->running_ns, 400 * US);
	assert_int_equal(a->ready_ns, 220 * US);
	assert_int_equal(a->sleep_ns, 380 * US);
	assert_int_equal(a->waits, 2);
	assert_int_equal(a->migrations, 1);
	assert_int_equal(b->running_ns, 200 * US);
	assert_int_equal(b->ready_ns, 0);
	assert_int_equal(b->sleep_ns, 800 * US);
	assert_int_equal(b->migrations, 0);
	assert_int_equal(fx->v->vms[1].vcpus[1].running_ns, 50 * US);
	assert_int_equal(fx->v->vms[1].running_ns, 250 * US);
	/* who ran while 101 was ready: the hog on CPU 0 for 200 us, the idle task on CPU 1 for 20 */
	assert_int_equal(a->nr_top, 2);
	assert_int_equal(a->top[0].tid, 200);
	assert_string_equal(a->top[0].name, "hog");
	assert_int_equal(a->top[0].ns, 200 * US);
	assert_int_equal(a->top[1].tid, 0);
	assert_int_equal(a->top[1].ns, 20 * US);
	fixture_free(fx);
}

static void test_exit_split(void **state)
{
	struct fixture *fx = build(true);
	const struct vms_vcpu *a = &fx->v->vms[0].vcpus[0];
	const struct vms_exit *io, *hlt, *ext;

	(void)state;
	assert_int_equal(a->exits_total, 4);
	assert_int_equal(a->exits.n, 3);
	/* by count: io first */
	assert_int_equal(vms_exit_at(&a->exits, 0)->ex.code, 30);
	io = reason(&a->exits, 30);
	hlt = reason(&a->exits, 12);
	ext = reason(&a->exits, 1);
	assert_non_null(io);
	assert_non_null(hlt);
	assert_non_null(ext);
	assert_string_equal(io->ex.name, "IO_INSTRUCTION");
	assert_int_equal(io->ex.count, 2);
	assert_int_equal(io->paired, 2);
	assert_int_equal(io->ex.handling_ns, 260 * US);
	assert_int_equal(io->on_cpu_ns, 160 * US);
	assert_int_equal(io->off_ready_ns, 100 * US);
	assert_int_equal(io->off_sleep_ns, 0);
	assert_int_equal(io->max_ns, 250 * US);
	/* exact (nearest rank): p50 is the 10 us exit, p90 and p99 the 250 us one */
	assert_int_equal(io->p50_ns, 10 * US);
	assert_int_equal(io->p90_ns, 250 * US);
	assert_int_equal(io->p99_ns, 250 * US);
	assert_int_equal(hlt->ex.count, 1);
	assert_int_equal(hlt->ex.handling_ns, 300 * US);
	assert_int_equal(hlt->on_cpu_ns, 100 * US);
	assert_int_equal(hlt->off_ready_ns, 20 * US);
	assert_int_equal(hlt->off_sleep_ns, 180 * US);
	assert_int_equal(hlt->on_cpu_ns + hlt->off_ready_ns + hlt->off_sleep_ns,
			 hlt->ex.handling_ns);
	assert_int_equal(ext->ex.count, 1);
	assert_int_equal(ext->paired, 0);
	assert_int_equal(ext->ex.handling_ns, 0);
	/* the VM's rows: vmB's io is its vCPU 301's */
	io = reason(&fx->v->vms[1].exits, 30);
	assert_non_null(io);
	assert_int_equal(io->ex.count, 1);
	assert_int_equal(io->on_cpu_ns, 40 * US);
	fixture_free(fx);
}

static void test_wait_percentiles(void **state)
{
	struct fixture *fx = build(true);
	const struct vms_wait_pct *p = vms__wait_pct(fx->v, 101, 0);

	(void)state;
	assert_non_null(p);
	assert_int_equal(p->count, 2);
	assert_int_equal(p->max_ns, 200 * US);
	/* the ranges: the bucket of the kernel's layout (bpf/whist.h) holding each percentile,
	 * its top cut to the longest wait: the p50 of waits of 20 and 200 us is 20 us, in
	 * [16384, 20479]; the p90 ... p99.9 200 us, in [196608, 229375] cut to [196608, 200000] */
	assert_int_equal(p->lo_ns[VMS_P50], 16384);
	assert_int_equal(p->hi_ns[VMS_P50], 20479);
	for (int q = VMS_P90; q < VMS_NR_WAIT_Q; q++) {
		assert_int_equal(p->lo_ns[q], 196608);
		assert_int_equal(p->hi_ns[q], 200 * US);
	}
	/* the middles: lo + (hi - lo) / 2 of each range */
	assert_int_equal(p->p50_ns, 16384 + (20479 - 16384) / 2);
	assert_int_equal(p->p90_ns, 196608 + (200000 - 196608) / 2);
	assert_int_equal(p->p99_ns, p->p90_ns);
	assert_int_equal(p->p999_ns, p->p90_ns);
	assert_int_equal(fx->v->vms[0].vcpus[0].wait.count, 2);
	assert_int_equal(fx->v->vms[0].vcpus[0].wait.hi_ns[VMS_P99], 200 * US);
	p = vms__wait_pct(fx->v, 200, 0);
	assert_non_null(p);
	assert_int_equal(p->count, 1);
	assert_null(vms__wait_pct(fx->v, 102, 0));
	fixture_free(fx);
}

/* The stream figures do not depend on the order the records came in (a live capture writes
 * each CPU's records in batches): every thread's and CPU's records reversed. */
static void test_record_order(void **state)
{
	struct fixture *fx = build(true), *rx = build_order(true, true);

	(void)state;
	assert_int_equal(rx->v->nr_vms, fx->v->nr_vms);
	assert_int_equal(rx->v->nr_migr, fx->v->nr_migr);
	for (size_t i = 0; i < fx->v->nr_migr; i++) {
		assert_int_equal(rx->v->migr[i].tid, fx->v->migr[i].tid);
		assert_int_equal(rx->v->migr[i].count, fx->v->migr[i].count);
	}
	for (size_t m = 0; m < fx->v->nr_vms; m++) {
		for (size_t c = 0; c < fx->v->vms[m].nr_vcpus; c++) {
			const struct vms_vcpu *a = &fx->v->vms[m].vcpus[c];
			const struct vms_vcpu *b = &rx->v->vms[m].vcpus[c];

			assert_int_equal(b->tid, a->tid);
			assert_int_equal(b->migrations, a->migrations);
			assert_int_equal(b->wait.count, a->wait.count);
			assert_int_equal(b->wait.max_ns, a->wait.max_ns);
			assert_int_equal(b->nr_top, a->nr_top);
			for (size_t k = 0; k < a->nr_top; k++) {
				assert_int_equal(b->top[k].tid, a->top[k].tid);
				assert_int_equal(b->top[k].ns, a->top[k].ns);
			}
			assert_int_equal(b->exits.n, a->exits.n);
			for (size_t k = 0; k < a->exits.n; k++) {
				const struct vms_exit *x = vms_exit_at(&a->exits, k);
				const struct vms_exit *y = vms_exit_at(&b->exits, k);

				assert_int_equal(y->ex.code, x->ex.code);
				assert_int_equal(y->on_cpu_ns, x->on_cpu_ns);
				assert_int_equal(y->off_ready_ns, x->off_ready_ns);
				assert_int_equal(y->off_sleep_ns, x->off_sleep_ns);
				assert_int_equal(y->p50_ns, x->p50_ns);
			}
		}
	}
	/* and the figures are the ones above: vCPU 101 migrated once, 200 ran while it waited */
	assert_int_equal(rx->v->vms[0].vcpus[0].migrations, 1);
	assert_int_equal(rx->v->vms[0].vcpus[0].top[0].tid, 200);
	assert_int_equal(reason(&rx->v->vms[0].vcpus[0].exits, 12)->off_sleep_ns, 180 * US);
	fixture_free(fx);
	fixture_free(rx);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The value of the nearest rank of q among the n sorted values of v. */
static uint64_t at_rank(const uint64_t *v, size_t n, double q)
{
	size_t r = (size_t)(q * (double)n + 0.999999999);

	return v[r ? (r > n ? n : r) - 1 : 0];
}

/* The exit percentiles are the exact nearest-rank values of the paired exits' handling times,
 * per vCPU and per VM, whatever their order: a sawtooth, a run of equal times, descending. */
static void test_exit_percentiles(void **state)
{
	enum { N = 6000 };
	static const struct pwz_task two[] = {
		{ .tid = 101, .tgid = 100, .comm = "CPU 0/KVM", .name = "vmA.vcpu0" },
		{ .tid = 103, .tgid = 100, .comm = "CPU 1/KVM", .name = "vmA.vcpu1" },
	};
	struct pwz_meta m = { .nr_cpus = 1, .duration_ns = 1000000 * US, .has_kvm = true };
	uint64_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	uint64_t *all = malloc(2 * N * sizeof(*all));
	const struct vms_exit *x;
	struct cdict_visitor v;
	struct summary *s;
	struct trace *t;
	struct vms *vm;

	(void)state;
	assert_true(a && b && all);
	t = trace__new("test", true, &v);
	assert_non_null(t);
	assert_int_equal(v.meta(v.ctx, &m), 0);
	for (size_t i = 0; i < 2; i++) {
		struct pwz_slice sl = { .tid = two[i].tid, .start_ns = i * 10 * US,
					.dur_ns = 10 * US, .end = PWZ_END_SLEPT };

		assert_int_equal(v.task(v.ctx, &two[i]), 0);
		assert_int_equal(v.slice(v.ctx, &sl), 0);
	}
	for (size_t i = 0; i < N; i++) {
		struct pwz_kvm_exit e = { .tid = 101, .time_ns = (i + 1) * 100 * US,
					  .isa = PWZ_ISA_VMX, .reason = 30 };

		a[i] = e.handling_ns = ((i % 97) * 1000 + i / 97) * 10;
		assert_int_equal(v.kvm_exit(v.ctx, &e), 0);
		e.tid = 103;
		b[i] = e.handling_ns = i < N / 2 ? 5 * US : (N - i) * 20;
		assert_int_equal(v.kvm_exit(v.ctx, &e), 0);
	}
	vm = settled_vms(t, &s);
	memcpy(all, a, N * sizeof(*a));
	memcpy(all + N, b, N * sizeof(*b));
	qsort(a, N, sizeof(*a), cmp_u64);
	qsort(b, N, sizeof(*b), cmp_u64);
	qsort(all, 2 * N, sizeof(*all), cmp_u64);
	assert_int_equal(vm->nr_vms, 1);
	assert_int_equal(vm->vms[0].nr_vcpus, 2);
	x = reason(&vm->vms[0].vcpus[0].exits, 30);
	assert_non_null(x);
	assert_int_equal(x->paired, N);
	assert_int_equal(x->p50_ns, at_rank(a, N, 0.50));
	assert_int_equal(x->p90_ns, at_rank(a, N, 0.90));
	assert_int_equal(x->p99_ns, at_rank(a, N, 0.99));
	assert_int_equal(x->max_ns, a[N - 1]);
	x = reason(&vm->vms[0].vcpus[1].exits, 30);
	assert_non_null(x);
	assert_int_equal(x->p50_ns, at_rank(b, N, 0.50));
	assert_int_equal(x->p90_ns, at_rank(b, N, 0.90));
	assert_int_equal(x->p99_ns, at_rank(b, N, 0.99));
	x = reason(&vm->vms[0].exits, 30);
	assert_non_null(x);
	assert_int_equal(x->paired, 2 * N);
	assert_int_equal(x->p50_ns, at_rank(all, 2 * N, 0.50));
	assert_int_equal(x->p90_ns, at_rank(all, 2 * N, 0.90));
	assert_int_equal(x->p99_ns, at_rank(all, 2 * N, 0.99));
	vms__free(vm);
	summary__free(s);
	trace__free(t);
	pwz_meta_free(&m);
	free(a);
	free(b);
	free(all);
}

/* Slices come to the index in any order, of tids whose keys take more than one radix pass
 * (7 and 4103 share their low 11 bits, 70007 differs in both): each thread's migrations are
 * counted in its time order. Each ran on CPUs 0, 0, 1, 1 in time; 4103's came shuffled (out of
 * order, 0, 1, 0, 1 would be 3 migrations). */
static void test_index_order(void **state)
{
	static const uint32_t tids[] = { 7, 4103, 70007 };
	static const int order[][4] = { { 0, 1, 2, 3 }, { 0, 2, 1, 3 }, { 0, 1, 2, 3 } };
	struct pwz_meta m = { .nr_cpus = 2, .duration_ns = 1000 * US };
	struct cdict_visitor v;
	struct trace *t = trace__new("test", true, &v);
	struct summary *s;
	struct vms *vm;
	uint64_t count;

	(void)state;
	assert_non_null(t);
	assert_int_equal(v.meta(v.ctx, &m), 0);
	for (size_t k = 0; k < 3; k++) {
		struct pwz_task task = { .tid = tids[k], .tgid = tids[k] };

		snprintf(task.comm, sizeof(task.comm), "t%u", tids[k]);
		snprintf(task.name, sizeof(task.name), "t%u", tids[k]);
		assert_int_equal(v.task(v.ctx, &task), 0);
	}
	for (int j = 0; j < 4; j++) {
		for (size_t k = 0; k < 3; k++) {
			int at = order[k][j];
			struct pwz_slice sl = { .tid = tids[k], .cpu = at >= 2,
						.start_ns = (uint64_t)(at * 3 + k) * 10 * US,
						.dur_ns = 10 * US, .end = PWZ_END_PREEMPTED };

			assert_int_equal(v.slice(v.ctx, &sl), 0);
		}
	}
	vm = settled_vms(t, &s);
	for (size_t k = 0; k < 3; k++) {
		assert_true(vms__migrations(vm, tids[k], 0, &count));
		assert_int_equal(count, 1);
	}
	vms__free(vm);
	summary__free(s);
	trace__free(t);
}

/* Without the streams: the summary's figures, nothing made up. */
static void test_no_streams(void **state)
{
	struct fixture *fx = build(false);
	const struct vms_vcpu *a = &fx->v->vms[0].vcpus[0];

	(void)state;
	assert_false(fx->v->has_streams);
	assert_int_equal(fx->v->nr_vms, 2);
	assert_int_equal(a->running_ns, 400 * US);
	assert_int_equal(a->ready_ns, 220 * US);
	assert_int_equal(a->migrations, 0);
	assert_int_equal(a->nr_top, 0);
	assert_int_equal(a->exits_total, 4);
	assert_int_equal(reason(&a->exits, 30)->ex.count, 2);
	assert_int_equal(reason(&a->exits, 30)->paired, 0);
	assert_null(vms__wait_pct(fx->v, 101, 0));
	fixture_free(fx);
}

/* R9: a vCPU's ready time as the kernel charged it is its task row's run_delay_ns, and the
 * two are shown together where the row's same waits differ by more than a bucket
 * (summary_ready_differs()): 101's charge set 10 % short, 102's equal. */
static void test_ready_kernel(void **state)
{
	struct fixture *fx = build(false);
	const struct vms_vcpu *a;
	char err[256];

	(void)state;
	assert_false(fx->v->vms[0].vcpus[0].has_ready_kernel);
	assert_false(fx->v->vms[0].vcpus[0].ready_differs);
	fx->s->has_run_delay = true;
	for (size_t i = 0; i < fx->s->nr_tasks; i++) {
		struct task_summary *ts = &fx->s->tasks[i];

		ts->run_delay_wait_ns = ts->wait_ns;
		ts->run_delay_ns = ts->tid == 101 ? ts->wait_ns / 10 * 9 : ts->wait_ns;
	}
	vms__free(fx->v);
	fx->v = vms__new(fx->t, fx->s, err, sizeof(err));
	assert_non_null(fx->v);
	a = &fx->v->vms[0].vcpus[0];
	assert_int_equal(a->tid, 101);
	assert_true(a->has_ready_kernel);
	assert_int_equal(a->ready_ns, 220 * US);
	assert_int_equal(a->ready_kernel_ns, 198 * US);
	assert_true(a->ready_differs);
	for (size_t v = 0; v < fx->v->nr_vms; v++)
		for (size_t c = 0; c < fx->v->vms[v].nr_vcpus; c++) {
			a = &fx->v->vms[v].vcpus[c];
			assert_int_equal(a->ready_differs, a->tid == 101);
		}
	fixture_free(fx);
}

/* A VM's uncharged time is its vCPUs' (the steal of their host CPUs and IRQ time while they
 * ran), known only when every vCPU's charge is. */
static void test_uncharged(void **state)
{
	struct fixture *fx = build(false);
	const struct vms_vm *b;
	char err[256];

	(void)state;
	assert_false(fx->v->vms[1].has_uncharged);
	fx->s->has_charged = true;
	for (size_t i = 0; i < fx->s->nr_tasks; i++) {
		struct task_summary *ts = &fx->s->tasks[i];

		ts->charged_run_ns = ts->runtime_ns;
		ts->charged_ns = ts->runtime_ns - ts->tid % 100 * US;	/* 301: 1 us, 401: 1 us */
	}
	vms__free(fx->v);
	fx->v = vms__new(fx->t, fx->s, err, sizeof(err));
	assert_non_null(fx->v);
	b = &fx->v->vms[1];
	assert_string_equal(b->name, "vmB");
	assert_true(b->has_uncharged);
	assert_int_equal(b->vcpus[0].uncharged_ns, 1 * US);
	assert_int_equal(b->vcpus[1].uncharged_ns, 1 * US);
	assert_int_equal(b->uncharged_ns, 2 * US);
	assert_int_equal(fx->v->vms[0].uncharged_ns, 1 * US);	/* vmA: 101 */
	fixture_free(fx);
}

static void test_split_interval(void **state)
{
	const struct pwz_slice s1 = { 1, 0, 100, 50, PWZ_END_PREEMPTED, 0, 0, 0 };
	const struct pwz_slice s2 = { 1, 1, 300, 100, PWZ_END_SLEPT, PWZ_SLICE_UNSEEN_START, 0, 0 };
	const struct pwz_slice s3 = { 1, 1, 500, 100, PWZ_END_SLEPT, 0, 0, 0 };
	const struct pwz_slice *sl[] = { &s1, &s2, &s3 };
	const struct pwz_wakeup w1 = { 1, 0, 150, 30, 0, 0, 0 };
	const struct pwz_wakeup *wk[] = { &w1 };
	uint64_t on, rd, sp;

	(void)state;
	/* [120, 550): on 30 (s1) + 50 (s3), s2's unseen time left out; ready 30; the rest asleep */
	vms_split_interval(sl, 3, wk, 1, 120, 550, &on, &rd, &sp);
	assert_int_equal(on, 80);
	assert_int_equal(rd, 30);
	assert_int_equal(sp, 430 - 80 - 30);
	/* inside one slice */
	vms_split_interval(sl, 3, wk, 1, 510, 520, &on, &rd, &sp);
	assert_int_equal(on, 10);
	assert_int_equal(rd + sp, 0);
	/* nothing */
	vms_split_interval(sl, 3, wk, 1, 700, 800, &on, &rd, &sp);
	assert_int_equal(on + rd, 0);
	assert_int_equal(sp, 100);
	vms_split_interval(NULL, 0, NULL, 0, 5, 5, &on, &rd, &sp);
	assert_int_equal(on + rd + sp, 0);
}

/* A recycled tid is two thread instances (model.h R8): each has its own waits and migrations. */
static void test_instances(void **state)
{
	const struct pwz_task first = { .tid = 500, .tgid = 500, .comm = "w1", .name = "w1" };
	const struct pwz_task second = { .tid = 500, .tgid = 500, .time_ns = 700 * US,
					 .flags = PWZ_TASK_BORN, .comm = "w2", .name = "w2" };
	const struct pwz_slice sl[] = {
		{ 500, 0, 100 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
		{ 500, 0, 300 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
		{ 500, 1, 750 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
	};
	const struct pwz_wakeup wk[] = { { 500, 0, 250 * US, 50 * US, 0, 0, 0 }, { 500, 1, 720 * US, 30 * US, 0, 0, 0 } };
	struct pwz_meta m = { .nr_cpus = 2, .duration_ns = 1000 * US, .has_wait = true };
	const struct vms_wait_pct *p;
	struct cdict_visitor v;
	struct trace *t = trace__new("test", true, &v);
	struct summary *s;
	struct vms *vm;
	uint64_t mig = 99;

	(void)state;
	assert_non_null(t);
	assert_int_equal(v.meta(v.ctx, &m), 0);
	assert_int_equal(v.task(v.ctx, &first), 0);
	assert_int_equal(v.task(v.ctx, &second), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(v.slice(v.ctx, &sl[i]), 0);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(v.wakeup(v.ctx, &wk[i]), 0);
	vm = settled_vms(t, &s);
	p = vms__wait_pct(vm, 500, 0);
	assert_non_null(p);
	assert_int_equal(p->count, 1);
	assert_int_equal(p->max_ns, 50 * US);
	p = vms__wait_pct(vm, 500, 700 * US);
	assert_non_null(p);
	assert_int_equal(p->count, 1);
	assert_int_equal(p->max_ns, 30 * US);
	/* CPU 0 then CPU 1, but two threads: no migration */
	assert_true(vms__migrations(vm, 500, 0, &mig));
	assert_int_equal(mig, 0);
	assert_true(vms__migrations(vm, 500, 700 * US, &mig));
	assert_int_equal(mig, 0);
	assert_int_equal(vm->nr_vms, 0);
	vms__free(vm);
	summary__free(s);
	trace__free(t);
}

/*
 * How a VM is named (vms.h), one vCPU each over 1 ms: 801's display name names its VM (QEMU's
 * -name) in a libvirt scope of another name; 811 (firecracker's "fc_vcpu 0", with an exit) is
 * not named so, and its process runs as a systemd service; 821's process is in a login session;
 * 831's cgroup is unknown (an import). Kernel thread 840 runs in a VM's scope.
 */
static void test_cgroup_naming(void **state)
{
	static const char scope[] = "/machine.slice/machine-qemu\\x2d3\\x2dother.scope/libvirt/emulator";
	const struct pwz_task tk[] = {
		{ .tid = 801, .tgid = 800, .comm = "CPU 0/KVM", .proc_name = "qemu-system-x86",
		  .name = "named.vcpu0" },
		{ .tid = 811, .tgid = 810, .comm = "fc_vcpu 0", .proc_name = "firecracker",
		  .name = "fc_vcpu 0" },
		{ .tid = 810, .tgid = 810, .comm = "firecracker", .proc_name = "firecracker",
		  .name = "firecracker",
		  .cgroup = "/system.slice/system-firecracker.slice/firecracker@vm7.service" },
		{ .tid = 821, .tgid = 820, .comm = "CPU 0/KVM", .proc_name = "qemu-system-x86",
		  .name = "CPU 0/KVM", .cgroup = "/user.slice/user-0.slice/session-3.scope" },
		{ .tid = 831, .tgid = 830, .comm = "CPU 0/KVM", .proc_name = "qemu-kvm",
		  .name = "CPU 0/KVM" },
		{ .tid = 840, .tgid = 840, .comm = "kvm-nx-lpage-re", .name = "kvm-nx-lpage-re" },
	};
	const struct pwz_slice sl[] = {
		{ 801, 0, 0, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
		{ 811, 0, 100 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
		{ 821, 0, 200 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
		{ 831, 0, 300 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
		{ 840, 0, 400 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
	};
	const struct pwz_kvm_exit ex = { 811, 0, 150 * US, PWZ_ISA_VMX, 30, 0, 10 * US, 0 };
	struct pwz_meta m = { .nr_cpus = 1, .duration_ns = 1000 * US, .has_kvm = true };
	struct cdict_visitor v;
	struct trace *t = trace__new("cgroups", true, &v);
	struct jbuf b = { 0 };
	struct pwz_task x;
	struct summary *s;
	struct vms *vm;
	size_t i;

	(void)state;
	assert_non_null(t);
	assert_int_equal(v.meta(v.ctx, &m), 0);
	for (i = 0; i < sizeof(tk) / sizeof(tk[0]); i++) {
		x = tk[i];
		if (x.tid == 801 || x.tid == 840)
			snprintf(x.cgroup, sizeof(x.cgroup), "%s", scope);
		assert_int_equal(v.task(v.ctx, &x), 0);
	}
	for (i = 0; i < sizeof(sl) / sizeof(sl[0]); i++)
		assert_int_equal(v.slice(v.ctx, &sl[i]), 0);
	assert_int_equal(v.kvm_exit(v.ctx, &ex), 0);
	vm = settled_vms(t, &s);
	assert_int_equal(vm->nr_vms, 4);	/* the kernel thread is none */
	/* sorted by name */
	assert_string_equal(vm->vms[0].name, "firecracker@vm7");
	assert_int_equal(vm->vms[0].pid, 810);
	assert_string_equal(vm->vms[0].cgroup,
			    "/system.slice/system-firecracker.slice/firecracker@vm7.service");
	assert_string_equal(vm->vms[1].name, "named");	/* -name before the cgroup's "other" */
	assert_string_equal(vm->vms[1].cgroup, scope);
	assert_string_equal(vm->vms[2].name, "qemu-kvm");
	assert_string_equal(vm->vms[2].cgroup, "");
	assert_string_equal(vm->vms[3].name, "qemu-system-x86");	/* a session: the comm */
	assert_int_equal(vm->vms[3].pid, 820);
	vms_json_array(&b, vm);
	assert_int_equal(b.err, 0);
	assert_non_null(strstr(b.buf, "{\"name\":\"named\",\"pid\":800,\"cgroup\":"
				      "\"/machine.slice/machine-qemu\\\\x2d3\\\\x2dother.scope/libvirt/emulator\","
				      "\"other_threads\":0,"));
	assert_non_null(strstr(b.buf, "{\"name\":\"qemu-kvm\",\"pid\":830,\"cgroup\":\"\","));
	jbuf_free(&b);
	vms__free(vm);
	summary__free(s);
	trace__free(t);
}

/* The vCPUs of one VM over 1 ms: 601 there from the start, dead after its slice [300,400) (X);
 * 602 born at 200, alive to the end; tid 603 there from the start and dead after [100,150),
 * then born again at 600 (its death does not end its second instance). */
static struct vms *alive_vms(bool streams, struct trace **tp, struct summary **sp)
{
	const struct pwz_task tk[] = {
		{ .tid = 601, .tgid = 600, .comm = "CPU 0/KVM", .name = "vmC.vcpu0" },
		{ .tid = 602, .tgid = 600, .comm = "CPU 1/KVM", .name = "vmC.vcpu1",
		  .time_ns = 200 * US, .since_ns = 200 * US, .flags = PWZ_TASK_BORN },
		{ .tid = 603, .tgid = 600, .comm = "CPU 2/KVM", .name = "vmC.vcpu2" },
		{ .tid = 603, .tgid = 600, .comm = "CPU 2/KVM", .name = "vmC.vcpu2",
		  .time_ns = 600 * US, .since_ns = 600 * US, .flags = PWZ_TASK_BORN },
	};
	const struct pwz_slice sl[] = {
		{ 601, 0, 300 * US, 100 * US, PWZ_END_EXITED, 0, 0, 0 },
		{ 602, 1, 250 * US, 50 * US, PWZ_END_SLEPT, 0, 0, 0 },
		{ 603, 1, 100 * US, 50 * US, PWZ_END_EXITED, 0, 0, 0 },
		{ 603, 1, 700 * US, 50 * US, PWZ_END_SLEPT, 0, 0, 0 },
	};
	const struct pwz_wakeup wk[] = { { 601, 0, 280 * US, 20 * US, 0, 0, 0 } };
	struct pwz_meta m = { .nr_cpus = 2, .duration_ns = 1000 * US, .has_wait = true };
	struct cdict_visitor v;
	struct trace *t = trace__new("test", true, &v);
	struct vms *vm;
	char err[256];

	assert_non_null(t);
	assert_int_equal(v.meta(v.ctx, &m), 0);
	for (size_t i = 0; i < sizeof(tk) / sizeof(tk[0]); i++)
		assert_int_equal(v.task(v.ctx, &tk[i]), 0);
	for (size_t i = 0; i < sizeof(sl) / sizeof(sl[0]); i++)
		assert_int_equal(v.slice(v.ctx, &sl[i]), 0);
	assert_int_equal(v.wakeup(v.ctx, &wk[0]), 0);
	assert_int_equal(trace__settle(t), 0);
	*sp = summary__new(t, NULL, err, sizeof(err));
	assert_non_null(*sp);
	if (!streams)
		t->nr_slices = t->nr_wakeups = t->nr_exits = 0;
	vm = vms__new(t, *sp, err, sizeof(err));
	assert_non_null(vm);
	assert_int_equal(vm->nr_vms, 1);
	*tp = t;
	return vm;
}

static const struct vms_vcpu *vcpu_of(const struct vms *v, uint32_t tid, uint64_t since)
{
	for (size_t k = 0; k < v->vms[0].nr_vcpus; k++)
		if (v->vms[0].vcpus[k].tid == tid && v->vms[0].vcpus[k].since_ns == since)
			return &v->vms[0].vcpus[k];
	fail_msg("no vCPU %u since %llu", tid, (unsigned long long)since);
	return NULL;
}

static void test_alive(void **state)
{
	struct trace *t;
	struct summary *s;
	struct vms *v = alive_vms(true, &t, &s);
	const struct vms_vcpu *c;

	(void)state;
	c = vcpu_of(v, 601, 0);		/* [0, 400): it died at the end of its slice */
	assert_int_equal(c->alive_ns, 400 * US);
	assert_int_equal(c->running_ns + c->ready_ns + c->sleep_ns, 400 * US);
	assert_int_equal(c->sleep_ns, 280 * US);
	c = vcpu_of(v, 602, 200 * US);	/* [200, 1000) */
	assert_int_equal(c->alive_ns, 800 * US);
	assert_int_equal(c->sleep_ns, 750 * US);
	c = vcpu_of(v, 603, 0);		/* [0, 150) */
	assert_int_equal(c->alive_ns, 150 * US);
	c = vcpu_of(v, 603, 600 * US);	/* [600, 1000) */
	assert_int_equal(c->alive_ns, 400 * US);
	assert_int_equal(v->vms[0].alive_ns, 1750 * US);
	assert_int_equal(v->vms[0].sleep_ns + v->vms[0].running_ns + v->vms[0].ready_ns,
			 1750 * US);
	/* the rebirth ends an instance no death ended */
	assert_int_equal(trace__instance_end(t, 602, 0), 200 * US);
	assert_int_equal(trace__instance_end(t, 602, 200 * US), UINT64_MAX);
	vms__free(v);
	summary__free(s);
	trace__free(t);
	/* without the streams: the loader kept the death all the same */
	v = alive_vms(false, &t, &s);
	assert_int_equal(t->nr_ends, 2);
	assert_int_equal(vcpu_of(v, 601, 0)->alive_ns, 400 * US);
	assert_int_equal(vcpu_of(v, 602, 200 * US)->alive_ns, 800 * US);
	assert_int_equal(vcpu_of(v, 603, 0)->alive_ns, 150 * US);
	assert_int_equal(vcpu_of(v, 603, 600 * US)->alive_ns, 400 * US);
	vms__free(v);
	summary__free(s);
	trace__free(t);
}

/* Worst first: the highest ready % of the vCPUs' lives, ties in the VMs' own order; a VM alive
 * for none of the window counts 0 %. */
static void test_worst_first(void **state)
{
	struct vms_vm vm[4] = {
		{ .pid = 1, .alive_ns = 1000, .ready_ns = 100 },	/* 10 % */
		{ .pid = 2, .alive_ns = 200, .ready_ns = 100 },		/* 50 %: short-lived, starved */
		{ .pid = 3, .alive_ns = 0, .ready_ns = 0 },
		{ .pid = 4, .alive_ns = 2000, .ready_ns = 200 },	/* 10 %, after pid 1 */
	};
	struct vms v = { .vms = vm, .nr_vms = 4 };
	const struct vms_vm **o = vms__worst_first(&v);

	(void)state;
	assert_non_null(o);
	assert_int_equal(o[0]->pid, 2);
	assert_int_equal(o[1]->pid, 1);
	assert_int_equal(o[2]->pid, 4);
	assert_int_equal(o[3]->pid, 3);
	assert_true(vms_vm_ready_pct(o[0]) == 50.0);
	assert_true(vms_vm_ready_pct(o[3]) == 0.0);
	free(o);
}

static char *report_of(struct fixture *fx)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(report_write_vms(f, fx->s, &fx->t->meta, fx->v), 0);
	fclose(f);
	return text;
}

static void test_report(void **state)
{
	struct fixture *fx = build(true);
	char *text;

	(void)state;
	fx->t->meta.has_steal = true;
	fx->t->meta.steal_ns = 5 * US;
	fx->t->meta.cpu_time_ns = 2000 * US;
	text = report_of(fx);
	/* durations by user/lib/fmt.h's rule */
	assert_non_null(strstr(text, "Host steal over the capture (/proc/stat): 5.00 us of 2.00 ms CPU time (0.250 %)"));
	assert_non_null(strstr(text, "VM vmA (pid 100): 1 vCPUs, 1 other threads (100 us), 4 exits (4000.0/s)"));
	assert_non_null(strstr(text, "VM vmB (pid 300): 2 vCPUs"));
	/* vmA.vcpu0: running 0.4 ms 40 %, ready 0.22 ms 22 %, sleeping 0.38 ms 38 %, 1 migration */
	assert_non_null(strstr(text, "    400 us   40.00     220 us   22.00     380 us   38.00      1  hog:200 200 us, swapper"));
	assert_non_null(strstr(text, "HLT                              1     1000.0     300 us     100 us    20.0 us     180 us     300 us"));
	/* the waits of 20 and 200 us: each percentile the range of its bucket, cut to the longest */
	assert_non_null(strstr(text, "vmA.vcpu0                         101         2        16.4-20.5 us          197-200 us          197-200 us          197-200 us     200 us\n"));
	assert_non_null(strstr(text, "Run-queue wait percentiles"));
	free(text);
	fixture_free(fx);
}

/*
 * VM 700 over 1 ms, streams only: tid 701 ("worker": no exits, not QEMU's name) there from the
 * start, then born again at 600 us; only its second instance has a ledger, so it alone is a
 * vCPU. 702 ("CPU 1/KVM") has a ledger in two records (summed). A ledger of an instance the
 * capture does not hold (701 since 300 us) belongs to no vCPU.
 */
static struct trace *ledger_trace(void)
{
	const struct pwz_task tk[] = {
		{ .tid = 701, .tgid = 700, .comm = "worker", .name = "worker" },
		{ .tid = 701, .tgid = 700, .comm = "worker", .name = "vmL.vcpu0",
		  .time_ns = 600 * US, .flags = PWZ_TASK_BORN },
		{ .tid = 702, .tgid = 700, .comm = "CPU 1/KVM", .name = "vmL.vcpu1" },
	};
	const struct pwz_slice sl[] = {
		{ 701, 0, 100 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
		{ 702, 1, 50 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
		{ 701, 0, 700 * US, 100 * US, PWZ_END_SLEPT, 0, 0, 0 },
	};
	struct pwz_vcpu_ledger led[] = {
		{ .tid = 701, .since_ns = 600 * US, .alive_ns = 350 * US,
		  .ns = { 60 * US, 30 * US, 5 * US, 3 * US, 200 * US, 50 * US, 1 * US, 1 * US },
		  .count = { 11, 12, 13, 14, 15, 16, 17, 18 },
		  /* guest stretches: 60 in [1024, 2047] ns, 1 in [2^20, 2^21 - 1] */
		  .hist = { [PWZ_VCPU_GUEST] = { [10] = 60, [20] = 1 } } },
		{ .tid = 702, .alive_ns = 600 * US, .ns = { 100 * US, 0, 0, 0, 500 * US },
		  .count = { 1, 2, 3, 4, 5, 6, 7, 8 } },
		{ .tid = 702, .alive_ns = 400 * US, .ns = { 0, 0, 0, 0, 400 * US },
		  .count = { 1, 1, 1, 1, 1, 1, 1, 1 } },
		{ .tid = 701, .since_ns = 300 * US, .alive_ns = 9, .ns = { 9 } },
	};
	struct pwz_meta m = { .nr_cpus = 2, .duration_ns = 1000 * US, .has_wait = true,
			      .has_kvm = true };
	struct cdict_visitor v;
	struct trace *t = trace__new("ledgers", true, &v);
	size_t i;

	assert_non_null(t);
	assert_int_equal(v.meta(v.ctx, &m), 0);
	for (i = 0; i < sizeof(tk) / sizeof(tk[0]); i++)
		assert_int_equal(v.task(v.ctx, &tk[i]), 0);
	for (i = 0; i < sizeof(sl) / sizeof(sl[0]); i++)
		assert_int_equal(v.slice(v.ctx, &sl[i]), 0);
	for (i = 0; i < sizeof(led) / sizeof(led[0]); i++)
		assert_int_equal(v.vcpu_ledger(v.ctx, &led[i]), 0);
	assert_int_equal(trace__settle(t), 0);
	return t;
}

/* A ledger goes to the vCPU of its instance (tid, since) and makes a vCPU; a VM's is the sum
 * of its vCPUs'; a window has none. */
static void test_ledger(void **state)
{
	struct summary_opts win = { .from_ns = 100 * US };
	struct trace *t = ledger_trace();
	const struct vms_vcpu *a, *b;
	const struct vms_vm *vm;
	struct summary *s;
	struct vms *v;
	char err[256];

	(void)state;
	assert_int_equal(t->nr_vcpu_ledgers, 3);	/* 702's two summed */
	assert_null(trace__vcpu_ledger(t, 701, 0));
	assert_int_equal(trace__vcpu_ledger(t, 702, 0)->ns[PWZ_VCPU_HALT], 900 * US);
	s = summary__new(t, NULL, err, sizeof(err));
	assert_non_null(s);
	assert_true(s->whole_capture);
	v = vms__new(t, s, err, sizeof(err));
	assert_non_null(v);
	assert_int_equal(v->nr_vms, 1);
	vm = &v->vms[0];
	assert_int_equal(vm->pid, 700);
	assert_int_equal(vm->nr_vcpus, 2);
	assert_int_equal(vm->nr_other, 1);	/* 701's first instance */
	a = vcpu_of(v, 701, 600 * US);
	b = vcpu_of(v, 702, 0);
	assert_true(a->has_ledger);
	assert_int_equal(a->ledger.since_ns, 600 * US);
	assert_int_equal(a->ledger.alive_ns, 350 * US);
	assert_int_equal(a->alive_ns, 400 * US);	/* vms' own, not the ledger's */
	assert_int_equal(a->ledger.ns[PWZ_VCPU_READY], 50 * US);
	assert_int_equal(a->ledger.count[PWZ_VCPU_UNSEEN], 18);
	assert_true(b->has_ledger);
	assert_int_equal(b->ledger.alive_ns, 1000 * US);
	assert_int_equal(b->ledger.count[PWZ_VCPU_UNSEEN], 9);
	assert_true(vm->has_ledger);
	assert_int_equal(vm->ledger.alive_ns, 1350 * US);
	assert_int_equal(vm->ledger.ns[PWZ_VCPU_GUEST], 160 * US);
	assert_int_equal(vm->ledger.ns[PWZ_VCPU_HALT], 1100 * US);
	assert_int_equal(vm->ledger.ns[PWZ_VCPU_EXIT_USER], 5 * US);
	assert_int_equal(vm->ledger.count[PWZ_VCPU_READY], 16 + 7);
	{
		struct fixture fx = { .t = t, .s = s, .v = v };
		char *text = report_of(&fx);

		/* --stats: the same table after the VMs */
		assert_non_null(strstr(text, "\n  vmL.vcpu1                 702    1.00 ms  10.00   0.00   0.00   0.00  90.00   0.00   0.00   0.00\n"));
		free(text);
	}
	vms__free(v);
	summary__free(s);
	/* a window: the ledgers cover the whole capture, so no vCPU has one; 701's second
	 * instance is a vCPU all the same */
	s = summary__new(t, &win, err, sizeof(err));
	assert_non_null(s);
	assert_false(s->whole_capture);
	v = vms__new(t, s, err, sizeof(err));
	assert_non_null(v);
	assert_int_equal(v->vms[0].nr_vcpus, 2);
	assert_false(v->vms[0].has_ledger);
	assert_false(vcpu_of(v, 701, 600 * US)->has_ledger);
	vms__free(v);
	summary__free(s);
	trace__free(t);
}

/* --list --json and --list show the ledgers' values as they were written. */
static void test_ledger_list(void **state)
{
	char path[] = "/tmp/pwz-test-vms-XXXXXX", err[256];
	struct trace *t = ledger_trace();
	struct summary *s = summary__new(t, NULL, err, sizeof(err));
	const struct tj *vm, *vc;
	struct jbuf b = { 0 };
	struct tj *doc;
	int fd;

	(void)state;
	assert_non_null(s);
	list_json(&b, t, s, NULL);
	assert_int_equal(b.err, 0);
	/* every state by name, in the enum's order */
	assert_non_null(strstr(b.buf, "\"ledger_alive_ns\":350000,\"states\":{"
				  "\"guest\":{\"ns\":60000,\"count\":11,\"stretches\":61,"
				  "\"p50\":{\"lo_ns\":1024,\"hi_ns\":2047},"
				  "\"p99\":{\"lo_ns\":1048576,\"hi_ns\":2097151}},"
				  "\"exit_kernel\":{\"ns\":30000,\"count\":12,\"stretches\":0,\"p50\":null,\"p99\":null},"
				  "\"exit_user\":{\"ns\":5000,\"count\":13,\"stretches\":0,\"p50\":null,\"p99\":null},"
				  "\"halt_poll\":{\"ns\":3000,\"count\":14,\"stretches\":0,\"p50\":null,\"p99\":null},"
				  "\"halt\":{\"ns\":200000,\"count\":15,\"stretches\":0,\"p50\":null,\"p99\":null},"
				  "\"ready\":{\"ns\":50000,\"count\":16,\"stretches\":0,\"p50\":null,\"p99\":null},"
				  "\"other_on_cpu\":{\"ns\":1000,\"count\":17,\"stretches\":0,\"p50\":null,\"p99\":null},"
				  "\"unseen\":{\"ns\":1000,\"count\":18,\"stretches\":0,\"p50\":null,\"p99\":null}}"));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.buf, b.len), (ssize_t)b.len);
	close(fd);
	doc = tj_load(path);
	unlink(path);
	assert_non_null(doc);
	vm = tj_at(doc, "vms/0");
	assert_int_equal(tj_int(tj_at(vm, "ledger_alive_ns")), 1350000);
	assert_int_equal(tj_int(tj_at(vm, "states/halt/ns")), 1100000);
	assert_int_equal(tj_int(tj_at(vm, "states/ready/count")), 23);
	vc = tj_find(tj_get(vm, "vcpus"), "name", "vmL.vcpu1");
	assert_non_null(vc);
	assert_int_equal(tj_int(tj_at(vc, "alive_ns")), 1000000);
	assert_int_equal(tj_int(tj_at(vc, "ledger_alive_ns")), 1000000);
	assert_int_equal(tj_int(tj_at(vc, "states/halt/ns")), 900000);
	assert_int_equal(tj_int(tj_at(vc, "states/unseen/count")), 9);
	tj_free(doc);
	jbuf_free(&b);
	memset(&b, 0, sizeof(b));
	/* the text: each state's share of the ledger's life, the VM's and each vCPU's */
	list_plain(&b, t, s, NULL);
	assert_int_equal(b.err, 0);
	assert_non_null(strstr(b.buf, "# VM / vCPU               PID/TID       LIFE  GUEST EXIT_K EXIT_U   POLL   HALT  READY  OTHER UNSEEN\n"));
	assert_non_null(strstr(b.buf, "# vmL                         700    1.35 ms  11.85   2.22   0.37   0.22  81.48   3.70   0.07   0.07\n"));
	assert_non_null(strstr(b.buf, "#   vmL.vcpu0                 701     350 us  17.14   8.57   1.43   0.86  57.14  14.29   0.29   0.29\n"));
	assert_non_null(strstr(b.buf, "#   vmL.vcpu1                 702    1.00 ms  10.00   0.00   0.00   0.00  90.00   0.00   0.00   0.00\n"));
	jbuf_free(&b);
	summary__free(s);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_exit_split),
		cmocka_unit_test(test_exit_percentiles),
		cmocka_unit_test(test_index_order),
		cmocka_unit_test(test_wait_percentiles),
		cmocka_unit_test(test_no_streams),
		cmocka_unit_test(test_record_order),
		cmocka_unit_test(test_ready_kernel),
		cmocka_unit_test(test_uncharged),
		cmocka_unit_test(test_split_interval),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_cgroup_naming),
		cmocka_unit_test(test_alive),
		cmocka_unit_test(test_worst_first),
		cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_ledger_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
