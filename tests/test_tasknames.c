// SPDX-License-Identifier: GPL-2.0
/* Task names: perfwhiz CSV maps (good and bad), QEMU vCPU names, merging, patterns. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "tasknames.h"
#include "truth.h"

static void test_sample_map(void **state)
{
	char err[256];
	struct task_map *m = task_map__load(PWZ_TESTDATA "/perfwhiz/tmap.csv", err, sizeof(err));

	(void)state;
	assert_non_null(m);
	assert_int_equal(task_map__count(m), 3);
	assert_string_equal(task_map__name(m, 20418), "Router.02.vcpu0");
	assert_string_equal(task_map__name(m, 20419), "Router.02.emulator");
	assert_string_equal(task_map__name(m, 20420), "Firewall.05.vcpu0");
	assert_null(task_map__name(m, 1));
	task_map__free(m);
}

static struct task_map *parse(const char *text, char *err)
{
	return task_map__parse(text, strlen(text), "map.csv", err, 256);
}

static void test_map_rules(void **state)
{
	char err[256];
	struct task_map *m;

	(void)state;
	/* the last line for a tid wins; blank and comment lines are skipped; spaces trimmed */
	m = parse("# comment\n\n7,i,vcpu1,u,FULL,3,Old\n7, i , vcpu1 ,u,FULL, 12 ,New \r\n"
		  "8,i,emulator,u,FULL,0,X", err);
	assert_non_null(m);
	assert_string_equal(task_map__name(m, 7), "New.12.vcpu1");
	assert_string_equal(task_map__name(m, 8), "X.00.emulator");
	task_map__free(m);
}

static void test_map_errors(void **state)
{
	static const struct {
		const char *text;
		const char *want;
	} bad[] = {
		{ "1,a,vcpu0,u,FULL,2\n", "map.csv:1: name: missing" },
		{ "ok,a,vcpu0,u,FULL,2,N\n", "map.csv:1: tid: 'ok' is not a thread id" },
		{ "1,a,vcpu0,u,FULL,2,N\n-5,a,vcpu0,u,FULL,2,N\n", "map.csv:2: tid" },
		{ "1,a,vcpu0,u,FULL,two,N\n", "map.csv:1: group-id: 'two' is not a number" },
		{ "1,a,,u,FULL,2,N\n", "map.csv:1: type: empty" },
		{ "1,a,vcpu0,u,FULL,2,\n", "map.csv:1: name: empty" },
		{ "1,a,vcpu0,u,FULL,2,N,extra\n", "map.csv:1: too many fields" },
		{ "99999999999,a,vcpu0,u,FULL,2,N\n", "map.csv:1: tid" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_null(parse(bad[i].text, err));
		assert_int_equal(errno, EINVAL);
		if (!strstr(err, bad[i].want))
			fail_msg("case %zu: '%s' does not contain '%s'", i, err, bad[i].want);
	}
	assert_null(task_map__load("/nonexistent/map.csv", err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent/map.csv"));
}

static void test_qemu_names(void **state)
{
	static const char a[] = "qemu-system-x86_64\0-name\0guest=router,debug-threads=on\0-m\0001024";
	static const char b[] = "qemu\0-enable-kvm\0-name\0fw\0";
	static const char c[] = "qemu\0-name=web,process=qemu:web\0";
	static const char d[] = "qemu\0-m\0512\0";
	static const char e[] = "qemu\0-name";
	char vm[64], out[128];

	(void)state;
	assert_true(qemu_vm_name(a, sizeof(a), vm, sizeof(vm)));
	assert_string_equal(vm, "router");
	assert_true(qemu_vm_name(b, sizeof(b), vm, sizeof(vm)));
	assert_string_equal(vm, "fw");
	assert_true(qemu_vm_name(c, sizeof(c), vm, sizeof(vm)));
	assert_string_equal(vm, "web");
	assert_false(qemu_vm_name(d, sizeof(d), vm, sizeof(vm)));
	assert_false(qemu_vm_name(e, sizeof(e) - 1, vm, sizeof(vm)));
	task_display_name("CPU 3/KVM", "router", true, false, out, sizeof(out));
	assert_string_equal(out, "router.vcpu3");
	task_display_name("CPU 12/KVM", "router", false, false, out, sizeof(out));
	assert_string_equal(out, "router.vcpu12");
	task_display_name("qemu-system-x86", "router", true, true, out, sizeof(out));
	assert_string_equal(out, "router.emulator");
	/* only the main thread is the emulator: the others keep their comm under the VM */
	task_display_name("CPU 3/KVMX", "router", true, false, out, sizeof(out));
	assert_string_equal(out, "router.CPU 3/KVMX");
	task_display_name("call_rcu", "router", true, false, out, sizeof(out));
	assert_string_equal(out, "router.call_rcu");
	task_display_name("kvm-nx-lpage-re", "router", true, false, out, sizeof(out));
	assert_string_equal(out, "router.kvm-nx-lpage-re");
	task_display_name("CPU 3/KVM", "", true, false, out, sizeof(out));
	assert_string_equal(out, "CPU 3/KVM");
	{
		uint32_t pid = 0;

		assert_true(task_vhost_owner("vhost-4321", &pid));
		assert_int_equal(pid, 4321);
		assert_false(task_vhost_owner("vhost-", &pid));
		assert_false(task_vhost_owner("vhost-12x", &pid));
		assert_false(task_vhost_owner("vhost-0", &pid));
		assert_false(task_vhost_owner("vhost_scsi", &pid));
		assert_false(task_vhost_owner("kvm-pit/4321", &pid));
		assert_int_equal(pid, 4321);
	}
	{
		unsigned int vcpu = 99;

		assert_true(task_vcpu_of("CPU 7/KVM", &vcpu));
		assert_int_equal(vcpu, 7);
		assert_true(task_vcpu_of("CPU 0/KVM", NULL));
		assert_false(task_vcpu_of("CPU 3/KVMX", NULL));
		assert_false(task_vcpu_of("CPU x/KVM", NULL));
		assert_false(task_vcpu_of("kvm-guest", NULL));
	}
	{
		char vname[32] = "untouched";
		unsigned int vcpu = 99;

		/* the inverse of task_display_name() for a vCPU */
		task_display_name("CPU 3/KVM", "web.prod", true, false, out, sizeof(out));
		assert_true(task_display_vcpu(out, vname, sizeof(vname), &vcpu));
		assert_string_equal(vname, "web.prod");
		assert_int_equal(vcpu, 3);
		assert_true(task_display_vcpu("CPU 12/KVM", vname, sizeof(vname), &vcpu));
		assert_string_equal(vname, "");
		assert_int_equal(vcpu, 12);
		strcpy(vname, "untouched");
		vcpu = 99;
		assert_false(task_display_vcpu("web.emulator", vname, sizeof(vname), &vcpu));
		assert_false(task_display_vcpu(".vcpu1", vname, sizeof(vname), &vcpu));
		assert_false(task_display_vcpu("web.vcpu", vname, sizeof(vname), &vcpu));
		assert_false(task_display_vcpu("web.vcpu1x", vname, sizeof(vname), &vcpu));
		assert_false(task_display_vcpu("web.vcpu-1", vname, sizeof(vname), &vcpu));
		assert_string_equal(vname, "untouched");
		assert_int_equal(vcpu, 99);
	}
	/* a program that is not QEMU but has "-name" in its arguments keeps its names */
	task_display_name("pwz-bpf", "nested", false, true, out, sizeof(out));
	assert_string_equal(out, "pwz-bpf");
	assert_true(cmdline_is_qemu(a, sizeof(a)));
	assert_true(cmdline_is_qemu("/usr/bin/qemu-kvm", 18));
	assert_false(cmdline_is_qemu(c + 5, sizeof(c) - 5));
	assert_false(cmdline_is_qemu("/opt/qemu/bin/kvm-guest", 24));
}

/* One pattern against one name (tasknames.h) */
static bool m(const char *pattern, const char *name, uint32_t tid)
{
	char err[128];
	struct task_patterns *p = task_patterns__new(&pattern, 1, err, sizeof(err));
	bool hit;

	assert_non_null(p);
	hit = task_patterns_match(p, name, tid);
	task_patterns__free(p);
	return hit;
}

static void test_merge_and_match(void **state)
{
	char out[64];

	(void)state;
	task_merge_sys_name("swapper/3", out, sizeof(out));
	assert_string_equal(out, "swapper");
	task_merge_sys_name("kworker/1:2H", out, sizeof(out));
	assert_string_equal(out, "kworker");
	task_merge_sys_name("kworker/u8:3", out, sizeof(out));
	assert_string_equal(out, "kworker");
	task_merge_sys_name("swapper", out, sizeof(out));
	assert_string_equal(out, "swapper");
	task_merge_sys_name("my/thing", out, sizeof(out));
	assert_string_equal(out, "my/thing");
	assert_true(m("*vcpu0", "Router.02.vcpu0", 5));
	assert_false(m("*vcpu0", "Router.02.vcpu01", 5));
	assert_false(m("vcpu0", "Router.02.vcpu0", 5));
	assert_true(m("20418", "anything", 20418));
	assert_false(m("20418", "20418", 1));
	assert_true(m("CPU ?/KVM", "CPU 1/KVM", 1));
	/* a plain word: the start of the name, as perfwhiz's re.match read it */
	assert_true(m("vm", "vm.vcpu0", 5));
	assert_true(m("cc1", "cc1", 5));
	assert_true(m("cc1", "cc1plus", 5));
	assert_false(m("cc1", "xcc1", 5));
	assert_true(m("hogA", "hogA:1234", 5));
	assert_true(m("CPU 1/KVM", "CPU 1/KVM", 5));
	assert_false(m("vm", "VM.vcpu0", 5));
	/* a glob stays on the whole name */
	assert_false(m("vm*0", "vm.vcpu01", 5));
	assert_true(m("vcpu[01]", "vcpu1", 5));
	assert_false(m("vcpu[01]", "vcpu10", 5));
	/* perfwhiz's regexes: anchored at the start only (re.match) */
	assert_true(m(".*vcpu0", "Router.02.vcpu0", 5));
	assert_true(m(".*vcpu0", "Router.02.vcpu01", 5));
	assert_false(m("vcpu0.*", "Router.02.vcpu0", 5));
	assert_true(m("^Router\\.0[0-9]", "Router.02.vcpu0", 5));
	assert_true(m("vm(a|b)", "vmb.vcpu0", 5));
	assert_true(m("kdamond.0", "kdamond.0", 5));
	assert_true(m("(sd-pam)", "(sd-pam)", 5));	/* the glob reading */
	assert_false(m("(sd-pam)", "x(sd-pam)", 5));
	assert_false(m("a(", "a(b", 5));		/* no regex: the glob alone */
	assert_true(m("a(", "a(", 5));
	/* a set: the union */
	{
		const char *p[] = { "*vcpu0", "sh", "42" };
		char err[128];
		struct task_patterns *set = task_patterns__new(p, 3, err, sizeof(err));

		assert_non_null(set);
		assert_int_equal(task_patterns__count(set), 3);
		assert_string_equal(task_patterns__text(set, 1), "sh");
		assert_null(task_patterns__text(set, 3));
		assert_true(task_patterns_match(set, "Router.02.vcpu0", 5));
		assert_true(task_patterns_match(set, "sh", 6));
		assert_true(task_patterns_match(set, "shell", 6));
		assert_false(task_patterns_match(set, "sshd", 6));
		assert_true(task_patterns_match(set, "x", 42));
		assert_false(task_patterns_match(set, "bash", 7));
		task_patterns__free(set);
		p[1] = "";
		assert_null(task_patterns__new(p, 3, err, sizeof(err)));
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(err, "-t"));
		p[1] = "a\nb";
		assert_null(task_patterns__new(p, 3, err, sizeof(err)));
		assert_int_equal(errno, EINVAL);
	}
	assert_true(task_is_tid("20418"));
	assert_false(task_is_tid(""));
	assert_false(task_is_tid("12a"));
	assert_false(task_is_tid("-1"));
	assert_false(task_is_tid("99999999999"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_map),
		cmocka_unit_test(test_map_rules),
		cmocka_unit_test(test_map_errors),
		cmocka_unit_test(test_qemu_names),
		cmocka_unit_test(test_merge_and_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
