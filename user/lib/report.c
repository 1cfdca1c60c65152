// SPDX-License-Identifier: GPL-2.0
/* The --stats report: a capture's summary as a text table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "irq.h"
#include "report.h"
#include "termsafe.h"
#include "trace.h"
#include "vms.h"

static int by_count(const void *a, const void *b)
{
	return exitroll_cmp_count(*(const struct exitroll_entry *const *)a,
				  *(const struct exitroll_entry *const *)b);
}

static void write_tasks(FILE *f, const struct summary *s, double span_s)
{
	fprintf(f, "%-28s %8s %10s %7s %9s %9s %9s %9s %10s %10s %10s %19s %19s\n", "Task", "TID",
		"Runtime", "CPU %", "Switches", "Volunt.", "Involunt.", "Waits", "Avg wait",
		"Max wait", "Unseen", "Wait p50", "Wait p99");
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *t = &s->tasks[i];
		char name[TERMSAFE_NAME_MAX], pq[2][FMT_DURATION_MAX], d[4][FMT_DURATION_MAX];
		static const double qs[] = { 0.50, 0.99 };
		uint64_t lo, hi;

		/* the bucket of the wait histogram holding each percentile (summary_wait_range()) */
		for (int q = 0; q < 2; q++) {
			if (summary_wait_range(t, qs[q], &lo, &hi))
				fmt_duration_range(pq[q], sizeof(pq[q]), lo, hi);
			else
				snprintf(pq[q], sizeof(pq[q]), "%s", t->wait_count ? "n/a" : "-");
		}
		fprintf(f, "%-28s %8u %10s %7.2f %9llu %9llu %9llu %9llu %10s %10s %10s %19s %19s\n",
			termsafe_str(name, sizeof(name), t->name), t->tid,
			fmt_duration(d[0], sizeof(d[0]), t->runtime_ns),
			span_s > 0 ? t->runtime_ns / 1e7 / span_s : 0.0,
			(unsigned long long)t->switches, (unsigned long long)t->voluntary,
			(unsigned long long)t->involuntary, (unsigned long long)t->wait_count,
			fmt_duration_avg(d[1], sizeof(d[1]), t->wait_ns, t->wait_count),
			t->wait_count ? fmt_duration(d[2], sizeof(d[2]), t->wait_max_ns) : "-",
			fmt_duration(d[3], sizeof(d[3]), t->unseen_ns), pq[0], pq[1]);
	}
}

static void write_cpus(FILE *f, const struct summary *s)
{
	char d[3][FMT_DURATION_MAX];

	fprintf(f, "\nCPUs (of the %s window)\n",
		fmt_duration(d[0], sizeof(d[0]), s->window_end_ns - s->window_start_ns));
	fprintf(f, "%-6s %12s %12s %12s\n", "CPU", "Threads", "Unseen", "Unaccounted");
	for (uint32_t c = 0; c < s->nr_cpus; c++) {
		const struct summary_cpu *sc = &s->cpus[c];

		if (!sc->tasks_ns && !sc->unseen_ns && !sc->complete)
			continue;
		if (sc->complete)
			fmt_duration(d[2], sizeof(d[2]), sc->unaccounted_ns);
		else
			snprintf(d[2], sizeof(d[2]), "n/a");
		fprintf(f, "%-6u %12s %12s %12s\n", c, fmt_duration(d[0], sizeof(d[0]), sc->tasks_ns),
			fmt_duration(d[1], sizeof(d[1]), sc->unseen_ns), d[2]);
	}
}

/* One reason's line of the KVM exits: the percentiles are the log2 buckets that hold them. */
static void write_exit(FILE *f, const struct task_summary *t, const struct exitroll_entry *e,
		       const char *name)
{
	static const double qs[] = { 0.50, 0.99 };
	char rb[48 * 4], d[2][FMT_DURATION_MAX], pq[2][FMT_DURATION_MAX];
	const char *rn = e->name ? termsafe_str(rb, sizeof(rb), e->name) : NULL;
	const uint64_t *hist = exitroll_hist(e);
	uint64_t handled = 0, lo, hi;

	for (int b = 0; b < PWZ_HIST_BUCKETS; b++)
		handled += hist[b];
	if (!rn) {
		snprintf(rb, sizeof(rb), "%s %#x", e->isa == PWZ_ISA_SVM ? "svm" : "vmx", e->code);
		rn = rb;
	}
	for (int q = 0; q < 2; q++) {
		if (pwz_hist_range(hist, qs[q], &lo, &hi))
			fmt_duration_range(pq[q], sizeof(pq[q]), lo, hi);
		else
			snprintf(pq[q], sizeof(pq[q]), "-");
	}
	fprintf(f, "%-28s %8u %-28s %10llu %7.2f %10s %10s %19s %19s\n", name, t->tid, rn,
		(unsigned long long)e->count, t->exits_total ? 100.0 * e->count / t->exits_total : 0.0,
		fmt_duration(d[0], sizeof(d[0]), e->handling_ns),
		fmt_duration_avg(d[1], sizeof(d[1]), e->handling_ns, handled),
		pq[0], pq[1]);
}

static int write_exits(FILE *f, const struct summary *s)
{
	bool any = false;

	fprintf(f, "\nKVM exits\n");
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *t = &s->tasks[i];
		const struct exitroll_entry **ex;
		char name[TERMSAFE_NAME_MAX];

		if (!t->exits.n)
			continue;
		ex = calloc(t->exits.n, sizeof(*ex));
		if (!ex)
			return -ENOMEM;
		for (size_t k = 0; k < t->exits.n; k++)
			ex[k] = exitroll_at(&t->exits, k);
		qsort(ex, t->exits.n, sizeof(*ex), by_count);
		termsafe_str(name, sizeof(name), t->name);
		if (!any)
			fprintf(f, "%-28s %8s %-28s %10s %7s %10s %10s %19s %19s\n", "Task", "TID",
				"Reason", "Count", "% task", "Handling", "Avg", "p50", "p99");
		any = true;
		for (size_t k = 0; k < t->exits.n; k++)
			write_exit(f, t, ex[k], name);
		free(ex);
	}
	if (!any)
		fprintf(f, "(none)\n");
	return 0;
}

void report_ready_lines(const struct summary *s, size_t max, const char *prefix,
			void (*put)(void *ctx, const char *line), void *ctx)
{
	char line[TERMSAFE_NAME_MAX + 256], name[TERMSAFE_NAME_MAX];
	char d1[FMT_DURATION_MAX], d2[FMT_DURATION_MAX];
	size_t shown = 0, more = 0;

	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *ts = &s->tasks[i];

		if (!summary_ready_differs(s, ts))
			continue;
		if (max && shown == max) {
			more++;
			continue;
		}
		if (!shown++) {
			snprintf(line, sizeof(line), "%sready time as lived and as the kernel charged it (run_delay: schedstat, libvirt, KubeVirt), where they differ by more than %.0f %%:\n",
				 prefix, SUMMARY_READY_BUCKET_PCT);
			put(ctx, line);
			snprintf(line, sizeof(line), "%8s  %-32s %12s %12s %8s\n", "TID", "NAME",
				 "READY", "KERNEL", "DIFF%");
			put(ctx, line);
		}
		snprintf(line, sizeof(line), "%8u  %-32s %12s %12s %+8.1f\n", ts->tid,
			 termsafe_str(name, sizeof(name), ts->name),
			 fmt_duration(d1, sizeof(d1), ts->wait_ns),
			 fmt_duration(d2, sizeof(d2), ts->run_delay_ns),
			 100.0 * ((double)(ts->run_delay_ns - ts->run_delay_unmeasured_ns) -
				  (double)ts->run_delay_wait_ns) / (double)ts->run_delay_wait_ns);
		put(ctx, line);
	}
	if (more) {
		snprintf(line, sizeof(line), "%sand %zu more threads (--list --json: run_delay_ns)\n",
			 prefix, more);
		put(ctx, line);
	}
}

static void put_file(void *ctx, const char *line)
{
	fputs(line, ctx);
}

int report_write_stats(FILE *f, const struct summary *s, const struct pwz_meta *m)
{
	double span_s = (s->window_end_ns - s->window_start_ns) / 1e9;
	char host[TERMSAFE_NAME_MAX], kernel[TERMSAFE_NAME_MAX], d[FMT_DURATION_MAX];
	int e;

	fprintf(f, "pwz capture statistics\n");
	fprintf(f, "host %s, kernel %s, %u CPUs, %s, %llu%s records dropped\n",
		termsafe_str(host, sizeof(host), m->host ? m->host : "?"),
		termsafe_str(kernel, sizeof(kernel), m->kernel ? m->kernel : "?"), m->nr_cpus,
		fmt_duration(d, sizeof(d), s->window_end_ns - s->window_start_ns),
		(unsigned long long)pwz_meta_total_drops(m), pwz_sat_more(pwz_meta_total_drops(m)));
	fprintf(f, "figures: %s%s\n\n", s->from_aggregates ?
		"the capture's aggregates (exact, drops included)" :
		"folded from the recorded slices, waits and exits",
		s->saturated ? "; WARNING: sums past 2^64-1 are held at 18446744073709551615" : "");
	write_tasks(f, s, span_s);
	report_ready_lines(s, 0, "\n", put_file, f);
	write_cpus(f, s);
	e = write_exits(f, s);
	if (!e && m->nr_drops) {
		fprintf(f, "\nDrops\n");
		for (uint32_t i = 0; i < m->nr_drops; i++)
			fprintf(f, "%-16s %llu%s\n", m->drops[i].name,
				(unsigned long long)m->drops[i].value, pwz_sat_more(m->drops[i].value));
	}
	if (e)
		return e;
	return ferror(f) ? -EIO : 0;
}

static double pct_of(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void write_steal(FILE *f, const struct pwz_meta *m)
{
	char d[2][FMT_DURATION_MAX];

	if (!m->has_steal)
		return;
	fprintf(f, "Host steal over the capture (/proc/stat): %s of %s CPU time (%.3f %%)\n",
		fmt_duration(d[0], sizeof(d[0]), m->steal_ns),
		fmt_duration(d[1], sizeof(d[1]), m->cpu_time_ns), pct_of(m->steal_ns, m->cpu_time_ns));
}

static const char *exit_label(const struct exitroll_entry *e, char *buf, size_t len)
{
	if (e->name)
		return termsafe_str(buf, len, e->name);
	snprintf(buf, len, "%s %#x", e->isa == PWZ_ISA_SVM ? "svm" : "vmx", e->code);
	return buf;
}

static void write_vm_exits(FILE *f, const struct vms *v, const struct vms_vm *vm, double span_s)
{
	char rb[48 * 4], d[8][FMT_DURATION_MAX];

	if (!vm->exits.n)
		return;
	fprintf(f, "  %-24s %9s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "Exit reason",
		"Count", "Exits/s", "Total", "On-CPU", "Ready", "Sleep", "p50", "p90", "p99", "Max");
	for (size_t k = 0; k < vm->exits.n; k++) {
		const struct vms_exit *e = vms_exit_at(&vm->exits, k);
		const uint64_t ns[8] = { e->ex.handling_ns, e->on_cpu_ns, e->off_ready_ns,
					 e->off_sleep_ns, e->p50_ns, e->p90_ns, e->p99_ns,
					 e->max_ns };

		/* the exits' percentiles are exact (vms.h): one value each */
		for (int i = 0; i < 8; i++) {
			if (v->has_streams && e->paired)
				fmt_duration(d[i], sizeof(d[i]), ns[i]);
			else
				snprintf(d[i], sizeof(d[i]), "-");
		}
		fprintf(f, "  %-24s %9llu %10.1f %10s %10s %10s %10s %10s %10s %10s %10s\n",
			exit_label(&e->ex, rb, sizeof(rb)), (unsigned long long)e->ex.count,
			span_s > 0 ? e->ex.count / span_s : 0.0, d[0], d[1], d[2], d[3], d[4], d[5],
			d[6], d[7]);
	}
}

static void write_waits(FILE *f, const struct summary *s, const struct vms *v)
{
	bool any = false;

	fprintf(f, "\nRun-queue wait percentiles (log-linear histogram, from the streams%s)\n",
		v->records_dropped ? "; the capture dropped records, which they miss" : "");
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *t = &s->tasks[i];
		const struct vms_wait_pct *p = vms__wait_pct(v, t->tid, t->since_ns);
		char name[TERMSAFE_NAME_MAX], d[VMS_NR_WAIT_Q + 1][FMT_DURATION_MAX];

		if (!p || (i && s->tasks[i - 1].tid == t->tid && t->tid == 0))
			continue;
		if (!any)
			fprintf(f, "%-28s %8s %9s %19s %19s %19s %19s %10s\n", "Task", "TID", "Waits",
				"p50", "p90", "p99", "p99.9", "Max");
		any = true;
		/* each percentile as the range of its histogram bucket (vms.h) */
		for (int q = 0; q < VMS_NR_WAIT_Q; q++)
			fmt_duration_range(d[q], sizeof(d[q]), p->lo_ns[q], p->hi_ns[q]);
		fprintf(f, "%-28s %8u %9llu %19s %19s %19s %19s %10s\n",
			termsafe_str(name, sizeof(name), t->name), t->tid,
			(unsigned long long)p->count, d[VMS_P50], d[VMS_P90], d[VMS_P99], d[VMS_P999],
			fmt_duration(d[VMS_NR_WAIT_Q], sizeof(d[0]), p->max_ns));
	}
	if (!any)
		fprintf(f, "(none)\n");
}

/* One vCPU's line of a VM: its life in the window, running, ready, sleeping (each in % of
 * its life), migrations, who ran while it was ready. */
static void write_vcpu(FILE *f, const struct vms *v, const struct vms_vcpu *vc)
{
	char name[TERMSAFE_NAME_MAX], pre[3 * TERMSAFE_NAME_MAX], d[4][FMT_DURATION_MAX];
	uint64_t alive = vc->alive_ns;
	size_t at = 0;

	pre[0] = 0;
	for (size_t p = 0; v->has_streams && p < vc->nr_top && at < sizeof(pre); p++) {
		char pn[TERMSAFE_NAME_MAX];
		int n = snprintf(pre + at, sizeof(pre) - at, "%s%s:%u %s", p ? ", " : "",
				 termsafe_str(pn, sizeof(pn), vc->top[p].name), vc->top[p].tid,
				 fmt_duration(d[0], sizeof(d[0]), vc->top[p].ns));

		if (n < 0)
			break;
		at += (size_t)n;
	}
	fprintf(f, "  %-24s %8u %5d %10s %10s %7.2f %10s %7.2f %10s %7.2f ",
		termsafe_str(name, sizeof(name), vc->name), vc->tid, vc->vcpu,
		fmt_duration(d[3], sizeof(d[3]), alive),
		fmt_duration(d[0], sizeof(d[0]), vc->running_ns), pct_of(vc->running_ns, alive),
		fmt_duration(d[1], sizeof(d[1]), vc->ready_ns), pct_of(vc->ready_ns, alive),
		fmt_duration(d[2], sizeof(d[2]), vc->sleep_ns), pct_of(vc->sleep_ns, alive));
	if (v->has_streams)
		fprintf(f, "%6llu  %s\n", (unsigned long long)vc->migrations, pre[0] ? pre : "-");
	else
		fprintf(f, "%6s  %s\n", "-", "-");
}

/* One row of a ledger table: label (prefix and indent before it), id, total, then each of the
 * n values in % of total. */
static void ledger_row(const char *prefix, const char *indent, const char *label, uint32_t id,
		       uint64_t total, const uint64_t *v, int n,
		       void (*put)(void *ctx, const char *line), void *ctx)
{
	char line[TERMSAFE_NAME_MAX + 256], name[TERMSAFE_NAME_MAX], d[FMT_DURATION_MAX];
	int k = snprintf(line, sizeof(line), "%s%s%-*s %8u %10s", prefix, indent,
			 (int)(22 - strlen(indent)), termsafe_str(name, sizeof(name), label), id,
			 fmt_duration(d, sizeof(d), total));

	for (int i = 0; i < n && k > 0 && (size_t)k < sizeof(line); i++)
		k += snprintf(line + k, sizeof(line) - (size_t)k, " %6.2f", pct_of(v[i], total));
	if (k > 0 && (size_t)k < sizeof(line) - 1)
		snprintf(line + k, sizeof(line) - (size_t)k, "\n");
	put(ctx, line);
}

/* The title and the column heads of a ledger table (total's column named tot). */
static void ledger_head(const char *prefix, const char *title, const char *tot,
			const char *const *cols, int n, void (*put)(void *ctx, const char *line),
			void *ctx)
{
	char line[256];
	int k;

	snprintf(line, sizeof(line), "%s%s\n", prefix, title);
	put(ctx, line);
	k = snprintf(line, sizeof(line), "%s%-22s %8s %10s", prefix, "VM / vCPU", "PID/TID", tot);
	for (int i = 0; i < n; i++)
		k += snprintf(line + k, sizeof(line) - (size_t)k, " %6s", cols[i]);
	snprintf(line + k, sizeof(line) - (size_t)k, "\n");
	put(ctx, line);
}

/* The row of ledger l in a ledger table: its states over its life (causes false), or its ready
 * causes and co-stop over its ready time (causes true), into v (at least PWZ_VCPU_STATES and
 * PWZ_READY_CAUSES + 1); *n values over *total. */
static void ledger_values(const struct pwz_vcpu_ledger *l, bool causes, uint64_t *v, int *n,
			  uint64_t *total)
{
	if (!causes) {
		memcpy(v, l->ns, sizeof(l->ns));
		*n = PWZ_VCPU_STATES;
		*total = l->alive_ns;
		return;
	}
	memcpy(v, l->cause_ns, sizeof(l->cause_ns));
	v[PWZ_READY_CAUSES] = l->costop_ns;
	*n = PWZ_READY_CAUSES + 1;
	*total = l->ns[PWZ_VCPU_READY];
}

/* One row of a ledger table (ledger_values() of l) under label and id. */
static void ledger_line(const char *prefix, const char *indent, const char *label, uint32_t id,
			const struct pwz_vcpu_ledger *l, bool causes,
			void (*put)(void *ctx, const char *line), void *ctx)
{
	uint64_t v[PWZ_VCPU_STATES + PWZ_READY_CAUSES + 1], total;
	int n;

	ledger_values(l, causes, v, &n, &total);
	ledger_row(prefix, indent, label, id, total, v, n, put, ctx);
}

/* The table of each VM's and vCPU's ledger: states in % of its life (causes: false), or ready
 * causes and co-stop in % of its ready time (causes: true). */
static void ledger_table(const struct vms_vm *const *vms, size_t n, const char *prefix,
			 bool causes, void (*put)(void *ctx, const char *line), void *ctx)
{
	static const char *const states[PWZ_VCPU_STATES] = { "GUEST", "EXIT_K", "EXIT_U", "POLL",
							     "HALT", "READY", "OTHER", "UNSEEN" };
	static const char *const cause_cols[PWZ_READY_CAUSES + 1] = { "SIBL", "VMM", "OTHVM",
								      "HOST", "IDLE", "UNSEEN",
								      "IRQ", "COSTOP" };
	bool head = false;

	for (size_t i = 0; i < n; i++) {
		const struct vms_vm *vm = vms[i];

		if (!vm->has_ledger)
			continue;
		if (!head && causes)
			ledger_head(prefix, "vCPU ready time by what held its CPU, and co-stop (ready while a sibling ran), in % of READY:",
				    "READY", cause_cols, PWZ_READY_CAUSES + 1, put, ctx);
		else if (!head)
			ledger_head(prefix, "vCPU states over the capture (their ledgers), in % of LIFE:",
				    "LIFE", states, PWZ_VCPU_STATES, put, ctx);
		head = true;
		ledger_line(prefix, "", vm->name, vm->pid, &vm->ledger, causes, put, ctx);
		for (size_t c = 0; c < vm->nr_vcpus; c++)
			if (vm->vcpus[c].has_ledger)
				ledger_line(prefix, "  ", vm->vcpus[c].name, vm->vcpus[c].tid,
					    &vm->vcpus[c].ledger, causes, put, ctx);
	}
}

void report_vcpu_state_lines(const struct vms_vm *const *vms, size_t n, const char *prefix,
			     void (*put)(void *ctx, const char *line), void *ctx)
{
	ledger_table(vms, n, prefix, false, put, ctx);
	ledger_table(vms, n, prefix, true, put, ctx);
}

int report_write_vms(FILE *f, const struct summary *s, const struct pwz_meta *m,
		     const struct vms *v)
{
	uint64_t span = v->window_end_ns - v->window_start_ns;
	double span_s = span / 1e9;
	char name[TERMSAFE_NAME_MAX], d[FMT_DURATION_MAX];
	const struct vms_vm **order;

	fprintf(f, "\nVMs, worst first (%% of each vCPU's life in the %s window)\n",
		fmt_duration(d, sizeof(d), span));
	write_steal(f, m);
	if (!v->has_streams)
		fprintf(f, "(migrations, preempters, the exits' on/off-CPU split and percentiles need the recorded streams: pwz-render --list --json FILE)\n");
	else if (v->records_dropped)
		fprintf(f, "(the capture dropped records: migrations, preempters, the exit split and percentiles miss them)\n");
	if (!v->nr_vms)
		fprintf(f, "(none)\n");
	order = v->nr_vms ? vms__worst_first(v) : NULL;
	if (v->nr_vms && !order)
		return -ENOMEM;
	for (size_t i = 0; i < v->nr_vms; i++) {
		const struct vms_vm *vm = order[i];

		fprintf(f, "VM %s (pid %u): %zu vCPUs, %u other threads (%s), %llu exits (%.1f/s)\n",
			termsafe_str(name, sizeof(name), vm->name), vm->pid, vm->nr_vcpus, vm->nr_other,
			fmt_duration(d, sizeof(d), vm->other_runtime_ns),
			(unsigned long long)vm->exits_total, span_s > 0 ? vm->exits_total / span_s : 0.0);
		fprintf(f, "  %-24s %8s %5s %10s %10s %7s %10s %7s %10s %7s %6s  %s\n", "vCPU", "TID",
			"Index", "Alive", "Running", "%", "Ready", "%", "Sleep", "%", "Migr.",
			"Ran while ready");
		for (size_t k = 0; k < vm->nr_vcpus; k++)
			write_vcpu(f, v, &vm->vcpus[k]);
		write_vm_exits(f, v, vm, span_s);
	}
	report_vcpu_state_lines(order, v->nr_vms, "", put_file, f);
	free(order);
	if (v->has_streams)
		write_waits(f, s, v);
	return ferror(f) ? -EIO : 0;
}

int report_write_irq(FILE *f, const struct trace *t, size_t top)
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
