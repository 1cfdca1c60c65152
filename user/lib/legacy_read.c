// SPDX-License-Identifier: GPL-2.0
/* Reader of perfwhiz's legacy cdict: one zlib stream holding one msgpack map of 8 columns. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include "exitnames.h"
#include "legacy.h"
#include "mpack.h"
#include "keymap.h"
#include "model.h"

#define LEGACY_MAX_FILE (1ull << 30)	/* compressed bytes we accept */
#define LEGACY_MAX_RAW (4ull << 30)	/* decompressed bytes we accept */

/* The 8 columns, in perfwhiz's order of documentation. */
enum col { C_EVENT, C_CPU, C_USECS, C_PID, C_TASK_NAME, C_DURATION, C_NEXT_PID, C_NEXT_COMM, NCOLS };
static const char *const col_names[NCOLS] = {
	"event", "cpu", "usecs", "pid", "task_name", "duration", "next_pid", "next_comm",
};

/* The columns a pass reads (each column has its own cursor: one not read stays put). */
#define COL(k) (1u << (k))
#define COLS_ALL (COL(NCOLS) - 1)
#define COLS_EMIT (COLS_ALL & ~COL(C_TASK_NAME) & ~COL(C_NEXT_PID))

enum row_event { EV_OTHER, EV_SWITCH, EV_KVM_EXIT, EV_KVM_ENTRY };

struct row {
	enum row_event event;
	uint32_t cpu;
	uint64_t usecs;
	int64_t pid;
	char task_name[PWZ_NAME_MAX];
	uint64_t duration;		/* µs */
	bool has_next_pid;
	int64_t next_pid;
	bool next_comm_is_str;
	const uint8_t *next_comm;	/* its bytes in the document (not NUL-terminated) */
	uint32_t next_comm_len;
	bool next_comm_is_int;
	int64_t reason;			/* next_comm as an integer (kvm_exit rows) */
};

struct legacy {
	const char *path;
	char *err;
	size_t errlen;
	unsigned char *raw;
	size_t raw_len;
	struct mp_cursor col[NCOLS];	/* each at the next element of its column */
	uint32_t rows;
};

static int fail(struct legacy *l, const char *fmt, const char *detail, long long off)
{
	snprintf(l->err, l->errlen, "%s: legacy cdict: %s%s%s", l->path, fmt, detail ? ": " : "",
		 detail ? detail : "");
	if (off >= 0) {
		size_t n = strlen(l->err);

		snprintf(l->err + n, l->errlen - n, " (decompressed offset %lld)", off);
	}
	return -EINVAL;
}

bool legacy_sniff(const unsigned char *head, size_t len)
{
	return len >= 2 && head[0] == 0x78 && ((head[0] << 8) | head[1]) % 31 == 0;
}

/* What a msgpack first byte starts (for messages). */
static const char *mp_kind(unsigned char b)
{
	if (b <= 0x7f || (b >= 0xcc && b <= 0xd3) || b >= 0xe0)
		return "an integer";
	if ((b & 0xf0) == 0x90 || b == 0xdc || b == 0xdd)
		return "an array";
	if ((b & 0xe0) == 0xa0 || (b >= 0xc4 && b <= 0xc6) || (b >= 0xd9 && b <= 0xdb))
		return "a string";
	if (b == 0xc0)
		return "nil";
	return "another msgpack type";
}

/*
 * The document's shape, checked while the stream inflates, so that a stream that is not a
 * legacy document is refused at its first wrong byte instead of after gigabytes (a zlib
 * stream inflates up to 1032 times its size): a map of columns, each key a string and each
 * value an array of the first column's count of scalars (numbers, strings of at most
 * LEGACY_MAX_STR bytes, nil), nothing after the map. What the columns declare bounds the
 * rest: every row takes at least a byte in each column, so columns x rows past LEGACY_MAX_RAW
 * are refused at the first array header. A valid-looking stream is thus inflated at most one
 * column further than its first wrong byte. The check notes where each column begins: the
 * passes that read the rows start there, without walking the document again.
 */
#define LEGACY_MAX_STR (PWZ_NAME_MAX - 1)	/* names longer are no perfwhiz name */
#define LEGACY_MAX_ITEM (5 + LEGACY_MAX_STR)	/* the longest element, header included */

enum shape_state { SH_MAP, SH_KEY, SH_ARRAY, SH_ELEM, SH_END };

struct shape {
	enum shape_state state;
	size_t pos;		/* decompressed offset of the next object to check */
	uint64_t keys;		/* the map's declared columns */
	uint64_t key;		/* columns begun */
	uint64_t rows;		/* the first column's count */
	uint64_t left;		/* elements of the current column still to check */
	char name[32];		/* the current column's name (for messages) */
	size_t col_at[NCOLS];	/* per column of col_names: the offset of its first element (of
				 * the last column of that name), 0 while none came */
};

/* The header of a map (map) or array at p[0..n): its length, with *count; 0 when p starts
 * something else, -1 when n is too short to tell. */
static int container_head(const unsigned char *p, size_t n, bool map, uint64_t *count)
{
	unsigned char fix = map ? 0x80 : 0x90, b16 = map ? 0xde : 0xdc, b32 = map ? 0xdf : 0xdd;

	if (n < 1)
		return -1;
	if ((p[0] & 0xf0) == fix) {
		*count = p[0] & 0x0f;
		return 1;
	}
	if (p[0] != b16 && p[0] != b32)
		return 0;
	if (n < (p[0] == b16 ? 3u : 5u))
		return -1;
	*count = p[0] == b16 ? (uint64_t)p[1] << 8 | p[2] :
		 (uint64_t)p[1] << 24 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 8 | p[4];
	return p[0] == b16 ? 3 : 5;
}

/* A key or an element at raw[sh->pos..n), whole (the caller holds LEGACY_MAX_ITEM bytes or
 * the whole stream). Returns 0 or the error. */
static int shape_item(struct legacy *l, struct shape *sh, const unsigned char *raw, size_t n)
{
	struct mp_cursor c;
	enum mp_type t;
	uint32_t len = 0;
	char detail[96];

	mp_init(&c, raw + sh->pos, n - sh->pos);
	t = mp_peek(&c);
	if (sh->state == SH_KEY && t != MP_STR && t != MP_BIN)
		return fail(l, "a column name is not a string", mp_kind(raw[sh->pos]),
			    (long long)sh->pos);
	if (t == MP_STR || t == MP_BIN) {
		const uint8_t *p = mp_read_bytes(&c, &len);

		if (p && len <= LEGACY_MAX_STR && sh->state == SH_KEY)
			snprintf(sh->name, sizeof(sh->name), "%.*s", (int)len, (const char *)p);
	} else if (t == MP_ARRAY || t == MP_MAP || t == MP_EXT || t == MP_INVALID) {
		return fail(l, "an element is not a number, string or nil", sh->name,
			    (long long)sh->pos);
	} else {
		mp_skip(&c);
	}
	if (len > LEGACY_MAX_STR) {
		snprintf(detail, sizeof(detail), "%s, %u bytes (at most %d)",
			 sh->state == SH_KEY ? "a column name" : sh->name, len, LEGACY_MAX_STR);
		return fail(l, "a string longer than any name", detail, (long long)sh->pos);
	}
	if (c.err)
		return fail(l, "cut short", sh->name, (long long)sh->pos);
	sh->pos += mp_offset(&c);
	return 0;
}

/* A column's array header at raw[sh->pos..n): its count against the first column's, the
 * bound and (done: all of the stream is there) the bytes left. Returns 1 while too few bytes
 * are there, 0 or the error. */
static int shape_column(struct legacy *l, struct shape *sh, const unsigned char *raw, size_t n,
			bool done)
{
	uint64_t count;
	int h = container_head(raw + sh->pos, n - sh->pos, false, &count);
	char detail[128];

	if (h < 0)
		return 1;
	if (!h)
		return fail(l, "column is not an array", sh->name, (long long)sh->pos);
	if (sh->key == 1 && sh->keys * count > LEGACY_MAX_RAW) {
		snprintf(detail, sizeof(detail),
			 "%llu columns of %llu rows take at least %llu bytes, more than 4 GiB",
			 (unsigned long long)sh->keys, (unsigned long long)count,
			 (unsigned long long)(sh->keys * count));
		return fail(l, "larger than a legacy file may be", detail, (long long)sh->pos);
	}
	if (sh->key == 1)
		sh->rows = count;
	else if (count != sh->rows)
		return fail(l, "columns differ in length", sh->name, (long long)sh->pos);
	if (done && count > n - sh->pos - (size_t)h)
		return fail(l, "column count larger than the bytes that remain", sh->name,
			    (long long)sh->pos);
	sh->pos += (size_t)h;
	sh->left = count;
	for (int k = 0; k < NCOLS; k++)
		if (!strcmp(sh->name, col_names[k]))
			sh->col_at[k] = sh->pos;
	return 0;
}

/* The length of the element at p[0..avail) when it is a scalar shape_item() accepts (a
 * number, nil, a boolean, a string with a header of 1 or 2 bytes) and all of it is there;
 * 0 when it is anything else, for shape_item() to tell. */
static size_t scalar_len(const unsigned char *p, size_t avail)
{
	static const unsigned char fixed[256] = {
		[0x00 ... 0x7f] = 1, [0xc0] = 1, [0xc2 ... 0xc3] = 1, [0xe0 ... 0xff] = 1,
		[0xca] = 5, [0xcb] = 9, [0xcc] = 2, [0xcd] = 3, [0xce] = 5, [0xcf] = 9,
		[0xd0] = 2, [0xd1] = 3, [0xd2] = 5, [0xd3] = 9,
	};
	size_t len = fixed[p[0]];

	_Static_assert(LEGACY_MAX_STR >= 255, "a str 8 or bin 8 holds at most 255 bytes");
	if ((p[0] & 0xe0) == 0xa0)
		len = 1 + (p[0] & 0x1fu);
	else if ((p[0] == 0xd9 || p[0] == 0xc4) && avail >= 2)
		len = 2 + (size_t)p[1];
	return len <= avail ? len : 0;
}

/*
 * Checks raw[sh->pos..n), the bytes inflated so far (all of the stream when done). Returns 1
 * while the document goes on, 0 at its end, or the error.
 */
static int shape_check(struct legacy *l, struct shape *sh, const unsigned char *raw, size_t n,
		       bool done)
{
	uint64_t keys;
	size_t len;
	int h, ret;

	while (sh->state != SH_END) {
		if (sh->state == SH_MAP) {
			h = container_head(raw, n, true, &keys);
			if (h < 0 && !done)
				return 1;
			if (h <= 0)
				return fail(l, "expected a map of columns",
					    n ? mp_kind(raw[0]) : "nothing", 0);
			if (keys > LEGACY_MAX_RAW / 2)
				return fail(l, "larger than a legacy file may be", "too many columns", 0);
			sh->keys = keys;
			sh->pos = (size_t)h;
			sh->state = keys ? SH_KEY : SH_END;
		} else if (sh->state == SH_ARRAY) {
			ret = shape_column(l, sh, raw, n, done);
			if (ret > 0 && done)
				return fail(l, "cut short", sh->name, (long long)sh->pos);
			if (ret)
				return ret;
			sh->state = sh->left ? SH_ELEM : sh->key < sh->keys ? SH_KEY : SH_END;
		} else {
			/* elements that are whole scalars in a run, quickly (the last of a column
			 * goes to shape_item(), which moves on to the next column) */
			while (sh->state == SH_ELEM && sh->left > 1 && sh->pos < n &&
			       (len = scalar_len(raw + sh->pos, n - sh->pos))) {
				sh->pos += len;
				sh->left--;
			}
			if (n - sh->pos < LEGACY_MAX_ITEM && !done)
				return 1;
			if (sh->pos >= n)
				return fail(l, "cut short", sh->name, (long long)sh->pos);
			if ((ret = shape_item(l, sh, raw, n)))
				return ret;
			if (sh->state == SH_KEY) {
				sh->key++;
				sh->state = SH_ARRAY;
			} else if (!--sh->left) {
				sh->state = sh->key < sh->keys ? SH_KEY : SH_END;
			}
		}
	}
	if (sh->pos < n)
		return fail(l, "bytes after the map of columns", NULL, (long long)sh->pos);
	return 0;
}

/* Reads the whole compressed file into *in. Returns 0 or the error. */
static int read_file(struct legacy *l, FILE *f, unsigned char **in, size_t *in_len)
{
	long size;

	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return fail(l, "cannot read", strerror(errno), -1);
	if ((unsigned long long)size > LEGACY_MAX_FILE)
		return fail(l, "file larger than 1 GiB", NULL, -1);
	*in_len = (size_t)size;
	*in = malloc(*in_len ? *in_len : 1);
	if (!*in)
		return -ENOMEM;
	if (fread(*in, 1, *in_len, f) != *in_len)
		return fail(l, "cannot read", strerror(errno), -1);
	return 0;
}

#define LEGACY_STEP (1u << 20)	/* bytes inflated between two checks of the shape */

/* Grows *out (*cap bytes, used of them inflated) when full. Returns 0 or the error. */
static int grow_out(struct legacy *l, unsigned char **out, size_t *cap, size_t used, size_t in_len)
{
	size_t ncap = *cap ? *cap * 2 : in_len * 4 + 4096;
	unsigned char *p;

	if (used < *cap)
		return 0;
	if (ncap > LEGACY_MAX_RAW)
		ncap = LEGACY_MAX_RAW;
	if (ncap == *cap)
		return fail(l, "decompresses to more than 4 GiB", NULL, -1);
	p = realloc(*out, ncap);
	if (!p)
		return -ENOMEM;
	*out = p;
	*cap = ncap;
	return 0;
}

/* Inflates the file into l->raw, checking the document's shape as it comes into sh. */
static int inflate_file(struct legacy *l, FILE *f, struct shape *sh)
{
	unsigned char *in = NULL, *out = NULL;
	size_t in_len = 0, cap = 0, avail;
	z_stream zs = { 0 };
	int zret = Z_OK, ret;

	ret = read_file(l, f, &in, &in_len);
	if (!ret && inflateInit(&zs) != Z_OK)
		ret = -ENOMEM;
	if (ret) {
		free(in);
		return ret;
	}
	zs.next_in = in;
	zs.avail_in = (uInt)in_len;
	while (!ret && zret != Z_STREAM_END) {
		if ((ret = grow_out(l, &out, &cap, zs.total_out, in_len)))
			break;
		avail = cap - zs.total_out;
		zs.next_out = out + zs.total_out;
		zs.avail_out = (uInt)(avail > LEGACY_STEP ? LEGACY_STEP : avail);
		zret = inflate(&zs, Z_NO_FLUSH);
		if (zret == Z_OK || zret == Z_STREAM_END)
			ret = shape_check(l, sh, out, zs.total_out, zret == Z_STREAM_END);
		else if (zret == Z_BUF_ERROR && zs.avail_in == 0)
			ret = fail(l, "cut short: the zlib stream ends early", NULL, -1);
		else if (zret != Z_BUF_ERROR)
			ret = fail(l, "corrupt zlib stream", zs.msg ? zs.msg : zError(zret), -1);
		if (ret > 0)
			ret = 0;	/* the document goes on */
	}
	l->raw_len = zs.total_out;
	inflateEnd(&zs);
	free(in);
	if (ret) {
		free(out);
		return ret;
	}
	l->raw = out;
	return 0;
}

/* Points the column cursors at the 8 columns the shape check found (struct shape). */
static int find_columns(struct legacy *l, const struct shape *sh)
{
	for (int k = 0; k < NCOLS; k++) {
		if (!sh->col_at[k])
			return fail(l, "column missing", col_names[k], -1);
		mp_init(&l->col[k], l->raw, l->raw_len);
		l->col[k].p += sh->col_at[k];
	}
	l->rows = (uint32_t)sh->rows;
	return 0;
}

static int64_t read_opt_int(struct mp_cursor *c, bool *present)
{
	*present = mp_peek(c) != MP_NIL;
	if (!*present) {
		mp_read_nil(c);
		return 0;
	}
	return mp_read_int(c);
}

/* The event of an event column's string (read up to a NUL, as a C string of 31 bytes). */
static enum row_event event_of(const uint8_t *p, uint32_t len)
{
#define EVENT(s, e) { s, sizeof(s) - 1, e }
	static const struct {
		const char *name;
		size_t len;
		enum row_event event;
	} events[] = {
		EVENT("sched__sched_switch", EV_SWITCH),
		EVENT("kvm_exit", EV_KVM_EXIT),
		EVENT("kvm_entry", EV_KVM_ENTRY),
	};
#undef EVENT
	size_t n = len < 31 ? len : 31;

	/* the name, then the string's end or a NUL: the name is the C string */
	for (size_t i = 0; p && i < sizeof(events) / sizeof(events[0]); i++)
		if (n >= events[i].len && !memcmp(p, events[i].name, events[i].len) &&
		    (n == events[i].len || !p[events[i].len]))
			return events[i].event;
	return EV_OTHER;
}

/* Reads row fields from the column cursors of cols (COL() of each; they advance by one
 * element); the fields of the others are left unset. */
static int read_row(struct legacy *l, struct row *r, unsigned int cols)
{
	const uint8_t *event;
	uint32_t len;
	bool present;

	event = mp_read_bytes(&l->col[C_EVENT], &len);
	r->event = event_of(event, len);
	r->cpu = (uint32_t)mp_read_uint(&l->col[C_CPU]);
	r->usecs = mp_read_uint(&l->col[C_USECS]);
	r->pid = mp_read_int(&l->col[C_PID]);
	if (!(cols & COL(C_TASK_NAME))) {
		r->task_name[0] = '\0';
	} else if (mp_peek(&l->col[C_TASK_NAME]) == MP_NIL) {
		mp_read_nil(&l->col[C_TASK_NAME]);
		r->task_name[0] = '\0';
	} else {
		mp_read_string(&l->col[C_TASK_NAME], r->task_name, sizeof(r->task_name));
	}
	r->duration = (uint64_t)read_opt_int(&l->col[C_DURATION], &present);
	r->has_next_pid = false;
	if (cols & COL(C_NEXT_PID))
		r->next_pid = read_opt_int(&l->col[C_NEXT_PID], &r->has_next_pid);
	r->next_comm_is_str = r->next_comm_is_int = false;
	switch (mp_peek(&l->col[C_NEXT_COMM])) {
	case MP_STR:
	case MP_BIN:
		r->next_comm_is_str = true;
		r->next_comm = mp_read_bytes(&l->col[C_NEXT_COMM], &r->next_comm_len);
		break;
	case MP_UINT:
	case MP_INT:
		r->next_comm_is_int = true;
		r->reason = mp_read_int(&l->col[C_NEXT_COMM]);
		break;
	default:
		mp_skip(&l->col[C_NEXT_COMM]);
		break;
	}
	for (int k = 0; k < NCOLS; k++) {
		if (l->col[k].err)
			return fail(l, l->col[k].err, col_names[k], (long long)mp_offset(&l->col[k]));
	}
	if (r->cpu >= PWZ_MAX_CPUS)
		return fail(l, "cpu number out of range", NULL, (long long)mp_offset(&l->col[C_CPU]));
	if (r->pid < 0 || r->pid > UINT32_MAX)
		r->pid = 0;
	return 0;
}

/* An exit waiting for its entry. */
struct pending {
	struct pwz_kvm_exit e;
	bool live;		/* an exit is waiting */
};

/* The first name a switch row's next_comm gives a tid. */
struct next_name {
	uint32_t tid;
	char name[PWZ_NAME_MAX];
};

/* Derived state: tasks, pending exits (each array indexed through its keymap), and the fold
 * of the records made (model.h R7). */
struct derive {
	struct keymap task_idx;		/* (tid, since): one per thread instance (model.h R8) */
	struct pwz_task *tasks;
	size_t cap_tasks;
	struct keymap cur_idx;		/* (tid, 0) */
	struct current *cur;		/* per tid: its latest instance */
	size_t cap_cur;
	struct model_fold *fold;
	struct keymap pend_idx;		/* (tid, 0) */
	struct pending *pend;
	size_t cap_pend;
	struct keymap next_idx;		/* (tid, 0) */
	struct next_name *next;		/* per tid switched to: the first next_comm naming it */
	size_t cap_next;
};

/* The element of (a, b) in *arr, the array indexed through m: added zeroed when new (*added
 * says so). NULL when out of memory. */
static void *slot_of(struct keymap *m, uint64_t a, uint64_t b, void **arr, size_t *cap,
		     size_t elem, int *added)
{
	int64_t i = keymap_get(m, a, b, added);
	char *p;

	if (i < 0 || array_reserve(arr, cap, m->count, elem))
		return NULL;
	p = (char *)*arr + (size_t)i * elem;
	if (*added)
		memset(p, 0, elem);
	return p;
}

/* A tid's latest instance while scanning: its task entry and the end of its last row. */
struct current {
	size_t task;
	uint64_t last_end_ns;
};

/* Adds the instance (tid, since) named name (BORN when since > 0). */
static struct pwz_task *add_instance(struct derive *d, uint32_t tid, uint64_t since,
				     const char *name)
{
	int added;
	struct pwz_task *t = slot_of(&d->task_idx, tid, since, (void **)&d->tasks, &d->cap_tasks,
				     sizeof(*t), &added);

	if (t && added) {
		t->tid = tid;
		t->time_ns = t->since_ns = since;
		t->flags = since ? PWZ_TASK_BORN : 0;
		snprintf(t->comm, sizeof(t->comm), "%s", name);
		snprintf(t->name, sizeof(t->name), "%s", name);
	}
	return t;
}

/*
 * Names tid from a row spanning [start_ns, end_ns). A legacy file cannot tell a recycled tid
 * from a rename (perfwhiz grouped its rows by name): a tid seen under another name is a new
 * instance (model.h R8) from that row on, born after the previous instance's last row. With
 * only_new, names only a tid not seen at all (the next_comm pass).
 */
static int add_task(struct derive *d, uint32_t tid, const char *name, uint64_t start_ns,
		    uint64_t end_ns, bool only_new)
{
	int added;
	struct current *c = slot_of(&d->cur_idx, tid, 0, (void **)&d->cur, &d->cap_cur,
				    sizeof(*c), &added);
	struct pwz_task *t;
	uint64_t birth;

	if (!c)
		return -ENOMEM;
	if (added) {
		if (!add_instance(d, tid, 0, name))
			return -ENOMEM;
		c->task = d->task_idx.count - 1;
	} else if (!only_new && strcmp(d->tasks[c->task].name, name)) {
		birth = start_ns > c->last_end_ns ? start_ns : c->last_end_ns + 1;
		t = add_instance(d, tid, birth, name);
		if (!t || model_fold__born(d->fold, tid, birth))
			return -ENOMEM;
		c->task = (size_t)(t - d->tasks);
	}
	if (!only_new && end_ns > c->last_end_ns)
		c->last_end_ns = end_ns;
	return 0;
}

/* Emits the exit pending in p (if any; paired: its entry came) and clears it. */
static int flush_exit(struct derive *d, struct pending *p, bool paired,
		      const struct cdict_visitor *v, struct cdict_read_info *info)
{
	if (!p->live)
		return 0;
	p->live = false;
	p->e.flags = paired ? 0 : PWZ_EXIT_UNPAIRED;
	if (model_fold__kvm_exit(d->fold, &p->e))
		return -ENOMEM;
	info->records++;
	return v->kvm_exit ? v->kvm_exit(v->ctx, &p->e) : 0;
}

static void derive_free(struct derive *d)
{
	keymap_free(&d->task_idx);
	keymap_free(&d->cur_idx);
	free(d->cur);
	keymap_free(&d->pend_idx);
	keymap_free(&d->next_idx);
	free(d->next);
	model_fold__free(d->fold);
	free(d->tasks);
	free(d->pend);
}

#define LEGACY_RELEASE_ROWS (1u << 16)	/* rows emitted between two releases of what was read */

/*
 * Gives the pages of the document that the emit pass has read back to the system: each
 * column's bytes from *done[k] to its cursor, whole pages only (a page shared with the next
 * column stays). The emit pass reads them last, so the inflated document and the records made
 * from it are not held whole at once. Only pages inside the document's allocation are given
 * back, and they are never read again (they would read as zeros); a release that fails only
 * keeps the memory.
 */
static void release_read(struct legacy *l, const uint8_t **done)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	for (int k = 0; k < NCOLS; k++) {
		uintptr_t a = ((uintptr_t)done[k] + page - 1) & ~(page - 1);
		uintptr_t b = (uintptr_t)l->col[k].p & ~(page - 1);

		if (b > a) {
			madvise((void *)a, b - a, MADV_DONTNEED);
			done[k] = (const uint8_t *)b;
		}
	}
}

/* The records of the rows, after scan() named the tasks. Times stay in perfwhiz's base,
 * microseconds from its first event. */
static int emit_rows(struct legacy *l, struct mp_cursor *saved, struct derive *d,
		     const struct cdict_visitor *v, struct cdict_read_info *info)
{
	const uint8_t *done[NCOLS];
	struct row r;
	int ret = 0;

	memcpy(l->col, saved, sizeof(l->col));
	for (int k = 0; k < NCOLS; k++)
		done[k] = saved[k].p;
	for (uint32_t i = 0; i < l->rows && !ret; i++) {
		ret = read_row(l, &r, COLS_EMIT);
		if (ret)
			break;
		if (i % LEGACY_RELEASE_ROWS == LEGACY_RELEASE_ROWS - 1)
			release_read(l, done);
		if (r.event == EV_SWITCH) {
			struct pwz_slice s = { .tid = (uint32_t)r.pid, .cpu = r.cpu,
					       .end = PWZ_END_UNKNOWN };
			uint64_t end = r.usecs;

			s.dur_ns = r.duration * 1000;
			s.start_ns = end * 1000 > s.dur_ns ? end * 1000 - s.dur_ns : 0;
			if (model_fold__slice(d->fold, &s))
				return -ENOMEM;
			info->records++;
			if (v->slice)
				ret = v->slice(v->ctx, &s);
		} else if (r.event == EV_KVM_EXIT) {
			int added;
			struct pending *p = slot_of(&d->pend_idx, (uint32_t)r.pid, 0, (void **)&d->pend,
						    &d->cap_pend, sizeof(*p), &added);

			if (!p)
				return -ENOMEM;
			ret = flush_exit(d, p, false, v, info);	/* an exit with no entry */
			p->e = (struct pwz_kvm_exit){
				.tid = (uint32_t)r.pid,
				.time_ns = r.usecs * 1000,
				.isa = PWZ_ISA_VMX,
				.reason = r.next_comm_is_int ? (uint32_t)r.reason : UINT32_MAX,
				.guest_ns = r.duration * 1000,
			};
			p->live = true;
		} else if (r.event == EV_KVM_ENTRY) {
			int64_t k = keymap_find(&d->pend_idx, (uint32_t)r.pid, 0);

			if (k >= 0 && d->pend[k].live) {
				d->pend[k].e.handling_ns = r.duration * 1000;
				ret = flush_exit(d, &d->pend[k], true, v, info);
			}
		}
	}
	for (size_t k = 0; !ret && k < d->pend_idx.count; k++)
		ret = flush_exit(d, &d->pend[k], false, v, info);
	return ret;
}

/* Keeps the first name the next_comm of switch row r gives its next_pid, for the tids never
 * named from the pid column (names_from_next()). Returns 0 or -ENOMEM. */
static int note_next_name(struct derive *d, const struct row *r)
{
	struct next_name *n;
	int added;

	if (r->event != EV_SWITCH || !r->has_next_pid || !r->next_comm_is_str ||
	    r->next_pid < 0 || r->next_pid > UINT32_MAX)
		return 0;
	n = slot_of(&d->next_idx, (uint32_t)r->next_pid, 0, (void **)&d->next, &d->cap_next,
		    sizeof(*n), &added);
	if (!n)
		return -ENOMEM;
	if (added) {
		n->tid = (uint32_t)r->next_pid;
		snprintf(n->name, sizeof(n->name), "%.*s", (int)r->next_comm_len,
			 (const char *)r->next_comm);
	}
	return 0;
}

/* Names the tids only ever switched to (not in the pid column, whose names win) by their
 * first next_comm, in the order of the rows. */
static int names_from_next(struct derive *d)
{
	int ret = 0;

	for (size_t k = 0; !ret && k < d->next_idx.count; k++)
		ret = add_task(d, d->next[k].tid, d->next[k].name, 0, 0, true);
	return ret;
}

/* First pass: the end of the time span, CPUs, whether there are KVM rows, the task names of
 * the pid column (each name a tid goes by, an instance: add_task()) and of next_comm. */
static int scan(struct legacy *l, struct mp_cursor *saved, struct derive *d, uint64_t *t1,
		uint32_t *nr_cpus, bool *has_kvm)
{
	uint64_t start, end;
	struct row r;
	int ret;

	*t1 = 0;
	*nr_cpus = 0;
	*has_kvm = false;
	memcpy(l->col, saved, sizeof(l->col));
	for (uint32_t i = 0; i < l->rows; i++) {
		ret = read_row(l, &r, COLS_ALL);
		if (!ret)
			ret = note_next_name(d, &r);
		if (ret)
			return ret;
		if (r.event == EV_OTHER)
			continue;
		if (r.usecs > *t1)
			*t1 = r.usecs;
		if (r.cpu + 1 > *nr_cpus)
			*nr_cpus = r.cpu + 1;
		if (r.event != EV_SWITCH)
			*has_kvm = true;
		end = r.usecs * 1000;
		start = r.event == EV_SWITCH && end > r.duration * 1000 ? end - r.duration * 1000 : 0;
		ret = add_task(d, (uint32_t)r.pid, r.task_name, r.event == EV_SWITCH ? start : end,
			       end, false);
		if (ret)
			return ret;
	}
	return 0;
}

int legacy_read(FILE *f, const char *path, const struct cdict_visitor *v,
		struct cdict_read_info *info, char *err, size_t errlen)
{
	struct legacy l = { .path = path, .err = err, .errlen = errlen };
	struct shape sh = { .state = SH_MAP };
	struct mp_cursor saved[NCOLS];
	struct derive d = { .fold = model_fold__new(NULL) };
	struct pwz_meta meta = { 0 };
	uint64_t t1;
	bool has_kvm;
	int ret;

	info->format = CDICT_FORMAT_LEGACY;
	info->version = 1;
	ret = d.fold ? inflate_file(&l, f, &sh) : -ENOMEM;
	if (!ret)
		ret = find_columns(&l, &sh);
	if (ret)
		goto out;
	memcpy(saved, l.col, sizeof(saved));
	ret = scan(&l, saved, &d, &t1, &meta.nr_cpus, &has_kvm);
	if (ret)
		goto out;
	meta.source = PWZ_SOURCE_LEGACY;
	meta.clock_id = -1;
	/* perfwhiz wrote usecs relative to its first event: that time base is kept */
	meta.duration_ns = t1 * 1000;
	meta.has_kvm = has_kvm;
	if (has_kvm && exitnames_add_builtin(&meta) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	if (v->meta && (ret = v->meta(v->ctx, &meta)))
		goto out;
	ret = names_from_next(&d);
	for (size_t i = 0; !ret && i < d.task_idx.count; i++) {
		info->records++;
		if (v->task)
			ret = v->task(v->ctx, &d.tasks[i]);
	}
	if (!ret)
		ret = emit_rows(&l, saved, &d, v, info);
	if (!ret)
		ret = model_fold__emit(d.fold, v);
	info->chunks = 1;
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	derive_free(&d);
	pwz_meta_free(&meta);
	free(l.raw);
	return ret;
}
