// SPDX-License-Identifier: GPL-2.0
/* KVM exits rolled up by (isa, reason): entries found by scan or hash, summed, sorted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "exitroll.h"

static size_t esize(const struct exitroll *r)
{
	return r->esize ? r->esize : sizeof(struct exitroll_entry);
}

void exitroll_init(struct exitroll *r, size_t size)
{
	memset(r, 0, sizeof(*r));
	r->esize = size;
}

/* Indexes every entry of r, in their order. Allocates nothing when the index held as many
 * entries before (keymap_clear()). Returns 0 or -ENOMEM (then r is not indexed). */
static int index_all(struct exitroll *r)
{
	keymap_clear(&r->idx);
	r->indexed = false;
	for (size_t i = 0; i < r->n; i++) {
		const struct exitroll_entry *e = exitroll_at(r, i);

		if (keymap_get(&r->idx, e->isa, e->code, NULL) < 0)
			return -ENOMEM;
	}
	r->indexed = true;
	return 0;
}

int64_t exitroll_find(const struct exitroll *r, uint32_t isa, uint32_t code)
{
	if (r->indexed)
		return keymap_find(&r->idx, isa, code);
	for (size_t i = 0; i < r->n; i++) {
		const struct exitroll_entry *e = exitroll_at(r, i);

		if (e->isa == isa && e->code == code)
			return (int64_t)i;
	}
	return -1;
}

struct exitroll_entry *exitroll_get(struct exitroll *r, uint32_t isa, uint32_t code,
				    const char *name)
{
	struct exitroll_entry *e;
	int64_t i;

	if (!r->indexed && r->n >= EXITROLL_SCAN && index_all(r))
		goto nomem;
	i = exitroll_find(r, isa, code);
	if (i < 0) {
		/* room first: the index then never holds an entry that the array lacks */
		if (array_reserve(&r->v, &r->cap, r->n + 1, esize(r)) ||
		    (r->indexed && keymap_get(&r->idx, isa, code, NULL) < 0))
			goto nomem;
		i = (int64_t)r->n++;
		e = exitroll_at(r, (size_t)i);
		memset(e, 0, esize(r));
		e->isa = isa;
		e->code = code;
	}
	e = exitroll_at(r, (size_t)i);
	if (!e->name)
		e->name = name;
	return e;
nomem:
	errno = ENOMEM;
	return NULL;
}

struct exitroll_entry *exitroll_add(struct exitroll *r, uint32_t isa, uint32_t code,
				    const char *name, uint64_t count, uint64_t handling_ns,
				    const uint64_t *hist)
{
	struct exitroll_entry *e = exitroll_get(r, isa, code, name);

	if (!e)
		return NULL;
	if (hist && !e->hist) {
		e->hist = calloc(PWZ_HIST_BUCKETS, sizeof(*e->hist));
		if (!e->hist) {
			errno = ENOMEM;
			return NULL;
		}
	}
	pwz_add_sat(&e->count, count);
	pwz_add_sat(&e->handling_ns, handling_ns);
	for (int k = 0; hist && k < PWZ_HIST_BUCKETS; k++)
		pwz_add_sat(&e->hist[k], hist[k]);
	return e;
}

struct exitroll_entry *exitroll_merge(struct exitroll *r, const struct exitroll_entry *src)
{
	return exitroll_add(r, src->isa, src->code, src->name, src->count, src->handling_ns,
			    src->hist);
}

const uint64_t *exitroll_hist(const struct exitroll_entry *e)
{
	static const uint64_t none[PWZ_HIST_BUCKETS];

	return e->hist ? e->hist : none;
}

static int cmp_code(const struct exitroll_entry *a, const struct exitroll_entry *b)
{
	if (a->isa != b->isa)
		return a->isa < b->isa ? -1 : 1;
	return a->code < b->code ? -1 : a->code > b->code;
}

int exitroll_cmp_count(const struct exitroll_entry *a, const struct exitroll_entry *b)
{
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return cmp_code(a, b);
}

static int qcmp_code(const void *a, const void *b)
{
	return cmp_code(a, b);
}

static int qcmp_count(const void *a, const void *b)
{
	return exitroll_cmp_count(a, b);
}

/* Sorts r by cmp and re-keys its index (the same number of keys: no allocation). */
static void sort_by(struct exitroll *r, int (*cmp)(const void *, const void *))
{
	if (r->n > 1)
		qsort(r->v, r->n, esize(r), cmp);
	if (r->indexed)
		index_all(r);
}

void exitroll_sort_by_code(struct exitroll *r)
{
	sort_by(r, qcmp_code);
}

void exitroll_sort_by_count(struct exitroll *r)
{
	sort_by(r, qcmp_count);
}

void exitroll_drop_index(struct exitroll *r)
{
	keymap_free(&r->idx);
	r->indexed = false;
}

/* Frees the entries' histograms. */
static void free_hists(struct exitroll *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(exitroll_at(r, i)->hist);
}

void exitroll_clear(struct exitroll *r)
{
	free_hists(r);
	r->n = 0;
	keymap_clear(&r->idx);
	r->indexed = false;
}

void exitroll_free(struct exitroll *r)
{
	size_t size = r->esize;

	free_hists(r);
	free(r->v);
	keymap_free(&r->idx);
	exitroll_init(r, size);
}
