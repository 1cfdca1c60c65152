/* SPDX-License-Identifier: GPL-2.0 */
/* An open-addressing hash from a two-word key to a dense index, and array helpers. */
#ifndef PWZ_KEYMAP_H
#define PWZ_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Keys are (a, b) pairs of 64-bit words; values are indexes 0..count-1 handed out in insertion
 * order, so callers keep their values in a parallel array that grows with count. A zeroed
 * struct is an empty map.
 */
struct keymap {
	uint64_t *keys;		/* 2 words per slot */
	uint32_t *slots;	/* index + 1 per slot; 0 = empty */
	uint32_t cap;		/* slots, a power of two */
	uint32_t count;		/* entries */
};

/* Index of (a, b), or -1 when absent. */
int64_t keymap_find(const struct keymap *m, uint64_t a, uint64_t b);

/* Index of (a, b), inserting it as the next index (count - 1 after the call) when absent;
 * *added (may be NULL) tells which. Returns the index, or -ENOMEM. */
int64_t keymap_get(struct keymap *m, uint64_t a, uint64_t b, int *added);

/* Frees the map's storage and zeroes it. */
void keymap_free(struct keymap *m);

/* Empties the map and keeps its storage: refilled with at most as many entries as it held,
 * it allocates nothing (keymap_get() cannot fail then). */
void keymap_clear(struct keymap *m);

/* Makes room for n elements of size elem in *arr (capacity *cap, in elements), growing it
 * geometrically. Returns 0 or -ENOMEM (then *arr is unchanged). */
int array_reserve(void **arr, size_t *cap, size_t n, size_t elem);

/* qsort()/bsearch() order of uint32_t values. */
int u32_cmp(const void *a, const void *b);

#endif /* PWZ_KEYMAP_H */
