/* SPDX-License-Identifier: GPL-2.0 */
/* One rule for every string from a capture or a file that reaches a terminal. */
#ifndef PWZ_TERMSAFE_H
#define PWZ_TERMSAFE_H

#include <stddef.h>

/*
 * Thread names, host names, event names and paths come from the traced system or from a
 * file someone handed over: printed raw, their control bytes drive the terminal (ESC [ ...,
 * OSC 8 links, title changes, U+009B CSI, U+009D OSC). termsafe() copies src into dst and
 * replaces what a terminal would interpret with a visible escape:
 *   - C0 controls (0x00..0x1f, tab and newline included) and DEL: "\xNN" (ESC is "\x1b");
 *   - C1 controls encoded in UTF-8 (U+0080..U+009F, bytes c2 80..c2 9f): "\u00NN"
 *     (U+009B is "\u009b");
 *   - each byte of invalid UTF-8 (stray continuation bytes, overlong forms, surrogates,
 *     code points past U+10FFFF, sequences cut short, raw 8-bit C1 bytes): "\xNN".
 * Everything else, printable ASCII and valid UTF-8 of U+00A0 and up, is copied as it is.
 * The HTML pages use their own escaping, not this.
 *
 * src holds len bytes (it stops earlier at a NUL byte). dst (dst_size bytes) is always
 * NUL-terminated when dst_size > 0 and is cut only between whole characters or escapes.
 * Returns the length the whole result needs, not counting the NUL (as snprintf does): a
 * return >= dst_size means dst was cut. Never allocates, never fails.
 */
size_t termsafe(char *dst, size_t dst_size, const char *src, size_t len);

/*
 * Length of the valid multi-byte UTF-8 sequence at s (n bytes left, n > 0), or 0 when the byte
 * at s does not start one (ASCII included): the well-formed table of Unicode 15 section 3.9 (no
 * overlong forms, no surrogates, nothing past U+10FFFF). The one UTF-8 rule of the library.
 */
size_t termsafe_utf8_len(const unsigned char *s, size_t n);

/* termsafe() of the NUL-terminated s into buf; returns buf (for printf arguments). A NULL s
 * gives "(null)". */
const char *termsafe_str(char *buf, size_t size, const char *s);

/* Room for a whole sanitized name of PWZ_NAME_MAX bytes: no byte becomes more than 4. */
#define TERMSAFE_NAME_MAX 1024

#endif /* PWZ_TERMSAFE_H */
