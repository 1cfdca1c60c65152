/* SPDX-License-Identifier: GPL-2.0 */
/* -t: the thread instances of one capture that a run's patterns select, for every view. */
#ifndef PWZ_TASKSEL_H
#define PWZ_TASKSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "summary.h"
#include "tasknames.h"

/*
 * A selection is the -t patterns (tasknames.h, compiled once per run) resolved against one
 * loaded capture: the set of its thread instances (model.h R8: a recycled tid is another
 * thread) that the patterns pick. A thread is picked when a pattern matches its display name
 * (task_label()) or, with --append-tid, that name without ":<tid>" (so -t hogA picks the threads
 * shown as "hogA:<tid>"). Every thread of the capture is a candidate, named as the summary
 * names its rows: the instances of its task records; the threads its aggregates or streams name
 * without a task record (named by their tid); the idle task once per CPU it ran on
 * ("swapper/<cpu>"; tid 0).
 *
 * Every view of pwz-render takes the selection instead of matching names itself; NULL is the
 * selection of every thread (no -t).
 */
struct tasksel;

/*
 * Resolves p against t under the naming options o (copied; o->map is the one t was loaded
 * with, or NULL). p NULL selects every thread. The selection refers to t and p, which must
 * outlive it. NULL with errno ENOMEM.
 */
struct tasksel *tasksel__new(const struct task_patterns *p, const struct task_label_opts *o,
			     const struct trace *t);

/* The thread instances selected (the idle task counts once per CPU); 0 means -t matched no
 * thread of the capture (tasksel_nomatch() says so). */
size_t tasksel__count(const struct tasksel *s);

/* Whether the instance of tid born at since_ns (0: there at the start) is selected, the idle
 * task (tid 0) on some CPU; true for a NULL s. */
bool tasksel_has(const struct tasksel *s, uint32_t tid, uint64_t since_ns);

/* Whether some instance of tid is selected; true for a NULL s. */
bool tasksel_has_tid(const struct tasksel *s, uint32_t tid);

/* Whether a summary row is selected: its instance, or for the idle task's row the CPUs it
 * holds (one per CPU, or all of them merged); true for a NULL s. */
bool tasksel_has_row(const struct tasksel *s, const struct task_summary *ts);

/* Keeps the rows of sum that s selects, in their order (summary_keep()). */
void tasksel_keep_rows(const struct tasksel *s, struct summary *sum);

/*
 * The message for a selection of 0 threads, into err (one line, no newline): the patterns, the
 * capture, how -t reads a pattern, the capture's distinct names closest to the patterns (each
 * with its number of threads: "cc1" (x3)) and what to type.
 */
void tasksel_nomatch(const struct tasksel *s, char *err, size_t errlen);

/* The message for a selection whose threads have no row in a window [from_ns, to_ns) of the
 * capture, into err (one line). */
void tasksel_none_ran(const struct tasksel *s, uint64_t from_ns, uint64_t to_ns, char *err,
		      size_t errlen);

/* NULL is a no-op. */
void tasksel__free(struct tasksel *s);

#endif /* PWZ_TASKSEL_H */
