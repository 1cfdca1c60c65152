// SPDX-License-Identifier: GPL-2.0
/* A small protocol buffers encoder: varints, zigzag, length-delimited nested messages, packed fields. */
#include <stdlib.h>
#include <string.h>
#include "pb.h"

void pb_free(struct pb_buf *b)
{
	if (!b)
		return;
	free(b->data);
	memset(b, 0, sizeof(*b));
}

bool pb_grow(struct pb_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err)
		return false;
	if (b->len + n <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->err = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void pb_raw(struct pb_buf *b, const void *p, size_t n)
{
	if (!n || !pb_grow(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void pb_fixed64(struct pb_buf *b, uint32_t field, uint64_t v)
{
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	pb_tag(b, field, PB_FIXED64);
	pb_raw(b, le, sizeof(le));
}

void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n)
{
	pb_tag(b, field, PB_LEN);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

void pb_str(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_packed(struct pb_buf *b, uint32_t field, const struct pb_buf *src)
{
	if (src->err)
		b->err = true;
	if (src->len)
		pb_bytes(b, field, src->data, src->len);
}

size_t pb_begin(struct pb_buf *b, uint32_t field)
{
	pb_tag(b, field, PB_LEN);
	if (pb_grow(b, 1))
		b->data[b->len++] = 0;
	return b->len;		/* content starts here; its length byte is just before */
}

void pb_end(struct pb_buf *b, size_t mark)
{
	size_t n, extra;
	unsigned int w;

	if (b->err || mark == 0 || mark > b->len)
		return;
	n = b->len - mark;
	w = pb_varint_len(n);
	extra = w - 1;
	if (extra) {
		if (!pb_grow(b, extra))
			return;
		memmove(b->data + mark + extra, b->data + mark, n);
		b->len += extra;
	}
	pb_put_varint(b->data + mark - 1, n);
}
