/* SPDX-License-Identifier: GPL-2.0 */
/* Test helper: reads figures from the fixtures' truth JSON files (tests/tjson.h). */
#ifndef PWZ_TESTS_TRUTH_H
#define PWZ_TESTS_TRUTH_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tjson.h"

#ifndef PWZ_TESTDATA
#define PWZ_TESTDATA "tests/data"
#endif

/* The integer at a printf-formatted path (tests/tjson.h: "a/0/b") of the JSON file, or
 * TJ_NONE if the file cannot be parsed or the value is missing or not an integer. */
static inline long long truth_int(const char *file, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline long long truth_int(const char *file, const char *fmt, ...)
{
	struct tj *t = tj_load(file);
	char path[512];
	long long v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	v = tj_int(tj_at(t, "%s", path));
	tj_free(t);
	return v;
}

/* Runs a cmocka group in a fresh directory made from the template dir ("/tmp/x-XXXXXX"),
 * removed afterwards when every test passed (kept for a look otherwise). */
#define RUN_IN_TMPDIR(tests, dir)                                                  \
	({                                                                         \
		int __ret = 1;                                                     \
		if (mkdtemp(dir)) {                                                \
			char __cmd[600];                                           \
			__ret = cmocka_run_group_tests(tests, NULL, NULL);         \
			snprintf(__cmd, sizeof(__cmd), "rm -rf '%s'", dir);        \
			if (!__ret && system(__cmd))                               \
				__ret = 1;                                         \
		}                                                                  \
		__ret;                                                             \
	})

#endif /* PWZ_TESTS_TRUTH_H */
