// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/capture_tasks.c on a fake /proc: vCPU naming, renames, new threads, --map. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "capture_tasks.h"
#include "tasknames.h"

static char root[64];

static void put(const char *rel, const char *data, size_t len)
{
	char path[256], dir[256], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

#define PUTS(rel, s) put(rel, s, strlen(s))

/* A thread as /proc shows it: <tid>/comm, <tid>/status, and <tgid>/task/<tid>/. */
static void thread(unsigned tid, unsigned tgid, const char *comm)
{
	char rel[64], buf[128];

	snprintf(rel, sizeof(rel), "%u/comm", tid);
	snprintf(buf, sizeof(buf), "%s\n", comm);
	PUTS(rel, buf);
	snprintf(rel, sizeof(rel), "%u/status", tid);
	snprintf(buf, sizeof(buf), "Name:\t%s\nUmask:\t0022\nState:\tS\nTgid:\t%u\nPid:\t%u\n", comm, tgid, tid);
	PUTS(rel, buf);
	snprintf(rel, sizeof(rel), "%u/task/%u/comm", tgid, tid);
	snprintf(buf, sizeof(buf), "%s\n", comm);
	PUTS(rel, buf);
}

static int setup(void **state)
{
	static const char qemu_cmd[] = "qemu-system-x86_64\0-machine\0q35\0-name\0guest=vm1,debug-threads=on\0-m\0512";

	(void)state;
	snprintf(root, sizeof(root), "/tmp/pwz-test-proc-XXXXXX");
	assert_non_null(mkdtemp(root));
	thread(100, 100, "qemu-system-x86");
	thread(101, 100, "CPU 0/KVM");
	thread(102, 100, "CPU 1/KVM");
	thread(103, 100, "worker");
	put("100/cmdline", qemu_cmd, sizeof(qemu_cmd));
	thread(200, 200, "bash");
	put("200/cmdline", "bash\0-i", 8);
	PUTS("self", "not a pid");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static void test_scan_and_qemu_names(void **state)
{
	struct task_table *tt = task_table__new(root, NULL);
	struct pwz_task t;

	(void)state;
	assert_non_null(tt);
	assert_int_equal(task_table__scan(tt), 5);
	assert_int_equal(task_table__touch(tt, 101, 1234, &t), 1);
	assert_int_equal(t.tid, 101);
	assert_int_equal(t.tgid, 100);
	assert_string_equal(t.comm, "CPU 0/KVM");
	assert_string_equal(t.proc_name, "qemu-system-x86");
	assert_string_equal(t.name, "vm1.vcpu0");
	assert_int_equal(t.time_ns, 0);	/* present at the start */
	assert_int_equal(task_table__touch(tt, 101, 5000, &t), 0);	/* written once */
	assert_int_equal(task_table__touch(tt, 102, 10, &t), 1);
	assert_string_equal(t.name, "vm1.vcpu1");
	assert_int_equal(task_table__touch(tt, 103, 10, &t), 1);
	assert_string_equal(t.name, "vm1.worker");
	assert_int_equal(task_table__touch(tt, 100, 10, &t), 1);
	assert_string_equal(t.name, "vm1.emulator");	/* the main thread only */
	assert_int_equal(task_table__touch(tt, 200, 10, &t), 1);
	assert_string_equal(t.name, "bash");
	assert_string_equal(t.proc_name, "bash");
	assert_int_equal(task_table__touch(tt, 0, 10, &t), 1);
	assert_string_equal(t.name, "swapper");
	assert_string_equal(task_table__name(tt, 101), "vm1.vcpu0");
	assert_int_equal(task_table__tgid(tt, 103), 100);
	task_table__free(tt);
}

static void test_events(void **state)
{
	struct task_table *tt = task_table__new(root, NULL);
	struct pwz_task t;

	(void)state;
	assert_int_equal(task_table__scan(tt), 5);
	assert_int_equal(task_table__touch(tt, 200, 100, &t), 1);
	/* a rename of a written thread: a new record at the rename time */
	assert_int_equal(task_table__event(tt, 200, 200, "zsh", false, 5000, &t), 1);
	assert_int_equal(t.time_ns, 5000);
	assert_int_equal(t.flags, 0);	/* a rename starts no instance (model.h R8) */
	assert_string_equal(t.comm, "zsh");
	assert_string_equal(t.name, "zsh");
	/* renaming to the same comm writes nothing */
	assert_int_equal(task_table__event(tt, 200, 200, "zsh", false, 6000, &t), 0);
	/* a thread born during the capture, not in /proc: named from the event */
	assert_int_equal(task_table__event(tt, 300, 200, "child", true, 7000, &t), 0);
	assert_int_equal(task_table__touch(tt, 300, 8000, &t), 1);
	assert_int_equal(t.time_ns, 7000);
	assert_int_equal(t.flags, PWZ_TASK_BORN);	/* its first record starts its instance */
	assert_string_equal(t.comm, "child");
	assert_int_equal(t.tgid, 200);
	assert_string_equal(t.proc_name, "zsh");
	/* exec renames the new thread before its first record: one record with the new comm */
	assert_int_equal(task_table__event(tt, 301, 301, "sh", true, 9000, &t), 0);
	assert_int_equal(task_table__event(tt, 301, 0, "pwz-workload", false, 9500, &t), 0);
	assert_int_equal(task_table__touch(tt, 301, 9600, &t), 1);
	assert_string_equal(t.comm, "pwz-workload");
	assert_int_equal(t.flags, PWZ_TASK_BORN);
	assert_int_equal(t.time_ns, 9000);		/* born then, whatever its name */
	/* a later rename of it: a plain record */
	assert_int_equal(task_table__event(tt, 301, 0, "sleep", false, 9700, &t), 1);
	assert_int_equal(t.flags, 0);
	assert_int_equal(t.time_ns, 9700);
	assert_int_equal(t.tgid, 301);
	/* a thread gone before it could be read */
	assert_int_equal(task_table__touch(tt, 999, 10, &t), 1);
	assert_string_equal(t.comm, "tid-999");
	assert_int_equal(t.tgid, 0);
	assert_int_equal(task_table__count(tt), 8);	/* 5 scanned + 300, 301, 999 */
	/* a new thread takes the tid of one born during the capture whose record is not written
	 * yet (its records still on their way): that one's record now, as it was named */
	assert_int_equal(task_table__event(tt, 400, 200, "kid", true, 10000, &t), 0);
	assert_int_equal(task_table__event(tt, 400, 400, "reborn", true, 11000, &t), 1);
	assert_int_equal(t.flags, PWZ_TASK_BORN);
	assert_int_equal(t.time_ns, 10000);
	assert_string_equal(t.comm, "kid");
	assert_int_equal(t.tgid, 200);
	/* the new one at its first record */
	assert_int_equal(task_table__touch(tt, 400, 11500, &t), 1);
	assert_int_equal(t.flags, PWZ_TASK_BORN);
	assert_int_equal(t.time_ns, 11000);
	assert_string_equal(t.comm, "reborn");
	assert_int_equal(t.tgid, 400);
	/* one written already: nothing at the next birth */
	assert_int_equal(task_table__event(tt, 400, 400, "third", true, 12000, &t), 0);
	task_table__free(tt);
}

/*
 * A VM process read before its exec (the shell that starts it) or in the middle of it (its
 * comm already new, its command line not yet there), and its vCPU thread's first record taken
 * before the exec's rename event (which comes through another ring buffer): the threads are
 * named from the command line the process has when they are written.
 */
static void test_vm_named_after_exec(void **state)
{
	static const char sh_cmd[] = "sh\0-c\0kvm-guest -name guest=vm2 io 5";
	static const char guest_cmd[] = "kvm-guest\0-name\0guest=vm2\0io\0005";
	static const char qemu_cmd[] = "qemu-system-x86_64\0-name\0vm3";
	struct task_table *tt = task_table__new(root, NULL);
	struct pwz_task t;

	(void)state;
	assert_int_equal(task_table__scan(tt), 5);
	thread(400, 400, "sh");
	put("400/cmdline", sh_cmd, sizeof(sh_cmd));
	assert_int_equal(task_table__touch(tt, 400, 10, &t), 1);
	assert_string_equal(t.name, "sh");
	/* the exec, its rename event not read yet, and the vCPU thread it starts */
	thread(400, 400, "kvm-guest");
	put("400/cmdline", guest_cmd, sizeof(guest_cmd));
	thread(401, 400, "CPU 0/KVM");
	assert_int_equal(task_table__touch(tt, 401, 20, &t), 1);
	assert_string_equal(t.name, "vm2.vcpu0");
	/* read in the middle of its exec: no command line yet */
	thread(500, 500, "qemu-system-x86");
	put("500/cmdline", "", 0);
	assert_int_equal(task_table__touch(tt, 500, 30, &t), 1);
	assert_string_equal(t.name, "qemu-system-x86");
	put("500/cmdline", qemu_cmd, sizeof(qemu_cmd));
	thread(501, 500, "worker");
	assert_int_equal(task_table__touch(tt, 501, 40, &t), 1);
	assert_string_equal(t.name, "vm3.worker");
	task_table__free(tt);
}

static int vhost_threads_gone(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/104' '%s/105' '%s/100/task/104'", root, root, root);
	return system(cmd) ? -1 : 0;
}

/* A vhost worker is its VM's: a thread of the VM's process (Linux 6.4 on) or a kernel thread
 * of its own (before). The threads are made here and removed after: the others' scans count. */
static void test_vhost_workers(void **state)
{
	struct task_table *tt = task_table__new(root, NULL);
	struct pwz_task t;

	(void)state;
	assert_non_null(tt);
	thread(104, 100, "vhost-100");
	thread(105, 105, "vhost-100");
	assert_int_equal(task_table__touch(tt, 104, 10, &t), 1);
	assert_string_equal(t.name, "vm1.vhost-100");
	assert_int_equal(task_table__touch(tt, 105, 10, &t), 1);
	assert_string_equal(t.name, "vm1.vhost-100");
	assert_int_equal(t.tgid, 105);	/* its own process still */
	task_table__free(tt);
}

/*
 * The command line the kernel gives at exec names the VM of a process gone from /proc before
 * its threads are written; a cut one without -name leaves it to /proc; a leader written before
 * its exec gets a new record; -t sees a thread's display name before its first record.
 */
static void test_exec_command_line(void **state)
{
	static const char vm4[] = "kvm-guest\0-name\0guest=vm4,debug-threads=on";
	static const char cut[] = "qemu-system-x86_64\0-m\0512";
	static const char vm5[] = "qemu-system-x86_64\0-m\0512\0-name\0vm5";
	static const char vm6[] = "/usr/bin/qemu-system-x86_64\0-name\0vm6";
	struct task_table *tt = task_table__new(root, NULL);
	struct pwz_task t;
	char name[64];

	(void)state;
	/* 600 never seen in /proc: born, exec'ed, its vCPU thread born and renamed, all gone */
	assert_int_equal(task_table__event(tt, 600, 600, "sh", true, 10, &t), 0);
	assert_int_equal(task_table__event(tt, 600, 600, "kvm-guest", false, 20, &t), 0);
	assert_int_equal(task_table__exec(tt, 600, vm4, sizeof(vm4), false, 20, &t), 0);
	assert_int_equal(task_table__event(tt, 601, 600, "kvm-guest", true, 30, &t), 0);
	assert_int_equal(task_table__event(tt, 601, 600, "CPU 1/KVM", false, 31, &t), 0);
	assert_true(task_table__display_name(tt, 601, name, sizeof(name)));
	assert_string_equal(name, "vm4.vcpu1");
	assert_int_equal(task_table__touch(tt, 601, 40, &t), 1);
	assert_string_equal(t.name, "vm4.vcpu1");
	assert_int_equal(task_table__touch(tt, 600, 40, &t), 1);
	assert_string_equal(t.name, "kvm-guest");	/* not QEMU: its own threads keep their comm */
	assert_false(task_table__display_name(tt, 4242, name, sizeof(name)));
	/* cut before any -name: /proc's whole command line names it */
	thread(700, 700, "qemu-system-x86");
	thread(701, 700, "CPU 0/KVM");
	put("700/cmdline", vm5, sizeof(vm5));
	assert_int_equal(task_table__exec(tt, 700, cut, sizeof(cut), true, 50, &t), 0);
	assert_int_equal(task_table__touch(tt, 701, 60, &t), 1);
	assert_string_equal(t.name, "vm5.vcpu0");
	/* a leader written before its exec into QEMU: a new record under its new display name */
	assert_int_equal(task_table__event(tt, 800, 800, "sh", true, 70, &t), 0);
	assert_int_equal(task_table__touch(tt, 800, 71, &t), 1);
	assert_string_equal(t.name, "sh");
	assert_int_equal(task_table__event(tt, 800, 800, "qemu-system-x86", false, 80, &t), 1);
	assert_string_equal(t.name, "qemu-system-x86");	/* gone from /proc: no VM known yet */
	assert_int_equal(task_table__exec(tt, 800, vm6, sizeof(vm6), false, 80, &t), 1);
	assert_string_equal(t.name, "vm6.emulator");
	assert_int_equal(t.time_ns, 80);
	assert_int_equal(task_table__exec(tt, 800, vm6, sizeof(vm6), false, 90, &t), 0);	/* same name */
	task_table__free(tt);
}

/* Removes the n processes pids from the fake /proc: 0, or -1 when one cannot be. */
static int remove_pids(const unsigned *pids, size_t n)
{
	char cmd[128];

	for (size_t i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s/%u'", root, pids[i]);
		if (system(cmd))
			return -1;
	}
	return 0;
}

/* The processes these tests put in /proc leave it, whatever the test's outcome. */
static int vm_threads_gone(void **state)
{
	static const unsigned tids[] = { 400, 401, 500, 501, 700, 701 };

	(void)state;
	return remove_pids(tids, sizeof(tids) / sizeof(tids[0]));
}

/* /proc/<pid>/cgroup of a hybrid host: v1 lines, then the unified hierarchy's path. */
static void cgroup_of(unsigned pid, const char *v2)
{
	char rel[64], buf[512];

	snprintf(rel, sizeof(rel), "%u/cgroup", pid);
	snprintf(buf, sizeof(buf), "12:pids:/v1/elsewhere.scope\n1:name=systemd:/v1/elsewhere.scope\n0::%s\n",
		 v2);
	PUTS(rel, buf);
}

#define LIBVIRT_SCOPE "/machine.slice/machine-qemu\\x2d3\\x2dmy\\x2dvm.scope"

/*
 * A VM process without -name is named from its cgroup, its vCPU threads only; -name comes
 * first; a session names nothing; a kernel thread in a VM's cgroup is never named from it.
 * Every task record carries its leader's cgroup v2 path.
 */
static void test_cgroup_names(void **state)
{
	static const char plain[] = "qemu-system-x86_64\0-m\0512";
	static const char named[] = "qemu-system-x86_64\0-name\0guest=named,debug-threads=on";
	struct task_table *tt = task_table__new(root, NULL);
	struct pwz_task t;
	char name[64];

	(void)state;
	/* libvirt, no -name: the domain's name from the machine scope */
	thread(900, 900, "qemu-system-x86");
	thread(901, 900, "CPU 0/KVM");
	thread(902, 900, "worker");
	put("900/cmdline", plain, sizeof(plain));
	cgroup_of(900, LIBVIRT_SCOPE "/libvirt/emulator");
	cgroup_of(901, LIBVIRT_SCOPE "/libvirt/vcpu0");
	assert_int_equal(task_table__scan_pids(tt, (const uint32_t[]){ 900 }, 1), 3);
	assert_true(task_table__display_name(tt, 901, name, sizeof(name)));
	assert_string_equal(name, "my-vm.vcpu0");	/* what -t matches */
	assert_int_equal(task_table__touch(tt, 901, 10, &t), 1);
	assert_string_equal(t.name, "my-vm.vcpu0");
	assert_string_equal(t.cgroup, LIBVIRT_SCOPE "/libvirt/emulator");	/* the leader's */
	assert_int_equal(task_table__touch(tt, 902, 10, &t), 1);
	assert_string_equal(t.name, "worker");		/* only its vCPUs are named from it */
	assert_string_equal(t.cgroup, LIBVIRT_SCOPE "/libvirt/emulator");
	assert_int_equal(task_table__touch(tt, 900, 10, &t), 1);
	assert_string_equal(t.name, "qemu-system-x86");
	assert_string_equal(t.cgroup, LIBVIRT_SCOPE "/libvirt/emulator");
	/* -name comes before the cgroup */
	thread(910, 910, "qemu-system-x86");
	thread(911, 910, "CPU 1/KVM");
	put("910/cmdline", named, sizeof(named));
	cgroup_of(910, LIBVIRT_SCOPE);
	assert_int_equal(task_table__touch(tt, 911, 20, &t), 1);
	assert_string_equal(t.name, "named.vcpu1");
	assert_string_equal(t.cgroup, LIBVIRT_SCOPE);
	/* a login session names no VM */
	thread(920, 920, "qemu-system-x86");
	thread(921, 920, "CPU 0/KVM");
	put("920/cmdline", plain, sizeof(plain));
	cgroup_of(920, "/user.slice/user-0.slice/session-3.scope");
	assert_int_equal(task_table__touch(tt, 921, 30, &t), 1);
	assert_string_equal(t.name, "CPU 0/KVM");
	assert_string_equal(t.cgroup, "/user.slice/user-0.slice/session-3.scope");
	/* kthreadd's child in a VM's cgroup: a kernel thread, never named from it; the same
	 * without kthreadd for parent is a process whose command line is not there yet */
	thread(930, 930, "CPU 0/KVM");
	PUTS("930/status", "Name:\tCPU 0/KVM\nTgid:\t930\nPid:\t930\nPPid:\t2\n");
	put("930/cmdline", "", 0);
	cgroup_of(930, LIBVIRT_SCOPE);
	assert_int_equal(task_table__touch(tt, 930, 40, &t), 1);
	assert_string_equal(t.name, "CPU 0/KVM");
	assert_string_equal(t.cgroup, LIBVIRT_SCOPE);
	thread(940, 940, "CPU 0/KVM");
	PUTS("940/status", "Name:\tCPU 0/KVM\nTgid:\t940\nPid:\t940\nPPid:\t1\n");
	put("940/cmdline", "", 0);
	cgroup_of(940, LIBVIRT_SCOPE);
	assert_int_equal(task_table__touch(tt, 940, 40, &t), 1);
	assert_string_equal(t.name, "my-vm.vcpu0");
	/* a program whose command line came from its exec: its cgroup read with its first record */
	thread(950, 950, "firecracker");
	thread(951, 950, "CPU 0/KVM");
	cgroup_of(950, "/system.slice/system-firecracker.slice/firecracker@vm7.service");
	assert_int_equal(task_table__exec(tt, 950, "firecracker", 12, false, 50, &t), 0);
	assert_int_equal(task_table__touch(tt, 950, 60, &t), 1);
	assert_string_equal(t.name, "firecracker");
	assert_string_equal(t.cgroup, "/system.slice/system-firecracker.slice/firecracker@vm7.service");
	assert_int_equal(task_table__touch(tt, 951, 60, &t), 1);
	assert_string_equal(t.name, "firecracker@vm7.vcpu0");
	/* no cgroup file (a v1-only host, or gone): "" */
	assert_int_equal(task_table__touch(tt, 200, 70, &t), 1);
	assert_string_equal(t.cgroup, "");
	task_table__free(tt);
}

/*
 * task_table__cgroup(): a thread's process leader's path (not its own), read once per program
 * and kept when the process is gone, read again after an exec; "" for a thread or process the
 * table does not know, and for a v1-only host's file (read once).
 */
static void test_cgroup_of_thread(void **state)
{
	struct task_table *tt = task_table__new(root, NULL);
	struct pwz_task t;

	(void)state;
	thread(960, 960, "svc");
	thread(961, 960, "worker");
	cgroup_of(960, "/system.slice/svc.service");
	cgroup_of(961, "/system.slice/svc.service/sub");
	thread(970, 970, "old");
	PUTS("970/cgroup", "1:name=systemd:/user.slice\n");
	assert_int_equal(task_table__scan_pids(tt, (const uint32_t[]){ 960, 970 }, 2), 3);
	assert_string_equal(task_table__cgroup(tt, 961), "/system.slice/svc.service");
	/* moved: asking again reads nothing */
	cgroup_of(960, "/system.slice/other.service");
	assert_string_equal(task_table__cgroup(tt, 960), "/system.slice/svc.service");
	/* the first record reads the leader (command line and cgroup): the table then gives
	 * what the records carry */
	assert_int_equal(task_table__touch(tt, 961, 10, &t), 1);
	assert_string_equal(t.cgroup, "/system.slice/other.service");
	assert_string_equal(task_table__cgroup(tt, 961), t.cgroup);
	/* an exec reads it again; then gone, the process keeps it */
	cgroup_of(960, "/system.slice/svc2.service");
	assert_string_equal(task_table__cgroup(tt, 961), "/system.slice/other.service");
	assert_int_equal(task_table__exec(tt, 960, "svc2", 5, false, 20, &t), 0);
	assert_string_equal(task_table__cgroup(tt, 961), "/system.slice/svc2.service");
	assert_int_equal(remove_pids((const unsigned[]){ 960, 961 }, 2), 0);
	assert_string_equal(task_table__cgroup(tt, 961), "/system.slice/svc2.service");
	/* a v1-only host: "", and not read again */
	assert_string_equal(task_table__cgroup(tt, 970), "");
	cgroup_of(970, "/user.slice");
	assert_string_equal(task_table__cgroup(tt, 970), "");
	/* unknown: a tid never seen, a thread whose process the table does not hold */
	assert_string_equal(task_table__cgroup(tt, 12345), "");
	assert_int_equal(task_table__event(tt, 980, 981, "child", true, 30, &t), 0);
	assert_string_equal(task_table__cgroup(tt, 980), "");
	task_table__free(tt);
}

static int cgroup_threads_gone(void **state)
{
	static const unsigned tids[] = { 900, 901, 902, 910, 911, 920, 921, 930, 940, 950, 951,
					 960, 961, 970 };

	(void)state;
	return remove_pids(tids, sizeof(tids) / sizeof(tids[0]));
}

static void test_map_names(void **state)
{
	static const char csv[] = "101,instance-0001,vcpu0,uuid-1,FULL,2,Router\n";
	char err[256];
	struct task_map *m = task_map__parse(csv, strlen(csv), "t.csv", err, sizeof(err));
	struct task_table *tt;
	struct pwz_task t;

	(void)state;
	assert_non_null(m);
	tt = task_table__new(root, m);
	assert_int_equal(task_table__touch(tt, 101, 0, &t), 1);
	assert_string_equal(t.name, "Router.02.vcpu0");
	assert_string_equal(t.comm, "CPU 0/KVM");
	assert_int_equal(task_table__touch(tt, 102, 0, &t), 1);
	assert_string_equal(t.name, "vm1.vcpu1");	/* not in the map */
	task_table__free(tt);
	task_map__free(m);
}

/* task_table__match() with the one pattern pat (tasknames.h) */
static size_t match(struct task_table *tt, const char *pat, uint32_t *tids, size_t max,
		    char *names, size_t names_len)
{
	char err[128];
	struct task_patterns *p = task_patterns__new(&pat, 1, err, sizeof(err));
	size_t n;

	assert_non_null(p);
	n = task_table__match(tt, p, tids, max, names, names_len);
	task_patterns__free(p);
	return n;
}

static void test_match(void **state)
{
	struct task_table *tt = task_table__new(root, NULL);
	uint32_t tids[8];
	char names[256];
	size_t n;

	(void)state;
	n = match(tt, "CPU*", tids, 8, names, sizeof(names));
	assert_int_equal(n, 2);
	assert_true((tids[0] == 101 && tids[1] == 102) || (tids[0] == 102 && tids[1] == 101));
	n = match(tt, "*vcpu1", tids, 8, names, sizeof(names));	/* display name */
	assert_int_equal(n, 1);
	assert_int_equal(tids[0], 102);
	n = match(tt, "200", tids, 8, names, sizeof(names));	/* a tid */
	assert_int_equal(n, 1);
	assert_int_equal(tids[0], 200);
	/* a plain word is the start of a name, as pwz-render reads it: comm or display name */
	n = match(tt, "vm1.vcpu", tids, 8, names, sizeof(names));
	assert_int_equal(n, 2);
	n = match(tt, "vm1", tids, 8, names, sizeof(names));	/* vcpu0, vcpu1, emulator, worker */
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_true(tids[i] >= 100 && tids[i] < 200);
	n = match(tt, "nomatch*", tids, 8, names, sizeof(names));
	assert_int_equal(n, 0);
	assert_non_null(strstr(names, "bash"));
	assert_non_null(strstr(names, "worker"));
	task_table__free(tt);
}

struct written {
	uint32_t tids[4096];
	char names[4096][PWZ_NAME_MAX];
	size_t n;
};

static int record_write(void *ctx, const struct pwz_task *t)
{
	struct written *w = ctx;

	assert_true(w->n < 4096);
	w->tids[w->n] = t->tid;
	snprintf(w->names[w->n], PWZ_NAME_MAX, "%s", t->name);
	w->n++;
	return 0;
}

/*
 * A fork loop: 3,000 short-lived children (not in /proc: exited) of bash (200), 2,000 of them
 * written, 1,000 never named by a record. The sweep forgets them all, writes the namings of
 * the 1,000 first, keeps the live threads, and still answers for the forgotten ones.
 */
static void test_forget_gone(void **state)
{
	static struct written w;
	struct task_table *tt = task_table__new(root, NULL);
	struct pwz_task t;
	char name[32];
	int n;

	(void)state;
	w.n = 0;
	assert_int_equal(task_table__scan(tt), 5);
	assert_int_equal(task_table__touch(tt, 101, 0, &t), 1);
	for (uint32_t tid = 1000; tid < 4000; tid++) {
		snprintf(name, sizeof(name), "child-%u", tid % 7);
		assert_int_equal(task_table__event(tt, tid, tid, name, true, tid, &t), 0);
		if (tid < 3000)
			assert_int_equal(task_table__touch(tt, tid, tid + 1, &t), 1);
	}
	assert_int_equal(task_table__count(tt), 3005);
	n = task_table__forget_gone(tt, record_write, &w);
	assert_int_equal(n, 3000);
	assert_int_equal(task_table__count(tt), 5);	/* the live threads of the fake /proc */
	assert_int_equal(task_table__forgotten(tt), 3000);
	/* the unwritten namings were written first, at their naming time */
	assert_int_equal(w.n, 1000);
	assert_int_equal(w.tids[0], 3000);
	assert_string_equal(w.names[0], "child-4");	/* 3000 % 7 */
	/* forgotten threads: no new record, their name and process still known */
	assert_int_equal(task_table__touch(tt, 1234, 99999, &t), 0);
	assert_int_equal(task_table__touch(tt, 3500, 99999, &t), 0);
	assert_string_equal(task_table__name(tt, 1234), "child-2");	/* 1234 % 7 */
	assert_int_equal(task_table__tgid(tt, 1234), 1234);
	/* live threads stay, written or not */
	assert_int_equal(task_table__touch(tt, 101, 5, &t), 0);
	assert_int_equal(task_table__touch(tt, 102, 5, &t), 1);
	assert_string_equal(t.name, "vm1.vcpu1");
	/* no sweep before the table has doubled */
	assert_int_equal(task_table__forget_gone(tt, record_write, &w), 0);
	/* a recycled tid: a new thread, named again */
	assert_int_equal(task_table__event(tt, 1234, 1234, "reborn", true, 200000, &t), 0);
	assert_int_equal(task_table__touch(tt, 1234, 200001, &t), 1);
	assert_string_equal(t.name, "reborn");
	assert_int_equal(t.time_ns, 200000);
	assert_int_equal(t.flags, PWZ_TASK_BORN);
	assert_string_equal(task_table__name(tt, 1234), "reborn");
	task_table__free(tt);
}

/* Below FORGET_MIN entries the table is never swept (a short capture pays nothing). */
static void test_forget_small(void **state)
{
	struct task_table *tt = task_table__new(root, NULL);
	struct pwz_task t;

	(void)state;
	assert_int_equal(task_table__scan(tt), 5);
	for (uint32_t tid = 1000; tid < 1500; tid++)
		assert_int_equal(task_table__event(tt, tid, tid, "x", true, tid, &t), 0);
	assert_int_equal(task_table__forget_gone(tt, NULL, NULL), 0);
	assert_int_equal(task_table__count(tt), 505);
	task_table__free(tt);
}

static void test_missing_root(void **state)
{
	struct task_table *tt = task_table__new("/nonexistent-proc-root", NULL);
	struct pwz_task t;

	(void)state;
	assert_int_equal(task_table__scan(tt), -ENOENT);
	assert_int_equal(task_table__touch(tt, 5, 0, &t), 1);
	assert_string_equal(t.comm, "tid-5");
	task_table__free(tt);
}

/* The scan reads one file a thread, its comm in the task folder it is listed in (no status:
 * the folder is its process), and with -p the threads of the processes given only. */
static void test_scan_reads(void **state)
{
	char cmd[160];
	struct task_table *tt;
	struct pwz_task t;
	uint32_t pids[] = { 200, 4242 };	/* 4242: a process gone */

	(void)state;
	/* process 800 with threads 800 and 801 listed only in its task folder */
	PUTS("800/task/800/comm", "leader\n");
	PUTS("800/task/801/comm", "helper\n");
	tt = task_table__new(root, NULL);
	assert_int_equal(task_table__scan(tt), 7);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/800'", root);
	assert_int_equal(system(cmd), 0);
	/* gone from /proc now: what the scan read names them */
	assert_int_equal(task_table__touch(tt, 801, 10, &t), 1);
	assert_string_equal(t.comm, "helper");
	assert_int_equal(t.tgid, 800);
	assert_string_equal(t.proc_name, "leader");
	task_table__free(tt);

	tt = task_table__new(root, NULL);
	assert_int_equal(task_table__scan_pids(tt, pids, 2), 1);
	assert_string_equal(task_table__name(tt, 200), "bash");
	assert_int_equal(task_table__tgid(tt, 200), 200);
	assert_null(task_table__name(tt, 101));	/* another process: not read */
	task_table__free(tt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_and_qemu_names),
		cmocka_unit_test(test_events),
		cmocka_unit_test_teardown(test_vm_named_after_exec, vm_threads_gone),
		cmocka_unit_test_teardown(test_exec_command_line, vm_threads_gone),
		cmocka_unit_test_teardown(test_vhost_workers, vhost_threads_gone),
		cmocka_unit_test_teardown(test_cgroup_names, cgroup_threads_gone),
		cmocka_unit_test_teardown(test_cgroup_of_thread, cgroup_threads_gone),
		cmocka_unit_test(test_map_names),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_missing_root),
		cmocka_unit_test(test_scan_reads),
		cmocka_unit_test(test_forget_gone),
		cmocka_unit_test(test_forget_small),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
