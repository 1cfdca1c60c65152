/* SPDX-License-Identifier: GPL-2.0 */
/* --successors-of: which tasks ran next on the same CPU after a task's run slices ended. */
#ifndef PWZ_SUCCESSORS_H
#define PWZ_SUCCESSORS_H

#include <stddef.h>
#include <stdint.h>
#include "summary.h"

struct tasksel;

struct successor {
	char name[PWZ_NAME_MAX];	/* the next task's name, per-CPU threads merged (swapper) */
	uint64_t count;			/* times it ran next */
	double pct;			/* of all the task's switch-outs with a known successor */
};

struct successors {
	char task[PWZ_NAME_MAX];	/* "name:tid" of the first thread asked about */
	uint64_t total;			/* switch-outs with a successor */
	struct successor *items;	/* sorted by count, largest first, then by name */
	size_t nr;
};

/*
 * The successors of the threads of who (a selection of t, tasksel.h: --successors-of's task read
 * as a -t pattern) in the window of w (NULL = whole capture; w's append option names tasks):
 * for each run slice of those threads that ends in the window, the slice that starts next on
 * the same CPU, at or after its end. A CPU with no slice for the idle task counts a gap as
 * "swapper". The trace must hold its streams. NULL with errno and err filled (ENOENT: who
 * selects no thread, with tasksel_nomatch()'s message).
 */
struct successors *successors__new(const struct trace *t, const struct tasksel *who,
				   const struct summary_opts *w, char *err, size_t errlen);

/* s as one JSON object into b: {"file", "task", "switch_outs", "successors": [{"name",
 * "count", "pct"}]} (--successors-of --json; path: the file it came from). */
struct jbuf;
void successors_json(struct jbuf *b, const char *path, const struct successors *s);

/* NULL is a no-op. */
void successors__free(struct successors *s);

#endif /* PWZ_SUCCESSORS_H */
