// SPDX-License-Identifier: GPL-2.0
/* The VMs of a live frame: which threads are vCPUs, and each VM's figures over an interval. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "live_vms.h"
#include "tasknames.h"

bool live_vcpu_of(const struct live_task *t, const char *proc_name, char *vm, size_t vmlen,
		  char *label, size_t labellen)
{
	char v[PWZ_NAME_MAX];
	unsigned int n;

	if (task_display_vcpu(t->name, v, sizeof(v), &n)) {
		snprintf(label, labellen, "%u", n);
	} else if (t->exits) {
		v[0] = '\0';
		snprintf(label, labellen, "tid%u", t->tid);
	} else {
		return false;
	}
	/* the process names the VM, else the thread itself */
	snprintf(vm, vmlen, "%s", v[0] ? v : proc_name ? proc_name : t->name);
	return true;
}

double live_vm_ready_pct(const struct live_vm *v, const struct live_frame *f)
{
	return v->vcpus && f->dt_ns ? v->wait_ns * 100.0 / ((double)f->dt_ns * v->vcpus) : 0;
}

double live_vm_ledger_pct(const struct live_vm *v, uint64_t ns, const struct live_frame *f)
{
	double pct;

	if (!v->ledger_vcpus || !f->dt_ns)
		return 0;
	pct = ns * 100.0 / ((double)f->dt_ns * v->ledger_vcpus);
	return pct < 100 ? pct : 100;
}

static const struct live_frame *g_frame;	/* for the qsort comparator */

/* Worst first: the highest mean ready %, then by name. */
static int vm_order(const void *a, const void *b)
{
	const struct live_vm *x = a, *y = b;
	double rx = live_vm_ready_pct(x, g_frame), ry = live_vm_ready_pct(y, g_frame);

	if (rx != ry)
		return rx > ry ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A VM being rolled up: its figures and its vCPUs' waits by bucket. */
struct vm_acc {
	struct live_vm v;
	uint64_t hist[PWZ_WHIST_BUCKETS];
	uint64_t max_ns;
	bool missed;			/* a vCPU with waits had no whole histogram */
};

/* The VMs being rolled up. */
struct accs {
	struct vm_acc *a;
	size_t n, cap;
};

/* The VM named vm in acc, added when new. NULL when out of memory. */
static struct vm_acc *acc_get(struct accs *acc, const char *vm, uint32_t tgid)
{
	struct vm_acc *a;

	for (size_t i = 0; i < acc->n; i++)
		if (!strcmp(acc->a[i].v.name, vm))
			return &acc->a[i];
	if (acc->n == acc->cap) {
		size_t cap = acc->cap ? 2 * acc->cap : 8;

		a = realloc(acc->a, cap * sizeof(*a));
		if (!a)
			return NULL;
		acc->a = a;
		acc->cap = cap;
	}
	a = &acc->a[acc->n++];
	memset(a, 0, sizeof(*a));
	snprintf(a->v.name, sizeof(a->v.name), "%s", vm);
	a->v.tgid = tgid;
	return a;
}

static void acc_vcpu(struct vm_acc *a, const struct live_task *t)
{
	a->v.vcpus++;
	a->v.run_ns += t->run_ns;
	a->v.wait_ns += t->wait_ns;
	a->v.waits += t->waits;
	a->v.exits += t->exits;
	for (int b = 0; b < PWZ_WHIST_BUCKETS; b++)
		a->hist[b] += t->wait_hist[b];
	if (t->wait_max_ns > a->max_ns)
		a->max_ns = t->wait_max_ns;
	if (t->waits && !t->has_wait_p99)
		a->missed = true;
	if (!t->has_ledger)
		return;
	a->v.ledger_vcpus++;
	for (int i = 0; i < PWZ_VCPU_STATES; i++)
		a->v.state_ns[i] += t->state_ns[i];
	a->v.costop_ns += t->costop_ns;
}

/* Rolls the vCPUs into acc (each task's vm an index in it), then the processes' other
 * threads. */
static int roll_up(struct live_frame *f, const char *(*proc_name)(void *ctx, uint32_t tgid),
		   void *ctx, struct accs *acc)
{
	char vm[PWZ_NAME_MAX], label[24];

	for (size_t i = 0; i < f->nr_tasks; i++) {
		struct live_task *t = &f->tasks[i];
		const char *proc = t->tgid && t->tgid != t->tid && proc_name ?
				   proc_name(ctx, t->tgid) : NULL;
		struct vm_acc *a;

		t->vm = -1;
		t->vcpu = false;
		if (!live_vcpu_of(t, proc, vm, sizeof(vm), label, sizeof(label)))
			continue;
		a = acc_get(acc, vm, t->tgid);
		if (!a)
			return -ENOMEM;
		acc_vcpu(a, t);
		t->vm = (int32_t)(a - acc->a);
		t->vcpu = true;
	}
	for (size_t i = 0; i < f->nr_tasks; i++) {
		struct live_task *t = &f->tasks[i];

		for (size_t k = 0; t->vm < 0 && t->tgid && k < acc->n; k++) {
			if (acc->a[k].v.tgid == t->tgid) {
				acc->a[k].v.emu_run_ns += t->run_ns;
				t->vm = (int32_t)k;
			}
		}
	}
	return 0;
}

int live_frame_vms(struct live_frame *f, const char *(*proc_name)(void *ctx, uint32_t tgid),
		   void *ctx)
{
	struct accs acc = { 0 };
	int32_t *to = NULL;
	int e;

	free(f->vms);
	f->vms = NULL;
	f->nr_vms = 0;
	e = roll_up(f, proc_name, ctx, &acc);
	if (e || !acc.n)
		goto out;
	f->vms = calloc(acc.n, sizeof(*f->vms));
	to = calloc(acc.n, sizeof(*to));
	if (!f->vms || !to) {
		e = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < acc.n; k++) {
		struct vm_acc *a = &acc.a[k];
		uint64_t waits = 0;

		for (int b = 0; b < PWZ_WHIST_BUCKETS; b++)
			waits += a->hist[b];
		a->v.has_wait_p99 = waits && !a->missed &&
				    pwz_whist_quantile(a->hist, 0.99, a->max_ns,
						       &a->v.wait_p99_lo_ns, &a->v.wait_p99_hi_ns);
		f->vms[k] = a->v;
	}
	/* worst first, each task's index following its VM (names are unique) */
	g_frame = f;
	qsort(f->vms, acc.n, sizeof(*f->vms), vm_order);
	for (size_t k = 0; k < acc.n; k++)
		for (size_t j = 0; j < acc.n; j++)
			if (!strcmp(f->vms[k].name, acc.a[j].v.name))
				to[j] = (int32_t)k;
	for (size_t i = 0; i < f->nr_tasks; i++)
		if (f->tasks[i].vm >= 0)
			f->tasks[i].vm = to[f->tasks[i].vm];
	f->nr_vms = acc.n;
out:
	if (e) {
		free(f->vms);
		f->vms = NULL;
	}
	free(to);
	free(acc.a);
	return e;
}
