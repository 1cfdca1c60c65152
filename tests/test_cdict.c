// SPDX-License-Identifier: GPL-2.0
/* cdict v2: round trip of every record type, cut files, bad input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "cdict.h"
#include "cdict_format.h"
#include "fuzz/fuzz_wrap.h"
#include "truth.h"

#define N 500

static char dir[] = "/tmp/pwz-test-cdict-XXXXXX";

struct seen {
	struct pwz_meta meta;
	int metas;
	struct pwz_task tasks[N];
	struct pwz_slice slices[N];
	struct pwz_wakeup wakeups[N];
	struct pwz_kvm_exit exits[N];
	struct pwz_cpu_agg cpu[N];
	struct pwz_kvm_agg kvm[N];
	struct pwz_wait_agg wait[N];
	struct pwz_vcpu_ledger led[N];
	size_t nt, ns, nw, ne, nc, nk, nwa, nl;
};

static int on_meta(void *ctx, const struct pwz_meta *m)
{
	struct seen *s = ctx;

	s->metas++;
	return pwz_meta_copy(&s->meta, m);
}
#define COLLECT(fn, type, arr, n)                          \
	static int fn(void *ctx, const type *x)            \
	{                                                  \
		struct seen *s = ctx;                      \
		if (s->n < N)                              \
			s->arr[s->n] = *x;                 \
		s->n++;                                    \
		return 0;                                  \
	}
COLLECT(on_task, struct pwz_task, tasks, nt)
COLLECT(on_slice, struct pwz_slice, slices, ns)
COLLECT(on_wakeup, struct pwz_wakeup, wakeups, nw)
COLLECT(on_exit_rec, struct pwz_kvm_exit, exits, ne)
COLLECT(on_cpu, struct pwz_cpu_agg, cpu, nc)
COLLECT(on_kvm, struct pwz_kvm_agg, kvm, nk)
COLLECT(on_wait, struct pwz_wait_agg, wait, nwa)
COLLECT(on_led, struct pwz_vcpu_ledger, led, nl)

static int read_all(const char *path, struct seen *s, struct cdict_read_info *info, char *err)
{
	struct cdict_visitor v = { .ctx = s, .meta = on_meta, .task = on_task, .slice = on_slice,
				   .wakeup = on_wakeup, .kvm_exit = on_exit_rec, .cpu_agg = on_cpu,
				   .kvm_agg = on_kvm, .wait_agg = on_wait, .vcpu_ledger = on_led };

	memset(s, 0, sizeof(*s));
	return cdict_read(path, &v, info, err, 512);
}

static void make_meta(struct pwz_meta *m)
{
	memset(m, 0, sizeof(*m));
	pwz_meta_set_str(&m->host, "testhost");
	pwz_meta_set_str(&m->kernel, "6.18.0-test");
	pwz_meta_set_str(&m->cmdline, "pwz-bpf -s 5 --all test");
	m->source = PWZ_SOURCE_SYNTHETIC;
	m->nr_cpus = 3;
	m->topo = calloc(3, sizeof(*m->topo));
	for (int i = 0; i < 3; i++)
		m->topo[i] = (struct pwz_cpu_topo){ i / 2, i, i / 2 };
	m->clock_id = 1;
	m->start_mono_ns = 123456789;
	m->start_wall_ns = 1700000000000000000ull;
	m->has_switch_kind = true;
	m->has_wait = true;
	m->threads = PWZ_THREADS_SELECTED;
	pwz_meta_add_exit_name(m, PWZ_ISA_SVM, 0x7b, "io");
	pwz_meta_add_exit_name(m, PWZ_ISA_VMX, 30, "IO_INSTRUCTION");
}

static void assert_slice_eq(const struct pwz_slice *a, const struct pwz_slice *b)
{
	assert_int_equal(a->tid, b->tid);
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->start_ns, b->start_ns);
	assert_int_equal(a->dur_ns, b->dur_ns);
	assert_int_equal(a->end, b->end);
	assert_int_equal(a->flags, b->flags);
}

/* Deterministic record i of each kind. */
static struct pwz_slice slice_i(uint32_t i)
{
	return (struct pwz_slice){ 1000 + i % 7, i % 3, 1000ull * i, 17 + i * 3ull, i % 4,
				   i % 5 ? 0 : PWZ_SLICE_UNSEEN_START, 0, 0 };
}

static struct pwz_kvm_exit exit_i(uint32_t i)
{
	return (struct pwz_kvm_exit){ 2000 + i % 2, i % 2, 5000ull * i, 1 + i % 2, 0x72 + i % 10,
				      1ull << (i % 40), i % 3 ? 99 + i : 0,
				      i % 3 ? 0 : PWZ_EXIT_UNPAIRED };
}

/* Writes N of each record (chunk_bytes small: many chunks) and returns the file path. */
static void write_file(const char *path, size_t chunk_bytes, struct pwz_meta *final)
{
	struct cdict_writer_opts o = { .chunk_bytes = chunk_bytes };
	struct pwz_meta m;
	struct cdict_writer *w;
	char err[512];

	make_meta(&m);
	w = cdict_writer__new(path, &m, &o, err, sizeof(err));
	assert_non_null(w);
	for (uint32_t i = 0; i < N; i++) {
		struct pwz_task t = { .tid = 1000 + i, .tgid = 1000, .time_ns = i,
				      .flags = i % 2 ? PWZ_TASK_BORN : 0 };
		struct pwz_slice s = slice_i(i);
		struct pwz_wakeup wk = { 1000 + i, i % 3, 10ull * i, 5ull + i, 0, 0, 0 };
		struct pwz_kvm_exit e = exit_i(i);
		uint64_t since = i % 3 ? 40ull + i : 0;	/* instances (model.h R8) */
		struct pwz_cpu_agg ca = { .tid = 1000 + i, .cpu = i % 3, .since_ns = since,
					  .runtime_ns = 1000000ull * i, .switches = i,
					  .voluntary = i / 2, .involuntary = i - i / 2,
					  .unseen = i % 4, .unseen_ns = 3ull * i };
		struct pwz_kvm_agg ka = { .tid = 2000 + i, .isa = 2, .reason = i, .count = 3ull * i,
					  .handling_ns = 77ull * i, .since_ns = since };
		struct pwz_wait_agg wa = { .tid = 1000 + i, .since_ns = since, .count = i,
					   .wait_ns = 9ull * i, .max_ns = i + 1ull,
					   .run_delay_ns = 5ull * i, .run_delay_wait_ns = 4ull * i,
					   .run_delay_unmeasured_ns = i };

		snprintf(t.comm, sizeof(t.comm), "comm%u", i);
		snprintf(t.proc_name, sizeof(t.proc_name), "proc");
		/* hostile bytes survive as they are */
		snprintf(t.name, sizeof(t.name), "n\"%u</script>\xff\xfe", i);
		ka.hist[i % PWZ_HIST_BUCKETS] = i + 1;
		/* half the wait aggregates carry a histogram (element 7: since is then written
		 * even when 0), the others none, as older files */
		if (i % 2) {
			wa.hist[i % PWZ_WHIST_BUCKETS] = i - 1;
			wa.hist[PWZ_WHIST_BUCKETS - 1 - i % 7] += 1;
		}
		assert_int_equal(cdict_writer__task(w, &t), 0);
		assert_int_equal(cdict_writer__slice(w, &s), 0);
		assert_int_equal(cdict_writer__wakeup(w, &wk), 0);
		assert_int_equal(cdict_writer__kvm_exit(w, &e), 0);
		assert_int_equal(cdict_writer__cpu_agg(w, &ca), 0);
		assert_int_equal(cdict_writer__kvm_agg(w, &ka), 0);
		assert_int_equal(cdict_writer__wait_agg(w, &wa), 0);
	}
	/* not there until finished */
	assert_int_not_equal(access(path, F_OK), 0);
	pwz_meta_copy(final, &m);
	final->duration_ns = 5000000000ull;
	pwz_meta_add_drop(final, "slice", 12);
	pwz_meta_add_drop(final, "kvm_exit", 3);
	assert_int_equal(cdict_writer__finish(w, final, err, sizeof(err)), 0);
	cdict_writer__free(w);
	pwz_meta_free(&m);
}

/* The optional fields (docs/cdict.md): reported prev_state, waker, kernel charge. A file
 * whose META says has_prev_state / has_waker reads absent elements as the defaults; one
 * without reads them as unknown, as older files do. */
static void test_optional_fields(void **state)
{
	static const uint32_t states[] = { PWZ_STATE_PREEMPTED, PWZ_STATE_SLEEPING,
					   PWZ_STATE_DISK, PWZ_STATE_RUNNING, PWZ_STATE_IDLE };
	struct cdict_writer_opts o = { .chunk_bytes = 256 };
	char path[256], err[512];
	struct pwz_meta m;
	struct cdict_writer *w;
	static struct seen s;

	(void)state;
	for (int known = 0; known < 2; known++) {
		snprintf(path, sizeof(path), "%s/opt%d.cdict", dir, known);
		make_meta(&m);
		m.has_prev_state = m.has_waker = m.has_charged = m.has_run_delay = known;
		/* the scheduler's clock (model.h R0), a negative drift included */
		m.has_sched_clock = known;
		m.sched_clock = (struct pwz_sched_clock){ .pairs = 41, .drift_ppb = -493,
							  .residual_ns = 787, .spread_ns = 255,
							  .stamped = 535582, .stale = 524254,
							  .late = 3 };
		w = cdict_writer__new(path, &m, &o, err, sizeof(err));
		assert_non_null(w);
		for (uint32_t i = 0; i < 5; i++) {
			struct pwz_slice sl = { .tid = 7, .cpu = 1, .start_ns = 10 * i, .dur_ns = 5,
						.end = i == 0 || i == 3 ? PWZ_END_PREEMPTED :
						       PWZ_END_SLEPT,
						.flags = PWZ_SLICE_STATE | PWZ_SLICE_CHARGED,
						.prev_state = states[i], .charged_ns = 4 };
			struct pwz_wakeup wk = { .tid = 7, .cpu = 1, .wake_ns = i, .wait_ns = 1,
						 .flags = i == 0 ? PWZ_WAKEUP_PREEMPTED :
							  i == 1 ? PWZ_WAKEUP_WOKEN :
							  PWZ_WAKEUP_WOKEN | PWZ_WAKEUP_WAKER,
						 .waker_tid = 100 + i, .waker_cpu = i % 2 };

			assert_int_equal(cdict_writer__slice(w, &sl), 0);
			assert_int_equal(cdict_writer__wakeup(w, &wk), 0);
		}
		struct pwz_cpu_agg ca = { .tid = 7, .cpu = 1, .runtime_ns = 900, .switches = 5,
					  .charged_ns = 700, .charged_run_ns = 800 };
		/* the kernel's charge of the waits (elements 8-10) without a histogram: an empty
		 * one is written before it */
		struct pwz_wait_agg wa = { .tid = 7, .count = 5, .wait_ns = 5, .max_ns = 1,
					   .run_delay_ns = 13, .run_delay_wait_ns = 4,
					   .run_delay_unmeasured_ns = 9 };
		assert_int_equal(cdict_writer__cpu_agg(w, &ca), 0);
		assert_int_equal(cdict_writer__wait_agg(w, &wa), 0);
		assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
		cdict_writer__free(w);
		pwz_meta_free(&m);

		assert_int_equal(read_all(path, &s, NULL, err), 0);
		assert_int_equal(s.meta.has_prev_state, known);
		assert_int_equal(s.meta.has_waker, known);
		assert_int_equal(s.meta.has_run_delay, known);
		assert_int_equal(s.meta.has_sched_clock, known);
		assert_int_equal(s.meta.sched_clock.pairs, known ? 41 : 0);
		assert_int_equal(s.meta.sched_clock.drift_ppb, known ? -493 : 0);
		assert_int_equal(s.meta.sched_clock.residual_ns, known ? 787 : 0);
		assert_int_equal(s.meta.sched_clock.spread_ns, known ? 255 : 0);
		assert_int_equal(s.meta.sched_clock.stamped, known ? 535582 : 0);
		assert_int_equal(s.meta.sched_clock.stale, known ? 524254 : 0);
		assert_int_equal(s.meta.sched_clock.late, known ? 3 : 0);
		assert_int_equal(s.ns, 5);
		for (uint32_t i = 0; i < 5; i++) {
			/* R+ of a preemption and S of a sleep are implied, D, R and I stored */
			bool stored = i >= 2;

			assert_int_equal(!!(s.slices[i].flags & PWZ_SLICE_STATE), known || stored);
			assert_int_equal(pwz_slice_state(&s.slices[i]), states[i]);
			/* the charge is aggregate-only in the file */
			assert_false(s.slices[i].flags & PWZ_SLICE_CHARGED);
		}
		assert_int_equal(s.wakeups[0].flags, known ? PWZ_WAKEUP_PREEMPTED : 0);
		assert_int_equal(s.wakeups[1].flags, PWZ_WAKEUP_WOKEN);
		assert_int_equal(s.wakeups[1].waker_cpu, 0);
		assert_int_equal(s.wakeups[3].flags, PWZ_WAKEUP_WOKEN | PWZ_WAKEUP_WAKER);
		assert_int_equal(s.wakeups[3].waker_tid, 103);
		assert_int_equal(s.wakeups[3].waker_cpu, 1);
		assert_int_equal(s.nc, 1);
		assert_int_equal(s.cpu[0].charged_ns, 700);
		assert_int_equal(s.cpu[0].charged_run_ns, 800);
		assert_int_equal(s.cpu[0].runtime_ns, 900);
		assert_int_equal(s.nwa, 1);
		assert_int_equal(s.wait[0].count, 5);
		assert_false(pwz_wait_agg_has_hist(&s.wait[0]));
		assert_int_equal(s.wait[0].run_delay_ns, 13);
		assert_int_equal(s.wait[0].run_delay_wait_ns, 4);
		assert_int_equal(s.wait[0].run_delay_unmeasured_ns, 9);
		pwz_meta_free(&s.meta);
	}
}

static void test_round_trip(void **state)
{
	char path[256], err[512];
	struct pwz_meta final;
	struct cdict_read_info info;
	static struct seen s;

	(void)state;
	snprintf(path, sizeof(path), "%s/rt.cdict", dir);
	write_file(path, 4096, &final);
	assert_int_equal(read_all(path, &s, &info, err), 0);
	assert_false(info.cut);
	assert_true(info.chunks > 10);
	assert_int_equal(info.format, CDICT_FORMAT_V2);
	assert_true(info.has_aggregates);
	assert_int_equal(s.metas, 1);
	/* the final meta (END record) is what the reader gives */
	assert_int_equal(s.meta.duration_ns, 5000000000ull);
	assert_int_equal(pwz_meta_total_drops(&s.meta), 15);
	assert_string_equal(s.meta.host, "testhost");
	assert_string_equal(s.meta.cmdline, "pwz-bpf -s 5 --all test");
	assert_int_equal(s.meta.nr_cpus, 3);
	assert_int_equal(s.meta.topo[2].package, 1);
	assert_int_equal(s.meta.topo[2].core, 2);
	assert_int_equal(s.meta.start_wall_ns, 1700000000000000000ull);
	assert_true(s.meta.has_wait);
	assert_int_equal(s.meta.threads, PWZ_THREADS_SELECTED);
	assert_false(s.meta.has_kvm);
	assert_null(s.meta.trigger);	/* not a flight recorder dump */
	assert_int_equal(s.meta.trigger_ns, 0);
	assert_string_equal(pwz_meta_exit_name(&s.meta, PWZ_ISA_SVM, 0x7b), "io");
	assert_string_equal(pwz_meta_exit_name(&s.meta, PWZ_ISA_VMX, 30), "IO_INSTRUCTION");
	assert_int_equal(s.nt, N);
	assert_int_equal(s.ns, N);
	assert_int_equal(s.nw, N);
	assert_int_equal(s.ne, N);
	assert_int_equal(s.nc, N);
	assert_int_equal(s.nk, N);
	assert_int_equal(s.nwa, N);
	for (uint32_t i = 0; i < N; i++) {
		struct pwz_slice sl = slice_i(i);
		struct pwz_kvm_exit e = exit_i(i);
		char name[64];

		assert_slice_eq(&s.slices[i], &sl);
		assert_int_equal(s.exits[i].tid, e.tid);
		assert_int_equal(s.exits[i].vcpu, e.vcpu);
		assert_int_equal(s.exits[i].time_ns, e.time_ns);
		assert_int_equal(s.exits[i].isa, e.isa);
		assert_int_equal(s.exits[i].reason, e.reason);
		assert_int_equal(s.exits[i].guest_ns, e.guest_ns);
		assert_int_equal(s.exits[i].handling_ns, e.handling_ns);
		assert_int_equal(s.exits[i].flags, e.flags);
		assert_int_equal(s.tasks[i].tid, 1000 + i);
		snprintf(name, sizeof(name), "n\"%u</script>\xff\xfe", i);
		assert_string_equal(s.tasks[i].name, name);
		assert_int_equal(s.wakeups[i].wait_ns, 5 + i);
		assert_int_equal(s.cpu[i].runtime_ns, 1000000ull * i);
		assert_int_equal(s.cpu[i].involuntary, i - i / 2);
		assert_int_equal(s.cpu[i].unseen, i % 4);
		assert_int_equal(s.cpu[i].unseen_ns, 3ull * i);
		assert_int_equal(s.kvm[i].hist[i % PWZ_HIST_BUCKETS], i + 1);
		assert_int_equal(s.kvm[i].handling_ns, 77ull * i);
		assert_int_equal(s.wait[i].max_ns, i + 1);
		assert_int_equal(s.tasks[i].flags, i % 2 ? PWZ_TASK_BORN : 0);
		assert_int_equal(s.tasks[i].since_ns, i % 2 ? i : 0);
		assert_int_equal(s.cpu[i].since_ns, i % 3 ? 40ull + i : 0);
		assert_int_equal(s.kvm[i].since_ns, i % 3 ? 40ull + i : 0);
		assert_int_equal(s.wait[i].since_ns, i % 3 ? 40ull + i : 0);
		assert_int_equal(s.wait[i].run_delay_ns, 5ull * i);
		assert_int_equal(s.wait[i].run_delay_wait_ns, 4ull * i);
		assert_int_equal(s.wait[i].run_delay_unmeasured_ns, i);
		{
			struct pwz_wait_agg want = { 0 };

			if (i % 2) {
				want.hist[i % PWZ_WHIST_BUCKETS] = i - 1;
				want.hist[PWZ_WHIST_BUCKETS - 1 - i % 7] += 1;
			}
			assert_memory_equal(s.wait[i].hist, want.hist, sizeof(want.hist));
			assert_int_equal(pwz_wait_agg_has_hist(&s.wait[i]), i % 2 == 1);
		}
	}
	pwz_meta_free(&s.meta);
	pwz_meta_free(&final);
}

/* Offsets of every chunk in a v2 file, and the records each holds. */
static size_t chunk_offsets(const unsigned char *buf, size_t len, size_t *offs, uint32_t *nrec,
			    size_t max)
{
	size_t off = CDICT_HEADER_LEN, n = 0;

	while (off + CDICT_CHUNK_HDR_LEN <= len && !memcmp(buf + off, CDICT_CHUNK_MAGIC, 4) && n < max) {
		offs[n] = off;
		nrec[n] = cdict_get_le32(buf + off + 12);
		off += CDICT_CHUNK_HDR_LEN + cdict_get_le32(buf + off + 4);
		n++;
	}
	return n;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

static void spill(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* A flight recorder dump's trigger (reason, time and thread) survives the file, with the other
 * keys, and is said with its thread. */
static void test_trigger_meta(void **state)
{
	char path[256], err[512], text[256];
	struct cdict_read_info info;
	struct cdict_writer *w;
	static struct seen s;
	struct pwz_meta m, copy;

	(void)state;
	snprintf(path, sizeof(path), "%s/trig.cdict", dir);
	make_meta(&m);
	pwz_meta_set_str(&m.trigger, "wait 23.500 ms");
	pwz_meta_set_str(&m.trigger_thread, "db-writer\x1b");
	m.trigger_tid = 812;
	m.trigger_ns = 2999999999ull;
	m.duration_ns = 3000000000ull;
	w = cdict_writer__new(path, &m, NULL, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
	cdict_writer__free(w);
	assert_int_equal(read_all(path, &s, &info, err), 0);
	assert_string_equal(s.meta.trigger, "wait 23.500 ms");
	assert_int_equal(s.meta.trigger_ns, 2999999999ull);
	assert_int_equal(s.meta.trigger_tid, 812);
	assert_string_equal(s.meta.trigger_thread, "db-writer\x1b");
	pwz_meta_trigger_text(&s.meta, text, sizeof(text));
	assert_string_equal(text, "wait 23.500 ms of thread db-writer\x1b (tid 812)");
	assert_string_equal(s.meta.host, "testhost");
	assert_int_equal(s.meta.duration_ns, 3000000000ull);
	assert_string_equal(pwz_meta_exit_name(&s.meta, PWZ_ISA_VMX, 30), "IO_INSTRUCTION");
	assert_int_equal(pwz_meta_copy(&copy, &s.meta), 0);
	assert_string_equal(copy.trigger, s.meta.trigger);
	assert_ptr_not_equal(copy.trigger, s.meta.trigger);
	assert_string_equal(copy.trigger_thread, s.meta.trigger_thread);
	assert_ptr_not_equal(copy.trigger_thread, s.meta.trigger_thread);
	pwz_meta_free(&copy);
	/* a signal's trigger has no thread */
	pwz_meta_free(&s.meta);
	m.trigger_tid = 0;
	pwz_meta_set_str(&m.trigger, "signal SIGUSR1");
	w = cdict_writer__new(path, &m, NULL, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
	cdict_writer__free(w);
	assert_int_equal(read_all(path, &s, &info, err), 0);
	assert_int_equal(s.meta.trigger_tid, 0);
	assert_null(s.meta.trigger_thread);
	pwz_meta_trigger_text(&s.meta, text, sizeof(text));
	assert_string_equal(text, "signal SIGUSR1");
	pwz_meta_free(&s.meta);
	pwz_meta_free(&m);
}

static void test_cut_at_every_chunk(void **state)
{
	char path[256], cut[256], err[512];
	struct pwz_meta final;
	static struct seen s;
	struct cdict_read_info info;
	size_t len, offs[4096], n;
	uint32_t nrec[4096];
	unsigned char *buf;

	(void)state;
	snprintf(path, sizeof(path), "%s/cut.cdict", dir);
	snprintf(cut, sizeof(cut), "%s/cut-part.cdict", dir);
	write_file(path, 2048, &final);
	pwz_meta_free(&final);
	buf = slurp(path, &len);
	n = chunk_offsets(buf, len, offs, nrec, 4096);
	assert_true(n > 20);
	for (size_t k = 1; k < n; k++) {
		unsigned long long whole = 0;

		/* records in chunks 0..k-1, less the META record of chunk 0 */
		for (size_t j = 0; j < k; j++)
			whole += nrec[j];
		whole -= 1;
		for (int mid = 0; mid < 2; mid++) {
			size_t at = offs[k] + (mid ? 7 : 0);

			spill(cut, buf, at);
			assert_int_equal(read_all(cut, &s, &info, err), 0);
			assert_true(info.cut);
			assert_int_equal(info.chunks, k);
			assert_int_equal(info.records, whole);
			assert_int_equal(info.cut_offset, offs[k]);
			/* what came back is a prefix of what was written, intact */
			for (size_t i = 0; i < s.ns && i < N; i++) {
				struct pwz_slice sl = slice_i((uint32_t)i);

				assert_slice_eq(&s.slices[i], &sl);
			}
			pwz_meta_free(&s.meta);
		}
	}
	/* cut inside the first chunk: nothing whole to show */
	spill(cut, buf, offs[0] + 5);
	assert_int_equal(read_all(cut, &s, &info, err), -EINVAL);
	assert_non_null(strstr(err, "cut short"));
	free(buf);
}

static void test_bad_input(void **state)
{
	char path[256], err[512];
	struct pwz_meta final;
	static struct seen s;
	struct cdict_read_info info;
	unsigned char *buf;
	size_t len;

	(void)state;
	assert_int_equal(read_all("/nonexistent/x.cdict", &s, &info, err), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.cdict"));

	snprintf(path, sizeof(path), "%s/empty.cdict", dir);
	spill(path, "", 0);
	assert_int_equal(read_all(path, &s, &info, err), -EINVAL);
	assert_non_null(strstr(err, "empty"));

	spill(path, "hello world, not a cdict at all", 31);
	assert_int_equal(read_all(path, &s, &info, err), -EINVAL);
	assert_non_null(strstr(err, "not a cdict"));

	snprintf(path, sizeof(path), "%s/bad.cdict", dir);
	write_file(path, 4096, &final);
	pwz_meta_free(&final);
	buf = slurp(path, &len);
	/* a future version */
	buf[8] = 3;
	spill(path, buf, len);
	assert_int_equal(read_all(path, &s, &info, err), -EPROTONOSUPPORT);
	assert_non_null(strstr(err, "newer pwz"));
	buf[8] = 2;
	/* a flipped byte inside a chunk's payload: the LZ4 checksum catches it */
	{
		size_t offs[64], at;
		uint32_t nrec[64];

		assert_true(chunk_offsets(buf, len, offs, nrec, 64) > 4);
		at = offs[3] + CDICT_CHUNK_HDR_LEN + 40;
		buf[at] ^= 0x55;
		spill(path, buf, len);
		assert_int_equal(read_all(path, &s, &info, err), -EINVAL);
		assert_non_null(strstr(err, "offset"));
		pwz_meta_free(&s.meta);
		buf[at] ^= 0x55;
		/* a wrong record count in a chunk header */
		buf[offs[2] + 12] ^= 0x01;
		spill(path, buf, len);
		assert_int_equal(read_all(path, &s, &info, err), -EINVAL);
		assert_non_null(strstr(err, "record count"));
		pwz_meta_free(&s.meta);
		buf[offs[2] + 12] ^= 0x01;
	}
	/* a chunk length pointing past the end of a complete file: corrupt, not a cut */
	buf[CDICT_HEADER_LEN + 7] = 0x03;
	spill(path, buf, len);
	assert_int_equal(read_all(path, &s, &info, err), -EINVAL);
	assert_non_null(strstr(err, "past the end"));
	pwz_meta_free(&s.meta);
	/* a length above any sane chunk */
	buf[CDICT_HEADER_LEN + 7] = 0x7f;
	spill(path, buf, len);
	assert_int_equal(read_all(path, &s, &info, err), -EINVAL);
	assert_non_null(strstr(err, "limit"));
	pwz_meta_free(&s.meta);
	free(buf);
}

/* Files in dir whose names start with prefix and end with ".part". */
static int count_parts(const char *prefix)
{
	size_t lp = strlen(prefix);
	struct dirent *d;
	DIR *dd = opendir(dir);
	int n = 0;

	assert_non_null(dd);
	while ((d = readdir(dd))) {
		size_t l = strlen(d->d_name);

		if (!strncmp(d->d_name, prefix, lp) && l > 5 && !strcmp(d->d_name + l - 5, ".part"))
			n++;
	}
	closedir(dd);
	return n;
}

static void test_writer_errors(void **state)
{
	char path[256], part[512], err[512];
	struct pwz_meta m;
	struct cdict_writer *w;

	(void)state;
	make_meta(&m);
	w = cdict_writer__new("/nonexistent-dir/x.cdict", &m, NULL, err, sizeof(err));
	assert_null(w);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "/nonexistent-dir/x.cdict"));
	/* an unfinished writer leaves nothing behind */
	snprintf(path, sizeof(path), "%s/abandoned.cdict", dir);
	w = cdict_writer__new(path, &m, NULL, err, sizeof(err));
	assert_non_null(w);
	snprintf(part, sizeof(part), "%s", cdict_writer__part_path(w));
	/* its own name: "<path>.XXXXXX.part" */
	assert_int_equal(strlen(part), strlen(path) + 12);
	assert_memory_equal(part, path, strlen(path));
	assert_int_equal(access(part, F_OK), 0);
	assert_int_equal(count_parts("abandoned.cdict."), 1);
	cdict_writer__free(w);
	assert_int_not_equal(access(part, F_OK), 0);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_equal(count_parts("abandoned.cdict."), 0);
	pwz_meta_free(&m);
}

/* A writer stopped by an error keeps its whole chunks, truncated after the last one: the
 * temporary reads back as a cut file with exactly those chunks. */
static void test_keep_partial(void **state)
{
	struct cdict_writer_opts o = { .chunk_bytes = 512 };
	char path[256], part[512], err[512];
	struct cdict_read_info info;
	static struct seen s;
	unsigned long long chunks, bytes;
	struct pwz_meta m;
	struct cdict_writer *w;
	struct stat st;
	FILE *f;

	(void)state;
	make_meta(&m);
	snprintf(path, sizeof(path), "%s/kept.cdict", dir);
	w = cdict_writer__new(path, &m, &o, err, sizeof(err));
	assert_non_null(w);
	for (uint32_t i = 0; i < 200; i++) {
		struct pwz_slice sl = slice_i(i);

		assert_int_equal(cdict_writer__slice(w, &sl), 0);
	}
	chunks = cdict_writer__chunks(w);
	bytes = cdict_writer__bytes(w);
	assert_true(chunks >= 3);
	snprintf(part, sizeof(part), "%s", cdict_writer__part_path(w));
	/* half a chunk of garbage after the whole ones, as a write cut by ENOSPC leaves */
	f = fopen(part, "ab");
	assert_non_null(f);
	fputs("PWZK\x10\x20", f);
	fclose(f);
	assert_int_equal(cdict_writer__keep_partial(w), 1);
	cdict_writer__free(w);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_equal(stat(part, &st), 0);
	assert_int_equal((unsigned long long)st.st_size, bytes);
	assert_int_equal(read_all(part, &s, &info, err), 0);
	assert_true(info.cut);
	assert_int_equal(info.chunks, chunks);
	assert_true(s.ns > 0 && s.ns < 200);
	for (uint32_t i = 0; i < s.ns; i++) {
		struct pwz_slice want = slice_i(i);

		assert_slice_eq(&s.slices[i], &want);
	}
	unlink(part);
	pwz_meta_free(&s.meta);

	/* nothing whole yet: nothing kept */
	w = cdict_writer__new(path, &m, NULL, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(cdict_writer__keep_partial(w), 0);
	cdict_writer__free(w);
	assert_int_equal(count_parts("kept.cdict."), 0);
	pwz_meta_free(&m);
}

/* A write error (here EFBIG from RLIMIT_FSIZE, as ENOSPC from a full disk) in the middle of a
 * chunk and again at finish: finish fails, the temporary stays, and keep_partial keeps exactly
 * the whole chunks written before the error. */
static void test_write_error_keeps_chunks(void **state)
{
	struct cdict_writer_opts o = { .chunk_bytes = 256 };
	char path[256], part[512], err[512];
	struct cdict_read_info info;
	static struct seen s;
	unsigned long long chunks, bytes;
	struct rlimit old, small;
	struct pwz_meta m;
	struct cdict_writer *w;
	struct stat st;
	int e = 0;
	uint32_t i;

	(void)state;
	make_meta(&m);
	snprintf(path, sizeof(path), "%s/efbig.cdict", dir);
	w = cdict_writer__new(path, &m, &o, err, sizeof(err));
	assert_non_null(w);
	for (i = 0; i < 60; i++) {
		struct pwz_slice sl = slice_i(i);

		assert_int_equal(cdict_writer__slice(w, &sl), 0);
	}
	assert_int_equal(cdict_writer__flush(w), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = cdict_writer__bytes(w) + 40;	/* the next chunk does not fit */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	chunks = cdict_writer__chunks(w);
	bytes = cdict_writer__bytes(w);
	for (; i < 400 && !e; i++) {
		struct pwz_slice sl = slice_i(i);

		e = cdict_writer__slice(w, &sl);
	}
	assert_int_equal(e, -EFBIG);
	assert_int_equal(cdict_writer__chunks(w), chunks);
	assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), -EFBIG);
	assert_non_null(strstr(err, "efbig.cdict"));
	snprintf(part, sizeof(part), "%s", cdict_writer__part_path(w));
	assert_int_equal(access(part, F_OK), 0);	/* still there after the failed finish */
	assert_int_equal(cdict_writer__keep_partial(w), 1);
	cdict_writer__free(w);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_equal(stat(part, &st), 0);
	assert_int_equal((unsigned long long)st.st_size, bytes);
	assert_int_equal(read_all(part, &s, &info, err), 0);
	assert_true(info.cut);
	assert_int_equal(info.chunks, chunks);
	assert_true(s.ns >= 60 && s.ns < 400);
	unlink(part);
	pwz_meta_free(&s.meta);
	pwz_meta_free(&m);
}

/* Files are 0600 unless a mode is asked for, whatever the umask. */
static void test_file_mode(void **state)
{
	struct cdict_writer_opts o = { .mode = 0644 };
	char path[256], err[512];
	struct pwz_meta m;
	struct cdict_writer *w;
	struct stat st;
	mode_t old = umask(0);

	(void)state;
	make_meta(&m);
	snprintf(path, sizeof(path), "%s/mode.cdict", dir);
	w = cdict_writer__new(path, &m, NULL, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
	cdict_writer__free(w);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	umask(077);
	w = cdict_writer__new(path, &m, &o, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
	cdict_writer__free(w);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	o.legacy = true;
	o.mode = 0640;
	w = cdict_writer__new(path, &m, &o, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
	cdict_writer__free(w);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	umask(old);
	pwz_meta_free(&m);
}

static void test_resolve_path(void **state)
{
	char path[300], base[256];
	char *r;

	(void)state;
	snprintf(base, sizeof(base), "%s/named", dir);
	snprintf(path, sizeof(path), "%s.cdict", base);
	spill(path, "x", 1);
	r = cdict_resolve_path(base);
	assert_non_null(r);
	assert_string_equal(r, path);
	free(r);
	assert_null(cdict_resolve_path("/nonexistent/nothing"));
}

/* Ledger i: every field a different value. */
static struct pwz_vcpu_ledger ledger_i(uint32_t i)
{
	struct pwz_vcpu_ledger l = { .tid = 3000 + i, .since_ns = i % 2 ? 0 : 7ull * i,
				     .alive_ns = 1ull << (i % 64) };

	for (int k = 0; k < PWZ_VCPU_STATES; k++) {
		l.ns[k] = 1000000ull * i + 1000ull * k + 1;
		l.count[k] = 100ull * i + k;
	}
	for (int k = 0; k < PWZ_READY_CAUSES; k++)
		l.cause_ns[k] = 3000000ull * i + 10ull * k + 2;
	l.costop_ns = 5ull * i + 3;
	l.has_vcpu = i % 3 != 0;	/* nil for every third */
	l.vcpu = l.has_vcpu ? i % 7 : 0;
	for (int k = 0; k < PWZ_VCPU_STATES; k++)
		l.hist[k][(i + k) % PWZ_HIST_BUCKETS] = 7ull * i + k + 1;
	return l;
}

static void assert_ledger_eq(const struct pwz_vcpu_ledger *a, const struct pwz_vcpu_ledger *b)
{
	assert_int_equal(a->tid, b->tid);
	assert_int_equal(a->since_ns, b->since_ns);
	assert_int_equal(a->alive_ns, b->alive_ns);
	assert_memory_equal(a->ns, b->ns, sizeof(a->ns));
	assert_memory_equal(a->count, b->count, sizeof(a->count));
	assert_memory_equal(a->cause_ns, b->cause_ns, sizeof(a->cause_ns));
	assert_int_equal(a->costop_ns, b->costop_ns);
	assert_int_equal(a->has_vcpu, b->has_vcpu);
	assert_int_equal(a->vcpu, b->vcpu);
	assert_memory_equal(a->hist, b->hist, sizeof(a->hist));
}

/* VCPU_LEDGER: what is written reads back the same, over many chunks; the legacy format has
 * none. */
static void test_vcpu_ledger_round_trip(void **state)
{
	enum { NL = 300 };
	char path[256], err[512];
	struct pwz_meta m;
	static struct seen s;

	(void)state;
	for (int legacy = 0; legacy < 2; legacy++) {
		struct cdict_writer_opts o = { .chunk_bytes = 512, .legacy = legacy };
		struct pwz_task t = { .tid = 3000, .comm = "CPU 0/KVM", .name = "vm.vcpu0" };
		struct cdict_writer *w;

		snprintf(path, sizeof(path), "%s/ledger%d.cdict", dir, legacy);
		make_meta(&m);
		w = cdict_writer__new(path, &m, &o, err, sizeof(err));
		assert_non_null(w);
		assert_int_equal(cdict_writer__task(w, &t), 0);
		for (uint32_t i = 0; i < NL; i++) {
			struct pwz_vcpu_ledger l = ledger_i(i);

			assert_int_equal(cdict_writer__vcpu_ledger(w, &l), 0);
		}
		assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
		cdict_writer__free(w);
		pwz_meta_free(&m);
		assert_int_equal(read_all(path, &s, NULL, err), 0);
		assert_int_equal(s.nl, legacy ? 0 : NL);
		for (uint32_t i = 0; i < s.nl; i++) {
			struct pwz_vcpu_ledger want = ledger_i(i);

			assert_ledger_eq(&s.led[i], &want);
		}
		pwz_meta_free(&s.meta);
	}
}

/* A file of the META record and then the n bytes of recs (msgpack records): a cut file, whose
 * records are all delivered (fuzz_wrap.h). */
static void write_raw(const char *path, const void *recs, size_t n)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct pwz_meta m;

	make_meta(&m);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 2);
	msgpack_pack_uint32(&pk, CDICT_REC_META);
	assert_int_equal(cdict_pack_meta(&pk, &m), 0);
	msgpack_sbuffer_write(&sb, recs, n);
	fuzz_write_chunk_file(path, (const uint8_t *)sb.data, sb.size, false);
	msgpack_sbuffer_destroy(&sb);
	pwz_meta_free(&m);
}

/* VCPU_LEDGER arrays of another length: fewer states read as 0, more (a later version's, of
 * any type) and more elements are skipped, and the next record reads as written; a record
 * without the ready causes and co-stop (6 or 7 fields) reads them as 0. */
static void test_vcpu_ledger_lengths(void **state)
{
	static const unsigned char recs[] = {
		/* [11, 7, 5, 100, [10, 20, 30], []] */
		0x96, 0x0b, 0x07, 0x05, 0x64, 0x93, 0x0a, 0x14, 0x1e, 0x90,
		/* [11, 8, 0, 50, [1..8, 9, "x"], [1..8, 9], "later field"] */
		0x97, 0x0b, 0x08, 0x00, 0x32,
		0x9a, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0xa1, 'x',
		0x99, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
		0xab, 'l', 'a', 't', 'e', 'r', ' ', 'f', 'i', 'e', 'l', 'd',
		/* [11, 9, 0, 1, [1], [1]] */
		0x96, 0x0b, 0x09, 0x00, 0x01, 0x91, 0x01, 0x91, 0x01,
		/* [11, 10, 0, 2, [1], [1], [5..12], 4]: a cause past the known ones */
		0x98, 0x0b, 0x0a, 0x00, 0x02, 0x91, 0x01, 0x91, 0x01,
		0x98, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x04,
		/* [11, 11, 0, 2, [1], [1], [5..10], 4]: the six causes before irq */
		0x98, 0x0b, 0x0b, 0x00, 0x02, 0x91, 0x01, 0x91, 0x01,
		0x96, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x04,
	};
	char path[256], err[512];
	struct cdict_read_info info;
	static struct seen s;

	(void)state;
	snprintf(path, sizeof(path), "%s/lengths.cdict", dir);
	write_raw(path, recs, sizeof(recs));
	assert_int_equal(read_all(path, &s, &info, err), 0);
	assert_true(info.cut);
	assert_int_equal(s.nl, 5);
	assert_int_equal(s.led[0].tid, 7);
	assert_int_equal(s.led[0].since_ns, 5);
	assert_int_equal(s.led[0].alive_ns, 100);
	assert_int_equal(s.led[0].ns[PWZ_VCPU_EXIT_USER], 30);
	assert_int_equal(s.led[0].ns[PWZ_VCPU_HALT_POLL], 0);
	assert_int_equal(s.led[0].ns[PWZ_VCPU_UNSEEN], 0);
	assert_int_equal(s.led[0].count[PWZ_VCPU_GUEST], 0);
	for (int k = 0; k < PWZ_VCPU_STATES; k++) {
		assert_int_equal(s.led[1].ns[k], k + 1);
		assert_int_equal(s.led[1].count[k], k + 1);
	}
	assert_int_equal(s.led[2].tid, 9);
	assert_int_equal(s.led[2].ns[PWZ_VCPU_GUEST], 1);
	assert_int_equal(s.led[2].count[PWZ_VCPU_GUEST], 1);
	assert_int_equal(s.led[2].costop_ns, 0);
	assert_int_equal(s.led[2].cause_ns[PWZ_CAUSE_HOST], 0);
	for (int k = 0; k < PWZ_READY_CAUSES; k++)
		assert_int_equal(s.led[3].cause_ns[k], 5 + k);
	assert_int_equal(s.led[3].costop_ns, 4);
	assert_int_equal(s.led[4].cause_ns[PWZ_CAUSE_UNSEEN], 10);
	assert_int_equal(s.led[4].cause_ns[PWZ_CAUSE_IRQ], 0);
	assert_int_equal(s.led[4].costop_ns, 4);
	pwz_meta_free(&s.meta);
}

/* A malformed VCPU_LEDGER is an error that says what and where, and is not delivered. */
static void test_vcpu_ledger_malformed(void **state)
{
	static const struct {
		unsigned char rec[16];
		size_t len;
		const char *says;
	} bad[] = {
		/* too short: [11, 7, 0, 100, [1]] */
		{ { 0x95, 0x0b, 0x07, 0x00, 0x64, 0x91, 0x01 }, 7, "too few fields" },
		/* the states a string: [11, 7, 0, 100, "ab", []] */
		{ { 0x96, 0x0b, 0x07, 0x00, 0x64, 0xa2, 'a', 'b', 0x90 }, 9, "corrupt chunk" },
		/* a negative time: [11, 7, 0, 100, [-1], []] */
		{ { 0x96, 0x0b, 0x07, 0x00, 0x64, 0x91, 0xff, 0x90 }, 8, "negative" },
		/* a tid of another type: [11, nil, 0, 100, [], []] */
		{ { 0x96, 0x0b, 0xc0, 0x00, 0x64, 0x90, 0x90 }, 7, "corrupt chunk" },
		/* an array longer than the record: [11, 7, 0, 100, [200 elements...] */
		{ { 0x96, 0x0b, 0x07, 0x00, 0x64, 0xdc, 0x00, 0xc8, 0x01 }, 9, "corrupt chunk" },
	};
	char path[256], err[512];
	static struct seen s;

	(void)state;
	snprintf(path, sizeof(path), "%s/malformed.cdict", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		write_raw(path, bad[i].rec, bad[i].len);
		assert_int_equal(read_all(path, &s, NULL, err), -EINVAL);
		if (!strstr(err, bad[i].says))
			fail_msg("record %zu: \"%s\" does not say %s", i, err, bad[i].says);
		assert_non_null(strstr(err, "offset"));
		assert_int_equal(s.nl, 0);
		pwz_meta_free(&s.meta);
	}
}

/* The head of a TASK record of n elements: [2, tid, 20, tid, comm, "p", "n", ...]. */
static void pack_task_head(msgpack_packer *pk, uint32_t n, uint32_t tid, const char *comm)
{
	msgpack_pack_array(pk, n);
	msgpack_pack_uint8(pk, CDICT_REC_TASK);
	msgpack_pack_uint32(pk, tid);
	msgpack_pack_uint32(pk, 20);
	msgpack_pack_uint64(pk, tid);
	msgpack_pack_str_with_body(pk, comm, strlen(comm));
	msgpack_pack_str_with_body(pk, "p", 1);
	msgpack_pack_str_with_body(pk, "n", 1);
}

/* The TASK record's cgroup (element 9): written when known, after flags (then written even
 * when 0); read back as written, cut to PWZ_CGROUP_MAX - 1 bytes; "" from a record without
 * it; a later element after it skipped, the next record read as written. */
static void test_task_cgroup(void **state)
{
	static const char scope[] = "/machine.slice/machine-qemu\\x2d3\\x2dmy\\x2dvm.scope/libvirt/emulator";
	struct cdict_writer_opts o = { .chunk_bytes = 256 };
	const struct pwz_task in[] = {
		{ .tid = 11, .tgid = 10, .time_ns = 5, .comm = "CPU 0/KVM", .name = "my-vm.vcpu0" },
		{ .tid = 12, .tgid = 10, .time_ns = 6, .flags = PWZ_TASK_BORN, .comm = "worker" },
		{ .tid = 13, .tgid = 13, .time_ns = 7, .comm = "bash" },
	};
	char path[256], err[512], longpath[400];
	struct cdict_writer *w;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct pwz_meta m;
	static struct seen s;
	struct pwz_task t;

	(void)state;
	snprintf(path, sizeof(path), "%s/cgroup.cdict", dir);
	make_meta(&m);
	w = cdict_writer__new(path, &m, &o, err, sizeof(err));
	assert_non_null(w);
	for (size_t i = 0; i < 3; i++) {
		t = in[i];
		if (i < 2)
			snprintf(t.cgroup, sizeof(t.cgroup), "%s", scope);
		assert_int_equal(cdict_writer__task(w, &t), 0);
	}
	assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
	cdict_writer__free(w);
	pwz_meta_free(&m);
	assert_int_equal(read_all(path, &s, NULL, err), 0);
	assert_int_equal(s.nt, 3);
	assert_string_equal(s.tasks[0].cgroup, scope);
	assert_int_equal(s.tasks[0].flags, 0);
	assert_string_equal(s.tasks[0].name, "my-vm.vcpu0");
	assert_string_equal(s.tasks[1].cgroup, scope);
	assert_int_equal(s.tasks[1].flags, PWZ_TASK_BORN);
	assert_int_equal(s.tasks[1].since_ns, 6);
	assert_string_equal(s.tasks[2].cgroup, "");
	assert_string_equal(s.tasks[2].comm, "bash");
	pwz_meta_free(&s.meta);

	/* records as a file without the element has them, and as a later version may */
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	pack_task_head(&pk, 7, 21, "a");	/* [2, 21, 20, 21, "a", "p", "n"] */
	pack_task_head(&pk, 10, 22, "b");	/* ..., born, scope, "later"] */
	msgpack_pack_uint32(&pk, PWZ_TASK_BORN);
	msgpack_pack_bin_with_body(&pk, scope, strlen(scope));
	msgpack_pack_str_with_body(&pk, "later", 5);
	pack_task_head(&pk, 9, 23, "c");	/* ..., 0, "/aaa..."] */
	msgpack_pack_uint32(&pk, 0);
	msgpack_pack_bin_with_body(&pk, longpath, strlen(longpath));
	snprintf(path, sizeof(path), "%s/cgroup-raw.cdict", dir);
	write_raw(path, sb.data, sb.size);
	msgpack_sbuffer_destroy(&sb);
	assert_int_equal(read_all(path, &s, NULL, err), 0);
	assert_int_equal(s.nt, 3);
	assert_int_equal(s.tasks[0].tid, 21);
	assert_string_equal(s.tasks[0].cgroup, "");
	assert_int_equal(s.tasks[1].tid, 22);
	assert_string_equal(s.tasks[1].cgroup, scope);
	assert_int_equal(s.tasks[1].flags, PWZ_TASK_BORN);
	assert_int_equal(s.tasks[2].tid, 23);
	assert_int_equal(strlen(s.tasks[2].cgroup), PWZ_CGROUP_MAX - 1);
	assert_memory_equal(s.tasks[2].cgroup, longpath, PWZ_CGROUP_MAX - 1);
	assert_string_equal(s.tasks[2].comm, "c");
	pwz_meta_free(&s.meta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_trigger_meta),
		cmocka_unit_test(test_optional_fields),
		cmocka_unit_test(test_task_cgroup),
		cmocka_unit_test(test_cut_at_every_chunk),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_writer_errors),
		cmocka_unit_test(test_keep_partial),
		cmocka_unit_test(test_write_error_keeps_chunks),
		cmocka_unit_test(test_file_mode),
		cmocka_unit_test(test_resolve_path),
		cmocka_unit_test(test_vcpu_ledger_round_trip),
		cmocka_unit_test(test_vcpu_ledger_lengths),
		cmocka_unit_test(test_vcpu_ledger_malformed),
	};

	return RUN_IN_TMPDIR(tests, dir);
}
