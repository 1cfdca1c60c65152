/* SPDX-License-Identifier: GPL-2.0 */
/* The live capture engine: loads and attaches bpf/pwz.bpf.c, drains its ring buffers and maps. */
#ifndef PWZ_CAPTURE_H
#define PWZ_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "../bpf/pwz.h"
#include "capture_records.h"

struct capture;

struct capture_cfg {
	bool sched;			/* attach sched_switch and the wakeups */
	bool wait;			/* measure run-queue wait (needs sched) */
	bool kvm;			/* attach kvm_exit and kvm_entry (caller checked they exist) */
	bool streams;			/* per-event records (else aggregates only) */
	bool force_raw_tp;		/* skip tp_btf */
	unsigned int ringbuf_mb;	/* ring buffer size, a power of two */
	bool filter;			/* only the threads below (empty: nothing selected) */
	const uint32_t *tids;		/* selected thread ids */
	size_t nr_tids;
	const uint32_t *tgids;		/* selected process ids */
	size_t nr_tgids;
};

/*
 * Opens and loads the programs: tp_btf, or raw_tp when tp_btf does not load (or
 * force_raw_tp). NULL with errno set and err filled ("cannot load ...: <reason> (<what to do>)").
 */
struct capture *capture__new(const struct capture_cfg *cfg, char *err, size_t errlen);

/* "tp_btf" or "raw_tp": how sched_switch is attached. */
const char *capture__attach_kind(const struct capture *c);

/* Sets the capture start t0 (CLOCK_MONOTONIC ns) and attaches. Records then flow to sink
 * through capture__poll(). Returns 0 or -errno with err filled. */
int capture__start(struct capture *c, uint64_t t0, const struct capture_sink *sink, char *err,
		   size_t errlen);

/* Waits up to timeout_ms for records and drains them into the sink, handing back control
 * after about 200 ms of draining even when the ring buffers never empty (sustained load), so
 * that the caller sees signals and deadlines. Returns the number of records (0 after such a
 * hand-back), -EINTR when a signal came, or a sink's non-zero value / -errno. */
int capture__poll(struct capture *c, int timeout_ms);

/* Detaches every program (no more events), then drains what is left. Returns as poll. */
int capture__stop(struct capture *c);

/* Per-CPU counters summed over CPUs (enum pwz_cnt). Returns 0 or -errno. */
int capture__counters(struct capture *c, uint64_t out[PWZ_CNT_MAX]);

/*
 * Aggregate readers: cb is called per (tid, cpu) with a non-zero slot, per tid summed over
 * CPUs for waits (of finished slices), per (tid, isa, reason) summed for KVM. A callback's
 * non-zero value stops the walk and is returned; else 0 or -errno. The scheduling figures are
 * the slice records read so far (call them after capture__stop()) plus the kernel's cpu_aggs,
 * which with streams on hold only the slices whose records were dropped.
 */
int capture__cpu_aggs(struct capture *c, int (*cb)(void *ctx, uint32_t tid, uint32_t cpu,
						   const struct cpu_agg_val *v), void *ctx);
int capture__wait_aggs(struct capture *c, int (*cb)(void *ctx, uint32_t tid,
						    const struct wait_agg_val *v), void *ctx);
int capture__kvm_aggs(struct capture *c, int (*cb)(void *ctx, const struct kvm_agg_key *k,
						   const struct kvm_agg_val *v), void *ctx);

/* The slice running on each CPU now, for CPUs that saw a switch: cb(cpu, st) where
 * st->tid runs since st->start_ns (0: since before the capture), after the wait in
 * st->wait / st->wake_ns. */
int capture__open_slices(struct capture *c, int (*cb)(void *ctx, uint32_t cpu,
						      const struct cpu_state *st), void *ctx);

/* The exits that wait for their kvm_entry: cb per thread with its state. */
int capture__pending_exits(struct capture *c, int (*cb)(void *ctx, uint32_t tid,
							const struct kvm_state *st), void *ctx);

/* Run time and count of the programs, when kernel.bpf_stats_enabled was on. Returns 0. */
int capture__prog_stats(struct capture *c, uint64_t *run_ns, uint64_t *run_cnt);

/* Detaches and frees everything. NULL is a no-op. */
void capture__free(struct capture *c);

#endif /* PWZ_CAPTURE_H */
