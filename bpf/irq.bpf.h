/* SPDX-License-Identifier: GPL-2.0 */
/* --irq: hard and soft IRQ time per CPU, per vector and per interrupted thread (pwz.bpf.c). */
#ifndef PWZ_IRQ_BPF_H
#define PWZ_IRQ_BPF_H

/*
 * Included at the end of pwz.bpf.c (it uses its helpers: lookup_or_init(), ids_selected()).
 * These programs load only with --irq (autoload off otherwise: no cost, and a kernel without
 * the tracepoints still loads the rest); tp_btf, or raw_tp when the capture falls back to it.
 *
 * - irq_handler_entry/exit bracket one handler (irqaction) of a device IRQ: a shared line
 *   runs one pair per handler. The local APIC's own vectors (timer, IPIs: LOC, RES, CAL, TLB of
 *   /proc/interrupts) do not pass there and are not counted.
 * - softirq_entry/exit bracket one vector's run (in irq_exit or in ksoftirqd).
 * - Nesting: softirqs run with interrupts on, so a hard IRQ may come during one; hard IRQ
 *   handlers run with interrupts off and softirqs never run inside them. A hard IRQ inside a
 *   softirq is charged to the hard IRQ only: its time is taken out of the softirq's (and noted
 *   in the softirq's nested_ns), so no time is counted twice.
 * - The thread charged is the one current on the CPU (bpf_get_current_pid_tgid() in interrupt
 *   context: the interrupted thread, the idle task on an idle CPU, ksoftirqd when it runs
 *   them).
 * - An interrupt that began before the programs were attached (its entry unseen) is not
 *   counted; nor one still running when they are detached.
 * Cost: per interrupt, one bpf_ktime_get_ns() and one per-CPU array lookup at entry; at exit
 * another clock read and one hash lookup (an insertion the first time a key is seen).
 */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, PWZ_IRQ_AGGS_MAX);	/* 1 without --irq (userspace) */
	__type(key, struct irq_agg_key);
	__type(value, struct irq_agg_val);
} irq_aggs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_cpu_state);
} irq_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PWZ_IRQ_NAMES_MAX);	/* 1 without --irq (userspace) */
	__type(key, __u32);
	__type(value, struct irq_name);
} irq_names SEC(".maps");

static __always_inline struct irq_cpu_state *irq_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&irq_cpu, &zero);
}

/* Adds one interrupt of d ns (nested: the hard IRQ time inside it) to the current thread's row
 * (none without rows: --serve keeps the CPUs' IRQ time alone, irq_total_add()). */
static __always_inline struct irq_agg_val *irq_add(__u32 kind, __u32 vector, __u64 d,
						    __u64 nested)
{
	static const struct irq_agg_val zero;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct irq_agg_key k = {};
	struct irq_agg_val *v;

	if (!want_irq_rows)
		return NULL;
	k.tid = ids_selected(tid, id >> 32) ? tid : PWZ_IRQ_TID_OTHER;
	k.kind = kind;
	k.vector = vector;
	v = lookup_or_init(&irq_aggs, &k, &zero);
	if (!v)
		return NULL;
	v->count++;
	v->time_ns += d;
	v->nested_ns += nested;
	if (d > v->max_ns)
		v->max_ns = d;
	return v;
}

static __always_inline void on_irq_entry(__u32 irq)
{
	struct irq_cpu_state *st = irq_state();

	if (!st)
		return;
	st->hard_start = bpf_ktime_get_ns();
	st->hard_irq = irq;
}

/* name: the handler's irqaction::name (a kernel pointer), read once per irq number. */
static __always_inline void on_irq_exit(__u32 irq, const char *name)
{
	struct irq_cpu_state *st = irq_state();
	__u64 now = bpf_ktime_get_ns(), d;

	if (!st || !st->hard_start || st->hard_irq != irq) {
		if (st)
			st->hard_start = 0;
		return;
	}
	d = now > st->hard_start ? now - st->hard_start : 0;
	st->hard_start = 0;
	if (st->soft_start)
		st->nested_ns += d;
	irq_add(PWZ_IRQ_HARD, irq, d, 0);
	irq_total_add(d);
	if (want_irq_rows && !bpf_map_lookup_elem(&irq_names, &irq)) {
		struct irq_name n = {};

		bpf_probe_read_kernel_str(n.name, sizeof(n.name), name);
		bpf_map_update_elem(&irq_names, &irq, &n, BPF_NOEXIST);
	}
}

static __always_inline void on_softirq_entry(__u32 vec)
{
	struct irq_cpu_state *st = irq_state();

	if (!st)
		return;
	st->soft_start = bpf_ktime_get_ns();
	st->soft_vec = vec;
	st->nested_ns = 0;
}

static __always_inline void on_softirq_exit(__u32 vec)
{
	struct irq_cpu_state *st = irq_state();
	__u64 now = bpf_ktime_get_ns(), d, nested;

	if (!st || !st->soft_start || st->soft_vec != vec) {
		if (st)
			st->soft_start = 0;
		return;
	}
	d = now > st->soft_start ? now - st->soft_start : 0;
	nested = st->nested_ns < d ? st->nested_ns : d;
	st->soft_start = 0;
	st->nested_ns = 0;
	irq_add(PWZ_IRQ_SOFT, vec, d - nested, nested);
	irq_total_add(d - nested);
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(irq_entry_btf, int irq, struct irqaction *action)
{
	on_irq_entry((__u32)irq);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_exit_btf, int irq, struct irqaction *action, int ret)
{
	on_irq_exit((__u32)irq, action->name);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry_btf, unsigned int vec)
{
	on_softirq_entry(vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit_btf, unsigned int vec)
{
	on_softirq_exit(vec);
	return 0;
}

SEC("raw_tp/irq_handler_entry")
int BPF_PROG(irq_entry_raw, int irq, struct irqaction *action)
{
	on_irq_entry((__u32)irq);
	return 0;
}

SEC("raw_tp/irq_handler_exit")
int BPF_PROG(irq_exit_raw, int irq, struct irqaction *action, int ret)
{
	on_irq_exit((__u32)irq, BPF_CORE_READ(action, name));
	return 0;
}

SEC("raw_tp/softirq_entry")
int BPF_PROG(softirq_entry_raw, unsigned int vec)
{
	on_softirq_entry(vec);
	return 0;
}

SEC("raw_tp/softirq_exit")
int BPF_PROG(softirq_exit_raw, unsigned int vec)
{
	on_softirq_exit(vec);
	return 0;
}

#endif /* PWZ_IRQ_BPF_H */
