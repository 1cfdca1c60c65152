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

/* Forgetting the instances that ended keeps the later ones; a tid left with none is freed by
 * the compaction once they are many, and the others stay found. */
static void test_forget(void **state)
{
	struct birth_table b = { 0 };

	(void)state;
	assert_int_equal(births__add(&b, 1, 10), 0);
	assert_int_equal(births__add(&b, 1, 20), 0);
	births__forget_to(&b, 1, 10);
	assert_int_equal(births__at(&b, 1, 15), 0);
	assert_int_equal(births__at(&b, 1, 25), 20);
	for (uint32_t tid = 100; tid < 2200; tid++) {
		assert_int_equal(births__add(&b, tid, tid), 0);
		births__forget_to(&b, tid, tid);
	}
	assert_int_equal(births__compact(&b), 0);
	assert_int_equal(b.idx.count, 1);
	assert_int_equal(births__at(&b, 1, 25), 20);
	assert_int_equal(births__at(&b, 150, 200), 0);
	births__free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_forget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
