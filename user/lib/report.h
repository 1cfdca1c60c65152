/* SPDX-License-Identifier: GPL-2.0 */
/* The --stats report: a capture's summary (user/lib/summary.h) as a text table. */
#ifndef PWZ_REPORT_H
#define PWZ_REPORT_H

#include <stdio.h>
#include "summary.h"

/*
 * Writes the report of s (a capture with metadata m) to f: a header (host, kernel, CPUs,
 * length, dropped records), one line per row of s in its order (runtime ms, % of one CPU,
 * switches, voluntary, involuntary, waits, average and maximum wait ms, and the time of slices
 * whose switch-in was unseen, model.h R2), each CPU's account of the window (threads, unseen,
 * unaccounted), then the KVM exits per task by count (share, total and average handling us,
 * median and p99 from the log2 histogram). Strings from the capture go through termsafe().
 * Returns 0, -ENOMEM, or -EIO
 * when f reports a write error.
 */
int report_write_stats(FILE *f, const struct summary *s, const struct pwz_meta *m);

#endif /* PWZ_REPORT_H */
