// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/capture_meta.c's steal time: /proc/stat parsing, the difference, and the
 * metadata keys through a cdict file and back. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "capture_meta.h"
#include "cdict.h"
#include "trace.h"

static char dir[] = "/tmp/pwz-test-meta.XXXXXX";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_read_stat(void **state)
{
	struct capture_cpu_stat st;
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/stat", dir);
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	write_file(path, "cpu  100 2 30 4000 5 6 7 80 50 1\ncpu0 50 1 15 2000 2 3 3 40 25 0\nintr 1 2\n");
	assert_int_equal(capture_meta_read_stat(path, &st, NULL, 0), 0);
	assert_true(st.ok);
	assert_int_equal(st.total, 100 + 2 + 30 + 4000 + 5 + 6 + 7 + 80);
	assert_int_equal(st.steal, 80);
	/* the same pass, each CPU's line too: cpu0 read, cpu1 absent, cpu5 beyond the array */
	{
		struct capture_cpu_ticks c[2];

		write_file(path, "cpu  100 2 30 4000 5 6 7 80 50 1\ncpu0 50 1 15 2000 2 3 4 40 25 0\n"
			   "cpu5 1 1 1 1 1 1 1 1 0 0\nintr 1 2\n");
		assert_int_equal(capture_meta_read_stat(path, &st, c, 2), 0);
		assert_int_equal(st.steal, 80);
		assert_true(c[0].ok && !c[1].ok);
		assert_int_equal(c[0].irq, 3);
		assert_int_equal(c[0].softirq, 4);
		assert_int_equal(c[0].steal, 40);
	}
	/* an old kernel's line without steal, and no cpu line */
	write_file(path, "cpu  100 2 30 4000 5 6 7\n");
	assert_int_equal(capture_meta_read_stat(path, &st, NULL, 0), -EINVAL);
	assert_false(st.ok);
	write_file(path, "intr 1 2\n");
	assert_int_equal(capture_meta_read_stat(path, &st, NULL, 0), -EINVAL);
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(capture_meta_read_stat(path, &st, NULL, 0), -ENOENT);
}

static void test_steal(void **state)
{
	struct capture_cpu_stat a = { 1000, 10, true }, b = { 1600, 25, true };
	struct pwz_meta m = { 0 };

	(void)state;
	capture_meta_steal(&m, &a, &b, 100);	/* 100 ticks a second: 10 ms a tick */
	assert_true(m.has_steal);
	assert_int_equal(m.steal_ns, 15 * 10000000ull);
	assert_int_equal(m.cpu_time_ns, 600 * 10000000ull);
	/* nothing from a failed reading, counters going back, or no tick rate */
	memset(&m, 0, sizeof(m));
	b.ok = false;
	capture_meta_steal(&m, &a, &b, 100);
	assert_false(m.has_steal);
	b.ok = true;
	b.steal = 5;
	capture_meta_steal(&m, &a, &b, 100);
	assert_false(m.has_steal);
	b.steal = 25;
	capture_meta_steal(&m, &a, &b, 0);
	assert_false(m.has_steal);
}

/* The steal keys go into the META record and come back; a file without them has none. */
static void test_roundtrip(void **state)
{
	struct pwz_meta m = { .nr_cpus = 2, .duration_ns = 1000, .has_steal = true,
			      .steal_ns = 123456789, .cpu_time_ns = 2000000000 };
	char path[256], err[256];
	struct cdict_writer *w;
	struct trace *t;

	(void)state;
	for (int with = 1; with >= 0; with--) {
		m.has_steal = with;
		snprintf(path, sizeof(path), "%s/s%d.cdict", dir, with);
		w = cdict_writer__new(path, &m, NULL, err, sizeof(err));
		assert_non_null(w);
		assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
		cdict_writer__free(w);
		t = trace__load(path, NULL, err, sizeof(err));
		assert_non_null(t);
		assert_int_equal(t->meta.has_steal, with);
		assert_int_equal(t->meta.steal_ns, with ? 123456789 : 0);
		assert_int_equal(t->meta.cpu_time_ns, with ? 2000000000 : 0);
		trace__free(t);
		unlink(path);
	}
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[300];

	(void)state;
	snprintf(path, sizeof(path), "%s/stat", dir);
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_stat),
		cmocka_unit_test(test_steal),
		cmocka_unit_test(test_roundtrip),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
