/* SPDX-License-Identifier: GPL-2.0 */
/* pwz-bpf --live's frame: one interval's figures, made by user/live.h and shown by
 * user/live_screen.h. */
#ifndef PWZ_LIVE_FRAME_H
#define PWZ_LIVE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "records.h"

/* One thread over one interval: differences of the kernel's totals (bpf/pwz.h cpu_aggs, with
 * the slice running at each end counted up to then) between the interval's two readings. */
struct live_task {
	uint32_t tid;
	uint32_t tgid;			/* 0 unknown */
	char name[PWZ_NAME_MAX];	/* display name (task table), raw bytes: print via termsafe */
	uint64_t run_ns;		/* CPU time in the interval, all CPUs */
	uint64_t switches;		/* switch-outs */
	uint64_t voluntary;		/* of which slept or exited */
	uint64_t involuntary;		/* of which preempted */
	uint64_t waits;			/* run-queue waits that ended in the interval */
	uint64_t wait_ns;		/* the time runnable and not running within the interval:
					 * the waits that ended in it, from the interval's start
					 * or their own, and the waits still pending at its end,
					 * so far (where capture__pending_waits() reads them; else
					 * the waits that ended in it, whole); a reading's: the
					 * total since the start */
	uint64_t ended_wait_ns;		/* the waits that ended in the interval, whole (the
					 * kernel's total of them; a reading's: since the start):
					 * what wait_hist holds the lengths of */
	uint64_t wait_max_ns;		/* the longest wait since the start (a reading's) */
	uint32_t wait_hist[PWZ_WHIST_BUCKETS];	/* the waits by bucket (bpf/whist.h), as the
					 * kernel counts them: a reading's totals, a frame's
					 * differences (modulo 2^32, as the kernel's counters wrap) */
	bool has_wait_p99;		/* a frame's: the interval's waits had a histogram that
					 * the kernel did not miss entries of (CNT_HIST_MISS) */
	uint64_t wait_p99_lo_ns;	/* then the bucket [lo, hi] holding their p99 (hi cut to
					 * wait_max_ns: the interval's longest is no longer) */
	uint64_t wait_p99_hi_ns;
	uint64_t exits;			/* KVM exits */
	uint64_t run_delay_ns;		/* the kernel's charge of the waits whose charge is known
					 * (model.h R9; the frame's has_run_delay) */
	uint64_t run_delay_wait_ns;	/* wait_ns of the measured ones among them */
	uint64_t run_delay_unmeasured_ns;	/* the part of run_delay_ns charged for the others */
	int32_t vm;			/* a frame's: its VM's index in vms (a vCPU, or another
					 * thread of its process), -1 none (live_frame_vms()) */
	bool vcpu;			/* a frame's: one of that VM's vCPUs */
	bool has_ledger;		/* a vCPU thread with a ledger in the kernel (model.h
					 * R10): state_ns and costop_ns hold it */
	uint64_t state_ns[PWZ_VCPU_STATES];	/* its time in each state (enum pwz_vcpu_state;
					 * a reading's: since the start, up to the reading) */
	uint64_t cause_ns[PWZ_READY_CAUSES];	/* its ready time by what held its CPU (ended
					 * waits; enum pwz_ready_cause) */
	uint64_t costop_ns;		/* its ready time while a sibling vCPU ran (ended waits) */
};

/* The index of tid in tasks[0 .. n) (sorted by tid), with *found, or where it would go. */
size_t live_task_find(const struct live_task *tasks, size_t n, uint32_t tid, bool *found);

/*
 * Whether frame task d has nothing in its interval: no figure, no histogram bucket and no
 * ledger state grew. Each kernel map is read on its own, so a thread's interval can hold one
 * of them alone (a vCPU halted throughout has only its ledger): such a task is not empty, or
 * that figure would be lost to every view.
 */
bool live_task_empty(const struct live_task *d);

/* One (vCPU thread, exit reason) over one interval. */
struct live_exit {
	uint32_t tid;
	uint32_t isa;			/* enum pwz_isa */
	uint32_t reason;
	uint64_t count;			/* exits in the interval */
	uint64_t handling_ns;		/* their handling time (paired exits) */
};

/* One VM over one interval: its vCPU threads active in it, rolled up (user/live_vms.h). */
struct live_vm {
	char name[PWZ_NAME_MAX];	/* its name (raw bytes: print via termsafe) */
	uint32_t tgid;			/* its process (its first vCPU's); 0 unknown */
	unsigned int vcpus;		/* vCPU threads active in the interval */
	uint64_t run_ns;		/* their CPU time */
	uint64_t wait_ns;		/* their ready time as lived (each within the interval) */
	uint64_t waits;			/* their waits that ended */
	uint64_t exits;			/* their KVM exits */
	uint64_t emu_run_ns;		/* CPU time of the process's other threads */
	bool has_wait_p99;		/* wait_p99_*: the bucket holding the p99 of all their
					 * waits (none when a vCPU's histogram missed entries) */
	uint64_t wait_p99_lo_ns;
	uint64_t wait_p99_hi_ns;
	unsigned int ledger_vcpus;	/* of its vCPUs, those with a ledger: state_ns and
					 * costop_ns are their sums */
	uint64_t state_ns[PWZ_VCPU_STATES];
	uint64_t costop_ns;
};

/* What one interval shows. */
struct live_frame {
	uint64_t seq;			/* 1, 2, ...: the interval's number */
	uint64_t t_ns;			/* its end, ns from the start of the view */
	uint64_t wall_ns;		/* its end, CLOCK_REALTIME */
	uint64_t dt_ns;			/* its length */
	int nr_cpus;
	uint64_t idle_ns;		/* the idle task's time (tid 0), all CPUs */
	uint64_t switches;		/* every switch seen (CNT_SWITCHES) */
	uint64_t drops;			/* records or map entries refused (map_full, task,
					 * hist_miss) */
	uint64_t bpf_ns;		/* time in the BPF programs (0: stats off) */
	bool has_steal;			/* steal_ns and cpu_time_ns were read (/proc/stat at both
					 * ends of the interval) */
	uint64_t steal_ns;		/* the host's steal time in the interval, all CPUs: what
					 * the hypervisor ran instead of this machine's CPUs */
	uint64_t cpu_time_ns;		/* all the CPU time /proc/stat counted in it */
	bool has_run_delay;		/* the tasks' run_delay figures are the kernel's charge
					 * (capture__run_delay()); else unknown, all 0 */
	int nr_cpu_slots;		/* entries of the two arrays below: the possible CPUs */
	uint64_t *cpu_busy_ns;		/* per CPU: time of its threads but the idle task */
	uint64_t *cpu_idle_ns;		/* per CPU: the idle task's time */
	uint64_t *cpu_unseen_ns;	/* per CPU: slices whose switch-in was not seen (model.h
					 * R2), in neither of the two above */
	size_t nr_read;			/* threads the reading holds: every tid the kernel's
					 * aggregates hold since the start (its memory) */
	struct live_task *tasks;	/* threads active in the interval (idle excluded), by tid */
	size_t nr_tasks;
	struct live_exit *exits;	/* by (tid, isa, reason) */
	size_t nr_exits;
	struct live_vm *vms;		/* worst ready first (live_frame_vms()) */
	size_t nr_vms;
};

#endif /* PWZ_LIVE_FRAME_H */
