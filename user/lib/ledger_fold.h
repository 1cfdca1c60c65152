/* SPDX-License-Identifier: GPL-2.0 */
/* The host's vCPU state ledger (model.h R10): each vCPU thread's states, folded from records. */
#ifndef PWZ_LEDGER_FOLD_H
#define PWZ_LEDGER_FOLD_H

#include <stdbool.h>
#include <stdint.h>
#include "cdict.h"
#include "records.h"

/*
 * The ledger of R10 made from what a capture's records hold, for the sources whose kernel
 * kept none (a perf.data import). It applies R10's transitions to each vCPU thread's events
 * as the records give them:
 *   - a slice is a switch-in at its start (none for a slice starting at 0 or with
 *     PWZ_SLICE_UNSEEN_START) and a switch-out at its end, of its end kind (none for an open
 *     slice; PWZ_END_UNKNOWN: off CPU, unseen);
 *   - a wait is a wakeup at wake_ns (none for one PWZ_WAKEUP_PREEMPTED: the switch-out says
 *     it) and a switch-in at its end on its CPU;
 *   - a KVM exit is a kvm_exit at time_ns, a kvm_entry at time_ns - guest_ns (guest_ns > 0)
 *     and, paired, one at time_ns + handling_ns;
 *   - ledger_fold__uexit() and ledger_fold__halt_end() are kvm_userspace_exit and
 *     kvm_vcpu_wakeup, which no record holds; a task record that renames a thread "CPU <n>/KVM"
 *     is its naming.
 * A thread instance (R8) is a vCPU when it has a KVM event or a vCPU name. The records hold
 * every event of every thread, so each vCPU is followed from its birth or the capture start
 * as one the kernel knew from the start: its first event says the state before it (but for a
 * thread ledger_fold__late() names: unseen). Where the
 * records miss an event the kernel would have seen, the time it would have cut is unseen,
 * never guessed: an off-CPU stretch that ends in a switch-in with no wakeup after a sleep
 * (halt or ready: unknown), an on-CPU one that a wakeup ends, an off-CPU one that a KVM event
 * ends (from the last event before). A ready interval is charged to every slice of its CPU
 * meanwhile (the host has them all; a slice with PWZ_SLICE_UNSEEN_START is unseen, and so is
 * time no slice covers), and its co-stop is its overlap with the slices of the other vCPU
 * threads of its process. A thread's life ends at the switch-out it exited at, the birth of
 * its tid's next instance, or the end.
 * Memory: every slice, wait and exit given (about 40 bytes each), until freed.
 */

struct ledger_fold;

/* An empty fold. NULL with errno ENOMEM. */
struct ledger_fold *ledger_fold__new(void);

/* NULL is a no-op. */
void ledger_fold__free(struct ledger_fold *f);

/* The records, in any order but task records: those of one tid in time order (R8: a BORN
 * record starts an instance; the first record of an instance gives its name at its start).
 * Each returns 0 or -ENOMEM. */
int ledger_fold__task(struct ledger_fold *f, const struct pwz_task *t);
int ledger_fold__slice(struct ledger_fold *f, const struct pwz_slice *s);
int ledger_fold__wait(struct ledger_fold *f, const struct pwz_wakeup *w);
int ledger_fold__kvm_exit(struct ledger_fold *f, const struct pwz_kvm_exit *e);

/* kvm_userspace_exit of thread tid at t (ns from the capture start): its VMM runs
 * (exit_user), or a signal or an error ended the run (err < 0 or reason KVM_EXIT_INTR:
 * other_on_cpu). Returns 0 or -ENOMEM. */
int ledger_fold__uexit(struct ledger_fold *f, uint32_t tid, uint64_t t, uint32_t reason,
		       int32_t err);

/* kvm_vcpu_wakeup of thread tid at t: a halt of ns ended, blocked (waited) or not; its
 * on-CPU part is halt_poll. Returns 0 or -ENOMEM. */
int ledger_fold__halt_end(struct ledger_fold *f, uint32_t tid, uint64_t t, uint64_t ns,
			  bool waited);

/* Records that begin mid-capture (a flight dump's window, user/flight.h): thread tid was
 * not there as it is now at their start (born or named as a vCPU inside them), so the state
 * of its instance at the start before its first event is unseen, not what that event says.
 * Returns 0 or -ENOMEM. */
int ledger_fold__late(struct ledger_fold *f, uint32_t tid);

/* The fold as a visitor (ctx = f): task, slice, wakeup and kvm_exit; the rest NULL. */
struct cdict_visitor ledger_fold__visitor(struct ledger_fold *f);

/* Whether the fold holds a vCPU thread (a KVM event or a vCPU name). */
bool ledger_fold__has_vcpus(const struct ledger_fold *f);

/*
 * The capture ended at end_ns: folds the ledger of every vCPU thread instance over its life
 * within [0, end_ns) and gives each to sink's vcpu_ledger, by tid then birth; its states add
 * up to its alive_ns exactly. Call once. Returns 0, -ENOMEM, or the sink's first non-zero
 * value.
 */
int ledger_fold__emit(struct ledger_fold *f, uint64_t end_ns, const struct cdict_visitor *sink);

#endif /* PWZ_LEDGER_FOLD_H */
