// SPDX-License-Identifier: GPL-2.0
/* The Perfetto export of a small capture, decoded here and held against values worked out by hand. */
#define _GNU_SOURCE	/* memmem */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "cdict.h"
#include "perfetto.h"
#include "tasksel.h"

static char dir[] = "/tmp/pwz-test-perfetto-XXXXXX";

/* ---- a minimal protobuf reader for the test ---- */

struct rd {
	const uint8_t *p, *end;
};

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;
	int shift = 0;

	while (r->p < r->end) {
		uint8_t b = *r->p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
	}
	fail_msg("varint runs past the end");
	return 0;
}

/* Next field of r: its number, wire type, varint value or sub-reader. false at the end. */
static bool rd_field(struct rd *r, uint32_t *field, uint64_t *v, struct rd *sub)
{
	uint64_t key;

	if (r->p >= r->end)
		return false;
	key = rd_varint(r);
	*field = (uint32_t)(key >> 3);
	switch (key & 7) {
	case 0:
		*v = rd_varint(r);
		sub->p = sub->end = NULL;
		return true;
	case 2:
		*v = rd_varint(r);
		assert_true(*v <= (uint64_t)(r->end - r->p));
		sub->p = r->p;
		sub->end = r->p + *v;
		r->p += *v;
		return true;
	default:
		fail_msg("unexpected wire type %u", (unsigned)(key & 7));
		return false;
	}
}

/* The compact switch columns of one CPU, timestamps made absolute, names resolved. */
struct cpu_switches {
	uint64_t ts[32];
	int64_t state[32];
	uint32_t pid[32];
	char comm[32][32];
	size_t n;
	uint64_t waking_ts[8];
	uint32_t waking_pid[8], waking_cpu[8];
	size_t nw;
};

static void read_packed(struct rd sub, uint64_t *out, size_t *n)
{
	*n = 0;
	while (sub.p < sub.end)
		out[(*n)++] = rd_varint(&sub);
}

static void read_bundle(struct rd b, struct cpu_switches *cpus, size_t ncpus)
{
	uint64_t cols[7][32] = { { 0 } }, v;
	size_t ncol[7] = { 0 };
	char intern[16][32];
	size_t nintern = 0;
	uint32_t f, cpu = 0;
	struct rd sub, cs, ev, w;
	struct cpu_switches *c;
	uint64_t ev_ts[8], ev_pid[8], ev_cpu[8];
	size_t nev = 0;

	while (rd_field(&b, &f, &v, &sub)) {
		if (f == 1)
			cpu = (uint32_t)v;
		if (f == 2) {	/* FtraceEvent */
			while (rd_field(&sub, &f, &v, &ev)) {
				if (f == 1)
					ev_ts[nev] = v;
				if (f == 20) {
					while (rd_field(&ev, &f, &v, &w)) {
						if (f == 2)
							ev_pid[nev] = v;
						if (f == 5)
							ev_cpu[nev] = v;
					}
				}
			}
			nev++;
		}
		if (f != 4)
			continue;
		while (rd_field(&sub, &f, &v, &cs)) {
			if (f == 5) {
				snprintf(intern[nintern++], 32, "%.*s", (int)v, (const char *)cs.p);
			} else if (f >= 1 && f <= 6) {
				read_packed(cs, cols[f], &ncol[f]);
			}
		}
	}
	assert_true(cpu < ncpus);
	c = &cpus[cpu];
	for (size_t i = 0; i < nev; i++) {
		c->waking_ts[c->nw] = ev_ts[i];
		c->waking_pid[c->nw] = (uint32_t)ev_pid[i];
		c->waking_cpu[c->nw++] = (uint32_t)ev_cpu[i];
	}
	for (size_t i = 0; i < ncol[1]; i++) {
		c->ts[c->n] = i ? c->ts[c->n - 1] + cols[1][i] : cols[1][i];
		c->state[c->n] = (int64_t)cols[2][i];
		c->pid[c->n] = (uint32_t)cols[3][i];
		assert_int_equal(cols[4][i], 120);
		assert_true(cols[6][i] < nintern);
		snprintf(c->comm[c->n], 32, "%s", intern[cols[6][i]]);
		c->n++;
	}
}

struct decoded {
	struct cpu_switches cpu[2];
	char release[64];
	char names[8][2][32];	/* ProcessTree (tid, name) in file order */
	uint32_t name_tid[8];
	uint64_t name_ts[8];
	size_t nnames;
	int begins, ends;		/* exit slices: the events on their sequence's track */
	uint64_t begin_ts[4], end_ts[4];
	int state_begins, state_ends;	/* vCPU state slices: the events naming their track */
	char exit_name[32];
	uint64_t bytes;			/* the trace's size */
	const uint8_t *raw;		/* its bytes */
};

/*
 * A packet's timestamp in trace time: on its timestamp_clock_id, else its sequence's default
 * (TracePacketDefaults), else BOOTTIME; the sequence clock 64 is incremental from the value
 * its ClockSnapshot gave it, which equals BOOTTIME there (as the exporter writes it).
 */
struct seq_clock {
	uint32_t def_clock;		/* TracePacketDefaults.timestamp_clock_id */
	uint64_t inc;			/* clock 64's last value */
};

static void read_clocks(struct rd pkt, struct seq_clock *sc, uint32_t *seq, uint64_t *ts,
			uint32_t *clock, bool *has_ts)
{
	struct rd sub, s2, s3;
	uint32_t fn, f2;
	uint64_t v;

	*seq = *clock = 0;
	*has_ts = false;
	while (rd_field(&pkt, &fn, &v, &sub)) {
		if (fn == 8) {
			*ts = v;
			*has_ts = true;
		}
		if (fn == 10)
			*seq = (uint32_t)v;
		if (fn == 58)
			*clock = (uint32_t)v;
		if (fn == 59)	/* TracePacketDefaults.timestamp_clock_id */
			while (rd_field(&sub, &f2, &v, &s2))
				if (f2 == 58)
					sc[*seq < 8 ? *seq : 0].def_clock = (uint32_t)v;
		if (fn == 6) {	/* ClockSnapshot.clocks */
			while (rd_field(&sub, &f2, &v, &s2)) {
				uint64_t id = 0, cts = 0, inc = 0;

				while (f2 == 1 && rd_field(&s2, &fn, &v, &s3)) {
					if (fn == 1)
						id = v;
					if (fn == 2)
						cts = v;
					if (fn == 3)
						inc = v;
				}
				if (id == 64) {
					assert_int_equal(inc, 1);
					sc[*seq < 8 ? *seq : 0].inc = cts;
				}
			}
			fn = 6;
		}
	}
	assert_true(*seq < 8);
	if (!*clock)
		*clock = sc[*seq].def_clock;
	if (*has_ts && *clock == 64) {
		sc[*seq].inc += *ts;
		*ts = sc[*seq].inc;
	} else if (*has_ts) {
		assert_true(*clock == 0 || *clock == 6);
	}
}

static void decode(const char *path, struct decoded *d)
{
	FILE *f = fopen(path, "rb");
	static uint8_t buf[1 << 16];
	struct seq_clock sc[8] = { { 0 } };
	struct rd r, pkt, sub, s2, s3;
	uint32_t fn;
	uint64_t v;
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	memset(d, 0, sizeof(*d));
	d->bytes = n;
	d->raw = buf;
	r.p = buf;
	r.end = buf + n;
	while (rd_field(&r, &fn, &v, &pkt)) {
		uint64_t ts = 0;
		uint32_t seq, clock;
		bool has_ts;

		assert_int_equal(fn, 1);
		read_clocks(pkt, sc, &seq, &ts, &clock, &has_ts);
		while (rd_field(&pkt, &fn, &v, &sub)) {
			if (fn == 1)
				read_bundle(sub, d->cpu, 2);
			if (fn == 45) {	/* SystemInfo.utsname.release */
				uint32_t f2;

				while (rd_field(&sub, &f2, &v, &s2))
					while (f2 == 1 && rd_field(&s2, &fn, &v, &s3))
						if (fn == 3)
							snprintf(d->release, sizeof(d->release), "%.*s",
								 (int)v, (const char *)s3.p);
				fn = 45;
			}
			if (fn == 2) {	/* ProcessTree.threads */
				while (rd_field(&sub, &fn, &v, &s2)) {
					if (fn != 2)
						continue;
					while (rd_field(&s2, &fn, &v, &s3)) {
						if (fn == 1)
							d->name_tid[d->nnames] = (uint32_t)v;
						if (fn == 2)
							snprintf(d->names[d->nnames][0], 32, "%.*s", (int)v,
								 (const char *)s3.p);
					}
					d->name_ts[d->nnames++] = ts;
				}
			}
			if (fn == 11) {	/* TrackEvent */
				uint64_t type = 0;
				bool uuid = false;

				while (rd_field(&sub, &fn, &v, &s2)) {
					type = fn == 9 ? v : type;
					uuid |= fn == 11;
				}
				if (uuid) {
					d->state_begins += type == 1;
					d->state_ends += type == 2;
				} else if (type == 1 && d->begins < 4) {
					d->begin_ts[d->begins++] = ts;
				} else if (type == 2 && d->ends < 4) {
					d->end_ts[d->ends++] = ts;
				}
				fn = 11;
			}
			if (fn == 12) {	/* InternedData.event_names */
				uint32_t f2;

				while (rd_field(&sub, &f2, &v, &s2))
					while (f2 == 2 && !d->exit_name[0] &&
					       rd_field(&s2, &fn, &v, &s3))
						if (fn == 2)
							snprintf(d->exit_name, 32, "%.*s", (int)v,
								 (const char *)s3.p);
			}
		}
	}
}

/* ---- the capture ---- */

#define BASE 1000000	/* start_mono_ns */

/* The exits of tid 10 (a vCPU) in the capture, in file order. */
static const struct pwz_kvm_exit exits_in_order[] = {
	{ .tid = 10, .time_ns = 120, .isa = PWZ_ISA_VMX, .reason = 12, .guest_ns = 5,
	  .handling_ns = 20 },
	{ .tid = 10, .time_ns = 410, .isa = PWZ_ISA_VMX, .reason = 12, .guest_ns = 260,
	  .handling_ns = 10 },
};

static void write_capture(const char *path, const struct pwz_kvm_exit *ex, size_t nex)
{
	struct pwz_meta m = { .source = PWZ_SOURCE_SYNTHETIC, .nr_cpus = 2, .clock_id = 1,
			      .start_mono_ns = BASE, .duration_ns = 1000, .has_switch_kind = true,
			      .has_wait = true, .has_kvm = true };
	struct pwz_task a = { .tid = 10, .tgid = 10, .comm = "a", .name = "a" };
	struct pwz_task b = { .tid = 11, .tgid = 10, .comm = "b", .name = "b" };
	struct pwz_task b2 = { .tid = 11, .tgid = 10, .time_ns = 500, .comm = "b2", .name = "b2" };
	const struct pwz_slice sl[] = {
		{ .tid = 10, .cpu = 0, .start_ns = 100, .dur_ns = 100, .end = PWZ_END_PREEMPTED },
		{ .tid = 11, .cpu = 0, .start_ns = 200, .dur_ns = 100, .end = PWZ_END_SLEPT },
		{ .tid = 10, .cpu = 0, .start_ns = 400, .dur_ns = 50, .end = PWZ_END_EXITED },
		{ .tid = 11, .cpu = 1, .start_ns = 0, .dur_ns = 1000, .end = PWZ_END_OPEN },
	};
	struct pwz_wakeup wk = { .tid = 11, .cpu = 0, .wake_ns = 150, .wait_ns = 50 };
	struct cdict_writer *w;
	char err[256];

	pwz_meta_set_str(&m.kernel, "6.1.0-test");
	pwz_meta_add_exit_name(&m, PWZ_ISA_VMX, 12, "HLT");
	w = cdict_writer__new(path, &m, NULL, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(cdict_writer__task(w, &a), 0);
	assert_int_equal(cdict_writer__task(w, &b), 0);
	for (size_t i = 0; i < sizeof(sl) / sizeof(sl[0]); i++)
		assert_int_equal(cdict_writer__slice(w, &sl[i]), 0);
	assert_int_equal(cdict_writer__wakeup(w, &wk), 0);
	for (size_t i = 0; i < nex; i++)
		assert_int_equal(cdict_writer__kvm_exit(w, &ex[i]), 0);
	assert_int_equal(cdict_writer__task(w, &b2), 0);
	assert_int_equal(cdict_writer__finish(w, &m, err, sizeof(err)), 0);
	cdict_writer__free(w);
	pwz_meta_free(&m);
}

static void test_switch_stream(void **state)
{
	struct perfetto_opts o = { 0 };
	struct perfetto_stats st;
	char in[128], out[160], err[512];
	static struct decoded d;
	struct cpu_switches *c0 = &d.cpu[0], *c1 = &d.cpu[1];

	(void)state;
	snprintf(in, sizeof(in), "%s/small.cdict", dir);
	snprintf(out, sizeof(out), "%s/small.pftrace", dir);
	write_capture(in, exits_in_order, 2);
	assert_int_equal(perfetto_export(in, out, &o, &st, err, sizeof(err)), 0);
	decode(out, &d);
	assert_string_equal(d.release, "6.1.0-test");

	/* CPU 0: idle first switch at 0; 10 in at 100; preempted (R+) by 11 at 200; 11 sleeps at
	 * 300 (gap: idle); 10 in at 400; 10 exits (X) at 450 */
	assert_int_equal(c0->n, 6);
	const uint64_t ts0[] = { 0, 100, 200, 300, 400, 450 };
	const int64_t st0[] = { 0, 0, 0x100, 1, 0, 0x10 };
	const uint32_t pid0[] = { 0, 10, 11, 0, 10, 0 };
	const char *comm0[] = { "swapper/0", "a", "b", "swapper/0", "a", "swapper/0" };
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(c0->ts[i], BASE + ts0[i]);
		assert_int_equal(c0->state[i], st0[i]);
		assert_int_equal(c0->pid[i], pid0[i]);
		assert_string_equal(c0->comm[i], comm0[i]);
	}
	/* CPU 1: 11 runs from the start to the end (open): switched out with R at the end; its
	 * name at 0 is b (the rename to b2 is at 500) */
	assert_int_equal(c1->n, 3);
	assert_int_equal(c1->ts[1], BASE);
	assert_int_equal(c1->pid[1], 11);
	assert_string_equal(c1->comm[1], "b");
	assert_int_equal(c1->ts[2], BASE + 1000);
	assert_int_equal(c1->state[2], 0);
	assert_int_equal(c1->pid[2], 0);
	/* the wakeup: on the CPU it ran on, at its time */
	assert_int_equal(c0->nw, 1);
	assert_int_equal(c0->waking_ts[0], BASE + 150);
	assert_int_equal(c0->waking_pid[0], 11);
	assert_int_equal(c0->waking_cpu[0], 0);
	/* names: a and b at the start, b2 at 500 */
	assert_int_equal(d.nnames, 3);
	assert_int_equal(d.name_tid[2], 11);
	assert_string_equal(d.names[2][0], "b2");
	assert_int_equal(d.name_ts[2], BASE + 500);
	/* the exits: HLT from 120 to 140 and from 410 to 420 */
	assert_int_equal(d.begins, 2);
	assert_int_equal(d.ends, 2);
	assert_int_equal(d.begin_ts[0], BASE + 120);
	assert_int_equal(d.end_ts[0], BASE + 140);
	assert_int_equal(d.begin_ts[1], BASE + 410);
	assert_int_equal(d.end_ts[1], BASE + 420);
	assert_string_equal(d.exit_name, "HLT");
	/* the vCPU's state track: slices that open and close in pairs */
	assert_true(d.state_begins > 0);
	assert_int_equal(d.state_begins, d.state_ends);
	/* their packets, worked out by hand: on the vCPU's sequence 2, timestamps are deltas on
	 * its incremental clock (the first exit, at the clock's start, is 0), the track is the
	 * defaults' one, the name is iid 1 (interned with the first exit), code 12, guest_ns 260;
	 * every one flagged SEQ_NEEDS_INCREMENTAL_STATE */
	static const uint8_t end1[] = { 0x0a, 0x0a, 0x40, 20, 0x50, 2, 0x68, 2, 0x5a, 2, 0x48, 2 };
	static const uint8_t begin2[] = {
		0x0a, 0x1a, 0x40, 0x8e, 0x02,	/* packet; timestamp: 410 - 140 = 270 */
		0x50, 2, 0x68, 2,		/* sequence 2; SEQ_NEEDS_INCREMENTAL_STATE */
		0x5a, 0x11, 0x48, 1, 0x50, 1,	/* track event: SLICE_BEGIN, name_iid 1 */
		0x22, 4, 0x08, 1, 0x18, 12,	/* annotation iid 1 (code): 12 */
		0x22, 5, 0x08, 2, 0x18, 0x84, 0x02,	/* annotation iid 2 (guest_ns): 260 */
	};
	static const uint8_t end2[] = { 0x0a, 0x0a, 0x40, 10, 0x50, 2, 0x68, 2, 0x5a, 2, 0x48, 2 };
	assert_non_null(memmem(d.raw, d.bytes, end1, sizeof(end1)));
	assert_non_null(memmem(d.raw, d.bytes, begin2, sizeof(begin2)));
	assert_non_null(memmem(d.raw, d.bytes, end2, sizeof(end2)));
	assert_int_equal(st.switches, 9);
	assert_int_equal(st.first_switches, 2);
	assert_int_equal(st.wakings, 1);
	assert_int_equal(st.exits, 2);
	assert_int_equal(st.renames, 1);
	assert_int_equal(st.overlaps, 0);
}

/* A window [250, 420): 11 (running since 200) is cut at 250, 10 at 420 with R. */
static void test_window(void **state)
{
	struct perfetto_opts o = { .from_ns = 250, .cap_ns = 420 };
	char in[128], out[160], err[512];
	static struct decoded d;
	struct cpu_switches *c0 = &d.cpu[0];

	(void)state;
	snprintf(in, sizeof(in), "%s/small.cdict", dir);
	snprintf(out, sizeof(out), "%s/window.pftrace", dir);
	assert_int_equal(perfetto_export(in, out, &o, NULL, err, sizeof(err)), 0);
	decode(out, &d);
	assert_int_equal(c0->n, 5);
	const uint64_t ts0[] = { 250, 250, 300, 400, 420 };
	const int64_t st0[] = { 0, 0, 1, 0, 0 };
	const uint32_t pid0[] = { 0, 11, 0, 10, 0 };
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(c0->ts[i], BASE + ts0[i]);
		assert_int_equal(c0->state[i], st0[i]);
		assert_int_equal(c0->pid[i], pid0[i]);
	}
	assert_int_equal(c0->nw, 0);		/* the wakeup at 150 is outside */
	assert_int_equal(d.begins, 1);		/* so is the exit at 120, not the one at 410 */
	assert_int_equal(d.begin_ts[0], BASE + 410);
	assert_int_equal(d.end_ts[0], BASE + 420);
}

/* The selection of pattern in the capture at path (loaded into *t, which it refers to). */
static struct tasksel *select_in(const char *path, const char *pattern, struct trace **t,
				 struct task_patterns **p)
{
	char err[256];

	*t = trace__load(path, NULL, err, sizeof(err));
	*p = task_patterns__new(&pattern, 1, err, sizeof(err));
	assert_non_null(*t);
	assert_non_null(*p);
	return tasksel__new(*p, NULL, *t);
}

/* -t keeps every switch but only the matching tasks' wakeups and exits. */
static void test_pattern(void **state)
{
	struct perfetto_opts o = { 0 };
	char in[128], out[160], err[512];
	struct perfetto_stats st;
	static struct decoded d;
	struct task_patterns *p;
	struct tasksel *sel;
	struct trace *t;

	(void)state;
	snprintf(in, sizeof(in), "%s/small.cdict", dir);
	snprintf(out, sizeof(out), "%s/t.pftrace", dir);
	o.sel = sel = select_in(in, "a", &t, &p);
	assert_int_equal(perfetto_export(in, out, &o, &st, err, sizeof(err)), 0);
	decode(out, &d);
	assert_int_equal(d.cpu[0].n + d.cpu[1].n, 9);
	assert_int_equal(d.cpu[0].nw, 0);	/* 11's wakeup is dropped */
	assert_int_equal(d.begins, 2);		/* 10's exits are kept */
	tasksel__free(sel);
	task_patterns__free(p);
	trace__free(t);
	o.sel = sel = select_in(in, "b*", &t, &p);
	assert_int_equal(perfetto_export(in, out, &o, &st, err, sizeof(err)), 0);
	decode(out, &d);
	assert_int_equal(d.cpu[0].nw, 1);
	assert_int_equal(d.begins, 0);
	tasksel__free(sel);
	task_patterns__free(p);
	trace__free(t);
}

/*
 * Exits read out of order (the later one first): the earlier one's packets would go back on
 * the sequence's incremental clock, so they are written absolute, on BOOTTIME, and the clock
 * stays where the later exit left it.
 */
static void test_exits_out_of_order(void **state)
{
	const struct pwz_kvm_exit rev[] = { exits_in_order[1], exits_in_order[0] };
	struct perfetto_opts o = { 0 };
	char in[128], out[160], err[512];
	static struct decoded d;

	(void)state;
	snprintf(in, sizeof(in), "%s/rev.cdict", dir);
	snprintf(out, sizeof(out), "%s/rev.pftrace", dir);
	write_capture(in, rev, 2);
	assert_int_equal(perfetto_export(in, out, &o, NULL, err, sizeof(err)), 0);
	decode(out, &d);
	assert_int_equal(d.begins, 2);
	assert_int_equal(d.ends, 2);
	assert_int_equal(d.begin_ts[0], BASE + 410);
	assert_int_equal(d.end_ts[0], BASE + 420);
	assert_int_equal(d.begin_ts[1], BASE + 120);
	assert_int_equal(d.end_ts[1], BASE + 140);
	/* the end at 140: timestamp BASE + 140 = 1000140 (0xcc 0x85 0x3d), clock 6 (BOOTTIME) */
	static const uint8_t end[] = { 0x0a, 0x0f, 0x40, 0xcc, 0x85, 0x3d, 0xd0, 0x03, 6,
				       0x50, 2, 0x68, 2, 0x5a, 2, 0x48, 2 };
	assert_non_null(memmem(d.raw, d.bytes, end, sizeof(end)));
}

static void test_errors_and_names(void **state)
{
	struct perfetto_opts o = { 0 };
	char out[256], err[512];

	(void)state;
	assert_int_equal(perfetto_export("/nonexistent/x.cdict", "/tmp/pwz-never.pftrace", &o, NULL,
					 err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.cdict"));
	assert_int_equal(access("/tmp/pwz-never.pftrace.part", F_OK), -1);
	o.from_ns = 5000;
	snprintf(out, sizeof(out), "%s/small.cdict", dir);
	assert_int_equal(perfetto_export(out, "/tmp/pwz-never.pftrace", &o, NULL, err, sizeof(err)),
			 -EINVAL);
	perfetto_output_path("runs/test.cdict", NULL, false, out, sizeof(out));
	assert_string_equal(out, "runs/test.pftrace");
	perfetto_output_path("test", NULL, true, out, sizeof(out));
	assert_string_equal(out, "test.pftrace.gz");
	perfetto_output_path("/a/b/run.x.cdict", "out", false, out, sizeof(out));
	assert_string_equal(out, "out/run.x.pftrace");
	/* a killed capture's temporary is named after the capture, as its dashboards are */
	perfetto_output_path("k9/k9.cdict.L4cmxv.part", NULL, false, out, sizeof(out));
	assert_string_equal(out, "k9/k9.pftrace");
	assert_int_equal(perfetto_prev_state(PWZ_END_PREEMPTED), 0x100);
	assert_int_equal(perfetto_prev_state(PWZ_END_SLEPT), 1);
	assert_int_equal(perfetto_prev_state(PWZ_END_EXITED), 0x10);
	assert_int_equal(perfetto_prev_state(PWZ_END_OPEN), 0);
	assert_int_equal(perfetto_prev_state(PWZ_END_UNKNOWN), 1);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_stream),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_exits_out_of_order),
		cmocka_unit_test(test_errors_and_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
