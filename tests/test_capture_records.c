// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/capture_records.c: decoding and converting synthetic ring-buffer records. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "capture_records.h"

struct seen {
	int slices, exits, tasks;
	struct rec_slice slice;
	struct rec_kvm_exit exit;
	struct rec_task task;
	int ret;		/* what the callbacks return */
};

static int on_slice(void *ctx, const struct rec_slice *r)
{
	struct seen *s = ctx;

	s->slices++;
	s->slice = *r;
	return s->ret;
}

static int on_exit_rec(void *ctx, const struct rec_kvm_exit *r)
{
	struct seen *s = ctx;

	s->exits++;
	s->exit = *r;
	return s->ret;
}

static int on_task(void *ctx, const struct rec_task *r)
{
	struct seen *s = ctx;

	s->tasks++;
	s->task = *r;
	return s->ret;
}

static void test_dispatch(void **state)
{
	struct seen s = { 0 };
	struct capture_sink sink = { &s, on_slice, on_exit_rec, on_task };
	struct rec_slice sl = { .type = REC_SLICE, .tid = 42, .cpu = 1, .end = REC_END_SLEPT,
				.wait = REC_WAIT_WAKEUP, .start_ns = 100, .end_ns = 200, .wake_ns = 90 };
	struct rec_kvm_exit ex = { .type = REC_KVM_EXIT, .tid = 7, .vcpu = 3, .isa = 2, .reason = 0x7b,
				   .exit_ns = 1000, .guest_ns = 50, .handling_ns = 60 };
	struct rec_task tk = { .type = REC_TASK, .tid = 9, .tgid = 8, .is_new = 1, .time_ns = 5 };
	unsigned char buf[64];
	__u32 bogus = 99;

	(void)state;
	assert_int_equal(capture_dispatch(&sl, sizeof(sl), &sink), 0);
	assert_int_equal(s.slices, 1);
	assert_int_equal(s.slice.tid, 42);
	assert_int_equal(s.slice.wake_ns, 90);
	assert_int_equal(capture_dispatch(&ex, sizeof(ex), &sink), 0);
	assert_int_equal(s.exits, 1);
	assert_int_equal(s.exit.reason, 0x7b);
	assert_int_equal(s.exit.handling_ns, 60);
	/* an unterminated comm comes out terminated */
	memset(tk.comm, 'x', sizeof(tk.comm));
	assert_int_equal(capture_dispatch(&tk, sizeof(tk), &sink), 0);
	assert_int_equal(s.tasks, 1);
	assert_int_equal(strlen(s.task.comm), sizeof(tk.comm) - 1);
	/* truncated records, unknown types and scraps are skipped */
	assert_int_equal(capture_dispatch(&sl, sizeof(sl) - 1, &sink), 0);
	assert_int_equal(capture_dispatch(&ex, 8, &sink), 0);
	assert_int_equal(capture_dispatch(&bogus, sizeof(bogus), &sink), 0);
	assert_int_equal(capture_dispatch(buf, 2, &sink), 0);
	assert_int_equal(s.slices + s.exits + s.tasks, 3);
	/* a record with trailing bytes (ring buffer padding) is still read; a sink error stops */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &sl, sizeof(sl));
	s.ret = -ENOSPC;
	assert_int_equal(capture_dispatch(buf, sizeof(buf), &sink), -ENOSPC);
	assert_int_equal(s.slices, 2);
	/* no callback for a type: skipped */
	sink.kvm_exit = NULL;
	assert_int_equal(capture_dispatch(&ex, sizeof(ex), &sink), 0);
	assert_int_equal(s.exits, 1);
}

static void test_conv_slice(void **state)
{
	const uint64_t t0 = 1000000;
	struct rec_slice r = { .type = REC_SLICE, .tid = 5, .cpu = 1, .end = REC_END_PREEMPTED,
			       .wait = REC_WAIT_PREEMPT, .start_ns = t0 + 500, .end_ns = t0 + 800,
			       .wake_ns = t0 + 100 };
	struct pwz_slice s;
	struct pwz_wakeup w;

	(void)state;
	assert_true(capture_conv_slice(&r, t0, &s, &w));
	assert_int_equal(s.tid, 5);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.start_ns, 500);
	assert_int_equal(s.dur_ns, 300);
	assert_int_equal(s.end, PWZ_END_PREEMPTED);
	assert_int_equal(w.tid, 5);
	assert_int_equal(w.cpu, 1);
	assert_int_equal(w.wake_ns, 100);
	assert_int_equal(w.wait_ns, 400);

	/* running since before the capture: starts at 0, lasts from t0, no wait */
	r.start_ns = 0;
	r.end = REC_END_EXITED;
	assert_false(capture_conv_slice(&r, t0, &s, &w));
	assert_int_equal(s.start_ns, 0);
	assert_int_equal(s.dur_ns, 800);
	assert_int_equal(s.end, PWZ_END_EXITED);

	/* no wait, or an inconsistent one (wake after switch-in): no wakeup record */
	r.start_ns = t0 + 500;
	r.wait = REC_WAIT_NONE;
	assert_false(capture_conv_slice(&r, t0, &s, &w));
	r.wait = REC_WAIT_WAKEUP;
	r.wake_ns = t0 + 600;
	assert_false(capture_conv_slice(&r, t0, &s, &w));
	/* an unknown end kind is not passed through */
	r.end = 77;
	capture_conv_slice(&r, t0, &s, &w);
	assert_int_equal(s.end, PWZ_END_UNKNOWN);
	/* an end before the start (never from the kernel) gives 0, not a huge duration */
	r.end_ns = t0 + 400;
	capture_conv_slice(&r, t0, &s, &w);
	assert_int_equal(s.dur_ns, 0);
}

static void test_conv_open_and_exit(void **state)
{
	const uint64_t t0 = 5000;
	struct cpu_state st = { .start_ns = t0 + 100, .tid = 9, .seen = 1, .wake_ns = t0 + 40,
				.wait = REC_WAIT_WAKEUP };
	struct rec_kvm_exit k = { .type = REC_KVM_EXIT, .tid = 3, .vcpu = 1, .isa = 1, .reason = 30,
				  .exit_ns = t0 + 77, .guest_ns = 11, .handling_ns = 22 };
	struct pwz_kvm_exit e;
	struct pwz_slice s;
	struct pwz_wakeup w;

	(void)state;
	assert_true(capture_conv_open(&st, 1, t0, t0 + 1000, &s, &w));
	assert_int_equal(s.tid, 9);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.start_ns, 100);
	assert_int_equal(s.dur_ns, 900);
	assert_int_equal(s.end, PWZ_END_OPEN);
	assert_int_equal(w.wait_ns, 60);
	assert_int_equal(w.wake_ns, 40);
	st.start_ns = 0;	/* the same thread since the start on a CPU that never switched */
	assert_false(capture_conv_open(&st, 0, t0, t0 + 1000, &s, &w));
	assert_int_equal(s.start_ns, 0);
	assert_int_equal(s.dur_ns, 1000);

	capture_conv_kvm_exit(&k, t0, &e);
	assert_int_equal(e.tid, 3);
	assert_int_equal(e.vcpu, 1);
	assert_int_equal(e.time_ns, 77);
	assert_int_equal(e.isa, 1);
	assert_int_equal(e.reason, 30);
	assert_int_equal(e.guest_ns, 11);
	assert_int_equal(e.handling_ns, 22);
}

static void test_sums(void **state)
{
	struct kvm_agg_val kv[3], ks;
	struct cpu_agg_val cv[3];
	struct wait_agg_val ws;

	(void)state;
	memset(kv, 0, sizeof(kv));
	memset(cv, 0, sizeof(cv));
	for (int i = 0; i < 3; i++) {
		kv[i].count = 10 * (i + 1);
		kv[i].handling_ns = 1000 * (i + 1);
		kv[i].hist[i] = 1;
		kv[i].hist[PWZ_BPF_HIST - 1] = 2;
		cv[i].wait_count = i;
		cv[i].wait_ns = 100 * i;
		cv[i].wait_max_ns = i == 1 ? 90 : 50;
	}
	capture_sum_kvm(kv, 3, &ks);
	assert_int_equal(ks.count, 60);
	assert_int_equal(ks.handling_ns, 6000);
	assert_int_equal(ks.hist[0], 1);
	assert_int_equal(ks.hist[2], 1);
	assert_int_equal(ks.hist[PWZ_BPF_HIST - 1], 6);
	capture_sum_wait(cv, 3, &ws);
	assert_int_equal(ws.count, 3);
	assert_int_equal(ws.wait_ns, 300);
	assert_int_equal(ws.max_ns, 90);	/* max, not sum */
	capture_sum_wait(cv, 1, &ws);
	assert_int_equal(ws.count, 0);
}

/* The kernel's histogram buckets are the ones the readers assume. */
static void test_log2_bucket_matches_records(void **state)
{
	uint64_t v[] = { 0, 1, 2, 3, 4, 7, 8, 1000, 1023, 1024, 1025, 65535, 65536, 1ull << 32,
			 (1ull << 32) - 1, (1ull << 39) - 1, 1ull << 39, 1ull << 40, 1ull << 63,
			 UINT64_MAX };

	(void)state;
	assert_int_equal(PWZ_BPF_HIST, PWZ_HIST_BUCKETS);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(pwz_log2_bucket(v[i]), pwz_hist_bucket(v[i]));
	for (int b = 0; b < 64; b++)
		assert_int_equal(pwz_log2_bucket(1ull << b), pwz_hist_bucket(1ull << b));
	assert_int_equal(pwz_log2_bucket(1500), 10);	/* 1024 <= 1500 < 2048 */
}

/* The reader's fold is the kernel's: runtime from switch times, end kinds, waits. */
static void test_fold_slice(void **state)
{
	const uint64_t t0 = 1000;
	struct cpu_agg_val v = { 0 };
	struct rec_slice r = { .type = REC_SLICE, .tid = 5, .cpu = 1, .end = REC_END_SLEPT,
			       .wait = REC_WAIT_WAKEUP, .start_ns = 2000, .end_ns = 2500,
			       .wake_ns = 1800 };

	(void)state;
	capture_fold_slice(&v, &r, t0);
	assert_int_equal(v.runtime_ns, 500);
	assert_int_equal(v.switches, 1);
	assert_int_equal(v.voluntary, 1);
	assert_int_equal(v.involuntary, 0);
	assert_int_equal(v.wait_count, 1);
	assert_int_equal(v.wait_ns, 200);
	assert_int_equal(v.wait_max_ns, 200);
	/* running since before the capture: counted from t0, no wait */
	r = (struct rec_slice){ .type = REC_SLICE, .end = REC_END_PREEMPTED, .wait = REC_WAIT_NONE,
				.start_ns = 0, .end_ns = 1300 };
	capture_fold_slice(&v, &r, t0);
	assert_int_equal(v.runtime_ns, 800);
	assert_int_equal(v.switches, 2);
	assert_int_equal(v.involuntary, 1);
	assert_int_equal(v.wait_count, 1);
	/* an exit is voluntary; a wait that did not end after it began is not one */
	r = (struct rec_slice){ .type = REC_SLICE, .end = REC_END_EXITED, .wait = REC_WAIT_PREEMPT,
				.start_ns = 3000, .end_ns = 3100, .wake_ns = 3000 };
	capture_fold_slice(&v, &r, t0);
	assert_int_equal(v.runtime_ns, 900);
	assert_int_equal(v.voluntary, 2);
	assert_int_equal(v.wait_count, 1);
	assert_int_equal(v.wait_ns, 200);
	/* a longer wait raises the maximum, a shorter one does not */
	r.wait = REC_WAIT_WAKEUP;
	r.wake_ns = 2000;
	capture_fold_slice(&v, &r, t0);
	r.wake_ns = 2990;
	capture_fold_slice(&v, &r, t0);
	assert_int_equal(v.wait_count, 3);
	assert_int_equal(v.wait_ns, 200 + 1000 + 10);
	assert_int_equal(v.wait_max_ns, 1000);
}

static int sum_each(void *ctx, uint32_t tid, uint32_t cpu, const struct cpu_agg_val *v)
{
	uint64_t *acc = ctx;

	acc[0]++;
	acc[1] += v->switches;
	acc[2] += (uint64_t)tid * 10 + cpu;
	return acc[3] && acc[0] == acc[3] ? 7 : 0;
}

/* The reader's table: records folded per (tid, cpu), kernel values added, growth, walk. */
static void test_aggs_table(void **state)
{
	struct capture_aggs *a = capture_aggs__new(), *d;
	struct rec_slice r = { .type = REC_SLICE, .end = REC_END_SLEPT, .start_ns = 100,
			       .end_ns = 150 };
	struct cpu_agg_val k = { .runtime_ns = 1000, .switches = 3, .voluntary = 1,
				 .involuntary = 2, .wait_count = 2, .wait_ns = 70, .wait_max_ns = 60 };
	const struct cpu_agg_val *v;
	uint64_t acc[4] = { 0 }, want_ids = 0;

	(void)state;
	assert_non_null(a);
	/* 3000 threads on 2 CPUs, thread t having t % 5 + 1 slices on each: forces growth */
	for (uint32_t t = 1; t <= 3000; t++)
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			r.tid = t;
			r.cpu = cpu;
			for (uint32_t n = 0; n <= t % 5; n++)
				assert_int_equal(capture_aggs__add_slice(a, &r, 0), 0);
			want_ids += (uint64_t)t * 10 + cpu;
		}
	assert_int_equal(capture_aggs__count(a), 6000);
	v = capture_aggs__get(a, 1234, 1);
	assert_non_null(v);
	assert_int_equal(v->switches, 1234 % 5 + 1);
	assert_int_equal(v->runtime_ns, 50 * (1234 % 5 + 1));
	assert_null(capture_aggs__get(a, 1234, 2));
	assert_null(capture_aggs__get(a, 3001, 0));

	/* the kernel's slots for dropped records add up; the maximum wait is a maximum */
	d = capture_aggs__dup(a);
	assert_non_null(d);
	assert_int_equal(capture_aggs__add(d, 1234, 1, &k), 0);
	assert_int_equal(capture_aggs__add(d, 9999, 0, &k), 0);
	k.wait_max_ns = 10;
	assert_int_equal(capture_aggs__add(d, 9999, 0, &k), 0);
	v = capture_aggs__get(d, 1234, 1);
	assert_int_equal(v->switches, 1234 % 5 + 1 + 3);
	assert_int_equal(v->runtime_ns, 50 * (1234 % 5 + 1) + 1000);
	assert_int_equal(v->involuntary, 2);
	assert_int_equal(v->voluntary, 1234 % 5 + 1 + 1);
	v = capture_aggs__get(d, 9999, 0);
	assert_int_equal(v->switches, 6);
	assert_int_equal(v->wait_count, 4);
	assert_int_equal(v->wait_ns, 140);
	assert_int_equal(v->wait_max_ns, 60);
	/* the copy is independent */
	assert_int_equal(capture_aggs__get(a, 1234, 1)->switches, 1234 % 5 + 1);
	assert_int_equal(capture_aggs__count(a), 6000);
	assert_int_equal(capture_aggs__count(d), 6001);

	/* the walk visits each entry once; a callback's value stops it */
	assert_int_equal(capture_aggs__each(a, sum_each, acc), 0);
	assert_int_equal(acc[0], 6000);
	assert_int_equal(acc[2], want_ids);
	assert_int_equal(acc[1], 2 * (600 * (1 + 2 + 3 + 4 + 5)));
	memset(acc, 0, sizeof(acc));
	acc[3] = 10;
	assert_int_equal(capture_aggs__each(a, sum_each, acc), 7);
	assert_int_equal(acc[0], 10);
	capture_aggs__free(d);
	capture_aggs__free(a);
	capture_aggs__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_conv_slice),
		cmocka_unit_test(test_conv_open_and_exit),
		cmocka_unit_test(test_sums),
		cmocka_unit_test(test_log2_bucket_matches_records),
		cmocka_unit_test(test_fold_slice),
		cmocka_unit_test(test_aggs_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
