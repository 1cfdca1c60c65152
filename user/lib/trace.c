// SPDX-License-Identifier: GPL-2.0
/* A whole capture in memory, collected from a cdict_read() visitor. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "irq.h"
#include "keymap.h"
#include "model.h"
#include "tasknames.h"
#include "trace.h"

struct trace_loader {
	struct trace *t;
	bool streams;			/* keep the stream records (t->streams) */
	bool streams_if_meta;		/* trace_load_opts: decide that at the META */
	bool skipped;			/* a stream record came and was not kept */
	struct keymap task_idx;		/* (tid, since) -> tasks[]: one entry per thread instance */
	struct keymap tids;		/* (tid, 0) -> head[] */
	size_t *head;			/* per tid: tasks[] index of its latest instance (R8) */
	size_t *older;			/* per tasks[] entry: 1 + its tid's previous instance, 0 none */
	size_t cap_head, cap_older;
	struct model_fold *aggs;	/* the aggregate records, summed per key as they arrive */
	size_t cap_tasks, cap_slices, cap_wakeups, cap_exits, cap_irq_aggs, cap_vcpu_ledgers, cap_ends;
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
	struct trace_loader *l = ctx;

	if (l->streams_if_meta && !l->skipped && (m->has_kvm || m->has_prev_state))
		l->streams = l->t->streams = true;
	pwz_meta_free(&l->t->meta);
	return pwz_meta_copy(&l->t->meta, m);
}

/* The instance entry of tid holding time_ns (R8): the latest birth at or before it, walking
 * the tid's chain from its latest instance down; -1 when time_ns precedes them all. */
static int64_t instance_at(const struct trace_loader *l, size_t head, uint64_t time_ns)
{
	int64_t i = (int64_t)head;

	while (i >= 0 && l->t->tasks[i].since_ns > time_ns)
		i = (int64_t)l->older[i] - 1;
	return i;
}

/* Links the new entry i into the chain of its tid (kept by birth, latest first). */
static void chain(struct trace_loader *l, size_t *head, size_t i)
{
	uint64_t since = l->t->tasks[i].since_ns;
	size_t p = *head;

	if (since > l->t->tasks[p].since_ns) {
		l->older[i] = p + 1;
		*head = i;
		return;
	}
	while (l->older[p] && l->t->tasks[l->older[p] - 1].since_ns > since)
		p = l->older[p] - 1;
	l->older[i] = l->older[p];
	l->older[p] = i + 1;
}

/*
 * One entry per thread instance (R8): a BORN record starts one at its time; another record
 * names the instance holding its time, replacing the entry when not older (the last naming
 * wins), so a file repeating one task record costs one entry, not one per record.
 */
static int on_task(void *ctx, const struct pwz_task *x)
{
	struct trace_loader *l = ctx;
	struct pwz_task *tasks;
	struct pwz_task rec = *x;
	int added, first;
	int64_t k = keymap_get(&l->tids, x->tid, 0, &first), i;

	if (k < 0 || array_reserve((void **)&l->head, &l->cap_head, (size_t)k + 1, sizeof(*l->head)))
		return -ENOMEM;
	rec.since_ns = x->flags & PWZ_TASK_BORN ? x->time_ns : 0;
	if (!first && !(x->flags & PWZ_TASK_BORN)) {
		i = instance_at(l, l->head[k], x->time_ns);
		rec.since_ns = i >= 0 ? l->t->tasks[i].since_ns : 0;
	}
	i = keymap_get(&l->task_idx, x->tid, rec.since_ns, &added);
	if (i < 0 || array_reserve((void **)&l->older, &l->cap_older, (size_t)i + 1,
				   sizeof(*l->older)))
		return -ENOMEM;
	tasks = l->t->tasks;
	if (!added) {
		if (x->time_ns >= tasks[i].time_ns) {
			rec.flags |= tasks[i].flags & PWZ_TASK_BORN;
			tasks[i] = rec;
		}
		return 0;
	}
	if (PUSH(l, tasks, cap_tasks, &rec))
		return -ENOMEM;
	l->older[i] = 0;
	if (first)
		l->head[k] = (size_t)i;
	else
		chain(l, &l->head[k], (size_t)i);
	return 0;
}

/* Whether a stream record is kept (l->streams); one that is not is noted (l->skipped). */
static bool stream_kept(struct trace_loader *l)
{
	if (!l->streams)
		l->skipped = true;
	return l->streams;
}

/* A slice whose thread died there is kept as an end, whether the streams are kept or not. */
static int on_slice(void *ctx, const struct pwz_slice *x)
{
	struct trace_loader *l = ctx;

	if (pwz_slice_state(x) & (PWZ_STATE_DEAD | PWZ_STATE_ZOMBIE)) {
		struct trace_end e = { .tid = x->tid, .end_ns = x->start_ns + x->dur_ns };
		int rc = PUSH(l, ends, cap_ends, &e);

		if (rc)
			return rc;
	}
	return stream_kept(l) ? PUSH(l, slices, cap_slices, x) : 0;
}

static int on_wakeup(void *ctx, const struct pwz_wakeup *x)
{
	struct trace_loader *l = ctx;

	return stream_kept(l) ? PUSH(l, wakeups, cap_wakeups, x) : 0;
}

static int on_kvm_exit(void *ctx, const struct pwz_kvm_exit *x)
{
	struct trace_loader *l = ctx;

	return stream_kept(l) ? PUSH(l, exits, cap_exits, x) : 0;
}

/*
 * Aggregates are sums over the capture: records of one key (a file may repeat them) are added
 * up in a model_fold as they arrive, as every reader of the aggregates would add them, so memory
 * follows the distinct keys of a file, not its record count.
 */
static int on_cpu_agg(void *ctx, const struct pwz_cpu_agg *x)
{
	struct trace_loader *l = ctx;

	l->t->info.has_aggregates = true;
	return model_fold__cpu_agg(l->aggs, x);
}

static int on_kvm_agg(void *ctx, const struct pwz_kvm_agg *x)
{
	struct trace_loader *l = ctx;

	l->t->info.has_aggregates = true;
	return model_fold__kvm_agg(l->aggs, x);
}

static int on_wait_agg(void *ctx, const struct pwz_wait_agg *x)
{
	struct trace_loader *l = ctx;

	return model_fold__wait_agg(l->aggs, x);
}

/* --irq aggregates: few (CPUs x vectors x threads interrupted), summed at settling */
static int on_irq_agg(void *ctx, const struct pwz_irq_agg *x)
{
	struct trace_loader *l = ctx;

	return PUSH(l, irq_aggs, cap_irq_aggs, x);
}

/* vCPU ledgers: one per vCPU thread instance, summed at settling */
static int on_vcpu_ledger(void *ctx, const struct pwz_vcpu_ledger *x)
{
	struct trace_loader *l = ctx;

	return PUSH(l, vcpu_ledgers, cap_vcpu_ledgers, x);
}

static struct cdict_visitor loader_visitor(struct trace_loader *l)
{
	return (struct cdict_visitor){
		.ctx = l, .meta = on_meta, .task = on_task, .slice = on_slice,
		.wakeup = on_wakeup, .kvm_exit = on_kvm_exit, .cpu_agg = on_cpu_agg,
		.kvm_agg = on_kvm_agg, .wait_agg = on_wait_agg, .irq_agg = on_irq_agg,
		.vcpu_ledger = on_vcpu_ledger,
	};
}

static void loader_free(struct trace_loader *l)
{
	if (!l)
		return;
	keymap_free(&l->task_idx);
	keymap_free(&l->tids);
	free(l->head);
	free(l->older);
	model_fold__free(l->aggs);
	free(l);
}

struct trace *trace__new(const char *label, bool streams, struct cdict_visitor *v)
{
	struct trace *t = calloc(1, sizeof(*t));
	struct trace_loader *l = calloc(1, sizeof(*l));

	if (l)
		l->aggs = model_fold__new(NULL);
	if (!t || !l || !l->aggs || !(t->path = strdup(label ? label : ""))) {
		loader_free(l);
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	l->t = t;
	l->streams = t->streams = streams;
	t->loading = l;
	*v = loader_visitor(l);
	return t;
}

static int cmp_task(const void *a, const void *b)
{
	const struct pwz_task *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->since_ns < y->since_ns ? -1 : x->since_ns > y->since_ns;
}

/* A copy of the n elements of size at src into *dst (NULL for none). 0 or -ENOMEM. */
static int copy_out(void **dst, size_t *nr, const void *src, size_t n, size_t size)
{
	*nr = 0;
	*dst = NULL;
	if (!n)
		return 0;
	*dst = malloc(n * size);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, n * size);
	*nr = n;
	return 0;
}

static int cmp_end(const void *a, const void *b)
{
	const struct trace_end *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

static int cmp_ledger(const void *a, const void *b)
{
	const struct pwz_vcpu_ledger *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->since_ns < y->since_ns ? -1 : x->since_ns > y->since_ns;
}

/* Sorts the ledgers by (tid, since) and sums those of one instance into one. */
static void merge_ledgers(struct trace *t)
{
	size_t out = 0;

	if (t->nr_vcpu_ledgers > 1)
		qsort(t->vcpu_ledgers, t->nr_vcpu_ledgers, sizeof(*t->vcpu_ledgers), cmp_ledger);
	for (size_t i = 0; i < t->nr_vcpu_ledgers; i++) {
		if (out && !cmp_ledger(&t->vcpu_ledgers[out - 1], &t->vcpu_ledgers[i]))
			pwz_vcpu_ledger_add(&t->vcpu_ledgers[out - 1], &t->vcpu_ledgers[i]);
		else
			t->vcpu_ledgers[out++] = t->vcpu_ledgers[i];
	}
	t->nr_vcpu_ledgers = out;
}

int trace__settle(struct trace *t)
{
	struct trace_loader *l = t->loading;
	const struct pwz_cpu_agg *ca;
	const struct pwz_kvm_agg *ka;
	const struct pwz_wait_agg *wa;
	size_t n;
	int e;

	if (t->nr_tasks > 1)
		qsort(t->tasks, t->nr_tasks, sizeof(*t->tasks), cmp_task);
	if (t->nr_ends > 1)
		qsort(t->ends, t->nr_ends, sizeof(*t->ends), cmp_end);
	if (!l)
		return 0;
	n = model_fold__cpu_aggs(l->aggs, &ca);
	e = copy_out((void **)&t->cpu_aggs, &t->nr_cpu_aggs, ca, n, sizeof(*ca));
	n = model_fold__kvm_aggs(l->aggs, &ka);
	if (!e)
		e = copy_out((void **)&t->kvm_aggs, &t->nr_kvm_aggs, ka, n, sizeof(*ka));
	n = model_fold__wait_aggs(l->aggs, &wa);
	if (!e)
		e = copy_out((void **)&t->wait_aggs, &t->nr_wait_aggs, wa, n, sizeof(*wa));
	t->nr_irq_aggs = pwz_irq_merge(t->irq_aggs, t->nr_irq_aggs);
	merge_ledgers(t);
	loader_free(l);
	t->loading = NULL;
	return e;
}

/* The first entry of tid in the sorted tasks, or nr_tasks. */
static size_t first_of(const struct trace *t, uint32_t tid)
{
	size_t lo = 0, hi = t->nr_tasks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->tasks[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* trace__task_at() among the instances of tid from tasks[i], the first of them. */
static const struct pwz_task *task_at_from(const struct trace *t, size_t i, uint32_t tid,
					   uint64_t time_ns)
{
	const struct pwz_task *found = NULL;

	for (; i < t->nr_tasks && t->tasks[i].tid == tid; i++) {
		if (found && t->tasks[i].since_ns > time_ns)
			break;
		found = &t->tasks[i];
	}
	return found;
}

const struct pwz_task *trace__task_at(const struct trace *t, uint32_t tid, uint64_t time_ns)
{
	return task_at_from(t, first_of(t, tid), tid, time_ns);
}

uint64_t trace__instance_end(const struct trace *t, uint32_t tid, uint64_t since_ns)
{
	size_t lo = 0, hi = t->nr_ends, i;
	uint64_t end = UINT64_MAX;

	for (i = first_of(t, tid); i < t->nr_tasks && t->tasks[i].tid == tid; i++) {
		if (t->tasks[i].since_ns > since_ns) {
			end = t->tasks[i].since_ns;
			break;
		}
	}
	while (lo < hi) {	/* the first death of tid at or after since_ns */
		size_t mid = lo + (hi - lo) / 2;
		const struct trace_end *e = &t->ends[mid];

		if (e->tid < tid || (e->tid == tid && e->end_ns < since_ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->nr_ends && t->ends[lo].tid == tid && t->ends[lo].end_ns < end)
		end = t->ends[lo].end_ns;
	return end;
}

const struct pwz_vcpu_ledger *trace__vcpu_ledger(const struct trace *t, uint32_t tid,
						 uint64_t since_ns)
{
	const struct pwz_vcpu_ledger key = { .tid = tid, .since_ns = since_ns };

	if (!t->nr_vcpu_ledgers)
		return NULL;
	return bsearch(&key, t->vcpu_ledgers, t->nr_vcpu_ledgers, sizeof(key), cmp_ledger);
}

const struct pwz_task *trace__task_at_cached(const struct trace *t, struct trace_task_cache *c,
					     uint32_t tid, uint64_t time_ns)
{
	size_t i;

	if (c->only && c->tid == tid)
		return c->only;
	if (c->first && c->tid == tid)
		return task_at_from(t, (size_t)(c->first - t->tasks), tid, time_ns);
	i = first_of(t, tid);
	c->tid = tid;
	c->only = c->first = NULL;
	if (i < t->nr_tasks && t->tasks[i].tid == tid &&
	    (i + 1 == t->nr_tasks || t->tasks[i + 1].tid != tid))
		return c->only = &t->tasks[i];
	if (i < t->nr_tasks && t->tasks[i].tid == tid)
		c->first = &t->tasks[i];
	return task_at_from(t, i, tid, time_ns);
}

const struct pwz_task *trace__task(const struct trace *t, uint32_t tid)
{
	return trace__task_at(t, tid, UINT64_MAX);
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
	t->loading->streams_if_meta = opts && opts->streams_if_meta;
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
	if (!ret)
		ret = trace__settle(t);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (ret)
		goto fail;
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

void trace__drop_streams(struct trace *t)
{
	free(t->slices);
	free(t->wakeups);
	free(t->exits);
	t->slices = NULL;
	t->wakeups = NULL;
	t->exits = NULL;
	t->nr_slices = t->nr_wakeups = t->nr_exits = 0;
	t->streams = false;
}

void trace__free(struct trace *t)
{
	if (!t)
		return;
	loader_free(t->loading);
	pwz_meta_free(&t->meta);
	free(t->path);
	free(t->tasks);
	free(t->slices);
	free(t->wakeups);
	free(t->exits);
	free(t->cpu_aggs);
	free(t->kvm_aggs);
	free(t->wait_aggs);
	free(t->irq_aggs);
	free(t->vcpu_ledgers);
	free(t->ends);
	free(t);
}
