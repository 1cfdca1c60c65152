/* SPDX-License-Identifier: GPL-2.0 */
/* The capture content model: the records every source (live BPF, perf.data, legacy cdict) yields. */
#ifndef PWZ_RECORDS_H
#define PWZ_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include "../../bpf/whist.h"	/* PWZ_WHIST_BUCKETS: the kernel's wait histogram layout */

/*
 * Conventions:
 * - Every time is in nanoseconds. Record times (start_ns, time_ns, wake_ns) count from the
 *   capture start (meta.start_mono_ns on the capture clock), so the first instant is 0.
 * - A tid is the kernel's thread id (a pid in kernel speak); tgid is the process id.
 *   tid 0 is the idle task of every CPU (its comm says which: swapper/N).
 * - Strings are NUL-terminated, byte strings as the traced system gave them (not always UTF-8).
 */

#define PWZ_COMM_LEN 16		/* the kernel's TASK_COMM_LEN, NUL included */
#define PWZ_HIST_BUCKETS 40	/* log2 histogram: bucket i counts values v with floor(log2(v)) == i,
				 * bucket 0 also counts v == 0; the last bucket takes everything larger */
#define PWZ_MAX_CPUS 4096	/* a sane bound for parsers */
#define PWZ_MAX_DROPS 16	/* distinct drop counters a capture may carry */
#define PWZ_MAX_EXIT_NAMES 4096	/* exit reasons named in a capture (VMX has ~70, SVM ~160) */
#define PWZ_NAME_MAX 256	/* longest task or process name stored, NUL included */
#define PWZ_CGROUP_MAX 256	/* longest cgroup path stored, NUL included (longer ones cut) */

/* How a run slice ended. */
enum pwz_slice_end {
	PWZ_END_PREEMPTED = 0,	/* switched out while runnable (involuntary; prev_state == R) */
	PWZ_END_SLEPT = 1,	/* switched out to wait (voluntary: S, D, ...) */
	PWZ_END_EXITED = 2,	/* the thread died (prev_state X or Z) */
	PWZ_END_OPEN = 3,	/* still running when the capture stopped: cut at the end */
	PWZ_END_UNKNOWN = 4,	/* the source does not say (legacy cdict) */
};

/* Instruction set of a KVM exit, as the kvm_exit tracepoint's isa field. */
enum pwz_isa {
	PWZ_ISA_VMX = 1,
	PWZ_ISA_SVM = 2,
};

/* Flags of a slice (user/lib/model.h, rule R2). Only PWZ_SLICE_UNSEEN_START is stored as
 * such in a cdict SLICE record; the others say which optional fields are known. */
enum pwz_slice_flags {
	PWZ_SLICE_UNSEEN_START = 1,	/* switch-in not seen: start_ns is the last event known on
					 * the CPU, and the time may belong partly to other threads */
	PWZ_SLICE_CHARGED = 2,		/* charged_ns is known (live captures; not stored per slice) */
	PWZ_SLICE_STATE = 4,		/* prev_state is as the kernel reported it, not derived
					 * from end */
};

/*
 * prev_state of a switch-out as the sched_switch tracepoint reports it (its format field, what
 * perf and Perfetto read): R 0, one TASK_REPORT bit (S 0x1, D 0x2, T 0x4, t 0x8, X 0x10,
 * Z 0x20, P 0x40), I 0x80, R+ (preempted) 0x100.
 */
#define PWZ_STATE_RUNNING 0x0
#define PWZ_STATE_SLEEPING 0x1		/* S */
#define PWZ_STATE_DISK 0x2		/* D: uninterruptible */
#define PWZ_STATE_DEAD 0x10		/* X */
#define PWZ_STATE_ZOMBIE 0x20		/* Z */
#define PWZ_STATE_IDLE 0x80		/* I: TASK_IDLE, uninterruptible without load */
#define PWZ_STATE_PREEMPTED 0x100	/* R+ */

/* The prev_state an end kind implies when the source does not report one (R+, S, X; R for
 * the rest). */
uint32_t pwz_state_of_end(uint32_t end);

struct pwz_slice;
/* The slice's prev_state: as reported (PWZ_SLICE_STATE), else implied by its end kind. */
uint32_t pwz_slice_state(const struct pwz_slice *s);

/* One stretch of time a thread ran on one CPU, from switch-in to switch-out (model.h R1). */
struct pwz_slice {
	uint32_t tid;		/* thread that ran */
	uint32_t cpu;		/* CPU it ran on */
	uint64_t start_ns;	/* switch-in, from capture start; 0 if it ran when the capture began */
	uint64_t dur_ns;	/* switch-out minus switch-in */
	uint32_t end;		/* enum pwz_slice_end */
	uint32_t flags;		/* enum pwz_slice_flags */
	uint32_t prev_state;	/* PWZ_STATE_*, with PWZ_SLICE_STATE only (else read
				 * pwz_slice_state()) */
	uint64_t charged_ns;	/* with PWZ_SLICE_CHARGED: what the kernel charged the thread for
				 * this slice (se.sum_exec_runtime delta) */
};

/* Flags of a wait. */
enum pwz_wakeup_flags {
	PWZ_WAKEUP_WAKER = 1,		/* waker_tid, waker_cpu are known */
	PWZ_WAKEUP_PREEMPTED = 2,	/* the wait began with a preemption (no waker) */
	PWZ_WAKEUP_WOKEN = 4,		/* the wait began with a wakeup (its waker maybe unknown) */
};
#define PWZ_WAKER_CPU_UNKNOWN UINT32_MAX	/* in a cdict WAKEUP: woken, waker unknown */

/* The time a thread waited runnable: from its wakeup or preemption to its next switch-in
 * (model.h R4). */
struct pwz_wakeup {
	uint32_t tid;		/* thread woken */
	uint32_t cpu;		/* CPU it was switched in on */
	uint64_t wake_ns;	/* when it became runnable (woken or preempted), from capture start */
	uint64_t wait_ns;	/* switch-in minus wake_ns */
	uint32_t flags;		/* enum pwz_wakeup_flags; 0: how the wait began is unknown */
	uint32_t waker_tid;	/* with PWZ_WAKEUP_WAKER: the thread that woke it (current at
				 * sched_waking; 0 the idle task, e.g. a wakeup from an interrupt
				 * of an idle CPU) */
	uint32_t waker_cpu;	/* with PWZ_WAKEUP_WAKER: the CPU it ran on */
};

/* Flags of a KVM exit (user/lib/model.h, rule R5). */
enum pwz_exit_flags {
	PWZ_EXIT_UNPAIRED = 1,	/* no kvm_entry followed: handling_ns unknown (0) */
};

/* One KVM exit of a vCPU thread, with the guest time before it and the time to handle it. */
struct pwz_kvm_exit {
	uint32_t tid;		/* vCPU thread */
	uint32_t vcpu;		/* vcpu_id from the tracepoint */
	uint64_t time_ns;	/* kvm_exit time, from capture start */
	uint32_t isa;		/* enum pwz_isa */
	uint32_t reason;	/* exit reason code, as the tracepoint gives it */
	uint64_t guest_ns;	/* previous kvm_entry to this exit; 0 when unknown */
	uint64_t handling_ns;	/* this exit to the next kvm_entry; 0 when unpaired */
	uint32_t flags;		/* enum pwz_exit_flags */
};

/* Flags of a task record (user/lib/model.h, rule R8). */
enum pwz_task_flags {
	PWZ_TASK_BORN = 1,	/* the thread was created at time_ns (task_newtask, perf FORK): a
				 * new instance of its tid from then on */
};

/*
 * A thread as named from time_ns on. A later record of the same instance renames it; a BORN
 * record starts a new instance of the tid (model.h R8).
 */
struct pwz_task {
	uint32_t tid;
	uint32_t tgid;				/* 0 when unknown */
	uint64_t time_ns;			/* when this naming took effect, from capture start */
	uint32_t flags;				/* enum pwz_task_flags */
	uint64_t since_ns;			/* birth of its instance: time_ns of its BORN record, 0
						 * for a thread there at the capture start (derived by
						 * readers, not stored) */
	char comm[PWZ_COMM_LEN];		/* the kernel's comm of the thread */
	char proc_name[PWZ_NAME_MAX];		/* the comm of the process leader (tgid); "" unknown */
	char name[PWZ_NAME_MAX];		/* display name: comm, or vm.vcpuN, or the --map name */
	char cgroup[PWZ_CGROUP_MAX];		/* the cgroup v2 path of the process leader (tgid), as
						 * /proc/<tgid>/cgroup's "0::" line gave it when it
						 * was read (user/lib/cgroupname.h); "" unknown */
};

/* Aggregate: what one thread instance did on one CPU over the whole capture (model.h R7). */
struct pwz_cpu_agg {
	uint32_t tid;
	uint32_t cpu;
	uint64_t since_ns;	/* birth of the thread instance (R8); 0 there at the start */
	uint64_t runtime_ns;	/* sum of its slices on this CPU whose switch-in was seen */
	uint64_t switches;	/* switch-outs on this CPU */
	uint64_t voluntary;	/* of which voluntary (slept or exited) */
	uint64_t involuntary;	/* of which preempted */
	uint64_t unseen;	/* of which closed slices whose switch-in was not seen (R2) */
	uint64_t unseen_ns;	/* the time of those slices: this thread's or the ones before it */
	uint64_t charged_ns;	/* the kernel's charge (se.sum_exec_runtime) of the slices whose
				 * charge is known (live captures: all but each CPU's first and last) */
	uint64_t charged_run_ns;	/* runtime_ns of those same slices: charged_run_ns - charged_ns is
				 * time the kernel did not charge (steal, IRQ); both 0 unknown */
};

/* Kernel aggregate: the exits of one thread for one (isa, reason). */
struct pwz_kvm_agg {
	uint32_t tid;
	uint32_t isa;				/* enum pwz_isa */
	uint32_t reason;
	uint64_t since_ns;			/* birth of the thread instance (R8) */
	uint64_t count;				/* number of exits */
	uint64_t handling_ns;			/* total handling time of the exits that had an entry */
	uint64_t hist[PWZ_HIST_BUCKETS];	/* log2 histogram of handling_ns per exit */
};

/* Aggregate: run-queue wait of one thread (model.h R4, R7). */
struct pwz_wait_agg {
	uint32_t tid;
	uint64_t since_ns;	/* birth of the thread instance (R8) */
	uint64_t count;		/* waits measured */
	uint64_t wait_ns;	/* their total */
	uint64_t max_ns;	/* the longest */
	uint64_t hist[PWZ_WHIST_BUCKETS];	/* the waits by bucket (bpf/whist.h), summing to
					 * count; all 0 in files written before it (no histogram:
					 * pwz_wait_agg_has_hist()) */
	uint64_t run_delay_ns;	/* the kernel's charge (sched_info.run_delay, model.h R9) of the
				 * waits whose charge is known (live captures: every wait but one
				 * before a slice still running at the end, and the waits that
				 * unseen switch-ins ended (R2), which are not measured) */
	uint64_t run_delay_wait_ns;	/* wait_ns of the measured ones among them */
	uint64_t run_delay_unmeasured_ns;	/* the part of run_delay_ns charged for the others;
						 * all three 0 unknown */
};

/* Whether a carries a wait histogram that holds all its waits (count), so percentiles can be
 * read: false without one (a file written before it) or with one short of count (the kernel
 * could not make the thread's entry: "hist_miss" in the drops). */
bool pwz_wait_agg_has_hist(const struct pwz_wait_agg *a);

/*
 * The states of a vCPU thread's ledger (model.h R10), the values of bpf/pwz.h PWZ_VS_*
 * (asserted in capture_records.c): every nanosecond of the thread's life within the window is
 * in exactly one.
 */
enum pwz_vcpu_state {
	PWZ_VCPU_GUEST = 0,		/* in the guest: from kvm_entry to kvm_exit */
	PWZ_VCPU_EXIT_KERNEL,		/* on CPU, handling an exit in the kernel */
	PWZ_VCPU_EXIT_USER,		/* on CPU in the VMM, after kvm_userspace_exit */
	PWZ_VCPU_HALT_POLL,		/* on CPU, polling in a halt (kvm_vcpu_wakeup's poll) */
	PWZ_VCPU_HALT,			/* off CPU, not runnable: blocked in a halt or asleep */
	PWZ_VCPU_READY,			/* off CPU, runnable: waiting for a CPU */
	PWZ_VCPU_OTHER_ON_CPU,		/* on CPU outside KVM_RUN (a signal, an interrupted run) */
	PWZ_VCPU_UNSEEN,		/* what the recorders did not see (before the thread's
					 * first event, when it was not known as a vCPU) */
	PWZ_VCPU_STATES,
};

/* What held the CPU while a vCPU was ready (model.h R10), the values of bpf/pwz.h PWZ_RC_*. */
enum pwz_ready_cause {
	PWZ_CAUSE_SAME_VM_VCPU = 0,	/* a sibling vCPU thread of its VM */
	PWZ_CAUSE_SAME_VM_VMM,		/* another thread of its VM's process (emulator, I/O) */
	PWZ_CAUSE_OTHER_VM,		/* a thread of another VM's process */
	PWZ_CAUSE_HOST,			/* any other thread */
	PWZ_CAUSE_IDLE,			/* the idle task: the CPU idle until its switch-in */
	PWZ_CAUSE_UNSEEN,		/* older than the CPU's recent slices the kernel keeps */
	PWZ_CAUSE_IRQ,			/* hard IRQ and softirq handlers (with --irq) */
	PWZ_READY_CAUSES,
};

/*
 * Kernel aggregate: the ledger of one vCPU thread instance over the window (model.h R10). The
 * states add up to alive_ns, the instance's life within the window.
 */
struct pwz_vcpu_ledger {
	uint32_t tid;
	uint64_t since_ns;			/* birth of the thread instance (R8) */
	uint64_t alive_ns;			/* its life within the window: the sum of ns[] */
	uint64_t ns[PWZ_VCPU_STATES];		/* time in each enum pwz_vcpu_state */
	uint64_t count[PWZ_VCPU_STATES];	/* times each was entered by its event (a switch-in
						 * that resumes a state does not count) */
	uint64_t cause_ns[PWZ_READY_CAUSES];	/* its ready intervals that ended (a switch-in), by
						 * what held the CPU meanwhile (enum pwz_ready_cause) */
	uint64_t costop_ns;			/* of those, the time while a sibling vCPU ran */
	bool has_vcpu;				/* vcpu is known: the thread had a KVM exit */
	uint32_t vcpu;				/* with has_vcpu: the vcpu_id of its exits */
	uint64_t hist[PWZ_VCPU_STATES][PWZ_HIST_BUCKETS];	/* each state's stretches (one
						 * event to the next) by log2 length; all 0 when the
						 * capture had none */
};

/* The name of state s ("guest", "exit_kernel", ... "unseen"), as every output spells it; NULL
 * past PWZ_VCPU_STATES. */
const char *pwz_vcpu_state_name(unsigned int s);

/* The name of ready cause c ("same_vm_vcpu", ... "unseen"); NULL past PWZ_READY_CAUSES. */
const char *pwz_ready_cause_name(unsigned int c);

/* Adds l's times, counts and histograms (all but tid and since_ns) into acc, each held at
 * PWZ_SATURATED (pwz_add_sat()); acc's tid and since_ns stay. The sum of the ledgers of one
 * instance (a file may repeat one) or of a VM's vCPUs. */
void pwz_vcpu_ledger_add(struct pwz_vcpu_ledger *acc, const struct pwz_vcpu_ledger *l);

/*
 * R10: l's state still open at its end, state (PWZ_VCPU_STATES or more: none), held open_ns,
 * into its times, and alive_ns set to their sum. final: the capture (or window) ends there,
 * and an open ready interval, which no switch-in charged, is its unseen cause; else (a reading
 * of a running capture) it is left to its switch-in.
 */
void pwz_vcpu_ledger_close(struct pwz_vcpu_ledger *l, unsigned int state, uint64_t open_ns,
			   bool final);

/* Kinds of interrupt of an IRQ aggregate (the values of bpf/pwz.h PWZ_IRQ_*). */
enum pwz_irq_kind {
	PWZ_IRQ_KIND_HARD = 0,	/* a device IRQ's handler (irq_handler_entry/exit) */
	PWZ_IRQ_KIND_SOFT = 1,	/* a softirq vector's run (softirq_entry/exit) */
};
#define PWZ_IRQ_OTHER_TID UINT32_MAX	/* the threads outside a capture's selection, together */
#define PWZ_IRQ_NAME_MAX 32		/* a hard IRQ's handler name, NUL included */

/*
 * Aggregate (--irq): the interrupts of one kind and vector that one CPU took while one thread
 * instance was current there (the thread they interrupted), over the whole capture. A hard IRQ
 * that came during a softirq is charged to the hard IRQ only (its time is out of the
 * softirq's time_ns, in its nested_ns), so time_ns adds up over rows without double counting.
 */
struct pwz_irq_agg {
	uint32_t cpu;
	uint32_t tid;			/* the interrupted thread (0 idle), PWZ_IRQ_OTHER_TID */
	uint64_t since_ns;		/* birth of the thread instance (R8); 0 there at the start */
	uint32_t kind;			/* enum pwz_irq_kind */
	uint32_t vector;		/* hard: the irq number; soft: the vector (0 HI ... 9 RCU) */
	uint64_t count;			/* handler runs */
	uint64_t time_ns;		/* their time, less the nested hard IRQs (soft) */
	uint64_t max_ns;		/* the longest run, by the same measure */
	uint64_t nested_ns;		/* soft: hard IRQ time taken out of time_ns; hard: 0 */
	char name[PWZ_IRQ_NAME_MAX];	/* hard: the handler's name ("" unknown); soft: the vector's */
};

/* A named KVM exit code, from the recording kernel's kvm_exit format or a built-in table. */
struct pwz_exit_name {
	uint32_t isa;
	uint32_t code;
	char name[48];
};

/* A named counter: drops per stream, lost events, ... */
struct pwz_counter {
	char name[32];
	uint64_t value;
};

enum pwz_source {
	PWZ_SOURCE_LIVE = 0,		/* pwz-bpf capture */
	PWZ_SOURCE_PERF_DATA = 1,	/* imported from perf.data */
	PWZ_SOURCE_LEGACY = 2,		/* perfwhiz cdict */
	PWZ_SOURCE_SYNTHETIC = 3,	/* made by a generator or a test */
};

/* Which threads a capture holds: all of them (so each CPU's slices tile its time, model.h R1),
 * or a selection (-t, -p, a command). */
enum pwz_threads {
	PWZ_THREADS_UNKNOWN = 0,	/* older files, legacy, imports that do not say */
	PWZ_THREADS_ALL = 1,
	PWZ_THREADS_SELECTED = 2,
};

/* Per CPU topology. -1 where unknown. */
struct pwz_cpu_topo {
	int32_t package;
	int32_t core;
	int32_t llc;
};

/*
 * The scheduler's clock of a live capture (model.h R0): how the stamps taken from the run
 * queues' clocks sit on CLOCK_MONOTONIC, fitted from pairs of the two clocks sampled on each
 * CPU (user/lib/clockfit.h), and how many switches took it.
 */
struct pwz_sched_clock {
	uint64_t pairs;		/* pairs fitted, all CPUs */
	int64_t drift_ppb;	/* CLOCK_MONOTONIC's rate over the scheduler's clock, less 1, ppb */
	uint64_t residual_ns;	/* root mean square distance of the pairs from the fit */
	uint64_t spread_ns;	/* the largest difference between two CPUs' offsets */
	uint64_t stamped;	/* switches stamped from the run queue's clock */
	uint64_t stale;		/* switches that read CLOCK_MONOTONIC: the rq clock stale, or a
				 * vCPU thread's switch */
	uint64_t late;		/* samples of the offset left out, read long after the clock */
};

/*
 * Capture metadata. Strings are owned by the struct: free with pwz_meta_free().
 * Written at the start of a capture and again, final, at its end.
 */
struct pwz_meta {
	char *host;			/* hostname; NULL unknown */
	char *kernel;			/* kernel release of the traced system; NULL unknown */
	char *boot_id;			/* its boot id (/proc/sys/kernel/random/boot_id); NULL
					 * unknown */
	char *cmdline;			/* the tool's command line; NULL unknown */
	char *options;			/* options in effect, free text; NULL none */
	char *tool_version;		/* writer's version string; NULL unknown */
	uint32_t source;		/* enum pwz_source */
	uint32_t nr_cpus;		/* CPUs of the traced system; 0 unknown */
	struct pwz_cpu_topo *topo;	/* nr_cpus entries, or NULL */
	int32_t clock_id;		/* clock of the record times (CLOCK_MONOTONIC = 1); -1 unknown */
	uint64_t start_mono_ns;		/* capture start on that clock */
	uint64_t start_wall_ns;		/* capture start, ns since the Unix epoch; 0 unknown */
	uint64_t duration_ns;		/* capture length; 0 until final */
	uint64_t tracer_cpu_ns;		/* CPU time the tracer itself used (user + sys); 0 unknown */
	uint64_t bpf_run_ns;		/* time spent in the BPF programs, when stats were on; 0 unknown */
	uint64_t bpf_run_cnt;		/* their invocations, when stats were on; 0 unknown */
	bool has_switch_kind;		/* voluntary/involuntary known (not for legacy) */
	bool has_wait;			/* run-queue wait measured */
	bool has_kvm;			/* the KVM tracepoints were attached or present */
	bool has_prev_state;		/* slices' prev_state as reported (SLICE element 8) */
	bool has_waker;			/* waits name their waker, or say they began preempted */
	bool has_charged;		/* CPU_AGG carries the kernel's charge (elements 9, 10) */
	bool has_run_delay;		/* WAIT_AGG carries the kernel's charge of the waits
					 * (elements 8, 9: model.h R9) */
	bool has_irq;			/* --irq was on: IRQ_AGG records hold every interrupt
					 * counted (none: none came), so "no IRQ data" (false)
					 * differs from "zero IRQs" */
	uint32_t threads;		/* enum pwz_threads */
	uint32_t nr_exit_names;
	struct pwz_exit_name *exit_names;
	char *trigger;			/* a flight recorder's dump: what fired it ("signal SIGUSR1",
					 * "wait 23.100 ms", ...); NULL: not a dump */
	uint64_t trigger_ns;		/* when it fired, from capture start (with trigger) */
	uint32_t trigger_tid;		/* the thread whose wait or exit fired it; 0: none */
	char *trigger_thread;		/* its display name (with trigger_tid), or NULL */
	uint32_t nr_drops;
	struct pwz_counter drops[PWZ_MAX_DROPS];	/* e.g. "slice", "wakeup", "kvm_exit", "lost" */
	bool has_steal;			/* steal_ns and cpu_time_ns were read (/proc/stat) */
	uint64_t steal_ns;		/* the host's steal time over the capture, all CPUs */
	uint64_t cpu_time_ns;		/* all CPU time of the host over the capture (the sum of
					 * /proc/stat's "cpu" line, guest time not counted twice) */
	bool has_sched_clock;		/* the scheduling events were stamped with the run queues'
					 * clock, mapped to clock_id (model.h R0); else all with
					 * clock_id itself */
	struct pwz_sched_clock sched_clock;	/* with has_sched_clock */
};

/* Frees what meta owns and zeroes it; NULL is a no-op. */
void pwz_meta_free(struct pwz_meta *meta);

/* Deep copy of src into dst (dst's old content is not freed). Returns 0 or -ENOMEM. */
int pwz_meta_copy(struct pwz_meta *dst, const struct pwz_meta *src);

/* Sets string field *field to a copy of value (NULL allowed). Returns 0 or -ENOMEM. */
int pwz_meta_set_str(char **field, const char *value);

/*
 * The one rule for sums of what a file holds (drop counters, times, counts): they saturate. A
 * file may claim any u64, and a sum that wrapped would show less than its parts (drops adding
 * up to "0 dropped", a runtime below one CPU's share). A sum that would pass 2^64 - 1 stays at
 * PWZ_SATURATED, which no real figure reaches (584 years of nanoseconds): the views show it as
 * "at least" that. pwz_add_sat() adds v to *acc so, and returns whether *acc is saturated
 * (by this sum or before it).
 */
#define PWZ_SATURATED UINT64_MAX

static inline bool pwz_add_sat(uint64_t *acc, uint64_t v)
{
	if (__builtin_add_overflow(*acc, v, acc))
		*acc = PWZ_SATURATED;
	return *acc == PWZ_SATURATED;
}

/* What a text view puts after a figure that may be saturated: " or more", or "". */
static inline const char *pwz_sat_more(uint64_t v)
{
	return v == PWZ_SATURATED ? " or more" : "";
}

/* What fired a flight recorder's dump, for a person, into out (outlen bytes): its reason, and
 * its thread when one fired it: "wait 23.100 ms of thread db-writer (tid 812)". "" when meta
 * is no dump. */
void pwz_meta_trigger_text(const struct pwz_meta *meta, char *out, size_t outlen);

/* Adds value to the drop counter called name (saturating), creating it. Returns 0, or -ENOSPC
 * when full. */
int pwz_meta_add_drop(struct pwz_meta *meta, const char *name, uint64_t value);

/* Total of all drop counters (the "unpaired_switch" counter of older pwz files, which was no
 * loss, left out); PWZ_SATURATED when they add past it. */
uint64_t pwz_meta_total_drops(const struct pwz_meta *meta);

/* Adds or renames the exit name of (isa, code) (copied, truncated to fit); the table stays
 * sorted by (isa, code), so adding and looking up cost O(log n) compares. Returns 0, -ENOMEM,
 * or -E2BIG when the table already holds PWZ_MAX_EXIT_NAMES names. */
int pwz_meta_add_exit_name(struct pwz_meta *meta, uint32_t isa, uint32_t code, const char *name);

/* The name of (isa, code) in meta's table, or NULL. */
const char *pwz_meta_exit_name(const struct pwz_meta *meta, uint32_t isa, uint32_t code);

/* Name of a source, "live", "perf.data", "legacy", "synthetic". */
const char *pwz_source_name(uint32_t source);

/* Log2 histogram bucket of v (see PWZ_HIST_BUCKETS). */
unsigned int pwz_hist_bucket(uint64_t v);

/*
 * Estimates the q-quantile (0..1) of values in a log2 histogram: the geometric middle of the
 * bucket where the quantile falls. Returns 0 for an empty histogram.
 */
uint64_t pwz_hist_quantile(const uint64_t hist[PWZ_HIST_BUCKETS], double q);

/* The values a log2 histogram holds: the sum of its buckets. */
uint64_t pwz_hist_total(const uint64_t hist[PWZ_HIST_BUCKETS]);

/*
 * What a log2 histogram says of its q-quantile (0 < q <= 1): the bucket holding the
 * ceil(q * total)-th smallest value, as the closed range [*lo, *hi] of the values it can hold
 * (bucket 0: [0, 1]; the last bucket has no top: *hi = UINT64_MAX). This is all the histogram
 * knows; pwz_hist_quantile()'s middle is one guess inside it. Returns false, *lo = *hi = 0,
 * for an empty histogram.
 */
bool pwz_hist_range(const uint64_t hist[PWZ_HIST_BUCKETS], double q, uint64_t *lo, uint64_t *hi);

#endif /* PWZ_RECORDS_H */
