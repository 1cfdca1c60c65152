// SPDX-License-Identifier: GPL-2.0
/*
 * Replays every input under tests/regress/<harness>/ (the crashes fuzzing found) through the
 * fuzz harnesses' own code, built here with the normal compiler (and with SANITIZE=1, with
 * ASan and UBSan), so that a fixed crash stays fixed without libFuzzer. The harnesses abort on
 * any broken contract: an error without message, an output file left after an error.
 */
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

#define LLVMFuzzerTestOneInput regress_cdict
#include "fuzz/fuzz_cdict.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_cdict_stream
#include "fuzz/fuzz_cdict_stream.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_render
#include "fuzz/fuzz_render.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_legacy
#include "fuzz/fuzz_legacy.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_perfdata
#include "fuzz/fuzz_perfdata.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_csvmap
#include "fuzz/fuzz_csvmap.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_writers
#include "fuzz/fuzz_writers.c"
#undef LLVMFuzzerTestOneInput

/* In SANITIZE=1 builds: libtraceevent 1.7 leaks inside tep_parse_format() on a damaged
 * format (see tests/fuzz/lsan.supp); leaks of pwz's own code are still reported. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

struct harness {
	const char *name;			/* tests/regress/<name>/ */
	int (*one)(const uint8_t *data, size_t size);
};

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n;

	assert_non_null(f);
	*len = 0;
	do {
		if (*len == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	fclose(f);
	return buf;
}

/* Replays the inputs of one harness; returns how many were replayed. */
static int replay(const struct harness *h)
{
	const char *root = getenv("PWZ_REGRESS_DIR") ? getenv("PWZ_REGRESS_DIR") : "tests/regress";
	char dir[4096], path[8192];
	struct dirent *de;
	DIR *d;
	int n = 0;

	/*
	 * The perf.data reader parses tracepoint formats in a forked child that may crash on
	 * purpose; cmocka's signal handlers, inherited by that child, would resume the test run
	 * in it. With the default actions a crash here kills the program, which fails as well.
	 */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	snprintf(dir, sizeof(dir), "%s/%s", root, h->name);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		unsigned char *buf;
		size_t len;

		if (de->d_name[0] == '.' || strstr(de->d_name, ".md"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		buf = slurp(path, &len);
		print_message("replay %s\n", path);
		assert_int_equal(h->one(buf, len), 0);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

static void test_replay(void **state)
{
	const struct harness *h = *state;

	replay(h);
}

/* The inputs committed so far: the directories must be there and hold them (a replay of
 * nothing would pass for the wrong reason). */
static void test_inputs_present(void **state)
{
	static const struct harness with_inputs[] = {
		{ "cdict_stream", regress_cdict_stream },
		{ "render", regress_render },
		{ "perfdata", regress_perfdata },
		{ "writers", regress_writers },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(with_inputs) / sizeof(with_inputs[0]); i++)
		assert_true(replay(&with_inputs[i]) > 0);
}

int main(void)
{
	static struct harness hs[] = {
		{ "cdict", regress_cdict },
		{ "cdict_stream", regress_cdict_stream },
		{ "legacy", regress_legacy },
		{ "perfdata", regress_perfdata },
		{ "csvmap", regress_csvmap },
		{ "render", regress_render },
		{ "writers", regress_writers },
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(test_replay, &hs[0]),
		cmocka_unit_test_prestate(test_replay, &hs[1]),
		cmocka_unit_test_prestate(test_replay, &hs[2]),
		cmocka_unit_test_prestate(test_replay, &hs[3]),
		cmocka_unit_test_prestate(test_replay, &hs[4]),
		cmocka_unit_test_prestate(test_replay, &hs[5]),
		cmocka_unit_test_prestate(test_replay, &hs[6]),
		cmocka_unit_test(test_inputs_present),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
