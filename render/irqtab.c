// SPDX-License-Identifier: GPL-2.0
/* --irq aggregates (user/lib/irq.h) as JSON and text: --list, --list --json, the dashboard. */
#include <errno.h>
#include <stdlib.h>
#include "fmt.h"
#include "irq.h"
#include "irqtab.h"
#include "tasksel.h"
#include "termsafe.h"

static const char *thread_name(const struct trace *t, const struct irq_thread_row *r)
{
	const struct pwz_task *task;

	if (r->tid == PWZ_IRQ_OTHER_TID)
		return "(threads not selected)";
	task = trace__task_at(t, r->tid, r->since_ns);
	return task ? task->name : NULL;
}

/* The thread rows of sel (tasksel.h), in their order: with -t the threads outside the
 * capture's own selection (PWZ_IRQ_OTHER_TID) are not among them. Returns their number. */
static long keep_selected(const struct tasksel *sel, struct irq_thread_row *th, long nt)
{
	long k = 0;

	if (!sel)
		return nt;
	for (long i = 0; i < nt; i++)
		if (th[i].tid != PWZ_IRQ_OTHER_TID && tasksel_has(sel, th[i].tid, th[i].since_ns))
			th[k++] = th[i];
	return k;
}

/* Both row sets (the threads' those of sel), or -ENOMEM (b's error set). */
static int rows(struct jbuf *b, const struct trace *t, const struct tasksel *sel,
		struct irq_vector_row **v, long *nv, struct irq_thread_row **th, long *nt)
{
	*nv = irq_vector_rows(t->irq_aggs, t->nr_irq_aggs, v);
	*nt = *nv < 0 ? -ENOMEM : irq_thread_rows(t->irq_aggs, t->nr_irq_aggs, th);
	if (*nv >= 0 && *nt >= 0) {
		*nt = keep_selected(sel, *th, *nt);
		return 0;
	}
	free(*v);
	*v = NULL;
	*th = NULL;
	if (!b->err)
		b->err = -ENOMEM;
	return -ENOMEM;
}

void irq_json_members(struct jbuf *b, const struct trace *t, const struct tasksel *sel)
{
	struct irq_vector_row *v;
	struct irq_thread_row *th;
	long nv, nt;

	if (!t->meta.has_irq || rows(b, t, sel, &v, &nv, &th, &nt)) {
		jbuf_puts(b, "\"irq\":null,\"irq_threads\":null");
		return;
	}
	jbuf_puts(b, "\"irq\":[");
	for (long i = 0; i < nv; i++) {
		jbuf_puts(b, i ? ",\n{" : "\n{");
		jbuf_key(b, "cpu", true);
		jbuf_u64(b, v[i].cpu);
		jbuf_key(b, "kind", false);
		jbuf_puts(b, v[i].kind == PWZ_IRQ_KIND_HARD ? "\"hard\"" : "\"soft\"");
		jbuf_member_u64(b, "vector", v[i].vector);
		jbuf_member_str(b, "name", v[i].name);
		jbuf_member_u64(b, "count", v[i].count);
		jbuf_member_u64(b, "time_ns", v[i].time_ns);
		jbuf_member_u64(b, "max_ns", v[i].max_ns);
		jbuf_member_u64(b, "nested_ns", v[i].nested_ns);
		jbuf_puts(b, "}");
	}
	jbuf_puts(b, "],\"irq_threads\":[");
	for (long i = 0; i < nt; i++) {
		jbuf_puts(b, i ? ",\n{" : "\n{");
		jbuf_key(b, "tid", true);
		if (th[i].tid == PWZ_IRQ_OTHER_TID)
			jbuf_puts(b, "null");
		else
			jbuf_u64(b, th[i].tid);
		jbuf_key(b, "born_ns", false);
		if (th[i].since_ns)
			jbuf_u64(b, th[i].since_ns);
		else
			jbuf_puts(b, "null");
		jbuf_member_str(b, "name", thread_name(t, &th[i]));
		jbuf_member_u64(b, "hard_count", th[i].hard_count);
		jbuf_member_u64(b, "hard_ns", th[i].hard_ns);
		jbuf_member_u64(b, "soft_count", th[i].soft_count);
		jbuf_member_u64(b, "soft_ns", th[i].soft_ns);
		jbuf_puts(b, "}");
	}
	jbuf_puts(b, "]");
	free(v);
	free(th);
}

void irq_plain(struct jbuf *b, const struct trace *t, const struct tasksel *sel, size_t top)
{
	struct irq_vector_row *v;
	struct irq_thread_row *th;
	char name[TERMSAFE_NAME_MAX], d[2][FMT_DURATION_MAX];
	long nv, nt;

	if (!t->meta.has_irq || rows(b, t, sel, &v, &nv, &th, &nt))
		return;
	jbuf_printf(b, "\n# interrupts (--irq; a hard IRQ during a softirq counts in the hard IRQ only)%s\n",
		    sel ? ": per CPU of every thread, then the threads -t selects" : "");
	jbuf_printf(b, "%4s  %-4s %6s  %-24s %10s %12s %10s\n", "CPU", "KIND", "VECTOR", "NAME",
		    "COUNT", "TIME", "MAX");
	for (long i = 0; i < nv; i++)
		jbuf_printf(b, "%4u  %-4s %6u  %-24s %10llu %12s %10s\n", v[i].cpu,
			    v[i].kind == PWZ_IRQ_KIND_HARD ? "hard" : "soft", v[i].vector,
			    termsafe_str(name, sizeof(name), v[i].name ? v[i].name : "?"),
			    (unsigned long long)v[i].count, fmt_duration(d[0], sizeof(d[0]), v[i].time_ns),
			    fmt_duration(d[1], sizeof(d[1]), v[i].max_ns));
	if (nt)
		jbuf_printf(b, "%8s  %-32s %12s %12s\n", "TID", "INTERRUPTED", "HARD", "SOFT");
	for (long i = 0; i < nt && (size_t)i < top; i++) {
		const char *n = thread_name(t, &th[i]);

		if (th[i].tid == PWZ_IRQ_OTHER_TID)
			jbuf_printf(b, "%8s", "-");
		else
			jbuf_printf(b, "%8u", th[i].tid);
		jbuf_printf(b, "  %-32s %12s %12s\n", termsafe_str(name, sizeof(name), n ? n : "?"),
			    fmt_duration(d[0], sizeof(d[0]), th[i].hard_ns),
			    fmt_duration(d[1], sizeof(d[1]), th[i].soft_ns));
	}
	free(v);
	free(th);
}

int irq_dash_json(struct jbuf *b, const struct trace *t, const struct tasksel *sel, size_t top)
{
	struct irq_vector_row *v;
	struct irq_thread_row *th;
	long nv, nt;

	if (!t->meta.has_irq) {
		jbuf_puts(b, "\"irq\":null,\"irq_threads\":null,");
		return 0;
	}
	if (rows(b, t, sel, &v, &nv, &th, &nt))
		return -ENOMEM;
	jbuf_puts(b, "\"irq\":[");
	for (long i = 0; i < nv; i++) {
		jbuf_printf(b, "%s[%u,%u,%u,", i ? "," : "", v[i].cpu, v[i].kind, v[i].vector);
		jbuf_str_or_null(b, v[i].name);
		jbuf_printf(b, ",%llu,%llu,%llu]", (unsigned long long)v[i].count,
			    (unsigned long long)v[i].time_ns, (unsigned long long)v[i].max_ns);
	}
	jbuf_puts(b, "],\"irq_threads\":[");
	for (long i = 0; i < nt && (size_t)i < top; i++) {
		if (th[i].tid == PWZ_IRQ_OTHER_TID)
			jbuf_printf(b, "%s[-1,", i ? "," : "");
		else
			jbuf_printf(b, "%s[%u,", i ? "," : "", th[i].tid);
		jbuf_str_or_null(b, thread_name(t, &th[i]));
		jbuf_printf(b, ",%llu,%llu]", (unsigned long long)th[i].hard_ns,
			    (unsigned long long)th[i].soft_ns);
	}
	jbuf_puts(b, "],");
	free(v);
	free(th);
	return b->err;
}
