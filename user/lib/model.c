// SPDX-License-Identifier: GPL-2.0
/* The one host-side fold: slices, waits and exits into the aggregates of model.h (R6, R7). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "births.h"
#include "keymap.h"
#include "model.h"

static uint64_t slice_end(const struct pwz_slice *s)
{
	return s->start_ns + s->dur_ns < s->start_ns ? UINT64_MAX : s->start_ns + s->dur_ns;
}

uint64_t model_slice_run_in(const struct pwz_slice *s, const struct model_window *w)
{
	uint64_t a = s->start_ns > w->from_ns ? s->start_ns : w->from_ns;
	uint64_t z = slice_end(s) < w->to_ns ? slice_end(s) : w->to_ns;

	return z > a ? z - a : 0;
}

bool model_slice_switch_in_window(const struct pwz_slice *s, const struct model_window *w)
{
	uint64_t z = slice_end(s);

	return s->end != PWZ_END_OPEN && z >= w->from_ns && z < w->to_ns;
}

bool model_slice_touches(const struct pwz_slice *s, const struct model_window *w)
{
	return model_slice_run_in(s, w) || model_slice_switch_in_window(s, w);
}

bool model_wait_in(const struct pwz_wakeup *wk, const struct model_window *w)
{
	uint64_t in = wk->wake_ns + wk->wait_ns;

	return in >= w->from_ns && in < w->to_ns;
}

bool model_exit_in(const struct pwz_kvm_exit *e, const struct model_window *w)
{
	return e->time_ns >= w->from_ns && e->time_ns < w->to_ns;
}

/* One table of aggregates: a keymap to a dense array, sorted on demand. */
struct agg_table {
	struct keymap map;
	void *arr;
	size_t cap;
	size_t elem;
	bool sorted;		/* arr is sorted and map is stale (rebuilt on the next add) */
	int (*cmp)(const void *, const void *);
	void (*key)(const struct model_fold *f, const void *item, uint64_t *a, uint64_t *b);
	const struct model_fold *f;
};

struct model_fold {
	struct model_window w;
	struct agg_table cpu;	/* (tid << 32 | cpu, since) -> struct pwz_cpu_agg */
	struct agg_table wait;	/* (tid, since) -> struct pwz_wait_agg */
	struct agg_table kvm;	/* (instance id << 32 | tid, isa << 32 | reason) -> pwz_kvm_agg */
	struct birth_table births;	/* R8; those of ended instances forgotten by
					 * model_fold__take() */
	struct keymap instances;	/* (tid, since > 0) -> instance id - 1, for the kvm key */
};

/* Orders by tid, then instance (birth). */
static int cmp_instance(uint32_t ta, uint64_t sa, uint32_t tb, uint64_t sb)
{
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return sa < sb ? -1 : sa > sb;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct pwz_cpu_agg *x = a, *y = b;
	int c = cmp_instance(x->tid, x->since_ns, y->tid, y->since_ns);

	if (c)
		return c;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int cmp_wait(const void *a, const void *b)
{
	const struct pwz_wait_agg *x = a, *y = b;

	return cmp_instance(x->tid, x->since_ns, y->tid, y->since_ns);
}

static int cmp_kvm(const void *a, const void *b)
{
	const struct pwz_kvm_agg *x = a, *y = b;
	int c = cmp_instance(x->tid, x->since_ns, y->tid, y->since_ns);

	if (c)
		return c;
	if (x->isa != y->isa)
		return x->isa < y->isa ? -1 : 1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

static void key_cpu(const struct model_fold *f, const void *item, uint64_t *a, uint64_t *b)
{
	const struct pwz_cpu_agg *x = item;

	(void)f;
	*a = (uint64_t)x->tid << 32 | x->cpu;
	*b = x->since_ns;
}

static void key_wait(const struct model_fold *f, const void *item, uint64_t *a, uint64_t *b)
{
	const struct pwz_wait_agg *x = item;

	(void)f;
	*a = x->tid;
	*b = x->since_ns;
}

/* The instance id of (tid, since): 0 for since 0, else 1 + its index in f->instances (the
 * caller registered it). */
static uint64_t instance_id(const struct model_fold *f, uint32_t tid, uint64_t since)
{
	return since ? (uint64_t)keymap_find(&f->instances, tid, since) + 1 : 0;
}

static void key_kvm(const struct model_fold *f, const void *item, uint64_t *a, uint64_t *b)
{
	const struct pwz_kvm_agg *x = item;

	*a = instance_id(f, x->tid, x->since_ns) << 32 | x->tid;
	*b = (uint64_t)x->isa << 32 | x->reason;
}

/* After a sort the map's indexes are stale: rebuild it from the array, in its own storage
 * (a long capture reindexes after every take: nothing is allocated or freed then). */
static int table_reindex(struct agg_table *t)
{
	size_t n = t->map.count;

	keymap_clear(&t->map);
	for (size_t i = 0; i < n; i++) {
		uint64_t a, b;

		t->key(t->f, (char *)t->arr + i * t->elem, &a, &b);
		if (keymap_get(&t->map, a, b, NULL) < 0)
			return -ENOMEM;
	}
	t->sorted = false;
	return 0;
}

/* The element of (a, b), added zeroed when new (*added says so); NULL when out of memory. */
static void *table_get(struct agg_table *t, uint64_t a, uint64_t b, bool *added)
{
	int64_t i;
	int add;

	if (t->sorted && table_reindex(t))
		return NULL;
	i = keymap_get(&t->map, a, b, &add);
	if (i < 0 || array_reserve(&t->arr, &t->cap, t->map.count, t->elem))
		return NULL;
	if (add)
		memset((char *)t->arr + (size_t)i * t->elem, 0, t->elem);
	*added = add;
	return (char *)t->arr + (size_t)i * t->elem;
}

static size_t table_sorted(struct agg_table *t, const void **out)
{
	if (!t->sorted && t->map.count > 1)
		qsort(t->arr, t->map.count, t->elem, t->cmp);
	t->sorted = true;
	*out = t->map.count ? t->arr : NULL;
	return t->map.count;
}

static void table_free(struct agg_table *t)
{
	keymap_free(&t->map);
	free(t->arr);
}

struct model_fold *model_fold__new(const struct model_window *w)
{
	struct model_fold *f = calloc(1, sizeof(*f));

	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	f->w = w ? *w : MODEL_WHOLE;
	f->cpu = (struct agg_table){ .elem = sizeof(struct pwz_cpu_agg), .cmp = cmp_cpu,
				     .key = key_cpu, .f = f };
	f->wait = (struct agg_table){ .elem = sizeof(struct pwz_wait_agg), .cmp = cmp_wait,
				      .key = key_wait, .f = f };
	f->kvm = (struct agg_table){ .elem = sizeof(struct pwz_kvm_agg), .cmp = cmp_kvm,
				     .key = key_kvm, .f = f };
	return f;
}

int model_fold__born(struct model_fold *f, uint32_t tid, uint64_t birth_ns)
{
	return births__add(&f->births, tid, birth_ns);
}

uint64_t model_fold__instance(const struct model_fold *f, uint32_t tid, uint64_t time_ns)
{
	return births__at(&f->births, tid, time_ns);
}

void model_fold__free(struct model_fold *f)
{
	if (!f)
		return;
	table_free(&f->cpu);
	table_free(&f->wait);
	table_free(&f->kvm);
	births__free(&f->births);
	keymap_free(&f->instances);
	free(f);
}

static struct pwz_cpu_agg *cpu_of(struct model_fold *f, uint32_t tid, uint64_t since,
				  uint32_t cpu)
{
	bool added;
	struct pwz_cpu_agg *a = table_get(&f->cpu, (uint64_t)tid << 32 | cpu, since, &added);

	if (a && added) {
		a->tid = tid;
		a->cpu = cpu;
		a->since_ns = since;
	}
	return a;
}

static struct pwz_wait_agg *wait_of(struct model_fold *f, uint32_t tid, uint64_t since)
{
	bool added;
	struct pwz_wait_agg *a = table_get(&f->wait, tid, since, &added);

	if (a && added) {
		a->tid = tid;
		a->since_ns = since;
	}
	return a;
}

static struct pwz_kvm_agg *kvm_of(struct model_fold *f, uint32_t tid, uint64_t since,
				  uint32_t isa, uint32_t reason)
{
	bool added;
	struct pwz_kvm_agg *a;

	if (since && keymap_get(&f->instances, tid, since, NULL) < 0)
		return NULL;
	a = table_get(&f->kvm, instance_id(f, tid, since) << 32 | tid,
		      (uint64_t)isa << 32 | reason, &added);
	if (a && added) {
		a->tid = tid;
		a->since_ns = since;
		a->isa = isa;
		a->reason = reason;
	}
	return a;
}

int model_fold__slice(struct model_fold *f, const struct pwz_slice *s)
{
	uint64_t run = model_slice_run_in(s, &f->w);
	bool out = model_slice_switch_in_window(s, &f->w);
	struct pwz_cpu_agg *a;

	if (!run && !out)
		return 0;
	a = cpu_of(f, s->tid, model_fold__instance(f, s->tid, slice_end(s)), s->cpu);
	if (!a)
		return -ENOMEM;
	/* sums of the file's times saturate (records.h) */
	if (s->flags & PWZ_SLICE_UNSEEN_START)
		pwz_add_sat(&a->unseen_ns, run);
	else
		pwz_add_sat(&a->runtime_ns, run);
	/* the kernel's charge is per whole slice: only a slice wholly inside the window adds it */
	if ((s->flags & PWZ_SLICE_CHARGED) && !(s->flags & PWZ_SLICE_UNSEEN_START) &&
	    run == s->dur_ns) {
		pwz_add_sat(&a->charged_ns, s->charged_ns);
		pwz_add_sat(&a->charged_run_ns, run);
	}
	if (!out)
		return 0;
	a->switches++;
	if (s->end == PWZ_END_PREEMPTED)
		a->involuntary++;
	else if (s->end == PWZ_END_SLEPT || s->end == PWZ_END_EXITED)
		a->voluntary++;
	if (s->flags & PWZ_SLICE_UNSEEN_START)
		a->unseen++;
	return 0;
}

int model_fold__wait(struct model_fold *f, const struct pwz_wakeup *wk)
{
	struct pwz_wait_agg *a;

	if (!model_wait_in(wk, &f->w))
		return 0;
	a = wait_of(f, wk->tid, model_fold__instance(f, wk->tid, wk->wake_ns + wk->wait_ns));
	if (!a)
		return -ENOMEM;
	a->count++;
	pwz_add_sat(&a->wait_ns, wk->wait_ns);
	if (wk->wait_ns > a->max_ns)
		a->max_ns = wk->wait_ns;
	a->hist[pwz_whist_bucket(wk->wait_ns)]++;	/* R7: as fold_dropped() counts it */
	return 0;
}

int model_fold__run_delay(struct model_fold *f, uint32_t tid, uint64_t end_ns, uint64_t charge_ns,
			  bool measured, uint64_t wait_ns)
{
	struct pwz_wait_agg *a;

	if (end_ns < f->w.from_ns || end_ns >= f->w.to_ns)
		return 0;
	a = wait_of(f, tid, model_fold__instance(f, tid, end_ns));
	if (!a)
		return -ENOMEM;
	pwz_add_sat(&a->run_delay_ns, charge_ns);
	if (measured)
		pwz_add_sat(&a->run_delay_wait_ns, wait_ns);
	else
		pwz_add_sat(&a->run_delay_unmeasured_ns, charge_ns);
	return 0;
}

int model_fold__kvm_exit(struct model_fold *f, const struct pwz_kvm_exit *e)
{
	struct pwz_kvm_agg *a;

	if (!model_exit_in(e, &f->w))
		return 0;
	a = kvm_of(f, e->tid, model_fold__instance(f, e->tid, e->time_ns), e->isa, e->reason);
	if (!a)
		return -ENOMEM;
	a->count++;
	if (!(e->flags & PWZ_EXIT_UNPAIRED)) {
		pwz_add_sat(&a->handling_ns, e->handling_ns);
		a->hist[pwz_hist_bucket(e->handling_ns)]++;
	}
	return 0;
}

int model_fold__cpu_agg(struct model_fold *f, const struct pwz_cpu_agg *x)
{
	struct pwz_cpu_agg *a = cpu_of(f, x->tid, x->since_ns, x->cpu);

	if (!a)
		return -ENOMEM;
	pwz_add_sat(&a->runtime_ns, x->runtime_ns);
	pwz_add_sat(&a->switches, x->switches);
	pwz_add_sat(&a->voluntary, x->voluntary);
	pwz_add_sat(&a->involuntary, x->involuntary);
	pwz_add_sat(&a->unseen, x->unseen);
	pwz_add_sat(&a->unseen_ns, x->unseen_ns);
	pwz_add_sat(&a->charged_ns, x->charged_ns);
	pwz_add_sat(&a->charged_run_ns, x->charged_run_ns);
	return 0;
}

int model_fold__wait_agg(struct model_fold *f, const struct pwz_wait_agg *x)
{
	struct pwz_wait_agg *a = wait_of(f, x->tid, x->since_ns);

	if (!a)
		return -ENOMEM;
	pwz_add_sat(&a->count, x->count);
	pwz_add_sat(&a->wait_ns, x->wait_ns);
	if (x->max_ns > a->max_ns)
		a->max_ns = x->max_ns;
	for (int i = 0; i < PWZ_WHIST_BUCKETS; i++)
		pwz_add_sat(&a->hist[i], x->hist[i]);
	pwz_add_sat(&a->run_delay_ns, x->run_delay_ns);
	pwz_add_sat(&a->run_delay_wait_ns, x->run_delay_wait_ns);
	pwz_add_sat(&a->run_delay_unmeasured_ns, x->run_delay_unmeasured_ns);
	return 0;
}

int model_fold__kvm_agg(struct model_fold *f, const struct pwz_kvm_agg *x)
{
	struct pwz_kvm_agg *a = kvm_of(f, x->tid, x->since_ns, x->isa, x->reason);

	if (!a)
		return -ENOMEM;
	pwz_add_sat(&a->count, x->count);
	pwz_add_sat(&a->handling_ns, x->handling_ns);
	for (int i = 0; i < PWZ_HIST_BUCKETS; i++)
		pwz_add_sat(&a->hist[i], x->hist[i]);
	return 0;
}

size_t model_fold__cpu_aggs(struct model_fold *f, const struct pwz_cpu_agg **out)
{
	return table_sorted(&f->cpu, (const void **)out);
}

size_t model_fold__wait_aggs(struct model_fold *f, const struct pwz_wait_agg **out)
{
	return table_sorted(&f->wait, (const void **)out);
}

size_t model_fold__kvm_aggs(struct model_fold *f, const struct pwz_kvm_agg **out)
{
	return table_sorted(&f->kvm, (const void **)out);
}

int model_fold__emit(struct model_fold *f, const struct cdict_visitor *sink)
{
	const struct pwz_cpu_agg *c;
	const struct pwz_kvm_agg *k;
	const struct pwz_wait_agg *w;
	size_t n;
	int err = 0;

	n = model_fold__cpu_aggs(f, &c);
	for (size_t i = 0; i < n && !err && sink->cpu_agg; i++)
		err = sink->cpu_agg(sink->ctx, &c[i]);
	n = model_fold__kvm_aggs(f, &k);
	for (size_t i = 0; i < n && !err && sink->kvm_agg; i++)
		err = sink->kvm_agg(sink->ctx, &k[i]);
	n = model_fold__wait_aggs(f, &w);
	for (size_t i = 0; i < n && !err && sink->wait_agg; i++)
		err = sink->wait_agg(sink->ctx, &w[i]);
	return err;
}

size_t model_fold__count(const struct model_fold *f)
{
	return (size_t)f->cpu.map.count + f->wait.map.count + f->kvm.map.count;
}

/* Sends the elements of t that take() selects to send(), in key order, and keeps the others
 * (their order too). On an error the elements not yet sent stay. The elements of every table
 * start with their instance (struct pwz_cpu_agg, pwz_wait_agg, pwz_kvm_agg: tid, then
 * since_ns after other fields), read by inst(). */
static int table_take(struct agg_table *t, bool (*take)(void *ctx, uint32_t tid, uint64_t since_ns),
		      void *ctx, void (*inst)(const void *item, uint32_t *tid, uint64_t *since),
		      int (*send)(const struct cdict_visitor *sink, const void *item),
		      const struct cdict_visitor *sink)
{
	const void *arr;
	size_t n = table_sorted(t, &arr), out = 0, i;
	int e = 0;

	for (i = 0; i < n; i++) {
		char *x = (char *)t->arr + i * t->elem;
		uint64_t since;
		uint32_t tid;

		inst(x, &tid, &since);
		if (!e && take(ctx, tid, since)) {
			e = send(sink, x);
			if (!e)
				continue;	/* sent: dropped from the table */
		}
		if (out != i)
			memmove((char *)t->arr + out * t->elem, x, t->elem);
		out++;
	}
	if (out == n)
		return e;
	/* the array is still sorted: the map is rebuilt from its out elements */
	t->map.count = (uint32_t)out;
	return table_reindex(t) ? -ENOMEM : e;
}

static void inst_cpu(const void *item, uint32_t *tid, uint64_t *since)
{
	const struct pwz_cpu_agg *x = item;

	*tid = x->tid;
	*since = x->since_ns;
}

static void inst_wait(const void *item, uint32_t *tid, uint64_t *since)
{
	const struct pwz_wait_agg *x = item;

	*tid = x->tid;
	*since = x->since_ns;
}

static void inst_kvm(const void *item, uint32_t *tid, uint64_t *since)
{
	const struct pwz_kvm_agg *x = item;

	*tid = x->tid;
	*since = x->since_ns;
}

static int send_cpu(const struct cdict_visitor *v, const void *x)
{
	return v->cpu_agg ? v->cpu_agg(v->ctx, x) : 0;
}

static int send_wait(const struct cdict_visitor *v, const void *x)
{
	return v->wait_agg ? v->wait_agg(v->ctx, x) : 0;
}

static int send_kvm(const struct cdict_visitor *v, const void *x)
{
	return v->kvm_agg ? v->kvm_agg(v->ctx, x) : 0;
}

struct take_ctx {
	struct model_fold *f;
	bool (*take)(void *ctx, uint32_t tid, uint64_t since_ns);
	void *ctx;
};

static bool take_and_forget(void *ctx, uint32_t tid, uint64_t since_ns)
{
	struct take_ctx *t = ctx;

	if (!t->take(t->ctx, tid, since_ns))
		return false;
	births__end(&t->f->births, tid, since_ns);
	return true;
}

int model_fold__take(struct model_fold *f, bool (*take)(void *ctx, uint32_t tid, uint64_t since_ns),
		     void *ctx, const struct cdict_visitor *sink)
{
	struct take_ctx t = { f, take, ctx };
	int e = table_take(&f->cpu, take_and_forget, &t, inst_cpu, send_cpu, sink);

	if (!e)
		e = table_take(&f->kvm, take_and_forget, &t, inst_kvm, send_kvm, sink);
	if (!e)
		e = table_take(&f->wait, take_and_forget, &t, inst_wait, send_wait, sink);
	if (!e)
		e = births__compact(&f->births);
	return e;
}

static int v_slice(void *ctx, const struct pwz_slice *s)
{
	return model_fold__slice(ctx, s);
}

static int v_wakeup(void *ctx, const struct pwz_wakeup *wk)
{
	return model_fold__wait(ctx, wk);
}

static int v_kvm_exit(void *ctx, const struct pwz_kvm_exit *e)
{
	return model_fold__kvm_exit(ctx, e);
}

static int v_cpu_agg(void *ctx, const struct pwz_cpu_agg *a)
{
	return model_fold__cpu_agg(ctx, a);
}

static int v_kvm_agg(void *ctx, const struct pwz_kvm_agg *a)
{
	return model_fold__kvm_agg(ctx, a);
}

static int v_wait_agg(void *ctx, const struct pwz_wait_agg *a)
{
	return model_fold__wait_agg(ctx, a);
}

struct cdict_visitor model_fold__visitor(struct model_fold *f)
{
	return (struct cdict_visitor){
		.ctx = f, .slice = v_slice, .wakeup = v_wakeup, .kvm_exit = v_kvm_exit,
		.cpu_agg = v_cpu_agg, .kvm_agg = v_kvm_agg, .wait_agg = v_wait_agg,
	};
}
