// SPDX-License-Identifier: GPL-2.0
/* A whole capture in memory, collected from a cdict_read() visitor. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tasknames.h"
#include "trace.h"

struct loader {
	struct trace *t;
	bool streams;
	size_t cap_tasks, cap_slices, cap_wakeups, cap_exits, cap_cpu, cap_kvm, cap_wait;
};

/* A trace being built: the loader its visitor fills. */
struct trace_builder {
	struct trace t;
	struct loader l;
};

static int push(void **arr, size_t *nr, size_t *cap, const void *item, size_t size)
{
	if (*nr == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		void *p = realloc(*arr, c * size);

		if (!p)
			return -ENOMEM;
		*arr = p;
		*cap = c;
	}
	memcpy((char *)*arr + *nr * size, item, size);
	(*nr)++;
	return 0;
}

#define PUSH(l, field, cap, item) \
	push((void **)&(l)->t->field, &(l)->t->nr_##field, &(l)->cap, (item), sizeof(*(item)))

static int on_meta(void *ctx, const struct pwz_meta *m)
{
	struct loader *l = ctx;

	pwz_meta_free(&l->t->meta);
	return pwz_meta_copy(&l->t->meta, m);
}

static int on_task(void *ctx, const struct pwz_task *x)
{
	struct loader *l = ctx;

	return PUSH(l, tasks, cap_tasks, x);
}

static int on_slice(void *ctx, const struct pwz_slice *x)
{
	struct loader *l = ctx;

	return l->streams ? PUSH(l, slices, cap_slices, x) : 0;
}

static int on_wakeup(void *ctx, const struct pwz_wakeup *x)
{
	struct loader *l = ctx;

	return l->streams ? PUSH(l, wakeups, cap_wakeups, x) : 0;
}

static int on_kvm_exit(void *ctx, const struct pwz_kvm_exit *x)
{
	struct loader *l = ctx;

	return l->streams ? PUSH(l, exits, cap_exits, x) : 0;
}

static int on_cpu_agg(void *ctx, const struct pwz_cpu_agg *x)
{
	struct loader *l = ctx;

	l->t->info.has_aggregates = true;
	return PUSH(l, cpu_aggs, cap_cpu, x);
}

static int on_kvm_agg(void *ctx, const struct pwz_kvm_agg *x)
{
	struct loader *l = ctx;

	l->t->info.has_aggregates = true;
	return PUSH(l, kvm_aggs, cap_kvm, x);
}

static int on_wait_agg(void *ctx, const struct pwz_wait_agg *x)
{
	struct loader *l = ctx;

	return PUSH(l, wait_aggs, cap_wait, x);
}

static int cmp_task(const void *a, const void *b)
{
	const struct pwz_task *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* Sorts tasks by tid and keeps the last naming of each (the latest time). */
void trace__settle(struct trace *t)
{
	size_t out = 0;

	if (t->nr_tasks > 1)
		qsort(t->tasks, t->nr_tasks, sizeof(*t->tasks), cmp_task);
	for (size_t i = 0; i < t->nr_tasks; i++) {
		if (out && t->tasks[out - 1].tid == t->tasks[i].tid)
			out--;
		t->tasks[out++] = t->tasks[i];
	}
	t->nr_tasks = out;
}

const struct pwz_task *trace__task(const struct trace *t, uint32_t tid)
{
	size_t lo = 0, hi = t->nr_tasks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->tasks[mid].tid == tid)
			return &t->tasks[mid];
		if (t->tasks[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct cdict_visitor loader_visitor(struct loader *l)
{
	return (struct cdict_visitor){
		.ctx = l, .meta = on_meta, .task = on_task, .slice = on_slice,
		.wakeup = on_wakeup, .kvm_exit = on_kvm_exit, .cpu_agg = on_cpu_agg,
		.kvm_agg = on_kvm_agg, .wait_agg = on_wait_agg,
	};
}

struct trace *trace__new(const char *label, bool streams, struct cdict_visitor *v)
{
	struct trace_builder *b = calloc(1, sizeof(*b));

	if (!b || !(b->t.path = strdup(label ? label : ""))) {
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	b->l.t = &b->t;
	b->l.streams = streams;
	*v = loader_visitor(&b->l);
	return &b->t;
}

struct trace *trace__load(const char *path, const struct trace_load_opts *opts, char *err,
			  size_t errlen)
{
	struct cdict_visitor v;
	struct trace *t = trace__new(path, opts && opts->streams, &v);
	int ret;

	if (!t) {
		snprintf(err, errlen, "%s: out of memory", path);
		errno = ENOMEM;
		return NULL;
	}
	free(t->path);
	t->path = cdict_resolve_path(path);
	if (!t->path) {
		ret = -errno;
		snprintf(err, errlen, "%s: no such file (nor %s.cdict)", path, path);
		goto fail;
	}
	ret = cdict_read(t->path, &v, &t->info, err, errlen);
	if (ret > 0)
		ret = -EINVAL;
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (ret)
		goto fail;
	trace__settle(t);
	if (opts && opts->map) {
		for (size_t i = 0; i < t->nr_tasks; i++) {
			const char *name = task_map__name(opts->map, t->tasks[i].tid);

			if (name)
				snprintf(t->tasks[i].name, sizeof(t->tasks[i].name), "%s", name);
		}
	}
	return t;
fail:
	trace__free(t);
	errno = -ret;
	return NULL;
}

void trace__free(struct trace *t)
{
	if (!t)
		return;
	pwz_meta_free(&t->meta);
	free(t->path);
	free(t->tasks);
	free(t->slices);
	free(t->wakeups);
	free(t->exits);
	free(t->cpu_aggs);
	free(t->kvm_aggs);
	free(t->wait_aggs);
	free(t);	/* the start of its trace_builder */
}
