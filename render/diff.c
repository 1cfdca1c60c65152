// SPDX-License-Identifier: GPL-2.0
/* Several captures side by side: tasks matched by name, counts scaled to a common window length. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "keymap.h"

int diff_short_names(const char *const *names, size_t nr, char **out)
{
	size_t head = 0, tail = 0, i, j, minlen = SIZE_MAX;

	for (i = 0; i < nr; i++) {
		size_t l = strlen(names[i]);

		if (l < minlen)
			minlen = l;
	}
	if (nr >= 2) {
		/* common head, never eating a digit */
		for (head = 0; head < minlen; head++) {
			char c = names[0][head];

			if (c >= '0' && c <= '9')
				break;
			for (j = 1; j < nr && names[j][head] == c; j++)
				;
			if (j < nr)
				break;
		}
		for (tail = 0; tail < minlen - head; tail++) {
			char c = names[0][strlen(names[0]) - 1 - tail];

			if (c >= '0' && c <= '9')
				break;
			for (j = 1; j < nr && names[j][strlen(names[j]) - 1 - tail] == c; j++)
				;
			if (j < nr)
				break;
		}
	}
	for (i = 0; i < nr; i++) {
		size_t l = strlen(names[i]);

		if (l - head - tail == 0)
			out[i] = strdup(names[i]);
		else
			out[i] = strndup(names[i] + head, l - head - tail);
		if (!out[i]) {
			while (i--)
				free(out[i]);
			return -ENOMEM;
		}
	}
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	return strcmp(((const struct diff_row *)a)->name, ((const struct diff_row *)b)->name);
}

void diff__free(struct diff *d)
{
	size_t i, j;

	if (!d)
		return;
	for (i = 0; i < d->nr_rows; i++) {
		if (!d->rows[i].cells)
			continue;
		for (j = 0; j < d->nr_runs; j++)
			free(d->rows[i].cells[j].exits);
		free(d->rows[i].cells);
	}
	free(d->rows);
	exitroll_free(&d->reasons);
	free(d->scale);
	free(d);
}

static int cmp_exit(const void *a, const void *b)
{
	const struct diff_exit *x = a, *y = b;

	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

double diff_cell_exits(const struct diff_cell *c, size_t reason)
{
	struct diff_exit key = { .reason = reason };
	const struct diff_exit *e = bsearch(&key, c->exits, c->nr_exits, sizeof(key), cmp_exit);

	return e ? e->count : 0.0;
}

/* Sorts the exits of c by reason and sums the entries of one reason (tasks sharing a name). */
static void settle_cell(struct diff_cell *c)
{
	size_t out = 0;

	if (c->nr_exits > 1)
		qsort(c->exits, c->nr_exits, sizeof(*c->exits), cmp_exit);
	for (size_t i = 0; i < c->nr_exits; i++) {
		if (out && c->exits[out - 1].reason == c->exits[i].reason)
			c->exits[out - 1].count += c->exits[i].count;
		else
			c->exits[out++] = c->exits[i];
	}
	c->nr_exits = out;
}

/* Appends the scaled exits of ts to c (settle_cell() sums them later). */
static int add_exits(const struct diff *d, struct diff_cell *c, const struct task_summary *ts,
		     double sc)
{
	struct diff_exit *p;

	if (!ts->exits.n)
		return 0;
	p = realloc(c->exits, (c->nr_exits + ts->exits.n) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->exits = p;
	for (size_t n = 0; n < ts->exits.n; n++) {
		const struct exitroll_entry *e = exitroll_at(&ts->exits, n);
		int64_t r = exitroll_find(&d->reasons, e->isa, e->code);

		if (r >= 0)
			c->exits[c->nr_exits++] = (struct diff_exit){
				.reason = (size_t)r, .count = (double)e->count * sc };
	}
	return 0;
}

const struct diff_row *diff__row(const struct diff *d, const char *name)
{
	struct diff_row key;

	snprintf(key.name, sizeof(key.name), "%s", name);
	return bsearch(&key, d->rows, d->nr_rows, sizeof(key), cmp_row);
}

/* The scale of each run to the first one's window (d->scale, d->scaled). */
static void set_scales(struct diff *d, const struct summary *const *s, size_t nr)
{
	uint64_t len0 = s[0]->window_end_ns - s[0]->window_start_ns;

	for (size_t i = 0; i < nr; i++) {
		uint64_t len = s[i]->window_end_ns - s[i]->window_start_ns;

		d->scale[i] = len ? (double)len0 / (double)len : 1.0;
		if (d->scale[i] < 0.999 || d->scale[i] > 1.001)
			d->scaled = true;
	}
}

/* The exit reasons of ts added to d->reasons once each. Returns 0 or -ENOMEM. */
static int add_reasons(struct diff *d, const struct task_summary *ts)
{
	for (size_t n = 0; n < ts->exits.n; n++) {
		const struct exitroll_entry *e = exitroll_at(&ts->exits, n);

		if (!exitroll_get(&d->reasons, e->isa, e->code, e->name))
			return -ENOMEM;
	}
	return 0;
}

/* The union of reasons (sorted) and of task names (sorted, once each, a cell per run).
 * Returns 0 or -ENOMEM. */
static int collect_rows(struct diff *d, const struct summary *const *s, size_t nr)
{
	size_t i, n, cap = 0, nrows = 0;

	for (i = 0; i < nr; i++) {
		for (size_t k = 0; k < s[i]->nr_tasks; k++) {
			const struct task_summary *ts = &s[i]->tasks[k];

			if (add_reasons(d, ts) ||
			    array_reserve((void **)&d->rows, &cap, nrows + 1, sizeof(*d->rows)))
				return -ENOMEM;
			memset(&d->rows[nrows], 0, sizeof(d->rows[nrows]));
			snprintf(d->rows[nrows].name, sizeof(d->rows[nrows].name), "%s", ts->name);
			nrows++;
		}
	}
	exitroll_sort_by_code(&d->reasons);
	if (nrows)
		qsort(d->rows, nrows, sizeof(*d->rows), cmp_row);
	/* unique names */
	for (i = 0, n = 0; i < nrows; i++)
		if (!n || strcmp(d->rows[n - 1].name, d->rows[i].name))
			d->rows[n++] = d->rows[i];
	d->nr_rows = n;
	for (i = 0; i < d->nr_rows; i++) {
		d->rows[i].cells = calloc(nr, sizeof(struct diff_cell));
		if (!d->rows[i].cells)
			return -ENOMEM;
	}
	return 0;
}

/* Each run's tasks added to the cells of their names, scaled to the first run's window.
 * Returns 0 or -ENOMEM. */
static int fill_cells(struct diff *d, const struct summary *const *s, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		double sc = d->scale[i];

		for (size_t k = 0; k < s[i]->nr_tasks; k++) {
			const struct task_summary *ts = &s[i]->tasks[k];
			const struct diff_row *row = diff__row(d, ts->name);
			struct diff_cell *c;

			if (!row)
				continue;
			c = &row->cells[i];
			c->present = true;
			c->cpu_pct += summary_cpu_pct(s[i], ts);
			c->switches += (double)ts->switches * sc;
			c->voluntary += (double)ts->voluntary * sc;
			c->involuntary += (double)ts->involuntary * sc;
			c->exits_total += (double)ts->exits_total * sc;
			if (add_exits(d, c, ts, sc))
				return -ENOMEM;
		}
	}
	for (size_t i = 0; i < d->nr_rows; i++)
		for (size_t k = 0; k < nr; k++)
			settle_cell(&d->rows[i].cells[k]);
	return 0;
}

struct diff *diff__new(const struct summary *const *s, size_t nr, char *err, size_t errlen)
{
	struct diff *d;

	if (!nr) {
		snprintf(err, errlen, "diff: no capture given");
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		goto nomem;
	d->nr_runs = nr;
	d->scale = calloc(nr, sizeof(*d->scale));
	if (!d->scale)
		goto free_diff;
	set_scales(d, s, nr);
	if (collect_rows(d, s, nr) || fill_cells(d, s, nr))
		goto free_diff;
	return d;
free_diff:
	diff__free(d);
nomem:
	snprintf(err, errlen, "diff: out of memory");
	errno = ENOMEM;
	return NULL;
}
