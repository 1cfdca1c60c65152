// SPDX-License-Identifier: GPL-2.0
/* pwz-bpf --serve: per-scrape differences of the kernel's totals added to counters by series. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "capture.h"
#include "capture_meta.h"
#include "capture_tasks.h"
#include "cgroupname.h"
#include "exitroll.h"
#include "keymap.h"
#include "live.h"
#include "live_vms.h"
#include "promtext.h"
#include "records.h"
#include "serve_metrics.h"
#include "tasknames.h"

/* The ready-interval histogram's finite bounds: the tops of the kernel's wait histogram's
 * octaves (bpf/whist.h), 2^PWZ_WHIST_MIN_LOG2 .. 2^PWZ_WHIST_MAX_LOG2 ns; no wait is re-bucketed,
 * each of the kernel's buckets lies below one of them. */
#define SM_READY_LE (PWZ_WHIST_MAX_LOG2 - PWZ_WHIST_MIN_LOG2 + 1)

/* The figures of a vCPU's ledger (model.h R10) that the page carries, without its histograms. */
struct sm_ledger {
	uint64_t ns[PWZ_VCPU_STATES];
	uint64_t cause_ns[PWZ_READY_CAUSES];
	uint64_t costop_ns;
};

/* The run and ready figures of a set of threads (a vCPU's, a cgroup's) since the start. */
struct sm_sched {
	uint64_t run_ns;		/* on-CPU time of its threads */
	uint64_t ready_ns;		/* their run-queue waits */
	uint64_t ready_kernel_ns;	/* the kernel's charge of them (model.h R9) */
	uint64_t waits;			/* how many */
	uint64_t ready_le[SM_READY_LE + 1];	/* the waits that ended (those the kernel's
					 * histogram holds) by length: [j] those below
					 * 2^(PWZ_WHIST_MIN_LOG2 + j) ns and not below the bound
					 * before, [SM_READY_LE] the longer ones */
	uint64_t ready_le_ns;		/* their total */
};

/* One vCPU of a VM: the series {vm, cgroup, vcpu}. */
struct sm_vcpu {
	char vcpu[24];			/* its label: the index, or "tid<tid>" when unknown */
	struct sm_sched s;		/* its threads' run and ready figures */
	struct exitroll exits;		/* its exits since the start by reason (count only), in
					 * order of first sight */
	bool has_ledger;		/* a thread of it has a ledger (model.h R10) */
	struct sm_ledger led;		/* its threads' ledgers since the start */
};

/* One VM: the series {vm, cgroup}. */
struct sm_vm {
	char name[PWZ_NAME_MAX];	/* its label */
	char cgroup[PWZ_CGROUP_MAX];	/* its cgroup label: the cgroup v2 path of the process
					 * it was first seen in, then; "" unknown (no label) */
	uint32_t pid;			/* its process as last seen (0 unknown) */
	uint64_t emu_run_ns;		/* on-CPU time of the process's other threads */
	struct sm_vcpu *vcpus;
	size_t nr_vcpus, cap_vcpus;
};

/* What a vCPU thread id was found to be (kept while its name stays). */
struct sm_vcpu_ref {
	char name[PWZ_NAME_MAX];	/* the thread's display name when classified */
	uint32_t vm;			/* index in vms */
	uint32_t vcpu;			/* index in its vcpus */
};

/* A cgroup: the series {cgroup}. */
struct sm_cgroup {
	char path[PWZ_CGROUP_MAX];	/* its label: a path cut to o.cgroup_depth components,
					 * or SM_CGROUP_UNKNOWN */
	struct sm_sched s;		/* its threads' run and ready figures */
};

/* The cgroup label of the threads whose cgroup is unknown (a path starts with '/'). */
#define SM_CGROUP_UNKNOWN "unknown"

/* A thread, for --serve-threads. */
struct sm_thread {
	uint32_t tid;
	char name[PWZ_NAME_MAX];	/* display name (a new name restarts its series) */
	uint64_t total_ns;		/* on-CPU time since the start: the ranking */
	uint64_t run_ns;		/* its series (while shown): on-CPU time */
	uint64_t ready_ns;		/* run-queue waits */
	uint64_t ready_kernel_ns;	/* the kernel's charge of them (model.h R9) */
	uint64_t waits;			/* how many */
	bool shown;			/* has a series now (one of the busiest) */
	bool retired;			/* had a series and lost its place: never shown again
					 * under this name, so that no series ever goes back */
	uint64_t seen;			/* the scrape of its last activity */
};

struct serve_metrics {
	struct capture *cap;
	struct task_table *tt;
	const struct pwz_meta *meta;
	struct serve_metrics_opts o;
	struct live *live;		/* the reading of the kernel's totals */
	uint64_t start_wall_ns;		/* CLOCK_REALTIME of the first reading */
	uint64_t seq;			/* scrapes so far */
	int nr_cpus;			/* entries of cpu_busy, cpu_idle */
	uint64_t *cpu_busy;		/* per CPU: on-CPU time of every thread but idle */
	uint64_t *cpu_idle;		/* per CPU: the idle task's time */
	uint64_t *cpu_unseen;		/* per CPU: slices whose switch-in was not seen */
	struct capture_cpu_stat stat0;	/* /proc/stat at the start (steal) */
	int nr_tick_cpus;		/* entries of ticks0 and ticks_hi (configured CPUs) */
	struct capture_cpu_ticks *ticks0;	/* each CPU's line of /proc/stat at the start */
	struct capture_cpu_ticks *ticks_now;	/* and at this scrape */
	struct capture_cpu_ticks *ticks_hi;	/* what the page said last (counters never
						 * go back, /proc/stat's lines sometimes do) */
	uint64_t bpf_ns;		/* the programs' run time */
	size_t nr_read;			/* threads of the last reading */
	struct sm_vm *vms;
	size_t nr_vms, cap_vms;
	struct keymap vcpu_tids;	/* vCPU tid -> index in vcpu_refs */
	struct sm_vcpu_ref *vcpu_refs;
	size_t cap_refs;
	struct sm_cgroup *cgroups;	/* the cgroups seen, by path (strcmp()) */
	size_t nr_cgroups, cap_cgroups;
	struct sm_thread *thr;		/* --serve-threads: threads seen, by tid */
	size_t nr_thr, cap_thr;
	uint64_t other_run_ns;		/* threads without a series (and those gone) */
	uint64_t other_ready_ns;
	uint64_t other_ready_kernel_ns;
	uint64_t other_waits;
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct serve_metrics *serve_metrics__new(struct capture *cap, struct task_table *tt, uint64_t t0,
					 const struct pwz_meta *meta,
					 const struct serve_metrics_opts *o, char *err,
					 size_t errlen)
{
	struct serve_metrics *sm = calloc(1, sizeof(*sm));

	if (!sm) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	sm->cap = cap;
	sm->tt = tt;
	sm->meta = meta;
	sm->o = *o;
	sm->live = live__new(cap, tt, t0, o->selected, o->ctx, err, errlen);
	if (!sm->live)
		goto err_free;
	sm->start_wall_ns = clock_ns(CLOCK_REALTIME);
	sm->nr_tick_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (sm->nr_tick_cpus < 1)
		sm->nr_tick_cpus = 1;
	sm->ticks0 = calloc((size_t)sm->nr_tick_cpus, sizeof(*sm->ticks0));
	sm->ticks_now = calloc((size_t)sm->nr_tick_cpus, sizeof(*sm->ticks_now));
	sm->ticks_hi = calloc((size_t)sm->nr_tick_cpus, sizeof(*sm->ticks_hi));
	if (!sm->ticks0 || !sm->ticks_now || !sm->ticks_hi) {
		snprintf(err, errlen, "out of memory");
		goto err_free;
	}
	capture_meta_read_stat("/proc/stat", &sm->stat0, sm->ticks0, sm->nr_tick_cpus);
	if (!sm->ticks0[0].ok)
		sm->nr_tick_cpus = 0;	/* no per-CPU lines: no per-CPU IRQ and steal families */
	return sm;
err_free:
	serve_metrics__free(sm);
	return NULL;
}

/* The VM named name (added when new, with the cgroup of thread tid's process), its pid
 * noted. NULL on ENOMEM. */
static struct sm_vm *vm_get(struct serve_metrics *sm, const char *name, uint32_t tid,
			    uint32_t pid)
{
	struct sm_vm *v;

	for (size_t i = 0; i < sm->nr_vms; i++) {
		if (!strcmp(sm->vms[i].name, name)) {
			if (pid)
				sm->vms[i].pid = pid;
			return &sm->vms[i];
		}
	}
	if (array_reserve((void **)&sm->vms, &sm->cap_vms, sm->nr_vms + 1, sizeof(*sm->vms)))
		return NULL;
	v = &sm->vms[sm->nr_vms++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	snprintf(v->cgroup, sizeof(v->cgroup), "%s", task_table__cgroup(sm->tt, tid));
	v->pid = pid;
	return v;
}

/* The vCPU labelled label of v (added when new). -ENOMEM or its index. */
static int64_t vcpu_get(struct sm_vm *v, const char *label)
{
	struct sm_vcpu *c;

	for (size_t i = 0; i < v->nr_vcpus; i++)
		if (!strcmp(v->vcpus[i].vcpu, label))
			return (int64_t)i;
	if (array_reserve((void **)&v->vcpus, &v->cap_vcpus, v->nr_vcpus + 1, sizeof(*v->vcpus)))
		return -ENOMEM;
	c = &v->vcpus[v->nr_vcpus];
	memset(c, 0, sizeof(*c));
	snprintf(c->vcpu, sizeof(c->vcpu), "%s", label);
	return (int64_t)v->nr_vcpus++;
}

/*
 * The vCPU that thread t is, or NULL (not a vCPU, or out of memory: *e). A thread once found a
 * vCPU stays one while its display name stays (a halted vCPU exits nothing).
 */
static struct sm_vcpu *vcpu_of(struct serve_metrics *sm, const struct live_task *t, int *e)
{
	char vm[PWZ_NAME_MAX], label[24];
	int64_t ref = keymap_find(&sm->vcpu_tids, t->tid, 0), ci;
	struct sm_vm *v;

	if (ref >= 0 && !strcmp(sm->vcpu_refs[ref].name, t->name)) {
		struct sm_vcpu_ref *r = &sm->vcpu_refs[ref];

		return &sm->vms[r->vm].vcpus[r->vcpu];
	}
	/* the frame's VMs follow the same rule (user/live_vms.h) */
	if (!t->vcpu || !live_vcpu_of(t, t->tgid && t->tgid != t->tid ?
				      task_table__name(sm->tt, t->tgid) : NULL,
				      vm, sizeof(vm), label, sizeof(label)))
		return NULL;
	v = vm_get(sm, vm, t->tid, t->tgid);
	ci = v ? vcpu_get(v, label) : -ENOMEM;
	ref = ci >= 0 ? keymap_get(&sm->vcpu_tids, t->tid, 0, NULL) : ci;
	if (ref < 0 || array_reserve((void **)&sm->vcpu_refs, &sm->cap_refs, (size_t)ref + 1,
				     sizeof(*sm->vcpu_refs))) {
		*e = -ENOMEM;
		return NULL;
	}
	snprintf(sm->vcpu_refs[ref].name, PWZ_NAME_MAX, "%s", t->name);
	sm->vcpu_refs[ref].vm = (uint32_t)(v - sm->vms);
	sm->vcpu_refs[ref].vcpu = (uint32_t)ci;
	return &v->vcpus[ci];
}

/* The index of the ready-interval bound above the kernel's wait bucket b (bpf/whist.h). */
static unsigned int ready_le_of(unsigned int b)
{
	if (b == 0)
		return 0;	/* [0, 2^MIN) */
	if (b >= PWZ_WHIST_BUCKETS - 1)
		return SM_READY_LE;	/* 2^MAX and longer */
	return (b - 1) / PWZ_WHIST_SUB + 1;	/* its octave's top */
}

/* Adds thread t's interval (one frame's) to s: its run and ready figures, its ended waits by
 * length. */
static void sched_add(struct sm_sched *s, const struct live_task *t)
{
	s->run_ns += t->run_ns;
	s->ready_ns += t->wait_ns;
	s->ready_kernel_ns += t->run_delay_ns;
	s->waits += t->waits;
	for (unsigned int b = 0; b < PWZ_WHIST_BUCKETS; b++)
		s->ready_le[ready_le_of(b)] += t->wait_hist[b];
	s->ready_le_ns += t->ended_wait_ns;
}

/* R10: t's ledger over one frame (a vCPU thread's) added to vCPU c's. */
static void ledger_add(struct sm_vcpu *c, const struct live_task *t)
{
	c->has_ledger = true;
	for (int i = 0; i < PWZ_VCPU_STATES; i++)
		c->led.ns[i] += t->state_ns[i];
	for (int i = 0; i < PWZ_READY_CAUSES; i++)
		c->led.cause_ns[i] += t->cause_ns[i];
	c->led.costop_ns += t->costop_ns;
}

/* Adds the exits of frame f to their vCPUs. Returns 0 or -ENOMEM. */
static int add_exits(struct serve_metrics *sm, const struct live_frame *f)
{
	for (size_t i = 0; i < f->nr_exits; i++) {
		const struct live_exit *x = &f->exits[i];
		int64_t ref = keymap_find(&sm->vcpu_tids, x->tid, 0);
		struct sm_vcpu_ref *r;
		struct exitroll_entry *e;

		if (ref < 0)
			continue;	/* a thread of no frame task: cannot be (exits count) */
		r = &sm->vcpu_refs[ref];
		e = exitroll_get(&sm->vms[r->vm].vcpus[r->vcpu].exits, x->isa, x->reason, NULL);
		if (!e)
			return -ENOMEM;
		e->count += x->count;
	}
	return 0;
}

/* The VM whose process is tgid, or NULL. */
static struct sm_vm *vm_of_pid(struct serve_metrics *sm, uint32_t tgid)
{
	for (size_t i = 0; tgid && i < sm->nr_vms; i++)
		if (sm->vms[i].pid == tgid)
			return &sm->vms[i];
	return NULL;
}

/*
 * The entry of key in the sorted array *arr (*nr entries of size sz, room for *cap), found by
 * cmp(key, entry) (< 0, 0, > 0 as key sorts before, with, after entry), or added zeroed in its
 * place when absent (*added then true). NULL on ENOMEM (the array unchanged).
 */
static void *sorted_get(void **arr, size_t *nr, size_t *cap, size_t sz, const void *key,
			int (*cmp)(const void *key, const void *entry), bool *added)
{
	size_t lo = 0, hi = *nr;
	char *at;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp(key, (char *)*arr + mid * sz) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*added = false;
	if (lo < *nr && !cmp(key, (char *)*arr + lo * sz))
		return (char *)*arr + lo * sz;
	if (array_reserve(arr, cap, *nr + 1, sz))
		return NULL;
	at = (char *)*arr + lo * sz;
	memmove(at + sz, at, (*nr - lo) * sz);
	memset(at, 0, sz);
	(*nr)++;
	*added = true;
	return at;
}

static int thread_cmp(const void *key, const void *entry)
{
	uint32_t tid = *(const uint32_t *)key, e = ((const struct sm_thread *)entry)->tid;

	return tid < e ? -1 : tid > e;
}

/* The --serve-threads entry of tid (added when new), or NULL on ENOMEM. */
static struct sm_thread *thread_get(struct serve_metrics *sm, uint32_t tid)
{
	bool added;
	struct sm_thread *th = sorted_get((void **)&sm->thr, &sm->nr_thr, &sm->cap_thr,
					  sizeof(*sm->thr), &tid, thread_cmp, &added);

	if (th && added)
		th->tid = tid;
	return th;
}

static int cgroup_cmp(const void *key, const void *entry)
{
	return strcmp(key, ((const struct sm_cgroup *)entry)->path);
}

/* Adds t's interval to its cgroup's figures: its process's path cut to o.cgroup_depth
 * components, SM_CGROUP_UNKNOWN when unknown (the cgroup added when new). Returns 0 or
 * -ENOMEM. */
static int add_cgroup(struct serve_metrics *sm, const struct live_task *t)
{
	const char *path;
	char cut[PWZ_CGROUP_MAX];
	struct sm_cgroup *g;
	bool added;

	if (!t->tid)
		return 0;	/* the idle task: no cgroup's */
	path = task_table__cgroup(sm->tt, t->tid);
	if (*path)
		snprintf(cut, sizeof(cut), "%.*s", (int)cgroup_path_prefix(path, sm->o.cgroup_depth),
			 path);
	else
		snprintf(cut, sizeof(cut), "%s", SM_CGROUP_UNKNOWN);
	g = sorted_get((void **)&sm->cgroups, &sm->nr_cgroups, &sm->cap_cgroups,
		       sizeof(*sm->cgroups), cut, cgroup_cmp, &added);
	if (!g)
		return -ENOMEM;
	if (added)
		memcpy(g->path, cut, sizeof(g->path));
	sched_add(&g->s, t);
	return 0;
}

/* Ends th's series: what it held goes to "other" (so the sum of the family never shrinks). */
static void thread_hide(struct serve_metrics *sm, struct sm_thread *th)
{
	sm->other_run_ns += th->run_ns;
	sm->other_ready_ns += th->ready_ns;
	sm->other_ready_kernel_ns += th->ready_kernel_ns;
	sm->other_waits += th->waits;
	th->run_ns = th->ready_ns = th->ready_kernel_ns = th->waits = 0;
	th->shown = false;
}

/* Adds t's interval to its --serve-threads entry, or to "other". Returns 0 or -ENOMEM. */
static int add_thread(struct serve_metrics *sm, const struct live_task *t)
{
	struct sm_thread *th = thread_get(sm, t->tid);

	if (!th)
		return -ENOMEM;
	if (strcmp(th->name, t->name)) {	/* renamed, or the tid reused: another series */
		thread_hide(sm, th);
		th->retired = false;
		th->total_ns = 0;
		snprintf(th->name, sizeof(th->name), "%s", t->name);
	}
	th->total_ns += t->run_ns;
	th->seen = sm->seq;
	if (th->shown) {
		th->run_ns += t->run_ns;
		th->ready_ns += t->wait_ns;
		th->ready_kernel_ns += t->run_delay_ns;
		th->waits += t->waits;
	} else {
		sm->other_run_ns += t->run_ns;
		sm->other_ready_ns += t->wait_ns;
		sm->other_ready_kernel_ns += t->run_delay_ns;
		sm->other_waits += t->waits;
	}
	return 0;
}

static int by_total_desc(const void *a, const void *b)
{
	const struct sm_thread *x = *(const struct sm_thread *const *)a;
	const struct sm_thread *y = *(const struct sm_thread *const *)b;

	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

/*
 * The threads gone (idle this scrape and no longer in /proc) leave, their series into "other";
 * then the o.threads busiest since the start have a series, but for a thread that had one and
 * lost its place (retired): it stays in "other". Returns 0 or -ENOMEM.
 */
static int rank_threads(struct serve_metrics *sm)
{
	struct sm_thread **order;
	size_t n = 0;

	for (size_t i = 0; i < sm->nr_thr; i++) {
		struct sm_thread *th = &sm->thr[i];

		if (th->seen != sm->seq && !task_table__alive(sm->tt, th->tid)) {
			thread_hide(sm, th);
			continue;
		}
		sm->thr[n++] = *th;
	}
	sm->nr_thr = n;
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = &sm->thr[i];
	qsort(order, n, sizeof(*order), by_total_desc);
	for (size_t i = 0, shown = 0; i < n; i++) {
		if (!order[i]->retired && shown < sm->o.threads) {
			order[i]->shown = true;
			shown++;
		} else if (order[i]->shown) {
			thread_hide(sm, order[i]);
			order[i]->retired = true;
		}
	}
	free(order);
	return 0;
}

/* Adds frame f (the differences since the previous reading) to the counters. */
static int add_frame(struct serve_metrics *sm, const struct live_frame *f)
{
	int e = 0;

	if (!sm->cpu_busy) {
		sm->nr_cpus = f->nr_cpu_slots;
		sm->cpu_busy = calloc(sm->nr_cpus, sizeof(*sm->cpu_busy));
		sm->cpu_idle = calloc(sm->nr_cpus, sizeof(*sm->cpu_idle));
		sm->cpu_unseen = calloc(sm->nr_cpus, sizeof(*sm->cpu_unseen));
		if (!sm->cpu_busy || !sm->cpu_idle || !sm->cpu_unseen)
			return -ENOMEM;
	}
	for (int c = 0; c < sm->nr_cpus && c < f->nr_cpu_slots; c++) {
		sm->cpu_busy[c] += f->cpu_busy_ns[c];
		sm->cpu_idle[c] += f->cpu_idle_ns[c];
		sm->cpu_unseen[c] += f->cpu_unseen_ns[c];
	}
	sm->bpf_ns += f->bpf_ns;
	sm->nr_read = f->nr_read;
	/* the vCPUs first, so that their processes are known VMs for the other threads */
	for (size_t i = 0; i < f->nr_tasks && !e; i++) {
		const struct live_task *t = &f->tasks[i];
		struct sm_vcpu *c = vcpu_of(sm, t, &e);

		if (c)
			sched_add(&c->s, t);
		if (c && t->has_ledger)
			ledger_add(c, t);
	}
	for (size_t i = 0; i < f->nr_tasks && !e; i++) {
		const struct live_task *t = &f->tasks[i];
		struct sm_vm *v;

		if (keymap_find(&sm->vcpu_tids, t->tid, 0) < 0 && (v = vm_of_pid(sm, t->tgid)))
			v->emu_run_ns += t->run_ns;
		if (sm->o.cgroup_depth)
			e = add_cgroup(sm, t);
		if (!e && sm->o.threads)
			e = add_thread(sm, t);
	}
	if (!e)
		e = add_exits(sm, f);
	if (!e && sm->o.threads)
		e = rank_threads(sm);
	return e;
}

/* A family of one counter per CPU from v (nanoseconds). */
static void write_cpus(struct serve_metrics *sm, struct promtext *pt, const char *name,
		       const char *help, const uint64_t *v)
{
	char cpu[16];
	struct promtext_label l = { "cpu", cpu };

	promtext_family(pt, name, "counter", help);
	for (int c = 0; c < sm->nr_cpus; c++) {
		snprintf(cpu, sizeof(cpu), "%d", c);
		promtext_sample_ns(pt, name, &l, 1, v[c]);
	}
}

/* Which figure of a vCPU, VM, cgroup or thread a family shows: FIG_READY_KERNEL only when the
 * capture has the kernel's charge (capture__run_delay()). */
enum sm_fig { FIG_RUN, FIG_READY, FIG_READY_KERNEL, FIG_WAITS };

/* A family of one figure. */
struct sm_fig_fam {
	enum sm_fig fig;
	const char *name, *help;
};

static uint64_t sched_fig(const struct sm_sched *s, enum sm_fig fig)
{
	switch (fig) {
	case FIG_RUN:
		return s->run_ns;
	case FIG_READY:
		return s->ready_ns;
	case FIG_READY_KERNEL:
		return s->ready_kernel_ns;
	default:
		return s->waits;
	}
}

/* Whether the page has figure fig's families. */
static bool fig_shown(const struct serve_metrics *sm, enum sm_fig fig)
{
	return fig != FIG_READY_KERNEL || capture__run_delay(sm->cap);
}

/* One sample of figure fig: seconds, or a count for FIG_WAITS. */
static void fig_sample(struct promtext *pt, const char *name, const struct promtext_label *l,
		       size_t nr, enum sm_fig fig, uint64_t v)
{
	if (fig == FIG_WAITS)
		promtext_sample_u64(pt, name, l, nr, v);
	else
		promtext_sample_ns(pt, name, l, nr, v);
}

/* The labels every series of VM v starts with: l[0] vm, l[1] cgroup (left out of the line
 * while unknown: promtext.h). */
static void vm_labels(const struct sm_vm *v, struct promtext_label l[2])
{
	l[0] = (struct promtext_label){ "vm", v->name };
	l[1] = (struct promtext_label){ "cgroup", v->cgroup };
}

/* The family name of figure fig per vCPU, or (per_vm) per VM summed over its vCPUs. */
static void write_vm_fig(struct serve_metrics *sm, struct promtext *pt, bool per_vm,
			 enum sm_fig fig, const char *name, const char *help)
{
	promtext_family(pt, name, "counter", help);
	for (size_t i = 0; i < sm->nr_vms; i++) {
		const struct sm_vm *v = &sm->vms[i];
		struct promtext_label l[3] = { [2] = { "vcpu", NULL } };
		uint64_t sum = 0;

		vm_labels(v, l);
		for (size_t k = 0; k < v->nr_vcpus; k++) {
			sum += sched_fig(&v->vcpus[k].s, fig);
			l[2].value = v->vcpus[k].vcpu;
			if (!per_vm)
				fig_sample(pt, name, l, 3, fig, sched_fig(&v->vcpus[k].s, fig));
		}
		if (per_vm)
			fig_sample(pt, name, l, 2, fig, sum);
	}
}

/*
 * The samples of ready-interval histogram name (its family written) for one series: labels
 * l[0 .. nl), the le label put at l[nl]; s's ended waits by length, as a histogram whose bounds
 * are the kernel's (its octaves' tops): each bucket counts the waits below its bound.
 */
static void write_ready_series(struct promtext *pt, const char *name, struct promtext_label *l,
			       size_t nl, const struct sm_sched *s)
{
	char bucket[96], sum[96], count[96], le[PROMTEXT_SECONDS_MAX];
	uint64_t n = 0;

	snprintf(bucket, sizeof(bucket), "%s_bucket", name);
	snprintf(sum, sizeof(sum), "%s_sum", name);
	snprintf(count, sizeof(count), "%s_count", name);
	l[nl].name = "le";
	for (unsigned int j = 0; j <= SM_READY_LE; j++) {
		n += s->ready_le[j];
		l[nl].value = j < SM_READY_LE ?
			promtext_seconds(le, 1ull << (PWZ_WHIST_MIN_LOG2 + j)) : "+Inf";
		promtext_sample_u64(pt, bucket, l, nl + 1, n);
	}
	promtext_sample_ns(pt, sum, l, nl, s->ready_le_ns);
	promtext_sample_u64(pt, count, l, nl, n);
}

/* pwz_vcpu_ready_interval_seconds{vm, cgroup, vcpu}: the vCPUs' waits by length. */
static void write_ready_hist(struct serve_metrics *sm, struct promtext *pt)
{
	const char *name = "pwz_vcpu_ready_interval_seconds";

	promtext_family(pt, name, "histogram",
			"Run-queue waits (CPU ready intervals) of the vCPU's thread that ended, by length.");
	for (size_t i = 0; i < sm->nr_vms; i++) {
		for (size_t k = 0; k < sm->vms[i].nr_vcpus; k++) {
			const struct sm_vcpu *c = &sm->vms[i].vcpus[k];
			struct promtext_label l[4] = { [2] = { "vcpu", c->vcpu } };

			vm_labels(&sm->vms[i], l);
			write_ready_series(pt, name, l, 3, &c->s);
		}
	}
}

/* pwz_vcpu_exits_total{vm, cgroup, vcpu, reason}. */
static void write_exits(struct serve_metrics *sm, struct promtext *pt)
{
	const char *name = "pwz_vcpu_exits_total";

	promtext_family(pt, name, "counter", "KVM exits of the vCPU by exit reason.");
	for (size_t i = 0; i < sm->nr_vms; i++) {
		const struct sm_vm *v = &sm->vms[i];

		for (size_t k = 0; k < v->nr_vcpus; k++) {
			const struct sm_vcpu *c = &v->vcpus[k];

			for (size_t x = 0; x < c->exits.n; x++) {
				const struct exitroll_entry *e = exitroll_at(&c->exits, x);
				const char *rn = pwz_meta_exit_name(sm->meta, e->isa, e->code);
				char code[16];
				struct promtext_label l[4] = { [2] = { "vcpu", c->vcpu },
							       [3] = { "reason", code } };

				vm_labels(v, l);
				snprintf(code, sizeof(code), "%u", e->code);
				if (rn)
					l[3].value = rn;
				promtext_sample_u64(pt, name, l, 4, e->count);
			}
		}
	}
}

/* A family of the vCPU ledgers' figures (model.h R10): n of them, the i-th named name(i) in a
 * label key (none for n == 1), at off bytes into struct sm_ledger (n uint64_t). */
struct sm_ledger_fam {
	const char *vcpu_name, *vcpu_help;	/* the family per vCPU */
	const char *vm_name, *vm_help;		/* and per VM, its vCPUs' sum */
	const char *key;
	const char *(*name)(unsigned int i);
	int n;
	size_t off;
};

static uint64_t ledger_fig(const struct sm_vcpu *c, const struct sm_ledger_fam *f, int i)
{
	return ((const uint64_t *)((const char *)&c->led + f->off))[i];
}

/* The vCPUs' samples of family f, then the VMs' (their vCPUs with a ledger summed). */
static void write_ledger_fam(struct serve_metrics *sm, struct promtext *pt,
			     const struct sm_ledger_fam *f)
{
	size_t nl = f->n > 1 ? 4 : 3;

	promtext_family(pt, f->vcpu_name, "counter", f->vcpu_help);
	for (size_t i = 0; i < sm->nr_vms; i++) {
		for (size_t k = 0; k < sm->vms[i].nr_vcpus; k++) {
			const struct sm_vcpu *c = &sm->vms[i].vcpus[k];
			struct promtext_label l[4] = { [2] = { "vcpu", c->vcpu },
						       [3] = { f->key, NULL } };

			vm_labels(&sm->vms[i], l);
			for (int j = 0; c->has_ledger && j < f->n; j++) {
				l[3].value = f->n > 1 ? f->name(j) : NULL;
				promtext_sample_ns(pt, f->vcpu_name, l, nl, ledger_fig(c, f, j));
			}
		}
	}
	promtext_family(pt, f->vm_name, "counter", f->vm_help);
	for (size_t i = 0; i < sm->nr_vms; i++) {
		const struct sm_vm *v = &sm->vms[i];
		struct promtext_label l[3] = { [2] = { f->key, NULL } };
		bool any = false;

		vm_labels(v, l);
		for (size_t k = 0; k < v->nr_vcpus; k++)
			any |= v->vcpus[k].has_ledger;
		for (int j = 0; any && j < f->n; j++) {
			uint64_t sum = 0;

			for (size_t k = 0; k < v->nr_vcpus; k++)
				sum += ledger_fig(&v->vcpus[k], f, j);
			l[2].value = f->n > 1 ? f->name(j) : NULL;
			promtext_sample_ns(pt, f->vm_name, l, nl - 1, sum);
		}
	}
}

/* The ledgers' families: states, ready causes, co-stop. */
static void write_ledgers(struct serve_metrics *sm, struct promtext *pt)
{
	static const struct sm_ledger_fam fam[] = {
		{ "pwz_vcpu_seconds_total",
		  "Time of the vCPU's thread in each state of its ledger (guest, exit_kernel, exit_user, halt_poll, halt, ready, other_on_cpu, unseen): together its life.",
		  "pwz_vm_seconds_total",
		  "Time of the VM's vCPU threads in each state of their ledgers, summed.",
		  "state", pwz_vcpu_state_name, PWZ_VCPU_STATES,
		  offsetof(struct sm_ledger, ns) },
		{ "pwz_vcpu_ready_cause_seconds_total",
		  "Ready time of the vCPU's thread by what held its CPU meanwhile (same_vm_vcpu, same_vm_vmm, other_vm, host, idle, unseen), counted when each wait ends.",
		  "pwz_vm_ready_cause_seconds_total",
		  "Ready time of the VM's vCPU threads by what held their CPUs, summed.",
		  "cause", pwz_ready_cause_name, PWZ_READY_CAUSES,
		  offsetof(struct sm_ledger, cause_ns) },
		{ "pwz_vcpu_costop_seconds_total",
		  "Ready time of the vCPU's thread while a sibling vCPU of its VM ran (co-stop).",
		  "pwz_vm_costop_seconds_total", "The sum of the VM's vCPUs' co-stop seconds.",
		  NULL, NULL, 1, offsetof(struct sm_ledger, costop_ns) },
	};

	for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++)
		write_ledger_fam(sm, pt, &fam[i]);
}

/* The VM families. */
static void write_vms(struct serve_metrics *sm, struct promtext *pt)
{
	static const struct {
		bool per_vm;		/* summed over the VM's vCPUs */
		enum sm_fig fig;
		const char *name, *help;
	} fam[] = {
		{ false, FIG_RUN, "pwz_vcpu_run_seconds_total", "On-CPU time of the vCPU's thread." },
		{ false, FIG_READY, "pwz_vcpu_ready_seconds_total",
		  "Run-queue wait (CPU ready) of the vCPU's thread, counted when the wait ends." },
		{ false, FIG_READY_KERNEL, "pwz_vcpu_ready_kernel_seconds_total",
		  "The kernel's charge of the vCPU thread's run-queue waits (schedstat run_delay), counted at the switch-out after each wait." },
		{ false, FIG_WAITS, "pwz_vcpu_ready_waits_total",
		  "Run-queue waits of the vCPU's thread that ended." },
		{ true, FIG_RUN, "pwz_vm_run_seconds_total", "On-CPU time of the VM's vCPU threads." },
		{ true, FIG_READY, "pwz_vm_ready_seconds_total",
		  "Run-queue wait of the VM's vCPU threads." },
		{ true, FIG_READY_KERNEL, "pwz_vm_ready_kernel_seconds_total",
		  "The kernel's charge of the VM's vCPU threads' run-queue waits (schedstat run_delay)." },
		{ true, FIG_WAITS, "pwz_vm_ready_waits_total",
		  "Run-queue waits of the VM's vCPU threads that ended." },
	};

	for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		if (fig_shown(sm, fam[f].fig))
			write_vm_fig(sm, pt, fam[f].per_vm, fam[f].fig, fam[f].name,
				     fam[f].help);
	}
	write_ready_hist(sm, pt);
	write_exits(sm, pt);
	write_ledgers(sm, pt);
	promtext_family(pt, "pwz_vm_emulator_run_seconds_total", "counter",
			"On-CPU time of the VM process's other threads (emulator, I/O).");
	for (size_t i = 0; i < sm->nr_vms; i++) {
		struct promtext_label l[2];

		vm_labels(&sm->vms[i], l);
		promtext_sample_ns(pt, "pwz_vm_emulator_run_seconds_total", l, 2,
				   sm->vms[i].emu_run_ns);
	}
}

/* The per-cgroup families (o.cgroup_depth > 0): each cgroup's threads' figures, and their
 * waits by length with the vCPUs' bounds. */
static void write_cgroups(struct serve_metrics *sm, struct promtext *pt)
{
	static const struct sm_fig_fam fam[] = {
		{ FIG_RUN, "pwz_cgroup_run_seconds_total",
		  "On-CPU time of the threads of the cgroup's processes (each process's cgroup v2 path cut to --serve-cgroup-depth components; \"unknown\" where not known)." },
		{ FIG_READY, "pwz_cgroup_ready_seconds_total",
		  "Run-queue wait of the cgroup's threads, counted when each wait ends." },
		{ FIG_READY_KERNEL, "pwz_cgroup_ready_kernel_seconds_total",
		  "The kernel's charge of the cgroup's threads' run-queue waits (schedstat run_delay)." },
		{ FIG_WAITS, "pwz_cgroup_ready_waits_total",
		  "Run-queue waits of the cgroup's threads that ended." },
	};
	const char *hist = "pwz_cgroup_ready_interval_seconds";

	for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		if (!fig_shown(sm, fam[f].fig))
			continue;
		promtext_family(pt, fam[f].name, "counter", fam[f].help);
		for (size_t i = 0; i < sm->nr_cgroups; i++)
			fig_sample(pt, fam[f].name,
				   &(struct promtext_label){ "cgroup", sm->cgroups[i].path }, 1,
				   fam[f].fig, sched_fig(&sm->cgroups[i].s, fam[f].fig));
	}
	promtext_family(pt, hist, "histogram",
			"Run-queue waits (ready intervals) of the cgroup's threads that ended, by length.");
	for (size_t i = 0; i < sm->nr_cgroups; i++) {
		struct promtext_label l[2] = { { "cgroup", sm->cgroups[i].path } };

		write_ready_series(pt, hist, l, 1, &sm->cgroups[i].s);
	}
}

/* The --serve-threads families: the threads with a series, then "other". */
static void write_threads(struct serve_metrics *sm, struct promtext *pt)
{
	static const struct sm_fig_fam fam[] = {
		{ FIG_RUN, "pwz_thread_run_seconds_total", "On-CPU time of the thread (the busiest; the rest in thread=\"other\")." },
		{ FIG_READY, "pwz_thread_ready_seconds_total", "Run-queue wait of the thread, counted when the wait ends." },
		{ FIG_READY_KERNEL, "pwz_thread_ready_kernel_seconds_total", "The kernel's charge of the thread's run-queue waits (schedstat run_delay)." },
		{ FIG_WAITS, "pwz_thread_ready_waits_total", "Run-queue waits of the thread that ended." },
	};
	char tid[16];

	for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		struct promtext_label l[2] = { { "thread", "other" }, { "tid", tid } };
		struct sm_sched other = { .run_ns = sm->other_run_ns,
					  .ready_ns = sm->other_ready_ns,
					  .ready_kernel_ns = sm->other_ready_kernel_ns,
					  .waits = sm->other_waits };

		if (!fig_shown(sm, fam[f].fig))
			continue;
		promtext_family(pt, fam[f].name, "counter", fam[f].help);
		for (size_t i = 0; i < sm->nr_thr; i++) {
			const struct sm_thread *th = &sm->thr[i];
			struct sm_sched c = { .run_ns = th->run_ns, .ready_ns = th->ready_ns,
					      .ready_kernel_ns = th->ready_kernel_ns,
					      .waits = th->waits };

			if (!th->shown)
				continue;
			snprintf(tid, sizeof(tid), "%u", th->tid);
			l[0].value = th->name;
			fig_sample(pt, fam[f].name, l, 2, fam[f].fig, sched_fig(&c, fam[f].fig));
		}
		l[0].value = "other";
		fig_sample(pt, fam[f].name, l, 1, fam[f].fig, sched_fig(&other, fam[f].fig));
	}
}

/* pwz's own families: cost, drops, start, build. */
static int write_health(struct serve_metrics *sm, struct promtext *pt)
{
	static const struct {
		const char *kind;
		enum pwz_cnt cnt;
	} drops[] = {
		{ "map_full", CNT_MAP_FULL }, { "task", CNT_DROP_TASK },
		{ "hist_miss", CNT_HIST_MISS }, { "slice", CNT_DROP_SLICE },
		{ "kvm_exit", CNT_DROP_KVM_EXIT },
	};
	struct promtext_label info[2] = {
		{ "version", sm->meta->tool_version ? sm->meta->tool_version : "" },
		{ "kernel", sm->meta->kernel ? sm->meta->kernel : "" },
	};
	uint64_t cnt[PWZ_CNT_MAX];
	int e = capture__counters(sm->cap, cnt);

	if (e)
		return e;
	promtext_family(pt, "pwz_context_switches_total", "counter",
			"Context switches (sched_switch events) seen on every CPU.");
	promtext_sample_u64(pt, "pwz_context_switches_total", NULL, 0, cnt[CNT_SWITCHES]);
	promtext_family(pt, "pwz_drops_total", "counter",
			"Events the kernel side could not count or record, by kind.");
	for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++)
		promtext_sample_u64(pt, "pwz_drops_total",
				    &(struct promtext_label){ "kind", drops[i].kind }, 1,
				    cnt[drops[i].cnt]);
	promtext_family(pt, "pwz_bpf_run_seconds_total", "counter",
			"Time spent in pwz's BPF programs (0 when the kernel's BPF statistics are off).");
	promtext_sample_ns(pt, "pwz_bpf_run_seconds_total", NULL, 0, sm->bpf_ns);
	promtext_family(pt, "pwz_threads_read", "gauge",
			"Threads whose kernel aggregates a scrape reads: those seen, less the threads gone that a sweep dropped.");
	promtext_sample_u64(pt, "pwz_threads_read", NULL, 0, sm->nr_read);
	promtext_family(pt, "pwz_start_time_seconds", "gauge",
			"When the counters started, seconds since the Unix epoch.");
	promtext_sample_ns(pt, "pwz_start_time_seconds", NULL, 0, sm->start_wall_ns);
	promtext_family(pt, "pwz_build_info", "gauge", "pwz's version and the kernel's release.");
	promtext_sample_u64(pt, "pwz_build_info", info, 2, 1);
	return 0;
}

/* Host-wide steal time of /proc/stat since the start (now: its "cpu" line at this scrape). */
static void write_steal(struct serve_metrics *sm, struct promtext *pt,
			const struct capture_cpu_stat *now)
{
	struct pwz_meta m = { 0 };

	capture_meta_steal(&m, &sm->stat0, now, sysconf(_SC_CLK_TCK));
	if (!m.has_steal)
		return;
	promtext_family(pt, "pwz_host_steal_seconds_total", "counter",
			"Time the hypervisor ran something else, all CPUs (/proc/stat).");
	promtext_sample_ns(pt, "pwz_host_steal_seconds_total", NULL, 0, m.steal_ns);
}

/* A /proc/stat counter since the start (zero its value then), never below hi (said before). */
static uint64_t since_start(uint64_t hi, uint64_t now, uint64_t zero)
{
	uint64_t v = now > zero ? now - zero : 0;

	return v > hi ? v : hi;
}

/* Each CPU's IRQ (hard, soft) and steal time since the start, from its /proc/stat line
 * (sm->ticks_now, read with the "cpu" line at this scrape). */
static void write_cpu_ticks(struct serve_metrics *sm, struct promtext *pt)
{
	static const char *const kinds[] = { "hard", "soft" };
	const struct capture_cpu_ticks *now = sm->ticks_now;
	uint64_t ns_per_tick = 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK);
	char cpu[16];
	struct promtext_label l[2] = { { "cpu", cpu }, { "kind", NULL } };
	int n = sm->nr_tick_cpus;

	if (!n || !now[0].ok)
		return;
	for (int c = 0; c < n; c++) {	/* since the start, never below what was said */
		struct capture_cpu_ticks *z = &sm->ticks0[c], *hi = &sm->ticks_hi[c];

		hi->irq = since_start(hi->irq, now[c].irq, z->irq);
		hi->softirq = since_start(hi->softirq, now[c].softirq, z->softirq);
		hi->steal = since_start(hi->steal, now[c].steal, z->steal);
	}
	promtext_family(pt, "pwz_cpu_irq_seconds_total", "counter",
			"Time in hard (kind=\"hard\") and soft (kind=\"soft\") interrupts, per CPU (/proc/stat).");
	for (int c = 0; c < n; c++) {
		snprintf(cpu, sizeof(cpu), "%d", c);
		for (int k = 0; k < 2; k++) {
			l[1].value = kinds[k];
			promtext_sample_ns(pt, "pwz_cpu_irq_seconds_total", l, 2,
					   (k ? sm->ticks_hi[c].softirq : sm->ticks_hi[c].irq) * ns_per_tick);
		}
	}
	promtext_family(pt, "pwz_cpu_steal_seconds_total", "counter",
			"Time the hypervisor ran something else instead of this CPU (/proc/stat).");
	for (int c = 0; c < n; c++) {
		snprintf(cpu, sizeof(cpu), "%d", c);
		promtext_sample_ns(pt, "pwz_cpu_steal_seconds_total", l, 1, sm->ticks_hi[c].steal * ns_per_tick);
	}
}

int serve_metrics__scrape(struct serve_metrics *sm, struct promtext *pt)
{
	uint64_t t = clock_ns(CLOCK_MONOTONIC);
	struct capture_cpu_stat stat_now;
	struct live_frame *f;
	int e;

	sm->seq++;
	e = live__sample(sm->live, &f);
	if (e)
		return e;
	e = add_frame(sm, f);
	if (!e) {	/* everything of the threads gone is counted: the kernel may drop them */
		int n = live__forget_gone(sm->live);

		e = n < 0 ? n : 0;
	}
	task_table__forget_gone(sm->tt, NULL, NULL);
	if (e)
		return e;
	promtext_reset(pt);
	write_cpus(sm, pt, "pwz_cpu_busy_seconds_total",
		   "On-CPU time of every thread but the idle task, per CPU.", sm->cpu_busy);
	write_cpus(sm, pt, "pwz_cpu_idle_seconds_total", "Time of the idle task, per CPU.",
		   sm->cpu_idle);
	write_cpus(sm, pt, "pwz_cpu_unattributed_seconds_total",
		   "Time of slices whose switch-in the tracepoint did not see, per CPU: neither busy nor idle.",
		   sm->cpu_unseen);
	/* /proc/stat once: the host's line and each CPU's */
	if (!capture_meta_read_stat("/proc/stat", &stat_now, sm->ticks_now, sm->nr_tick_cpus))
		write_steal(sm, pt, &stat_now);
	write_cpu_ticks(sm, pt);
	write_vms(sm, pt);
	if (sm->o.cgroup_depth)
		write_cgroups(sm, pt);
	if (sm->o.threads)
		write_threads(sm, pt);
	e = write_health(sm, pt);
	if (e)
		return e;
	promtext_family(pt, "pwz_scrape_duration_seconds", "gauge",
			"Time this scrape took to read the aggregates and write the page.");
	promtext_sample_ns(pt, "pwz_scrape_duration_seconds", NULL, 0,
			   clock_ns(CLOCK_MONOTONIC) - t);
	promtext_family(pt, "pwz_series", "gauge", "Samples on this page, this one included.");
	promtext_sample_u64(pt, "pwz_series", NULL, 0, pt->series + 1);
	promtext_end(pt);
	return promtext_error(pt);
}

void serve_metrics__free(struct serve_metrics *sm)
{
	if (!sm)
		return;
	live__free(sm->live);
	for (size_t i = 0; i < sm->nr_vms; i++) {
		for (size_t k = 0; k < sm->vms[i].nr_vcpus; k++)
			exitroll_free(&sm->vms[i].vcpus[k].exits);
		free(sm->vms[i].vcpus);
	}
	free(sm->vms);
	keymap_free(&sm->vcpu_tids);
	free(sm->vcpu_refs);
	free(sm->cgroups);
	free(sm->thr);
	free(sm->ticks0);
	free(sm->ticks_now);
	free(sm->ticks_hi);
	free(sm->cpu_busy);
	free(sm->cpu_idle);
	free(sm->cpu_unseen);
	free(sm);
}
