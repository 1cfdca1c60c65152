/* SPDX-License-Identifier: GPL-2.0 */
/* Test helper: reads figures from the fixtures' truth JSON files (through python3's json). */
#ifndef PWZ_TESTS_TRUTH_H
#define PWZ_TESTS_TRUTH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PWZ_TESTDATA
#define PWZ_TESTDATA "../shared/testdata"
#endif

/* Evaluates expr (Python, with the parsed file bound to t) and returns its output's first line
 * in out. Returns 0, or -1 if python3 failed. */
static inline int truth_eval(const char *file, const char *expr, char *out, size_t outlen)
{
	char cmd[4096];
	FILE *p;
	int rc;

	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' '%s' \"%s\"",
		 file, expr);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(out, (int)outlen, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	rc = pclose(p);
	return rc == 0 ? 0 : -1;
}

/* The integer value of expr, or LLONG_MIN on failure. */
static inline long long truth_int(const char *file, const char *expr)
{
	char out[256];

	if (truth_eval(file, expr, out, sizeof(out)))
		return -9223372036854775807LL - 1;
	return strtoll(out, NULL, 10);
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
