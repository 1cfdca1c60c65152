/* SPDX-License-Identifier: GPL-2.0 */
/* How every text output writes a duration: one unit rule, one number of digits. */
#ifndef PWZ_FMT_H
#define PWZ_FMT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The rule, for every duration pwz-bpf and pwz-render print as text (--list, --stats, --live,
 * their messages); the dashboards' fmtNs() and fmtRange() (render/assets/dash.js) follow it:
 * - the unit is the largest of ns, us, ms, s in which the value, once rounded, is at least 1:
 *   999 ns, 1.00 us, 999 us, 1.00 ms, 59.9 s; 999.6 us is 1.00 ms, never 1000 us;
 * - three significant digits, trailing zeros kept (they are digits): 1.05 ms, 10.5 ms, 105 ms;
 *   whole nanoseconds below 1 us, whole seconds from 1000 s (3600 s);
 * - rounded to the nearest, halves up, in integer arithmetic on the nanoseconds (exact);
 * - written "<number> <unit>", the unit "us" for microseconds (ASCII, for any terminal and
 *   log; the pages write "µs").
 * A range [lo, hi] (a histogram bucket; both ends inclusive) is written "<lo>-<hi> <unit>" in
 * the unit of hi, hi to three significant digits and lo to as many decimals: "134-168 ms",
 * "0.92-1.05 ms". When the two ends would read the same (a bucket cut to the longest value),
 * decimals are added until they differ or reach the nanosecond; lo == hi is written as one
 * duration; hi == UINT64_MAX (a bucket with no top) as ">=<lo> <unit>".
 * A table header names no unit over such values: each value carries its own. Not by this rule:
 * a value a user gave in an option's own unit, echoed in it to compare with a limit (-f and -c
 * in milliseconds, summary.c's window errors), and benchmark figures read by tools (-v's BPF
 * run time in ns).
 */

/* Room for any result of the two functions below, NUL included. */
#define FMT_DURATION_MAX 64

/* ns as text into buf (size bytes, cut to fit, always NUL-terminated when size > 0);
 * returns buf, for printf arguments. Never fails. */
const char *fmt_duration(char *buf, size_t size, uint64_t ns);

/* The average total_ns / count, rounded to the nearest nanosecond, as fmt_duration(); "-" when
 * count is 0 (no average). Returns buf. */
const char *fmt_duration_avg(char *buf, size_t size, uint64_t total_ns, uint64_t count);

/* The closed range [lo, hi] ns as text into buf, as fmt_duration(); lo > hi is taken as
 * [hi, lo]. Returns buf. */
const char *fmt_duration_range(char *buf, size_t size, uint64_t lo, uint64_t hi);

#endif /* PWZ_FMT_H */
