/* SPDX-License-Identifier: GPL-2.0 */
/* pwz-bpf --flight: the last N seconds of records in bounded memory, written out on a trigger. */
#ifndef PWZ_FLIGHT_H
#define PWZ_FLIGHT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "cdict.h"
#include "records.h"

/*
 * What a dump holds. The window is [to - N, to) in the capture's time, to = the trigger plus
 * --after. The dump is a normal cdict whose time 0 is the window's start (start_mono_ns moved
 * there, duration N) and whose records are the stored ones touching the window, cut at its
 * edges as a capture's are (user/lib/model.h): a slice running at the window's start begins
 * at 0 (R1), one running at its end is PWZ_END_OPEN at N (R1), its switch-out counted only
 * inside (R6); waits count in the window holding their end (R6; a wait begun before the
 * window is folded into the aggregates but has no record, as its start is before time 0);
 * exits by their kvm_exit time. The aggregates are model_fold() over the window of the
 * whole records, so they are exact for it (R7), except for slices the kernel dropped (ring
 * full), which the metadata's drop counters then count since the start. With the scheduler's
 * waits and the KVM exits, each vCPU thread's ledger (VCPU_LEDGER) is ledger_fold's of the
 * records written, over the window (model.h R10: a thread born inside it unseen before its
 * first event); not the kernel's, which covers the whole capture.
 *
 * Memory: records are kept in chunks of FLIGHT_CHUNK_ENTRIES entries of 64 bytes; a chunk
 * whose every record ended before the window (with a slack for the ring buffer's small
 * reordering across CPUs) is freed. Past the budget the oldest chunk goes even if it is in
 * the window: the window then starts later, and the dump says so ("flight_budget" drop
 * counter, the records evicted early). Thread names: one entry per thread seen. Writing a
 * dump with a ledger holds its records once more (about 40 bytes each) until it is written.
 */
#define FLIGHT_CHUNK_ENTRIES 4096
#define FLIGHT_ENTRY_BYTES 64	/* one stored record (asserted in flight.c) */
#define FLIGHT_SLACK_NS 100000000ull	/* records kept this long past the window's start */
#define FLIGHT_MIN_MB 16		/* the smallest budget sized at start */

struct flight;

struct flight_cfg {
	uint64_t window_ns;		/* N */
	uint64_t budget_bytes;		/* 0: sized from the rate of the first second */
	uint64_t trigger_wait_ns;	/* a run-queue wait longer than this triggers; 0 off */
	uint64_t trigger_exit_ns;	/* a KVM exit handled longer than this triggers; 0 off */
	uint64_t after_ns;		/* the window ends this long after the trigger */
	uint64_t arm_ns;		/* the wait and exit triggers fire from this time on (from
					 * the capture start; pwz-bpf: the window, or --arm-after) */
};

/* NULL with errno ENOMEM. */
struct flight *flight__new(const struct flight_cfg *cfg);

/* NULL is a no-op. */
void flight__free(struct flight *f);

/* A thread's naming (the later one of a tid wins). Returns 0 or -ENOMEM. */
int flight__task(struct flight *f, const struct pwz_task *t);

/* One slice and the wait before it (w NULL: none), times from the capture start; a wait longer
 * than the threshold triggers at its end, if that is at arm_ns or later. Returns 0 or -ENOMEM. */
int flight__slice(struct flight *f, const struct pwz_slice *s, const struct pwz_wakeup *w);

/* The recorder as a visitor (cdict.h) of a capture's records, times from the capture start:
 * task records to flight__task(), slices with the wait delivered just before them (a wakeup
 * of the same tid and CPU, as a capture delivers it) to flight__slice(), KVM exits to
 * flight__kvm_exit(); the other kinds are not kept (a dump folds its own aggregates). */
struct cdict_visitor flight__visitor(struct flight *f);

/* One KVM exit; one handled longer than the threshold triggers at its end (its kvm_entry), if
 * that is at arm_ns or later. */
int flight__kvm_exit(struct flight *f, const struct pwz_kvm_exit *e);

/* A trigger at t_ns for reason (copied), fired by thread tid (0: none, as for a signal).
 * Ignored (returns false) while another is pending or when its window would overlap the last
 * dump's (it would start before that one's end): one incident, one dump, and at most one dump
 * per window however many waits run long. Fires whether armed or not (arm_ns is for the waits
 * and exits). */
bool flight__trigger(struct flight *f, uint64_t t_ns, uint32_t tid, const char *reason);

/* The pending trigger's dump was written with its window ending at to_ns. */
void flight__dumped(struct flight *f, uint64_t to_ns);

/* The pending trigger's dump failed (its window ended at to_ns): the next trigger may take the
 * same window, but the waits and exits fire again only one window later (a disk still full is
 * not tried at every long wait). */
void flight__dump_failed(struct flight *f, uint64_t to_ns);

/* Frees what lies wholly before the window ending now_ns, and what the budget cannot hold. */
void flight__evict(struct flight *f, uint64_t now_ns);

/* Bytes held by the records now, the bytes of every record stored so far, and the budget (0
 * while not sized yet). */
uint64_t flight__bytes(const struct flight *f);
uint64_t flight__stored(const struct flight *f);
uint64_t flight__budget(const struct flight *f);

/* Sizes the budget from the bytes stored over the first elapsed_ns: twice the window at that
 * rate, at least FLIGHT_MIN_MB. No-op when a budget is set. Returns the budget. */
uint64_t flight__size_budget(struct flight *f, uint64_t elapsed_ns);

/* The run: everything the loop needs from pwz-bpf. */
struct capture;
struct task_table;
struct capture_opts;

struct flight_env {
	struct capture *cap;			/* started, streams on */
	struct task_table *tt;			/* names of threads touched only by a dump */
	struct flight *fl;
	const struct capture_opts *o;		/* window, triggers, run name, dest, mode */
	const struct pwz_meta *meta;		/* the capture's, copied into every dump */
	uint64_t t0;				/* CLOCK_MONOTONIC capture start */
	pid_t child;				/* the command after "--", or -1 */
	bool (*selected)(void *ctx, uint32_t tid);	/* -p / -t: threads in the dumps */
	void *ctx;
	int (*counters)(void *ctx, struct pwz_meta *m);	/* fills the drop counters of a dump
								 * and its clock (META sched_clock) */
	void (*say)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
	volatile sig_atomic_t *stop;		/* SIGINT, SIGTERM, SIGHUP */
	volatile sig_atomic_t *usr1;		/* SIGUSR1 (caught from pwz-bpf's start) */
	int *werr;				/* the sinks' first error */
};

/* Records until a signal, -s, the command's end or (--once) the first dump written, writing a
 * dump on every trigger (SIGUSR1, a long wait or exit) and on the way out. A SIGUSR1 that came
 * before it ran (while the programs loaded) is said and dropped: nothing was recorded yet. A
 * dump that fails (a full disk) is said with what it kept, and the recording goes on. Returns
 * 0 or -errno (said): out of memory, a failed read, or the last dump failed. */
int flight_run(struct flight_env *env);

/* flight_run()'s loop for a caller that drains the capture itself (--serve beside --flight):
 * flight_begin() once (says how it records), then flight_step() after each capture__poll(). */
struct flight_loop {
	uint64_t deadline;		/* -s, from the capture start (0 none) */
	bool armed;			/* the wait and exit triggers fire */
	bool sized;			/* the memory budget is set */
	unsigned int nr_dumps;
};

void flight_begin(struct flight_env *env, struct flight_loop *lp);

/* The triggers, the dump they ask for, the eviction: 0 go on, 1 the recording is over (the
 * way out, its dump written), or -errno (said). */
int flight_step(struct flight_env *env, struct flight_loop *lp);

/* What a dump holds, for its message. */
struct flight_dump {
	uint64_t from_ns, to_ns;	/* its window, from the capture start */
	char trigger[512];		/* what fired it (pwz_meta_trigger_text()) */
};

/* Writes the dump of the window [to_ns - N, to_ns) (shorter when the recording or the budget
 * holds less) to path (a file there kept unless --force: path then becomes the name written,
 * within pathlen), the pending trigger in its metadata (its reason, time and thread, the
 * thread's task record in the file), and fills out. Exposed for the loop above; returns 0 or
 * -errno with err, which then also says what of the file was kept (a full disk: its whole
 * chunks, as a capture's, cdict_writer__keep_partial_note()). */
int flight__write(struct flight *f, struct flight_env *env, char *path, size_t pathlen,
		  uint64_t to_ns, struct flight_dump *out, char *err, size_t errlen);

#endif /* PWZ_FLIGHT_H */
