/* SPDX-License-Identifier: GPL-2.0 */
/* The live capture engine: loads and attaches bpf/pwz.bpf.c, drains its ring buffers and maps. */
#ifndef PWZ_CAPTURE_H
#define PWZ_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "../bpf/pwz.h"
#include "capture_cfg.h"
#include "capture_records.h"
#include "cdict.h"

struct capture;
struct model_fold;

/*
 * Sizes of the per-thread maps keyed by tid (bpf/pwz.h): every tid below pid_max, so that a
 * long capture (tids recycled, threads created without end) never fills them, within
 * [PWZ_TID_MAP_DEFAULT, PWZ_TID_MAP_MAX]; cpu_aggs, which holds one value per possible CPU
 * and is preallocated, also within PWZ_CPU_AGGS_BUDGET bytes. Past these, the kernel refuses
 * new threads and counts them in CNT_MAP_FULL ("map_full" in the file and the summary line).
 */
struct capture_map_sizes {
	uint32_t tid_entries;		/* wait_start (raw_tp, no task storage): pid_max, clamped */
	uint32_t kvm_state;		/* kvm_state: the same, within PWZ_KVM_STATE_HOST_MAX */
	uint32_t cpu_aggs;		/* cpu_aggs: threads aggregated per CPU */
	uint64_t cpu_aggs_bytes;	/* its kernel memory, estimated */
	uint32_t wait_hists;		/* wait_hists: threads with a wait histogram (once loaded) */
	bool hists_prealloc;		/* wait_hists and vcpu_hists preallocated (no bpf_mem_alloc,
					 * user/capture_compat.h) rather than allocated as used */
};

/* Kernel memory of one preallocated per-CPU hash element beside its values (struct htab_elem,
 * the key, the per-CPU pointer): what bpftool's memlock shows for cpu_aggs on 6.18, 192 bytes
 * an entry on 2 CPUs (80 + 2 x 56). The estimate of cpu_aggs_bytes. */
#define CAPTURE_HTAB_ELEM_BYTES 80

/* The sizes for a host with pid_max (0: unknown) and nr_cpus possible CPUs. */
void capture_map_sizes(uint32_t pid_max, int nr_cpus, struct capture_map_sizes *out);

/*
 * Probes the kernel (user/capture_compat.h), then opens and loads the programs: tp_btf, or
 * raw_tp when tp_btf does not load, the kernel has no task storage (or force_raw_tp); the
 * switch and kvm_exit programs that match the kernel's tracepoints. NULL with errno set and err filled ("cannot load ...: <reason> (<what to do>)").
 */
struct capture *capture__new(const struct capture_cfg *cfg, char *err, size_t errlen);

/* The map sizes the programs were loaded with. */
const struct capture_map_sizes *capture__map_sizes(const struct capture *c);

/* "tp_btf" or "raw_tp": how sched_switch is attached. */
const char *capture__attach_kind(const struct capture *c);

/* Whether the programs read the kernel's charge of each wait (sched_info.run_delay, model.h
 * R9): the kernel has it and waits are measured. */
bool capture__run_delay(const struct capture *c);

/* Whether the capture stamps the scheduling events with the run queues' clock (model.h R0);
 * if so and out is not NULL, its fit to CLOCK_MONOTONIC and the switches' counts so far into
 * *out. */
bool capture__sched_clock(const struct capture *c, struct pwz_sched_clock *out);

/* The fallbacks this kernel needed (user/capture_compat.h), "none" or a list, in buf. */
const char *capture__fallbacks(const struct capture *c, bool kvm, char *buf, size_t len);

/* Adds tid to the selection (a thread named to match after the start). 0 or -errno (-E2BIG
 * when the selection is full). */
int capture__select_tid(struct capture *c, uint32_t tid);

/* -t: user space has decided whether thread tid, which named itself, matches (selected or
 * not): the kernel stops stamping its switch-ins for that (bpf named_tids). */
void capture__named_decided(struct capture *c, uint32_t tid);

/* Whether the kernel's selection holds tid, or tgid (0: not asked), including what it
 * inherited (the new threads of a selected thread, the children of a selected process). */
bool capture__selected(const struct capture *c, uint32_t tid, uint32_t tgid);

/* R10: thread tid is a vCPU (named so at the start): its ledger starts with its first event,
 * the state before inferred. Before capture__start(); with the ledger (cfg kvm, sched, wait),
 * else -ENOTSUP. A tid outside the selection is ignored (0). Returns 0 or -errno. */
int capture__mark_vcpu(struct capture *c, uint32_t tid);

/* Whether the capture keeps the vCPU ledger (R10). */
bool capture__has_ledger(const struct capture *c);

/* R10: each vCPU thread's ledger, its open state closed at end_ns (CLOCK_MONOTONIC: the
 * capture's end, final, or now for a reading of a running capture: capture_conv_ledger()),
 * since_ns left 0 (the caller's instance), its histograms read when hists (else all 0):
 * cb(ctx, ledger) for each, until one returns non-zero. Returns 0, -ENOTSUP without the
 * ledger, -ENOMEM, or the first non-zero cb gave. */
int capture__vcpu_ledgers(struct capture *c, uint64_t end_ns, bool final, bool hists,
			  int (*cb)(void *ctx, const struct pwz_vcpu_ledger *l), void *ctx);

/* Sets the capture start t0 (CLOCK_MONOTONIC ns) and attaches. Records then flow to sink
 * through capture__poll(). Returns 0 or -errno with err filled. */
int capture__start(struct capture *c, uint64_t t0, const struct capture_sink *sink, char *err,
		   size_t errlen);

/* Waits up to timeout_ms for records and drains them into the sink, handing back control
 * after about 200 ms of draining even when the ring buffers never empty (sustained load), so
 * that the caller sees signals and deadlines. Returns the number of records (0 after such a
 * hand-back), -EINTR when a signal came, or a sink's non-zero value / -errno. */
int capture__poll(struct capture *c, int timeout_ms);

/* Detaches every program (no more events), writes the CLOCK_MONOTONIC time just after into
 * *detached_ns (the capture's end: no switch comes after it), then drains what is left,
 * each CPU's last partial batch of slices (bpf/pwz.h PWZ_BATCH) included.
 * Returns as poll. */
int capture__stop(struct capture *c, uint64_t *detached_ns);

/* Per-CPU counters summed over CPUs (enum pwz_cnt). Returns 0 or -errno. */
int capture__counters(struct capture *c, uint64_t out[PWZ_CNT_MAX]);

/*
 * The one fold of this capture (user/lib/model.h): every slice record read so far is folded
 * into it as it is read. Owned by the capture.
 */
struct model_fold *capture__fold(struct capture *c);

/*
 * Where the aggregates of exited threads go before the end (a copy of sink is kept; call
 * before capture__start()). The slice that ends with a thread's exit (PWZ_END_EXITED) marks
 * its instance (model.h R8); capture__poll() moves the marked instances' aggregates out of
 * capture__fold() to sink in batches (at least 1,024 threads, and one for every 8 aggregates
 * held). So a long capture of short-lived threads keeps the live threads' aggregates, not
 * every thread's; what comes of a thread after its exit (its dropped slices from the kernel,
 * an exit pending at the end) starts a new aggregate, added at the end: a reader adds the
 * records of one key (docs/cdict.md). Without a sink (sink->cpu_agg NULL) every aggregate
 * stays to the end.
 */
void capture__write_exited(struct capture *c, const struct cdict_visitor *sink);

/* Threads whose aggregates were written before the end so far. */
uint64_t capture__exited_written(const struct capture *c);

/*
 * Adds the kernel's aggregates into capture__fold() (call once, after capture__stop()): its
 * cpu_aggs, which with streams on hold only the slices whose records were dropped (so each
 * slice counts once), and the KVM exit aggregates, which the kernel counts for every exit.
 * Returns 0 or -errno.
 */
int capture__fold_kernel_aggs(struct capture *c);

/*
 * The kernel's aggregates as they stand now (cpu_aggs and kvm_aggs, totals since the start),
 * added into the caller's fold into; the programs may stay attached (the live view reads
 * them every interval and takes differences). Returns 0 or -errno.
 */
int capture__read_kernel_aggs(struct capture *c, struct model_fold *into);

/*
 * Drops the kernel's figures of those of the *n threads tids (sorted) that drop(ctx, tid, v,
 * nr) chooses, given each one's cpu_aggs slots (v[cpu] for the nr possible CPUs; zero when it
 * has none): their
 * cpu_aggs, wait_hists and kvm_aggs entries, their ledger and its histograms, their wait start
 * (raw_tp) and their bits in the vCPU and -t bitmaps. For a reader of the aggregates alone
 * (--live, --serve) that has counted what they did and knows them gone (exited: no event of
 * theirs comes again), so that a capture that runs without end holds the threads that live,
 * not every thread it saw; a tid the kernel hands out again starts from nothing. The dropped
 * tids are left in tids[0 .. *n), in order. A tid recycled between the caller's check and the
 * drop loses what its new thread did meanwhile. Returns 0 or -errno.
 */
int capture__forget_threads(struct capture *c, uint32_t *tids, size_t *n,
			    bool (*drop)(void *ctx, uint32_t tid, const struct cpu_agg_val *v, int nr),
			    void *ctx);

/*
 * The waits pending now: cb(tid, since) for each thread runnable since `since`
 * (bpf_ktime_get_ns(), CLOCK_MONOTONIC) and not yet switched in, where the capture was made
 * with cfg->pending_waits and the scheduler programs: read through the task iterator where
 * the wait starts are in task storage, from the tid hash otherwise. Returns 0, -ENOTSUP when
 * they cannot be read (then the caller counts each wait when it ends), or cb's error.
 */
int capture__pending_waits(struct capture *c, int (*cb)(void *ctx, uint32_t tid, uint64_t since),
			   void *ctx);

/* The slice running on each CPU now, for CPUs that saw a switch and whose state is its thread's
 * (st->sel: with -p, a thread filtered out at its switch-in has none): cb(cpu, st) where
 * st->tid runs since st->start_ns (0: since before the capture), after the wait in st->wait /
 * st->wake_ns. */
int capture__open_slices(struct capture *c, int (*cb)(void *ctx, uint32_t cpu,
						      const struct cpu_state *st), void *ctx);

/* The exits that wait for their kvm_entry: cb per thread with its state. */
int capture__pending_exits(struct capture *c, int (*cb)(void *ctx, uint32_t tid,
							const struct kvm_state *st), void *ctx);

/* Run time and count of the programs, when kernel.bpf_stats_enabled was on. Returns 0. */
/*
 * --irq: calls cb for every (CPU, thread, kind, vector) row of the kernel's irq_aggs with a
 * count (struct irq_agg_val of that CPU's slot), and name: the hard IRQ's handler name as the
 * kernel gave it ("" unknown; NULL for softirqs). Returns 0, cb's non-zero value, or -errno.
 * Without --irq the map is empty: no call.
 */
int capture__irq_aggs(struct capture *c, int (*cb)(void *ctx, uint32_t cpu,
						   const struct irq_agg_key *k,
						   const struct irq_agg_val *v, const char *name),
		      void *ctx);

int capture__prog_stats(struct capture *c, uint64_t *run_ns, uint64_t *run_cnt);

/* Detaches and frees everything. NULL is a no-op. */
void capture__free(struct capture *c);

/*
 * capture__free(), for a process about to exit: the kernel's release of the tracepoints' perf
 * events (the task and KVM programs' hooks: RCU grace periods under a global mutex, 40-50 ms
 * each, one after the other, 150-200 ms in all here; it would delay the process's exit by as
 * much) is left to a child process, which holds them until this process has exited and then
 * exits itself, with none of this process's other files (its output, pipes, terminal). The
 * programs are detached before the child is made, and nothing of the capture is read after.
 * When fork fails, the same as capture__free(). NULL is a no-op.
 */
void capture__free_async(struct capture *c);

#endif /* PWZ_CAPTURE_H */
