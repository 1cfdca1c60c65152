// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/flight.c's record keeping: triggers, the window's eviction, the budget. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "flight.h"

#define S 1000000000ull

/* n one-µs slices on CPU 0 ending at end_ns (the last) and just before. */
static void add_slices(struct flight *f, size_t n, uint64_t end_ns)
{
	for (size_t i = 0; i < n; i++) {
		struct pwz_slice s = { .tid = 100, .cpu = 0, .dur_ns = 1000,
				       .end = PWZ_END_SLEPT };

		s.start_ns = end_ns - 1000 - (n - 1 - i);
		assert_int_equal(flight__slice(f, &s, NULL), 0);
	}
}

static void test_wait_trigger_once(void **state)
{
	struct flight_cfg cfg = { .window_ns = 2 * S, .trigger_wait_ns = 20000000 };
	struct flight *f = flight__new(&cfg);
	struct pwz_task t = { .tid = 7, .tgid = 7, .name = "victim" };
	struct pwz_slice s = { .tid = 7, .cpu = 1, .start_ns = 3 * S, .dur_ns = 1000 };
	struct pwz_wakeup short_w = { .tid = 7, .cpu = 1, .wake_ns = 3 * S - 19000000,
				      .wait_ns = 19000000 };
	struct pwz_wakeup long_w = { .tid = 7, .cpu = 1, .wake_ns = 3 * S - 25000000,
				     .wait_ns = 25000000 };

	(void)state;
	assert_non_null(f);
	assert_int_equal(flight__task(f, &t), 0);
	/* 19 ms does not trigger: a trigger now is still accepted */
	assert_int_equal(flight__slice(f, &s, &short_w), 0);
	assert_true(flight__trigger(f, 1, 0, "probe"));
	flight__free(f);

	f = flight__new(&cfg);
	assert_int_equal(flight__task(f, &t), 0);
	assert_int_equal(flight__slice(f, &s, &long_w), 0);
	/* 25 ms did: pending, so a second trigger (SIGUSR1, another wait) is merged */
	assert_false(flight__trigger(f, 3 * S + 5, 0, "signal SIGUSR1"));
	s.start_ns += S / 10;
	long_w.wake_ns += S / 10;
	assert_int_equal(flight__slice(f, &s, &long_w), 0);
	assert_false(flight__trigger(f, 4 * S, 0, "again"));
	/* dumped [1.025 s, 3.025 s): a window overlapping it is refused, the next one is not */
	flight__dumped(f, 3 * S + 25000000);
	assert_false(flight__trigger(f, 3 * S + 30000000, 0, "overlaps"));
	assert_false(flight__trigger(f, 5 * S, 0, "overlaps by 25 ms"));
	assert_true(flight__trigger(f, 5 * S + 25000000, 0, "next window"));
	flight__free(f);
}

/* A wait or exit that runs long fires nothing before arm_ns (the window not full yet); a signal
 * does. */
static void test_armed_when_full(void **state)
{
	struct flight_cfg cfg = { .window_ns = 2 * S, .trigger_wait_ns = 20000000,
				  .trigger_exit_ns = 1000000, .arm_ns = 2 * S };
	struct flight *f = flight__new(&cfg);
	struct pwz_slice s = { .tid = 7, .cpu = 1, .start_ns = S / 14, .dur_ns = 1000 };
	struct pwz_wakeup w = { .tid = 7, .cpu = 1, .wake_ns = S / 14 - 25000000,
				.wait_ns = 25000000 };
	struct pwz_kvm_exit x = { .tid = 8, .time_ns = S, .handling_ns = 5000000 };

	(void)state;
	assert_non_null(f);
	/* a 25 ms wait ending at 71 ms and a 5 ms exit at 1 s: not armed, nothing pending */
	assert_int_equal(flight__slice(f, &s, &w), 0);
	assert_int_equal(flight__kvm_exit(f, &x), 0);
	assert_true(flight__trigger(f, S, 0, "signal SIGUSR1"));
	flight__free(f);

	/* the same wait ending at 2 s, the window's length: fires (pending: the next is merged) */
	f = flight__new(&cfg);
	s.start_ns = 2 * S;
	w.wake_ns = 2 * S - 25000000;
	assert_int_equal(flight__slice(f, &s, &w), 0);
	assert_false(flight__trigger(f, 2 * S + 1, 0, "signal SIGUSR1"));
	flight__free(f);

	/* an exit ending at 2 s fires too */
	f = flight__new(&cfg);
	x.time_ns = 2 * S - x.handling_ns;
	assert_int_equal(flight__kvm_exit(f, &x), 0);
	assert_false(flight__trigger(f, 2 * S + 1, 0, "signal SIGUSR1"));
	flight__free(f);
}

/* A failed dump frees its window for the next trigger, but the waits fire again only a window
 * after it. */
static void test_dump_failed(void **state)
{
	struct flight_cfg cfg = { .window_ns = 2 * S, .trigger_wait_ns = 20000000 };
	struct flight *f = flight__new(&cfg);
	struct pwz_slice s = { .tid = 7, .cpu = 1, .start_ns = 4 * S, .dur_ns = 1000 };
	struct pwz_wakeup w = { .tid = 7, .cpu = 1, .wake_ns = 4 * S - 25000000,
				.wait_ns = 25000000 };

	(void)state;
	assert_true(flight__trigger(f, 3 * S, 0, "signal SIGUSR1"));
	flight__dump_failed(f, 3 * S);
	/* a wait at 4 s (before 3 s + the 2 s window) fires nothing */
	assert_int_equal(flight__slice(f, &s, &w), 0);
	/* a signal then may take an overlapping window (the failed one was not written) */
	assert_true(flight__trigger(f, 4 * S, 0, "signal SIGUSR1"));
	flight__dumped(f, 4 * S);
	/* after 5 s the waits fire again (past the written dump's window too) */
	s.start_ns = 6 * S;
	w.wake_ns = 6 * S - 25000000;
	assert_int_equal(flight__slice(f, &s, &w), 0);
	assert_false(flight__trigger(f, 6 * S + 1, 0, "signal SIGUSR1"));
	flight__free(f);
}

static void test_evict_window(void **state)
{
	struct flight_cfg cfg = { .window_ns = 1 * S, .budget_bytes = 1ull << 30 };
	struct flight *f = flight__new(&cfg);
	uint64_t one;

	(void)state;
	add_slices(f, FLIGHT_CHUNK_ENTRIES, 1 * S);		/* chunk 1: ends at 1 s */
	one = flight__bytes(f);
	add_slices(f, FLIGHT_CHUNK_ENTRIES, 2 * S);		/* chunk 2: ends at 2 s */
	add_slices(f, FLIGHT_CHUNK_ENTRIES, 3 * S);		/* chunk 3 */
	assert_int_equal(flight__bytes(f), 3 * one);
	/* at 3 s the window is [2 s, 3 s), with 100 ms of slack: chunk 1 goes, chunk 2 stays
	 * (its last record ends at 2 s, inside) */
	flight__evict(f, 3 * S);
	assert_int_equal(flight__bytes(f), 2 * one);
	/* much later every chunk but the newest is gone (it takes the next records) */
	flight__evict(f, 100 * S);
	assert_int_equal(flight__bytes(f), one);
	assert_int_equal(flight__stored(f), 3ull * FLIGHT_CHUNK_ENTRIES * FLIGHT_ENTRY_BYTES);
	flight__free(f);
}

static void test_pending_keeps_window(void **state)
{
	struct flight_cfg cfg = { .window_ns = 1 * S, .budget_bytes = 1ull << 30,
				  .after_ns = S / 2 };
	struct flight *f = flight__new(&cfg);
	uint64_t one;

	(void)state;
	add_slices(f, FLIGHT_CHUNK_ENTRIES, 1 * S);
	one = flight__bytes(f);
	add_slices(f, FLIGHT_CHUNK_ENTRIES, 2 * S);
	/* a trigger at 1.2 s dumps [0.7 s, 1.7 s) at 1.7 s: a late evict must keep chunk 1 */
	assert_true(flight__trigger(f, 1200000000ull, 0, "signal SIGUSR1"));
	flight__evict(f, 5 * S);
	assert_int_equal(flight__bytes(f), 2 * one);
	flight__free(f);
}

static void test_budget(void **state)
{
	struct flight_cfg cfg = { .window_ns = 60 * S };
	struct flight *f = flight__new(&cfg);
	uint64_t one, b;

	(void)state;
	add_slices(f, FLIGHT_CHUNK_ENTRIES, 1 * S);
	one = flight__bytes(f);
	/* sized from the first second: twice the window and its slack (60.1 s) at 4096 records
	 * of FLIGHT_ENTRY_BYTES a second, 31.5 MB: above the 16 MiB floor */
	b = flight__size_budget(f, 1 * S);
	assert_int_equal(b, (uint64_t)(2.0 * FLIGHT_CHUNK_ENTRIES * FLIGHT_ENTRY_BYTES * 60.1));
	assert_int_equal(flight__size_budget(f, 2 * S), b);	/* sized once */
	flight__free(f);

	/* a slow rate gets the floor */
	f = flight__new(&cfg);
	add_slices(f, 10, 1 * S);
	assert_int_equal(flight__size_budget(f, 1 * S), (uint64_t)FLIGHT_MIN_MB << 20);
	flight__free(f);

	/* past the budget the oldest chunks go although they are in the window */
	cfg.budget_bytes = 2 * one;
	f = flight__new(&cfg);
	for (int i = 1; i <= 6; i++)
		add_slices(f, FLIGHT_CHUNK_ENTRIES, (uint64_t)i * S);
	flight__evict(f, 6 * S);
	assert_true(flight__bytes(f) <= cfg.budget_bytes);
	assert_int_equal(flight__bytes(f), 2 * one);
	flight__free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_trigger_once),
		cmocka_unit_test(test_armed_when_full),
		cmocka_unit_test(test_dump_failed),
		cmocka_unit_test(test_evict_window),
		cmocka_unit_test(test_pending_keeps_window),
		cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
