// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/births.c: the births of thread instances (model.h R8). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "births.h"

/* A tid's instances: the one there at the start, then one per birth, in any order given; a
 * birth given twice is one. */
static void test_instances(void **state)
{
	struct birth_table b = { 0 };

	(void)state;
	assert_int_equal(births__at(&b, 7, 100), 0);
	assert_int_equal(births__next(&b, 7, 0), 0);
	assert_int_equal(births__add(&b, 7, 500), 0);
	assert_int_equal(births__add(&b, 7, 200), 0);
	assert_int_equal(births__add(&b, 7, 500), 0);
	assert_int_equal(births__add(&b, 7, 0), 0);	/* ignored */
	assert_int_equal(births__add(&b, 8, 300), 0);
	assert_int_equal(births__at(&b, 7, 199), 0);
	assert_int_equal(births__at(&b, 7, 200), 200);
	assert_int_equal(births__at(&b, 7, 499), 200);
	assert_int_equal(births__at(&b, 7, 900), 500);
	assert_int_equal(births__next(&b, 7, 0), 200);
	assert_int_equal(births__next(&b, 7, 200), 500);
	assert_int_equal(births__next(&b, 7, 500), 0);
	assert_int_equal(births__at(&b, 8, 300), 300);
	births__free(&b);
}

/* An ended instance's births before it go; its own stays for its late records, and a newer
 * birth still starts the next instance. */
static void test_end(void **state)
{
	struct birth_table b = { 0 };

	(void)state;
	assert_int_equal(births__add(&b, 1, 10), 0);
	assert_int_equal(births__add(&b, 1, 20), 0);
	assert_int_equal(births__add(&b, 1, 30), 0);
	births__end(&b, 1, 20);
	assert_int_equal(births__at(&b, 1, 15), 0);	/* 10's went */
	assert_int_equal(births__at(&b, 1, 25), 20);	/* a late record of the ended one */
	assert_int_equal(births__at(&b, 1, 35), 30);
	births__end(&b, 1, 30);
	assert_int_equal(births__at(&b, 1, 25), 0);
	assert_int_equal(births__at(&b, 1, 99), 30);
	assert_int_equal(b.spent, 1);
	assert_int_equal(births__add(&b, 1, 40), 0);	/* the tid recycled */
	assert_int_equal(b.spent, 0);
	assert_int_equal(births__at(&b, 1, 35), 30);
	assert_int_equal(births__at(&b, 1, 45), 40);
	births__end(&b, 7, 5);				/* a tid never born: nothing */
	births__end(&b, 1, 0);				/* instance 0: nothing */
	assert_int_equal(births__at(&b, 1, 35), 30);
	assert_int_equal(b.spent, 0);
	births__free(&b);
}

/* The compaction frees the tids holding only an ended instance's birth once they are many,
 * but the BIRTHS_KEEP_ENDED last ended; every other tid stays found. */
static void test_compact(void **state)
{
	const uint32_t n = 2 * BIRTHS_KEEP_ENDED + 100, first = 100;
	struct birth_table b = { 0 };

	(void)state;
	assert_int_equal(births__add(&b, 1, 10), 0);
	assert_int_equal(births__add(&b, 1, 20), 0);
	births__end(&b, 1, 10);
	for (uint32_t tid = first; tid < first + n; tid++) {
		assert_int_equal(births__add(&b, tid, tid), 0);
		births__end(&b, tid, tid);
	}
	assert_int_equal(b.spent, n);
	assert_int_equal(births__compact(&b), 0);
	assert_int_equal(b.idx.count, 1 + BIRTHS_KEEP_ENDED);
	assert_int_equal(b.spent, BIRTHS_KEEP_ENDED);
	assert_int_equal(births__at(&b, 1, 15), 10);	/* a newer birth: not spent */
	assert_int_equal(births__at(&b, 1, 25), 20);
	assert_int_equal(births__at(&b, first, first + 1), 0);	/* freed: instance 0 */
	assert_int_equal(births__at(&b, first + n - BIRTHS_KEEP_ENDED - 1, 1u << 30), 0);
	assert_int_equal(births__at(&b, first + n - BIRTHS_KEEP_ENDED, 1u << 30),
			 first + n - BIRTHS_KEEP_ENDED);
	assert_int_equal(births__at(&b, first + n - 1, 1u << 30), first + n - 1);
	/* not yet twice the kept: nothing freed */
	assert_int_equal(births__compact(&b), 0);
	assert_int_equal(b.idx.count, 1 + BIRTHS_KEEP_ENDED);
	births__free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_end),
		cmocka_unit_test(test_compact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
