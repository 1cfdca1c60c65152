/* SPDX-License-Identifier: GPL-2.0 */
/* The VMs of a live frame (user/live_frame.h): which threads are vCPUs, and each VM's figures
 * over an interval, for --live's KVM view and --serve. */
#ifndef PWZ_LIVE_VMS_H
#define PWZ_LIVE_VMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "live_frame.h"

/*
 * The one rule of what a live thread is to the VM views: a vCPU when its display name names
 * one ("<vm>.vcpu<n>", or a bare "CPU <n>/KVM": task_display_vcpu()), its label then "<n>",
 * or when it had KVM exits, its label then "tid<tid>". Its VM is the name's VM part, else
 * proc_name (its process's name; NULL: unknown), else the thread's own name. False (vm and
 * label untouched) for any other thread.
 */
bool live_vcpu_of(const struct live_task *t, const char *proc_name, char *vm, size_t vmlen,
		  char *label, size_t labellen);

/*
 * Rolls the vCPU threads of f up per VM into f->vms (replacing what was there), worst first:
 * the highest mean ready % per vCPU, ties by name. proc_name(ctx, tgid) names a process (NULL:
 * unknown). A VM's other threads (same process) are its emulator's. Each task's vm is set to
 * the index of its VM in f->vms (a vCPU's, or its process's), -1 for the others. Returns 0 or
 * -ENOMEM.
 */
int live_frame_vms(struct live_frame *f, const char *(*proc_name)(void *ctx, uint32_t tgid),
		   void *ctx);

/* A VM's mean ready % per vCPU over f's interval (at most 100: each vCPU's is). */
double live_vm_ready_pct(const struct live_vm *v, const struct live_frame *f);

/* ns of v's vCPUs with a ledger (a state's sum, or their co-stop) as their mean % of f's
 * interval, cut to 100 (a ledger is read a moment after the interval's other figures). */
double live_vm_ledger_pct(const struct live_vm *v, uint64_t ns, const struct live_frame *f);

#endif /* PWZ_LIVE_VMS_H */
