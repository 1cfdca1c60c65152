/* SPDX-License-Identifier: GPL-2.0 */
/* --irq aggregates: softirq names, summing repeated records, per-vector and per-thread views. */
#ifndef PWZ_IRQ_H
#define PWZ_IRQ_H

#include <stddef.h>
#include <stdio.h>
#include "records.h"

#define PWZ_NR_SOFTIRQS 10	/* HI ... RCU, as include/linux/interrupt.h numbers them */

/* The name of softirq vector vec as /proc/softirqs prints it ("HI", "TIMER", ... "RCU"), or
 * NULL for a vector beyond them. */
const char *pwz_softirq_name(uint32_t vec);

/* The display name of an aggregate's vector: its name, else the softirq's, else NULL. */
const char *pwz_irq_name(const struct pwz_irq_agg *a);

/*
 * Sorts a[0..n) by (cpu, kind, vector, tid, since_ns) and adds up the records of one key
 * (counts and times summed, max_ns the largest, the first non-empty name kept), in place.
 * Returns the number of distinct keys now at the front of a.
 */
size_t pwz_irq_merge(struct pwz_irq_agg *a, size_t n);

/* One CPU's interrupts of one kind and vector, over every thread. */
struct irq_vector_row {
	uint32_t cpu;
	uint32_t kind;			/* enum pwz_irq_kind */
	uint32_t vector;
	const char *name;		/* pwz_irq_name() of the first record; NULL unknown */
	uint64_t count, time_ns, max_ns, nested_ns;
};

/* Per thread instance: the interrupt time taken from it, every CPU and vector together. */
struct irq_thread_row {
	uint32_t tid;			/* PWZ_IRQ_OTHER_TID: the threads outside the selection */
	uint64_t since_ns;
	uint64_t hard_count, hard_ns;
	uint64_t soft_count, soft_ns;
};

/*
 * From merged aggregates (pwz_irq_merge()'s order), the rows per (cpu, kind, vector) in that
 * order, and per thread by time taken (hard + soft), largest first (ties by tid). *out is
 * malloc'd (NULL when n is 0). Return the count, or -ENOMEM.
 */
long irq_vector_rows(const struct pwz_irq_agg *a, size_t n, struct irq_vector_row **out);
long irq_thread_rows(const struct pwz_irq_agg *a, size_t n, struct irq_thread_row **out);

#endif /* PWZ_IRQ_H */
