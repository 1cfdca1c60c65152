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
 * empty. Memory: 32 bytes a tid with a birth, 8 more a birth past its first. The birth of an
 * ended instance stays (births__end()) while it is among the BIRTHS_KEEP_ENDED last ended, so
 * that its late records keep its key; births__compact() frees the older ones.
 */
struct birth_table {
	struct keymap idx;	/* (tid, 0) -> tids[] */
	struct births *tids;
	size_t cap;
	size_t spent;		/* tids[] that hold nothing but an ended instance's birth */
	uint32_t ends;		/* births__end() calls so far: the order of the ends */
};

/* The ended instances whose births stay (a later record of one still finds it). */
#define BIRTHS_KEEP_ENDED 2048u

/* tid was born at birth_ns (> 0; 0 is ignored; one already held is not held twice).
 * Returns 0 or -ENOMEM. */
int births__add(struct birth_table *b, uint32_t tid, uint64_t birth_ns);

/* The birth of the instance of tid at time_ns, its latest birth at or before it (0: the one
 * there at the start). */
uint64_t births__at(const struct birth_table *b, uint32_t tid, uint64_t time_ns);

/* The first birth of tid after time_ns (when the instance at time_ns ends), 0 none. */
uint64_t births__next(const struct birth_table *b, uint32_t tid, uint64_t time_ns);

/*
 * The instance (tid, since_ns) has ended and left the fold: the births before it go, its own
 * stays, so that a record of it that comes later (one still on its way when it ended, the
 * kernel's part of its dropped records) is still its: a later record of tid without a newer
 * birth belongs to it. Instance 0 (since_ns 0) has no birth: nothing changes.
 */
void births__end(struct birth_table *b, uint32_t tid, uint64_t since_ns);

/* Frees, once the tids holding only an ended instance's birth are 2 * BIRTHS_KEEP_ENDED or
 * more and half of those held, those but the BIRTHS_KEEP_ENDED last ended (a later record of
 * a freed one then belongs to its tid's instance 0). Returns 0 or -ENOMEM. */
int births__compact(struct birth_table *b);

/* Frees what b holds (b itself is the caller's); b is then empty. */
void births__free(struct birth_table *b);

#endif /* PWZ_BIRTHS_H */
