// SPDX-License-Identifier: GPL-2.0
/* Helpers of the content model: metadata ownership, drop counters, log2 histograms. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "records.h"
#include "../../bpf/log2.h"

void pwz_meta_free(struct pwz_meta *meta)
{
	if (!meta)
		return;
	free(meta->host);
	free(meta->kernel);
	free(meta->boot_id);
	free(meta->cmdline);
	free(meta->options);
	free(meta->tool_version);
	free(meta->trigger);
	free(meta->trigger_thread);
	free(meta->topo);
	free(meta->exit_names);
	memset(meta, 0, sizeof(*meta));
}

void pwz_meta_trigger_text(const struct pwz_meta *meta, char *out, size_t outlen)
{
	if (!outlen)
		return;
	if (!meta->trigger)
		out[0] = '\0';
	else if (meta->trigger_tid)
		snprintf(out, outlen, "%s of thread %s (tid %u)", meta->trigger,
			 meta->trigger_thread ? meta->trigger_thread : "?", meta->trigger_tid);
	else
		snprintf(out, outlen, "%s", meta->trigger);
}

int pwz_meta_set_str(char **field, const char *value)
{
	char *copy = NULL;

	if (value) {
		copy = strdup(value);
		if (!copy)
			return -ENOMEM;
	}
	free(*field);
	*field = copy;
	return 0;
}

static void *dup_mem(const void *src, size_t len)
{
	void *p;

	if (!src || !len)
		return NULL;
	p = malloc(len);
	if (p)
		memcpy(p, src, len);
	return p;
}

int pwz_meta_copy(struct pwz_meta *dst, const struct pwz_meta *src)
{
	*dst = *src;
	dst->host = dst->kernel = dst->boot_id = dst->cmdline = dst->options = NULL;
	dst->tool_version = NULL;
	dst->trigger = dst->trigger_thread = NULL;
	dst->topo = NULL;
	dst->exit_names = NULL;
	if (pwz_meta_set_str(&dst->host, src->host) ||
	    pwz_meta_set_str(&dst->kernel, src->kernel) ||
	    pwz_meta_set_str(&dst->boot_id, src->boot_id) ||
	    pwz_meta_set_str(&dst->cmdline, src->cmdline) ||
	    pwz_meta_set_str(&dst->options, src->options) ||
	    pwz_meta_set_str(&dst->tool_version, src->tool_version) ||
	    pwz_meta_set_str(&dst->trigger, src->trigger) ||
	    pwz_meta_set_str(&dst->trigger_thread, src->trigger_thread))
		goto nomem;
	if (src->topo && src->nr_cpus) {
		dst->topo = dup_mem(src->topo, src->nr_cpus * sizeof(*src->topo));
		if (!dst->topo)
			goto nomem;
	}
	if (src->exit_names && src->nr_exit_names) {
		dst->exit_names = dup_mem(src->exit_names,
					  src->nr_exit_names * sizeof(*src->exit_names));
		if (!dst->exit_names)
			goto nomem;
	}
	return 0;
nomem:
	pwz_meta_free(dst);
	return -ENOMEM;
}

int pwz_meta_add_drop(struct pwz_meta *meta, const char *name, uint64_t value)
{
	uint32_t i;

	for (i = 0; i < meta->nr_drops; i++) {
		if (!strncmp(meta->drops[i].name, name, sizeof(meta->drops[i].name) - 1)) {
			pwz_add_sat(&meta->drops[i].value, value);
			return 0;
		}
	}
	if (meta->nr_drops >= PWZ_MAX_DROPS)
		return -ENOSPC;
	snprintf(meta->drops[i].name, sizeof(meta->drops[i].name), "%s", name);
	meta->drops[i].value = value;
	meta->nr_drops++;
	return 0;
}

uint64_t pwz_meta_total_drops(const struct pwz_meta *meta)
{
	uint64_t sum = 0;

	/* files of pwz before the content model counted unseen switch-ins (model.h R2) here:
	 * they lose nothing, and are no drop */
	for (uint32_t i = 0; i < meta->nr_drops; i++)
		if (strcmp(meta->drops[i].name, "unpaired_switch"))
			pwz_add_sat(&sum, meta->drops[i].value);
	return sum;
}

/* Where (isa, code) is or would go in meta's table, kept sorted by (isa, code). */
static uint32_t exit_name_pos(const struct pwz_meta *meta, uint32_t isa, uint32_t code)
{
	uint32_t lo = 0, hi = meta->nr_exit_names;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct pwz_exit_name *e = &meta->exit_names[mid];

		if (e->isa < isa || (e->isa == isa && e->code < code))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pwz_meta_add_exit_name(struct pwz_meta *meta, uint32_t isa, uint32_t code, const char *name)
{
	uint32_t at = exit_name_pos(meta, isa, code);
	struct pwz_exit_name *names, *e;

	if (at < meta->nr_exit_names && meta->exit_names[at].isa == isa &&
	    meta->exit_names[at].code == code) {
		e = &meta->exit_names[at];
		snprintf(e->name, sizeof(e->name), "%s", name);
		return 0;
	}
	if (meta->nr_exit_names >= PWZ_MAX_EXIT_NAMES)
		return -E2BIG;
	names = realloc(meta->exit_names, (meta->nr_exit_names + 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	meta->exit_names = names;
	memmove(&names[at + 1], &names[at], (meta->nr_exit_names - at) * sizeof(*names));
	meta->nr_exit_names++;
	e = &names[at];
	e->isa = isa;
	e->code = code;
	snprintf(e->name, sizeof(e->name), "%s", name);
	return 0;
}

const char *pwz_meta_exit_name(const struct pwz_meta *meta, uint32_t isa, uint32_t code)
{
	uint32_t at = exit_name_pos(meta, isa, code);

	if (at < meta->nr_exit_names && meta->exit_names[at].isa == isa &&
	    meta->exit_names[at].code == code)
		return meta->exit_names[at].name;
	return NULL;
}

const char *pwz_source_name(uint32_t source)
{
	switch (source) {
	case PWZ_SOURCE_LIVE:
		return "live";
	case PWZ_SOURCE_PERF_DATA:
		return "perf.data";
	case PWZ_SOURCE_LEGACY:
		return "legacy";
	case PWZ_SOURCE_SYNTHETIC:
		return "synthetic";
	}
	return "unknown";
}

uint32_t pwz_state_of_end(uint32_t end)
{
	switch (end) {
	case PWZ_END_PREEMPTED:
		return PWZ_STATE_PREEMPTED;
	case PWZ_END_SLEPT:
		return PWZ_STATE_SLEEPING;
	case PWZ_END_EXITED:
		return PWZ_STATE_DEAD;
	default:
		return PWZ_STATE_RUNNING;
	}
}

uint32_t pwz_slice_state(const struct pwz_slice *s)
{
	return s->flags & PWZ_SLICE_STATE ? s->prev_state : pwz_state_of_end(s->end);
}

unsigned int pwz_hist_bucket(uint64_t v)
{
	unsigned int b = pwz_log2(v);

	return b < PWZ_HIST_BUCKETS ? b : PWZ_HIST_BUCKETS - 1;
}

uint64_t pwz_hist_total(const uint64_t hist[PWZ_HIST_BUCKETS])
{
	uint64_t total = 0;

	for (int i = 0; i < PWZ_HIST_BUCKETS; i++)
		total += hist[i];
	return total;
}

uint64_t pwz_hist_quantile(const uint64_t hist[PWZ_HIST_BUCKETS], double q)
{
	uint64_t total = pwz_hist_total(hist), seen = 0, rank;

	if (!total)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	rank = (uint64_t)ceil(q * (double)total);
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < PWZ_HIST_BUCKETS; i++) {
		seen += hist[i];
		if (seen >= rank) {
			if (i == 0)
				return 1;
			/* bucket i holds [2^i, 2^(i+1)): its geometric middle */
			return (uint64_t)ldexp(M_SQRT2, i);
		}
	}
	return 0;
}

bool pwz_hist_range(const uint64_t hist[PWZ_HIST_BUCKETS], double q, uint64_t *lo, uint64_t *hi)
{
	uint64_t total = pwz_hist_total(hist), seen = 0, rank;
	int i;

	*lo = *hi = 0;
	if (!total)
		return false;
	rank = (uint64_t)ceil((q > 1 ? 1 : q) * (double)total);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < PWZ_HIST_BUCKETS - 1; i++) {
		seen += hist[i];
		if (seen >= rank)
			break;
	}
	*lo = i ? 1ull << i : 0;
	*hi = i == PWZ_HIST_BUCKETS - 1 ? UINT64_MAX : (2ull << i) - 1;
	return true;
}

const char *pwz_vcpu_state_name(unsigned int s)
{
	static const char *const names[PWZ_VCPU_STATES] = {
		[PWZ_VCPU_GUEST] = "guest",
		[PWZ_VCPU_EXIT_KERNEL] = "exit_kernel",
		[PWZ_VCPU_EXIT_USER] = "exit_user",
		[PWZ_VCPU_HALT_POLL] = "halt_poll",
		[PWZ_VCPU_HALT] = "halt",
		[PWZ_VCPU_READY] = "ready",
		[PWZ_VCPU_OTHER_ON_CPU] = "other_on_cpu",
		[PWZ_VCPU_UNSEEN] = "unseen",
	};

	return s < PWZ_VCPU_STATES ? names[s] : NULL;
}

const char *pwz_ready_cause_name(unsigned int c)
{
	static const char *const names[PWZ_READY_CAUSES] = {
		[PWZ_CAUSE_SAME_VM_VCPU] = "same_vm_vcpu",
		[PWZ_CAUSE_SAME_VM_VMM] = "same_vm_vmm",
		[PWZ_CAUSE_OTHER_VM] = "other_vm",
		[PWZ_CAUSE_HOST] = "host",
		[PWZ_CAUSE_IDLE] = "idle",
		[PWZ_CAUSE_UNSEEN] = "unseen",
		[PWZ_CAUSE_IRQ] = "irq",
	};

	return c < PWZ_READY_CAUSES ? names[c] : NULL;
}

void pwz_vcpu_ledger_add(struct pwz_vcpu_ledger *acc, const struct pwz_vcpu_ledger *l)
{
	pwz_add_sat(&acc->alive_ns, l->alive_ns);
	for (int s = 0; s < PWZ_VCPU_STATES; s++) {
		pwz_add_sat(&acc->ns[s], l->ns[s]);
		pwz_add_sat(&acc->count[s], l->count[s]);
	}
	for (int c = 0; c < PWZ_READY_CAUSES; c++)
		pwz_add_sat(&acc->cause_ns[c], l->cause_ns[c]);
	pwz_add_sat(&acc->costop_ns, l->costop_ns);
	if (!acc->has_vcpu && l->has_vcpu) {
		acc->has_vcpu = true;
		acc->vcpu = l->vcpu;
	}
	for (int s = 0; s < PWZ_VCPU_STATES; s++)
		for (int b = 0; b < PWZ_HIST_BUCKETS; b++)
			pwz_add_sat(&acc->hist[s][b], l->hist[s][b]);
}

void pwz_vcpu_ledger_close(struct pwz_vcpu_ledger *l, unsigned int state, uint64_t open_ns,
			   bool final)
{
	if (state < PWZ_VCPU_STATES)
		l->ns[state] += open_ns;
	if (final && state == PWZ_VCPU_READY)
		l->cause_ns[PWZ_CAUSE_UNSEEN] += open_ns;
	l->alive_ns = 0;
	for (int s = 0; s < PWZ_VCPU_STATES; s++)
		l->alive_ns += l->ns[s];
}

bool pwz_wait_agg_has_hist(const struct pwz_wait_agg *a)
{
	uint64_t n = 0;

	for (int i = 0; i < PWZ_WHIST_BUCKETS; i++)
		n += a->hist[i];
	return n > 0 && n >= a->count;
}

bool pwz_whist_quantile(const uint64_t h[PWZ_WHIST_BUCKETS], double q, uint64_t max_ns,
			uint64_t *lo, uint64_t *hi)
{
	uint64_t total = 0, seen = 0, rank, top;
	uint32_t b;

	*lo = *hi = 0;
	for (b = 0; b < PWZ_WHIST_BUCKETS; b++)
		total += h[b];
	if (!total)
		return false;
	rank = (uint64_t)ceil(q * (double)total);
	if (rank < 1)
		rank = 1;
	if (rank > total)
		rank = total;
	for (b = 0; b < PWZ_WHIST_BUCKETS - 1; b++) {
		seen += h[b];
		if (seen >= rank)
			break;
	}
	*lo = pwz_whist_lower(b);
	top = pwz_whist_upper(b);
	*hi = top ? top - 1 : UINT64_MAX;
	if (*hi > max_ns)
		*hi = max_ns;
	if (*lo > *hi)		/* a max below its bucket: the histogram and max disagree */
		*lo = *hi;
	return true;
}
