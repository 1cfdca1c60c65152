// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/exitroll.h: KVM exits rolled up by (isa, reason), in any order, sorted,
 * grown, emptied, and out of memory (malloc, calloc and realloc wrapped at link time). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "exitroll.h"

/* The allocator: fails the allocation numbered fail_at (0 the next one; -1 never). */
static long fail_at = -1;
static long allocs;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static bool fail_now(void)
{
	return fail_at >= 0 && allocs++ == fail_at;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

/* Fails the allocation k from now on (-1: none). */
static void fail_alloc(long k)
{
	allocs = 0;
	fail_at = k;
}

/* One exit record: (isa, code) took handling_ns. */
struct rec {
	uint32_t isa, code;
	uint64_t handling_ns;
};

static const struct rec recs[] = {
	{ PWZ_ISA_VMX, 30, 100 }, { PWZ_ISA_VMX, 12, 7 },    { PWZ_ISA_SVM, 30, 50 },
	{ PWZ_ISA_VMX, 30, 300 }, { PWZ_ISA_VMX, 1, 2 },     { PWZ_ISA_SVM, 0x7b, 9 },
	{ PWZ_ISA_VMX, 12, 9 },   { PWZ_ISA_VMX, 30, 2000 }, { PWZ_ISA_SVM, 30, 60 },
	{ PWZ_ISA_VMX, 48, 5 },
};
#define NR_RECS (sizeof(recs) / sizeof(recs[0]))

/* recs as a roll, added in the order of perm, one exit each with its histogram bucket. */
static void roll_of(struct exitroll *r, const size_t *perm)
{
	for (size_t i = 0; i < NR_RECS; i++) {
		const struct rec *x = &recs[perm[i]];
		uint64_t hist[PWZ_HIST_BUCKETS] = { 0 };

		hist[pwz_hist_bucket(x->handling_ns)] = 1;
		assert_non_null(exitroll_add(r, x->isa, x->code, NULL, 1, x->handling_ns, hist));
	}
}

/* The roll of recs, sorted by code: whatever the order the exits came in, the same entries. */
static void test_any_order(void **state)
{
	static const size_t perms[][NR_RECS] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 },
		{ 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 },
		{ 5, 0, 8, 3, 9, 1, 6, 2, 7, 4 },
	};
	static const struct { uint32_t isa, code; uint64_t count, ns; } want[] = {
		{ PWZ_ISA_VMX, 1, 1, 2 },	{ PWZ_ISA_VMX, 12, 2, 16 },
		{ PWZ_ISA_VMX, 30, 3, 2400 },	{ PWZ_ISA_VMX, 48, 1, 5 },
		{ PWZ_ISA_SVM, 30, 2, 110 },	{ PWZ_ISA_SVM, 0x7b, 1, 9 },
	};

	(void)state;
	for (size_t p = 0; p < sizeof(perms) / sizeof(perms[0]); p++) {
		struct exitroll r = { 0 };

		roll_of(&r, perms[p]);
		assert_int_equal(r.n, 6);
		exitroll_sort_by_code(&r);
		for (size_t i = 0; i < r.n; i++) {
			const struct exitroll_entry *e = exitroll_at(&r, i);
			uint64_t n = 0;

			assert_int_equal(e->isa, want[i].isa);
			assert_int_equal(e->code, want[i].code);
			assert_int_equal(e->count, want[i].count);
			assert_int_equal(e->handling_ns, want[i].ns);
			for (int k = 0; k < PWZ_HIST_BUCKETS; k++)
				n += e->hist[k];
			assert_int_equal(n, e->count);
			assert_int_equal(exitroll_find(&r, e->isa, e->code), i);
		}
		assert_int_equal(exitroll_find(&r, PWZ_ISA_SVM, 12), -1);
		exitroll_free(&r);
		assert_int_equal(r.n, 0);
	}
}

/* By count, most first; equal counts by (isa, code), whatever the order they were added in. */
static void test_sort_by_count(void **state)
{
	static const size_t perms[][NR_RECS] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 },
		{ 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 },
		{ 4, 9, 5, 1, 2, 0, 7, 6, 3, 8 },
	};
	/* VMX 30: 3; VMX 12 and SVM 30: 2; VMX 1, VMX 48, SVM 0x7b: 1 */
	static const struct { uint32_t isa, code; } want[] = {
		{ PWZ_ISA_VMX, 30 }, { PWZ_ISA_VMX, 12 }, { PWZ_ISA_SVM, 30 },
		{ PWZ_ISA_VMX, 1 },  { PWZ_ISA_VMX, 48 }, { PWZ_ISA_SVM, 0x7b },
	};

	(void)state;
	for (size_t p = 0; p < sizeof(perms) / sizeof(perms[0]); p++) {
		struct exitroll r = { 0 };

		roll_of(&r, perms[p]);
		exitroll_sort_by_count(&r);
		for (size_t i = 0; i < r.n; i++) {
			const struct exitroll_entry *e = exitroll_at(&r, i);

			assert_int_equal(e->isa, want[i].isa);
			assert_int_equal(e->code, want[i].code);
			assert_int_equal(exitroll_find(&r, e->isa, e->code), i);
			if (i)
				assert_true(exitroll_cmp_count(exitroll_at(&r, i - 1), e) < 0);
		}
		assert_int_equal(exitroll_cmp_count(exitroll_at(&r, 0), exitroll_at(&r, 0)), 0);
		exitroll_free(&r);
	}
}

/* A caller's entry: the roll's first, then what the caller keeps. */
struct wide {
	struct exitroll_entry ex;
	uint64_t extra;
};

#define MANY 1000

/* Past the first allocation and past EXITROLL_SCAN: every reason once, found where it is, its
 * own figures and its caller's with it, through sorts, a dropped index and more additions. */
static void test_growth(void **state)
{
	struct exitroll r;
	size_t i;

	(void)state;
	exitroll_init(&r, sizeof(struct wide));
	for (i = 0; i < MANY; i++) {	/* codes scrambled: 7 * i mod MANY, each once */
		uint32_t code = (uint32_t)(7 * i % MANY);
		struct wide *w = (struct wide *)exitroll_add(&r, PWZ_ISA_VMX, code, NULL, code + 1,
							     0, NULL);

		assert_non_null(w);
		assert_int_equal(w->extra, 0);	/* a new entry is zeroed whole */
		w->extra = code;
	}
	for (i = 0; i < MANY; i++)	/* again: found, not added */
		assert_non_null(exitroll_add(&r, PWZ_ISA_VMX, (uint32_t)i, NULL, 0, 1, NULL));
	assert_int_equal(r.n, MANY);
	exitroll_sort_by_code(&r);
	for (i = 0; i < MANY; i++) {
		const struct wide *w = (const struct wide *)exitroll_at(&r, i);

		assert_int_equal(w->ex.code, i);
		assert_int_equal(w->ex.count, i + 1);
		assert_int_equal(w->ex.handling_ns, 1);
		assert_int_equal(w->extra, i);
		assert_null(w->ex.hist);
		assert_int_equal(exitroll_find(&r, PWZ_ISA_VMX, (uint32_t)i), i);
	}
	exitroll_sort_by_count(&r);
	assert_int_equal(exitroll_at(&r, 0)->code, MANY - 1);
	assert_int_equal(exitroll_find(&r, PWZ_ISA_VMX, 0), MANY - 1);
	exitroll_drop_index(&r);	/* searched entry by entry, then indexed again */
	assert_int_equal(exitroll_find(&r, PWZ_ISA_VMX, 0), MANY - 1);
	assert_int_equal(exitroll_find(&r, PWZ_ISA_SVM, 0), -1);
	assert_non_null(exitroll_get(&r, PWZ_ISA_SVM, 0, NULL));
	assert_int_equal(r.n, MANY + 1);
	assert_int_equal(exitroll_find(&r, PWZ_ISA_SVM, 0), MANY);
	assert_int_equal(exitroll_find(&r, PWZ_ISA_VMX, 5), MANY - 6);
	exitroll_free(&r);
	assert_int_equal(r.esize, sizeof(struct wide));	/* ready for other entries */
}

/* The first name given stays; sums hold at PWZ_SATURATED; a missing histogram reads as 0s
 * and a merge brings the other roll's. */
static void test_names_sums_merge(void **state)
{
	struct exitroll a = { 0 }, b = { 0 };
	const struct exitroll_entry *e;
	uint64_t hist[PWZ_HIST_BUCKETS] = { [3] = 2 };

	(void)state;
	assert_non_null(exitroll_get(&a, PWZ_ISA_VMX, 30, NULL));
	assert_non_null(exitroll_get(&a, PWZ_ISA_VMX, 30, "IO_INSTRUCTION"));
	e = exitroll_add(&a, PWZ_ISA_VMX, 30, "other", PWZ_SATURATED - 1, 5, NULL);
	assert_string_equal(e->name, "IO_INSTRUCTION");
	assert_null(e->hist);
	assert_int_equal(exitroll_hist(e)[3], 0);
	e = exitroll_add(&a, PWZ_ISA_VMX, 30, NULL, 2, PWZ_SATURATED, hist);
	assert_true(e->count == PWZ_SATURATED);
	assert_true(e->handling_ns == PWZ_SATURATED);
	assert_int_equal(exitroll_hist(e)[3], 2);

	assert_non_null(exitroll_add(&b, PWZ_ISA_SVM, 1, NULL, 4, 40, NULL));
	for (int i = 0; i < 2; i++)	/* a's entries into b, twice */
		for (size_t k = 0; k < a.n; k++)
			assert_non_null(exitroll_merge(&b, exitroll_at(&a, k)));
	exitroll_sort_by_code(&b);
	assert_int_equal(b.n, 2);
	e = exitroll_at(&b, 0);
	assert_int_equal(e->code, 30);
	assert_string_equal(e->name, "IO_INSTRUCTION");
	assert_true(e->count == PWZ_SATURATED);
	assert_int_equal(e->hist[3], 4);
	assert_int_equal(exitroll_at(&b, 1)->count, 4);
	exitroll_free(&a);
	exitroll_free(&b);
}

/* Emptied, the roll forgets its entries and, refilled with as many, allocates nothing. */
static void test_clear(void **state)
{
	struct exitroll r = { 0 };

	(void)state;
	exitroll_clear(&r);	/* an empty roll: nothing to do */
	for (uint32_t i = 0; i < 40; i++)
		assert_non_null(exitroll_add(&r, PWZ_ISA_VMX, i, NULL, 1, 0, NULL));
	exitroll_clear(&r);
	assert_int_equal(r.n, 0);
	assert_int_equal(exitroll_find(&r, PWZ_ISA_VMX, 3), -1);
	fail_alloc(0);
	for (uint32_t i = 0; i < 40; i++) {
		const struct exitroll_entry *e = exitroll_get(&r, PWZ_ISA_SVM, 100 - i, NULL);

		assert_non_null(e);
		assert_int_equal(e->count, 0);
		assert_int_equal(exitroll_find(&r, PWZ_ISA_SVM, 100 - i), i);
	}
	fail_alloc(-1);
	assert_int_equal(exitroll_find(&r, PWZ_ISA_VMX, 3), -1);
	exitroll_free(&r);
}

/*
 * Out of memory at each allocation in turn while 40 reasons (indexed past EXITROLL_SCAN) are
 * added with their histograms: the call that fails returns NULL with ENOMEM and adds no
 * figure; the roll stays whole (each entry found where it is, figures as added), and adding
 * the same again once memory is back makes the full roll.
 */
static void test_out_of_memory(void **state)
{
	uint64_t hist[PWZ_HIST_BUCKETS] = { [1] = 1 };
	bool failed = true;

	(void)state;
	for (long k = 0; failed; k++) {
		struct exitroll r = { 0 };
		uint64_t total = 0;

		failed = false;
		fail_alloc(k);
		for (uint32_t i = 0; i < 40; i++) {
			errno = 0;
			if (!exitroll_add(&r, PWZ_ISA_VMX, 3 * i % 40, NULL, 1, 1, hist)) {
				assert_int_equal(errno, ENOMEM);
				failed = true;
				continue;
			}
			total++;
		}
		fail_alloc(-1);
		for (size_t i = 0; i < r.n; i++) {
			const struct exitroll_entry *e = exitroll_at(&r, i);

			assert_int_equal(exitroll_find(&r, e->isa, e->code), i);
			assert_true(e->count <= 1);
			total -= e->count;
			assert_int_equal(exitroll_hist(e)[1], e->count);
		}
		assert_int_equal(total, 0);	/* every figure added is there, once */
		for (uint32_t i = 0; i < 40; i++)
			assert_non_null(exitroll_get(&r, PWZ_ISA_VMX, i, NULL));
		assert_int_equal(r.n, 40);
		exitroll_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_any_order),
		cmocka_unit_test(test_sort_by_count),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_names_sums_merge),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
