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
 * ("sched/tracing: Don't re-read p->state when emitting sched_switch event", Linux 5.18);
 * the program reads it from there, so the capture needs 5.18 or later. The task field it
 * mirrors was renamed from state to __state by commit 2f064a59a11f ("sched: Change
 * task_struct::state", Linux 5.14); this shim reads whichever exists, for callers that
 * only have the task.
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

#endif /* PWZ_CORE_FIXES_BPF_H */
