/* SPDX-License-Identifier: GPL-2.0 */
/* What the running kernel offers the capture programs, probed before load, and the fallbacks. */
#ifndef PWZ_CAPTURE_COMPAT_H
#define PWZ_CAPTURE_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pwz_bpf;
struct capture_cfg;

/*
 * The kernel features the programs of bpf/pwz.bpf.c depend on (every kernel from 5.10 with
 * CONFIG_DEBUG_INFO_BTF is supported) and, for each one missing, the fallback chosen:
 * - no task storage (BPF_MAP_TYPE_TASK_STORAGE, Linux 5.11): the tp_btf programs keep wait
 *   starts in a tid-keyed hash (task_storage = 0; wait_ts becomes a one-entry hash never used);
 * - no prev_state argument to sched_switch (Linux 5.18): the previous task's state is read
 *   from the task (switch_*_task_state), as the kernel's tracepoint itself did then;
 * - no BTF for kvm_exit's event (module BTF, Linux 5.11): its fields are read at the offsets
 *   of its tracefs format (kvm_exit_fmt);
 * - no task_struct::sched_info (CONFIG_SCHED_INFO off): the waits carry no kernel charge
 *   (want_run_delay = 0; META has_run_delay false, run_delay_ns null in the views);
 * - no BPF memory allocator for maps (struct bpf_mem_alloc, Linux 6.1): a hash without
 *   preallocation allocates in the kernel's allocator from the tracepoint, which on such a
 *   kernel can deadlock the scheduler (its 5.10 warns "trace type BPF program uses run-time
 *   allocation", and --aggregate-only locked a CPU up): wait_hists and vcpu_hists are then
 *   preallocated, wait_hists within PWZ_HISTS_PREALLOC_BUDGET bytes (the threads past it
 *   have no wait histogram: CNT_HIST_MISS);
 * - no run queue behind a task's se.cfs_rq (CONFIG_FAIR_GROUP_SCHED off): every event is
 *   stamped with bpf_ktime_get_ns(), as it is with raw_tp and with a filter, instead of the
 *   scheduler's clock (bpf/sched_clock.bpf.h).
 * What has no fallback (BTF itself, the BPF ring buffer of 5.8) is a one-line error.
 */
struct capture_compat {
	bool task_storage;	/* BPF_MAP_TYPE_TASK_STORAGE can be created */
	bool prev_state;	/* sched_switch's BTF prototype has prev_state */
	bool kvm_btf;		/* struct trace_event_raw_kvm_exit is in vmlinux or kvm BTF */
	bool run_delay;		/* task_struct has sched_info.run_delay (CONFIG_SCHED_INFO): the
				 * kernel's charge of each wait is read (model.h R9) */
	bool mem_alloc;		/* the BPF memory allocator: hashes may go unpreallocated */
	bool sched_clock;	/* the run queue's clock is reachable from a task (model.h R0) */
	uint32_t kvm_off_reason;	/* kvm_exit's tracefs offsets (when !kvm_btf) */
	uint32_t kvm_off_isa;		/* 0: no isa field */
	uint32_t kvm_off_vcpu;		/* 0: no vcpu_id field */
	unsigned int forced;	/* fallbacks taken by request (CAPTURE_COMPAT_*), not by lack */
};

/* Fallbacks, as forced through the environment (for benchmarks and tests). */
#define CAPTURE_COMPAT_RAW_TP		0x1u	/* raw_tp + tid hash, as --raw-tp */
#define CAPTURE_COMPAT_TASK_STATE	0x2u	/* prev_state read from the task */
#define CAPTURE_COMPAT_KVM_FMT		0x4u	/* kvm_exit fields at tracefs offsets */
#define CAPTURE_COMPAT_NO_STORAGE	0x8u	/* wait starts in the tid hash, as without task storage */
#define CAPTURE_COMPAT_NO_IRQ		0x10u	/* as a kernel without the irq tracepoints */
#define CAPTURE_COMPAT_NO_RUN_DELAY	0x20u	/* as a kernel without sched_info */
#define CAPTURE_COMPAT_PREALLOC		0x40u	/* as a kernel without bpf_mem_alloc */
#define CAPTURE_COMPAT_NO_SCHED_CLOCK	0x80u	/* every event on bpf_ktime_get_ns() */

/* The bytes of kernel memory a preallocated wait_hists may take (no bpf_mem_alloc). */
#define PWZ_HISTS_PREALLOC_BUDGET (32u << 20)

/* The environment variable forcing fallbacks: a comma list of raw_tp, task_state, kvm_fmt,
 * no_task_storage, no_irq, no_run_delay, prealloc, no_sched_clock. */
#define CAPTURE_COMPAT_ENV "PWZ_BPF_FALLBACK"

/*
 * Probes the running kernel (tracefs: the mount point with events/, for kvm_exit's format;
 * kvm: the kvm programs are wanted). Returns 0, or -errno with err filled with one line that
 * names the missing feature and what provides it (-ENOTSUP: no BTF, no ring buffer;
 * -ENOENT: kvm_exit has neither BTF nor a readable format).
 */
int capture_compat__probe(struct capture_compat *cc, const char *tracefs, bool kvm, char *err,
			  size_t errlen);

/*
 * --irq: whether the kernel has the irq_handler_entry/exit and softirq_entry/exit tracepoints
 * (their btf_trace_ typedefs in vmlinux BTF, which tp_btf and raw_tp both attach by). Returns
 * 0, or -ENOENT with err filled with one line naming the missing tracepoint.
 */
int capture_compat__probe_irq(char *err, size_t errlen);

/* Sets cc's kvm_off_* from the text of kvm_exit's tracefs format (an absent field: 0).
 * Returns 0, or -ENOENT when it has no exit_reason field. */
int capture_compat_kvm_offsets(const char *fmt, struct capture_compat *cc);

/* True when the programs must attach with raw_tp (forced). */
bool capture_compat__raw_tp(const struct capture_compat *cc);

/*
 * Picks the programs of an opened, not yet loaded skeleton for cfg and the attach kind (raw:
 * raw_tp), over the choices capture.c made: the switch program matching sched_switch's
 * arguments, the kvm_exit program matching its BTF, where wait starts are kept (tid_entries:
 * the tid hash's size when it replaces task storage), the clock (capture_compat__sched_clock()),
 * and sets the format offsets.
 */
void capture_compat__apply(const struct capture_compat *cc, struct pwz_bpf *s,
			   const struct capture_cfg *cfg, bool raw, uint32_t tid_entries);

/* Whether a capture of cfg attached with raw_tp (raw) stamps with the scheduler's clock:
 * tp_btf, the wakeup programs, no filter, and a kernel that has it. */
bool capture_compat__sched_clock(const struct capture_compat *cc, const struct capture_cfg *cfg,
				 bool raw);

/* The fallbacks in use by a capture with the scheduler programs (sched) attached with raw_tp
 * (raw) and the kvm ones (kvm), for a log line: "none", or e.g. "prev_state read from the task
 * (Linux < 5.18), kvm_exit fields at tracefs offsets (no kvm BTF, Linux < 5.11)". */
const char *capture_compat__describe(const struct capture_compat *cc, bool sched, bool raw,
				     bool kvm, char *buf, size_t len);

#endif /* PWZ_CAPTURE_COMPAT_H */
