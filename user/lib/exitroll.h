/* SPDX-License-Identifier: GPL-2.0 */
/* KVM exits rolled up by (isa, reason): one entry per reason, with its count and handling time. */
#ifndef PWZ_EXITROLL_H
#define PWZ_EXITROLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "keymap.h"
#include "records.h"

/*
 * One (isa, reason) of a roll. A caller that keeps more per reason declares its own entry with
 * this struct as its first member and gives its size to exitroll_init(); the roll then moves
 * and zeroes whole entries, and its functions hand back pointers to their first member.
 */
struct exitroll_entry {
	uint32_t isa;			/* enum pwz_isa */
	uint32_t code;			/* the exit reason */
	const char *name;		/* from the capture's table (borrowed); NULL unknown */
	uint64_t count;			/* exits */
	uint64_t handling_ns;		/* the handling time of those whose entry was seen */
	uint64_t *hist;			/* their handling times as a log2 histogram,
					 * PWZ_HIST_BUCKETS counts (owned); NULL until one is
					 * added, read as all 0 (exitroll_hist()) */
};

/*
 * The entries of a roll, each (isa, code) once, in the order they were first added until a
 * sort reorders them. A roll of up to EXITROLL_SCAN entries is searched entry by entry; past
 * that, through a hash index (keymap.h) kept in step with the entries. A zeroed struct is an
 * empty roll of plain struct exitroll_entry entries.
 */
#define EXITROLL_SCAN 8

struct exitroll {
	void *v;			/* n entries of esize bytes */
	size_t n;			/* entries */
	size_t cap;			/* entries allocated */
	size_t esize;			/* bytes an entry; 0: sizeof(struct exitroll_entry) */
	struct keymap idx;		/* (isa, code) -> index in v, when indexed */
	bool indexed;			/* idx holds every entry */
};

/* Starts an empty roll whose entries are esize bytes (>= sizeof(struct exitroll_entry)), each
 * beginning with a struct exitroll_entry. Allocates nothing. */
void exitroll_init(struct exitroll *r, size_t esize);

/* The entry at index i (i < r->n). Valid until the roll grows (exitroll_get(), exitroll_add(),
 * exitroll_merge()) or is cleared or freed. */
static inline struct exitroll_entry *exitroll_at(const struct exitroll *r, size_t i)
{
	return (struct exitroll_entry *)((char *)r->v +
					 i * (r->esize ? r->esize : sizeof(struct exitroll_entry)));
}

/* The index of (isa, code) in r, or -1 when absent. Never allocates. */
int64_t exitroll_find(const struct exitroll *r, uint32_t isa, uint32_t code);

/*
 * The entry of (isa, code), added at the end, zeroed, when absent. name (may be NULL) names an
 * entry that has no name yet. NULL with errno ENOMEM (r unchanged).
 */
struct exitroll_entry *exitroll_get(struct exitroll *r, uint32_t isa, uint32_t code,
				    const char *name);

/*
 * Adds count exits of (isa, code) that took handling_ns, and their histogram hist (NULL: none;
 * else PWZ_HIST_BUCKETS counts), to its entry (exitroll_get(), which name may name). The sums
 * saturate at PWZ_SATURATED (records.h pwz_add_sat()). Returns the entry, or NULL with errno
 * ENOMEM (then no figure was added; the entry may have been added, zeroed).
 */
struct exitroll_entry *exitroll_add(struct exitroll *r, uint32_t isa, uint32_t code,
				    const char *name, uint64_t count, uint64_t handling_ns,
				    const uint64_t *hist);

/* exitroll_add() of src's reason, name and figures (src may be of another roll). */
struct exitroll_entry *exitroll_merge(struct exitroll *r, const struct exitroll_entry *src);

/* e's histogram: its own, or PWZ_HIST_BUCKETS zeros when it has none. */
const uint64_t *exitroll_hist(const struct exitroll_entry *e);

/* The order of exitroll_sort_by_count(): by count, most first, then by (isa, code). <0, 0, >0
 * as for qsort(); 0 only for entries of one (isa, code). */
int exitroll_cmp_count(const struct exitroll_entry *a, const struct exitroll_entry *b);

/* Sorts r by (isa, code), or by exitroll_cmp_count(). Neither allocates: the index (when r has
 * one) follows the entries. The result does not depend on the order the entries were added. */
void exitroll_sort_by_code(struct exitroll *r);
void exitroll_sort_by_count(struct exitroll *r);

/* Frees r's index: a roll that is complete keeps only its entries. exitroll_find() then
 * searches entry by entry; the next exitroll_get() of a roll past EXITROLL_SCAN entries
 * indexes it again. */
void exitroll_drop_index(struct exitroll *r);

/* Empties r (the entries' histograms freed) and keeps its storage: refilled with at most as
 * many entries as it held, it allocates nothing but histograms (exitroll_get() cannot fail),
 * unless its index was dropped (exitroll_drop_index()) and the refill passes EXITROLL_SCAN. */
void exitroll_clear(struct exitroll *r);

/* Frees what r holds, the entries' histograms included, and leaves it empty (its esize kept).
 * A zeroed roll is a no-op. */
void exitroll_free(struct exitroll *r);

#endif /* PWZ_EXITROLL_H */
