/* SPDX-License-Identifier: GPL-2.0 */
/* perf.data tracing data (the tracepoint formats of the recording kernel) into libtraceevent. */
#ifndef PWZ_PERFDATA_TRACE_H
#define PWZ_PERFDATA_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

/*
 * Called for every event format of the tracing data, with sys and name as the format says and
 * its text. Returns 1 to have the format parsed into the tep, 0 to skip it (libtraceevent then
 * knows nothing of that event), or -errno to stop (the callback fills msg).
 */
typedef int (*pd_format_fn)(void *ctx, const char *sys, const char *name, const char *text,
			    size_t len, char *msg, size_t msglen);

/*
 * Parses a TRACING_DATA blob (feature section or pipe record; off is its file offset) into
 * tep: header page and the event formats fn asks for (ftrace's own formats are skipped); the
 * kallsyms, printk and cmdline parts that follow are not needed and not read. Returns 0, or
 * -EINVAL with msg filled as "offset N: tracing data: <what is wrong>" (bad magic, a length past
 * the end, big-endian data, a wanted format that libtraceevent cannot parse), or fn's error.
 */
int pd_tracing_data_parse(struct tep_handle *tep, const uint8_t *data, size_t len, uint64_t off,
			  pd_format_fn fn, void *ctx, char *msg, size_t msglen);

#endif /* PWZ_PERFDATA_TRACE_H */
