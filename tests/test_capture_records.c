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

/* An exec record: its command line's length as the kernel gave it, never past the record. */
static void test_decode_exec(void **state)
{
	static struct rec_exec r = { .type = REC_EXEC, .tgid = 77, .time_ns = 1009, .len = 12,
				     .cut = 0, .args = "qemu\0-name\0vm" };
	struct capture_rec d;

	(void)state;
	assert_int_equal(capture_decode(&r, sizeof(r), 1000, &d), CAPTURE_REC_EXEC);
	assert_int_equal(d.exec.tgid, 77);
	assert_int_equal(d.exec.time_ns, 9);	/* from the capture start */
	assert_int_equal(d.exec.len, 12);
	assert_false(d.exec.cut);
	assert_string_equal(d.exec.args, "qemu");
	assert_ptr_equal(d.exec.args, r.args);	/* read in place */
	r.len = 5000;	/* a length past the record is held to it */
	r.cut = 1;
	assert_int_equal(capture_decode(&r, sizeof(r), 1000, &d), CAPTURE_REC_EXEC);
	assert_int_equal(d.exec.len, PWZ_EXEC_ARGS);
	assert_true(d.exec.cut);
	/* short: skipped */
	assert_int_equal(capture_decode(&r, sizeof(r) - 1, 1000, &d), CAPTURE_REC_SKIP);
}

static void test_decode(void **state)
{
	struct rec_slice sl = { .type = REC_SLICE, .tid = 42, .cpu = 1, .end = REC_END_SLEPT,
				.wait = REC_WAIT_WAKEUP, .start_ns = 1100, .end_ns = 1200,
				.wake_ns = 1090, .flags = REC_SLICE_RUN_DELAY, .run_delay_ns = 12 };
	struct rec_kvm_exit ex = { .type = REC_KVM_EXIT, .tid = 7, .vcpu = 3, .isa = 2,
				   .reason = 0x7b, .exit_ns = 2000, .guest_ns = 50,
				   .handling_ns = 60 };
	struct rec_task tk = { .type = REC_TASK, .tid = 9, .tgid = 8, .is_new = 1, .time_ns = 1005 };
	unsigned char buf[64];
	struct capture_rec d;
	__u32 bogus = 99;

	(void)state;
	/* a slice: once into the model's slice and the wait before it, with the kernel's charge */
	assert_int_equal(capture_decode(&sl, sizeof(sl), 1000, &d), CAPTURE_REC_SLICE);
	assert_int_equal(d.slice.s.tid, 42);
	assert_int_equal(d.slice.s.start_ns, 100);
	assert_int_equal(d.slice.s.dur_ns, 100);
	assert_int_equal(d.slice.s.end, PWZ_END_SLEPT);
	assert_true(d.slice.waited);
	assert_int_equal(d.slice.w.wake_ns, 90);
	assert_int_equal(d.slice.w.wait_ns, 10);
	assert_true(d.slice.has_run_delay);
	assert_int_equal(d.slice.run_delay_ns, 12);
	sl.flags = 0;
	assert_int_equal(capture_decode(&sl, sizeof(sl), 1000, &d), CAPTURE_REC_SLICE);
	assert_false(d.slice.has_run_delay);
	/* a KVM exit, its time from the capture start */
	assert_int_equal(capture_decode(&ex, sizeof(ex), 1000, &d), CAPTURE_REC_KVM_EXIT);
	assert_int_equal(d.exit.tid, 7);
	assert_int_equal(d.exit.time_ns, 1000);
	assert_int_equal(d.exit.reason, 0x7b);
	assert_int_equal(d.exit.handling_ns, 60);
	/* a birth; an unterminated comm comes out terminated */
	memset(tk.comm, 'x', sizeof(tk.comm));
	assert_int_equal(capture_decode(&tk, sizeof(tk), 1000, &d), CAPTURE_REC_TASK);
	assert_int_equal(d.task.tid, 9);
	assert_int_equal(d.task.tgid, 8);
	assert_true(d.task.is_new);
	assert_int_equal(d.task.time_ns, 5);
	assert_int_equal(strlen(d.task.comm), sizeof(tk.comm) - 1);
	/* truncated records, unknown types and scraps are skipped */
	assert_int_equal(capture_decode(&sl, sizeof(sl) - 1, 1000, &d), CAPTURE_REC_SKIP);
	assert_int_equal(capture_decode(&ex, 8, 1000, &d), CAPTURE_REC_SKIP);
	assert_int_equal(capture_decode(&tk, sizeof(tk) - 1, 1000, &d), CAPTURE_REC_SKIP);
	assert_int_equal(capture_decode(&bogus, sizeof(bogus), 1000, &d), CAPTURE_REC_SKIP);
	assert_int_equal(capture_decode(buf, 2, 1000, &d), CAPTURE_REC_SKIP);
	/* a record with trailing bytes (ring buffer padding) is still read */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &sl, sizeof(sl));
	assert_int_equal(capture_decode(buf, sizeof(buf), 1000, &d), CAPTURE_REC_SLICE);
	assert_int_equal(d.slice.s.tid, 42);
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
	/* an unseen switch-in (model.h R2): flagged, and the wait it carries is not this thread's */
	r.end = REC_END_SLEPT;
	r.wait = REC_WAIT_WAKEUP;
	r.wake_ns = t0 + 100;
	r.flags = REC_SLICE_UNSEEN_START;
	assert_false(capture_conv_slice(&r, t0, &s, &w));
	assert_int_equal(s.flags, PWZ_SLICE_UNSEEN_START | PWZ_SLICE_STATE);
	assert_int_equal(s.dur_ns, 300);
	r.flags = 0;
	assert_true(capture_conv_slice(&r, t0, &s, &w));
	assert_int_equal(s.flags, PWZ_SLICE_STATE);
	assert_int_equal(w.flags, PWZ_WAKEUP_WOKEN);
	/* the reported state, the kernel's charge and the waker, when the record has them */
	r.prev_state = PWZ_STATE_DISK;
	r.flags = REC_SLICE_CHARGED | REC_SLICE_WAKER;
	r.charged_ns = 250;
	r.waker_tid = 77;
	r.waker_cpu = 3;
	assert_true(capture_conv_slice(&r, t0, &s, &w));
	assert_int_equal(s.flags, PWZ_SLICE_STATE | PWZ_SLICE_CHARGED);
	assert_int_equal(pwz_slice_state(&s), PWZ_STATE_DISK);
	assert_int_equal(s.charged_ns, 250);
	assert_int_equal(w.flags, PWZ_WAKEUP_WOKEN | PWZ_WAKEUP_WAKER);
	assert_int_equal(w.waker_tid, 77);
	assert_int_equal(w.waker_cpu, 3);
	/* a wait begun by a preemption has no waker, whatever the record holds */
	r.wait = REC_WAIT_PREEMPT;
	assert_true(capture_conv_slice(&r, t0, &s, &w));
	assert_int_equal(w.flags, PWZ_WAKEUP_PREEMPTED);
	r.wait = REC_WAIT_WAKEUP;
	r.flags = 0;
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
	struct pwz_cpu_agg ca;
	struct pwz_wait_agg wa;

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
	/* one CPU's slot of cpu_aggs as the model's (tid, cpu) and wait aggregates */
	cv[1].runtime_ns = 700;
	cv[1].switches = 9;
	cv[1].voluntary = 4;
	cv[1].involuntary = 5;
	cv[1].unseen = 2;
	cv[1].unseen_ns = 33;
	cv[1].run_delay_ns = 81;
	cv[1].run_delay_wait_ns = 77;
	cv[1].run_delay_unmeasured_ns = 6;
	capture_conv_cpu_agg(42, 1, &cv[1], &ca, &wa);
	assert_int_equal(ca.tid, 42);
	assert_int_equal(ca.cpu, 1);
	assert_int_equal(ca.runtime_ns, 700);
	assert_int_equal(ca.switches, 9);
	assert_int_equal(ca.voluntary, 4);
	assert_int_equal(ca.involuntary, 5);
	assert_int_equal(ca.unseen, 2);
	assert_int_equal(ca.unseen_ns, 33);
	assert_int_equal(wa.tid, 42);
	assert_int_equal(wa.count, 1);
	assert_int_equal(wa.wait_ns, 100);
	assert_int_equal(wa.max_ns, 90);
	assert_int_equal(wa.run_delay_ns, 81);
	assert_int_equal(wa.run_delay_wait_ns, 77);
	assert_int_equal(wa.run_delay_unmeasured_ns, 6);
	/* one CPU's slot of wait_hists: the buckets only (cpu_aggs has count, total, max) */
	{
		struct wait_hist_val hv;

		memset(&hv, 0, sizeof(hv));
		hv.b[0] = 3;
		hv.b[PWZ_WHIST_BUCKETS - 1] = 0xffffffffu;
		wa.hist[5] = 7;	/* overwritten */
		capture_conv_wait_hist(43, &hv, &wa);
		assert_int_equal(wa.tid, 43);
		assert_int_equal(wa.count, 0);
		assert_int_equal(wa.wait_ns, 0);
		assert_int_equal(wa.max_ns, 0);
		assert_int_equal(wa.hist[0], 3);
		assert_int_equal(wa.hist[5], 0);
		assert_int_equal(wa.hist[PWZ_WHIST_BUCKETS - 1], 0xffffffffu);
	}
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_decode_exec),
		cmocka_unit_test(test_conv_slice),
		cmocka_unit_test(test_conv_open_and_exit),
		cmocka_unit_test(test_sums),
		cmocka_unit_test(test_log2_bucket_matches_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
