// SPDX-License-Identifier: GPL-2.0
/* The per-exit on/off-CPU split of the Parquet kvm_exit table: exits held until their slices are read. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "export_split.h"
#include "trace.h"
#include "vms.h"

/* An exit whose split is not decided yet. */
struct pend {
	struct pwz_kvm_exit e;
	uint64_t idx;			/* its place among its thread's exits in the file (0, 1, ...) */
};

/* Exits let go of for the memory bound: the thread's exits idx first..last (one run of its
 * exits, all pending then), over [t0, t1). They are read again by export_split__replay_exit(). */
struct evicted {
	uint64_t first, last;
	uint64_t t0, t1;
};

/* What is held of one thread instance. Its slices and waits are sorted by start. */
struct sthr {
	struct pend *pend;		/* exits whose split is not decided, in time order */
	size_t nr_pend, cap_pend;
	struct evicted *ev;		/* in time order */
	size_t nr_ev, cap_ev;
	uint64_t nr_exits;		/* its exits read (the next one's idx) */
	uint64_t replayed;		/* its exits read again by the replay */
	struct pwz_slice *sl;		/* slices that a held or a later exit may overlap */
	size_t nr_sl, cap_sl;
	struct pwz_wakeup *wk;		/* waits, likewise */
	size_t nr_wk, cap_wk;
	uint64_t max_end;		/* latest end of its slices read */
	uint64_t dropped_end;		/* latest end of a slice or wait let go while still possibly
					 * needed (no pending exit then): a later exit that starts
					 * before it has an unknown split */
	uint64_t last_t1;		/* end of its latest exit read */
	bool any_slice;			/* a slice of it was read */
	bool listed;			/* in export_split.busy */
};

struct export_split {
	bool ordered;			/* each thread's slices in time order in the file */
	bool no_slices;			/* the capture has no slices: every split unknown */
	export_split_emit_fn emit;
	void *ctx;
	struct sthr *th;		/* [utid - 1] */
	size_t nr_th;
	uint64_t held;			/* records held by the threads with pending exits: those
					 * exits, their slices and waits (the others hold at most
					 * 2 * EXPORT_SPLIT_KEEP of each) */
	uint64_t overflowed;		/* exits whose records were let go: split unknown */
	uint64_t evicted;		/* exits let go of, to be read again */
	uint64_t forced;		/* live: exits decided before every CPU's slices were read */
	uint64_t cpu_end[PWZ_MAX_CPUS];	/* latest slice end read per CPU (live: the watermark) */
	bool cpu_seen[PWZ_MAX_CPUS];
	uint32_t max_cpu1;
	uint32_t *busy;			/* utids with pending exits (may hold stale ones) */
	size_t nr_busy, cap_busy;
	uint64_t since_retry;		/* slices read since the busy threads were last retried */
	const struct pwz_slice **slp;	/* scratch: pointers for vms_split_interval() */
	size_t cap_slp;
	const struct pwz_wakeup **wkp;
	size_t cap_wkp;
};

static int grow(void **p, size_t *cap, size_t want, size_t size)
{
	size_t n = *cap ? *cap : 8;
	void *q;

	if (want <= *cap)
		return 0;
	while (n < want)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

struct export_split *export_split__new(bool ordered, bool no_slices, uint32_t nr_cpus,
				       export_split_emit_fn emit, void *ctx)
{
	struct export_split *xs = calloc(1, sizeof(*xs));

	if (!xs) {
		errno = ENOMEM;
		return NULL;
	}
	xs->ordered = ordered;
	xs->no_slices = no_slices;
	xs->emit = emit;
	xs->ctx = ctx;
	/* a CPU whose first slices are not written yet holds the watermark at 0 */
	xs->max_cpu1 = nr_cpus < PWZ_MAX_CPUS ? nr_cpus : PWZ_MAX_CPUS;
	for (uint32_t c = 0; c < xs->max_cpu1; c++)
		xs->cpu_seen[c] = true;
	return xs;
}

static struct sthr *sthr_of(struct export_split *xs, uint32_t utid)
{
	size_t cap = xs->nr_th;

	if (!utid)
		return NULL;
	if (utid > xs->nr_th) {
		if (grow((void **)&xs->th, &cap, utid, sizeof(*xs->th)))
			return NULL;
		memset(xs->th + xs->nr_th, 0, (cap - xs->nr_th) * sizeof(*xs->th));
		xs->nr_th = cap;
	}
	return &xs->th[utid - 1];
}

/* What th counts in export_split.held. */
static uint64_t held_by(const struct sthr *th)
{
	return th->nr_pend || th->nr_ev ? th->nr_pend + th->nr_sl + th->nr_wk : 0;
}

static uint64_t slice_end(const struct pwz_slice *s)
{
	return s->start_ns + s->dur_ns;
}

static uint64_t wait_end(const struct pwz_wakeup *w)
{
	return w->wake_ns + w->wait_ns;
}

/* Lowest slice end read over the CPUs that have slices: every CPU's slices ending at or before
 * it have been read (each CPU's slices are in the file in its order). */
static uint64_t watermark(const struct export_split *xs)
{
	uint64_t w = UINT64_MAX;

	for (uint32_t c = 0; c < xs->max_cpu1; c++)
		if (xs->cpu_seen[c] && xs->cpu_end[c] < w)
			w = xs->cpu_end[c];
	return w;
}

/* out = the first index in [0, n) where BEFORE (of m_) is false; BEFORE is monotonic. */
#define BSEARCH(out, n, BEFORE)							\
	do {									\
		size_t a_ = 0, b_ = (n);					\
		while (a_ < b_) {						\
			size_t m_ = a_ + (b_ - a_) / 2;				\
			if (BEFORE)						\
				a_ = m_ + 1;					\
			else							\
				b_ = m_;					\
		}								\
		(out) = a_;							\
	} while (0)

static int emit_known(struct export_split *xs, struct sthr *th, uint32_t utid,
		      const struct pwz_kvm_exit *e)
{
	uint64_t from = e->time_ns, to = e->time_ns + e->handling_ns, on, rd, sl;
	size_t s0, s1, w0, w1, i;

	/* those the rule looks at (vms.c: from the first ending after from, by a binary search, to
	 * the first starting at or after to), so that its result is the same as on all of them */
	BSEARCH(s0, th->nr_sl, slice_end(&th->sl[m_]) <= from);
	BSEARCH(s1, th->nr_sl, th->sl[m_].start_ns < to);
	BSEARCH(w0, th->nr_wk, wait_end(&th->wk[m_]) <= from);
	BSEARCH(w1, th->nr_wk, th->wk[m_].wake_ns < to);
	if (s1 < s0)
		s1 = s0;
	if (w1 < w0)
		w1 = w0;
	if (grow((void **)&xs->slp, &xs->cap_slp, s1 - s0 + 1, sizeof(*xs->slp)) ||
	    grow((void **)&xs->wkp, &xs->cap_wkp, w1 - w0 + 1, sizeof(*xs->wkp)))
		return -ENOMEM;
	for (i = s0; i < s1; i++)
		xs->slp[i - s0] = &th->sl[i];
	for (i = w0; i < w1; i++)
		xs->wkp[i - w0] = &th->wk[i];
	vms_split_interval(xs->slp, s1 - s0, xs->wkp, w1 - w0, from, to, &on, &rd, &sl);
	return xs->emit(xs->ctx, e, utid, true, on, rd, sl);
}

/* The held slice that contains [from, to) whole, with its switch-in seen; NULL none. */
static const struct pwz_slice *containing(const struct sthr *th, uint64_t from, uint64_t to)
{
	size_t a = 0, b = th->nr_sl;

	while (a < b) {		/* the last slice starting at or before from */
		size_t m = a + (b - a) / 2;

		if (th->sl[m].start_ns <= from)
			a = m + 1;
		else
			b = m;
	}
	if (!a)
		return NULL;
	if (slice_end(&th->sl[a - 1]) >= to && !(th->sl[a - 1].flags & PWZ_SLICE_UNSEEN_START))
		return &th->sl[a - 1];
	return NULL;
}

/* [from, to) overlaps an evicted run of the thread: the replay needs it. */
static bool for_evicted(const struct sthr *th, uint64_t from, uint64_t to)
{
	size_t a = 0, b = th->nr_ev;

	while (a < b) {		/* the first run ending after from */
		size_t m = a + (b - a) / 2;

		if (th->ev[m].t1 <= from)
			a = m + 1;
		else
			b = m;
	}
	return a < th->nr_ev && th->ev[a].t0 < to;
}

/*
 * Lets go of what no held exit, no evicted one and no later exit of the thread can overlap; with
 * no pending exit, of all but the last EXPORT_SPLIT_KEEP (a thread without exits, or between two
 * exits), noting the latest end let go (dropped_end).
 */
static void prune(struct sthr *th)
{
	uint64_t horizon = th->last_t1;
	size_t i, n, live, over;

	if (th->nr_pend) {
		/* the oldest pending exit's start: the leading slices and waits that end before it
		 * (and serve no evicted run) go; cheap, as it runs at each record of a busy thread */
		horizon = th->pend[0].e.time_ns;
		for (i = 0; i < th->nr_sl && slice_end(&th->sl[i]) <= horizon &&
		     !(th->nr_ev && for_evicted(th, th->sl[i].start_ns, slice_end(&th->sl[i]))); i++)
			;
		if (i) {
			memmove(th->sl, th->sl + i, (th->nr_sl - i) * sizeof(*th->sl));
			th->nr_sl -= i;
		}
		for (i = 0; i < th->nr_wk && wait_end(&th->wk[i]) <= horizon &&
		     !(th->nr_ev && for_evicted(th, th->wk[i].wake_ns, wait_end(&th->wk[i]))); i++)
			;
		if (i) {
			memmove(th->wk, th->wk + i, (th->nr_wk - i) * sizeof(*th->wk));
			th->nr_wk -= i;
		}
		return;
	}
	/* slices: first those past the horizon (not for an evicted run), then the others kept */
	for (i = live = 0; i < th->nr_sl; i++)
		live += slice_end(&th->sl[i]) > horizon;
	over = !th->nr_pend && live > EXPORT_SPLIT_KEEP ? live - EXPORT_SPLIT_KEEP : 0;
	for (i = n = 0; i < th->nr_sl; i++) {
		const struct pwz_slice *x = &th->sl[i];
		bool ev = th->nr_ev && for_evicted(th, x->start_ns, slice_end(x));
		bool keep = slice_end(x) > horizon;

		if (keep && over) {
			over--;
			keep = false;
			if (!ev && slice_end(x) > th->dropped_end)
				th->dropped_end = slice_end(x);
		}
		if (keep || ev)
			th->sl[n++] = *x;
	}
	th->nr_sl = n;
	for (i = live = 0; i < th->nr_wk; i++)
		live += wait_end(&th->wk[i]) > horizon;
	over = !th->nr_pend && live > EXPORT_SPLIT_KEEP ? live - EXPORT_SPLIT_KEEP : 0;
	for (i = n = 0; i < th->nr_wk; i++) {
		const struct pwz_wakeup *x = &th->wk[i];
		bool ev = th->nr_ev && for_evicted(th, x->wake_ns, wait_end(x));
		bool keep = wait_end(x) > horizon;

		if (keep && over) {
			over--;
			keep = false;
			if (!ev && wait_end(x) > th->dropped_end)
				th->dropped_end = wait_end(x);
		}
		if (keep || ev)
			th->wk[n++] = *x;
	}
	th->nr_wk = n;
}

/*
 * Decides the thread's pending exits that can be: those whose entry is at or before limit (the
 * slices that decide them are read), then those that the new slice news (NULL none) contains.
 * Pending exits are in time order, so the first ones are a prefix.
 */
static int settle_upto(struct export_split *xs, uint32_t utid, uint64_t limit,
		       const struct pwz_slice *news)
{
	struct sthr *th = &xs->th[utid - 1];
	size_t k, i, n;
	int ret = 0;

	xs->held -= held_by(th);
	for (k = 0; k < th->nr_pend && !ret; k++) {
		const struct pwz_kvm_exit *e = &th->pend[k].e;

		if (e->time_ns + e->handling_ns > limit)
			break;
		if (!th->any_slice)
			ret = xs->emit(xs->ctx, e, utid, false, 0, 0, 0);
		else if (containing(th, e->time_ns, e->time_ns + e->handling_ns))
			ret = xs->emit(xs->ctx, e, utid, true, e->handling_ns, 0, 0);
		else
			ret = emit_known(xs, th, utid, e);
	}
	if (k) {
		memmove(th->pend, th->pend + k, (th->nr_pend - k) * sizeof(*th->pend));
		th->nr_pend -= k;
	}
	if (news && !ret && !(news->flags & PWZ_SLICE_UNSEEN_START)) {
		size_t a = 0, b = th->nr_pend;

		while (a < b) {		/* the first pending exit from the slice's start on */
			size_t m = a + (b - a) / 2;

			if (th->pend[m].e.time_ns < news->start_ns)
				a = m + 1;
			else
				b = m;
		}
		for (i = n = a; i < th->nr_pend && th->pend[i].e.time_ns < slice_end(news); i++) {
			const struct pwz_kvm_exit *e = &th->pend[i].e;

			if (!ret && e->time_ns + e->handling_ns <= slice_end(news))
				ret = xs->emit(xs->ctx, e, utid, true, e->handling_ns, 0, 0);
			else
				th->pend[n++] = th->pend[i];
		}
		if (n < i) {
			memmove(th->pend + n, th->pend + i, (th->nr_pend - i) * sizeof(*th->pend));
			th->nr_pend -= i - n;
		}
	}
	prune(th);
	xs->held += held_by(th);
	return ret;
}

/* settle_upto() as far as the records read allow (at_end: all of them). */
static int settle(struct export_split *xs, uint32_t utid, bool at_end, const struct pwz_slice *news)
{
	struct sthr *th = &xs->th[utid - 1];
	uint64_t limit = at_end ? UINT64_MAX : th->max_end;

	if (!at_end && !xs->ordered && th->nr_pend &&
	    th->pend[0].e.time_ns + th->pend[0].e.handling_ns <= limit) {
		uint64_t wm = watermark(xs);

		if (wm < limit)
			limit = wm;
	}
	return settle_upto(xs, utid, limit, news);
}

/*
 * Past the bound, in the largest thread: its oldest pending exits that wait only for the other
 * CPUs' slices (live) are decided with what was read; if none, the oldest half of its pending
 * exits (at most one run of consecutive ones) are let go of, to be read again at the end.
 * Returns 0, 1 when no exit is pending, or -errno.
 */
static int overflow(struct export_split *xs)
{
	struct sthr *big = NULL;
	struct evicted *last;
	uint64_t t1 = 0;
	size_t k, i;
	int ret = 0;

	for (k = 0; k < xs->nr_th; k++)
		if (!big || xs->th[k].nr_pend > big->nr_pend)
			big = &xs->th[k];
	if (!big || !big->nr_pend)
		return 1;
	k = big->nr_pend;
	ret = settle_upto(xs, (uint32_t)(big - xs->th) + 1, big->max_end, NULL);
	if (ret || big->nr_pend < k) {
		xs->forced += k - big->nr_pend;
		return ret;
	}
	for (k = 1; k < (big->nr_pend + 1) / 2 && big->pend[k].idx == big->pend[0].idx + k; k++)
		;
	for (i = 0; i < k; i++)
		if (big->pend[i].e.time_ns + big->pend[i].e.handling_ns > t1)
			t1 = big->pend[i].e.time_ns + big->pend[i].e.handling_ns;
	last = big->nr_ev ? &big->ev[big->nr_ev - 1] : NULL;
	if (last && last->last + 1 == big->pend[0].idx) {
		last->last = big->pend[k - 1].idx;
		if (t1 > last->t1)
			last->t1 = t1;
	} else {
		if (grow((void **)&big->ev, &big->cap_ev, big->nr_ev + 1, sizeof(*big->ev)))
			return -ENOMEM;
		big->ev[big->nr_ev++] = (struct evicted){ big->pend[0].idx, big->pend[k - 1].idx,
							  big->pend[0].e.time_ns, t1 };
	}
	xs->held -= held_by(big);
	memmove(big->pend, big->pend + k, (big->nr_pend - k) * sizeof(*big->pend));
	big->nr_pend -= k;
	xs->evicted += k;
	prune(big);
	xs->held += held_by(big);
	return 0;
}

/* Retries the threads with pending exits (the watermark may have passed their entries). */
static int retry_busy(struct export_split *xs)
{
	size_t i, n;
	int ret = 0;

	for (i = n = 0; i < xs->nr_busy; i++) {
		uint32_t utid = xs->busy[i];
		struct sthr *th = &xs->th[utid - 1];

		if (!ret && th->nr_pend)
			ret = settle(xs, utid, false, NULL);
		if (th->nr_pend)
			xs->busy[n++] = utid;
		else
			th->listed = false;
	}
	xs->nr_busy = n;
	return ret;
}

int export_split__slice(struct export_split *xs, uint32_t utid, const struct pwz_slice *s)
{
	struct sthr *th = sthr_of(xs, utid);
	uint64_t end = slice_end(s);
	size_t i;

	if (!th)
		return -ENOMEM;
	if (s->cpu < PWZ_MAX_CPUS) {
		if (end > xs->cpu_end[s->cpu])
			xs->cpu_end[s->cpu] = end;
		xs->cpu_seen[s->cpu] = true;
		if (s->cpu + 1 > xs->max_cpu1)
			xs->max_cpu1 = s->cpu + 1;
	}
	th->any_slice = true;
	if (end > th->max_end)
		th->max_end = end;
	if (grow((void **)&th->sl, &th->cap_sl, th->nr_sl + 1, sizeof(*th->sl)))
		return -ENOMEM;
	for (i = th->nr_sl; i > 0 && th->sl[i - 1].start_ns > s->start_ns; i--)
		th->sl[i] = th->sl[i - 1];
	th->sl[i] = *s;
	th->nr_sl++;
	if (th->nr_pend || th->nr_ev)
		xs->held++;
	/* pending exits are in time order: none is decided before a slice reaches its entry */
	if (th->nr_pend) {
		int ret = settle(xs, utid, false, s);

		if (ret)
			return ret;
	} else if (!th->nr_pend && th->nr_sl > 2 * EXPORT_SPLIT_KEEP) {
		prune(th);
	}
	if (!xs->ordered && xs->nr_busy && ++xs->since_retry >= 4096) {
		xs->since_retry = 0;
		return retry_busy(xs);
	}
	return 0;
}

int export_split__wait(struct export_split *xs, uint32_t utid, const struct pwz_wakeup *wk)
{
	struct sthr *th = sthr_of(xs, utid);
	size_t i;

	if (!th)
		return -ENOMEM;
	if (grow((void **)&th->wk, &th->cap_wk, th->nr_wk + 1, sizeof(*th->wk)))
		return -ENOMEM;
	for (i = th->nr_wk; i > 0 && th->wk[i - 1].wake_ns > wk->wake_ns; i--)
		th->wk[i] = th->wk[i - 1];
	th->wk[i] = *wk;
	th->nr_wk++;
	if (th->nr_pend || th->nr_ev)
		xs->held++;
	if (!th->nr_pend && th->nr_wk > 2 * EXPORT_SPLIT_KEEP)
		prune(th);
	return 0;
}

int export_split__exit(struct export_split *xs, uint32_t utid, const struct pwz_kvm_exit *e)
{
	struct sthr *th = sthr_of(xs, utid);
	uint64_t idx;
	int ret;

	if (!th)
		return -ENOMEM;
	idx = th->nr_exits++;
	if (xs->no_slices || (e->flags & PWZ_EXIT_UNPAIRED))
		return xs->emit(xs->ctx, e, utid, false, 0, 0, 0);
	if (e->time_ns + e->handling_ns > th->last_t1)
		th->last_t1 = e->time_ns + e->handling_ns;
	/* inside a slice read: nothing else of the thread can overlap it */
	if (containing(th, e->time_ns, e->time_ns + e->handling_ns))
		return xs->emit(xs->ctx, e, utid, true, e->handling_ns, 0, 0);
	if (th->dropped_end > e->time_ns) {
		/* slices or waits it overlaps were let go before it was read */
		xs->overflowed++;
		return xs->emit(xs->ctx, e, utid, false, 0, 0, 0);
	}
	if (grow((void **)&th->pend, &th->cap_pend, th->nr_pend + 1, sizeof(*th->pend)))
		return -ENOMEM;
	xs->held += th->nr_pend || th->nr_ev ? 1 : 1 + th->nr_sl + th->nr_wk;
	th->pend[th->nr_pend++] = (struct pend){ *e, idx };
	ret = th->max_end >= e->time_ns + e->handling_ns ? settle(xs, utid, false, NULL) : 0;
	if (!ret && th->nr_pend && !th->listed) {
		if (grow((void **)&xs->busy, &xs->cap_busy, xs->nr_busy + 1, sizeof(*xs->busy)))
			return -ENOMEM;
		xs->busy[xs->nr_busy++] = utid;
		th->listed = true;
	}
	while (!ret && xs->held > EXPORT_SPLIT_MAX_PENDING)
		ret = overflow(xs);
	return ret < 0 ? ret : 0;
}

int export_split__finish(struct export_split *xs)
{
	int ret = 0;

	for (size_t k = 0; k < xs->nr_th && !ret; k++)
		if (xs->th[k].nr_pend)
			ret = settle(xs, (uint32_t)k + 1, true, NULL);
	xs->nr_busy = 0;
	return ret;
}

bool export_split__needs_replay(const struct export_split *xs)
{
	return xs && xs->evicted;
}

int export_split__replay_exit(struct export_split *xs, uint32_t utid, const struct pwz_kvm_exit *e)
{
	struct sthr *th = utid && utid <= xs->nr_th ? &xs->th[utid - 1] : NULL;
	size_t a = 0, b;
	uint64_t idx;

	if (!th)
		return 0;
	idx = th->replayed++;
	b = th->nr_ev;
	while (a < b) {		/* the first run ending at or after idx */
		size_t m = a + (b - a) / 2;

		if (th->ev[m].last < idx)
			a = m + 1;
		else
			b = m;
	}
	if (a == th->nr_ev || th->ev[a].first > idx)
		return 0;	/* emitted in the first pass */
	if (!th->any_slice)
		return xs->emit(xs->ctx, e, utid, false, 0, 0, 0);
	if (containing(th, e->time_ns, e->time_ns + e->handling_ns))
		return xs->emit(xs->ctx, e, utid, true, e->handling_ns, 0, 0);
	return emit_known(xs, th, utid, e);
}

uint64_t export_split__overflowed(const struct export_split *xs)
{
	return xs ? xs->overflowed : 0;
}

uint64_t export_split__evicted(const struct export_split *xs)
{
	return xs ? xs->evicted : 0;
}

uint64_t export_split__forced(const struct export_split *xs)
{
	return xs ? xs->forced : 0;
}

void export_split__free(struct export_split *xs)
{
	if (!xs)
		return;
	for (size_t k = 0; k < xs->nr_th; k++) {
		free(xs->th[k].pend);
		free(xs->th[k].ev);
		free(xs->th[k].sl);
		free(xs->th[k].wk);
	}
	free(xs->th);
	free(xs->busy);
	free(xs->slp);
	free(xs->wkp);
	free(xs);
}
