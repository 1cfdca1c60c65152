// SPDX-License-Identifier: GPL-2.0
/* The dashboards' data (JSON) and the single-file HTML pages that carry it with the chart code. */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dash.h"
#include "irqtab.h"
#include "vmtab.h"
#include "sleeps.h"
#include "diff.h"
#include "exitroll.h"
#include "keymap.h"
#include "model.h"
#include "tasknames.h"
#include "tasksel.h"

const char *dash_title_kind(const struct dash_run *runs, size_t nr, bool heatmaps)
{
	size_t i, k;

	if (heatmaps)
		return "heatmaps";
	for (i = 0; i < nr; i++) {
		const struct trace *t = runs[i].trace;

		if (t->nr_exits)
			return "CPU, switches and KVM exits";
		for (k = 0; k < t->nr_kvm_aggs; k++)
			if (t->kvm_aggs[k].count)
				return "CPU, switches and KVM exits";
	}
	return "CPU and switches";
}

static void key(struct jbuf *b, const char *k)
{
	jbuf_json_str(b, k, (size_t)-1);
	jbuf_add(b, ":", 1);
}

static void kv_str(struct jbuf *b, const char *k, const char *v)
{
	key(b, k);
	jbuf_str_or_null(b, v);
	jbuf_add(b, ",", 1);
}

static void kv_u64(struct jbuf *b, const char *k, uint64_t v)
{
	key(b, k);
	jbuf_u64(b, v);
	jbuf_add(b, ",", 1);
}

static void kv_u64_or_null(struct jbuf *b, const char *k, uint64_t v, bool known)
{
	key(b, k);
	if (known)
		jbuf_u64(b, v);
	else
		jbuf_puts(b, "null");
	jbuf_add(b, ",", 1);
}

static void kv_dbl(struct jbuf *b, const char *k, double v)
{
	key(b, k);
	jbuf_double(b, v);
	jbuf_add(b, ",", 1);
}

static void kv_bool(struct jbuf *b, const char *k, bool v)
{
	key(b, k);
	jbuf_puts(b, v ? "true," : "false,");
}

/* Drops the trailing comma of an object or array being closed, then closes it. */
static void close_with(struct jbuf *b, char c)
{
	if (!b->err && b->len && b->buf[b->len - 1] == ',')
		b->len--;
	jbuf_add(b, &c, 1);
}

static void emit_common(struct jbuf *b, const char *kind, const struct dash_opts *o)
{
	kv_str(b, "kind", kind);
	kv_str(b, "label", o->label);
	kv_str(b, "version", o->version);
	kv_str(b, "date", o->date);
	kv_str(b, "pattern", o->pattern);
	kv_bool(b, "merge_sys", o->window.merge_sys);
	kv_bool(b, "append_tid", o->window.append_tid);
}

/* "run" fields shared by both dashboards: names, metadata, drops, topology, window. */
static void emit_run_head(struct jbuf *b, const struct dash_run *r, const struct summary *s)
{
	const struct trace *t = r->trace;
	const struct pwz_meta *m = &t->meta;
	uint32_t i;

	kv_str(b, "name", r->name);
	kv_str(b, "short", r->short_name ? r->short_name : r->name);
	kv_str(b, "file", t->path);
	key(b, "meta");
	jbuf_add(b, "{", 1);
	kv_str(b, "host", m->host);
	kv_str(b, "kernel", m->kernel);
	kv_str(b, "cmdline", m->cmdline);
	kv_str(b, "options", m->options);
	kv_str(b, "tool_version", m->tool_version);
	kv_str(b, "trigger", m->trigger);
	kv_u64(b, "trigger_ns", m->trigger_ns);
	kv_u64(b, "trigger_tid", m->trigger_tid);
	kv_str(b, "trigger_thread", m->trigger_thread);
	kv_str(b, "source", pwz_source_name(m->source));
	kv_u64(b, "nr_cpus", m->nr_cpus);
	kv_u64(b, "duration_ns", m->duration_ns);
	kv_u64(b, "start_wall_ns", m->start_wall_ns);
	/* the start on the record clock, known when the wall clock's is not (a perf.data
	 * recorded without -k: perf's own clock, clock_id -1) */
	kv_u64(b, "start_mono_ns", m->start_mono_ns);
	key(b, "clock_id");
	jbuf_printf(b, "%d,", (int)m->clock_id);
	kv_u64(b, "tracer_cpu_ns", m->tracer_cpu_ns);
	kv_u64_or_null(b, "steal_ns", m->steal_ns, m->has_steal);	/* null: not read (an import) */
	kv_u64_or_null(b, "steal_cpu_time_ns", m->cpu_time_ns, m->has_steal);
	kv_u64(b, "bpf_run_ns", m->bpf_run_ns);
	kv_u64(b, "bpf_run_cnt", m->bpf_run_cnt);
	kv_bool(b, "has_switch_kind", m->has_switch_kind);
	kv_bool(b, "has_wait", m->has_wait);
	kv_bool(b, "has_kvm", m->has_kvm);
	kv_bool(b, "has_irq", m->has_irq);
	kv_str(b, "format", t->info.format == CDICT_FORMAT_LEGACY ? "legacy perfwhiz" : "cdict v2");
	kv_bool(b, "cut", t->info.cut);
	kv_u64(b, "cut_offset", t->info.cut_offset);
	close_with(b, '}');
	jbuf_add(b, ",", 1);

	key(b, "drops");
	jbuf_add(b, "[", 1);
	for (i = 0; i < m->nr_drops && i < PWZ_MAX_DROPS; i++) {
		jbuf_add(b, "[", 1);
		jbuf_json_str(b, m->drops[i].name, strnlen(m->drops[i].name, sizeof(m->drops[i].name)));
		jbuf_add(b, ",", 1);
		jbuf_u64(b, m->drops[i].value);
		jbuf_add(b, "],", 2);
	}
	close_with(b, ']');
	jbuf_add(b, ",", 1);
	kv_u64(b, "drops_total", pwz_meta_total_drops(m));

	key(b, "topo");
	if (m->topo && m->nr_cpus) {
		jbuf_add(b, "[", 1);
		for (i = 0; i < m->nr_cpus; i++)
			jbuf_printf(b, "[%d,%d,%d],", m->topo[i].package, m->topo[i].core,
				    m->topo[i].llc);
		close_with(b, ']');
	} else {
		jbuf_puts(b, "null");
	}
	jbuf_add(b, ",", 1);
	kv_u64(b, "nr_cpus", s->nr_cpus);
	key(b, "window");
	jbuf_printf(b, "[%llu,%llu],", (unsigned long long)s->window_start_ns,
		    (unsigned long long)s->window_end_ns);
	kv_bool(b, "from_aggregates", s->from_aggregates);
	/* each CPU's account of the window: [threads, unseen, unaccounted or -1 unknown] */
	key(b, "cpus");
	jbuf_add(b, "[", 1);
	for (i = 0; i < s->nr_cpus; i++)
		jbuf_printf(b, "[%llu,%llu,%lld],", (unsigned long long)s->cpus[i].tasks_ns,
			    (unsigned long long)s->cpus[i].unseen_ns,
			    s->cpus[i].complete ? (long long)s->cpus[i].unaccounted_ns : -1ll);
	close_with(b, ']');
	jbuf_add(b, ",", 1);
	kv_bool(b, "has_switch_kind", s->has_switch_kind);
	kv_bool(b, "has_wait", s->has_wait);
	/* the kernel's charge of the waits (tasks' run_delay_ns, model.h R9), shown beside the
	 * waits where it differs by more than ready_bucket_pct % (summary_ready_differs()) */
	kv_bool(b, "has_run_delay", s->has_run_delay);
	kv_dbl(b, "ready_bucket_pct", SUMMARY_READY_BUCKET_PCT);
	/* the wait histogram's bucket bottoms (bpf/whist.h), for the tasks' "wait_hist" */
	key(b, "wait_bucket_lo");
	jbuf_add(b, "[", 1);
	for (i = 0; i < PWZ_WHIST_BUCKETS; i++)
		jbuf_printf(b, "%llu,", (unsigned long long)pwz_whist_lower(i));
	close_with(b, ']');
	jbuf_add(b, ",", 1);
}

/*
 * What a log2 histogram can say of its median and p99: the bucket each falls in, as
 * "hist_n" (entries: exits whose handling time is known), "median_range" and "p99_range"
 * ([lo, hi) ns; bucket 0 is [0, 2)), null when the histogram is empty. The page prints these
 * ranges, not the geometric middle pwz_hist_quantile() returns, which has no such precision.
 */
static void emit_quantile_range(struct jbuf *b, const uint64_t hist[PWZ_HIST_BUCKETS])
{
	static const double qs[] = { 0.5, 0.99 };
	static const char *const names[] = { "median_range", "p99_range" };
	uint64_t total = 0, lo, hi;

	for (int i = 0; i < PWZ_HIST_BUCKETS; i++)
		total += hist[i];
	kv_u64(b, "hist_n", total);
	for (size_t q = 0; q < 2; q++) {
		key(b, names[q]);
		if (!pwz_hist_range(hist, qs[q], &lo, &hi))
			jbuf_puts(b, "null,");
		else if (hi == UINT64_MAX)	/* the last bucket: its top is unknown (-1) */
			jbuf_printf(b, "[%llu,-1],", (unsigned long long)lo);
		else
			jbuf_printf(b, "[%llu,%llu],", (unsigned long long)lo,
				    (unsigned long long)hi + 1);
	}
}

/* The message for a page that has no row to show: the threads -t selects did not run in the
 * window (the run's selection says which), or no thread did. */
static void no_rows(const struct dash_run *r, const struct summary *s, char *err, size_t errlen)
{
	if (r->sel)
		tasksel_none_ran(r->sel, s->window_start_ns, s->window_end_ns, err, errlen);
	else
		snprintf(err, errlen, "%s: no thread ran in the window (see --list)", r->trace->path);
}

/* "reasons": per reason over the selected tasks (acc: their exits, exitroll_merge()d),
 * sorted by (isa, code), the handling-time median and p99. */
static void emit_reasons(struct jbuf *b, struct exitroll *acc)
{
	size_t n;

	exitroll_sort_by_code(acc);
	key(b, "reasons");
	jbuf_add(b, "[", 1);
	for (n = 0; n < acc->n; n++) {
		const struct exitroll_entry *r = exitroll_at(acc, n);
		const uint64_t *hist = exitroll_hist(r);

		jbuf_add(b, "{", 1);
		kv_u64(b, "isa", r->isa);
		kv_u64(b, "code", r->code);
		kv_str(b, "name", r->name);
		kv_u64(b, "count", r->count);
		kv_u64(b, "handling_ns", r->handling_ns);
		kv_u64(b, "median_ns", pwz_hist_quantile(hist, 0.5));
		kv_u64(b, "p99_ns", pwz_hist_quantile(hist, 0.99));
		emit_quantile_range(b, hist);
		close_with(b, '}');
		jbuf_add(b, ",", 1);
	}
	close_with(b, ']');
}

/* A task's "sleep": [S, D, other sleeps begun in the window, then their ns in it]; null
 * when the capture cannot tell (sl NULL). */
static void emit_task_sleep(struct jbuf *b, const struct sleeps *sl,
			    const struct task_summary *ts)
{
	static const struct sleep_row none;
	const struct sleep_row *sr;

	key(b, "sleep");
	if (!sl) {
		jbuf_puts(b, "null,");
		return;
	}
	sr = sleeps__of(sl, ts->tid, ts->since_ns);
	if (!sr)
		sr = &none;
	jbuf_printf(b, "[%llu,%llu,%llu,%llu,%llu,%llu],",
		    (unsigned long long)sr->count[0], (unsigned long long)sr->count[1],
		    (unsigned long long)sr->count[2], (unsigned long long)sr->ns[0],
		    (unsigned long long)sr->ns[1], (unsigned long long)sr->ns[2]);
}

/* A task's "cpus" and "exits" (its exits also summed into acc). Returns 0 or -ENOMEM. */
static int emit_task_cpus_exits(struct jbuf *b, const struct task_summary *ts,
				struct exitroll *acc)
{
	size_t k;

	key(b, "cpus");
	jbuf_add(b, "[", 1);
	for (k = 0; k < ts->nr_cpus; k++)
		jbuf_printf(b, "[%u,%llu,%llu],", ts->cpus[k].cpu,
			    (unsigned long long)ts->cpus[k].runtime_ns,
			    (unsigned long long)ts->cpus[k].switches);
	close_with(b, ']');
	jbuf_add(b, ",", 1);
	key(b, "exits");
	jbuf_add(b, "[", 1);
	for (k = 0; k < ts->exits.n; k++) {
		const struct exitroll_entry *e = exitroll_at(&ts->exits, k);

		jbuf_printf(b, "[%u,%u,%llu,%llu],", e->isa, e->code,
			    (unsigned long long)e->count, (unsigned long long)e->handling_ns);
		if (!exitroll_merge(acc, e))
			return -ENOMEM;
	}
	close_with(b, ']');
	return 0;
}

/* One entry of a run's "tasks" (sl: its sleeps by state, or NULL); its exits are summed
 * into acc. Returns 0 or -ENOMEM. */
static int emit_task_row(struct jbuf *b, const struct summary *s, const struct task_summary *ts,
			 const struct sleeps *sl, struct exitroll *acc)
{
	uint64_t lo, hi;
	size_t k;

	jbuf_add(b, "{", 1);
	kv_u64(b, "tid", ts->tid);
	kv_u64(b, "pid", ts->pid);
	kv_u64(b, "born_ns", ts->since_ns);
	kv_str(b, "name", ts->name);
	key(b, "comm");
	jbuf_json_str(b, ts->comm, strnlen(ts->comm, sizeof(ts->comm)));
	jbuf_add(b, ",", 1);
	kv_u64(b, "runtime_ns", ts->runtime_ns);
	kv_dbl(b, "cpu_pct", summary_cpu_pct(s, ts));
	kv_u64(b, "switches", ts->switches);
	kv_u64(b, "voluntary", ts->voluntary);
	kv_u64(b, "involuntary", ts->involuntary);
	kv_u64(b, "wait_ns", ts->wait_ns);
	kv_u64(b, "wait_count", ts->wait_count);
	kv_u64(b, "wait_max_ns", ts->wait_max_ns);
	if (s->has_run_delay) {
		kv_u64(b, "run_delay_ns", ts->run_delay_ns);
		kv_u64(b, "run_delay_wait_ns", ts->run_delay_wait_ns);
		kv_u64(b, "run_delay_unmeasured_ns", ts->run_delay_unmeasured_ns);
	}
	/* the waits' histogram, sparse: [[bucket, count]...]; absent without one */
	if (summary_wait_range(ts, 1.0, &lo, &hi)) {
		key(b, "wait_hist");
		jbuf_add(b, "[", 1);
		for (k = 0; k < PWZ_WHIST_BUCKETS; k++)
			if (ts->wait_hist[k])
				jbuf_printf(b, "[%zu,%llu],", k,
					    (unsigned long long)ts->wait_hist[k]);
		close_with(b, ']');
		jbuf_add(b, ",", 1);
	}
	kv_u64(b, "unseen_ns", ts->unseen_ns);
	kv_u64(b, "exits_total", ts->exits_total);
	emit_task_sleep(b, sl, ts);
	if (emit_task_cpus_exits(b, ts, acc))
		return -ENOMEM;
	close_with(b, '}');
	jbuf_add(b, ",", 1);
	return 0;
}

static int emit_charts_run(struct jbuf *b, const struct dash_run *r, const struct summary *s,
			   size_t *nr_selected)
{
	struct exitroll acc = { 0 };	/* the selected tasks' exits by reason */
	struct sleeps *sl = NULL;	/* sleeps by state (sleeps.h), when the capture has them */
	size_t i;
	int rc = -ENOMEM;

	if (sleeps_known(r->trace)) {
		sl = sleeps__new(r->trace, s->window_start_ns, s->window_end_ns);
		if (!sl)
			return -ENOMEM;
	}
	jbuf_add(b, "{", 1);
	emit_run_head(b, r, s);
	kv_bool(b, "has_sleep_states", sl != NULL);
	if (vms_dash_json(b, r->trace, s))	/* the VMs tab, render/vmtab.h */
		goto free_sleeps;
	if (irq_dash_json(b, r->trace, r->sel, 10))	/* --irq, the Capture tab: irqtab.h */
		goto free_sleeps;
	key(b, "tasks");
	jbuf_add(b, "[", 1);
	for (i = 0; i < s->nr_tasks; i++) {
		(*nr_selected)++;
		if (emit_task_row(b, s, &s->tasks[i], sl, &acc))
			goto free_acc;
	}
	close_with(b, ']');
	jbuf_add(b, ",", 1);
	emit_reasons(b, &acc);
	close_with(b, '}');
	rc = b->err;
free_acc:
	exitroll_free(&acc);
free_sleeps:
	sleeps__free(sl);
	return rc;
}

static void emit_delta(struct jbuf *b, const struct diff *d)
{
	size_t i, k, n;

	jbuf_add(b, "{", 1);
	key(b, "scale");
	jbuf_add(b, "[", 1);
	for (i = 0; i < d->nr_runs; i++) {
		jbuf_double(b, d->scale[i]);
		jbuf_add(b, ",", 1);
	}
	close_with(b, ']');
	jbuf_add(b, ",", 1);
	kv_bool(b, "scaled", d->scaled);
	key(b, "reasons");
	jbuf_add(b, "[", 1);
	for (i = 0; i < d->reasons.n; i++) {
		const struct exitroll_entry *r = exitroll_at(&d->reasons, i);

		jbuf_printf(b, "{\"isa\":%u,\"code\":%u,\"name\":", r->isa, r->code);
		if (r->name)
			jbuf_json_str(b, r->name, (size_t)-1);
		else
			jbuf_puts(b, "null");
		jbuf_puts(b, "},");
	}
	close_with(b, ']');
	jbuf_add(b, ",", 1);
	key(b, "rows");
	jbuf_add(b, "[", 1);
	for (i = 0; i < d->nr_rows; i++) {
		const struct diff_row *row = &d->rows[i];

		jbuf_add(b, "{", 1);
		kv_str(b, "name", row->name);
		key(b, "cells");
		jbuf_add(b, "[", 1);
		for (k = 0; k < d->nr_runs; k++) {
			const struct diff_cell *c = &row->cells[k];

			if (!c->present) {
				jbuf_puts(b, "null,");
				continue;
			}
			jbuf_add(b, "{", 1);
			kv_dbl(b, "cpu_pct", c->cpu_pct);
			kv_dbl(b, "switches", c->switches);
			kv_dbl(b, "voluntary", c->voluntary);
			kv_dbl(b, "involuntary", c->involuntary);
			kv_dbl(b, "exits_total", c->exits_total);
			/* by reason index, only the reasons the cell has */
			key(b, "exits");
			jbuf_add(b, "{", 1);
			for (n = 0; n < c->nr_exits; n++) {
				jbuf_printf(b, "\"%zu\":", c->exits[n].reason);
				jbuf_double(b, c->exits[n].count);
				jbuf_add(b, ",", 1);
			}
			close_with(b, '}');
			jbuf_puts(b, "},");
		}
		close_with(b, ']');
		jbuf_puts(b, "},");
	}
	close_with(b, ']');
	jbuf_add(b, "}", 1);
}

int dash_charts_json(struct jbuf *out, const struct dash_run *runs, size_t nr,
		     const struct dash_opts *o, char *err, size_t errlen)
{
	struct summary **s;
	struct diff *d = NULL;
	size_t i, nr_selected = 0;
	int rc = 0;

	if (!nr) {
		snprintf(err, errlen, "no capture given");
		return -EINVAL;
	}
	s = calloc(nr, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		s[i] = summary__new(runs[i].trace, &o->window, err, errlen);
		if (!s[i]) {
			rc = errno ? -errno : -EINVAL;
			goto out;
		}
		tasksel_keep_rows(runs[i].sel, s[i]);	/* -t: every view below shows these */
	}
	jbuf_add(out, "{", 1);
	emit_common(out, "charts", o);
	key(out, "runs");
	jbuf_add(out, "[", 1);
	for (i = 0; i < nr; i++) {
		rc = emit_charts_run(out, &runs[i], s[i], &nr_selected);
		if (rc)
			goto out;
		jbuf_add(out, ",", 1);
	}
	close_with(out, ']');
	if (nr > 1) {
		d = diff__new((const struct summary *const *)s, nr, err, errlen);
		if (!d) {
			rc = errno ? -errno : -ENOMEM;
			goto out;
		}
		jbuf_add(out, ",", 1);
		key(out, "delta");
		emit_delta(out, d);
	}
	jbuf_add(out, "}", 1);
	if (!nr_selected) {
		no_rows(&runs[0], s[0], err, errlen);
		rc = -ENOENT;
	} else if (out->err) {
		snprintf(err, errlen, "out of memory building the page data");
		rc = out->err;
	}
out:
	diff__free(d);
	for (i = 0; i < nr; i++)
		summary__free(s[i]);
	free(s);
	return rc;
}

/* ---- heatmaps ---- */

/*
 * Records of the window are bucketed per task group as 32-bit indices into the trace's
 * streams (4 bytes a record, whatever the capture's size). A series with at most max_points
 * points is embedded whole, in time order; a larger one as the occupied cells of a grid of
 * HM_GRID_COLS time columns by HM_GRID_RPD rows per decade of nanoseconds, with their counts.
 */
struct hm_ctx {
	const struct trace *t;
	const struct tasksel *sel;	/* -t; NULL all */
	int32_t *group_of;		/* per trace->tasks entry: group index or -1 */
	char (*groups)[PWZ_NAME_MAX];	/* group names */
	size_t nr_groups;
	uint64_t ws, we;		/* the window */
	size_t max_points;
};

/* The group of the instance of tid alive at time_ns (model.h R8), -1 for none. */
static int32_t hm_group(const struct hm_ctx *h, uint32_t tid, uint64_t time_ns)
{
	const struct pwz_task *pt = trace__task_at(h->t, tid, time_ns);

	return pt ? h->group_of[pt - h->t->tasks] : -1;
}

/* Per group [first, end) ranges into one index array: a counting sort by group. */
struct hm_bucket {
	uint32_t *idx;			/* stream indices, grouped, in stream order within a group */
	size_t *first;			/* nr_groups + 1 entries */
	size_t n;
};

static void hm_bucket_free(struct hm_bucket *b)
{
	free(b->idx);
	free(b->first);
}

/* grp[i] is the group of stream record i or -1 (not selected). */
static int hm_bucket_fill(struct hm_bucket *b, const int32_t *grp, size_t nrec, size_t nr_groups)
{
	size_t i, *pos;

	b->first = calloc(nr_groups + 2, sizeof(*b->first));
	if (!b->first)
		return -ENOMEM;
	for (i = 0; i < nrec; i++)
		if (grp[i] >= 0)
			b->first[grp[i] + 1]++;
	for (i = 0; i < nr_groups; i++)
		b->first[i + 1] += b->first[i];
	b->n = b->first[nr_groups];
	b->idx = malloc((b->n + 1) * sizeof(*b->idx));
	pos = malloc((nr_groups + 1) * sizeof(*pos));
	if (!b->idx || !pos) {
		free(pos);
		return -ENOMEM;
	}
	memcpy(pos, b->first, nr_groups * sizeof(*pos));
	for (i = 0; i < nrec; i++)
		if (grp[i] >= 0)
			b->idx[pos[grp[i]]++] = (uint32_t)i;
	free(pos);
	return 0;
}

/* A time-ordered point of a series being emitted whole. */
struct hm_pt {
	uint64_t t;
	uint64_t v[4];
};

/* Groups n points by their class in v[1] (0, 1, 2: SLEEP_NR classes), in place and in one
 * pass (the order within a class is not kept: each series is sorted when emitted); end[k]
 * is where class k ends. */
static void hm_partition3(struct hm_pt *pt, size_t n, size_t end[SLEEP_NR])
{
	size_t lo = 0, mid = 0, hi = n;

	_Static_assert(SLEEP_NR == 3, "three sleep classes");
	while (mid < hi) {
		struct hm_pt tmp;

		if (pt[mid].v[1] == 0) {
			tmp = pt[lo], pt[lo] = pt[mid], pt[mid] = tmp;
			lo++, mid++;
		} else if (pt[mid].v[1] == 1) {
			mid++;
		} else {
			hi--;
			tmp = pt[hi], pt[hi] = pt[mid], pt[mid] = tmp;
		}
	}
	end[0] = lo, end[1] = mid, end[2] = n;
}

static int cmp_pt(const void *a, const void *b)
{
	const struct hm_pt *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static uint32_t hm_cell(const struct hm_ctx *h, uint64_t t, uint64_t v)
{
	uint64_t span = h->we > h->ws ? h->we - h->ws : 1;
	uint64_t col = t <= h->ws ? 0 : (t - h->ws) * HM_GRID_COLS / span;
	int row = v ? (int)(log10((double)v) * HM_GRID_RPD) : 0;

	if (col >= HM_GRID_COLS)
		col = HM_GRID_COLS - 1;
	if (row < 0)
		row = 0;
	if (row >= (int)HM_GRID_ROWS)
		row = (int)HM_GRID_ROWS - 1;
	return (uint32_t)col * HM_GRID_ROWS + (uint32_t)row;
}

/*
 * "name":{"k":[cell keys, delta-encoded],"c":[points in the cell]}, from n unsorted keys (keys
 * is scratch: overwritten); cnt is HM_GRID_COLS * HM_GRID_ROWS zeroed counters, left zeroed.
 * Few keys (a reason's exits, a sparse series) are sorted rather than every cell scanned.
 */
static void emit_bins(struct jbuf *b, const char *name, uint32_t *keys, size_t n, uint32_t *cnt)
{
	const uint32_t ncell = HM_GRID_COLS * HM_GRID_ROWS, seen = 0x80000000u;
	uint32_t prev = 0, c;
	size_t i, d = 0;

	for (i = 0; i < n; i++)
		cnt[keys[i]]++;
	key(b, name);
	jbuf_puts(b, "{\"k\":[");
	if (n < ncell / 8) {
		/* the distinct cells, each once (marked in cnt's top bit), in order */
		for (i = 0; i < n; i++)
			if (!(cnt[keys[i]] & seen)) {
				cnt[keys[i]] |= seen;
				keys[d++] = keys[i];
			}
		qsort(keys, d, sizeof(*keys), u32_cmp);
		for (i = 0; i < d; i++) {
			jbuf_u64(b, keys[i] - prev);
			jbuf_add(b, ",", 1);
			prev = keys[i];
		}
		close_with(b, ']');
		jbuf_puts(b, ",\"c\":[");
		for (i = 0; i < d; i++) {
			jbuf_u64(b, cnt[keys[i]] & ~seen);
			jbuf_add(b, ",", 1);
			cnt[keys[i]] = 0;
		}
		close_with(b, ']');
		jbuf_puts(b, "},");
		return;
	}
	for (c = 0; c < ncell; c++)
		if (cnt[c]) {
			jbuf_u64(b, c - prev);
			jbuf_add(b, ",", 1);
			prev = c;
		}
	close_with(b, ']');
	jbuf_puts(b, ",\"c\":[");
	for (c = 0; c < ncell; c++)
		if (cnt[c]) {
			jbuf_u64(b, cnt[c]);
			jbuf_add(b, ",", 1);
			cnt[c] = 0;
		}
	close_with(b, ']');
	jbuf_puts(b, "},");
}

/*
 * Emits one series: "name":{"n":N,"t":[..delta..],"<v0>":[..],...} when N <= max_points, else
 * "name":{"n":N,"bins_<v0>":{k,c},...} for the value fields listed in bin_of (a NULL entry:
 * that field is not binned: per-point detail such as the CPU).
 */
static int emit_hm_series(struct jbuf *b, const struct hm_ctx *h, const char *name,
			  struct hm_pt *pt, size_t n, const char *const *fields, size_t nf,
			  const bool *binned_field, uint32_t *keys, uint32_t *cnt)
{
	size_t i, f;

	key(b, name);
	jbuf_add(b, "{", 1);
	kv_u64(b, "n", n);
	if (n <= h->max_points) {
		uint64_t prev = 0;

		qsort(pt, n, sizeof(*pt), cmp_pt);
		jbuf_puts(b, "\"t\":[");
		for (i = 0; i < n; i++) {
			jbuf_u64(b, pt[i].t - prev);
			jbuf_add(b, ",", 1);
			prev = pt[i].t;
		}
		close_with(b, ']');
		jbuf_add(b, ",", 1);
		for (f = 0; f < nf; f++) {
			key(b, fields[f]);
			jbuf_add(b, "[", 1);
			for (i = 0; i < n; i++) {
				jbuf_u64(b, pt[i].v[f]);
				jbuf_add(b, ",", 1);
			}
			close_with(b, ']');
			jbuf_add(b, ",", 1);
		}
	} else {
		for (f = 0; f < nf; f++) {
			char bname[32];

			if (!binned_field[f])
				continue;
			for (i = 0; i < n; i++)
				keys[i] = hm_cell(h, pt[i].t, pt[i].v[f]);
			snprintf(bname, sizeof(bname), "bins_%s", fields[f]);
			emit_bins(b, bname, keys, n, cnt);
		}
	}
	close_with(b, '}');
	jbuf_add(b, ",", 1);
	return b->err;
}

/* Sorts a group's slice indices by (tid, start) unless they already are. */
static int cmp_slice_tid(const void *a, const void *b, void *arg)
{
	const struct pwz_slice *base = arg;
	const struct pwz_slice *x = &base[*(const uint32_t *)a];
	const struct pwz_slice *y = &base[*(const uint32_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void hm_sort_by_tid(const struct trace *t, uint32_t *idx, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++) {
		const struct pwz_slice *a = &t->slices[idx[i - 1]], *b = &t->slices[idx[i]];

		if (a->tid > b->tid || (a->tid == b->tid && a->start_ns > b->start_ns))
			break;
	}
	if (i >= n)
		return;
	qsort_r(idx, n, sizeof(*idx), cmp_slice_tid, t->slices);
}

/* Core locality when slices are binned: per core and column, the busiest group and busy ns. */
struct hm_lanes {
	uint32_t cols;
	uint64_t *busy;			/* ncpu * cols: ns of selected slices */
	uint64_t *best;			/* ncpu * cols: ns of the busiest group so far */
	uint32_t *bestg;		/* its group */
	uint64_t *cur;			/* ncpu * cols: ns of the group being added */
	uint32_t ncpu;
};

/* Adds the time of [a, z) (inside the window) to the columns of row (cols columns). */
static void hm_cols_add(uint64_t *row, uint32_t cols, const struct hm_ctx *h, uint64_t a,
			uint64_t z)
{
	uint64_t span = h->we - h->ws, c0, c1, c;

	if (z <= a)
		return;
	c0 = (a - h->ws) * cols / span;
	c1 = (z - 1 - h->ws) * cols / span;
	for (c = c0; c <= c1 && c < cols; c++) {
		uint64_t cs = h->ws + c * span / cols, ce = h->ws + (c + 1) * span / cols;
		uint64_t s = a > cs ? a : cs, e = z < ce ? z : ce;

		if (e > s)
			row[c] += e - s;
	}
}

static void hm_lanes_add(struct hm_lanes *l, const struct hm_ctx *h, uint32_t cpu, uint64_t a,
			 uint64_t z)
{
	if (cpu < l->ncpu)
		hm_cols_add(l->cur + (size_t)cpu * l->cols, l->cols, h, a, z);
}

/* Columns per core of the locality summaries: HM_LANE_COLS, fewer on very large machines
 * (at most 2^19 cells in all, never under 256 columns). */
static uint32_t hm_lane_cols(uint32_t ncpu)
{
	uint32_t cols = HM_LANE_COLS;

	if (ncpu > (1u << 19) / HM_LANE_COLS)
		cols = (1u << 19) / ncpu;
	return cols < 256 ? 256 : cols;
}

/*
 * "others":{"cols":C,"cores":[{"k":[column, delta-encoded],"b":[busy ns]}...]}: per core and
 * column, the time of the threads -t left out (never the idle tasks), so that the per-CPU
 * timeline can show every thread: the selected ones drawn, the rest as one "other" fill.
 * Emits nothing when -t selects every thread that ran in the window. Returns 0 or -ENOMEM.
 */
static int hm_emit_others(struct jbuf *b, const struct hm_ctx *h, uint32_t ncpu,
			  const struct model_window *win)
{
	const struct trace *t = h->t;
	uint32_t cols = hm_lane_cols(ncpu), cpu, c;
	uint64_t *o = NULL;
	size_t i;

	for (i = 0; i < t->nr_slices; i++) {
		const struct pwz_slice *x = &t->slices[i];
		uint64_t a, in;

		if (x->tid == 0 || x->cpu >= ncpu ||
		    hm_group(h, x->tid, x->start_ns + x->dur_ns) >= 0)
			continue;
		in = model_slice_run_in(x, win);
		if (!in)
			continue;
		if (!o) {
			o = calloc((size_t)ncpu * cols, sizeof(*o));
			if (!o)
				return -ENOMEM;
		}
		a = x->start_ns < h->ws ? h->ws : x->start_ns;
		hm_cols_add(o + (size_t)x->cpu * cols, cols, h, a, a + in);
	}
	if (!o)
		return 0;
	jbuf_puts(b, ",\"others\":");
	jbuf_printf(b, "{\"cols\":%u,\"cores\":[", cols);
	for (cpu = 0; cpu < ncpu; cpu++) {
		const uint64_t *row = o + (size_t)cpu * cols;
		uint32_t prev = 0;

		jbuf_puts(b, "{\"k\":[");
		for (c = 0; c < cols; c++)
			if (row[c]) {
				jbuf_printf(b, "%u,", c - prev);
				prev = c;
			}
		close_with(b, ']');
		jbuf_puts(b, ",\"b\":[");
		for (c = 0; c < cols; c++)
			if (row[c]) {
				jbuf_u64(b, row[c]);
				jbuf_add(b, ",", 1);
			}
		close_with(b, ']');
		jbuf_puts(b, "},");
	}
	close_with(b, ']');
	jbuf_add(b, "}", 1);
	free(o);
	return b->err;
}

static void hm_lanes_fold(struct hm_lanes *l, uint32_t g)
{
	size_t i, n = (size_t)l->ncpu * l->cols;

	for (i = 0; i < n; i++) {
		if (!l->cur[i])
			continue;
		l->busy[i] += l->cur[i];
		if (l->cur[i] > l->best[i]) {
			l->best[i] = l->cur[i];
			l->bestg[i] = g;
		}
		l->cur[i] = 0;
	}
}

static void hm_lanes_emit(struct jbuf *b, const struct hm_lanes *l)
{
	uint32_t cpu, c;

	key(b, "lanes");
	jbuf_printf(b, "{\"cols\":%u,\"cores\":[", l->cols);
	for (cpu = 0; cpu < l->ncpu; cpu++) {
		const size_t o = (size_t)cpu * l->cols;
		uint32_t prev = 0;

		jbuf_puts(b, "{\"k\":[");
		for (c = 0; c < l->cols; c++)
			if (l->busy[o + c]) {
				jbuf_printf(b, "%u,", c - prev);
				prev = c;
			}
		close_with(b, ']');
		jbuf_puts(b, ",\"g\":[");
		for (c = 0; c < l->cols; c++)
			if (l->busy[o + c])
				jbuf_printf(b, "%u,", l->bestg[o + c]);
		close_with(b, ']');
		jbuf_puts(b, ",\"b\":[");
		for (c = 0; c < l->cols; c++)
			if (l->busy[o + c]) {
				jbuf_u64(b, l->busy[o + c]);
				jbuf_add(b, ",", 1);
			}
		close_with(b, ']');
		jbuf_puts(b, "},");
	}
	close_with(b, ']');
	jbuf_puts(b, "}");
}

/* The task's name and its index in trace->tasks, to sort the tasks by name. */
struct hm_named {
	const char *name;
	size_t task;
	size_t group;		/* the provisional group id, while renumbering */
};

static int cmp_named(const void *a, const void *b)
{
	const struct hm_named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->task < y->task ? -1 : x->task > y->task);
}

static int cmp_first_task(const void *a, const void *b)
{
	const struct hm_named *x = a, *y = b;

	return x->task < y->task ? -1 : x->task > y->task;
}

/*
 * Groups the selected tasks by display name: group_of[i] for each task, groups[] in the
 * order of each name's first task. Sorting the names makes it O(n log n) for any number
 * of distinct names (a linear search per task was quadratic). Returns 0 or -ENOMEM.
 */
static int hm_make_groups(struct hm_ctx *h, const struct dash_opts *o)
{
	struct task_label_opts lo = { .merge_sys = o->window.merge_sys,
				      .append_tid = o->window.append_tid };
	const struct trace *t = h->t;
	char (*names)[PWZ_NAME_MAX] = malloc((t->nr_tasks + 1) * sizeof(*names));
	struct hm_named *v = malloc((t->nr_tasks + 1) * sizeof(*v));
	size_t i, n = 0, g = 0;

	if (!names || !v) {
		free(names);
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < t->nr_tasks; i++) {
		h->group_of[i] = -1;
		if (t->tasks[i].tid == 0)
			continue;	/* the idle tasks: idle time is where no slice is drawn */
		if (!tasksel_has(h->sel, t->tasks[i].tid, t->tasks[i].since_ns))
			continue;
		task_label(&t->tasks[i], &lo, names[i], sizeof(names[i]));
		v[n++] = (struct hm_named){ .name = names[i], .task = i };
	}
	qsort(v, n, sizeof(*v), cmp_named);
	/* v[g] becomes each distinct name's first task; its tasks point at it for now */
	for (i = 0; i < n; i++) {
		if (i && !strcmp(v[i].name, v[g - 1].name)) {
			h->group_of[v[i].task] = (int32_t)(g - 1);
			continue;
		}
		h->group_of[v[i].task] = (int32_t)g;
		v[g++] = v[i];
	}
	/* number the groups in order of their first task, as a linear scan would */
	for (i = 0; i < g; i++)
		v[i].group = i;
	qsort(v, g, sizeof(*v), cmp_first_task);
	{
		int32_t *final = malloc((g + 1) * sizeof(*final));

		if (!final) {
			free(names);
			free(v);
			return -ENOMEM;
		}
		for (i = 0; i < g; i++) {
			final[v[i].group] = (int32_t)i;
			memcpy(h->groups[i], names[v[i].task], sizeof(names[0]));
		}
		for (i = 0; i < t->nr_tasks; i++)
			if (h->group_of[i] >= 0)
				h->group_of[i] = final[h->group_of[i]];
		free(final);
	}
	h->nr_groups = g;
	free(names);
	free(v);
	return 0;
}

/* The task indices of each group: (*idx)[(*first)[g] .. (*first)[g + 1]), in task order. */
static int hm_tasks_by_group(const struct hm_ctx *h, size_t **first, size_t **idx)
{
	size_t i, *pos;

	*first = calloc(h->nr_groups + 2, sizeof(**first));
	*idx = malloc((h->t->nr_tasks + 1) * sizeof(**idx));
	pos = malloc((h->nr_groups + 1) * sizeof(*pos));
	if (!*first || !*idx || !pos) {
		free(pos);
		return -ENOMEM;
	}
	for (i = 0; i < h->t->nr_tasks; i++)
		if (h->group_of[i] >= 0)
			(*first)[h->group_of[i] + 1]++;
	for (i = 0; i < h->nr_groups; i++)
		(*first)[i + 1] += (*first)[i];
	memcpy(pos, *first, h->nr_groups * sizeof(*pos));
	for (i = 0; i < h->t->nr_tasks; i++)
		if (h->group_of[i] >= 0)
			(*idx)[pos[h->group_of[i]]++] = i;
	free(pos);
	return 0;
}

/*
 * A group's exits as grids by reason: "exits":{"n":N,"by_reason":[{"r":reason index or -1 for
 * the rest,"n":exits,"bins_g":{k,c},"bins_h":{k,c}}...]}. pt[i].v = {guest, handling, reason};
 * rslot[reason] is its grid (0..nser-1, the last holding the rest when rest), rank[j] the
 * reason of grid j, count[j] its exits.
 */
static int hm_emit_exit_grids(struct jbuf *b, const struct hm_ctx *h, const struct hm_pt *pt,
			      size_t n, const uint32_t *rank, const uint32_t *rslot,
			      const uint64_t *count, size_t nser, bool rest, uint32_t *keys,
			      uint32_t *cnt)
{
	static const char *const bname[2] = { "bins_g", "bins_h" };
	size_t i, j, m;
	int f;

	key(b, "exits");
	jbuf_add(b, "{", 1);
	kv_u64(b, "n", n);
	key(b, "by_reason");
	jbuf_add(b, "[", 1);
	for (j = 0; j < nser; j++) {
		if (rest && j == nser - 1)
			jbuf_puts(b, "{\"r\":-1,");
		else
			jbuf_printf(b, "{\"r\":%u,", rank[j]);
		kv_u64(b, "n", count[j]);
		for (f = 0; f < 2; f++) {
			for (i = 0, m = 0; i < n; i++)
				if (rslot[pt[i].v[2]] == j)
					keys[m++] = hm_cell(h, pt[i].t, pt[i].v[f]);
			emit_bins(b, bname[f], keys, m, cnt);
		}
		close_with(b, '}');
		jbuf_add(b, ",", 1);
	}
	close_with(b, ']');
	close_with(b, '}');
	jbuf_add(b, ",", 1);
	return b->err;
}

/* A reason of the group being emitted: its exits there, and its index in the page's reasons. */
struct hm_reason {
	struct exitroll_entry ex;	/* count: the group's exits of the reason */
	uint32_t r;			/* its index in struct hm_work's rs */
};

/* What the heatmaps are built from: the window's records per group and the scratch to emit. */
struct hm_work {
	struct hm_ctx h;
	struct summary *s;
	struct model_window win;	/* the window as summary__new() folds it */
	bool states;			/* sleeps told apart by state (has_prev_state) */
	struct hm_bucket bs, bw, be;	/* per group: all slices, the window's wakeups, exits */
	struct exitroll rs;		/* the exit reasons present, sorted by (isa, code): the
					 * page's reason indices */
	size_t *gt_first, *gt_idx;	/* the tasks of each group, hm_tasks_by_group() */
	uint32_t *tpos;			/* per trace->tasks entry: its index in its group's tids */
	struct hm_pt *pt;		/* scratch: a series' points, sized for the largest group */
	uint32_t *keys;			/* scratch: cell keys, as many */
	uint32_t *cnt;			/* HM_GRID_COLS * HM_GRID_ROWS counters, left zeroed */
	struct exitroll grp;		/* scratch: the current group's exits by reason, struct
					 * hm_reason entries */
	uint32_t *rank, *rslot;		/* a group's reasons by count; reason -> grid */
	struct hm_lanes lanes;		/* core locality; lanes.cur NULL when nothing is binned */
};

/* Frees what w holds (w itself is the caller's). */
static void hm_work_free(struct hm_work *w)
{
	exitroll_free(&w->rs);
	exitroll_free(&w->grp);
	free(w->tpos);
	free(w->gt_first);
	free(w->gt_idx);
	free(w->pt);
	free(w->keys);
	free(w->rank);
	free(w->rslot);
	free(w->cnt);
	free(w->lanes.busy); free(w->lanes.best); free(w->lanes.cur); free(w->lanes.bestg);
	hm_bucket_free(&w->bs);
	hm_bucket_free(&w->bw);
	hm_bucket_free(&w->be);
	free(w->h.group_of);
	free(w->h.groups);
	summary__free(w->s);
}

/* Buckets the selected records per group: all slices (sleeps need the neighbours), the
 * wakeups and exits of the window. Returns 0 or -ENOMEM. */
static int hm_bucket_streams(struct hm_work *w)
{
	const struct trace *t = w->h.t;
	size_t nmax = t->nr_slices, i;
	int32_t *grp;
	int rc = -ENOMEM;

	if (t->nr_wakeups > nmax)
		nmax = t->nr_wakeups;
	if (t->nr_exits > nmax)
		nmax = t->nr_exits;
	grp = malloc((nmax + 1) * sizeof(*grp));
	if (!grp)
		return -ENOMEM;
	for (i = 0; i < t->nr_slices; i++)
		grp[i] = hm_group(&w->h, t->slices[i].tid,
				  t->slices[i].start_ns + t->slices[i].dur_ns);
	if (hm_bucket_fill(&w->bs, grp, t->nr_slices, w->h.nr_groups))
		goto free_grp;
	for (i = 0; i < t->nr_wakeups; i++) {
		const struct pwz_wakeup *x = &t->wakeups[i];

		grp[i] = model_wait_in(x, &w->win) ? hm_group(&w->h, x->tid, x->wake_ns + x->wait_ns)
						   : -1;
	}
	if (hm_bucket_fill(&w->bw, grp, t->nr_wakeups, w->h.nr_groups))
		goto free_grp;
	for (i = 0; i < t->nr_exits; i++) {
		const struct pwz_kvm_exit *x = &t->exits[i];

		grp[i] = model_exit_in(x, &w->win) ? hm_group(&w->h, x->tid, x->time_ns) : -1;
	}
	if (hm_bucket_fill(&w->be, grp, t->nr_exits, w->h.nr_groups))
		goto free_grp;
	rc = 0;
free_grp:
	free(grp);
	return rc;
}

/* The exit reasons of the bucketed exits (w->rs), in (isa, code) order. Returns 0 or
 * -ENOMEM. */
static int hm_collect_reasons(struct hm_work *w)
{
	const struct trace *t = w->h.t;

	for (size_t i = 0; i < w->be.n; i++) {
		const struct pwz_kvm_exit *x = &t->exits[w->be.idx[i]];
		struct exitroll_entry *e = exitroll_get(&w->rs, x->isa, x->reason, NULL);

		if (!e)
			return -ENOMEM;
		if (!e->count++)
			e->name = pwz_meta_exit_name(&t->meta, x->isa, x->reason);
	}
	exitroll_sort_by_code(&w->rs);
	return 0;
}

/* The tasks of each group, for its "tids", and each task's place in its group's (w->tpos).
 * Returns 0 or -ENOMEM. */
static int hm_place_tasks(struct hm_work *w)
{
	size_t g, i;

	if (hm_tasks_by_group(&w->h, &w->gt_first, &w->gt_idx))
		return -ENOMEM;
	w->tpos = calloc(w->h.t->nr_tasks + 1, sizeof(*w->tpos));
	if (!w->tpos)
		return -ENOMEM;
	for (g = 0; g < w->h.nr_groups; g++)
		for (i = w->gt_first[g]; i < w->gt_first[g + 1]; i++)
			w->tpos[w->gt_idx[i]] = (uint32_t)(i - w->gt_first[g]);
	return 0;
}

/* The scratch sized for the largest group, and the core lanes when a group's slices are
 * binned. Returns 0 or -ENOMEM. */
static int hm_alloc_scratch(struct hm_work *w)
{
	struct hm_lanes *l = &w->lanes;
	bool any_binned = false;
	size_t nmax = 1, g, cells;

	for (g = 0; g < w->h.nr_groups; g++) {
		size_t a = w->bs.first[g + 1] - w->bs.first[g], b = w->bw.first[g + 1] - w->bw.first[g],
		       c = w->be.first[g + 1] - w->be.first[g];

		if (a > nmax) nmax = a;
		if (b > nmax) nmax = b;
		if (c > nmax) nmax = c;
		if (a > w->h.max_points)
			any_binned = true;
	}
	w->pt = malloc(nmax * sizeof(*w->pt));
	w->keys = malloc(nmax * sizeof(*w->keys));
	w->rank = calloc(w->rs.n + 1, sizeof(*w->rank));
	w->rslot = calloc(w->rs.n + 1, sizeof(*w->rslot));
	w->cnt = calloc((size_t)HM_GRID_COLS * HM_GRID_ROWS, sizeof(*w->cnt));
	exitroll_init(&w->grp, sizeof(struct hm_reason));
	if (!w->pt || !w->keys || !w->cnt || !w->rank || !w->rslot)
		return -ENOMEM;
	if (!any_binned)
		return 0;
	l->ncpu = w->s->nr_cpus ? w->s->nr_cpus : 1;
	l->cols = hm_lane_cols(l->ncpu);
	cells = (size_t)l->ncpu * l->cols;
	l->busy = calloc(cells, sizeof(uint64_t));
	l->best = calloc(cells, sizeof(uint64_t));
	l->cur = calloc(cells, sizeof(uint64_t));
	l->bestg = calloc(cells, sizeof(uint32_t));
	if (!l->busy || !l->best || !l->cur || !l->bestg)
		return -ENOMEM;
	return 0;
}

/* Opens the page's object and emits what precedes "tasks": the run, the grid, the reasons. */
static void hm_emit_head(struct jbuf *out, const struct hm_work *w, const struct dash_run *run,
			 const struct dash_opts *o)
{
	size_t k;

	jbuf_add(out, "{", 1);
	emit_common(out, "heatmaps", o);
	key(out, "run");
	jbuf_add(out, "{", 1);
	emit_run_head(out, run, w->s);
	close_with(out, '}');
	jbuf_add(out, ",", 1);
	/* sleeps split by the state slept in (sleeps.h): "sleeps" (S), "sleeps_d", "sleeps_o" */
	kv_bool(out, "sleep_states", w->states);
	jbuf_printf(out, "\"max_points\":%zu,\"grid\":{\"cols\":%u,\"rpd\":%u,\"rows\":%u},",
		    w->h.max_points, HM_GRID_COLS, HM_GRID_RPD, HM_GRID_ROWS);
	key(out, "reasons");
	jbuf_add(out, "[", 1);
	for (k = 0; k < w->rs.n; k++) {
		const struct exitroll_entry *r = exitroll_at(&w->rs, k);

		jbuf_printf(out, "{\"isa\":%u,\"code\":%u,\"count\":%llu,\"name\":", r->isa, r->code,
			    (unsigned long long)r->count);
		if (r->name)
			jbuf_json_str(out, r->name, (size_t)-1);
		else
			jbuf_puts(out, "null");
		jbuf_puts(out, "},");
	}
	close_with(out, ']');
	jbuf_add(out, ",", 1);
}

/* The sleeps of a group's n slices idx (sorted here by tid): the gap after a slice that ended
 * voluntarily (or unknown, legacy); with prev_state reported, one series per state class
 * (sleeps.h): S, D, other. Returns out->err. */
static int hm_emit_sleeps(struct jbuf *out, const struct hm_work *w, uint32_t *idx, size_t n)
{
	static const char *const sname[SLEEP_NR] = { "sleeps", "sleeps_d", "sleeps_o" };
	static const char *const wt_f[] = { "d" };
	static const bool wt_b[] = { true };
	const struct trace *t = w->h.t;
	size_t i, k, np, cls_end[SLEEP_NR];

	hm_sort_by_tid(t, idx, n);
	for (i = 0, np = 0; i + 1 < n; i++) {
		const struct pwz_slice *a = &t->slices[idx[i]], *b = &t->slices[idx[i + 1]];
		uint64_t end = a->start_ns + a->dur_ns;

		if (a->tid != b->tid)
			continue;
		if (a->end != PWZ_END_SLEPT && a->end != PWZ_END_UNKNOWN)
			continue;
		if (b->start_ns < end || end < w->h.ws || end >= w->h.we)
			continue;
		w->pt[np++] = (struct hm_pt){ .t = end, .v = { b->start_ns - end,
			w->states ? (uint64_t)sleep_class_of(pwz_slice_state(a)) : 0 } };
	}
	/* one pass over the slices, then the points grouped by class in place */
	hm_partition3(w->pt, np, cls_end);
	for (k = 0; k < (w->states ? SLEEP_NR : 1); k++) {
		size_t from = k ? cls_end[k - 1] : 0;

		if (emit_hm_series(out, &w->h, sname[k], w->pt + from, cls_end[k] - from, wt_f, 1,
				   wt_b, w->keys, w->cnt))
			break;
	}
	return out->err;
}

/* Group g's slices (its n slices idx) overlapping the window, clipped to it (model.h R6);
 * the time of slices whose switch-in was unseen (R2) is kept apart, as --list keeps it.
 * Adds them to the core lanes when those are kept. Returns out->err. */
static int hm_emit_slices(struct jbuf *out, struct hm_work *w, size_t g, const uint32_t *idx,
			  size_t n, struct trace_task_cache *tc)
{
	static const char *const sl_f[] = { "d", "c", "e", "p" };
	static const bool sl_b[] = { true, false, false, false };
	const struct trace *t = w->h.t;
	uint64_t ns = 0, uns = 0;
	size_t i, np = 0;

	for (i = 0; i < n; i++) {
		const struct pwz_slice *x = &t->slices[idx[i]];
		uint64_t a, z, in = model_slice_run_in(x, &w->win);
		const struct pwz_task *who;	/* the thread instance (R8), for "p" */

		if (!in && !(x->dur_ns == 0 && x->start_ns >= w->h.ws && x->start_ns < w->h.we))
			continue;
		a = x->start_ns < w->h.ws ? w->h.ws : x->start_ns;
		z = a + in;
		who = trace__task_at_cached(t, tc, x->tid, x->start_ns + x->dur_ns);
		w->pt[np++] = (struct hm_pt){ .t = a, .v = { z - a, x->cpu, x->end,
							who ? w->tpos[who - t->tasks] : 0 } };
		if (x->flags & PWZ_SLICE_UNSEEN_START)
			uns += in;
		else
			ns += in;
		if (w->lanes.cur)
			hm_lanes_add(&w->lanes, &w->h, x->cpu, a, z);
	}
	if (w->lanes.cur)
		hm_lanes_fold(&w->lanes, (uint32_t)g);
	kv_u64(out, "slices_ns", ns);
	kv_u64(out, "unseen_ns", uns);
	/* "p": the slice's thread as an index in "tids", when the name has several */
	return emit_hm_series(out, &w->h, "slices", w->pt, np, sl_f,
			      w->gt_first[g + 1] - w->gt_first[g] > 1 ? 4 : 3, sl_b, w->keys,
			      w->cnt);
}

/* Group g's waits: "c" the CPU it waited for, "p" its thread (as for slices). Returns
 * out->err. */
static int hm_emit_waits(struct jbuf *out, struct hm_work *w, size_t g,
			 struct trace_task_cache *tc)
{
	static const char *const wk_f[] = { "d", "c", "p" };
	static const bool wk_b[] = { true, false, false };
	const struct trace *t = w->h.t;
	size_t i, n = w->bw.first[g + 1] - w->bw.first[g];

	for (i = 0; i < n; i++) {
		const struct pwz_wakeup *x = &t->wakeups[w->bw.idx[w->bw.first[g] + i]];
		const struct pwz_task *who = trace__task_at_cached(t, tc, x->tid,
								   x->wake_ns + x->wait_ns);

		w->pt[i] = (struct hm_pt){ .t = x->wake_ns, .v = { x->wait_ns, x->cpu,
								who ? w->tpos[who - t->tasks] : 0 } };
	}
	return emit_hm_series(out, &w->h, "waits", w->pt, n, wk_f,
			      w->gt_first[g + 1] - w->gt_first[g] > 1 ? 3 : 2, wk_b, w->keys,
			      w->cnt);
}

/* Ranks the reasons of a group (w->grp) by count (exitroll_sort_by_count()) into w->rank and
 * gives each its grid (w->rslot): the HM_EXIT_REASONS most frequent one each, the rest one
 * together; sercount[j] the exits of grid j. Returns the number of grids. */
static size_t hm_rank_reasons(struct hm_work *w, uint64_t sercount[HM_EXIT_REASONS + 1])
{
	size_t i, nt = w->grp.n, nser = nt <= HM_EXIT_REASONS + 1 ? nt : HM_EXIT_REASONS + 1;

	exitroll_sort_by_count(&w->grp);
	memset(sercount, 0, (HM_EXIT_REASONS + 1) * sizeof(*sercount));
	for (i = 0; i < nt; i++) {
		const struct hm_reason *e = (const struct hm_reason *)exitroll_at(&w->grp, i);
		size_t j = i < nser ? i : nser - 1;

		w->rank[i] = e->r;
		w->rslot[e->r] = (uint32_t)j;
		sercount[j] += e->ex.count;
	}
	return nser;
}

/* Group g's "exit_reasons" ([reason index, exits] pairs) and its exits: whole, or as one grid
 * per reason past max_points. Only the reasons this group has are touched: groups x reasons
 * never occurs. Returns out->err. */
static int hm_emit_exits(struct jbuf *out, struct hm_work *w, size_t g)
{
	static const char *const ex_f[] = { "g", "h", "r" };
	static const bool ex_b[] = { true, true, false };
	const struct trace *t = w->h.t;
	uint64_t sercount[HM_EXIT_REASONS + 1];	/* exits in each grid of the group */
	size_t i, nser = 0, n = w->be.first[g + 1] - w->be.first[g];

	exitroll_clear(&w->grp);
	for (i = 0; i < n; i++) {
		const struct pwz_kvm_exit *x = &t->exits[w->be.idx[w->be.first[g] + i]];
		struct hm_reason *e = (struct hm_reason *)exitroll_get(&w->grp, x->isa, x->reason,
								       NULL);

		if (!e) {
			out->err = -ENOMEM;
			return out->err;
		}
		if (!e->ex.count++)
			e->r = (uint32_t)exitroll_find(&w->rs, x->isa, x->reason);
		w->pt[i] = (struct hm_pt){ .t = x->time_ns,
					   .v = { x->guest_ns, x->handling_ns, e->r } };
	}
	exitroll_sort_by_code(&w->grp);	/* the order of the page's reason indices */
	key(out, "exit_reasons");
	jbuf_add(out, "[", 1);
	for (i = 0; i < w->grp.n; i++) {
		const struct hm_reason *e = (const struct hm_reason *)exitroll_at(&w->grp, i);

		jbuf_printf(out, "[%u,%llu],", e->r, (unsigned long long)e->ex.count);
	}
	close_with(out, ']');
	jbuf_add(out, ",", 1);
	if (n > w->h.max_points)
		nser = hm_rank_reasons(w, sercount);
	if (nser)
		return hm_emit_exit_grids(out, &w->h, w->pt, n, w->rank, w->rslot, sercount, nser,
					  w->grp.n > nser, w->keys, w->cnt);
	return emit_hm_series(out, &w->h, "exits", w->pt, n, ex_f, 3, ex_b, w->keys, w->cnt);
}

/* One entry of "tasks": group g's name, tids and series. Returns out->err. */
static int hm_emit_group(struct jbuf *out, struct hm_work *w, size_t g)
{
	uint32_t *idx = w->bs.idx + w->bs.first[g];
	size_t i, n = w->bs.first[g + 1] - w->bs.first[g];
	struct trace_task_cache tc = { 0 };

	jbuf_add(out, "{", 1);
	kv_str(out, "name", w->h.groups[g]);
	key(out, "tids");
	jbuf_add(out, "[", 1);
	for (i = w->gt_first[g]; i < w->gt_first[g + 1]; i++)
		jbuf_printf(out, "%u,", w->h.t->tasks[w->gt_idx[i]].tid);
	close_with(out, ']');
	jbuf_add(out, ",", 1);
	if (hm_emit_sleeps(out, w, idx, n) || hm_emit_slices(out, w, g, idx, n, &tc) ||
	    hm_emit_waits(out, w, g, &tc) || hm_emit_exits(out, w, g))
		return out->err;
	close_with(out, '}');
	jbuf_add(out, ",", 1);
	return out->err;
}

int dash_heatmaps_json(struct jbuf *out, const struct dash_run *run, const struct dash_opts *o,
		       char *err, size_t errlen)
{
	const struct trace *t = run->trace;
	struct hm_work w = { .h = { .t = t, .sel = run->sel } };
	struct hm_ctx *h = &w.h;
	size_t g;
	int rc;

	if (!t->nr_slices && !t->nr_exits) {
		snprintf(err, errlen,
			 "%s holds no run slices or KVM exits (an --aggregate-only capture?): nothing to draw as heatmaps",
			 t->path);
		return -ENODATA;
	}
	if (t->nr_slices > UINT32_MAX || t->nr_wakeups > UINT32_MAX || t->nr_exits > UINT32_MAX) {
		snprintf(err, errlen, "%s: more than 2^32 records in a stream: render a window (-f/-c)",
			 t->path);
		return -E2BIG;
	}
	w.s = summary__new(t, &o->window, err, errlen);
	if (!w.s)
		return errno ? -errno : -EINVAL;
	h->ws = w.s->window_start_ns;
	h->we = w.s->window_end_ns > h->ws ? w.s->window_end_ns : h->ws + 1;
	/* the window as summary__new() folds it: to the end when -c is not given */
	w.win = (struct model_window){ h->ws, o->window.cap_ns ? h->we : UINT64_MAX };
	h->max_points = o->max_points ? o->max_points : DASH_MAX_POINTS_DEFAULT;
	w.states = t->meta.has_prev_state;

	h->group_of = malloc((t->nr_tasks + 1) * sizeof(*h->group_of));
	h->groups = malloc((t->nr_tasks + 1) * sizeof(*h->groups));
	if (!h->group_of || !h->groups || hm_make_groups(h, o) || hm_bucket_streams(&w) ||
	    hm_collect_reasons(&w) || hm_place_tasks(&w) || hm_alloc_scratch(&w))
		goto nomem;

	hm_emit_head(out, &w, run, o);
	key(out, "tasks");
	jbuf_add(out, "[", 1);
	for (g = 0; g < h->nr_groups && !out->err; g++)
		if (hm_emit_group(out, &w, g))
			break;
	close_with(out, ']');
	if (w.lanes.cur) {
		jbuf_add(out, ",", 1);
		hm_lanes_emit(out, &w.lanes);
	}
	if (!out->err && h->nr_groups &&
	    hm_emit_others(out, h, w.s->nr_cpus ? w.s->nr_cpus : 1, &w.win))
		goto nomem;
	jbuf_add(out, "}", 1);

	if (!h->nr_groups) {
		no_rows(run, w.s, err, errlen);
		rc = -ENOENT;
	} else if (out->err) {
		snprintf(err, errlen, "out of memory building the page data");
		rc = out->err;
	} else {
		rc = 0;
	}
	goto free_work;
nomem:
	snprintf(err, errlen, "out of memory building the heatmaps");
	rc = -ENOMEM;
free_work:
	hm_work_free(&w);
	return rc;
}

/* ---- the page ---- */

int dash_html(struct jbuf *out, const char *kind, const char *title, const struct jbuf *json,
	      const struct dash_opts *o)
{
	size_t min = o->compress_min ? o->compress_min : DASH_COMPRESS_MIN_DEFAULT;
	bool gz = min != SIZE_MAX && json->len > min;

	if (json->err)
		return json->err;
	jbuf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		  "<meta name=\"generator\" content=\"pwz-render ");
	jbuf_html_text(out, o->version);
	jbuf_puts(out, "\">\n<title>");
	jbuf_html_text(out, title);
	jbuf_puts(out, "</title>\n<style>\n");
	jbuf_puts(out, pwz_asset_css);
	jbuf_puts(out, "</style>\n</head>\n<body data-kind=\"");
	jbuf_html_text(out, kind);
	jbuf_puts(out, "\">\n<header><h1 id=\"title\">");
	jbuf_html_text(out, title);
	jbuf_puts(out, "</h1><div id=\"warn\" class=\"warn\" hidden></div>"
		  "<nav id=\"tabs\" role=\"tablist\"></nav></header>\n"
		  "<main id=\"main\"><noscript>This dashboard needs JavaScript.</noscript></main>\n"
		  "<footer>pwz ");
	jbuf_html_text(out, o->version);
	jbuf_puts(out, " &middot; generated ");
	jbuf_html_text(out, o->date);
	jbuf_puts(out, "</footer>\n<script type=\"application/json\" id=\"pwz-data\" data-encoding=\"");
	if (gz) {
		struct jbuf z = { 0 };
		int rc;

		jbuf_puts(out, "gzip+base64\">");
		rc = jbuf_gzip(&z, json->buf, json->len);
		if (rc) {
			jbuf_free(&z);
			return rc;
		}
		jbuf_base64(out, z.buf, z.len);
		jbuf_free(&z);
	} else {
		jbuf_puts(out, "json\">");
		jbuf_add(out, json->buf, json->len);
	}
	jbuf_puts(out, "</script>\n<script>\n");
	jbuf_puts(out, pwz_asset_vms_js);	/* one script: the VMs tab first, then dash.js */
	jbuf_puts(out, pwz_asset_js);
	jbuf_puts(out, "</script>\n</body>\n</html>\n");
	return out->err;
}
