// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the writers of pwz-render, `--perfetto` and `--export parquet`, on any
 * capture, and the framing of what they write. The input is
 *   ctl[6] records[...]
 * where records is a msgpack record stream (META first), wrapped into a one-chunk file without
 * trailer (fuzz_write_chunk_file(): it reads as cut). The layout is fuzz_render's, so that its
 * seeds serve here too; ctl picks the options:
 *   ctl[0] bit 0 --merge-sys-tasks, bit 1 a window (-f ctl[1] x 1024 ns, -c (ctl[2] + 1) x
 *          4096 ns later), bit 2 -t with a pattern of ctl[3] >> 6, bit 3 --perfetto-gzip,
 *          bit 4 without --partial (the file is refused as cut: the writers' error paths),
 *          bit 5 the amplifier of fuzz_wrap.h (ctl[4], ctl[5], as in fuzz_render.c);
 *   ctl[3] the Parquet row groups: bit 7 the default size, else 1 + (ctl[3] & 63) x 32 rows;
 *          bit 6 pages stored (no ZSTD).
 * Each input goes through perfetto_export() and export_parquet(). On success the trace must be
 * a sequence of TracePacket fields whose bodies are well-formed protobuf and whose length is
 * what the stats say; each Parquet file must start and end with "PAR1", its footer length must
 * fit, and its Thrift footer must parse to exactly that length with num_rows the rows the export
 * reported, the row groups' rows summing to it, each group inside the file. On failure the
 * message must be filled and no file left. It aborts otherwise.
 */
#include <dirent.h>
#include <sys/stat.h>
#include <zlib.h>
#include "fuzz_wrap.h"
#include "export.h"
#include "parquet.h"
#include "perfetto.h"
#include "tasksel.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A scratch folder of its own per process for the outputs: it must be empty after a refusal. */
static const char *wr_dir(void)
{
	static char dir[128];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s", fuzz_path("-out"));
		if (mkdir(dir, 0700) && errno != EEXIST)
			abort();
	}
	return dir;
}

/* Files under dir, its subfolders included (the Parquet tables are folders). */
static size_t wr_count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char p[512];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (lstat(p, &st))
			abort();
		n += S_ISDIR(st.st_mode) ? wr_count_files(p) : 1;
	}
	closedir(d);
	return n;
}

/* The whole file at path (gunzipped with gz), in a malloc'd buffer; aborts when unreadable. */
static uint8_t *wr_slurp(const char *path, bool gz, size_t *len)
{
	gzFile f = gzopen(path, "rb");
	size_t cap = 65536;
	uint8_t *buf = malloc(cap);
	int n;

	if (!f || !buf)
		abort();
	if (!gz)
		gzdirect(f);
	*len = 0;
	while ((n = gzread(f, buf + *len, (unsigned int)(cap - *len))) > 0) {
		*len += (size_t)n;
		if (*len == cap && !(buf = realloc(buf, cap *= 2)))
			abort();
	}
	if (n < 0)
		abort();	/* a gzip stream that does not inflate */
	gzclose(f);
	return buf;
}

/* A base-128 varint at *p (below end); false when it runs past end or past 64 bits. */
static bool wr_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* Whether p[0..n) is a well-formed sequence of protobuf fields (tags, wire types, lengths). */
static bool wr_pb_fields(const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;
	uint64_t tag, len;

	while (p < end) {
		if (!wr_varint(&p, end, &tag) || !(tag >> 3))
			return false;
		switch (tag & 7) {
		case 0:
			if (!wr_varint(&p, end, &len))
				return false;
			break;
		case 1:
		case 5:
			len = (tag & 7) == 1 ? 8 : 4;
			if (len > (size_t)(end - p))
				return false;
			p += len;
			break;
		case 2:
			if (!wr_varint(&p, end, &len) || len > (size_t)(end - p))
				return false;
			p += len;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* The trace at path: Trace { repeated TracePacket packet = 1; }, bytes long uncompressed. */
static void wr_check_trace(const char *path, bool gz, uint64_t bytes)
{
	size_t len;
	uint8_t *buf = wr_slurp(path, gz, &len);
	const uint8_t *p = buf, *end = buf + len;
	uint64_t tag, n;

	if (len != bytes)
		abort();	/* the stats' size is not the trace's */
	while (p < end) {
		if (!wr_varint(&p, end, &tag) || tag != (1 << 3 | 2) || !wr_varint(&p, end, &n) ||
		    n > (size_t)(end - p) || !wr_pb_fields(p, n))
			abort();
		p += n;
	}
	free(buf);
}

/* ---- a Parquet footer: the Thrift compact protocol, read back ---- */

enum { WR_CTX_NONE, WR_CTX_FILE, WR_CTX_ROWGROUP };

struct wr_thrift {
	const uint8_t *p, *end;
	bool bad;
	int64_t num_rows;		/* FileMetaData.num_rows; -1 absent */
	int64_t rg_rows;		/* the sum of RowGroup.num_rows */
	int64_t data_end;		/* where the footer starts: each RowGroup.file_offset is below */
};

static uint64_t wr_t_varint(struct wr_thrift *t)
{
	uint64_t v = 0;

	if (!wr_varint(&t->p, t->end, &v))
		t->bad = true;
	return v;
}

static int64_t wr_t_zigzag(struct wr_thrift *t)
{
	uint64_t v = wr_t_varint(t);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void wr_t_skip(struct wr_thrift *t, size_t n)
{
	if (n > (size_t)(t->end - t->p))
		t->bad = true;
	else
		t->p += n;
}

static void wr_t_struct(struct wr_thrift *t, int depth, int ctx);

/* One value of type; in a list, a bool is a byte of its own. */
static void wr_t_value(struct wr_thrift *t, int type, int depth, int ctx, bool elem)
{
	uint64_t n;
	int et;

	switch (type) {
	case PQ_T_TRUE:
	case PQ_T_FALSE:
		if (elem)
			wr_t_skip(t, 1);
		break;
	case PQ_T_BYTE:
		wr_t_skip(t, 1);
		break;
	case PQ_T_I16:
	case PQ_T_I32:
	case PQ_T_I64:
		wr_t_varint(t);
		break;
	case PQ_T_DOUBLE:
		wr_t_skip(t, 8);
		break;
	case PQ_T_BINARY:
		wr_t_skip(t, wr_t_varint(t));
		break;
	case PQ_T_LIST:
	case PQ_T_SET:
		if (t->p >= t->end) {
			t->bad = true;
			return;
		}
		n = *t->p >> 4;
		et = *t->p++ & 0x0f;
		if (n == 15)
			n = wr_t_varint(t);
		for (uint64_t i = 0; i < n && !t->bad; i++)
			wr_t_value(t, et, depth + 1, ctx, true);
		break;
	case PQ_T_STRUCT:
		wr_t_struct(t, depth + 1, ctx);
		break;
	default:
		t->bad = true;	/* pwz writes no map */
	}
}

/* A struct up to its stop byte; ctx says which one (the fields the check reads). */
static void wr_t_struct(struct wr_thrift *t, int depth, int ctx)
{
	int64_t last = 0;

	if (depth > 16) {
		t->bad = true;
		return;
	}
	while (!t->bad) {
		uint8_t h;
		int type;
		int64_t id;

		if (t->p >= t->end) {
			t->bad = true;
			return;
		}
		h = *t->p++;
		if (!h)
			return;
		type = h & 0x0f;
		id = h >> 4 ? last + (h >> 4) : wr_t_zigzag(t);
		if (id <= last)
			t->bad = true;	/* the writer's ids grow */
		last = id;
		if (ctx == WR_CTX_FILE && id == 3 && type == PQ_T_I64)
			t->num_rows = wr_t_zigzag(t);
		else if (ctx == WR_CTX_FILE && id == 4 && type == PQ_T_LIST)
			wr_t_value(t, type, depth, WR_CTX_ROWGROUP, false);
		else if (ctx == WR_CTX_ROWGROUP && id == 3 && type == PQ_T_I64)
			t->rg_rows += wr_t_zigzag(t);
		else if (ctx == WR_CTX_ROWGROUP && id == 5 && type == PQ_T_I64) {
			int64_t off = wr_t_zigzag(t);

			if (off < 4 || off >= t->data_end)
				t->bad = true;
		} else
			wr_t_value(t, type, depth, WR_CTX_NONE, false);
	}
}

static void wr_check_parquet(const char *path, uint64_t rows)
{
	size_t len, flen;
	uint8_t *buf = wr_slurp(path, false, &len);
	struct wr_thrift t = { .num_rows = -1 };

	if (len < 12 || memcmp(buf, "PAR1", 4) || memcmp(buf + len - 4, "PAR1", 4))
		abort();
	flen = cdict_get_le32(buf + len - 8);
	if (flen > len - 12)
		abort();
	t.p = buf + len - 8 - flen;
	t.end = buf + len - 8;
	t.data_end = (int64_t)(len - 8 - flen);
	wr_t_struct(&t, 0, WR_CTX_FILE);
	if (t.bad || t.p != t.end || t.num_rows != (int64_t)rows || t.rg_rows != t.num_rows)
		abort();
	free(buf);
}

/* ---- the harness ---- */

/* A -t selection of in, as pwz-render makes one (render/pwz-render.c): the capture loaded
 * without its streams, the pattern resolved against it. */
struct wr_sel {
	struct trace *t;		/* the capture the selection refers to */
	struct task_patterns *p;	/* the compiled pattern */
	struct tasksel *sel;		/* what it selects */
};

/* Fills *ws; non-zero (nothing held) when in does not load or the pattern is refused. */
static int wr_select(const char *in, const char *pattern, bool merge_sys, struct wr_sel *ws)
{
	struct trace_load_opts lo = { .streams = false };
	struct task_label_opts tl = { .merge_sys = merge_sys };
	char err[256];

	ws->t = trace__load(in, &lo, err, sizeof(err));
	ws->p = ws->t ? task_patterns__new(&pattern, 1, err, sizeof(err)) : NULL;
	ws->sel = ws->p ? tasksel__new(ws->p, &tl, ws->t) : NULL;
	if (ws->sel)
		return 0;
	task_patterns__free(ws->p);
	trace__free(ws->t);
	return 1;
}

static void wr_unselect(struct wr_sel *ws)
{
	tasksel__free(ws->sel);
	task_patterns__free(ws->p);
	trace__free(ws->t);
}

static void wr_perfetto(const char *in, const uint8_t *ctl)
{
	static const char *const patterns[] = { "*", "1*", "*vcpu0", "0" };
	struct perfetto_opts o = {
		.merge_sys = ctl[0] & 1, .partial = !(ctl[0] & 16), .gzip = ctl[0] & 8,
	};
	struct perfetto_stats st;
	char out[256], err[512];
	struct wr_sel ws = { 0 };

	if (ctl[0] & 4) {
		if (wr_select(in, patterns[ctl[3] >> 6], o.merge_sys, &ws))
			return;
		o.sel = ws.sel;
	}

	if (ctl[0] & 2) {
		o.from_ns = (uint64_t)ctl[1] << 10;
		o.cap_ns = o.from_ns + (((uint64_t)ctl[2] + 1) << 12);
	}
	snprintf(out, sizeof(out), "%s/t.pftrace", wr_dir());
	err[0] = '\0';
	if (perfetto_export(in, out, &o, &st, err, sizeof(err))) {
		if (!err[0] || wr_count_files(wr_dir()))
			abort();	/* a refusal says why and leaves nothing */
	} else {
		wr_check_trace(out, o.gzip, st.bytes);
		unlink(out);
		if (wr_count_files(wr_dir()))
			abort();
	}
	wr_unselect(&ws);
}

static void wr_parquet(const char *in, const uint8_t *ctl)
{
	struct export_opts o = {
		.partial = !(ctl[0] & 16), .zstd_level = ctl[3] & 64 ? -1 : 0,
		.row_group_rows = ctl[3] & 128 ? 0 : 1 + (size_t)(ctl[3] & 63) * 32,
	};
	struct export_result r;
	char err[512], path[512];

	err[0] = '\0';
	if (export_parquet(in, wr_dir(), &o, &r, err, sizeof(err))) {
		if (!err[0] || wr_count_files(wr_dir()))
			abort();
		return;
	}
	for (int t = 0; t < EXPORT_NR_TABLES; t++) {
		snprintf(path, sizeof(path), "%s/%s/%s.parquet", wr_dir(), export_table_name(t),
			 r.trace_id);
		wr_check_parquet(path, r.rows[t]);
		unlink(path);
	}
	if (wr_count_files(wr_dir()))
		abort();	/* a file the export did not report */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fuzz_path(".cdict");
	const uint8_t *ctl = data;
	uint8_t *big = NULL;
	size_t big_len = 0;

	if (size < 6 || size > (1u << 20))
		return 0;
	if (ctl[0] & 32)
		big = fuzz_amplify(data + 6, size - 6, (size_t)1 << (ctl[4] % 17), ctl[5] % 8,
				   &big_len);
	if (big)
		fuzz_write_chunk_file(in, big, big_len, false);
	else
		fuzz_write_chunk_file(in, data + 6, size - 6, false);
	free(big);
	wr_perfetto(in, ctl);
	wr_parquet(in, ctl);
	unlink(in);
	return 0;
}
