/* SPDX-License-Identifier: GPL-2.0 */
/* A bounds-checked msgpack cursor for reading untrusted input (writing uses msgpack-c). */
#ifndef PWZ_MPACK_H
#define PWZ_MPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A cursor over [p, end). Every read checks the bytes that remain; on any error the cursor
 * is marked failed (err set), stays failed, and reads return 0/false/NULL. */
struct mp_cursor {
	const uint8_t *p;
	const uint8_t *end;
	const uint8_t *base;	/* start of the buffer, for offsets in messages */
	const char *err;	/* first error, static string; NULL while fine */
};

enum mp_type {
	MP_NIL, MP_BOOL, MP_UINT, MP_INT, MP_FLOAT, MP_STR, MP_BIN, MP_ARRAY, MP_MAP, MP_EXT,
	MP_INVALID,
};

void mp_init(struct mp_cursor *c, const void *buf, size_t len);

/* Offset of the cursor from base. */
size_t mp_offset(const struct mp_cursor *c);

/* Type of the next object, without consuming it (MP_INVALID at end or on error). */
enum mp_type mp_peek(const struct mp_cursor *c);

/* True when no bytes remain (and no error). */
bool mp_at_end(const struct mp_cursor *c);

/* Reads an unsigned integer (negative values fail). A positive fixint, the most common
 * object of a record, is read inline; the rest in mp_read_uint_any(). */
uint64_t mp_read_uint_any(struct mp_cursor *c);
static inline uint64_t mp_read_uint(struct mp_cursor *c)
{
	if (c->p < c->end && *c->p <= 0x7f && !c->err)
		return *c->p++;
	return mp_read_uint_any(c);
}

/* Reads any integer as signed (uint values above INT64_MAX fail). */
int64_t mp_read_int(struct mp_cursor *c);

bool mp_read_bool(struct mp_cursor *c);

/* Reads nil; fails if the next object is not nil. */
void mp_read_nil(struct mp_cursor *c);

/* Reads a str or bin header and returns a pointer to its bytes (not NUL-terminated) in the
 * buffer, with *len set. */
const uint8_t *mp_read_bytes(struct mp_cursor *c, uint32_t *len);

/* Reads str or bin into out as a NUL-terminated string, truncated to outlen - 1 bytes. */
void mp_read_string(struct mp_cursor *c, char *out, size_t outlen);

/* Reads an array or map header; the count is checked against the bytes that remain (every
 * element needs at least one byte, two for a map entry). */
uint32_t mp_read_array(struct mp_cursor *c);
uint32_t mp_read_map(struct mp_cursor *c);

/* Skips one object of any type, with its contents, iteratively (nesting depth bounded). */
void mp_skip(struct mp_cursor *c);

/* Marks the cursor failed with msg (the first error is kept). */
void mp_fail(struct mp_cursor *c, const char *msg);

#endif /* PWZ_MPACK_H */
