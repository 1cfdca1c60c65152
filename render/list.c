// SPDX-License-Identifier: GPL-2.0
/* `pwz-render --list`: what is inside a capture, as a table or as one JSON document. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "irqtab.h"
#include "list.h"
#include "sleeps.h"
#include "termsafe.h"
#include "vmtab.h"

/* The traced host's CPUs: the header's count, or the CPUs the records name when more. */
static uint32_t host_cpus(const struct trace *t, const struct summary *s)
{
	return t->meta.nr_cpus > s->nr_cpus ? t->meta.nr_cpus : s->nr_cpus;
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
	jbuf_key(b, "has_switch_kind", false);
	jbuf_puts(b, m->has_switch_kind ? "true" : "false");
	jbuf_key(b, "has_wait", false);
	jbuf_puts(b, m->has_wait ? "true" : "false");
	jbuf_key(b, "has_kvm", false);
	jbuf_puts(b, m->has_kvm ? "true" : "false");
	jbuf_key(b, "has_irq", false);
	jbuf_puts(b, m->has_irq ? "true" : "false");
	jbuf_key(b, "threads", false);
	jbuf_puts(b, m->threads == PWZ_THREADS_ALL ? "\"all\"" :
		  m->threads == PWZ_THREADS_SELECTED ? "\"selected\"" : "null");
	jbuf_key(b, "figures", false);
	jbuf_puts(b, s->from_aggregates ? "\"aggregates\"" : "\"streams\"");
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
	for (size_t i = 0; i < ts->nr_exits; i++) {
		const struct summary_exit *e = &ts->exits[i];

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

void list_json(struct jbuf *b, const struct trace *t, const struct summary *s)
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
	irq_json_members(b, t);	/* --irq: render/irqtab.h */
	jbuf_puts(b, "}");
	vms__free(v);
	sleeps__free(sl);
}

void list_plain(struct jbuf *b, const struct trace *t, const struct summary *s)
{
	const struct pwz_meta *m = &t->meta;
	uint64_t drops = pwz_meta_total_drops(m);

	char safe[4 * 4096];

	jbuf_printf(b, "# %s: %s capture (%s), %u CPUs, %.3f s", termsafe_str(safe, sizeof(safe), t->path),
		    pwz_source_name(m->source), t->info.format == CDICT_FORMAT_LEGACY ? "legacy" : "v2",
		    host_cpus(t, s), (double)(s->window_end_ns - s->window_start_ns) / 1e9);
	if (m->host)
		jbuf_printf(b, ", host %s", termsafe_str(safe, sizeof(safe), m->host));
	if (drops)
		jbuf_printf(b, ", WARNING: %llu events dropped", (unsigned long long)drops);
	{
		uint64_t unseen = 0, unseen_ns = 0;

		for (size_t i = 0; i < s->nr_tasks; i++) {
			unseen += s->tasks[i].unseen;
			unseen_ns += s->tasks[i].unseen_ns;
		}
		if (unseen)
			jbuf_printf(b, ", %llu switch-ins unseen (%.3f ms not attributed)",
				    (unsigned long long)unseen, (double)unseen_ns / 1e6);
	}
	if (t->info.cut)
		jbuf_puts(b, ", WARNING: file cut short");
	jbuf_printf(b, "\n%8s  %-32s %12s %7s %9s %9s %19s\n", "TID", "NAME", "RUNTIME_MS", "CPU%",
		    "SWITCHES", "EXITS", "WAIT_P99_US");
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *ts = &s->tasks[i];
		char name[TERMSAFE_NAME_MAX], p99[32];
		uint64_t lo, hi;

		/* the bucket holding the p99 (render/list.h); "-" no wait, "n/a" no histogram */
		if (summary_wait_range(ts, 0.99, &lo, &hi))
			snprintf(p99, sizeof(p99), "%.1f-%.1f", (double)lo / 1e3, (double)hi / 1e3);
		else
			snprintf(p99, sizeof(p99), "%s", s->has_wait && ts->wait_count ? "n/a" : "-");
		/* names come from the traced system */
		jbuf_printf(b, "%8u  %-32s %12.3f %7.2f %9llu %9llu %19s\n", ts->tid,
			    termsafe_str(name, sizeof(name), ts->name),
			    (double)ts->runtime_ns / 1e6, summary_cpu_pct(s, ts),
			    (unsigned long long)ts->switches, (unsigned long long)ts->exits_total, p99);
	}
	irq_plain(b, t, 10);	/* --irq: render/irqtab.h */
}
