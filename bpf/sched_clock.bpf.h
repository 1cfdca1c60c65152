/* SPDX-License-Identifier: GPL-2.0 */
/* The scheduler's clock: the scheduling programs' time stamps (pwz.bpf.c; model.h R0). */
#ifndef PWZ_SCHED_CLOCK_BPF_H
#define PWZ_SCHED_CLOCK_BPF_H

/*
 * Included by pwz.bpf.c after its maps (it uses cpu_state). A switch or a wakeup is stamped
 * with the clock the scheduler read for it: the run queue's clock, which update_rq_clock() set
 * from sched_clock() just before (tens of ns before the tracepoint), reached through the
 * current or woken task's fair-class run queue (se.cfs_rq->rq, CONFIG_FAIR_GROUP_SCHED; the
 * runqueues per-CPU symbol does not resolve under a locked-down kernel). Three loads, where
 * bpf_ktime_get_ns() costs a clock read (24.5 ns a switch on the project's machine). Mapped to
 * CLOCK_MONOTONIC by an offset per CPU (struct sched_clk), so every record, KVM's and the
 * tasks' included, stays on one timeline.
 *
 * Where the run queue's clock is stale the switch reads CLOCK_MONOTONIC, as every event did
 * before, so that a wait stays the wait as lived (R4):
 * - a wakeup that preempts asks __schedule() to skip its clock update
 *   (rq_clock_skip_update()): the switch that follows then holds the wakeup's clock, which
 *   the wakeup programs noted (woke_rq) for every wakeup onto that run queue, selected or not;
 * - a switch whose mapped stamp would fall before the last event stamped on its CPU
 *   (cpu_state.last_ns: a KVM event, or a switch): a skip asked elsewhere (sched_yield(), a
 *   migration that preempts) kept a clock older than that event. Each stamp of a CPU is after
 *   the one before it, so its slices tile (R1) and the vCPU ledger keeps its order (R10).
 * A vCPU's switches and wakeups read CLOCK_MONOTONIC (and pwz.bpf.c on_wakeup()): a mapped
 * stamp may sit a few us from it on a loaded host (more in a nested guest), and its ledger's
 * events on different CPUs (a switch-out, the wakeup, the switch-in) would then fall out of
 * their order: its ready state could begin after the switch-in that ends it.
 * use_sched_clock is set by user space only for tp_btf programs (raw_tp's probe reads would cost
 * more than the clock), with the wakeup programs attached and no filter (their note is needed
 * at every wakeup; a filter's fast paths read no clock anyway), on a kernel whose BTF has the
 * run queue behind se.cfs_rq.
 */

const volatile __u32 use_sched_clock = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* one per possible CPU, set by user space */
	__type(key, __u32);
	__type(value, struct sched_clk);
} sched_clk SEC(".maps");

/* t as the time of this CPU's next event (cs: its state): after its last one, by 1 ns at least,
 * so that a CPU's events keep their order and no two of them tie; noted as the last. */
static __always_inline __u64 cpu_after_last(struct cpu_state *cs, __u64 t)
{
	if ((__s64)(t - cs->last_ns) <= 0)
		t = cs->last_ns + 1;
	cs->last_ns = t;
	return t;
}

/* The run queue of task t (running or being woken) and its clock; NULL where unreadable. */
static __always_inline struct sched_clk *sched_clk_of(struct task_struct *t, __u64 *clock)
{
	struct rq *rq;
	__u32 cpu;

	if (!bpf_core_field_exists(t->se.cfs_rq))
		return NULL;
	rq = t->se.cfs_rq->rq;
	if (!rq)
		return NULL;
	cpu = rq->cpu;
	*clock = rq->clock;
	return bpf_map_lookup_elem(&sched_clk, &cpu);
}

/*
 * Takes the sample t - c (CLOCK_MONOTONIC t read after the run queue's clock c) into k's
 * offset: the least sample of the current window and the one before. A sample more than
 * PWZ_SCHED_CLK_LATE_NS above the offset in use (plus NTP's slew since the last one) came from
 * a clock that was stale though no wakeup said so (an update before a long stretch without
 * one): it is left out.
 */
static __always_inline void sched_clk_sample(struct sched_clk *k, __u64 c, __u64 t)
{
	__u64 sample = t - c, allow;

	if (k->sync_rq) {
		allow = PWZ_SCHED_CLK_LATE_NS + ((c - k->sync_rq) >> PWZ_SCHED_CLK_SLEW_SHIFT);
		if ((__s64)(sample - k->off) > (__s64)allow) {
			k->late++;
			return;
		}
	}
	if (!k->sync_rq || c - k->win_rq >= 2 * PWZ_SCHED_CLK_WINDOW_NS) {
		/* the first, or after two windows without a sample: the clocks may have
		 * drifted since, so the old ones are forgotten */
		k->prev_min = sample;
		k->cur_min = sample;
		k->win_rq = c;
	} else if (c - k->win_rq >= PWZ_SCHED_CLK_WINDOW_NS) {
		k->prev_min = k->cur_min;
		k->cur_min = sample;
		k->win_rq = c;
	} else if ((__s64)(sample - k->cur_min) < 0) {
		k->cur_min = sample;
	}
	k->off = (__s64)(k->cur_min - k->prev_min) < 0 ? k->cur_min : k->prev_min;
	k->sync_rq = c;
	k->samples++;
}

/*
 * A switch's time on this CPU (prev: the task switching out, current; cs: the CPU's state,
 * whose last_ns is its last event's time; vcpu: a vCPU thread switches in or out): the run
 * queue's clock mapped, where it is fresh and after last_ns; else CLOCK_MONOTONIC: where that
 * clock is stale (above), not after the CPU's last event (a KVM event, or a switch whose offset
 * was sampled late), for a vCPU (its ledger, R10, is kept on CLOCK_MONOTONIC alone), not yet
 * sampled, or due for a new sample (then taken). Always after last_ns (cpu_after_last()).
 */
static __always_inline __u64 sched_now_switch(bool btf, struct task_struct *prev,
					      struct cpu_state *cs, bool vcpu)
{
	__u64 c = 0, t;
	struct sched_clk *k;
	bool due;

	if (!btf || !use_sched_clock)
		return bpf_ktime_get_ns();
	k = sched_clk_of(prev, &c);
	if (!k || !c)
		return bpf_ktime_get_ns();
	/* (two samples before the first stamp: the lesser of them is the offset, and the
	 * first switch may follow a stale clock that no wakeup marked) */
	due = k->samples < 2 || c - k->sync_rq >= PWZ_SCHED_CLK_SYNC_NS;
	if (c != k->woke_rq && !due && !vcpu) {
		t = c + k->off;
		if ((__s64)(t - cs->last_ns) > 0) {
			k->stamped++;
			cs->last_ns = t;
			return t;
		}
	}
	t = bpf_ktime_get_ns();
	if (c == k->woke_rq || !due)
		k->stale++;
	else	/* not after a wakeup's clock: the rq clock is fresh, as far as is known */
		sched_clk_sample(k, c, t);
	return cpu_after_last(cs, t);
}

/*
 * A wakeup of p onto its run queue (sched_wakeup, sched_wakeup_new: the clock was updated
 * for it, under that run queue's lock): notes the clock for the switch it may preempt, and
 * returns the wakeup's time, or 0 when CLOCK_MONOTONIC is to be read (no sample yet there).
 */
static __always_inline __u64 sched_now_wakeup(bool btf, struct task_struct *p)
{
	struct sched_clk *k;
	__u64 c = 0;

	if (!btf || !use_sched_clock)
		return 0;
	k = sched_clk_of(p, &c);
	if (!k || !c)
		return 0;
	k->woke_rq = c;
	return k->samples >= 2 ? c + k->off : 0;
}

/* A KVM event's time on this CPU: CLOCK_MONOTONIC (its programs run where the run queue's
 * clock is stale), after the CPU's last event, and noted for the switches after it. */
static __always_inline __u64 kvm_now(void)
{
	__u64 now = bpf_ktime_get_ns();
	struct cpu_state *cs;
	__u32 zero = 0;

	if (!use_sched_clock)
		return now;
	cs = bpf_map_lookup_elem(&cpu_state, &zero);
	return cs ? cpu_after_last(cs, now) : now;
}

#endif /* PWZ_SCHED_CLOCK_BPF_H */
