// SPDX-License-Identifier: GPL-2.0
/* Sleeps by the state the thread slept in (S, D, other), per thread instance (sleeps.h). */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include "sleeps.h"

struct sleeps {
	const struct trace *t;
	struct sleep_row *rows;		/* per trace->tasks entry */
	bool *slept;			/* per trace->tasks entry: has a sleep in the window */
};

bool sleeps_known(const struct trace *t)
{
	return t->meta.has_prev_state && t->nr_slices > 0;
}

enum sleep_class sleep_class_of(uint32_t state)
{
	switch (state & ~(uint32_t)PWZ_STATE_PREEMPTED) {
	case PWZ_STATE_SLEEPING:
		return SLEEP_S;
	case PWZ_STATE_DISK:
		return SLEEP_D;
	default:
		return SLEEP_OTHER;
	}
}

static int cmp_start(const void *a, const void *b, void *arg)
{
	const struct pwz_slice *base = arg;
	const struct pwz_slice *x = &base[*(const uint32_t *)a], *y = &base[*(const uint32_t *)b];

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Adds [a, z) clipped to [ws, we) to *ns. */
static void add_clipped(uint64_t *ns, uint64_t a, uint64_t z, uint64_t ws, uint64_t we)
{
	if (a < ws)
		a = ws;
	if (z > we)
		z = we;
	if (z > a)
		*ns += z - a;
}

/* One instance's slices idx[0..n), in start order: its sleeps into s->rows[task]. */
static void fold_instance(struct sleeps *s, size_t task, const uint32_t *idx, size_t n,
			  uint64_t ws, uint64_t we)
{
	const struct pwz_slice *sl = s->t->slices;
	struct sleep_row *r = &s->rows[task];
	bool pending = false;
	uint64_t since = 0;
	enum sleep_class c = SLEEP_S;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct pwz_slice *x = &sl[idx[i]];
		uint64_t end = x->start_ns + x->dur_ns;

		if (pending)
			add_clipped(&r->ns[c], since, x->start_ns, ws, we);
		pending = x->end == PWZ_END_SLEPT;
		if (!pending)
			continue;
		since = end;
		c = sleep_class_of(pwz_slice_state(x));
		if (end >= ws && end < we)
			r->count[c]++;
	}
	if (pending)
		add_clipped(&r->ns[c], since, we, ws, we);
	for (i = 0; i < SLEEP_NR; i++)
		if (r->count[i] || r->ns[i])
			s->slept[task] = true;
}

struct sleeps *sleeps__new(const struct trace *t, uint64_t ws, uint64_t we)
{
	struct sleeps *s;
	size_t *first = NULL, *pos = NULL, i, k;
	uint32_t *idx = NULL;
	int32_t *inst = NULL;

	if (!sleeps_known(t)) {
		errno = ENODATA;
		return NULL;
	}
	if (t->nr_slices > UINT32_MAX) {
		errno = E2BIG;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->t = t;
	s->rows = calloc(t->nr_tasks + 1, sizeof(*s->rows));
	s->slept = calloc(t->nr_tasks + 1, sizeof(*s->slept));
	inst = malloc((t->nr_slices + 1) * sizeof(*inst));
	first = calloc(t->nr_tasks + 2, sizeof(*first));
	pos = malloc((t->nr_tasks + 1) * sizeof(*pos));
	idx = malloc((t->nr_slices + 1) * sizeof(*idx));
	if (!s->rows || !s->slept || !inst || !first || !pos || !idx)
		goto nomem;
	/* the slices of each instance (at its switch-out, as every page attributes them), in
	 * file order, then in start order */
	for (i = 0; i < t->nr_slices; i++) {
		const struct pwz_slice *x = &t->slices[i];
		const struct pwz_task *pt = x->tid ? trace__task_at(t, x->tid, x->start_ns + x->dur_ns) :
						     NULL;

		inst[i] = pt ? (int32_t)(pt - t->tasks) : -1;
		if (inst[i] >= 0)
			first[inst[i] + 1]++;
	}
	for (k = 0; k < t->nr_tasks; k++)
		first[k + 1] += first[k];
	for (k = 0; k < t->nr_tasks; k++)
		pos[k] = first[k];
	for (i = 0; i < t->nr_slices; i++)
		if (inst[i] >= 0)
			idx[pos[inst[i]]++] = (uint32_t)i;
	for (k = 0; k < t->nr_tasks; k++) {
		uint32_t *v = idx + first[k];
		size_t n = first[k + 1] - first[k];

		for (i = 1; i < n; i++)
			if (t->slices[v[i - 1]].start_ns > t->slices[v[i]].start_ns)
				break;
		if (i < n)
			qsort_r(v, n, sizeof(*v), cmp_start, t->slices);
		fold_instance(s, k, v, n, ws, we);
	}
	free(inst);
	free(first);
	free(pos);
	free(idx);
	return s;
nomem:
	free(inst);
	free(first);
	free(pos);
	free(idx);
	sleeps__free(s);
	errno = ENOMEM;
	return NULL;
}

const struct sleep_row *sleeps__of(const struct sleeps *s, uint32_t tid, uint64_t since_ns)
{
	const struct pwz_task *pt;
	size_t k;

	if (!s || !tid)
		return NULL;
	pt = trace__task_at(s->t, tid, since_ns);
	if (!pt || pt->since_ns != since_ns)
		return NULL;
	k = (size_t)(pt - s->t->tasks);
	return s->slept[k] ? &s->rows[k] : NULL;
}

void sleeps__free(struct sleeps *s)
{
	if (!s)
		return;
	free(s->rows);
	free(s->slept);
	free(s);
}
