// SPDX-License-Identifier: GPL-2.0
/* `pwz-render --list`: what is inside a capture, as a table or as one JSON document. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "irqtab.h"
#include "list.h"
#include "report.h"
#include "sleeps.h"
#include "termsafe.h"
#include "vmtab.h"

/* The traced host's CPUs: the header's count, or the CPUs the records name when more. */
static uint32_t host_cpus(const struct trace *t, const struct summary *s)
{
	return t->meta.nr_cpus > s->nr_cpus ? t->meta.nr_cpus : s->nr_cpus;
}

/* "sched_clock": how the scheduling events' stamps sit on the capture's clock (model.h R0),
 * null where every stamp read that clock itself. */
static void sched_clock_json(struct jbuf *b, const struct pwz_meta *m)
{
	const struct pwz_sched_clock *k = &m->sched_clock;

	jbuf_key(b, "sched_clock", false);
	if (!m->has_sched_clock) {
		jbuf_puts(b, "null");
		return;
	}
	jbuf_puts(b, "{");
	jbuf_key(b, "pairs", true);
	jbuf_u64(b, k->pairs);
	jbuf_key(b, "drift_ppb", false);
	jbuf_i64(b, k->drift_ppb);
	jbuf_member_u64(b, "residual_ns", k->residual_ns);
	jbuf_member_u64(b, "spread_ns", k->spread_ns);
	jbuf_member_u64(b, "stamped", k->stamped);
	jbuf_member_u64(b, "stale", k->stale);
	jbuf_member_u64(b, "late", k->late);
	jbuf_puts(b, "}");
}

static void capture_json(struct jbuf *b, const struct trace *t, const struct summary *s)
{
	const struct pwz_meta *m = &t->meta;

	jbuf_puts(b, "{");
	jbuf_key(b, "format", true);
	jbuf_puts(b, t->info.format == CDICT_FORMAT_LEGACY ? "\"legacy\"" : "\"v2\"");
	jbuf_key(b, "source", false);
	jbuf_json_str(b, pwz_source_name(m->source), (size_t)-1);
	jbuf_key(b, "path", false);
	jbuf_json_str(b, t->path, (size_t)-1);
	jbuf_member_str(b, "host", m->host);
	jbuf_member_str(b, "kernel", m->kernel);
	jbuf_member_str(b, "boot_id", m->boot_id);
	jbuf_member_str(b, "cmdline", m->cmdline);
	jbuf_member_u64(b, "nr_cpus", host_cpus(t, s));
	/* the start on the capture's clock (clock_id: 1 is CLOCK_MONOTONIC, null unknown) */
	jbuf_member_u64_or_null(b, "clock_id", (uint64_t)m->clock_id, m->clock_id >= 0);
	jbuf_member_u64_or_null(b, "start_mono_ns", m->start_mono_ns,
			   m->start_mono_ns != 0 || m->clock_id >= 0);
	jbuf_member_u64_or_null(b, "start_wall_ns", m->start_wall_ns, m->start_wall_ns != 0);
	jbuf_key(b, "trigger", false);	/* a flight recorder dump's (user/flight.h) */
	jbuf_str_or_null(b, m->trigger);
	jbuf_member_u64_or_null(b, "trigger_ns", m->trigger_ns, m->trigger != NULL);
	/* the thread whose wait or exit fired it (null: a signal, the end of the recording) */
	jbuf_member_u64_or_null(b, "trigger_tid", m->trigger_tid, m->trigger && m->trigger_tid);
	jbuf_key(b, "trigger_thread", false);
	jbuf_str_or_null(b, m->trigger && m->trigger_tid ? m->trigger_thread : NULL);
	jbuf_member_u64(b, "duration_ns", s->window_end_ns > m->duration_ns ? s->window_end_ns : m->duration_ns);
	jbuf_member_u64(b, "window_start_ns", s->window_start_ns);
	jbuf_member_u64(b, "window_end_ns", s->window_end_ns);
	jbuf_key(b, "cut", false);
	jbuf_puts(b, t->info.cut ? "true" : "false");
	jbuf_key(b, "drops", false);
	jbuf_puts(b, "{");
	for (uint32_t i = 0; i < m->nr_drops; i++) {
		jbuf_key(b, m->drops[i].name, i == 0);
		jbuf_u64(b, m->drops[i].value);
	}
	jbuf_puts(b, "}");
	jbuf_member_u64(b, "drops_total", pwz_meta_total_drops(m));
	jbuf_member_u64_or_null(b, "steal_ns", m->steal_ns, m->has_steal);
	jbuf_member_u64_or_null(b, "steal_cpu_time_ns", m->cpu_time_ns, m->has_steal);
	jbuf_member_u64_or_null(b, "tracer_cpu_ns", m->tracer_cpu_ns, m->tracer_cpu_ns != 0);
	sched_clock_json(b, m);
	jbuf_key(b, "has_switch_kind", false);
	jbuf_puts(b, m->has_switch_kind ? "true" : "false");
	jbuf_key(b, "has_wait", false);
	jbuf_puts(b, m->has_wait ? "true" : "false");
	jbuf_key(b, "has_kvm", false);
	jbuf_puts(b, m->has_kvm ? "true" : "false");
	jbuf_key(b, "has_irq", false);
	jbuf_puts(b, m->has_irq ? "true" : "false");
	jbuf_key(b, "has_run_delay", false);	/* tasks' run_delay_ns known */
	jbuf_puts(b, s->has_run_delay ? "true" : "false");
	jbuf_key(b, "threads", false);
	jbuf_puts(b, m->threads == PWZ_THREADS_ALL ? "\"all\"" :
		  m->threads == PWZ_THREADS_SELECTED ? "\"selected\"" : "null");
	jbuf_key(b, "figures", false);
	jbuf_puts(b, s->from_aggregates ? "\"aggregates\"" : "\"streams\"");
	jbuf_key(b, "saturated", false);	/* figures at 2^64-1 are sums held there */
	jbuf_puts(b, s->saturated ? "true" : "false");
	jbuf_key(b, "cpus", false);
	jbuf_puts(b, "[");
	for (uint32_t c = 0; c < s->nr_cpus; c++) {
		const struct summary_cpu *sc = &s->cpus[c];

		jbuf_puts(b, c ? ",{" : "{");
		jbuf_key(b, "cpu", true);
		jbuf_u64(b, c);
		jbuf_member_u64(b, "tasks_ns", sc->tasks_ns);
		jbuf_member_u64(b, "unseen_ns", sc->unseen_ns);
		jbuf_member_u64_or_null(b, "unaccounted_ns", sc->unaccounted_ns, sc->complete);
		jbuf_puts(b, "}");
	}
	jbuf_puts(b, "]}");
}

/* The wait percentiles of ts from its histogram: "wait_p50": {"lo_ns", "hi_ns"} (the closed
 * range of the bucket holding it, cut to the longest wait), p90, p99; null without one. */
static void wait_ranges_json(struct jbuf *b, const struct task_summary *ts)
{
	static const double qs[] = { 0.50, 0.90, 0.99 };
	static const char *const names[] = { "wait_p50", "wait_p90", "wait_p99" };
	uint64_t lo, hi;

	for (int i = 0; i < 3; i++) {
		jbuf_key(b, names[i], false);
		if (!summary_wait_range(ts, qs[i], &lo, &hi)) {
			jbuf_puts(b, "null");
			continue;
		}
		jbuf_printf(b, "{\"lo_ns\":%llu,\"hi_ns\":%llu}", (unsigned long long)lo,
			    (unsigned long long)hi);
	}
}

/* "sleep": {"S": {"count", "ns"}, "D": {...}, "other": {...}} (sleeps.h), null when the
 * capture does not report prev_state (or its slices are not loaded). */
static void sleep_json(struct jbuf *b, const struct sleeps *sl, const struct task_summary *ts)
{
	static const char *const names[SLEEP_NR] = { "S", "D", "other" };
	const struct sleep_row *r = sl ? sleeps__of(sl, ts->tid, ts->since_ns) : NULL;

	jbuf_key(b, "sleep", false);
	if (!sl) {
		jbuf_puts(b, "null");
		return;
	}
	jbuf_puts(b, "{");
	for (int c = 0; c < SLEEP_NR; c++) {
		jbuf_key(b, names[c], c == 0);
		jbuf_printf(b, "{\"count\":%llu,\"ns\":%llu}",
			    (unsigned long long)(r ? r->count[c] : 0),
			    (unsigned long long)(r ? r->ns[c] : 0));
	}
	jbuf_puts(b, "}");
}

static void task_json(struct jbuf *b, const struct summary *s, const struct task_summary *ts,
		      const struct vms *v, const struct sleeps *sl)
{
	jbuf_puts(b, "{");
	jbuf_key(b, "tid", true);
	jbuf_u64(b, ts->tid);
	jbuf_member_u64_or_null(b, "pid", ts->pid, ts->pid != 0 || ts->tid == 0);
	jbuf_member_u64_or_null(b, "born_ns", ts->since_ns, ts->since_ns != 0);
	jbuf_member_u64_or_null(b, "charged_ns", ts->charged_ns, s->has_charged);
	jbuf_member_u64_or_null(b, "charged_run_ns", ts->charged_run_ns, s->has_charged);
	jbuf_member_u64_or_null(b, "uncharged_ns", summary_uncharged_ns(ts), s->has_charged);
	jbuf_key(b, "name", false);
	jbuf_json_str(b, ts->name, (size_t)-1);
	jbuf_key(b, "comm", false);
	jbuf_json_str(b, ts->comm, (size_t)-1);
	jbuf_member_u64(b, "runtime_ns", ts->runtime_ns);
	jbuf_member_double(b, "cpu_pct", summary_cpu_pct(s, ts));
	jbuf_member_u64(b, "switches", ts->switches);
	jbuf_member_u64_or_null(b, "voluntary", ts->voluntary, s->has_switch_kind);
	jbuf_member_u64_or_null(b, "involuntary", ts->involuntary, s->has_switch_kind);
	jbuf_key(b, "cpus", false);
	jbuf_puts(b, "[");
	for (size_t i = 0; i < ts->nr_cpus; i++) {
		jbuf_puts(b, i ? ",{" : "{");
		jbuf_key(b, "cpu", true);
		jbuf_u64(b, ts->cpus[i].cpu);
		jbuf_member_u64(b, "runtime_ns", ts->cpus[i].runtime_ns);
		jbuf_member_u64(b, "switches", ts->cpus[i].switches);
		jbuf_puts(b, "}");
	}
	jbuf_puts(b, "]");
	jbuf_member_u64_or_null(b, "wait_ns", ts->wait_ns, s->has_wait);
	jbuf_member_u64_or_null(b, "wait_count", ts->wait_count, s->has_wait);
	jbuf_member_u64_or_null(b, "wait_max_ns", ts->wait_max_ns, s->has_wait);
	/* the kernel's charge of the waits (model.h R9), the wall time of the measured ones among
	 * them, and the charge of the others */
	jbuf_member_u64_or_null(b, "run_delay_ns", ts->run_delay_ns, s->has_run_delay);
	jbuf_member_u64_or_null(b, "run_delay_wait_ns", ts->run_delay_wait_ns, s->has_run_delay);
	jbuf_member_u64_or_null(b, "run_delay_unmeasured_ns", ts->run_delay_unmeasured_ns,
				s->has_run_delay);
	wait_ranges_json(b, ts);
	jbuf_key(b, "wait_pct", false);
	vms_wait_json(b, v ? vms__wait_pct(v, ts->tid, ts->since_ns) : NULL);
	{
		uint64_t mig = 0;
		bool known = vms__migrations(v, ts->tid, ts->since_ns, &mig);

		jbuf_member_u64_or_null(b, "migrations", mig, known);
	}
	sleep_json(b, sl, ts);
	jbuf_member_u64(b, "unseen_switch_ins", ts->unseen);
	jbuf_member_u64(b, "unseen_ns", ts->unseen_ns);
	jbuf_member_u64(b, "exits_total", ts->exits_total);
	jbuf_key(b, "kvm_exits", false);
	jbuf_puts(b, "[");
	for (size_t i = 0; i < ts->exits.n; i++) {
		const struct exitroll_entry *e = exitroll_at(&ts->exits, i);

		jbuf_puts(b, i ? ",{" : "{");
		jbuf_key(b, "isa", true);
		jbuf_puts(b, e->isa == PWZ_ISA_SVM ? "\"svm\"" : e->isa == PWZ_ISA_VMX ? "\"vmx\"" : "null");
		jbuf_member_u64(b, "code", e->code);
		jbuf_member_str(b, "name", e->name);
		jbuf_member_u64(b, "count", e->count);
		jbuf_member_u64(b, "handling_ns", e->handling_ns);
		jbuf_puts(b, "}");
	}
	jbuf_puts(b, "]}");
}

void list_json(struct jbuf *b, const struct trace *t, const struct summary *s,
	       const struct tasksel *sel)
{
	char err[128];
	struct vms *v = vms__new(t, s, err, sizeof(err));
	struct sleeps *sl = sleeps_known(t) ? sleeps__new(t, s->window_start_ns, s->window_end_ns) :
					      NULL;

	if ((!v || (!sl && sleeps_known(t))) && !b->err)
		b->err = -ENOMEM;
	jbuf_puts(b, "{");
	jbuf_key(b, "file", true);
	jbuf_json_str(b, t->path, (size_t)-1);
	jbuf_key(b, "capture", false);
	capture_json(b, t, s);
	jbuf_key(b, "tasks", false);
	jbuf_puts(b, "[\n");
	for (size_t i = 0; i < s->nr_tasks; i++) {
		if (i)
			jbuf_puts(b, ",\n");
		task_json(b, s, &s->tasks[i], v, sl);
	}
	jbuf_puts(b, "\n]");
	if (v) {
		jbuf_key(b, "vm_figures", false);
		vms_figures_json(b, v);
		jbuf_key(b, "vms", false);
		vms_json_array(b, v);
	}
	jbuf_puts(b, ",\n");
	irq_json_members(b, t, sel);	/* --irq: render/irqtab.h */
	jbuf_puts(b, "}");
	vms__free(v);
	sleeps__free(sl);
}

/* A line of report_ready_lines() or report_vcpu_state_lines() into the jbuf ctx. */
static void put_jbuf(void *ctx, const char *line)
{
	jbuf_puts(ctx, line);
}

/* The header line: what the file is, the capture's length, and the window's when it is not
 * the whole capture (-f/-c). */
static void plain_head(struct jbuf *b, const struct trace *t, const struct summary *s)
{
	const struct pwz_meta *m = &t->meta;
	uint64_t drops = pwz_meta_total_drops(m), unseen = 0, unseen_ns = 0;
	uint64_t len = s->window_end_ns > m->duration_ns ? s->window_end_ns : m->duration_ns;
	char safe[4 * 4096], d1[FMT_DURATION_MAX], d2[FMT_DURATION_MAX];

	jbuf_printf(b, "# %s: %s capture (%s), %u CPUs, %s", termsafe_str(safe, sizeof(safe), t->path),
		    pwz_source_name(m->source), t->info.format == CDICT_FORMAT_LEGACY ? "legacy" : "v2",
		    host_cpus(t, s), fmt_duration(d1, sizeof(d1), len));
	if (s->window_start_ns > 0 || s->window_end_ns < len)
		jbuf_printf(b, ", window from %s for %s",
			    fmt_duration(d1, sizeof(d1), s->window_start_ns),
			    fmt_duration(d2, sizeof(d2), s->window_end_ns - s->window_start_ns));
	if (m->host)
		jbuf_printf(b, ", host %s", termsafe_str(safe, sizeof(safe), m->host));
	if (drops)
		jbuf_printf(b, ", WARNING: %llu%s events dropped", (unsigned long long)drops,
			    pwz_sat_more(drops));
	if (s->saturated)
		jbuf_printf(b, ", WARNING: sums past 2^64-1 held at %llu (the file's figures add past it)",
			    (unsigned long long)PWZ_SATURATED);
	for (size_t i = 0; i < s->nr_tasks; i++) {
		unseen += s->tasks[i].unseen;
		unseen_ns += s->tasks[i].unseen_ns;
	}
	if (unseen)
		jbuf_printf(b, ", %llu switch-ins unseen (%s not attributed)",
			    (unsigned long long)unseen, fmt_duration(d1, sizeof(d1), unseen_ns));
	if (t->info.cut)
		jbuf_puts(b, ", WARNING: file cut short");
	jbuf_puts(b, "\n");
}

/* The VMs, worst first (user/lib/vms.h), and their vCPUs' states where the capture has their
 * ledgers (report_vcpu_state_lines()), after the tasks: "# " lines, so that the task table
 * stays the one table of the output for a script. Nothing without a VM. */
static void vms_plain(struct jbuf *b, const struct trace *t, const struct summary *s)
{
	char err[128], name[TERMSAFE_NAME_MAX], d[4][FMT_DURATION_MAX];
	struct vms *v = vms__new(t, s, err, sizeof(err));
	const struct vms_vm **order = v && v->nr_vms ? vms__worst_first(v) : NULL;

	if (!v || (v->nr_vms && !order)) {
		if (!b->err)
			b->err = -ENOMEM;
	} else if (v->nr_vms) {
		jbuf_puts(b, "# VMs, worst first: ready time in % of their vCPUs' lives in the window\n");
		jbuf_printf(b, "# %-24s %8s %5s %12s %12s %12s %7s %12s %9s\n", "VM", "PID", "VCPUS",
			    "ALIVE", "RUNNING", "READY", "READY%", "SLEEP", "EXITS");
	}
	for (size_t i = 0; order && i < v->nr_vms; i++) {
		const struct vms_vm *vm = order[i];

		jbuf_printf(b, "# %-24s %8u %5zu %12s %12s %12s %7.2f %12s %9llu\n",
			    termsafe_str(name, sizeof(name), vm->name), vm->pid, vm->nr_vcpus,
			    fmt_duration(d[0], sizeof(d[0]), vm->alive_ns),
			    fmt_duration(d[1], sizeof(d[1]), vm->running_ns),
			    fmt_duration(d[2], sizeof(d[2]), vm->ready_ns), vms_vm_ready_pct(vm),
			    fmt_duration(d[3], sizeof(d[3]), vm->sleep_ns),
			    (unsigned long long)vm->exits_total);
	}
	if (order)
		report_vcpu_state_lines(order, v->nr_vms, "# ", put_jbuf, b);
	free(order);
	vms__free(v);
}

void list_plain(struct jbuf *b, const struct trace *t, const struct summary *s,
		const struct tasksel *sel)
{
	plain_head(b, t, s);
	jbuf_printf(b, "%8s  %-32s %12s %7s %9s %9s %19s\n", "TID", "NAME", "RUNTIME", "CPU%",
		    "SWITCHES", "EXITS", "WAIT_P99");
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *ts = &s->tasks[i];
		char name[TERMSAFE_NAME_MAX], p99[FMT_DURATION_MAX], run[FMT_DURATION_MAX];
		uint64_t lo, hi;

		/* the bucket holding the p99 (render/list.h); "-" no wait, "n/a" no histogram */
		if (summary_wait_range(ts, 0.99, &lo, &hi))
			fmt_duration_range(p99, sizeof(p99), lo, hi);
		else
			snprintf(p99, sizeof(p99), "%s", s->has_wait && ts->wait_count ? "n/a" : "-");
		/* names come from the traced system */
		jbuf_printf(b, "%8u  %-32s %12s %7.2f %9llu %9llu %19s\n", ts->tid,
			    termsafe_str(name, sizeof(name), ts->name),
			    fmt_duration(run, sizeof(run), ts->runtime_ns), summary_cpu_pct(s, ts),
			    (unsigned long long)ts->switches, (unsigned long long)ts->exits_total, p99);
	}
	vms_plain(b, t, s);
	/* the threads whose two ready figures differ, the first 10 (user/lib/report.h) */
	report_ready_lines(s, 10, "# ", put_jbuf, b);
	irq_plain(b, t, sel, 10);	/* --irq: render/irqtab.h */
}
