/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the record-stream harnesses: a msgpack record stream wrapped into a valid v2 file. */
#ifndef PWZ_FUZZ_WRAP_H
#define PWZ_FUZZ_WRAP_H

#include <lz4frame.h>
#include <stdbool.h>
#include "cdict_format.h"
#include "fuzz_common.h"

/* Big-endian integer of n bytes at p. */
static inline uint64_t fuzz_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * Length of the msgpack object at data[off..size), or 0 when it does not fit. Independent of
 * the reader under test and iterative: containers add their element count to the objects
 * still to skip, so neither depth nor a huge count costs stack or memory.
 */
static inline size_t fuzz_skip_object(const uint8_t *data, size_t size, size_t off)
{
	uint64_t todo = 1;
	size_t start = off;

	while (todo) {
		uint8_t b;
		uint64_t body = 0, items = 0;
		int hdr = 1;

		if (off >= size)
			return 0;
		b = data[off];
		todo--;
		if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
			;
		else if ((b & 0xf0) == 0x80)
			items = 2ull * (b & 0x0f);
		else if ((b & 0xf0) == 0x90)
			items = b & 0x0f;
		else if ((b & 0xe0) == 0xa0)
			body = b & 0x1f;
		else {
			static const struct { uint8_t code; int len; int kind; } t[] = {
				/* kind: 0 fixed body, 1 length-prefixed body, 2 array, 3 map, 4 ext */
				{ 0xc4, 1, 1 }, { 0xc5, 2, 1 }, { 0xc6, 4, 1 }, { 0xc7, 1, 4 },
				{ 0xc8, 2, 4 }, { 0xc9, 4, 4 }, { 0xca, 4, 0 }, { 0xcb, 8, 0 },
				{ 0xcc, 1, 0 }, { 0xcd, 2, 0 }, { 0xce, 4, 0 }, { 0xcf, 8, 0 },
				{ 0xd0, 1, 0 }, { 0xd1, 2, 0 }, { 0xd2, 4, 0 }, { 0xd3, 8, 0 },
				{ 0xd4, 2, 0 }, { 0xd5, 3, 0 }, { 0xd6, 5, 0 }, { 0xd7, 9, 0 },
				{ 0xd8, 17, 0 }, { 0xd9, 1, 1 }, { 0xda, 2, 1 }, { 0xdb, 4, 1 },
				{ 0xdc, 2, 2 }, { 0xdd, 4, 2 }, { 0xde, 2, 3 }, { 0xdf, 4, 3 },
			};
			size_t i;

			for (i = 0; i < sizeof(t) / sizeof(t[0]) && t[i].code != b; i++)
				;
			if (i == sizeof(t) / sizeof(t[0]))
				return 0;	/* 0xc1: never used */
			if (t[i].kind == 0) {
				body = (uint64_t)t[i].len;
			} else {
				if (off + 1 + (size_t)t[i].len > size)
					return 0;
				hdr += t[i].len;
				if (t[i].kind == 1)
					body = fuzz_be(data + off + 1, t[i].len);
				else if (t[i].kind == 4)
					body = fuzz_be(data + off + 1, t[i].len) + 1;
				else
					items = fuzz_be(data + off + 1, t[i].len) << (t[i].kind == 3);
			}
		}
		if (body > size - off - (size_t)hdr)
			return 0;
		off += (size_t)hdr + (size_t)body;
		if (items > size - off)
			return 0;	/* every element takes at least a byte */
		todo += items;
	}
	return off - start;
}

/* Counts the whole msgpack objects at the start of data (what the chunk header's count says). */
static inline uint32_t fuzz_count_objects(const uint8_t *data, size_t size)
{
	size_t off = 0, n;
	uint32_t count = 0;

	while (off < size && (n = fuzz_skip_object(data, size, off)) > 0) {
		off += n;
		count++;
	}
	return count;
}

/* The record type of the first record of data (an array whose first element is a positive
 * integer), or 0 when data does not start with one. */
static inline uint32_t fuzz_first_type(const uint8_t *data, size_t size)
{
	size_t off;

	if (size >= 2 && (data[0] & 0xf0) == 0x90)
		off = 1;
	else if (size >= 4 && data[0] == 0xdc)
		off = 3;
	else if (size >= 6 && data[0] == 0xdd)
		off = 5;
	else
		return 0;
	if (off < size && data[off] <= 0x7f)
		return data[off];
	if (off + 1 < size && data[off] == 0xcc)
		return data[off + 1];
	return 0;
}

/*
 * Writes to path a v2 file whose only chunk holds the record stream data[0..size) (LZ4 frame,
 * right lengths and record count, so that the fuzzer spends its time on records, not on
 * checksums). With trailer, the trailer points at that chunk, which must then start with an
 * END record; without, the file reads as cut and its first record must be META: then every
 * record of the chunk, of every type, is delivered. Aborts when it cannot write.
 */
static inline void fuzz_write_chunk_file(const char *path, const uint8_t *data, size_t size,
					 bool trailer)
{
	LZ4F_preferences_t prefs = {
		.frameInfo = { .contentChecksumFlag = LZ4F_contentChecksumEnabled,
			       .contentSize = size },
	};
	size_t bound = LZ4F_compressFrameBound(size, &prefs), flen;
	size_t total = CDICT_HEADER_LEN + CDICT_CHUNK_HDR_LEN + bound + CDICT_TRAILER_LEN;
	unsigned char *buf, *p;

	buf = calloc(1, total);
	if (!buf)
		abort();
	memcpy(buf, CDICT_MAGIC, 8);
	buf[8] = CDICT_VERSION;		/* u16 version, little-endian */
	buf[10] = CDICT_HEADER_LEN;	/* u16 header length; u32 flags stay 0 */
	p = buf + CDICT_HEADER_LEN;
	flen = LZ4F_compressFrame(p + CDICT_CHUNK_HDR_LEN, bound, data, size, &prefs);
	if (LZ4F_isError(flen))
		abort();
	memcpy(p, CDICT_CHUNK_MAGIC, 4);
	cdict_put_le32(p + 4, (uint32_t)flen);
	cdict_put_le32(p + 8, (uint32_t)size);
	cdict_put_le32(p + 12, fuzz_count_objects(data, size));
	p += CDICT_CHUNK_HDR_LEN + flen;
	if (trailer) {
		memcpy(p, CDICT_TRAILER_MAGIC, 8);
		p[8] = CDICT_HEADER_LEN;	/* u64 offset of the END chunk: the only chunk */
		p += CDICT_TRAILER_LEN;
	}
	fuzz_write(path, buf, (size_t)(p - buf));
	free(buf);
}

/* Appends a msgpack uint64 to p; returns the end. */
static inline uint8_t *fuzz_put_u64(uint8_t *p, uint64_t v)
{
	*p++ = 0xcf;
	for (int i = 7; i >= 0; i--)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

/* The most bytes the copies of the amplifier may add: 65,536 copies of a record of up to 7
 * bytes, 36,000 of a 20-byte CPU_AGG, fewer of a longer one. Without it 65,536 copies of a
 * 3 KB META made a 200 MB stream, whose linear read took 1.9 s with ASan; 4,096 TASK records
 * of 255-byte names (each name written some ten times over the list and the pages) take
 * 0.36 s of CPU, so the 15,000 of a 4 MiB cap come near the timeout: linear work that says
 * nothing about the code. */
#define FUZZ_AMPLIFY_BYTES (1u << 20)

/*
 * The amplifier of the record-stream harnesses (fuzz_render.c, fuzz_writers.c say when): the
 * amplified stream is rec, then n copies of its last record (a fixarray of up to 15
 * fields), field f (integers only) increased by the copy's index; n is cut so that the copies
 * take at most FUZZ_AMPLIFY_BYTES. NULL when rec does not end with such a record (nothing to
 * repeat) or out of memory; *outlen gets the length.
 */
static inline uint8_t *fuzz_amplify(const uint8_t *rec, size_t len, size_t n, unsigned int f,
				    size_t *outlen)
{
	size_t off = 0, last = 0, k, fo[16], fl[16];
	unsigned int nf;
	uint8_t *out, *p;

	while (off < len && (k = fuzz_skip_object(rec, len, off)) > 0) {
		last = off;
		off += k;
	}
	if (off != len || !len || (rec[last] & 0xf0) != 0x90)
		return NULL;
	nf = rec[last] & 0x0f;
	off = last + 1;
	for (unsigned int i = 0; i < nf; i++) {
		fo[i] = off;
		fl[i] = fuzz_skip_object(rec, len, off);
		off += fl[i];
	}
	/* each copy: the array byte, then each field raw or as a uint64 (9 bytes) */
	if (n > FUZZ_AMPLIFY_BYTES / (len - last + 9))
		n = FUZZ_AMPLIFY_BYTES / (len - last + 9);
	out = malloc(len + n * (len - last + 9));
	if (!out)
		return NULL;
	memcpy(out, rec, len);
	p = out + len;
	for (size_t c = 1; c <= n; c++) {
		*p++ = rec[last];
		for (unsigned int i = 0; i < nf; i++) {
			const uint8_t *v = rec + fo[i];
			uint64_t x;

			if (i == f && fl[i] <= 9 && (v[0] <= 0x7f || (v[0] >= 0xcc && v[0] <= 0xcf))) {
				x = v[0] <= 0x7f ? v[0] : fuzz_be(v + 1, (int)fl[i] - 1);
				p = fuzz_put_u64(p, x + c);
			} else {
				memcpy(p, v, fl[i]);
				p += fl[i];
			}
		}
	}
	*outlen = (size_t)(p - out);
	return out;
}

#endif /* PWZ_FUZZ_WRAP_H */
