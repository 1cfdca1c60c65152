// SPDX-License-Identifier: GPL-2.0
/* --irq aggregates: softirq names, summing repeated records, per-vector and per-thread views. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "irq.h"

/* include/linux/interrupt.h's order, /proc/softirqs's names (kernel/softirq.c softirq_to_name) */
static const char *const softirq_names[PWZ_NR_SOFTIRQS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

const char *pwz_softirq_name(uint32_t vec)
{
	return vec < PWZ_NR_SOFTIRQS ? softirq_names[vec] : NULL;
}

const char *pwz_irq_name(const struct pwz_irq_agg *a)
{
	if (a->name[0])
		return a->name;
	return a->kind == PWZ_IRQ_KIND_SOFT ? pwz_softirq_name(a->vector) : NULL;
}

static int cmp_u64(uint64_t x, uint64_t y)
{
	return x < y ? -1 : x > y;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct pwz_irq_agg *a = pa, *b = pb;
	int c;

	if ((c = cmp_u64(a->cpu, b->cpu)) || (c = cmp_u64(a->kind, b->kind)) ||
	    (c = cmp_u64(a->vector, b->vector)) || (c = cmp_u64(a->tid, b->tid)))
		return c;
	return cmp_u64(a->since_ns, b->since_ns);
}

size_t pwz_irq_merge(struct pwz_irq_agg *a, size_t n)
{
	size_t out = 0;

	if (!n)
		return 0;
	qsort(a, n, sizeof(*a), cmp_key);
	for (size_t i = 1; i < n; i++) {
		struct pwz_irq_agg *d = &a[out];

		if (cmp_key(d, &a[i])) {
			a[++out] = a[i];
			continue;
		}
		d->count += a[i].count;
		d->time_ns += a[i].time_ns;
		d->nested_ns += a[i].nested_ns;
		if (a[i].max_ns > d->max_ns)
			d->max_ns = a[i].max_ns;
		if (!d->name[0])
			memcpy(d->name, a[i].name, sizeof(d->name));
	}
	return out + 1;
}

long irq_vector_rows(const struct pwz_irq_agg *a, size_t n, struct irq_vector_row **out)
{
	struct irq_vector_row *r;
	long k = -1;

	*out = NULL;
	if (!n)
		return 0;
	r = calloc(n, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (k < 0 || r[k].cpu != a[i].cpu || r[k].kind != a[i].kind ||
		    r[k].vector != a[i].vector) {
			k++;
			r[k].cpu = a[i].cpu;
			r[k].kind = a[i].kind;
			r[k].vector = a[i].vector;
			r[k].name = pwz_irq_name(&a[i]);
		}
		if (!r[k].name)
			r[k].name = pwz_irq_name(&a[i]);
		r[k].count += a[i].count;
		r[k].time_ns += a[i].time_ns;
		r[k].nested_ns += a[i].nested_ns;
		if (a[i].max_ns > r[k].max_ns)
			r[k].max_ns = a[i].max_ns;
	}
	*out = r;
	return k + 1;
}

static int cmp_thread_key(const void *pa, const void *pb)
{
	const struct irq_thread_row *a = pa, *b = pb;
	int c = cmp_u64(a->tid, b->tid);

	return c ? c : cmp_u64(a->since_ns, b->since_ns);
}

static int cmp_thread_time(const void *pa, const void *pb)
{
	const struct irq_thread_row *a = pa, *b = pb;
	int c = cmp_u64(b->hard_ns + b->soft_ns, a->hard_ns + a->soft_ns);

	return c ? c : cmp_thread_key(pa, pb);
}

long irq_thread_rows(const struct pwz_irq_agg *a, size_t n, struct irq_thread_row **out)
{
	struct irq_thread_row *r;
	size_t k = 0;

	*out = NULL;
	if (!n)
		return 0;
	r = calloc(n, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r[i].tid = a[i].tid;
		r[i].since_ns = a[i].since_ns;
		if (a[i].kind == PWZ_IRQ_KIND_HARD) {
			r[i].hard_count = a[i].count;
			r[i].hard_ns = a[i].time_ns;
		} else {
			r[i].soft_count = a[i].count;
			r[i].soft_ns = a[i].time_ns;
		}
	}
	qsort(r, n, sizeof(*r), cmp_thread_key);
	for (size_t i = 1; i < n; i++) {
		if (cmp_thread_key(&r[k], &r[i])) {
			r[++k] = r[i];
			continue;
		}
		r[k].hard_count += r[i].hard_count;
		r[k].hard_ns += r[i].hard_ns;
		r[k].soft_count += r[i].soft_count;
		r[k].soft_ns += r[i].soft_ns;
	}
	k++;
	qsort(r, k, sizeof(*r), cmp_thread_time);
	*out = r;
	return (long)k;
}
