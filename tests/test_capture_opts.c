// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/capture_opts.c: pwz-bpf's option parsing, defaults and error messages. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "capture_opts.h"

#define ARGV(...) ((char *[]){ "pwz-bpf", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "pwz-bpf", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, err, ...) capture_opts_parse(o, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), err, sizeof(err))

static void test_defaults(void **state)
{
	struct capture_opts o;
	char err[256] = "";
	char *argv[] = { "pwz-bpf", NULL };
	char path[256];

	(void)state;
	assert_int_equal(capture_opts_parse(&o, 1, argv, err, sizeof(err)), 0);
	assert_true(o.sleep_s == 1.0);
	assert_false(o.sleep_given);
	assert_string_equal(o.run_name, "perf");
	assert_string_equal(o.dest_folder, ".");
	assert_true(capture_opts_want_cdict(&o));
	assert_false(capture_opts_want_stats(&o));
	assert_int_equal(o.ringbuf_mb, 16);
	assert_null(o.command);
	assert_int_equal(capture_opts_out_path(&o, ".cdict", path, sizeof(path)), 0);
	assert_string_equal(path, "./perf.cdict");
}

static void test_issue_examples(void **state)
{
	struct capture_opts o;
	char err[256] = "", path[256], desc[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-s", "5", "--all", "test"), 0);
	assert_true(o.sleep_s == 5.0 && o.sleep_given && o.all);
	assert_string_equal(o.run_name, "test");
	assert_true(capture_opts_want_cdict(&o) && capture_opts_want_stats(&o));

	assert_int_equal(PARSE(&o, err, "--all", "--map", "tmap.csv", "test2"), 0);
	assert_string_equal(o.map_path, "tmap.csv");
	assert_string_equal(o.run_name, "test2");
	assert_true(o.sleep_s == 1.0);

	assert_int_equal(PARSE(&o, err, "-p", "4321", "-s", "10", "--kvm", "vm1"), 0);
	assert_int_equal(o.nr_pids, 1);
	assert_int_equal(o.pids[0], 4321);
	assert_true(o.kvm_only);
	assert_true(o.sleep_s == 10.0);
	assert_string_equal(o.run_name, "vm1");

	assert_int_equal(PARSE(&o, err, "--all", "run3", "--", "./workload", "-s", "3", "x"), 0);
	assert_string_equal(o.run_name, "run3");
	assert_int_equal(o.nr_command, 4);
	assert_string_equal(o.command[0], "./workload");
	assert_string_equal(o.command[1], "-s");	/* the command's options stay the command's */
	assert_null(o.command[4]);
	assert_false(o.sleep_given);

	assert_int_equal(PARSE(&o, err, "--dest-folder", "/tmp/out/", "--stats", "r"), 0);
	assert_false(capture_opts_want_cdict(&o));
	assert_true(capture_opts_want_stats(&o));
	assert_int_equal(capture_opts_out_path(&o, ".stats", path, sizeof(path)), 0);
	assert_string_equal(path, "/tmp/out/r.stats");

	assert_int_equal(PARSE(&o, err, "--stats", "--switches", "-p", "1,22,333", "-t", "CPU*",
			       "-t", "17", "-v", "-v", "--legacy", "--ringbuf-mb", "64", "-s", "0.25"), 0);
	assert_true(capture_opts_want_cdict(&o) && capture_opts_want_stats(&o));
	assert_int_equal(o.nr_pids, 3);
	assert_int_equal(o.pids[2], 333);
	assert_int_equal(o.nr_tasks, 2);
	assert_string_equal(o.tasks[0], "CPU*");
	assert_int_equal(o.verbose, 2);
	assert_true(o.legacy);
	assert_int_equal(o.ringbuf_mb, 64);
	assert_true(o.sleep_s == 0.25);
	capture_opts_describe(&o, desc, sizeof(desc));
	assert_non_null(strstr(desc, "sleep=0.25"));
	assert_non_null(strstr(desc, "pid=1,22,333"));
	assert_non_null(strstr(desc, "task=CPU*"));
	assert_non_null(strstr(desc, "legacy"));
	assert_null(strstr(desc, "mode="));
	assert_int_equal(o.mode, 0);	/* the writers' default, 0600 */

	assert_int_equal(PARSE(&o, err, "--mode", "0644", "shared"), 0);
	assert_int_equal(o.mode, 0644);
	capture_opts_describe(&o, desc, sizeof(desc));
	assert_non_null(strstr(desc, "mode=0644"));
}

static void test_options_after_run_name(void **state)
{
	struct capture_opts o;
	char err[256] = "";

	(void)state;
	assert_int_equal(PARSE(&o, err, "myrun", "-s", "2", "--all"), 0);
	assert_string_equal(o.run_name, "myrun");
	assert_true(o.sleep_s == 2.0 && o.all);
}

struct bad_case {
	char *argv[8];
	const char *needle;	/* the message must name this */
};

static void test_bad_options(void **state)
{
	static const struct bad_case cases[] = {
		{ { "-s", "0" }, "-s/--sleep '0'" },
		{ { "-s", "-1" }, "-s/--sleep '-1'" },
		{ { "-s", "abc" }, "-s/--sleep 'abc'" },
		{ { "-s", "" }, "-s/--sleep ''" },
		{ { "-s", "1e9" }, "-s/--sleep" },
		{ { "-s", "nan" }, "-s/--sleep" },
		{ { "-s" }, "needs a value" },
		{ { "-p", "0" }, "-p/--pid '0'" },
		{ { "-p", "1,,2" }, "-p/--pid '1,,2'" },
		{ { "-p", "x" }, "-p/--pid 'x'" },
		{ { "-p", "-5" }, "-p/--pid '-5'" },
		{ { "-t", "" }, "-t/--task" },
		{ { "--bogus" }, "--bogus" },
		{ { "-x" }, "-x" },
		{ { "a", "b" }, "one run name" },
		{ { "--" }, "'--' must be followed" },
		{ { "sub/run" }, "run name 'sub/run'" },
		{ { ".." }, "run name '..'" },
		{ { "--ringbuf-mb", "3" }, "--ringbuf-mb '3'" },
		{ { "--ringbuf-mb", "0" }, "--ringbuf-mb '0'" },
		{ { "--use-perf-data", "f", "-p", "1" }, "--use-perf-data" },
		{ { "--legacy", "--aggregate-only" }, "--legacy" },
		{ { "--dest-folder", "" }, "--dest-folder" },
		{ { "--mode", "0444" }, "--mode '0444'" },
		{ { "--mode", "0955" }, "--mode '0955'" },
		{ { "--mode", "u+rw" }, "--mode 'u+rw'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[10] = { "pwz-bpf" };
		struct capture_opts o;
		char err[256] = "";
		int argc = 1;

		for (int j = 0; cases[i].argv[j]; j++)
			argv[argc++] = cases[i].argv[j];
		assert_int_equal(capture_opts_parse(&o, argc, argv, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].needle))
			fail_msg("case %zu: message '%s' lacks '%s'", i, err, cases[i].needle);
		assert_null(strchr(err, '\n'));	/* one line */
	}
}

/* Long options match exactly (getopt_long would take a prefix), perfcap's removed ones say what
 * to use, -V and -q, --remap needs --map and nothing else. */
static void test_exact_and_removed(void **state)
{
	struct capture_opts o;
	char err[512] = "";

	(void)state;
	assert_int_equal(PARSE(&o, err, "--use-perf", "/usr/bin/perf", "x"), -EINVAL);
	assert_non_null(strstr(err, "--use-perf-data FILE"));
	assert_int_equal(PARSE(&o, err, "--slee", "2"), -EINVAL);
	assert_non_null(strstr(err, "unknown option '--slee'"));
	assert_int_equal(PARSE(&o, err, "--sleep=2", "-t", "--all", "x"), 0);
	assert_true(o.sleep_s == 2.0 && !o.all);	/* "--all" is -t's value */
	assert_string_equal(o.tasks[0], "--all");
	assert_int_equal(PARSE(&o, err, "x", "--", "cmd", "--use-perf"), 0);	/* the command's */
	assert_int_equal(PARSE(&o, err, "-V"), 0);
	assert_true(o.version);
	assert_int_equal(PARSE(&o, err, "-q", "-t", "a", "-t", ".*b"), 0);
	assert_true(o.quiet);
	assert_int_equal(o.nr_tasks, 2);
	assert_int_equal(PARSE(&o, err, "--remap", "f.cdict"), -EINVAL);
	assert_non_null(strstr(err, "--map CSV"));
	assert_int_equal(PARSE(&o, err, "--remap", "f.cdict", "--map", "m.csv"), 0);
	assert_string_equal(o.remap, "f.cdict");
	assert_int_equal(PARSE(&o, err, "--remap", "f.cdict", "--map", "m.csv", "-s", "2"), -EINVAL);
}

static void test_usage(void **state)
{
	const char *u = capture_opts_usage();

	(void)state;
	assert_non_null(strstr(u, "Usage: pwz-bpf"));
	assert_non_null(strstr(u, "Examples:"));
	assert_non_null(strstr(u, "--sleep"));
	assert_non_null(strstr(u, "-- COMMAND"));
}

static void test_path_too_long(void **state)
{
	struct capture_opts o;
	char err[256], path[16];

	(void)state;
	assert_int_equal(PARSE(&o, err, "a-rather-long-run-name"), 0);
	assert_int_equal(capture_opts_out_path(&o, ".cdict", path, sizeof(path)), -ENAMETOOLONG);
}

/* The issue's --live examples, and what --live refuses. */
static void test_live_options(void **state)
{
	struct capture_opts o;
	char err[256] = "";

	(void)state;
	assert_int_equal(PARSE(&o, err, "--live"), 0);
	assert_true(o.live && o.interval_s == 1.0 && o.count == 0 && !o.batch && !o.json);
	assert_false(capture_opts_want_cdict(&o));
	assert_false(capture_opts_want_stats(&o));
	assert_int_equal(PARSE(&o, err, "--live", "-i", "0.5", "-p", "4321"), 0);
	assert_true(o.interval_s == 0.5 && o.nr_pids == 1 && o.pids[0] == 4321);
	assert_int_equal(PARSE(&o, err, "--live", "--kvm"), 0);
	assert_true(o.kvm_only);
	assert_int_equal(PARSE(&o, err, "--live", "--batch", "-i", "5", "-n", "12"), 0);
	assert_true(o.batch && !o.json && o.interval_s == 5.0 && o.count == 12);
	assert_int_equal(PARSE(&o, err, "--live", "--json"), 0);
	assert_true(o.json && o.batch);

	assert_int_equal(PARSE(&o, err, "-i", "1"), -EINVAL);
	assert_non_null(strstr(err, "add --live"));
	assert_int_equal(PARSE(&o, err, "--live", "-i", "0.001"), -EINVAL);
	assert_non_null(strstr(err, "-i/--interval"));
	assert_int_equal(PARSE(&o, err, "--live", "-n", "0"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--live", "-s", "3"), -EINVAL);
	assert_non_null(strstr(err, "-n COUNT"));
	assert_int_equal(PARSE(&o, err, "--live", "--stats"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--live", "--flight", "10"), -EINVAL);
	assert_non_null(strstr(err, "pick one"));
}

static void test_serve_options(void **state)
{
	struct capture_opts o;
	char err[256] = "";

	(void)state;
	assert_int_equal(PARSE(&o, err, "--serve", "9100"), 0);
	assert_string_equal(o.serve, "9100");
	assert_int_equal(o.serve_threads, 0);
	assert_false(capture_opts_want_cdict(&o));
	assert_false(capture_opts_want_stats(&o));
	assert_int_equal(PARSE(&o, err, "--serve", "0.0.0.0:0", "--serve-threads", "5"), 0);
	assert_int_equal(o.serve_threads, 5);
	assert_int_equal(PARSE(&o, err, "--serve", "[::1]:9100", "-p", "4321"), 0);

	assert_int_equal(PARSE(&o, err, "--serve", "65536"), -EINVAL);
	assert_non_null(strstr(err, "PORT 0-65535"));
	assert_int_equal(PARSE(&o, err, "--serve", "-1"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--serve", "host.example:80"), -EINVAL);
	assert_non_null(strstr(err, "'host.example'"));
	assert_int_equal(PARSE(&o, err, "--serve-threads", "3"), -EINVAL);
	assert_non_null(strstr(err, "add --serve"));
	assert_int_equal(PARSE(&o, err, "--serve", "1", "--serve-threads", "0"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--serve", "1", "--live"), -EINVAL);
	assert_non_null(strstr(err, "pick one"));
	/* --flight beside --serve: dumps while it serves, never --once (it ends at a dump) */
	assert_int_equal(PARSE(&o, err, "--serve", "1", "--flight", "30", "--dest-folder", "/tmp",
			       "incident"), 0);
	assert_true(o.flight_s > 29.9 && o.serve && !strcmp(o.run_name, "incident"));
	assert_int_equal(PARSE(&o, err, "--serve", "1", "--flight", "30", "--once"), -EINVAL);
	assert_non_null(strstr(err, "--once"));
	assert_int_equal(PARSE(&o, err, "--serve", "1", "--aggregate-only"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--serve", "1", "-s", "3"), -EINVAL);
	assert_non_null(strstr(err, "until Ctrl-C"));
}

/* --serve-cgroup-depth: 2 by default, 0 (none) to 16, only with --serve, said in the
 * description when not the default. */
static void test_serve_cgroup_depth(void **state)
{
	struct capture_opts o;
	char err[256] = "", desc[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--serve", "9100"), 0);
	assert_int_equal(o.serve_cgroup_depth, 2);
	capture_opts_describe(&o, desc, sizeof(desc));
	assert_null(strstr(desc, "cgroup"));
	assert_int_equal(PARSE(&o, err, "--serve", "9100", "--serve-cgroup-depth", "0"), 0);
	assert_int_equal(o.serve_cgroup_depth, 0);
	capture_opts_describe(&o, desc, sizeof(desc));
	assert_non_null(strstr(desc, " serve-cgroup-depth=0"));
	assert_int_equal(PARSE(&o, err, "--serve", "9100", "--serve-cgroup-depth", "16"), 0);
	assert_int_equal(o.serve_cgroup_depth, 16);
	assert_int_equal(PARSE(&o, err, "--serve-cgroup-depth", "5", "--serve", "1"), 0);
	assert_int_equal(o.serve_cgroup_depth, 5);
	capture_opts_describe(&o, desc, sizeof(desc));
	assert_non_null(strstr(desc, " serve-cgroup-depth=5"));

	assert_int_equal(PARSE(&o, err, "--serve", "1", "--serve-cgroup-depth", "17"), -EINVAL);
	assert_non_null(strstr(err, "--serve-cgroup-depth '17': give a number of path components from 0"));
	assert_int_equal(PARSE(&o, err, "--serve", "1", "--serve-cgroup-depth", "-1"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--serve", "1", "--serve-cgroup-depth", "two"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--serve", "1", "--serve-cgroup-depth", ""), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--serve-cgroup-depth", "0"), -EINVAL);
	assert_string_equal(err, "--serve-cgroup-depth belongs to --serve (add --serve [ADDR:]PORT)");
	assert_int_equal(PARSE(&o, err, "--live", "--serve-cgroup-depth", "3"), -EINVAL);
	assert_non_null(strstr(err, "add --serve"));
}

/* The issue's --flight examples, durations with units, and what --flight refuses. */
static void test_flight_options(void **state)
{
	struct capture_opts o;
	char err[256] = "", desc[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--flight", "10", "incident"), 0);
	assert_true(o.flight_s == 10.0 && o.flight_mb == 0 && !o.once);
	assert_string_equal(o.run_name, "incident");
	assert_false(capture_opts_want_cdict(&o));	/* dumps only */
	assert_int_equal(PARSE(&o, err, "--flight", "30", "--trigger-wait", "20ms", "-p", "4321",
			       "hiccup"), 0);
	assert_true(o.trigger_wait_ns == 20000000ull && o.flight_s == 30.0);
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--trigger-exit", "500us", "--after",
			       "250", "--once", "--flight-mb", "64"), 0);
	assert_true(o.trigger_exit_ns == 500000ull && o.after_ns == 250000000ull && o.once &&
		    o.flight_mb == 64);
	capture_opts_describe(&o, desc, sizeof(desc));
	assert_non_null(strstr(desc, "flight=5"));
	assert_non_null(strstr(desc, "trigger-exit=0.5ms"));
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--trigger-wait", "1.5"), 0);
	assert_true(o.trigger_wait_ns == 1500000ull);	/* a bare number is ms */
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--trigger-wait", "2s"), 0);
	assert_true(o.trigger_wait_ns == 2000000000ull);

	assert_int_equal(PARSE(&o, err, "--trigger-wait", "20ms"), -EINVAL);
	assert_non_null(strstr(err, "add --flight"));
	assert_int_equal(PARSE(&o, err, "--flight", "0"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--trigger-wait", "0"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--trigger-wait", "20 ms"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--trigger-wait", "-3ms"), -EINVAL);
	assert_int_equal(PARSE(&o, err, "--flight", "1", "--after", "2s"), -EINVAL);
	assert_non_null(strstr(err, "--after"));
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--legacy"), -EINVAL);
	/* --arm-after: when the waits and exits fire (default: the window full) */
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--trigger-wait", "20ms"), 0);
	assert_false(o.arm_after_given);
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--trigger-wait", "20ms", "--arm-after",
			       "2s"), 0);
	assert_true(o.arm_after_given && o.arm_after_ns == 2000000000ull);
	capture_opts_describe(&o, desc, sizeof(desc));
	assert_non_null(strstr(desc, "arm-after=2000ms"));
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--trigger-exit", "1ms", "--arm-after",
			       "0"), 0);
	assert_true(o.arm_after_given && o.arm_after_ns == 0);
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--arm-after", "2s"), -EINVAL);
	assert_non_null(strstr(err, "give one of them"));
	assert_int_equal(PARSE(&o, err, "--arm-after", "2s", "--trigger-wait", "1ms"), -EINVAL);
	assert_non_null(strstr(err, "add --flight"));
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--trigger-wait", "1ms", "--arm-after",
			       "soon"), -EINVAL);
	assert_non_null(strstr(err, "--arm-after"));
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--flight-mb", "0"), -EINVAL);
}

static void test_no_waker(void **state)
{
	struct capture_opts o;
	char err[256] = "", desc[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--all", "--no-waker", "run"), 0);
	assert_true(o.no_waker);
	capture_opts_describe(&o, desc, sizeof(desc));
	assert_non_null(strstr(desc, " no-waker"));
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--no-waker"), 0);
	assert_int_equal(PARSE(&o, err, "--all", "run"), 0);
	assert_false(o.no_waker);
	/* where no waker would be noted anyway, the option is refused, naming the other */
	assert_int_equal(PARSE(&o, err, "--no-waker", "--aggregate-only"), -EINVAL);
	assert_non_null(strstr(err, "--aggregate-only"));
	assert_int_equal(PARSE(&o, err, "--no-waker", "--live"), -EINVAL);
	assert_non_null(strstr(err, "--live"));
	assert_int_equal(PARSE(&o, err, "--no-waker", "--legacy"), -EINVAL);
	assert_non_null(strstr(err, "--legacy"));
	assert_int_equal(PARSE(&o, err, "--no-waker", "--use-perf-data", "x.data", "imp"), -EINVAL);
	assert_non_null(strstr(err, "--use-perf-data"));
}

/* --force: every output replaces what is at its name; without it, files are kept */
static void test_force(void **state)
{
	struct capture_opts o;
	char err[256] = "";

	(void)state;
	assert_int_equal(PARSE(&o, err, "--all", "run"), 0);
	assert_false(o.force);
	assert_int_equal(capture_opts_exists(&o), OUTFILE_NUMBER);
	assert_int_equal(PARSE(&o, err, "--force", "--all", "run"), 0);
	assert_true(o.force);
	assert_int_equal(capture_opts_exists(&o), OUTFILE_REPLACE);
	assert_int_equal(PARSE(&o, err, "--flight", "5", "--force", "inc"), 0);
	assert_int_equal(capture_opts_exists(&o), OUTFILE_REPLACE);
	/* --live writes nothing, --remap rewrites its file in place anyway */
	assert_int_equal(PARSE(&o, err, "--live", "--force"), -EINVAL);
	assert_non_null(strstr(err, "--force"));
	assert_int_equal(PARSE(&o, err, "--remap", "x.cdict", "--map", "m.csv", "--force"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_issue_examples),
		cmocka_unit_test(test_options_after_run_name),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_exact_and_removed),
		cmocka_unit_test(test_live_options),
		cmocka_unit_test(test_flight_options),
		cmocka_unit_test(test_serve_options),
		cmocka_unit_test(test_serve_cgroup_depth),
		cmocka_unit_test(test_no_waker),
		cmocka_unit_test(test_force),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_path_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
