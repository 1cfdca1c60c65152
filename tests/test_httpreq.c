// SPDX-License-Identifier: GPL-2.0
/* user/lib/httpreq.h: the request --serve understands, from the bytes received so far. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "httpreq.h"

#define CAP 64

/* httpreq_parse() of s in a buffer of CAP bytes: whether it is whole, and r. */
static bool parse(const char *s, struct httpreq *r)
{
	char buf[CAP];
	size_t n = strlen(s) < CAP - 1 ? strlen(s) : CAP - 1;

	memcpy(buf, s, n);
	buf[n] = '\0';
	return httpreq_parse(buf, n, sizeof(buf), r);
}

/* A request is read until a blank line ends its headers, or the buffer is full (431). */
static void test_whole(void **state)
{
	struct httpreq r;

	(void)state;
	assert_false(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", &r));
	assert_false(parse("", &r));
	assert_true(parse("GET /metrics HTTP/1.1\r\n\r\n", &r));
	assert_int_equal(r.status, 200);
	assert_true(parse("GET /metrics HTTP/1.0\n\n", &r));	/* bare newlines */
	assert_int_equal(r.status, 200);
	assert_true(parse("GET /metrics HTTP/1.1\r\nX-Long: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &r));
	assert_int_equal(r.status, 431);
	assert_false(r.head);
}

/* The status: 200 for GET or HEAD of /metrics (a query allowed), else 404, 405 or 400. */
static void test_status(void **state)
{
	static const struct {
		const char *req;
		int status;
		bool head;
	} cases[] = {
		{ "GET /metrics?x=1 HTTP/1.1\r\n\r\n", 200, false },
		{ "HEAD /metrics HTTP/1.1\r\n\r\n", 200, true },
		{ "HEAD /nope HTTP/1.1\r\n\r\n", 404, true },
		{ "GET /metricsX HTTP/1.1\r\n\r\n", 404, false },
		{ "POST /metrics HTTP/1.1\r\n\r\n", 405, false },
		{ "GET /metrics HTTP/2\r\n\r\n", 400, false },
		{ "GET /metrics\r\n\r\n", 400, false },
		{ "\r\n\r\n", 400, false },
	};
	struct httpreq r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_true(parse(cases[i].req, &r));
		assert_int_equal(r.status, cases[i].status);
		assert_int_equal(r.head, cases[i].head);
		assert_false(r.openmetrics);
	}
}

/* OpenMetrics when the Accept header (any case) prefers it, for a 200 only. */
static void test_openmetrics(void **state)
{
	struct httpreq r;

	(void)state;
	assert_true(parse("GET /metrics HTTP/1.1\r\naccept: application/openmetrics-text\r\n\r\n", &r));
	assert_true(r.openmetrics);
	assert_true(parse("GET /metrics HTTP/1.1\r\nAccept: text/plain\r\n\r\n", &r));
	assert_false(r.openmetrics);
	assert_true(parse("GET /x HTTP/1.1\r\nAccept: application/openmetrics-text\r\n\r\n", &r));
	assert_false(r.openmetrics);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_openmetrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
