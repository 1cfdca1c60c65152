/* SPDX-License-Identifier: GPL-2.0 */
/* Visitors that compose (struct cdict_visitor, cdict.h): the naming gate and the tee. */
#ifndef PWZ_VISIT_H
#define PWZ_VISIT_H

#include <stdint.h>
#include "cdict.h"

/*
 * The naming gate: a record stream's rule that a thread's task record comes before the first
 * record naming it (cdict.h). Every record that names a thread (a slice, a wakeup, a KVM
 * exit, an aggregate; an IRQ_AGG unless its tid is PWZ_IRQ_OTHER_TID) first calls
 * name(name_ctx, tid, time_ns) with the record's time (0 for aggregates), which writes the
 * thread's task record when it is due, to next or elsewhere; then the record goes to next.
 * Task records pass straight on. The gate counts what it passed on, and keeps the first
 * failure (name's or next's) in *err.
 */
struct visit_gate {
	struct cdict_visitor next;	/* a NULL callback drops that kind */
	int (*name)(void *name_ctx, uint32_t tid, uint64_t time_ns);
	void *name_ctx;
	int *err;			/* when set: receives the first non-zero value returned */
	uint64_t slices, wakeups, kvm_exits;	/* records passed on */
};

/* The gate as a visitor (ctx = g, which must outlive it). A callback's non-zero value (name's
 * or next's) is returned and the record not passed on. */
struct cdict_visitor visit_gate__visitor(struct visit_gate *g);

/* Two visitors fed the same records, a first: a NULL callback skips that side; the first
 * non-zero value is returned (b is then not called). */
struct visit_tee {
	struct cdict_visitor a, b;
};

/* The tee as a visitor (ctx = t, which must outlive it). */
struct cdict_visitor visit_tee__visitor(struct visit_tee *t);

#endif /* PWZ_VISIT_H */
