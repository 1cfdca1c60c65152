// SPDX-License-Identifier: GPL-2.0
/* The Parquet writer against hand-computed bytes: Thrift compact, the hybrid and delta encodings,
 * pages and a whole file; and the export's UTF-8 cleaning. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glob.h>
#include <cmocka.h>
#include "export.h"
#include "parquet.h"

static void assert_bytes(const struct pb_buf *b, const uint8_t *want, size_t n)
{
	assert_false(b->err);
	if (b->len != n || memcmp(b->data, want, n)) {
		for (size_t i = 0; i < b->len; i++)
			fprintf(stderr, "%02x%s", b->data[i], i + 1 < b->len ? " " : "\n");
	}
	assert_int_equal(b->len, n);
	assert_memory_equal(b->data, want, n);
}

#define BYTES(b, ...) do {						\
	static const uint8_t want_[] = { __VA_ARGS__ };			\
	assert_bytes(b, want_, sizeof(want_));				\
} while (0)

static void test_varint(void **state)
{
	struct pb_buf b = { 0 };

	(void)state;
	pb_varint(&b, 0);
	pb_varint(&b, 127);
	pb_varint(&b, 128);
	pb_varint(&b, 300);
	pb_varint(&b, UINT64_MAX);
	BYTES(&b, 0x00, 0x7f, 0x80, 0x01, 0xac, 0x02,
	      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	pb_free(&b);
}

/* A struct with short and long field-id deltas, zigzag integers, a string, a bool, a list and
 * a nested struct. */
static void test_thrift_struct(void **state)
{
	struct pb_buf b = { 0 };
	struct pq_thrift t = { .b = &b };

	(void)state;
	pq_t_begin(&t);
	pq_t_i32(&t, 1, 5);		/* 0x15 (delta 1, i32), zigzag 10 */
	pq_t_i64(&t, 2, -1);		/* 0x16 (delta 1, i64), zigzag 1 */
	pq_t_bin(&t, 20, "ab", 2);	/* delta 18: type byte then zigzag id 40 */
	pq_t_bool(&t, 21, true);	/* 0x11: the value is the type */
	pq_t_bool(&t, 22, false);	/* 0x12 */
	pq_t_list(&t, 23, PQ_T_I32, 2);	/* 0x19, 2 x i32 = 0x25 */
	pq_t_elem_i32(&t, 1);
	pq_t_elem_i32(&t, -2);
	pq_t_struct(&t, 24);		/* 0x1c */
	pq_t_i32(&t, 1, 300);		/* zigzag 600 = d8 04 */
	pq_t_end(&t);
	pq_t_end(&t);
	assert_false(t.err);
	assert_int_equal(t.depth, 0);
	BYTES(&b, 0x15, 0x0a, 0x16, 0x01, 0x08, 0x28, 0x02, 'a', 'b', 0x11, 0x12, 0x19, 0x25, 0x02,
	      0x03, 0x1c, 0x15, 0xd8, 0x04, 0x00, 0x00);
	pb_free(&b);
}

static void test_thrift_long_list_and_misuse(void **state)
{
	struct pb_buf b = { 0 };
	struct pq_thrift t = { .b = &b };

	(void)state;
	pq_t_begin(&t);
	pq_t_list(&t, 1, PQ_T_STRUCT, 15);	/* 15 elements: 0xfc then varint 15 */
	for (int i = 0; i < 15; i++) {
		pq_t_begin(&t);
		pq_t_end(&t);
	}
	pq_t_end(&t);
	assert_false(t.err);
	assert_int_equal(b.len, 3 + 15 + 1);
	assert_int_equal(b.data[0], 0x19);
	assert_int_equal(b.data[1], 0xfc);
	assert_int_equal(b.data[2], 15);
	/* field ids must grow */
	pq_t_begin(&t);
	pq_t_i32(&t, 3, 0);
	pq_t_i32(&t, 2, 0);
	assert_true(t.err);
	pb_free(&b);
}

static void test_rle_hybrid(void **state)
{
	static const uint32_t run[10] = { 5, 5, 5, 5, 5, 5, 5, 5, 5, 5 };
	static const uint32_t bits[8] = { 1, 0, 1, 1, 0, 0, 0, 1 };
	static const uint32_t mixed[18] = { 1, 2, 3, 4, 5, 6, 7, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
	static const uint32_t short_run[12] = { 1, 2, 3, 7, 7, 7, 7, 7, 7, 7, 7, 7 };
	struct pb_buf b = { 0 };

	(void)state;
	pq_rle_hybrid(&b, run, 10, 3);		/* one RLE run: count << 1, the value in 1 byte */
	BYTES(&b, 0x14, 0x05);
	b.len = 0;
	pq_rle_hybrid(&b, bits, 8, 1);		/* one bit-packed group, LSB first */
	BYTES(&b, 0x03, 0x8d);
	b.len = 0;
	pq_rle_hybrid(&b, mixed, 18, 3);	/* 8 packed values then a run of 10 */
	BYTES(&b, 0x03, 0xd1, 0x58, 0x1f, 0x14, 0x02);
	b.len = 0;
	/* the run of 9 would need 5 of its values to complete the group: all packed, padded */
	pq_rle_hybrid(&b, short_run, 12, 3);
	BYTES(&b, 0x05, 0xd1, 0xfe, 0xff, 0xff, 0x0f, 0x00);
	b.len = 0;
	pq_rle_hybrid(&b, run, 10, 9);		/* a 9-bit value takes 2 bytes in a run */
	BYTES(&b, 0x14, 0x05, 0x00);
	pb_free(&b);
}

static void test_delta_binary(void **state)
{
	static const int64_t up[5] = { 1, 2, 3, 4, 5 };
	static const int64_t zig[3] = { 7, 5, 10 };
	static const int64_t wrap[2] = { INT32_MAX, INT32_MIN };
	struct pb_buf b = { 0 };

	(void)state;
	/* header: block 128, 4 miniblocks, 5 values, first 1; min delta 1, all widths 0 */
	pq_delta_binary(&b, up, 5, 64);
	BYTES(&b, 0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00);
	b.len = 0;
	/* deltas -2, +5: min -2 (zigzag 3), then 0 and 7 in 3 bits, one miniblock of 32 values */
	pq_delta_binary(&b, zig, 3, 32);
	BYTES(&b, 0x80, 0x01, 0x04, 0x03, 0x0e, 0x03, 0x03, 0x00, 0x00, 0x00,
	      0x38, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	b.len = 0;
	/* INT32: the delta wraps at 32 bits (+1), as a 32-bit reader adds it back */
	pq_delta_binary(&b, wrap, 2, 32);
	BYTES(&b, 0x80, 0x01, 0x04, 0x02, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x02, 0x00, 0x00, 0x00,
	      0x00);
	b.len = 0;
	pq_delta_binary(&b, NULL, 0, 64);	/* no value: the header alone */
	BYTES(&b, 0x80, 0x01, 0x04, 0x00, 0x00);
	pb_free(&b);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	uint8_t *p = malloc(1 << 16);

	assert_non_null(f);
	assert_non_null(p);
	*len = fread(p, 1, 1 << 16, f);
	fclose(f);
	return p;
}

/* A whole file, stored pages: one REQUIRED INT32 column "a" = 1, 2. */
static void test_file_bytes(void **state)
{
	static const struct parquet_column cols[] = { { "a", PARQUET_INT32, false } };
	struct parquet_writer_opts o = { .zstd_level = -1 };
	static const uint8_t want[] = {
		'P', 'A', 'R', '1',
		/* PageHeader: DATA_PAGE, 10 bytes, 10 bytes, DataPageHeader {2 values,
		 * DELTA_BINARY_PACKED, RLE, RLE} */
		0x15, 0x00, 0x15, 0x14, 0x15, 0x14, 0x2c, 0x15, 0x04, 0x15, 0x0a, 0x15, 0x06, 0x15,
		0x06, 0x00, 0x00,
		/* the values: delta header, first 1, min delta 1, widths 0 */
		0x80, 0x01, 0x04, 0x02, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00,
		/* FileMetaData: version 1 */
		0x15, 0x02,
		/* schema: root "schema" with 1 child; "a" INT32 REQUIRED */
		0x19, 0x2c, 0x48, 0x06, 's', 'c', 'h', 'e', 'm', 'a', 0x15, 0x02, 0x00,
		0x15, 0x02, 0x25, 0x00, 0x18, 0x01, 'a', 0x00,
		/* num_rows 2, one row group */
		0x16, 0x04, 0x19, 0x1c,
		/* RowGroup.columns: one ColumnChunk {file_offset 0, ColumnMetaData { INT32,
		 * [RLE, DELTA_BINARY_PACKED], ["a"], UNCOMPRESSED, 2 values, 27, 27, data page at 4,
		 * Statistics {null_count 0, max 2, min 1}}} */
		0x19, 0x1c, 0x26, 0x00, 0x1c, 0x15, 0x02, 0x19, 0x25, 0x06, 0x0a, 0x19, 0x18, 0x01,
		'a', 0x15, 0x00, 0x16, 0x04, 0x16, 0x36, 0x16, 0x36, 0x26, 0x08, 0x3c, 0x36, 0x00,
		0x28, 0x04, 0x02, 0x00, 0x00, 0x00, 0x18, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00,
		/* total_byte_size 27, num_rows 2, file_offset 4, total_compressed_size 27 */
		0x16, 0x36, 0x16, 0x04, 0x26, 0x08, 0x16, 0x36, 0x00,
		/* column_orders: [ColumnOrder {TYPE_ORDER {}}] */
		0x39, 0x1c, 0x1c, 0x00, 0x00,
		0x00,
		/* footer length (85), magic */
		0x55, 0x00, 0x00, 0x00, 'P', 'A', 'R', '1',
	};
	char dir[] = "/tmp/pwz-test-parquet.XXXXXX", path[64], err[256];
	struct parquet_writer *w;
	uint8_t *got;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.parquet", dir);
	w = parquet_writer__new(path, cols, 1, &o, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(parquet_writer__i32(w, 0, 1), 0);
	assert_int_equal(parquet_writer__i32(w, 0, 9), -EINVAL);	/* a second value */
	assert_int_equal(parquet_writer__end_row(w), 0);
	assert_int_equal(parquet_writer__end_row(w), -EINVAL);		/* no value */
	assert_int_equal(parquet_writer__i64(w, 0, 2), -EINVAL);	/* wrong type */
	assert_int_equal(parquet_writer__null(w, 0), -EINVAL);		/* REQUIRED */
	assert_int_equal(parquet_writer__row(w, &(struct parquet_value){ .i = 2 }), 0);
	assert_int_equal(parquet_writer__finish(w, err, sizeof(err)), 0);
	parquet_writer__free(w);
	got = slurp(path, &len);
	if (len != sizeof(want) || memcmp(got, want, len)) {
		for (size_t i = 0; i < len; i++)
			fprintf(stderr, "%02x%s", got[i], i + 1 < len ? " " : "\n");
	}
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(got, want, len);
	assert_int_equal(access(path, F_OK), 0);
	free(got);
	unlink(path);
	rmdir(dir);
}

/* Whether the n bytes of want are somewhere in the len bytes of got. */
static bool has_bytes(const uint8_t *got, size_t len, const uint8_t *want, size_t n)
{
	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(got + i, want, n))
			return true;
	return false;
}

/* Unsigned columns: annotated INTEGER(32 or 64, unsigned) and UINT_32 / UINT_64, their
 * statistics in unsigned order (2^32 - 1 above 5, 2^63 + 5 above 1: signed they would be -1
 * and a negative number, the minimums). */
static void test_unsigned_columns(void **state)
{
	static const struct parquet_column cols[] = {
		{ "u", PARQUET_UINT32, false }, { "w", PARQUET_UINT64, false },
	};
	struct parquet_writer_opts o = { .zstd_level = -1 };
	/* SchemaElement: INT32, REQUIRED, "u", converted_type UINT_32 (13), LogicalType
	 * {INTEGER {bitWidth 32 (a byte), isSigned false}} */
	static const uint8_t u_schema[] = { 0x15, 0x02, 0x25, 0x00, 0x18, 0x01, 'u', 0x25, 0x1a,
					    0x4c, 0xac, 0x13, 0x20, 0x12, 0x00, 0x00, 0x00 };
	static const uint8_t w_schema[] = { 0x15, 0x04, 0x25, 0x00, 0x18, 0x01, 'w', 0x25, 0x1c,
					    0x4c, 0xac, 0x13, 0x40, 0x12, 0x00, 0x00, 0x00 };
	/* Statistics {null_count 0, max_value, min_value} */
	static const uint8_t u_stats[] = { 0x36, 0x00, 0x28, 0x04, 0xff, 0xff, 0xff, 0xff,
					   0x18, 0x04, 0x05, 0x00, 0x00, 0x00, 0x00 };
	static const uint8_t w_stats[] = { 0x36, 0x00, 0x28, 0x08, 0x05, 0, 0, 0, 0, 0, 0, 0x80,
					   0x18, 0x08, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x00 };
	char dir[] = "/tmp/pwz-test-parquet.XXXXXX", path[64], err[256];
	struct parquet_writer *w;
	uint8_t *got;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/u.parquet", dir);
	w = parquet_writer__new(path, cols, 2, &o, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(parquet_writer__i32(w, 0, 5), 0);
	assert_int_equal(parquet_writer__i64(w, 1, (int64_t)((1ull << 63) + 5)), 0);
	assert_int_equal(parquet_writer__end_row(w), 0);
	assert_int_equal(parquet_writer__row(w, (struct parquet_value[]){ { .i = (int32_t)UINT32_MAX },
									  { .i = 1 } }), 0);
	assert_int_equal(parquet_writer__finish(w, err, sizeof(err)), 0);
	parquet_writer__free(w);
	got = slurp(path, &len);
	assert_true(has_bytes(got, len, u_schema, sizeof(u_schema)));
	assert_true(has_bytes(got, len, w_schema, sizeof(w_schema)));
	assert_true(has_bytes(got, len, u_stats, sizeof(u_stats)));
	assert_true(has_bytes(got, len, w_stats, sizeof(w_stats)));
	free(got);
	unlink(path);
	rmdir(dir);
}

/* An OPTIONAL string column "x", NULL, "x": a PLAIN dictionary page, then a data page of
 * definition levels (length-prefixed hybrid) and RLE_DICTIONARY indexes. */
static void test_dictionary_pages(void **state)
{
	static const struct parquet_column cols[] = { { "s", PARQUET_STRING, true } };
	struct parquet_writer_opts o = { .zstd_level = -1 };
	static const uint8_t want[] = {
		'P', 'A', 'R', '1',
		/* DICTIONARY_PAGE, 5 bytes, DictionaryPageHeader {1 value, PLAIN} */
		0x15, 0x04, 0x15, 0x0a, 0x15, 0x0a, 0x4c, 0x15, 0x02, 0x15, 0x00, 0x00, 0x00,
		0x01, 0x00, 0x00, 0x00, 'x',
		/* DATA_PAGE, 9 bytes, {3 values, RLE_DICTIONARY, RLE, RLE} */
		0x15, 0x00, 0x15, 0x12, 0x15, 0x12, 0x2c, 0x15, 0x06, 0x15, 0x10, 0x15, 0x06, 0x15,
		0x06, 0x00, 0x00,
		/* levels: 2 bytes, 1 packed group 1,0,1; bit width 1; indexes 0,0 packed */
		0x02, 0x00, 0x00, 0x00, 0x03, 0x05, 0x01, 0x03, 0x00,
	};
	char dir[] = "/tmp/pwz-test-parquet.XXXXXX", path[64], err[256];
	struct parquet_writer *w;
	uint8_t *got;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.parquet", dir);
	w = parquet_writer__new(path, cols, 1, &o, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(parquet_writer__str(w, 0, "x", 1), 0);
	assert_int_equal(parquet_writer__end_row(w), 0);
	assert_int_equal(parquet_writer__null(w, 0), 0);
	assert_int_equal(parquet_writer__end_row(w), 0);
	assert_int_equal(parquet_writer__str(w, 0, "x", 1), 0);
	assert_int_equal(parquet_writer__end_row(w), 0);
	assert_int_equal(parquet_writer__rows(w), 3);
	assert_int_equal(parquet_writer__finish(w, err, sizeof(err)), 0);
	parquet_writer__free(w);
	got = slurp(path, &len);
	assert_true(len > sizeof(want) + 8);
	if (memcmp(got, want, sizeof(want))) {
		for (size_t i = 0; i < sizeof(want) + 8; i++)
			fprintf(stderr, "%02x%s", got[i], i + 1 < sizeof(want) + 8 ? " " : "\n");
	}
	assert_memory_equal(got, want, sizeof(want));
	assert_memory_equal(got + len - 4, "PAR1", 4);
	free(got);
	unlink(path);
	rmdir(dir);
}

/* Row groups are bounded: 600 rows in groups of 200 make 3 row groups, each a ZSTD page; a
 * column chunk of a few bytes is stored; an unfinished writer leaves no file. */
static void test_row_groups_and_abort(void **state)
{
	static const struct parquet_column cols[] = { { "v", PARQUET_INT64, false } };
	struct parquet_writer_opts o = { .row_group_rows = 200 };
	char dir[] = "/tmp/pwz-test-parquet.XXXXXX", path[64], part[80], err[256];
	glob_t g;
	struct parquet_writer *w;
	uint8_t *got;
	size_t len, magic = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/v.parquet", dir);
	snprintf(part, sizeof(part), "%s.*.part", path);	/* its temporary (outfile.h) */
	w = parquet_writer__new(path, cols, 1, &o, err, sizeof(err));
	assert_non_null(w);
	for (int i = 0; i < 600; i++) {
		assert_int_equal(parquet_writer__i64(w, 0, (int64_t)i * i * 1000), 0);
		assert_int_equal(parquet_writer__end_row(w), 0);
	}
	assert_int_equal(parquet_writer__finish(w, err, sizeof(err)), 0);
	parquet_writer__free(w);
	got = slurp(path, &len);
	/* ZSTD frames start with 28 b5 2f fd: one data page per row group */
	for (size_t i = 0; i + 4 <= len; i++)
		magic += !memcmp(got + i, "\x28\xb5\x2f\xfd", 4);
	assert_int_equal(magic, 3);
	free(got);
	unlink(path);

	w = parquet_writer__new(path, cols, 1, &o, err, sizeof(err));
	assert_non_null(w);
	for (int i = 0; i < 10; i++)
		assert_int_equal(parquet_writer__row(w, &(struct parquet_value){ .i = i }), 0);
	assert_int_equal(parquet_writer__finish(w, err, sizeof(err)), 0);
	parquet_writer__free(w);
	got = slurp(path, &len);
	magic = 0;
	for (size_t i = 0; i + 4 <= len; i++)
		magic += !memcmp(got + i, "\x28\xb5\x2f\xfd", 4);
	assert_int_equal(magic, 0);
	free(got);
	unlink(path);

	w = parquet_writer__new(path, cols, 1, &o, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(glob(part, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	globfree(&g);
	parquet_writer__free(w);
	assert_int_equal(glob(part, 0, NULL, &g), GLOB_NOMATCH);
	assert_int_equal(access(path, F_OK), -1);
	rmdir(dir);
}

static void test_utf8_clean(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(export_utf8("caf\xc3\xa9", 5, out, sizeof(out)), 5);
	assert_string_equal(out, "caf\xc3\xa9");
	/* a lone continuation byte, a truncated sequence, an overlong '/' */
	assert_int_equal(export_utf8("a\x80" "b\xc3", 4, out, sizeof(out)), 8);
	assert_string_equal(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd");
	export_utf8("\xc0\xaf", 2, out, sizeof(out));
	assert_string_equal(out, "\xef\xbf\xbd\xef\xbf\xbd");
	/* cut at a character boundary */
	assert_int_equal(export_utf8("ab\xc3\xa9", 4, out, 4), 2);
	assert_string_equal(out, "ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint),
		cmocka_unit_test(test_thrift_struct),
		cmocka_unit_test(test_thrift_long_list_and_misuse),
		cmocka_unit_test(test_rle_hybrid),
		cmocka_unit_test(test_delta_binary),
		cmocka_unit_test(test_file_bytes),
		cmocka_unit_test(test_unsigned_columns),
		cmocka_unit_test(test_dictionary_pages),
		cmocka_unit_test(test_row_groups_and_abort),
		cmocka_unit_test(test_utf8_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
