// SPDX-License-Identifier: GPL-2.0
/* Strings made safe for a terminal: controls and invalid UTF-8 shown as visible escapes. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "records.h"
#include "termsafe.h"

_Static_assert(TERMSAFE_NAME_MAX >= 4 * (PWZ_NAME_MAX - 1) + 1, "a whole name fits");

size_t termsafe_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return len;
}

/* Appends the unit piece (k bytes) when it fits whole; counts it either way. */
static void put(char *dst, size_t size, size_t *at, bool *full, const char *piece, size_t k)
{
	if (!*full && *at + k < size)
		memcpy(dst + *at, piece, k);
	else
		*full = true;
	*at += k;
}

size_t termsafe(char *dst, size_t dst_size, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t at = 0, written = 0, i = 0;
	bool full = false;

	while (i < len && s[i]) {
		char esc[6];
		size_t k;

		if (s[i] < 0x20 || s[i] == 0x7f) {
			memcpy(esc, "\\x", 2);
			esc[2] = hex[s[i] >> 4];
			esc[3] = hex[s[i] & 15];
			put(dst, dst_size, &at, &full, esc, 4);
			i++;
		} else if (s[i] < 0x80) {
			put(dst, dst_size, &at, &full, (const char *)s + i, 1);
			i++;
		} else if (!(k = termsafe_utf8_len(s + i, len - i))) {
			memcpy(esc, "\\x", 2);
			esc[2] = hex[s[i] >> 4];
			esc[3] = hex[s[i] & 15];
			put(dst, dst_size, &at, &full, esc, 4);
			i++;
		} else if (s[i] == 0xc2 && s[i + 1] < 0xa0) {
			/* U+0080..U+009F: the C1 controls (CSI, OSC, ...) */
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[s[i + 1] >> 4];
			esc[5] = hex[s[i + 1] & 15];
			put(dst, dst_size, &at, &full, esc, 6);
			i += 2;
		} else {
			put(dst, dst_size, &at, &full, (const char *)s + i, k);
			i += k;
		}
		if (!full)
			written = at;
	}
	if (dst_size)
		dst[written] = '\0';
	return at;
}

const char *termsafe_str(char *buf, size_t size, const char *s)
{
	if (!s)
		s = "(null)";
	termsafe(buf, size, s, strlen(s));
	return buf;
}
