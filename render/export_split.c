// SPDX-License-Identifier: GPL-2.0
/* The per-exit on/off-CPU split of the Parquet kvm_exit table: exits held until their slices are read. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "export_split.h"
#include "trace.h"
#include "vms.h"

/* What is held of one thread instance. Its slices and waits are sorted by start. */
struct sthr {
	struct pwz_kvm_exit *pend;	/* exits whose split is not decided, in time order */
	size_t nr_pend, cap_pend;
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
	uint64_t overflowed;
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
	return th->nr_pend ? th->nr_pend + th->nr_sl + th->nr_wk : 0;
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

static int emit_known(struct export_split *xs, struct sthr *th, uint32_t utid,
		      const struct pwz_kvm_exit *e)
{
	uint64_t from = e->time_ns, to = e->time_ns + e->handling_ns, on, rd, sl;
	size_t i;

	if (grow((void **)&xs->slp, &xs->cap_slp, th->nr_sl + 1, sizeof(*xs->slp)) ||
	    grow((void **)&xs->wkp, &xs->cap_wkp, th->nr_wk + 1, sizeof(*xs->wkp)))
		return -ENOMEM;
	for (i = 0; i < th->nr_sl; i++)
		xs->slp[i] = &th->sl[i];
	for (i = 0; i < th->nr_wk; i++)
		xs->wkp[i] = &th->wk[i];
	vms_split_interval(xs->slp, th->nr_sl, xs->wkp, th->nr_wk, from, to, &on, &rd, &sl);
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

/* Lets go of what no held exit and no later exit of the thread can overlap. */
static void prune(struct sthr *th)
{
	uint64_t horizon = th->last_t1;
	size_t i, n;

	for (i = 0; i < th->nr_pend; i++)
		if (th->pend[i].time_ns < horizon)
			horizon = th->pend[i].time_ns;
	for (i = n = 0; i < th->nr_sl; i++)
		if (slice_end(&th->sl[i]) > horizon)
			th->sl[n++] = th->sl[i];
	th->nr_sl = n;
	for (i = n = 0; i < th->nr_wk; i++)
		if (wait_end(&th->wk[i]) > horizon)
			th->wk[n++] = th->wk[i];
	th->nr_wk = n;
	if (th->nr_pend)
		return;
	/* no pending exit: the last few only (a thread without exits, or between two exits) */
	if (th->nr_sl > EXPORT_SPLIT_KEEP) {
		n = th->nr_sl - EXPORT_SPLIT_KEEP;
		for (i = 0; i < n; i++)
			if (slice_end(&th->sl[i]) > th->dropped_end)
				th->dropped_end = slice_end(&th->sl[i]);
		memmove(th->sl, th->sl + n, EXPORT_SPLIT_KEEP * sizeof(*th->sl));
		th->nr_sl = EXPORT_SPLIT_KEEP;
	}
	if (th->nr_wk > EXPORT_SPLIT_KEEP) {
		n = th->nr_wk - EXPORT_SPLIT_KEEP;
		for (i = 0; i < n; i++)
			if (wait_end(&th->wk[i]) > th->dropped_end)
				th->dropped_end = wait_end(&th->wk[i]);
		memmove(th->wk, th->wk + n, EXPORT_SPLIT_KEEP * sizeof(*th->wk));
		th->nr_wk = EXPORT_SPLIT_KEEP;
	}
}

/* Decides what can be of the thread's pending exits (at_end: with what was read). */
static int settle(struct export_split *xs, uint32_t utid, bool at_end)
{
	struct sthr *th = &xs->th[utid - 1];
	uint64_t wm = 0;
	bool have_wm = false;
	size_t i, n;
	int ret = 0;

	xs->held -= held_by(th);
	for (i = n = 0; i < th->nr_pend; i++) {
		const struct pwz_kvm_exit *e = &th->pend[i];
		uint64_t t0 = e->time_ns, t1 = e->time_ns + e->handling_ns;
		bool ready = at_end;

		if (ret) {
			th->pend[n++] = *e;
			continue;
		}
		if (!th->any_slice && at_end) {
			ret = xs->emit(xs->ctx, e, utid, false, 0, 0, 0);
			continue;
		}
		if (containing(th, t0, t1)) {
			ret = xs->emit(xs->ctx, e, utid, true, e->handling_ns, 0, 0);
			continue;
		}
		if (!ready && th->max_end >= t1) {
			if (!xs->ordered && !have_wm) {
				wm = watermark(xs);
				have_wm = true;
			}
			ready = xs->ordered || wm >= t1;
		}
		if (ready)
			ret = emit_known(xs, th, utid, e);
		else
			th->pend[n++] = *e;
	}
	th->nr_pend = n;
	prune(th);
	xs->held += held_by(th);
	return ret;
}

/* Past the bound: the oldest half of the largest thread's pending exits, split unknown. Returns
 * 0, 1 when no exit is pending, or -errno. */
static int overflow(struct export_split *xs)
{
	struct sthr *big = NULL;
	size_t k, i;
	int ret = 0;

	for (k = 0; k < xs->nr_th; k++)
		if (!big || xs->th[k].nr_pend > big->nr_pend)
			big = &xs->th[k];
	if (!big || !big->nr_pend)
		return 1;
	xs->held -= held_by(big);
	k = (big->nr_pend + 1) / 2;
	for (i = 0; i < k && !ret; i++)
		ret = xs->emit(xs->ctx, &big->pend[i], (uint32_t)(big - xs->th) + 1, false, 0, 0, 0);
	memmove(big->pend, big->pend + k, (big->nr_pend - k) * sizeof(*big->pend));
	big->nr_pend -= k;
	xs->overflowed += k;
	prune(big);
	xs->held += held_by(big);
	return ret;
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
			ret = settle(xs, utid, false);
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
	if (th->nr_pend)
		xs->held++;
	/* pending exits are in time order: none is decided before a slice reaches its entry */
	if (th->nr_pend && th->max_end >= th->pend[0].time_ns + th->pend[0].handling_ns) {
		int ret = settle(xs, utid, false);

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
	if (th->nr_pend)
		xs->held++;
	if (!th->nr_pend && th->nr_wk > 2 * EXPORT_SPLIT_KEEP)
		prune(th);
	return 0;
}

int export_split__exit(struct export_split *xs, uint32_t utid, const struct pwz_kvm_exit *e)
{
	struct sthr *th = sthr_of(xs, utid);
	int ret;

	if (!th)
		return -ENOMEM;
	if (xs->no_slices || (e->flags & PWZ_EXIT_UNPAIRED))
		return xs->emit(xs->ctx, e, utid, false, 0, 0, 0);
	if (e->time_ns + e->handling_ns > th->last_t1)
		th->last_t1 = e->time_ns + e->handling_ns;
	if (th->dropped_end > e->time_ns) {
		/* slices or waits it overlaps were let go before it was read */
		xs->overflowed++;
		return xs->emit(xs->ctx, e, utid, false, 0, 0, 0);
	}
	if (grow((void **)&th->pend, &th->cap_pend, th->nr_pend + 1, sizeof(*th->pend)))
		return -ENOMEM;
	xs->held += th->nr_pend ? 1 : 1 + th->nr_sl + th->nr_wk;
	th->pend[th->nr_pend++] = *e;
	ret = th->max_end >= e->time_ns + e->handling_ns ? settle(xs, utid, false) : 0;
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
			ret = settle(xs, (uint32_t)k + 1, true);
	xs->nr_busy = 0;
	return ret;
}

uint64_t export_split__overflowed(const struct export_split *xs)
{
	return xs ? xs->overflowed : 0;
}

void export_split__free(struct export_split *xs)
{
	if (!xs)
		return;
	for (size_t k = 0; k < xs->nr_th; k++) {
		free(xs->th[k].pend);
		free(xs->th[k].sl);
		free(xs->th[k].wk);
	}
	free(xs->th);
	free(xs->busy);
	free(xs->slp);
	free(xs->wkp);
	free(xs);
}
