/* SPDX-License-Identifier: GPL-2.0 */
/* --successors-of: which tasks ran next on the same CPU after a task's run slices ended. */
#ifndef PWZ_SUCCESSORS_H
#define PWZ_SUCCESSORS_H

#include <stddef.h>
#include <stdint.h>
#include "summary.h"

struct successor {
	char name[PWZ_NAME_MAX];	/* the next task's name, per-CPU threads merged (swapper) */
	uint64_t count;			/* times it ran next */
	double pct;			/* of all the task's switch-outs with a known successor */
};

struct successors {
	char task[PWZ_NAME_MAX];	/* "name:tid" of the task asked about (its first tid) */
	uint64_t total;			/* switch-outs with a successor */
	struct successor *items;	/* sorted by count, largest first, then by name */
	size_t nr;
};

/*
 * The successors of the task given as who (a tid if all digits, else a display name matched
 * exactly) in the window of w (NULL = whole capture; w's merge/append options name tasks):
 * for each run slice of the task that ends in the window, the slice that starts next on the
 * same CPU, at or after its end. A CPU with no slice for the idle task counts a gap as
 * "swapper". The trace must hold its streams. NULL with errno and err filled
 * (ENOENT: no such task).
 */
struct successors *successors__new(const struct trace *t, const char *who,
				   const struct summary_opts *w, char *err, size_t errlen);

/* s as one JSON object into b: {"file", "task", "switch_outs", "successors": [{"name",
 * "count", "pct"}]} (--successors-of --json; path: the file it came from). */
struct jbuf;
void successors_json(struct jbuf *b, const char *path, const struct successors *s);

/* NULL is a no-op. */
void successors__free(struct successors *s);

#endif /* PWZ_SUCCESSORS_H */
