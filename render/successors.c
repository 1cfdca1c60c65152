// SPDX-License-Identifier: GPL-2.0
/* --successors-of: which tasks ran next on the same CPU after a task's run slices ended. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dash.h"
#include "successors.h"
#include "tasknames.h"

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

static int add(struct successors *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->items[i].name, name))
			break;
	if (i == s->nr) {
		void *p = realloc(s->items, (s->nr + 1) * sizeof(*s->items));

		if (!p)
			return -ENOMEM;
		s->items = p;
		memset(&s->items[s->nr], 0, sizeof(*s->items));
		snprintf(s->items[s->nr].name, sizeof(s->items[s->nr].name), "%s", name);
		s->nr++;
	}
	s->items[i].count++;
	s->total++;
	return 0;
}

struct successors *successors__new(const struct trace *t, const char *who,
				   const struct summary_opts *w, char *err, size_t errlen)
{
	struct summary_opts none = { 0 };
	struct successors *s = calloc(1, sizeof(*s));
	bool *target = calloc(t->nr_tasks + 1, sizeof(bool));
	size_t *idx = malloc((t->nr_slices + 1) * sizeof(size_t));
	uint32_t want_tid = 0;
	bool by_tid = task_is_tid(who), found = false;
	uint64_t ws, we;
	size_t i, n;

	if (!w)
		w = &none;
	if (!s || !target || !idx)
		goto nomem;
	if (by_tid)
		want_tid = (uint32_t)strtoul(who, NULL, 10);
	for (i = 0; i < t->nr_tasks; i++) {
		char name[PWZ_NAME_MAX];

		dash_task_name(&t->tasks[i], w, name, sizeof(name));
		if (by_tid ? t->tasks[i].tid == want_tid : !strcmp(name, who)) {
			target[i] = true;
			if (!found)
				snprintf(s->task, sizeof(s->task), "%.200s:%u",
					 t->tasks[i].name[0] ? t->tasks[i].name : t->tasks[i].comm,
					 t->tasks[i].tid);
			found = true;
		}
	}
	if (!found) {
		snprintf(err, errlen, "%s: no task %s '%s' (see --list)", t->path,
			 by_tid ? "with tid" : "named", who);
		free(target);
		free(idx);
		successors__free(s);
		errno = ENOENT;
		return NULL;
	}
	ws = w->from_ns;
	we = w->cap_ns ? w->cap_ns : UINT64_MAX;
	for (i = 0; i < t->nr_slices; i++)
		idx[i] = i;
	g_slices = t->slices;
	qsort(idx, t->nr_slices, sizeof(*idx), cmp_by_cpu_start);
	for (n = 0; n < t->nr_slices; n++) {
		const struct pwz_slice *a = &t->slices[idx[n]], *b;
		const struct pwz_task *tk = trace__task(t, a->tid);
		uint64_t end = a->start_ns + a->dur_ns;
		char name[PWZ_NAME_MAX], merged[PWZ_NAME_MAX];

		if (!tk || !target[tk - t->tasks] || end < ws || end >= we || a->end == PWZ_END_OPEN)
			continue;
		/* the next slice on this CPU that starts at or after the end */
		for (i = n + 1; i < t->nr_slices && t->slices[idx[i]].cpu == a->cpu &&
		     t->slices[idx[i]].start_ns + SUCC_TOLERANCE_NS < end; i++)
			;
		if (i >= t->nr_slices || t->slices[idx[i]].cpu != a->cpu)
			continue;	/* nothing ran after it before the capture ended */
		b = &t->slices[idx[i]];
		if (b->start_ns > end + SUCC_TOLERANCE_NS) {
			snprintf(name, sizeof(name), "swapper");	/* idle, not recorded */
		} else {
			const struct pwz_task *nt = trace__task(t, b->tid);
			struct pwz_task anon = { .tid = b->tid };

			if (!nt) {
				snprintf(anon.name, sizeof(anon.name), "tid %u", b->tid);
				nt = &anon;
			}
			task_merge_sys_name(nt->name[0] ? nt->name : nt->comm, merged, sizeof(merged));
			if (w->append_tid)
				snprintf(name, sizeof(name), "%.200s:%u", merged, nt->tid);
			else
				snprintf(name, sizeof(name), "%s", merged);
		}
		if (add(s, name))
			goto nomem;
	}
	for (i = 0; i < s->nr; i++)
		s->items[i].pct = 100.0 * (double)s->items[i].count / (double)s->total;
	if (s->nr)
		qsort(s->items, s->nr, sizeof(*s->items), cmp_succ);
	free(target);
	free(idx);
	return s;
nomem:
	free(target);
	free(idx);
	successors__free(s);
	snprintf(err, errlen, "out of memory");
	errno = ENOMEM;
	return NULL;
}
