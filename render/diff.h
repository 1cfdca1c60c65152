/* SPDX-License-Identifier: GPL-2.0 */
/* Several captures side by side: tasks matched by name, counts scaled to a common window length. */
#ifndef PWZ_DIFF_H
#define PWZ_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "exitroll.h"
#include "summary.h"

/* One exit reason of one cell. */
struct diff_exit {
	size_t reason;		/* index in struct diff's reasons */
	double count;		/* KVM exits, scaled */
};

/* What one task name did in one run; counts already scaled (see struct diff). */
struct diff_cell {
	bool present;		/* the run has a task of this name */
	double cpu_pct;		/* % of one core over the run's window (not scaled: a rate) */
	double switches;	/* switch-outs, scaled */
	double voluntary;	/* scaled */
	double involuntary;	/* scaled */
	double exits_total;	/* KVM exits, scaled */
	struct diff_exit *exits;	/* the reasons this task had in this run, by reason index:
					 * memory follows what occurs, not rows x runs x reasons */
	size_t nr_exits;
};

struct diff_row {
	char name[PWZ_NAME_MAX];	/* the task name matched across runs */
	struct diff_cell *cells;	/* nr_runs entries */
};

/*
 * Rows are the union of the task names of all runs' rows, sorted by name; tasks of one run that
 * share a name are summed. Counts of run i are multiplied by
 * scale[i] = (window length of run 0) / (window length of run i), so that runs of different
 * lengths compare as if they had lasted as long as the first; cpu_pct is a rate, not scaled.
 */
struct diff {
	size_t nr_runs;
	double *scale;			/* nr_runs entries; scale[0] == 1 */
	bool scaled;			/* some scale differs from 1 by more than 0.1 % */
	struct exitroll reasons;	/* each (isa, reason) seen in any run, named as a summary
					 * names it (its figures unused), sorted by (isa, code) */
	struct diff_row *rows;
	size_t nr_rows;
};

/*
 * Builds the diff of the rows of nr summaries (nr >= 1; each keeps the rows of its run's
 * selection, tasksel_keep_rows()). Returns NULL with errno set and err filled.
 */
struct diff *diff__new(const struct summary *const *s, size_t nr, char *err, size_t errlen);

/* NULL is a no-op. */
void diff__free(struct diff *d);

/* The scaled count of reason (an index in d->reasons) in cell c; 0 when it had none. */
double diff_cell_exits(const struct diff_cell *c, size_t reason);

/* The row of name, or NULL. */
const struct diff_row *diff__row(const struct diff *d, const char *name);

/*
 * perfmap's short run names: the common head and tail of the names are stripped, but never
 * a digit (so "01x218" and "02x208" keep their digits). Writes nr malloc'd strings to out.
 * A single name is kept whole. Returns 0 or -ENOMEM.
 */
int diff_short_names(const char *const *names, size_t nr, char **out);

#endif /* PWZ_DIFF_H */
