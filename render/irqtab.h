/* SPDX-License-Identifier: GPL-2.0 */
/* --irq aggregates (user/lib/irq.h) as JSON and text: --list, --list --json, the dashboard. */
#ifndef PWZ_IRQTAB_H
#define PWZ_IRQTAB_H

#include <stddef.h>
#include "json.h"
#include "trace.h"

struct tasksel;

/*
 * Appends the members "irq": [...], "irq_threads": [...] (no leading comma), null both when
 * the capture was made without --irq (meta has_irq false: no IRQ data, which differs from an
 * empty array: none came):
 *   irq: per CPU and vector, in (cpu, kind, vector) order: {cpu, kind: "hard" | "soft",
 *     vector, name (null unknown), count, time_ns, max_ns, nested_ns}
 *   irq_threads: per thread instance, by time taken, largest first: {tid (null: the threads
 *     outside the capture's selection, pwz-bpf -t), born_ns, name, hard_count, hard_ns,
 *     soft_count, soft_ns}; with a selection sel (pwz-render -t; NULL: every thread) only
 *     its threads, while irq stays the per-CPU totals of every thread.
 * The figures are the whole capture's (kernel aggregates), whatever the window.
 */
void irq_json_members(struct jbuf *b, const struct trace *t, const struct tasksel *sel);

/* Appends the --list text section: one line per CPU and vector (every thread's), then the top
 * threads of sel (at most top); nothing without --irq. */
void irq_plain(struct jbuf *b, const struct trace *t, const struct tasksel *sel, size_t top);

/*
 * The basic dashboard's members, each followed by a comma:
 *   "irq": null | [[cpu, kind (0 hard, 1 soft), vector, name, count, time_ns, max_ns], ...],
 *   "irq_threads": null | [[tid (-1: not selected), name, hard_ns, soft_ns], ...] (at most
 *   top; the threads of sel as irq_json_members()). Returns 0 or -ENOMEM.
 */
int irq_dash_json(struct jbuf *b, const struct trace *t, const struct tasksel *sel, size_t top);

#endif /* PWZ_IRQTAB_H */
