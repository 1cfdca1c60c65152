// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/capture_compat.c: kvm_exit's tracefs offsets and the fallbacks' names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "capture_cfg.h"
#include "capture_compat.h"

/* The fields of kvm_exit's format on Debian 11's 5.10.0-46 (tracefs, as the guest printed it). */
static const char fmt_510[] =
	"name: kvm_exit\nID: 1344\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int vcpu_id;\toffset:56;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vcpu %u reason %s\", REC->vcpu_id, REC->isa, REC->exit_reason\n";

static void test_offsets_510(void **state)
{
	struct capture_compat cc;

	(void)state;
	memset(&cc, 0xff, sizeof(cc));
	assert_int_equal(capture_compat_kvm_offsets(fmt_510, &cc), 0);
	assert_int_equal(cc.kvm_off_reason, 8);
	assert_int_equal(cc.kvm_off_isa, 24);
	assert_int_equal(cc.kvm_off_vcpu, 56);
}

/* A VMX-only layout of before 5.7 (no isa, no vcpu_id), fields in another order, and names that
 * only end like the ones looked for: absent fields read 0, a suffix is no match. */
static void test_offsets_absent_and_suffixes(void **state)
{
	static const char fmt[] =
		"format:\n"
		"\tfield:unsigned int my_exit_reason;\toffset:12;\tsize:4;\tsigned:0;\n"
		"\tfield:u32 *visa;\toffset:40;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int exit_reason;\toffset:32;\tsize:4;\tsigned:0;\n";
	struct capture_compat cc;

	(void)state;
	memset(&cc, 0xff, sizeof(cc));
	assert_int_equal(capture_compat_kvm_offsets(fmt, &cc), 0);
	assert_int_equal(cc.kvm_off_reason, 32);
	assert_int_equal(cc.kvm_off_isa, 0);
	assert_int_equal(cc.kvm_off_vcpu, 0);
}

static void test_offsets_no_reason(void **state)
{
	struct capture_compat cc;

	(void)state;
	assert_int_equal(capture_compat_kvm_offsets("format:\n\tfield:u32 isa;\toffset:24;\n", &cc),
			 -ENOENT);
	assert_int_equal(capture_compat_kvm_offsets("", &cc), -ENOENT);
	/* cut before its offset */
	assert_int_equal(capture_compat_kvm_offsets("\tfield:unsigned int exit_reason;", &cc),
			 -ENOENT);
}

static void test_describe(void **state)
{
	struct capture_compat cc = { .task_storage = true, .prev_state = true, .kvm_btf = true,
				     .run_delay = true, .mem_alloc = true, .sched_clock = true };
	char buf[512];

	(void)state;
	assert_string_equal(capture_compat__describe(&cc, true, false, true, buf, sizeof(buf)), "none");
	assert_false(capture_compat__raw_tp(&cc));
	/* 5.10: everything missing; tp_btf still (raw_tp only when asked) */
	cc = (struct capture_compat){ 0 };
	assert_false(capture_compat__raw_tp(&cc));
	assert_string_equal(capture_compat__describe(&cc, true, false, true, buf, sizeof(buf)),
			    "wait starts in a tid hash (no task storage, Linux < 5.11), prev_state read from the task (Linux < 5.18), kvm_exit fields at tracefs offsets (no kvm BTF, Linux < 5.11), waits without the kernel's charge (no sched_info: CONFIG_SCHED_INFO off), events on bpf_ktime_get_ns() (no run queue behind se.cfs_rq: CONFIG_FAIR_GROUP_SCHED off), histograms preallocated (no bpf_mem_alloc, Linux < 6.1)");
	/* without kvm, its fallback is not named */
	cc.run_delay = true;
	cc.mem_alloc = true;
	cc.sched_clock = true;
	assert_string_equal(capture_compat__describe(&cc, true, false, false, buf, sizeof(buf)),
			    "wait starts in a tid hash (no task storage, Linux < 5.11), prev_state read from the task (Linux < 5.18)");
	/* --kvm: no scheduler program, so neither of its fallbacks is named */
	assert_string_equal(capture_compat__describe(&cc, false, true, true, buf, sizeof(buf)),
			    "kvm_exit fields at tracefs offsets (no kvm BTF, Linux < 5.11)");
	/* forced on a kernel that has everything */
	cc = (struct capture_compat){ .task_storage = true, .prev_state = true, .run_delay = true,
				      .mem_alloc = true, .forced = CAPTURE_COMPAT_RAW_TP };
	/* raw_tp reads CLOCK_MONOTONIC whatever the kernel has: not named */
	assert_true(capture_compat__raw_tp(&cc));
	assert_string_equal(capture_compat__describe(&cc, true, true, false, buf, sizeof(buf)),
			    "raw_tp and a tid hash (asked)");
	cc.run_delay = false;
	cc.forced |= CAPTURE_COMPAT_NO_RUN_DELAY;
	assert_string_equal(capture_compat__describe(&cc, true, true, false, buf, sizeof(buf)),
			    "raw_tp and a tid hash (asked), waits without the kernel's charge (asked)");
	cc.run_delay = true;
	cc.mem_alloc = false;
	cc.forced = CAPTURE_COMPAT_PREALLOC;
	cc.sched_clock = true;
	assert_string_equal(capture_compat__describe(&cc, true, false, false, buf, sizeof(buf)),
			    "histograms preallocated (asked)");
	cc.sched_clock = false;
	cc.mem_alloc = true;
	cc.forced = CAPTURE_COMPAT_NO_SCHED_CLOCK;
	assert_string_equal(capture_compat__describe(&cc, true, false, false, buf, sizeof(buf)),
			    "events on bpf_ktime_get_ns() (asked)");
	/* a short buffer is cut, never overrun */
	assert_int_equal(strlen(capture_compat__describe(&cc, true, true, false, buf, 8)), 7);
}

/* The scheduler's clock only with tp_btf, the wakeup programs (waits), no filter, and a
 * kernel that has it (bpf/sched_clock.bpf.h). */
static void test_sched_clock_choice(void **state)
{
	struct capture_compat cc = { .sched_clock = true };
	struct capture_cfg cfg = { .sched = true, .wait = true };

	(void)state;
	assert_true(capture_compat__sched_clock(&cc, &cfg, false));
	assert_false(capture_compat__sched_clock(&cc, &cfg, true));
	cfg.filter = true;
	assert_false(capture_compat__sched_clock(&cc, &cfg, false));
	cfg.filter = false;
	cfg.wait = false;
	assert_false(capture_compat__sched_clock(&cc, &cfg, false));
	cfg.wait = true;
	cfg.sched = false;
	assert_false(capture_compat__sched_clock(&cc, &cfg, false));
	cfg.sched = true;
	cc.sched_clock = false;
	assert_false(capture_compat__sched_clock(&cc, &cfg, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_510),
		cmocka_unit_test(test_offsets_absent_and_suffixes),
		cmocka_unit_test(test_offsets_no_reason),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_sched_clock_choice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
