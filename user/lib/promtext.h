/* SPDX-License-Identifier: GPL-2.0 */
/* The Prometheus text exposition format 0.0.4: metric families written into a growing buffer. */
#ifndef PWZ_PROMTEXT_H
#define PWZ_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The Content-Type of what this module writes: the text format 0.0.4, or OpenMetrics 1.0.0
 * (struct promtext's openmetrics). */
#define PROMTEXT_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define PROMTEXT_OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/*
 * A page of families. Writing never stops half-way through a line: the first failure (out of
 * memory, a bad name) is kept in err and every later call does nothing, so that a caller writes
 * a whole page and checks once with promtext_error(). The text is buf[0 .. len), not
 * NUL-terminated.
 */
struct promtext {
	char *buf;		/* the page so far (malloc'd, owned) */
	size_t len;		/* bytes in buf */
	size_t cap;		/* bytes allocated */
	uint64_t series;	/* sample lines written */
	int err;		/* 0, or the first failure (-ENOMEM, -EINVAL) */
	bool openmetrics;	/* write OpenMetrics 1.0.0: a counter family is named without
				 * its samples' "_total", "untyped" is "unknown", quotes in
				 * HELP are escaped, and promtext_end() writes "# EOF" */
};

/*
 * Whether a request's Accept header (its value; NULL: none) asks for OpenMetrics over the text
 * format: application/openmetrics-text (version 1.0.0, or none given) with a q above 0 and no
 * lower than text/plain's (or than a wildcard's, where text/plain is not named), as Prometheus
 * asks ("application/openmetrics-text;version=1.0.0,...,text/plain;version=0.0.4;q=0.5,...").
 */
bool promtext_wants_openmetrics(const char *accept);

/* One label of a sample: its value is any bytes up to a NUL (escaped as the format says). A
 * label whose value is empty is left out of the line: the format reads it as absent. */
struct promtext_label {
	const char *name;	/* a label name: [a-zA-Z_][a-zA-Z0-9_]*, not starting "__" */
	const char *value;	/* the value ("" none) */
};

/* Starts an empty page (allocates nothing yet). */
void promtext_init(struct promtext *pt);

/* Frees the page's buffer and leaves pt empty. */
void promtext_release(struct promtext *pt);

/* Empties the page and clears err, keeping the buffer for the next page. */
void promtext_reset(struct promtext *pt);

/* 0, or the first failure of the calls since promtext_init() or promtext_reset(). */
int promtext_error(const struct promtext *pt);

/* Whether name is a metric name: [a-zA-Z_:][a-zA-Z0-9_:]*. */
bool promtext_metric_name_ok(const char *name);

/* Whether name is a label name: [a-zA-Z_][a-zA-Z0-9_]*, and not reserved (a leading "__"). */
bool promtext_label_name_ok(const char *name);

/*
 * Appends value to pt as the inside of a quoted label value: '\' as "\\", '"' as "\"", a
 * newline as "\n"; a byte that is not part of valid UTF-8 (the format is UTF-8; thread names
 * are any bytes) as '?'. Never fails but for memory (then pt's err).
 */
void promtext_escape_label(struct promtext *pt, const char *value);

/* Ends the page: "# EOF" in OpenMetrics, nothing in the text format. */
void promtext_end(struct promtext *pt);

/*
 * The "# HELP" and "# TYPE" lines of family name; type is "counter", "gauge", "histogram" or
 * "untyped". name is the samples' name: a counter's ends in "_total" (-EINVAL otherwise in
 * OpenMetrics, where the family is named without it); a histogram's is the family's, its
 * samples name_bucket (with an "le" label: promtext_seconds()), name_sum and name_count.
 * help: one line of text ('\' and newline escaped as the format says). Every sample of the
 * family must follow before the next family. -EINVAL in err for a bad name or type.
 */
void promtext_family(struct promtext *pt, const char *name, const char *type, const char *help);

/* ns as exact decimal seconds ("1.000000002"), in buf; returns buf. */
#define PROMTEXT_SECONDS_MAX 32
const char *promtext_seconds(char buf[PROMTEXT_SECONDS_MAX], uint64_t ns);

/*
 * One sample line: name{labels} value, its labels with an empty value left out (no braces when
 * none is left). labels may be NULL when nr is 0; label names are checked, and a NULL value is
 * refused (-EINVAL in err). The value forms:
 *   promtext_sample_ns()  - nanoseconds written as exact decimal seconds ("1.000000002");
 *   promtext_sample_u64() - an integer;
 *   promtext_sample_f()   - a double, "%.17g" (round-trips), "NaN", "+Inf", "-Inf".
 */
void promtext_sample_ns(struct promtext *pt, const char *name, const struct promtext_label *labels,
			size_t nr, uint64_t ns);
void promtext_sample_u64(struct promtext *pt, const char *name,
			 const struct promtext_label *labels, size_t nr, uint64_t v);
void promtext_sample_f(struct promtext *pt, const char *name, const struct promtext_label *labels,
		       size_t nr, double v);

#endif /* PWZ_PROMTEXT_H */
