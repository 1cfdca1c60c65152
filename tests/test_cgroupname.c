// SPDX-License-Identifier: GPL-2.0
/* VM names from cgroup v2 paths (libvirt, systemd units, sessions), /proc/PID/cgroup's text and
 * a path cut to its first components. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "cgroupname.h"

/* cgroup_vm_name() of path, or "(none)" when it names no VM. */
static const char *vm_of(const char *path)
{
	static char out[64];

	if (!cgroup_vm_name(path, out, sizeof(out)))
		return "(none)";
	return out;
}

static void test_libvirt(void **state)
{
	(void)state;
	assert_string_equal(vm_of("/machine.slice/machine-qemu\\x2d3\\x2dmy\\x2dvm.scope/libvirt/emulator"),
			    "my-vm");
	assert_string_equal(vm_of("/machine.slice/machine-qemu\\x2d3\\x2dmy\\x2dvm.scope/libvirt/vcpu0"),
			    "my-vm");
	assert_string_equal(vm_of("/machine.slice/machine-qemu\\x2d3\\x2dmy\\x2dvm.scope"), "my-vm");
	assert_string_equal(vm_of("/machine.slice/machine-qemu\\x2d12\\x2dweb01.scope/libvirt"),
			    "web01");
	/* a partition of its own: a slice below machine.slice */
	assert_string_equal(vm_of("/machine.slice/machine-gold.slice/machine-qemu\\x2d1\\x2ddb.scope"),
			    "db");
	/* other drivers keep the machine's name: only QEMU's domain id is dropped */
	assert_string_equal(vm_of("/machine.slice/machine-lxc\\x2d4242\\x2dct1.scope"),
			    "lxc-4242-ct1");
	/* "qemu-" without a domain id, or with nothing after it: the machine's name whole */
	assert_string_equal(vm_of("/machine.slice/machine-qemu\\x2dold.scope"), "qemu-old");
	assert_string_equal(vm_of("/machine.slice/machine-qemu\\x2d3\\x2d.scope"), "qemu-3-");
	/* a scope under machine.slice not registered by machined */
	assert_string_equal(vm_of("/machine.slice/foo.scope"), "foo");
}

static void test_units(void **state)
{
	(void)state;
	assert_string_equal(vm_of("/system.slice/firecracker@vm7.service"), "firecracker@vm7");
	assert_string_equal(vm_of("/system.slice/system-firecracker.slice/firecracker@vm7.service"),
			    "firecracker@vm7");
	assert_string_equal(vm_of("/machine.slice/cloud\\x2dhv.service/vmm"), "cloud-hv");
	assert_false(cgroup_vm_name(NULL, NULL, 0));
}

static void test_not_vms(void **state)
{
	/* sessions and users' units, scopes outside machine.slice, no unit, empty names */
	static const char *const paths[] = {
		"/user.slice/user-0.slice/session-3.scope",
		"/user.slice/user-1000.slice/user@1000.service/app.slice/x.service",
		"/system.slice/docker-0123abcd.scope",
		"/init.scope",
		"/",
		"",
		"/machine.slice",
		"/machine.slice/",
		"/machine.slice/machine-gold.slice",
		"/system.slice/.service",
		"/machine.slice/machine-.scope",
		"/machine.slice/machine-x.mount",
		"machine.slice/machine-x.scope",	/* not absolute */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (strcmp(vm_of(paths[i]), "(none)"))
			fail_msg("\"%s\" names VM \"%s\"", paths[i], vm_of(paths[i]));
}

static void test_escapes_and_truncation(void **state)
{
	char small[6] = "keep";

	(void)state;
	assert_string_equal(vm_of("/machine.slice/machine-qemu\\x2d7\\x2dmy\\x5fvm\\x2d2.scope"),
			    "my_vm-2");
	/* upper-case hex digits; a control character's escape and a broken one stay as written */
	assert_string_equal(vm_of("/system.slice/a\\x2Db\\x0ac\\x2.service"), "a-b\\x0ac\\x2");
	assert_string_equal(vm_of("/system.slice/a\\x7fb.service"), "a\\x7fb");
	assert_string_equal(vm_of("/system.slice/caf\\xc3\\xa9.service"), "caf\xc3\xa9");
	/* truncated to the room given, NUL-terminated; untouched when there is no name */
	assert_true(cgroup_vm_name("/machine.slice/machine-qemu\\x2d3\\x2dlonger\\x2dname.scope",
				   small, sizeof(small)));
	assert_string_equal(small, "longe");
	assert_false(cgroup_vm_name("/user.slice", small, sizeof(small)));
	assert_string_equal(small, "longe");
	assert_false(cgroup_vm_name("/system.slice/x.service", small, 0));
}

/* cgroup_v2_path() of text, or "(none)". */
static const char *path_of(const char *text, size_t len)
{
	static char out[128];

	if (!cgroup_v2_path(text, len, out, sizeof(out)))
		return "(none)";
	return out;
}

#define PATH_OF(s) path_of(s, sizeof(s) - 1)

static void test_proc_cgroup(void **state)
{
	static const char hybrid[] =
		"12:pids:/machine.slice/machine-qemu\\x2d1\\x2dvm.scope\n"
		"11:cpu,cpuacct:/machine.slice/machine-qemu\\x2d1\\x2dvm.scope/emulator\n"
		"1:name=systemd:/machine.slice/machine-qemu\\x2d1\\x2dvm.scope\n"
		"0::/machine.slice/machine-qemu\\x2d1\\x2dvm.scope/libvirt/emulator\n";
	static const char v1_only[] = "3:memory:/user.slice\n1:name=systemd:/user.slice\n";
	static const struct {
		const char *text;
		size_t len;
	} garbage[] = {
#define TEXT(s) { s, sizeof(s) - 1 }
		TEXT(""), TEXT("0::\n"), TEXT("0::user.slice\n"), TEXT("0::/a\0b\n"),
		TEXT("10::/system.slice/x.service\n"), TEXT("\n\n0:"),
#undef TEXT
	};
	char small[8];

	(void)state;
	assert_string_equal(PATH_OF("0::/system.slice/firecracker@vm7.service\n"),
			    "/system.slice/firecracker@vm7.service");
	assert_string_equal(PATH_OF("0::/\n"), "/");
	assert_string_equal(PATH_OF("0::/init.scope"), "/init.scope");	/* no final newline */
	assert_string_equal(PATH_OF(hybrid),
			    "/machine.slice/machine-qemu\\x2d1\\x2dvm.scope/libvirt/emulator");
	assert_string_equal(PATH_OF("0::/machine.slice/gone.scope (deleted)\n"),
			    "/machine.slice/gone.scope");
	assert_string_equal(PATH_OF(v1_only), "(none)");
	/* garbage: no line, an empty or relative path, a NUL byte, a line that only looks alike */
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++)
		if (strcmp(path_of(garbage[i].text, garbage[i].len), "(none)"))
			fail_msg("garbage %zu gives a path", i);
	assert_true(cgroup_v2_path("0::/machine.slice\n", 18, small, sizeof(small)));
	assert_string_equal(small, "/machin");	/* truncated */
}

/* The start of a path that holds its first components, as --serve-cgroup-depth cuts it. */
static void test_path_prefix(void **state)
{
	static const struct {
		const char *path;
		unsigned int depth;
		const char *want;
	} cases[] = {
		{ "/system.slice/foo.service/x", 2, "/system.slice/foo.service" },
		{ "/system.slice/foo.service/x", 1, "/system.slice" },
		{ "/system.slice/foo.service/x", 3, "/system.slice/foo.service/x" },
		{ "/system.slice/foo.service/x", 16, "/system.slice/foo.service/x" },
		{ "/system.slice/foo.service/x", 0, "/" },
		{ "/init.scope", 2, "/init.scope" },
		{ "/", 2, "/" },
		{ "/", 0, "/" },
		{ "/a/", 1, "/a" },
		{ "/a/b/c/d", 3, "/a/b/c" },
		{ "", 2, "" },
		{ "x/y", 1, "x/y" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = cgroup_path_prefix(cases[i].path, cases[i].depth);

		if (n != strlen(cases[i].want) || strncmp(cases[i].path, cases[i].want, n))
			fail_msg("%s at depth %u: %.*s, not %s", cases[i].path, cases[i].depth,
				 (int)n, cases[i].path, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libvirt),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_not_vms),
		cmocka_unit_test(test_escapes_and_truncation),
		cmocka_unit_test(test_proc_cgroup),
		cmocka_unit_test(test_path_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
