// SPDX-License-Identifier: GPL-2.0
/* --successors-of: which tasks ran next on the same CPU after a task's run slices ended. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "keymap.h"
#include "successors.h"
#include "tasknames.h"
#include "tasksel.h"

#define SUCC_TOLERANCE_NS 1000	/* legacy times are microseconds */

static const struct pwz_slice *g_slices;

static int cmp_by_cpu_start(const void *a, const void *b)
{
	const struct pwz_slice *x = &g_slices[*(const size_t *)a], *y = &g_slices[*(const size_t *)b];

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return 0;
}

static int cmp_succ(const void *a, const void *b)
{
	const struct successor *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

void successors__free(struct successors *s)
{
	if (!s)
		return;
	free(s->items);
	free(s);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct successor *)a)->name, ((const struct successor *)b)->name);
}

/* How often one successor ran next. */
struct next_count {
	uint32_t tid;
	bool idle;		/* a gap: nothing recorded ran (shown as swapper) */
	uint64_t count;
};

/* Counts one switch-out followed by tid (or a gap): hashed by (idle, tid), so each switch-out
 * costs O(1) whatever the number of distinct successors. */
static int count_next(struct keymap *seen, struct next_count **c, size_t *cap, uint32_t tid,
		      bool idle)
{
	int added;
	int64_t i = keymap_get(seen, idle, tid, &added);

	if (i < 0 || array_reserve((void **)c, cap, seen->count, sizeof(**c)))
		return -ENOMEM;
	if (added)
		(*c)[i] = (struct next_count){ .tid = tid, .idle = idle };
	(*c)[i].count++;
	return 0;
}

/* The name a successor is shown under (the one rule, tasknames.h): per-CPU threads always
 * merged (swapper), as perfwhiz did; its tid when not recorded. */
static void next_name(const struct trace *t, const struct summary_opts *w, uint32_t tid, bool idle,
		      char *name, size_t len)
{
	struct task_label_opts lo = { .merge_sys = true, .append_tid = w->append_tid };
	const struct pwz_task *nt = idle ? NULL : trace__task(t, tid);

	if (idle)
		snprintf(name, len, "swapper");	/* idle, not recorded */
	else if (nt)
		task_label(nt, &lo, name, len);
	else
		task_label_name("", tid, &lo, name, len);
}

/* The rows of s from the counts per successor: named, and summed by name. */
static int make_items(struct successors *s, const struct trace *t, const struct summary_opts *w,
		      const struct next_count *c, size_t nr)
{
	size_t i, out = 0;

	s->items = calloc(nr + 1, sizeof(*s->items));
	if (!s->items)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		next_name(t, w, c[i].tid, c[i].idle, s->items[i].name, sizeof(s->items[i].name));
		s->items[i].count = c[i].count;
	}
	if (nr > 1)
		qsort(s->items, nr, sizeof(*s->items), cmp_name);
	for (i = 0; i < nr; i++) {
		if (out && !strcmp(s->items[out - 1].name, s->items[i].name))
			s->items[out - 1].count += s->items[i].count;
		else
			s->items[out++] = s->items[i];
	}
	s->nr = out;
	return 0;
}

/* The first position in idx[lo, hi) whose slice is not on cpu or starts at or after
 * end - SUCC_TOLERANCE_NS (idx is sorted by CPU, then start): a binary search, so a task
 * with many long slices costs O(n log n), not a forward scan per slice. */
static size_t next_start(const struct trace *t, const size_t *idx, size_t lo, size_t hi,
			 uint32_t cpu, uint64_t end)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pwz_slice *m = &t->slices[idx[mid]];

		if (m->cpu == cpu && m->start_ns + SUCC_TOLERANCE_NS < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The threads of who among t's task records, in target[]; the first one's "name:tid" (the
 * idle task's or an unnamed tid's when no task record is selected) into s->task. */
static void targets(struct successors *s, const struct trace *t, const struct tasksel *who,
		    bool *target)
{
	struct task_label_opts lo = { .append_tid = true };

	snprintf(s->task, sizeof(s->task), "%s", tasksel_has(who, 0, 0) ? "swapper:0" : "?");
	for (size_t i = t->nr_tasks; i-- > 0;) {
		target[i] = t->tasks[i].tid && tasksel_has(who, t->tasks[i].tid, t->tasks[i].since_ns);
		if (target[i])
			task_label(&t->tasks[i], &lo, s->task, sizeof(s->task));
	}
}

struct successors *successors__new(const struct trace *t, const struct tasksel *who,
				   const struct summary_opts *w, char *err, size_t errlen)
{
	struct summary_opts none = { 0 };
	struct successors *s = calloc(1, sizeof(*s));
	bool *target = calloc(t->nr_tasks + 1, sizeof(bool));
	size_t *idx = malloc((t->nr_slices + 1) * sizeof(size_t));
	struct keymap seen = { 0 };	/* (idle, tid) of each successor -> counts[] */
	struct next_count *counts = NULL;
	uint64_t ws, we;
	size_t i, n, counts_cap = 0;

	if (!w)
		w = &none;
	if (!s || !target || !idx)
		goto nomem;
	if (!tasksel__count(who)) {
		tasksel_nomatch(who, err, errlen);
		free(target);
		free(idx);
		successors__free(s);
		errno = ENOENT;
		return NULL;
	}
	targets(s, t, who, target);
	ws = w->from_ns;
	we = w->cap_ns ? w->cap_ns : UINT64_MAX;
	for (i = 0; i < t->nr_slices; i++)
		idx[i] = i;
	g_slices = t->slices;
	qsort(idx, t->nr_slices, sizeof(*idx), cmp_by_cpu_start);
	for (n = 0; n < t->nr_slices; n++) {
		const struct pwz_slice *a = &t->slices[idx[n]], *b;
		uint64_t end = a->start_ns + a->dur_ns;
		const struct pwz_task *tk = trace__task_at(t, a->tid, end);

		if (end < ws || end >= we || a->end == PWZ_END_OPEN ||
		    !(tk ? target[tk - t->tasks] : tasksel_has(who, a->tid, 0)))
			continue;
		/* the next slice on this CPU that starts at or after the end */
		i = next_start(t, idx, n + 1, t->nr_slices, a->cpu, end);
		if (i >= t->nr_slices || t->slices[idx[i]].cpu != a->cpu)
			continue;	/* nothing ran after it before the capture ended */
		b = &t->slices[idx[i]];
		if (count_next(&seen, &counts, &counts_cap, b->tid,
			       b->start_ns > end + SUCC_TOLERANCE_NS))
			goto nomem;
		s->total++;
	}
	if (make_items(s, t, w, counts, seen.count))
		goto nomem;
	keymap_free(&seen);
	free(counts);
	for (i = 0; i < s->nr; i++)
		s->items[i].pct = 100.0 * (double)s->items[i].count / (double)s->total;
	if (s->nr)
		qsort(s->items, s->nr, sizeof(*s->items), cmp_succ);
	free(target);
	free(idx);
	return s;
nomem:
	keymap_free(&seen);
	free(counts);
	free(target);
	free(idx);
	successors__free(s);
	snprintf(err, errlen, "out of memory");
	errno = ENOMEM;
	return NULL;
}

void successors_json(struct jbuf *b, const char *path, const struct successors *s)
{
	jbuf_puts(b, "{\"file\":");
	jbuf_json_str(b, path, strlen(path));
	jbuf_puts(b, ",\"task\":");
	jbuf_json_str(b, s->task, strnlen(s->task, sizeof(s->task)));
	jbuf_puts(b, ",\"switch_outs\":");
	jbuf_u64(b, s->total);
	jbuf_puts(b, ",\"successors\":[");
	for (size_t k = 0; k < s->nr; k++) {
		jbuf_puts(b, k ? ",{\"name\":" : "{\"name\":");
		jbuf_json_str(b, s->items[k].name, strnlen(s->items[k].name, sizeof(s->items[k].name)));
		jbuf_puts(b, ",\"count\":");
		jbuf_u64(b, s->items[k].count);
		jbuf_puts(b, ",\"pct\":");
		jbuf_double(b, s->items[k].pct);
		jbuf_puts(b, "}");
	}
	jbuf_puts(b, "]}");
}
