/* SPDX-License-Identifier: GPL-2.0 */
/* The ABI between bpf/pwz.bpf.c and user/capture*.c: ring-buffer records, map keys and values. */
#ifndef PWZ_BPF_ABI_H
#define PWZ_BPF_ABI_H

/*
 * Only fixed-width types, so that the BPF target and the host agree on every layout.
 * Every time is CLOCK_MONOTONIC nanoseconds (bpf_ktime_get_ns(), or the scheduler's clock
 * mapped to it: struct sched_clk); userspace converts them to "ns since capture start". A time
 * of 0 means "before the capture began / unknown".
 */

#include "whist.h"	/* the run-queue wait histogram's buckets (PWZ_WHIST_BUCKETS) */

#define PWZ_BPF_COMM_LEN 16	/* TASK_COMM_LEN; == PWZ_COMM_LEN (asserted in capture_records.c) */
#define PWZ_BPF_HIST 40		/* == PWZ_HIST_BUCKETS of user/lib/records.h (asserted there too) */

/*
 * Map sizes: the map definitions of pwz.bpf.c use these, and userspace (user/capture.c) sizes
 * some maps again before load. One place for each number.
 */
#define PWZ_RB_BYTES_DEFAULT (8u << 20)	/* rb: as compiled; --ringbuf-mb sets it at load */
#define PWZ_RB_TASK_BYTES (256u << 10)	/* rb_task as compiled and at least: an eighth of rb at load */
/*
 * The per-thread maps keyed by tid (cpu_aggs, wait_start, kvm_state) are compiled with
 * PWZ_TID_MAP_DEFAULT entries and sized at load time for the host: pid_max (every tid the
 * kernel can hand out, so a long capture never fills them), within
 * [PWZ_TID_MAP_DEFAULT, PWZ_TID_MAP_MAX]; cpu_aggs, whose entries are per CPU, also within
 * PWZ_CPU_AGGS_BUDGET bytes, kvm_state (vCPU threads only) within PWZ_KVM_STATE_HOST_MAX.
 * A map a capture does not use gets one entry (they are preallocated). Past these sizes,
 * insertions are refused and counted in CNT_MAP_FULL.
 */
#define PWZ_TID_MAP_DEFAULT 32768	/* the kernel's default pid_max */
#define PWZ_TID_MAP_MAX (1u << 22)	/* PID_MAX_LIMIT on 64-bit */
#define PWZ_CPU_AGGS_BUDGET (128ull << 20)	/* bytes of kernel memory for cpu_aggs */
#define PWZ_KVM_STATE_MAX 4096		/* kvm_state as compiled: vCPU threads (resized too) */
#define PWZ_KVM_STATE_HOST_MAX 16384	/* kvm_state at most: 328 bytes each, 5 MiB */
#define PWZ_KVM_AGGS_MAX 8192		/* kvm_aggs: (vCPU thread, isa, reason) triples */
/* The selection (sel_tids, sel_tgids): one bit per id, id / PWZ_SEL_WORD_BITS the array's word,
 * sized by user space from the kernel's pid_max (at most PWZ_SEL_IDS_MAX ids, the kernel's limit). */
#define PWZ_SEL_WORD_BITS 64
#define PWZ_SEL_IDS_MAX 4194304

/* Tag of every ring-buffer record: the first __u32 of each record. */
enum rec_type {
	REC_SLICE = 1,		/* struct rec_slice (with the run-queue wait before it) */
	REC_KVM_EXIT = 3,	/* struct rec_kvm_exit */
	REC_TASK = 4,		/* struct rec_task: a new thread or a rename */
	REC_SLICE_BATCH = 5,	/* struct rec_batch: PWZ_BATCH slice records of one CPU */
	REC_EXEC = 6,		/* struct rec_exec: a process's command line after an exec */
};

/* How a slice ended (same values as enum pwz_slice_end). */
enum rec_slice_end {
	REC_END_PREEMPTED = 0,	/* switched out runnable: counted in nivcsw */
	REC_END_SLEPT = 1,	/* switched out to wait: counted in nvcsw */
	REC_END_EXITED = 2,	/* switched out dead (prev_state has TASK_DEAD) */
};

/* Flags of a slice record (same values as enum pwz_slice_flags). */
#define REC_SLICE_UNSEEN_START 1
#define REC_SLICE_CHARGED 2	/* charged_ns holds the kernel's charge of the slice */
#define REC_SLICE_WAKER 4	/* waker_tid and waker_cpu name who woke the thread */
#define REC_SLICE_RUN_DELAY 8	/* run_delay_ns holds the kernel's charge of the wait */

/* What the wait before a slice began with. */
enum rec_wait {
	REC_WAIT_NONE = 0,	/* no wait measured (running at capture start, or not selected) */
	REC_WAIT_WAKEUP = 1,	/* sched_wakeup / sched_wakeup_new */
	REC_WAIT_PREEMPT = 2,	/* switched out runnable */
};

/*
 * prev_state as the sched_switch tracepoint reports it (its TP_printk field, what perf and
 * Perfetto read): one bit of TASK_REPORT (S 0x1, D 0x2, T 0x4, t 0x8, X 0x10, Z 0x20, P 0x40),
 * I 0x80 (TASK_REPORT_IDLE), R+ 0x100 (TASK_REPORT_MAX: preempted), R 0.
 */
#define REC_STATE_IDLE 0x80
#define REC_STATE_PREEMPTED 0x100

/*
 * One run slice, emitted at switch-out, carrying the run-queue wait that ended at its
 * switch-in (one record per switch, not two). 64 bytes.
 */
struct rec_slice {
	__u32 type;		/* REC_SLICE */
	__u32 tid;		/* thread that ran */
	__u16 cpu;		/* CPU it ran on */
	__u16 prev_state;	/* its prev_state at the switch-out, as reported (REC_STATE_*) */
	__u8 end;		/* enum rec_slice_end */
	__u8 wait;		/* enum rec_wait: whether wake_ns holds a wait start */
	__u8 flags;		/* REC_SLICE_UNSEEN_START: switch-in not seen, start_ns is the
				 * CPU's previous switch (user/lib/model.h R2); REC_SLICE_CHARGED,
				 * REC_SLICE_WAKER: the fields below are known */
	__u8 pad;		/* zero */
	__u32 waker_tid;	/* with REC_SLICE_WAKER: the thread current at sched_waking */
	__u32 waker_cpu;	/* with REC_SLICE_WAKER: the CPU it ran on */
	__u64 start_ns;		/* switch-in; 0: already running at capture start */
	__u64 end_ns;		/* switch-out */
	__u64 wake_ns;		/* with wait: when it became runnable (wait = start - wake) */
	__u64 charged_ns;	/* with REC_SLICE_CHARGED: se.sum_exec_runtime out minus in */
	__u64 run_delay_ns;	/* with REC_SLICE_RUN_DELAY: what the kernel charged for the
				 * wait that ended at the switch-in (sched_info.run_delay at this
				 * switch-out minus at the wait's start, user/lib/model.h R9), the
				 * measured one (wait) or one not measured (no wait pending; with
				 * REC_SLICE_UNSEEN_START, the wait the unseen switch-in ended) */
};

/*
 * Slices are handed to the ring buffer PWZ_BATCH at a time, from a per-CPU array ("batch"):
 * one reservation and commit per PWZ_BATCH switches instead of one per switch. A CPU's last
 * partial batch is read from the map at the end of the capture. When a batch cannot be
 * output (ring full), its slices are folded into cpu_aggs and counted in CNT_DROP_SLICE.
 */
#define PWZ_BATCH 16		/* a power of two */

struct rec_batch {
	__u32 type;			/* REC_SLICE_BATCH */
	__u32 n;			/* slices in s[]: PWZ_BATCH in the ring, fewer in the map */
	struct rec_slice s[PWZ_BATCH];	/* in the CPU's switch order, each typed REC_SLICE */
};

/* One KVM exit, emitted at the following kvm_entry of the same thread. 48 bytes. */
struct rec_kvm_exit {
	__u32 type;		/* REC_KVM_EXIT */
	__u32 tid;		/* vCPU thread */
	__u32 vcpu;		/* vcpu_id of the tracepoint */
	__u32 isa;		/* 1 VMX, 2 SVM */
	__u32 reason;		/* exit_reason as the tracepoint gives it */
	__u32 pad;		/* zero */
	__u64 exit_ns;		/* kvm_exit time */
	__u64 guest_ns;		/* previous kvm_entry to this exit; 0 unknown */
	__u64 handling_ns;	/* this exit to the next kvm_entry */
};

/* A thread created (task_newtask) or renamed (task_rename) during the capture. 40 bytes. */
struct rec_task {
	__u32 type;			/* REC_TASK */
	__u32 tid;			/* the thread */
	__u32 tgid;			/* its process; 0 unknown (renames) */
	__u32 is_new;			/* 1 task_newtask, 0 task_rename */
	__u64 time_ns;			/* event time; a birth: the task's start_time */
	char comm[PWZ_BPF_COMM_LEN];	/* comm from then on */
};

/*
 * A process's command line as its exec left it (sched_process_exec, through rb_task after the
 * exec's rename): the VM name of a QEMU-like program is read from it then, while the process
 * lives, not from /proc when its threads are written (a VM that lives less than the reader's
 * poll is gone by then). 1,048 bytes.
 */
#define PWZ_EXEC_ARGS 1024		/* the first bytes of the command line that are kept */
struct rec_exec {
	__u32 type;			/* REC_EXEC */
	__u32 tgid;			/* the process (its leader's tid after the exec) */
	__u64 time_ns;			/* event time */
	__u32 len;			/* bytes of args: NUL-separated arguments; 0 unreadable */
	__u32 cut;			/* 1: the command line is longer than PWZ_EXEC_ARGS */
	char args[PWZ_EXEC_ARGS];	/* the first len bytes of the command line */
};

/*
 * Value of the per-CPU hash "cpu_aggs", keyed by tid (__u32): the slot of CPU n is what the
 * thread did on CPU n, including the run-queue waits that ended with a switch-in on CPU n
 * (added when that slice ends). With streams on, the kernel folds here only the slices whose
 * record it could not reserve (ring full): the reader folds every slice record it reads the
 * same way (capture_fold_slice() of user/capture_records.h) and adds the two, so each slice is
 * counted once and the sum stays exact under drops. Without streams, every slice lands here.
 */
struct cpu_agg_val {
	__u64 runtime_ns;	/* sum of finished slices on this CPU */
	__u64 switches;		/* switch-outs */
	__u64 voluntary;	/* of which slept or exited */
	__u64 involuntary;	/* of which preempted */
	__u64 wait_count;	/* run-queue waits measured */
	__u64 wait_ns;		/* their total */
	__u64 wait_max_ns;	/* the longest */
	__u64 unseen;		/* of the switch-outs, those whose switch-in was unseen (R2) */
	__u64 unseen_ns;	/* their slices' time, kept out of runtime_ns */
	__u64 charged_ns;	/* the kernel's charge (se.sum_exec_runtime) of the slices ... */
	__u64 charged_run_ns;	/* ... whose charge is known, and their runtime_ns */
	__u64 run_delay_ns;	/* the kernel's charge (sched_info.run_delay) of the waits ended
				 * by these slices' switch-ins, measured or not (R9) ... */
	__u64 run_delay_wait_ns;	/* ... the wait_ns of the measured ones among them ... */
	__u64 run_delay_unmeasured_ns;	/* ... and the charge of the others */
};

/*
 * Value of the per-CPU hash "wait_hists" keyed by tid: the waits that cpu_aggs' wait_count
 * counts, by bucket (pwz_whist_bucket() of whist.h, as model_fold counts them), on one CPU.
 * Apart from cpu_aggs, and not preallocated (BPF_F_NO_PREALLOC): 408 bytes per CPU for each
 * thread that waited, not for every possible tid at load. An insertion can fail (the map
 * full, or the allocator's cache empty); the wait is then in cpu_aggs and not here, counted
 * in CNT_HIST_MISS, and the thread's histogram sums to less than its wait_count.
 */
struct wait_hist_val {
	__u32 b[PWZ_WHIST_BUCKETS];	/* waits by bucket (4 G in one bucket on one CPU wrap) */
};

/* Key of the per-CPU hash "kvm_aggs". */
struct kvm_agg_key {
	__u32 tid;		/* vCPU thread */
	__u32 isa;		/* 1 VMX, 2 SVM */
	__u32 reason;		/* exit_reason */
	__u32 pad;		/* zero */
};

/* Value of "kvm_aggs": summed over CPUs by userspace. */
struct kvm_agg_val {
	__u64 count;			/* exits (counted at kvm_exit) */
	__u64 handling_ns;		/* total handling of the exits whose entry was seen */
	__u64 hist[PWZ_BPF_HIST];	/* log2 histogram of handling_ns */
};

/*
 * The states of a vCPU thread's ledger (user/lib/model.h R10; enum pwz_vcpu_state of
 * user/lib/records.h has the same values).
 */
#define PWZ_VS_GUEST 0
#define PWZ_VS_EXIT_KERNEL 1
#define PWZ_VS_EXIT_USER 2
#define PWZ_VS_HALT_POLL 3
#define PWZ_VS_HALT 4
#define PWZ_VS_READY 5
#define PWZ_VS_OTHER_ON_CPU 6
#define PWZ_VS_UNSEEN 7
#define PWZ_VS_NR 8
#define PWZ_VS_DEAD 8		/* the thread exited: nothing accrues */

/* What held the CPU while a vCPU was ready (R10; enum pwz_ready_cause of user/lib/records.h). */
#define PWZ_RC_SAME_VM_VCPU 0	/* a sibling vCPU thread */
#define PWZ_RC_SAME_VM_VMM 1	/* another thread of its VM's process */
#define PWZ_RC_OTHER_VM 2	/* a thread of another VM's process */
#define PWZ_RC_HOST 3		/* any other thread */
#define PWZ_RC_IDLE 4		/* the idle task: the CPU was idle (wakeup latency) */
#define PWZ_RC_UNSEEN 5		/* older than the CPU's recent slices (cpu_recent) */
#define PWZ_RC_IRQ 6		/* hard IRQ and softirq handlers (with --irq: irq_cpu_ns) */
#define PWZ_RC_NR 7
#define PWZ_RC_SLOTS 8		/* cause_ns[]'s length: a power of two, PWZ_RC_NR used */

/* A vCPU thread's ledger (R10): where its time went since start_ns, up to since_ns. */
struct vcpu_ledger {
	__u64 start_ns;		/* its first counted ns: its birth or the capture start; 0: no
				 * ledger (the entry holds exits only) */
	__u64 since_ns;		/* the current state's start; ns[] holds the time before */
	__u64 ek_mark;		/* ns[EXIT_KERNEL] at the pending exit (halt polling's base) */
	__u64 in_ns;		/* its last switch-in */
	__u32 state;		/* PWZ_VS_*, or PWZ_VS_DEAD (from its exit's switch-out) */
	__u32 resume;		/* the on-CPU state a switch-in resumes */
	__u64 ns[PWZ_VS_NR];	/* time in each state */
	__u32 count[PWZ_VS_NR];	/* entries into each by its event */
	__u32 tgid;		/* its process (the VM) */
	__u32 counted;		/* 1: counted in its VM's vm_run.running (on a CPU) */
	__u32 tid;		/* its thread: the key of its vcpu_hists entry */
	__u32 irq_cpu;		/* with --irq: 1 + the CPU whose IRQ time irq_from is; 0 none */
	__u64 irq_from;		/* with --irq: that CPU's IRQ time when its ready state began */
	__u64 stretch_ns;	/* when the current state was entered (since_ns may be later:
				 * a reading closes the time, not the stretch) */
	__u64 cause_ns[PWZ_RC_SLOTS];	/* its ready time by what held the CPU meanwhile
					 * (PWZ_RC_*) */
	__u64 costop_ns;	/* its ready time while a sibling vCPU ran */
	__u64 busy_mark;	/* its VM's busy time (struct vm_run) when its ready state began */
};

/* Value of the hash "vcpu_hists", keyed by a vCPU thread's tid (with the ledger; not
 * preallocated: only vCPU threads have one): the lengths of its states' stretches (each from one
 * event to the next, as led_to() closes them) by log2 bucket (pwz_log2_bucket()). */
struct vcpu_hist {
	__u32 b[PWZ_VS_NR][PWZ_BPF_HIST];
};

/* Value of the array "irq_cpu_ns", keyed by CPU (with the ledger and --irq): the time the
 * CPU spent in the hard IRQ and softirq handlers that --irq times (a hard IRQ inside a softirq
 * once), so that a vCPU's ready time can be charged to them (PWZ_RC_IRQ). Written by its own
 * CPU, read by any; a cache line each. */
struct irq_cpu_total {
	__u64 ns;
	__u64 pad[7];
};

/* The recent slices of a CPU (per-CPU array "cpu_recent", with the ledger): a ring of the last
 * PWZ_RECENT, each ending where the next begins, to charge a vCPU's ready time at its switch-in
 * to what ran on the CPU meanwhile. Consecutive slices of one process (its flags alike, not the
 * idle task) share one entry. */
#define PWZ_RECENT 64		/* a power of two */
struct recent_slice {
	__u64 end_ns;		/* its switch-out */
	__u32 tid;
	__u32 tgid;		/* | PWZ_RECENT_VCPU when a vCPU (whether of a VM is asked at the
				 * charge, off the switch's path) */
	__u64 irq_ns;		/* with --irq: the CPU's IRQ time (irq_cpu_ns) at its end */
};
#define PWZ_RECENT_VCPU 0x80000000u
#define PWZ_RECENT_TGID 0x7fffffffu

struct cpu_recent {
	__u32 head;		/* slots filled so far (the newest at (head - 1) % PWZ_RECENT) */
	__u32 pad;
	struct recent_slice s[PWZ_RECENT];
};

/* Value of the hash "vm_run", keyed by a VM's process id (with the ledger): how many of its
 * vCPU threads run now, and for how long at least one did. */
struct vm_run {
	__s64 running;		/* its vCPU threads on a CPU now */
	__u64 busy_since;	/* when running last went from 0 to 1 */
	__u64 busy_ns;		/* the time before that some ran */
};

/* Value of the hash "kvm_state", keyed by tid: the vCPU thread's last exit and entry, and its
 * ledger. */
struct kvm_state {
	__u64 exit_ns;		/* last kvm_exit not yet followed by an entry; 0 none */
	__u64 entry_ns;		/* last kvm_entry; 0 none */
	__u32 isa;		/* of the pending exit */
	__u32 reason;		/* of the pending exit */
	__u32 vcpu;		/* vcpu_id of the pending exit */
	__u32 pad;		/* zero */
	__u64 guest_ns;		/* guest time before the pending exit; 0 unknown */
	struct vcpu_ledger led;	/* with want_ledger */
};

/* Value of the per-CPU array "cpu_state" (one entry): the slice running on this CPU. */
struct cpu_state {
	__u64 start_ns;		/* its switch-in; 0 none seen yet */
	__u32 tid;		/* the thread running */
	__u16 seen;		/* 1 once a sched_switch was seen on this CPU */
	__u16 sel;		/* 1: this state is the running thread's, stamped at its
				 * switch-in (always without a filter; a selected thread's, and
				 * with -t a thread's named since user space last decided); 0: the
				 * filter left it out at its switch-in, and its switch-out is the
				 * fast path, which keeps only tid and switches */
	__u64 wake_ns;		/* start of the wait that ended at start_ns; 0 none */
	__u32 wait;		/* enum rec_wait of that wait */
	__u32 waker_known;	/* 1: waker_tid, waker_cpu name who woke it */
	__u64 switches;		/* sched_switch events on this CPU */
	__u64 unpaired;		/* switch-outs of a thread not seen switched in here */
	__u64 sum_start;	/* the thread's se.sum_exec_runtime at start_ns, plus 1; 0 unknown */
	__u32 waker_tid;	/* who woke it (sched_waking's current) */
	__u32 waker_cpu;	/* on which CPU */
	__u64 rd_base;		/* R9: the thread's sched_info.run_delay when that wait began,
				 * or at the switch-in if none was pending, plus 1; 0 unknown */
	__u64 last_ns;		/* with the scheduler's clock: the time of this CPU's last switch
				 * or KVM event, which no later one is stamped before */
};

/*
 * The scheduler's clock of one CPU (map sched_clk, by CPU; model.h R0): how its run queue's
 * clock (rq->clock, sched_clock() as update_rq_clock() last read it) maps to CLOCK_MONOTONIC.
 * The switch program samples the two clocks at most once a PWZ_SCHED_CLK_SYNC_NS on its CPU
 * (offset = CLOCK_MONOTONIC - rq clock, mod 2^64, read after the scheduler's own work since its
 * clock update: never below the true offset); the offset used is the least sample of the
 * current window of PWZ_SCHED_CLK_WINDOW_NS and the one before, so a sample that came late
 * never moves the stamps, and a drift between the clocks is followed within two windows. A
 * wakeup onto the run queue (any CPU's program, under that run queue's lock) notes the rq clock
 * it saw.
 */
struct sched_clk {
	__u64 off;		/* the offset used: the lesser of cur_min and prev_min */
	__u64 sync_rq;		/* the rq clock at the last sample; 0 none yet */
	__u64 woke_rq;		/* the rq clock at the last wakeup onto this run queue */
	__u64 stamped;		/* switches stamped from the rq clock */
	__u64 stale;		/* switches that read CLOCK_MONOTONIC though no sample was due:
				 * the rq clock had not moved since the last wakeup, or was
				 * behind the CPU's last event, or a vCPU thread switched */
	__u64 samples;		/* samples taken (the rq clock is used from the second) */
	__u64 win_rq;		/* the rq clock where the current window began */
	__u64 cur_min;		/* the least sample of the current window */
	__u64 prev_min;		/* of the window before (cur_min at the first sample) */
	__u64 late;		/* samples left out: far above the offset in use */
	__u64 pad[6];		/* two cache lines per CPU */
};

#define PWZ_SCHED_CLK_SYNC_NS 1000000ull	/* a sample per CPU and ms at most */
#define PWZ_SCHED_CLK_WINDOW_NS 33554432ull	/* 2^25 ns: the drift followed within 67 ms */
#define PWZ_SCHED_CLK_LATE_NS 10000ull		/* a sample this far above the offset is late */
#define PWZ_SCHED_CLK_SLEW_SHIFT 11		/* plus 1/2048 of the time since the last one
						 * (488 ppm: NTP slews at most 500) */

/* A wait pending when user space read them (the iterator "pending_waits"): a thread runnable
 * since ts, not yet switched in. */
struct pending_wait {
	__u32 tid;
	__u32 pad;
	__u64 ts;		/* wakeup or preemption time (CLOCK_MONOTONIC) */
};

/* Value of task storage "wait_ts" (tp_btf) or the hash "wait_start" keyed by tid (raw_tp):
 * when the thread became runnable, and who woke it. */
struct wait_start {
	__u64 ts;		/* wakeup or preemption time; 0 none pending */
	__u32 waker_tid;	/* with waker_known: the thread that woke it (sched_waking) */
	__u16 waker_cpu;	/* and its CPU */
	__u8 preempted;		/* 1 preemption, 0 wakeup */
	__u8 waker_known;	/* 1: waker_* set by sched_waking for the wakeup to come */
	__u64 rd_base;		/* with ts: its sched_info.run_delay then (want_run_delay) */
};

/* Indexes of the per-CPU array "counters" (one entry of PWZ_CNT_MAX __u64). */
enum pwz_cnt {
	CNT_DROP_SLICE = 0,	/* slice records (and their waits) not reserved: ring full */
	CNT_DROP_KVM_EXIT,	/* kvm_exit records not reserved */
	CNT_DROP_TASK,		/* task and exec records not reserved (rb_task full) */
	CNT_MAP_FULL,		/* aggregate or state map insertions refused (map full) */
	CNT_SWITCHES,		/* sched_switch events (summed from cpu_state by userspace) */
	CNT_KVM_EXITS,		/* kvm_exit events handled (selected threads) */
	CNT_UNPAIRED,		/* unpaired switch-outs (summed from cpu_state by userspace) */
	CNT_HIST_MISS,		/* waits in cpu_aggs left out of wait_hists (its insertion
				 * failed: map full or no memory); their threads' histograms
				 * are short */
	PWZ_CNT_MAX = 8,
};

/*
 * --irq (bpf/irq.bpf.h): hard and soft IRQ time per CPU, per vector and per interrupted thread.
 * Key of the per-CPU hash "irq_aggs" (the per-CPU slot is the CPU). The thread is the one
 * current on the CPU when the interrupt came (the interrupted thread; ksoftirqd for the
 * softirqs it runs); with a selection (-t, -p), threads outside it are PWZ_IRQ_TID_OTHER.
 */
#define PWZ_IRQ_HARD 0			/* irq_handler_entry/exit: vector = the irq number */
#define PWZ_IRQ_SOFT 1			/* softirq_entry/exit: vector = the softirq vec_nr */
#define PWZ_IRQ_TID_OTHER 0xffffffffu	/* threads outside the selection, together */
#define PWZ_IRQ_AGGS_MAX 16384		/* irq_aggs: (thread, kind, vector) triples */
#define PWZ_IRQ_NAMES_MAX 1024		/* irq_names: hard IRQs named */
#define PWZ_IRQ_NAME_LEN 32		/* a handler's name (irqaction::name), NUL included */

struct irq_agg_key {
	__u32 tid;		/* the interrupted thread (0 idle), or PWZ_IRQ_TID_OTHER */
	__u32 kind;		/* PWZ_IRQ_HARD, PWZ_IRQ_SOFT */
	__u32 vector;		/* irq number, or softirq vector (0 HI ... 9 RCU) */
	__u32 pad;		/* zero */
};

/* Value of "irq_aggs". A hard IRQ that came during a softirq is charged to the hard IRQ only:
 * its time is taken out of the softirq's time_ns and noted in the softirq's nested_ns, so that
 * the time_ns of all rows add up without counting any nanosecond twice. */
struct irq_agg_val {
	__u64 count;		/* handler runs (hard: one per irqaction called) */
	__u64 time_ns;		/* their time, entry to exit, less nested hard IRQs (soft) */
	__u64 max_ns;		/* the longest, by the same measure */
	__u64 nested_ns;	/* softirq: hard IRQ time taken out of time_ns; hard: 0 */
};

/* Value of the per-CPU array "irq_cpu" (one entry): the interrupts running on this CPU. */
struct irq_cpu_state {
	__u64 hard_start;	/* irq_handler_entry time; 0 none running */
	__u64 soft_start;	/* softirq_entry time; 0 none running */
	__u64 nested_ns;	/* hard IRQ time inside the running softirq */
	__u32 hard_irq;		/* the irq running */
	__u32 soft_vec;		/* the softirq vector running */
};

/* Value of the hash "irq_names", keyed by irq number (__u32). */
struct irq_name {
	char name[PWZ_IRQ_NAME_LEN];	/* irqaction::name of its first handler seen */
};

/*
 * Log2 histogram bucket of v, as both sides count it: floor(log2(v)), 0 for v == 0, the last
 * bucket for anything larger (same as pwz_hist_bucket() of user/lib/records.h). Not through
 * pwz_log2() of log2.h: the verifiers of 5.10 and 6.1 lose the bound of its OR steps, and the
 * histogram's index then reads as unbounded (EACCES at load).
 */
static inline __u32 pwz_log2_bucket(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r < PWZ_BPF_HIST ? r : PWZ_BPF_HIST - 1;
}

#endif /* PWZ_BPF_ABI_H */
