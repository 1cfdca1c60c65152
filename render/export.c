// SPDX-License-Identifier: GPL-2.0
/* `pwz-render --export parquet`: the cdict reader's records into one Parquet file per table. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cdict.h"
#include "export.h"
#include "tasksel.h"
#include "export_split.h"
#include "keymap.h"
#include "model.h"
#include "outfile.h"
#include "parquet.h"
#include "trace.h"
#include "vms.h"

#define U32 PARQUET_UINT32	/* every integer pwz exports is unsigned */
#define U64 PARQUET_UINT64
#define STR PARQUET_STRING
#define COMMON { "trace_id", STR, false }, { "host", STR, true }

/* Column lists: the order here is the order of the cells each writer below sets. */
static const struct parquet_column sched_slice_cols[] = {
	COMMON, { "ts", U64, false }, { "dur", U64, false }, { "cpu", U32, false }, { "tid", U32, false },
	{ "utid", U32, false }, { "end_state", STR, true }, { "unseen_start", U32, false },
};
static const struct parquet_column thread_state_cols[] = {
	COMMON, { "ts", U64, false }, { "dur", U64, false }, { "cpu", U32, false }, { "tid", U32, false },
	{ "utid", U32, false }, { "state", STR, false },
};
static const struct parquet_column thread_cols[] = {
	COMMON, { "utid", U32, false }, { "tid", U32, false }, { "start_ts", U64, true },
	{ "pid", U32, true }, { "name", STR, true }, { "comm", STR, true },
	{ "wait_count", U64, true }, { "wait_ns", U64, true }, { "wait_max_ns", U64, true },
	{ "run_delay_ns", U64, true }, { "run_delay_wait_ns", U64, true },
	{ "run_delay_unmeasured_ns", U64, true },
};
static const struct parquet_column process_cols[] = {
	COMMON, { "pid", U32, false }, { "name", STR, true },
};
static const struct parquet_column kvm_exit_cols[] = {
	COMMON, { "ts", U64, false }, { "dur", U64, true }, { "tid", U32, false }, { "utid", U32, false },
	{ "vcpu", U32, false },
	{ "isa", STR, true }, { "reason", U32, false }, { "reason_name", STR, true },
	{ "guest_ns", U64, true }, { "on_cpu_ns", U64, true }, { "off_cpu_sleep_ns", U64, true },
	{ "off_cpu_ready_ns", U64, true },
};
static const struct parquet_column cpu_residency_cols[] = {
	COMMON, { "tid", U32, false }, { "utid", U32, false }, { "cpu", U32, false },
	{ "runtime_ns", U64, false }, { "switches", U64, false },
	{ "voluntary", U64, true }, { "involuntary", U64, true }, { "unseen", U64, false },
	{ "unseen_ns", U64, false },
};
static const struct parquet_column vcpu_cols[] = {
	COMMON, { "vm", STR, true }, { "pid", U32, true }, { "tid", U32, false }, { "utid", U32, false },
	{ "vcpu", U32, true }, { "window_ns", U64, false }, { "alive_ns", U64, false },
	{ "running_ns", U64, false },
	{ "ready_ns", U64, false }, { "sleep_ns", U64, false }, { "unseen_ns", U64, false },
	{ "waits", U64, false }, { "exits", U64, false }, { "uncharged_ns", U64, true },
};
static const struct parquet_column vcpu_state_cols[] = {
	COMMON, { "vm", STR, true }, { "pid", U32, true }, { "tid", U32, false }, { "utid", U32, false },
	{ "vcpu", U32, true }, { "name", STR, true }, { "state", STR, false }, { "ns", U64, false },
	{ "count", U64, false }, { "alive_ns", U64, false },
};
static const struct parquet_column capture_cols[] = {
	COMMON, { "boot_id", STR, true }, { "kernel", STR, true }, { "nr_cpus", U32, true },
	{ "start_wall_ns", U64, true }, { "dur", U64, false }, { "drops", U64, false }, { "source", STR, false },
	{ "format", STR, false }, { "tool_version", STR, true }, { "cut", U32, false },
	{ "steal_ns", U64, true }, { "steal_cpu_time_ns", U64, true },
};

static const struct {
	const char *name;
	const struct parquet_column *cols;
	size_t nr;
} tables[EXPORT_NR_TABLES] = {
#define T(id, n, c) [id] = { n, c, sizeof(c) / sizeof(c[0]) }
	T(EXPORT_SCHED_SLICE, "sched_slice", sched_slice_cols),
	T(EXPORT_THREAD_STATE, "thread_state", thread_state_cols),
	T(EXPORT_THREAD, "thread", thread_cols),
	T(EXPORT_PROCESS, "process", process_cols),
	T(EXPORT_KVM_EXIT, "kvm_exit", kvm_exit_cols),
	T(EXPORT_CPU_RESIDENCY, "cpu_residency", cpu_residency_cols),
	T(EXPORT_VCPU, "vcpu", vcpu_cols),
	T(EXPORT_VCPU_STATE, "vcpu_state", vcpu_state_cols),
	T(EXPORT_CAPTURE, "capture", capture_cols),
#undef T
};

const char *export_table_name(enum export_table t)
{
	return t < EXPORT_NR_TABLES ? tables[t].name : NULL;
}

/* What the thread table says of one thread instance (model.h R8: a recycled tid is another). */
struct thr {
	uint32_t tid;
	uint64_t since_ns;		/* its birth in the capture; 0 there at the start */
	uint32_t utid;			/* its row's id in this capture's tables */
	bool has_task;
	bool has_wait;
	struct pwz_task task;		/* the last naming */
	struct pwz_wait_agg wait;	/* summed over the capture's wait aggregates */
};

struct xp {
	const char *path;
	const char *out_dir;
	int dir_len;			/* out_dir without trailing '/', for the names shown */
	const struct export_opts *opts;
	struct export_result *res;
	struct pwz_meta meta;
	bool have_meta;
	char host[PWZ_NAME_MAX * 3];	/* UTF-8 clean copy of meta.host */
	int root_fd;			/* the tree's top folder (out_dir); -1 until opened */
	int dir_fd[EXPORT_NR_TABLES];	/* its table folders; -1 until opened */
	struct parquet_writer *w[EXPORT_NR_TABLES];
	struct keymap thr_idx;		/* (tid, since) -> thrs[] */
	struct model_fold *births;	/* the instances' births (model.h R8), for records' times */
	struct thr *thrs;
	size_t thrs_cap;
	uint64_t end_ns;		/* end of the last record, for a cut file's length */
	uint32_t max_cpu1;		/* highest CPU seen + 1 */
	struct parquet_value exit_name[2][256];	/* [vmx, svm][reason] of the reasons below 256 */
	struct export_split *split;	/* the exits' on/off-CPU split (KVM captures); NULL none */
	char *err;
	size_t errlen;
};

size_t export_utf8(const char *s, size_t n, char *out, size_t outlen)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0, o = 0;

	while (i < n && p[i]) {
		size_t len = p[i] < 0x80 ? 1 : (p[i] & 0xe0) == 0xc0 ? 2 : (p[i] & 0xf0) == 0xe0 ? 3 :
			     (p[i] & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len && i + len <= n;

		for (size_t k = 1; ok && k < len; k++)
			ok = (p[i + k] & 0xc0) == 0x80;
		/* no overlong forms, surrogates or code points past U+10FFFF */
		if (ok && len == 2)
			ok = p[i] >= 0xc2;
		if (ok && len == 3)
			ok = !(p[i] == 0xe0 && p[i + 1] < 0xa0) && !(p[i] == 0xed && p[i + 1] >= 0xa0);
		if (ok && len == 4)
			ok = p[i] <= 0xf4 && !(p[i] == 0xf0 && p[i + 1] < 0x90) &&
			     !(p[i] == 0xf4 && p[i + 1] >= 0x90);
		if (ok) {
			if (o + len >= outlen)
				break;
			memcpy(out + o, p + i, len);
			o += len;
			i += len;
		} else {
			if (o + 3 >= outlen)
				break;
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	return o;
}

/* Cells of parquet_writer__row(). */
#define V_I(v) ((struct parquet_value){ .i = (int64_t)(v) })
#define V_NULL ((struct parquet_value){ .null = true })
#define V_IN(v, known) ((known) ? V_I(v) : V_NULL)

/* A string cell of a NUL-terminated s, NULL for null; s must be valid UTF-8. */
static struct parquet_value v_str(const char *s)
{
	if (!s)
		return V_NULL;
	return (struct parquet_value){ .s = s, .len = (uint32_t)strlen(s) };
}

/* Writes a row of table t: cells (nr of them) after its trace_id and host. */
static int put_row(struct xp *x, enum export_table t, struct parquet_value *cells, size_t nr)
{
	struct parquet_value v[16];

	if (nr + 2 != tables[t].nr || nr + 2 > 16)
		return -EINVAL;
	v[0] = (struct parquet_value){ .s = x->res->trace_id, .len = 16 };
	v[1] = x->meta.host ? v_str(x->host) : V_NULL;
	memcpy(v + 2, cells, nr * sizeof(*cells));
	return parquet_writer__row(x->w[t], v);
}

#define PUT_ROW(x, t, ...) ({							\
	struct parquet_value cells_[] = { __VA_ARGS__ };			\
	put_row(x, t, cells_, sizeof(cells_) / sizeof(cells_[0]));		\
})

/*
 * XXH64 with seed 0 (github.com/Cyan4973/xxHash, doc/xxhash_spec.md), the hash of the trace_id:
 * fast enough to read a whole capture (2 to 3.5 GB/s here from the page cache, FNV-1a 0.3), and
 * checked by anyone with `xxhsum -H64`.
 */
#define XXH_P1 0x9E3779B185EBCA87ULL
#define XXH_P2 0xC2B2AE3D27D4EB4FULL
#define XXH_P3 0x165667B19E3779F9ULL
#define XXH_P4 0x85EBCA77C2B2AE63ULL
#define XXH_P5 0x27D4EB2F165667C5ULL

struct xxh64 {
	uint64_t v[4];		/* the four lanes' accumulators */
	uint64_t len;		/* bytes hashed */
};

static uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* The 4 and 8 bytes at p as little-endian numbers (one load each, as the compiler sees). */
static uint64_t le32(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | le32(p + 4) << 32;
}

static uint64_t xxh_round(uint64_t acc, uint64_t in)
{
	return rotl64(acc + in * XXH_P2, 31) * XXH_P1;
}

static void xxh64_init(struct xxh64 *x)
{
	*x = (struct xxh64){ .v = { XXH_P1 + XXH_P2, XXH_P2, 0, -XXH_P1 } };
}

/* Hashes n bytes, n a multiple of 32 unless they are the last (then xxh64_end() follows). */
static uint64_t xxh64_stripes(struct xxh64 *x, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 32 <= n; i += 32)
		for (int k = 0; k < 4; k++)
			x->v[k] = xxh_round(x->v[k], le64(p + i + 8 * k));
	x->len += n;
	return i;
}

/* The hash, from the lanes and the last rest bytes at p. */
static uint64_t xxh64_end(const struct xxh64 *x, const uint8_t *p, size_t rest)
{
	uint64_t h = x->len >= 32 ? 0 : XXH_P5;

	if (x->len >= 32) {
		h = rotl64(x->v[0], 1) + rotl64(x->v[1], 7) + rotl64(x->v[2], 12) + rotl64(x->v[3], 18);
		for (int k = 0; k < 4; k++)
			h = (h ^ xxh_round(0, x->v[k])) * XXH_P1 + XXH_P4;
	}
	h += x->len;
	for (; rest >= 8; p += 8, rest -= 8)
		h = rotl64(h ^ xxh_round(0, le64(p)), 27) * XXH_P1 + XXH_P4;
	if (rest >= 4) {
		h = rotl64(h ^ le32(p) * XXH_P1, 23) * XXH_P2 + XXH_P3;
		p += 4;
		rest -= 4;
	}
	for (; rest; p++, rest--)
		h = rotl64(h ^ *p * XXH_P5, 11) * XXH_P1;
	h = (h ^ h >> 33) * XXH_P2;
	h = (h ^ h >> 29) * XXH_P3;
	return h ^ h >> 32;
}

/* Reads up to n bytes (fewer only at the end of the file). Returns the count or -errno. */
static ssize_t read_full(int fd, uint8_t *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, buf + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (!k)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* The trace_id of export.h: XXH64 of every byte of the capture at path (cdict_open(): a FIFO
 * is refused, not waited on). Returns 0 or -errno with x->err. */
static int trace_id(struct xp *x, const char *path, char out[17])
{
	enum { BUF = 1 << 20 };	/* a multiple of 32: whole stripes until the last read */
	struct stat st;
	int fd = cdict_open(path, &st, x->err, x->errlen);
	uint8_t *buf;
	struct xxh64 h;
	ssize_t n = 0;
	size_t done;

	if (fd < 0)
		return fd;
	buf = malloc(BUF);
	xxh64_init(&h);
	while (buf && (n = read_full(fd, buf, BUF)) == BUF)
		xxh64_stripes(&h, buf, BUF);
	if (!buf || n < 0) {
		int e = !buf ? -ENOMEM : (int)n;

		snprintf(x->err, x->errlen, "%s: cannot read: %s", path, strerror(-e));
		close(fd);
		free(buf);
		return e;
	}
	done = xxh64_stripes(&h, buf, (size_t)n);
	snprintf(out, 17, "%016llx", (unsigned long long)xxh64_end(&h, buf + done, (size_t)n - done));
	close(fd);
	free(buf);
	return 0;
}

/* Opens the tree's folders, top first, each made when missing and refused when it is not a
 * folder of the running user's (export.h). Returns how many of them hold the trace_id's file
 * already, or -errno with x->err. */
static int open_folders(struct xp *x)
{
	mode_t mode = (mode_t)x->opts->mode;
	char msg[512], name[32];
	int have = 0, fd;

	x->root_fd = outfile_dir_open(AT_FDCWD, x->out_dir, mode, OUTFILE_DIR_OWNED, x->err,
				      x->errlen);
	if (x->root_fd < 0)
		return x->root_fd;
	snprintf(name, sizeof(name), "%s.parquet", x->res->trace_id);
	for (int t = 0; t < EXPORT_NR_TABLES; t++) {
		struct stat st;

		fd = outfile_dir_open(x->root_fd, tables[t].name, mode,
				      OUTFILE_DIR_NOFOLLOW | OUTFILE_DIR_OWNED, msg, sizeof(msg));
		if (fd < 0) {
			snprintf(x->err, x->errlen, "%.*s/%s", x->dir_len, x->out_dir, msg);
			return fd;
		}
		x->dir_fd[t] = fd;
		have += !fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW);
	}
	return have;
}

/* The table writers, once the tree is known not to hold the capture (or --force). Returns 0,
 * -ECANCELED when every table is there already (res->already), or -errno with x->err. */
static int open_tables(struct xp *x)
{
	struct outfile_opts fo = { .mode = x->opts->mode, .at = true,
				   .exists = x->opts->force ? OUTFILE_REPLACE : OUTFILE_REFUSE };
	struct parquet_writer_opts po = {
		.zstd_level = x->opts->zstd_level,
		.row_group_rows = x->opts->row_group_rows,
		.created_by = "pwz version " PWZ_VERSION,
		.file = &fo,
	};
	int have = open_folders(x);
	char file[4200];

	if (have < 0)
		return have;
	if (have == EXPORT_NR_TABLES && !x->opts->force) {
		x->res->already = true;
		return -ECANCELED;
	}
	if (have && !x->opts->force) {
		snprintf(x->err, x->errlen,
			 "%s: %s holds %d of the %d tables of its trace_id %s (an export cut short?): remove %.*s/*/%s.parquet or give --force",
			 x->path, x->out_dir, have, EXPORT_NR_TABLES, x->res->trace_id, x->dir_len,
			 x->out_dir, x->res->trace_id);
		return -EEXIST;
	}
	for (int t = 0; t < EXPORT_NR_TABLES; t++) {
		snprintf(file, sizeof(file), "%.*s/%s/%s.parquet", x->dir_len, x->out_dir,
			 tables[t].name, x->res->trace_id);
		fo.dirfd = x->dir_fd[t];
		x->w[t] = parquet_writer__new(file, tables[t].cols, tables[t].nr, &po, x->err,
					      x->errlen);
		if (!x->w[t])
			return -errno;
	}
	return 0;
}

/* A kvm_exit row; the split known or NULL (export_split.h). */
static int write_exit(void *ctx, const struct pwz_kvm_exit *e, uint32_t utid, bool known,
		      uint64_t on, uint64_t ready, uint64_t sleep)
{
	struct xp *x = ctx;
	const char *isa = e->isa == PWZ_ISA_VMX ? "vmx" : e->isa == PWZ_ISA_SVM ? "svm" : NULL;
	bool cached = (e->isa == PWZ_ISA_VMX || e->isa == PWZ_ISA_SVM) && e->reason < 256;

	return PUT_ROW(x, EXPORT_KVM_EXIT, V_I(e->time_ns),
		       V_IN(e->handling_ns, !(e->flags & PWZ_EXIT_UNPAIRED)), V_I(e->tid), V_I(utid), V_I(e->vcpu), v_str(isa), V_I(e->reason),
		       cached ? x->exit_name[e->isa - 1][e->reason] :
				v_str(pwz_meta_exit_name(&x->meta, e->isa, e->reason)),
		       V_IN(e->guest_ns, e->guest_ns), V_IN(on, known), V_IN(sleep, known),
		       V_IN(ready, known));
}

/* A live capture of KVM exits only (pwz-bpf --kvm): no slices to split the exits by. */
static bool kvm_only(const struct pwz_meta *m)
{
	const char *o = m->options;
	size_t n = strlen(" kvm-only");

	if (m->source != PWZ_SOURCE_LIVE || !o)
		return false;
	for (o = strstr(o, " kvm-only"); o; o = strstr(o + 1, " kvm-only"))
		if (o[n] == ' ' || o[n] == '\0')
			return true;
	return false;
}

static int on_meta(void *ctx, const struct pwz_meta *m)
{
	struct xp *x = ctx;

	if (x->have_meta)
		return 0;
	if (pwz_meta_copy(&x->meta, m))
		return -ENOMEM;
	x->have_meta = true;
	if (m->host)
		export_utf8(m->host, strlen(m->host), x->host, sizeof(x->host));
	/* exit names go into every kvm_exit row: made valid UTF-8 once, here */
	for (uint32_t i = 0; i < x->meta.nr_exit_names; i++) {
		char *name = x->meta.exit_names[i].name;
		char clean[sizeof(x->meta.exit_names[i].name)];

		export_utf8(name, strnlen(name, sizeof(clean)), clean, sizeof(clean));
		memcpy(name, clean, sizeof(clean));
	}
	for (uint32_t isa = PWZ_ISA_VMX; isa <= PWZ_ISA_SVM; isa++) {
		for (uint32_t r = 0; r < 256; r++)
			x->exit_name[isa - 1][r] = v_str(pwz_meta_exit_name(&x->meta, isa, r));
	}
	if (m->has_kvm) {
		x->split = export_split__new(m->source != PWZ_SOURCE_LIVE, kvm_only(m), m->nr_cpus,
					      write_exit, x);
		if (!x->split)
			return -ENOMEM;
	}
	return open_tables(x);
}

/* The thread instance (tid, since), added when new: utids count from 1 in order of arrival. */
static struct thr *thr_of(struct xp *x, uint32_t tid, uint64_t since)
{
	int added;
	int64_t i = keymap_get(&x->thr_idx, tid, since, &added);

	if (i < 0 || array_reserve((void **)&x->thrs, &x->thrs_cap, x->thr_idx.count, sizeof(*x->thrs)))
		return NULL;
	if (added) {
		memset(&x->thrs[i], 0, sizeof(x->thrs[i]));
		x->thrs[i].tid = tid;
		x->thrs[i].since_ns = since;
		x->thrs[i].utid = (uint32_t)i + 1;
	}
	return &x->thrs[i];
}

/* The instance of tid alive at time_ns (R8): its births are known before its records. */
static struct thr *thr_at(struct xp *x, uint32_t tid, uint64_t time_ns)
{
	return thr_of(x, tid, model_fold__instance(x->births, tid, time_ns));
}

/* -t: whether the rows of thread instance th are written (tasksel.h; every thread without). */
static bool kept(const struct xp *x, const struct thr *th)
{
	return tasksel_has(x->opts->sel, th->tid, th->since_ns);
}

static void saw(struct xp *x, uint64_t end, uint32_t cpu)
{
	if (end > x->end_ns)
		x->end_ns = end;
	if (cpu < PWZ_MAX_CPUS && cpu + 1 > x->max_cpu1)
		x->max_cpu1 = cpu + 1;
}

static int on_task(void *ctx, const struct pwz_task *t)
{
	struct xp *x = ctx;
	struct thr *th;

	if ((t->flags & PWZ_TASK_BORN) && model_fold__born(x->births, t->tid, t->time_ns))
		return -ENOMEM;
	th = thr_at(x, t->tid, t->time_ns);
	if (!th)
		return -ENOMEM;
	if (!th->has_task || t->time_ns >= th->task.time_ns)	/* the last naming */
		th->task = *t;
	th->has_task = true;
	return 0;
}

/*
 * How slice s ended, as the letter of the state the kernel reported (Perfetto's letters): R
 * preempted (R or R+), S, D, T, t, X, Z, P, I; without a reported state the letter its end
 * kind implies (R, S, X). NULL for a slice open at the end of the capture or of unknown end.
 */
static const char *end_state(const struct pwz_slice *s)
{
	static const char *const letter[] = { "S", "D", "T", "t", "X", "Z", "P", "I" };	/* 0x1 .. */
	uint32_t st;

	if (s->end == PWZ_END_OPEN || s->end == PWZ_END_UNKNOWN)
		return NULL;
	st = pwz_slice_state(s) & 0xff;
	if (s->end == PWZ_END_PREEMPTED || !st)
		return "R";
	for (int b = 0; b < 8; b++)
		if (st & (1u << b))
			return letter[b];
	return "S";
}

static int on_slice(void *ctx, const struct pwz_slice *s)
{
	struct xp *x = ctx;
	struct thr *th = thr_at(x, s->tid, s->start_ns + s->dur_ns);
	int ret;

	if (!th)
		return -ENOMEM;
	saw(x, s->start_ns + s->dur_ns, s->cpu);
	if (x->split && (ret = export_split__slice(x->split, th->utid, s)))
		return ret;
	if (!kept(x, th))
		return 0;
	return PUT_ROW(x, EXPORT_SCHED_SLICE, V_I(s->start_ns), V_I(s->dur_ns), V_I(s->cpu),
		       V_I(s->tid), V_I(th->utid), v_str(end_state(s)),
		       V_I(s->flags & PWZ_SLICE_UNSEEN_START ? 1 : 0));
}

static int on_wakeup(void *ctx, const struct pwz_wakeup *wk)
{
	struct xp *x = ctx;
	struct thr *th = thr_at(x, wk->tid, wk->wake_ns + wk->wait_ns);
	int ret;

	if (!th)
		return -ENOMEM;
	saw(x, wk->wake_ns + wk->wait_ns, wk->cpu);
	if (x->split && (ret = export_split__wait(x->split, th->utid, wk)))
		return ret;
	if (!kept(x, th))
		return 0;
	return PUT_ROW(x, EXPORT_THREAD_STATE, V_I(wk->wake_ns), V_I(wk->wait_ns), V_I(wk->cpu),
		       V_I(wk->tid), V_I(th->utid), v_str("R"));
}

static int on_kvm_exit(void *ctx, const struct pwz_kvm_exit *e)
{
	struct xp *x = ctx;
	struct thr *th = thr_at(x, e->tid, e->time_ns);

	if (!th)
		return -ENOMEM;
	saw(x, e->time_ns + e->handling_ns, 0);
	if (!kept(x, th))
		return 0;	/* in the replay too: a thread's exits are all kept or none */
	if (x->split)
		return export_split__exit(x->split, th->utid, e);
	return write_exit(x, e, th->utid, false, 0, 0, 0);
}

static int on_cpu_agg(void *ctx, const struct pwz_cpu_agg *a)
{
	struct xp *x = ctx;
	bool kind = x->meta.has_switch_kind;
	struct thr *th = thr_of(x, a->tid, a->since_ns);

	if (!th)
		return -ENOMEM;
	saw(x, 0, a->cpu);
	if (!kept(x, th))
		return 0;
	return PUT_ROW(x, EXPORT_CPU_RESIDENCY, V_I(a->tid), V_I(th->utid), V_I(a->cpu),
		       V_I(a->runtime_ns),
		       V_I(a->switches), V_IN(a->voluntary, kind), V_IN(a->involuntary, kind),
		       V_I(a->unseen), V_I(a->unseen_ns));
}

static int on_kvm_agg(void *ctx, const struct pwz_kvm_agg *a)
{
	return thr_of(ctx, a->tid, a->since_ns) ? 0 : -ENOMEM;
}

static int on_wait_agg(void *ctx, const struct pwz_wait_agg *a)
{
	struct thr *th = thr_of(ctx, a->tid, a->since_ns);

	if (!th)
		return -ENOMEM;
	th->has_wait = true;
	th->wait.count += a->count;
	th->wait.wait_ns += a->wait_ns;
	if (a->max_ns > th->wait.max_ns)
		th->wait.max_ns = a->max_ns;
	th->wait.run_delay_ns += a->run_delay_ns;
	th->wait.run_delay_wait_ns += a->run_delay_wait_ns;
	th->wait.run_delay_unmeasured_ns += a->run_delay_unmeasured_ns;
	return 0;
}

static int cmp_thr(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->since_ns < y->since_ns ? -1 : x->since_ns > y->since_ns;
}

/* A string from the traced system as a cell: cleaned into buf. */
static struct parquet_value v_clean(const char *s, char *buf, size_t buflen)
{
	if (!s)
		return V_NULL;
	return (struct parquet_value){ .s = buf,
				       .len = (uint32_t)export_utf8(s, strlen(s), buf, buflen) };
}

static int cmp_by_tgid(const void *a, const void *b)
{
	const struct thr *x = *(const struct thr *const *)a, *y = *(const struct thr *const *)b;

	if (x->task.tgid != y->task.tgid)
		return x->task.tgid < y->task.tgid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* process: one row per known tgid, named by its threads' process name, else the leader's comm. */
static int write_processes(struct xp *x)
{
	char buf[PWZ_NAME_MAX * 3];
	const struct thr **by = malloc((x->thr_idx.count + 1) * sizeof(*by));
	size_t n = 0;
	int ret = 0;

	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < x->thr_idx.count; i++) {
		if (x->thrs[i].has_task && x->thrs[i].task.tgid && kept(x, &x->thrs[i]))
			by[n++] = &x->thrs[i];
	}
	qsort(by, n, sizeof(*by), cmp_by_tgid);
	for (size_t i = 0, j; i < n && !ret; i = j) {
		uint32_t pid = by[i]->task.tgid;
		const char *name = NULL, *leader = NULL;

		for (j = i; j < n && by[j]->task.tgid == pid; j++) {
			if (!name && by[j]->task.proc_name[0])
				name = by[j]->task.proc_name;
			if (by[j]->tid == pid)
				leader = by[j]->task.comm;
		}
		ret = PUT_ROW(x, EXPORT_PROCESS, V_I(pid),
			      v_clean(name ? name : leader, buf, sizeof(buf)));
	}
	free(by);
	return ret;
}

/* thread: one row per instance with its waits and, where the capture has it (a whole live
 * capture: not a cut file's partial aggregates), the kernel's charge of them (model.h R9). */
static int write_threads(struct xp *x, const struct cdict_read_info *info)
{
	char b1[PWZ_NAME_MAX * 3], b2[PWZ_NAME_MAX * 3];
	size_t n = x->thr_idx.count;
	bool wait = x->meta.has_wait, rd = x->meta.has_run_delay && !info->cut;
	int ret;

	if (n)
		qsort(x->thrs, n, sizeof(*x->thrs), cmp_thr);
	for (size_t i = 0; i < n; i++) {
		const struct thr *th = &x->thrs[i];
		const struct pwz_task *t = &th->task;
		bool pid_known = th->tid == 0 || (th->has_task && t->tgid);
		const char *name = th->has_task ? (t->name[0] ? t->name : t->comm) :
				   th->tid == 0 ? "swapper" : NULL;
		const char *comm = th->has_task ? t->comm : th->tid == 0 ? "swapper" : NULL;

		if (!kept(x, th))
			continue;
		ret = PUT_ROW(x, EXPORT_THREAD, V_I(th->utid), V_I(th->tid),
			      V_IN(th->since_ns, th->since_ns), V_IN(th->tid ? t->tgid : 0, pid_known),
			      v_clean(name, b1, sizeof(b1)), v_clean(comm, b2, sizeof(b2)),
			      V_IN(th->wait.count, wait), V_IN(th->wait.wait_ns, wait),
			      V_IN(th->wait.max_ns, wait), V_IN(th->wait.run_delay_ns, rd),
			      V_IN(th->wait.run_delay_wait_ns, rd),
			      V_IN(th->wait.run_delay_unmeasured_ns, rd));
		if (ret)
			return ret;
	}
	return write_processes(x);
}

static int write_capture(struct xp *x, const struct cdict_read_info *info)
{
	const struct pwz_meta *m = &x->meta;
	uint32_t cpus = m->nr_cpus > x->max_cpu1 ? m->nr_cpus : x->max_cpu1;
	char b0[128], b1[512], b2[512];

	return PUT_ROW(x, EXPORT_CAPTURE, v_clean(m->boot_id, b0, sizeof(b0)),
		       v_clean(m->kernel, b1, sizeof(b1)),
		       V_IN(cpus, cpus), V_IN(m->start_wall_ns, m->start_wall_ns),
		       V_I(m->duration_ns ? m->duration_ns : x->end_ns),
		       V_I(pwz_meta_total_drops(m)), v_str(pwz_source_name(m->source)),
		       v_str(info->format == CDICT_FORMAT_LEGACY ? "legacy" : "v2"),
		       v_clean(m->tool_version, b2, sizeof(b2)), V_I(info->cut),
		       V_IN(m->steal_ns, m->has_steal), V_IN(m->cpu_time_ns, m->has_steal));
}

/* The vcpu row of vc, a vCPU of vm; th its thread instance. */
static int write_vcpu(struct xp *x, const struct vms *v, const struct vms_vm *vm,
		      const struct vms_vcpu *vc, const struct thr *th)
{
	char b1[PWZ_NAME_MAX * 3];

	return PUT_ROW(x, EXPORT_VCPU, v_clean(vm->name, b1, sizeof(b1)),
		       V_IN(vm->pid, th->task.tgid != 0),
		       V_I(vc->tid), V_I(th->utid), V_IN(vc->vcpu, vc->vcpu >= 0),
		       V_I(v->window_end_ns - v->window_start_ns), V_I(vc->alive_ns),
		       V_I(vc->running_ns),
		       V_I(vc->ready_ns), V_I(vc->sleep_ns), V_I(vc->unseen_ns),
		       V_I(vc->waits), V_I(vc->exits_total),
		       V_IN(vc->uncharged_ns, vc->has_uncharged));
}

/* The vcpu_state rows of vc, a vCPU of vm: one per state of its ledger (model.h R10), in the
 * order of enum pwz_vcpu_state; none without a ledger. */
static int write_vcpu_states(struct xp *x, const struct vms_vm *vm, const struct vms_vcpu *vc,
			     const struct thr *th)
{
	char b1[PWZ_NAME_MAX * 3], b2[PWZ_NAME_MAX * 3];
	const struct pwz_vcpu_ledger *l = &vc->ledger;
	int ret = 0;

	for (unsigned int st = 0; vc->has_ledger && st < PWZ_VCPU_STATES && !ret; st++)
		ret = PUT_ROW(x, EXPORT_VCPU_STATE, v_clean(vm->name, b1, sizeof(b1)),
			      V_IN(vm->pid, th->task.tgid != 0), V_I(vc->tid), V_I(th->utid),
			      V_IN(vc->vcpu, vc->vcpu >= 0), v_clean(vc->name, b2, sizeof(b2)),
			      v_str(pwz_vcpu_state_name(st)), V_I(l->ns[st]), V_I(l->count[st]),
			      V_I(l->alive_ns));
	return ret;
}

/*
 * vcpu: one row per vCPU thread of each VM over the whole capture (user/lib/vms.h), from the
 * file's aggregates (exact under drops, and cheap: the streams are not loaded again). The
 * streams' figures (migrations, who ran while ready) are in `pwz-render --list --json`; the
 * exits' on/off-CPU split is in the kvm_exit rows. vcpu_state: the states of each of those
 * vCPUs whose capture has its ledger.
 */
static int write_vcpus(struct xp *x)
{
	struct trace_load_opts lo = { .streams = false };
	char err[512];
	struct summary *s = NULL;
	struct vms *v = NULL;
	struct trace *t;
	int ret = 0;

	if (!x->meta.has_kvm)
		return 0;
	t = trace__load(x->path, &lo, err, sizeof(err));
	if (t)
		s = summary__new(t, NULL, err, sizeof(err));
	if (s)
		v = vms__new(t, s, err, sizeof(err));
	if (!v)
		ret = errno ? -errno : -ENOMEM;
	for (size_t i = 0; v && i < v->nr_vms && !ret; i++) {
		const struct vms_vm *vm = &v->vms[i];

		for (size_t k = 0; k < vm->nr_vcpus && !ret; k++) {
			const struct vms_vcpu *vc = &vm->vcpus[k];
			struct thr *th = thr_of(x, vc->tid, vc->since_ns);

			if (!th) {
				ret = -ENOMEM;
				break;
			}
			if (!kept(x, th))
				continue;
			ret = write_vcpu(x, v, vm, vc, th);
			if (!ret)
				ret = write_vcpu_states(x, vm, vc, th);
		}
	}
	vms__free(v);
	summary__free(s);
	trace__free(t);
	return ret;
}

static int on_replay_exit(void *ctx, const struct pwz_kvm_exit *e)
{
	struct xp *x = ctx;
	struct thr *th = thr_at(x, e->tid, e->time_ns);

	if (th && !kept(x, th))
		return 0;	/* as on_kvm_exit() */
	return th ? export_split__replay_exit(x->split, th->utid, e) : -ENOMEM;
}

/* The exits' split: what is still held, then, when exits were let go of for the memory bound
 * (export_split.h), the file's exits read again for them. */
static int finish_split(struct xp *x)
{
	struct cdict_visitor v = { .ctx = x, .kvm_exit = on_replay_exit };
	struct cdict_read_info info = { 0 };
	int ret;

	if (!x->split)
		return 0;
	ret = export_split__finish(x->split);
	if (ret || !export_split__needs_replay(x->split))
		return ret;
	ret = cdict_read(x->path, &v, &info, x->err, x->errlen);
	return ret > 0 ? -EIO : ret;
}

static int finish(struct xp *x, const struct cdict_read_info *info)
{
	int ret;

	if ((ret = finish_split(x)) || (ret = write_vcpus(x)) || (ret = write_threads(x, info)) || (ret = write_capture(x, info))) {
		snprintf(x->err, x->errlen, "%s: cannot write the tables: %s", x->path, strerror(-ret));
		return ret;
	}
	for (int t = 0; t < EXPORT_NR_TABLES; t++) {
		x->res->rows[t] = parquet_writer__rows(x->w[t]);
		if ((ret = parquet_writer__finish(x->w[t], x->err, x->errlen)))
			return ret;
	}
	return 0;
}

int export_parquet(const char *path, const char *out_dir, const struct export_opts *opts,
		   struct export_result *res, char *err, size_t errlen)
{
	struct export_opts none = { 0 };
	struct cdict_read_info info = { 0 };
	struct xp x = { .out_dir = out_dir, .opts = opts ? opts : &none, .res = res, .err = err,
			.errlen = errlen, .root_fd = -1 };
	struct cdict_visitor v = {
		.ctx = &x, .meta = on_meta, .task = on_task, .slice = on_slice, .wakeup = on_wakeup,
		.kvm_exit = on_kvm_exit, .cpu_agg = on_cpu_agg, .kvm_agg = on_kvm_agg,
		.wait_agg = on_wait_agg,
	};
	char *resolved = cdict_resolve_path(path);
	int ret;

	memset(res, 0, sizeof(*res));
	err[0] = '\0';
	if (!resolved) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	x.path = resolved;
	x.dir_len = (int)strlen(out_dir);
	while (x.dir_len > 0 && out_dir[x.dir_len - 1] == '/')
		x.dir_len--;
	for (int t = 0; t < EXPORT_NR_TABLES; t++)
		x.dir_fd[t] = -1;
	x.births = model_fold__new(NULL);
	ret = x.births ? trace_id(&x, resolved, res->trace_id) : -ENOMEM;
	if (!ret)
		ret = cdict_read(resolved, &v, &info, err, errlen);
	if (ret == -ECANCELED && res->already)
		goto out;	/* the tree holds it: nothing to write */
	if (ret > 0)
		ret = -EIO;
	if (ret < 0 && !err[0])
		snprintf(err, errlen, "%s: cannot export: %s", resolved, strerror(-ret));
	if (!ret && !x.have_meta) {
		snprintf(err, errlen, "%s: no metadata record", resolved);
		ret = -EINVAL;
	}
	if (!ret && info.cut && !x.opts->partial) {
		snprintf(err, errlen,
			 "%s: cut short at offset %llu (the capture was killed or the file truncated); --partial exports its %llu whole chunks",
			 resolved, info.cut_offset, info.chunks);
		ret = -EINVAL;
	}
	res->cut = info.cut;
	if (!ret)
		ret = finish(&x, &info);
out:
	if (res->already)
		ret = 0;
	for (int t = 0; t < EXPORT_NR_TABLES; t++) {
		parquet_writer__free(x.w[t]);
		if (x.dir_fd[t] >= 0)
			close(x.dir_fd[t]);
	}
	if (x.root_fd >= 0)
		close(x.root_fd);
	if (x.split)
		res->split_forced = export_split__forced(x.split);
	export_split__free(x.split);
	keymap_free(&x.thr_idx);
	model_fold__free(x.births);
	free(x.thrs);
	pwz_meta_free(&x.meta);
	free(resolved);
	return ret;
}
