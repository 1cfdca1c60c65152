// SPDX-License-Identifier: GPL-2.0
/* The VMs' figures as JSON: --list --json's "vms" and the basic dashboard's VMs tab. */
#include <errno.h>
#include "vmtab.h"

static double window_s(const struct vms *v)
{
	return (double)(v->window_end_ns - v->window_start_ns) / 1e9;
}

static void exit_json(struct jbuf *b, const struct vms *v, const struct vms_exit *e)
{
	const struct exitroll_entry *x = &e->ex;
	double span = window_s(v);
	bool st = v->has_streams;

	jbuf_puts(b, "{");
	jbuf_key(b, "isa", true);
	jbuf_puts(b, x->isa == PWZ_ISA_SVM ? "\"svm\"" :
		  x->isa == PWZ_ISA_VMX ? "\"vmx\"" : "null");
	jbuf_member_u64(b, "code", x->code);
	jbuf_member_str(b, "name", x->name);
	jbuf_member_u64(b, "count", x->count);
	jbuf_member_double(b, "per_s", span > 0 ? (double)x->count / span : 0.0);
	jbuf_member_u64_or_null(b, "paired", e->paired, st);
	jbuf_member_u64_or_null(b, "total_ns", x->handling_ns, st);
	jbuf_member_u64_or_null(b, "on_cpu_ns", e->on_cpu_ns, st);
	jbuf_member_u64_or_null(b, "off_sleep_ns", e->off_sleep_ns, st);
	jbuf_member_u64_or_null(b, "off_ready_ns", e->off_ready_ns, st);
	jbuf_member_u64_or_null(b, "p50_ns", e->p50_ns, st && e->paired);
	jbuf_member_u64_or_null(b, "p90_ns", e->p90_ns, st && e->paired);
	jbuf_member_u64_or_null(b, "p99_ns", e->p99_ns, st && e->paired);
	jbuf_member_u64_or_null(b, "max_ns", e->max_ns, st && e->paired);
	jbuf_puts(b, "}");
}

static void exits_json(struct jbuf *b, const struct vms *v, const struct exitroll *exits)
{
	jbuf_puts(b, "[");
	for (size_t i = 0; i < exits->n; i++) {
		if (i)
			jbuf_puts(b, ",");
		exit_json(b, v, vms_exit_at(exits, i));
	}
	jbuf_puts(b, "]");
}

/* The keys of the wait percentiles' ranges, by enum vms_wait_q. */
static const char *const wait_q_names[VMS_NR_WAIT_Q] = { "p50", "p90", "p99", "p999" };

void vms_wait_json(struct jbuf *b, const struct vms_wait_pct *p)
{
	if (!p) {
		jbuf_puts(b, "null");
		return;
	}
	jbuf_puts(b, "{");
	jbuf_key(b, "count", true);
	jbuf_u64(b, p->count);
	for (int q = 0; q < VMS_NR_WAIT_Q; q++) {
		jbuf_key(b, wait_q_names[q], false);
		jbuf_printf(b, "{\"lo_ns\":%llu,\"hi_ns\":%llu}", (unsigned long long)p->lo_ns[q],
			    (unsigned long long)p->hi_ns[q]);
	}
	/* the middle of each bucket, for the readers of older versions (docs/cdict.md) */
	jbuf_member_u64(b, "p50_ns", p->p50_ns);
	jbuf_member_u64(b, "p90_ns", p->p90_ns);
	jbuf_member_u64(b, "p99_ns", p->p99_ns);
	jbuf_member_u64(b, "p999_ns", p->p999_ns);
	jbuf_member_u64(b, "max_ns", p->max_ns);
	jbuf_puts(b, "}");
}

/* The member k: the q-quantile of a state's stretches as the range of the log2 bucket that
 * holds it, {"lo_ns", "hi_ns"} (hi_ns null for the last bucket, which has no top), or null
 * without stretches. */
static void stretch_pct_json(struct jbuf *b, const char *k, const uint64_t h[PWZ_HIST_BUCKETS],
			     double q)
{
	uint64_t lo, hi;

	jbuf_key(b, k, false);
	if (!pwz_hist_range(h, q, &lo, &hi)) {
		jbuf_puts(b, "null");
		return;
	}
	jbuf_printf(b, "{\"lo_ns\":%llu,\"hi_ns\":", (unsigned long long)lo);
	if (hi == UINT64_MAX)
		jbuf_puts(b, "null}");
	else
		jbuf_printf(b, "%llu}", (unsigned long long)hi);
}

/* With a ledger (has), the members "ledger_alive_ns", "states": {name: {"ns", "count",
 * "stretches" (its histogram's total), "p50", "p99"}} in the order of enum pwz_vcpu_state (the stretches' percentiles: stretch_pct_json()), "ready_causes": {name: ns} in the order of enum
 * pwz_ready_cause, and "costop_ns"; nothing without. */
static void ledger_json(struct jbuf *b, bool has, const struct pwz_vcpu_ledger *l)
{
	if (!has)
		return;
	jbuf_member_u64(b, "ledger_alive_ns", l->alive_ns);
	jbuf_key(b, "states", false);
	jbuf_puts(b, "{");
	for (unsigned int s = 0; s < PWZ_VCPU_STATES; s++) {
		jbuf_key(b, pwz_vcpu_state_name(s), s == 0);
		jbuf_printf(b, "{\"ns\":%llu,\"count\":%llu", (unsigned long long)l->ns[s],
			    (unsigned long long)l->count[s]);
		jbuf_member_u64(b, "stretches", pwz_hist_total(l->hist[s]));
		stretch_pct_json(b, "p50", l->hist[s], 0.5);
		stretch_pct_json(b, "p99", l->hist[s], 0.99);
		jbuf_puts(b, "}");
	}
	jbuf_puts(b, "}");
	jbuf_key(b, "ready_causes", false);
	jbuf_puts(b, "{");
	for (unsigned int c = 0; c < PWZ_READY_CAUSES; c++) {
		jbuf_key(b, pwz_ready_cause_name(c), c == 0);
		jbuf_u64(b, l->cause_ns[c]);
	}
	jbuf_puts(b, "}");
	jbuf_member_u64(b, "costop_ns", l->costop_ns);
}

static void vcpu_json(struct jbuf *b, const struct vms *v, const struct vms_vcpu *vc)
{
	uint64_t alive = vc->alive_ns;
	bool st = v->has_streams;

	jbuf_puts(b, "{");
	jbuf_key(b, "tid", true);
	jbuf_u64(b, vc->tid);
	jbuf_key(b, "vcpu", false);
	if (vc->vcpu >= 0)
		jbuf_u64(b, (uint64_t)vc->vcpu);
	else
		jbuf_puts(b, "null");
	jbuf_member_str(b, "name", vc->name);
	jbuf_member_u64(b, "alive_ns", alive);
	jbuf_member_u64(b, "running_ns", vc->running_ns);
	jbuf_member_u64(b, "ready_ns", vc->ready_ns);
	jbuf_member_double(b, "ready_pct", alive ? 100.0 * (double)vc->ready_ns / (double)alive : 0.0);
	jbuf_member_u64_or_null(b, "ready_kernel_ns", vc->ready_kernel_ns, vc->has_ready_kernel);
	jbuf_key(b, "ready_differs", false);
	jbuf_puts(b, vc->ready_differs ? "true" : "false");
	jbuf_member_u64(b, "sleep_ns", vc->sleep_ns);
	jbuf_member_u64(b, "unseen_ns", vc->unseen_ns);
	jbuf_member_u64_or_null(b, "uncharged_ns", vc->uncharged_ns, vc->has_uncharged);
	ledger_json(b, vc->has_ledger, &vc->ledger);
	jbuf_member_u64(b, "waits", vc->waits);
	jbuf_member_u64_or_null(b, "migrations", vc->migrations, st);
	jbuf_key(b, "wait_pct", false);
	vms_wait_json(b, st && vc->wait.count ? &vc->wait : NULL);
	jbuf_key(b, "preempters", false);
	if (!st) {
		jbuf_puts(b, "null");
	} else {
		jbuf_puts(b, "[");
		for (size_t i = 0; i < vc->nr_top; i++) {
			jbuf_puts(b, i ? ",{" : "{");
			jbuf_key(b, "tid", true);
			jbuf_u64(b, vc->top[i].tid);
			jbuf_member_str(b, "name", vc->top[i].name);
			jbuf_member_u64(b, "ns", vc->top[i].ns);
			jbuf_puts(b, "}");
		}
		jbuf_puts(b, "]");
	}
	jbuf_member_u64(b, "exits_total", vc->exits_total);
	jbuf_member_double(b, "exits_per_s", alive ? (double)vc->exits_total * 1e9 / (double)alive : 0.0);
	jbuf_key(b, "exits", false);
	exits_json(b, v, &vc->exits);
	jbuf_puts(b, "}");
}

void vms_json_array(struct jbuf *b, const struct vms *v)
{
	jbuf_puts(b, "[");
	for (size_t i = 0; i < v->nr_vms; i++) {
		const struct vms_vm *vm = &v->vms[i];

		jbuf_puts(b, i ? ",\n{" : "{");
		jbuf_key(b, "name", true);
		jbuf_json_str(b, vm->name, (size_t)-1);
		jbuf_member_u64(b, "pid", vm->pid);
		jbuf_member_str(b, "cgroup", vm->cgroup);
		jbuf_member_u64(b, "other_threads", vm->nr_other);
		jbuf_member_u64(b, "other_runtime_ns", vm->other_runtime_ns);
		jbuf_member_u64(b, "alive_ns", vm->alive_ns);
		jbuf_member_u64(b, "running_ns", vm->running_ns);
		jbuf_member_u64(b, "ready_ns", vm->ready_ns);
		jbuf_member_double(b, "ready_pct", vms_vm_ready_pct(vm));
		jbuf_member_u64(b, "sleep_ns", vm->sleep_ns);
		jbuf_member_u64_or_null(b, "uncharged_ns", vm->uncharged_ns, vm->has_uncharged);
		ledger_json(b, vm->has_ledger, &vm->ledger);
		jbuf_member_u64(b, "exits_total", vm->exits_total);
		jbuf_key(b, "exits", false);
		exits_json(b, v, &vm->exits);
		jbuf_key(b, "vcpus", false);
		jbuf_puts(b, "[");
		for (size_t k = 0; k < vm->nr_vcpus; k++) {
			if (k)
				jbuf_puts(b, ",");
			vcpu_json(b, v, &vm->vcpus[k]);
		}
		jbuf_puts(b, "]}");
	}
	jbuf_puts(b, "]");
}

void vms_figures_json(struct jbuf *b, const struct vms *v)
{
	jbuf_puts(b, "{");
	jbuf_key(b, "from", true);
	jbuf_puts(b, v->has_streams ? "\"streams\"" : "null");
	jbuf_key(b, "records_dropped", false);
	jbuf_puts(b, v->records_dropped ? "true" : "false");
	jbuf_puts(b, "}");
}

int vms_dash_json(struct jbuf *b, const struct trace *t, const struct summary *s)
{
	char err[128];
	struct vms *v = vms__new(t, s, err, sizeof(err));
	bool first = true;

	if (!v)
		return -ENOMEM;
	jbuf_puts(b, "\"vms\":");
	vms_json_array(b, v);
	jbuf_puts(b, ",\"vm_figures\":");
	vms_figures_json(b, v);
	jbuf_puts(b, ",\"waits\":[");
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task_summary *ts = &s->tasks[i];
		const struct vms_wait_pct *p = vms__wait_pct(v, ts->tid, ts->since_ns);

		if (!p)
			continue;
		if (!first)
			jbuf_puts(b, ",");
		first = false;
		jbuf_printf(b, "[%u,", ts->tid);
		jbuf_json_str(b, ts->name, (size_t)-1);
		jbuf_printf(b, ",%llu", (unsigned long long)p->count);
		for (int q = 0; q < VMS_NR_WAIT_Q; q++)
			jbuf_printf(b, ",[%llu,%llu]", (unsigned long long)p->lo_ns[q],
				    (unsigned long long)p->hi_ns[q]);
		jbuf_printf(b, ",%llu]", (unsigned long long)p->max_ns);
	}
	jbuf_puts(b, "],");
	vms__free(v);
	return b->err;
}
