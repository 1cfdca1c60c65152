/* SPDX-License-Identifier: GPL-2.0 */
/* A growable byte buffer with JSON and HTML writers that escape capture strings for their context. */
#ifndef PWZ_JSON_H
#define PWZ_JSON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A buffer that grows as it is written. Writers never fail one by one: the first allocation
 * failure sets err (-ENOMEM) and later writes are ignored, so a caller checks once at the end.
 * buf is always NUL-terminated when len > 0 and err == 0.
 */
struct jbuf {
	char *buf;		/* the bytes written, owned */
	size_t len;		/* bytes used */
	size_t cap;		/* bytes allocated */
	int err;		/* 0, or the first -errno met */
};

/* Frees the bytes and zeroes b. */
void jbuf_free(struct jbuf *b);

/* Appends n raw bytes / a C string / formatted text, unescaped (for our own markup only). */
void jbuf_add(struct jbuf *b, const void *p, size_t n);
void jbuf_puts(struct jbuf *b, const char *s);
void jbuf_printf(struct jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Appends s (n bytes, or up to its NUL when n == (size_t)-1) as a quoted JSON string that is
 * also safe inside an HTML <script> element: '"' and '\' are escaped, control characters
 * become \u00XX, '<', '>', '&' and U+2028/U+2029 become \uXXXX (so "</script>" or "<!--"
 * can never close or alter the element), and every byte that is not part of a valid UTF-8
 * sequence becomes U+FFFD. The result is always valid JSON and valid UTF-8.
 */
void jbuf_json_str(struct jbuf *b, const char *s, size_t n);

/* Appends s as jbuf_json_str() does, or null when s is NULL. */
void jbuf_str_or_null(struct jbuf *b, const char *s);

/* Appends the object key k and its colon ("k":), after a comma unless first. */
void jbuf_key(struct jbuf *b, const char *k, bool first);

/* Appends a member after the first of its object: ,"k": and then v as jbuf_u64(),
 * jbuf_str_or_null() or jbuf_double() writes it; _u64_or_null writes null when !known. */
void jbuf_member_u64(struct jbuf *b, const char *k, uint64_t v);
void jbuf_member_u64_or_null(struct jbuf *b, const char *k, uint64_t v, bool known);
void jbuf_member_str(struct jbuf *b, const char *k, const char *s);
void jbuf_member_double(struct jbuf *b, const char *k, double v);

/* Appends an unsigned / signed integer, or a double with up to 10 significant digits
 * (non-finite values are written as 0, JSON has no NaN). */
void jbuf_u64(struct jbuf *b, uint64_t v);
void jbuf_i64(struct jbuf *b, int64_t v);
void jbuf_double(struct jbuf *b, double v);

/* Appends a JSON array of the n integers at v ([] when n is 0; zeros when v is NULL). */
void jbuf_u64_array(struct jbuf *b, const uint64_t *v, size_t n);

/*
 * Appends s as HTML text (for element content and quoted attribute values): '&', '<', '>',
 * '"' and '\'' become entities, control characters other than tab and newline are dropped,
 * invalid UTF-8 bytes become U+FFFD.
 */
void jbuf_html_text(struct jbuf *b, const char *s);

/*
 * Appends the standard base64 encoding (with padding) of n bytes at p.
 */
void jbuf_base64(struct jbuf *b, const void *p, size_t n);

/*
 * Compresses n bytes at p into a gzip stream (RFC 1952, as DecompressionStream("gzip") reads)
 * appended to out: level 6, or level 1 above 16 MiB of input (speed over size there).
 * Returns 0 or -errno (-ENOMEM, -EIO on a zlib error).
 */
int jbuf_gzip(struct jbuf *out, const void *p, size_t n);

/* Length of the valid UTF-8 sequence starting at s (at most n bytes), or 0 if s does not
 * start one (overlong forms, surrogates and code points above U+10FFFF are invalid). */
size_t utf8_seq_len(const unsigned char *s, size_t n);

#endif /* PWZ_JSON_H */
