// SPDX-License-Identifier: GPL-2.0
/* The scheduler's clock of a live capture (capture_clock.h). */
#include <stdlib.h>
#include <bpf/bpf.h>
#include "capture_clock.h"
#include "clockfit.h"
#include "monotime.h"
#include "../bpf/pwz.h"

struct capture_clock {
	int fd;
	int nr_cpus;
	uint64_t next_ns;		/* CLOCK_MONOTONIC of the next periodic sample */
	struct clockfit_cpu *fit;	/* one per CPU */
	uint64_t *seen;			/* each CPU's last sample fitted (its samples count) */
	uint64_t stamped, stale, late;	/* the kernel's counts at the last sample */
};

struct capture_clock *capture_clock__new(int map_fd, int nr_cpus)
{
	struct capture_clock *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->fd = map_fd;
	k->nr_cpus = nr_cpus;
	k->fit = calloc((size_t)nr_cpus, sizeof(*k->fit));
	k->seen = calloc((size_t)nr_cpus, sizeof(*k->seen));
	if (!k->fit || !k->seen) {
		capture_clock__free(k);
		return NULL;
	}
	return k;
}

/* CPU cpu's slot, read twice: a program may be writing it, and a pair read half before and
 * half after its update would be no pair. Returns whether two reads agreed. */
static bool read_slot(const struct capture_clock *k, uint32_t cpu, struct sched_clk *out)
{
	struct sched_clk again;

	for (int tries = 0; tries < 4; tries++) {
		if (bpf_map_lookup_elem(k->fd, &cpu, out) ||
		    bpf_map_lookup_elem(k->fd, &cpu, &again))
			return false;
		if (out->samples == again.samples && out->sync_rq == again.sync_rq &&
		    out->off == again.off)
			return true;
	}
	return false;
}

void capture_clock__sample(struct capture_clock *k, bool final)
{
	uint64_t now = pwz_mono_ns(), stamped = 0, stale = 0, late = 0;
	struct sched_clk s;

	if (!k || (!final && now < k->next_ns))
		return;
	k->next_ns = now + CAPTURE_CLOCK_PERIOD_NS;
	for (int cpu = 0; cpu < k->nr_cpus; cpu++) {
		if (!read_slot(k, (uint32_t)cpu, &s))
			continue;
		stamped += s.stamped;
		stale += s.stale;
		late += s.late;
		if (s.samples == k->seen[cpu])	/* none new (none at all: 0) */
			continue;
		k->seen[cpu] = s.samples;
		clockfit_add(&k->fit[cpu], s.sync_rq, s.sync_rq + s.off);
	}
	k->stamped = stamped;
	k->stale = stale;
	k->late = late;
}

void capture_clock__result(const struct capture_clock *k, struct pwz_sched_clock *out)
{
	clockfit_solve(k->fit, (uint32_t)k->nr_cpus, out);
	out->stamped = k->stamped;
	out->stale = k->stale;
	out->late = k->late;
}

void capture_clock__free(struct capture_clock *k)
{
	if (!k)
		return;
	free(k->fit);
	free(k->seen);
	free(k);
}
