// SPDX-License-Identifier: GPL-2.0
/* A small open-addressing hash from 64-bit keys to 32-bit slots. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "u64map.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

long long u64map_get(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return -1;
	for (i = slot_of(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return (long long)m->vals[i] - 1;
	}
	return -1;
}

static int grow(struct u64map *m)
{
	struct u64map bigger = { 0 };

	bigger.cap = m->cap ? m->cap * 2 : 64;
	bigger.keys = malloc(bigger.cap * sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		u64map_free(&bigger);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->vals[i])
			u64map_put(&bigger, m->keys[i], m->vals[i] - 1);
	}
	u64map_free(m);
	*m = bigger;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if ((m->count + 1) * 4 > m->cap * 3 && grow(m))
		return -ENOMEM;
	for (i = slot_of(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val + 1;
			return 0;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val + 1;
	m->count++;
	return 0;
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
