// SPDX-License-Identifier: GPL-2.0
/* A bounds-checked msgpack cursor for reading untrusted input. */
#include <string.h>
#include "mpack.h"

#define MP_MAX_DEPTH 64

void mp_init(struct mp_cursor *c, const void *buf, size_t len)
{
	c->p = c->base = buf;
	c->end = c->p + len;
	c->err = NULL;
}

size_t mp_offset(const struct mp_cursor *c)
{
	return (size_t)(c->p - c->base);
}

void mp_fail(struct mp_cursor *c, const char *msg)
{
	if (!c->err)
		c->err = msg;
	c->p = c->end;
}

bool mp_at_end(const struct mp_cursor *c)
{
	return !c->err && c->p >= c->end;
}

static bool need(struct mp_cursor *c, size_t n)
{
	if (c->err)
		return false;
	if ((size_t)(c->end - c->p) < n) {
		mp_fail(c, "msgpack object runs past the end of its chunk");
		return false;
	}
	return true;
}

const uint8_t mp_type_of[256] = {
	[0x00 ... 0x7f] = MP_UINT,	/* positive fixint */
	[0x80 ... 0x8f] = MP_MAP,	/* fixmap */
	[0x90 ... 0x9f] = MP_ARRAY,	/* fixarray */
	[0xa0 ... 0xbf] = MP_STR,	/* fixstr */
	[0xc0] = MP_NIL,
	[0xc1] = MP_INVALID,		/* never used */
	[0xc2 ... 0xc3] = MP_BOOL,
	[0xc4 ... 0xc6] = MP_BIN,
	[0xc7 ... 0xc9] = MP_EXT,
	[0xca ... 0xcb] = MP_FLOAT,
	[0xcc ... 0xcf] = MP_UINT,
	[0xd0 ... 0xd3] = MP_INT,
	[0xd4 ... 0xd8] = MP_EXT,	/* fixext */
	[0xd9 ... 0xdb] = MP_STR,
	[0xdc ... 0xdd] = MP_ARRAY,
	[0xde ... 0xdf] = MP_MAP,
	[0xe0 ... 0xff] = MP_INT,	/* negative fixint */
};

/* Reads an integer of either sign into *u (as two's complement) and *neg. */
static bool read_integer(struct mp_cursor *c, uint64_t *u, bool *neg)
{
	size_t len = mp_uint_at(c, u);	/* the unsigned forms wholly there */
	uint8_t b;
	int n;

	*neg = false;
	if (len) {
		c->p += len;
		return true;
	}
	if (!need(c, 1))
		return false;
	b = *c->p;
	if (b >= 0xe0) {
		c->p++;
		*u = (uint64_t)(int64_t)(int8_t)b;
		*neg = true;
		return true;
	}
	if (b >= 0xcc && b <= 0xcf) {	/* cut short (mp_uint_at() took the others) */
		need(c, 1 + ((size_t)1 << (b - 0xcc)));
		return false;
	}
	if (b >= 0xd0 && b <= 0xd3) {
		int64_t s;

		n = 1 << (b - 0xd0);
		if (!need(c, 1 + n))
			return false;
		*u = mp_be(c->p + 1, n);
		if (n < 8 && (*u >> (n * 8 - 1)) & 1)
			*u |= ~0ULL << (n * 8);
		s = (int64_t)*u;
		*neg = s < 0;
		c->p += 1 + n;
		return true;
	}
	mp_fail(c, "expected an integer");
	return false;
}

uint64_t mp_read_uint_any(struct mp_cursor *c)
{
	uint64_t u;
	bool neg;

	if (!read_integer(c, &u, &neg))
		return 0;
	if (neg) {
		mp_fail(c, "negative integer where a count or size was expected");
		return 0;
	}
	return u;
}

int64_t mp_read_int_any(struct mp_cursor *c)
{
	uint64_t u;
	bool neg;

	if (!read_integer(c, &u, &neg))
		return 0;
	if (!neg && u > INT64_MAX) {
		mp_fail(c, "integer out of range");
		return 0;
	}
	return (int64_t)u;
}

bool mp_read_bool(struct mp_cursor *c)
{
	if (!need(c, 1))
		return false;
	if (*c->p == 0xc2 || *c->p == 0xc3)
		return *c->p++ == 0xc3;
	mp_fail(c, "expected a boolean");
	return false;
}

void mp_read_nil(struct mp_cursor *c)
{
	if (!need(c, 1))
		return;
	if (*c->p == 0xc0)
		c->p++;
	else
		mp_fail(c, "expected nil");
}

const uint8_t *mp_read_bytes_any(struct mp_cursor *c, uint32_t *len)
{
	const uint8_t *data;
	uint8_t b;
	int n = 0;

	*len = 0;
	if (!need(c, 1))
		return NULL;
	b = *c->p;
	if ((b & 0xe0) == 0xa0) {
		*len = b & 0x1f;
	} else if (b == 0xd9 || b == 0xc4) {
		n = 1;
	} else if (b == 0xda || b == 0xc5) {
		n = 2;
	} else if (b == 0xdb || b == 0xc6) {
		n = 4;
	} else {
		mp_fail(c, "expected a string");
		return NULL;
	}
	if (!need(c, 1 + n))
		return NULL;
	if (n)
		*len = (uint32_t)mp_be(c->p + 1, n);
	if (!need(c, 1 + n + (size_t)*len)) {
		*len = 0;
		return NULL;
	}
	data = c->p + 1 + n;
	c->p += 1 + n + *len;
	return data;
}

void mp_read_string(struct mp_cursor *c, char *out, size_t outlen)
{
	uint32_t len;
	const uint8_t *data = mp_read_bytes(c, &len);

	if (!outlen)
		return;
	if (!data)
		len = 0;
	if (len > outlen - 1)
		len = (uint32_t)(outlen - 1);
	if (len)
		memcpy(out, data, len);
	out[len] = '\0';
}

static uint32_t read_container(struct mp_cursor *c, bool map)
{
	uint8_t b, fix = map ? 0x80 : 0x90, b16 = map ? 0xde : 0xdc, b32 = map ? 0xdf : 0xdd;
	uint32_t n;

	if (!need(c, 1))
		return 0;
	b = *c->p;
	if ((b & 0xf0) == fix) {
		n = b & 0x0f;
		c->p++;
	} else if (b == b16 && need(c, 3)) {
		n = (uint32_t)mp_be(c->p + 1, 2);
		c->p += 3;
	} else if (b == b32 && need(c, 5)) {
		n = (uint32_t)mp_be(c->p + 1, 4);
		c->p += 5;
	} else {
		mp_fail(c, map ? "expected a map" : "expected an array");
		return 0;
	}
	if ((uint64_t)n * (map ? 2 : 1) > (uint64_t)(c->end - c->p)) {
		mp_fail(c, "element count larger than the bytes that remain");
		return 0;
	}
	return n;
}

uint32_t mp_read_array(struct mp_cursor *c)
{
	return read_container(c, false);
}

uint32_t mp_read_map(struct mp_cursor *c)
{
	return read_container(c, true);
}

void mp_skip(struct mp_cursor *c)
{
	uint64_t pending[MP_MAX_DEPTH];	/* objects still to skip at each level */
	int depth = 0;
	uint32_t len;
	uint8_t b;

	pending[0] = 1;
	while (!c->err) {
		if (!pending[depth]) {
			if (!depth)
				return;
			depth--;
			continue;
		}
		pending[depth]--;
		switch (mp_peek(c)) {
		case MP_NIL:
		case MP_BOOL:
			c->p++;
			break;
		case MP_UINT:
		case MP_INT: {
			uint64_t u;
			bool neg;

			read_integer(c, &u, &neg);
			break;
		}
		case MP_FLOAT:
			b = *c->p;
			if (need(c, b == 0xca ? 5 : 9))
				c->p += b == 0xca ? 5 : 9;
			break;
		case MP_STR:
		case MP_BIN:
			mp_read_bytes(c, &len);
			break;
		case MP_ARRAY:
		case MP_MAP: {
			bool map = mp_peek(c) == MP_MAP;
			uint32_t n = read_container(c, map);

			if (depth + 1 >= MP_MAX_DEPTH) {
				mp_fail(c, "msgpack nesting too deep");
				return;
			}
			pending[++depth] = (uint64_t)n * (map ? 2 : 1);
			break;
		}
		case MP_EXT: {
			static const int fixlen[] = { 1, 2, 4, 8, 16 };
			uint64_t n;
			int hdr;

			b = *c->p;
			if (b >= 0xd4 && b <= 0xd8) {
				n = (uint64_t)fixlen[b - 0xd4];
				hdr = 2;
			} else {
				int w = 1 << (b - 0xc7);

				if (!need(c, 1 + w))
					return;
				n = mp_be(c->p + 1, (size_t)w);
				hdr = 2 + w;
			}
			if (need(c, hdr + n))
				c->p += hdr + n;
			break;
		}
		default:
			mp_fail(c, c->p >= c->end ? "msgpack object runs past the end of its chunk" :
						    "invalid msgpack type byte");
			return;
		}
	}
}
