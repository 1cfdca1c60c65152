// SPDX-License-Identifier: GPL-2.0
/* Scheduler and KVM event stream -> pwz records by the rules of model.h: the state machine
 * behind the perf.data import. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "keymap.h"
#include "model.h"
#include "sched_model.h"

#define TASK_REPORT_EXIT_BITS 0x30ULL	/* X (EXIT_DEAD 0x10) and Z (EXIT_ZOMBIE 0x20) */

struct cpu_state {
	uint32_t tid;		/* the task running, when known */
	uint64_t start_ns;	/* when it switched in */
	bool seen;		/* a switch was seen on this CPU */
};

struct thread_state {
	uint32_t epoch;			/* model epoch of the fields below (lost events reset) */
	bool running;			/* on a CPU, as far as the events tell */
	bool wake_pending;		/* runnable (woken or preempted), not yet switched in (R4) */
	bool entry_valid;		/* entry_ns holds the last kvm_entry */
	bool exit_pending;		/* pending holds an exit waiting for its entry */
	uint64_t wake_ns;		/* when the pending wait began */
	uint64_t entry_ns;		/* last kvm_entry time */
	struct pwz_kvm_exit pending;	/* the exit waiting for its entry */
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
	struct model_fold *fold;	/* the aggregates (model.h R7) */
	struct thread_cache_ent thread_cache[THREAD_CACHE];
	bool finished;
	bool have_state;		/* the switch being emitted has state (reported) */
	uint32_t state;
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
	m->fold = model_fold__new(NULL);
	if (!m->fold) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void sched_model__free(struct sched_model *m)
{
	if (!m)
		return;
	free(m->cpus);
	keymap_free(&m->thread_map);
	free(m->threads);
	model_fold__free(m->fold);
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

/* The traced kernel's prev_state as records.h's PWZ_STATE_* (R+ is its preempt bit). */
static uint32_t reported_state(uint64_t prev_state, uint64_t preempt_bit)
{
	if (preempt_bit && (prev_state & preempt_bit))
		return PWZ_STATE_PREEMPTED;
	return (uint32_t)(prev_state & (preempt_bit ? preempt_bit - 1 : 0xff));
}

/* Emits a slice of tid on cpu (R1-R3) and folds it. */
static int emit_slice(struct sched_model *m, uint32_t tid, uint32_t cpu, uint64_t start,
		      uint64_t end, uint32_t kind, uint32_t flags)
{
	struct pwz_slice s = { .tid = tid, .cpu = cpu, .start_ns = start,
			       .dur_ns = end > start ? end - start : 0, .end = kind, .flags = flags };

	if (m->have_state) {
		s.prev_state = m->state;
		s.flags |= PWZ_SLICE_STATE;
	}

	m->stats.slices++;
	if (model_fold__slice(m->fold, &s))
		return -ENOMEM;
	if (m->opts.emit_slices && m->sink.slice)
		return m->sink.slice(m->sink.ctx, &s);
	return 0;
}

static int emit_kvm_exit(struct sched_model *m, struct pwz_kvm_exit *e, bool paired)
{
	e->flags = paired ? 0 : PWZ_EXIT_UNPAIRED;
	if (model_fold__kvm_exit(m->fold, e))
		return -ENOMEM;
	if (!paired)
		m->stats.kvm_unpaired++;
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

/* R4: tid switched in on cpu at t; a pending wait ends here. */
static int switch_in(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t tid)
{
	struct thread_state *ts;
	struct pwz_wakeup wk;
	int err;

	if (tid == 0)
		return 0;
	ts = thread_get(m, tid);
	if (!ts)
		return -ENOMEM;
	err = thread_sync(m, ts);
	ts->running = true;
	if (err || !ts->wake_pending || m->opts.no_waits)
		return err;
	ts->wake_pending = false;
	wk.tid = tid;
	wk.cpu = cpu;
	wk.wake_ns = ts->wake_ns;
	wk.wait_ns = t > ts->wake_ns ? t - ts->wake_ns : 0;
	if (model_fold__wait(m->fold, &wk))
		return -ENOMEM;
	m->stats.wakeups++;
	if (m->opts.emit_wakeups && m->sink.wakeup)
		return m->sink.wakeup(m->sink.ctx, &wk);
	return 0;
}

/* R4: prev left its CPU at t; preempted, it waits from now, else nothing is pending. */
static int switch_out(struct sched_model *m, uint64_t t, uint32_t prev, enum pwz_slice_end kind)
{
	struct thread_state *ts;
	int err;

	if (prev == 0)
		return 0;
	ts = kind == PWZ_END_PREEMPTED ? thread_get(m, prev) : thread_find(m, prev);
	if (!ts)
		return kind == PWZ_END_PREEMPTED ? -ENOMEM : 0;
	err = thread_sync(m, ts);
	ts->running = false;
	ts->wake_pending = kind == PWZ_END_PREEMPTED;
	ts->wake_ns = t;
	return err;
}

int sched_model__switch(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t prev_tid,
			uint64_t prev_state, uint32_t next_tid)
{
	struct cpu_state *c = cpu_get(m, cpu);
	enum pwz_slice_end kind = sched_model_end_kind(prev_state, m->opts.preempt_bit);
	int err = 0;

	if (!c)
		return cpu >= PWZ_MAX_CPUS ? -EINVAL : -ENOMEM;
	m->stats.switches++;
	m->have_state = true;
	m->state = reported_state(prev_state, m->opts.preempt_bit);
	if (!c->seen) {
		m->stats.first_slices++;
		err = emit_slice(m, prev_tid, cpu, 0, t, kind, 0);
	} else if (c->tid == prev_tid) {
		err = emit_slice(m, prev_tid, cpu, c->start_ns, t, kind, 0);
	} else {
		/* R2: prev's switch-in, and the switch-out of the thread believed running, unseen */
		struct thread_state *gone = c->tid ? thread_find(m, c->tid) : NULL;

		if (gone)
			gone->running = false;
		m->stats.unseen++;
		err = emit_slice(m, prev_tid, cpu, c->start_ns, t, kind, PWZ_SLICE_UNSEEN_START);
	}
	m->have_state = false;
	if (!err)
		err = switch_out(m, t, prev_tid, kind);
	if (err)
		return err;
	c->seen = true;
	c->tid = next_tid;
	c->start_ns = t;
	return switch_in(m, t, cpu, next_tid);
}

/* The state of tid, created when new and brought to the current epoch, into *out. Returns 0,
 * -ENOMEM, or the sink's error from emitting what a lost-event reset left unpaired. */
static int thread_current(struct sched_model *m, uint32_t tid, struct thread_state **out)
{
	*out = thread_get(m, tid);
	return *out ? thread_sync(m, *out) : -ENOMEM;
}

int sched_model__wakeup(struct sched_model *m, uint64_t t, uint32_t tid)
{
	struct thread_state *ts;
	int err = thread_current(m, tid, &ts);

	if (err)
		return err;
	/* R4: the first event wins; a running thread's wakeup starts no wait */
	if (!ts->wake_pending && !ts->running) {
		ts->wake_pending = true;
		ts->wake_ns = t;
	}
	return 0;
}

int sched_model__born(struct sched_model *m, uint64_t t, uint32_t tid)
{
	return model_fold__born(m->fold, tid, t);
}

void sched_model__lost(struct sched_model *m, uint64_t t)
{
	(void)t;
	m->epoch++;
}

int sched_model__kvm_exit(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t tid,
			  uint32_t vcpu, uint32_t isa, uint32_t reason)
{
	struct thread_state *ts;
	int err = thread_current(m, tid, &ts);

	(void)cpu;	/* R5: the pairing does not depend on the CPU */
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
	return 0;
}

int sched_model__kvm_entry(struct sched_model *m, uint64_t t, uint32_t cpu, uint32_t tid)
{
	struct thread_state *ts;
	int err = thread_current(m, tid, &ts);

	if (err)
		return err;
	(void)cpu;
	if (ts->exit_pending) {
		/* R5: paired on whatever CPU the entry comes */
		ts->exit_pending = false;
		ts->pending.handling_ns = t > ts->pending.time_ns ? t - ts->pending.time_ns : 0;
		err = emit_kvm_exit(m, &ts->pending, true);
	}
	ts->entry_valid = true;
	ts->entry_ns = t;
	return err;
}

int sched_model__finish(struct sched_model *m, uint64_t end_ns)
{
	const struct pwz_cpu_agg *ca;
	const struct pwz_kvm_agg *ka;
	const struct pwz_wait_agg *wa;
	uint32_t i;
	int err = 0;

	if (m->finished)
		return -EALREADY;
	m->finished = true;
	for (i = 0; i < m->nr_cpus && !err; i++) {
		struct cpu_state *c = &m->cpus[i];

		if (c->seen)
			err = emit_slice(m, c->tid, i, c->start_ns,
					 end_ns > c->start_ns ? end_ns : c->start_ns, PWZ_END_OPEN, 0);
	}
	for (i = 0; i < m->thread_map.count && !err; i++) {
		if (m->threads[i].exit_pending) {
			m->threads[i].exit_pending = false;
			err = emit_kvm_exit(m, &m->threads[i].pending, false);
		}
	}
	if (err)
		return err;
	m->stats.cpu_aggs = model_fold__cpu_aggs(m->fold, &ca);
	m->stats.kvm_aggs = model_fold__kvm_aggs(m->fold, &ka);
	m->stats.wait_aggs = model_fold__wait_aggs(m->fold, &wa);
	return model_fold__emit(m->fold, &m->sink);
}
