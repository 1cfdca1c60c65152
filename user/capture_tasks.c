// SPDX-License-Identifier: GPL-2.0
/* The capture's task table: comm, process and display name per thread, from /proc and BPF. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture_tasks.h"
#include "cgroupname.h"
#include "tasknames.h"
#include "keymap.h"

#define VM_NAME_MAX 128
#define FORGET_MIN 1024		/* entries below which the table is never swept */
#define GONE_TID_MAX (1u << 22)	/* PID_MAX_LIMIT: tids at or above are never forgotten */

struct tt_entry {
	uint32_t tid;
	uint32_t tgid;			/* 0 unknown */
	uint64_t time_ns;		/* when the current comm took effect */
	char comm[PWZ_COMM_LEN];	/* current comm */
	char written[PWZ_COMM_LEN];	/* comm of the last record written */
	bool emitted;			/* a record was written */
	bool vm_checked;		/* leader only: cmdline read (again after an exec) */
	bool qemu;			/* leader only: the program is QEMU */
	bool kthread;			/* leader only: a kernel thread (is_kthread()) */
	bool cg_checked;		/* leader only: cgroup read (again after an exec) */
	char vm[VM_NAME_MAX];		/* leader only: the -name of its cmdline, "" none */
	char cgroup[PWZ_CGROUP_MAX];	/* leader only: its cgroup v2 path, "" unknown */
	char name[PWZ_NAME_MAX];	/* display name of the last record */
	bool dead;			/* found gone by the sweep under way */
	bool born;			/* created during the capture (task_newtask) ... */
	uint64_t born_ns;		/* ... then (model.h R8) */
};

/* What the table keeps of a forgotten thread (one slot per tid; name 0 = not forgotten). */
struct tt_gone {
	uint32_t tgid;			/* its process; 0 unknown */
	uint32_t name;			/* index + 1 of its display name in the name pool */
};

/* Copies src into dst of len bytes, truncating, always NUL-terminated. */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

struct task_table {
	char *proc_root;
	const struct task_map *map;
	struct keymap idx;		/* (tid, 0) -> index in ents */
	struct tt_entry *ents;
	size_t cap;			/* ents allocated */
	size_t live_mark;		/* entries left by the last sweep */
	/* forgotten threads: exited, their naming written (task_table__forget_gone()) */
	struct tt_gone *gone;		/* indexed by tid */
	size_t gone_cap;		/* slots of gone */
	size_t nr_gone;			/* threads forgotten (a recycled tid counts again) */
	/* their display names, each once: (hash, length | attempt << 32) -> index in names */
	struct keymap name_idx;
	char **names;
	size_t names_cap;
};

struct task_table *task_table__new(const char *proc_root, const struct task_map *map)
{
	struct task_table *tt = calloc(1, sizeof(*tt));

	if (!tt)
		return NULL;
	tt->proc_root = strdup(proc_root ? proc_root : "/proc");
	if (!tt->proc_root) {
		free(tt);
		errno = ENOMEM;
		return NULL;
	}
	tt->map = map;
	return tt;
}

void task_table__free(struct task_table *tt)
{
	if (!tt)
		return;
	keymap_free(&tt->idx);
	free(tt->ents);
	for (size_t i = 0; i < tt->name_idx.count; i++)
		free(tt->names[i]);
	free(tt->names);
	keymap_free(&tt->name_idx);
	free(tt->gone);
	free(tt->proc_root);
	free(tt);
}

size_t task_table__count(const struct task_table *tt)
{
	return tt->idx.count;
}

int task_table__each_vcpu(const struct task_table *tt, int (*each)(void *ctx, uint32_t tid),
			  void *ctx)
{
	int e = 0;

	for (size_t i = 0; !e && i < tt->idx.count; i++)
		if (task_vcpu_of(tt->ents[i].comm, NULL))
			e = each(ctx, tt->ents[i].tid);
	return e;
}

static struct tt_entry *find(const struct task_table *tt, uint32_t tid)
{
	int64_t i = keymap_find(&tt->idx, tid, 0);

	return i < 0 ? NULL : &tt->ents[i];
}

/* The forgotten thread tid, or NULL. */
static const struct tt_gone *gone_of(const struct task_table *tt, uint32_t tid)
{
	return tid < tt->gone_cap && tt->gone[tid].name ? &tt->gone[tid] : NULL;
}

static void unforget(struct task_table *tt, uint32_t tid)
{
	if (tid < tt->gone_cap)
		tt->gone[tid].name = 0;
}

static struct tt_entry *add(struct task_table *tt, uint32_t tid)
{
	struct tt_entry *e;
	int64_t i = keymap_get(&tt->idx, tid, 0, NULL);

	if (i < 0 || array_reserve((void **)&tt->ents, &tt->cap, tt->idx.count, sizeof(*e)))
		return NULL;
	e = &tt->ents[i];
	memset(e, 0, sizeof(*e));
	e->tid = tid;
	return e;
}

/* Reads a small file into buf (NUL-terminated); returns bytes read or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -1;
	while ((size_t)total + 1 < len && (n = read(fd, buf + total, len - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

/* comm and tgid of tid from proc_root; false when the thread is gone. */
static bool read_proc(const struct task_table *tt, uint32_t tid, char *comm, uint32_t *tgid)
{
	char path[512], buf[4096], *p;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/comm", tt->proc_root, tid);
	n = read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return false;
	if (buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	copy_str(comm, PWZ_COMM_LEN, buf);
	*tgid = 0;
	snprintf(path, sizeof(path), "%s/%u/status", tt->proc_root, tid);
	if (read_small(path, buf, sizeof(buf)) > 0 && (p = strstr(buf, "\nTgid:")))
		*tgid = (uint32_t)strtoul(p + 6, NULL, 10);
	return true;
}

static struct tt_entry *lookup_or_read(struct task_table *tt, uint32_t tid)
{
	struct tt_entry *e = find(tt, tid);
	char comm[PWZ_COMM_LEN];
	uint32_t tgid = 0;

	if (e)
		return e;
	if (tid == 0) {
		snprintf(comm, sizeof(comm), "swapper");
	} else if (!read_proc(tt, tid, comm, &tgid)) {
		snprintf(comm, sizeof(comm), "tid-%u", tid);
	}
	e = add(tt, tid);
	if (!e)
		return NULL;
	copy_str(e->comm, sizeof(e->comm), comm);
	e->tgid = tgid;
	return e;
}

/* The leader l's VM name and program from its command line (n bytes, NUL-separated). */
static void take_cmdline(struct tt_entry *l, const char *cmdline, size_t n)
{
	l->qemu = cmdline_is_qemu(cmdline, n);
	if (!qemu_vm_name(cmdline, n, l->vm, sizeof(l->vm)))
		l->vm[0] = '\0';
}

/* Whether process tgid, whose command line is empty, is a kernel thread: kthreadd (pid 2) or
 * a child of it ("PPid: 2" in its status). */
static bool is_kthread(const struct task_table *tt, uint32_t tgid)
{
	char path[512], buf[4096], *p;

	if (tgid == 2)
		return true;
	snprintf(path, sizeof(path), "%s/%u/status", tt->proc_root, tgid);
	return read_small(path, buf, sizeof(buf)) > 0 && (p = strstr(buf, "\nPPid:")) &&
	       strtoul(p + 6, NULL, 10) == 2;
}

/* The cgroup v2 path of leader l from proc_root/<tgid>/cgroup, kept once read (cg_checked);
 * a read that finds no file (the process gone) or no path in it (a v1-only host) keeps what
 * was known; only the first is tried again. */
static void read_cgroup(const struct task_table *tt, struct tt_entry *l)
{
	char path[512], buf[8192], cg[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/cgroup", tt->proc_root, l->tid);
	n = read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return;
	l->cg_checked = true;
	if (cgroup_v2_path(buf, (size_t)n, cg, sizeof(cg)))
		copy_str(l->cgroup, sizeof(l->cgroup), cg);
}

/* Reads the command line and the cgroup of leader l from proc_root: its -name, whether it is
 * QEMU, whether it is a kernel thread. A read that finds no command line (the process in the
 * middle of its exec, or gone) is not kept (vm_checked stays false), unless the process is a
 * kernel thread, whose command line is always empty. */
static void read_leader(struct task_table *tt, struct tt_entry *l)
{
	char path[512];
	char *buf;
	ssize_t n;

	l->vm[0] = '\0';
	l->qemu = false;
	buf = malloc(65536);
	if (!buf)
		return;
	snprintf(path, sizeof(path), "%s/%u/cmdline", tt->proc_root, l->tid);
	n = read_small(path, buf, 65536);
	if (n > 0)
		take_cmdline(l, buf, (size_t)n);
	if (n >= 0)
		l->kthread = n == 0 && is_kthread(tt, l->tid);
	l->vm_checked = n > 0 || l->kthread;
	free(buf);
	read_cgroup(tt, l);
}

/*
 * The VM name of process tgid into vm ("" none): the -name of its command line; else, for a
 * vCPU thread that asks (vcpu: a thread named "CPU <n>/KVM" makes its process a VM), the name
 * its cgroup gives (cgroup_vm_name()), unless the process is a kernel thread. The command line
 * is read once per program (the leader's rename at exec reads it again), with the cgroup;
 * *is_qemu tells whether the program is QEMU. "No -name" is not kept when a vCPU thread asks:
 * its process may have exec'ed since it was read, the rename event still on its way through
 * the task ring while the vCPU's records come through another.
 */
static void vm_name(struct task_table *tt, uint32_t tgid, bool vcpu, bool *is_qemu, char *vm,
		    size_t vmlen)
{
	struct tt_entry *l;

	*is_qemu = false;
	vm[0] = '\0';
	if (!tgid)
		return;
	l = lookup_or_read(tt, tgid);
	if (!l)
		return;
	if (!l->vm_checked || (vcpu && !l->vm[0]))
		read_leader(tt, l);
	*is_qemu = l->qemu;
	if (l->vm[0])
		copy_str(vm, vmlen, l->vm);
	else if (vcpu && !l->kthread && !cgroup_vm_name(l->cgroup, vm, vmlen))
		vm[0] = '\0';
}

/* The display name of thread tid of process tgid whose comm is comm, into out: its --map
 * name, else "swapper" for tid 0, else task_display_name() of its process's VM (vm_name());
 * a vhost worker outside the process it serves (a kernel thread, before Linux 6.4) is named as
 * a thread of that process. May grow the table (vm_name()): entry pointers taken before do not
 * hold. */
static void display_name(struct task_table *tt, uint32_t tid, uint32_t tgid, const char *comm,
			 char *out, size_t outlen)
{
	const char *mapped = tt->map ? task_map__name(tt->map, tid) : NULL;
	char vm[VM_NAME_MAX];
	uint32_t owner;
	bool is_qemu;

	if (mapped) {
		copy_str(out, outlen, mapped);
	} else if (tid == 0) {
		snprintf(out, outlen, "swapper");
	} else {
		if (task_vhost_owner(comm, &owner) && owner != tgid)
			tgid = owner;
		vm_name(tt, tgid, task_vcpu_of(comm, NULL), &is_qemu, vm, sizeof(vm));
		task_display_name(comm, vm, is_qemu, tid == tgid, out, outlen);
	}
}

static void fill(struct task_table *tt, struct tt_entry *e, uint64_t time_ns, struct pwz_task *out)
{
	struct tt_entry *leader;
	uint32_t tid = e->tid;	/* e may move: vm_name() can grow the table */

	memset(out, 0, sizeof(*out));
	out->tid = tid;
	out->tgid = e->tgid;
	out->time_ns = time_ns;
	if (e->born && !e->emitted) {	/* the first record of a new instance (model.h R8) */
		out->flags = PWZ_TASK_BORN;
		out->time_ns = out->since_ns = e->born_ns;
	}
	copy_str(out->comm, sizeof(out->comm), e->comm);
	display_name(tt, tid, out->tgid, out->comm, out->name, sizeof(out->name));
	leader = out->tgid ? find(tt, out->tgid) : NULL;
	if (leader) {
		if (!leader->cg_checked)
			read_cgroup(tt, leader);
		copy_str(out->proc_name, sizeof(out->proc_name), leader->comm);
		copy_str(out->cgroup, sizeof(out->cgroup), leader->cgroup);
	}
	e = find(tt, tid);
	memcpy(e->written, e->comm, sizeof(e->written));
	copy_str(e->name, sizeof(e->name), out->name);
	e->emitted = true;
}

int task_table__exec(struct task_table *tt, uint32_t tgid, const char *args, size_t len, bool cut,
		     uint64_t time_ns, struct pwz_task *out)
{
	struct tt_entry *l = lookup_or_read(tt, tgid);
	char was[sizeof(l->name)];

	if (!l)
		return -ENOMEM;
	take_cmdline(l, args, len);
	/* a cut command line may name the VM further on: /proc has all of it */
	l->vm_checked = len > 0 && (l->vm[0] || !cut);
	l->kthread = false;	/* it exec'ed */
	l->cg_checked = false;	/* read with its first record's */
	if (!l->emitted)
		return 0;
	memcpy(was, l->name, sizeof(was));
	fill(tt, l, time_ns, out);
	return strcmp(was, out->name) != 0;
}

int task_table__event(struct task_table *tt, uint32_t tid, uint32_t tgid, const char *comm,
		      bool is_new, uint64_t time_ns, struct pwz_task *out)
{
	struct tt_entry *e = find(tt, tid);
	int wrote = 0;

	if (!e) {
		unforget(tt, tid);	/* a recycled tid: the forgotten thread stays in the file */
		e = add(tt, tid);
		if (!e)
			return -ENOMEM;
	} else if (is_new) {
		/* a recycled tid: a new thread. One born during the capture and not written yet
		 * (its records still on their way, in another CPU's batch) is written now, as it
		 * was named: the new thread takes its entry. */
		if (e->born && !e->emitted && e->born_ns < time_ns) {
			fill(tt, e, e->born_ns, out);
			wrote = 1;
			e = find(tt, tid);	/* fill() may grow the table */
		}
		e->emitted = false;
	}
	if (is_new) {
		e->born = true;
		e->born_ns = time_ns;
		e->kthread = false;	/* a new process: read afresh (read_leader()) */
		e->cgroup[0] = '\0';
	}
	if (tgid)
		e->tgid = tgid;
	/* a leader renamed (exec) or new: its program, and so its VM name, may have changed */
	if (is_new || (e->tid == e->tgid && strcmp(e->comm, comm))) {
		e->vm_checked = false;
		e->cg_checked = false;
	}
	copy_str(e->comm, sizeof(e->comm), comm);
	e->time_ns = time_ns;
	if (e->emitted && strcmp(e->written, e->comm)) {
		fill(tt, e, time_ns, out);
		return 1;
	}
	return wrote;
}

int task_table__touch(struct task_table *tt, uint32_t tid, uint64_t time_ns, struct pwz_task *out)
{
	struct tt_entry *e;

	if (!find(tt, tid) && gone_of(tt, tid))
		return 0;	/* exited, its naming written: a late record of it */
	e = lookup_or_read(tt, tid);

	if (!e)
		return -ENOMEM;
	if (e->emitted)
		return 0;
	fill(tt, e, e->time_ns < time_ns ? e->time_ns : time_ns, out);
	return 1;
}

const char *task_table__name(const struct task_table *tt, uint32_t tid)
{
	const struct tt_entry *e = find(tt, tid);
	const struct tt_gone *g;

	if (!e) {
		g = gone_of(tt, tid);
		return g ? tt->names[g->name - 1] : NULL;
	}
	return e->emitted ? e->name : e->comm;
}

const char *task_table__cgroup(struct task_table *tt, uint32_t tid)
{
	uint32_t tgid = task_table__tgid(tt, tid);
	struct tt_entry *l = tgid ? find(tt, tgid) : NULL;

	if (!l)
		return "";
	if (!l->cg_checked)
		read_cgroup(tt, l);
	return l->cgroup;
}

bool task_table__display_name(struct task_table *tt, uint32_t tid, char *out, size_t outlen)
{
	const struct tt_entry *e = find(tt, tid);
	char comm[PWZ_COMM_LEN];

	if (!e || e->emitted) {
		const char *name = task_table__name(tt, tid);

		if (name)
			copy_str(out, outlen, name);
		return name != NULL;
	}
	copy_str(comm, sizeof(comm), e->comm);	/* e may move: display_name() can grow the table */
	display_name(tt, tid, e->tgid, comm, out, outlen);
	return true;
}

uint32_t task_table__tgid(const struct task_table *tt, uint32_t tid)
{
	const struct tt_entry *e = find(tt, tid);
	const struct tt_gone *g;

	if (!e) {
		g = gone_of(tt, tid);
		return g ? g->tgid : 0;
	}
	return e->tgid;
}

size_t task_table__forgotten(const struct task_table *tt)
{
	return tt->nr_gone;
}

/* 64-bit FNV-1a of s. */
static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* Index + 1 of name in the pool, added when new; 0 out of memory. */
static uint32_t intern(struct task_table *tt, const char *name)
{
	uint64_t h = hash_str(name), len = strlen(name);

	for (uint64_t attempt = 0;; attempt++) {
		int added = 0;
		int64_t i = keymap_get(&tt->name_idx, h, len | attempt << 32, &added);
		char *copy;

		if (i < 0)
			return 0;
		if (!added) {
			if (!strcmp(tt->names[i], name))
				return (uint32_t)i + 1;
			continue;	/* another name with this hash and length */
		}
		copy = strdup(name);
		if (!copy || array_reserve((void **)&tt->names, &tt->names_cap, tt->name_idx.count,
					   sizeof(*tt->names))) {
			/* the key stays, pointing at a name that compares equal to nothing */
			free(copy);
			copy = NULL;
		}
		if (!copy)
			return 0;
		tt->names[i] = copy;
		return (uint32_t)i + 1;
	}
}

/* Records e as forgotten; false when it cannot be (then it stays in the table). */
static bool remember_gone(struct task_table *tt, const struct tt_entry *e)
{
	uint32_t name;

	if (e->tid >= GONE_TID_MAX)
		return false;
	if (e->tid >= tt->gone_cap) {
		size_t cap = tt->gone_cap ? tt->gone_cap : 4096;
		struct tt_gone *g;

		while (cap <= e->tid)
			cap *= 2;
		g = realloc(tt->gone, cap * sizeof(*g));
		if (!g)
			return false;
		memset(g + tt->gone_cap, 0, (cap - tt->gone_cap) * sizeof(*g));
		tt->gone = g;
		tt->gone_cap = cap;
	}
	name = intern(tt, e->name);
	if (!name)
		return false;
	tt->gone[e->tid] = (struct tt_gone){ .tgid = e->tgid, .name = name };
	tt->nr_gone++;
	return true;
}

/* Whether thread tid still exists (proc_root/<tid> answers for every thread, listed or not). */
bool task_table__alive(const struct task_table *tt, uint32_t tid)
{
	char path[512];

	if (tid == 0)
		return true;
	snprintf(path, sizeof(path), "%s/%u", tt->proc_root, tid);
	return access(path, F_OK) == 0;
}

int task_table__forget_gone(struct task_table *tt,
			    int (*write)(void *ctx, const struct pwz_task *t), void *ctx)
{
	size_t n = tt->idx.count, kept = 0, forgot = 0;
	struct pwz_task task;
	int e;

	if (n < FORGET_MIN || n < 2 * tt->live_mark)
		return 0;
	/* first the namings not written yet (fill() may add leaders: the table may move) */
	for (size_t i = 0; i < n; i++) {
		tt->ents[i].dead = !task_table__alive(tt, tt->ents[i].tid);
		if (!tt->ents[i].dead || tt->ents[i].emitted)
			continue;
		fill(tt, &tt->ents[i], tt->ents[i].time_ns, &task);
		e = write ? write(ctx, &task) : 0;
		if (e)
			return e < 0 ? e : -EIO;
	}
	/* then the table compacted in place to the threads alive (and those it cannot forget),
	 * in its own storage: the sweeps of a long capture allocate and free nothing, so that
	 * its memory does not spread over the heap with the threads it saw */
	for (size_t i = 0; i < tt->idx.count; i++) {
		struct tt_entry *x = &tt->ents[i];

		if (x->dead && remember_gone(tt, x)) {
			forgot++;
			continue;
		}
		x->dead = false;
		if (kept != i)
			tt->ents[kept] = *x;
		kept++;
	}
	keymap_clear(&tt->idx);
	for (size_t i = 0; i < kept; i++)
		keymap_get(&tt->idx, tt->ents[i].tid, 0, NULL);	/* fewer than it held: no failure */
	tt->live_mark = kept;
	return (int)(forgot > INT32_MAX ? INT32_MAX : forgot);
}

/* Calls fn(tt, tid, pid, arg) for every tid under proc_root/<pid>/task (pid as a string; a
 * fake tree or a process gone: the pid alone). Returns the threads seen. */
static int for_each_thread_of(struct task_table *tt, const char *pid,
			      void (*fn)(struct task_table *, uint32_t, uint32_t, void *), void *arg)
{
	uint32_t tgid = (uint32_t)strtoul(pid, NULL, 10);
	struct dirent *te;
	char path[512];
	DIR *td;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s/task", tt->proc_root, pid);
	td = opendir(path);
	if (!td) {
		fn(tt, tgid, 0, arg);
		return 1;
	}
	while ((te = readdir(td))) {
		if (!task_is_tid(te->d_name))
			continue;
		fn(tt, (uint32_t)strtoul(te->d_name, NULL, 10), tgid, arg);
		n++;
	}
	closedir(td);
	return n;
}

/* Calls fn for every tid under proc_root/<pid>/task (with its pid, or 0 when the tree has no
 * task folder). Returns threads seen or -errno. */
static int for_each_proc_thread(struct task_table *tt,
				void (*fn)(struct task_table *, uint32_t, uint32_t, void *), void *arg)
{
	DIR *d = opendir(tt->proc_root);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (task_is_tid(de->d_name))
			n += for_each_thread_of(tt, de->d_name, fn, arg);
	closedir(d);
	return n;
}

/* A thread of process tgid (0: unknown, a tree without task folders) into the table, unless
 * known already or gone: its comm alone is read, from the task folder the listing found it in
 * (the process is its tgid). */
static void scan_one(struct task_table *tt, uint32_t tid, uint32_t tgid, void *arg)
{
	char path[512], comm[PWZ_COMM_LEN];
	struct tt_entry *e;
	ssize_t n;

	(void)arg;
	if (find(tt, tid))
		return;
	if (tgid) {
		snprintf(path, sizeof(path), "%s/%u/task/%u/comm", tt->proc_root, tgid, tid);
		n = read_small(path, comm, sizeof(comm));
		if (n <= 0)
			return;
		if (comm[n - 1] == '\n')
			comm[n - 1] = '\0';
	} else if (!read_proc(tt, tid, comm, &tgid)) {
		return;
	}
	e = add(tt, tid);
	if (!e)
		return;
	copy_str(e->comm, sizeof(e->comm), comm);
	e->tgid = tgid;
}

int task_table__scan(struct task_table *tt)
{
	int n = for_each_proc_thread(tt, scan_one, NULL);

	return n < 0 ? n : (int)tt->idx.count;
}

int task_table__scan_pids(struct task_table *tt, const uint32_t *pids, size_t nr)
{
	char pid[16];

	for (size_t i = 0; i < nr; i++) {
		snprintf(pid, sizeof(pid), "%u", pids[i]);
		for_each_thread_of(tt, pid, scan_one, NULL);
	}
	return (int)tt->idx.count;
}

struct match_ctx {
	const struct task_patterns *pats;
	uint32_t *tids;
	size_t max, n;
	char *names;
	size_t names_len;
};

static void match_one(struct task_table *tt, uint32_t tid, uint32_t pid, void *arg)
{
	struct match_ctx *m = arg;
	char comm[PWZ_COMM_LEN], name[PWZ_NAME_MAX];
	uint32_t tgid;
	struct tt_entry *e;

	(void)pid;
	if (!read_proc(tt, tid, comm, &tgid))
		return;
	e = find(tt, tid);
	if (!e) {
		e = add(tt, tid);
		if (!e)
			return;
		copy_str(e->comm, sizeof(e->comm), comm);
		e->tgid = tgid;
	}
	display_name(tt, tid, tgid, comm, name, sizeof(name));
	if (task_patterns_match(m->pats, comm, tid) || task_patterns_match(m->pats, name, tid)) {
		for (size_t i = 0; i < m->n; i++)
			if (m->tids[i] == tid)
				return;
		if (m->n < m->max)
			m->tids[m->n++] = tid;
	} else if (m->names && !strstr(m->names, comm)) {
		size_t l = strlen(m->names);

		if (l + strlen(comm) + 3 < m->names_len)
			snprintf(m->names + l, m->names_len - l, "%s%s", l ? ", " : "", comm);
	}
}

size_t task_table__match(struct task_table *tt, const struct task_patterns *pats, uint32_t *tids,
			 size_t max, char *names, size_t names_len)
{
	struct match_ctx m = { pats, tids, max, 0, names, names_len };

	if (names && names_len)
		names[0] = '\0';
	for_each_proc_thread(tt, match_one, &m);
	return m.n;
}
