// SPDX-License-Identifier: GPL-2.0
/* --irq aggregates: softirq names, summing repeated records, per-vector and per-thread views. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "irq.h"
#include "termsafe.h"
#include "trace.h"

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

int irq_report_write(FILE *f, const struct trace *t, size_t top)
{
	double dur = (double)t->meta.duration_ns;
	struct irq_vector_row *v = NULL;
	struct irq_thread_row *th = NULL;
	long nv, nt;
	char name[TERMSAFE_NAME_MAX], d[3][FMT_DURATION_MAX];

	if (!t->meta.has_irq)
		return 0;
	nv = irq_vector_rows(t->irq_aggs, t->nr_irq_aggs, &v);
	nt = nv < 0 ? 0 : irq_thread_rows(t->irq_aggs, t->nr_irq_aggs, &th);
	if (nv < 0 || nt < 0) {
		free(v);
		free(th);
		return -ENOMEM;
	}
	fprintf(f, "\nInterrupts (--irq; a hard IRQ during a softirq counts in the hard IRQ only)\n");
	if (!nv)
		fprintf(f, "no interrupt counted\n");
	else
		fprintf(f, "%-4s %-5s %6s %-20s %10s %10s %10s %10s\n", "CPU", "Kind", "Vector",
			"Name", "Count", "Total", "Avg", "Max");
	for (long i = 0; i < nv; i++) {
		const struct irq_vector_row *r = &v[i];

		fprintf(f, "%-4u %-5s %6u %-20s %10llu %10s %10s %10s\n", r->cpu,
			r->kind == PWZ_IRQ_KIND_HARD ? "hard" : "soft", r->vector,
			termsafe_str(name, sizeof(name), r->name ? r->name : "?"),
			(unsigned long long)r->count, fmt_duration(d[0], sizeof(d[0]), r->time_ns),
			fmt_duration_avg(d[1], sizeof(d[1]), r->time_ns, r->count),
			fmt_duration(d[2], sizeof(d[2]), r->max_ns));
		/* each CPU's total after its last row */
		if (i + 1 == nv || v[i + 1].cpu != r->cpu) {
			uint64_t hard = 0, soft = 0;

			for (long j = i; j >= 0 && v[j].cpu == r->cpu; j--)
				*(v[j].kind == PWZ_IRQ_KIND_HARD ? &hard : &soft) += v[j].time_ns;
			fprintf(f, "CPU %u: hard %s, soft %s, %.2f %% of the capture\n", r->cpu,
				fmt_duration(d[0], sizeof(d[0]), hard),
				fmt_duration(d[1], sizeof(d[1]), soft),
				dur > 0 ? 100.0 * (double)(hard + soft) / dur : 0.0);
		}
	}
	if (nt) {
		fprintf(f, "\nThreads interrupted (time taken from them)\n");
		fprintf(f, "%-28s %10s %10s %12s %10s %12s\n", "Task", "TID", "Hard", "Hard time",
			"Soft", "Soft time");
	}
	for (long i = 0; i < nt && (size_t)i < (top ? top : 20); i++) {
		const struct irq_thread_row *r = &th[i];
		const struct pwz_task *task = r->tid == PWZ_IRQ_OTHER_TID ? NULL :
					      trace__task_at(t, r->tid, r->since_ns);
		const char *n = r->tid == PWZ_IRQ_OTHER_TID ? "(threads not selected)" :
				task ? task->name : "?";

		if (r->tid == PWZ_IRQ_OTHER_TID)
			fprintf(f, "%-28s %10s", n, "-");
		else
			fprintf(f, "%-28s %10u", termsafe_str(name, sizeof(name), n), r->tid);
		fprintf(f, " %10llu %12s %10llu %12s\n", (unsigned long long)r->hard_count,
			fmt_duration(d[0], sizeof(d[0]), r->hard_ns), (unsigned long long)r->soft_count,
			fmt_duration(d[1], sizeof(d[1]), r->soft_ns));
	}
	free(v);
	free(th);
	return ferror(f) ? -EIO : 0;
}
