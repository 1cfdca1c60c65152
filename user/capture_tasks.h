/* SPDX-License-Identifier: GPL-2.0 */
/* The capture's task table: comm, process and display name per thread, from /proc and BPF. */
#ifndef PWZ_CAPTURE_TASKS_H
#define PWZ_CAPTURE_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "records.h"

struct task_patterns;

struct task_map;
struct task_table;

/*
 * A table reading threads from proc_root (normally "/proc"; tests pass a fake tree with
 * <tid>/comm, <tid>/status "Tgid:" (and "PPid:"), <tgid>/cmdline and <tgid>/cgroup). map (may
 * be NULL, borrowed) gives --map names. NULL with errno on failure.
 *
 * Each task record carries its process leader's cgroup v2 path (struct pwz_task cgroup, cut to
 * PWZ_CGROUP_MAX), read from <tgid>/cgroup with the leader's command line, and else once per
 * program when the first record of a thread of it is written; a process gone by then keeps
 * the path read before, or "". A vCPU thread ("CPU <n>/KVM") of a process whose command line
 * has no -name is named from that path (cgroup_vm_name(): "<vm>.vcpu<n>"); its other threads
 * are not. A kernel thread (an empty command line, and kthreadd, pid 2, or its child: "PPid:
 * 2") is never named from its cgroup, which may be a VM's (vhost workers before Linux 6.4,
 * kvm-nx-lpage-re).
 */
struct task_table *task_table__new(const char *proc_root, const struct task_map *map);

/* NULL is a no-op. */
void task_table__free(struct task_table *tt);

/* Reads every thread under proc_root/<pid>/task/<tid> (the capture start snapshot): one
 * read a thread (its comm; its process is the folder it is listed in). Returns the number of
 * threads known after it, or -errno when proc_root cannot be read. */
int task_table__scan(struct task_table *tt);

/* task_table__scan() of the nr processes pids only (-p: the other threads are never recorded),
 * a process gone skipped. Returns the number of threads known after it. */
int task_table__scan_pids(struct task_table *tt, const uint32_t *pids, size_t nr);

/*
 * A task event from BPF at time_ns (from capture start): a new thread (is_new) or a rename.
 * tgid 0 = unknown. Returns 1 and fills out when a record must be written now (the thread
 * was already written under another comm; or a new thread takes the tid of one born during
 * the capture and not written yet: that one's record, as it was named), 0 when nothing is to
 * be written yet, -ENOMEM.
 */
int task_table__event(struct task_table *tt, uint32_t tid, uint32_t tgid, const char *comm,
		      bool is_new, uint64_t time_ns, struct pwz_task *out);

/*
 * The command line of process tgid as its exec at time_ns left it: len bytes of NUL-separated
 * arguments (from the kernel at sched_process_exec), cut when it went on past them. Its VM name
 * and whether it is QEMU are taken from it now, so that the threads of a process that exits
 * before they are written are named as it was (the reader polls every 100 ms: a short-lived VM
 * is gone from /proc by then). A cut command line without "-name" is read again from /proc when
 * a thread is written. Returns 1 and fills out when the leader's record was written already
 * under another display name (a new record at time_ns, as for a rename), 0 when nothing is to
 * be written, -ENOMEM.
 */
int task_table__exec(struct task_table *tt, uint32_t tgid, const char *args, size_t len, bool cut,
		     uint64_t time_ns, struct pwz_task *out);

/*
 * The thread tid is named by a record at time_ns. Returns 1 and fills out when its task
 * record has not been written yet (the caller writes it before the record), 0 when it has,
 * -ENOMEM. A tid never seen is read from proc_root; if gone, its comm is "tid-<tid>"...
 * unless the kernel reported it. tid 0 is "swapper".
 */
int task_table__touch(struct task_table *tt, uint32_t tid, uint64_t time_ns, struct pwz_task *out);

/* The thread's current entry, for the stats: its display name and tgid. NULL if unknown. */
const char *task_table__name(const struct task_table *tt, uint32_t tid);
uint32_t task_table__tgid(const struct task_table *tt, uint32_t tid);

/*
 * The cgroup v2 path of thread tid's process leader as the table keeps it, the path its task
 * records carry (above): read from proc_root/<tgid>/cgroup with the leader's command line, or,
 * when nothing has read it yet for the program (an exec starts afresh), now; not read again
 * for each call. A process gone keeps what was read; a file without the unified hierarchy's
 * line (a v1-only host) gives "" and is not read again. "" when unknown: tid unknown, its
 * process not in the table (unknown, or forgotten: task_table__forget_gone()), or no path
 * read. Never NULL; the string is the table's, valid until the next call that changes the
 * table.
 */
const char *task_table__cgroup(struct task_table *tt, uint32_t tid);

/*
 * The display name of thread tid into out (outlen bytes): as written when its record was, else
 * as it would be written now (its --map name, or its comm and its process's VM name): what -t
 * matches a thread against before its first record. False (out untouched) when tid is unknown.
 */
bool task_table__display_name(struct task_table *tt, uint32_t tid, char *out, size_t outlen);

/* Number of threads in the table (forgotten ones not included). */
size_t task_table__count(const struct task_table *tt);

/*
 * Forgets the threads that have exited, so that a long capture (a fork loop, 86 k short-lived
 * children) keeps only the live threads: whenever the table has doubled since the last sweep
 * (and holds FORGET_MIN entries or more), every entry is checked against proc_root/<tid>; a
 * gone thread whose task record was not written yet gets it written now through write (may
 * be NULL: nothing to write), then leaves the table. What stays of it is 8 bytes per tid
 * (its tgid and its display name, each distinct name stored once), so that a late record of
 * it writes nothing (task_table__touch() returns 0) and task_table__name() and
 * task_table__tgid() still answer; a new thread on the same tid (task_table__event() with
 * is_new) starts afresh. Memory: room for the most threads the table held at once (the sweep
 * compacts it in place and keeps its storage, so that a long capture's sweeps allocate
 * nothing), 8 bytes per tid below the largest tid forgotten (32 MiB at most, pid_max
 * 4,194,304), and the distinct names. A thread that cannot be recorded as forgotten (out of
 * memory) stays in the table. Returns the number forgotten now, 0 when no sweep was due, or
 * write's error (then every entry is still in the table). One comparison when no sweep is
 * due: a caller that calls it after each record it gives the table holds the table to twice
 * the live threads (or FORGET_MIN), however many records one poll brings.
 */
int task_table__forget_gone(struct task_table *tt,
			    int (*write)(void *ctx, const struct pwz_task *t), void *ctx);

/* Threads forgotten so far (a recycled tid forgotten twice counts twice). */
size_t task_table__forgotten(const struct task_table *tt);

/* Whether thread tid exists now (proc_root/<tid>; tid 0, the idle task, always). */
bool task_table__alive(const struct task_table *tt, uint32_t tid);

/* Calls each(ctx, tid) for every thread of the table whose comm is a QEMU vCPU's
 * (task_vcpu_of()), until one returns non-zero, and returns that (else 0). */
int task_table__each_vcpu(const struct task_table *tt, int (*each)(void *ctx, uint32_t tid),
			  void *ctx);

/*
 * The tids of all threads (under proc_root, read now) whose comm or display name matches
 * pats (task_patterns_match()), appended to tids (up to max). Returns the number added.
 * names/names_len receive a ", "-separated list of distinct comms seen (for an error message).
 */
size_t task_table__match(struct task_table *tt, const struct task_patterns *pats, uint32_t *tids,
			 size_t max, char *names, size_t names_len);

#endif /* PWZ_CAPTURE_TASKS_H */
