/* SPDX-License-Identifier: GPL-2.0 */
/* The time now on the clock every record of a live capture is on. */
#ifndef PWZ_MONOTIME_H
#define PWZ_MONOTIME_H

#include <stdint.h>

/* CLOCK_MONOTONIC now, in ns: the clock of bpf_ktime_get_ns() and of the programs' stamps
 * (bpf/pwz.h), so user space compares its own readings with theirs. */
uint64_t pwz_mono_ns(void);

#endif /* PWZ_MONOTIME_H */
