// SPDX-License-Identifier: GPL-2.0
/* The dashboards' data (JSON) and the single-file HTML pages that carry it with the chart code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dash.h"
#include "diff.h"
#include "tasknames.h"

void dash_task_name(const struct pwz_task *t, const struct summary_opts *w, char *out,
		    size_t outlen)
{
	char tmp[PWZ_NAME_MAX];
	const char *name = t->name[0] ? t->name : t->comm;

	if (w && w->merge_sys) {
		task_merge_sys_name(name, tmp, sizeof(tmp));
		name = tmp;
	}
	if (w && w->append_tid)
		snprintf(out, outlen, "%s:%u", name, t->tid);
	else
		snprintf(out, outlen, "%s", name);
}

static void key(struct jbuf *b, const char *k)
{
	jbuf_json_str(b, k, (size_t)-1);
	jbuf_add(b, ":", 1);
}

static void kv_str(struct jbuf *b, const char *k, const char *v)
{
	key(b, k);
	if (v)
		jbuf_json_str(b, v, (size_t)-1);
	else
		jbuf_puts(b, "null");
	jbuf_add(b, ",", 1);
}

static void kv_u64(struct jbuf *b, const char *k, uint64_t v)
{
	key(b, k);
	jbuf_u64(b, v);
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
	kv_str(b, "source", pwz_source_name(m->source));
	kv_u64(b, "nr_cpus", m->nr_cpus);
	kv_u64(b, "duration_ns", m->duration_ns);
	kv_u64(b, "start_wall_ns", m->start_wall_ns);
	kv_u64(b, "tracer_cpu_ns", m->tracer_cpu_ns);
	kv_u64(b, "bpf_run_ns", m->bpf_run_ns);
	kv_u64(b, "bpf_run_cnt", m->bpf_run_cnt);
	kv_bool(b, "has_switch_kind", m->has_switch_kind);
	kv_bool(b, "has_wait", m->has_wait);
	kv_bool(b, "has_kvm", m->has_kvm);
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
	kv_bool(b, "has_switch_kind", s->has_switch_kind);
	kv_bool(b, "has_wait", s->has_wait);
}

static bool task_selected(const struct dash_opts *o, const struct task_summary *ts)
{
	return !o->pattern || task_pattern_match(o->pattern, ts->name, ts->tid);
}

struct reason_acc {
	uint32_t isa, code;
	const char *name;
	uint64_t count, handling_ns;
	uint64_t hist[PWZ_HIST_BUCKETS];
};

static int cmp_reason_acc(const void *a, const void *b)
{
	const struct reason_acc *x = a, *y = b;

	if (x->isa != y->isa)
		return x->isa < y->isa ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static int emit_charts_run(struct jbuf *b, const struct dash_run *r, const struct summary *s,
			   const struct dash_opts *o, size_t *nr_selected)
{
	struct reason_acc *acc = NULL;
	size_t nr_acc = 0, i, k, n;
	uint32_t c;

	jbuf_add(b, "{", 1);
	emit_run_head(b, r, s);
	key(b, "tasks");
	jbuf_add(b, "[", 1);
	for (i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *ts = &s->tasks[i];

		if (!task_selected(o, ts))
			continue;
		(*nr_selected)++;
		jbuf_add(b, "{", 1);
		kv_u64(b, "tid", ts->tid);
		kv_u64(b, "pid", ts->pid);
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
		kv_u64(b, "exits_total", ts->exits_total);
		key(b, "cpu_runtime");
		jbuf_add(b, "[", 1);
		for (c = 0; c < s->nr_cpus; c++) {
			jbuf_u64(b, ts->cpu_runtime_ns ? ts->cpu_runtime_ns[c] : 0);
			jbuf_add(b, ",", 1);
		}
		close_with(b, ']');
		jbuf_add(b, ",", 1);
		key(b, "cpu_switches");
		jbuf_add(b, "[", 1);
		for (c = 0; c < s->nr_cpus; c++) {
			jbuf_u64(b, ts->cpu_switches ? ts->cpu_switches[c] : 0);
			jbuf_add(b, ",", 1);
		}
		close_with(b, ']');
		jbuf_add(b, ",", 1);
		key(b, "exits");
		jbuf_add(b, "[", 1);
		for (k = 0; k < ts->nr_exits; k++) {
			const struct summary_exit *e = &ts->exits[k];

			jbuf_printf(b, "[%u,%u,%llu,%llu],", e->isa, e->code,
				    (unsigned long long)e->count, (unsigned long long)e->handling_ns);
			for (n = 0; n < nr_acc; n++)
				if (acc[n].isa == e->isa && acc[n].code == e->code)
					break;
			if (n == nr_acc) {
				void *p = realloc(acc, (nr_acc + 1) * sizeof(*acc));

				if (!p) {
					free(acc);
					return -ENOMEM;
				}
				acc = p;
				memset(&acc[nr_acc], 0, sizeof(*acc));
				acc[nr_acc].isa = e->isa;
				acc[nr_acc].code = e->code;
				nr_acc++;
			}
			if (!acc[n].name)
				acc[n].name = e->name;
			acc[n].count += e->count;
			acc[n].handling_ns += e->handling_ns;
			for (c = 0; c < PWZ_HIST_BUCKETS; c++)
				acc[n].hist[c] += e->hist[c];
		}
		close_with(b, ']');
		close_with(b, '}');
		jbuf_add(b, ",", 1);
	}
	close_with(b, ']');
	jbuf_add(b, ",", 1);

	/* per reason over the selected tasks: handling-time median and p99 */
	if (nr_acc)
		qsort(acc, nr_acc, sizeof(*acc), cmp_reason_acc);
	key(b, "reasons");
	jbuf_add(b, "[", 1);
	for (n = 0; n < nr_acc; n++) {
		jbuf_add(b, "{", 1);
		kv_u64(b, "isa", acc[n].isa);
		kv_u64(b, "code", acc[n].code);
		kv_str(b, "name", acc[n].name);
		kv_u64(b, "count", acc[n].count);
		kv_u64(b, "handling_ns", acc[n].handling_ns);
		kv_u64(b, "median_ns", pwz_hist_quantile(acc[n].hist, 0.5));
		kv_u64(b, "p99_ns", pwz_hist_quantile(acc[n].hist, 0.99));
		close_with(b, '}');
		jbuf_add(b, ",", 1);
	}
	close_with(b, ']');
	close_with(b, '}');
	free(acc);
	return b->err;
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
	for (i = 0; i < d->nr_reasons; i++) {
		jbuf_printf(b, "{\"isa\":%u,\"code\":%u,\"name\":", d->reasons[i].isa,
			    d->reasons[i].code);
		if (d->reasons[i].name)
			jbuf_json_str(b, d->reasons[i].name, (size_t)-1);
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
			key(b, "exits");
			jbuf_add(b, "[", 1);
			for (n = 0; n < d->nr_reasons; n++) {
				jbuf_double(b, c->exits[n]);
				jbuf_add(b, ",", 1);
			}
			close_with(b, ']');
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
	}
	jbuf_add(out, "{", 1);
	emit_common(out, "charts", o);
	key(out, "runs");
	jbuf_add(out, "[", 1);
	for (i = 0; i < nr; i++) {
		rc = emit_charts_run(out, &runs[i], s[i], o, &nr_selected);
		if (rc)
			goto out;
		jbuf_add(out, ",", 1);
	}
	close_with(out, ']');
	if (nr > 1) {
		d = diff__new((const struct summary *const *)s, nr, o->pattern, err, errlen);
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
		snprintf(err, errlen, "no task matches '%s' in the window (see --list)",
			 o->pattern ? o->pattern : "*");
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

struct hm_ctx {
	const struct trace *t;
	int32_t *group_of;		/* per trace->tasks entry: group index or -1 */
	char (*groups)[PWZ_NAME_MAX];	/* group names */
	size_t nr_groups;
};

static int32_t hm_group(const struct hm_ctx *h, uint32_t tid)
{
	size_t lo = 0, hi = h->t->nr_tasks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (h->t->tasks[mid].tid == tid)
			return h->group_of[mid];
		if (h->t->tasks[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

struct hm_item {
	uint32_t group;
	uint32_t tid;
	uint64_t t;		/* sort time */
	size_t idx;		/* index in the stream; for sleeps, the sleep length in ns */
};

static int cmp_item_time(const void *a, const void *b)
{
	const struct hm_item *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_item_tid(const void *a, const void *b)
{
	const struct hm_item *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Emits "name":[v0, v1 - v0, ...] (delta) or plain values. */
static void emit_series(struct jbuf *b, const char *name, const uint64_t *v, size_t n, bool delta)
{
	uint64_t prev = 0;
	size_t i;

	key(b, name);
	jbuf_add(b, "[", 1);
	for (i = 0; i < n; i++) {
		if (delta) {
			jbuf_i64(b, (int64_t)(v[i] - prev));
			prev = v[i];
		} else {
			jbuf_u64(b, v[i]);
		}
		jbuf_add(b, ",", 1);
	}
	close_with(b, ']');
	jbuf_add(b, ",", 1);
}

/* Sorts items[0..n) and returns for each group its [start, end) range in first/last. */
static void group_ranges(const struct hm_item *it, size_t n, size_t nr_groups, size_t *first,
			 size_t *end)
{
	size_t i;

	for (i = 0; i < nr_groups; i++)
		first[i] = end[i] = 0;
	for (i = 0; i < n; i++) {
		if (i == 0 || it[i].group != it[i - 1].group)
			first[it[i].group] = i;
		end[it[i].group] = i + 1;
	}
}

int dash_heatmaps_json(struct jbuf *out, const struct dash_run *run, const struct dash_opts *o,
		       char *err, size_t errlen)
{
	const struct trace *t = run->trace;
	struct hm_ctx h = { .t = t };
	struct summary *s = NULL;
	struct hm_item *sl = NULL, *wk = NULL, *ex = NULL, *sp = NULL;
	size_t nsl = 0, nwk = 0, nex = 0, nsp = 0, i, g, k;
	size_t *f1 = NULL, *e1 = NULL, *f2 = NULL, *e2 = NULL, *f3 = NULL, *e3 = NULL, *f4 = NULL,
	       *e4 = NULL;
	uint64_t *v1 = NULL, *v2 = NULL, *v3 = NULL, *v4 = NULL, ws, we;
	struct reason_acc *rs = NULL;
	size_t nrs = 0;
	int rc = -ENOMEM;

	if (!t->nr_slices && !t->nr_exits) {
		snprintf(err, errlen,
			 "%s holds no run slices or KVM exits (an --aggregate-only capture?): nothing to draw as heatmaps",
			 t->path);
		return -ENODATA;
	}
	s = summary__new(t, &o->window, err, errlen);
	if (!s)
		return errno ? -errno : -EINVAL;
	ws = s->window_start_ns;
	we = s->window_end_ns;

	h.group_of = malloc((t->nr_tasks + 1) * sizeof(*h.group_of));
	h.groups = malloc((t->nr_tasks + 1) * sizeof(*h.groups));
	if (!h.group_of || !h.groups)
		goto nomem;
	for (i = 0; i < t->nr_tasks; i++) {
		char name[PWZ_NAME_MAX];

		h.group_of[i] = -1;
		if (t->tasks[i].tid == 0)
			continue;	/* the idle tasks: idle time is where no slice is drawn */
		dash_task_name(&t->tasks[i], &o->window, name, sizeof(name));
		if (o->pattern && !task_pattern_match(o->pattern, name, t->tasks[i].tid))
			continue;
		for (g = 0; g < h.nr_groups; g++)
			if (!strcmp(h.groups[g], name))
				break;
		if (g == h.nr_groups)
			memcpy(h.groups[h.nr_groups++], name, sizeof(name));
		h.group_of[i] = (int32_t)g;
	}

	/* selected records of the window */
	sl = malloc((t->nr_slices + 1) * sizeof(*sl));
	wk = malloc((t->nr_wakeups + 1) * sizeof(*wk));
	ex = malloc((t->nr_exits + 1) * sizeof(*ex));
	sp = malloc((t->nr_slices + 1) * sizeof(*sp));
	if (!sl || !wk || !ex || !sp)
		goto nomem;
	for (i = 0; i < t->nr_slices; i++) {
		const struct pwz_slice *x = &t->slices[i];
		int32_t grp = hm_group(&h, x->tid);

		if (grp < 0)
			continue;
		/* all slices of the task, for sleeps; the window is applied when emitting */
		sl[nsl++] = (struct hm_item){ .group = (uint32_t)grp, .tid = x->tid,
					      .t = x->start_ns, .idx = i };
	}
	for (i = 0; i < t->nr_wakeups; i++) {
		const struct pwz_wakeup *x = &t->wakeups[i];
		int32_t grp = hm_group(&h, x->tid);

		if (grp < 0 || x->wake_ns < ws || x->wake_ns >= we)
			continue;
		wk[nwk++] = (struct hm_item){ .group = (uint32_t)grp, .tid = x->tid,
					      .t = x->wake_ns, .idx = i };
	}
	for (i = 0; i < t->nr_exits; i++) {
		const struct pwz_kvm_exit *x = &t->exits[i];
		int32_t grp = hm_group(&h, x->tid);

		if (grp < 0 || x->time_ns < ws || x->time_ns >= we)
			continue;
		ex[nex++] = (struct hm_item){ .group = (uint32_t)grp, .tid = x->tid,
					      .t = x->time_ns, .idx = i };
	}

	/* sleeps: the gap after a slice that ended voluntarily (or unknown, legacy) */
	if (nsl)
		qsort(sl, nsl, sizeof(*sl), cmp_item_tid);
	for (i = 0; i + 1 < nsl; i++) {
		const struct pwz_slice *a = &t->slices[sl[i].idx], *b = &t->slices[sl[i + 1].idx];
		uint64_t end = a->start_ns + a->dur_ns;

		if (sl[i].tid != sl[i + 1].tid || sl[i].group != sl[i + 1].group)
			continue;
		if (a->end != PWZ_END_SLEPT && a->end != PWZ_END_UNKNOWN)
			continue;
		if (b->start_ns < end || end < ws || end >= we)
			continue;
		sp[nsp++] = (struct hm_item){ .group = sl[i].group, .tid = a->tid, .t = end,
					      .idx = b->start_ns - end };
	}
	/* slices overlapping the window only */
	for (i = 0, k = 0; i < nsl; i++) {
		const struct pwz_slice *x = &t->slices[sl[i].idx];

		if (x->start_ns >= we || x->start_ns + x->dur_ns <= ws)
			continue;
		if (x->dur_ns == 0 && x->start_ns < ws)
			continue;
		sl[k++] = sl[i];
	}
	nsl = k;
	if (nsl)
		qsort(sl, nsl, sizeof(*sl), cmp_item_time);
	if (nwk)
		qsort(wk, nwk, sizeof(*wk), cmp_item_time);
	if (nex)
		qsort(ex, nex, sizeof(*ex), cmp_item_time);
	if (nsp)
		qsort(sp, nsp, sizeof(*sp), cmp_item_time);

	f1 = calloc(h.nr_groups + 1, sizeof(size_t));
	e1 = calloc(h.nr_groups + 1, sizeof(size_t));
	f2 = calloc(h.nr_groups + 1, sizeof(size_t));
	e2 = calloc(h.nr_groups + 1, sizeof(size_t));
	f3 = calloc(h.nr_groups + 1, sizeof(size_t));
	e3 = calloc(h.nr_groups + 1, sizeof(size_t));
	f4 = calloc(h.nr_groups + 1, sizeof(size_t));
	e4 = calloc(h.nr_groups + 1, sizeof(size_t));
	v1 = malloc((nsl + nwk + nex + nsp + 1) * sizeof(uint64_t));
	v2 = malloc((nsl + nwk + nex + nsp + 1) * sizeof(uint64_t));
	v3 = malloc((nsl + nwk + nex + nsp + 1) * sizeof(uint64_t));
	v4 = malloc((nsl + nwk + nex + nsp + 1) * sizeof(uint64_t));
	if (!f1 || !e1 || !f2 || !e2 || !f3 || !e3 || !f4 || !e4 || !v1 || !v2 || !v3 || !v4)
		goto nomem;
	group_ranges(sl, nsl, h.nr_groups, f1, e1);
	group_ranges(wk, nwk, h.nr_groups, f2, e2);
	group_ranges(ex, nex, h.nr_groups, f3, e3);
	group_ranges(sp, nsp, h.nr_groups, f4, e4);

	/* the exit reasons present, in (isa, code) order */
	for (i = 0; i < nex; i++) {
		const struct pwz_kvm_exit *x = &t->exits[ex[i].idx];

		for (k = 0; k < nrs; k++)
			if (rs[k].isa == x->isa && rs[k].code == x->reason)
				break;
		if (k == nrs) {
			void *p = realloc(rs, (nrs + 1) * sizeof(*rs));

			if (!p)
				goto nomem;
			rs = p;
			memset(&rs[nrs], 0, sizeof(*rs));
			rs[nrs].isa = x->isa;
			rs[nrs].code = x->reason;
			rs[nrs].name = pwz_meta_exit_name(&t->meta, x->isa, x->reason);
			nrs++;
		}
		rs[k].count++;
	}
	if (nrs)
		qsort(rs, nrs, sizeof(*rs), cmp_reason_acc);

	jbuf_add(out, "{", 1);
	emit_common(out, "heatmaps", o);
	key(out, "run");
	jbuf_add(out, "{", 1);
	emit_run_head(out, run, s);
	close_with(out, '}');
	jbuf_add(out, ",", 1);
	key(out, "reasons");
	jbuf_add(out, "[", 1);
	for (k = 0; k < nrs; k++) {
		jbuf_printf(out, "{\"isa\":%u,\"code\":%u,\"count\":%llu,\"name\":", rs[k].isa,
			    rs[k].code, (unsigned long long)rs[k].count);
		if (rs[k].name)
			jbuf_json_str(out, rs[k].name, (size_t)-1);
		else
			jbuf_puts(out, "null");
		jbuf_puts(out, "},");
	}
	close_with(out, ']');
	jbuf_add(out, ",", 1);
	key(out, "tasks");
	jbuf_add(out, "[", 1);
	for (g = 0; g < h.nr_groups; g++) {
		size_t n;

		jbuf_add(out, "{", 1);
		kv_str(out, "name", h.groups[g]);
		key(out, "tids");
		jbuf_add(out, "[", 1);
		for (i = 0; i < t->nr_tasks; i++)
			if (h.group_of[i] == (int32_t)g)
				jbuf_printf(out, "%u,", t->tasks[i].tid);
		close_with(out, ']');
		jbuf_add(out, ",", 1);

		/* slices: start (clipped), duration (clipped), cpu, end kind */
		n = e1[g] - f1[g];
		for (i = 0; i < n; i++) {
			const struct pwz_slice *x = &t->slices[sl[f1[g] + i].idx];
			uint64_t a = x->start_ns < ws ? ws : x->start_ns;
			uint64_t z = x->start_ns + x->dur_ns > we ? we : x->start_ns + x->dur_ns;

			v1[i] = a;
			v2[i] = z - a;
			v3[i] = x->cpu;
			v4[i] = x->end;
		}
		key(out, "slices");
		jbuf_add(out, "{", 1);
		emit_series(out, "t", v1, n, true);
		emit_series(out, "d", v2, n, false);
		emit_series(out, "c", v3, n, false);
		emit_series(out, "e", v4, n, false);
		close_with(out, '}');
		jbuf_add(out, ",", 1);

		n = e2[g] - f2[g];
		for (i = 0; i < n; i++) {
			const struct pwz_wakeup *x = &t->wakeups[wk[f2[g] + i].idx];

			v1[i] = x->wake_ns;
			v2[i] = x->wait_ns;
		}
		key(out, "waits");
		jbuf_add(out, "{", 1);
		emit_series(out, "t", v1, n, true);
		emit_series(out, "d", v2, n, false);
		close_with(out, '}');
		jbuf_add(out, ",", 1);

		n = e4[g] - f4[g];
		for (i = 0; i < n; i++) {
			v1[i] = sp[f4[g] + i].t;
			v2[i] = sp[f4[g] + i].idx;
		}
		key(out, "sleeps");
		jbuf_add(out, "{", 1);
		emit_series(out, "t", v1, n, true);
		emit_series(out, "d", v2, n, false);
		close_with(out, '}');
		jbuf_add(out, ",", 1);

		n = e3[g] - f3[g];
		for (i = 0; i < n; i++) {
			const struct pwz_kvm_exit *x = &t->exits[ex[f3[g] + i].idx];

			v1[i] = x->time_ns;
			v2[i] = x->guest_ns;
			v3[i] = x->handling_ns;
			for (k = 0; k < nrs; k++)
				if (rs[k].isa == x->isa && rs[k].code == x->reason)
					break;
			v4[i] = k;
		}
		key(out, "exits");
		jbuf_add(out, "{", 1);
		emit_series(out, "t", v1, n, true);
		emit_series(out, "g", v2, n, false);
		emit_series(out, "h", v3, n, false);
		emit_series(out, "r", v4, n, false);
		close_with(out, '}');
		jbuf_puts(out, "},");
	}
	close_with(out, ']');
	jbuf_add(out, "}", 1);

	if (!h.nr_groups) {
		snprintf(err, errlen, "no task matches '%s' (see --list)",
			 o->pattern ? o->pattern : "*");
		rc = -ENOENT;
	} else if (out->err) {
		snprintf(err, errlen, "out of memory building the page data");
		rc = out->err;
	} else {
		rc = 0;
	}
	goto out;
nomem:
	snprintf(err, errlen, "out of memory building the heatmaps");
	rc = -ENOMEM;
out:
	free(rs);
	free(v1); free(v2); free(v3); free(v4);
	free(f1); free(e1); free(f2); free(e2); free(f3); free(e3); free(f4); free(e4);
	free(sl); free(wk); free(ex); free(sp);
	free(h.group_of);
	free(h.groups);
	summary__free(s);
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
	jbuf_puts(out, pwz_asset_js);
	jbuf_puts(out, "</script>\n</body>\n</html>\n");
	return out->err;
}
