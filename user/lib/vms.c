// SPDX-License-Identifier: GPL-2.0
/* VMs as rows: grouping vCPU threads per process, their ready time, and where exit time goes. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cgroupname.h"
#include "keymap.h"
#include "model.h"
#include "vms.h"

/* The streams sorted per thread and per CPU, as pointers into the trace. */
struct vms_index {
	const struct pwz_slice **sl_tid;	/* by (tid, start) */
	const struct pwz_slice **sl_cpu;	/* by (cpu, start) */
	const struct pwz_wakeup **wk_tid;	/* by (tid, wake) */
	const struct pwz_kvm_exit **ex_tid;	/* by (tid, time) */
	size_t nr_sl, nr_wk, nr_ex;
	const struct trace *t;			/* its thread instances (model.h R8) */
};

static int cmp_sl_tid(const void *a, const void *b)
{
	const struct pwz_slice *x = *(const struct pwz_slice *const *)a;
	const struct pwz_slice *y = *(const struct pwz_slice *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_sl_cpu(const void *a, const void *b)
{
	const struct pwz_slice *x = *(const struct pwz_slice *const *)a;
	const struct pwz_slice *y = *(const struct pwz_slice *const *)b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_wk_tid(const void *a, const void *b)
{
	const struct pwz_wakeup *x = *(const struct pwz_wakeup *const *)a;
	const struct pwz_wakeup *y = *(const struct pwz_wakeup *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->wake_ns != y->wake_ns)
		return x->wake_ns < y->wake_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_ex_tid(const void *a, const void *b)
{
	const struct pwz_kvm_exit *x = *(const struct pwz_kvm_exit *const *)a;
	const struct pwz_kvm_exit *y = *(const struct pwz_kvm_exit *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void index_free(struct vms_index *ix)
{
	free(ix->sl_tid);
	free(ix->sl_cpu);
	free(ix->wk_tid);
	free(ix->ex_tid);
	memset(ix, 0, sizeof(*ix));
}

/* An element of a stream while it is ordered by key: its key and its index in the stream. */
struct keyed {
	uint32_t key;
	uint32_t idx;
};

#define KEY_BITS 11	/* bits of the key a radix pass orders by */
#define KEY_PASSES 3	/* passes over the 32 bits */
#define KEY_DIGITS (1u << KEY_BITS)
#define KEY_DIGIT(key, p) (((key) >> ((p) * KEY_BITS)) & (KEY_DIGITS - 1))

/* What index_by_key() counts: per pass, the elements of each digit (then where the next of
 * them goes); per digit of the pass that places the elements, the last one placed. */
struct radix_work {
	size_t count[KEY_PASSES][KEY_DIGITS];
	struct {
		bool used;		/* an element was placed */
		bool down;		/* a key's time went down among them */
		uint32_t key;		/* the last one's key */
		uint64_t time;		/* and time */
	} last[KEY_DIGITS];
};

/* The uint64_t at off in the element e. */
static uint64_t u64_at(const void *e, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)e + off, sizeof(v));
	return v;
}

/* The uint32_t at off in the element e. */
static uint32_t u32_at(const void *e, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)e + off, sizeof(v));
	return v;
}

/* Sorts with cmp each run of one key (the uint32_t at key_off) of out[begin..end) whose times
 * (the uint64_t at time_off) go down somewhere; the others are in cmp's order already. */
static void sort_runs(const void **out, size_t begin, size_t end, size_t key_off,
		      size_t time_off, int (*cmp)(const void *, const void *))
{
	for (size_t run = begin, i; run < end; run = i) {
		uint32_t key = u32_at(out[run], key_off);
		bool sorted = true;

		for (i = run + 1; i < end && u32_at(out[i], key_off) == key; i++)
			if (u64_at(out[i - 1], time_off) > u64_at(out[i], time_off))
				sorted = false;
		if (!sorted)
			qsort(out + run, i - run, sizeof(*out), cmp);
	}
}

/* Turns c[0..KEY_DIGITS) from counts into the index where each digit's elements begin. */
static void digits_begin(size_t *c)
{
	size_t sum = 0;

	for (size_t i = 0; i < KEY_DIGITS; i++) {
		size_t n = c[i];

		c[i] = sum;
		sum += n;
	}
}

/*
 * Points out[0..n) at the n elements of base (size bytes each) in cmp's order, where cmp
 * orders by the uint32_t at key_off first, then by the uint64_t at time_off, and by the
 * element's address last. The elements go by key in linear passes (LSD radix, stable; a pass
 * whose digit all keys share is skipped; the streams hold few threads or CPUs and many
 * records), the last pass placing them in out and checking each key's times as it goes;
 * only in a digit of that pass where a key's times went down are the runs of one key looked
 * at again, and those whose times go down sorted. Returns 0 or -ENOMEM.
 */
static int index_by_key(const void **out, const void *base, size_t n, size_t size, size_t key_off,
			size_t time_off, int (*cmp)(const void *, const void *))
{
	struct keyed *k = NULL, *tmp = NULL, *swap;
	struct radix_work *w = NULL;
	int need[KEY_PASSES], nr = 0, last, rc = -ENOMEM;
	size_t i, begin = 0;

	if (!n)
		return 0;
	if (n > UINT32_MAX)
		return -ENOMEM;
	k = malloc(n * sizeof(*k));
	w = calloc(1, sizeof(*w));
	if (!k || !w)
		goto out;
	for (i = 0; i < n; i++) {
		uint32_t key;

		memcpy(&key, (const char *)base + i * size + key_off, sizeof(key));
		k[i] = (struct keyed){ .key = key, .idx = (uint32_t)i };
		for (int p = 0; p < KEY_PASSES; p++)
			w->count[p][KEY_DIGIT(key, p)]++;
	}
	for (int p = 0; p < KEY_PASSES; p++)
		if (w->count[p][KEY_DIGIT(k[0].key, p)] != n)
			need[nr++] = p;
	last = nr ? need[nr - 1] : 0;
	if (nr > 1 && !(tmp = malloc(n * sizeof(*tmp))))
		goto out;
	for (int j = 0; j + 1 < nr; j++) {
		size_t *c = w->count[need[j]];

		digits_begin(c);
		for (i = 0; i < n; i++)
			tmp[c[KEY_DIGIT(k[i].key, need[j])]++] = k[i];
		swap = k;
		k = tmp;
		tmp = swap;
	}
	/* a digit's elements come by key, each key's in base's order (by address) */
	digits_begin(w->count[last]);
	for (i = 0; i < n; i++) {
		uint32_t d = KEY_DIGIT(k[i].key, last);
		const char *e = (const char *)base + (size_t)k[i].idx * size;
		uint64_t t = u64_at(e, time_off);

		if (w->last[d].used && w->last[d].key == k[i].key && t < w->last[d].time)
			w->last[d].down = true;
		w->last[d].used = true;
		w->last[d].key = k[i].key;
		w->last[d].time = t;
		out[w->count[last][d]++] = e;
	}
	for (uint32_t d = 0; d < KEY_DIGITS; d++) {
		if (w->last[d].down)
			sort_runs(out, begin, w->count[last][d], key_off, time_off, cmp);
		begin = w->count[last][d];
	}
	rc = 0;
out:
	free(k);
	free(tmp);
	free(w);
	return rc;
}

/* The streams by thread; by CPU too with by_cpu (only the preempters of a vCPU read it). */
static int index_build(struct vms_index *ix, const struct trace *t, bool by_cpu)
{
	memset(ix, 0, sizeof(*ix));
	ix->t = t;
	ix->nr_sl = t->nr_slices;
	ix->nr_wk = t->nr_wakeups;
	ix->nr_ex = t->nr_exits;
	ix->sl_tid = calloc(ix->nr_sl + 1, sizeof(*ix->sl_tid));
	ix->sl_cpu = by_cpu ? calloc(ix->nr_sl + 1, sizeof(*ix->sl_cpu)) : NULL;
	ix->wk_tid = calloc(ix->nr_wk + 1, sizeof(*ix->wk_tid));
	ix->ex_tid = calloc(ix->nr_ex + 1, sizeof(*ix->ex_tid));
	if (!ix->sl_tid || (by_cpu && !ix->sl_cpu) || !ix->wk_tid || !ix->ex_tid ||
	    index_by_key((const void **)ix->sl_tid, t->slices, ix->nr_sl, sizeof(*t->slices),
			 offsetof(struct pwz_slice, tid), offsetof(struct pwz_slice, start_ns),
			 cmp_sl_tid) ||
	    (by_cpu && index_by_key((const void **)ix->sl_cpu, t->slices, ix->nr_sl,
				    sizeof(*t->slices), offsetof(struct pwz_slice, cpu),
				    offsetof(struct pwz_slice, start_ns), cmp_sl_cpu)) ||
	    index_by_key((const void **)ix->wk_tid, t->wakeups, ix->nr_wk, sizeof(*t->wakeups),
			 offsetof(struct pwz_wakeup, tid), offsetof(struct pwz_wakeup, wake_ns),
			 cmp_wk_tid) ||
	    index_by_key((const void **)ix->ex_tid, t->exits, ix->nr_ex, sizeof(*t->exits),
			 offsetof(struct pwz_kvm_exit, tid), offsetof(struct pwz_kvm_exit, time_ns),
			 cmp_ex_tid)) {
		index_free(ix);
		return -ENOMEM;
	}
	return 0;
}

/* [*lo, *hi) of the entries of key k in a sorted pointer array; key_of reads an entry's key. */
#define RANGE_OF(arr, n, field, k, lo, hi)					\
	do {									\
		size_t a_ = 0, b_ = (n);					\
		while (a_ < b_) {						\
			size_t m_ = a_ + (b_ - a_) / 2;				\
			if ((arr)[m_]->field < (k))				\
				a_ = m_ + 1;					\
			else							\
				b_ = m_;					\
		}								\
		*(lo) = a_;							\
		b_ = (n);							\
		while (a_ < b_) {						\
			size_t m_ = a_ + (b_ - a_) / 2;				\
			if ((arr)[m_]->field <= (k))				\
				a_ = m_ + 1;					\
			else							\
				b_ = m_;					\
		}								\
		*(hi) = a_;							\
	} while (0)

/* Narrows [*lo, *hi) of a pointer array sorted by time (TIME(entry)) to the entries with a
 * time in [from, to). */
#define NARROW(arr, lo, hi, TIME, from, to)						\
	do {										\
		size_t a_ = *(lo), b_ = *(hi), e_ = *(hi);				\
		while (a_ < b_) {							\
			size_t m_ = a_ + (b_ - a_) / 2;					\
			if (TIME((arr)[m_]) < (from))					\
				a_ = m_ + 1;						\
			else								\
				b_ = m_;						\
		}									\
		*(lo) = a_;								\
		b_ = e_;								\
		while (a_ < b_) {							\
			size_t m_ = a_ + (b_ - a_) / 2;					\
			if (TIME((arr)[m_]) < (to))					\
				a_ = m_ + 1;						\
			else								\
				b_ = m_;						\
		}									\
		*(hi) = a_;								\
	} while (0)
#define SL_TIME(x) ((x)->start_ns)
#define WK_TIME(x) ((x)->wake_ns)
#define EX_TIME(x) ((x)->time_ns)

/* The birth of the instance of tid alive at time (model.h R8); c caches a run of lookups
 * (trace__task_at_cached()). */
static uint64_t since_at(const struct trace *t, struct trace_task_cache *c, uint32_t tid,
			 uint64_t time)
{
	const struct pwz_task *k = trace__task_at_cached(t, c, tid, time);

	return k ? k->since_ns : 0;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/* First of n slices (sorted by start, not overlapping) that ends after from. */
static size_t first_slice_ending_after(const struct pwz_slice *const *sl, size_t n, uint64_t from)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (sl[m]->start_ns + sl[m]->dur_ns <= from)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

static size_t first_wait_ending_after(const struct pwz_wakeup *const *wk, size_t n, uint64_t from)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (wk[m]->wake_ns + wk[m]->wait_ns <= from)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

void vms_split_interval(const struct pwz_slice *const *slices, size_t nr_slices,
			const struct pwz_wakeup *const *waits, size_t nr_waits, uint64_t from,
			uint64_t to, uint64_t *on, uint64_t *ready, uint64_t *sleep)
{
	uint64_t total = to > from ? to - from : 0, r = 0, o = 0;
	size_t i;

	for (i = first_slice_ending_after(slices, nr_slices, from);
	     i < nr_slices && slices[i]->start_ns < to; i++)
		if (!(slices[i]->flags & PWZ_SLICE_UNSEEN_START))
			o += overlap(from, to, slices[i]->start_ns,
				     slices[i]->start_ns + slices[i]->dur_ns);
	for (i = first_wait_ending_after(waits, nr_waits, from);
	     i < nr_waits && waits[i]->wake_ns < to; i++)
		r += overlap(from, to, waits[i]->wake_ns, waits[i]->wake_ns + waits[i]->wait_ns);
	if (o > total)
		o = total;
	if (r > total - o)
		r = total - o;
	*on = o;
	*ready = r;
	*sleep = total - o - r;
}

static int cmp_u64_desc_pre(const void *a, const void *b)
{
	const struct vms_preempter *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_vcpu(const void *a, const void *b)
{
	const struct vms_vcpu *x = a, *y = b;

	if (x->vcpu != y->vcpu)
		return x->vcpu < y->vcpu ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_vm(const void *a, const void *b)
{
	const struct vms_vm *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* "CPU <n>/KVM": n, or -1. */
static int32_t qemu_vcpu_index(const char *comm)
{
	unsigned int n;
	char tail[8];

	if (sscanf(comm, "CPU %u/KVM%7s", &n, tail) == 1 && n < 1u << 30)
		return (int32_t)n;
	return -1;
}

bool vms_is_vcpu(uint32_t tid, uint64_t exits, const char *comm, bool has_ledger)
{
	return tid && (exits || qemu_vcpu_index(comm) >= 0 || has_ledger);
}

/* Whether the row ts of t is a vCPU thread. */
static bool is_vcpu_task(const struct trace *t, const struct task_summary *ts)
{
	return vms_is_vcpu(ts->tid, ts->exits_total, ts->comm,
			   ts->tid && trace__vcpu_ledger(t, ts->tid, ts->since_ns));
}

/* Whether s holds a vCPU thread (a VM to show). */
static bool has_vcpu(const struct trace *t, const struct summary *s)
{
	for (size_t i = 0; i < s->nr_tasks; i++)
		if (is_vcpu_task(t, &s->tasks[i]))
			return true;
	return false;
}

/* "<vm>.vcpu<n>" -> "<vm>" into out; false when name is not of that form. */
static bool vm_from_vcpu_name(const char *name, char *out, size_t outlen)
{
	const char *dot = strrchr(name, '.');
	const char *p;

	if (!dot || dot == name || strncmp(dot, ".vcpu", 5) || !dot[5])
		return false;
	for (p = dot + 5; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	snprintf(out, outlen, "%.*s", (int)(dot - name), name);
	return true;
}

/* The name and the cgroup of the VM of vCPU ts (process pid, 0 unknown), by the rule of vms.h. */
static void vm_name(const struct trace *t, const struct task_summary *ts, uint32_t pid,
		    struct vms_vm *vm)
{
	const struct pwz_task *task = trace__task(t, ts->tid);
	const struct pwz_task *leader = pid ? trace__task(t, pid) : NULL;
	char *out = vm->name;
	size_t outlen = sizeof(vm->name);

	if (task && task->cgroup[0])
		snprintf(vm->cgroup, sizeof(vm->cgroup), "%s", task->cgroup);
	else if (leader)
		snprintf(vm->cgroup, sizeof(vm->cgroup), "%s", leader->cgroup);
	if (vm_from_vcpu_name(ts->name, out, outlen))
		return;
	if (cgroup_vm_name(vm->cgroup, out, outlen))
		return;
	if (task && task->proc_name[0]) {
		snprintf(out, outlen, "%s", task->proc_name);
		return;
	}
	if (leader && leader->comm[0]) {
		snprintf(out, outlen, "%s", leader->comm);
		return;
	}
	snprintf(out, outlen, "%s", ts->comm);
}

/* The entry i of the exits r of a vCPU or a VM, to fill. */
static struct vms_exit *exit_at(struct exitroll *r, size_t i)
{
	return (struct vms_exit *)exitroll_at(r, i);
}

static void swap_u64(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;

	*a = *b;
	*b = t;
}

/* Sorts v[0..n) ascending, in place (heapsort: n log n at worst, no memory). */
static void heapsort_u64(uint64_t *v, size_t n)
{
	for (size_t end = n, i = n / 2; end > 1;) {
		size_t root, child;

		if (i > 0) {
			root = --i;		/* heapify, from the last parent up */
		} else {
			swap_u64(&v[0], &v[--end]);	/* the largest left goes to the end */
			root = 0;
		}
		while ((child = 2 * root + 1) < end) {
			if (child + 1 < end && v[child + 1] > v[child])
				child++;
			if (v[root] >= v[child])
				break;
			swap_u64(&v[root], &v[child]);
			root = child;
		}
	}
}

/*
 * Moves the k-th smallest of v[0..n) (k < n, from 0) to v[k], with none larger before it and
 * none smaller after it, in place: quickselect around the median of three elements at
 * pseudo-random places (the times' own order, such as a sawtooth, cannot defeat it), three-way
 * (runs of equal times, common, end it early); once the rounds exceed twice log2 n the range
 * left is heapsorted, so never worse than n log n.
 */
static void select_u64(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n, rounds = 0;
	uint64_t x = n | 1;	/* xorshift64 state: the places of the three */

	for (size_t m = n; m > 1; m /= 2)
		rounds += 2;
	while (hi - lo > 1) {
		size_t lt = lo, i = lo, gt = hi, span = hi - lo;
		uint64_t a, b, c, pivot;

		if (!rounds--) {
			heapsort_u64(v + lo, span);
			return;
		}
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		a = v[lo + (size_t)(x % span)];
		b = v[lo + (size_t)((x >> 21) % span)];
		c = v[lo + (size_t)((x >> 42) % span)];
		pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		/* [lo, lt) below the pivot, [lt, gt) equal, [gt, hi) above */
		while (i < gt) {
			if (v[i] < pivot)
				swap_u64(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap_u64(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

/* The nearest-rank index of quantile q among n sorted values (n > 0). */
static size_t rank(size_t n, double q)
{
	size_t r = (size_t)(q * (double)n + 0.999999999);

	return r ? (r > n ? n : r) - 1 : 0;
}

/* The exact percentiles of a reason's paired exits (memory: 8 bytes an exit, as the streams):
 * each the value of its rank in the sorted times, selected in place, the higher first (the
 * times of the lower ranks are then before it), leaving the times in another order. */
static void exit_percentiles(struct vms_exit *e)
{
	size_t r99, r90, r50;

	if (!e->paired)
		return;
	r99 = rank(e->paired, 0.99);
	r90 = rank(e->paired, 0.90);
	r50 = rank(e->paired, 0.50);
	select_u64(e->durs, e->paired, r99);
	e->p99_ns = e->durs[r99];
	select_u64(e->durs, r99 + 1, r90);
	e->p90_ns = e->durs[r90];
	select_u64(e->durs, r90 + 1, r50);
	e->p50_ns = e->durs[r50];
}

/* One vCPU thread instance's records in the index: [lo, hi) of sl_tid, wk_tid, ex_tid. */
struct vcpu_recs {
	size_t slo, shi;		/* its slices */
	size_t wlo, whi;		/* its wakeups */
	size_t elo, ehi;		/* its exits */
};

/* The records of vc's thread instance (its tid, from since_ns to its end). */
static void vcpu_recs_of(struct vcpu_recs *r, const struct vms_vcpu *vc,
			 const struct vms_index *ix)
{
	uint64_t end = trace__instance_end(ix->t, vc->tid, vc->since_ns);

	RANGE_OF(ix->sl_tid, ix->nr_sl, tid, vc->tid, &r->slo, &r->shi);
	RANGE_OF(ix->wk_tid, ix->nr_wk, tid, vc->tid, &r->wlo, &r->whi);
	RANGE_OF(ix->ex_tid, ix->nr_ex, tid, vc->tid, &r->elo, &r->ehi);
	/* this instance's records only */
	NARROW(ix->sl_tid, &r->slo, &r->shi, SL_TIME, vc->since_ns, end);
	NARROW(ix->wk_tid, &r->wlo, &r->whi, WK_TIME, vc->since_ns, end);
	NARROW(ix->ex_tid, &r->elo, &r->ehi, EX_TIME, vc->since_ns, end);
}

/* Counts into vc->migrations the slices begun in w on another CPU than the one before. */
static void vcpu_migrations(struct vms_vcpu *vc, const struct vms_index *ix,
			    const struct vcpu_recs *r, const struct model_window *w)
{
	for (size_t i = r->slo + 1; i < r->shi; i++)
		if (ix->sl_tid[i]->cpu != ix->sl_tid[i - 1]->cpu &&
		    ix->sl_tid[i]->start_ns >= w->from_ns && ix->sl_tid[i]->start_ns < w->to_ns)
			vc->migrations++;
}

/* Who ran on the CPU while the vCPU waited for it in w: *pre (*nr entries, the caller
 * frees it) per thread instance, with the ns it ran. Returns 0 or -ENOMEM. */
static int vcpu_preempters_of(const struct vms_vcpu *vc, const struct vms_index *ix,
			      const struct vcpu_recs *r, const struct model_window *w,
			      struct vms_preempter **pre, size_t *nr)
{
	struct keymap pk = { 0 };
	struct trace_task_cache tc = { 0 };
	size_t cap = 0, i;
	int rc = 0;

	for (i = r->wlo; i < r->whi && !rc; i++) {
		const struct pwz_wakeup *wk = ix->wk_tid[i];
		uint64_t a = wk->wake_ns, b = wk->wake_ns + wk->wait_ns;
		size_t clo, chi, j;

		if (!model_wait_in(wk, w) || !wk->wait_ns)
			continue;
		RANGE_OF(ix->sl_cpu, ix->nr_sl, cpu, wk->cpu, &clo, &chi);
		for (j = clo + first_slice_ending_after(ix->sl_cpu + clo, chi - clo, a);
		     j < chi && ix->sl_cpu[j]->start_ns < b; j++) {
			const struct pwz_slice *sl = ix->sl_cpu[j];
			uint64_t ov = overlap(a, b, sl->start_ns, sl->start_ns + sl->dur_ns);
			uint64_t since;
			int added;
			int64_t at;

			if (!ov || sl->tid == vc->tid)
				continue;
			since = sl->tid ? since_at(ix->t, &tc, sl->tid, sl->start_ns) : 0;
			at = keymap_get(&pk, sl->tid, since, &added);
			if (at < 0 || (added && array_reserve((void **)pre, &cap, *nr + 1,
								  sizeof(**pre)))) {
				rc = -ENOMEM;
				break;
			}
			if (added) {
				memset(&(*pre)[*nr], 0, sizeof(**pre));
				(*pre)[*nr].since_ns = since;
				(*pre)[(*nr)++].tid = sl->tid;
			}
			(*pre)[at].ns += ov;
		}
	}
	keymap_free(&pk);
	return rc;
}

/* vc->top: the VMS_TOP_PREEMPTERS threads of pre (sorted here) that ran longest while the
 * vCPU waited, named as s names them. */
static void vcpu_top_preempters(struct vms_vcpu *vc, const struct summary *s,
				struct vms_preempter *pre, size_t nr_pre)
{
	size_t i;

	if (nr_pre)
		qsort(pre, nr_pre, sizeof(*pre), cmp_u64_desc_pre);
	for (i = 0; i < nr_pre && i < VMS_TOP_PREEMPTERS; i++) {
		vc->top[i] = pre[i];
		for (size_t k = 0; k < s->nr_tasks; k++)
			if (s->tasks[k].tid == pre[i].tid &&
			    (!pre[i].tid || s->tasks[k].since_ns == pre[i].since_ns)) {
				snprintf(vc->top[i].name, sizeof(vc->top[i].name), "%s",
					 s->tasks[k].name);
				break;
			}
	}
	vc->nr_top = i;
}

/* Each paired exit of w: its handling interval against the thread's slices and waits,
 * added to its reason's entry of vc->exits; sets vc->vcpu from the first exit in w when
 * unknown. Returns 0 or -ENOMEM. */
static int vcpu_exits_split(struct vms_vcpu *vc, const struct vms_index *ix,
			    const struct vcpu_recs *r, const struct model_window *w)
{
	for (size_t i = r->elo; i < r->ehi; i++) {
		const struct pwz_kvm_exit *e = ix->ex_tid[i];
		struct vms_exit *row;
		uint64_t on, rd, sl;

		if (!model_exit_in(e, w))
			continue;
		if (vc->vcpu < 0)
			vc->vcpu = (int32_t)e->vcpu;
		if (e->flags & PWZ_EXIT_UNPAIRED)
			continue;
		row = (struct vms_exit *)exitroll_get(&vc->exits, e->isa, e->reason, NULL);
		if (row && array_reserve((void **)&row->durs, &row->cap_durs, row->paired + 1,
					 sizeof(*row->durs)))
			row = NULL;
		if (!row)
			return -ENOMEM;
		vms_split_interval(ix->sl_tid + r->slo, r->shi - r->slo, ix->wk_tid + r->wlo,
				   r->whi - r->wlo, e->time_ns, e->time_ns + e->handling_ns, &on,
				   &rd, &sl);
		row->paired++;
		row->ex.handling_ns += e->handling_ns;
		row->on_cpu_ns += on;
		row->off_ready_ns += rd;
		row->off_sleep_ns += sl;
		if (e->handling_ns > row->max_ns)
			row->max_ns = e->handling_ns;
		row->durs[row->paired - 1] = e->handling_ns;
	}
	return 0;
}

/* The figures of the streams for one vCPU: migrations, preempters, exits split. */
static int vcpu_streams(struct vms_vcpu *vc, const struct vms_index *ix, const struct summary *s,
			const struct model_window *w)
{
	struct vms_preempter *pre = NULL;
	struct vcpu_recs r;
	size_t nr_pre = 0;
	int rc;

	vcpu_recs_of(&r, vc, ix);
	vcpu_migrations(vc, ix, &r, w);
	rc = vcpu_preempters_of(vc, ix, &r, w, &pre, &nr_pre);
	if (rc)
		goto free_pre;
	vcpu_top_preempters(vc, s, pre, nr_pre);
	rc = vcpu_exits_split(vc, ix, &r, w);
free_pre:
	free(pre);
	return rc;
}

/* Adds what src has beyond its roll's entry (exitroll_merge()) into dst. Returns 0 or
 * -ENOMEM. */
static int vms_exit_add(struct vms_exit *dst, const struct vms_exit *src)
{
	dst->paired += src->paired;
	dst->on_cpu_ns += src->on_cpu_ns;
	dst->off_ready_ns += src->off_ready_ns;
	dst->off_sleep_ns += src->off_sleep_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	if (!src->paired)
		return 0;
	if (array_reserve((void **)&dst->durs, &dst->cap_durs, dst->paired, sizeof(*dst->durs)))
		return -ENOMEM;
	memcpy(dst->durs + dst->paired - src->paired, src->durs, src->paired * sizeof(*src->durs));
	return 0;
}

static void exits_free(struct exitroll *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(exit_at(r, i)->durs);
	exitroll_free(r);
}

static int vcpu_fill(struct vms_vcpu *vc, const struct task_summary *ts, const struct trace *t,
		     const struct summary *s, const struct vms_index *ix, const struct vms *v)
{
	const struct model_window w = { s->window_start_ns, s->window_end_ns };
	uint64_t end = trace__instance_end(t, ts->tid, ts->since_ns), from, to, used;
	const struct pwz_vcpu_ledger *led = trace__vcpu_ledger(t, ts->tid, ts->since_ns);
	size_t k;
	int rc = 0;

	vc->tid = ts->tid;
	vc->since_ns = ts->since_ns;
	vc->vcpu = -1;
	snprintf(vc->name, sizeof(vc->name), "%s", ts->name);
	vc->running_ns = ts->runtime_ns;
	vc->ready_ns = ts->wait_ns;
	vc->unseen_ns = ts->unseen_ns;
	vc->has_ready_kernel = s->has_run_delay;
	vc->ready_kernel_ns = ts->run_delay_ns;
	vc->ready_differs = summary_ready_differs(s, ts);
	vc->has_uncharged = s->has_charged;
	vc->uncharged_ns = summary_uncharged_ns(ts);
	vc->waits = ts->wait_count;
	vc->exits_total = ts->exits_total;
	vc->has_ledger = led && s->whole_capture;
	if (vc->has_ledger)
		vc->ledger = *led;
	if (vc->has_ledger && vc->ledger.has_vcpu)	/* the index without the streams */
		vc->vcpu = (int32_t)vc->ledger.vcpu;
	exitroll_init(&vc->exits, sizeof(struct vms_exit));
	for (k = 0; k < ts->exits.n; k++) {
		const struct exitroll_entry *e = exitroll_at(&ts->exits, k);
		struct exitroll_entry *row = exitroll_get(&vc->exits, e->isa, e->code, e->name);

		if (!row) {
			rc = -ENOMEM;
			goto out;
		}
		row->count += e->count;
	}
	if (v->has_streams) {
		const struct vms_wait_pct *wp = vms__wait_pct(v, ts->tid, ts->since_ns);

		rc = vcpu_streams(vc, ix, s, &w);
		if (rc)
			goto out;
		if (wp)
			vc->wait = *wp;
	}
	from = ts->since_ns > w.from_ns ? ts->since_ns : w.from_ns;
	to = end < w.to_ns ? end : w.to_ns;
	vc->alive_ns = to > from ? to - from : 0;
	used = vc->running_ns + vc->ready_ns + vc->unseen_ns;
	vc->sleep_ns = vc->alive_ns > used ? vc->alive_ns - used : 0;
	if (vc->vcpu < 0)
		vc->vcpu = qemu_vcpu_index(ts->comm);
	for (k = 0; k < vc->exits.n; k++) {
		struct vms_exit *x = exit_at(&vc->exits, k);

		if (!x->ex.name)
			x->ex.name = pwz_meta_exit_name(&t->meta, x->ex.isa, x->ex.code);
		exit_percentiles(x);
	}
	exitroll_sort_by_count(&vc->exits);
out:
	exitroll_drop_index(&vc->exits);
	return rc;
}

const double vms_wait_q[VMS_NR_WAIT_Q] = { 0.50, 0.90, 0.99, 0.999 };

/* Per-task run-queue wait percentiles from the streams, in the window, read from histograms of
 * the kernel's layout (bpf/whist.h). */
static int wait_pcts(struct vms *v, const struct vms_index *ix, const struct model_window *w)
{
	uint64_t h[PWZ_WHIST_BUCKETS], mid[VMS_NR_WAIT_Q];
	struct trace_task_cache tc = { 0 };
	size_t cap = 0, i = 0;

	while (i < ix->nr_wk) {
		uint32_t tid = ix->wk_tid[i]->tid;
		uint64_t since = since_at(ix->t, &tc, tid, ix->wk_tid[i]->wake_ns);
		struct vms_wait_pct p = { .tid = tid, .since_ns = since };

		memset(h, 0, sizeof(h));
		for (; i < ix->nr_wk && ix->wk_tid[i]->tid == tid &&
		       since_at(ix->t, &tc, tid, ix->wk_tid[i]->wake_ns) == since; i++) {
			const struct pwz_wakeup *wk = ix->wk_tid[i];

			if (!model_wait_in(wk, w))
				continue;
			h[pwz_whist_bucket(wk->wait_ns)]++;
			p.count++;
			if (wk->wait_ns > p.max_ns)
				p.max_ns = wk->wait_ns;
		}
		if (!p.count)
			continue;
		for (int q = 0; q < VMS_NR_WAIT_Q; q++) {
			pwz_whist_quantile(h, vms_wait_q[q], p.max_ns, &p.lo_ns[q], &p.hi_ns[q]);
			mid[q] = p.lo_ns[q] + (p.hi_ns[q] - p.lo_ns[q]) / 2;
		}
		p.p50_ns = mid[VMS_P50];
		p.p90_ns = mid[VMS_P90];
		p.p99_ns = mid[VMS_P99];
		p.p999_ns = mid[VMS_P999];
		if (array_reserve((void **)&v->waits, &cap, v->nr_waits + 1, sizeof(*v->waits)))
			return -ENOMEM;
		v->waits[v->nr_waits++] = p;
	}
	return 0;
}

/* Per-thread migrations from the streams (the same count as a vCPU's). */
static int migrations(struct vms *v, const struct vms_index *ix, const struct model_window *w)
{
	struct trace_task_cache tc = { 0 };
	size_t cap = 0, i = 0;

	while (i < ix->nr_sl) {
		uint32_t tid = ix->sl_tid[i]->tid;
		uint64_t since = since_at(ix->t, &tc, tid, ix->sl_tid[i]->start_ns);
		struct vms_migrations m = { .tid = tid, .since_ns = since };

		for (i++; i < ix->nr_sl && ix->sl_tid[i]->tid == tid &&
		     since_at(ix->t, &tc, tid, ix->sl_tid[i]->start_ns) == since; i++)
			if (ix->sl_tid[i]->cpu != ix->sl_tid[i - 1]->cpu &&
			    ix->sl_tid[i]->start_ns >= w->from_ns && ix->sl_tid[i]->start_ns < w->to_ns)
				m.count++;
		if (array_reserve((void **)&v->migr, &cap, v->nr_migr + 1, sizeof(*v->migr)))
			return -ENOMEM;
		v->migr[v->nr_migr++] = m;
	}
	return 0;
}

/* (tid, since) order */
static int key_cmp(uint32_t tid_a, uint64_t since_a, uint32_t tid_b, uint64_t since_b)
{
	if (tid_a != tid_b)
		return tid_a < tid_b ? -1 : 1;
	return since_a < since_b ? -1 : since_a > since_b;
}

bool vms__migrations(const struct vms *v, uint32_t tid, uint64_t since_ns, uint64_t *count)
{
	size_t a = 0, b = v ? v->nr_migr : 0;

	while (a < b) {
		size_t m = a + (b - a) / 2;
		int c = key_cmp(v->migr[m].tid, v->migr[m].since_ns, tid, since_ns);

		if (c < 0) {
			a = m + 1;
		} else if (c > 0) {
			b = m;
		} else {
			*count = v->migr[m].count;
			return true;
		}
	}
	return false;
}

const struct vms_wait_pct *vms__wait_pct(const struct vms *v, uint32_t tid, uint64_t since_ns)
{
	size_t a = 0, b = v ? v->nr_waits : 0;

	while (a < b) {
		size_t m = a + (b - a) / 2;
		int c = key_cmp(v->waits[m].tid, v->waits[m].since_ns, tid, since_ns);

		if (c < 0)
			a = m + 1;
		else if (c > 0)
			b = m;
		else
			return &v->waits[m];
	}
	return NULL;
}

/* The VM rows of s: each vCPU task into the VM of its process. */
static int group(struct vms *v, const struct trace *t, const struct summary *s,
		 const struct vms_index *ix)
{
	struct keymap vk = { 0 };
	size_t vm_cap = 0, i;
	size_t *want = NULL;	/* vCPUs per VM, for the first pass */
	int rc = 0;

	for (i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *ts = &s->tasks[i];
		uint32_t pid = ts->pid ? ts->pid : ts->tid;
		int added;
		int64_t at;

		if (!is_vcpu_task(t, ts))
			continue;
		at = keymap_get(&vk, pid, 0, &added);
		if (at < 0)
			goto nomem;
		if (added) {
			size_t *nw;

			if (array_reserve((void **)&v->vms, &vm_cap, v->nr_vms + 1, sizeof(*v->vms)))
				goto nomem;
			nw = realloc(want, (v->nr_vms + 1) * sizeof(*want));
			if (!nw)
				goto nomem;
			want = nw;
			want[v->nr_vms] = 0;
			memset(&v->vms[v->nr_vms], 0, sizeof(*v->vms));
			v->vms[v->nr_vms].pid = pid;
			vm_name(t, ts, ts->pid, &v->vms[v->nr_vms]);
			v->nr_vms++;
		}
		want[at]++;
	}
	for (i = 0; i < v->nr_vms; i++) {
		v->vms[i].vcpus = calloc(want[i], sizeof(*v->vms[i].vcpus));
		if (!v->vms[i].vcpus)
			goto nomem;
	}
	for (i = 0; !rc && i < s->nr_tasks; i++) {
		const struct task_summary *ts = &s->tasks[i];
		int64_t at;
		struct vms_vm *vm;

		if (!ts->pid && !is_vcpu_task(t, ts))
			continue;
		at = keymap_find(&vk, ts->pid ? ts->pid : ts->tid, 0);
		if (at < 0)
			continue;
		vm = &v->vms[at];
		if (is_vcpu_task(t, ts)) {
			rc = vcpu_fill(&vm->vcpus[vm->nr_vcpus++], ts, t, s, ix, v);
		} else {
			vm->nr_other++;
			vm->other_runtime_ns += ts->runtime_ns;
		}
	}
	keymap_free(&vk);
	free(want);
	return rc;
nomem:
	keymap_free(&vk);
	free(want);
	return -ENOMEM;
}

/* Sums per VM: times over the vCPUs, exits per reason. */
static int vm_totals(struct vms_vm *vm)
{
	size_t i, k;

	exitroll_init(&vm->exits, sizeof(struct vms_exit));
	vm->has_uncharged = vm->nr_vcpus > 0;
	for (i = 0; i < vm->nr_vcpus; i++) {
		const struct vms_vcpu *vc = &vm->vcpus[i];

		vm->has_uncharged &= vc->has_uncharged;
		vm->uncharged_ns += vc->uncharged_ns;
		vm->alive_ns += vc->alive_ns;
		vm->running_ns += vc->running_ns;
		vm->ready_ns += vc->ready_ns;
		vm->sleep_ns += vc->sleep_ns;
		vm->exits_total += vc->exits_total;
		if (vc->has_ledger) {
			vm->has_ledger = true;
			pwz_vcpu_ledger_add(&vm->ledger, &vc->ledger);
		}
		for (k = 0; k < vc->exits.n; k++) {
			const struct vms_exit *src = vms_exit_at(&vc->exits, k);
			struct vms_exit *row;

			row = (struct vms_exit *)exitroll_merge(&vm->exits, &src->ex);
			if (!row || vms_exit_add(row, src))
				return -ENOMEM;	/* vms__free() frees the entries */
		}
	}
	exitroll_drop_index(&vm->exits);
	for (k = 0; k < vm->exits.n; k++)
		exit_percentiles(exit_at(&vm->exits, k));
	exitroll_sort_by_count(&vm->exits);
	if (vm->nr_vcpus)
		qsort(vm->vcpus, vm->nr_vcpus, sizeof(*vm->vcpus), cmp_vcpu);
	return 0;
}

struct vms *vms__new(const struct trace *t, const struct summary *s, char *err, size_t errlen)
{
	const struct model_window w = { s->window_start_ns, s->window_end_ns };
	struct vms_index ix = { 0 };
	struct vms *v = calloc(1, sizeof(*v));
	int rc = 0;
	size_t i;

	if (!v)
		goto nomem;
	v->window_start_ns = s->window_start_ns;
	v->window_end_ns = s->window_end_ns;
	v->has_streams = t->nr_slices > 0;
	v->records_dropped = pwz_meta_total_drops(&t->meta) > 0;
	if (v->has_streams) {
		rc = index_build(&ix, t, has_vcpu(t, s));
		if (!rc)
			rc = wait_pcts(v, &ix, &w);
		if (!rc)
			rc = migrations(v, &ix, &w);
	}
	if (!rc)
		rc = group(v, t, s, &ix);
	for (i = 0; !rc && i < v->nr_vms; i++)
		rc = vm_totals(&v->vms[i]);
	index_free(&ix);
	if (rc)
		goto nomem;
	if (v->nr_vms)
		qsort(v->vms, v->nr_vms, sizeof(*v->vms), cmp_vm);
	return v;
nomem:
	vms__free(v);
	snprintf(err, errlen, "out of memory grouping the VMs");
	errno = ENOMEM;
	return NULL;
}

void vms__free(struct vms *v)
{
	size_t i, k;

	if (!v)
		return;
	for (i = 0; i < v->nr_vms; i++) {
		for (k = 0; k < v->vms[i].nr_vcpus; k++)
			exits_free(&v->vms[i].vcpus[k].exits);
		free(v->vms[i].vcpus);
		exits_free(&v->vms[i].exits);
	}
	free(v->vms);
	free(v->waits);
	free(v->migr);
	free(v);
}

double vms_vm_ready_pct(const struct vms_vm *vm)
{
	return vm->alive_ns ? 100.0 * (double)vm->ready_ns / (double)vm->alive_ns : 0.0;
}

static int cmp_worst(const void *a, const void *b)
{
	const struct vms_vm *x = *(const struct vms_vm *const *)a, *y = *(const struct vms_vm *const *)b;
	double px = vms_vm_ready_pct(x), py = vms_vm_ready_pct(y);

	if (px != py)
		return px > py ? -1 : 1;
	return x < y ? -1 : x > y;	/* v's own order */
}

const struct vms_vm **vms__worst_first(const struct vms *v)
{
	const struct vms_vm **order = v->nr_vms ? calloc(v->nr_vms, sizeof(*order)) : NULL;

	if (!order) {
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < v->nr_vms; i++)
		order[i] = &v->vms[i];
	qsort(order, v->nr_vms, sizeof(*order), cmp_worst);
	return order;
}
