// SPDX-License-Identifier: GPL-2.0
/* -t: the thread instances of one capture that a run's patterns select, for every view. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keymap.h"
#include "tasksel.h"

struct tasksel {
	const struct trace *t;
	const struct task_patterns *p;	/* NULL: every thread */
	struct task_label_opts o;	/* the naming the patterns are matched against */
	bool *task_sel;			/* per t->tasks entry (tid 0's are not used) */
	struct keymap unnamed;		/* (tid, 0) of the tids with no task record -> their flag */
	bool *unnamed_sel;		/* per unnamed entry: selected */
	size_t unnamed_cap;		/* unnamed_sel entries allocated */
	uint8_t idle[PWZ_MAX_CPUS / 8];	/* the CPUs whose idle task is selected */
	uint8_t idle_seen[PWZ_MAX_CPUS / 8];	/* the CPUs the idle task ran on */
	bool any_idle;			/* some CPU's idle task is selected */
	size_t count;			/* instances selected */
};

/* Whether the thread tid named name (its display name without options) is picked: its display
 * name, or with append_tid that name without ":<tid>". */
static bool picks(const struct tasksel *s, const char *name, uint32_t tid)
{
	struct task_label_opts bare = s->o;
	char label[PWZ_NAME_MAX];

	bare.append_tid = false;
	task_label_name(name, tid, &bare, label, sizeof(label));
	if (task_patterns_match(s->p, label, tid))
		return true;
	if (!s->o.append_tid)
		return false;
	task_label_name(name, tid, &s->o, label, sizeof(label));
	return task_patterns_match(s->p, label, tid);
}

static bool bit(const uint8_t *set, uint32_t cpu)
{
	return cpu < PWZ_MAX_CPUS && (set[cpu / 8] & (1u << (cpu % 8)));
}

/* The idle task ran on cpu: decided once per CPU. */
static void saw_idle(struct tasksel *s, uint32_t cpu)
{
	char name[32];

	if (cpu >= PWZ_MAX_CPUS || bit(s->idle_seen, cpu))
		return;
	s->idle_seen[cpu / 8] |= (uint8_t)(1u << (cpu % 8));
	snprintf(name, sizeof(name), "swapper/%u", cpu);
	if (picks(s, name, 0)) {
		s->idle[cpu / 8] |= (uint8_t)(1u << (cpu % 8));
		s->any_idle = true;
		s->count++;
	}
}

/* A thread the capture's records name: the idle task, or a tid without a task record decided
 * once (named by its tid). Returns 0 or -ENOMEM. */
static int saw(struct tasksel *s, uint32_t tid, uint32_t cpu)
{
	int added;
	int64_t i;

	if (!tid) {
		saw_idle(s, cpu);
		return 0;
	}
	if (tid == PWZ_IRQ_OTHER_TID || keymap_find(&s->unnamed, tid, 0) >= 0 ||
	    trace__task(s->t, tid))
		return 0;
	i = keymap_get(&s->unnamed, tid, 0, &added);
	if (i < 0 || array_reserve((void **)&s->unnamed_sel, &s->unnamed_cap, s->unnamed.count,
				   sizeof(bool)))
		return -ENOMEM;
	s->unnamed_sel[i] = picks(s, "", tid);
	s->count += s->unnamed_sel[i];
	return 0;
}

/* The threads the aggregates and the streams name. Returns 0 or -ENOMEM. */
static int scan_records(struct tasksel *s)
{
	const struct trace *t = s->t;
	int e = 0;

	for (size_t i = 0; i < t->nr_cpu_aggs && !e; i++)
		e = saw(s, t->cpu_aggs[i].tid, t->cpu_aggs[i].cpu);
	for (size_t i = 0; i < t->nr_kvm_aggs && !e; i++)
		e = saw(s, t->kvm_aggs[i].tid, 0);
	for (size_t i = 0; i < t->nr_wait_aggs && !e; i++)
		e = saw(s, t->wait_aggs[i].tid, 0);
	for (size_t i = 0; i < t->nr_irq_aggs && !e; i++)
		e = saw(s, t->irq_aggs[i].tid, t->irq_aggs[i].cpu);
	for (size_t i = 0; i < t->nr_vcpu_ledgers && !e; i++)
		e = saw(s, t->vcpu_ledgers[i].tid, 0);
	for (size_t i = 0; i < t->nr_slices && !e; i++)
		e = saw(s, t->slices[i].tid, t->slices[i].cpu);
	for (size_t i = 0; i < t->nr_wakeups && !e; i++)
		e = saw(s, t->wakeups[i].tid, t->wakeups[i].cpu);
	for (size_t i = 0; i < t->nr_exits && !e; i++)
		e = saw(s, t->exits[i].tid, 0);
	return e;
}

struct tasksel *tasksel__new(const struct task_patterns *p, const struct task_label_opts *o,
			     const struct trace *t)
{
	struct tasksel *s = calloc(1, sizeof(*s));

	if (!s)
		goto nomem;
	s->t = t;
	s->p = p;
	if (o)
		s->o = *o;
	if (!p)
		return s;
	s->task_sel = calloc(t->nr_tasks + 1, sizeof(bool));
	if (!s->task_sel)
		goto nomem;
	for (size_t i = 0; i < t->nr_tasks; i++) {
		char name[PWZ_NAME_MAX];
		struct task_label_opts bare = { .map = s->o.map };

		if (!t->tasks[i].tid)
			continue;	/* the idle task is named per CPU */
		task_label(&t->tasks[i], &bare, name, sizeof(name));
		s->task_sel[i] = picks(s, name, t->tasks[i].tid);
		s->count += s->task_sel[i];
	}
	if (scan_records(s))
		goto nomem;
	return s;
nomem:
	tasksel__free(s);
	errno = ENOMEM;
	return NULL;
}

void tasksel__free(struct tasksel *s)
{
	if (!s)
		return;
	free(s->task_sel);
	keymap_free(&s->unnamed);
	free(s->unnamed_sel);
	free(s);
}

size_t tasksel__count(const struct tasksel *s)
{
	return s ? (s->p ? s->count : s->t->nr_tasks) : 0;
}

/* Whether tid, which has no task record, is selected. */
static bool unnamed_has(const struct tasksel *s, uint32_t tid)
{
	int64_t i = keymap_find(&s->unnamed, tid, 0);

	return i >= 0 && s->unnamed_sel[i];
}

bool tasksel_has(const struct tasksel *s, uint32_t tid, uint64_t since_ns)
{
	const struct pwz_task *pt;

	if (!s || !s->p)
		return true;
	if (!tid)
		return s->any_idle;
	pt = trace__task_at(s->t, tid, since_ns);
	return pt ? s->task_sel[pt - s->t->tasks] : unnamed_has(s, tid);
}

bool tasksel_has_tid(const struct tasksel *s, uint32_t tid)
{
	const struct pwz_task *pt, *end;

	if (!s || !s->p)
		return true;
	if (!tid)
		return s->any_idle;
	pt = trace__task_at(s->t, tid, 0);	/* its first instance */
	if (!pt)
		return unnamed_has(s, tid);
	for (end = s->t->tasks + s->t->nr_tasks; pt < end && pt->tid == tid; pt++)
		if (s->task_sel[pt - s->t->tasks])
			return true;
	return false;
}

bool tasksel_has_row(const struct tasksel *s, const struct task_summary *ts)
{
	if (!s || !s->p || ts->tid)
		return tasksel_has(s, ts->tid, ts->since_ns);
	if (!ts->nr_cpus)
		return s->any_idle;
	for (size_t i = 0; i < ts->nr_cpus; i++)
		if (bit(s->idle, ts->cpus[i].cpu))
			return true;
	return false;
}

static bool keep_row(const struct task_summary *ts, void *ctx)
{
	return tasksel_has_row(ctx, ts);
}

void tasksel_keep_rows(const struct tasksel *s, struct summary *sum)
{
	if (s && s->p)
		summary_keep(sum, keep_row, (void *)s);
}

/* ---- the messages ---- */

#define NOMATCH_SHOWN 8		/* names a message lists */
#define CLOSE_MAX 32		/* characters of a pattern's letters compared */
#define CLOSE_NAME_MAX 64	/* characters of a name compared */

/* A distinct display name of the capture (without ":<tid>") and how close it is. */
struct candidate {
	char name[PWZ_NAME_MAX];
	size_t threads;		/* thread instances of that name */
	unsigned int dist;	/* edits from a pattern's letters to the nearest part of it */
	bool close;		/* few enough for a typo (score()) */
};

/* The letters of a pattern: what is left without glob and regex syntax. */
static void letters(const char *pattern, char *out, size_t outlen)
{
	size_t k = 0;

	for (; *pattern && k + 1 < outlen; pattern++)
		if (!strchr("*?[]^$.+()|\\{}", *pattern))
			out[k++] = *pattern;
	out[k] = '\0';
}

/* Edits (case-insensitive) from w to the part of name closest to it (approximate substring
 * matching: the part may start and end anywhere). */
static unsigned int distance(const char *w, const char *name)
{
	unsigned int row[CLOSE_NAME_MAX + 1], best;
	size_t m = strnlen(w, CLOSE_MAX), n = strnlen(name, CLOSE_NAME_MAX);

	for (size_t j = 0; j <= n; j++)
		row[j] = 0;
	for (size_t i = 1; i <= m; i++) {
		unsigned int diag = row[0];

		row[0] = (unsigned int)i;
		for (size_t j = 1; j <= n; j++) {
			unsigned int up = row[j], sub = diag + (tolower((unsigned char)w[i - 1]) !=
							       tolower((unsigned char)name[j - 1]));

			row[j] = sub;
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	best = row[0];
	for (size_t j = 1; j <= n; j++)
		if (row[j] < best)
			best = row[j];
	return best;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct candidate *)a)->name, ((const struct candidate *)b)->name);
}

/* Closest first, then the most threads, then by name. */
static int cmp_close(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	if (x->threads != y->threads)
		return x->threads > y->threads ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Appends a candidate named name (the display name without ":<tid>"). Returns 0 or -ENOMEM. */
static int add_candidate(struct candidate **c, size_t *n, size_t *cap, const char *name,
			 uint32_t tid, const struct task_label_opts *o)
{
	if (array_reserve((void **)c, cap, *n + 1, sizeof(**c)))
		return -ENOMEM;
	task_label_name(name, tid, o, (*c)[*n].name, sizeof((*c)[*n].name));
	(*c)[*n].threads = 1;
	(*c)[*n].close = false;
	(*n)++;
	return 0;
}

/* The capture's distinct display names, each with its thread count. Returns their number, or
 * -ENOMEM. */
static long candidates(const struct tasksel *s, struct candidate **c)
{
	struct task_label_opts bare = { .map = s->o.map, .merge_sys = s->o.merge_sys };
	const struct trace *t = s->t;
	size_t n = 0, cap = 0, k = 0;
	char idle[32];

	*c = NULL;
	for (size_t i = 0; i < t->nr_tasks; i++) {
		char name[PWZ_NAME_MAX];

		if (!t->tasks[i].tid)
			continue;
		task_label(&t->tasks[i], &bare, name, sizeof(name));
		if (add_candidate(c, &n, &cap, name, t->tasks[i].tid, &bare))
			goto nomem;
	}
	for (uint32_t i = 0; i < s->unnamed.cap; i++) {
		if (s->unnamed.slots[i] &&
		    add_candidate(c, &n, &cap, "", (uint32_t)s->unnamed.keys[2 * i], &bare))
			goto nomem;
	}
	for (uint32_t cpu = 0; cpu < PWZ_MAX_CPUS; cpu++) {
		if (!bit(s->idle_seen, cpu))
			continue;
		snprintf(idle, sizeof(idle), "swapper/%u", cpu);
		if (add_candidate(c, &n, &cap, idle, 0, &bare))
			goto nomem;
	}
	if (n > 1)
		qsort(*c, n, sizeof(**c), cmp_name);
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp((*c)[k - 1].name, (*c)[i].name))
			(*c)[k - 1].threads++;
		else
			(*c)[k++] = (*c)[i];
	}
	return (long)k;
nomem:
	free(*c);
	*c = NULL;
	return -ENOMEM;
}

/* "-t 'a', -t 'b'" into out. */
static void quote_patterns(const struct task_patterns *p, char *out, size_t outlen)
{
	size_t k = 0;

	out[0] = '\0';
	for (size_t i = 0; i < task_patterns__count(p) && k < outlen; i++)
		k += (size_t)snprintf(out + k, outlen - k, "%s-t '%.60s'", i ? ", " : "",
				      task_patterns__text(p, i));
}

/* Scores c[0..n) against the patterns' letters; returns whether some are close. */
static bool score(const struct task_patterns *p, struct candidate *c, size_t n,
		  char *contained, size_t contained_len)
{
	bool close = false;

	contained[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		c[i].dist = UINT32_MAX;
		for (size_t k = 0; k < task_patterns__count(p); k++) {
			char w[CLOSE_MAX + 1];
			unsigned int d, near;

			letters(task_patterns__text(p, k), w, sizeof(w));
			if (!*w)
				continue;
			d = distance(w, c[i].name);
			near = strlen(w) > 6 ? (unsigned int)strlen(w) / 3 : strlen(w) > 3 ? 2 : 1;
			if (d < c[i].dist)
				c[i].dist = d;
			c[i].close |= d <= near;
			close |= d <= near;
			if (strstr(c[i].name, w) && !*contained)
				snprintf(contained, contained_len, "%s", w);
		}
	}
	return close;
}

/* Appends to err (errlen bytes, *k of them used) as snprintf does, never past its end. */
static void put(char *err, size_t errlen, size_t *k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *err, size_t errlen, size_t *k, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*k >= errlen)
		return;
	va_start(ap, fmt);
	n = vsnprintf(err + *k, errlen - *k, fmt, ap);
	va_end(ap);
	*k = n < 0 ? errlen : *k + (size_t)n;
}

/* Appends the names of c[0..n) that the message lists: the closest ones (when close), else
 * those of the most threads. */
static void put_names(char *err, size_t errlen, size_t *k, struct candidate *c, size_t n,
		      bool close)
{
	if (!close)
		for (size_t i = 0; i < n; i++)
			c[i].dist = 0;
	qsort(c, n, sizeof(*c), cmp_close);
	put(err, errlen, k, "; %s:", close ? "the names closest to it" : "the capture's names");
	for (size_t i = 0; i < n && i < NOMATCH_SHOWN && (c[i].close || !close); i++) {
		put(err, errlen, k, "%s \"%.40s\"", i ? "," : "", c[i].name);
		if (c[i].threads > 1)
			put(err, errlen, k, " (x%zu)", c[i].threads);
	}
	if (n > NOMATCH_SHOWN)
		put(err, errlen, k, " (of %zu)", n);
}

void tasksel_nomatch(const struct tasksel *s, char *err, size_t errlen)
{
	char pats[256], contained[CLOSE_MAX + 1] = "";
	struct candidate *c;
	long n = candidates(s, &c);
	bool close = n > 0 && score(s->p, c, (size_t)n, contained, sizeof(contained));
	size_t k = 0;

	quote_patterns(s->p, pats, sizeof(pats));
	put(err, errlen, &k, "%s: %s matches no thread (a word is the start of a name, a glob such as '*vcpu0' the whole name, a regex such as '.*vcpu[01]' its start, digits a tid)",
	    s->t->path, pats);
	if (n > 0)
		put_names(err, errlen, &k, c, (size_t)n, close);
	if (*contained)
		put(err, errlen, &k, "; type -t '*%s*' for the names that hold it, or see --list",
		    contained);
	else if (close && !strchr(c[0].name, '\''))
		put(err, errlen, &k, "; type -t '%.40s', or see --list", c[0].name);
	else
		put(err, errlen, &k, "; see --list");
	free(c);
}

void tasksel_none_ran(const struct tasksel *s, uint64_t from_ns, uint64_t to_ns, char *err,
		      size_t errlen)
{
	char pats[256];
	size_t n = tasksel__count(s);

	quote_patterns(s->p, pats, sizeof(pats));
	snprintf(err, errlen, "%s: %s selects %zu thread%s, none of which ran from %.3f to %.3f ms (see --list)",
		 s->t->path, pats, n, n == 1 ? "" : "s", from_ns / 1e6, to_ns / 1e6);
}
