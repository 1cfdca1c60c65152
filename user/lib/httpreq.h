/* SPDX-License-Identifier: GPL-2.0 */
/* The one HTTP request --serve understands, read from the bytes a client sent so far. */
#ifndef PWZ_HTTPREQ_H
#define PWZ_HTTPREQ_H

#include <stdbool.h>
#include <stddef.h>

/* What a request asks. */
struct httpreq {
	int status;		/* 200 (GET or HEAD of /metrics, a query string allowed), 400 (no
				 * "METHOD TARGET HTTP/1.x" line), 404 (another path), 405
				 * (another method), 431 (no end of headers within the buffer) */
	bool head;		/* HEAD: the answer has no body (any status but 431) */
	bool openmetrics;	/* a 200 whose Accept header prefers OpenMetrics
				 * (promtext_wants_openmetrics()) */
};

/*
 * The request in in[0 .. len) (NUL-terminated at in[len]; a NUL inside ends what is read), a
 * buffer of cap bytes (len < cap). Returns false while the request may still grow: no blank
 * line ends its headers yet and the buffer has room; else fills r and returns true.
 */
bool httpreq_parse(const char *in, size_t len, size_t cap, struct httpreq *r);

#endif /* PWZ_HTTPREQ_H */
