// SPDX-License-Identifier: GPL-2.0
/* pwz-bpf --flight: records of the last N seconds kept in chunks, dumped as a cdict on a trigger. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include "capture.h"
#include "capture_opts.h"
#include "capture_tasks.h"
#include "cdict.h"
#include "flight.h"
#include "fmt.h"
#include "keymap.h"
#include "model.h"

enum { ENT_SLICE = 1, ENT_EXIT = 2 };

/* One stored record: 64 bytes (a slice with its reported state and charge, and its wait's
 * start; the waker is not kept). */
struct entry {
	uint32_t type;			/* ENT_SLICE or ENT_EXIT */
	uint32_t has_wait;		/* slice: wake_ns holds the wait's start */
	union {
		struct {
			struct pwz_slice s;
			uint64_t wake_ns;
		} sl;
		struct pwz_kvm_exit e;
	};
};

_Static_assert(sizeof(struct entry) == FLIGHT_ENTRY_BYTES, "flight entry size is part of the budget's arithmetic");

struct chunk {
	struct chunk *next;
	uint64_t max_end;		/* latest end (switch-out, kvm_entry) of its records */
	uint32_t n;
	struct entry e[FLIGHT_CHUNK_ENTRIES];
};

struct flight {
	struct flight_cfg cfg;
	struct chunk *head, *tail;	/* oldest, newest */
	size_t nr_chunks;
	uint64_t stored_bytes;		/* every record ever stored (for the rate) */
	uint64_t valid_from;		/* the budget evicted records ending before this */
	uint64_t evicted_early;		/* records evicted while still in the window */
	struct keymap task_map;		/* tid -> tasks[] */
	struct pwz_task *tasks;
	size_t cap_tasks;
	bool pending;			/* a trigger waits for its window's end */
	uint64_t trig_ns;
	char reason[128];
	uint64_t last_to;		/* the end of the last dump's window; 0 none */
};

struct flight *flight__new(const struct flight_cfg *cfg)
{
	struct flight *f = calloc(1, sizeof(*f));

	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	f->cfg = *cfg;
	return f;
}

void flight__free(struct flight *f)
{
	if (!f)
		return;
	while (f->head) {
		struct chunk *c = f->head;

		f->head = c->next;
		free(c);
	}
	keymap_free(&f->task_map);
	free(f->tasks);
	free(f);
}

int flight__task(struct flight *f, const struct pwz_task *t)
{
	int64_t i = keymap_get(&f->task_map, t->tid, 0, NULL);

	if (i < 0)
		return -ENOMEM;
	if (array_reserve((void **)&f->tasks, &f->cap_tasks, (size_t)i + 1, sizeof(*f->tasks)))
		return -ENOMEM;
	f->tasks[i] = *t;
	return 0;
}

static const struct pwz_task *task_of(const struct flight *f, uint32_t tid)
{
	int64_t i = keymap_find(&f->task_map, tid, 0);

	return i < 0 ? NULL : &f->tasks[i];
}

static struct entry *new_entry(struct flight *f, uint64_t end)
{
	struct chunk *c = f->tail;

	if (!c || c->n == FLIGHT_CHUNK_ENTRIES) {
		c = malloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = NULL;
		c->n = 0;
		c->max_end = 0;
		if (f->tail)
			f->tail->next = c;
		else
			f->head = c;
		f->tail = c;
		f->nr_chunks++;
	}
	if (end > c->max_end)
		c->max_end = end;
	f->stored_bytes += sizeof(struct entry);
	return &c->e[c->n++];
}

bool flight__trigger(struct flight *f, uint64_t t_ns, const char *reason)
{
	/* the new window must start where the last one ended: no record is dumped twice, and a
	 * storm of long waits makes one dump per window, not one per wait */
	if (f->pending || (f->last_to && t_ns + f->cfg.after_ns < f->last_to + f->cfg.window_ns))
		return false;
	f->pending = true;
	f->trig_ns = t_ns;
	snprintf(f->reason, sizeof(f->reason), "%s", reason);
	return true;
}

void flight__dumped(struct flight *f, uint64_t to_ns)
{
	f->pending = false;
	f->last_to = to_ns;
}

static const char *name_of(const struct flight *f, uint32_t tid)
{
	const struct pwz_task *t = task_of(f, tid);

	return t ? t->name : "?";
}

int flight__slice(struct flight *f, const struct pwz_slice *s, const struct pwz_wakeup *w)
{
	struct entry *e = new_entry(f, s->start_ns + s->dur_ns);

	if (!e)
		return -ENOMEM;
	e->type = ENT_SLICE;
	e->has_wait = w != NULL;
	e->sl.s = *s;
	e->sl.wake_ns = w ? w->wake_ns : 0;
	if (w && f->cfg.trigger_wait_ns && w->wait_ns > f->cfg.trigger_wait_ns) {
		char why[128], d[FMT_DURATION_MAX];

		snprintf(why, sizeof(why), "wait %s of tid %u (%.32s)",
			 fmt_duration(d, sizeof(d), w->wait_ns), s->tid, name_of(f, s->tid));
		flight__trigger(f, w->wake_ns + w->wait_ns, why);
	}
	return 0;
}

int flight__kvm_exit(struct flight *f, const struct pwz_kvm_exit *x)
{
	struct entry *e = new_entry(f, x->time_ns + x->handling_ns);

	if (!e)
		return -ENOMEM;
	e->type = ENT_EXIT;
	e->has_wait = 0;
	e->e = *x;
	if (f->cfg.trigger_exit_ns && x->handling_ns > f->cfg.trigger_exit_ns) {
		char why[128], d[FMT_DURATION_MAX];

		snprintf(why, sizeof(why), "kvm exit %u handled in %s, tid %u (%.32s)", x->reason,
			 fmt_duration(d, sizeof(d), x->handling_ns), x->tid, name_of(f, x->tid));
		/* at the exit's end, as a wait triggers at its end: the window holds the exit */
		flight__trigger(f, x->time_ns + x->handling_ns, why);
	}
	return 0;
}

uint64_t flight__bytes(const struct flight *f)
{
	return (uint64_t)f->nr_chunks * sizeof(struct chunk);
}

uint64_t flight__stored(const struct flight *f)
{
	return f->stored_bytes;
}

uint64_t flight__budget(const struct flight *f)
{
	return f->cfg.budget_bytes;
}

uint64_t flight__size_budget(struct flight *f, uint64_t elapsed_ns)
{
	double rate;
	uint64_t b;

	if (f->cfg.budget_bytes || !elapsed_ns)
		return f->cfg.budget_bytes;
	rate = f->stored_bytes * 1e9 / (double)elapsed_ns;
	b = (uint64_t)(2.0 * rate * (f->cfg.window_ns + FLIGHT_SLACK_NS) / 1e9);
	if (b < (uint64_t)FLIGHT_MIN_MB << 20)
		b = (uint64_t)FLIGHT_MIN_MB << 20;
	f->cfg.budget_bytes = b;
	return b;
}

void flight__evict(struct flight *f, uint64_t now_ns)
{
	uint64_t from = now_ns > f->cfg.window_ns + FLIGHT_SLACK_NS ?
			now_ns - f->cfg.window_ns - FLIGHT_SLACK_NS : 0;

	/* a pending trigger's window must stay whole */
	if (f->pending && f->trig_ns + f->cfg.after_ns < f->cfg.window_ns + FLIGHT_SLACK_NS)
		from = 0;
	else if (f->pending) {
		uint64_t pf = f->trig_ns + f->cfg.after_ns - f->cfg.window_ns - FLIGHT_SLACK_NS;

		if (pf < from)
			from = pf;
	}
	while (f->head && f->head != f->tail) {
		struct chunk *c = f->head;
		bool old = c->max_end < from;
		bool over = f->cfg.budget_bytes && flight__bytes(f) > f->cfg.budget_bytes;

		if (!old && !over)
			break;
		if (!old) {
			f->evicted_early += c->n;
			if (c->max_end + FLIGHT_SLACK_NS > f->valid_from)
				f->valid_from = c->max_end + FLIGHT_SLACK_NS;
		}
		f->head = c->next;
		free(c);
		f->nr_chunks--;
	}
}

/* ---- the dump ---- */

struct dump {
	struct flight *f;
	struct flight_env *env;
	struct cdict_writer *w;
	struct model_fold *fold;
	struct model_window win;
	struct keymap named;		/* tids whose task record is in the dump */
	struct cpu_state *open;		/* each CPU's running slice, read before the last drain */
	uint32_t *open_cpu;
	bool *open_done;		/* its record came in the drain: not written twice */
	size_t nr_open;
};

/* The task record of tid, once per dump, before its first record. */
static int dump_task(struct dump *d, uint32_t tid)
{
	struct pwz_task t;
	const struct pwz_task *k;
	int added = 0;

	if (keymap_get(&d->named, tid, 0, &added) < 0)
		return -ENOMEM;
	if (!added)
		return 0;
	k = task_of(d->f, tid);
	if (!k) {
		/* a thread only the CPU state names: the table reads it (or says tid-N) */
		int e = task_table__touch(d->env->tt, tid, 0, &t);

		if (e < 0)
			return e;
		if (e > 0)
			flight__task(d->f, &t);
		k = task_of(d->f, tid);
		if (!k) {
			memset(&t, 0, sizeof(t));
			t.tid = tid;
			snprintf(t.comm, sizeof(t.comm), "%s", task_table__name(d->env->tt, tid) ?: "?");
			snprintf(t.name, sizeof(t.name), "%s", task_table__name(d->env->tt, tid) ?: "?");
			t.tgid = task_table__tgid(d->env->tt, tid);
			k = &t;
		}
	}
	t = *k;
	t.time_ns = 0;
	return cdict_writer__task(d->w, &t);
}

/* A slice (and its wait) into the fold, and cut to the window into the file. */
static int dump_slice(struct dump *d, const struct pwz_slice *s, const struct pwz_wakeup *w)
{
	uint64_t from = d->win.from_ns, to = d->win.to_ns, end = s->start_ns + s->dur_ns;
	struct pwz_slice c = *s;
	int e;

	if (!model_slice_touches(s, &d->win) && !(w && model_wait_in(w, &d->win)))
		return 0;
	if ((e = model_fold__slice(d->fold, s)) || (w && (e = model_fold__wait(d->fold, w))))
		return e;
	if ((e = dump_task(d, s->tid)))
		return e;
	if (w && model_wait_in(w, &d->win) && w->wake_ns >= from) {
		struct pwz_wakeup cw = *w;

		cw.wake_ns -= from;
		if ((e = cdict_writer__wakeup(d->w, &cw)))
			return e;
	}
	if (!model_slice_touches(s, &d->win))
		return 0;
	c.start_ns = (s->start_ns > from ? s->start_ns : from) - from;
	if (end >= to || s->end == PWZ_END_OPEN) {
		c.end = PWZ_END_OPEN;	/* R1: running at the end of the window */
		end = end < to ? end : to;
	}
	c.dur_ns = end - from - c.start_ns;
	return cdict_writer__slice(d->w, &c);
}

/* Keeps each CPU's running slice; written after the records unless one of them is it. */
static int keep_open(void *ctx, uint32_t cpu, const struct cpu_state *st)
{
	struct dump *d = ctx;
	size_t n = d->nr_open + 1;
	struct cpu_state *o = realloc(d->open, n * sizeof(*o));
	uint32_t *c;
	bool *b;

	if (o)
		d->open = o;
	c = o ? realloc(d->open_cpu, n * sizeof(*c)) : NULL;
	if (c)
		d->open_cpu = c;
	b = c ? realloc(d->open_done, n * sizeof(*b)) : NULL;
	if (!b)
		return -ENOMEM;
	d->open_done = b;
	d->open[d->nr_open] = *st;
	d->open_cpu[d->nr_open] = cpu;
	d->open_done[d->nr_open] = false;
	d->nr_open++;
	return 0;
}

/* A slice record that ended after the running slices were read: that CPU's is it. */
static void open_seen(struct dump *d, const struct pwz_slice *s)
{
	for (size_t i = 0; i < d->nr_open; i++) {
		const struct cpu_state *st = &d->open[i];
		uint64_t start = st->start_ns > d->env->t0 ? st->start_ns - d->env->t0 : 0;

		if (d->open_cpu[i] == s->cpu && st->tid == s->tid && start == s->start_ns)
			d->open_done[i] = true;
	}
}

static int dump_open(struct dump *d, uint32_t cpu, const struct cpu_state *st)
{
	struct flight_env *env = d->env;
	uint64_t to_abs = env->t0 + d->win.to_ns;
	struct pwz_slice s;
	struct pwz_wakeup w;
	bool waited;

	if (env->selected && !env->selected(env->ctx, st->tid))
		return 0;
	if (st->start_ns >= to_abs)
		return 0;	/* switched in after the window: its predecessor's record is OPEN */
	waited = capture_conv_open(st, cpu, env->t0, to_abs, &s, &w);
	return dump_slice(d, &s, waited ? &w : NULL);
}

static int emit_cpu(void *ctx, const struct pwz_cpu_agg *a)
{
	struct dump *d = ctx;

	return dump_task(d, a->tid) ?: cdict_writer__cpu_agg(d->w, a);
}

static int emit_wait(void *ctx, const struct pwz_wait_agg *a)
{
	struct dump *d = ctx;

	return dump_task(d, a->tid) ?: cdict_writer__wait_agg(d->w, a);
}

static int emit_kvm(void *ctx, const struct pwz_kvm_agg *a)
{
	struct dump *d = ctx;

	return dump_task(d, a->tid) ?: cdict_writer__kvm_agg(d->w, a);
}

static int dump_records(struct dump *d)
{
	struct cdict_visitor out = { .ctx = d, .cpu_agg = emit_cpu, .wait_agg = emit_wait,
				     .kvm_agg = emit_kvm };
	int e = 0;

	for (struct chunk *c = d->f->head; c && !e; c = c->next) {
		for (uint32_t i = 0; i < c->n && !e; i++) {
			const struct entry *x = &c->e[i];

			if (x->type == ENT_SLICE) {
				struct pwz_wakeup w = {
					.tid = x->sl.s.tid, .cpu = x->sl.s.cpu, .wake_ns = x->sl.wake_ns,
					.wait_ns = x->sl.s.start_ns - x->sl.wake_ns,
				};

				open_seen(d, &x->sl.s);
				e = dump_slice(d, &x->sl.s, x->has_wait ? &w : NULL);
			} else if (model_exit_in(&x->e, &d->win)) {
				struct pwz_kvm_exit k = x->e;

				e = model_fold__kvm_exit(d->fold, &k);
				if (!e)
					e = dump_task(d, k.tid);
				k.time_ns -= d->win.from_ns;
				if (!e)
					e = cdict_writer__kvm_exit(d->w, &k);
			}
		}
	}
	for (size_t i = 0; i < d->nr_open && !e; i++)
		if (!d->open_done[i])
			e = dump_open(d, d->open_cpu[i], &d->open[i]);
	if (!e)
		e = model_fold__emit(d->fold, &out);
	return e;
}

int flight__write(struct flight *f, struct flight_env *env, char *path, size_t pathlen,
		  uint64_t to_ns, uint64_t trig_ns, const char *reason, char *err, size_t errlen)
{
	struct cdict_writer_opts wo = { .mode = env->o->mode, .exists = capture_opts_exists(env->o) };
	struct dump d = { .f = f, .env = env };
	struct pwz_meta m;
	char why[256];
	bool cut = false;
	int e;

	d.win.to_ns = to_ns;
	d.win.from_ns = to_ns > f->cfg.window_ns ? to_ns - f->cfg.window_ns : 0;
	if (d.win.from_ns < f->valid_from) {
		d.win.from_ns = f->valid_from < to_ns ? f->valid_from : to_ns;
		cut = true;
	}
	if (pwz_meta_copy(&m, env->meta)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	m.start_mono_ns = env->t0 + d.win.from_ns;
	if (m.start_wall_ns)
		m.start_wall_ns += d.win.from_ns;
	m.duration_ns = d.win.to_ns - d.win.from_ns;
	snprintf(why, sizeof(why), "%s", reason);
	m.trigger_ns = trig_ns > d.win.from_ns ? trig_ns - d.win.from_ns : 0;
	m.nr_drops = 0;
	e = pwz_meta_set_str(&m.trigger, why);
	if (!e && env->counters)
		e = env->counters(env->ctx, &m);
	/* the budget cut this window short: the records evicted early so far say how much */
	if (!e && cut)
		e = pwz_meta_add_drop(&m, "flight_budget", f->evicted_early);
	if (e) {
		snprintf(err, errlen, "cannot fill the dump's metadata: %s", strerror(-e));
		pwz_meta_free(&m);
		return e;
	}
	/* the running slices first, then what the kernel has not handed over yet: a slice
	 * that ends in between is then in both, and written once (open_seen()) */
	e = capture__open_slices(env->cap, keep_open, &d);
	if (!e) {
		e = capture__poll(env->cap, 0);
		e = e < 0 && e != -EINTR ? e : 0;
	}
	if (e) {
		snprintf(err, errlen, "cannot read the running slices: %s", strerror(-e));
		goto out;
	}
	d.fold = model_fold__new(&d.win);
	d.w = d.fold ? cdict_writer__new(path, &m, &wo, err, errlen) : NULL;
	if (!d.w) {
		if (!d.fold)
			snprintf(err, errlen, "out of memory");
		e = d.fold ? -(errno ? errno : EIO) : -ENOMEM;
		goto out;
	}
	e = dump_records(&d);
	if (e)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-e));
	else
		e = cdict_writer__finish(d.w, &m, err, errlen);
	if (!e)
		snprintf(path, pathlen, "%s", cdict_writer__path(d.w));
out:
	cdict_writer__free(d.w);
	model_fold__free(d.fold);
	keymap_free(&d.named);
	free(d.open);
	free(d.open_cpu);
	free(d.open_done);
	pwz_meta_free(&m);
	return e;
}

/* ---- the loop ---- */

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1 = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Writes the pending trigger's dump with its window ending at to_ns. */
static int dump_now(struct flight_env *env, unsigned int *nr_dumps, uint64_t to_ns)
{
	struct flight *f = env->fl;
	char run[PATH_MAX], path[PATH_MAX], err[512], d[3][FMT_DURATION_MAX];
	int e;

	/* each dump asks for RUN.cdict, kept files (earlier dumps too) make it RUN-2.cdict, ...;
	 * with --force dump n replaces RUN-n.cdict (outfile.h) */
	if (capture_opts_out_path(env->o, ".cdict", run, sizeof(run)) ||
	    outfile_name(run, ".cdict", env->o->force ? *nr_dumps + 1 : 1, path, sizeof(path))) {
		env->say("output path too long: %s/%s.cdict", env->o->dest_folder, env->o->run_name);
		return -ENAMETOOLONG;
	}
	e = flight__write(f, env, path, sizeof(path), to_ns, f->trig_ns, f->reason, err, sizeof(err));
	flight__dumped(f, to_ns);
	if (e) {
		env->say("%s", err);
		return e;
	}
	(*nr_dumps)++;
	env->say("flight: %s at %s: wrote %s (the %s before %s)", f->reason,
		 fmt_duration(d[0], sizeof(d[0]), f->trig_ns), path,
		 fmt_duration(d[1], sizeof(d[1]),
			      to_ns - (to_ns > f->cfg.window_ns ? to_ns - f->cfg.window_ns : 0)),
		 fmt_duration(d[2], sizeof(d[2]), to_ns));
	return 0;
}

int flight_run(struct flight_env *env)
{
	struct flight *f = env->fl;
	uint64_t deadline = env->o->sleep_given ? (uint64_t)(env->o->sleep_s * 1e9) : 0;
	unsigned int nr_dumps = 0;
	bool sized = f->cfg.budget_bytes != 0;
	char d[FMT_DURATION_MAX];
	struct sigaction sa;
	int e = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	if (sized)
		env->say("flight: keeping the last %s within %.1f MiB (kill -USR1 %d to write it)",
			 fmt_duration(d, sizeof(d), f->cfg.window_ns), f->cfg.budget_bytes / 1048576.0,
			 (int)getpid());
	for (;;) {
		uint64_t now;
		bool end = false;
		const char *why = NULL;
		char sig[32];

		e = capture__poll(env->cap, 100);
		if (e < 0 && e != -EINTR) {
			env->say("reading the ring buffer failed: %s", strerror(-e));
			return e;
		}
		e = 0;
		now = mono_ns() - env->t0;
		if (!sized && now >= 1000000000ull) {
			sized = true;
			flight__size_budget(f, now);
			env->say("flight: %.2f MiB/s of records measured: keeping the last %s within %.1f MiB (kill -USR1 %d to write it)",
				 (double)flight__stored(f) / 1048576.0 * 1e9 / now,
				 fmt_duration(d, sizeof(d), f->cfg.window_ns),
				 flight__budget(f) / 1048576.0, (int)getpid());
		}
		if (usr1) {
			usr1 = 0;
			if (!flight__trigger(f, now, "signal SIGUSR1"))
				env->say("flight: SIGUSR1 ignored: a dump is pending, or its window would overlap the last one's");
		}
		if (*env->stop) {
			snprintf(sig, sizeof(sig), "signal SIG%s", sigabbrev_np(*env->stop) ?: "?");
			why = sig;
		} else if (deadline && now >= deadline) {
			why = "end of -s";
		} else if (env->child > 0 && waitpid(env->child, NULL, WNOHANG) == env->child) {
			env->child = -1;
			why = "end of the command";
		}
		if (why) {
			/* the way out always writes the last window, overlapping the last dump or not */
			end = true;
			if (!f->pending) {
				f->last_to = 0;
				flight__trigger(f, now, why);
			}
		}
		if (f->pending && (end || now >= f->trig_ns + f->cfg.after_ns)) {
			uint64_t to = f->trig_ns + f->cfg.after_ns;

			e = dump_now(env, &nr_dumps, to < now ? to : now);
			if (e || env->o->once)
				break;
		}
		if (end)
			break;
		flight__evict(f, now);
		task_table__forget_gone(env->tt, NULL, NULL);
	}
	return e;
}
