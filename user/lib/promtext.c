// SPDX-License-Identifier: GPL-2.0
/* The Prometheus text exposition format 0.0.4 and OpenMetrics 1.0.0: names checked, label values
 * escaped, samples. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "promtext.h"
#include "termsafe.h"

void promtext_init(struct promtext *pt)
{
	memset(pt, 0, sizeof(*pt));
}

void promtext_release(struct promtext *pt)
{
	free(pt->buf);
	promtext_init(pt);
}

void promtext_reset(struct promtext *pt)
{
	pt->len = 0;
	pt->series = 0;
	pt->err = 0;
}

int promtext_error(const struct promtext *pt)
{
	return pt->err;
}

static void fail(struct promtext *pt, int e)
{
	if (!pt->err)
		pt->err = e;
}

/* Room for n more bytes; false (err set) when memory runs out. */
static bool reserve(struct promtext *pt, size_t n)
{
	size_t want = pt->len + n, cap = pt->cap ? pt->cap : 4096;
	char *p;

	if (pt->err)
		return false;
	if (want <= pt->cap)
		return true;
	while (cap < want)
		cap *= 2;
	p = realloc(pt->buf, cap);
	if (!p) {
		fail(pt, -ENOMEM);
		return false;
	}
	pt->buf = p;
	pt->cap = cap;
	return true;
}

static void put(struct promtext *pt, const char *s, size_t n)
{
	if (!reserve(pt, n))
		return;
	memcpy(pt->buf + pt->len, s, n);
	pt->len += n;
}

static void puts_(struct promtext *pt, const char *s)
{
	put(pt, s, strlen(s));
}

static bool name_ok(const char *name, bool colon)
{
	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++) {
		char c = *p;
		bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
			     (colon && c == ':');

		if (!alpha && (p == name || c < '0' || c > '9'))
			return false;
	}
	return true;
}

bool promtext_metric_name_ok(const char *name)
{
	return name_ok(name, true);
}

bool promtext_label_name_ok(const char *name)
{
	return name_ok(name, false) && strncmp(name, "__", 2);
}

void promtext_escape_label(struct promtext *pt, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t n = strlen(value);

	for (size_t i = 0; i < n;) {
		size_t k;

		if (s[i] == '\\' || s[i] == '"') {
			put(pt, "\\", 1);
			put(pt, (const char *)s + i, 1);
			i++;
		} else if (s[i] == '\n') {
			put(pt, "\\n", 2);
			i++;
		} else if (s[i] < 0x80) {
			put(pt, (const char *)s + i, 1);
			i++;
		} else if ((k = termsafe_utf8_len(s + i, n - i))) {
			put(pt, (const char *)s + i, k);
			i += k;
		} else {
			put(pt, "?", 1);
			i++;
		}
	}
}

/* help with '\' and newline escaped (the format's HELP rule). */
static void escape_help(struct promtext *pt, const char *help)
{
	for (const char *p = help; *p; p++) {
		if (*p == '\\')
			put(pt, "\\\\", 2);
		else if (*p == '\n')
			put(pt, "\\n", 2);
		else if (*p == '"' && pt->openmetrics)
			put(pt, "\\\"", 2);
		else
			put(pt, p, 1);
	}
}

void promtext_family(struct promtext *pt, const char *name, const char *type, const char *help)
{
	size_t n = strlen(name);
	bool counter = !strcmp(type, "counter");

	if (!promtext_metric_name_ok(name) ||
	    (!counter && strcmp(type, "gauge") && strcmp(type, "untyped") &&
	     strcmp(type, "histogram")) ||
	    (counter && pt->openmetrics && (n <= 6 || strcmp(name + n - 6, "_total")))) {
		fail(pt, -EINVAL);
		return;
	}
	if (counter && pt->openmetrics)
		n -= 6;		/* the family of the samples NAME_total */
	puts_(pt, "# HELP ");
	put(pt, name, n);
	puts_(pt, " ");
	escape_help(pt, help);
	puts_(pt, "\n# TYPE ");
	put(pt, name, n);
	puts_(pt, " ");
	puts_(pt, pt->openmetrics && !strcmp(type, "untyped") ? "unknown" : type);
	puts_(pt, "\n");
}

void promtext_end(struct promtext *pt)
{
	if (pt->openmetrics)
		puts_(pt, "# EOF\n");
}

/* The q of one media range's parameters (";q=0.5"); 1 when not given. */
static double media_q(const char *params)
{
	const char *q = strstr(params, ";q=");

	if (!q)
		q = strstr(params, "; q=");
	return q ? strtod(strchr(q, '=') + 1, NULL) : 1.0;
}

bool promtext_wants_openmetrics(const char *accept)
{
	double om = -1, text = -1, any = -1;
	const char *p = accept;
	char r[256];

	while (p && *p) {
		size_t len = strcspn(p, ","), tlen;
		const char *t = p, *params;

		while (*t == ' ' || *t == '\t')
			t++;
		snprintf(r, sizeof(r), "%.*s", (int)(len - (size_t)(t - p)), t);	/* one range */
		tlen = strcspn(r, "; \t");
		params = r + tlen;
		if (tlen == 28 && !strncasecmp(r, "application/openmetrics-text", 28)) {
			const char *v = strstr(params, "version=");

			if (!v || !strncmp(v + 8, "1.0.0", 5))
				om = fmax(om, media_q(params));
		} else if (tlen == 10 && !strncasecmp(r, "text/plain", 10)) {
			text = fmax(text, media_q(params));
		} else if ((tlen == 3 && !strncmp(r, "*/*", 3)) || (tlen == 6 && !strncasecmp(r, "text/*", 6))) {
			any = fmax(any, media_q(params));
		}
		p += len + (p[len] == ',');
	}
	if (text < 0)
		text = any;
	return om > 0 && om >= text;
}

/* "name{a="x",b="y"} " (labels with an empty value left out) */
static void sample_head(struct promtext *pt, const char *name, const struct promtext_label *l,
			size_t nr)
{
	size_t shown = 0;

	if (!promtext_metric_name_ok(name)) {
		fail(pt, -EINVAL);
		return;
	}
	for (size_t i = 0; i < nr; i++) {
		if (!promtext_label_name_ok(l[i].name) || !l[i].value) {
			fail(pt, -EINVAL);
			return;
		}
	}
	puts_(pt, name);
	for (size_t i = 0; i < nr; i++) {
		if (!*l[i].value)
			continue;	/* absent to the format */
		puts_(pt, shown++ ? "," : "{");
		puts_(pt, l[i].name);
		puts_(pt, "=\"");
		promtext_escape_label(pt, l[i].value);
		puts_(pt, "\"");
	}
	puts_(pt, shown ? "} " : " ");
}

static void sample_tail(struct promtext *pt, const char *value)
{
	puts_(pt, value);
	puts_(pt, "\n");
	if (!pt->err)
		pt->series++;
}

const char *promtext_seconds(char buf[PROMTEXT_SECONDS_MAX], uint64_t ns)
{
	snprintf(buf, PROMTEXT_SECONDS_MAX, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u,
		 ns % 1000000000u);
	return buf;
}

void promtext_sample_ns(struct promtext *pt, const char *name, const struct promtext_label *labels,
			size_t nr, uint64_t ns)
{
	char v[PROMTEXT_SECONDS_MAX];

	sample_head(pt, name, labels, nr);
	sample_tail(pt, promtext_seconds(v, ns));
}

void promtext_sample_u64(struct promtext *pt, const char *name,
			 const struct promtext_label *labels, size_t nr, uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%" PRIu64, v);
	sample_head(pt, name, labels, nr);
	sample_tail(pt, s);
}

void promtext_sample_f(struct promtext *pt, const char *name, const struct promtext_label *labels,
		       size_t nr, double v)
{
	char s[40];

	if (isnan(v))
		snprintf(s, sizeof(s), "NaN");
	else if (isinf(v))
		snprintf(s, sizeof(s), "%s", v > 0 ? "+Inf" : "-Inf");
	else
		snprintf(s, sizeof(s), "%.17g", v);
	sample_head(pt, name, labels, nr);
	sample_tail(pt, s);
}
