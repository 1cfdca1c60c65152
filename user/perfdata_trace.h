/* SPDX-License-Identifier: GPL-2.0 */
/* perf.data tracing data (the tracepoint formats of the recording kernel) into libtraceevent. */
#ifndef PWZ_PERFDATA_TRACE_H
#define PWZ_PERFDATA_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

/*
 * Called for every event format of the tracing data: sys and name as the format says, its
 * text, and whether libtraceevent parsed it (a format it cannot parse is not in the tep).
 * Returns 0 or -errno (stops the parse; the callback fills msg).
 */
typedef int (*pd_format_fn)(void *ctx, const char *sys, const char *name, const char *text,
			    size_t len, bool parsed, char *msg, size_t msglen);

/*
 * Parses a TRACING_DATA blob (feature section or pipe record; off is its file offset) into
 * tep: header page, ftrace and event formats; the kallsyms, printk and cmdline parts that
 * follow are not needed and not read. Returns 0, or -EINVAL with msg filled as "offset N:
 * <what is wrong>" (bad magic, a length past the end, big-endian data), or a callback's error.
 */
int pd_tracing_data_parse(struct tep_handle *tep, const uint8_t *data, size_t len, uint64_t off,
			  pd_format_fn fn, void *ctx, char *msg, size_t msglen);

#endif /* PWZ_PERFDATA_TRACE_H */
