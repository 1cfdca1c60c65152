// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the perf.data import (user/lib/perfdata*.c) on the fixtures, against their truth files. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "cdict.h"
#include "perfdata.h"
#include "perfdata_file.h"
#include "tasknames.h"
#include "truth.h"

#define PERF_DIR PWZ_TESTDATA "/perf/"
#define MAXA 4096

struct readback {
	struct pwz_cpu_agg cpu[MAXA];
	struct pwz_kvm_agg kvm[256];
	int ncpu, nkvm;
	uint64_t slices, slice_ns, exits, wakeups;
	char names[8][2][PWZ_NAME_MAX];	/* (tid, name) of the last task records, for a few tids */
	uint32_t name_tids[8];
	int nnames;
	uint32_t source;
	bool has_kvm, has_wait;
	char io_name[48];		/* meta's name of SVM exit 0x7b */
};

static int rb_meta(void *c, const struct pwz_meta *m)
{
	struct readback *r = c;
	const char *n = pwz_meta_exit_name(m, PWZ_ISA_SVM, 0x7b);

	r->source = m->source;
	r->has_kvm = m->has_kvm;
	r->has_wait = m->has_wait;
	snprintf(r->io_name, sizeof(r->io_name), "%s", n ? n : "");
	return 0;
}

static int rb_task(void *c, const struct pwz_task *t)
{
	struct readback *r = c;
	int i;

	assert_string_equal(t->cgroup, "");	/* perf.data does not say */
	for (i = 0; i < r->nnames; i++)
		if (r->name_tids[i] == t->tid)
			snprintf(r->names[i][1], PWZ_NAME_MAX, "%s", t->name);
	return 0;
}

static int rb_slice(void *c, const struct pwz_slice *s)
{
	struct readback *r = c;

	r->slices++;
	r->slice_ns += s->dur_ns;
	return 0;
}

static int rb_wakeup(void *c, const struct pwz_wakeup *w)
{
	(void)w;
	((struct readback *)c)->wakeups++;
	return 0;
}

static int rb_exit(void *c, const struct pwz_kvm_exit *e)
{
	(void)e;
	((struct readback *)c)->exits++;
	return 0;
}

static int rb_cpu_agg(void *c, const struct pwz_cpu_agg *a)
{
	struct readback *r = c;

	assert_true(r->ncpu < MAXA);
	r->cpu[r->ncpu++] = *a;
	return 0;
}

static int rb_kvm_agg(void *c, const struct pwz_kvm_agg *a)
{
	struct readback *r = c;

	assert_true(r->nkvm < 256);
	r->kvm[r->nkvm++] = *a;
	return 0;
}

static bool have(const char *path)
{
	if (access(path, R_OK) == 0)
		return true;
	fprintf(stderr, "skipping: %s absent\n", path);
	return false;
}

/* Imports in to a temporary cdict and reads it back into r. */
static void import(const char *in, const struct perfdata_import_opts *opts,
		   struct perfdata_import_stats *st, struct readback *r)
{
	struct cdict_visitor v = { r, rb_meta, rb_task, rb_slice, rb_wakeup, rb_exit, rb_cpu_agg,
				   rb_kvm_agg, NULL, NULL, NULL };
	char out[] = "/tmp/test_perfdata.XXXXXX";
	char err[512];
	int fd = mkstemp(out), ret;

	assert_true(fd >= 0);
	close(fd);
	ret = perfdata_import(in, out, opts, st, err, sizeof(err));
	if (ret)
		fail_msg("import of %s: %s", in, err);
	ret = cdict_read(out, &v, NULL, err, sizeof(err));
	if (ret)
		fail_msg("read back: %s", err);
	unlink(out);
}

static void tid_totals(const struct readback *r, uint32_t tid, uint64_t *sw, uint64_t *rt,
		       uint64_t *invol)
{
	int i;

	*sw = *rt = *invol = 0;
	for (i = 0; i < r->ncpu; i++) {
		if (r->cpu[i].tid != tid)
			continue;
		*sw += r->cpu[i].switches;
		*rt += r->cpu[i].runtime_ns;
		*invol += r->cpu[i].involuntary;
	}
}

/* Number of vCPU threads in a truth file, and of exit reasons of the i-th; -1 if absent. */
static long long nthreads_of(const char *truth)
{
	struct tj *t = tj_load(truth);
	long long n = tj_len(tj_at(t, "vcpu_threads"));

	tj_free(t);
	return n;
}

static long long nreasons_of(const char *truth, int i)
{
	struct tj *t = tj_load(truth);
	long long n = tj_len(tj_at(t, "vcpu_threads/%d/kvm_exit_by_reason", i));

	tj_free(t);
	return n;
}

/* pipe.data (pipe mode): per-thread switch-outs and runtime equal the perf script figures of
 * pipe.truth.json, and the switch-outs equal the program's nvcsw + nivcsw + 1 (its exit). */
static void test_pipe_truth(void **state)
{
	const char *truth = PERF_DIR "pipe.truth.json";
	static struct readback r;
	struct perfdata_import_stats st;
	int i;

	(void)state;
	if (!have(PERF_DIR "pipe.data") || !have(truth))
		skip();
	memset(&r, 0, sizeof(r));
	import(PERF_DIR "pipe.data", NULL, &st, &r);
	assert_int_equal(r.source, PWZ_SOURCE_PERF_DATA);
	assert_int_equal(st.sched_switch, 1549);	/* README: 1549 sched_switch samples */
	assert_int_equal(st.slices, r.slices);
	for (i = 0; i < 2; i++) {
		long long tid, nv, niv, want;
		uint64_t sw, rt, invol;

		tid = truth_int(truth, "threads/%d/tid", i);
		assert_true(tid > 0);
		tid_totals(&r, (uint32_t)tid, &sw, &rt, &invol);
		assert_int_equal(sw, truth_int(truth, "perf_script/%lld/switch_outs", tid));
		assert_int_equal(rt, truth_int(truth, "perf_script/%lld/runtime_ns", tid));
		/* prev_state lists only the states met: no R, no involuntary switch */
		want = truth_int(truth, "perf_script/%lld/prev_state/R", tid);
		assert_int_equal(invol, want == TJ_NONE ? 0 : want);
		nv = truth_int(truth, "threads/%d/nvcsw", i);
		niv = truth_int(truth, "threads/%d/nivcsw", i);
		assert_int_equal(sw, nv + niv + 1);
	}
}

/* nested_kvm_a.data: exits per (tid, isa, reason) and entries equal the truth file; every exit
 * of the io and cpuid loops is paired with its entry; names come from the embedded format. */
static void test_nested_kvm_truth(void **state)
{
	const char *truth = PERF_DIR "nested_kvm_a.truth.json";
	static struct readback r;
	struct perfdata_import_stats st;
	long long nthreads, nreasons, total_exits = 0, total_entries = 0;
	int i, j, k;

	(void)state;
	if (!have(PERF_DIR "nested_kvm_a.data") || !have(truth))
		skip();
	memset(&r, 0, sizeof(r));
	import(PERF_DIR "nested_kvm_a.data", NULL, &st, &r);
	assert_int_equal(st.samples, truth_int(truth, "samples_in_file"));
	assert_true(r.has_kvm);
	assert_true(r.has_wait);
	assert_string_equal(r.io_name, "io");
	nthreads = nthreads_of(truth);
	assert_true(nthreads >= 2);
	for (i = 0; i < nthreads; i++) {
		long long tid;

		tid = truth_int(truth, "vcpu_threads/%d/tid", i);
		nreasons = nreasons_of(truth, i);
		for (j = 0; j < nreasons; j++) {
			long long isa, reason, count;
			bool found = false;

			isa = truth_int(truth, "vcpu_threads/%d/kvm_exit_by_reason/%d/isa", i, j);
			reason = truth_int(truth, "vcpu_threads/%d/kvm_exit_by_reason/%d/exit_reason", i, j);
			count = truth_int(truth, "vcpu_threads/%d/kvm_exit_by_reason/%d/count", i, j);
			assert_true(count > 0);
			for (k = 0; k < r.nkvm; k++) {
				if (r.kvm[k].tid == tid && r.kvm[k].isa == isa && r.kvm[k].reason == reason) {
					assert_int_equal(r.kvm[k].count, count);
					found = true;
					if (reason == 0x7b || reason == 0x72) {
						/* the loops' exits all have an entry */
						uint64_t h = 0;
						int b;

						for (b = 0; b < PWZ_HIST_BUCKETS; b++)
							h += r.kvm[k].hist[b];
						assert_int_equal(h, count);
						assert_true(r.kvm[k].handling_ns > 0);
					}
				}
			}
			assert_true(found);
		}
		assert_true(truth_int(truth, "vcpu_threads/%d/kvm_exit_total", i) > 0);
		total_exits += truth_int(truth, "vcpu_threads/%d/kvm_exit_total", i);
		total_entries += truth_int(truth, "vcpu_threads/%d/kvm_entry", i);
	}
	assert_int_equal(st.kvm_exit, total_exits);
	assert_int_equal(st.kvm_entry, total_entries);
	assert_int_equal(r.exits, total_exits);
}

/* sched_pipe.data: every sched_switch line of its perf script text is used; slices and the
 * aggregates agree. */
static void test_sched_pipe_counts(void **state)
{
	static struct readback r;
	struct perfdata_import_stats st;
	char line[1024];
	uint64_t lines = 0, sum = 0;
	FILE *f;
	int i;

	(void)state;
	if (!have(PERF_DIR "sched_pipe.data") || !have(PERF_DIR "sched_pipe.txt"))
		skip();
	f = fopen(PERF_DIR "sched_pipe.txt", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		lines += strstr(line, " sched:sched_switch: ") != NULL;
	fclose(f);
	memset(&r, 0, sizeof(r));
	import(PERF_DIR "sched_pipe.data", NULL, &st, &r);
	assert_int_equal(st.sched_switch, lines);
	assert_int_equal(st.samples, lines);
	assert_int_equal(st.slices, r.slices);
	for (i = 0; i < r.ncpu; i++)
		sum += r.cpu[i].runtime_ns + r.cpu[i].unseen_ns;	/* model.h R2 */
	assert_int_equal(sum, r.slice_ns);
}

/* --map names the mapped thread; the rest keep their comm. */
static void test_map(void **state)
{
	static struct readback r;
	struct perfdata_import_opts o = { 0 };
	struct perfdata_import_stats st;
	const char csv[] = "22894,inst-1,vcpu0,uuid-1,vm,2,Router\n";
	char err[256];
	struct task_map *m;

	(void)state;
	if (!have(PERF_DIR "pipe.data"))
		skip();
	m = task_map__parse(csv, sizeof(csv) - 1, "test", err, sizeof(err));
	assert_non_null(m);
	o.map = m;
	memset(&r, 0, sizeof(r));
	r.nnames = 2;
	r.name_tids[0] = 22894;
	r.name_tids[1] = 22895;
	import(PERF_DIR "pipe.data", &o, &st, &r);
	assert_string_equal(r.names[0][1], task_map__name(m, 22894));
	assert_string_equal(r.names[1][1], "pp_b");
	task_map__free(m);
}

/* ---- bad input ---- */

static char tmpdir[64];

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

/* Writes len bytes of buf as a file, imports it and expects ret and an error naming where. */
static void expect_bad(const void *buf, size_t len, int want, const char *what)
{
	char in[128], out[128], err[512];
	struct dirent *d;
	struct stat sb;
	DIR *dd;
	FILE *f;
	int ret;

	snprintf(in, sizeof(in), "%s/bad.data", tmpdir);
	snprintf(out, sizeof(out), "%s/bad.cdict", tmpdir);
	f = fopen(in, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	err[0] = 0;
	ret = perfdata_import(in, out, NULL, NULL, err, sizeof(err));
	if (ret != want || !strstr(err, what) || !strstr(err, in))
		fail_msg("expected %d with \"%s\", got %d: %s", want, what, ret, err);
	assert_int_not_equal(stat(out, &sb), 0);
	/* nor its temporary, bad.cdict.XXXXXX.part */
	dd = opendir(tmpdir);
	assert_non_null(dd);
	while ((d = readdir(dd)))
		if (!strncmp(d->d_name, "bad.cdict.", 10))
			fail_msg("%s left behind", d->d_name);
	closedir(dd);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void test_bad_input(void **state)
{
	size_t len;
	uint8_t *b, *c;
	uint64_t data_off;

	(void)state;
	if (!have(PERF_DIR "sched_kvm.data"))
		skip();
	b = slurp(PERF_DIR "sched_kvm.data", &len);
	c = malloc(len);
	assert_non_null(c);
	data_off = get64(b + 40);

	expect_bad(b, 0, -EINVAL, "offset 0: file is truncated");
	expect_bad(b, len / 2, -EINVAL, "runs past the end of the file");

	memcpy(c, b, len);
	memcpy(c, "PERFILE3", 8);
	expect_bad(c, len, -EINVAL, "offset 0: not a perf.data file");

	memcpy(c, b, len);
	memcpy(c, "2ELIFREP", 8);
	expect_bad(c, len, -EPROTONOSUPPORT, "offset 0: big-endian");

	memcpy(c, b, len);
	c[16] = 3;	/* attr_size */
	expect_bad(c, len, -EINVAL, "offset 16: attribute size");

	memcpy(c, b, len);
	c[24 + 5] = 0x7f;	/* attribute section offset far past the end */
	expect_bad(c, len, -EINVAL, "offset 24: attribute section");

	memcpy(c, b, len);
	c[data_off + 6] = c[data_off + 7] = 0;	/* first record: size 0 */
	expect_bad(c, len, -EINVAL, "has size 0");

	free(c);
	free(b);
}

static void test_no_samples_of_interest(void **state)
{
	char in[128], out[128], err[512];
	size_t len;
	uint8_t *b;
	FILE *f;

	(void)state;
	if (!have(PERF_DIR "sched_kvmemu.data"))
		skip();
	/* sched_kvmemu without its sched_switch attribute's samples: rename the tracepoint id of
	 * the sched_switch attribute so its samples are of an unknown event */
	b = slurp(PERF_DIR "sched_kvmemu.data", &len);
	{
		uint64_t attr_size = get64(b + 16), aoff = get64(b + 24), asize = get64(b + 32), i;

		for (i = 0; i < asize / attr_size; i++) {
			uint8_t *a = b + aoff + i * attr_size;

			if (get64(a + 8) == 0 || a[0] != 2)
				continue;
			memset(a + 8, 0xff, 4);	/* config: no such tracepoint */
		}
	}
	snprintf(in, sizeof(in), "%s/none.data", tmpdir);
	snprintf(out, sizeof(out), "%s/none.cdict", tmpdir);
	f = fopen(in, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
	free(b);
	assert_int_equal(perfdata_import(in, out, NULL, NULL, err, sizeof(err)), -ENODATA);
	assert_non_null(strstr(err, "no sched_switch and no kvm_exit samples"));
	assert_int_not_equal(access(out, F_OK), 0);
}

/* The container reader alone: attributes, pipe mode, record counts. */
struct rd_count {
	uint64_t attrs, samples, rounds, features, tracing;
};

static int c_attr(void *c, const struct pd_attr *a, uint64_t off)
{
	(void)a;
	(void)off;
	((struct rd_count *)c)->attrs++;
	return 0;
}

static int c_feat(void *c, unsigned int feat, const uint8_t *d, size_t len, uint64_t off)
{
	(void)d;
	(void)off;
	((struct rd_count *)c)->features++;
	if (feat == PD_FEAT_TRACING_DATA && len > 10)
		((struct rd_count *)c)->tracing++;
	return 0;
}

static int c_rec(void *c, const struct pd_record *r)
{
	struct rd_count *n = c;

	n->samples += r->type == PD_REC_SAMPLE;
	n->rounds += r->type == PD_REC_FINISHED_ROUND;
	return 0;
}

static void test_reader_pipe(void **state)
{
	struct rd_count n = { 0 };
	struct pd_reader_ops ops = { &n, c_attr, c_feat, c_rec };
	struct pd_read_info info;
	char err[256];

	(void)state;
	if (!have(PERF_DIR "pipe.data"))
		skip();
	assert_int_equal(pd_read(PERF_DIR "pipe.data", &ops, &info, err, sizeof(err)), 0);
	assert_true(info.pipe_mode);
	assert_true(n.attrs >= 1);
	assert_int_equal(n.tracing, 1);
	assert_true(n.rounds > 0);
	assert_int_equal(n.samples, 1549);	/* README: 1549 sched_switch samples */
	memset(&n, 0, sizeof(n));
	assert_int_equal(pd_read(PERF_DIR "sched_pipe.data", &ops, &info, err, sizeof(err)), 0);
	assert_false(info.pipe_mode);
	assert_int_equal(n.samples, 4025);	/* README: 4025 samples */
	assert_int_equal(n.tracing, 1);
}

/* ---- time order: the import must not depend on how perf cut the stream into rounds ---- */

/* A digest of every record of a cdict, in file order, from its fields (not the padding). */
struct digest {
	uint64_t h;
	uint64_t slices, wakeups, exits, aggs, tasks;
};

static void dg_add(struct digest *d, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		d->h ^= (v >> (8 * i)) & 0xff;
		d->h *= 0x100000001b3ULL;
	}
}

static int dg_task(void *c, const struct pwz_task *t)
{
	struct digest *d = c;

	d->tasks++;
	dg_add(d, 1);
	dg_add(d, t->tid);
	dg_add(d, t->tgid);
	dg_add(d, t->time_ns);
	dg_add(d, strlen(t->name));
	return 0;
}

static int dg_slice(void *c, const struct pwz_slice *s)
{
	struct digest *d = c;

	d->slices++;
	dg_add(d, 2);
	dg_add(d, s->tid);
	dg_add(d, s->cpu);
	dg_add(d, s->start_ns);
	dg_add(d, s->dur_ns);
	dg_add(d, s->end);
	return 0;
}

static int dg_wakeup(void *c, const struct pwz_wakeup *w)
{
	struct digest *d = c;

	d->wakeups++;
	dg_add(d, 3);
	dg_add(d, w->tid);
	dg_add(d, w->cpu);
	dg_add(d, w->wake_ns);
	dg_add(d, w->wait_ns);
	return 0;
}

static int dg_exit(void *c, const struct pwz_kvm_exit *e)
{
	struct digest *d = c;

	d->exits++;
	dg_add(d, 4);
	dg_add(d, e->tid);
	dg_add(d, e->vcpu);
	dg_add(d, e->time_ns);
	dg_add(d, (uint64_t)e->isa << 32 | e->reason);
	dg_add(d, e->guest_ns);
	dg_add(d, e->handling_ns);
	return 0;
}

static int dg_cpu_agg(void *c, const struct pwz_cpu_agg *a)
{
	struct digest *d = c;

	d->aggs++;
	dg_add(d, 5);
	dg_add(d, a->tid);
	dg_add(d, a->cpu);
	dg_add(d, a->runtime_ns);
	dg_add(d, a->switches);
	dg_add(d, a->voluntary);
	dg_add(d, a->involuntary);
	return 0;
}

static int dg_kvm_agg(void *c, const struct pwz_kvm_agg *a)
{
	struct digest *d = c;
	int i;

	d->aggs++;
	dg_add(d, 6);
	dg_add(d, a->tid);
	dg_add(d, (uint64_t)a->isa << 32 | a->reason);
	dg_add(d, a->count);
	dg_add(d, a->handling_ns);
	for (i = 0; i < PWZ_HIST_BUCKETS; i++)
		dg_add(d, a->hist[i]);
	return 0;
}

static int dg_wait_agg(void *c, const struct pwz_wait_agg *a)
{
	struct digest *d = c;

	d->aggs++;
	dg_add(d, 7);
	dg_add(d, a->tid);
	dg_add(d, a->count);
	dg_add(d, a->wait_ns);
	dg_add(d, a->max_ns);
	return 0;
}

static void import_digest(const char *in, struct digest *d)
{
	struct cdict_visitor v = { d, NULL, dg_task, dg_slice, dg_wakeup, dg_exit, dg_cpu_agg,
				   dg_kvm_agg, dg_wait_agg, NULL, NULL };
	char out[160], err[512];
	int ret;

	memset(d, 0, sizeof(*d));
	d->h = 0xcbf29ce484222325ULL;
	snprintf(out, sizeof(out), "%s/digest.cdict", tmpdir);
	ret = perfdata_import(in, out, NULL, NULL, err, sizeof(err));
	if (ret)
		fail_msg("import of %s: %s", in, err);
	ret = cdict_read(out, &v, NULL, err, sizeof(err));
	if (ret)
		fail_msg("read back: %s", err);
	unlink(out);
}

static void write_file(const char *path, const uint8_t *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static uint16_t rec_size(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p + 6, 2);
	return v;
}

static uint32_t rec_type(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Every FINISHED_ROUND record of the data section of b becomes a record of an unknown type
 * (ignored): the whole file is one round. Returns the rounds removed. */
static unsigned int drop_rounds(uint8_t *b, size_t len)
{
	uint64_t off = get64(b + 40), end = off + get64(b + 48);
	uint32_t unknown = 0x7ff0;
	unsigned int n = 0;

	assert_true(end <= len);
	while (off + 8 <= end) {
		assert_true(rec_size(b + off) >= 8);
		if (rec_type(b + off) == PD_REC_FINISHED_ROUND) {
			memcpy(b + off, &unknown, 4);
			n++;
		}
		off += rec_size(b + off);
	}
	return n;
}

/* Reverses the order of the records between consecutive FINISHED_ROUND records (and before
 * the first and after the last), so each CPU's events come in backwards. Returns the records
 * moved. */
static unsigned int reverse_rounds(uint8_t *b, size_t len)
{
	uint64_t off = get64(b + 40), end = off + get64(b + 48), start = off;
	uint64_t offs[8192];
	unsigned int n = 0, moved = 0;
	uint8_t *tmp = malloc(len);

	assert_non_null(tmp);
	assert_true(end <= len);
	for (;;) {
		bool last = off + 8 > end;

		if (last || rec_type(b + off) == PD_REC_FINISHED_ROUND) {
			uint64_t w = start;

			while (n) {	/* records [start, off) back to front */
				uint64_t o = offs[--n];

				memcpy(tmp + w, b + o, rec_size(b + o));
				w += rec_size(b + o);
				moved++;
			}
			memcpy(b + start, tmp + start, off - start);
			if (last)
				break;
			start = off + rec_size(b + off);
		} else {
			assert_true(n < 8192);
			offs[n++] = off;
		}
		off += rec_size(b + off);
	}
	free(tmp);
	return moved;
}

static void expect_same_digest(const char *fixture, const char *label,
			       unsigned int (*change)(uint8_t *, size_t))
{
	struct digest want, got;
	char in[160];
	size_t len;
	uint8_t *b;

	import_digest(fixture, &want);
	assert_true(want.slices > 0);
	b = slurp(fixture, &len);
	assert_true(change(b, len) > 0);
	snprintf(in, sizeof(in), "%s/%s.data", tmpdir, label);
	write_file(in, b, len);
	free(b);
	import_digest(in, &got);
	if (got.h != want.h || got.slices != want.slices || got.wakeups != want.wakeups ||
	    got.exits != want.exits || got.aggs != want.aggs || got.tasks != want.tasks)
		fail_msg("%s: %s: %llu slices, %llu wakeups, %llu exits, %llu aggregates, %llu tasks, digest %016llx; as recorded %llu, %llu, %llu, %llu, %llu, %016llx",
			 fixture, label, (unsigned long long)got.slices,
			 (unsigned long long)got.wakeups, (unsigned long long)got.exits,
			 (unsigned long long)got.aggs, (unsigned long long)got.tasks,
			 (unsigned long long)got.h, (unsigned long long)want.slices,
			 (unsigned long long)want.wakeups, (unsigned long long)want.exits,
			 (unsigned long long)want.aggs, (unsigned long long)want.tasks,
			 (unsigned long long)want.h);
	unlink(in);
}

/* The same events cut into rounds differently, or delivered backwards within each round, give
 * the same cdict, record for record: the import orders by time (file order for equal times,
 * which nested_kvm_a.data has many of), not by arrival. */
static void test_order_independent_of_rounds(void **state)
{
	(void)state;
	if (!have(PERF_DIR "sched_pipe.data") || !have(PERF_DIR "nested_kvm_a.data"))
		skip();
	expect_same_digest(PERF_DIR "sched_pipe.data", "one-round", drop_rounds);
	expect_same_digest(PERF_DIR "nested_kvm_a.data", "one-round", drop_rounds);
	expect_same_digest(PERF_DIR "sched_pipe.data", "reversed", reverse_rounds);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_perfdata.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_truth),
		cmocka_unit_test(test_nested_kvm_truth),
		cmocka_unit_test(test_sched_pipe_counts),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_no_samples_of_interest),
		cmocka_unit_test(test_reader_pipe),
		cmocka_unit_test(test_order_independent_of_rounds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
