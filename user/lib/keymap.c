// SPDX-License-Identifier: GPL-2.0
/* An open-addressing hash from a two-word key to a dense index, and a growable-array helper. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "keymap.h"

static uint64_t hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xc2b2ae3d27d4eb4fULL;

	return h ^ (h >> 29);
}

void keymap_free(struct keymap *m)
{
	free(m->keys);
	free(m->slots);
	m->keys = NULL;
	m->slots = NULL;
	m->cap = m->count = 0;
}

void keymap_clear(struct keymap *m)
{
	if (m->slots)
		memset(m->slots, 0, (size_t)m->cap * sizeof(*m->slots));
	m->count = 0;
}

int64_t keymap_find(const struct keymap *m, uint64_t a, uint64_t b)
{
	uint32_t i;

	if (!m->cap)
		return -1;
	for (i = hash(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slots[i])
			return -1;
		if (m->keys[2 * i] == a && m->keys[2 * i + 1] == b)
			return m->slots[i] - 1;
	}
}

static int grow(struct keymap *m)
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
		j = hash(m->keys[2 * i], m->keys[2 * i + 1]) & (ncap - 1);
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

int64_t keymap_get(struct keymap *m, uint64_t a, uint64_t b, int *added)
{
	uint32_t i;
	int64_t idx = keymap_find(m, a, b);

	if (added)
		*added = 0;
	if (idx >= 0)
		return idx;
	if ((uint64_t)(m->count + 1) * 4 > (uint64_t)m->cap * 3 && grow(m))
		return -ENOMEM;
	for (i = hash(a, b) & (m->cap - 1); m->slots[i]; i = (i + 1) & (m->cap - 1))
		;
	m->keys[2 * i] = a;
	m->keys[2 * i + 1] = b;
	m->slots[i] = ++m->count;
	if (added)
		*added = 1;
	return m->count - 1;
}

int array_reserve(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n <= *cap)
		return 0;
	/* small first, about 128 bytes: many arrays hold one or two elements (a vCPU's exit
	 * reasons of 112 bytes each: 8 of them for every vCPU of 32,768 were 58 MB) */
	ncap = *cap ? *cap * 2 : (elem && elem < 128 ? 128 / elem : 1);
	while (ncap < n)
		ncap *= 2;
	if (!elem || ncap > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}
