// SPDX-License-Identifier: GPL-2.0
/* The --stats report: a human summary of a capture made from its kernel aggregates. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "capture_stats.h"
#include "keymap.h"
#include "termsafe.h"

struct task_row {
	uint32_t tid;
	uint64_t runtime_ns;
	uint64_t switches;
	uint64_t voluntary;
	uint64_t involuntary;
	uint64_t waits;
	uint64_t wait_ns;
	uint64_t wait_max_ns;
};

static int by_runtime(const void *a, const void *b)
{
	const struct task_row *x = a, *y = b;

	if (x->runtime_ns != y->runtime_ns)
		return x->runtime_ns < y->runtime_ns ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int kvm_order(const void *a, const void *b)
{
	const struct pwz_kvm_agg *x = *(const struct pwz_kvm_agg *const *)a;
	const struct pwz_kvm_agg *y = *(const struct pwz_kvm_agg *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->isa != y->isa)
		return x->isa < y->isa ? -1 : 1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

/* The row of tid in rows (room for every record), hashed: a file of many threads costs
 * linear time. NULL when out of memory. */
static struct task_row *row_of(struct keymap *idx, struct task_row *rows, size_t *n, uint32_t tid)
{
	int added;
	int64_t i = keymap_get(idx, tid, 0, &added);

	if (i < 0)
		return NULL;
	if (added) {
		memset(&rows[i], 0, sizeof(rows[0]));
		rows[i].tid = tid;
		(*n)++;
	}
	return &rows[i];
}

/* The thread's name made safe for a terminal (names come from the traced system). */
static const char *name_of(const struct capture_stats_in *in, uint32_t tid, char *buf, size_t len)
{
	const char *n = in->name ? in->name(in->name_ctx, tid) : NULL;

	if (n)
		return termsafe_str(buf, len, n);
	snprintf(buf, len, "tid-%u", tid);
	return buf;
}

int capture_stats_write(FILE *f, const struct capture_stats_in *in)
{
	const struct pwz_meta *m = in->meta;
	double dur_s = m->duration_ns / 1e9;
	struct task_row *rows = calloc(in->nr_cpu + in->nr_wait + 1, sizeof(*rows));
	const struct pwz_kvm_agg **kv = calloc(in->nr_kvm + 1, sizeof(*kv));
	struct keymap idx = { 0 };	/* tid -> rows[] */
	uint64_t task_total = 0;
	size_t nr = 0;
	char nb[TERMSAFE_NAME_MAX], host[TERMSAFE_NAME_MAX], kernel[TERMSAFE_NAME_MAX];

	if (!rows || !kv) {
		free(rows);
		free(kv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < in->nr_cpu; i++) {
		struct task_row *r = row_of(&idx, rows, &nr, in->cpu[i].tid);

		if (!r)
			goto nomem;
		r->runtime_ns += in->cpu[i].runtime_ns;
		r->switches += in->cpu[i].switches;
		r->voluntary += in->cpu[i].voluntary;
		r->involuntary += in->cpu[i].involuntary;
	}
	for (size_t i = 0; i < in->nr_wait; i++) {
		struct task_row *r = row_of(&idx, rows, &nr, in->wait[i].tid);

		if (!r)
			goto nomem;
		r->waits += in->wait[i].count;
		r->wait_ns += in->wait[i].wait_ns;
		if (in->wait[i].max_ns > r->wait_max_ns)
			r->wait_max_ns = in->wait[i].max_ns;
	}
	keymap_free(&idx);
	qsort(rows, nr, sizeof(*rows), by_runtime);

	fprintf(f, "pwz-bpf capture statistics\n");
	fprintf(f, "host %s, kernel %s, %u CPUs, %.3f s, %llu records dropped\n\n",
		termsafe_str(host, sizeof(host), m->host ? m->host : "?"),
		termsafe_str(kernel, sizeof(kernel), m->kernel ? m->kernel : "?"), m->nr_cpus, dur_s,
		(unsigned long long)pwz_meta_total_drops(m));
	fprintf(f, "%-28s %8s %12s %7s %9s %9s %9s %9s %11s %11s\n", "Task", "TID", "Runtime ms",
		"CPU %", "Switches", "Volunt.", "Involunt.", "Waits", "Avg wait ms", "Max wait ms");
	for (size_t i = 0; i < nr; i++) {
		const struct task_row *r = &rows[i];

		fprintf(f, "%-28s %8u %12.3f %7.2f %9llu %9llu %9llu %9llu %11.3f %11.3f\n",
			name_of(in, r->tid, nb, sizeof(nb)), r->tid, r->runtime_ns / 1e6,
			dur_s > 0 ? r->runtime_ns / 1e7 / dur_s : 0.0,
			(unsigned long long)r->switches, (unsigned long long)r->voluntary,
			(unsigned long long)r->involuntary, (unsigned long long)r->waits,
			r->waits ? r->wait_ns / 1e6 / r->waits : 0.0, r->wait_max_ns / 1e6);
	}

	for (size_t i = 0; i < in->nr_kvm; i++)
		kv[i] = &in->kvm[i];
	qsort(kv, in->nr_kvm, sizeof(*kv), kvm_order);
	fprintf(f, "\nKVM exits\n");
	if (!in->nr_kvm)
		fprintf(f, "(none)\n");
	else
		fprintf(f, "%-28s %8s %-28s %10s %7s %12s %10s %10s %10s\n", "Task", "TID", "Reason",
			"Count", "% task", "Handling ms", "Avg us", "p50 us", "p99 us");
	for (size_t i = 0, group = 0; i < in->nr_kvm; i++) {
		const struct pwz_kvm_agg *a = kv[i];
		const char *rn = pwz_meta_exit_name(m, a->isa, a->reason);
		uint64_t handled = 0;
		char rb[TERMSAFE_NAME_MAX];

		/* kv is sorted by tid: the task's total once per run of its rows */
		if (!i || kv[i - 1]->tid != a->tid) {
			task_total = 0;
			for (group = i; group < in->nr_kvm && kv[group]->tid == a->tid; group++)
				task_total += kv[group]->count;
		}
		for (int b = 0; b < PWZ_HIST_BUCKETS; b++)
			handled += a->hist[b];
		if (!rn) {
			snprintf(rb, sizeof(rb), "%s %#x", a->isa == PWZ_ISA_SVM ? "svm" : "vmx",
				 a->reason);
			rn = rb;
		} else {
			rn = termsafe_str(rb, sizeof(rb), rn);
		}
		fprintf(f, "%-28s %8u %-28s %10llu %7.2f %12.3f %10.3f %10.3f %10.3f\n",
			name_of(in, a->tid, nb, sizeof(nb)), a->tid, rn, (unsigned long long)a->count,
			task_total ? 100.0 * a->count / task_total : 0.0, a->handling_ns / 1e6,
			handled ? a->handling_ns / 1e3 / handled : 0.0,
			pwz_hist_quantile(a->hist, 0.5) / 1e3, pwz_hist_quantile(a->hist, 0.99) / 1e3);
	}
	if (m->nr_drops) {
		fprintf(f, "\nDrops\n");
		for (uint32_t i = 0; i < m->nr_drops; i++)
			fprintf(f, "%-16s %llu\n", termsafe_str(nb, sizeof(nb), m->drops[i].name),
				(unsigned long long)m->drops[i].value);
	}
	free(rows);
	free(kv);
	return ferror(f) ? -EIO : 0;
nomem:
	keymap_free(&idx);
	free(rows);
	free(kv);
	return -ENOMEM;
}
