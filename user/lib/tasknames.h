/* SPDX-License-Identifier: GPL-2.0 */
/* Task display names: perfwhiz CSV maps, QEMU vCPU naming, idle-task merging. */
#ifndef PWZ_TASKNAMES_H
#define PWZ_TASKNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pwz_task;

/*
 * perfwhiz's CSV map: 7 comma-separated fields, no header,
 *   tid,<libvirt-name>,<type>,<uuid>,<group-type>,<group-id>,<name>
 * Only tid, type, group-id and name are used; the annotated name is
 * "<name>.<group-id as %02d>.<type>" (Router.02.vcpu0). The last line for a tid wins.
 * Empty lines and lines starting with '#' are skipped.
 */
struct task_map;

/* Parses the CSV file at path. NULL on error with errno set and err filled as
 * "<path>:<line>: <field>: <what is wrong>". */
struct task_map *task_map__load(const char *path, char *err, size_t errlen);

/* Parses CSV text (name is used in messages). Same contract as task_map__load(). */
struct task_map *task_map__parse(const char *text, size_t len, const char *name, char *err,
				 size_t errlen);

/* The annotated name for tid, or NULL when the map does not name it. */
const char *task_map__name(const struct task_map *m, uint32_t tid);

/* Number of tids the map names. */
size_t task_map__count(const struct task_map *m);

/* NULL is a no-op. */
void task_map__free(struct task_map *m);

/*
 * The VM name from a QEMU command line given as NUL-separated arguments (as
 * /proc/PID/cmdline): "-name guest=foo,debug-threads=on" or "-name foo" (also "--name",
 * "-name=foo"). Copies it to out and returns true; false when there is no -name.
 */
bool qemu_vm_name(const char *cmdline, size_t len, char *out, size_t outlen);

/* True when the program of a command line (NUL-separated, as /proc/PID/cmdline) is QEMU: the
 * base name of argv[0] starts with "qemu". */
bool cmdline_is_qemu(const char *cmdline, size_t len);

/* True when comm is a vCPU thread's as QEMU names them, "CPU <n>/KVM"; *vcpu (may be NULL)
 * receives n. */
bool task_vcpu_of(const char *comm, unsigned int *vcpu);

/*
 * The display name of a thread of a process whose command line names a VM vm (from
 * qemu_vm_name(); "" or NULL for none): comm "CPU <n>/KVM" (a vCPU thread, whatever the
 * program) becomes "<vm>.vcpu<n>"; when the process is QEMU (is_qemu), its main thread
 * (is_main: tid == tgid) becomes "<vm>.emulator" and any other "<vm>.<comm>" (its I/O threads,
 * call_rcu, the kernel's workers for it: vhost-<pid>, kvm-nx-lpage-re); otherwise the name is
 * comm itself. Writes to out (NUL-terminated, truncated to outlen).
 */
void task_display_name(const char *comm, const char *vm, bool is_qemu, bool is_main, char *out,
		       size_t outlen);

/* The pid a vhost worker serves, from its comm "vhost-<pid>" (a kernel thread before Linux
 * 6.4, a thread of that process since): true and *pid, or false for any other comm. */
bool task_vhost_owner(const char *comm, uint32_t *pid);

/*
 * The vCPU a display name (task_display_name()) names: "<vm>.vcpu<n>" gives vm and n, a bare
 * "CPU <n>/KVM" (no VM name known) n and vm "". False (vm and *vcpu untouched) for any other
 * name.
 */
bool task_display_vcpu(const char *name, char *vm, size_t vmlen, unsigned int *vcpu);

/* How a thread is named in every view of pwz-render (task_label()). */
struct task_label_opts {
	const struct task_map *map;	/* --map: its name for the tid comes first; NULL none */
	bool merge_sys;			/* --merge-sys-tasks: "swapper/3" -> "swapper" */
	bool append_tid;		/* --append-tid: "name:tid" */
};

/*
 * The one display-name rule: the display name of thread tid whose name (after --map) is name:
 * name, or the tid in decimal when name is ""; merged by task_merge_sys_name() with
 * o->merge_sys; then ":<tid>" with o->append_tid, the name cut so that the tid stays whole.
 * o->map is not read here (task_label() reads it); o may be NULL (name as it is).
 */
void task_label_name(const char *name, uint32_t tid, const struct task_label_opts *o, char *out,
		     size_t outlen);

/* The display name of task record t: its o->map name, else t->name, else t->comm, then as
 * task_label_name(). */
void task_label(const struct pwz_task *t, const struct task_label_opts *o, char *out,
		size_t outlen);

/* "swapper/3" -> "swapper" (and other per-CPU kernel threads "ksoftirqd/1" -> "ksoftirqd",
 * "migration/0" -> "migration", "kworker/1:2H" -> "kworker"): writes the merged name. */
void task_merge_sys_name(const char *name, char *out, size_t outlen);

/* True when s is a thread id: decimal digits only, within 32 bits (as /proc's entries). */
bool task_is_tid(const char *s);

/*
 * -t patterns, as pwz-bpf and pwz-render read them. One pattern is, by the first rule that
 * applies:
 *   - digits only: a thread id ("20418");
 *   - a plain word (none of * ? [ . ^ $ + ( ) | \ {): the start of the name, as perfwhiz read
 *     it (Python's re.match): "vm" matches "vm1.vcpu0", "cc1" matches "cc1" and "cc1plus";
 *   - with glob characters (* ? [) and no regex syntax: a shell glob on the whole name
 *     (fnmatch without flags): "*vcpu0" matches "vm1.vcpu0", not "vm1.vcpu01";
 *   - with regex syntax (. ^ $ + ( ) | \ {): a POSIX extended regex anchored at the start of
 *     the name and not at its end, as perfwhiz (re.match): ".*vcpu0" matches "vm1.vcpu0" and
 *     "vm1.vcpu01"; and, as well, the glob on the whole name, so that a name with a dot or
 *     parentheses ("kdamond.0", "(sd-pam)") matches itself. A regex that does not compile
 *     ("a(") is read as the glob alone.
 * A set of patterns matches when any of them does (the union of several -t). Compiled once;
 * matching never allocates.
 */
struct task_patterns;

/* Compiles n patterns (n >= 1; copied). NULL with errno set and err filled: EINVAL for an empty
 * pattern or one holding a newline, ENOMEM. */
struct task_patterns *task_patterns__new(const char *const *patterns, size_t n, char *err,
					 size_t errlen);

/* True when a pattern of p matches the thread tid named name. */
bool task_patterns_match(const struct task_patterns *p, const char *name, uint32_t tid);

/* The number of patterns, and the i-th as given. */
size_t task_patterns__count(const struct task_patterns *p);
const char *task_patterns__text(const struct task_patterns *p, size_t i);

/* NULL is a no-op. */
void task_patterns__free(struct task_patterns *p);

#endif /* PWZ_TASKNAMES_H */
