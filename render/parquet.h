/* SPDX-License-Identifier: GPL-2.0 */
/* A streaming Apache Parquet writer: flat schemas of integer and UTF-8 columns. */
#ifndef PWZ_PARQUET_H
#define PWZ_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pb.h"

struct outfile_opts;

/*
 * The subset of the Parquet format (github.com/apache/parquet-format, parquet.thrift) that pwz
 * needs, written from the specification:
 * - a flat schema of REQUIRED or OPTIONAL leaf columns: INT32, INT64, the same annotated
 *   unsigned (LogicalType INTEGER(32 or 64, isSigned false), ConvertedType UINT_32 / UINT_64),
 *   or BYTE_ARRAY annotated UTF8 / STRING;
 * - version 1 data pages; integers DELTA_BINARY_PACKED, strings dictionary-encoded (one PLAIN dictionary page
 *   per column chunk, RLE_DICTIONARY indices); definition levels of OPTIONAL columns in the
 *   RLE / bit-packed hybrid with a 4-byte length prefix;
 * - pages compressed with ZSTD (a column chunk of less than 1 KiB is stored: the codec is per
 *   chunk), or all stored (for tests); column statistics (null count, and
 *   min / max of integers, in the column's order: unsigned ones compared unsigned), with
 *   column_orders saying so (TYPE_ORDER);
 * - the footer: FileMetaData in the Thrift compact protocol, its length, "PAR1".
 * Rows are buffered up to row_group_rows and then written as one row group, so memory is bounded
 * by the row group (about 8 bytes per integer cell, 4 per string cell, plus each column chunk's
 * distinct strings) whatever the number of rows.
 */

enum parquet_type {
	PARQUET_INT32 = 1,	/* the format's Type enum values */
	PARQUET_INT64 = 2,
	PARQUET_STRING = 6,	/* BYTE_ARRAY, UTF8 */
	PARQUET_UINT32 = 0x101,	/* INT32 read as unsigned, 0 .. 2^32 - 1 (DuckDB UINTEGER) */
	PARQUET_UINT64 = 0x102,	/* INT64 read as unsigned, 0 .. 2^64 - 1 (DuckDB UBIGINT) */
};

struct parquet_column {
	const char *name;	/* column name (copied) */
	int type;		/* enum parquet_type */
	bool optional;		/* OPTIONAL (may be null) rather than REQUIRED */
};

struct parquet_writer_opts {
	size_t row_group_rows;	/* rows per row group; 0 = default (1 Mi) */
	size_t page_rows;	/* rows per data page; 0 = default (64 Ki) */
	int zstd_level;		/* ZSTD level; 0 = default (1); -1 = store pages uncompressed */
	const char *created_by;	/* FileMetaData.created_by; NULL = none */
	const struct outfile_opts *file;	/* how the file is written (outfile.h: its mode, a
						 * file at path, its folder); NULL = 0600, replaced */
};

struct parquet_writer;

/*
 * Starts a file at path with nr_cols columns. Data goes to "<path>.part", renamed to path by
 * parquet_writer__finish(). Returns NULL with errno set and err filled ("path: reason").
 * At most 1024 columns.
 */
struct parquet_writer *parquet_writer__new(const char *path, const struct parquet_column *cols,
					   size_t nr_cols, const struct parquet_writer_opts *opts,
					   char *err, size_t errlen);

/*
 * Cell setters for column col of the current row: each column gets exactly one value per row,
 * of its type (an INT32 or UINT32 column takes parquet_writer__i32 only, an INT64 or UINT64
 * column parquet_writer__i64, whose bits an unsigned column reads as unsigned); null only for
 * OPTIONAL columns. A string is len bytes (not necessarily NUL-terminated, at most 1 MiB; NULL with
 * len 0 is the empty string). Return 0, -EINVAL for a misuse (wrong type, null in a REQUIRED
 * column, a second value in the row) or -ENOMEM.
 */
int parquet_writer__i32(struct parquet_writer *w, size_t col, int32_t v);
int parquet_writer__i64(struct parquet_writer *w, size_t col, int64_t v);
int parquet_writer__str(struct parquet_writer *w, size_t col, const char *s, size_t len);
int parquet_writer__null(struct parquet_writer *w, size_t col);

/* One cell of parquet_writer__row(). */
struct parquet_value {
	int64_t i;		/* integer columns (a 32-bit column takes the low 32 bits; an
				 * unsigned one reads the bits unsigned: (int64_t)u64 is exact) */
	const char *s;		/* STRING columns: len bytes */
	uint32_t len;
	bool null;		/* OPTIONAL columns only */
};

/*
 * A whole row at once, v[0 .. nr_cols - 1] (the fast path: the same result as a setter per
 * column and parquet_writer__end_row()). Returns what they return.
 */
int parquet_writer__row(struct parquet_writer *w, const struct parquet_value *v);

/* Ends the row: -EINVAL when a column has no value; writes a row group when it is full (then
 * -errno on a write error: -ENOSPC, -EIO). After an error the writer refuses everything. */
int parquet_writer__end_row(struct parquet_writer *w);

/* Rows ended so far. */
uint64_t parquet_writer__rows(const struct parquet_writer *w);

/* Writes the last row group and the footer, closes and renames the file into place. Returns 0 or
 * -errno with err filled; on failure the partial file is removed. The writer must be freed. */
int parquet_writer__finish(struct parquet_writer *w, char *err, size_t errlen);

/* Frees the writer; an unfinished one removes its partial file. NULL is a no-op. */
void parquet_writer__free(struct parquet_writer *w);

/*
 * The building blocks, public for the unit tests (tests/test_parquet.c).
 *
 * The byte buffer is render/pb.h's struct pb_buf (a failed allocation sets err and later
 * appends do nothing): pb_raw() appends bytes, pb_varint() a ULEB128 varint (as Thrift compact
 * and the RLE hybrid use), pb_free() frees; these add fixed-width little-endian values.
 */
void pq_buf_u8(struct pb_buf *b, uint8_t v);
void pq_buf_le32(struct pb_buf *b, uint32_t v);
void pq_buf_le64(struct pb_buf *b, uint64_t v);

/*
 * The Thrift compact protocol, writing only: a struct is a list of fields (a header with the id
 * delta and the type, then the value) ended by a stop byte; integers are zigzag varints; a
 * string is a varint length and its bytes; a list is a size-and-type header and its elements.
 * Field ids must grow within a struct; nesting is bounded by PQ_THRIFT_DEPTH.
 */
enum pq_ttype {
	PQ_T_TRUE = 1, PQ_T_FALSE = 2, PQ_T_BYTE = 3, PQ_T_I16 = 4, PQ_T_I32 = 5, PQ_T_I64 = 6,
	PQ_T_DOUBLE = 7, PQ_T_BINARY = 8, PQ_T_LIST = 9, PQ_T_SET = 10, PQ_T_MAP = 11,
	PQ_T_STRUCT = 12,
};

#define PQ_THRIFT_DEPTH 8

struct pq_thrift {
	struct pb_buf *b;
	int16_t last[PQ_THRIFT_DEPTH];	/* last field id written, per open struct */
	int depth;			/* open structs; 0 before the outermost */
	bool err;			/* misuse (depth, decreasing ids) */
};

/* Opens the outermost struct (or a struct that is a list element). */
void pq_t_begin(struct pq_thrift *t);
/* Writes the stop byte of the innermost struct and closes it. */
void pq_t_end(struct pq_thrift *t);
void pq_t_i8(struct pq_thrift *t, int16_t id, int8_t v);
void pq_t_i32(struct pq_thrift *t, int16_t id, int32_t v);
void pq_t_i64(struct pq_thrift *t, int16_t id, int64_t v);
void pq_t_bool(struct pq_thrift *t, int16_t id, bool v);
void pq_t_bin(struct pq_thrift *t, int16_t id, const void *p, size_t n);
/* A struct-valued field: its fields follow, then pq_t_end(). */
void pq_t_struct(struct pq_thrift *t, int16_t id);
/* A list field of n elements of type elem; the elements follow (pq_t_elem_* or, for structs,
 * pq_t_begin() ... pq_t_end()). */
void pq_t_list(struct pq_thrift *t, int16_t id, enum pq_ttype elem, uint32_t n);
void pq_t_elem_i32(struct pq_thrift *t, int32_t v);
void pq_t_elem_bin(struct pq_thrift *t, const void *p, size_t n);

/*
 * The RLE / bit-packed hybrid (Parquet's Encodings.md) of n values of bit_width bits (1..32):
 * runs of 8 or more equal values become RLE runs, the rest bit-packed groups of 8 (the last one
 * padded with zeros). No length prefix.
 */
void pq_rle_hybrid(struct pb_buf *b, const uint32_t *vals, size_t n, unsigned int bit_width);

/*
 * DELTA_BINARY_PACKED (Encodings.md) of n values: blocks of 128 deltas in 4 miniblocks of 32,
 * each block's deltas less their minimum, bit-packed at the miniblock's width. type_bits is 32
 * for an INT32 column (deltas wrap at 32 bits, as its reader adds them back) or 64.
 */
void pq_delta_binary(struct pb_buf *b, const int64_t *vals, size_t n, unsigned int type_bits);

#endif /* PWZ_PARQUET_H */
