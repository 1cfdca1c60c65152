// SPDX-License-Identifier: GPL-2.0
/* Visitors that compose (struct cdict_visitor, cdict.h): the naming gate and the tee. */
#include <stddef.h>
#include "visit.h"

/* ---- the naming gate ---- */

/* e, kept in *g->err when it is the first failure */
static int gate_err(struct visit_gate *g, int e)
{
	if (e && g->err && !*g->err)
		*g->err = e;
	return e;
}

/* next's callback of kind f, called after name() for tid, when next has one */
#define GATE_PASS(g, f, tid, t, rec)						\
	do {									\
		int e_ = 0;							\
										\
		if (!(g)->next.f)						\
			return 0;						\
		if ((g)->name)							\
			e_ = (g)->name((g)->name_ctx, (tid), (t));		\
		if (!e_)							\
			e_ = (g)->next.f((g)->next.ctx, (rec));			\
		return gate_err((g), e_);					\
	} while (0)

static int gate_task(void *ctx, const struct pwz_task *t)
{
	struct visit_gate *g = ctx;

	return g->next.task ? gate_err(g, g->next.task(g->next.ctx, t)) : 0;
}

static int gate_slice(void *ctx, const struct pwz_slice *s)
{
	struct visit_gate *g = ctx;

	if (g->next.slice)
		g->slices++;
	GATE_PASS(g, slice, s->tid, s->start_ns, s);
}

static int gate_wakeup(void *ctx, const struct pwz_wakeup *w)
{
	struct visit_gate *g = ctx;

	if (g->next.wakeup)
		g->wakeups++;
	GATE_PASS(g, wakeup, w->tid, w->wake_ns, w);
}

static int gate_kvm_exit(void *ctx, const struct pwz_kvm_exit *x)
{
	struct visit_gate *g = ctx;

	if (g->next.kvm_exit)
		g->kvm_exits++;
	GATE_PASS(g, kvm_exit, x->tid, x->time_ns, x);
}

static int gate_cpu_agg(void *ctx, const struct pwz_cpu_agg *a)
{
	struct visit_gate *g = ctx;

	GATE_PASS(g, cpu_agg, a->tid, 0, a);
}

static int gate_kvm_agg(void *ctx, const struct pwz_kvm_agg *a)
{
	struct visit_gate *g = ctx;

	GATE_PASS(g, kvm_agg, a->tid, 0, a);
}

static int gate_wait_agg(void *ctx, const struct pwz_wait_agg *a)
{
	struct visit_gate *g = ctx;

	GATE_PASS(g, wait_agg, a->tid, 0, a);
}

static int gate_irq_agg(void *ctx, const struct pwz_irq_agg *a)
{
	struct visit_gate *g = ctx;

	if (a->tid == PWZ_IRQ_OTHER_TID)
		return g->next.irq_agg ? gate_err(g, g->next.irq_agg(g->next.ctx, a)) : 0;
	GATE_PASS(g, irq_agg, a->tid, 0, a);
}

static int gate_vcpu_ledger(void *ctx, const struct pwz_vcpu_ledger *l)
{
	struct visit_gate *g = ctx;

	GATE_PASS(g, vcpu_ledger, l->tid, 0, l);
}

struct cdict_visitor visit_gate__visitor(struct visit_gate *g)
{
	return (struct cdict_visitor){
		.ctx = g, .task = gate_task, .slice = gate_slice,
		.wakeup = gate_wakeup, .kvm_exit = gate_kvm_exit, .cpu_agg = gate_cpu_agg,
		.kvm_agg = gate_kvm_agg, .wait_agg = gate_wait_agg, .irq_agg = gate_irq_agg,
		.vcpu_ledger = gate_vcpu_ledger,
	};
}

/* ---- the tee ---- */

/* each side's callback of kind f, a first */
#define TEE_PASS(t, f, rec)							\
	do {									\
		int e_;								\
										\
		if ((t)->a.f && (e_ = (t)->a.f((t)->a.ctx, (rec))))		\
			return e_;						\
		return (t)->b.f ? (t)->b.f((t)->b.ctx, (rec)) : 0;		\
	} while (0)

static int tee_meta(void *ctx, const struct pwz_meta *m) { TEE_PASS((struct visit_tee *)ctx, meta, m); }
static int tee_task(void *ctx, const struct pwz_task *x) { TEE_PASS((struct visit_tee *)ctx, task, x); }
static int tee_slice(void *ctx, const struct pwz_slice *x) { TEE_PASS((struct visit_tee *)ctx, slice, x); }
static int tee_wakeup(void *ctx, const struct pwz_wakeup *x) { TEE_PASS((struct visit_tee *)ctx, wakeup, x); }
static int tee_kvm_exit(void *ctx, const struct pwz_kvm_exit *x) { TEE_PASS((struct visit_tee *)ctx, kvm_exit, x); }
static int tee_cpu_agg(void *ctx, const struct pwz_cpu_agg *x) { TEE_PASS((struct visit_tee *)ctx, cpu_agg, x); }
static int tee_kvm_agg(void *ctx, const struct pwz_kvm_agg *x) { TEE_PASS((struct visit_tee *)ctx, kvm_agg, x); }
static int tee_wait_agg(void *ctx, const struct pwz_wait_agg *x) { TEE_PASS((struct visit_tee *)ctx, wait_agg, x); }
static int tee_irq_agg(void *ctx, const struct pwz_irq_agg *x) { TEE_PASS((struct visit_tee *)ctx, irq_agg, x); }
static int tee_vcpu_ledger(void *ctx, const struct pwz_vcpu_ledger *x) { TEE_PASS((struct visit_tee *)ctx, vcpu_ledger, x); }

struct cdict_visitor visit_tee__visitor(struct visit_tee *t)
{
	return (struct cdict_visitor){
		.ctx = t, .meta = tee_meta, .task = tee_task, .slice = tee_slice, .wakeup = tee_wakeup,
		.kvm_exit = tee_kvm_exit, .cpu_agg = tee_cpu_agg, .kvm_agg = tee_kvm_agg,
		.wait_agg = tee_wait_agg, .irq_agg = tee_irq_agg, .vcpu_ledger = tee_vcpu_ledger,
	};
}
