/* SPDX-License-Identifier: GPL-2.0 */
/* A small open-addressing hash from 64-bit keys to 32-bit slots (indexes into the caller's array). */
#ifndef PWZ_U64MAP_H
#define PWZ_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	uint32_t *vals;		/* value + 1; 0 = empty slot */
	size_t cap;		/* power of two */
	size_t count;
};

/* The value stored for key, or -1. */
long long u64map_get(const struct u64map *m, uint64_t key);

/* Stores key -> val (val < UINT32_MAX). Returns 0 or -ENOMEM. */
int u64map_put(struct u64map *m, uint64_t key, uint32_t val);

/* Frees the map's storage and zeroes it. */
void u64map_free(struct u64map *m);

#endif /* PWZ_U64MAP_H */
