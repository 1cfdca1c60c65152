/* SPDX-License-Identifier: GPL-2.0 */
/* VMs as rows: the vCPU threads of each VM process, where their time and their exits' time went. */
#ifndef PWZ_VMS_H
#define PWZ_VMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "exitroll.h"
#include "summary.h"

/*
 * A vCPU thread is a thread with KVM exits in the window, or whose comm is QEMU's
 * "CPU <n>/KVM" (a halted vCPU may exit nothing), or whose instance has a vCPU state ledger
 * (model.h R10: the kernel knew it as a vCPU). A VM is the process (tgid) of vCPU threads;
 * its other threads are counted apart. A vCPU thread whose process is unknown (pid 0) is a VM
 * of its own. A kernel thread is never a VM's, even one the kernel put in a VM's cgroup: it
 * has no KVM exits and no ledger, and is a process of its own. The VM's name, by the first of
 * these that gives one, from its first vCPU thread's records:
 *   - the VM the thread's display name names ("<vm>.vcpu<n>": the capture's, from QEMU's
 *     -name or else from the process's cgroup, user/capture_tasks.h; or a --map name);
 *   - the name of the process's cgroup (cgroup_vm_name(), user/lib/cgroupname.h: a machine
 *     scope or a VMM's service), for a vCPU thread the capture did not name so;
 *   - the process's comm (proc_name, else the leader's comm), else the thread's comm.
 *
 * Per vCPU over the window (model.h R6), from the summary (so exact under drops when the summary
 * comes from aggregates):
 *   running_ns = its runtime (R1, R2: unseen time excluded, kept in unseen_ns),
 *   ready_ns   = its run-queue waits (R4, "CPU ready"; waits count whole in the window of their
 *                switch-in, as schedstat's run_delay),
 *   ready_kernel_ns = those waits as the kernel charged them (R9, schedstat's run_delay
 *                itself; whole-capture aggregates of a live capture only),
 *   alive_ns   = the part of the window the thread instance lived: from its birth when it was
 *                born inside the window (since_ns), to its end when it ended inside it
 *                (trace__instance_end(): its death, or the birth of the tid's next instance);
 *                otherwise the window's bound. A capture without slices (--aggregate-only)
 *                knows no death: the thread then counts as alive to the window's end,
 *   sleep_ns   = the rest of alive_ns (halted guest, blocked), never below 0; ready_pct and the
 *                views' shares are of alive_ns.
 * From the streams (the trace loaded with its slices, waits and exits; has_streams):
 *   migrations   = consecutive slices of the thread on different CPUs, the later one switched
 *                  in inside the window,
 *   preempters   = the threads that ran on the CPU a vCPU was next switched in on, during its
 *                  waits that count in the window, by time overlapped (top VMS_TOP_PREEMPTERS),
 *   exit split   = for each paired exit (R5) whose kvm_exit is in the window, its handling
 *                  interval [exit, entry) split into on-CPU (overlap with the thread's slices
 *                  whose switch-in was seen), off-CPU ready (overlap with its waits) and
 *                  off-CPU sleeping (the rest); on + ready + sleeping == total per exit;
 *   percentiles  = of exit handling per reason exact (nearest rank); of run-queue wait per
 *                  task from histograms of the kernel's layout (bpf/whist.h, that of the
 *                  aggregates' percentiles, summary_wait_range()): the range of the bucket
 *                  that holds each, cut to the longest wait (pwz_whist_quantile()); a bucket
 *                  is at most 25 % of its lower bound wide, bucket 0 is [0, 1.024 us). When
 *                  the file records dropped records (records_dropped), these stream figures
 *                  miss what was dropped.
 * From the capture's vCPU ledgers (model.h R10; has_ledger), when the window is the whole
 * capture (summary whole_capture; a ledger covers nothing less): the ledger of the vCPU's
 * thread instance (trace__vcpu_ledger(): matched by tid and since_ns), as the kernel kept it
 * (an import's: as ledger_fold.h folded it). Its alive_ns is the ledger's and may differ from the vCPU's alive_ns above, which stays
 * as computed here. A VM's ledger is the sum of its vCPUs' (pwz_vcpu_ledger_add(); its tid
 * and since_ns 0).
 */

#define VMS_TOP_PREEMPTERS 5

/* Whether a thread is a vCPU thread (the rule above): tid is not 0 (the idle tasks), and it
 * has KVM exits in the window (exits > 0), or its comm is QEMU's "CPU <n>/KVM", or its
 * instance has a vCPU state ledger (has_ledger). */
bool vms_is_vcpu(uint32_t tid, uint64_t exits, const char *comm, bool has_ledger);

/* One (isa, reason) of a vCPU or of a VM: an entry of its roll (exitroll.h). */
struct vms_exit {
	struct exitroll_entry ex;	/* isa, code, name (from the capture's table; NULL
					 * unknown); count: exits in the window (the summary's:
					 * drops included); handling_ns: the handling time of the
					 * paired ones; no histogram */
	uint64_t paired;		/* exits of the streams with a kvm_entry (R5) */
	uint64_t on_cpu_ns;		/* of ex.handling_ns, the part the thread ran */
	uint64_t off_ready_ns;		/* of which it waited runnable */
	uint64_t off_sleep_ns;		/* of which it slept (blocked, halted) */
	uint64_t p50_ns, p90_ns, p99_ns, max_ns;	/* of the paired exits' handling */
	uint64_t *durs;					/* their handling times (paired of them), so
						 * that the percentiles are exact */
	size_t cap_durs;
};

/* The entry i (i < exits->n) of a vCPU's or a VM's exits. */
static inline const struct vms_exit *vms_exit_at(const struct exitroll *exits, size_t i)
{
	return (const struct vms_exit *)exitroll_at(exits, i);
}

/* A thread that ran instead of a waiting vCPU. */
struct vms_preempter {
	uint32_t tid;
	uint64_t since_ns;		/* its instance */
	char name[PWZ_NAME_MAX];	/* display name as the summary has it; "" unknown */
	uint64_t ns;			/* overlap with the vCPU's waits */
};

/* The wait percentiles of struct vms_wait_pct, in the order of its ranges. */
enum vms_wait_q { VMS_P50, VMS_P90, VMS_P99, VMS_P999, VMS_NR_WAIT_Q };

/* Run-queue wait percentiles of one thread instance over the window (streams only). */
struct vms_wait_pct {
	uint32_t tid;
	uint64_t since_ns;		/* the instance (model.h R8), as task_summary's */
	uint64_t count;			/* waits of the streams in the window */
	uint64_t lo_ns[VMS_NR_WAIT_Q];	/* each percentile is in [lo_ns, hi_ns] (enum vms_wait_q): */
	uint64_t hi_ns[VMS_NR_WAIT_Q];	/* its bucket, cut to max_ns (pwz_whist_quantile()) */
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns;	/* the middle of each range, lo_ns +
						 * (hi_ns - lo_ns) / 2: a guess in it */
	uint64_t max_ns;		/* the longest wait */
};

/* The quantile (0.5, 0.9, 0.99, 0.999) of each enum vms_wait_q. */
extern const double vms_wait_q[VMS_NR_WAIT_Q];

/* Migrations of one thread instance over the window (streams only), as for a vCPU. */
struct vms_migrations {
	uint32_t tid;
	uint64_t since_ns;
	uint64_t count;
};

struct vms_vcpu {
	uint32_t tid;
	uint64_t since_ns;		/* the thread instance (model.h R8) */
	int32_t vcpu;			/* vcpu_id of its exits, or n of "CPU n/KVM"; -1 unknown */
	char name[PWZ_NAME_MAX];	/* the thread's display name */
	uint64_t alive_ns;		/* its lifetime within the window */
	uint64_t running_ns;
	uint64_t ready_ns;
	uint64_t sleep_ns;
	uint64_t unseen_ns;		/* R2 time of its switch-outs: in none of the three */
	bool has_ready_kernel;		/* the capture read the kernel's charge of the waits
					 * (summary has_run_delay) */
	uint64_t ready_kernel_ns;	/* ready_ns as the kernel charged it: run_delay_ns of its
					 * task row (model.h R9) */
	bool ready_differs;		/* the two differ by more than a bucket
					 * (summary_ready_differs()): the views show both */
	bool has_uncharged;		/* the capture read the kernel's charge (summary has_charged) */
	uint64_t uncharged_ns;		/* of running_ns, what the kernel did not charge the thread
					 * (steal by the hypervisor, IRQ time): charged_run_ns -
					 * charged_ns of its task row */
	uint64_t waits;			/* run-queue waits counted */
	uint64_t migrations;		/* streams only */
	struct vms_wait_pct wait;	/* streams only */
	struct vms_preempter top[VMS_TOP_PREEMPTERS];
	size_t nr_top;
	uint64_t exits_total;
	struct exitroll exits;		/* struct vms_exit entries (vms_exit_at()), sorted by
					 * exitroll_cmp_count(): by count, largest first */
	bool has_ledger;		/* the capture has its instance's ledger (whole capture) */
	struct pwz_vcpu_ledger ledger;	/* with has_ledger: its time in each state */
};

struct vms_vm {
	uint32_t pid;			/* tgid; the vCPU's tid when unknown */
	char name[PWZ_NAME_MAX];
	char cgroup[PWZ_CGROUP_MAX];	/* the process's cgroup v2 path, from the task record of
					 * its first vCPU thread, else of its leader; "" unknown */
	struct vms_vcpu *vcpus;		/* sorted by vcpu index, then tid */
	size_t nr_vcpus;
	uint32_t nr_other;		/* the process's other threads in the summary */
	uint64_t other_runtime_ns;	/* their runtime */
	uint64_t alive_ns, running_ns, ready_ns, sleep_ns;	/* sums over the vCPUs */
	bool has_uncharged;		/* the capture read the kernel's charge of every vCPU */
	uint64_t uncharged_ns;		/* with has_uncharged: of running_ns, what the kernel did
					 * not charge the vCPUs: the steal of the host CPUs they
					 * ran on, and IRQ time, while they ran */
	uint64_t exits_total;
	struct exitroll exits;		/* struct vms_exit entries per reason over the vCPUs,
					 * sorted as a vCPU's */
	bool has_ledger;		/* a vCPU of it has a ledger */
	struct pwz_vcpu_ledger ledger;	/* with has_ledger: the sum of its vCPUs' ledgers */
};


struct vms {
	uint64_t window_start_ns, window_end_ns;
	bool has_streams;		/* migrations, preempters, exit split, percentiles known */
	bool records_dropped;		/* the capture dropped records: stream figures miss them */
	struct vms_vm *vms;		/* sorted by name, then pid */
	size_t nr_vms;
	struct vms_wait_pct *waits;	/* per instance with waits in the window, by (tid, since) */
	size_t nr_waits;
	struct vms_migrations *migr;	/* per instance with slices, by (tid, since) */
	size_t nr_migr;
};

/*
 * The VMs of t over the window of s (a summary__new() of t). The stream figures are made when
 * t holds its streams (loaded with streams = true). Returns NULL with errno ENOMEM (err filled).
 * A capture without VMs gives nr_vms 0.
 */
struct vms *vms__new(const struct trace *t, const struct summary *s, char *err, size_t errlen);

/* NULL is a no-op. */
void vms__free(struct vms *v);

/* A VM's ready time in % of its vCPUs' lives in the window (sums of ready_ns over alive_ns);
 * 0 for a VM alive for none of it. */
double vms_vm_ready_pct(const struct vms_vm *vm);

/* The VMs of v worst first: by vms_vm_ready_pct(), highest first, then as v holds them (name,
 * pid). Returns an array of v->nr_vms pointers into v (the caller frees it), or NULL with
 * errno ENOMEM (or for no VM). */
const struct vms_vm **vms__worst_first(const struct vms *v);

/* The wait percentiles of the instance of tid born at since_ns (task_summary's since_ns), or
 * NULL (no waits in the window, or no streams). A stream record belongs to the instance alive
 * at its time (trace__task_at(): a slice's switch-in, a wait's start, an exit's time). */
const struct vms_wait_pct *vms__wait_pct(const struct vms *v, uint32_t tid, uint64_t since_ns);

/* The migrations of the instance (tid, since_ns) over the window into *count; false when
 * unknown (no streams, or no slice of it). */
bool vms__migrations(const struct vms *v, uint32_t tid, uint64_t since_ns, uint64_t *count);

/*
 * The split of one exit's handling interval [from, to) given the thread's slices and waits,
 * each sorted by start and not overlapping one another (as one thread's are): on-CPU is the
 * overlap with the slices (those flagged PWZ_SLICE_UNSEEN_START left out), ready the overlap
 * with the waits (minus any part also on-CPU), sleeping the rest. on + ready + sleep == to - from.
 */
void vms_split_interval(const struct pwz_slice *const *slices, size_t nr_slices,
			const struct pwz_wakeup *const *waits, size_t nr_waits, uint64_t from,
			uint64_t to, uint64_t *on, uint64_t *ready, uint64_t *sleep);

#endif /* PWZ_VMS_H */
