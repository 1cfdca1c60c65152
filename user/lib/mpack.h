/* SPDX-License-Identifier: GPL-2.0 */
/* A bounds-checked msgpack cursor for reading untrusted input (writing uses msgpack-c). */
#ifndef PWZ_MPACK_H
#define PWZ_MPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
extern const uint8_t mp_type_of[256];	/* enum mp_type of each first byte */
static inline enum mp_type mp_peek(const struct mp_cursor *c)
{
	if (c->err || c->p >= c->end)
		return MP_INVALID;
	return (enum mp_type)mp_type_of[*c->p];
}

/* True when no bytes remain (and no error). */
bool mp_at_end(const struct mp_cursor *c);

/* The big-endian integer of n bytes at p (1, 2, 4 or 8: what msgpack has). */
static inline uint64_t mp_be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint16_t v16;
	uint32_t v32;

	switch (n) {
	case 1:
		return p[0];
	case 2:
		memcpy(&v16, p, 2);
		return __builtin_bswap16(v16);
	case 4:
		memcpy(&v32, p, 4);
		return __builtin_bswap32(v32);
	case 8:
		memcpy(&v, p, 8);
		return __builtin_bswap64(v);
	}
#endif
	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The length of the unsigned integer at the cursor when it is a positive fixint or a uint 8,
 * 16, 32 or 64 wholly there (the objects of a record's fields), with its value in *v; 0 for
 * anything else, and on a failed cursor. Consumes nothing. */
static inline size_t mp_uint_at(const struct mp_cursor *c, uint64_t *v)
{
	const uint8_t *p = c->p;
	size_t n;

	if (c->err || p >= c->end)
		return 0;
	if (*p <= 0x7f) {
		*v = *p;
		return 1;
	}
	if (*p < 0xcc || *p > 0xcf)
		return 0;
	n = (size_t)1 << (*p - 0xcc);
	if ((size_t)(c->end - p) <= n)
		return 0;
	*v = mp_be(p + 1, n);
	return 1 + n;
}

/* Reads an unsigned integer (negative values fail). The forms of mp_uint_at() are read
 * inline; the rest, and every failure, in mp_read_uint_any(). */
uint64_t mp_read_uint_any(struct mp_cursor *c);
static inline uint64_t mp_read_uint(struct mp_cursor *c)
{
	uint64_t v;
	size_t n = mp_uint_at(c, &v);

	if (!n)
		return mp_read_uint_any(c);
	c->p += n;
	return v;
}

/* Reads any integer as signed (uint values above INT64_MAX fail); inline as mp_read_uint(),
 * the rest in mp_read_int_any(). */
int64_t mp_read_int_any(struct mp_cursor *c);
static inline int64_t mp_read_int(struct mp_cursor *c)
{
	uint64_t v;
	size_t n = mp_uint_at(c, &v);

	if (!n || v > INT64_MAX)
		return mp_read_int_any(c);
	c->p += n;
	return (int64_t)v;
}

bool mp_read_bool(struct mp_cursor *c);

/* Reads nil; fails if the next object is not nil. */
void mp_read_nil(struct mp_cursor *c);

/* Reads a str or bin header and returns a pointer to its bytes (not NUL-terminated) in the
 * buffer, with *len set. A fixstr wholly there is read inline; the rest, and every failure,
 * in mp_read_bytes_any(). */
const uint8_t *mp_read_bytes_any(struct mp_cursor *c, uint32_t *len);
static inline const uint8_t *mp_read_bytes(struct mp_cursor *c, uint32_t *len)
{
	const uint8_t *p = c->p;

	if (c->err || p >= c->end || (*p & 0xe0) != 0xa0 || (size_t)(c->end - p) <= (*p & 0x1fu))
		return mp_read_bytes_any(c, len);
	*len = *p & 0x1fu;
	c->p += 1 + *len;
	return p + 1;
}

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
