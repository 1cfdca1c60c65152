/* SPDX-License-Identifier: GPL-2.0 */
/* The content model: the one list of rules for slices, waits, exits and aggregates, and the one
 * host-side fold from records to aggregates. */
#ifndef PWZ_MODEL_H
#define PWZ_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cdict.h"
#include "records.h"

/*
 * THE RULES. Every way in (bpf/pwz.bpf.c in the kernel, user/lib/sched_model.c for perf.data
 * and raw event streams, user/lib/legacy_read.c for perfwhiz files) makes records by these
 * rules, and every way out (--list, --stats, the dashboards, the diff, the exports) turns
 * records into figures through model_fold below. The kernel's own accounting is the reference:
 * runtime from switch timestamps, waits as schedstat's run_delay counts them.
 *
 * R0 Clock. Every time is on one clock, the file's META clock_id (a live capture's:
 *    CLOCK_MONOTONIC). A live capture stamps a switch and a wakeup with the clock the
 *    scheduler read for it, the run queue's (sched_clock() at update_rq_clock(), tens of ns
 *    before the tracepoint), mapped to CLOCK_MONOTONIC by an offset per CPU that the switch
 *    program samples at most once a ms (bpf/sched_clock.bpf.h); the KVM, IRQ and task events
 *    read CLOCK_MONOTONIC. Where the run queue's clock is stale the switch reads
 *    CLOCK_MONOTONIC too: when that clock has not moved since the last wakeup onto its run
 *    queue (a wakeup that preempts skips the switch's update, rq_clock_skip_update()), and
 *    when the stamp would not fall after the CPU's last event (a KVM event, a switch). So a wait
 *    stays the wait as lived (R4) and a CPU's events keep their order: each is after the one
 *    before it, by 1 ns at least. A vCPU thread's switches and wakeups read CLOCK_MONOTONIC,
 *    so that its ledger's events (R10) on different CPUs keep their order. A mapped stamp sits
 *    within the mapping's wobble of where CLOCK_MONOTONIC would have put it (META
 *    sched_clock_residual_ns; sched_clock_spread_ns between CPUs); a wait that begins on one
 *    CPU's clock and ends on another's within that is 0, never negative. Without it (raw_tp, a filter, a kernel
 *    without the fair-group run queue: META has no sched_clock) every event reads
 *    CLOCK_MONOTONIC.
 * R1 Slice. A thread runs on a CPU from its switch-in to its switch-out (sched_switch times).
 *    The first switch seen on a CPU closes a slice starting at 0: that thread ran when the
 *    capture began. At the end of the capture each CPU's running thread gets a PWZ_END_OPEN
 *    slice up to the end. So, per CPU, the slices of all threads (the idle task, tid 0,
 *    included) tile the capture from 0 to its end: every nanosecond of every CPU is in exactly
 *    one slice.
 * R2 Unseen switch-in. When a switch-out names a thread that is not the one last switched in
 *    on that CPU (the recorder missed events, or the hypervisor switched threads without the
 *    tracepoint firing), its slice still closes, starting at the last event known on that CPU
 *    (the previous switch there), and carries PWZ_SLICE_UNSEEN_START: how that time splits
 *    between this thread and the one(s) before it is unknown. Such time is never added to a
 *    thread's runtime; it is kept apart (unseen_ns, and the count of these switch-outs), per
 *    thread and per CPU, so no CPU time vanishes and none is guessed. These are not drops.
 *    The thread believed running before is taken as switched out, unseen, at that point.
 * R3 End kind. prev_state 0 (R) or only the preempt bit (R+) is PWZ_END_PREEMPTED
 *    (involuntary); X or Z (or TASK_DEAD) is PWZ_END_EXITED; anything else (S, D, ...) is
 *    PWZ_END_SLEPT. PREEMPTED counts as involuntary, SLEPT and EXITED as voluntary. Every
 *    closed slice (R1, R2) is one switch-out; an OPEN slice is none.
 * R4 Wait (run-queue wait, "CPU ready"). A wait starts when a thread becomes runnable while not
 *    running and not already waiting: a wakeup (sched_wakeup, sched_wakeup_new) of a thread
 *    that is neither on a CPU nor already waiting, or a switch-out while runnable (R3
 *    PREEMPTED). A wakeup of a thread that is running or already waiting changes nothing: the
 *    first event wins, as run_delay counts from the enqueue. A voluntary switch-out ends any
 *    pending wait unmeasured. The wait ends at the thread's next switch-in; its length is
 *    switch-in minus start and may be 0 (a zero-length wait is a wait). A wait still pending at
 *    the end, or begun before the capture, is not measured. Lost events forget pending waits.
 * R5 KVM exit. A kvm_exit is paired with the same thread's next kvm_entry, on whatever CPU
 *    (the vCPU thread may migrate or be preempted while the exit is handled): handling is the
 *    entry minus the exit; guest time is the exit minus the thread's previous entry. An exit
 *    without a following entry (a second exit first, the capture's end, lost events) is
 *    flagged PWZ_EXIT_UNPAIRED with handling 0: it counts as an exit, not in handling time
 *    nor its histogram. A paired exit may take 0 ns by a coarse clock: it counts as handled.
 * R6 Window [from, to). A slice adds its part inside the window to runtime (or unseen time),
 *    and its switch-out counts when the switch-out time is inside the window. A wait counts,
 *    whole, in the window that holds its end (the switch-in); an exit in the window that
 *    holds its kvm_exit time. The whole capture is the window [0, UINT64_MAX). The live
 *    view's intervals (user/live_frame.h) cut waits as windows cut slices: a wait adds its
 *    part inside the interval, one still pending at a reading counting up to it, so that no
 *    thread is ready longer than the interval; its count, histogram and kernel charge (R9)
 *    still count in the interval of its end.
 * R7 Aggregates. Per (thread instance, cpu): runtime, switch-outs, voluntary, involuntary,
 *    unseen time and unseen switch-ins (R2). Per instance: wait count, total, maximum, and the
 *    waits' histogram, each wait in the bucket pwz_whist_bucket() of bpf/whist.h gives it
 *    (the kernel's fold and this one count the same buckets; a percentile is read as the range
 *    of its bucket, pwz_whist_quantile(); an aggregate whose histogram does not hold all its
 *    waits (a file written before it; a live capture whose kernel could not make the
 *    thread's entry, "hist_miss") has none: pwz_wait_agg_has_hist()). Per
 *    (instance, isa, reason): exits, handling total, log2 histogram of handling (paired exits
 *    only). A live capture's are exact under ring-buffer drops: the kernel folds by these rules
 *    the records it could not send, the reader folds the ones it read, and the two are added.
 *    (The kernel keys its part by tid: for a tid reused during the capture, the dropped
 *    records' part is counted to the tid's last instance. pwz-bpf writes an exited
 *    instance's aggregates before the end (model_fold__take()) but keeps its birth, so that
 *    its records still on their way then (a slice in another CPU's batch) and the kernel's
 *    part go to the same instance in a second aggregate, which readers add to the first.)
 * R8 Tasks and instances. A thread is named by task records; a later record of the same
 *    instance renames it. A tid is a thread *instance* from its birth (a task record flagged
 *    PWZ_TASK_BORN, at the thread's start: a live capture's from task_newtask, at its task's
 *    start_time; perf's FORK, at its own time; birth 0 for a thread there at the start) to
 *    the next birth of the same tid: the kernel recycles tids, and a recycled tid is another
 *    thread. A record belongs to the instance of its tid with the latest birth at or before
 *    its time: a slice's end (switch-out), a wait's end (switch-in), an exit's kvm_exit time.
 *    Aggregates carry the birth of their instance (since_ns).
 * R9 The kernel's charge of a wait (live captures, META has_run_delay). Beside each wait's wall
 *    time (R4, ready time as it was lived), the capture keeps what the kernel charged for it:
 *    how much the thread's sched_info.run_delay grew from the wait's start to the end of the
 *    slice it ended (read at the wakeup or preemption and at that switch-out; the kernel adds
 *    at the switch-in, and at a dequeue while queued, a migration). That is the figure of
 *    /proc/PID/schedstat, libvirt's vcpu.N.delay and KubeVirt's vcpu delay. It runs on the run
 *    queue's clock from the enqueue, and a wakeup that preempts skips that clock's update
 *    before the switch (rq_clock_skip_update()), so it is short of the wall time by the
 *    wakeup-to-switch latency of such waits. A wait the capture could not measure (woken
 *    before the capture, or its switch-in unseen, R2) is still charged where its base is
 *    known: its run_delay at the switch-in, or a start still pending; so a thread's
 *    run_delay_ns over the capture is the growth of its run_delay, but for the wait before a
 *    slice still running at the end and the waits around events the tracepoints missed (a
 *    slice whose switch-out was unseen takes the charge of the wait before it along).
 *    Aggregates per instance: run_delay_ns (every charge), run_delay_wait_ns (the wall time
 *    of the measured waits among them) and run_delay_unmeasured_ns (the charge of the
 *    others); a charge counts in the window of its switch-in (R6; the switch-out where that
 *    was unseen), whole-capture figures only, since the streams carry no charge. Which figure
 *    the views use: every view's ready time is the wait as lived
 *    (R4: what delayed the thread); beside it, where both are known and differ by more than
 *    a bucket (summary_ready_differs(); --live: summary_ready_figures_differ() on the
 *    interval's figures, a charge counting in the interval of its switch-out), the kernel's
 *    charge, to compare with those counters.
 * R10 vCPU ledger (captures with the scheduler and KVM events; whole capture). Every
 *    nanosecond of a vCPU thread instance's life within the capture is in one state (enum
 *    pwz_vcpu_state), kept by the kernel from the thread's events: kvm_entry enters guest,
 *    kvm_exit exit_kernel, kvm_userspace_exit exit_user (other_on_cpu for a run interrupted by
 *    a signal or an error), a switch-out ready (preempted, R3) or halt (slept), a wakeup of a
 *    halted thread ready (R4's wakeups: one of a thread still on CPU is none), and a switch-in
 *    resumes the on-CPU state the switch-out left (exit_kernel for one left in the guest). At
 *    kvm_vcpu_wakeup (the end of a halt in the kernel, of ns, blocked or not) the on-CPU part
 *    of that halt moves from exit_kernel to halt_poll. A thread is known as a vCPU from its
 *    first KVM event, from when it names itself as QEMU names vCPUs ("CPU <n>/KVM": on CPU,
 *    other_on_cpu), or from the start when it had that name then: its first event then also
 *    says the state before it (a kvm_exit: guest; a wakeup: halt; a switch-in: ready; a
 *    kvm_userspace_exit: exit_kernel; else unseen). Otherwise the time from its birth or the
 *    capture start to its first event is unseen. A switch-out whose switch-in was unseen (R2)
 *    ends its ready or halt state at the last switch seen on that CPU, and the time since is
 *    unseen, as the slice's. Each ready interval that ends (a switch-in) is charged to what
 *    ran on that CPU meanwhile (enum pwz_ready_cause: the CPU's last 64 slices the kernel
 *    keeps, a process's consecutive ones as one; what lies before them is unseen; with --irq
 *    the IRQ handlers' time within them is irq, taken out of what they interrupted: exact
 *    for each slice wholly inside the interval and for the one it began in when it waited on
 *    the CPU it then ran on, in proportion to the part for a slice cut otherwise), and its
 *    part during which a sibling vCPU of its process ran on any CPU is its co-stop; one still
 *    open at the capture's end is unseen, so that the causes add up to the ready state (a
 *    reading of a running capture leaves it to its switch-in). Its life
 *    ends at its exit's switch-out or the capture end (the kernel keys ledgers by tid: a
 *    recycled tid's next vCPU thread goes on in the same ledger from its birth, unseen until
 *    its naming or first KVM event, and the ledger is its last instance's, as R8 gives every
 *    kernel aggregate of a recycled tid); alive_ns is that life within the
 *    capture, and the states add up to it. count[s] counts the entries into s by its event (a
 *    switch-in that resumes a state is none); hist[s] its stretches, each from the event that
 *    entered s to the one that left it (a switch-out and the switch-in that resumes s cut it
 *    in two).
 *    Aggregated in the kernel, so exact when records drop and the same with
 *    --aggregate-only, --live and --serve. An import of perf.data with switches, wakeups and
 *    KVM exits has one folded from its records by the same transitions (ledger_fold.h), which
 *    knows less: a kvm_entry only as its exits' guest and handling times give it; exit_user
 *    and halt_poll only where the file has kvm_userspace_exit and kvm_vcpu_wakeup (else that
 *    time stays in exit_kernel, as a kernel without them keeps it); and what the records miss
 *    (lost events) is unseen where the kernel would have cut a state: a switch-in after a
 *    sleep without a wakeup, a wakeup or KVM event that finds the thread on the wrong side of
 *    a switch. It knows more too: every event of every thread is in the records, so each
 *    vCPU is followed from its birth or the capture start (its first event says the state
 *    before it), and a ready interval is charged to all the CPU's slices meanwhile (a slice
 *    whose switch-in was unseen, R2, and time no slice covers are the unseen cause); co-stop
 *    is its overlap with the slices of its process's other vCPU threads. tests/vmtest holds
 *    the two against each other on one live capture of real KVM (tools/vcpu-ledgers folds its
 *    records): guest time, entries and stretches are equal to the ns, and so is exit_kernel
 *    with exit_user and halt_poll; so is a vCPU's life, both from its birth (its start_time)
 *    or the capture start; the fold follows a thread born during the capture from its
 *    birth, as its first task record already carries the vCPU name, where the kernel
 *    knows it only from its naming (the waits before are the fold's alone); the kernel's
 *    causes are the fold's less what lay before its 64 slices. A flight dump (user/flight.h)
 *    has the fold's over its window, from the records it holds: its threads are there from
 *    its time 0 (its task records, no births), every event inside it is in the records, so a
 *    vCPU there at the window's start is followed from it as at a capture's start (its first
 *    event in the window says the state before it; a wait begun before the window, which has
 *    no record, leaves a switch-in: ready); a thread born inside the window (the recorder's
 *    BORN record) is unseen from 0 to its first event (ledger_fold__late()). Its life in the
 *    dump is the window's, or until it exited. A legacy file has none.
 */

/* A time window [from_ns, to_ns) in ns from the capture start. */
struct model_window {
	uint64_t from_ns;
	uint64_t to_ns;		/* UINT64_MAX: to the end */
};

/* The whole capture. */
#define MODEL_WHOLE ((struct model_window){ 0, UINT64_MAX })

/* R6: the part of slice s inside w, in ns. */
uint64_t model_slice_run_in(const struct pwz_slice *s, const struct model_window *w);

/* R6: whether slice s touches w at all (some run inside, or its switch-out inside). */
bool model_slice_touches(const struct pwz_slice *s, const struct model_window *w);

/* R3, R6: whether s ends with a switch-out that lies inside w. */
bool model_slice_switch_in_window(const struct pwz_slice *s, const struct model_window *w);

/* R6: whether wait wk counts in w (its end, the switch-in, lies inside). */
bool model_wait_in(const struct pwz_wakeup *wk, const struct model_window *w);

/* R6: whether exit e counts in w (its kvm_exit time lies inside). */
bool model_exit_in(const struct pwz_kvm_exit *e, const struct model_window *w);

/*
 * The fold: records in, aggregates (R7) out. Slices, waits and exits are clipped to the window
 * given at creation (R6); aggregates added with the *_agg calls are taken whole (they are
 * whole-capture figures by definition). Memory grows with the distinct keys, not the records.
 */
struct model_fold;

/* A fold over window w (NULL: the whole capture). NULL with errno ENOMEM. */
struct model_fold *model_fold__new(const struct model_window *w);

/*
 * R8: tid was born at birth_ns (> 0; 0 is ignored): records of tid from then on (until a
 * later birth) fold into that instance. Give births before the records they govern (a record
 * folded earlier stays where it was put). Returns 0 or -ENOMEM.
 */
int model_fold__born(struct model_fold *f, uint32_t tid, uint64_t birth_ns);

/* R8: the birth of the instance of tid at time_ns (0: the one there at the start). */
uint64_t model_fold__instance(const struct model_fold *f, uint32_t tid, uint64_t time_ns);

/* NULL is a no-op. */
void model_fold__free(struct model_fold *f);

/* Folds one slice (R1-R3, R6). Returns 0 or -ENOMEM. */
int model_fold__slice(struct model_fold *f, const struct pwz_slice *s);

/* Folds one measured wait (R4, R6). Returns 0 or -ENOMEM. */
int model_fold__wait(struct model_fold *f, const struct pwz_wakeup *wk);

/*
 * R9: adds charge_ns, the kernel's charge of one wait of tid that ended at end_ns (its
 * switch-in; where that was unseen (R2), the switch-out that followed), to the instance's
 * run_delay_ns; and, for a measured wait, wait_ns, its wall time, to its run_delay_wait_ns,
 * else the charge to its run_delay_unmeasured_ns. Counted whole in the window that holds
 * end_ns (R6). Returns 0 or -ENOMEM.
 */
int model_fold__run_delay(struct model_fold *f, uint32_t tid, uint64_t end_ns, uint64_t charge_ns,
			  bool measured, uint64_t wait_ns);

/* Folds one KVM exit (R5, R6). Returns 0 or -ENOMEM. */
int model_fold__kvm_exit(struct model_fold *f, const struct pwz_kvm_exit *e);

/* Adds aggregates made elsewhere (a file's, the kernel's): every count and total summed,
 * maxima the larger. Return 0 or -ENOMEM. */
int model_fold__cpu_agg(struct model_fold *f, const struct pwz_cpu_agg *a);
int model_fold__wait_agg(struct model_fold *f, const struct pwz_wait_agg *a);
int model_fold__kvm_agg(struct model_fold *f, const struct pwz_kvm_agg *a);

/*
 * The aggregates so far, sorted by key ((tid, since, cpu); (tid, since); (tid, since, isa,
 * reason)), through *out;
 * each returns the number of entries. The arrays belong to the fold and stay valid until its
 * next call. NULL out for an empty fold.
 */
size_t model_fold__cpu_aggs(struct model_fold *f, const struct pwz_cpu_agg **out);
size_t model_fold__wait_aggs(struct model_fold *f, const struct pwz_wait_agg **out);
size_t model_fold__kvm_aggs(struct model_fold *f, const struct pwz_kvm_agg **out);

/* Calls sink's cpu_agg, kvm_agg and wait_agg (NULL ones skipped) for every aggregate, sorted as
 * above. Returns 0 or the first callback's error. */
int model_fold__emit(struct model_fold *f, const struct cdict_visitor *sink);

/* The number of aggregates held (every key of the three tables). */
size_t model_fold__count(const struct model_fold *f);

/*
 * Moves the aggregates of the thread instances take(ctx, tid, since_ns) selects out of f: each
 * goes to sink as model_fold__emit() would send it, then leaves f, which keeps the others (a
 * later record of such an instance starts a new aggregate: the reader adds the records of one
 * key, cdict.md). The births of the same tid's instances before these are forgotten (R8: they
 * ended); theirs stay (births__end()), so that a later record of the tid without a newer
 * birth still folds into its instance. Time O(n log n) in the aggregates held: call it for
 * a batch of instances. Returns 0, -ENOMEM, or the first callback's error (then the aggregates not yet
 * sent are still in f).
 */
int model_fold__take(struct model_fold *f, bool (*take)(void *ctx, uint32_t tid, uint64_t since_ns),
		     void *ctx, const struct cdict_visitor *sink);

/* The cdict_visitor that folds what a reader or a model delivers (slices, wakeups, exits and
 * aggregates) into f; meta and task are left NULL for the caller to fill. */
struct cdict_visitor model_fold__visitor(struct model_fold *f);

#endif /* PWZ_MODEL_H */
