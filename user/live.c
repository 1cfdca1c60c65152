// SPDX-License-Identifier: GPL-2.0
/* pwz-bpf --live: the kernel's totals read every interval, differences per thread and exit. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture.h"
#include "capture_meta.h"
#include "capture_tasks.h"
#include "keymap.h"
#include "live.h"
#include "live_vms.h"
#include "live_screen.h"
#include "model.h"
#include "monotime.h"

/* One reading of the kernel's totals since the start, per thread (sorted by tid). */
struct reading {
	uint64_t t;			/* CLOCK_MONOTONIC of the reading */
	struct live_task *tasks;	/* totals; name and tgid unset */
	size_t nr_tasks, cap_tasks;
	struct live_exit *exits;	/* totals */
	size_t nr_exits;
	uint64_t cnt[PWZ_CNT_MAX];
	uint64_t bpf_ns;
	uint64_t *cpu_busy;		/* totals per CPU (nr_cpu_slots): threads but idle */
	uint64_t *cpu_idle;		/* the idle task (tid 0) */
	uint64_t *cpu_unseen;		/* slices whose switch-in was not seen (R2) */
	struct capture_cpu_stat stat;	/* /proc/stat's cpu line at the reading (steal) */
};

struct live {
	struct capture *cap;
	struct task_table *tt;
	uint64_t t0;
	bool (*selected)(void *ctx, uint32_t tid);
	void *ctx;
	int nr_cpus;
	bool pending_waits;		/* the pending waits are read (capture__pending_waits()):
					 * each reading counts every wait up to it */
	int nr_cpu_slots;		/* possible CPUs: the per-CPU arrays' length */
	int stats_fd;			/* bpf_enable_stats(): run time counted while open */
	struct reading prev, cur;
	struct live_frame frame;
	size_t cap_frame_tasks;
	uint64_t *gone_busy;		/* per CPU: the on-CPU time of the threads forgotten
					 * (live__forget_gone()), which the kernel no longer has */
	uint64_t *gone_unseen;		/* and of their slices whose switch-in was not seen */
	size_t kept;			/* threads the last sweep kept */
};

/* A sweep of the threads gone is due when a reading holds this many threads or more, and
 * twice as many as the last sweep kept: each sweep (a look into /proc per idle thread) is then
 * paid for by the threads it can forget, and the kernel's maps hold the threads alive plus a
 * bounded share. */
#define FORGET_MIN 1024

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The entry of tid in r (sorted), inserted when new. */
static struct live_task *reading_task(struct reading *r, uint32_t tid)
{
	bool found;
	size_t lo = live_task_find(r->tasks, r->nr_tasks, tid, &found);

	if (found)
		return &r->tasks[lo];
	if (r->nr_tasks == r->cap_tasks) {
		size_t n = r->cap_tasks ? 2 * r->cap_tasks : 256;
		struct live_task *p = realloc(r->tasks, n * sizeof(*p));

		if (!p)
			return NULL;
		r->tasks = p;
		r->cap_tasks = n;
	}
	memmove(&r->tasks[lo + 1], &r->tasks[lo], (r->nr_tasks - lo) * sizeof(*r->tasks));
	memset(&r->tasks[lo], 0, sizeof(*r->tasks));
	r->tasks[lo].tid = tid;
	r->nr_tasks++;
	return &r->tasks[lo];
}

/* Adds ns of thread tid to CPU cpu's busy or idle total of r (a CPU past the possible ones,
 * which the kernel never reports, is left out). */
static void reading_cpu(const struct live *l, struct reading *r, uint32_t cpu, uint32_t tid,
			uint64_t ns)
{
	if (cpu >= (uint32_t)l->nr_cpu_slots)
		return;
	if (tid)
		r->cpu_busy[cpu] += ns;
	else
		r->cpu_idle[cpu] += ns;
}

struct open_arg {
	struct live *l;
	struct reading *r;
	int err;
};

/* The slice running on a CPU counts up to the reading, and the wait it ended counts whole (the
 * kernel adds both when the slice ends). */
static int open_cb(void *ctx, uint32_t cpu, const struct cpu_state *st)
{
	struct open_arg *a = ctx;
	uint64_t start = st->start_ns ? st->start_ns : a->l->t0;
	struct live_task *t;

	if (start >= a->r->t || (a->l->selected && !a->l->selected(a->l->ctx, st->tid)))
		return 0;
	t = reading_task(a->r, st->tid);
	if (!t)
		return -ENOMEM;
	t->run_ns += a->r->t - start;
	if (a->l->pending_waits && st->wake_ns >= a->l->t0 && st->wake_ns < start)
		t->wait_ns += start - st->wake_ns;
	reading_cpu(a->l, a->r, cpu, st->tid, a->r->t - start);
	return 0;
}

/* A wait still pending counts up to the reading, as a running slice does (the kernel adds it
 * when it ends): each interval then holds the ready time lived in it. */
static int pending_cb(void *ctx, uint32_t tid, uint64_t since)
{
	struct open_arg *a = ctx;
	struct live_task *t;

	if (since < a->l->t0 || since >= a->r->t || (a->l->selected && !a->l->selected(a->l->ctx, tid)))
		return 0;
	t = reading_task(a->r, tid);
	if (!t)
		return -ENOMEM;
	t->wait_ns += a->r->t - since;
	return 0;
}

/* A vCPU thread's ledger up to the reading (model.h R10). */
static int ledger_cb(void *ctx, const struct pwz_vcpu_ledger *led)
{
	struct open_arg *a = ctx;
	struct live_task *t;

	if (a->l->selected && !a->l->selected(a->l->ctx, led->tid))
		return 0;
	t = reading_task(a->r, led->tid);
	if (!t)
		return -ENOMEM;
	t->has_ledger = true;
	memcpy(t->state_ns, led->ns, sizeof(t->state_ns));
	memcpy(t->cause_ns, led->cause_ns, sizeof(t->cause_ns));
	t->costop_ns = led->costop_ns;
	return 0;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * Adds wait aggregate w into reading task t. Its waits are its count (cpu_aggs), or its
 * histogram's total where that is larger: the maps are read one after the other, cpu_aggs
 * first, and the kernel buckets a wait before it counts it, so a wait that ends between the
 * two reads is in the histogram alone, and has ended. A reading's count is then never short
 * of its histogram, and exceeds it only by the waits the kernel missed (CNT_HIST_MISS); both
 * stay monotonic.
 */
static void reading_wait_agg(struct live_task *t, const struct pwz_wait_agg *w)
{
	uint64_t hist = 0;

	for (int b = 0; b < PWZ_WHIST_BUCKETS; b++) {
		t->wait_hist[b] += (uint32_t)w->hist[b];
		hist += w->hist[b];
	}
	t->waits += max_u64(w->count, hist);
	t->wait_ns += w->wait_ns;
	t->ended_wait_ns += w->wait_ns;
	t->run_delay_ns += w->run_delay_ns;
	t->run_delay_wait_ns += w->run_delay_wait_ns;
	t->run_delay_unmeasured_ns += w->run_delay_unmeasured_ns;
	if (w->max_ns > t->wait_max_ns)
		t->wait_max_ns = w->max_ns;
}

/* Reads the totals into r. */
static int read_totals(struct live *l, struct reading *r)
{
	struct model_fold *f = model_fold__new(NULL);
	const struct pwz_cpu_agg *ca;
	const struct pwz_wait_agg *wa;
	const struct pwz_kvm_agg *ka;
	struct open_arg oa = { l, r, 0 };
	uint64_t cnt;
	size_t n;
	int e;

	if (!f)
		return -ENOMEM;
	r->nr_tasks = 0;
	memcpy(r->cpu_busy, l->gone_busy, l->nr_cpu_slots * sizeof(*r->cpu_busy));
	memset(r->cpu_idle, 0, l->nr_cpu_slots * sizeof(*r->cpu_idle));
	memcpy(r->cpu_unseen, l->gone_unseen, l->nr_cpu_slots * sizeof(*r->cpu_unseen));
	e = capture__read_kernel_aggs(l->cap, f);
	if (e)
		goto out;
	n = model_fold__cpu_aggs(f, &ca);
	for (size_t i = 0; i < n; i++) {
		struct live_task *t = reading_task(r, ca[i].tid);

		if (!t) {
			e = -ENOMEM;
			goto out;
		}
		t->run_ns += ca[i].runtime_ns;
		reading_cpu(l, r, ca[i].cpu, ca[i].tid, ca[i].runtime_ns);
		if (ca[i].cpu < (uint32_t)l->nr_cpu_slots)
			r->cpu_unseen[ca[i].cpu] += ca[i].unseen_ns;
		t->switches += ca[i].switches;
		t->voluntary += ca[i].voluntary;
		t->involuntary += ca[i].involuntary;
	}
	n = model_fold__wait_aggs(f, &wa);
	for (size_t i = 0; i < n; i++) {
		struct live_task *t = reading_task(r, wa[i].tid);

		if (!t) {
			e = -ENOMEM;
			goto out;
		}
		reading_wait_agg(t, &wa[i]);
	}
	n = model_fold__kvm_aggs(f, &ka);
	free(r->exits);
	r->exits = n ? calloc(n, sizeof(*r->exits)) : NULL;
	r->nr_exits = 0;
	if (n && !r->exits) {
		e = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct live_task *t = reading_task(r, ka[i].tid);

		if (!t) {
			e = -ENOMEM;
			goto out;
		}
		t->exits += ka[i].count;
		r->exits[r->nr_exits++] = (struct live_exit){ ka[i].tid, ka[i].isa, ka[i].reason,
							       ka[i].count, ka[i].handling_ns };
	}
	/* the clock, then the running slices: what ran until now counts now */
	r->t = pwz_mono_ns();
	if (capture_meta_read_stat("/proc/stat", &r->stat, NULL, 0))
		r->stat.ok = false;
	if (l->pending_waits) {
		e = capture__pending_waits(l->cap, pending_cb, &oa);
		if (e == -ENOTSUP) {	/* each wait then counts whole in the interval it ends in */
			l->pending_waits = false;
			e = 0;
		}
	}
	if (!e)
		e = capture__open_slices(l->cap, open_cb, &oa);
	if (!e && capture__has_ledger(l->cap))
		e = capture__vcpu_ledgers(l->cap, r->t, false, false, ledger_cb, &oa);
	if (!e)
		e = capture__counters(l->cap, r->cnt);
	if (!e)
		e = capture__prog_stats(l->cap, &r->bpf_ns, &cnt);
out:
	model_fold__free(f);
	return e;
}

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static int exit_cmp(const struct live_exit *a, const struct live_exit *b)
{
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->isa != b->isa)
		return a->isa < b->isa ? -1 : 1;
	return a->reason < b->reason ? -1 : a->reason > b->reason;
}

/*
 * The run-queue wait p99 of t's interval from its histogram's difference (model.h R7); none
 * when the kernel missed histogram entries in the interval (missed: CNT_HIST_MISS grew) and
 * t's histogram holds fewer waits than its count (reading_wait_agg()).
 */
static void wait_p99(struct live_task *t, bool missed)
{
	uint64_t h[PWZ_WHIST_BUCKETS], total = 0;

	for (int b = 0; b < PWZ_WHIST_BUCKETS; b++)
		total += h[b] = t->wait_hist[b];
	t->has_wait_p99 = !(missed && total < t->waits) &&
			  pwz_whist_quantile(h, 0.99, t->wait_max_ns, &t->wait_p99_lo_ns,
					     &t->wait_p99_hi_ns);
	if (!t->has_wait_p99)
		t->wait_p99_lo_ns = t->wait_p99_hi_ns = 0;
}

/*
 * A reading is short of the slice that ends on a CPU while the maps are read (neither in the
 * aggregates read before its end nor running after it): the next reading has it. So that such
 * a dip is never counted twice (once as the running slice before it, once whole after it), a
 * reading never goes below the previous one: cur keeps prev's totals where they are higher,
 * and the threads prev had that cur misses. Returns 0 or -ENOMEM.
 */
static int hold_high_water(struct live *l)
{
	struct reading *p = &l->prev, *c = &l->cur;

	for (int cpu = 0; cpu < l->nr_cpu_slots; cpu++) {
		c->cpu_busy[cpu] = max_u64(c->cpu_busy[cpu], p->cpu_busy[cpu]);
		c->cpu_idle[cpu] = max_u64(c->cpu_idle[cpu], p->cpu_idle[cpu]);
		c->cpu_unseen[cpu] = max_u64(c->cpu_unseen[cpu], p->cpu_unseen[cpu]);
	}
	for (size_t i = 0; i < p->nr_tasks; i++) {
		const struct live_task *pt = &p->tasks[i];
		bool found;
		struct live_task *ct;

		live_task_find(c->tasks, c->nr_tasks, pt->tid, &found);
		ct = reading_task(c, pt->tid);
		if (!ct)
			return -ENOMEM;
		if (!found) {
			*ct = *pt;
			continue;
		}
		ct->run_ns = max_u64(ct->run_ns, pt->run_ns);
		ct->switches = max_u64(ct->switches, pt->switches);
		ct->voluntary = max_u64(ct->voluntary, pt->voluntary);
		ct->involuntary = max_u64(ct->involuntary, pt->involuntary);
		ct->waits = max_u64(ct->waits, pt->waits);
		ct->wait_ns = max_u64(ct->wait_ns, pt->wait_ns);
		ct->exits = max_u64(ct->exits, pt->exits);
		ct->run_delay_ns = max_u64(ct->run_delay_ns, pt->run_delay_ns);
		ct->run_delay_wait_ns = max_u64(ct->run_delay_wait_ns, pt->run_delay_wait_ns);
		ct->run_delay_unmeasured_ns = max_u64(ct->run_delay_unmeasured_ns,
						      pt->run_delay_unmeasured_ns);
		ct->has_ledger |= pt->has_ledger;
		for (int k = 0; k < PWZ_VCPU_STATES; k++)
			ct->state_ns[k] = max_u64(ct->state_ns[k], pt->state_ns[k]);
		for (int k = 0; k < PWZ_READY_CAUSES; k++)
			ct->cause_ns[k] = max_u64(ct->cause_ns[k], pt->cause_ns[k]);
		ct->costop_ns = max_u64(ct->costop_ns, pt->costop_ns);
	}
	return 0;
}

/* A process's name from the task table (live_frame_vms()'s proc_name). */
static const char *proc_name(void *tt, uint32_t tgid)
{
	return task_table__name(tt, tgid);
}

/* The name of frame task t: the display name a capture would write (its VM's), taken once per
 * thread as a capture's first record of it takes it (task_table__touch()), not the bare comm of
 * a thread no record has named, nor read again each interval. */
static void frame_name(struct task_table *tt, struct live_task *t)
{
	struct pwz_task named;
	const char *name = task_table__touch(tt, t->tid, 0, &named) >= 0 ?
			   task_table__name(tt, t->tid) : NULL;

	if (name)
		snprintf(t->name, sizeof(t->name), "%s", name);
	else
		snprintf(t->name, sizeof(t->name), "tid-%u", t->tid);
}

/* Frame task d: thread ct's figures less its previous reading pt's (its running totals; its
 * histogram modulo 2^32 as the kernel's counters wrap). */
static void task_diff(const struct live_task *ct, const struct live_task *pt,
		      struct live_task *d)
{
	*d = (struct live_task){ .tid = ct->tid };
	d->run_ns = sub(ct->run_ns, pt->run_ns);
	d->switches = sub(ct->switches, pt->switches);
	d->voluntary = sub(ct->voluntary, pt->voluntary);
	d->involuntary = sub(ct->involuntary, pt->involuntary);
	d->waits = sub(ct->waits, pt->waits);
	d->wait_ns = sub(ct->wait_ns, pt->wait_ns);
	d->ended_wait_ns = sub(ct->ended_wait_ns, pt->ended_wait_ns);
	d->wait_max_ns = ct->wait_max_ns;
	for (int b = 0; b < PWZ_WHIST_BUCKETS; b++)
		d->wait_hist[b] = ct->wait_hist[b] - pt->wait_hist[b];
	d->exits = sub(ct->exits, pt->exits);
	d->run_delay_ns = sub(ct->run_delay_ns, pt->run_delay_ns);
	d->run_delay_wait_ns = sub(ct->run_delay_wait_ns, pt->run_delay_wait_ns);
	d->run_delay_unmeasured_ns = sub(ct->run_delay_unmeasured_ns, pt->run_delay_unmeasured_ns);
	d->has_ledger = ct->has_ledger;
	for (int st = 0; st < PWZ_VCPU_STATES; st++)
		d->state_ns[st] = sub(ct->state_ns[st], pt->state_ns[st]);
	for (int rc = 0; rc < PWZ_READY_CAUSES; rc++)
		d->cause_ns[rc] = sub(ct->cause_ns[rc], pt->cause_ns[rc]);
	d->costop_ns = sub(ct->costop_ns, pt->costop_ns);
}

/* Frame f's interval and its whole-host figures: switches, drops, BPF time, steal, each
 * CPU's busy, idle and unseen time. */
static void frame_head(const struct live *l, struct live_frame *f)
{
	const struct reading *p = &l->prev, *c = &l->cur;
	struct pwz_meta m = { 0 };

	f->seq++;
	f->t_ns = sub(c->t, l->t0);
	f->wall_ns = wall_ns();
	f->dt_ns = sub(c->t, p->t);
	f->nr_cpus = l->nr_cpus;
	f->switches = sub(c->cnt[CNT_SWITCHES], p->cnt[CNT_SWITCHES]);
	f->drops = sub(c->cnt[CNT_MAP_FULL] + c->cnt[CNT_DROP_TASK] + c->cnt[CNT_HIST_MISS],
		       p->cnt[CNT_MAP_FULL] + p->cnt[CNT_DROP_TASK] + p->cnt[CNT_HIST_MISS]);
	f->bpf_ns = sub(c->bpf_ns, p->bpf_ns);
	capture_meta_steal(&m, &p->stat, &c->stat, sysconf(_SC_CLK_TCK));
	f->has_steal = m.has_steal;
	f->steal_ns = m.steal_ns;
	f->cpu_time_ns = m.cpu_time_ns;
	for (int cpu = 0; cpu < l->nr_cpu_slots; cpu++) {
		f->cpu_busy_ns[cpu] = sub(c->cpu_busy[cpu], p->cpu_busy[cpu]);
		f->cpu_idle_ns[cpu] = sub(c->cpu_idle[cpu], p->cpu_idle[cpu]);
		f->cpu_unseen_ns[cpu] = sub(c->cpu_unseen[cpu], p->cpu_unseen[cpu]);
	}
}

/* The frame's exits: cur's per (thread, reason) less prev's (both sorted by (tid, isa,
 * reason)), those with any in the interval. Returns 0 or -ENOMEM. */
static int frame_exits(struct live_frame *f, const struct reading *p,
		       const struct reading *c)
{
	size_t k = 0;

	free(f->exits);
	f->exits = c->nr_exits ? calloc(c->nr_exits, sizeof(*f->exits)) : NULL;
	f->nr_exits = 0;
	if (c->nr_exits && !f->exits)
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_exits; i++) {
		struct live_exit d = c->exits[i];

		while (k < p->nr_exits && exit_cmp(&p->exits[k], &c->exits[i]) < 0)
			k++;
		if (k < p->nr_exits && !exit_cmp(&p->exits[k], &c->exits[i])) {
			d.count = sub(d.count, p->exits[k].count);
			d.handling_ns = sub(d.handling_ns, p->exits[k].handling_ns);
		}
		if (d.count)
			f->exits[f->nr_exits++] = d;
	}
	return 0;
}

/* frame = cur - prev, threads without activity left out. */
static int make_frame(struct live *l)
{
	struct reading *p = &l->prev, *c = &l->cur;
	struct live_frame *f = &l->frame;
	size_t j = 0;
	bool missed;
	int e;

	frame_head(l, f);
	missed = c->cnt[CNT_HIST_MISS] != p->cnt[CNT_HIST_MISS];
	f->idle_ns = 0;
	f->nr_tasks = 0;
	f->nr_read = c->nr_tasks;
	if (c->nr_tasks > l->cap_frame_tasks) {
		struct live_task *t = realloc(f->tasks, c->nr_tasks * sizeof(*t));

		if (!t)
			return -ENOMEM;
		f->tasks = t;
		l->cap_frame_tasks = c->nr_tasks;
	}
	for (size_t i = 0; i < c->nr_tasks; i++) {
		const struct live_task *ct = &c->tasks[i];
		struct live_task d;

		while (j < p->nr_tasks && p->tasks[j].tid < ct->tid)
			j++;
		if (j < p->nr_tasks && p->tasks[j].tid == ct->tid)
			task_diff(ct, &p->tasks[j], &d);
		else
			d = *ct;
		/* no longer than the interval: a wait that ended between the two reads of a reading
		 * (the aggregates, then the pending waits) counts in the next interval, whole */
		if (d.wait_ns > f->dt_ns)
			d.wait_ns = f->dt_ns;
		if (d.tid == 0) {
			f->idle_ns = d.run_ns;
			continue;
		}
		if (live_task_empty(&d))
			continue;
		wait_p99(&d, missed);	/* (only for the threads the frame keeps) */
		frame_name(l->tt, &d);
		d.tgid = task_table__tgid(l->tt, d.tid);
		f->tasks[f->nr_tasks++] = d;
	}
	e = frame_exits(f, p, c);
	if (e)
		return e;
	return live_frame_vms(f, proc_name, l->tt);
}

/* The per-CPU arrays of r. Returns 0 or -ENOMEM. */
static int reading_alloc(const struct live *l, struct reading *r)
{
	r->cpu_busy = calloc(l->nr_cpu_slots, sizeof(*r->cpu_busy));
	r->cpu_idle = calloc(l->nr_cpu_slots, sizeof(*r->cpu_idle));
	r->cpu_unseen = calloc(l->nr_cpu_slots, sizeof(*r->cpu_unseen));
	return r->cpu_busy && r->cpu_idle && r->cpu_unseen ? 0 : -ENOMEM;
}

struct live *live__new(struct capture *cap, struct task_table *tt, uint64_t t0,
		       bool (*selected)(void *ctx, uint32_t tid), void *ctx, char *err, size_t errlen)
{
	struct live *l = calloc(1, sizeof(*l));
	int e;

	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	l->stats_fd = -1;
	l->cap = cap;
	l->tt = tt;
	l->t0 = t0;
	l->pending_waits = true;
	l->selected = selected;
	l->ctx = ctx;
	l->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	l->nr_cpu_slots = libbpf_num_possible_cpus();
	if (l->nr_cpu_slots < l->nr_cpus)
		l->nr_cpu_slots = l->nr_cpus;
	if (reading_alloc(l, &l->prev) || reading_alloc(l, &l->cur) ||
	    !(l->gone_busy = calloc(l->nr_cpu_slots, sizeof(uint64_t))) ||
	    !(l->gone_unseen = calloc(l->nr_cpu_slots, sizeof(uint64_t))) ||
	    !(l->frame.cpu_busy_ns = calloc(l->nr_cpu_slots, sizeof(uint64_t))) ||
	    !(l->frame.cpu_idle_ns = calloc(l->nr_cpu_slots, sizeof(uint64_t))) ||
	    !(l->frame.cpu_unseen_ns = calloc(l->nr_cpu_slots, sizeof(uint64_t)))) {
		snprintf(err, errlen, "out of memory");
		live__free(l);
		errno = ENOMEM;
		return NULL;
	}
	l->frame.nr_cpu_slots = l->nr_cpu_slots;
	l->frame.has_run_delay = capture__run_delay(cap);
	/* the programs' own run time for the header; without it the header says "bpf ?" */
	l->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	e = read_totals(l, &l->prev);
	if (e) {
		snprintf(err, errlen, "cannot read the kernel aggregates: %s", strerror(-e));
		live__free(l);
		errno = -e;
		return NULL;
	}
	return l;
}

int live__sample(struct live *l, struct live_frame **f)
{
	struct reading tmp;
	int e = read_totals(l, &l->cur);

	if (!e)
		e = hold_high_water(l);
	if (e)
		return e;
	e = make_frame(l);
	tmp = l->prev;
	l->prev = l->cur;
	l->cur = tmp;
	*f = &l->frame;
	return e;
}

/*
 * Whether gone thread tid can leave the kernel's maps: when its final figures v (nr CPUs) are
 * all the last reading counted of it. A slice that ended while that reading walked the maps is
 * in neither (model.h: the next reading has it): such a thread waits for the next sweep. Keeps
 * the per-CPU figures of one that leaves.
 */
static bool drop_gone(void *ctx, uint32_t tid, const struct cpu_agg_val *v, int nr)
{
	struct live *l = ctx;
	const struct reading *r = &l->prev;
	uint64_t run = 0;
	size_t i;
	bool found;

	for (int cpu = 0; cpu < nr; cpu++)
		run += v[cpu].runtime_ns;
	i = live_task_find(r->tasks, r->nr_tasks, tid, &found);
	if (!found || run > r->tasks[i].run_ns)
		return false;
	for (int cpu = 0; cpu < nr && cpu < l->nr_cpu_slots; cpu++) {
		l->gone_busy[cpu] += v[cpu].runtime_ns;
		l->gone_unseen[cpu] += v[cpu].unseen_ns;
	}
	return true;
}

/* Takes the threads tids[0 .. n) (sorted) and their exits out of reading r. */
static void reading_drop(struct reading *r, const uint32_t *tids, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nr_tasks; i++)
		if (!bsearch(&r->tasks[i].tid, tids, n, sizeof(*tids), u32_cmp))
			r->tasks[k++] = r->tasks[i];
	r->nr_tasks = k;
	k = 0;
	for (size_t i = 0; i < r->nr_exits; i++)
		if (!bsearch(&r->exits[i].tid, tids, n, sizeof(*tids), u32_cmp))
			r->exits[k++] = r->exits[i];
	r->nr_exits = k;
}

int live__forget_gone(struct live *l)
{
	struct reading *r = &l->prev;	/* the last reading */
	const struct live_frame *f = &l->frame;
	uint32_t *tids;
	size_t n = 0;
	int e;

	if (r->nr_tasks < FORGET_MIN || r->nr_tasks < 2 * l->kept)
		return 0;
	tids = malloc(r->nr_tasks * sizeof(*tids));
	if (!tids)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_tasks; i++) {
		uint32_t tid = r->tasks[i].tid;
		bool active;

		live_task_find(f->tasks, f->nr_tasks, tid, &active);
		if (tid && !active && !task_table__alive(l->tt, tid))
			tids[n++] = tid;
	}
	e = n ? capture__forget_threads(l->cap, tids, &n, drop_gone, l) : 0;
	if (!e) {
		reading_drop(r, tids, n);
		l->kept = r->nr_tasks;
	}
	free(tids);
	return e ? e : (int)n;
}

void live__free(struct live *l)
{
	if (!l)
		return;
	free(l->gone_busy);
	free(l->gone_unseen);
	if (l->stats_fd >= 0)
		close(l->stats_fd);
	free(l->prev.tasks);
	free(l->prev.exits);
	free(l->prev.cpu_busy);
	free(l->prev.cpu_idle);
	free(l->prev.cpu_unseen);
	free(l->cur.tasks);
	free(l->cur.exits);
	free(l->cur.cpu_busy);
	free(l->cur.cpu_idle);
	free(l->cur.cpu_unseen);
	free(l->frame.tasks);
	free(l->frame.exits);
	free(l->frame.vms);
	free(l->frame.cpu_busy_ns);
	free(l->frame.cpu_idle_ns);
	free(l->frame.cpu_unseen_ns);
	free(l);
}

int live_run(struct capture *cap, struct task_table *tt, uint64_t t0, const struct pwz_meta *meta,
	     const struct live_opts *o, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	uint64_t period = (uint64_t)(o->interval_s * 1e9), next;
	struct live_screen *scr = NULL;
	struct live_frame *f = NULL;
	struct live *l;
	int e = 0;

	l = live__new(cap, tt, t0, o->selected, o->ctx, err, errlen);
	if (!l)
		return -errno;
	if (!o->batch) {
		scr = live_screen__new(STDIN_FILENO, STDOUT_FILENO, o->kvm_view, meta, err, errlen);
		if (!scr) {
			e = -errno;
			goto out;
		}
	}
	next = pwz_mono_ns() + period;
	while (!*stop) {
		uint64_t now = pwz_mono_ns();
		int wait_ms = now >= next ? 0 : (int)((next - now) / 1000000) + 1;

		if (wait_ms > 100)
			wait_ms = 100;
		/* the task records (new threads, renames) keep the names current */
		e = capture__poll(cap, scr ? 0 : wait_ms);
		if (e < 0 && e != -EINTR) {
			snprintf(err, errlen, "reading the ring buffer failed: %s", strerror(-e));
			goto out;
		}
		e = 0;
		if (scr) {
			int k = live_screen__input(scr, wait_ms);

			if (k == LIVE_SCREEN_QUIT)
				break;
		}
		if (pwz_mono_ns() < next)
			continue;
		next += period;
		if (next < pwz_mono_ns())	/* a stall (suspended): no burst of catch-up frames */
			next = pwz_mono_ns() + period;
		e = live__sample(l, &f);
		if (e) {
			snprintf(err, errlen, "cannot read the kernel aggregates: %s", strerror(-e));
			goto out;
		}
		e = live__forget_gone(l);
		if (e < 0) {
			snprintf(err, errlen, "cannot drop the threads gone from the kernel's maps: %s",
				 strerror(-e));
			goto out;
		}
		e = 0;
		task_table__forget_gone(tt, NULL, NULL);
		if (scr)
			live_screen__frame(scr, f);
		else if (o->json)
			e = live_print_json(stdout, f, meta);
		else
			e = live_print_text(stdout, f, meta, o->kvm_view);
		if (e) {
			snprintf(err, errlen, "cannot write to standard output: %s", strerror(-e));
			goto out;
		}
		if (o->count && f->seq >= o->count)
			break;
	}
out:
	live_screen__free(scr);
	live__free(l);
	return e;
}
