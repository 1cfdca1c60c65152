// SPDX-License-Identifier: GPL-2.0
/* The protobuf encoder against bytes computed by hand from the wire format's rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "pb.h"

#define EXPECT(b, ...)                                                         \
	do {                                                                   \
		const uint8_t want_[] = { __VA_ARGS__ };                       \
		assert_false((b)->err);                                        \
		assert_int_equal((b)->len, sizeof(want_));                     \
		assert_memory_equal((b)->data, want_, sizeof(want_));          \
	} while (0)

static void test_varints(void **state)
{
	struct pb_buf b = { 0 };

	(void)state;
	pb_varint(&b, 0);
	EXPECT(&b, 0x00);
	pb_reset(&b);
	pb_varint(&b, 127);
	EXPECT(&b, 0x7f);
	pb_reset(&b);
	pb_varint(&b, 128);
	EXPECT(&b, 0x80, 0x01);
	pb_reset(&b);
	/* 300 = 0b10_0101100: low 7 bits 0x2c with the continuation bit, then 0x02 */
	pb_varint(&b, 300);
	EXPECT(&b, 0xac, 0x02);
	pb_reset(&b);
	pb_varint(&b, UINT64_MAX);
	EXPECT(&b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	assert_int_equal(pb_varint_len(0), 1);
	assert_int_equal(pb_varint_len(127), 1);
	assert_int_equal(pb_varint_len(128), 2);
	assert_int_equal(pb_varint_len(16383), 2);
	assert_int_equal(pb_varint_len(16384), 3);
	assert_int_equal(pb_varint_len(UINT64_MAX), 10);
	pb_free(&b);
	assert_null(b.data);
}

static void test_zigzag(void **state)
{
	(void)state;
	assert_int_equal(pb_zigzag(0), 0);
	assert_int_equal(pb_zigzag(-1), 1);
	assert_int_equal(pb_zigzag(1), 2);
	assert_int_equal(pb_zigzag(-2), 3);
	assert_int_equal(pb_zigzag(2147483647), 4294967294ULL);
	assert_int_equal(pb_zigzag(-2147483648LL), 4294967295ULL);
	assert_true(pb_zigzag(INT64_MIN) == UINT64_MAX);
}

static void test_scalar_fields(void **state)
{
	struct pb_buf b = { 0 };

	(void)state;
	/* field 1 varint 150: key 0x08, then 0x96 0x01 */
	pb_uint(&b, 1, 150);
	EXPECT(&b, 0x08, 0x96, 0x01);
	pb_reset(&b);
	/* int32 -1 takes ten bytes (sign-extended to 64 bits) */
	pb_int(&b, 2, -1);
	EXPECT(&b, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	pb_reset(&b);
	pb_sint(&b, 3, -2);
	EXPECT(&b, 0x18, 0x03);
	pb_reset(&b);
	pb_fixed64(&b, 1, 0x0102030405060708ULL);
	EXPECT(&b, 0x09, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01);
	pb_reset(&b);
	/* field 20, wire type 2: (20 << 3) | 2 = 162 = 0xa2 0x01 */
	pb_tag(&b, 20, PB_LEN);
	EXPECT(&b, 0xa2, 0x01);
	pb_reset(&b);
	pb_str(&b, 2, "testing");
	EXPECT(&b, 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g');
	pb_reset(&b);
	pb_str(&b, 5, "");
	EXPECT(&b, 0x2a, 0x00);
	pb_free(&b);
}

static void test_packed(void **state)
{
	struct pb_buf b = { 0 }, col = { 0 };

	(void)state;
	/* repeated int32 field 4 = [3, 270, 86942], packed */
	pb_varint(&col, 3);
	pb_varint(&col, 270);
	pb_varint(&col, 86942);
	pb_packed(&b, 4, &col);
	EXPECT(&b, 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05);
	/* an empty packed field is left out */
	pb_reset(&b);
	pb_reset(&col);
	pb_packed(&b, 4, &col);
	assert_int_equal(b.len, 0);
	pb_free(&b);
	pb_free(&col);
}

static void test_nested(void **state)
{
	struct pb_buf b = { 0 };
	size_t m, m2;

	(void)state;
	/* message { optional Inner c = 3; } with Inner.a = 150 */
	m = pb_begin(&b, 3);
	pb_uint(&b, 1, 150);
	pb_end(&b, m);
	EXPECT(&b, 0x1a, 0x03, 0x08, 0x96, 0x01);
	pb_reset(&b);
	/* two levels, and an empty message */
	m = pb_begin(&b, 1);
	m2 = pb_begin(&b, 2);
	pb_uint(&b, 1, 1);
	pb_end(&b, m2);
	m2 = pb_begin(&b, 3);
	pb_end(&b, m2);
	pb_end(&b, m);
	EXPECT(&b, 0x0a, 0x06, 0x12, 0x02, 0x08, 0x01, 0x1a, 0x00);
	pb_free(&b);
}

/* A nested length over 127 takes two bytes: the content moves one byte up, intact. */
static void test_nested_long(void **state)
{
	struct pb_buf b = { 0 };
	uint8_t content[200];
	size_t m, m2;

	(void)state;
	for (size_t i = 0; i < sizeof(content); i++)
		content[i] = (uint8_t)i;
	pb_uint(&b, 1, 7);
	m = pb_begin(&b, 2);
	pb_bytes(&b, 1, content, sizeof(content));	/* 1 + 2 + 200 = 203 bytes */
	pb_end(&b, m);
	assert_false(b.err);
	assert_int_equal(b.len, 2 + 1 + 2 + 203);
	assert_int_equal(b.data[0], 0x08);
	assert_int_equal(b.data[1], 0x07);
	assert_int_equal(b.data[2], 0x12);
	assert_int_equal(b.data[3], 0xcb);	/* 203 = 0x4b | 0x80, then 0x01 */
	assert_int_equal(b.data[4], 0x01);
	assert_int_equal(b.data[5], 0x0a);
	assert_int_equal(b.data[6], 0xc8);	/* 200 */
	assert_int_equal(b.data[7], 0x01);
	assert_memory_equal(b.data + 8, content, sizeof(content));
	/* inner long, outer long: both lengths grow */
	pb_reset(&b);
	m = pb_begin(&b, 1);
	m2 = pb_begin(&b, 2);
	pb_raw(&b, content, sizeof(content));
	pb_end(&b, m2);
	pb_end(&b, m);
	assert_int_equal(b.len, 1 + 2 + 1 + 2 + 200);
	assert_int_equal(b.data[1], 0xcb);	/* outer: 1 + 2 + 200 = 203 */
	assert_int_equal(b.data[2], 0x01);
	assert_int_equal(b.data[3], 0x12);
	assert_int_equal(b.data[4], 0xc8);
	assert_int_equal(b.data[5], 0x01);
	assert_memory_equal(b.data + 6, content, sizeof(content));
	pb_free(&b);
}

/* Growth past the first allocation keeps what was written. */
static void test_growth(void **state)
{
	struct pb_buf b = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < 100000; i++)
		pb_varint(&b, 300);
	assert_false(b.err);
	assert_int_equal(b.len, 200000);
	for (i = 0; i < b.len; i += 2) {
		if (b.data[i] != 0xac || b.data[i + 1] != 0x02)
			fail_msg("byte %zu changed", i);
	}
	pb_free(&b);
	pb_free(NULL);
}

/* pb_room/pb_put_varint/pb_commit: a message written in place, after what the buffer holds */
static void test_in_place(void **state)
{
	struct pb_buf b = { 0 };
	uint8_t *p;

	(void)state;
	pb_uint(&b, 1, 1);
	p = pb_room(&b, 32);
	assert_non_null(p);
	assert_ptr_equal(p, b.data + 2);
	*p++ = 0x40;			/* field 8, varint */
	p = pb_put_varint(p, 300);	/* 0xac 0x02 */
	*p++ = 0x50;			/* field 10, varint */
	p = pb_put_varint(p, 0);
	pb_commit(&b, p);
	EXPECT(&b, 0x08, 0x01, 0x40, 0xac, 0x02, 0x50, 0x00);
	/* the largest varint fits in the 10 bytes any caller reserves */
	pb_reset(&b);
	p = pb_room(&b, 10);
	assert_ptr_equal(pb_put_varint(p, UINT64_MAX), p + 10);
	pb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_zigzag),
		cmocka_unit_test(test_scalar_fields),
		cmocka_unit_test(test_packed),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_nested_long),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_in_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
