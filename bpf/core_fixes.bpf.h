/* SPDX-License-Identifier: GPL-2.0 */
/* CO-RE shims for kernel changes the capture programs straddle; each cites the change. */
#ifndef PWZ_CORE_FIXES_BPF_H
#define PWZ_CORE_FIXES_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_core_read.h>

/*
 * kvm_exit gained its isa field (VMX or SVM) with commit 1a6f2a7b6ec2 ("KVM: x86: Add
 * KVM_EXIT_* tracing of isa...", Linux 5.7, where the VMX and SVM tracepoints were merged).
 * Older kernels traced VMX only: report VMX.
 */
static __always_inline __u32 kvm_exit_isa(struct trace_event_raw_kvm_exit *ctx)
{
	if (bpf_core_field_exists(ctx->isa))
		return BPF_CORE_READ(ctx, isa);
	return 1;
}

/*
 * sched_switch passes prev_state as its fourth argument since commit fa2c3254d7cf
 * ("sched/tracing: Don't re-read p->state when emitting sched_switch event", Linux 5.18).
 * Before, the programs that attach there (switch_*_task_state) read it from the previous task,
 * as the kernel's own tracepoint did then. The task field was renamed from state to __state by
 * commit 2f064a59a11f ("sched: Change task_struct::state", Linux 5.14); this shim reads
 * whichever exists.
 */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* The same for a BTF-typed task pointer (tp_btf): a direct load, no probe read. */
static __always_inline unsigned int task_state_btf(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return ((struct task_struct___pre514 *)t)->state;
}

/*
 * The CPU of task t (the kernel's task_cpu()): in thread_info again with THREAD_INFO_IN_TASK
 * since commit bcf9033e5449 ("sched: move CPU field back into thread_info if
 * THREAD_INFO_IN_TASK=y", Linux 5.16), in task_struct before.
 */
struct task_struct___pre516 {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_cpu_of(struct task_struct *t)
{
	if (bpf_core_field_exists(((struct task_struct___pre516 *)t)->cpu))
		return BPF_CORE_READ((struct task_struct___pre516 *)t, cpu);
	return BPF_CORE_READ(t, thread_info.cpu);
}

/*
 * kvm_exit's event layout, for kernels whose kvm module has no BTF: module BTF came with
 * commit 36e68442d1af ("bpf: Load and verify kernel module BTFs", Linux 5.11), so before it the
 * CO-RE reads of struct trace_event_raw_kvm_exit cannot be relocated. Userspace then reads the
 * field offsets from the event's tracefs format and sets these before load (kvm_exit_fmt).
 */
const volatile __u32 kvm_fmt_reason_off = 0;	/* exit_reason */
const volatile __u32 kvm_fmt_isa_off = 0;	/* isa; 0: no such field (VMX only) */
const volatile __u32 kvm_fmt_vcpu_off = 0;	/* vcpu_id; 0: no such field */

static __always_inline void kvm_exit_fields_fmt(void *ctx, __u32 *isa, __u32 *reason,
						__u32 *vcpu)
{
	*isa = 1;
	*reason = 0;
	*vcpu = 0;
	bpf_probe_read_kernel(reason, sizeof(*reason), (char *)ctx + kvm_fmt_reason_off);
	if (kvm_fmt_isa_off)
		bpf_probe_read_kernel(isa, sizeof(*isa), (char *)ctx + kvm_fmt_isa_off);
	if (kvm_fmt_vcpu_off)
		bpf_probe_read_kernel(vcpu, sizeof(*vcpu), (char *)ctx + kvm_fmt_vcpu_off);
}

#endif /* PWZ_CORE_FIXES_BPF_H */
