// SPDX-License-Identifier: GPL-2.0
/* A streaming Apache Parquet writer (see parquet.h for the subset and its limits). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "../bpf/log2.h"
#include "keymap.h"
#include "outfile.h"
#include "parquet.h"

/* Enum values of parquet.thrift. */
enum {
	PQ_REQUIRED = 0, PQ_OPTIONAL = 1,
	PQ_ENC_PLAIN = 0, PQ_ENC_RLE = 3, PQ_ENC_DELTA_BINARY_PACKED = 5, PQ_ENC_RLE_DICTIONARY = 8,
	PQ_CODEC_UNCOMPRESSED = 0, PQ_CODEC_ZSTD = 6,
	PQ_PAGE_DATA = 0, PQ_PAGE_DICTIONARY = 2,
	PQ_CONVERTED_UTF8 = 0, PQ_CONVERTED_UINT_32 = 13, PQ_CONVERTED_UINT_64 = 14,
	PQ_LOGICAL_STRING = 1, PQ_LOGICAL_INTEGER = 10,		/* LogicalType's fields */
	PQ_ORDER_TYPE_ORDER = 1,				/* ColumnOrder's */
};

#define PQ_MAX_COLS 1024
#define PQ_MAX_STR (1u << 20)
#define PQ_DEFAULT_RG_ROWS (1u << 20)
#define PQ_DEFAULT_PAGE_ROWS (1u << 16)
#define PQ_MIN_ZSTD 1024	/* raw bytes below which a column chunk is not compressed */

/* ---- byte buffer (render/pb.h's): fixed-width little-endian appends ---- */

void pq_buf_u8(struct pb_buf *b, uint8_t v)
{
	pb_raw(b, &v, 1);
}

void pq_buf_le32(struct pb_buf *b, uint32_t v)
{
	uint8_t x[4] = { v, v >> 8, v >> 16, v >> 24 };

	pb_raw(b, x, 4);
}

void pq_buf_le64(struct pb_buf *b, uint64_t v)
{
	pq_buf_le32(b, (uint32_t)v);
	pq_buf_le32(b, (uint32_t)(v >> 32));
}



/* ---- Thrift compact protocol ---- */

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void pq_t_field(struct pq_thrift *t, int16_t id, uint8_t type)
{
	int16_t last;

	if (t->depth < 1) {
		t->err = true;
		return;
	}
	last = t->last[t->depth - 1];
	if (id <= last) {
		t->err = true;
		return;
	}
	if (id - last <= 15) {
		pq_buf_u8(t->b, (uint8_t)((id - last) << 4 | type));
	} else {
		pq_buf_u8(t->b, type);
		pb_varint(t->b, zigzag(id));
	}
	t->last[t->depth - 1] = id;
}

void pq_t_begin(struct pq_thrift *t)
{
	if (t->depth >= PQ_THRIFT_DEPTH) {
		t->err = true;
		return;
	}
	t->last[t->depth++] = 0;
}

void pq_t_end(struct pq_thrift *t)
{
	if (t->depth < 1) {
		t->err = true;
		return;
	}
	pq_buf_u8(t->b, 0);
	t->depth--;
}

void pq_t_i8(struct pq_thrift *t, int16_t id, int8_t v)
{
	pq_t_field(t, id, PQ_T_BYTE);
	pq_buf_u8(t->b, (uint8_t)v);
}

void pq_t_i32(struct pq_thrift *t, int16_t id, int32_t v)
{
	pq_t_field(t, id, PQ_T_I32);
	pb_varint(t->b, zigzag(v));
}

void pq_t_i64(struct pq_thrift *t, int16_t id, int64_t v)
{
	pq_t_field(t, id, PQ_T_I64);
	pb_varint(t->b, zigzag(v));
}

void pq_t_bool(struct pq_thrift *t, int16_t id, bool v)
{
	pq_t_field(t, id, v ? PQ_T_TRUE : PQ_T_FALSE);
}

void pq_t_bin(struct pq_thrift *t, int16_t id, const void *p, size_t n)
{
	pq_t_field(t, id, PQ_T_BINARY);
	pq_t_elem_bin(t, p, n);
}

void pq_t_struct(struct pq_thrift *t, int16_t id)
{
	pq_t_field(t, id, PQ_T_STRUCT);
	pq_t_begin(t);
}

void pq_t_list(struct pq_thrift *t, int16_t id, enum pq_ttype elem, uint32_t n)
{
	pq_t_field(t, id, PQ_T_LIST);
	if (n < 15) {
		pq_buf_u8(t->b, (uint8_t)(n << 4 | elem));
	} else {
		pq_buf_u8(t->b, (uint8_t)(0xf0 | elem));
		pb_varint(t->b, n);
	}
}

void pq_t_elem_i32(struct pq_thrift *t, int32_t v)
{
	pb_varint(t->b, zigzag(v));
}

void pq_t_elem_bin(struct pq_thrift *t, const void *p, size_t n)
{
	pb_varint(t->b, n);
	pb_raw(t->b, p, n);
}

/* ---- RLE / bit-packed hybrid ---- */

static void rle_run(struct pb_buf *b, uint32_t v, size_t count, unsigned int bit_width)
{
	pb_varint(b, (uint64_t)count << 1);
	for (unsigned int i = 0; i < (bit_width + 7) / 8; i++)
		pq_buf_u8(b, (uint8_t)(v >> (8 * i)));
}

/* n values (a multiple of 8, except for the very last run) as one bit-packed run. */
static void packed_run(struct pb_buf *b, const uint32_t *vals, size_t n, unsigned int bit_width)
{
	size_t groups = (n + 7) / 8;
	uint64_t acc = 0;
	unsigned int bits = 0;

	pb_varint(b, (uint64_t)groups << 1 | 1);
	for (size_t i = 0; i < groups * 8; i++) {
		uint64_t v = i < n ? vals[i] & ((bit_width < 32 ? (1ull << bit_width) : 1ull << 32) - 1) : 0;

		acc |= v << bits;
		bits += bit_width;
		while (bits >= 8) {
			pq_buf_u8(b, (uint8_t)acc);
			acc >>= 8;
			bits -= 8;
		}
	}
}

static size_t run_length(const uint32_t *vals, size_t i, size_t n)
{
	size_t j = i + 1;

	while (j < n && vals[j] == vals[i])
		j++;
	return j - i;
}

void pq_rle_hybrid(struct pb_buf *b, const uint32_t *vals, size_t n, unsigned int bit_width)
{
	size_t pend = 0;	/* start of the values waiting to be bit-packed */
	size_t i = 0;

	while (i < n) {
		size_t r = run_length(vals, i, n);
		size_t fill;

		if (r < 8) {
			i += r;
			continue;
		}
		/* complete the pending group of 8 with values of the run first */
		fill = (8 - (i - pend) % 8) % 8;
		if (r - fill < 8) {
			i += r;
			continue;
		}
		i += fill;
		r -= fill;
		if (i > pend)
			packed_run(b, vals + pend, i - pend, bit_width);
		rle_run(b, vals[i], r, bit_width);
		i += r;
		pend = i;
	}
	if (n > pend)
		packed_run(b, vals + pend, n - pend, bit_width);
}

/* ---- DELTA_BINARY_PACKED ---- */

#define PQ_DELTA_BLOCK 128	/* values per block */
#define PQ_DELTA_MINI 4		/* miniblocks per block, of 32 values */

/* Stores the 8 bytes of v at out, least significant first. */
static void put_le64(uint8_t *out, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(v >> (8 * i));
}

/* count values of width bits (0..64) from v, least significant bit first (each value holds
 * no bit above width), 64 bits at a time. */
static void pack_bits(struct pb_buf *b, const uint64_t *v, size_t count, unsigned int width)
{
	unsigned __int128 acc = 0;
	unsigned int bits = 0;
	uint8_t *out;

	if (!width || !pb_grow(b, (count * width + 7) / 8))
		return;
	out = b->data + b->len;
	if (width <= 32) {
		/* fewer than 32 bits wait, so a 64-bit accumulator holds one more value */
		uint64_t a = 0;

		for (size_t i = 0; i < count; i++) {
			a |= v[i] << bits;
			bits += width;
			if (bits >= 32) {
				for (int k = 0; k < 4; k++)
					out[k] = (uint8_t)(a >> (8 * k));
				out += 4;
				a >>= 32;
				bits -= 32;
			}
		}
		acc = a;
		count = 0;
	}
	for (size_t i = 0; i < count; i++) {
		acc |= (unsigned __int128)v[i] << bits;
		bits += width;
		if (bits >= 64) {
			put_le64(out, (uint64_t)acc);
			out += 8;
			acc >>= 64;
			bits -= 64;
		}
	}
	while (bits) {		/* the last bytes, the final one partial */
		*out++ = (uint8_t)acc;
		acc >>= 8;
		bits = bits > 8 ? bits - 8 : 0;
	}
	b->len = (size_t)(out - b->data);
}

/* The bits v takes: floor(log2(v)) + 1, 0 for 0. */
static unsigned int width_of(uint64_t v)
{
	return v ? pwz_log2(v) + 1 : 0;
}

void pq_delta_binary(struct pb_buf *b, const int64_t *vals, size_t n, unsigned int type_bits)
{
	uint64_t mask = type_bits == 32 ? 0xffffffffull : ~0ull;
	uint64_t d[PQ_DELTA_BLOCK];

	pb_varint(b, PQ_DELTA_BLOCK);
	pb_varint(b, PQ_DELTA_MINI);
	pb_varint(b, n);
	pb_varint(b, zigzag(n ? vals[0] : 0));
	for (size_t i = 1; i < n; i += PQ_DELTA_BLOCK) {
		size_t k = n - i < PQ_DELTA_BLOCK ? n - i : PQ_DELTA_BLOCK;
		int64_t min = INT64_MAX;
		uint8_t widths[PQ_DELTA_MINI] = { 0 };

		/* deltas wrap at the type's width, as the reader adds them back */
		for (size_t j = 0; j < k; j++) {
			uint64_t delta = ((uint64_t)vals[i + j] - (uint64_t)vals[i + j - 1]) & mask;
			int64_t sd = type_bits == 32 ? (int64_t)(int32_t)(uint32_t)delta : (int64_t)delta;

			d[j] = (uint64_t)sd;
			if (sd < min)
				min = sd;
		}
		/* a miniblock's width is that of the OR of its values (the same highest bit) */
		for (size_t m = 0; m < PQ_DELTA_MINI; m++) {
			uint64_t any = 0;

			for (size_t j = m * 32; j < m * 32 + 32; j++) {
				d[j] = j < k ? (d[j] - (uint64_t)min) & mask : 0;
				any |= d[j];
			}
			widths[m] = (uint8_t)width_of(any);
		}
		pb_varint(b, zigzag(min));
		pb_raw(b, widths, sizeof(widths));
		/* miniblocks past the last value are not written */
		for (size_t m = 0; m < PQ_DELTA_MINI && m * 32 < k; m++)
			pack_bits(b, d + m * 32, 32, widths[m]);
	}
}

/* ---- the writer ---- */

/* What the footer needs of one column chunk. */
struct pq_chunk {
	int64_t data_off;	/* first data page */
	int64_t dict_off;	/* dictionary page; -1 none */
	int64_t unc;		/* pages and headers, uncompressed */
	int64_t comp;		/* pages and headers as written */
	int64_t values;		/* values, nulls included */
	int64_t nulls;
	int64_t min, max;	/* integers, when has_minmax */
	bool has_minmax;
	bool zstd;		/* pages compressed (else stored) */
};

struct pq_rowgroup {
	struct pq_chunk *chunks;	/* nr_cols */
	int64_t rows;
	int64_t file_off;
};

struct pq_col {
	char *name;
	int type;			/* PARQUET_INT32, PARQUET_INT64 or PARQUET_STRING: the
					 * physical type */
	bool is_unsigned;		/* an integer column annotated unsigned (PARQUET_UINT*) */
	bool optional;
	bool set;			/* has a value in the current row */
	uint8_t *defs;			/* per row of the row group: 1 value, 0 null (OPTIONAL) */
	void *vals;			/* non-null values: int32_t, int64_t or dictionary indexes */
	size_t nvals;
	size_t vals_cap;		/* elements */
	size_t defs_cap;
	int64_t min, max;
	/* strings: this chunk's dictionary */
	struct pb_buf dict;		/* PLAIN entries: 4-byte length, bytes */
	uint32_t *entry_off;		/* offset of each entry in dict */
	size_t nr_entries;
	size_t entries_cap;
	uint32_t *htab;			/* entry + 1 per slot, 0 empty */
	size_t hcap;			/* slots, a power of two */
	int64_t last;			/* entry of the previous string; -1 none */
	size_t last_len;		/* its length */
};

struct parquet_writer {
	FILE *f;
	char *path;
	struct outfile of;		/* the temporary, renamed into place when finished */
	uint64_t off;			/* bytes written */
	struct pq_col *cols;
	size_t nr_cols;
	size_t rg_rows;			/* rows in the current row group */
	uint64_t rows;			/* rows ended */
	struct pq_rowgroup *rgs;
	size_t nr_rgs;
	size_t rgs_cap;
	struct parquet_writer_opts opts;
	char *created_by;
	ZSTD_CCtx *zc;
	struct pb_buf page, comp, hdr;	/* scratch */
	uint32_t *levels;		/* scratch: a page's levels */
	size_t levels_cap;		/* its elements (a page's rows: page_rows at most) */
	int64_t *wide;			/* scratch: a page's INT32 values widened */
	size_t wide_cap;		/* its elements */
	int failed;			/* -errno once something failed */
	bool finished;
};

static size_t elem_size(const struct pq_col *c)
{
	return c->type == PARQUET_INT64 ? 8 : 4;
}

static int fail(struct parquet_writer *w, int err)
{
	if (!w->failed)
		w->failed = err;
	return err;
}

struct parquet_writer *parquet_writer__new(const char *path, const struct parquet_column *cols,
					   size_t nr_cols, const struct parquet_writer_opts *opts,
					   char *err, size_t errlen)
{
	struct parquet_writer *w;
	int e = ENOMEM;

	if (!nr_cols || nr_cols > PQ_MAX_COLS) {
		snprintf(err, errlen, "%s: %zu columns (1 to %d)", path, nr_cols, PQ_MAX_COLS);
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		goto nomem;
	if (opts)
		w->opts = *opts;
	if (!w->opts.row_group_rows)
		w->opts.row_group_rows = PQ_DEFAULT_RG_ROWS;
	if (!w->opts.page_rows)
		w->opts.page_rows = PQ_DEFAULT_PAGE_ROWS;
	if (!w->opts.zstd_level)
		w->opts.zstd_level = 1;
	w->cols = calloc(nr_cols, sizeof(*w->cols));
	w->path = strdup(path);
	w->created_by = opts && opts->created_by ? strdup(opts->created_by) : NULL;
	w->zc = w->opts.zstd_level > 0 ? ZSTD_createCCtx() : NULL;
	if (!w->cols || !w->path || (opts && opts->created_by && !w->created_by) ||
	    (w->opts.zstd_level > 0 && !w->zc))
		goto nomem;
	w->nr_cols = nr_cols;
	for (size_t i = 0; i < nr_cols; i++) {
		struct pq_col *c = &w->cols[i];

		if (cols[i].type != PARQUET_INT32 && cols[i].type != PARQUET_INT64 &&
		    cols[i].type != PARQUET_UINT32 && cols[i].type != PARQUET_UINT64 &&
		    cols[i].type != PARQUET_STRING) {
			snprintf(err, errlen, "%s: column %s: unknown type %d", path, cols[i].name,
				 cols[i].type);
			e = EINVAL;
			goto fail;
		}
		c->name = strdup(cols[i].name);
		if (!c->name)
			goto nomem;
		c->is_unsigned = cols[i].type == PARQUET_UINT32 || cols[i].type == PARQUET_UINT64;
		c->type = cols[i].type == PARQUET_UINT32 ? PARQUET_INT32 :
			  cols[i].type == PARQUET_UINT64 ? PARQUET_INT64 : cols[i].type;
		c->optional = cols[i].optional;
		c->last = -1;
	}
	e = -outfile_open(&w->of, path, opts ? opts->file : NULL);
	if (!e && !(w->f = outfile_stream(&w->of)))
		e = errno;
	if (e) {
		snprintf(err, errlen, "cannot create a temporary file for %s: %s", path, strerror(e));
		goto fail;
	}
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	if (fwrite("PAR1", 1, 4, w->f) != 4) {
		e = errno ? errno : EIO;
		snprintf(err, errlen, "cannot write %s: %s", w->of.tmp, strerror(e));
		goto fail;
	}
	w->off = 4;
	return w;
nomem:
	snprintf(err, errlen, "%s: out of memory", path);
	e = ENOMEM;
fail:
	parquet_writer__free(w);
	errno = e;
	return NULL;
}

static struct pq_col *cell(struct parquet_writer *w, size_t col, int type)
{
	struct pq_col *c;

	if (w->failed || w->finished || col >= w->nr_cols)
		return NULL;
	c = &w->cols[col];
	if (c->set || (type && c->type != type))
		return NULL;
	return c;
}

/* Records the definition level of the current row and makes room for one more value. */
static inline __attribute__((always_inline)) int push(struct parquet_writer *w, struct pq_col *c,
						   bool present)
{
	if (c->optional) {
		if (w->rg_rows >= c->defs_cap &&
		    array_reserve((void **)&c->defs, &c->defs_cap, w->rg_rows + 1, 1))
			return fail(w, -ENOMEM);
		c->defs[w->rg_rows] = present;
	}
	if (present && c->nvals >= c->vals_cap &&
	    array_reserve(&c->vals, &c->vals_cap, c->nvals + 1, elem_size(c)))
		return fail(w, -ENOMEM);
	return 0;
}

/* a < b in c's order: signed, or for an unsigned column the bits of its width unsigned */
static inline bool below(const struct pq_col *c, int64_t a, int64_t b)
{
	if (!c->is_unsigned)
		return a < b;
	if (c->type == PARQUET_INT32)
		return (uint32_t)a < (uint32_t)b;
	return (uint64_t)a < (uint64_t)b;
}

static void minmax(struct pq_col *c, int64_t v)
{
	if (!c->nvals || below(c, v, c->min))
		c->min = v;
	if (!c->nvals || below(c, c->max, v))
		c->max = v;
}

int parquet_writer__i32(struct parquet_writer *w, size_t col, int32_t v)
{
	struct pq_col *c = cell(w, col, PARQUET_INT32);
	int ret;

	if (!c)
		return -EINVAL;
	if ((ret = push(w, c, true)))
		return ret;
	c->set = true;
	minmax(c, v);
	((int32_t *)c->vals)[c->nvals++] = v;
	return 0;
}

int parquet_writer__i64(struct parquet_writer *w, size_t col, int64_t v)
{
	struct pq_col *c = cell(w, col, PARQUET_INT64);
	int ret;

	if (!c)
		return -EINVAL;
	if ((ret = push(w, c, true)))
		return ret;
	c->set = true;
	minmax(c, v);
	((int64_t *)c->vals)[c->nvals++] = v;
	return 0;
}

static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return h;
}

static bool entry_is(const struct pq_col *c, uint32_t e, const char *s, size_t n)
{
	const uint8_t *p = c->dict.data + c->entry_off[e];
	uint32_t len = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;

	return len == n && !memcmp(p + 4, s, n);
}

static int dict_grow(struct pq_col *c)
{
	size_t cap = c->hcap ? c->hcap * 2 : 64;
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t e = 0; e < c->nr_entries; e++) {
		const uint8_t *p = c->dict.data + c->entry_off[e];
		uint32_t len = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
		size_t k = str_hash((const char *)p + 4, len) & (cap - 1);

		while (t[k])
			k = (k + 1) & (cap - 1);
		t[k] = (uint32_t)e + 1;
	}
	free(c->htab);
	c->htab = t;
	c->hcap = cap;
	return 0;
}

/* The dictionary index of s, adding it. Returns the index or -ENOMEM. */
static int64_t dict_index(struct pq_col *c, const char *s, size_t n)
{
	size_t k;

	/* columns often repeat their previous string (trace_id, host): skip the hash */
	if (c->last >= 0 && c->last_len == n &&
	    !memcmp(c->dict.data + c->entry_off[c->last] + 4, s, n))
		return c->last;
	if ((c->nr_entries + 1) * 2 > c->hcap && dict_grow(c))
		return -ENOMEM;
	k = str_hash(s, n) & (c->hcap - 1);
	while (c->htab[k]) {
		if (entry_is(c, c->htab[k] - 1, s, n)) {
			c->last_len = n;
			return c->last = c->htab[k] - 1;
		}
		k = (k + 1) & (c->hcap - 1);
	}
	if (array_reserve((void **)&c->entry_off, &c->entries_cap, c->nr_entries + 1,
			  sizeof(*c->entry_off)))
		return -ENOMEM;
	c->entry_off[c->nr_entries] = (uint32_t)c->dict.len;
	pq_buf_le32(&c->dict, (uint32_t)n);
	pb_raw(&c->dict, s, n);
	if (c->dict.err || c->dict.len > UINT32_MAX)
		return -ENOMEM;
	c->htab[k] = (uint32_t)c->nr_entries + 1;
	c->last = (int64_t)c->nr_entries;
	c->last_len = n;
	return (int64_t)c->nr_entries++;
}

int parquet_writer__str(struct parquet_writer *w, size_t col, const char *s, size_t len)
{
	struct pq_col *c = cell(w, col, PARQUET_STRING);
	int64_t e;
	int ret;

	if (!c || len > PQ_MAX_STR || (!s && len))
		return -EINVAL;
	if ((ret = push(w, c, true)))
		return ret;
	c->set = true;
	e = dict_index(c, s ? s : "", len);
	if (e < 0)
		return fail(w, -ENOMEM);
	((uint32_t *)c->vals)[c->nvals++] = (uint32_t)e;
	return 0;
}

int parquet_writer__null(struct parquet_writer *w, size_t col)
{
	struct pq_col *c = cell(w, col, 0);

	if (!c || !c->optional)
		return -EINVAL;
	if (push(w, c, false))
		return w->failed;
	c->set = true;
	return 0;
}

static int put(struct parquet_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		return fail(w, errno ? -errno : -EIO);
	w->off += n;
	return 0;
}

/* Compresses w->page and writes it after a PageHeader of type; hdr_fields adds the
 * page-specific header (dictionary or data). Adds the sizes to ch. */
static int write_page(struct parquet_writer *w, int type, uint32_t num_values, int encoding,
		      struct pq_chunk *ch)
{
	struct pq_thrift t = { .b = &w->hdr };
	const void *body = w->page.data;
	size_t body_len = w->page.len;

	if (w->page.err)
		return fail(w, -ENOMEM);
	if (ch->zstd) {
		size_t bound = ZSTD_compressBound(w->page.len), n;

		w->comp.len = 0;
		if (!pb_grow(&w->comp, bound))
			return fail(w, -ENOMEM);
		n = ZSTD_compressCCtx(w->zc, w->comp.data, bound, w->page.data, w->page.len,
				      w->opts.zstd_level);
		if (ZSTD_isError(n))
			return fail(w, -EIO);
		body = w->comp.data;
		body_len = n;
	}
	if (w->page.len > INT32_MAX || body_len > INT32_MAX)
		return fail(w, -EFBIG);
	w->hdr.len = 0;
	pq_t_begin(&t);
	pq_t_i32(&t, 1, type);
	pq_t_i32(&t, 2, (int32_t)w->page.len);
	pq_t_i32(&t, 3, (int32_t)body_len);
	if (type == PQ_PAGE_DICTIONARY) {
		pq_t_struct(&t, 7);
		pq_t_i32(&t, 1, (int32_t)num_values);
		pq_t_i32(&t, 2, encoding);
		pq_t_end(&t);
	} else {
		pq_t_struct(&t, 5);
		pq_t_i32(&t, 1, (int32_t)num_values);
		pq_t_i32(&t, 2, encoding);
		pq_t_i32(&t, 3, PQ_ENC_RLE);
		pq_t_i32(&t, 4, PQ_ENC_RLE);
		pq_t_end(&t);
	}
	pq_t_end(&t);
	if (w->hdr.err || t.err)
		return fail(w, -ENOMEM);
	ch->unc += (int64_t)(w->hdr.len + w->page.len);
	ch->comp += (int64_t)(w->hdr.len + body_len);
	if (put(w, w->hdr.data, w->hdr.len) || put(w, body, body_len))
		return w->failed;
	return 0;
}

/* The bits a dictionary index into nr_entries entries takes: ceil(log2(nr_entries)), at least
 * 1 and at most 32. */
static unsigned int bits_for(size_t nr_entries)
{
	unsigned int b = nr_entries > 1 ? width_of(nr_entries - 1) : 1;

	return b < 32 ? b : 32;
}

/* The values of column c from the vi-th on; NULL when the column has none in this row group
 * (an OPTIONAL column of nulls only has no array, and NULL + 0 is undefined). */
static const void *vals_at(const struct pq_col *c, size_t vi)
{
	return c->nvals ? (const char *)c->vals + vi * elem_size(c) : NULL;
}

/* Writes column c's chunk of the current row group. */
static int write_chunk(struct parquet_writer *w, struct pq_col *c, struct pq_chunk *ch)
{
	size_t rows = w->rg_rows, vi = 0;
	unsigned int bw = c->type == PARQUET_STRING ? bits_for(c->nr_entries) : 0;
	int ret;

	memset(ch, 0, sizeof(*ch));
	ch->dict_off = -1;
	ch->values = (int64_t)rows;
	ch->nulls = (int64_t)(rows - c->nvals);
	ch->has_minmax = c->type != PARQUET_STRING && c->nvals;
	ch->min = c->min;
	ch->max = c->max;
	/* a small chunk is stored: a ZSTD frame would be larger than its few bytes */
	ch->zstd = w->zc && c->dict.len + c->nvals * elem_size(c) + rows / 8 >= PQ_MIN_ZSTD;
	if (c->type == PARQUET_STRING) {
		ch->dict_off = (int64_t)w->off;
		w->page.len = 0;
		pb_raw(&w->page, c->dict.data, c->dict.len);
		if ((ret = write_page(w, PQ_PAGE_DICTIONARY, (uint32_t)c->nr_entries, PQ_ENC_PLAIN, ch)))
			return ret;
	}
	ch->data_off = (int64_t)w->off;
	for (size_t r0 = 0; r0 < rows; r0 += w->opts.page_rows) {
		size_t n = rows - r0 < w->opts.page_rows ? rows - r0 : w->opts.page_rows;
		size_t k = n;

		if (array_reserve((void **)&w->levels, &w->levels_cap, n, sizeof(*w->levels)) ||
		    array_reserve((void **)&w->wide, &w->wide_cap, n, sizeof(*w->wide)))
			return fail(w, -ENOMEM);
		w->page.len = 0;
		if (c->optional) {
			size_t at;

			k = 0;
			for (size_t i = 0; i < n; i++) {
				w->levels[i] = c->defs[r0 + i];
				k += c->defs[r0 + i];
			}
			pq_buf_le32(&w->page, 0);
			at = w->page.len;
			pq_rle_hybrid(&w->page, w->levels, n, 1);
			if (!w->page.err) {
				uint32_t len = (uint32_t)(w->page.len - at);

				memcpy(w->page.data + at - 4, (uint8_t[4]){ len, len >> 8, len >> 16, len >> 24 }, 4);
			}
		}
		if (c->type == PARQUET_STRING) {
			pq_buf_u8(&w->page, (uint8_t)bw);
			pq_rle_hybrid(&w->page, vals_at(c, vi), k, bw);
		} else if (c->type == PARQUET_INT32) {
			const int32_t *v32 = vals_at(c, vi);

			for (size_t i = 0; i < k; i++)
				w->wide[i] = v32[i];
			pq_delta_binary(&w->page, w->wide, k, 32);
		} else {
			pq_delta_binary(&w->page, vals_at(c, vi), k, 64);
		}
		vi += k;
		ret = write_page(w, PQ_PAGE_DATA, (uint32_t)n,
				 c->type == PARQUET_STRING ? PQ_ENC_RLE_DICTIONARY : PQ_ENC_DELTA_BINARY_PACKED, ch);
		if (ret)
			return ret;
	}
	return 0;
}

static int flush_rowgroup(struct parquet_writer *w)
{
	struct pq_rowgroup *rg;
	int ret;

	if (!w->rg_rows)
		return 0;
	if (array_reserve((void **)&w->rgs, &w->rgs_cap, w->nr_rgs + 1, sizeof(*w->rgs)))
		return fail(w, -ENOMEM);
	rg = &w->rgs[w->nr_rgs];
	rg->chunks = calloc(w->nr_cols, sizeof(*rg->chunks));
	if (!rg->chunks)
		return fail(w, -ENOMEM);
	w->nr_rgs++;
	rg->rows = (int64_t)w->rg_rows;
	rg->file_off = (int64_t)w->off;
	for (size_t i = 0; i < w->nr_cols; i++) {
		struct pq_col *c = &w->cols[i];

		if ((ret = write_chunk(w, c, &rg->chunks[i])))
			return ret;
		c->nvals = 0;
		c->dict.len = 0;
		c->nr_entries = 0;
		c->last = -1;
		if (c->htab)
			memset(c->htab, 0, c->hcap * sizeof(*c->htab));
	}
	w->rg_rows = 0;
	return 0;
}

int parquet_writer__end_row(struct parquet_writer *w)
{
	if (w->failed || w->finished)
		return w->failed ? w->failed : -EINVAL;
	for (size_t i = 0; i < w->nr_cols; i++) {
		if (!w->cols[i].set)
			return -EINVAL;
	}
	for (size_t i = 0; i < w->nr_cols; i++)
		w->cols[i].set = false;
	w->rg_rows++;
	w->rows++;
	if (w->rg_rows >= w->opts.row_group_rows)
		return flush_rowgroup(w);
	return 0;
}

int parquet_writer__row(struct parquet_writer *w, const struct parquet_value *v)
{
	if (w->failed || w->finished)
		return w->failed ? w->failed : -EINVAL;
	/* check everything first: a refused row leaves no trace */
	for (size_t i = 0; i < w->nr_cols; i++) {
		const struct pq_col *c = &w->cols[i];

		if (c->set || (v[i].null && !c->optional) ||
		    (c->type == PARQUET_STRING && !v[i].null && (v[i].len > PQ_MAX_STR || (!v[i].s && v[i].len))))
			return -EINVAL;
	}
	for (size_t i = 0; i < w->nr_cols; i++) {
		struct pq_col *c = &w->cols[i];
		int64_t e;

		if (push(w, c, !v[i].null))
			return w->failed;
		if (v[i].null)
			continue;
		switch (c->type) {
		case PARQUET_INT32:
			minmax(c, (int32_t)v[i].i);
			((int32_t *)c->vals)[c->nvals++] = (int32_t)v[i].i;
			break;
		case PARQUET_INT64:
			minmax(c, v[i].i);
			((int64_t *)c->vals)[c->nvals++] = v[i].i;
			break;
		default:
			e = dict_index(c, v[i].s ? v[i].s : "", v[i].len);
			if (e < 0)
				return fail(w, -ENOMEM);
			((uint32_t *)c->vals)[c->nvals++] = (uint32_t)e;
		}
	}
	w->rg_rows++;
	w->rows++;
	if (w->rg_rows >= w->opts.row_group_rows)
		return flush_rowgroup(w);
	return 0;
}

uint64_t parquet_writer__rows(const struct parquet_writer *w)
{
	return w->rows;
}

static void footer_column(struct pq_thrift *t, const struct pq_col *c, const struct pq_chunk *ch)
{
	uint8_t mm[2][8];
	size_t mmlen = c->type == PARQUET_INT64 ? 8 : 4;

	pq_t_begin(t);			/* ColumnChunk */
	pq_t_i64(t, 2, 0);		/* file_offset: no ColumnMetaData outside the footer */
	pq_t_struct(t, 3);		/* ColumnMetaData */
	pq_t_i32(t, 1, c->type == PARQUET_STRING ? 6 : c->type);
	if (c->type == PARQUET_STRING) {
		pq_t_list(t, 2, PQ_T_I32, 3);
		pq_t_elem_i32(t, PQ_ENC_PLAIN);
		pq_t_elem_i32(t, PQ_ENC_RLE);
		pq_t_elem_i32(t, PQ_ENC_RLE_DICTIONARY);
	} else {
		pq_t_list(t, 2, PQ_T_I32, 2);
		pq_t_elem_i32(t, PQ_ENC_RLE);
		pq_t_elem_i32(t, PQ_ENC_DELTA_BINARY_PACKED);
	}
	pq_t_list(t, 3, PQ_T_BINARY, 1);
	pq_t_elem_bin(t, c->name, strlen(c->name));
	pq_t_i32(t, 4, ch->zstd ? PQ_CODEC_ZSTD : PQ_CODEC_UNCOMPRESSED);
	pq_t_i64(t, 5, ch->values);
	pq_t_i64(t, 6, ch->unc);
	pq_t_i64(t, 7, ch->comp);
	pq_t_i64(t, 9, ch->data_off);
	if (ch->dict_off >= 0)
		pq_t_i64(t, 11, ch->dict_off);
	pq_t_struct(t, 12);		/* Statistics */
	pq_t_i64(t, 3, ch->nulls);
	if (ch->has_minmax) {
		for (size_t i = 0; i < mmlen; i++) {
			mm[0][i] = (uint8_t)((uint64_t)ch->max >> (8 * i));
			mm[1][i] = (uint8_t)((uint64_t)ch->min >> (8 * i));
		}
		pq_t_bin(t, 5, mm[0], mmlen);
		pq_t_bin(t, 6, mm[1], mmlen);
	}
	pq_t_end(t);			/* Statistics */
	pq_t_end(t);			/* ColumnMetaData */
	pq_t_end(t);			/* ColumnChunk */
}

/* A schema element's ConvertedType (6) and LogicalType (10): UTF8 / STRING, UINT_32 / UINT_64
 * and INTEGER(bit width, unsigned); none for a signed integer. */
static void footer_annotation(struct pq_thrift *t, const struct pq_col *c)
{
	if (c->type == PARQUET_STRING) {
		pq_t_i32(t, 6, PQ_CONVERTED_UTF8);
		pq_t_struct(t, 10);
		pq_t_struct(t, PQ_LOGICAL_STRING);
		pq_t_end(t);
		pq_t_end(t);
	} else if (c->is_unsigned) {
		pq_t_i32(t, 6, c->type == PARQUET_INT32 ? PQ_CONVERTED_UINT_32 : PQ_CONVERTED_UINT_64);
		pq_t_struct(t, 10);
		pq_t_struct(t, PQ_LOGICAL_INTEGER);
		pq_t_i8(t, 1, c->type == PARQUET_INT32 ? 32 : 64);	/* bitWidth */
		pq_t_bool(t, 2, false);					/* isSigned */
		pq_t_end(t);
		pq_t_end(t);
	}
}

/* FileMetaData into b. */
static void footer(const struct parquet_writer *w, struct pb_buf *b, bool *err)
{
	struct pq_thrift t = { .b = b };

	pq_t_begin(&t);
	pq_t_i32(&t, 1, 1);					/* version */
	pq_t_list(&t, 2, PQ_T_STRUCT, (uint32_t)w->nr_cols + 1);	/* schema */
	pq_t_begin(&t);
	pq_t_bin(&t, 4, "schema", 6);
	pq_t_i32(&t, 5, (int32_t)w->nr_cols);
	pq_t_end(&t);
	for (size_t i = 0; i < w->nr_cols; i++) {
		const struct pq_col *c = &w->cols[i];

		pq_t_begin(&t);
		pq_t_i32(&t, 1, c->type == PARQUET_STRING ? 6 : c->type);
		pq_t_i32(&t, 3, c->optional ? PQ_OPTIONAL : PQ_REQUIRED);
		pq_t_bin(&t, 4, c->name, strlen(c->name));
		footer_annotation(&t, c);
		pq_t_end(&t);
	}
	pq_t_i64(&t, 3, (int64_t)w->rows);
	pq_t_list(&t, 4, PQ_T_STRUCT, (uint32_t)w->nr_rgs);
	for (size_t g = 0; g < w->nr_rgs; g++) {
		const struct pq_rowgroup *rg = &w->rgs[g];
		int64_t unc = 0, comp = 0;

		pq_t_begin(&t);
		pq_t_list(&t, 1, PQ_T_STRUCT, (uint32_t)w->nr_cols);
		for (size_t i = 0; i < w->nr_cols; i++) {
			footer_column(&t, &w->cols[i], &rg->chunks[i]);
			unc += rg->chunks[i].unc;
			comp += rg->chunks[i].comp;
		}
		pq_t_i64(&t, 2, unc);
		pq_t_i64(&t, 3, rg->rows);
		pq_t_i64(&t, 5, rg->file_off);
		pq_t_i64(&t, 6, comp);
		pq_t_end(&t);
	}
	if (w->created_by)
		pq_t_bin(&t, 6, w->created_by, strlen(w->created_by));
	/* column_orders: the min_value / max_value statistics are in each type's own order */
	pq_t_list(&t, 7, PQ_T_STRUCT, (uint32_t)w->nr_cols);
	for (size_t i = 0; i < w->nr_cols; i++) {
		pq_t_begin(&t);
		pq_t_struct(&t, PQ_ORDER_TYPE_ORDER);
		pq_t_end(&t);
		pq_t_end(&t);
	}
	pq_t_end(&t);
	*err = t.err || b->err;
}

int parquet_writer__finish(struct parquet_writer *w, char *err, size_t errlen)
{
	struct pb_buf b = { 0 };
	bool bad = false;
	uint8_t tail[8];
	int ret;

	if (w->finished || w->failed) {
		ret = w->failed ? w->failed : -EINVAL;
		goto out;
	}
	for (size_t i = 0; i < w->nr_cols; i++) {
		if (w->cols[i].set) {
			ret = -EINVAL;
			snprintf(err, errlen, "%s: the last row is not ended", w->path);
			goto out_err;
		}
	}
	if ((ret = flush_rowgroup(w)))
		goto out;
	footer(w, &b, &bad);
	if (bad) {
		ret = fail(w, -ENOMEM);
		goto out;
	}
	memcpy(tail, (uint8_t[4]){ b.len, b.len >> 8, b.len >> 16, b.len >> 24 }, 4);
	memcpy(tail + 4, "PAR1", 4);
	if ((ret = put(w, b.data, b.len)) || (ret = put(w, tail, 8)))
		goto out;
	ret = fclose(w->f) ? fail(w, -errno) : 0;
	w->f = NULL;
	if (ret)
		goto out;
	if ((ret = outfile_commit(&w->of))) {
		ret = fail(w, ret);
		goto out;
	}
	w->finished = true;
	pb_free(&b);
	return 0;
out:
	snprintf(err, errlen, "cannot write %s: %s", w->of.tmp ? w->of.tmp : w->path,
		 strerror(-ret));
out_err:
	pb_free(&b);
	return ret;
}

void parquet_writer__free(struct parquet_writer *w)
{
	if (!w)
		return;
	if (w->f)
		fclose(w->f);
	outfile_close(&w->of);	/* removes the temporary unless committed */
	for (size_t i = 0; w->cols && i < w->nr_cols; i++) {
		struct pq_col *c = &w->cols[i];

		free(c->name);
		free(c->defs);
		free(c->vals);
		pb_free(&c->dict);
		free(c->entry_off);
		free(c->htab);
	}
	for (size_t g = 0; g < w->nr_rgs; g++)
		free(w->rgs[g].chunks);
	free(w->rgs);
	free(w->cols);
	free(w->levels);
	free(w->wide);
	free(w->path);
	free(w->created_by);
	ZSTD_freeCCtx(w->zc);
	pb_free(&w->page);
	pb_free(&w->comp);
	pb_free(&w->hdr);
	free(w);
}
