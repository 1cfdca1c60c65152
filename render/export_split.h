/* SPDX-License-Identifier: GPL-2.0 */
/* The per-exit on/off-CPU split of the Parquet kvm_exit table, made while the records stream. */
#ifndef PWZ_EXPORT_SPLIT_H
#define PWZ_EXPORT_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "records.h"

/*
 * Each paired exit's handling interval [kvm_exit, kvm_entry) is split by vms.h's rule
 * (vms_split_interval(): the one definition, shared with the per-reason figures of
 * `--list --json` vms and `--stats`) against its thread instance's slices and waits: on-CPU,
 * off-CPU ready, off-CPU sleeping. The export reads records in file order, where a thread's
 * exits come before the slice that covers them (a slice is written at its switch-out), so an
 * exit is held here until the records that decide its split have been read:
 * - a slice of the thread whose switch-in was seen and that contains the whole interval
 *   decides it at once (all on-CPU: nothing else of the thread can overlap it);
 * - otherwise (the thread left the CPU during the exit) once a slice of the thread ends at or
 *   after the entry, and, in a live capture, once every CPU's slices have been read up to the
 *   entry (pwz-bpf writes each CPU's slices in batches, so a thread's slices on two CPUs may
 *   come out of order); perf.data imports, synthetic and legacy files are in time order per
 *   thread.
 * The split is unknown (the emit callback's known = false) for an unpaired exit, for a thread
 * without any slice in the file (a `--kvm` capture records no slices), and for an exit that
 * reaches back before the slices its thread still held when it was read (below).
 *
 * Memory: the exits waiting for their slice (those of each vCPU's current slice) and the
 * slices and waits they may need. A thread without pending exits keeps at most its last
 * 2 * EXPORT_SPLIT_KEEP slices and waits. Past EXPORT_SPLIT_MAX_PENDING records held by the
 * threads with pending exits (about 48 bytes a record: some 50 MB), the largest thread's
 * oldest pending exits are dealt with:
 * - those that wait only for the other CPUs' slices (a live capture with a CPU whose batch of
 *   slices does not come: an idle CPU, or one that runs none of the selected threads) are
 *   decided with what was read (export_split__forced(): they may miss a slice of their thread
 *   that the batch holds);
 * - else (a vCPU that was never switched out, a capture without slices) the oldest half are let
 *   go of, and their thread keeps the slices and waits that overlap them; after the file, the
 *   caller reads its exits again (export_split__needs_replay(), export_split__replay_exit()),
 *   and those are emitted then, exact.
 */

#define EXPORT_SPLIT_KEEP 16
#define EXPORT_SPLIT_MAX_PENDING (1u << 20)

struct export_split;

/* Called for every exit, in the order its split was decided (not the file's order). on + ready +
 * sleep == handling_ns when known. Returns 0 or -errno (stops the export). */
typedef int (*export_split_emit_fn)(void *ctx, const struct pwz_kvm_exit *e, uint32_t utid,
				    bool known, uint64_t on, uint64_t ready, uint64_t sleep);

/* ordered: the file holds each thread's slices in time order (not a live capture). no_slices:
 * the capture recorded no slices (every split unknown, nothing held). nr_cpus: the capture's
 * CPUs (the meta's; more may show up). NULL with errno ENOMEM. */
struct export_split *export_split__new(bool ordered, bool no_slices, uint32_t nr_cpus,
				       export_split_emit_fn emit, void *ctx);

/* Records of thread instance utid (1-based, dense: the export's thread rows). Each returns 0 or
 * -errno (-ENOMEM, or the emit callback's error). */
int export_split__slice(struct export_split *xs, uint32_t utid, const struct pwz_slice *s);
int export_split__wait(struct export_split *xs, uint32_t utid, const struct pwz_wakeup *wk);
int export_split__exit(struct export_split *xs, uint32_t utid, const struct pwz_kvm_exit *e);

/* End of the file: every held exit is emitted with what was read. Returns 0 or -errno. */
int export_split__finish(struct export_split *xs);

/* After export_split__finish(): whether exits were let go of, so that the caller must read the
 * file's exits again, in the same order, through export_split__replay_exit(). */
bool export_split__needs_replay(const struct export_split *xs);

/* The replay: every exit of the file again (as export_split__exit() had them); those let go of
 * are emitted now, with the split of what was read. Returns 0 or -errno. */
int export_split__replay_exit(struct export_split *xs, uint32_t utid, const struct pwz_kvm_exit *e);

/* Exits emitted with the split unknown because they reached back before the records their
 * thread held; exits let go of and replayed. */
uint64_t export_split__overflowed(const struct export_split *xs);
uint64_t export_split__evicted(const struct export_split *xs);
uint64_t export_split__forced(const struct export_split *xs);

/* NULL is a no-op. */
void export_split__free(struct export_split *xs);

#endif /* PWZ_EXPORT_SPLIT_H */
