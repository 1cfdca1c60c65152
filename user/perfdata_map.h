/* SPDX-License-Identifier: GPL-2.0 */
/* A small open-addressing hash map from a two-word key to a dense index (header only). */
#ifndef PWZ_PERFDATA_MAP_H
#define PWZ_PERFDATA_MAP_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Keys are (a, b) pairs of 64-bit words; values are indexes 0..count-1 handed out in insertion
 * order, so callers keep their values in a parallel array that grows with count. Used by the
 * perf.data reader (sample ids, threads) and the scheduler model (per-thread state, aggregates).
 */
struct pd_map {
	uint64_t *keys;		/* 2 words per slot */
	uint32_t *slots;	/* index + 1 per slot; 0 = empty */
	uint32_t cap;		/* slots, a power of two */
	uint32_t count;		/* entries */
};

static inline uint64_t pd_map_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;

	return h ^ (h >> 29);
}

static inline void pd_map_free(struct pd_map *m)
{
	free(m->keys);
	free(m->slots);
	m->keys = NULL;
	m->slots = NULL;
	m->cap = m->count = 0;
}

/* Index of (a, b), or -1 when absent. */
static inline int64_t pd_map_find(const struct pd_map *m, uint64_t a, uint64_t b)
{
	uint32_t i;

	if (!m->cap)
		return -1;
	for (i = pd_map_hash(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slots[i])
			return -1;
		if (m->keys[2 * i] == a && m->keys[2 * i + 1] == b)
			return m->slots[i] - 1;
	}
}

static inline int pd_map_grow(struct pd_map *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 64, i, j;
	uint64_t *nkeys;
	uint32_t *nslots;

	if (ncap < m->cap)
		return -ENOMEM;
	nkeys = malloc((size_t)ncap * 2 * sizeof(*nkeys));
	nslots = calloc(ncap, sizeof(*nslots));
	if (!nkeys || !nslots) {
		free(nkeys);
		free(nslots);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->slots[i])
			continue;
		j = pd_map_hash(m->keys[2 * i], m->keys[2 * i + 1]) & (ncap - 1);
		while (nslots[j])
			j = (j + 1) & (ncap - 1);
		nkeys[2 * j] = m->keys[2 * i];
		nkeys[2 * j + 1] = m->keys[2 * i + 1];
		nslots[j] = m->slots[i];
	}
	free(m->keys);
	free(m->slots);
	m->keys = nkeys;
	m->slots = nslots;
	m->cap = ncap;
	return 0;
}

/* Index of (a, b), inserting it as the next index when absent (*added tells, may be NULL).
 * Returns the index or -ENOMEM. */
static inline int64_t pd_map_get(struct pd_map *m, uint64_t a, uint64_t b, int *added)
{
	uint32_t i;
	int64_t idx = pd_map_find(m, a, b);

	if (added)
		*added = 0;
	if (idx >= 0)
		return idx;
	if ((uint64_t)(m->count + 1) * 4 > (uint64_t)m->cap * 3 && pd_map_grow(m))
		return -ENOMEM;
	for (i = pd_map_hash(a, b) & (m->cap - 1); m->slots[i]; i = (i + 1) & (m->cap - 1))
		;
	m->keys[2 * i] = a;
	m->keys[2 * i + 1] = b;
	m->slots[i] = ++m->count;
	if (added)
		*added = 1;
	return m->count - 1;
}

/* Makes room for n elements of size elem in *arr (capacity *cap, in elements). 0 or -ENOMEM. */
static inline int pd_reserve(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	while (ncap < n)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

#endif /* PWZ_PERFDATA_MAP_H */
