// SPDX-License-Identifier: GPL-2.0
/* A growable byte buffer with JSON and HTML writers that escape capture strings for their context. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "json.h"

void jbuf_free(struct jbuf *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

static bool jbuf_reserve(struct jbuf *b, size_t more)
{
	size_t need, cap;
	char *p;

	if (b->err)
		return false;
	if (more > SIZE_MAX / 2 - b->len) {
		b->err = -ENOMEM;
		return false;
	}
	need = b->len + more + 1;
	if (need <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < need)
		cap *= 2;
	p = realloc(b->buf, cap);
	if (!p) {
		b->err = -ENOMEM;
		return false;
	}
	b->buf = p;
	b->cap = cap;
	return true;
}

void jbuf_add(struct jbuf *b, const void *p, size_t n)
{
	if (!jbuf_reserve(b, n))
		return;
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void jbuf_puts(struct jbuf *b, const char *s)
{
	jbuf_add(b, s, strlen(s));
}

void jbuf_printf(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		if (!b->err)
			b->err = -EINVAL;
		return;
	}
	if (!jbuf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len, i;
	uint32_t cp;

	if (n == 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static const char hexdig[] = "0123456789abcdef";

void jbuf_json_str(struct jbuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t i = 0, l;
	char esc[7];

	if (n == (size_t)-1)
		n = strlen((const char *)p);
	jbuf_add(b, "\"", 1);
	while (i < n) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			jbuf_add(b, esc, 2);
			i++;
		} else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f) {
			switch (c) {
			case '\n': jbuf_add(b, "\\n", 2); break;
			case '\t': jbuf_add(b, "\\t", 2); break;
			case '\r': jbuf_add(b, "\\r", 2); break;
			default:
				memcpy(esc, "\\u00", 4);
				esc[4] = hexdig[c >> 4];
				esc[5] = hexdig[c & 15];
				jbuf_add(b, esc, 6);
			}
			i++;
		} else if (c < 0x80) {
			size_t j = i;

			/* copy a run of plain ASCII at once */
			while (j < n && p[j] >= 0x20 && p[j] < 0x7f && p[j] != '"' && p[j] != '\\' &&
			       p[j] != '<' && p[j] != '>' && p[j] != '&')
				j++;
			jbuf_add(b, p + i, j - i);
			i = j;
		} else {
			l = utf8_seq_len(p + i, n - i);
			if (!l) {
				jbuf_add(b, "\\ufffd", 6);
				i++;
			} else if (l == 3 && p[i] == 0xe2 && p[i + 1] == 0x80 &&
				   (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
				jbuf_add(b, p[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
				i += 3;
			} else {
				jbuf_add(b, p + i, l);
				i += l;
			}
		}
	}
	jbuf_add(b, "\"", 1);
}

void jbuf_u64(struct jbuf *b, uint64_t v)
{
	char tmp[24];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jbuf_add(b, tmp + i, sizeof(tmp) - (size_t)i);
}

void jbuf_u64_array(struct jbuf *b, const uint64_t *v, size_t n)
{
	jbuf_add(b, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			jbuf_add(b, ",", 1);
		jbuf_u64(b, v ? v[i] : 0);
	}
	jbuf_add(b, "]", 1);
}

void jbuf_i64(struct jbuf *b, int64_t v)
{
	if (v < 0) {
		jbuf_add(b, "-", 1);
		jbuf_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		jbuf_u64(b, (uint64_t)v);
	}
}

void jbuf_double(struct jbuf *b, double v)
{
	if (!isfinite(v))
		v = 0;
	if (v == (double)(int64_t)v && fabs(v) < 1e15)
		jbuf_i64(b, (int64_t)v);
	else
		jbuf_printf(b, "%.10g", v);
}

void jbuf_html_text(struct jbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), i = 0, l;

	while (i < n) {
		unsigned char c = p[i];

		switch (c) {
		case '&': jbuf_puts(b, "&amp;"); i++; continue;
		case '<': jbuf_puts(b, "&lt;"); i++; continue;
		case '>': jbuf_puts(b, "&gt;"); i++; continue;
		case '"': jbuf_puts(b, "&quot;"); i++; continue;
		case '\'': jbuf_puts(b, "&#39;"); i++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			if (c == '\t' || c == '\n')
				jbuf_add(b, p + i, 1);
			i++;
			continue;
		}
		l = utf8_seq_len(p + i, n - i);
		if (!l) {
			jbuf_puts(b, "\xef\xbf\xbd");
			i++;
		} else {
			jbuf_add(b, p + i, l);
			i += l;
		}
	}
}

static const char b64dig[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void jbuf_base64(struct jbuf *b, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t i, o;
	char *d;

	if (!jbuf_reserve(b, (n + 2) / 3 * 4))
		return;
	d = b->buf + b->len;
	for (i = 0, o = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		d[o++] = b64dig[v >> 18];
		d[o++] = b64dig[(v >> 12) & 63];
		d[o++] = b64dig[(v >> 6) & 63];
		d[o++] = b64dig[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);

		d[o++] = b64dig[v >> 18];
		d[o++] = b64dig[(v >> 12) & 63];
		d[o++] = i + 1 < n ? b64dig[(v >> 6) & 63] : '=';
		d[o++] = '=';
	}
	b->len += o;
	b->buf[b->len] = '\0';
}

int jbuf_gzip(struct jbuf *out, const void *p, size_t n)
{
	z_stream zs;
	int rc;

	memset(&zs, 0, sizeof(zs));
	/* windowBits 15 + 16: a gzip header and trailer instead of zlib's */
	/* level 6 for small pages; the fastest level where it would take seconds */
	if (deflateInit2(&zs, n > (16u << 20) ? 1 : 6, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)p;
	do {
		size_t chunk = n > (1u << 30) ? (1u << 30) : n;

		zs.avail_in = (uInt)chunk;
		n -= chunk;
		do {
			if (!jbuf_reserve(out, 1 << 16)) {
				deflateEnd(&zs);
				return out->err;
			}
			zs.next_out = (Bytef *)out->buf + out->len;
			zs.avail_out = 1 << 16;
			rc = deflate(&zs, n ? Z_NO_FLUSH : Z_FINISH);
			if (rc == Z_STREAM_ERROR) {
				deflateEnd(&zs);
				return -EIO;
			}
			out->len += (1 << 16) - zs.avail_out;
		} while (zs.avail_out == 0 || (!n && rc != Z_STREAM_END));
	} while (n);
	deflateEnd(&zs);
	if (out->buf)
		out->buf[out->len] = '\0';
	return 0;
}

void jbuf_str_or_null(struct jbuf *b, const char *s)
{
	if (s)
		jbuf_json_str(b, s, (size_t)-1);
	else
		jbuf_puts(b, "null");
}

void jbuf_key(struct jbuf *b, const char *k, bool first)
{
	if (!first)
		jbuf_puts(b, ",");
	jbuf_json_str(b, k, (size_t)-1);
	jbuf_puts(b, ":");
}

void jbuf_member_u64(struct jbuf *b, const char *k, uint64_t v)
{
	jbuf_key(b, k, false);
	jbuf_u64(b, v);
}

void jbuf_member_u64_or_null(struct jbuf *b, const char *k, uint64_t v, bool known)
{
	jbuf_key(b, k, false);
	if (known)
		jbuf_u64(b, v);
	else
		jbuf_puts(b, "null");
}

void jbuf_member_str(struct jbuf *b, const char *k, const char *s)
{
	jbuf_key(b, k, false);
	jbuf_str_or_null(b, s);
}

void jbuf_member_double(struct jbuf *b, const char *k, double v)
{
	jbuf_key(b, k, false);
	jbuf_double(b, v);
}
