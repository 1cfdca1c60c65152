// SPDX-License-Identifier: GPL-2.0
/* Per-task figures of a capture over a time window, from kernel aggregates or from slices. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "summary.h"
#include "tasknames.h"
#include "keymap.h"
#include "model.h"

struct builder {
	struct summary *s;
	const struct trace *t;
	struct keymap idx;	/* (tid, since), or (0, cpu + 1) for each CPU's idle task -> tasks[] */
	size_t cap;		/* tasks allocated */
	bool whole_end;		/* the window runs to the end of the capture (-c not given) */
};

/* The row of the instance (tid, since) (model.h R8); the idle task (tid 0) has one row per
 * CPU, "swapper/<cpu>", as in the kernel's own naming. */
static struct task_summary *task_of(struct builder *b, uint32_t tid, uint64_t since, uint32_t cpu)
{
	struct summary *s = b->s;
	struct task_summary *ts;
	const struct pwz_task *pt;
	int added;
	int64_t i = keymap_get(&b->idx, tid, tid ? since : (uint64_t)cpu + 1, &added);

	if (i < 0 || array_reserve((void **)&s->tasks, &b->cap, b->idx.count, sizeof(*s->tasks)))
		return NULL;
	if (!added)
		return &s->tasks[i];
	ts = &s->tasks[s->nr_tasks++];
	memset(ts, 0, sizeof(*ts));
	ts->tid = tid;
	ts->since_ns = tid ? since : 0;
	pt = trace__task_at(b->t, tid, since);
	if (!tid) {
		snprintf(ts->comm, sizeof(ts->comm), "swapper/%u", cpu);
		snprintf(ts->name, sizeof(ts->name), "swapper/%u", cpu);
	} else if (pt) {
		ts->pid = pt->tgid;
		snprintf(ts->comm, sizeof(ts->comm), "%s", pt->comm);
		snprintf(ts->name, sizeof(ts->name), "%s", pt->name[0] ? pt->name : pt->comm);
	} else {
		snprintf(ts->name, sizeof(ts->name), "%u", tid);
	}
	return ts;
}

static int cmp_task_cpu(const void *a, const void *b)
{
	const struct summary_task_cpu *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* Sorts ts's CPUs and sums the entries of one CPU into one. */
static void settle_cpus(struct task_summary *ts)
{
	size_t out = 0;

	if (ts->nr_cpus > 1)
		qsort(ts->cpus, ts->nr_cpus, sizeof(*ts->cpus), cmp_task_cpu);
	for (size_t i = 0; i < ts->nr_cpus; i++) {
		if (out && ts->cpus[out - 1].cpu == ts->cpus[i].cpu) {
			pwz_add_sat(&ts->cpus[out - 1].runtime_ns, ts->cpus[i].runtime_ns);
			pwz_add_sat(&ts->cpus[out - 1].switches, ts->cpus[i].switches);
			continue;
		}
		ts->cpus[out++] = ts->cpus[i];
	}
	ts->nr_cpus = out;
}

/* Adds runtime and switches on cpu to ts. The fold delivers a task's CPUs in order, so the
 * entry is the last one or a new last one; any other order is appended and settled by
 * settle_cpus() (summary__new() calls it for every task). */
static int add_cpu(struct task_summary *ts, uint32_t cpu, uint64_t runtime_ns, uint64_t switches)
{
	struct summary_task_cpu *c;

	if (!runtime_ns && !switches)
		return 0;
	if (ts->nr_cpus && ts->cpus[ts->nr_cpus - 1].cpu == cpu) {
		c = &ts->cpus[ts->nr_cpus - 1];
	} else {
		if (ts->nr_cpus == ts->cpus_cap) {	/* from 1 by doubling: most tasks run on few */
			size_t cap = ts->cpus_cap ? 2 * ts->cpus_cap : 1;

			c = realloc(ts->cpus, cap * sizeof(*c));
			if (!c)
				return -ENOMEM;
			ts->cpus = c;
			ts->cpus_cap = cap;
		}
		c = &ts->cpus[ts->nr_cpus++];
		memset(c, 0, sizeof(*c));
		c->cpu = cpu;
	}
	pwz_add_sat(&c->runtime_ns, runtime_ns);
	pwz_add_sat(&c->switches, switches);
	return 0;
}

/* Feeds the fold: the whole capture from the file's aggregates (exact), a window from the
 * streams (model.h R6). */
static int fold_trace(const struct trace *t, bool aggregates, struct model_fold *f)
{
	int e = 0;

	if (aggregates) {
		for (size_t i = 0; i < t->nr_cpu_aggs && !e; i++)
			e = model_fold__cpu_agg(f, &t->cpu_aggs[i]);
		for (size_t i = 0; i < t->nr_kvm_aggs && !e; i++)
			e = model_fold__kvm_agg(f, &t->kvm_aggs[i]);
		for (size_t i = 0; i < t->nr_wait_aggs && !e; i++)
			e = model_fold__wait_agg(f, &t->wait_aggs[i]);
		return e;
	}
	for (size_t i = 0; i < t->nr_tasks && !e; i++)	/* R8: the instances first */
		e = model_fold__born(f, t->tasks[i].tid, t->tasks[i].since_ns);
	for (size_t i = 0; i < t->nr_slices && !e; i++)
		e = model_fold__slice(f, &t->slices[i]);
	for (size_t i = 0; i < t->nr_exits && !e; i++)
		e = model_fold__kvm_exit(f, &t->exits[i]);
	for (size_t i = 0; i < t->nr_wakeups && !e; i++)
		e = model_fold__wait(f, &t->wakeups[i]);
	return e;
}

/* Rows from the fold's aggregates: one per task (the idle task one per CPU), and each CPU's
 * account of its window. */
static int rows_from_fold(struct builder *b, struct model_fold *f)
{
	const struct pwz_cpu_agg *ca;
	const struct pwz_kvm_agg *ka;
	const struct pwz_wait_agg *wa;
	struct summary *s = b->s;
	struct task_summary *ts;
	bool all_threads = false;
	size_t n;

	n = model_fold__cpu_aggs(f, &ca);
	for (size_t i = 0; i < n; i++) {
		const struct pwz_cpu_agg *a = &ca[i];

		if (!(ts = task_of(b, a->tid, a->since_ns, a->cpu)))
			return -ENOMEM;
		pwz_add_sat(&ts->runtime_ns, a->runtime_ns);
		pwz_add_sat(&ts->switches, a->switches);
		pwz_add_sat(&ts->voluntary, a->voluntary);
		pwz_add_sat(&ts->involuntary, a->involuntary);
		pwz_add_sat(&ts->unseen, a->unseen);
		pwz_add_sat(&ts->unseen_ns, a->unseen_ns);
		pwz_add_sat(&ts->charged_ns, a->charged_ns);
		pwz_add_sat(&ts->charged_run_ns, a->charged_run_ns);
		if (a->cpu < s->nr_cpus) {
			if (add_cpu(ts, a->cpu, a->runtime_ns, a->switches))
				return -ENOMEM;
			pwz_add_sat(&s->cpus[a->cpu].tasks_ns, a->runtime_ns);
			pwz_add_sat(&s->cpus[a->cpu].unseen_ns, a->unseen_ns);
		}
		all_threads |= !a->tid;
	}
	n = model_fold__kvm_aggs(f, &ka);
	for (size_t i = 0; i < n; i++) {
		const struct pwz_kvm_agg *a = &ka[i];

		if (!(ts = task_of(b, a->tid, a->since_ns, 0)) ||
		    !exitroll_add(&ts->exits, a->isa, a->reason,
				  pwz_meta_exit_name(&b->t->meta, a->isa, a->reason), a->count,
				  a->handling_ns, a->hist))
			return -ENOMEM;
		pwz_add_sat(&ts->exits_total, a->count);
	}
	n = model_fold__wait_aggs(f, &wa);
	for (size_t i = 0; i < n; i++) {
		const struct pwz_wait_agg *a = &wa[i];

		if (!(ts = task_of(b, a->tid, a->since_ns, 0)))
			return -ENOMEM;
		pwz_add_sat(&ts->wait_ns, a->wait_ns);
		pwz_add_sat(&ts->wait_count, a->count);
		if (a->max_ns > ts->wait_max_ns)
			ts->wait_max_ns = a->max_ns;
		for (int k = 0; k < PWZ_WHIST_BUCKETS; k++)
			pwz_add_sat(&ts->wait_hist[k], a->hist[k]);
		pwz_add_sat(&ts->run_delay_ns, a->run_delay_ns);
		pwz_add_sat(&ts->run_delay_wait_ns, a->run_delay_wait_ns);
		pwz_add_sat(&ts->run_delay_unmeasured_ns, a->run_delay_unmeasured_ns);
	}
	/* every thread captured: the file says so, or (older files) the idle task is there, which
	 * is captured only when every thread is (no -t, -p); a CPU busy all along has no idle */
	if (b->t->meta.threads != PWZ_THREADS_UNKNOWN)
		all_threads = b->t->meta.threads == PWZ_THREADS_ALL;
	for (uint32_t c = 0; c < s->nr_cpus; c++) {
		struct summary_cpu *sc = &s->cpus[c];
		uint64_t span = s->window_end_ns - s->window_start_ns, known;

		known = sc->tasks_ns + sc->unseen_ns;
		sc->complete = all_threads;
		if (sc->complete)
			sc->unaccounted_ns = span > known ? span - known : 0;
	}
	return 0;
}

static int build(struct builder *b)
{
	struct model_window w = { b->s->window_start_ns, b->whole_end ? UINT64_MAX :
							 b->s->window_end_ns };
	struct model_fold *f = model_fold__new(&w);
	int e;

	if (!f)
		return -ENOMEM;
	e = fold_trace(b->t, b->s->from_aggregates, f);
	if (!e)
		e = rows_from_fold(b, f);
	model_fold__free(f);
	return e;
}

static int cmp_name(const void *a, const void *b)
{
	const struct task_summary *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->since_ns < y->since_ns ? -1 : x->since_ns > y->since_ns;
}

static int cmp_runtime(const void *a, const void *b)
{
	const struct task_summary *x = a, *y = b;

	if (x->runtime_ns != y->runtime_ns)
		return x->runtime_ns > y->runtime_ns ? -1 : 1;
	return cmp_name(a, b);
}

/* Whether a figure of ts reached PWZ_SATURATED (records.h): a sum held there, not its value. */
static bool task_saturated(const struct task_summary *ts)
{
	const uint64_t v[] = { ts->runtime_ns, ts->switches, ts->voluntary, ts->involuntary,
			       ts->unseen, ts->unseen_ns, ts->charged_ns, ts->charged_run_ns,
			       ts->wait_ns, ts->wait_count, ts->exits_total, ts->run_delay_ns,
			       ts->run_delay_wait_ns, ts->run_delay_unmeasured_ns };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] == PWZ_SATURATED)
			return true;
	for (size_t i = 0; i < ts->exits.n; i++) {
		const struct exitroll_entry *e = exitroll_at(&ts->exits, i);

		if (e->count == PWZ_SATURATED || e->handling_ns == PWZ_SATURATED)
			return true;
	}
	return false;
}

static void free_task(struct task_summary *ts)
{
	free(ts->cpus);
	exitroll_free(&ts->exits);
}

/* Adds src's figures into dst (merging rows of one merged name). */
static int add_into(struct task_summary *dst, const struct task_summary *src)
{
	pwz_add_sat(&dst->runtime_ns, src->runtime_ns);
	pwz_add_sat(&dst->switches, src->switches);
	pwz_add_sat(&dst->voluntary, src->voluntary);
	pwz_add_sat(&dst->involuntary, src->involuntary);
	pwz_add_sat(&dst->unseen, src->unseen);
	pwz_add_sat(&dst->unseen_ns, src->unseen_ns);
	pwz_add_sat(&dst->charged_ns, src->charged_ns);
	pwz_add_sat(&dst->charged_run_ns, src->charged_run_ns);
	pwz_add_sat(&dst->wait_ns, src->wait_ns);
	pwz_add_sat(&dst->wait_count, src->wait_count);
	if (src->wait_max_ns > dst->wait_max_ns)
		dst->wait_max_ns = src->wait_max_ns;
	for (int k = 0; k < PWZ_WHIST_BUCKETS; k++)
		pwz_add_sat(&dst->wait_hist[k], src->wait_hist[k]);
	pwz_add_sat(&dst->run_delay_ns, src->run_delay_ns);
	pwz_add_sat(&dst->run_delay_wait_ns, src->run_delay_wait_ns);
	pwz_add_sat(&dst->run_delay_unmeasured_ns, src->run_delay_unmeasured_ns);
	for (size_t i = 0; i < src->nr_cpus; i++) {
		const struct summary_task_cpu *c = &src->cpus[i];

		if (add_cpu(dst, c->cpu, c->runtime_ns, c->switches))
			return -ENOMEM;
	}
	for (size_t i = 0; i < src->exits.n; i++)
		if (!exitroll_merge(&dst->exits, exitroll_at(&src->exits, i)))
			return -ENOMEM;
	pwz_add_sat(&dst->exits_total, src->exits_total);
	return 0;
}

static int merge_sys(struct summary *s)
{
	struct task_label_opts lo = { .merge_sys = true };	/* the one rule (tasknames.h) */
	size_t out = 0;

	for (size_t i = 0; i < s->nr_tasks; i++) {
		char merged[PWZ_NAME_MAX];

		task_label_name(s->tasks[i].name, s->tasks[i].tid, &lo, merged, sizeof(merged));
		snprintf(s->tasks[i].name, sizeof(s->tasks[i].name), "%s", merged);
	}
	if (s->nr_tasks > 1)
		qsort(s->tasks, s->nr_tasks, sizeof(*s->tasks), cmp_name);
	for (size_t i = 0; i < s->nr_tasks; i++) {
		if (out && !strcmp(s->tasks[out - 1].name, s->tasks[i].name) &&
		    strcmp(s->tasks[i].name, s->tasks[i].comm)) {
			/* merge only rows whose name changed (per-CPU kernel threads) */
			if (add_into(&s->tasks[out - 1], &s->tasks[i]))
				return -ENOMEM;
			free_task(&s->tasks[i]);
			continue;
		}
		s->tasks[out++] = s->tasks[i];
	}
	s->nr_tasks = out;
	return 0;
}

/* The capture's length: the metadata's, or for a cut file the end of its last record. */
static uint64_t capture_end(const struct trace *t)
{
	uint64_t end = t->meta.duration_ns;

	if (end)
		return end;
	for (size_t i = 0; i < t->nr_slices; i++) {
		if (t->slices[i].start_ns + t->slices[i].dur_ns > end)
			end = t->slices[i].start_ns + t->slices[i].dur_ns;
	}
	for (size_t i = 0; i < t->nr_exits; i++) {
		if (t->exits[i].time_ns + t->exits[i].handling_ns > end)
			end = t->exits[i].time_ns + t->exits[i].handling_ns;
	}
	return end;
}

/* The CPUs the per-CPU arrays cover: up to the highest CPU a record names, not the header's
 * nr_cpus (a header claiming 4096 CPUs must not cost 64 KiB per task). */
static uint32_t cpus_of(const struct trace *t)
{
	uint32_t n = 0;

	for (size_t i = 0; i < t->nr_cpu_aggs; i++) {
		if (t->cpu_aggs[i].cpu < PWZ_MAX_CPUS && t->cpu_aggs[i].cpu + 1 > n)
			n = t->cpu_aggs[i].cpu + 1;
	}
	for (size_t i = 0; i < t->nr_slices; i++) {
		if (t->slices[i].cpu < PWZ_MAX_CPUS && t->slices[i].cpu + 1 > n)
			n = t->slices[i].cpu + 1;
	}
	return n;
}

struct summary *summary__new(const struct trace *t, const struct summary_opts *opts, char *err,
			     size_t errlen)
{
	struct summary_opts none = { 0 };
	struct summary *s = calloc(1, sizeof(*s));
	struct builder b = { .s = s, .t = t };
	uint64_t end = capture_end(t);
	int ret;

	if (!opts)
		opts = &none;
	if (!s)
		goto nomem;
	s->nr_cpus = cpus_of(t);
	s->has_switch_kind = t->meta.has_switch_kind;
	s->has_wait = t->meta.has_wait;
	s->window_start_ns = opts->from_ns;
	s->window_end_ns = opts->cap_ns ? opts->cap_ns : end;
	b.whole_end = !opts->cap_ns;
	s->cpus = calloc(s->nr_cpus ? s->nr_cpus : 1, sizeof(*s->cpus));
	if (!s->cpus)
		goto nomem;
	if (opts->from_ns && opts->from_ns >= end) {
		snprintf(err, errlen, "%s: --from %.3f ms is past the end of the capture (%.3f ms)",
			 t->path, opts->from_ns / 1e6, end / 1e6);
		ret = -EINVAL;
		goto fail;
	}
	if (opts->cap_ns && opts->cap_ns > end) {
		snprintf(err, errlen, "%s: the window ends at %.3f ms (-f + -c), past the end of the capture (%.3f ms)",
			 t->path, opts->cap_ns / 1e6, end / 1e6);
		ret = -EINVAL;
		goto fail;
	}
	if (opts->cap_ns && opts->cap_ns <= opts->from_ns) {
		snprintf(err, errlen, "the window end (%.3f ms) must be after its start, -f (%.3f ms)",
			 opts->cap_ns / 1e6, opts->from_ns / 1e6);
		ret = -EINVAL;
		goto fail;
	}
	/* a cut file's aggregates (written at the end) may be partial: its streams are folded */
	s->from_aggregates = (t->info.has_aggregates || t->info.format == CDICT_FORMAT_LEGACY) &&
			     !t->info.cut;
	s->whole_capture = !s->window_start_ns && s->window_end_ns >= end;
	if (!s->whole_capture)
		s->from_aggregates = false;
	s->has_charged = t->meta.has_charged && s->from_aggregates;
	s->has_run_delay = t->meta.has_run_delay && s->from_aggregates;
	ret = build(&b);
	if (ret)
		goto fail;
	if (opts->merge_sys && (ret = merge_sys(s)))
		goto fail;
	for (size_t i = 0; i < s->nr_tasks; i++) {
		struct task_summary *ts = &s->tasks[i];

		exitroll_drop_index(&ts->exits);	/* complete: its entries only */
		exitroll_sort_by_code(&ts->exits);
		settle_cpus(ts);
		s->saturated |= task_saturated(ts);
		if (opts->append_tid) {	/* the one display-name rule (tasknames.h) */
			struct task_label_opts lo = { .append_tid = true };
			char name[sizeof(ts->name)];

			task_label_name(ts->name, ts->tid, &lo, name, sizeof(name));
			memcpy(ts->name, name, sizeof(name));
		}
	}
	if (s->nr_tasks > 1)
		qsort(s->tasks, s->nr_tasks, sizeof(*s->tasks), cmp_runtime);
	keymap_free(&b.idx);
	return s;
nomem:
	ret = -ENOMEM;
	snprintf(err, errlen, "out of memory");
fail:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	keymap_free(&b.idx);
	summary__free(s);
	errno = -ret;
	return NULL;
}

void summary_keep(struct summary *s, bool (*keep)(const struct task_summary *ts, void *ctx),
		  void *ctx)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nr_tasks; i++) {
		if (keep(&s->tasks[i], ctx))
			s->tasks[k++] = s->tasks[i];
		else
			free_task(&s->tasks[i]);
	}
	s->nr_tasks = k;
}

void summary__free(struct summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_tasks; i++)
		free_task(&s->tasks[i]);
	free(s->tasks);
	free(s->cpus);
	free(s);
}

const struct summary_task_cpu *summary_task_cpu(const struct task_summary *ts, uint32_t cpu)
{
	size_t lo = 0, hi = ts->nr_cpus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ts->cpus[mid].cpu == cpu)
			return &ts->cpus[mid];
		if (ts->cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint64_t summary_uncharged_ns(const struct task_summary *ts)
{
	return ts->charged_run_ns > ts->charged_ns ? ts->charged_run_ns - ts->charged_ns : 0;
}

bool summary_ready_figures_differ(uint64_t lived_ns, uint64_t charge_ns, uint64_t unmeasured_ns)
{
	double lived = (double)lived_ns;
	double kernel = charge_ns > unmeasured_ns ? (double)(charge_ns - unmeasured_ns) : 0;
	double big = lived > kernel ? lived : kernel;

	return big > 0 && fabs(lived - kernel) > big * SUMMARY_READY_BUCKET_PCT / 100;
}

bool summary_ready_differs(const struct summary *s, const struct task_summary *ts)
{
	return s->has_run_delay &&
	       summary_ready_figures_differ(ts->run_delay_wait_ns, ts->run_delay_ns,
					    ts->run_delay_unmeasured_ns);
}

double summary_cpu_pct(const struct summary *s, const struct task_summary *ts)
{
	uint64_t span = s->window_end_ns - s->window_start_ns;

	return span ? 100.0 * (double)ts->runtime_ns / (double)span : 0.0;
}

bool summary_wait_range(const struct task_summary *ts, double q, uint64_t *lo, uint64_t *hi)
{
	uint64_t n = 0;

	for (int i = 0; i < PWZ_WHIST_BUCKETS; i++)
		n += ts->wait_hist[i];
	if (n < ts->wait_count) {	/* short: a percentile of the rest would be wrong */
		*lo = *hi = 0;
		return false;
	}
	return pwz_whist_quantile(ts->wait_hist, q, ts->wait_max_ns, lo, hi);
}
