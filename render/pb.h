/* SPDX-License-Identifier: GPL-2.0 */
/* A small protocol buffers encoder: varints, zigzag, length-delimited nested messages, packed fields. */
#ifndef PWZ_PB_H
#define PWZ_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A growable output buffer. A zeroed struct is an empty buffer. Appends never fail visibly:
 * on allocation failure the buffer sets err and ignores further appends, so that a caller
 * checks once, at the end (as json.h's jbuf). Bytes are protobuf wire format (proto2/proto3
 * alike): no field is checked against a schema.
 */
struct pb_buf {
	uint8_t *data;		/* the bytes written */
	size_t len;		/* bytes in data */
	size_t cap;		/* allocated bytes */
	bool err;		/* an allocation failed: the content is incomplete */
};

/* Wire types. */
enum pb_wire {
	PB_VARINT = 0,
	PB_FIXED64 = 1,
	PB_LEN = 2,
	PB_FIXED32 = 5,
};

/* Frees the storage and zeroes b; NULL is a no-op. */
void pb_free(struct pb_buf *b);

/* Empties b and keeps its storage. */
static inline void pb_reset(struct pb_buf *b)
{
	b->len = 0;
}

/* Bytes a varint of v takes (1 to 10). */
static inline unsigned int pb_varint_len(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Writes the varint of v at p, which has room for pb_varint_len(v) bytes (10 always do), and
 * returns the byte after it. For callers that size a message first and write it in place. */
static inline uint8_t *pb_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Zigzag of v (for sint32/sint64): 0 -> 0, -1 -> 1, 1 -> 2, -2 -> 3, ... */
static inline uint64_t pb_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* Makes room for n more bytes; false (b->err set) when it cannot. */
bool pb_grow(struct pb_buf *b, size_t n);

/* Room for n more bytes: a pointer to b->data + b->len, or NULL (b->err set). The caller
 * writes at most n bytes there and then calls pb_commit() with the end of what it wrote. */
static inline uint8_t *pb_room(struct pb_buf *b, size_t n)
{
	if ((b->err || b->len + n > b->cap) && !pb_grow(b, n))
		return NULL;
	return b->data + b->len;
}

static inline void pb_commit(struct pb_buf *b, const uint8_t *end)
{
	b->len = (size_t)(end - b->data);
}

/* Raw bytes. */
void pb_raw(struct pb_buf *b, const void *p, size_t n);

/* A bare varint (no tag): the element of a packed field. Inline: it is the hot path. */
static inline void pb_varint(struct pb_buf *b, uint64_t v)
{
	uint8_t *p;

	if ((b->err || b->len + 10 > b->cap) && !pb_grow(b, 10))
		return;
	p = b->data + b->len;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->len = (size_t)(p - b->data);
}
/* A field key: (field << 3) | wire. */
static inline void pb_tag(struct pb_buf *b, uint32_t field, enum pb_wire wire)
{
	pb_varint(b, ((uint64_t)field << 3) | (uint64_t)wire);
}

/* Scalar fields. pb_uint: uint32/uint64/bool/enum; pb_int: int32/int64 (a negative value takes
 * 10 bytes, as protobuf sign-extends to 64 bits); pb_sint: sint32/sint64 (zigzag). */
static inline void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

static inline void pb_int(struct pb_buf *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

static inline void pb_sint(struct pb_buf *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, pb_zigzag(v));
}
void pb_fixed64(struct pb_buf *b, uint32_t field, uint64_t v);

/* Length-delimited fields: bytes, a NUL-terminated string, or packed elements already encoded
 * in src (its bytes are copied; an empty src writes nothing, as protobuf omits empty packed
 * fields). */
void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n);
void pb_str(struct pb_buf *b, uint32_t field, const char *s);
void pb_packed(struct pb_buf *b, uint32_t field, const struct pb_buf *src);

/*
 * Nested messages: pb_begin() writes the key and reserves one byte for the length, and returns
 * a mark to give to pb_end(), which writes the length of what was appended since (moving the
 * content when the length needs more than one byte, so the encoding stays minimal). Begin/end
 * pairs nest like parentheses.
 */
size_t pb_begin(struct pb_buf *b, uint32_t field);
void pb_end(struct pb_buf *b, size_t mark);

#endif /* PWZ_PB_H */
