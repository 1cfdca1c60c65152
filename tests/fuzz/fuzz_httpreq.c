// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: httpreq_parse() (the request --serve reads from a client) on the input as
 * a client's bytes, whole and in two parts, in a buffer of --serve's size; the answer it makes
 * must be one --serve has. */
#include "httpreq.h"
#include "fuzz_common.h"

#define CAP 8192	/* SERVE_MAX_REQUEST */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Checks what httpreq_parse() said of the first len bytes of data. */
static void parse_checked(const uint8_t *data, size_t len)
{
	char *buf = malloc(CAP);	/* --serve's buffer: ASan sees a read past it */
	struct httpreq r;

	if (!buf)
		abort();
	memcpy(buf, data, len);
	buf[len] = '\0';
	if (httpreq_parse(buf, len, CAP, &r)) {
		if (r.status != 200 && r.status != 400 && r.status != 404 && r.status != 405 &&
		    r.status != 431)
			abort();
		if ((r.openmetrics && r.status != 200) || (r.head && r.status == 431))
			abort();
	} else if (len + 1 >= CAP) {
		abort();	/* a full buffer is always an answer */
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = size < CAP - 1 ? size : CAP - 1;

	parse_checked(data, len / 2);
	parse_checked(data, len);
	return 0;
}
