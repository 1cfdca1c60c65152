// SPDX-License-Identifier: GPL-2.0
/* The one HTTP request --serve understands: its request line and Accept header. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "httpreq.h"
#include "promtext.h"

/* The status of the request line at in ("METHOD TARGET HTTP/1.x"); *head for HEAD. */
static int request_status(const char *in, bool *head)
{
	char method[16], target[256], version[16];
	char line[sizeof(method) + sizeof(target) + sizeof(version) + 8];
	size_t n = strcspn(in, "\r\n");

	*head = false;
	if (n >= sizeof(line))
		return 400;
	memcpy(line, in, n);
	line[n] = '\0';
	if (sscanf(line, "%15s %255s %15s", method, target, version) != 3 ||
	    strncmp(version, "HTTP/1.", 7))
		return 400;
	*head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !*head)
		return 405;
	if (strcmp(target, "/metrics") && strncmp(target, "/metrics?", 9))
		return 404;
	return 200;
}

/* Whether the headers after the request line at in ask for OpenMetrics (Accept, any case). */
static bool wants_openmetrics(const char *in)
{
	char value[512];

	for (const char *l = strchr(in, '\n'); l && l[1] && l[1] != '\r' && l[1] != '\n';
	     l = strchr(l + 1, '\n')) {
		if (!strncasecmp(l + 1, "accept:", 7)) {
			size_t n = strcspn(l + 8, "\r\n");

			snprintf(value, sizeof(value), "%.*s", (int)n, l + 8);
			return promtext_wants_openmetrics(value);
		}
	}
	return false;
}

bool httpreq_parse(const char *in, size_t len, size_t cap, struct httpreq *r)
{
	*r = (struct httpreq){ 0 };
	if (!strstr(in, "\r\n\r\n") && !strstr(in, "\n\n")) {
		if (len + 1 < cap)
			return false;
		r->status = 431;
		return true;
	}
	r->status = request_status(in, &r->head);
	r->openmetrics = r->status == 200 && wants_openmetrics(in);
	return true;
}
