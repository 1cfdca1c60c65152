// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/termsafe.c: the escapes of controls and invalid UTF-8, byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "termsafe.h"

/* termsafe() of the n bytes in; the result must be exactly want (and its length returned). */
static void check(const char *in, size_t n, const char *want)
{
	char out[256];
	size_t r;

	memset(out, 'Z', sizeof(out));
	r = termsafe(out, sizeof(out), in, n);
	assert_string_equal(out, want);
	assert_int_equal(r, strlen(want));
}

static void test_plain_kept(void **state)
{
	(void)state;
	check("kworker/0:1H-kblockd", 20, "kworker/0:1H-kblockd");
	check("a\\b ~", 5, "a\\b ~");
	check("", 0, "");
	/* é (c3 a9), U+00A0 (c2 a0, first after the C1 range), € (e2 82 ac), 😀 (f0 9f 98 80) */
	check("\xc3\xa9\xc2\xa0\xe2\x82\xac\xf0\x9f\x98\x80", 11,
	      "\xc3\xa9\xc2\xa0\xe2\x82\xac\xf0\x9f\x98\x80");
	/* U+10FFFF (f4 8f bf bf), the last code point */
	check("\xf4\x8f\xbf\xbf", 4, "\xf4\x8f\xbf\xbf");
}

static void test_c0_and_del(void **state)
{
	(void)state;
	/* ESC [ 2 J clears the screen: the ESC becomes the 4 bytes \ x 1 b */
	check("\x1b[2Jx", 5, "\\x1b[2Jx");
	check("a\tb\nc\rd", 7, "a\\x09b\\x0ac\\x0dd");
	check("\x01\x1f\x7f", 3, "\\x01\\x1f\\x7f");
	/* a NUL byte ends the string even inside len */
	check("ab\0cd", 5, "ab");
}

static void test_c1_in_utf8(void **state)
{
	(void)state;
	/* U+009B CSI (c2 9b) and U+009D OSC (c2 9d), first and last of the range */
	check("x\xc2\x9b" "31m", 6, "x\\u009b31m");
	check("\xc2\x9d" "0;pwned\xc2\x9c", 11, "\\u009d0;pwned\\u009c");
	check("\xc2\x80\xc2\x9f", 4, "\\u0080\\u009f");
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	/* a raw 8-bit CSI byte, a stray continuation byte, bytes never valid */
	check("\x9b" "1m", 3, "\\x9b1m");
	check("a\x80z", 3, "a\\x80z");
	check("\xc0\xc1\xf5\xff", 4, "\\xc0\\xc1\\xf5\\xff");
	/* overlong "/" (c0 af) and overlong U+009B (e0 82 9b): each byte escaped */
	check("\xc0\xaf", 2, "\\xc0\\xaf");
	check("\xe0\x82\x9b", 3, "\\xe0\\x82\\x9b");
	/* a surrogate (ed a0 80) and a code point past U+10FFFF (f4 90 80 80) */
	check("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");
	check("\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80");
	/* a sequence cut by the end of the input, then by a NUL, then by ASCII */
	check("ok\xe2\x82", 4, "ok\\xe2\\x82");
	check("\xe2\0\xac", 3, "\\xe2");
	check("\xe2\x82z", 3, "\\xe2\\x82z");
	/* a 2-byte lead before a C1 continuation that is not c2: U+00DB is fine */
	check("\xc3\x9b", 2, "\xc3\x9b");
}

static void test_cut_between_units(void **state)
{
	char out[8];
	size_t r;

	(void)state;
	/* "ab" + "\x1b" (4) = 6 bytes + NUL fits 8; one more "c" too */
	r = termsafe(out, sizeof(out), "ab\x1b" "cd", 5);
	assert_int_equal(r, 8);
	assert_string_equal(out, "ab\\x1bc");
	/* an escape that does not fit whole is left out, and nothing after it is written */
	r = termsafe(out, 5, "ab\x1b" "c", 4);
	assert_int_equal(r, 7);
	assert_string_equal(out, "ab");
	/* a multibyte character is not cut either: "a" + € would need 5 bytes with the NUL */
	r = termsafe(out, 4, "a\xe2\x82\xac", 4);
	assert_int_equal(r, 4);
	assert_string_equal(out, "a");
	/* size 0 writes nothing */
	out[0] = 'Q';
	assert_int_equal(termsafe(out, 0, "abc", 3), 3);
	assert_int_equal(out[0], 'Q');
}

static void test_str(void **state)
{
	char buf[TERMSAFE_NAME_MAX];
	char name[256];

	(void)state;
	assert_string_equal(termsafe_str(buf, sizeof(buf), "vm\x1b]0;x\x07"), "vm\\x1b]0;x\\x07");
	assert_string_equal(termsafe_str(buf, sizeof(buf), NULL), "(null)");
	/* the worst name (255 ESC bytes) fits a TERMSAFE_NAME_MAX buffer whole */
	memset(name, 0x1b, 255);
	name[255] = '\0';
	termsafe_str(buf, sizeof(buf), name);
	assert_int_equal(strlen(buf), 4 * 255);
	assert_memory_equal(buf + 4 * 254, "\\x1b", 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_kept),
		cmocka_unit_test(test_c0_and_del),
		cmocka_unit_test(test_c1_in_utf8),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_cut_between_units),
		cmocka_unit_test(test_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
