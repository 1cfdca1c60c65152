/* SPDX-License-Identifier: GPL-2.0 */
/* The births of thread instances (user/lib/model.h R8), per tid: which instance a record of a
 * tid belongs to, and when the next one begins. */
#ifndef PWZ_BIRTHS_H
#define PWZ_BIRTHS_H

#include <stddef.h>
#include <stdint.h>
#include "keymap.h"

struct births;

/*
 * Per tid its births, ascending (a tid mostly has one, held inline). Zero-initialised is
 * empty. Memory: 32 bytes a tid with a birth, 8 more a birth past its first; a tid whose
 * births were all forgotten (births__forget_to()) is freed by births__compact().
 */
struct birth_table {
	struct keymap idx;	/* (tid, 0) -> tids[] */
	struct births *tids;
	size_t cap;
	size_t empty;		/* tids[] left with no birth */
};

/* tid was born at birth_ns (> 0; 0 is ignored; one already held is not held twice).
 * Returns 0 or -ENOMEM. */
int births__add(struct birth_table *b, uint32_t tid, uint64_t birth_ns);

/* The birth of the instance of tid at time_ns, its latest birth at or before it (0: the one
 * there at the start). */
uint64_t births__at(const struct birth_table *b, uint32_t tid, uint64_t time_ns);

/* The first birth of tid after time_ns (when the instance at time_ns ends), 0 none. */
uint64_t births__next(const struct birth_table *b, uint32_t tid, uint64_t time_ns);

/* The instance (tid, since_ns) and those before it have ended: their births go. */
void births__forget_to(struct birth_table *b, uint32_t tid, uint64_t since_ns);

/* Frees the tids left with no birth once they are half of those held (and 1024 or more).
 * Returns 0 or -ENOMEM. */
int births__compact(struct birth_table *b);

/* Frees what b holds (b itself is the caller's); b is then empty. */
void births__free(struct birth_table *b);

#endif /* PWZ_BIRTHS_H */
