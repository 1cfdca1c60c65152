/* SPDX-License-Identifier: GPL-2.0 */
/* Task display names: perfwhiz CSV maps, QEMU vCPU naming, idle-task merging. */
#ifndef PWZ_TASKNAMES_H
#define PWZ_TASKNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * program) becomes "<vm>.vcpu<n>"; when the process is QEMU (is_qemu) any other thread becomes
 * "<vm>.emulator"; otherwise the name is comm itself. Writes to out (NUL-terminated,
 * truncated to outlen).
 */
void task_display_name(const char *comm, const char *vm, bool is_qemu, char *out, size_t outlen);

/* "swapper/3" -> "swapper" (and other per-CPU kernel threads "ksoftirqd/1" -> "ksoftirqd",
 * "migration/0" -> "migration", "kworker/1:2H" -> "kworker"): writes the merged name. */
void task_merge_sys_name(const char *name, char *out, size_t outlen);

/* True when s is a thread id: decimal digits only, within 32 bits (as /proc's entries). */
bool task_is_tid(const char *s);

/*
 * -t patterns. One pattern is, by the first rule that applies:
 *   - digits only: a tid;
 *   - else a shell glob on the whole name (fnmatch without flags): "*vcpu0";
 *   - and, when it has regex syntax (any of . ^ $ + ( ) | \ { ) and compiles as a POSIX
 *     extended regex, also that regex anchored at the start of the name and not at its end,
 *     as perfwhiz read it (Python's re.match): ".*vcpu0" matches "vm1.vcpu0" and
 *     "vm1.vcpu01". Either reading matching is a match, so a name with a dot or parentheses
 *     ("kdamond.0", "(sd-pam)") still matches itself.
 * A pattern set is patterns separated by '\n' (task_patterns_join()); it matches when any of
 * them does (the union of several -t).
 */
bool task_pattern_match(const char *set, const char *name, uint32_t tid);

/* Whether pattern (one, not a set) is read as a regex by task_pattern_match(). */
bool task_pattern_is_regex(const char *pattern);

/* The set of n patterns (joined with '\n') into out. Returns 0, -EINVAL when a pattern holds a
 * newline or is empty, or -ENAMETOOLONG. */
int task_patterns_join(const char *const *patterns, size_t n, char *out, size_t outlen);

#endif /* PWZ_TASKNAMES_H */
