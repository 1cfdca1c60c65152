// SPDX-License-Identifier: GPL-2.0
/* pwz capture programs: run slices, run-queue waits and KVM exits, aggregated and streamed. */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "pwz.h"
#include "core_fixes.bpf.h"

/*
 * Design, for cost (measured with kernel.bpf_stats_enabled on the project's 2-vCPU PVM guest,
 * pinned `perf bench sched pipe`; an empty tp_btf program reads 57 ns/run there, and one
 * bpf_ktime_get_ns() costs about 36 ns of it):
 * - one ring-buffer record per switch: the run-queue wait that ended at a switch-in rides in the
 *   slice record emitted at that thread's switch-out (cpu_state carries it meanwhile);
 * - the aggregates (cpu_aggs: runtime, switches and waits together, the per-CPU slot being the
 *   CPU dimension, so no atomics and no locks) take only what the records miss: with streams
 *   on, a slice is folded there only when its record cannot be reserved, and the reader folds
 *   the records it reads (one hash update per switch saved: 45-60 ns);
 * - tp_btf reads task fields directly and keeps wait starts in task storage; the raw_tp
 *   fallback uses probe reads and a tid-keyed hash;
 * - the reader is woken only when a quarter of the ring is full (it also polls every 100 ms);
 * - slices go to the ring 16 at a time from a per-CPU array (PWZ_BATCH): one output per 16
 *   switches instead of a reservation and a commit per switch (-55 ns per switch measured,
 *   docs/performance.md);
 * - the waker is noted at sched_waking, the only hook that runs in the waker's context for
 *   every wakeup (+40 ns per switch on the pipe bench).
 * - switches and wakeups are stamped with the run queue's clock where it is fresh, not a
 *   bpf_ktime_get_ns() each (sched_clock.bpf.h, model.h R0: -15.0 ns per switch, 139.0 to
 *   124.0, on the pinned pipe bench, where half the switches follow a wakeup that preempts
 *   and still read the clock).
 * - with -p, cpu_state.sel says whether the thread running was selected at its switch-in: a
 *   switch from a filtered-out thread to another returns after one selection test, with no
 *   clock read. Not with -t, which may select a thread while it runs (named to match), so
 *   every switch keeps the CPU's state for its slice.
 * Measured: sched_switch 186 ns/run with streams (245 when it also updated cpu_aggs per
 * switch), 185 aggregates only, wakeup 125-135.
 * Not used as the wait: the kernel's own wait clock (next->sched_info.last_queued against the
 * rq clock, which would drop the wakeup programs, -85 ns): it does not measure the same wait.
 * On a mixed load 26 % of the waits read 0 there and the others differ by ~5 us at the median
 * from sched_wakeup to sched_switch (the rq clock update skipped after a wakeup that preempts,
 * rq_clock_skip_update(), so the wakeup's IPI latency goes uncounted). What the kernel charges
 * is kept beside the wait instead (R9): its growth of sched_info.run_delay over each wait, read
 * at the wait's start (wakeup, preemption) and at the slice's switch-out, no rq access.
 *
 * The rules these programs apply (what a slice, a wait and an exit are, R1-R7) are written once,
 * in user/lib/model.h; the comments below cite them. On this project's hypervisor some switches
 * never reach the tracepoint (threads of pid 1 switch in and out unseen): such a switch-out
 * closes its slice from the last switch on the CPU, flagged (R2), and is counted in
 * cpu_state.unpaired.
 */

char LICENSE[] SEC("license") = "GPL";

#define TASK_DEAD_BIT 0x80	/* TASK_DEAD in task_struct::__state */
#define CLONE_THREAD_FLAG 0x00010000
#define PWZ_EEXIST 17		/* EEXIST: another CPU inserted the key first */

/* Configuration, fixed at load time by userspace. */
const volatile __u32 filter_tids = 0;	/* 1: only threads in sel_tids (or sel_tgids) */
const volatile __u32 filter_tgids = 0;	/* 1: only threads whose process is in sel_tgids */
const volatile __u32 follow_names = 0;	/* 1: task records of every new or renamed thread (-t) */
const volatile __u32 emit_streams = 1;	/* 0: aggregates only, no ring-buffer records */
const volatile __u32 fold_always = 0;	/* 1 (with streams): every slice into cpu_aggs too, not
					 * only those whose record drops (--serve beside --flight) */
const volatile __u32 batch_max = PWZ_BATCH;	/* slices per ring record, 1..PWZ_BATCH (1: each slice
						 * at once, for the flight recorder) */
const volatile __u32 want_wait = 1;	/* 0: no run-queue wait measurement */
const volatile __u32 want_waker = 1;	/* 0: no waker (sched_waking not attached) */
const volatile __u64 wakeup_bytes = 1 << 20;	/* wake the reader once this much is queued */
const volatile __u32 task_storage = 1;	/* 0: tp_btf keeps wait starts in the tid hash too (< 5.11) */
const volatile __u32 want_ledger = 0;	/* 1: the vCPU ledger (R10; with sched, wait and kvm) */
const volatile __u32 want_irq_cause = 0;	/* 1: ready time charged to IRQs (ledger and --irq) */
const volatile __u32 want_irq_rows = 1;	/* 0 (--irq with --serve): no irq_aggs rows, only the
					 * CPUs' IRQ time (irq_cpu_ns) for the irq cause */
const volatile __u32 want_run_delay = 0;	/* 1: the kernel's charge of each wait (sched_info
						 * is in BTF: CONFIG_SCHED_INFO; with want_wait) */

/* Written by userspace after load, before attach: the capture start (CLOCK_MONOTONIC ns). */
__u64 t0 = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PWZ_RB_BYTES_DEFAULT);	/* resized by userspace */
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PWZ_RB_TASK_BYTES);
} rb_task SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_state);
} cpu_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rec_batch);
} batch SEC(".maps");

struct counters {
	__u64 v[PWZ_CNT_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counters);
} counters SEC(".maps");

/* Preallocated (~90 ms at load for 32,768 tids on 2 CPUs), so that a dropped batch is always
 * folded: an insertion into a map without preallocation may fail for memory (bpf_mem_alloc's
 * caches refill asynchronously), and the aggregates would no longer be exact. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PWZ_TID_MAP_DEFAULT);	/* sized for the host by userspace */
	__type(key, __u32);
	__type(value, struct cpu_agg_val);
} cpu_aggs SEC(".maps");

/* The waits of cpu_aggs by bucket (bpf/pwz.h struct wait_hist_val): not preallocated, so
 * that it costs neither memory nor load time for threads that never wait; an insertion that
 * fails is counted in CNT_HIST_MISS (the thread's histogram is then short of its waits). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, PWZ_TID_MAP_DEFAULT);	/* cpu_aggs' size, set by userspace */
	__type(key, __u32);
	__type(value, struct wait_hist_val);
} wait_hists SEC(".maps");

/* When each thread became runnable: task storage with tp_btf, a hash keyed by tid with raw_tp. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct wait_start);
} wait_ts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PWZ_TID_MAP_DEFAULT);	/* sized for the host (raw_tp only) */
	__type(key, __u32);
	__type(value, struct wait_start);
} wait_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PWZ_KVM_AGGS_MAX);
	__type(key, struct kvm_agg_key);
	__type(value, struct kvm_agg_val);
} kvm_aggs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PWZ_KVM_STATE_MAX);	/* sized for the host by userspace */
	__type(key, __u32);
	__type(value, struct kvm_state);
} kvm_state SEC(".maps");

#include "sched_clock.bpf.h"	/* the switches' and wakeups' time stamps */

/* A bitmap of ids (an array map): one bit per id, id / PWZ_SEL_WORD_BITS the word; one entry as
 * compiled, sized from pid_max by user space where used (sel_has(), sel_add()). A test is an
 * array lookup the JIT inlines. */
#define PWZ_ID_BITMAP(name)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(map_flags, BPF_F_MMAPABLE);			\
		__uint(max_entries, 1);					\
		__type(key, __u32);					\
		__type(value, __u64);					\
	} name SEC(".maps")

/* Selection: tids (-t, and -p's ids as tids) and tgids (-p), filled by user space before
 * attach; bits are set (user space through its mapping, atomically beside the kernel's
 * inheritance), and cleared only by user space for a thread gone (capture__forget_threads()). */
PWZ_ID_BITMAP(sel_tids);	/* with a filter */
PWZ_ID_BITMAP(sel_tgids);	/* with a filter */

/* -t: the threads that named themselves (a rename, an exec) since user space last decided
 * whether their name matches (capture__named_decided()). Their switch-ins are stamped as a
 * selected thread's, so that a slice running when user space selects one is recorded whole. */
PWZ_ID_BITMAP(named_tids);	/* with -t */

/* The vCPU threads (want_ledger): one bit per tid, set at a thread's first KVM event, or by
 * user space before attach for the threads QEMU named as vCPUs (R10). */
PWZ_ID_BITMAP(vcpu_tids);	/* with the ledger */

/* The processes of vCPU threads (with the ledger): one bit per tgid, set with its first vCPU's
 * ledger, so that a ready vCPU's time is charged to another VM (R10). */
PWZ_ID_BITMAP(vm_tgids);	/* with the ledger */

/* The vCPU threads' state stretches by length (with the ledger), inserted at a first stretch. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);		/* kvm_state's size with the ledger */
	__type(key, __u32);
	__type(value, struct vcpu_hist);
} vcpu_hists SEC(".maps");

/* The last slices of each CPU (with the ledger): what ran while a vCPU was ready there. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_recent);
} cpu_recent SEC(".maps");

/* Each CPU's time in IRQ handlers (with the ledger and --irq): what of a ready time was IRQs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* the possible CPUs, with want_irq_cause */
	__type(key, __u32);
	__type(value, struct irq_cpu_total);
} irq_cpu_ns SEC(".maps");

/* Per VM process (with the ledger): its vCPU threads on a CPU now, for co-stop. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* PWZ_KVM_STATE_MAX with the ledger */
	__type(key, __u32);
	__type(value, struct vm_run);
} vm_run SEC(".maps");

/* R10 (with --irq): the IRQ time of cpu so far (irq_cpu_ns; 0 without). */
static __always_inline __u64 irq_total(__u32 cpu)
{
	struct irq_cpu_total *t = bpf_map_lookup_elem(&irq_cpu_ns, &cpu);

	return t ? t->ns : 0;
}

/* R10 (with --irq): this CPU spent d ns more in IRQ handlers (an atomic add: a hard IRQ may
 * come in the middle of a softirq's). */
static __always_inline void irq_total_add(__u64 d)
{
	struct irq_cpu_total *t;
	__u32 cpu;

	if (!want_irq_cause)
		return;
	cpu = bpf_get_smp_processor_id();
	t = bpf_map_lookup_elem(&irq_cpu_ns, &cpu);
	if (t)
		__sync_fetch_and_add(&t->ns, d);
}

static __always_inline void cnt_add(__u32 idx, __u64 n)
{
	__u32 zero = 0;
	struct counters *c = bpf_map_lookup_elem(&counters, &zero);

	if (c && idx < PWZ_CNT_MAX)
		c->v[idx] += n;
}

/* Wake the reader only when the buffer fills: never once per record. */
static __always_inline __u64 rb_flags(void *ring)
{
	return bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP :
									     BPF_RB_NO_WAKEUP;
}

/* Looks key up in a hash, inserting a zeroed value first; NULL (counted) when the map is full. */
static __always_inline void *lookup_or_init(void *map, const void *key, const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);
	long err;

	if (v)
		return v;
	err = bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	if (err && err != -PWZ_EEXIST) {
		cnt_add(CNT_MAP_FULL, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(map, key);
}

/* Whether id's bit is set in a selection bitmap (an id past the map: no). */
static __always_inline bool sel_has(void *bits, __u32 id)
{
	__u32 k = id / PWZ_SEL_WORD_BITS;
	__u64 *w = bpf_map_lookup_elem(bits, &k);

	return w && (*w >> (id % PWZ_SEL_WORD_BITS)) & 1;
}

/* Sets id's bit. An atomic add of the bit where it is clear: an atomic OR needs Linux 5.12, an
 * add is an OR for a clear bit, and no two CPUs set one id's bit at once (a thread's birth sets
 * its own, once; a thread's naming, in its own context; user space sets a thread's named to
 * match after its birth). */
static __always_inline void sel_add(void *bits, __u32 id)
{
	__u32 k = id / PWZ_SEL_WORD_BITS;
	__u64 *w = bpf_map_lookup_elem(bits, &k), bit = 1ull << (id % PWZ_SEL_WORD_BITS);

	if (w && !(*w & bit))
		__sync_fetch_and_add(w, bit);
}

static __always_inline bool ids_selected(__u32 tid, __u32 tgid)
{
	if (!filter_tids && !filter_tgids)
		return true;
	if (filter_tids && sel_has(&sel_tids, tid))
		return true;
	return filter_tgids && sel_has(&sel_tgids, tgid);
}

/* Whether thread tid (task t) is selected; btf: t is typed (tp_btf), its fields read directly. */
static __always_inline bool task_selected(bool btf, __u32 tid, struct task_struct *t)
{
	__u32 tgid;

	if (!filter_tids && !filter_tgids)
		return true;
	if (!tid)
		return false;
	if (filter_tids && sel_has(&sel_tids, tid))
		return true;
	if (!filter_tgids)
		return false;
	tgid = btf ? t->tgid : BPF_CORE_READ(t, tgid);
	return sel_has(&sel_tgids, tgid);
}

/* A vCPU thread's empty histogram, inserted at its first stretch. */
static const struct vcpu_hist zero_hist;

/*
 * R10: a stretch of len ns in state s of vCPU thread tid, into its histogram, inserted when
 * the thread has none yet (its first stretch, or an insertion that failed before: the
 * allocator's cache of a map without preallocation can be empty for a moment); counted in
 * CNT_HIST_MISS when the insertion fails. A global function: the verifier walks it once, not
 * at each of the switch program's ledger transitions. Returns 0.
 */
__noinline int led_hist(__u32 tid, __u32 s, __u64 len)
{
	struct vcpu_hist *h = bpf_map_lookup_elem(&vcpu_hists, &tid);
	__u32 b = pwz_log2_bucket(len);

	if (!h) {
		bpf_map_update_elem(&vcpu_hists, &tid, &zero_hist, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&vcpu_hists, &tid);
	}
	if (!h) {
		cnt_add(CNT_HIST_MISS, 1);
		return 0;
	}
	/* the barrier keeps the bound check on the register the verifier tracks; PWZ_VS_NR is a
	 * power of two, so the state is masked */
	asm volatile("" : "+r"(b));
	if (b < PWZ_BPF_HIST)
		h->b[s & (PWZ_VS_NR - 1)][b]++;
	return 0;
}

/* R10: the ledger l moves to state s at now; the time since its last change goes to the state
 * it leaves, and that stretch to its histogram; count: s is entered by its event. A dead
 * thread's ledger stays as it is. */
static __always_inline void led_to(struct vcpu_ledger *l, __u32 s, __u64 now, bool count)
{
	__u32 cur = l->state;

	if (cur >= PWZ_VS_NR)
		return;
	if (now > l->since_ns) {
		l->ns[cur] += now - l->since_ns;
		l->since_ns = now;
	}
	if (cur != s) {
		led_hist(l->tid, cur, now > l->stretch_ns ? now - l->stretch_ns : 0);
		l->stretch_ns = now;
	}
	l->state = s;
	if (count && s < PWZ_VS_NR)
		l->count[s]++;
}

/*
 * R10: the kvm_state entry of vCPU thread tid (task t) with its ledger, made at its first event
 * at now. A thread user space named a vCPU before attach (its bit set, every event of it seen
 * since) was in state before from its birth or the capture start; another was unseen until
 * now, and is a vCPU from now on. NULL when the map is full (counted).
 *
 * R8: a ledger ends at its thread's exit (PWZ_VS_DEAD), and the kernel keys it by tid. A later
 * thread of the same tid (recycled) has none at its scheduler events (vcpu: false), and goes on
 * in that entry from its birth, unseen until then, at its first event that makes it a vCPU (its
 * naming, a KVM event: vcpu); the entry then belongs to the last instance, as the other kernel
 * aggregates of a recycled tid do.
 */
static __always_inline struct kvm_state *led_get(__u32 tid, struct task_struct *t, __u64 now,
						 __u32 before, bool vcpu)
{
	static const struct kvm_state zero;
	struct kvm_state *st = lookup_or_init(&kvm_state, &tid, &zero);
	struct vcpu_ledger *l;
	__u64 born, start;

	if (!st || !want_ledger)
		return st;
	l = &st->led;
	if (l->start_ns && l->state != PWZ_VS_DEAD)
		return st;
	if (l->start_ns && !vcpu)
		return NULL;
	born = BPF_CORE_READ(t, start_time);
	start = born > t0 ? born : t0;
	if (l->start_ns) {		/* recycled */
		start = born > l->since_ns ? born : l->since_ns;
		before = PWZ_VS_UNSEEN;
		st->exit_ns = 0;
		st->entry_ns = 0;
		l->counted = 0;
		l->irq_cpu = 0;
	}
	if (start > now || !start)
		start = now ? now : 1;
	if (!l->start_ns)
		l->start_ns = start;
	l->since_ns = start;
	l->stretch_ns = start;
	if (!sel_has(&vcpu_tids, tid)) {
		sel_add(&vcpu_tids, tid);
		before = PWZ_VS_UNSEEN;
	}
	l->state = before < PWZ_VS_NR ? before : PWZ_VS_UNSEEN;
	l->resume = PWZ_VS_UNSEEN;
	l->tgid = BPF_CORE_READ(t, tgid);
	l->tid = tid;
	sel_add(&vm_tgids, l->tgid);
	if (l->since_ns < now)
		l->count[l->state & (PWZ_VS_NR - 1)]++;
	return st;
}

/* R10: the time up to now during which some vCPU thread of VM r ran. */
static __always_inline __u64 vm_busy_at(const struct vm_run *r, __u64 now)
{
	return r->busy_ns + (r->running > 0 && now > r->busy_since ? now - r->busy_since : 0);
}

/* R10: the vm_run entry of the VM of l (made at its first vCPU's switch-in); NULL full. */
static __always_inline struct vm_run *led_vm(struct vcpu_ledger *l)
{
	static const struct vm_run zero;

	return lookup_or_init(&vm_run, &l->tgid, &zero);
}

/*
 * R10: the vCPU of l is on a CPU (on) or off one from now: counted in, or out of, its VM's
 * running vCPUs r (once each way). The count moves by atomic adds, which Linux 5.10 has (its
 * fetching forms came with 5.12); the VM's busy interval starts or ends by the count read just
 * after, so two vCPUs of one VM switching at the same instant may shift it by that instant.
 */
static __always_inline void led_cpu(struct vcpu_ledger *l, struct vm_run *r, __u64 now, bool on)
{
	if (!r || (__u32)on == l->counted)
		return;
	l->counted = on;
	__sync_fetch_and_add(&r->running, on ? 1 : -1);
	if (on && r->running == 1)
		r->busy_since = now;
	else if (!on && r->running == 0 && now > r->busy_since)
		r->busy_ns += now - r->busy_since;
}

/*
 * The category (PWZ_RC_*) of recent slice x for a vCPU of VM tgid, computed without branches
 * (the charge loop runs up to PWZ_RECENT times, and each branch there multiplies what the
 * verifier walks) from four bits: idle (the idle task), same (its process is the vCPU's),
 * vcpu (a vCPU thread), vm (of a VM's process, or a vCPU): of_vm, which the caller read.
 */
_Static_assert(PWZ_RC_SAME_VM_VCPU == 0 && PWZ_RC_SAME_VM_VMM == 1 && PWZ_RC_OTHER_VM == 2 &&
	       PWZ_RC_HOST == 3 && PWZ_RC_IDLE == 4, "recent_cause() computes these values");
static __always_inline __u32 recent_cause(const struct recent_slice *x, __u32 tgid, __u32 of_vm)
{
	__u32 d = (x->tgid ^ tgid) & PWZ_RECENT_TGID, t = x->tid;
	__u32 idle = ((t | (0 - t)) >> 31) ^ 1, same = ((d | (0 - d)) >> 31) ^ 1;
	__u32 vcpu = x->tgid >> 31, vm = (of_vm & 1) | vcpu;
	__u32 busy = same * (1 - vcpu) + (1 - same) * (3 - vm);

	return idle * PWZ_RC_IDLE + (1 - idle) * busy;
}

/* R10: the slice of prev that ends at now on this CPU, into its recent slices. */
static __always_inline void recent_push(bool btf, struct task_struct *prev, __u32 prev_pid,
					bool vcpu, __u64 now)
{
	__u32 key = 0, tgid, i;
	struct cpu_recent *r = bpf_map_lookup_elem(&cpu_recent, &key);

	if (!r)
		return;
	tgid = btf ? prev->tgid : BPF_CORE_READ(prev, tgid);
	tgid = (tgid & PWZ_RECENT_TGID) | (vcpu ? PWZ_RECENT_VCPU : 0);
	i = (r->head - 1) & (PWZ_RECENT - 1);
	if (!(r->head && prev_pid && r->s[i].tid && r->s[i].tgid == tgid)) {
		i = r->head & (PWZ_RECENT - 1);	/* else the same process goes on */
		r->s[i].tid = prev_pid;
		r->s[i].tgid = tgid;
		r->head++;
	}
	r->s[i].end_ns = now;
	if (want_irq_cause)
		r->s[i].irq_ns = irq_total(bpf_get_smp_processor_id());
}

/*
 * R10 (with --irq): the IRQ time within [from, hi) of a recent slice cut by from (the ready
 * state began inside it), which the CPU's IRQ time irq_before at its start and irq_end at its
 * end bracket over [start, end): from at, the CPU's IRQ time at from, when known (it waited on
 * this CPU: exact); else the slice's IRQ time in proportion to the part. At most hi - from.
 */
static __always_inline __u64 cut_irq(__u64 start, __u64 end, __u64 irq_before, __u64 irq_end,
				     __u64 from, __u64 hi, bool known, __u64 at)
{
	__u64 len = end - start, part = hi - from, irq = irq_end - irq_before, l, p;
	__u32 k;

	if (known && at >= irq_before && at <= irq_end) {
		irq = irq_end - at;
	} else if (len) {	/* irq * part / len, without overflow: p, l < 2^32 */
		k = pwz_log2(len);
		k = k > 31 ? k - 31 : 0;
		l = len >> k;
		p = part >> k;
		irq = l ? irq / l * p + irq % l * p / l : 0;
	}
	return irq < part ? irq : part;
}

/*
 * R10: the ready time [from, now) of vCPU thread tid, switched in on this CPU at now, charged
 * to what ran here meanwhile: the recent slices (each from the one before's end to its own),
 * less the IRQ time within them (with --irq, irq: each slice's, cut_irq() for the one the
 * interval began in); what lies before the oldest one known is unseen. A global function (its
 * loop walked once by the verifier, not at each call site), so the ledger is found by tid.
 * Returns 0.
 */
__noinline int led_charge(__u32 tid, __u64 from, __u64 now)
{
	__u32 key = 0, head, n;
	struct cpu_recent *r = bpf_map_lookup_elem(&cpu_recent, &key);
	struct kvm_state *st = bpf_map_lookup_elem(&kvm_state, &tid);
	struct vcpu_ledger *l;
	/* the slice charged last (pc its cause, part its time, irq its IRQ time as if whole;
	 * it began at covered, ended at end), written when the next is known: the oldest, cut
	 * by from, gets cut_irq() */
	__u64 covered = now, part = 0, irq = 0, end = 0, irq_before = 0, irq_end = 0;
	__u32 pc = 0;

	if (!r || !st || from >= now)
		return 0;
	l = &st->led;
	head = r->head;
	n = head < PWZ_RECENT ? head : PWZ_RECENT;
	for (__u32 k = 0; k + 1 < PWZ_RECENT; k++) {
		const struct recent_slice *x, *before;
		__u64 lo, hi, d;
		__u32 c;

		if (k + 1 >= n || covered <= from)
			break;
		x = &r->s[(head - 1 - k) & (PWZ_RECENT - 1)];
		before = &r->s[(head - 2 - k) & (PWZ_RECENT - 1)];
		lo = before->end_ns > from ? before->end_ns : from;
		hi = x->end_ns < now ? x->end_ns : now;
		c = recent_cause(x, l->tgid, sel_has(&vm_tgids, x->tgid & PWZ_RECENT_TGID));
		l->cause_ns[pc & (PWZ_RC_SLOTS - 1)] += part - irq;
		if (want_irq_cause)
			l->cause_ns[PWZ_RC_IRQ] += irq;
		/* hi > lo always (the slices tile the CPU), unless the clock went back */
		part = hi > lo ? hi - lo : 0;
		irq = 0;
		if (want_irq_cause) {	/* min(the slice's IRQ time, part), branch-free */
			end = x->end_ns;
			irq_before = before->irq_ns;
			irq_end = x->irq_ns;
			d = (irq_end - irq_before) - part;
			irq = part + (d & (__u64)((__s64)d >> 63));
		}
		/* the barrier keeps the mask, which older verifiers need to bound the index */
		asm volatile("" : "+r"(c));
		pc = c;
		covered = before->end_ns;
	}
	if (want_irq_cause && part && from > covered)	/* the oldest slice, cut by from */
		irq = cut_irq(covered, end, irq_before, irq_end, from, from + part,
			      l->irq_cpu == bpf_get_smp_processor_id() + 1, l->irq_from);
	l->cause_ns[pc & (PWZ_RC_SLOTS - 1)] += part - irq;
	if (want_irq_cause)
		l->cause_ns[PWZ_RC_IRQ] += irq;
	if (covered > from)
		l->cause_ns[PWZ_RC_UNSEEN] += covered - from;
	return 0;
}

/* R10: led_get() of the current thread tid, which runs: counted on a CPU. */
static __always_inline struct kvm_state *led_current(__u32 tid, __u64 now, __u32 before)
{
	struct kvm_state *st = led_get(tid, (struct task_struct *)bpf_get_current_task(), now,
				       before, true);

	if (st && want_ledger && !st->led.counted)
		led_cpu(&st->led, led_vm(&st->led), now, true);
	return st;
}

/* R10: whether thread tid is a vCPU (its bit in vcpu_tids). */
static __always_inline bool led_is_vcpu(__u32 tid)
{
	return want_ledger && tid && sel_has(&vcpu_tids, tid);
}

/* R10: the ledger of vCPU thread tid (led_is_vcpu()) at a scheduler event, or NULL (full, or
 * a recycled tid not yet a vCPU: led_get()). */
static __always_inline struct vcpu_ledger *led_sched(__u32 tid, struct task_struct *t, __u64 now,
						     __u32 before)
{
	struct kvm_state *st = led_get(tid, t, now, before, false);

	return st ? &st->led : NULL;
}

/* R10: the ready state of l ends at now (its switch-in on this CPU): charged to what ran here
 * and to its VM's running vCPUs r (co-stop). */
static __always_inline void led_ready_end(struct vcpu_ledger *l, struct vm_run *r, __u64 now)
{
	__u64 ready = now > l->since_ns ? now - l->since_ns : 0, busy;

	led_charge(l->tid, l->since_ns, now);
	busy = r ? vm_busy_at(r, now) : 0;
	if (r && busy > l->busy_mark)
		l->costop_ns += busy - l->busy_mark < ready ? busy - l->busy_mark : ready;
}

/* R10 (with --irq): l's ready state begins now, waiting on cpu: that CPU's IRQ time now. */
static __always_inline void led_irq_mark(struct vcpu_ledger *l, __u32 cpu)
{
	l->irq_cpu = cpu + 1;
	l->irq_from = irq_total(cpu);
}

/* R10: vCPU next switched in at now: the on-CPU state its switch-out left resumes, after the
 * ready interval it ends. */
static __always_inline void led_switch_in(struct task_struct *next, __u32 tid, __u64 now)
{
	struct vcpu_ledger *l = led_sched(tid, next, now, PWZ_VS_READY);
	struct vm_run *r;

	if (!l)
		return;
	r = led_vm(l);
	if (l->state == PWZ_VS_READY)
		led_ready_end(l, r, now);
	led_cpu(l, r, now, true);
	led_to(l, l->resume, now, false);
	l->in_ns = now;
}

/* R10: vCPU prev switched out at now, how (enum rec_end). When its switch-in was unseen (R2:
 * the ledger still ready or halted), it was switched in at the last switch seen on this CPU,
 * start (0: none seen), and the time since is unseen, as its slice's is. */
static __always_inline bool led_switch_out(struct task_struct *prev, __u32 tid, __u64 now,
					   __u32 end, __u64 start)
{
	struct vcpu_ledger *l = led_sched(tid, prev, now, PWZ_VS_UNSEEN);
	struct vm_run *r;
	__u32 cur;

	if (!l)
		return false;
	cur = l->state;
	r = led_vm(l);
	if ((cur == PWZ_VS_READY || cur == PWZ_VS_HALT) && start &&
	    start >= l->since_ns && start < now) {
		if (cur == PWZ_VS_READY)
			led_ready_end(l, r, start);
		led_to(l, PWZ_VS_UNSEEN, start, false);	/* its resume state stays */
	}
	if (cur == PWZ_VS_GUEST)		/* an exit the hooks missed */
		l->resume = PWZ_VS_EXIT_KERNEL;
	else if (cur != PWZ_VS_READY && cur != PWZ_VS_HALT)
		l->resume = cur;
	led_cpu(l, r, now, false);
	if (end == REC_END_EXITED) {
		led_to(l, PWZ_VS_DEAD, now, false);
	} else if (end == REC_END_PREEMPTED) {
		led_to(l, PWZ_VS_READY, now, true);
		l->busy_mark = r ? vm_busy_at(r, now) : 0;
		if (want_irq_cause)
			led_irq_mark(l, bpf_get_smp_processor_id());
	} else {
		led_to(l, PWZ_VS_HALT, now, true);
	}
	return true;
}

/* R10: a wakeup at now of vCPU p (not on a CPU): halted, it is ready from now. */
static __always_inline void led_wakeup(struct task_struct *p, __u32 tid, __u64 now)
{
	struct vcpu_ledger *l = led_sched(tid, p, now, PWZ_VS_HALT);
	struct vm_run *r;

	if (!l || l->state != PWZ_VS_HALT)
		return;
	led_to(l, PWZ_VS_READY, now, true);
	r = bpf_map_lookup_elem(&vm_run, &l->tgid);
	l->busy_mark = r ? vm_busy_at(r, now) : 0;
	if (want_irq_cause)
		led_irq_mark(l, task_cpu_of(p));
}

/*
 * The wait-start slot of a thread: task storage when btf (the program has typed task
 * pointers) and the kernel has it (5.11), else the tid-keyed hash. btf is a constant at every call site, so each program
 * keeps one branch only.
 */
static __always_inline struct wait_start *ws_get(bool btf, struct task_struct *t, __u32 tid,
						 bool create)
{
	static const struct wait_start zero;
	struct wait_start *ws;
	long err;

	if (btf && task_storage)
		return bpf_task_storage_get(&wait_ts, t, 0,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	ws = bpf_map_lookup_elem(&wait_start, &tid);
	if (ws || !create)
		return ws;
	err = bpf_map_update_elem(&wait_start, &tid, &zero, BPF_NOEXIST);
	if (err && err != -PWZ_EEXIST) {
		cnt_add(CNT_MAP_FULL, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(&wait_start, &tid);
}

/* R7: a wait of w ns of tid into its bucket of wait_hists (inserted at its first wait), as
 * model_fold counts it (pwz_whist_bucket() of whist.h); counted in CNT_HIST_MISS when the
 * entry cannot be made. */
static __always_inline void fold_wait_hist(__u32 tid, __u64 w)
{
	static const struct wait_hist_val zero;
	struct wait_hist_val *h = bpf_map_lookup_elem(&wait_hists, &tid);
	long err;
	__u32 b;

	if (!h) {
		err = bpf_map_update_elem(&wait_hists, &tid, &zero, BPF_NOEXIST);
		if (!err || err == -PWZ_EEXIST)
			h = bpf_map_lookup_elem(&wait_hists, &tid);
		if (!h) {
			cnt_add(CNT_HIST_MISS, 1);
			return;
		}
	}
	/* the barrier keeps the bound check on the register the verifier tracks */
	b = pwz_whist_bucket(w);
	asm volatile("" : "+r"(b));
	if (b < PWZ_WHIST_BUCKETS)
		h->b[b]++;
}

static __always_inline void fold_dropped(struct cpu_agg_val *agg, __u32 tid, __u64 start,
					 __u64 now, __u32 end, bool known, __u32 wait, __u64 wake,
					 bool charged, __u64 charge, bool rd, __u64 rd_charge)
{
	__u64 from = start ? start : t0, run = now > from ? now - from : 0;

	agg->switches++;
	if (end == REC_END_PREEMPTED)
		agg->involuntary++;
	else
		agg->voluntary++;
	if (rd)		/* R9: the charge of the wait before, measured or not */
		agg->run_delay_ns += rd_charge;
	if (rd && (!known || !wait || start < wake))
		agg->run_delay_unmeasured_ns += rd_charge;
	if (!known) {
		agg->unseen++;
		agg->unseen_ns += run;
		return;
	}
	agg->runtime_ns += run;
	if (charged) {
		agg->charged_ns += charge;
		agg->charged_run_ns += run;
	}
	if (wait && start >= wake) {
		__u64 w = start - wake;

		/* bucketed before counted: a reader of cpu_aggs, then wait_hists, never finds
		 * a counted wait missing from its bucket (user/live.c reading_waits()) */
		fold_wait_hist(tid, w);
		agg->wait_count++;
		agg->wait_ns += w;
		if (w > agg->wait_max_ns)
			agg->wait_max_ns = w;
		if (rd)
			agg->run_delay_wait_ns += w;
	}
}

/*
 * R7: this CPU's batch, which the ring could not take, folded into cpu_aggs so that the
 * aggregates stay exact. A global function (its own verification, once, whatever the paths
 * that reach a drop), with the batch looked up inside: it takes no pointer.
 */
__noinline int fold_batch(__u32 n)
{
	static const struct cpu_agg_val zero;
	struct rec_batch *b;
	__u32 key = 0;

	b = bpf_map_lookup_elem(&batch, &key);
	if (!b)
		return 0;
	for (__u32 i = 0; i < PWZ_BATCH; i++) {
		struct rec_slice *r = &b->s[i];
		struct cpu_agg_val *agg;
		__u32 tid;

		if (i >= n)
			break;
		tid = r->tid;
		agg = lookup_or_init(&cpu_aggs, &tid, &zero);
		if (agg)
			fold_dropped(agg, tid, r->start_ns, r->end_ns, r->end,
				     !(r->flags & REC_SLICE_UNSEEN_START), r->wait, r->wake_ns,
				     r->flags & REC_SLICE_CHARGED, r->charged_ns,
				     r->flags & REC_SLICE_RUN_DELAY, r->run_delay_ns);
	}
	return 0;
}

/*
 * prev_state as sched_switch reports it (__trace_sched_switch_state() of
 * include/trace/events/sched.h): R+ when preempted, else the highest TASK_REPORT bit of
 * __state | exit_state, TASK_IDLE as I and TASK_RTLOCK_WAIT as D. exit_state is read only
 * for a dying thread (it is 0 before exit_notify()).
 */
static __always_inline __u32 reported_state(bool btf, bool preempt, unsigned int state,
					    struct task_struct *prev)
{
	__u32 s;

	if (preempt)
		return REC_STATE_PREEMPTED;
	if (state == 0x402)		/* TASK_IDLE: TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
		return REC_STATE_IDLE;
	if (state == 0x1000)		/* TASK_RTLOCK_WAIT: reported as D */
		return 0x2;
	s = state;
	if (state & TASK_DEAD_BIT)
		s |= btf ? prev->exit_state : BPF_CORE_READ(prev, exit_state);
	s &= 0x7f;			/* TASK_REPORT */
	s |= s >> 1;
	s |= s >> 2;
	s |= s >> 4;
	return s - (s >> 1);		/* its highest bit: 1 << (fls(s) - 1) */
}

static __always_inline __u64 sum_exec(bool btf, struct task_struct *t)
{
	return btf ? t->se.sum_exec_runtime : BPF_CORE_READ(t, se.sum_exec_runtime);
}

/*
 * R9: the thread's sched_info.run_delay, the kernel's total of its run-queue waits (what
 * /proc/PID/schedstat, libvirt and KubeVirt report): grown at the switch-in by the rq clock
 * since the enqueue (sched_info_arrive(), after this tracepoint) and at a dequeue while
 * queued (a migration). 0 where the kernel has no sched_info (CONFIG_SCHED_INFO off:
 * userspace then leaves want_run_delay 0).
 */
static __always_inline __u64 run_delay(bool btf, struct task_struct *t)
{
	if (!bpf_core_field_exists(t->sched_info.run_delay))
		return 0;
	return btf ? t->sched_info.run_delay : BPF_CORE_READ(t, sched_info.run_delay);
}

/*
 * R9: the kernel's charge of the wait that ended at prev's switch-in, into *charge: its
 * run_delay now (that switch-in's sched_info_arrive() done) minus its base, cs->rd_base plus
 * 1 (base1; 0: none): the run_delay at the wait's start, or at the switch-in when no wait was
 * pending (measure_wait_start()). Where the switch-in was unseen (R2, !known), a wait still
 * pending in prev's slot ended there: charged from its start too, though unmeasured. *rd_now:
 * run_delay now, read when needed, for the charge or as the start of the wait a preemption
 * begins (one field read per such switch-out; a slot lookup only where the switch-in was
 * unseen). Returns whether *charge is known. A slice whose switch-out the tracepoint missed
 * takes the charge of the wait before it along (its base was on the CPU it ran on).
 */
static __always_inline bool wait_charge(bool btf, struct task_struct *prev, __u32 prev_pid,
					bool known, __u32 end, __u64 base1, __u64 *rd_now,
					__u64 *charge)
{
	struct wait_start *ws;

	if (!want_run_delay || !prev_pid)
		return false;
	if (!known) {
		ws = ws_get(btf, prev, prev_pid, false);
		base1 = ws && ws->ts ? ws->rd_base + 1 : 0;
	}
	if (base1 || end == REC_END_PREEMPTED)
		*rd_now = run_delay(btf, prev);
	if (!base1)
		return false;
	*charge = *rd_now >= base1 - 1 ? *rd_now - (base1 - 1) : 0;
	return true;
}

/*
 * R4: the wait that ends at next's switch-in, if one is pending (woken or preempted during the
 * capture), into cs; its slot cleared. R9: the base of the kernel's charge of it, cs->rd_base
 * (plus 1; 0 none): the run_delay at the wait's start, or, with no wait pending (begun before
 * the capture, or at a switch-out the tracepoint never reported), next's run_delay now, before
 * this switch-in's sched_info_arrive() (a field read that steady switching never needs).
 */
static __always_inline void measure_wait_start(bool btf, struct cpu_state *cs,
					       struct task_struct *next, __u32 next_pid, __u64 now)
{
	struct wait_start *ws;
	__u64 base1 = 0;

	ws = ws_get(btf, next, next_pid, false);
	if (ws && ws->ts) {
		if (ws->ts >= t0) {
			/* (a wakeup stamped on another CPU's clock may read a few ns
			 * late: R0) */
			cs->wake_ns = ws->ts <= now ? ws->ts : now;
			cs->wait = ws->preempted ? REC_WAIT_PREEMPT : REC_WAIT_WAKEUP;
			cs->waker_known = ws->waker_known;
			cs->waker_tid = ws->waker_tid;
			cs->waker_cpu = ws->waker_cpu;
			base1 = ws->rd_base + 1;
		}
		ws->ts = 0;
		ws->waker_known = 0;
	}
	if (want_run_delay && !base1)
		base1 = run_delay(btf, next) + 1;
	cs->rd_base = base1;
}

/* The slice a switch-out ends, as the CPU's state and the switch tell it. */
struct switch_out {
	__u64 now;		/* the switch's time */
	__u64 start;		/* the slice's switch-in; 0 before the capture (R1) */
	__u64 wake;		/* start of the wait that ended at start; 0 none */
	__u64 charge;		/* the kernel's charge of the slice (with charged) */
	__u64 rd_base;		/* R9: the wait's run_delay base plus 1 (cs->rd_base); 0 unknown */
	__u64 rd_now;		/* prev's run_delay now, plus 1 (wait_charge()) */
	__u64 rd_charge;	/* the kernel's charge of the wait (with rd) */
	__u32 end;		/* enum rec_end (R3) */
	__u32 wait;		/* enum rec_wait of the wait that ended at start */
	__u32 waker_tid;	/* with waker: who woke it */
	__u32 waker_cpu;	/* on which CPU */
	bool known;		/* the switch-in was seen here (R2) */
	bool charged;		/* charge is the kernel's */
	bool waker;		/* waker_tid, waker_cpu are known */
	bool rd;		/* rd_charge is the kernel's */
};

/* A slice of tid begins on this CPU's state cs at now, with no wait before it known yet: at
 * its switch-in, or at -t's naming of a running thread (stamp_named()). */
static __always_inline void cs_begin(struct cpu_state *cs, __u32 tid, __u64 now)
{
	cs->seen = 1;
	cs->tid = tid;
	cs->start_ns = now;
	cs->wake_ns = 0;
	cs->wait = REC_WAIT_NONE;
	cs->waker_known = 0;
	cs->rd_base = 0;
}

/* Takes the ending slice of prev_pid out of the CPU's state into so and resets the state
 * for next_pid's, switched in at so->now. */
static __always_inline void switch_out_take(struct switch_out *so, struct cpu_state *cs,
					    bool btf, struct task_struct *prev, __u32 prev_pid,
					    bool prev_sel, __u32 next_pid)
{
	__u64 sum_start;

	/* R1: unseen CPU, prev ran since before the capture. R2: seen but another tid, or -t's
	 * thread selected while it ran, whose switch-in the fast path did not stamp (!sel): the
	 * switch-in was unseen, the slice starts at the last switch stamped here and is
	 * flagged. */
	so->known = !cs->seen || (cs->tid == prev_pid && (cs->sel || !prev_sel));
	so->start = cs->seen ? cs->start_ns : 0;
	so->wake = cs->wake_ns;
	so->wait = so->known ? cs->wait : REC_WAIT_NONE;
	so->waker = so->known && cs->waker_known;
	so->waker_tid = cs->waker_tid;
	so->waker_cpu = cs->waker_cpu;
	so->rd_base = so->known ? cs->rd_base : 0;
	/* the kernel's charge of the slice: its sum_exec_runtime now minus at the switch-in
	 * (unknown for a slice begun before the capture or unseen, and for the idle task, which
	 * the kernel does not charge) */
	sum_start = cs->sum_start;
	so->charged = so->known && sum_start && prev_pid;
	if (so->charged) {
		__u64 sum = sum_exec(btf, prev);

		so->charge = sum >= sum_start ? sum - (sum_start - 1) : 0;
	}
	cs->switches++;
	if (!so->known)
		cs->unpaired++;
	cs_begin(cs, next_pid, so->now);
}

/* R3: how the slice ended (enum rec_end). */
static __always_inline __u32 switch_end(bool preempt, unsigned int prev_state)
{
	if (prev_state & TASK_DEAD_BIT)
		return REC_END_EXITED;
	if (preempt || !prev_state)
		return REC_END_PREEMPTED;
	return REC_END_SLEPT;
}

/* Adds the slice to the CPU's batch b, and sends the batch when full (batch_max); a batch
 * the ring buffer refuses is counted and folded. */
static __always_inline void batch_slice(struct rec_batch *b, const struct switch_out *so,
					bool btf, bool preempt, struct task_struct *prev,
					__u32 prev_pid, unsigned int prev_state)
{
	__u32 i = b->n & (PWZ_BATCH - 1);
	struct rec_slice *r = &b->s[i];

	r->type = REC_SLICE;
	r->tid = prev_pid;
	r->cpu = bpf_get_smp_processor_id();
	r->prev_state = reported_state(btf, preempt, prev_state, prev);
	r->end = so->end;
	r->wait = so->wait;
	r->flags = (so->known ? 0 : REC_SLICE_UNSEEN_START) |
		   (so->charged ? REC_SLICE_CHARGED : 0) | (so->waker ? REC_SLICE_WAKER : 0);
	r->pad = 0;
	r->waker_tid = so->waker_tid;
	r->waker_cpu = so->waker_cpu;
	r->start_ns = so->start;
	r->end_ns = so->now;
	r->wake_ns = so->wake;
	r->charged_ns = so->charge;
	r->run_delay_ns = so->rd_charge;
	if (so->rd)
		r->flags |= REC_SLICE_RUN_DELAY;
	b->n = i + 1;
	if (b->n >= batch_max || b->n == PWZ_BATCH) {
		__u32 n = b->n;
		__u64 size = offsetof(struct rec_batch, s) +
			     (__u64)(n & (2 * PWZ_BATCH - 1)) * sizeof(struct rec_slice);

		b->type = REC_SLICE_BATCH;
		if (size > sizeof(*b))
			size = sizeof(*b);
		if (bpf_ringbuf_output(&rb, b, size, rb_flags(&rb))) {
			cnt_add(CNT_DROP_SLICE, n);
			if (!fold_always)	/* (else folded already, one by one) */
				fold_batch(n);
		}
		b->n = 0;
	}
}

/* A selected thread's slice: into the CPU's batch with streams, else folded (R7). */
static __always_inline void switch_out_slice(const struct switch_out *so, bool btf,
					     bool preempt, struct task_struct *prev,
					     __u32 prev_pid, unsigned int prev_state)
{
	static const struct cpu_agg_val zero;
	__u32 key = 0;
	struct rec_batch *b = emit_streams ? bpf_map_lookup_elem(&batch, &key) : NULL;
	struct cpu_agg_val *agg;

	if (b) {
		batch_slice(b, so, btf, preempt, prev, prev_pid, prev_state);
		if (!fold_always)
			return;
	}
	/* R7: without streams (or with fold_always), the kernel folds every slice */
	agg = lookup_or_init(&cpu_aggs, &prev_pid, &zero);
	if (agg)
		fold_dropped(agg, prev_pid, so->start, so->now, so->end, so->known, so->wait,
			     so->wake, so->charged, so->charge, so->rd, so->rd_charge);
}

/* R4: a preempted thread waits from now; a sleeping one has nothing pending (its switch-in
 * took the wait, and wakeups of a running thread are ignored) unless that switch-in was
 * unseen (R2): then the wait it ended is forgotten here; a dead one loses its slot. */
static __always_inline void switch_out_wait(const struct switch_out *so, bool btf,
					    struct task_struct *prev, __u32 prev_pid)
{
	struct wait_start *ws;

	if (so->end == REC_END_PREEMPTED) {
		ws = ws_get(btf, prev, prev_pid, true);
		if (ws) {
			ws->ts = so->now;
			ws->preempted = 1;
			ws->waker_known = 0;
			ws->rd_base = so->rd_now;
		}
	} else if (!so->known && so->end == REC_END_SLEPT) {
		ws = ws_get(btf, prev, prev_pid, false);
		if (ws)
			ws->ts = 0;
	} else if (so->end == REC_END_EXITED && !(btf && task_storage)) {
		/* (task storage dies with the task by itself) */
		bpf_map_delete_elem(&wait_start, &prev_pid);
	}
}

/* -t: whether thread tid named itself and user space has not yet said whether it matches. */
static __always_inline bool named_pending(__u32 tid)
{
	return follow_names && tid && sel_has(&named_tids, tid);
}

static __always_inline void on_switch(bool btf, bool preempt, struct task_struct *prev,
				      struct task_struct *next, __u32 prev_pid, __u32 next_pid,
				      unsigned int prev_state)
{
	struct switch_out so;
	__u32 key = 0;
	struct cpu_state *cs;
	bool prev_sel, next_sel, next_stamp, prev_vcpu, next_vcpu;

	cs = bpf_map_lookup_elem(&cpu_state, &key);
	if (!cs)
		return;
	if (!filter_tids && !filter_tgids) {
		prev_sel = true;
		next_sel = next_stamp = next_pid != 0;
	} else if (cs->seen && !cs->sel && cs->tid == prev_pid) {
		/* the fast path of -p and -t: prev was filtered out at its switch-in here, and
		 * next is too: no clock read. A selection without -t only grows at a thread's
		 * birth, before it first runs; -t may select a thread while it runs (named to
		 * match): one that named itself is stamped from its naming on (stamp_named(),
		 * named_tids), another one's slice has no switch-in stamp (R2) */
		next_sel = next_pid && task_selected(btf, next_pid, next);
		prev_sel = follow_names && task_selected(btf, prev_pid, prev);
		next_stamp = next_sel || named_pending(next_pid);
		if (__builtin_expect(!next_stamp && !prev_sel, 1)) {
			cs->switches++;
			cs->tid = next_pid;
			return;
		}
	} else {
		/* stamped at its switch-in here (-p), else asked: R1/R2 (not seen switched in),
		 * or -t's selection, which may have grown since */
		prev_sel = (!follow_names && cs->seen && cs->sel && cs->tid == prev_pid) ||
			   task_selected(btf, prev_pid, prev);
		next_sel = next_pid && task_selected(btf, next_pid, next);
		next_stamp = next_sel || named_pending(next_pid);
	}
	prev_vcpu = led_is_vcpu(prev_pid);
	next_vcpu = led_is_vcpu(next_pid);
	so = (struct switch_out){ .now = sched_now_switch(btf, prev, cs, prev_vcpu || next_vcpu) };
	switch_out_take(&so, cs, btf, prev, prev_pid, prev_sel, next_pid);
	if (want_ledger) {
		/* a recent slice is a vCPU's while the thread has a ledger (not a recycled tid) */
		bool vcpu = prev_vcpu &&
			    led_switch_out(prev, prev_pid, so.now, switch_end(preempt, prev_state),
					   so.known ? 0 : so.start);

		recent_push(btf, prev, prev_pid, vcpu, so.now);
		if (next_vcpu)
			led_switch_in(next, next_pid, so.now);
	}
	/* without a selection every thread is recorded, the idle task's open slice too */
	cs->sel = next_stamp || (!filter_tids && !filter_tgids);
	so.end = switch_end(preempt, prev_state);
	so.rd = prev_sel && wait_charge(btf, prev, prev_pid, so.known, so.end, so.rd_base,
					&so.rd_now, &so.rd_charge);
	if (prev_sel)
		switch_out_slice(&so, btf, preempt, prev, prev_pid, prev_state);
	if (want_wait && prev_pid && prev_sel)
		switch_out_wait(&so, btf, prev, prev_pid);
	/* the switch-in: + 1, a new thread's first switch-in reads 0, which is known */
	cs->sum_start = next_stamp ? sum_exec(btf, next) + 1 : 0;
	if (want_wait && next_sel)
		measure_wait_start(btf, cs, next, next_pid, so.now);
}

/*
 * R4: a wait starts at the wakeup of a thread neither running (on_cpu) nor already waiting.
 * Who woke it was noted at sched_waking (the waker's context: sched_wakeup may run later on
 * the wakee's CPU, from its wake list); sched_wakeup_new runs in the parent, the waker.
 */
static __always_inline void on_wakeup(bool btf, bool is_new, struct task_struct *p, __u32 pid,
				      int on_cpu)
{
	__u64 now = sched_now_wakeup(btf, p);	/* first: noted for every wakeup */
	struct wait_start *ws;

	if (!want_wait || !pid || on_cpu || !task_selected(btf, pid, p))
		return;
	if (led_is_vcpu(pid)) {
		/* the wait's start and the ledger's: one time, CLOCK_MONOTONIC's, never after
		 * the switch-in that ends the wait (a mapped stamp of another CPU may be: R0) */
		now = bpf_ktime_get_ns();
		led_wakeup(p, pid, now);
	}
	ws = ws_get(btf, p, pid, true);
	if (ws && !ws->ts) {
		ws->ts = now ? now : bpf_ktime_get_ns();
		ws->preempted = 0;
		if (want_run_delay)
			ws->rd_base = run_delay(btf, p);
		if (is_new && want_waker) {
			ws->waker_tid = (__u32)bpf_get_current_pid_tgid();
			ws->waker_cpu = bpf_get_smp_processor_id();
			ws->waker_known = 1;
		}
	}
}

/* The waker of the wakeup to come: sched_waking fires only for the try_to_wake_up() that
 * succeeds, in the waker's context. A thread already waiting keeps the waker of its wait. */
static __always_inline void on_waking(bool btf, struct task_struct *p, __u32 pid)
{
	struct wait_start *ws;

	if (!pid || !task_selected(btf, pid, p))
		return;
	ws = ws_get(btf, p, pid, true);
	if (ws && !ws->ts) {
		ws->waker_tid = (__u32)bpf_get_current_pid_tgid();
		ws->waker_cpu = bpf_get_smp_processor_id();
		ws->waker_known = 1;
	}
}

/* tp_btf: typed task pointers, fields read directly. */
SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	on_switch(true, preempt, prev, next, prev->pid, next->pid, prev_state);
	return 0;
}

/* Before Linux 5.18 (no prev_state argument): the state read from the previous task. */
SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf_task_state, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	on_switch(true, preempt, prev, next, prev->pid, next->pid, task_state_btf(prev));
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(wakeup_btf, struct task_struct *p)
{
	on_wakeup(true, false, p, p->pid, p->on_cpu);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(wakeup_new_btf, struct task_struct *p)
{
	on_wakeup(true, true, p, p->pid, p->on_cpu);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(waking_btf, struct task_struct *p)
{
	on_waking(true, p, p->pid);
	return 0;
}

/* raw_tp: untyped pointers, fields read with CO-RE probe reads. */
SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	on_switch(false, preempt, prev, next, BPF_CORE_READ(prev, pid), BPF_CORE_READ(next, pid),
		  prev_state);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw_task_state, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	on_switch(false, preempt, prev, next, BPF_CORE_READ(prev, pid), BPF_CORE_READ(next, pid),
		  task_state(prev));
	return 0;
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(wakeup_raw, struct task_struct *p)
{
	on_wakeup(false, false, p, BPF_CORE_READ(p, pid), BPF_CORE_READ(p, on_cpu));
	return 0;
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(wakeup_new_raw, struct task_struct *p)
{
	on_wakeup(false, true, p, BPF_CORE_READ(p, pid), BPF_CORE_READ(p, on_cpu));
	return 0;
}

SEC("raw_tp/sched_waking")
int BPF_PROG(waking_raw, struct task_struct *p)
{
	on_waking(false, p, BPF_CORE_READ(p, pid));
	return 0;
}

/*
 * --live: the waits pending now, one struct pending_wait per runnable thread not yet switched
 * in, for user space to count what each has waited so far (capture__pending_waits()). Loaded
 * only where the wait starts are in task storage, which no map iteration reaches; the tid
 * hash of the other layouts is read as a map.
 */
SEC("iter/task")
int pending_waits(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct pending_wait pw = { 0 };
	struct wait_start *ws;

	if (!t)
		return 0;
	ws = bpf_task_storage_get(&wait_ts, t, 0, 0);
	if (!ws || !ws->ts)
		return 0;
	pw.tid = t->pid;
	pw.ts = ws->ts;
	bpf_seq_write(ctx->meta->seq, &pw, sizeof(pw));
	return 0;
}

static __always_inline int on_kvm_exit(__u32 isa, __u32 reason, __u32 vcpu)
{
	static const struct kvm_agg_val zero_agg;
	__u64 id = bpf_get_current_pid_tgid(), now = kvm_now();
	__u32 tid = (__u32)id, tgid = id >> 32;
	struct kvm_agg_key k = {};
	struct kvm_agg_val *agg;
	struct kvm_state *st;

	if (!ids_selected(tid, tgid))
		return 0;
	k.tid = tid;
	k.isa = isa;
	k.reason = reason;
	agg = lookup_or_init(&kvm_aggs, &k, &zero_agg);
	if (agg)
		agg->count++;
	cnt_add(CNT_KVM_EXITS, 1);
	st = led_current(tid, now, PWZ_VS_GUEST);
	if (!st)
		return 0;
	if (want_ledger) {
		led_to(&st->led, PWZ_VS_EXIT_KERNEL, now, true);
		st->led.ek_mark = st->led.ns[PWZ_VS_EXIT_KERNEL];
	}
	st->guest_ns = st->entry_ns && now > st->entry_ns ? now - st->entry_ns : 0;
	st->exit_ns = now;
	st->isa = k.isa;
	st->reason = k.reason;
	st->vcpu = vcpu;
	return 0;
}

SEC("tracepoint/kvm/kvm_exit")
int kvm_exit(struct trace_event_raw_kvm_exit *ctx)
{
	return on_kvm_exit(kvm_exit_isa(ctx), BPF_CORE_READ(ctx, exit_reason),
			   BPF_CORE_READ(ctx, vcpu_id));
}

/* Before Linux 5.11 (no kvm module BTF): the fields at the offsets of the tracefs format. */
SEC("tracepoint/kvm/kvm_exit")
int kvm_exit_fmt(void *ctx)
{
	__u32 isa, reason, vcpu;

	kvm_exit_fields_fmt(ctx, &isa, &reason, &vcpu);
	return on_kvm_exit(isa, reason, vcpu);
}

SEC("tracepoint/kvm/kvm_entry")
int kvm_entry(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = kvm_now(), handling;
	__u32 tid = (__u32)id, tgid = id >> 32;
	struct kvm_agg_key k = {};
	struct kvm_agg_val *agg;
	struct rec_kvm_exit *r;
	struct kvm_state *st;
	__u32 b;

	if (!ids_selected(tid, tgid))
		return 0;
	st = led_current(tid, now, PWZ_VS_UNSEEN);
	if (!st)
		return 0;
	if (want_ledger)
		led_to(&st->led, PWZ_VS_GUEST, now, true);
	if (st->exit_ns) {
		handling = now > st->exit_ns ? now - st->exit_ns : 0;
		k.tid = tid;
		k.isa = st->isa;
		k.reason = st->reason;
		agg = bpf_map_lookup_elem(&kvm_aggs, &k);
		if (agg) {
			agg->handling_ns += handling;
			b = pwz_log2_bucket(handling);
			if (b < PWZ_BPF_HIST)
				agg->hist[b]++;
		} else {
			/* the exit was counted on another CPU: this CPU's slot starts now */
			struct kvm_agg_val *z;
			static const struct kvm_agg_val zero_agg;

			z = lookup_or_init(&kvm_aggs, &k, &zero_agg);
			if (z) {
				z->handling_ns += handling;
				b = pwz_log2_bucket(handling);
				if (b < PWZ_BPF_HIST)
					z->hist[b]++;
			}
		}
		if (emit_streams) {
			r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
			if (r) {
				r->type = REC_KVM_EXIT;
				r->tid = tid;
				r->vcpu = st->vcpu;
				r->isa = st->isa;
				r->reason = st->reason;
				r->pad = 0;
				r->exit_ns = st->exit_ns;
				r->guest_ns = st->guest_ns;
				r->handling_ns = handling;
				bpf_ringbuf_submit(r, rb_flags(&rb));
			} else {
				cnt_add(CNT_DROP_KVM_EXIT, 1);
			}
		}
		st->exit_ns = 0;
	}
	st->entry_ns = now;
	return 0;
}

/* kvm_userspace_exit at its tracefs offsets (the same from Linux 3.x to 6.x). */
struct kvm_userspace_exit_args {
	__u64 common;
	__u32 reason;		/* KVM_EXIT_* */
	__s32 err;		/* < 0: the run failed or was interrupted (-EINTR) */
};

#define PWZ_KVM_EXIT_INTR 10	/* KVM_EXIT_INTR: a signal stopped the run */

/* R10: the vCPU returns to its VMM: exit_user, or other_on_cpu for an interrupted run. */
SEC("tracepoint/kvm/kvm_userspace_exit")
int kvm_uexit(struct kvm_userspace_exit_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = kvm_now();
	__u32 tid = (__u32)id, tgid = id >> 32, s;
	struct kvm_state *st;

	if (!want_ledger || !ids_selected(tid, tgid))
		return 0;
	st = led_current(tid, now, PWZ_VS_EXIT_KERNEL);
	if (!st)
		return 0;
	s = ctx->err < 0 || ctx->reason == PWZ_KVM_EXIT_INTR ? PWZ_VS_OTHER_ON_CPU :
							       PWZ_VS_EXIT_USER;
	led_to(&st->led, s, now, true);
	return 0;
}

/* kvm_vcpu_wakeup at its tracefs offsets: the end of a halt in the kernel. */
struct kvm_vcpu_wakeup_args {
	__u64 common;
	__u64 ns;		/* the halt's length: polling, then blocked if waited */
	__u8 waited;		/* it blocked */
	__u8 valid;
};

/*
 * R10: a halt in the kernel ends (kvm_vcpu_halt(), in the pending exit): the on-CPU part of it
 * moves from exit_kernel to halt_poll. That part is the exit's exit_kernel time less the part
 * before the halt began (the exit to now - ns, on CPU: the thread did not switch out before
 * it halted) and, when it blocked, the part since its last switch-in (after the wakeup).
 */
SEC("tracepoint/kvm/kvm_vcpu_wakeup")
int kvm_halt_end(struct kvm_vcpu_wakeup_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = kvm_now();
	__u64 ek, from, pre, post, poll;
	__u32 tid = (__u32)id;
	struct vcpu_ledger *l;
	struct kvm_state *st;

	if (!want_ledger)
		return 0;
	st = bpf_map_lookup_elem(&kvm_state, &tid);
	if (!st || !st->led.start_ns || !st->exit_ns || st->led.state != PWZ_VS_EXIT_KERNEL)
		return 0;
	l = &st->led;
	led_to(l, PWZ_VS_EXIT_KERNEL, now, false);
	ek = l->ns[PWZ_VS_EXIT_KERNEL] > l->ek_mark ? l->ns[PWZ_VS_EXIT_KERNEL] - l->ek_mark : 0;
	from = now > ctx->ns ? now - ctx->ns : 0;
	pre = from > st->exit_ns ? from - st->exit_ns : 0;
	post = ctx->waited && l->in_ns > from ? now - l->in_ns : 0;
	poll = ek > pre + post ? ek - pre - post : 0;
	l->ns[PWZ_VS_EXIT_KERNEL] -= poll;
	l->ns[PWZ_VS_HALT_POLL] += poll;
	if (poll) {
		l->count[PWZ_VS_HALT_POLL]++;
		led_hist(tid, PWZ_VS_HALT_POLL, poll);
	}
	l->ek_mark = l->ns[PWZ_VS_EXIT_KERNEL];
	return 0;
}

/* A task record of tid at time (a naming: now; a birth: the thread's start). -t's namings (a
 * rename: !is_new) wake the reader, so that user space decides at once whether the new name
 * matches (named_tids); the others wait for its poll. */
static __always_inline void emit_task(__u32 tid, __u32 tgid, __u32 is_new, const char *comm,
				      __u64 time)
{
	struct rec_task *r = bpf_ringbuf_reserve(&rb_task, sizeof(*r), 0);

	if (!r) {
		cnt_add(CNT_DROP_TASK, 1);
		return;
	}
	r->type = REC_TASK;
	r->tid = tid;
	r->tgid = tgid;
	r->is_new = is_new;
	r->time_ns = time;
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), comm);
	bpf_ringbuf_submit(r, follow_names && !is_new ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

/*
 * R8: thread tid was made (copy_process(), in its parent) with comm, born at start (its
 * task's start_time, which the kernel's ledger of a vCPU thread starts from: led_get()); a
 * thread in the making when the capture began is born now.
 */
static __always_inline void on_newtask(__u32 tid, __u64 flags, const char *comm, __u64 start)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = (flags & CLONE_THREAD_FLAG) ? (__u32)(id >> 32) : tid;
	__u32 parent = (__u32)id, ptgid = id >> 32;

	/* a selection is inherited: a selected thread's new thread, a selected process's child */
	if (filter_tids && sel_has(&sel_tids, parent))
		sel_add(&sel_tids, tid);
	if (filter_tgids && tgid != ptgid && sel_has(&sel_tgids, ptgid))
		sel_add(&sel_tgids, tgid);
	if (follow_names || ids_selected(tid, tgid))
		emit_task(tid, tgid, 1, comm, start > t0 ? start : bpf_ktime_get_ns());
}

SEC("tp_btf/task_newtask")
int BPF_PROG(newtask_btf, struct task_struct *task, unsigned long clone_flags)
{
	on_newtask(task->pid, clone_flags, task->comm, task->start_time);
	return 0;
}

SEC("raw_tp/task_newtask")
int BPF_PROG(newtask_raw, struct task_struct *task, unsigned long clone_flags)
{
	on_newtask(BPF_CORE_READ(task, pid), clone_flags, task->comm,
		   BPF_CORE_READ(task, start_time));
	return 0;
}

/* Whether comm is QEMU's name of a vCPU thread, "CPU <n>/KVM" (task_vcpu_of() of
 * user/lib/tasknames.h). */
static __always_inline bool comm_is_vcpu(const char *comm)
{
	int i = 4;

	if (comm[0] != 'C' || comm[1] != 'P' || comm[2] != 'U' || comm[3] != ' ' ||
	    comm[4] < '0' || comm[4] > '9')
		return false;
	while (i < PWZ_BPF_COMM_LEN - 5 && comm[i] >= '0' && comm[i] <= '9')
		i++;
	return i <= PWZ_BPF_COMM_LEN - 5 && comm[i] == '/' && comm[i + 1] == 'K' &&
	       comm[i + 2] == 'V' && comm[i + 3] == 'M' && !comm[i + 4];
}

/* R10: a thread that names itself as QEMU names its vCPUs is one from now: on CPU outside
 * KVM_RUN (unseen before, from its birth or the capture start). */
static __always_inline void led_named(__u32 tid, const char *comm)
{
	__u64 now = bpf_ktime_get_ns();
	struct kvm_state *st;

	if (!comm_is_vcpu(comm))
		return;
	if (sel_has(&vcpu_tids, tid)) {	/* a vCPU already, unless its tid was recycled */
		st = bpf_map_lookup_elem(&kvm_state, &tid);
		if (!st || st->led.state != PWZ_VS_DEAD)
			return;
	}
	st = led_current(tid, now, PWZ_VS_UNSEEN);
	if (st)
		led_to(&st->led, PWZ_VS_OTHER_ON_CPU, now, true);
}

/*
 * -t: thread tid, running here, named itself (a rename, an exec), and may now match, which
 * user space decides later: until then its switch-ins are stamped (named_tids). Filtered out
 * at this switch-in, it has no stamp (the fast path reads no clock): its slice is stamped
 * now, as if switched in, so that if it is selected its slice is recorded from its naming.
 */
static __always_inline void stamp_named(__u32 tid)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct cpu_state *cs;
	__u32 key = 0;

	if (!follow_names)
		return;
	sel_add(&named_tids, tid);
	cs = bpf_map_lookup_elem(&cpu_state, &key);
	if (!cs || !cs->seen || cs->sel || cs->tid != tid)
		return;
	cs_begin(cs, tid, bpf_ktime_get_ns());
	cs->sel = 1;
	cs->sum_start = sum_exec(false, t) + 1;
}

SEC("tracepoint/task/task_rename")
int task_rename(struct trace_event_raw_task_rename *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = BPF_CORE_READ(ctx, pid);
	__u32 tgid = tid == (__u32)id ? (__u32)(id >> 32) : 0;
	bool sel = ids_selected(tid, tgid);

	if (tgid)
		stamp_named(tid);

	if (want_ledger && sel && tgid) {
		char comm[PWZ_BPF_COMM_LEN];

		bpf_probe_read_kernel(comm, sizeof(comm), ctx->newcomm);
		led_named(tid, comm);
	}
	if (follow_names || sel || (filter_tgids && !tgid))
		emit_task(tid, tgid, 0, ctx->newcomm, bpf_ktime_get_ns());
	return 0;
}

/* A new program's command line (struct rec_exec), read here where the exec has just laid it
 * out and the process surely lives: the reader names its VM from it (user/capture_tasks.h). */
SEC("tracepoint/sched/sched_process_exec")
int process_exec(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	unsigned long start, end;
	struct rec_exec *r;
	__u64 len;

	stamp_named((__u32)id);
	if (!follow_names && !ids_selected((__u32)id, id >> 32))
		return 0;
	r = bpf_ringbuf_reserve(&rb_task, sizeof(*r), 0);
	if (!r) {
		cnt_add(CNT_DROP_TASK, 1);
		return 0;
	}
	start = BPF_CORE_READ(t, mm, arg_start);
	end = BPF_CORE_READ(t, mm, arg_end);
	len = end > start ? end - start : 0;
	r->type = REC_EXEC;
	r->tgid = id >> 32;
	r->time_ns = bpf_ktime_get_ns();
	r->cut = len > sizeof(r->args);
	if (len > sizeof(r->args))
		len = sizeof(r->args);
	r->len = len && !bpf_probe_read_user(r->args, len, (void *)start) ? len : 0;
	/* rare: the reader polls every 100 ms; -t's naming wakes it (emit_task()) */
	bpf_ringbuf_submit(r, follow_names ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	return 0;
}

/* ---- --irq: interference from hard and soft IRQs (optional, bpf/irq.bpf.h) ---- */
#include "irq.bpf.h"
