// SPDX-License-Identifier: GPL-2.0
/* pwz-bpf --flight: records of the last N seconds kept in chunks, dumped as a cdict on a trigger. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "capture.h"
#include "capture_opts.h"
#include "capture_tasks.h"
#include "cdict.h"
#include "flight.h"
#include "fmt.h"
#include "keymap.h"
#include "ledger_fold.h"
#include "model.h"
#include "monotime.h"
#include "visit.h"

enum { ENT_SLICE = 1, ENT_EXIT = 2 };
#define ENT_WAIT 0x80000000u

/* One stored record: 64 bytes (a slice with its reported state and charge, and its wait's
 * start and kind; the waker is not kept). */
struct entry {
	uint32_t type;			/* ENT_SLICE or ENT_EXIT */
	uint32_t wait;			/* slice: ENT_WAIT with the wait's flags but the waker's
					 * (wake_ns holds its start); 0 no wait */
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
	uint64_t trig_ns;		/* its time */
	uint32_t trig_tid;		/* its thread; 0 none */
	char reason[128];		/* its reason, without the thread */
	uint64_t last_to;		/* the end of the last dump's window; 0 none */
	uint64_t arm_ns;		/* waits and exits ending before this fire nothing */
	struct pwz_wakeup wait;		/* flight__visitor(): the wait before the next slice */
	bool has_wait;
};

struct flight *flight__new(const struct flight_cfg *cfg)
{
	struct flight *f = calloc(1, sizeof(*f));

	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	f->cfg = *cfg;
	f->arm_ns = cfg->arm_ns;
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
	int added;
	int64_t i = keymap_get(&f->task_map, t->tid, 0, &added);
	uint64_t since;

	if (i < 0)
		return -ENOMEM;
	if (array_reserve((void **)&f->tasks, &f->cap_tasks, (size_t)i + 1, sizeof(*f->tasks)))
		return -ENOMEM;
	/* a renaming of the same instance keeps its birth (the ledger's late threads) */
	since = t->flags & PWZ_TASK_BORN ? t->time_ns : added ? 0 : f->tasks[i].since_ns;
	f->tasks[i] = *t;
	f->tasks[i].since_ns = since;
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

bool flight__trigger(struct flight *f, uint64_t t_ns, uint32_t tid, const char *reason)
{
	/* the new window must start where the last one ended: no record is dumped twice, and a
	 * storm of long waits makes one dump per window, not one per wait */
	if (f->pending || (f->last_to && t_ns + f->cfg.after_ns < f->last_to + f->cfg.window_ns))
		return false;
	f->pending = true;
	f->trig_ns = t_ns;
	f->trig_tid = tid;
	snprintf(f->reason, sizeof(f->reason), "%s", reason);
	return true;
}

void flight__dumped(struct flight *f, uint64_t to_ns)
{
	f->pending = false;
	f->last_to = to_ns;
}

void flight__dump_failed(struct flight *f, uint64_t to_ns)
{
	f->pending = false;
	if (to_ns + f->cfg.window_ns > f->arm_ns)
		f->arm_ns = to_ns + f->cfg.window_ns;
}

int flight__slice(struct flight *f, const struct pwz_slice *s, const struct pwz_wakeup *w)
{
	struct entry *e = new_entry(f, s->start_ns + s->dur_ns);

	if (!e)
		return -ENOMEM;
	e->type = ENT_SLICE;
	e->wait = w ? ENT_WAIT | (w->flags & ~(uint32_t)PWZ_WAKEUP_WAKER) : 0;
	e->sl.s = *s;
	e->sl.wake_ns = w ? w->wake_ns : 0;
	if (w && f->cfg.trigger_wait_ns && w->wait_ns > f->cfg.trigger_wait_ns &&
	    w->wake_ns + w->wait_ns >= f->arm_ns) {
		char why[64], d[FMT_DURATION_MAX];

		snprintf(why, sizeof(why), "wait %s", fmt_duration(d, sizeof(d), w->wait_ns));
		flight__trigger(f, w->wake_ns + w->wait_ns, s->tid, why);
	}
	return 0;
}

int flight__kvm_exit(struct flight *f, const struct pwz_kvm_exit *x)
{
	struct entry *e = new_entry(f, x->time_ns + x->handling_ns);

	if (!e)
		return -ENOMEM;
	e->type = ENT_EXIT;
	e->wait = 0;
	e->e = *x;
	if (f->cfg.trigger_exit_ns && x->handling_ns > f->cfg.trigger_exit_ns &&
	    x->time_ns + x->handling_ns >= f->arm_ns) {
		char why[64], d[FMT_DURATION_MAX];

		snprintf(why, sizeof(why), "kvm exit %u handled in %s", x->reason,
			 fmt_duration(d, sizeof(d), x->handling_ns));
		/* at the exit's end, as a wait triggers at its end: the window holds the exit */
		flight__trigger(f, x->time_ns + x->handling_ns, x->tid, why);
	}
	return 0;
}

static int v_task(void *ctx, const struct pwz_task *t)
{
	return flight__task(ctx, t);
}

static int v_wakeup(void *ctx, const struct pwz_wakeup *w)
{
	struct flight *f = ctx;

	f->wait = *w;
	f->has_wait = true;
	return 0;
}

static int v_slice(void *ctx, const struct pwz_slice *s)
{
	struct flight *f = ctx;
	bool waited = f->has_wait && f->wait.tid == s->tid && f->wait.cpu == s->cpu;

	f->has_wait = false;
	return flight__slice(f, s, waited ? &f->wait : NULL);
}

static int v_kvm_exit(void *ctx, const struct pwz_kvm_exit *e)
{
	return flight__kvm_exit(ctx, e);
}

struct cdict_visitor flight__visitor(struct flight *f)
{
	return (struct cdict_visitor){ .ctx = f, .task = v_task, .slice = v_slice,
				       .wakeup = v_wakeup, .kvm_exit = v_kvm_exit };
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
	struct visit_gate gate;		/* to w, each record after its thread's task record */
	struct cdict_visitor out;	/* the gate */
	struct model_fold *fold;
	struct ledger_fold *ledger;	/* the vCPU ledger of the window, from what is written */
	struct visit_tee tee;		/* the gate's records to the file and to ledger */
	struct model_window win;
	struct keymap named;		/* tids whose task record is in the dump */
	struct cpu_state *open;		/* each CPU's running slice, read before the last drain */
	uint32_t *open_cpu;
	bool *open_done;		/* its record came in the drain: not written twice */
	size_t nr_open;
};

/* The naming of tid in a dump into out: the recorder's, else the task table's (a thread only
 * the CPU state or a trigger names: the table reads it, or says tid-N). Returns 0 or -ENOMEM. */
static int dump_naming(struct flight *f, struct task_table *tt, uint32_t tid, struct pwz_task *out)
{
	const struct pwz_task *k = task_of(f, tid);
	int e;

	if (!k) {
		e = task_table__touch(tt, tid, 0, out);
		if (e < 0)
			return e;
		if (e > 0 && (e = flight__task(f, out)))
			return e;
		k = task_of(f, tid);
	}
	if (k) {
		*out = *k;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->tid = tid;
	snprintf(out->comm, sizeof(out->comm), "%s", task_table__name(tt, tid) ?: "?");
	snprintf(out->name, sizeof(out->name), "%s", task_table__name(tt, tid) ?: "?");
	out->tgid = task_table__tgid(tt, tid);
	return 0;
}

/* The task record of tid, once per dump, before its first record (the gate's name()). */
static int dump_task(void *ctx, uint32_t tid, uint64_t time_ns)
{
	struct dump *d = ctx;
	struct pwz_task t;
	int added = 0, e;

	(void)time_ns;	/* named from the window's start */
	if (keymap_get(&d->named, tid, 0, &added) < 0)
		return -ENOMEM;
	if (!added)
		return 0;
	if ((e = dump_naming(d->f, d->env->tt, tid, &t)))
		return e;
	/* born inside the window: not there at its start, as its task record at 0 says */
	if (d->ledger && t.since_ns > d->win.from_ns && (e = ledger_fold__late(d->ledger, tid)))
		return e;
	t.time_ns = 0;
	if (d->ledger && (e = ledger_fold__task(d->ledger, &t)))
		return e;
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
	if (w && model_wait_in(w, &d->win) && w->wake_ns >= from) {
		struct pwz_wakeup cw = *w;

		cw.wake_ns -= from;
		if ((e = d->out.wakeup(d->out.ctx, &cw)))
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
	return d->out.slice(d->out.ctx, &c);
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

static int dump_records(struct dump *d)
{
	int e = 0;

	for (struct chunk *c = d->f->head; c && !e; c = c->next) {
		for (uint32_t i = 0; i < c->n && !e; i++) {
			const struct entry *x = &c->e[i];

			if (x->type == ENT_SLICE) {
				struct pwz_wakeup w = {
					.tid = x->sl.s.tid, .cpu = x->sl.s.cpu, .wake_ns = x->sl.wake_ns,
					.wait_ns = x->sl.s.start_ns - x->sl.wake_ns,
					.flags = x->wait & ~ENT_WAIT,
				};

				open_seen(d, &x->sl.s);
				e = dump_slice(d, &x->sl.s, x->wait ? &w : NULL);
			} else if (model_exit_in(&x->e, &d->win)) {
				struct pwz_kvm_exit k = x->e;

				e = model_fold__kvm_exit(d->fold, &k);
				k.time_ns -= d->win.from_ns;
				if (!e)
					e = d->out.kvm_exit(d->out.ctx, &k);
			}
		}
	}
	for (size_t i = 0; i < d->nr_open && !e; i++)
		if (!d->open_done[i])
			e = dump_open(d, d->open_cpu[i], &d->open[i]);
	if (!e)
		e = model_fold__emit(d->fold, &d->out);
	if (!e && d->ledger) {
		struct cdict_visitor file = cdict_writer__visitor(d->w);

		e = ledger_fold__emit(d->ledger, d->win.to_ns - d->win.from_ns, &file);
	}
	return e;
}

/* A failed dump's file: its whole chunks kept as a capture's are, said after err. */
static void keep_note(struct cdict_writer *w, char *err, size_t errlen)
{
	size_t n = strlen(err);
	char note[2 * PATH_MAX + 160];

	cdict_writer__keep_partial_note(w, note, sizeof(note));
	snprintf(err + n, errlen - n, "; %s", note);
}

/* The dump's metadata into m: the capture's, its time 0 moved to the window's start (d->win),
 * the pending trigger with its thread's name, the drop counters. Returns 0 or -errno with err. */
static int dump_meta(struct dump *d, bool cut, struct pwz_meta *m, char *err, size_t errlen)
{
	struct flight *f = d->f;
	struct pwz_task t;
	int e;

	if (pwz_meta_copy(m, d->env->meta)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	m->start_mono_ns = d->env->t0 + d->win.from_ns;
	if (m->start_wall_ns)
		m->start_wall_ns += d->win.from_ns;
	m->duration_ns = d->win.to_ns - d->win.from_ns;
	m->trigger_ns = f->trig_ns > d->win.from_ns ? f->trig_ns - d->win.from_ns : 0;
	m->trigger_tid = f->trig_tid;
	m->nr_drops = 0;
	e = pwz_meta_set_str(&m->trigger, f->reason);
	if (!e && f->trig_tid && !(e = dump_naming(f, d->env->tt, f->trig_tid, &t)))
		e = pwz_meta_set_str(&m->trigger_thread, t.name);
	if (!e && d->env->counters)
		e = d->env->counters(d->env->ctx, m);
	/* the budget cut this window short: the records evicted early so far say how much */
	if (!e && cut)
		e = pwz_meta_add_drop(m, "flight_budget", f->evicted_early);
	if (e)
		snprintf(err, errlen, "cannot fill the dump's metadata: %s", strerror(-e));
	return e;
}

int flight__write(struct flight *f, struct flight_env *env, char *path, size_t pathlen,
		  uint64_t to_ns, struct flight_dump *out, char *err, size_t errlen)
{
	struct cdict_writer_opts wo = { .mode = env->o->mode, .exists = capture_opts_exists(env->o) };
	struct dump d = { .f = f, .env = env };
	struct pwz_meta m = { 0 };
	bool cut = false;
	int e;

	d.win.to_ns = to_ns;
	d.win.from_ns = to_ns > f->cfg.window_ns ? to_ns - f->cfg.window_ns : 0;
	if (d.win.from_ns < f->valid_from) {
		d.win.from_ns = f->valid_from < to_ns ? f->valid_from : to_ns;
		cut = true;
	}
	e = dump_meta(&d, cut, &m, err, errlen);
	if (e)
		goto out;
	out->from_ns = d.win.from_ns;
	out->to_ns = d.win.to_ns;
	pwz_meta_trigger_text(&m, out->trigger, sizeof(out->trigger));
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
	d.gate = (struct visit_gate){ .next = cdict_writer__visitor(d.w), .name = dump_task,
				      .name_ctx = &d };
	/* the vCPU ledger (model.h R10) as the records written give it, with the scheduler's
	 * switches and waits and the KVM exits, as a live capture needs the same */
	if (m.has_kvm && m.has_wait && m.has_switch_kind) {
		d.ledger = ledger_fold__new();
		if (!d.ledger) {
			e = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		d.tee = (struct visit_tee){ .a = d.gate.next, .b = ledger_fold__visitor(d.ledger) };
		d.gate.next = visit_tee__visitor(&d.tee);
	}
	d.out = visit_gate__visitor(&d.gate);
	/* the triggering thread is named in the file even when none of its records is */
	e = f->trig_tid ? dump_task(&d, f->trig_tid, 0) : 0;
	if (!e)
		e = dump_records(&d);
	if (e)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-e));
	else
		e = cdict_writer__finish(d.w, &m, err, errlen);
	if (!e)
		snprintf(path, pathlen, "%s", cdict_writer__path(d.w));
	else
		keep_note(d.w, err, errlen);
out:
	cdict_writer__free(d.w);
	model_fold__free(d.fold);
	ledger_fold__free(d.ledger);
	keymap_free(&d.named);
	free(d.open);
	free(d.open_cpu);
	free(d.open_done);
	pwz_meta_free(&m);
	return e;
}

/* ---- the loop ---- */

/* Writes the pending trigger's dump with its window ending at to_ns; a failed one is said with
 * what it kept and whether the recording goes on (not at the end). Returns 0 or -errno. */
static int dump_now(struct flight_env *env, unsigned int *nr_dumps, uint64_t to_ns, bool end)
{
	struct flight *f = env->fl;
	char run[PATH_MAX], path[PATH_MAX], err[2 * PATH_MAX + 512], why[128] = "";
	char d[4][FMT_DURATION_MAX];
	struct flight_dump dd;
	int e;

	/* each dump asks for RUN.cdict, kept files (earlier dumps too) make it RUN-2.cdict, ...;
	 * with --force dump n replaces RUN-n.cdict (outfile.h) */
	if (capture_opts_out_path(env->o, ".cdict", run, sizeof(run)) ||
	    outfile_name(run, ".cdict", env->o->force ? *nr_dumps + 1 : 1, path, sizeof(path))) {
		env->say("output path too long: %s/%s.cdict", env->o->dest_folder, env->o->run_name);
		return -ENAMETOOLONG;
	}
	e = flight__write(f, env, path, sizeof(path), to_ns, &dd, err, sizeof(err));
	if (e) {
		flight__dump_failed(f, to_ns);
		env->say("flight: %s%s", err, end ? "" : "; recording goes on");
		return e;
	}
	flight__dumped(f, to_ns);
	(*nr_dumps)++;
	/* a window shorter than asked: the recording had not run that long, or the budget */
	if (dd.to_ns - dd.from_ns < f->cfg.window_ns)
		snprintf(why, sizeof(why), ", not %s: %s",
			 fmt_duration(d[0], sizeof(d[0]), f->cfg.window_ns),
			 dd.from_ns ? "the memory budget held no more (--flight-mb)" :
			 "the recording had not run that long");
	env->say("flight: %s at %s: wrote %s (the %s before %s%s)", dd.trigger,
		 fmt_duration(d[1], sizeof(d[1]), f->trig_ns), path,
		 fmt_duration(d[2], sizeof(d[2]), dd.to_ns - dd.from_ns),
		 fmt_duration(d[3], sizeof(d[3]), dd.to_ns), why);
	return 0;
}

/* At the start: when the waits and exits that run long will fire. */
static void say_arming(struct flight_env *env)
{
	const struct flight_cfg *c = &env->fl->cfg;
	const char *which = c->trigger_wait_ns && c->trigger_exit_ns ? "--trigger-wait and --trigger-exit" :
			    c->trigger_wait_ns ? "--trigger-wait" : "--trigger-exit";
	char d[FMT_DURATION_MAX];

	env->say("flight: %s armed at %s, %s", which, fmt_duration(d, sizeof(d), c->arm_ns),
		 env->o->arm_after_given ? "as --arm-after asks" :
		 "when the window is full (--arm-after DUR arms earlier or later)");
}

/* The trigger of this poll, if any: SIGUSR1, or the way out (a stop signal, -s, the command's
 * end), into sig (the reason). Returns the reason, NULL none; *end set on the way out. */
static const char *poll_trigger(struct flight_env *env, uint64_t now, uint64_t deadline,
				char *sig, size_t siglen, bool *end)
{
	if (*env->usr1) {
		*env->usr1 = 0;
		if (!flight__trigger(env->fl, now, 0, "signal SIGUSR1"))
			env->say("flight: SIGUSR1 ignored: a dump is pending, or its window would overlap the last one's");
	}
	*end = true;
	if (*env->stop) {
		snprintf(sig, siglen, "signal SIG%s", sigabbrev_np(*env->stop) ?: "?");
		return sig;
	}
	if (deadline && now >= deadline)
		return "end of -s";
	if (env->child > 0 && waitpid(env->child, NULL, WNOHANG) == env->child) {
		env->child = -1;
		return "end of the command";
	}
	*end = false;
	return NULL;
}

void flight_begin(struct flight_env *env, struct flight_loop *lp)
{
	struct flight *f = env->fl;
	char d[FMT_DURATION_MAX];

	*lp = (struct flight_loop){
		.deadline = env->o->sleep_given ? (uint64_t)(env->o->sleep_s * 1e9) : 0,
		.armed = !f->cfg.trigger_wait_ns && !f->cfg.trigger_exit_ns,
		.sized = f->cfg.budget_bytes != 0,
	};
	if (*env->usr1) {
		*env->usr1 = 0;
		env->say("flight: SIGUSR1 came while pwz-bpf was starting: no dump, nothing was recorded yet (send it again now)");
	}
	if (lp->sized)
		env->say("flight: keeping the last %s within %.1f MiB (kill -USR1 %d to write it)",
			 fmt_duration(d, sizeof(d), f->cfg.window_ns), f->cfg.budget_bytes / 1048576.0,
			 (int)getpid());
	else
		env->say("flight: recording (kill -USR1 %d to write the last %s); the memory budget is sized over the first second",
			 (int)getpid(), fmt_duration(d, sizeof(d), f->cfg.window_ns));
	if (!lp->armed)
		say_arming(env);
}

int flight_step(struct flight_env *env, struct flight_loop *lp)
{
	struct flight *f = env->fl;
	uint64_t now = pwz_mono_ns() - env->t0;
	char d[FMT_DURATION_MAX], sig[32];
	const char *why;
	bool end;
	int e = 0;

	if (!lp->sized && now >= 1000000000ull) {
		lp->sized = true;
		flight__size_budget(f, now);
		env->say("flight: %.2f MiB/s of records measured: keeping the last %s within %.1f MiB (kill -USR1 %d to write it)",
			 (double)flight__stored(f) / 1048576.0 * 1e9 / now,
			 fmt_duration(d, sizeof(d), f->cfg.window_ns),
			 flight__budget(f) / 1048576.0, (int)getpid());
	}
	if (!lp->armed && now >= f->cfg.arm_ns) {
		lp->armed = true;
		env->say("flight: triggers armed at %s", fmt_duration(d, sizeof(d), now));
	}
	why = poll_trigger(env, now, lp->deadline, sig, sizeof(sig), &end);
	/* the way out always writes the last window, overlapping the last dump or not */
	if (why && !f->pending) {
		f->last_to = 0;
		flight__trigger(f, now, 0, why);
	}
	if (f->pending && (end || now >= f->trig_ns + f->cfg.after_ns)) {
		uint64_t to = f->trig_ns + f->cfg.after_ns;

		e = dump_now(env, &lp->nr_dumps, to < now ? to : now, end);
		if (end || e == -ENOMEM || (!e && env->o->once))
			return e ? e : 1;
		e = 0;	/* a failed dump was said with what it kept: recording goes on */
	}
	if (end)
		return 1;
	flight__evict(f, now);
	task_table__forget_gone(env->tt, NULL, NULL);
	return 0;
}

int flight_run(struct flight_env *env)
{
	struct flight_loop lp;
	int e = 0;

	flight_begin(env, &lp);
	while (!e) {
		e = capture__poll(env->cap, 100);
		if (e < 0 && e != -EINTR) {
			env->say("reading the ring buffer failed: %s", strerror(-e));
			return e;
		}
		e = flight_step(env, &lp);
	}
	return e < 0 ? e : 0;
}
