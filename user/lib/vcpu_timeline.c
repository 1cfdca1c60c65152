// SPDX-License-Identifier: GPL-2.0
/* A vCPU thread's states over time, derived from its streams: its slices, waits and KVM exits. */
#include <stdbool.h>
#include <stddef.h>
#include "records.h"
#include "vcpu_timeline.h"

const char *vcpu_tl_state_name(unsigned int s)
{
	switch (s) {
	case VCPU_TL_GUEST:
		return pwz_vcpu_state_name(PWZ_VCPU_GUEST);
	case VCPU_TL_EXIT:
		return "exit";
	case VCPU_TL_OTHER_ON_CPU:
		return pwz_vcpu_state_name(PWZ_VCPU_OTHER_ON_CPU);
	case VCPU_TL_READY:
		return pwz_vcpu_state_name(PWZ_VCPU_READY);
	case VCPU_TL_HALT:
		return pwz_vcpu_state_name(PWZ_VCPU_HALT);
	default:
		return NULL;
	}
}

/* The kinds of interval the sweep follows, one cursor each. */
enum kind { K_SLICE, K_WAIT, K_GUEST, K_EXIT, K_KINDS };

struct sweep {
	const struct vcpu_tl_input *in;
	size_t at[K_KINDS];		/* each kind's first interval not known to end by now */
	uint64_t t;			/* now */
	uint64_t next;			/* the next time a followed kind starts or ends */
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* When exit e's guest time begins (its previous entry): its time when the guest time is unknown. */
static uint64_t entry_before(const struct vcpu_tl_exit *e)
{
	if (!e->guest_ns)
		return e->time_ns;
	return e->guest_ns <= e->time_ns ? e->time_ns - e->guest_ns : 0;
}

/* The interval i of kind k into [*from, *to) (maybe empty); false past the last. */
static bool interval(const struct vcpu_tl_input *in, enum kind k, size_t i, uint64_t *from,
		     uint64_t *to)
{
	const struct vcpu_tl_exit *e;

	switch (k) {
	case K_SLICE:
	case K_WAIT: {
		const struct vcpu_tl_span *s = k == K_SLICE ? in->slices : in->waits;

		if (i >= (k == K_SLICE ? in->nr_slices : in->nr_waits))
			return false;
		*from = s[i].from_ns;
		*to = s[i].to_ns;
		return true;
	}
	case K_GUEST:
		if (i >= in->nr_exits)
			return false;
		e = &in->exits[i];
		*from = entry_before(e);
		*to = e->time_ns;
		return true;
	default:
		if (i >= in->nr_exits)
			return false;
		e = &in->exits[i];
		*from = e->time_ns;
		if (e->handling_ns)
			*to = add_sat(e->time_ns, e->handling_ns);
		else	/* no entry followed: handled until the next exit's guest time */
			*to = i + 1 < in->nr_exits ? entry_before(e + 1) : UINT64_MAX;
		return true;
	}
}

/* Whether kind k covers now; the time it next starts or ends lowers sw->next. */
static bool covers(struct sweep *sw, enum kind k)
{
	uint64_t from, to;

	while (interval(sw->in, k, sw->at[k], &from, &to) && to <= sw->t)
		sw->at[k]++;
	if (!interval(sw->in, k, sw->at[k], &from, &to))
		return false;
	if (from <= sw->t) {
		if (to < sw->next)
			sw->next = to;
		return true;
	}
	if (from < sw->next)
		sw->next = from;
	return false;
}

/* The state at sw->t, with sw->next set to when it may change. */
static enum vcpu_tl_state state_now(struct sweep *sw)
{
	sw->next = sw->in->to_ns;
	if (covers(sw, K_SLICE)) {
		if (covers(sw, K_GUEST))
			return VCPU_TL_GUEST;
		return covers(sw, K_EXIT) ? VCPU_TL_EXIT : VCPU_TL_OTHER_ON_CPU;
	}
	return covers(sw, K_WAIT) ? VCPU_TL_READY : VCPU_TL_HALT;
}

int vcpu_tl_derive(const struct vcpu_tl_input *in, vcpu_tl_emit_fn emit, void *ctx)
{
	struct sweep sw = { .in = in, .t = in->from_ns };
	enum vcpu_tl_state cur = VCPU_TL_STATES;
	uint64_t since = in->from_ns;
	int ret;

	while (sw.t < in->to_ns) {
		enum vcpu_tl_state s = state_now(&sw);

		if (s != cur) {
			if (cur != VCPU_TL_STATES && (ret = emit(ctx, cur, since, sw.t)))
				return ret;
			cur = s;
			since = sw.t;
		}
		sw.t = sw.next;
	}
	if (cur != VCPU_TL_STATES)
		return emit(ctx, cur, since, in->to_ns);
	return 0;
}
