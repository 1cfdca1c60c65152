// SPDX-License-Identifier: GPL-2.0
/* The --stats report: a capture's summary as a text table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "termsafe.h"

static int by_count(const void *a, const void *b)
{
	const struct summary_exit *x = *(const struct summary_exit *const *)a;
	const struct summary_exit *y = *(const struct summary_exit *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->isa != y->isa)
		return x->isa < y->isa ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static void write_tasks(FILE *f, const struct summary *s, double span_s)
{
	fprintf(f, "%-28s %8s %12s %7s %9s %9s %9s %9s %11s %11s %10s\n", "Task", "TID",
		"Runtime ms", "CPU %", "Switches", "Volunt.", "Involunt.", "Waits", "Avg wait ms",
		"Max wait ms", "Unseen ms");
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *t = &s->tasks[i];
		char name[TERMSAFE_NAME_MAX];

		fprintf(f, "%-28s %8u %12.3f %7.2f %9llu %9llu %9llu %9llu %11.3f %11.3f %10.3f\n",
			termsafe_str(name, sizeof(name), t->name), t->tid, t->runtime_ns / 1e6,
			span_s > 0 ? t->runtime_ns / 1e7 / span_s : 0.0,
			(unsigned long long)t->switches, (unsigned long long)t->voluntary,
			(unsigned long long)t->involuntary, (unsigned long long)t->wait_count,
			t->wait_count ? t->wait_ns / 1e6 / t->wait_count : 0.0, t->wait_max_ns / 1e6,
			t->unseen_ns / 1e6);
	}
}

static void write_cpus(FILE *f, const struct summary *s)
{
	uint64_t span = s->window_end_ns - s->window_start_ns;

	fprintf(f, "\nCPUs (ms of the %.3f ms window)\n", span / 1e6);
	fprintf(f, "%-6s %12s %12s %12s\n", "CPU", "Threads", "Unseen", "Unaccounted");
	for (uint32_t c = 0; c < s->nr_cpus; c++) {
		const struct summary_cpu *sc = &s->cpus[c];

		if (!sc->tasks_ns && !sc->unseen_ns && !sc->complete)
			continue;
		if (sc->complete)
			fprintf(f, "%-6u %12.3f %12.3f %12.3f\n", c, sc->tasks_ns / 1e6,
				sc->unseen_ns / 1e6, sc->unaccounted_ns / 1e6);
		else
			fprintf(f, "%-6u %12.3f %12.3f %12s\n", c, sc->tasks_ns / 1e6,
				sc->unseen_ns / 1e6, "n/a");
	}
}

static int write_exits(FILE *f, const struct summary *s)
{
	bool any = false;

	fprintf(f, "\nKVM exits\n");
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *t = &s->tasks[i];
		const struct summary_exit **ex;
		char name[TERMSAFE_NAME_MAX];

		if (!t->nr_exits)
			continue;
		ex = calloc(t->nr_exits, sizeof(*ex));
		if (!ex)
			return -ENOMEM;
		for (size_t k = 0; k < t->nr_exits; k++)
			ex[k] = &t->exits[k];
		qsort(ex, t->nr_exits, sizeof(*ex), by_count);
		termsafe_str(name, sizeof(name), t->name);
		if (!any)
			fprintf(f, "%-28s %8s %-28s %10s %7s %12s %10s %10s %10s\n", "Task", "TID",
				"Reason", "Count", "% task", "Handling ms", "Avg us", "p50 us",
				"p99 us");
		any = true;
		for (size_t k = 0; k < t->nr_exits; k++) {
			const struct summary_exit *e = ex[k];
			uint64_t handled = 0;
			char rb[48 * 4];
			const char *rn = e->name ? termsafe_str(rb, sizeof(rb), e->name) : NULL;

			for (int b = 0; b < PWZ_HIST_BUCKETS; b++)
				handled += e->hist[b];
			if (!rn) {
				snprintf(rb, sizeof(rb), "%s %#x", e->isa == PWZ_ISA_SVM ? "svm" : "vmx",
					 e->code);
				rn = rb;
			}
			fprintf(f, "%-28s %8u %-28s %10llu %7.2f %12.3f %10.3f %10.3f %10.3f\n",
				name, t->tid, rn, (unsigned long long)e->count,
				t->exits_total ? 100.0 * e->count / t->exits_total : 0.0,
				e->handling_ns / 1e6, handled ? e->handling_ns / 1e3 / handled : 0.0,
				pwz_hist_quantile(e->hist, 0.5) / 1e3,
				pwz_hist_quantile(e->hist, 0.99) / 1e3);
		}
		free(ex);
	}
	if (!any)
		fprintf(f, "(none)\n");
	return 0;
}

int report_write_stats(FILE *f, const struct summary *s, const struct pwz_meta *m)
{
	double span_s = (s->window_end_ns - s->window_start_ns) / 1e9;
	char host[TERMSAFE_NAME_MAX], kernel[TERMSAFE_NAME_MAX];
	int e;

	fprintf(f, "pwz capture statistics\n");
	fprintf(f, "host %s, kernel %s, %u CPUs, %.3f s, %llu records dropped\n",
		termsafe_str(host, sizeof(host), m->host ? m->host : "?"),
		termsafe_str(kernel, sizeof(kernel), m->kernel ? m->kernel : "?"), m->nr_cpus, span_s,
		(unsigned long long)pwz_meta_total_drops(m));
	fprintf(f, "figures: %s\n\n", s->from_aggregates ?
		"the capture's aggregates (exact, drops included)" :
		"folded from the recorded slices, waits and exits");
	write_tasks(f, s, span_s);
	write_cpus(f, s);
	e = write_exits(f, s);
	if (!e && m->nr_drops) {
		fprintf(f, "\nDrops\n");
		for (uint32_t i = 0; i < m->nr_drops; i++)
			fprintf(f, "%-16s %llu\n", m->drops[i].name,
				(unsigned long long)m->drops[i].value);
	}
	if (e)
		return e;
	return ferror(f) ? -EIO : 0;
}
