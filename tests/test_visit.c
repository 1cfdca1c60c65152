// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the record path's visitors: the naming gate and the tee (user/lib/visit.c),
 * the writer as a visitor (cdict_writer__visitor()) and the flight recorder's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "cdict.h"
#include "flight.h"
#include "visit.h"

/* What a visitor saw, in order: one letter per record (t task, s slice, w wakeup, x exit, c
 * cpu_agg, k kvm_agg, a wait_agg, i irq_agg, l vcpu_ledger), and the names asked for. */
struct log {
	char seq[64];
	uint32_t named[16];
	uint64_t named_t[16];
	int nr_named;
	int fail_at;		/* the record number (from 1) whose callback fails; 0 none */
	int fail_name;		/* name() fails for this tid; 0 none */
};

static int add(struct log *l, char c)
{
	size_t n = strlen(l->seq);

	l->seq[n] = c;
	l->seq[n + 1] = '\0';
	return l->fail_at && (int)n + 1 == l->fail_at ? -ENOSPC : 0;
}

static int l_task(void *c, const struct pwz_task *x) { (void)x; return add(c, 't'); }
static int l_slice(void *c, const struct pwz_slice *x) { (void)x; return add(c, 's'); }
static int l_wakeup(void *c, const struct pwz_wakeup *x) { (void)x; return add(c, 'w'); }
static int l_exit(void *c, const struct pwz_kvm_exit *x) { (void)x; return add(c, 'x'); }
static int l_cpu(void *c, const struct pwz_cpu_agg *x) { (void)x; return add(c, 'c'); }
static int l_kvm(void *c, const struct pwz_kvm_agg *x) { (void)x; return add(c, 'k'); }
static int l_wait(void *c, const struct pwz_wait_agg *x) { (void)x; return add(c, 'a'); }
static int l_irq(void *c, const struct pwz_irq_agg *x) { (void)x; return add(c, 'i'); }
static int l_led(void *c, const struct pwz_vcpu_ledger *x) { (void)x; return add(c, 'l'); }

static struct cdict_visitor logger(struct log *l)
{
	return (struct cdict_visitor){ .ctx = l, .task = l_task, .slice = l_slice,
				       .wakeup = l_wakeup, .kvm_exit = l_exit, .cpu_agg = l_cpu,
				       .kvm_agg = l_kvm, .wait_agg = l_wait, .irq_agg = l_irq,
				       .vcpu_ledger = l_led };
}

static int name(void *ctx, uint32_t tid, uint64_t t)
{
	struct log *l = ctx;

	if (l->fail_name && (uint32_t)l->fail_name == tid)
		return -ENOMEM;
	l->named[l->nr_named] = tid;
	l->named_t[l->nr_named++] = t;
	return add(l, 'n');
}

/* Every record naming a thread is named first, with its time; task records and the
 * unselected threads' IRQ row pass as they are; the gate counts what it passed on. */
static void test_gate_names_each_record(void **state)
{
	struct log out = { 0 };
	int err = 0;
	struct visit_gate g = { .next = logger(&out), .name = name, .name_ctx = &out, .err = &err };
	struct cdict_visitor v = visit_gate__visitor(&g);
	struct pwz_task t = { .tid = 1 };
	struct pwz_wakeup w = { .tid = 2, .wake_ns = 90 };
	struct pwz_slice s = { .tid = 2, .start_ns = 100 };
	struct pwz_kvm_exit x = { .tid = 3, .time_ns = 200 };
	struct pwz_cpu_agg c = { .tid = 4 };
	struct pwz_kvm_agg k = { .tid = 5 };
	struct pwz_wait_agg a = { .tid = 6 };
	struct pwz_irq_agg i = { .tid = 7 }, other = { .tid = PWZ_IRQ_OTHER_TID };
	struct pwz_vcpu_ledger l = { .tid = 8, .since_ns = 30 };

	(void)state;
	assert_int_equal(v.task(v.ctx, &t), 0);
	assert_int_equal(v.wakeup(v.ctx, &w), 0);
	assert_int_equal(v.slice(v.ctx, &s), 0);
	assert_int_equal(v.kvm_exit(v.ctx, &x), 0);
	assert_int_equal(v.cpu_agg(v.ctx, &c), 0);
	assert_int_equal(v.kvm_agg(v.ctx, &k), 0);
	assert_int_equal(v.wait_agg(v.ctx, &a), 0);
	assert_int_equal(v.irq_agg(v.ctx, &i), 0);
	assert_int_equal(v.irq_agg(v.ctx, &other), 0);
	assert_int_equal(v.vcpu_ledger(v.ctx, &l), 0);
	assert_string_equal(out.seq, "tnwnsnxncnknaniinl");
	assert_int_equal(out.nr_named, 8);
	assert_int_equal(out.named[0], 2);
	assert_int_equal(out.named_t[0], 90);	/* the wait's start */
	assert_int_equal(out.named_t[1], 100);	/* the slice's */
	assert_int_equal(out.named[2], 3);
	assert_int_equal(out.named_t[2], 200);
	assert_int_equal(out.named[6], 7);
	assert_int_equal(out.named_t[6], 0);	/* aggregates */
	assert_int_equal(out.named[7], 8);
	assert_int_equal(out.named_t[7], 0);
	assert_int_equal(g.slices, 1);
	assert_int_equal(g.wakeups, 1);
	assert_int_equal(g.kvm_exits, 1);
	assert_int_equal(err, 0);
}

/* A failing name() or next stops the record, and the first failure is kept. */
static void test_gate_failures(void **state)
{
	struct log out = { .fail_name = 2 };
	int err = 0;
	struct visit_gate g = { .next = logger(&out), .name = name, .name_ctx = &out, .err = &err };
	struct cdict_visitor v = visit_gate__visitor(&g);
	struct pwz_slice s = { .tid = 2 }, s3 = { .tid = 3 };

	(void)state;
	assert_int_equal(v.slice(v.ctx, &s), -ENOMEM);
	assert_string_equal(out.seq, "");	/* not passed on */
	assert_int_equal(err, -ENOMEM);
	out.fail_at = 2;	/* next fails on its second record: s3's slice */
	assert_int_equal(v.slice(v.ctx, &s3), -ENOSPC);
	assert_string_equal(out.seq, "ns");
	assert_int_equal(err, -ENOMEM);	/* the first one kept */
	/* without next's callback a kind is dropped, unnamed */
	g.next.slice = NULL;
	out.fail_at = 0;
	assert_int_equal(v.slice(v.ctx, &s3), 0);
	assert_string_equal(out.seq, "ns");
}

/* The tee: a first, then b, each side's NULL callbacks skipped; a's failure stops b. */
static void test_tee(void **state)
{
	struct log a = { 0 }, b = { 0 };
	struct visit_tee t = { .a = logger(&a), .b = logger(&b) };
	struct cdict_visitor v = visit_tee__visitor(&t);
	struct pwz_slice s = { .tid = 1 };
	struct pwz_cpu_agg c = { .tid = 1 };
	struct pwz_vcpu_ledger l = { .tid = 1 };

	(void)state;
	t.a.slice = NULL;
	assert_int_equal(v.slice(v.ctx, &s), 0);
	assert_int_equal(v.cpu_agg(v.ctx, &c), 0);
	assert_int_equal(v.vcpu_ledger(v.ctx, &l), 0);
	assert_string_equal(a.seq, "cl");
	assert_string_equal(b.seq, "scl");
	a.fail_at = 3;
	assert_int_equal(v.cpu_agg(v.ctx, &c), -ENOSPC);
	assert_string_equal(b.seq, "scl");
	t.b = (struct cdict_visitor){ 0 };
	a.fail_at = 0;
	assert_int_equal(v.cpu_agg(v.ctx, &c), 0);
	assert_string_equal(a.seq, "clcc");
}

/* What a file read back holds. */
struct back {
	int tasks, slices, wakeups, exits, cpu_aggs, ledgers;
	uint32_t slice_tid;
	uint64_t wait_ns;
	uint64_t halt_ns;	/* the last ledger's */
};

static int b_task(void *c, const struct pwz_task *x) { (void)x; ((struct back *)c)->tasks++; return 0; }
static int b_slice(void *c, const struct pwz_slice *x)
{
	((struct back *)c)->slices++;
	((struct back *)c)->slice_tid = x->tid;
	return 0;
}
static int b_wakeup(void *c, const struct pwz_wakeup *x)
{
	((struct back *)c)->wakeups++;
	((struct back *)c)->wait_ns = x->wait_ns;
	return 0;
}
static int b_exit(void *c, const struct pwz_kvm_exit *x) { (void)x; ((struct back *)c)->exits++; return 0; }
static int b_cpu(void *c, const struct pwz_cpu_agg *x) { (void)x; ((struct back *)c)->cpu_aggs++; return 0; }
static int b_led(void *c, const struct pwz_vcpu_ledger *x)
{
	((struct back *)c)->ledgers++;
	((struct back *)c)->halt_ns = x->ns[PWZ_VCPU_HALT];
	return 0;
}

/* The writer as a visitor writes what its functions write: the file reads back the same. */
static void test_writer_visitor(void **state)
{
	char dir[] = "/tmp/pwz-test-visit-XXXXXX", path[64], err[256];
	struct pwz_meta meta = { .start_mono_ns = 1 };
	struct cdict_writer_opts wo = { 0 };
	struct cdict_writer *w;
	struct cdict_visitor v;
	struct pwz_task t = { .tid = 9, .comm = "vcpu", .name = "vcpu" };
	struct pwz_wakeup wk = { .tid = 9, .wake_ns = 10, .wait_ns = 5, .flags = PWZ_WAKEUP_WOKEN };
	struct pwz_slice s = { .tid = 9, .start_ns = 15, .dur_ns = 10, .end = PWZ_END_SLEPT };
	struct pwz_kvm_exit x = { .tid = 9, .time_ns = 16, .handling_ns = 1 };
	struct pwz_cpu_agg c = { .tid = 9, .runtime_ns = 10, .switches = 1 };
	struct pwz_vcpu_ledger l = { .tid = 9, .alive_ns = 25, .ns = { [PWZ_VCPU_HALT] = 25 } };
	struct back bk = { 0 };
	struct cdict_visitor rd = { .ctx = &bk, .task = b_task, .slice = b_slice, .wakeup = b_wakeup,
				    .kvm_exit = b_exit, .cpu_agg = b_cpu, .vcpu_ledger = b_led };
	struct cdict_read_info info;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/v.cdict", dir);
	w = cdict_writer__new(path, &meta, &wo, err, sizeof(err));
	assert_non_null(w);
	v = cdict_writer__visitor(w);
	assert_null(v.meta);
	assert_int_equal(v.task(v.ctx, &t), 0);
	assert_int_equal(v.wakeup(v.ctx, &wk), 0);
	assert_int_equal(v.slice(v.ctx, &s), 0);
	assert_int_equal(v.kvm_exit(v.ctx, &x), 0);
	assert_int_equal(v.cpu_agg(v.ctx, &c), 0);
	assert_int_equal(v.vcpu_ledger(v.ctx, &l), 0);
	assert_int_equal(cdict_writer__finish(w, &meta, err, sizeof(err)), 0);
	cdict_writer__free(w);
	assert_int_equal(cdict_read(path, &rd, &info, err, sizeof(err)), 0);
	assert_int_equal(bk.tasks, 1);
	assert_int_equal(bk.wakeups, 1);
	assert_int_equal(bk.wait_ns, 5);
	assert_int_equal(bk.slices, 1);
	assert_int_equal(bk.slice_tid, 9);
	assert_int_equal(bk.exits, 1);
	assert_int_equal(bk.cpu_aggs, 1);
	assert_int_equal(bk.ledgers, 1);
	assert_int_equal(bk.halt_ns, 25);
	unlink(path);
	rmdir(dir);
}

/* The flight recorder as a visitor: a slice takes the wait delivered just before it when it is
 * its thread's on its CPU, so a long one triggers; another thread's wait does not. */
static void test_flight_visitor(void **state)
{
	struct flight_cfg cfg = { .window_ns = 1000000000, .trigger_wait_ns = 1000 };
	struct flight *f = flight__new(&cfg);
	struct cdict_visitor v;
	struct pwz_wakeup other = { .tid = 3, .cpu = 0, .wake_ns = 0, .wait_ns = 5000 };
	struct pwz_wakeup own = { .tid = 2, .cpu = 0, .wake_ns = 0, .wait_ns = 5000 };
	struct pwz_slice s = { .tid = 2, .cpu = 0, .start_ns = 5000, .dur_ns = 10 };

	(void)state;
	assert_non_null(f);
	v = flight__visitor(f);
	assert_int_equal(v.wakeup(v.ctx, &other), 0);
	assert_int_equal(v.slice(v.ctx, &s), 0);
	assert_true(flight__trigger(f, 1, 0, "free"));	/* nothing pending: the wait was not its */
	flight__free(f);
	f = flight__new(&cfg);
	assert_non_null(f);
	v = flight__visitor(f);
	assert_int_equal(v.wakeup(v.ctx, &own), 0);
	assert_int_equal(v.slice(v.ctx, &s), 0);
	assert_false(flight__trigger(f, 1, 0, "taken"));	/* the wait triggered */
	assert_true(flight__stored(f) > 0);
	flight__free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_names_each_record),
		cmocka_unit_test(test_gate_failures),
		cmocka_unit_test(test_tee),
		cmocka_unit_test(test_writer_visitor),
		cmocka_unit_test(test_flight_visitor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
