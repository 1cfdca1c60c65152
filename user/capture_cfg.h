/* SPDX-License-Identifier: GPL-2.0 */
/* What a capture attaches and records: the choices capture__new() and capture_compat__apply()
 * both read. */
#ifndef PWZ_CAPTURE_CFG_H
#define PWZ_CAPTURE_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct capture_cfg {
	bool sched;			/* attach sched_switch and the wakeups */
	bool wait;			/* measure run-queue wait (needs sched) */
	bool waker;			/* note each wakeup's waker (sched_waking; needs wait, streams) */
	bool kvm;			/* attach kvm_exit and kvm_entry (caller checked they exist);
					 * with sched and wait, keep each vCPU's ledger (R10) */
	bool kvm_uexit;			/* the ledger: attach kvm_userspace_exit (it exists) */
	bool kvm_halt;			/* the ledger: attach kvm_vcpu_wakeup (it exists) */
	bool irq;			/* --irq: attach the irq and softirq programs (bpf/irq.bpf.h) */
	bool irq_rows;			/* with irq: their rows per CPU, thread and vector (irq_aggs,
					 * read at the end); without, the CPUs' IRQ time alone, for
					 * the ledger's irq cause (--serve) */
	bool streams;			/* per-event records (else aggregates only) */
	bool fold_always;		/* with streams, the kernel folds every slice into its
					 * aggregates too, not only those whose record drops: they
					 * are then whole for a reader of the maps beside the
					 * records (--serve with --flight) */
	bool pending_waits;		/* read the waits pending at a reading
					 * (capture__pending_waits(): --live) */
	bool prompt;			/* each slice record at once, not batched (the flight
					 * recorder's dump must hold every slice up to its moment) */
	bool force_raw_tp;		/* skip tp_btf */
	unsigned int ringbuf_mb;	/* ring buffer size, a power of two */
	bool filter;			/* only the threads below (empty: nothing selected) */
	const uint32_t *tids;		/* selected thread ids */
	size_t nr_tids;
	const uint32_t *tgids;		/* selected process ids */
	size_t nr_tgids;
	bool follow_names;		/* task records for every new or renamed thread, so that the
					 * caller can select them (capture__select_tid()) */
};

#endif /* PWZ_CAPTURE_CFG_H */
