// SPDX-License-Identifier: GPL-2.0
/* A whole capture in memory, collected from a cdict_read() visitor. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keymap.h"
#include "tasknames.h"
#include "trace.h"

struct loader {
	struct trace *t;
	bool streams;
	struct keymap task_idx;	/* (tid, 0) -> tasks[]: one entry per tid as records arrive */
	struct keymap cpu_idx;	/* (tid, cpu) -> cpu_aggs[] */
	struct keymap kvm_idx;	/* (tid, isa << 32 | reason) -> kvm_aggs[] */
	struct keymap wait_idx;	/* (tid, 0) -> wait_aggs[] */
	size_t cap_tasks, cap_slices, cap_wakeups, cap_exits, cap_cpu, cap_kvm, cap_wait;
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

/* A tid named again replaces its entry when the naming is not older (the last naming wins),
 * so a file repeating one task record costs one entry, not one per record. */
static int on_task(void *ctx, const struct pwz_task *x)
{
	struct loader *l = ctx;
	int added;
	int64_t i = keymap_get(&l->task_idx, x->tid, 0, &added);

	if (i < 0)
		return (int)i;
	if (added)
		return PUSH(l, tasks, cap_tasks, x);
	if (x->time_ns >= l->t->tasks[i].time_ns)
		l->t->tasks[i] = *x;
	return 0;
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

/*
 * Aggregates are sums over the capture: records of one key (a file may repeat them) are summed
 * into one entry as they arrive, as every reader of the aggregates would sum them, so memory
 * follows the distinct keys of a file, not its record count.
 */
static int on_cpu_agg(void *ctx, const struct pwz_cpu_agg *x)
{
	struct loader *l = ctx;
	struct pwz_cpu_agg *a;
	int added;
	int64_t i = keymap_get(&l->cpu_idx, x->tid, x->cpu, &added);

	if (i < 0)
		return (int)i;
	if (added)
		return PUSH(l, cpu_aggs, cap_cpu, x);
	a = &l->t->cpu_aggs[i];
	a->runtime_ns += x->runtime_ns;
	a->switches += x->switches;
	a->voluntary += x->voluntary;
	a->involuntary += x->involuntary;
	return 0;
}

static int on_kvm_agg(void *ctx, const struct pwz_kvm_agg *x)
{
	struct loader *l = ctx;
	struct pwz_kvm_agg *a;
	int added;
	int64_t i = keymap_get(&l->kvm_idx, x->tid, (uint64_t)x->isa << 32 | x->reason, &added);

	if (i < 0)
		return (int)i;
	if (added)
		return PUSH(l, kvm_aggs, cap_kvm, x);
	a = &l->t->kvm_aggs[i];
	a->count += x->count;
	a->handling_ns += x->handling_ns;
	for (int k = 0; k < PWZ_HIST_BUCKETS; k++)
		a->hist[k] += x->hist[k];
	return 0;
}

static int on_wait_agg(void *ctx, const struct pwz_wait_agg *x)
{
	struct loader *l = ctx;
	struct pwz_wait_agg *a;
	int added;
	int64_t i = keymap_get(&l->wait_idx, x->tid, 0, &added);

	if (i < 0)
		return (int)i;
	if (added)
		return PUSH(l, wait_aggs, cap_wait, x);
	a = &l->t->wait_aggs[i];
	a->count += x->count;
	a->wait_ns += x->wait_ns;
	if (x->max_ns > a->max_ns)
		a->max_ns = x->max_ns;
	return 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct pwz_task *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* Sorts tasks by tid and keeps the last naming of each (the latest time). */
static void settle_tasks(struct trace *t)
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

struct trace *trace__load(const char *path, const struct trace_load_opts *opts, char *err,
			  size_t errlen)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct loader l = { .t = t, .streams = opts && opts->streams };
	struct cdict_visitor v = {
		.ctx = &l, .meta = on_meta, .task = on_task, .slice = on_slice,
		.wakeup = on_wakeup, .kvm_exit = on_kvm_exit, .cpu_agg = on_cpu_agg,
		.kvm_agg = on_kvm_agg, .wait_agg = on_wait_agg,
	};
	int ret;

	if (!t) {
		snprintf(err, errlen, "%s: out of memory", path);
		errno = ENOMEM;
		return NULL;
	}
	t->path = cdict_resolve_path(path);
	if (!t->path) {
		ret = -errno;
		snprintf(err, errlen, "%s: no such file (nor %s.cdict)", path, path);
		goto fail;
	}
	ret = cdict_read(t->path, &v, &t->info, err, errlen);
	keymap_free(&l.task_idx);
	keymap_free(&l.cpu_idx);
	keymap_free(&l.kvm_idx);
	keymap_free(&l.wait_idx);
	if (ret > 0)
		ret = -EINVAL;
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (ret)
		goto fail;
	settle_tasks(t);
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
	free(t);
}
