/* SPDX-License-Identifier: GPL-2.0 */
/* The scheduler's clock of a live capture: the kernel's pairs of clocks, sampled and fitted. */
#ifndef PWZ_CAPTURE_CLOCK_H
#define PWZ_CAPTURE_CLOCK_H

#include "records.h"

/*
 * The programs stamp the scheduling events with each run queue's clock, mapped to
 * CLOCK_MONOTONIC by an offset per CPU that the switch program samples (bpf/pwz.h struct
 * sched_clk, model.h R0). This reads each CPU's latest pair (rq clock, CLOCK_MONOTONIC) from
 * the map, keeps the new ones in a fit per CPU (user/lib/clockfit.h), and sums the switches
 * that took the rq clock and those that read CLOCK_MONOTONIC instead.
 */
struct capture_clock;

/* For the array map map_fd of nr_cpus struct sched_clk. NULL: out of memory. */
struct capture_clock *capture_clock__new(int map_fd, int nr_cpus);

/* Takes each CPU's pair when it is new since the last call; at most once every
 * CAPTURE_CLOCK_PERIOD_NS unless final (the start and the end of a capture). */
void capture_clock__sample(struct capture_clock *k, bool final);

#define CAPTURE_CLOCK_PERIOD_NS 50000000ull

/* The fit and the counts so far into *out. */
void capture_clock__result(const struct capture_clock *k, struct pwz_sched_clock *out);

void capture_clock__free(struct capture_clock *k);

#endif /* PWZ_CAPTURE_CLOCK_H */
