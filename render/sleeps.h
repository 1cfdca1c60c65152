/* SPDX-License-Identifier: GPL-2.0 */
/* Sleeps by the state the thread slept in (S, D, other), per thread instance, from the slices. */
#ifndef PWZ_SLEEPS_H
#define PWZ_SLEEPS_H

#include <stdbool.h>
#include <stdint.h>
#include "trace.h"

/*
 * A sleep begins at a voluntary switch-out (a slice that ended PWZ_END_SLEPT) and lasts to the
 * next switch-in of the same thread instance (model.h R8); one with no later switch-in lasts
 * to the window's end. Its class is the switch-out's prev_state as reported (records.h,
 * pwz_slice_state()): S interruptible (0x1), D uninterruptible (0x2), other (I, T, t, P ...).
 * Over a window [ws, we):
 *   count[c]  sleeps of class c that began in the window: the voluntary switch-outs into c
 *             among the recorded slices;
 *   ns[c]     the time of class-c sleeps inside the window, clipped to it (one begun before ws
 *             counts from ws).
 * The heatmaps' sleep points are the same sleeps begun in the window that end at a switch-in,
 * each with its whole length.
 * Known only when the capture reports prev_state (meta.has_prev_state: live captures, perf.data
 * imports with sched_switch) and its slices are loaded. Figures come from the recorded slices: a
 * live capture's dropped records are not in them.
 */
enum sleep_class {
	SLEEP_S = 0,		/* S: interruptible */
	SLEEP_D = 1,		/* D: uninterruptible */
	SLEEP_OTHER = 2,	/* any other reported state: I (idle), T, t, P ... */
	SLEEP_NR
};

struct sleep_row {
	uint64_t count[SLEEP_NR];	/* sleeps begun in the window, by class */
	uint64_t ns[SLEEP_NR];		/* their time in the window, by class */
};

struct sleeps;

/* Whether t can tell its sleeps apart by state: prev_state reported and slices loaded. */
bool sleeps_known(const struct trace *t);

/* The class of a reported prev_state (PWZ_STATE_*). */
enum sleep_class sleep_class_of(uint32_t state);

/* The sleeps of every thread instance of t over [ws, we). NULL with errno set: ENODATA when
 * !sleeps_known(t), ENOMEM. The trace must outlive the result. */
struct sleeps *sleeps__new(const struct trace *t, uint64_t ws, uint64_t we);

/* The row of the instance of tid born at since_ns (0: there at the start), NULL when it never
 * slept in the window or is not a task of the trace (the idle task, a merged row). */
const struct sleep_row *sleeps__of(const struct sleeps *s, uint32_t tid, uint64_t since_ns);

/* NULL is a no-op. */
void sleeps__free(struct sleeps *s);

#endif /* PWZ_SLEEPS_H */
