// SPDX-License-Identifier: GPL-2.0
/* perf.data container reader: header, attributes, features and records, zstd unpacking. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <zstd.h>
#include "perfdata_file.h"

#define PD_MAGIC_LE	0x32454c4946524550ULL	/* "PERFILE2" read little-endian */
#define PD_MAGIC_BE	0x50455246494c4532ULL	/* "PERFILE2" of a big-endian file */
#define PD_MAGIC_V1	0x454c494646524550ULL	/* "PERFFILE", the version 1 format */
#define PD_FILE_HEADER	104			/* bytes of the version 2 file header */
#define PD_PIPE_HEADER	16
#define PD_MAX_ATTRS	65536
#define PD_MAX_IDS	(1u << 24)
#define PD_MAX_SECTION	(1ULL << 30)		/* a feature or tracing data larger is refused */
#define PD_ATTR_VER0	64			/* smallest perf_event_attr */
#define PD_WINDOW	(1u << 20)		/* read window of the record stream */
#define PD_REC_MAX	65536			/* header.size is 16 bits */

struct pd_stream {
	int fd;
	uint8_t *buf;
	size_t cap;		/* bytes of buf */
	size_t pos, len;	/* unread bytes are buf[pos, len) */
	uint64_t off;		/* file offset of buf[pos] */
	uint64_t end;		/* file offset where the stream ends (UINT64_MAX: at EOF) */
	bool eof;
};

struct pd_ctx {
	const char *path;
	const struct pd_reader_ops *ops;
	struct pd_read_info *info;
	char *err;
	size_t errlen;
	int fd;
	struct pd_stream st;
	ZSTD_DCtx *zd;
	uint8_t *zbuf;		/* unpacked records waiting to be delivered */
	size_t zlen, zcap;
};

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

__attribute__((format(printf, 4, 5)))
static int fail(struct pd_ctx *c, int ret, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(c->err, c->errlen, "%s: offset %llu: ", c->path, (unsigned long long)off);
	if (n >= 0 && (size_t)n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
		va_end(ap);
	}
	return ret;
}

const char *pd_feature_name(unsigned int feat)
{
	switch (feat) {
	case PD_FEAT_TRACING_DATA: return "tracing_data";
	case PD_FEAT_HOSTNAME: return "hostname";
	case PD_FEAT_OSRELEASE: return "osrelease";
	case PD_FEAT_VERSION: return "version";
	case PD_FEAT_ARCH: return "arch";
	case PD_FEAT_NRCPUS: return "nrcpus";
	case PD_FEAT_CPUDESC: return "cpudesc";
	case PD_FEAT_CPUID: return "cpuid";
	case PD_FEAT_CMDLINE: return "cmdline";
	case PD_FEAT_CPU_TOPOLOGY: return "cpu_topology";
	case PD_FEAT_SAMPLE_TIME: return "sample_time";
	case PD_FEAT_CLOCKID: return "clockid";
	case PD_FEAT_COMPRESSED: return "compressed";
	case PD_FEAT_CLOCK_DATA: return "clock_data";
	default: return "feature";
	}
}

static int read_full(int fd, void *buf, size_t n, size_t *got)
{
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		r = read(fd, (uint8_t *)buf + done, n - done);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*got = done;
			return -errno;
		}
		if (r == 0)
			break;
		done += r;
	}
	*got = done;
	return 0;
}

static int pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		r = pread(fd, (uint8_t *)buf + done, n - done, off + done);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EINVAL;
		done += r;
	}
	return 0;
}

/* Makes n bytes available at st->buf + st->pos. Returns 0, 1 at the end of the stream with fewer
 * bytes (st->len - st->pos tells how many), or -errno. */
static int st_need(struct pd_stream *st, size_t n)
{
	size_t want, got;
	int ret;

	if (st->len - st->pos >= n)
		return 0;
	if (st->eof)
		return 1;
	if (st->pos) {
		memmove(st->buf, st->buf + st->pos, st->len - st->pos);
		st->len -= st->pos;
		st->pos = 0;
	}
	if (n > st->cap) {
		uint8_t *nb = realloc(st->buf, n);

		if (!nb)
			return -ENOMEM;
		st->buf = nb;
		st->cap = n;
	}
	want = st->cap - st->len;
	if (st->end != UINT64_MAX && want > st->end - (st->off + st->len))
		want = st->end - (st->off + st->len);
	ret = read_full(st->fd, st->buf + st->len, want, &got);
	if (ret)
		return ret;
	st->len += got;
	if (got < want || st->off + st->len == st->end)
		st->eof = true;
	return st->len - st->pos >= n ? 0 : 1;
}

static void st_skip(struct pd_stream *st, size_t n)
{
	st->pos += n;
	st->off += n;
}

static int deliver_attr(struct pd_ctx *c, const uint8_t *a, size_t attr_len, const uint8_t *ids,
			uint32_t nr_ids, uint64_t off)
{
	struct pd_attr at;
	uint64_t *idv = NULL;
	uint32_t i;
	int ret = 0;

	if (attr_len < PD_ATTR_VER0)
		return fail(c, -EINVAL, off, "event attribute of %zu bytes is too short", attr_len);
	memset(&at, 0, sizeof(at));
	at.type = rd32(a);
	at.config = rd64(a + 8);
	at.sample_type = rd64(a + 24);
	at.read_format = rd64(a + 32);
	at.sample_id_all = (rd64(a + 40) >> 18) & 1;
	if (nr_ids) {
		idv = malloc(nr_ids * sizeof(*idv));
		if (!idv)
			return -ENOMEM;
		for (i = 0; i < nr_ids; i++)
			idv[i] = rd64(ids + 8 * i);
	}
	at.nr_ids = nr_ids;
	at.ids = idv;
	c->info->nr_attrs++;
	if (c->ops->attr)
		ret = c->ops->attr(c->ops->ctx, &at, off);
	free(idv);
	return ret;
}

static int deliver(struct pd_ctx *c, const uint8_t *rec, uint64_t off, bool compressed)
{
	struct pd_record r = {
		.type = rd32(rec), .misc = rd16(rec + 4), .size = rd16(rec + 6),
		.data = rec, .offset = off, .compressed = compressed,
	};

	c->info->records++;
	if (r.type == PD_REC_HEADER_ATTR) {
		uint32_t asz;

		if (r.size < 8 + PD_ATTR_VER0)
			return fail(c, -EINVAL, off, "attribute record of %u bytes is too short",
				    r.size);
		asz = rd32(rec + 8 + 4);
		if (asz < PD_ATTR_VER0 || asz > (uint32_t)r.size - 8)
			return fail(c, -EINVAL, off, "attribute size %u does not fit its record of %u bytes",
				    asz, r.size);
		return deliver_attr(c, rec + 8, asz, rec + 8 + asz, (r.size - 8 - asz) / 8, off);
	}
	if (r.type == PD_REC_HEADER_FEATURE) {
		if (r.size < 16)
			return fail(c, -EINVAL, off, "feature record of %u bytes is too short", r.size);
		if (c->ops->feature)
			return c->ops->feature(c->ops->ctx, (unsigned int)rd64(rec + 8), rec + 16,
					       r.size - 16, off + 16);
		return 0;
	}
	return c->ops->record ? c->ops->record(c->ops->ctx, &r) : 0;
}

/* Unpacks a COMPRESSED record (zstd) and delivers the whole records it holds; a record cut at
 * the end waits for the next COMPRESSED record. */
static int unpack(struct pd_ctx *c, const uint8_t *src, size_t len, uint64_t off)
{
	ZSTD_inBuffer in = { src, len, 0 };
	size_t pos, r, sz;
	int ret;

	if (!c->zd) {
		c->zd = ZSTD_createDCtx();
		c->zcap = 4 * PD_WINDOW;
		c->zbuf = malloc(c->zcap);
		if (!c->zd || !c->zbuf)
			return -ENOMEM;
	}
	c->info->compressed++;
	for (;;) {
		ZSTD_outBuffer out = { c->zbuf, c->zcap, c->zlen };

		r = ZSTD_decompressStream(c->zd, &out, &in);
		if (ZSTD_isError(r))
			return fail(c, -EINVAL, off, "compressed record does not unpack: %s",
				    ZSTD_getErrorName(r));
		c->info->decompressed_bytes += out.pos - c->zlen;
		c->zlen = out.pos;
		for (pos = 0; c->zlen - pos >= 8; pos += sz) {
			sz = rd16(c->zbuf + pos + 6);
			if (sz < 8)
				return fail(c, -EINVAL, off, "record of size %zu inside a compressed record",
					    sz);
			if (sz > c->zlen - pos)
				break;
			if (rd32(c->zbuf + pos) == PD_REC_COMPRESSED)
				return fail(c, -EINVAL, off, "compressed record inside a compressed record");
			ret = deliver(c, c->zbuf + pos, off, true);
			if (ret)
				return ret;
		}
		memmove(c->zbuf, c->zbuf + pos, c->zlen - pos);
		c->zlen -= pos;
		/* done when the input is used up and zstd did not fill the output */
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	return 0;
}

/* Reads a payload of n bytes that follows a record (pipe tracing data, auxtrace) and hands it
 * to the feature callback as feat, or skips it when feat is 0. */
static int payload(struct pd_ctx *c, uint64_t n, unsigned int feat, uint64_t rec_off)
{
	struct pd_stream *st = &c->st;
	uint64_t start = st->off;
	uint8_t *p;
	size_t take;
	int ret;

	if (n > PD_MAX_SECTION)
		return fail(c, -EINVAL, rec_off, "record payload of %llu bytes is too large",
			    (unsigned long long)n);
	if (!feat) {
		while (n) {
			ret = st_need(st, 1);
			if (ret < 0)
				return fail(c, ret, st->off, "read error: %s", strerror(-ret));
			if (st->len == st->pos)
				return fail(c, -EINVAL, st->off, "file is truncated inside a record payload");
			take = st->len - st->pos < n ? st->len - st->pos : n;
			st_skip(st, take);
			n -= take;
		}
		return 0;
	}
	ret = st_need(st, n);
	if (ret < 0)
		return fail(c, ret, st->off, "read error: %s", strerror(-ret));
	if (ret)
		return fail(c, -EINVAL, st->off + (st->len - st->pos),
			    "file is truncated inside %s (%llu bytes announced at offset %llu)",
			    pd_feature_name(feat), (unsigned long long)n,
			    (unsigned long long)rec_off);
	p = st->buf + st->pos;
	st_skip(st, n);
	ret = c->ops->feature ? c->ops->feature(c->ops->ctx, feat, p, n, start) : 0;
	if (st->cap > 4 * PD_WINDOW && st->len - st->pos < PD_WINDOW) {
		/* give back the memory a large payload took */
		memmove(st->buf, st->buf + st->pos, st->len - st->pos);
		st->len -= st->pos;
		st->pos = 0;
		p = realloc(st->buf, PD_WINDOW);
		if (p) {
			st->buf = p;
			st->cap = PD_WINDOW;
		}
	}
	return ret;
}

static int read_records(struct pd_ctx *c)
{
	struct pd_stream *st = &c->st;
	uint8_t *rec;
	uint64_t off;
	uint32_t type;
	uint16_t size;
	int ret;

	for (;;) {
		ret = st_need(st, 8);
		if (ret < 0)
			return fail(c, ret, st->off, "read error: %s", strerror(-ret));
		if (ret) {
			if (st->len == st->pos)
				return 0;
			return fail(c, -EINVAL, st->off, "file is truncated inside a record header");
		}
		rec = st->buf + st->pos;
		off = st->off;
		type = rd32(rec);
		size = rd16(rec + 6);
		if (size < 8)
			return fail(c, -EINVAL, off, "record of type %u has size %u (less than its header)",
				    type, size);
		ret = st_need(st, size);
		if (ret < 0)
			return fail(c, ret, off, "read error: %s", strerror(-ret));
		if (ret)
			return fail(c, -EINVAL, off,
				    "record of type %u and size %u runs past the end of the %s",
				    type, size, c->info->pipe_mode ? "file" : "data section");
		rec = st->buf + st->pos;
		if (type == PD_REC_COMPRESSED) {
			/* the unpacked records point into zbuf, so the window may move after */
			ret = unpack(c, rec + 8, size - 8, off);
			st_skip(st, size);
		} else if (type == PD_REC_HEADER_TRACING_DATA) {
			uint64_t n;

			if (size < 12)
				return fail(c, -EINVAL, off, "tracing data record of %u bytes is too short",
					    size);
			n = rd32(rec + 8);
			st_skip(st, size);
			ret = payload(c, n, PD_FEAT_TRACING_DATA, off);
		} else if (type == PD_REC_AUXTRACE) {
			uint64_t n;

			if (size < 16)
				return fail(c, -EINVAL, off, "auxtrace record of %u bytes is too short",
					    size);
			n = rd64(rec + 8);
			ret = deliver(c, rec, off, false);
			st_skip(st, size);
			if (!ret)
				ret = payload(c, n, 0, off);
		} else {
			ret = deliver(c, rec, off, false);
			st_skip(st, size);
		}
		if (ret)
			return ret;
	}
}

/* Attribute section of a file-mode header. */
static int read_attrs(struct pd_ctx *c, uint64_t attr_size, uint64_t aoff, uint64_t asize)
{
	uint64_t n, i, ids_off, ids_size;
	uint8_t *buf = NULL, *ids = NULL;
	int ret = 0;

	if (attr_size < PD_ATTR_VER0 + 16 || attr_size > 4096)
		return fail(c, -EINVAL, 16, "attribute size %llu is not plausible",
			    (unsigned long long)attr_size);
	if (aoff > c->info->file_size || asize > c->info->file_size - aoff)
		return fail(c, -EINVAL, 24, "attribute section (offset %llu, %llu bytes) lies outside the file of %llu bytes",
			    (unsigned long long)aoff, (unsigned long long)asize,
			    (unsigned long long)c->info->file_size);
	n = asize / attr_size;
	if (n == 0 || n > PD_MAX_ATTRS || asize % attr_size)
		return fail(c, -EINVAL, 24, "attribute section of %llu bytes does not hold whole attributes of %llu bytes",
			    (unsigned long long)asize, (unsigned long long)attr_size);
	buf = malloc(attr_size);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		uint64_t off = aoff + i * attr_size;
		uint32_t alen;

		ret = pread_full(c->fd, buf, attr_size, off);
		if (ret) {
			ret = fail(c, ret == -EINVAL ? -EINVAL : ret, off, "cannot read attribute %llu",
				   (unsigned long long)i);
			break;
		}
		ids_off = rd64(buf + attr_size - 16);
		ids_size = rd64(buf + attr_size - 8);
		if (ids_off > c->info->file_size || ids_size > c->info->file_size - ids_off ||
		    ids_size / 8 > PD_MAX_IDS) {
			ret = fail(c, -EINVAL, off + attr_size - 16,
				   "sample ids of attribute %llu (offset %llu, %llu bytes) lie outside the file",
				   (unsigned long long)i, (unsigned long long)ids_off,
				   (unsigned long long)ids_size);
			break;
		}
		alen = rd32(buf + 4);
		if (alen == 0 || alen > attr_size - 16)
			alen = attr_size - 16;
		free(ids);
		ids = malloc(ids_size ? ids_size : 1);
		if (!ids) {
			ret = -ENOMEM;
			break;
		}
		if (ids_size && pread_full(c->fd, ids, ids_size, ids_off)) {
			ret = fail(c, -EINVAL, ids_off, "cannot read the sample ids of attribute %llu",
				   (unsigned long long)i);
			break;
		}
		ret = deliver_attr(c, buf, alen, ids, ids_size / 8, off);
	}
	free(ids);
	free(buf);
	return ret;
}

/* Feature sections of a file-mode file: a table of (offset, size) after the data section, one
 * entry per bit set in the header's feature bitmap. */
static int read_features(struct pd_ctx *c, const uint8_t *hdr)
{
	uint64_t table = c->info->data_offset + c->info->data_size, fs = c->info->file_size;
	unsigned int feat, idx = 0;
	uint8_t ent[16], *p;
	int ret;

	for (feat = 0; feat < PD_FEAT_MAX; feat++) {
		uint64_t off, size;

		if (!((rd64(hdr + 72 + 8 * (feat / 64)) >> (feat % 64)) & 1))
			continue;
		if (table + 16 * (idx + 1) > fs)
			return fail(c, -EINVAL, table + 16 * idx,
				    "file is truncated: the feature table entry for %s lies past the end of the file",
				    pd_feature_name(feat));
		ret = pread_full(c->fd, ent, 16, table + 16 * idx);
		if (ret)
			return fail(c, ret, table + 16 * idx, "cannot read the feature table");
		idx++;
		off = rd64(ent);
		size = rd64(ent + 8);
		if (off > fs || size > fs - off)
			return fail(c, -EINVAL, table + 16 * (idx - 1),
				    "feature section %s (offset %llu, %llu bytes) lies outside the file of %llu bytes",
				    pd_feature_name(feat), (unsigned long long)off,
				    (unsigned long long)size, (unsigned long long)fs);
		if (size > PD_MAX_SECTION)
			return fail(c, -EINVAL, off, "feature section %s of %llu bytes is too large",
				    pd_feature_name(feat), (unsigned long long)size);
		if (!c->ops->feature)
			continue;
		p = malloc(size ? size : 1);
		if (!p)
			return -ENOMEM;
		ret = size ? pread_full(c->fd, p, size, off) : 0;
		if (ret) {
			free(p);
			return fail(c, ret, off, "cannot read feature section %s",
				    pd_feature_name(feat));
		}
		ret = c->ops->feature(c->ops->ctx, feat, p, size, off);
		free(p);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether the open fd is a pipe (pipefs: `cmd | ...`, /dev/stdin, `<(cmd)`), not a named FIFO. */
static bool is_anonymous_pipe(int fd)
{
	struct statfs sfs;

	return !fstatfs(fd, &sfs) && sfs.f_type == PIPEFS_MAGIC;
}

/*
 * The descriptor to read path from ("-": a duplicate of standard input), *sb its status; -1
 * with *ret = -errno and err filled. A file given by name must be a regular file or a pipe
 * already open (`<(perf record -o - ...)`): a named FIFO is refused without waiting, as its
 * open would block until a writer came (perf's pipe mode streams through "-").
 */
static int open_input(const char *path, struct stat *sb, int *ret, char *err, size_t errlen)
{
	bool from_stdin = !strcmp(path, "-");
	int fd = from_stdin ? dup(0) : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		*ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, sb)) {
		*ret = -errno;
		snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
		goto close_fd;
	}
	if (from_stdin || S_ISREG(sb->st_mode) || (S_ISFIFO(sb->st_mode) && is_anonymous_pipe(fd))) {
		/* reads wait for a pipe's data again */
		if (!from_stdin && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
			*ret = -errno;
			snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
			goto close_fd;
		}
		return fd;
	}
	*ret = -EINVAL;
	if (S_ISFIFO(sb->st_mode))
		snprintf(err, errlen, "%s: a named pipe (FIFO), not read by name: give - and redirect it to standard input (< %s)",
			 path, path);
	else
		snprintf(err, errlen, "%s: not a regular file (a device, socket or folder): give a perf.data file, or - for standard input",
			 path);
close_fd:
	close(fd);
	return -1;
}

/* Reads the first PD_PIPE_HEADER bytes into hdr: a little-endian PERFILE2 magic, and its
 * header size in *hsize. Returns 0 or the error (filled). */
static int read_magic(struct pd_ctx *c, uint8_t *hdr, uint64_t *hsize)
{
	uint64_t magic;
	size_t got;
	int ret = read_full(c->fd, hdr, PD_PIPE_HEADER, &got);

	if (ret)
		return fail(c, ret, 0, "read error: %s", strerror(-ret));
	if (got < PD_PIPE_HEADER)
		return fail(c, -EINVAL, got, "file is truncated: %zu bytes, not even a perf.data header",
			    got);
	magic = rd64(hdr);
	*hsize = rd64(hdr + 8);
	if (magic == PD_MAGIC_BE)
		return fail(c, -EPROTONOSUPPORT, 0,
			    "big-endian perf.data file: not supported (convert it on a big-endian host, or record on little-endian)");
	if (magic == PD_MAGIC_V1)
		return fail(c, -EPROTONOSUPPORT, 0, "version 1 perf.data file (PERFFILE): not supported");
	if (magic != PD_MAGIC_LE)
		return fail(c, -EINVAL, 0, "not a perf.data file (magic is not PERFILE2)");
	return 0;
}

int pd_read(const char *path, const struct pd_reader_ops *ops, struct pd_read_info *info,
	    char *err, size_t errlen)
{
	struct pd_read_info dummy;
	struct pd_ctx c = { .path = path, .ops = ops, .err = err, .errlen = errlen, .fd = -1 };
	uint8_t hdr[PD_FILE_HEADER];
	uint64_t hsize = 0;
	struct stat sb;
	int ret;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	c.info = info;
	c.fd = open_input(path, &sb, &ret, err, errlen);
	if (c.fd < 0)
		return ret;
	if ((ret = read_magic(&c, hdr, &hsize)))
		goto out;
	c.st.fd = c.fd;
	c.st.cap = PD_WINDOW;
	c.st.buf = malloc(c.st.cap);
	if (!c.st.buf) {
		ret = -ENOMEM;
		goto out;
	}
	if (hsize == PD_PIPE_HEADER) {
		info->pipe_mode = true;
		c.st.off = PD_PIPE_HEADER;
		c.st.end = UINT64_MAX;
		ret = read_records(&c);
		info->file_size = c.st.off;
		goto out;
	}
	if (hsize < PD_FILE_HEADER || hsize > 4096) {
		ret = fail(&c, -EINVAL, 8, "header size %llu is neither a file (%d) nor a pipe (%d) header",
			   (unsigned long long)hsize, PD_FILE_HEADER, PD_PIPE_HEADER);
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		ret = fail(&c, -EINVAL, 0, "a file-mode perf.data must be a regular file (use pipe mode to stream)");
		goto out;
	}
	info->file_size = sb.st_size;
	if ((uint64_t)sb.st_size < PD_FILE_HEADER) {
		ret = fail(&c, -EINVAL, sb.st_size, "file is truncated inside its header");
		goto out;
	}
	ret = pread_full(c.fd, hdr, PD_FILE_HEADER, 0);
	if (ret) {
		ret = fail(&c, ret, 0, "cannot read the header");
		goto out;
	}
	info->data_offset = rd64(hdr + 40);
	info->data_size = rd64(hdr + 48);
	if (info->data_offset > info->file_size ||
	    info->data_size > info->file_size - info->data_offset) {
		ret = fail(&c, -EINVAL, 40,
			   "data section (offset %llu, %llu bytes) runs past the end of the file of %llu bytes (truncated file?)",
			   (unsigned long long)info->data_offset, (unsigned long long)info->data_size,
			   (unsigned long long)info->file_size);
		goto out;
	}
	ret = read_attrs(&c, rd64(hdr + 16), rd64(hdr + 24), rd64(hdr + 32));
	if (ret)
		goto out;
	ret = read_features(&c, hdr);
	if (ret)
		goto out;
	if (lseek(c.fd, info->data_offset, SEEK_SET) < 0) {
		ret = fail(&c, -errno, info->data_offset, "cannot seek to the data section");
		goto out;
	}
	c.st.off = info->data_offset;
	c.st.end = info->data_offset + info->data_size;
	c.st.eof = info->data_size == 0;
	ret = read_records(&c);
out:
	if (c.zlen && !ret)
		ret = fail(&c, -EINVAL, c.st.off, "compressed data ends inside a record");
	ZSTD_freeDCtx(c.zd);
	free(c.zbuf);
	free(c.st.buf);
	close(c.fd);
	return ret;
}
