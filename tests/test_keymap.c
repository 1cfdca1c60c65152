// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/keymap.h: the two-word-key hash, emptied in its own storage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "keymap.h"

#define N 3000

/* Indexes in insertion order; a key present is found, not added again; an absent one is not. */
static void test_get_find(void **state)
{
	struct keymap m = { 0 };
	int added;

	(void)state;
	for (uint64_t i = 0; i < N; i++) {
		assert_int_equal(keymap_get(&m, i, i * 7, &added), i);
		assert_int_equal(added, 1);
	}
	for (uint64_t i = 0; i < N; i++) {
		assert_int_equal(keymap_get(&m, i, i * 7, &added), i);
		assert_int_equal(added, 0);
		assert_int_equal(keymap_find(&m, i, i * 7), i);
	}
	assert_int_equal(keymap_find(&m, 1, 8), -1);
	assert_int_equal(m.count, N);
	keymap_free(&m);
	assert_int_equal(keymap_find(&m, 1, 7), -1);
}

/* Emptied, the map forgets every key and, refilled with as many, keeps its storage. */
static void test_clear(void **state)
{
	struct keymap m = { 0 };
	uint64_t *keys;
	uint32_t *slots, cap;

	(void)state;
	keymap_clear(&m);	/* an empty map: nothing to do */
	assert_int_equal(m.count, 0);
	for (uint64_t i = 0; i < N; i++)
		assert_int_equal(keymap_get(&m, i, 0, NULL), i);
	keys = m.keys;
	slots = m.slots;
	cap = m.cap;
	keymap_clear(&m);
	assert_int_equal(m.count, 0);
	assert_ptr_equal(m.keys, keys);	/* still its storage */
	assert_ptr_equal(m.slots, slots);
	assert_int_equal(m.cap, cap);
	for (uint64_t i = 0; i < N; i++)
		assert_int_equal(keymap_find(&m, i, 0), -1);
	/* other keys, as many: the indexes start again at 0, in the same storage */
	for (uint64_t i = 0; i < N; i++)
		assert_int_equal(keymap_get(&m, N + i, 1, NULL), i);
	assert_ptr_equal(m.keys, keys);
	assert_ptr_equal(m.slots, slots);
	assert_int_equal(m.cap, cap);
	for (uint64_t i = 0; i < N; i++) {
		assert_int_equal(keymap_find(&m, N + i, 1), i);
		assert_int_equal(keymap_find(&m, i, 0), -1);
	}
	keymap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_find),
		cmocka_unit_test(test_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
