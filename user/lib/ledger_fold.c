// SPDX-License-Identifier: GPL-2.0
/* The host's vCPU state ledger (model.h R10): the kernel's transitions, replayed on the records. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "births.h"
#include "keymap.h"
#include "ledger_fold.h"
#include "tasknames.h"

#define KVM_EXIT_INTR 10	/* kvm_userspace_exit reason: a signal stopped the run */
#define LF_DEAD PWZ_VCPU_STATES	/* the state after its exit: no time counts */

/* A slice as the fold keeps it. */
struct lf_slice {
	uint64_t start, end;
	uint32_t tid, cpu;
	uint16_t kind;		/* enum pwz_slice_end */
	uint16_t unseen;	/* PWZ_SLICE_UNSEEN_START */
};

/* A wait as the fold keeps it. */
struct lf_wait {
	uint64_t wake, in;	/* its start and its switch-in */
	uint32_t tid, cpu;
	uint32_t preempted;	/* it began with a switch-out */
};

/* A KVM event no record holds, or a naming. */
enum lf_kev_kind { KEV_UEXIT, KEV_HALT, KEV_NAMED, KEV_NAMED_AT_START };

struct lf_kev {
	uint64_t t;
	uint64_t ns;		/* KEV_HALT: the halt's length */
	uint32_t tid;
	uint16_t kind;		/* enum lf_kev_kind */
	uint16_t arg;		/* KEV_UEXIT: the state it enters; KEV_HALT: it blocked */
};

struct lf_thread {
	uint32_t tgid;		/* 0 unknown */
	bool seen;		/* a task record of its current instance came */
	bool vcpu_name;		/* its name now is "CPU <n>/KVM" */
	bool vcpu;		/* an instance of it is a vCPU */
	bool late;		/* ledger_fold__late(): unseen before its first event */
};

/* A vCPU thread instance. */
struct lf_inst {
	uint32_t tid;
	uint64_t since;		/* its birth (R8) */
};

/* An event of a vCPU instance, as the kernel would have seen it. */
enum lf_ev_kind { EV_OUT, EV_IN, EV_WAKE, EV_EXIT, EV_ENTRY, EV_UEXIT, EV_HALT, EV_NAMED };

struct lf_ev {
	uint64_t t;
	uint64_t x;		/* EV_OUT: the R2 start (0: switch-in seen); EV_HALT: ns;
				 * EV_EXIT: its vcpu_id + 1 */
	uint32_t inst, seq;
	uint32_t cpu;
	uint8_t kind;		/* enum lf_ev_kind */
	uint8_t rank;		/* at one instant: on-CPU KVM events, switch-out, wakeup,
				 * switch-in, kvm_entry */
	uint16_t arg;		/* EV_OUT: end kind; EV_UEXIT: state; EV_HALT: blocked */
};

/* A stretch some vCPU of a process ran: its busy time (co-stop). */
struct lf_busy {
	uint32_t tgid;
	uint64_t start, end;
};

struct ledger_fold {
	struct lf_slice *slices;
	size_t nr_slices, cap_slices;
	struct lf_wait *waits;
	size_t nr_waits, cap_waits;
	struct pwz_kvm_exit *exits;
	size_t nr_exits, cap_exits;
	struct lf_kev *kevs;
	size_t nr_kevs, cap_kevs;
	struct birth_table births;	/* R8 */
	struct keymap threads;		/* (tid, 0) -> thr[] */
	struct lf_thread *thr;
	size_t cap_thr;
	/* made by ledger_fold__emit() */
	struct keymap insts;		/* (tid, since) -> inst[] */
	struct lf_inst *inst;
	size_t cap_inst;
	struct keymap vms;		/* (tgid, 0): a process with a vCPU thread */
	struct lf_ev *ev;
	size_t nr_ev, cap_ev;
	struct lf_busy *busy;
	size_t nr_busy, cap_busy;
	size_t *cpu_first;		/* per CPU + 1: its first slice in slices (sorted) */
	uint32_t nr_cpus;
	bool emitted;
};

/* One instance's ledger as the walk folds it: the kernel's struct vcpu_ledger. */
struct lf_run {
	struct pwz_vcpu_ledger l;
	uint64_t since;		/* the current state's start; l.ns holds the time before */
	uint64_t stretch;	/* when the current state was entered */
	uint64_t in_ns;		/* the last switch-in */
	uint64_t ek_mark;	/* l.ns[EXIT_KERNEL] at the pending exit */
	uint64_t exit_ns;	/* the pending exit's time; 0 none */
	uint32_t state;		/* enum pwz_vcpu_state, or LF_DEAD */
	uint32_t resume;	/* the on-CPU state a switch-in resumes */
	uint32_t tgid;
	bool on_cpu;
};

struct ledger_fold *ledger_fold__new(void)
{
	struct ledger_fold *f = calloc(1, sizeof(*f));

	if (!f)
		errno = ENOMEM;
	return f;
}

void ledger_fold__free(struct ledger_fold *f)
{
	if (!f)
		return;
	free(f->slices);
	free(f->waits);
	free(f->exits);
	free(f->kevs);
	births__free(&f->births);
	keymap_free(&f->threads);
	free(f->thr);
	keymap_free(&f->insts);
	free(f->inst);
	keymap_free(&f->vms);
	free(f->ev);
	free(f->busy);
	free(f->cpu_first);
	free(f);
}

/* Room for one more element in *arr (n held, capacity *cap), returned. NULL on ENOMEM. */
static void *grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (array_reserve(arr, cap, n + 1, elem))
		return NULL;
	return (char *)*arr + n * elem;
}

static struct lf_thread *thread_get(struct ledger_fold *f, uint32_t tid)
{
	int added;
	int64_t i = keymap_get(&f->threads, tid, 0, &added);

	if (i < 0 || array_reserve((void **)&f->thr, &f->cap_thr, f->threads.count,
				   sizeof(*f->thr)))
		return NULL;
	if (added)
		memset(&f->thr[i], 0, sizeof(f->thr[i]));
	return &f->thr[i];
}

static const struct lf_thread *thread_find(const struct ledger_fold *f, uint32_t tid)
{
	int64_t i = keymap_find(&f->threads, tid, 0);

	return i < 0 ? NULL : &f->thr[i];
}

static int kev_add(struct ledger_fold *f, uint32_t tid, uint64_t t, uint16_t kind, uint16_t arg,
		   uint64_t ns)
{
	struct lf_kev *k = grow((void **)&f->kevs, &f->cap_kevs, f->nr_kevs, sizeof(*k));

	if (!k)
		return -ENOMEM;
	*k = (struct lf_kev){ .t = t, .ns = ns, .tid = tid, .kind = kind, .arg = arg };
	f->nr_kevs++;
	return 0;
}

int ledger_fold__task(struct ledger_fold *f, const struct pwz_task *t)
{
	struct lf_thread *th = thread_get(f, t->tid);
	bool vcpu = task_vcpu_of(t->comm, NULL), first;
	int err = 0;

	if (!th)
		return -ENOMEM;
	if (t->flags & PWZ_TASK_BORN) {
		if (births__add(&f->births, t->tid, t->time_ns))
			return -ENOMEM;
		th->seen = false;
	}
	if (t->tgid)
		th->tgid = t->tgid;
	first = !th->seen;
	th->seen = true;
	if (vcpu && first)
		err = kev_add(f, t->tid, t->time_ns, KEV_NAMED_AT_START, 0, 0);
	else if (vcpu && !th->vcpu_name)
		err = kev_add(f, t->tid, t->time_ns, KEV_NAMED, 0, 0);
	th->vcpu_name = vcpu;
	return err;
}

int ledger_fold__slice(struct ledger_fold *f, const struct pwz_slice *s)
{
	struct lf_slice *x = grow((void **)&f->slices, &f->cap_slices, f->nr_slices, sizeof(*x));

	if (!x)
		return -ENOMEM;
	*x = (struct lf_slice){ .start = s->start_ns, .end = s->start_ns + s->dur_ns,
				.tid = s->tid, .cpu = s->cpu, .kind = (uint16_t)s->end,
				.unseen = !!(s->flags & PWZ_SLICE_UNSEEN_START) };
	f->nr_slices++;
	return 0;
}

int ledger_fold__wait(struct ledger_fold *f, const struct pwz_wakeup *w)
{
	struct lf_wait *x = grow((void **)&f->waits, &f->cap_waits, f->nr_waits, sizeof(*x));

	if (!x)
		return -ENOMEM;
	*x = (struct lf_wait){ .wake = w->wake_ns, .in = w->wake_ns + w->wait_ns, .tid = w->tid,
			       .cpu = w->cpu, .preempted = !!(w->flags & PWZ_WAKEUP_PREEMPTED) };
	f->nr_waits++;
	return 0;
}

int ledger_fold__kvm_exit(struct ledger_fold *f, const struct pwz_kvm_exit *e)
{
	struct pwz_kvm_exit *x = grow((void **)&f->exits, &f->cap_exits, f->nr_exits, sizeof(*x));

	if (!x)
		return -ENOMEM;
	*x = *e;
	f->nr_exits++;
	return 0;
}

int ledger_fold__uexit(struct ledger_fold *f, uint32_t tid, uint64_t t, uint32_t reason,
		       int32_t err)
{
	uint16_t s = err < 0 || reason == KVM_EXIT_INTR ? PWZ_VCPU_OTHER_ON_CPU : PWZ_VCPU_EXIT_USER;

	return kev_add(f, tid, t, KEV_UEXIT, s, 0);
}

int ledger_fold__halt_end(struct ledger_fold *f, uint32_t tid, uint64_t t, uint64_t ns,
			  bool waited)
{
	return kev_add(f, tid, t, KEV_HALT, waited, ns);
}

int ledger_fold__late(struct ledger_fold *f, uint32_t tid)
{
	struct lf_thread *th = thread_get(f, tid);

	if (!th)
		return -ENOMEM;
	th->late = true;
	return 0;
}

static int vis_task(void *ctx, const struct pwz_task *t)
{
	return ledger_fold__task(ctx, t);
}

static int vis_slice(void *ctx, const struct pwz_slice *s)
{
	return ledger_fold__slice(ctx, s);
}

static int vis_wait(void *ctx, const struct pwz_wakeup *w)
{
	return ledger_fold__wait(ctx, w);
}

static int vis_exit(void *ctx, const struct pwz_kvm_exit *e)
{
	return ledger_fold__kvm_exit(ctx, e);
}

struct cdict_visitor ledger_fold__visitor(struct ledger_fold *f)
{
	return (struct cdict_visitor){ .ctx = f, .task = vis_task, .slice = vis_slice,
				       .wakeup = vis_wait, .kvm_exit = vis_exit };
}

bool ledger_fold__has_vcpus(const struct ledger_fold *f)
{
	return f->nr_exits || f->nr_kevs;
}

/* qsort() of n elements, which takes no NULL base even for none. */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* qsort() order of (a, a2) against (b, b2): by the first word, then the second. */
static int cmp_key(uint32_t a, uint64_t a2, uint32_t b, uint64_t b2)
{
	if (a != b)
		return a < b ? -1 : 1;
	return a2 < b2 ? -1 : a2 > b2;
}

/* ---- instances (R8) ---- */

/* R8: the birth of the instance of tid at t (0: the one there at the start). */
static uint64_t birth_of(const struct ledger_fold *f, uint32_t tid, uint64_t t)
{
	return births__at(&f->births, tid, t);
}

/* The end of the instance of tid born at since: the next birth of tid, else end. */
static uint64_t life_end(const struct ledger_fold *f, uint32_t tid, uint64_t since, uint64_t end)
{
	uint64_t next = births__next(&f->births, tid, since);

	return next && next < end ? next : end;
}

/* Marks the instance of tid at t a vCPU. Returns 0 or -ENOMEM. */
static int inst_mark(struct ledger_fold *f, uint32_t tid, uint64_t t)
{
	struct lf_thread *th = thread_get(f, tid);
	uint64_t since = birth_of(f, tid, t);
	int added;
	int64_t i;

	if (!th)
		return -ENOMEM;
	th->vcpu = true;
	i = keymap_get(&f->insts, tid, since, &added);
	if (i < 0 || array_reserve((void **)&f->inst, &f->cap_inst, f->insts.count,
				   sizeof(*f->inst)))
		return -ENOMEM;
	f->inst[i] = (struct lf_inst){ .tid = tid, .since = since };
	if (th->tgid && keymap_get(&f->vms, th->tgid, 0, NULL) < 0)
		return -ENOMEM;
	return 0;
}

/* The vCPU instance of tid at t, or -1. */
static int64_t inst_at(const struct ledger_fold *f, uint32_t tid, uint64_t t)
{
	const struct lf_thread *th = thread_find(f, tid);

	if (!th || !th->vcpu)
		return -1;
	return keymap_find(&f->insts, tid, birth_of(f, tid, t));
}

static int mark_vcpus(struct ledger_fold *f)
{
	size_t i;
	int err = 0;

	for (i = 0; i < f->nr_exits && !err; i++)
		err = inst_mark(f, f->exits[i].tid, f->exits[i].time_ns);
	for (i = 0; i < f->nr_kevs && !err; i++)
		err = inst_mark(f, f->kevs[i].tid, f->kevs[i].t);
	return err;
}

/* ---- the events of each vCPU instance ---- */

static const uint8_t ev_rank[] = {
	[EV_EXIT] = 0, [EV_UEXIT] = 0, [EV_HALT] = 0, [EV_NAMED] = 0,
	[EV_OUT] = 1, [EV_WAKE] = 2, [EV_IN] = 3, [EV_ENTRY] = 4,
};

static int ev_add(struct ledger_fold *f, int64_t inst, uint8_t kind, uint64_t t, uint32_t cpu,
		  uint64_t x, uint16_t arg)
{
	struct lf_ev *e;

	if (inst < 0)
		return 0;
	e = grow((void **)&f->ev, &f->cap_ev, f->nr_ev, sizeof(*e));
	if (!e)
		return -ENOMEM;
	*e = (struct lf_ev){ .t = t, .x = x, .inst = (uint32_t)inst, .seq = (uint32_t)f->nr_ev,
			     .cpu = cpu, .kind = kind, .rank = ev_rank[kind], .arg = arg };
	f->nr_ev++;
	return 0;
}

static int sched_events(struct ledger_fold *f)
{
	size_t i;
	int err = 0;

	for (i = 0; i < f->nr_slices && !err; i++) {
		const struct lf_slice *s = &f->slices[i];
		int64_t k = inst_at(f, s->tid, s->end);

		if (s->kind != PWZ_END_OPEN)
			err = ev_add(f, k, EV_OUT, s->end, s->cpu, s->unseen ? s->start : 0,
				     s->kind);
		if (!err && s->start && !s->unseen)
			err = ev_add(f, k, EV_IN, s->start, s->cpu, 0, 0);
	}
	for (i = 0; i < f->nr_waits && !err; i++) {
		const struct lf_wait *w = &f->waits[i];
		int64_t k = inst_at(f, w->tid, w->in);

		if (!w->preempted)
			err = ev_add(f, k, EV_WAKE, w->wake, w->cpu, 0, 0);
		if (!err)
			err = ev_add(f, k, EV_IN, w->in, w->cpu, 0, 0);
	}
	return err;
}

static int cmp_exit(const void *a, const void *b)
{
	const struct pwz_kvm_exit *x = a, *y = b;

	return cmp_key(x->tid, x->time_ns, y->tid, y->time_ns);
}

/* R5 backwards: each exit's kvm_exit, the kvm_entry before it (guest_ns) unless the exit
 * before gave it, and the one after it (paired). */
static int kvm_events(struct ledger_fold *f)
{
	const struct pwz_kvm_exit *prev = NULL;
	size_t i;
	int err = 0;

	sort(f->exits, f->nr_exits, sizeof(*f->exits), cmp_exit);
	for (i = 0; i < f->nr_exits && !err; i++) {
		const struct pwz_kvm_exit *e = &f->exits[i];
		int64_t k = inst_at(f, e->tid, e->time_ns);
		bool paired = !(e->flags & PWZ_EXIT_UNPAIRED);
		uint64_t before = e->time_ns - e->guest_ns;

		if (e->guest_ns && e->guest_ns <= e->time_ns &&
		    !(prev && prev->tid == e->tid && !(prev->flags & PWZ_EXIT_UNPAIRED) &&
		      prev->time_ns + prev->handling_ns == before))
			err = ev_add(f, k, EV_ENTRY, before, 0, 0, 0);
		if (!err)
			err = ev_add(f, k, EV_EXIT, e->time_ns, 0, (uint64_t)e->vcpu + 1, 0);
		if (!err && paired)
			err = ev_add(f, k, EV_ENTRY, e->time_ns + e->handling_ns, 0, 0, 0);
		prev = e;
	}
	for (i = 0; i < f->nr_kevs && !err; i++) {
		const struct lf_kev *x = &f->kevs[i];
		int64_t k = inst_at(f, x->tid, x->t);

		if (x->kind == KEV_UEXIT)
			err = ev_add(f, k, EV_UEXIT, x->t, 0, 0, x->arg);
		else if (x->kind == KEV_HALT)
			err = ev_add(f, k, EV_HALT, x->t, 0, x->ns, x->arg);
		else if (x->kind == KEV_NAMED)
			err = ev_add(f, k, EV_NAMED, x->t, 0, 0, 0);
	}
	return err;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct lf_ev *x = a, *y = b;
	int c = cmp_key(x->inst, x->t, y->inst, y->t);

	if (c || x->rank != y->rank)
		return c ? c : x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- what ran on a CPU, what a VM ran: the ready causes and co-stop ---- */

static int cmp_slice(const void *a, const void *b)
{
	const struct lf_slice *x = a, *y = b;

	return cmp_key(x->cpu, x->start, y->cpu, y->start);
}

static int cmp_busy(const void *a, const void *b)
{
	const struct lf_busy *x = a, *y = b;

	return cmp_key(x->tgid, x->start, y->tgid, y->start);
}

/* Sorts the slices by CPU and start, indexes the CPUs, and makes each VM's busy time: the
 * union of its vCPU threads' slices whose switch-in was seen. Returns 0 or -ENOMEM. */
static int index_slices(struct ledger_fold *f)
{
	size_t i, n = 0;

	sort(f->slices, f->nr_slices, sizeof(*f->slices), cmp_slice);
	f->nr_cpus = f->nr_slices ? f->slices[f->nr_slices - 1].cpu + 1 : 0;
	f->cpu_first = calloc(f->nr_cpus + 1, sizeof(*f->cpu_first));
	if (!f->cpu_first)
		return -ENOMEM;
	for (uint32_t c = 0; c <= f->nr_cpus; c++) {	/* the first slice of c or later */
		while (n < f->nr_slices && f->slices[n].cpu < c)
			n++;
		f->cpu_first[c] = n;
	}
	n = 0;
	for (i = 0; i < f->nr_slices; i++) {
		const struct lf_slice *s = &f->slices[i];
		const struct lf_thread *th = thread_find(f, s->tid);
		struct lf_busy *b;

		if (!th || !th->vcpu || !th->tgid || s->unseen || s->end <= s->start)
			continue;
		b = grow((void **)&f->busy, &f->cap_busy, f->nr_busy, sizeof(*b));
		if (!b)
			return -ENOMEM;
		*b = (struct lf_busy){ .tgid = th->tgid, .start = s->start, .end = s->end };
		f->nr_busy++;
	}
	sort(f->busy, f->nr_busy, sizeof(*f->busy), cmp_busy);
	for (i = 0; i < f->nr_busy; i++) {
		struct lf_busy *last = n ? &f->busy[n - 1] : NULL;

		if (last && last->tgid == f->busy[i].tgid && f->busy[i].start <= last->end) {
			if (f->busy[i].end > last->end)
				last->end = f->busy[i].end;
		} else {
			f->busy[n++] = f->busy[i];
		}
	}
	f->nr_busy = n;
	return 0;
}

/* R10: what slice s of its CPU was to a ready vCPU of process tgid. */
static unsigned int cause_of(const struct ledger_fold *f, const struct lf_slice *s, uint32_t tgid)
{
	const struct lf_thread *th;

	if (s->unseen)
		return PWZ_CAUSE_UNSEEN;
	if (!s->tid)
		return PWZ_CAUSE_IDLE;
	th = thread_find(f, s->tid);
	if (th && tgid && th->tgid == tgid)
		return th->vcpu ? PWZ_CAUSE_SAME_VM_VCPU : PWZ_CAUSE_SAME_VM_VMM;
	if (th && (th->vcpu || (th->tgid && keymap_find(&f->vms, th->tgid, 0) >= 0)))
		return PWZ_CAUSE_OTHER_VM;
	return PWZ_CAUSE_HOST;
}

/* R10: the ready time [from, to) of r, switched in on cpu at to, charged to what ran there
 * meanwhile (time no slice covers: unseen), and its co-stop. */
static void ready_end(const struct ledger_fold *f, struct lf_run *r, uint64_t from, uint64_t to,
		      uint32_t cpu)
{
	size_t lo, hi;
	uint64_t pos = from;

	if (to <= from)
		return;
	lo = cpu < f->nr_cpus ? f->cpu_first[cpu] : f->nr_slices;
	hi = cpu < f->nr_cpus ? f->cpu_first[cpu + 1] : f->nr_slices;
	while (lo < hi) {	/* the first slice of cpu that ends after from */
		size_t mid = lo + (hi - lo) / 2;

		if (f->slices[mid].end <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	hi = cpu < f->nr_cpus ? f->cpu_first[cpu + 1] : f->nr_slices;
	for (; lo < hi && pos < to && f->slices[lo].start < to; lo++) {
		const struct lf_slice *s = &f->slices[lo];
		uint64_t a = s->start > pos ? s->start : pos, b = s->end < to ? s->end : to;

		if (b <= a)
			continue;
		r->l.cause_ns[PWZ_CAUSE_UNSEEN] += a - pos;
		r->l.cause_ns[cause_of(f, s, r->tgid)] += b - a;
		pos = b;
	}
	r->l.cause_ns[PWZ_CAUSE_UNSEEN] += to - pos;

	lo = 0;
	hi = f->nr_busy;
	while (lo < hi) {	/* the first busy stretch of its VM that ends after from */
		size_t mid = lo + (hi - lo) / 2;
		const struct lf_busy *b = &f->busy[mid];

		if (b->tgid < r->tgid || (b->tgid == r->tgid && b->end <= from))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; r->tgid && lo < f->nr_busy && f->busy[lo].tgid == r->tgid &&
	       f->busy[lo].start < to; lo++) {
		uint64_t a = f->busy[lo].start > from ? f->busy[lo].start : from;
		uint64_t b = f->busy[lo].end < to ? f->busy[lo].end : to;

		if (b > a)
			r->l.costop_ns += b - a;
	}
}

/* ---- the kernel's transitions (bpf/pwz.bpf.c led_*) ---- */

/* R10: r moves to state s at now; the time since its last change goes to the state it
 * leaves, and that stretch to its histogram; count: s is entered by its event. */
static void run_to(struct lf_run *r, uint32_t s, uint64_t now, bool count)
{
	uint32_t cur = r->state;

	if (cur >= PWZ_VCPU_STATES)
		return;
	if (now > r->since) {
		r->l.ns[cur] += now - r->since;
		r->since = now;
	}
	if (cur != s) {
		r->l.hist[cur][pwz_hist_bucket(now > r->stretch ? now - r->stretch : 0)]++;
		r->stretch = now;
	}
	r->state = s;
	if (count && s < PWZ_VCPU_STATES)
		r->l.count[s]++;
}

/* The records miss the event that ended r's state after its last one: the time since is
 * unseen (the stretch's end unknown, it is not counted). */
static void run_lose(struct lf_run *r)
{
	if (r->state >= PWZ_VCPU_STATES || r->state == PWZ_VCPU_UNSEEN)
		return;
	if (r->since > r->stretch)
		r->l.hist[r->state][pwz_hist_bucket(r->since - r->stretch)]++;
	r->stretch = r->since;
	r->state = PWZ_VCPU_UNSEEN;
}

/* A KVM event comes on CPU: one not seen switched in lost what came between. */
static void run_on_cpu(struct lf_run *r)
{
	if (!r->on_cpu)
		run_lose(r);
	r->on_cpu = true;
}

static void ev_switch_in(const struct ledger_fold *f, struct lf_run *r, const struct lf_ev *e)
{
	if (r->on_cpu && r->in_ns == e->t)
		return;		/* a slice's switch-in and its wait's: one */
	if (r->on_cpu)
		run_lose(r);	/* its switch-out was not seen */
	if (r->state == PWZ_VCPU_READY)
		ready_end(f, r, r->since, e->t, e->cpu);
	else if (r->state == PWZ_VCPU_HALT)
		run_lose(r);	/* woken unseen: halted or ready, unknown */
	run_to(r, r->resume, e->t, false);
	r->in_ns = e->t;
	r->on_cpu = true;
}

static void ev_switch_out(const struct ledger_fold *f, struct lf_run *r, const struct lf_ev *e)
{
	uint32_t cur = r->state;
	uint64_t start = e->x;

	if ((cur == PWZ_VCPU_READY || cur == PWZ_VCPU_HALT) && start &&
	    start >= r->since && start < e->t) {
		if (cur == PWZ_VCPU_READY)
			ready_end(f, r, r->since, start, e->cpu);
		run_to(r, PWZ_VCPU_UNSEEN, start, false);	/* its resume state stays */
	}
	if (cur == PWZ_VCPU_GUEST)
		r->resume = PWZ_VCPU_EXIT_KERNEL;
	else if (cur != PWZ_VCPU_READY && cur != PWZ_VCPU_HALT)
		r->resume = cur;
	r->on_cpu = false;
	if (e->arg == PWZ_END_EXITED)
		run_to(r, LF_DEAD, e->t, false);
	else if (e->arg == PWZ_END_PREEMPTED)
		run_to(r, PWZ_VCPU_READY, e->t, true);
	else if (e->arg == PWZ_END_UNKNOWN)
		run_to(r, PWZ_VCPU_UNSEEN, e->t, false);
	else
		run_to(r, PWZ_VCPU_HALT, e->t, true);
}

static void ev_wakeup(struct lf_run *r, const struct lf_ev *e)
{
	if (r->on_cpu) {
		run_lose(r);	/* its switch-out was not seen */
		r->on_cpu = false;
	}
	if (r->state == PWZ_VCPU_HALT || r->state == PWZ_VCPU_UNSEEN)
		run_to(r, PWZ_VCPU_READY, e->t, true);
}

/* kvm_vcpu_wakeup: the on-CPU part of the halt moves from exit_kernel to halt_poll: the
 * exit's exit_kernel time less the part before the halt began and, blocked, the part since
 * its last switch-in. */
static void ev_halt_end(struct lf_run *r, const struct lf_ev *e)
{
	uint64_t ek, from, pre, post, poll;

	if (!r->exit_ns || r->state != PWZ_VCPU_EXIT_KERNEL)
		return;
	run_to(r, PWZ_VCPU_EXIT_KERNEL, e->t, false);
	ek = r->l.ns[PWZ_VCPU_EXIT_KERNEL] > r->ek_mark ?
		     r->l.ns[PWZ_VCPU_EXIT_KERNEL] - r->ek_mark : 0;
	from = e->t > e->x ? e->t - e->x : 0;
	pre = from > r->exit_ns ? from - r->exit_ns : 0;
	post = e->arg && r->in_ns > from ? e->t - r->in_ns : 0;
	poll = ek > pre + post ? ek - pre - post : 0;
	r->l.ns[PWZ_VCPU_EXIT_KERNEL] -= poll;
	r->l.ns[PWZ_VCPU_HALT_POLL] += poll;
	if (poll) {
		r->l.count[PWZ_VCPU_HALT_POLL]++;
		r->l.hist[PWZ_VCPU_HALT_POLL][pwz_hist_bucket(poll)]++;
	}
	r->ek_mark = r->l.ns[PWZ_VCPU_EXIT_KERNEL];
}

static void ev_apply(const struct ledger_fold *f, struct lf_run *r, const struct lf_ev *e)
{
	if (r->state >= PWZ_VCPU_STATES)
		return;
	switch (e->kind) {
	case EV_IN:
		ev_switch_in(f, r, e);
		break;
	case EV_OUT:
		ev_switch_out(f, r, e);
		break;
	case EV_WAKE:
		ev_wakeup(r, e);
		break;
	case EV_EXIT:
		if (!r->l.has_vcpu) {
			r->l.has_vcpu = true;
			r->l.vcpu = (uint32_t)(e->x - 1);
		}
		run_on_cpu(r);
		run_to(r, PWZ_VCPU_EXIT_KERNEL, e->t, true);
		r->ek_mark = r->l.ns[PWZ_VCPU_EXIT_KERNEL];
		r->exit_ns = e->t;
		break;
	case EV_ENTRY:
		run_on_cpu(r);
		run_to(r, PWZ_VCPU_GUEST, e->t, true);
		r->exit_ns = 0;
		break;
	case EV_UEXIT:
		run_on_cpu(r);
		run_to(r, e->arg, e->t, true);
		break;
	case EV_HALT:
		ev_halt_end(r, e);
		break;
	case EV_NAMED:
		run_on_cpu(r);
		run_to(r, PWZ_VCPU_OTHER_ON_CPU, e->t, true);
		break;
	}
}

/* R10: the state before a thread's first event, as that event says it. */
static uint32_t state_before(const struct lf_ev *e)
{
	switch (e ? e->kind : EV_NAMED) {
	case EV_EXIT:
		return PWZ_VCPU_GUEST;
	case EV_WAKE:
		return PWZ_VCPU_HALT;
	case EV_IN:
		return PWZ_VCPU_READY;
	case EV_UEXIT:
		return PWZ_VCPU_EXIT_KERNEL;
	default:
		return PWZ_VCPU_UNSEEN;
	}
}

/* Folds instance k's events ev[0..n) over its life [start, end) into *r. */
static void run_inst(const struct ledger_fold *f, const struct lf_inst *k, const struct lf_ev *ev,
		     size_t n, uint64_t end, struct lf_run *r)
{
	const struct lf_thread *th = thread_find(f, k->tid);
	uint64_t start = k->since < end ? k->since : end;

	memset(r, 0, sizeof(*r));
	r->l.tid = k->tid;
	r->l.since_ns = k->since;
	r->tgid = th ? th->tgid : 0;
	r->since = r->stretch = start;
	r->state = th && th->late && !k->since ? PWZ_VCPU_UNSEEN : state_before(n ? &ev[0] : NULL);
	r->resume = PWZ_VCPU_UNSEEN;
	r->on_cpu = !n || (ev[0].kind != EV_IN && ev[0].kind != EV_WAKE);
	if (n && start < ev[0].t)
		r->l.count[r->state]++;
	for (size_t i = 0; i < n; i++) {
		struct lf_ev e = ev[i];

		if (e.t < start)
			e.t = start;
		if (e.t > end)
			e.t = end;
		ev_apply(f, r, &e);
	}
	pwz_vcpu_ledger_close(&r->l, r->state, end > r->since ? end - r->since : 0, true);
}

static int cmp_inst(const void *a, const void *b)
{
	const struct lf_inst *x = a, *y = b;

	return cmp_key(x->tid, x->since, y->tid, y->since);
}

/* Renumbers the instances in (tid, since) order and the events to match. */
static int sort_insts(struct ledger_fold *f)
{
	uint32_t *to = malloc((f->insts.count + 1) * sizeof(*to));
	size_t i;

	if (!to)
		return -ENOMEM;
	sort(f->inst, f->insts.count, sizeof(*f->inst), cmp_inst);
	for (i = 0; i < f->insts.count; i++)
		to[keymap_find(&f->insts, f->inst[i].tid, f->inst[i].since)] = (uint32_t)i;
	for (i = 0; i < f->nr_ev; i++)
		f->ev[i].inst = to[f->ev[i].inst];
	free(to);
	sort(f->ev, f->nr_ev, sizeof(*f->ev), cmp_ev);
	return 0;
}

int ledger_fold__emit(struct ledger_fold *f, uint64_t end_ns, const struct cdict_visitor *sink)
{
	struct lf_run *r;
	size_t i, e = 0;
	int err;

	if (f->emitted)
		return -EALREADY;
	f->emitted = true;
	err = mark_vcpus(f);
	if (!err)
		err = sched_events(f);
	if (!err)
		err = kvm_events(f);
	if (!err)
		err = sort_insts(f);
	if (!err)
		err = index_slices(f);
	if (err || !f->insts.count)
		return err;
	r = malloc(sizeof(*r));		/* 5 KiB: not on the stack */
	if (!r)
		return -ENOMEM;
	for (i = 0; i < f->insts.count && !err; i++) {
		const struct lf_inst *k = &f->inst[i];
		size_t n = 0;

		while (e + n < f->nr_ev && f->ev[e + n].inst == i)
			n++;
		run_inst(f, k, f->ev + e, n, life_end(f, k->tid, k->since, end_ns), r);
		e += n;
		err = sink->vcpu_ledger(sink->ctx, &r->l);
	}
	free(r);
	return err;
}
