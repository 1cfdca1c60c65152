// SPDX-License-Identifier: GPL-2.0
/* Scheduler and KVM event stream -> pwz records: the state machine behind perf.data import. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "keymap.h"
#include "sched_model.h"

#define TASK_REPORT_EXIT_BITS 0x30ULL	/* X (EXIT_DEAD 0x10) and Z (EXIT_ZOMBIE 0x20) */

struct cpu_state {
	uint32_t tid;		/* the task running, when known */
	uint64_t start_ns;	/* when it switched in */
	bool seen;		/* a switch was seen on this CPU */
};

struct thread_state {
	uint32_t epoch;			/* model epoch of the fields below (lost events reset) */
	bool wake_pending;		/* woken, not yet switched in */
	bool entry_valid;		/* entry_ns holds the last kvm_entry */
	bool exit_pending;		/* pending holds an exit waiting for its entry */
	uint32_t exit_cpu;		/* CPU of the pending exit */
	uint64_t wake_ns;		/* wakeup time */
	uint64_t entry_ns;		/* last kvm_entry time */
	struct pwz_kvm_exit pending;	/* the exit waiting for its entry */
	uint32_t wait_agg;		/* wait_aggs[] index + 1 of this thread; 0 none yet */
};

#define THREAD_CACHE 4096	/* direct-mapped cache of thread_map, by the tid's low bits */

struct thread_cache_ent {
	uint32_t tid;
	uint32_t idx;		/* threads[] index + 1; 0 empty */
};

struct sched_model {
	struct sched_model_opts opts;
	struct cdict_visitor sink;
	struct sched_model_stats stats;
	struct cpu_state *cpus;		/* nr_cpus entries */
	uint32_t nr_cpus;
	uint32_t epoch;			/* bumped by sched_model__lost() */
	struct keymap thread_map;	/* (tid, 0) -> threads[] */
	struct thread_state *threads;
	size_t threads_cap;
	struct keymap cpu_agg_map;	/* (tid, cpu) -> cpu_aggs[] */
	struct pwz_cpu_agg *cpu_aggs;
	size_t cpu_aggs_cap;
	struct keymap kvm_agg_map;	/* (tid, isa << 32 | reason) -> kvm_aggs[] */
	struct pwz_kvm_agg *kvm_aggs;
	size_t kvm_aggs_cap;
	struct pwz_wait_agg *wait_aggs;	/* one per thread with a wait, see thread_state */
	size_t nr_wait_aggs, wait_aggs_cap;
	struct thread_cache_ent thread_cache[THREAD_CACHE];
	bool finished;
};

enum pwz_slice_end sched_model_end_kind(uint64_t prev_state, uint64_t preempt_bit)
{
	uint64_t s = prev_state & ~preempt_bit;

	if (s == 0)
		return PWZ_END_PREEMPTED;
	if (s & TASK_REPORT_EXIT_BITS)
		return PWZ_END_EXITED;
	return PWZ_END_SLEPT;
}

struct sched_model *sched_model__new(const struct sched_model_opts *opts,
				     const struct cdict_visitor *sink)
{
	struct sched_model *m = calloc(1, sizeof(*m));

	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	if (opts) {
		m->opts = *opts;
	} else {
		m->opts.emit_slices = m->opts.emit_wakeups = m->opts.emit_kvm_exits = true;
	}
	if (sink)
		m->sink = *sink;
	return m;
}

void sched_model__free(struct sched_model *m)
{
	if (!m)
		return;
	free(m->cpus);
	keymap_free(&m->thread_map);
	free(m->threads);
	keymap_free(&m->cpu_agg_map);
	free(m->cpu_aggs);
	keymap_free(&m->kvm_agg_map);
	free(m->kvm_aggs);
	free(m->wait_aggs);
	free(m);
}

void sched_model__stats(const struct sched_model *m, struct sched_model_stats *out)
{
	*out = m->stats;
}

static struct cpu_state *cpu_get(struct sched_model *m, uint32_t cpu)
{
	struct cpu_state *n;
	uint32_t want;

	if (cpu >= PWZ_MAX_CPUS)
		return NULL;
	if (cpu >= m->nr_cpus) {
		want = cpu + 1 > 2 * m->nr_cpus ? cpu + 1 : 2 * m->nr_cpus;
		if (want > PWZ_MAX_CPUS)
			want = PWZ_MAX_CPUS;
		n = realloc(m->cpus, want * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + m->nr_cpus, 0, (want - m->nr_cpus) * sizeof(*n));
		m->cpus = n;
		m->nr_cpus = want;
	}
	return &m->cpus[cpu];
}

/* The state of tid, reset to the current epoch when events were lost since it was touched. */
static struct thread_state *thread_get(struct sched_model *m, uint32_t tid)
{
	struct thread_cache_ent *c = &m->thread_cache[tid % THREAD_CACHE];
	struct thread_state *ts;
	int added;
	int64_t i;

	if (c->idx && c->tid == tid)
		return &m->threads[c->idx - 1];
	i = keymap_get(&m->thread_map, tid, 0, &added);
	if (i < 0 || array_reserve((void **)&m->threads, &m->threads_cap, m->thread_map.count,
				sizeof(*m->threads)))
		return NULL;
	ts = &m->threads[i];
	if (added) {
		memset(ts, 0, sizeof(*ts));
		ts->epoch = m->epoch;
	}
	c->tid = tid;
	c->idx = (uint32_t)i + 1;
	return ts;
}

/* The state of tid if it has one (thread_get() made it), else NULL. */
static struct thread_state *thread_find(struct sched_model *m, uint32_t tid)
{
	struct thread_cache_ent *c = &m->thread_cache[tid % THREAD_CACHE];
	int64_t i;

	if (c->idx && c->tid == tid)
		return &m->threads[c->idx - 1];
	i = keymap_find(&m->thread_map, tid, 0);
	if (i < 0)
		return NULL;
	c->tid = tid;
	c->idx = (uint32_t)i + 1;
	return &m->threads[i];
}

static struct pwz_cpu_agg *cpu_agg_get(struct sched_model *m, uint32_t tid, uint32_t cpu)
{
	struct pwz_cpu_agg *a;
	int added;
	int64_t i = keymap_get(&m->cpu_agg_map, tid, cpu, &added);

	if (i < 0 || array_reserve((void **)&m->cpu_aggs, &m->cpu_aggs_cap, m->cpu_agg_map.count,
				sizeof(*m->cpu_aggs)))
		return NULL;
	a = &m->cpu_aggs[i];
	if (added) {
		memset(a, 0, sizeof(*a));
		a->tid = tid;
		a->cpu = cpu;
	}
	return a;
}

/* Emits a slice of tid on cpu and adds it to a, the (tid, cpu) aggregate. */
static int emit_slice(struct sched_model *m, struct pwz_cpu_agg *a, uint32_t tid, uint32_t cpu,
		      uint64_t start, uint64_t end, uint32_t kind)
{
	struct pwz_slice s = { .tid = tid, .cpu = cpu, .start_ns = start,
			       .dur_ns = end > start ? end - start : 0, .end = kind };

	a->runtime_ns += s.dur_ns;
	m->stats.slices++;
	if (m->opts.emit_slices && m->sink.slice)
		return m->sink.slice(m->sink.ctx, &s);
	return 0;
}

static int emit_kvm_exit(struct sched_model *m, const struct pwz_kvm_exit *e, bool paired)
{
	struct pwz_kvm_agg *a;
	int added;
	int64_t i = keymap_get(&m->kvm_agg_map, e->tid, (uint64_t)e->isa << 32 | e->reason, &added);

	if (i < 0 || array_reserve((void **)&m->kvm_aggs, &m->kvm_aggs_cap, m->kvm_agg_map.count,
				sizeof(*m->kvm_aggs)))
		return -ENOMEM;
	a = &m->kvm_aggs[i];
	if (added) {
		memset(a, 0, sizeof(*a));
		a->tid = e->tid;
		a->isa = e->isa;
		a->reason = e->reason;
	}
	a->count++;
	if (paired) {
		a->handling_ns += e->handling_ns;
		a->hist[pwz_hist_bucket(e->handling_ns)]++;
	} else {
		m->stats.kvm_unpaired++;
	}
	m->stats.kvm_exits++;
	if (m->opts.emit_kvm_exits && m->sink.kvm_exit)
		return m->sink.kvm_exit(m->sink.ctx, e);
	return 0;
}

/* Emits the pending exit of ts unpaired and forgets its pairing. */
static int kvm_reset(struct sched_model *m, struct thread_state *ts)
{
	int err = 0;

	if (ts->exit_pending) {
		ts->exit_pending = false;
		err = emit_kvm_exit(m, &ts->pending, false);
	}
	ts->entry_valid = false;
	return err;
}

/* Brings ts to the current epoch: a lost-event reset since it was last touched. */
static int thread_sync(struct sched_model *m, struct thread_state *ts)
{
	if (ts->epoch == m->epoch)
		return 0;
	ts->epoch = m->epoch;
	ts->wake_pending = false;
	if (ts->exit_pending || ts->entry_valid)
		m->stats.kvm_resets++;
	return kvm_reset(m, ts);
}

static int switch_in(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t tid)
{
	struct thread_state *ts;
	struct pwz_wait_agg *w;
	struct pwz_wakeup wk;
	int err;

	if (tid == 0)
		return 0;
	ts = thread_find(m, tid);
	if (!ts)
		return 0;
	err = thread_sync(m, ts);
	if (err || !ts->wake_pending)
		return err;
	ts->wake_pending = false;
	wk.tid = tid;
	wk.cpu = cpu;
	wk.wake_ns = ts->wake_ns;
	wk.wait_ns = t > ts->wake_ns ? t - ts->wake_ns : 0;
	if (!ts->wait_agg) {
		if (array_reserve((void **)&m->wait_aggs, &m->wait_aggs_cap, m->nr_wait_aggs + 1,
				  sizeof(*m->wait_aggs)))
			return -ENOMEM;
		w = &m->wait_aggs[m->nr_wait_aggs++];
		memset(w, 0, sizeof(*w));
		w->tid = tid;
		ts->wait_agg = (uint32_t)m->nr_wait_aggs;
	}
	w = &m->wait_aggs[ts->wait_agg - 1];
	w->count++;
	w->wait_ns += wk.wait_ns;
	if (wk.wait_ns > w->max_ns)
		w->max_ns = wk.wait_ns;
	m->stats.wakeups++;
	if (m->opts.emit_wakeups && m->sink.wakeup)
		return m->sink.wakeup(m->sink.ctx, &wk);
	return 0;
}

int sched_model__switch(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t prev_tid,
			uint64_t prev_state, uint32_t next_tid)
{
	struct cpu_state *c = cpu_get(m, cpu);
	enum pwz_slice_end kind = sched_model_end_kind(prev_state, m->opts.preempt_bit);
	struct pwz_cpu_agg *a;
	int err = 0;

	if (!c)
		return cpu >= PWZ_MAX_CPUS ? -EINVAL : -ENOMEM;
	m->stats.switches++;
	a = cpu_agg_get(m, prev_tid, cpu);
	if (!a)
		return -ENOMEM;
	if (!c->seen) {
		m->stats.first_slices++;
		err = emit_slice(m, a, prev_tid, cpu, 0, t, kind);
	} else if (c->tid == prev_tid) {
		err = emit_slice(m, a, prev_tid, cpu, c->start_ns, t, kind);
	} else {
		m->stats.unmatched++;
	}
	if (err)
		return err;
	a->switches++;
	if (kind == PWZ_END_PREEMPTED)
		a->involuntary++;
	else
		a->voluntary++;
	c->seen = true;
	c->tid = next_tid;
	c->start_ns = t;
	return switch_in(m, t, cpu, next_tid);
}

int sched_model__wakeup(struct sched_model *m, uint64_t t, uint32_t tid)
{
	struct thread_state *ts = thread_get(m, tid);
	int err;

	if (!ts)
		return -ENOMEM;
	err = thread_sync(m, ts);
	if (err)
		return err;
	if (!ts->wake_pending) {
		ts->wake_pending = true;
		ts->wake_ns = t;
	}
	return 0;
}

int sched_model__migrate(struct sched_model *m, uint64_t t, uint32_t tid)
{
	struct thread_state *ts = thread_find(m, tid);
	int err;

	(void)t;
	if (!ts)
		return 0;
	err = thread_sync(m, ts);
	if (err)
		return err;
	if (ts->exit_pending || ts->entry_valid)
		m->stats.kvm_resets++;
	return kvm_reset(m, ts);
}

void sched_model__lost(struct sched_model *m, uint64_t t)
{
	(void)t;
	m->epoch++;
}

int sched_model__kvm_exit(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t tid,
			  uint32_t vcpu, uint32_t isa, uint32_t reason)
{
	struct thread_state *ts = thread_get(m, tid);
	int err;

	if (!ts)
		return -ENOMEM;
	err = thread_sync(m, ts);
	if (!err && ts->exit_pending) {
		ts->exit_pending = false;
		err = emit_kvm_exit(m, &ts->pending, false);
	}
	if (err)
		return err;
	memset(&ts->pending, 0, sizeof(ts->pending));
	ts->pending.tid = tid;
	ts->pending.vcpu = vcpu;
	ts->pending.time_ns = t;
	ts->pending.isa = isa;
	ts->pending.reason = reason;
	if (ts->entry_valid && t >= ts->entry_ns)
		ts->pending.guest_ns = t - ts->entry_ns;
	ts->entry_valid = false;
	ts->exit_pending = true;
	ts->exit_cpu = cpu;
	return 0;
}

int sched_model__kvm_entry(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t tid)
{
	struct thread_state *ts = thread_get(m, tid);
	int err;

	if (!ts)
		return -ENOMEM;
	err = thread_sync(m, ts);
	if (err)
		return err;
	if (ts->exit_pending) {
		ts->exit_pending = false;
		if (ts->exit_cpu != cpu) {
			m->stats.kvm_resets++;
			err = emit_kvm_exit(m, &ts->pending, false);
		} else {
			ts->pending.handling_ns = t > ts->pending.time_ns ? t - ts->pending.time_ns : 0;
			err = emit_kvm_exit(m, &ts->pending, true);
		}
	}
	ts->entry_valid = true;
	ts->entry_ns = t;
	return err;
}

static int cmp_cpu_agg(const void *a, const void *b)
{
	const struct pwz_cpu_agg *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int cmp_kvm_agg(const void *a, const void *b)
{
	const struct pwz_kvm_agg *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->isa != y->isa)
		return x->isa < y->isa ? -1 : 1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

static int cmp_wait_agg(const void *a, const void *b)
{
	const struct pwz_wait_agg *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int sched_model__finish(struct sched_model *m, uint64_t end_ns)
{
	uint32_t i;
	int err = 0;

	if (m->finished)
		return -EALREADY;
	m->finished = true;
	for (i = 0; i < m->nr_cpus && !err; i++) {
		struct cpu_state *c = &m->cpus[i];
		struct pwz_cpu_agg *a;

		if (!c->seen)
			continue;
		a = cpu_agg_get(m, c->tid, i);
		if (!a)
			return -ENOMEM;
		err = emit_slice(m, a, c->tid, i, c->start_ns, end_ns > c->start_ns ?
				 end_ns : c->start_ns, PWZ_END_OPEN);
	}
	for (i = 0; i < m->thread_map.count && !err; i++) {
		if (m->threads[i].exit_pending) {
			m->threads[i].exit_pending = false;
			err = emit_kvm_exit(m, &m->threads[i].pending, false);
		}
	}
	if (err)
		return err;
	/* The maps are not used after this point: sorting the arrays breaks them, harmlessly. */
	if (m->cpu_agg_map.count)
		qsort(m->cpu_aggs, m->cpu_agg_map.count, sizeof(*m->cpu_aggs), cmp_cpu_agg);
	if (m->kvm_agg_map.count)
		qsort(m->kvm_aggs, m->kvm_agg_map.count, sizeof(*m->kvm_aggs), cmp_kvm_agg);
	if (m->nr_wait_aggs)
		qsort(m->wait_aggs, m->nr_wait_aggs, sizeof(*m->wait_aggs), cmp_wait_agg);
	for (i = 0; i < m->cpu_agg_map.count && !err; i++) {
		m->stats.cpu_aggs++;
		if (m->sink.cpu_agg)
			err = m->sink.cpu_agg(m->sink.ctx, &m->cpu_aggs[i]);
	}
	for (i = 0; i < m->kvm_agg_map.count && !err; i++) {
		m->stats.kvm_aggs++;
		if (m->sink.kvm_agg)
			err = m->sink.kvm_agg(m->sink.ctx, &m->kvm_aggs[i]);
	}
	for (i = 0; i < m->nr_wait_aggs && !err; i++) {
		m->stats.wait_aggs++;
		if (m->sink.wait_agg)
			err = m->sink.wait_agg(m->sink.ctx, &m->wait_aggs[i]);
	}
	return err;
}
