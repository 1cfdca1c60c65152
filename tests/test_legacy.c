// SPDX-License-Identifier: GPL-2.0
/* Legacy perfwhiz cdict: the genuine sample against its truth file, and write-then-read. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>
#include "cdict.h"
#include "trace.h"
#include "truth.h"

#define SAMPLE PWZ_TESTDATA "/perfwhiz/legacy_umsgpack.cdict"
#define TRUTH PWZ_TESTDATA "/perfwhiz/legacy_umsgpack.truth.json"

static char dir[] = "/tmp/pwz-test-legacy-XXXXXX";

static struct trace *load(const char *path)
{
	struct trace_load_opts o = { .streams = true };
	char err[512];
	struct trace *t = trace__load(path, &o, err, sizeof(err));

	if (!t)
		fail_msg("%s", err);
	return t;
}

/* Sum of slice durations (µs) and count of slices of the tasks named name. */
static void per_name(const struct trace *t, const char *name, long long *count, long long *us)
{
	*count = *us = 0;
	for (size_t i = 0; i < t->nr_slices; i++) {
		const struct pwz_task *pt = trace__task(t, t->slices[i].tid);

		if (pt && !strcmp(pt->comm, name)) {
			(*count)++;
			*us += (long long)(t->slices[i].dur_ns / 1000);
		}
	}
}

static void test_sample_against_truth(void **state)
{
	struct trace *t = load(SAMPLE);
	struct tj *truth = tj_load(TRUTH);
	const struct tj *names, *vcpu, *reasons;
	long long exits_by_reason[64] = { 0 }, guest_us = 0, handling_us = 0, entries = 0;
	(void)state;
	assert_non_null(truth);
	assert_int_equal(t->info.format, CDICT_FORMAT_LEGACY);
	assert_false(t->info.cut);
	assert_int_equal(t->meta.source, PWZ_SOURCE_LEGACY);
	assert_false(t->meta.has_switch_kind);
	assert_int_equal(t->nr_slices, tj_int(tj_at(truth, "rows_per_event/sched__sched_switch")));
	assert_int_equal(t->nr_exits, tj_int(tj_at(truth, "rows_per_event/kvm_exit")));
	assert_int_equal(t->meta.duration_ns, 1000 * tj_int(tj_at(truth, "usecs_max")));
	assert_int_equal(t->meta.nr_cpus, tj_len(tj_at(truth, "cpus")));
	/* every task name of the truth, and each one's switch count and run time */
	names = tj_at(truth, "sched_switch_by_task_name");
	assert_true(tj_len(names) > 0);
	for (size_t k = 0; k < names->n; k++) {
		const struct tj *v = &names->kids[k];
		long long count, us;

		per_name(t, v->key, &count, &us);
		assert_int_equal(count, tj_int(tj_get(v, "switch_count")));
		assert_int_equal(us, tj_int(tj_get(v, "switch_duration_sum_us")));
	}
	/* KVM exits of vm_router.vcpu0, paired with their entries */
	for (size_t i = 0; i < t->nr_exits; i++) {
		const struct pwz_kvm_exit *e = &t->exits[i];

		assert_string_equal(trace__task(t, e->tid)->comm, "vm_router.vcpu0");
		assert_string_equal(trace__task(t, e->tid)->cgroup, "");	/* not in the format */
		assert_true(e->reason < 64);
		exits_by_reason[e->reason]++;
		guest_us += (long long)(e->guest_ns / 1000);
		handling_us += (long long)(e->handling_ns / 1000);
		entries += e->handling_ns > 0;
	}
	vcpu = tj_at(truth, "kvm_by_task_name/vm_router.vcpu0");
	reasons = tj_get(vcpu, "exit_reasons");
	assert_true(tj_len(reasons) > 0);
	{
		long long total = 0, want_total = 0;
		int r;

		for (size_t k = 0; k < reasons->n; k++) {
			long long n = tj_int(&reasons->kids[k]);

			r = atoi(reasons->kids[k].key);
			assert_true(r >= 0 && r < 64);
			assert_int_equal(exits_by_reason[r], n);
			want_total += n;
		}
		for (r = 0; r < 64; r++)
			total += exits_by_reason[r];
		assert_int_equal(total, want_total);
		assert_true(total > 0);
	}
	assert_int_equal(guest_us, tj_int(tj_get(vcpu, "exit_duration_sum_us")));
	assert_int_equal(handling_us, tj_int(tj_get(vcpu, "entry_duration_sum_us")));
	assert_int_equal(entries, tj_int(tj_get(vcpu, "entry_count")));
	tj_free(truth);
	/* the kernel's names for the reasons, VMX */
	assert_string_equal(pwz_meta_exit_name(&t->meta, PWZ_ISA_VMX, 30), "IO_INSTRUCTION");
	/* tid 0 keeps the name from the pid column: swapper/0 */
	assert_string_equal(trace__task(t, 0)->name, "swapper/0");
	trace__free(t);
}

/* Writes t through the legacy writer and returns the path. */
static void write_legacy(const struct trace *t, const char *path)
{
	struct cdict_writer_opts o = { .legacy = true };
	char err[512];
	struct cdict_writer *w = cdict_writer__new(path, &t->meta, &o, err, sizeof(err));

	assert_non_null(w);
	for (size_t i = 0; i < t->nr_tasks; i++)
		assert_int_equal(cdict_writer__task(w, &t->tasks[i]), 0);
	for (size_t i = 0; i < t->nr_slices; i++)
		assert_int_equal(cdict_writer__slice(w, &t->slices[i]), 0);
	for (size_t i = 0; i < t->nr_exits; i++)
		assert_int_equal(cdict_writer__kvm_exit(w, &t->exits[i]), 0);
	assert_int_equal(cdict_writer__finish(w, &t->meta, err, sizeof(err)), 0);
	cdict_writer__free(w);
}

static int cmp_slice(const void *a, const void *b)
{
	const struct pwz_slice *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->dur_ns < y->dur_ns ? -1 : x->dur_ns > y->dur_ns;
}

/* The slices of a and b (as many) are the same, in whatever order they came. */
static void assert_same_slices(struct trace *a, struct trace *b)
{
	qsort(a->slices, a->nr_slices, sizeof(*a->slices), cmp_slice);
	qsort(b->slices, b->nr_slices, sizeof(*b->slices), cmp_slice);
	for (size_t i = 0; i < a->nr_slices; i++) {
		assert_int_equal(b->slices[i].tid, a->slices[i].tid);
		assert_int_equal(b->slices[i].cpu, a->slices[i].cpu);
		assert_int_equal(b->slices[i].dur_ns, a->slices[i].dur_ns);
		assert_int_equal(b->slices[i].start_ns, a->slices[i].start_ns);
	}
}

static void test_write_then_read(void **state)
{
	struct trace *a = load(SAMPLE), *b;
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/again.cdict", dir);
	write_legacy(a, path);
	b = load(path);
	assert_int_equal(b->info.format, CDICT_FORMAT_LEGACY);
	assert_int_equal(b->nr_slices, a->nr_slices);
	assert_int_equal(b->nr_exits, a->nr_exits);
	/* tasks only ever switched to (no slice of their own) may not come back */
	assert_true(b->nr_tasks <= a->nr_tasks);
	assert_same_slices(a, b);
	for (size_t i = 0; i < a->nr_exits; i++) {
		assert_int_equal(b->exits[i].tid, a->exits[i].tid);
		assert_int_equal(b->exits[i].reason, a->exits[i].reason);
		assert_int_equal(b->exits[i].time_ns, a->exits[i].time_ns);
		assert_int_equal(b->exits[i].guest_ns, a->exits[i].guest_ns);
		assert_int_equal(b->exits[i].handling_ns, a->exits[i].handling_ns);
	}
	for (size_t i = 0; i < a->nr_slices; i++)
		assert_string_equal(trace__task(b, a->slices[i].tid)->name,
				    trace__task(a, a->slices[i].tid)->name);
	trace__free(a);
	trace__free(b);
}

/* A file of more rows than the reader emits between two releases of the pages it has read
 * (LONG_COPIES copies of the sample, one after the other): every slice comes back. */
#define LONG_COPIES 6
static void test_long_file(void **state)
{
	struct trace *a = load(SAMPLE), *b;
	size_t n = a->nr_slices;
	uint64_t shift = a->meta.duration_ns + 1000000;
	char path[256];

	(void)state;
	a->slices = realloc(a->slices, LONG_COPIES * n * sizeof(*a->slices));
	assert_non_null(a->slices);
	for (size_t k = 1; k < LONG_COPIES; k++) {
		for (size_t i = 0; i < n; i++) {
			a->slices[k * n + i] = a->slices[i];
			a->slices[k * n + i].start_ns += k * shift;
		}
	}
	a->nr_slices = LONG_COPIES * n;
	a->meta.duration_ns += (LONG_COPIES - 1) * shift;
	snprintf(path, sizeof(path), "%s/long.cdict", dir);
	write_legacy(a, path);
	b = load(path);
	assert_true(b->nr_slices + b->nr_exits * 2 > 3 * 65536);
	assert_int_equal(b->nr_slices, a->nr_slices);
	assert_same_slices(a, b);
	trace__free(a);
	trace__free(b);
}

/* A capture whose META announces neither KVM exits nor prev_state, with one slice. */
static void write_plain_v2(const char *path)
{
	struct pwz_meta m = { .nr_cpus = 1, .duration_ns = 1000 };
	struct pwz_slice sl = { .tid = 7, .cpu = 0, .start_ns = 0, .dur_ns = 1000,
				.end = PWZ_END_OPEN };
	char err[512];
	struct cdict_writer *w = cdict_writer__new(path, &m, NULL, err, sizeof(err));

	if (!w)
		fail_msg("%s", err);
	assert_int_equal(cdict_writer__slice(w, &sl), 0);
	assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
	cdict_writer__free(w);
}

/* streams_if_meta: the streams of a capture whose META announces KVM exits (the legacy
 * sample's) are kept in the one reading; those of a capture announcing neither are not. */
static void test_streams_if_meta(void **state)
{
	struct trace_load_opts only = { .streams_if_meta = true }, none = { 0 };
	struct trace *full = load(SAMPLE), *t;
	char err[512], path[256];

	(void)state;
	t = trace__load(SAMPLE, &only, err, sizeof(err));
	assert_non_null(t);
	assert_true(full->nr_slices > 0 && full->nr_exits > 0);
	assert_true(t->streams);
	assert_int_equal(t->nr_slices, full->nr_slices);
	assert_int_equal(t->nr_exits, full->nr_exits);
	assert_memory_equal(t->slices, full->slices, t->nr_slices * sizeof(*t->slices));
	assert_int_equal(t->nr_kvm_aggs, full->nr_kvm_aggs);
	trace__drop_streams(t);
	assert_false(t->streams);
	assert_int_equal(t->nr_slices + t->nr_exits, 0);
	trace__free(t);
	t = trace__load(SAMPLE, &none, err, sizeof(err));
	assert_non_null(t);
	assert_false(t->streams);
	assert_int_equal(t->nr_slices, 0);
	trace__free(t);
	snprintf(path, sizeof(path), "%s/plain.cdict", dir);
	write_plain_v2(path);
	t = trace__load(path, &only, err, sizeof(err));
	assert_non_null(t);
	assert_false(t->streams);
	assert_int_equal(t->nr_slices, 0);
	trace__free(t);
	trace__free(full);
}

/* Writes len bytes of msgpack at path as one zlib stream, as perfwhiz wrote its files. */
static void write_zlib(const char *path, const void *msgpack, size_t len)
{
	unsigned char z[256];
	uLongf zlen = sizeof(z);
	FILE *f;

	assert_int_equal(compress(z, &zlen, msgpack, len), Z_OK);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(z, 1, zlen, f), zlen);
	assert_int_equal(fclose(f), 0);
}

static void test_bad_legacy(void **state)
{
	char path[256], cmd[600], err[512];
	struct trace_load_opts o = { 0 };

	(void)state;
	/* cut inside the zlib stream */
	snprintf(path, sizeof(path), "%s/cut.cdict", dir);
	snprintf(cmd, sizeof(cmd), "head -c 50000 '%s' > '%s'", SAMPLE, path);
	assert_int_equal(system(cmd), 0);
	assert_null(trace__load(path, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "cut short"));
	/* a zlib stream of something that is not the 8-column map */
	write_zlib(path, "\x81\xa5" "event\x01", 8);
	assert_null(trace__load(path, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "event"));
	/* a huge array count in a tiny file: refused, no giant allocation */
	write_zlib(path, "\x81\xa5" "event\xdd\xff\xff\xff\xff", 12);
	assert_null(trace__load(path, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "count"));
}

/* The document's shape is checked as it inflates; each break of it is refused with where. */
static void test_legacy_shape(void **state)
{
	static const struct {
		const char *doc;
		size_t len;
		const char *want;
	} cases[] = {
		/* a column of two rows, then a byte after the map */
		{ "\x81\xa5" "event\x92\xa1x\xa1y\x00", 13, "bytes after the map of columns (decompressed offset 12)" },
		/* an element that is an array */
		{ "\x81\xa5" "event\x92\xa1x\x90", 11, "not a number, string or nil: event (decompressed offset 10)" },
		/* a second column of another length, refused at its header */
		{ "\x82\xa3" "cpu\x92\x00\x00\xa3pid\x93\x00\x00\x00", 16, "columns differ in length: pid (decompressed offset 12)" },
		/* 8 columns of 2^31 rows: more than 4 GiB, refused at the first header */
		{ "\x88\xa3" "cpu\xdd\x80\x00\x00\x00\x00", 11, "8 columns of 2147483648 rows" },
		/* a column name that is not a string */
		{ "\x81\x01\x90", 3, "a column name is not a string: an integer (decompressed offset 1)" },
	};
	char path[256], err[512];
	struct trace_load_opts o = { 0 };
	unsigned char name[300 + 16];

	(void)state;
	snprintf(path, sizeof(path), "%s/shape.cdict", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_zlib(path, cases[i].doc, cases[i].len);
		assert_null(trace__load(path, &o, err, sizeof(err)));
		if (!strstr(err, cases[i].want))
			fprintf(stderr, "case %zu: %s\n", i, err);
		assert_non_null(strstr(err, cases[i].want));
	}
	/* a string of 255 bytes is a name (only the other columns lack), one of 300 is not */
	memcpy(name, "\x81\xa5" "event\x91\xd9\xff", 10);
	memset(name + 10, 'a', 255);
	write_zlib(path, name, 10 + 255);
	assert_null(trace__load(path, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "column missing"));
	memcpy(name, "\x81\xa5" "event\x91\xda\x01\x2c", 11);
	memset(name + 11, 'a', 300);
	write_zlib(path, name, 11 + 300);
	assert_null(trace__load(path, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "a string longer than any name: event, 300 bytes (at most 255)"));
}

/* An event is the C string of its first 31 bytes: "sched__sched_switch" then a NUL is a
 * switch, "sched__sched_switchx" no event pwz reads. */
static void test_event_names(void **state)
{
	static const char doc[] =
		"\x88\xa5" "event\x93"
		"\xb5" "sched__sched_switch\0x" "\xb4" "sched__sched_switchx"
		"\xb3" "sched__sched_switch"
		"\xa3" "cpu\x93\x00\x01\x00" "\xa5" "usecs\x93\x0a\x14\x1e"
		"\xa3" "pid\x93\x05\x05\x05" "\xa9" "task_name\x93\xa1" "a\xa1" "a\xa1" "a"
		"\xa8" "duration\x93\x01\x01\x02" "\xa8" "next_pid\x93\x06\x06\x06"
		"\xa9" "next_comm\x93\xa1" "b\xa1" "b\xa1" "b";
	char path[256];
	struct trace *t;

	(void)state;
	snprintf(path, sizeof(path), "%s/events.cdict", dir);
	write_zlib(path, doc, sizeof(doc) - 1);
	t = load(path);
	assert_int_equal(t->nr_slices, 2);
	assert_int_equal(t->slices[0].start_ns, 9000);
	assert_int_equal(t->slices[1].start_ns, 28000);
	trace__free(t);
}

/* Far from the stream's end, where elements are checked in runs, a break is refused with the
 * same message and offset as at its end. */
static void test_legacy_shape_runs(void **state)
{
	static unsigned char doc[10 + 1000 * 3 + 3 + 300];
	char path[256], err[512];
	struct trace_load_opts o = { 0 };
	size_t n = 10;

	(void)state;
	snprintf(path, sizeof(path), "%s/runs.cdict", dir);
	/* 1000 rows: uint 16, str 8, nil and fixstr in turn, then an array at row 600 */
	memcpy(doc, "\x81\xa5" "event\xdc\x03\xe8", 10);
	for (int i = 0; i < 600; i++) {
		static const char *const el[] = { "\xcd\x01\x02", "\xd9\x01x", "\xc0", "\xa1y" };
		static const size_t len[] = { 3, 3, 1, 2 };

		memcpy(doc + n, el[i % 4], len[i % 4]);
		n += len[i % 4];
	}
	doc[n] = 0x90;
	memset(doc + n + 1, 0, 399);
	write_zlib(path, doc, n + 400);
	assert_null(trace__load(path, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "not a number, string or nil: event (decompressed offset 1360)"));
	/* a str 16 of 300 bytes at row 600 */
	memcpy(doc + n, "\xda\x01\x2c", 3);
	memset(doc + n + 3, 'a', 300);
	write_zlib(path, doc, n + 303);
	assert_null(trace__load(path, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "event, 300 bytes (at most 255) (decompressed offset 1360)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_against_truth),
		cmocka_unit_test(test_write_then_read),
		cmocka_unit_test(test_streams_if_meta),
		cmocka_unit_test(test_long_file),
		cmocka_unit_test(test_bad_legacy),
		cmocka_unit_test(test_legacy_shape),
		cmocka_unit_test(test_legacy_shape_runs),
		cmocka_unit_test(test_event_names),
	};

	if (access(SAMPLE, R_OK)) {
		fprintf(stderr, "test_legacy: %s missing\n", SAMPLE);
		return 1;
	}
	return RUN_IN_TMPDIR(tests, dir);
}
