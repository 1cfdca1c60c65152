// SPDX-License-Identifier: GPL-2.0
/* BPF ring-buffer records and map values (bpf/pwz.h) into capture records (records.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "capture_records.h"

/*
 * What bpf/pwz.h and user/lib/records.h must agree on, checked by the compiler: the sizes
 * both sides use, the values copied from one enum to the other, and the record layouts the
 * ring buffer carries (the sizes pwz.h states; the BPF target has the same alignment).
 */
_Static_assert(PWZ_BPF_HIST == PWZ_HIST_BUCKETS, "BPF and userspace histograms differ");
_Static_assert(PWZ_BPF_COMM_LEN == PWZ_COMM_LEN, "BPF and userspace comm lengths differ");
_Static_assert(sizeof(((struct rec_task *)0)->comm) == sizeof(((struct pwz_task *)0)->comm),
	       "rec_task.comm and pwz_task.comm differ");
_Static_assert(sizeof(((struct kvm_agg_val *)0)->hist) == sizeof(((struct pwz_kvm_agg *)0)->hist),
	       "kvm_agg_val.hist and pwz_kvm_agg.hist differ");
_Static_assert((int)REC_END_PREEMPTED == (int)PWZ_END_PREEMPTED &&
	       (int)REC_END_SLEPT == (int)PWZ_END_SLEPT &&
	       (int)REC_END_EXITED == (int)PWZ_END_EXITED,
	       "enum rec_slice_end and enum pwz_slice_end differ");
_Static_assert(sizeof(struct rec_slice) == 40, "struct rec_slice is 40 bytes");
_Static_assert(sizeof(struct rec_kvm_exit) == 48, "struct rec_kvm_exit is 48 bytes");
_Static_assert(sizeof(struct rec_task) == 40, "struct rec_task is 40 bytes");
_Static_assert(sizeof(struct cpu_agg_val) == 7 * 8, "struct cpu_agg_val is 7 counters");
_Static_assert(sizeof(struct kvm_agg_val) == (2 + PWZ_BPF_HIST) * 8,
	       "struct kvm_agg_val is count, total and the histogram");
_Static_assert(sizeof(struct kvm_agg_key) == 16, "struct kvm_agg_key is 16 bytes");
_Static_assert(sizeof(struct kvm_state) == 40, "struct kvm_state is 40 bytes");
_Static_assert(sizeof(struct cpu_state) == 48, "struct cpu_state is 48 bytes");
_Static_assert(sizeof(struct wait_start) == 16, "struct wait_start is 16 bytes");
_Static_assert(CNT_UNPAIRED < PWZ_CNT_MAX, "enum pwz_cnt overflows the counters");
_Static_assert(PWZ_SEL_TIDS_MAX <= PWZ_TID_MAP_MAX && PWZ_TID_MAP_DEFAULT <= PWZ_TID_MAP_MAX &&
	       PWZ_KVM_STATE_MAX <= PWZ_KVM_STATE_HOST_MAX,
	       "map sizes of bpf/pwz.h out of order");

int capture_dispatch(const void *data, size_t size, const struct capture_sink *sink)
{
	__u32 type;

	if (size < sizeof(type))
		return 0;
	memcpy(&type, data, sizeof(type));
	switch (type) {
	case REC_SLICE:
		if (size >= sizeof(struct rec_slice) && sink->slice) {
			struct rec_slice r;

			memcpy(&r, data, sizeof(r));
			return sink->slice(sink->ctx, &r);
		}
		break;
	case REC_KVM_EXIT:
		if (size >= sizeof(struct rec_kvm_exit) && sink->kvm_exit) {
			struct rec_kvm_exit r;

			memcpy(&r, data, sizeof(r));
			return sink->kvm_exit(sink->ctx, &r);
		}
		break;
	case REC_TASK:
		if (size >= sizeof(struct rec_task) && sink->task) {
			struct rec_task r;

			memcpy(&r, data, sizeof(r));
			r.comm[sizeof(r.comm) - 1] = '\0';
			return sink->task(sink->ctx, &r);
		}
		break;
	}
	return 0;
}

static uint64_t rel(uint64_t t, uint64_t t0)
{
	return t > t0 ? t - t0 : 0;
}

bool capture_conv_slice(const struct rec_slice *r, uint64_t t0, struct pwz_slice *s,
			struct pwz_wakeup *w)
{
	uint64_t start = r->start_ns ? rel(r->start_ns, t0) : 0, end = rel(r->end_ns, t0);

	memset(s, 0, sizeof(*s));
	s->tid = r->tid;
	s->cpu = r->cpu;
	s->start_ns = start;
	s->dur_ns = end > start ? end - start : 0;
	s->end = r->end <= REC_END_EXITED ? r->end : PWZ_END_UNKNOWN;
	if (r->wait == REC_WAIT_NONE || !r->start_ns || r->wake_ns > r->start_ns)
		return false;
	memset(w, 0, sizeof(*w));
	w->tid = r->tid;
	w->cpu = r->cpu;
	w->wake_ns = rel(r->wake_ns, t0);
	w->wait_ns = r->start_ns - r->wake_ns;
	return true;
}

bool capture_conv_open(const struct cpu_state *st, uint32_t cpu, uint64_t t0, uint64_t t_end,
		       struct pwz_slice *s, struct pwz_wakeup *w)
{
	struct rec_slice r = {
		.type = REC_SLICE, .tid = st->tid, .cpu = cpu, .end = REC_END_PREEMPTED,
		.wait = (__u16)st->wait, .start_ns = st->start_ns, .end_ns = t_end,
		.wake_ns = st->wake_ns,
	};
	bool waited = capture_conv_slice(&r, t0, s, w);

	s->end = PWZ_END_OPEN;
	return waited;
}

void capture_conv_kvm_exit(const struct rec_kvm_exit *r, uint64_t t0, struct pwz_kvm_exit *e)
{
	memset(e, 0, sizeof(*e));
	e->tid = r->tid;
	e->vcpu = r->vcpu;
	e->time_ns = rel(r->exit_ns, t0);
	e->isa = r->isa;
	e->reason = r->reason;
	e->guest_ns = r->guest_ns;
	e->handling_ns = r->handling_ns;
}

void capture_sum_kvm(const struct kvm_agg_val *per_cpu, int nr_cpus, struct kvm_agg_val *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		sum->count += per_cpu[cpu].count;
		sum->handling_ns += per_cpu[cpu].handling_ns;
		for (int b = 0; b < PWZ_BPF_HIST; b++)
			sum->hist[b] += per_cpu[cpu].hist[b];
	}
}

void capture_sum_wait(const struct cpu_agg_val *per_cpu, int nr_cpus, struct wait_agg_val *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		sum->count += per_cpu[cpu].wait_count;
		sum->wait_ns += per_cpu[cpu].wait_ns;
		if (per_cpu[cpu].wait_max_ns > sum->max_ns)
			sum->max_ns = per_cpu[cpu].wait_max_ns;
	}
}

void capture_fold_slice(struct cpu_agg_val *v, const struct rec_slice *r, uint64_t t0)
{
	uint64_t from = r->start_ns ? r->start_ns : t0;

	v->runtime_ns += r->end_ns > from ? r->end_ns - from : 0;
	v->switches++;
	if (r->end == REC_END_PREEMPTED)
		v->involuntary++;
	else
		v->voluntary++;
	if (r->wait != REC_WAIT_NONE && r->start_ns > r->wake_ns) {
		uint64_t w = r->start_ns - r->wake_ns;

		v->wait_count++;
		v->wait_ns += w;
		if (w > v->wait_max_ns)
			v->wait_max_ns = w;
	}
}

/* Open addressing on (tid, cpu), linear probing, at most half full. */
struct agg_slot {
	uint32_t tid;
	uint32_t cpu;
	bool used;
	struct cpu_agg_val v;
};

struct capture_aggs {
	struct agg_slot *slots;
	size_t cap;		/* a power of two */
	size_t nr;
};

static size_t slot_hash(uint32_t tid, uint32_t cpu, size_t cap)
{
	uint64_t k = ((uint64_t)tid << 32 | cpu) * 0x9e3779b97f4a7c15ull;

	return (size_t)(k >> 32) & (cap - 1);
}

static struct agg_slot *slot_find(const struct capture_aggs *a, uint32_t tid, uint32_t cpu)
{
	size_t i = slot_hash(tid, cpu, a->cap);

	while (a->slots[i].used && (a->slots[i].tid != tid || a->slots[i].cpu != cpu))
		i = (i + 1) & (a->cap - 1);
	return &a->slots[i];
}

static int aggs_grow(struct capture_aggs *a, size_t cap)
{
	struct agg_slot *old = a->slots;
	size_t ocap = a->cap;

	a->slots = calloc(cap, sizeof(*a->slots));
	if (!a->slots) {
		a->slots = old;
		return -ENOMEM;
	}
	a->cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].used)
			*slot_find(a, old[i].tid, old[i].cpu) = old[i];
	free(old);
	return 0;
}

struct capture_aggs *capture_aggs__new(void)
{
	struct capture_aggs *a = calloc(1, sizeof(*a));

	if (!a || aggs_grow(a, 256)) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	return a;
}

void capture_aggs__free(struct capture_aggs *a)
{
	if (!a)
		return;
	free(a->slots);
	free(a);
}

/* The slot of (tid, cpu), created zeroed when missing; NULL when out of memory. */
static struct cpu_agg_val *slot_get(struct capture_aggs *a, uint32_t tid, uint32_t cpu)
{
	struct agg_slot *s = slot_find(a, tid, cpu);

	if (s->used)
		return &s->v;
	if ((a->nr + 1) * 2 > a->cap) {
		if (aggs_grow(a, a->cap * 2))
			return NULL;
		s = slot_find(a, tid, cpu);
	}
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->tid = tid;
	s->cpu = cpu;
	a->nr++;
	return &s->v;
}

int capture_aggs__add(struct capture_aggs *a, uint32_t tid, uint32_t cpu,
		      const struct cpu_agg_val *v)
{
	struct cpu_agg_val *d = slot_get(a, tid, cpu);

	if (!d)
		return -ENOMEM;
	d->runtime_ns += v->runtime_ns;
	d->switches += v->switches;
	d->voluntary += v->voluntary;
	d->involuntary += v->involuntary;
	d->wait_count += v->wait_count;
	d->wait_ns += v->wait_ns;
	if (v->wait_max_ns > d->wait_max_ns)
		d->wait_max_ns = v->wait_max_ns;
	return 0;
}

int capture_aggs__add_slice(struct capture_aggs *a, const struct rec_slice *r, uint64_t t0)
{
	struct cpu_agg_val *d = slot_get(a, r->tid, r->cpu);

	if (!d)
		return -ENOMEM;
	capture_fold_slice(d, r, t0);
	return 0;
}

const struct cpu_agg_val *capture_aggs__get(const struct capture_aggs *a, uint32_t tid,
					    uint32_t cpu)
{
	const struct agg_slot *s = slot_find(a, tid, cpu);

	return s->used ? &s->v : NULL;
}

struct capture_aggs *capture_aggs__dup(const struct capture_aggs *a)
{
	struct capture_aggs *d = calloc(1, sizeof(*d));

	if (d)
		d->slots = malloc(a->cap * sizeof(*a->slots));
	if (!d || !d->slots) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(d->slots, a->slots, a->cap * sizeof(*a->slots));
	d->cap = a->cap;
	d->nr = a->nr;
	return d;
}

size_t capture_aggs__count(const struct capture_aggs *a)
{
	return a->nr;
}

int capture_aggs__each(const struct capture_aggs *a,
		       int (*cb)(void *ctx, uint32_t tid, uint32_t cpu, const struct cpu_agg_val *v),
		       void *ctx)
{
	for (size_t i = 0; i < a->cap; i++) {
		int e;

		if (!a->slots[i].used)
			continue;
		e = cb(ctx, a->slots[i].tid, a->slots[i].cpu, &a->slots[i].v);
		if (e)
			return e;
	}
	return 0;
}
