// SPDX-License-Identifier: GPL-2.0
/* The births of thread instances (model.h R8), per tid. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "births.h"
#include "keymap.h"

/* The births of one tid, ascending: the first in one, more in v. */
struct births {
	uint64_t one;
	uint64_t *v;		/* when cap > 1 */
	uint32_t n, cap;
	uint32_t tid;
	uint32_t ended;		/* the first birth's instance ended: its births__end() order + 1;
				 * 0 it did not */
};

/* Whether bs holds nothing but the birth of an ended instance (births__compact() may free it). */
static bool spent(const struct births *bs)
{
	return !bs->n || (bs->n == 1 && bs->ended);
}

static uint64_t *births_of(const struct births *bs)
{
	return bs->cap > 1 ? bs->v : (uint64_t *)&bs->one;
}

static const struct births *find(const struct birth_table *b, uint32_t tid)
{
	int64_t k = b->idx.count ? keymap_find(&b->idx, tid, 0) : -1;

	return k < 0 ? NULL : &b->tids[k];
}

int births__add(struct birth_table *b, uint32_t tid, uint64_t birth_ns)
{
	struct births *bs;
	size_t i;
	int added;
	int64_t k;

	if (!birth_ns)
		return 0;
	k = keymap_get(&b->idx, tid, 0, &added);
	if (k < 0 || array_reserve((void **)&b->tids, &b->cap, b->idx.count, sizeof(*b->tids)))
		return -ENOMEM;
	bs = &b->tids[k];
	if (added)
		*bs = (struct births){ .cap = 1, .tid = tid };
	for (i = bs->n; i > 0 && births_of(bs)[i - 1] >= birth_ns; i--)
		if (births_of(bs)[i - 1] == birth_ns)
			return 0;
	if (!added && spent(bs))
		b->spent--;
	if (bs->n == bs->cap) {	/* the one inline, then 2, 4, ... */
		uint32_t cap = 2 * bs->cap;
		uint64_t *v = realloc(bs->cap > 1 ? bs->v : NULL, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (bs->cap == 1)
			v[0] = bs->one;
		bs->v = v;
		bs->cap = cap;
	}
	memmove(&births_of(bs)[i + 1], &births_of(bs)[i], (bs->n - i) * sizeof(uint64_t));
	births_of(bs)[i] = birth_ns;
	bs->n++;
	if (!i)		/* before the ended one: that is no longer the first */
		bs->ended = 0;
	return 0;
}

/* The index in bs of its first birth after time_ns. */
static size_t first_after(const struct births *bs, uint64_t time_ns)
{
	size_t lo = 0, hi = bs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (births_of(bs)[mid] <= time_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t births__at(const struct birth_table *b, uint32_t tid, uint64_t time_ns)
{
	const struct births *bs = find(b, tid);
	size_t i = bs ? first_after(bs, time_ns) : 0;

	return i ? births_of(bs)[i - 1] : 0;
}

uint64_t births__next(const struct birth_table *b, uint32_t tid, uint64_t time_ns)
{
	const struct births *bs = find(b, tid);
	size_t i = bs ? first_after(bs, time_ns) : 0;

	return bs && i < bs->n ? births_of(bs)[i] : 0;
}

void births__end(struct birth_table *b, uint32_t tid, uint64_t since_ns)
{
	struct births *bs;
	size_t k = 0;
	bool was;
	int64_t i;

	if (!since_ns || (i = keymap_find(&b->idx, tid, 0)) < 0)
		return;
	bs = &b->tids[i];
	was = spent(bs);
	while (k < bs->n && births_of(bs)[k] < since_ns)
		k++;
	memmove(births_of(bs), births_of(bs) + k, (bs->n - k) * sizeof(uint64_t));
	bs->n -= (uint32_t)k;
	b->ends++;
	bs->ended = bs->n && births_of(bs)[0] == since_ns ? b->ends : 0;
	b->spent += (size_t)spent(bs) - (size_t)was;
}

/* Whether births__compact() frees bs: spent, and not among the BIRTHS_KEEP_ENDED last ended. */
static bool stale(const struct birth_table *b, const struct births *bs)
{
	return spent(bs) && (!bs->n || b->ends - bs->ended >= BIRTHS_KEEP_ENDED);
}

int births__compact(struct birth_table *b)
{
	size_t n = b->idx.count, out = 0;

	if (b->spent < 2 * BIRTHS_KEEP_ENDED || 2 * b->spent < n)
		return 0;
	b->spent = 0;
	for (size_t i = 0; i < n; i++) {
		struct births *bs = &b->tids[i];

		if (stale(b, bs)) {
			if (bs->cap > 1)
				free(bs->v);
			continue;
		}
		b->spent += spent(bs);
		b->tids[out++] = *bs;
	}
	keymap_clear(&b->idx);
	for (size_t i = 0; i < out; i++)
		if (keymap_get(&b->idx, b->tids[i].tid, 0, NULL) < 0)
			return -ENOMEM;
	return 0;
}

void births__free(struct birth_table *b)
{
	for (size_t i = 0; i < b->idx.count; i++)
		if (b->tids[i].cap > 1)
			free(b->tids[i].v);
	free(b->tids);
	keymap_free(&b->idx);
	*b = (struct birth_table){ 0 };
}
