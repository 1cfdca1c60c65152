// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the dashboards' data: escaping, encoding, window clipping, diff, successors, legacy. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>
#include "dash.h"
#include "diff.h"
#include "json.h"
#include "sleeps.h"
#include "successors.h"
#include "summary.h"
#include "tasksel.h"
#include "truth.h"

#define MS 1000000ULL

/* ---- escaping ---- */

static char *json_of(const char *s, size_t n)
{
	static struct jbuf b;

	jbuf_free(&b);
	jbuf_json_str(&b, s, n);
	assert_int_equal(b.err, 0);
	return b.buf;
}

static void test_json_escapes_script_context(void **state)
{
	(void)state;
	/* nothing that could end or alter a <script> element survives */
	assert_string_equal(json_of("</script><b>", (size_t)-1),
			    "\"\\u003c/script\\u003e\\u003cb\\u003e\"");
	assert_string_equal(json_of("a\"b\\c", (size_t)-1), "\"a\\\"b\\\\c\"");
	assert_string_equal(json_of("<!--x&y", (size_t)-1), "\"\\u003c!--x\\u0026y\"");
	assert_string_equal(json_of("t\tn\nr\r\x01\x7f", (size_t)-1),
			    "\"t\\tn\\nr\\r\\u0001\\u007f\"");
	/* U+2028 and U+2029 are line ends in older JS parsers */
	assert_string_equal(json_of("a\xe2\x80\xa8" "b\xe2\x80\xa9", (size_t)-1),
			    "\"a\\u2028b\\u2029\"");
	assert_null(strstr(json_of("x</script>y</SCRIPT>", (size_t)-1), "</"));
}

static void test_json_invalid_utf8(void **state)
{
	(void)state;
	/* valid multibyte kept as is */
	assert_string_equal(json_of("caf\xc3\xa9 \xf0\x9f\x98\x80", (size_t)-1),
			    "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
	/* stray bytes, truncated sequence, overlong form, surrogate, > U+10FFFF */
	assert_string_equal(json_of("a\xff" "b", (size_t)-1), "\"a\\ufffdb\"");
	assert_string_equal(json_of("x\xc3", (size_t)-1), "\"x\\ufffd\"");
	assert_string_equal(json_of("\xc0\xaf", (size_t)-1), "\"\\ufffd\\ufffd\"");
	assert_string_equal(json_of("\xed\xa0\x80", (size_t)-1), "\"\\ufffd\\ufffd\\ufffd\"");
	assert_string_equal(json_of("\xf4\x90\x80\x80", (size_t)-1),
			    "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	/* an embedded NUL with an explicit length */
	assert_string_equal(json_of("a\0b", 3), "\"a\\u0000b\"");
}

static void test_html_text(void **state)
{
	struct jbuf b = { 0 };

	(void)state;
	jbuf_html_text(&b, "<img src=x onerror='a'>&\"\xff\x02ok");
	assert_string_equal(b.buf, "&lt;img src=x onerror=&#39;a&#39;&gt;&amp;&quot;\xef\xbf\xbdok");
	jbuf_free(&b);
}

static void test_numbers(void **state)
{
	struct jbuf b = { 0 };

	(void)state;
	jbuf_u64(&b, 18446744073709551615ULL);
	jbuf_add(&b, ",", 1);
	jbuf_i64(&b, -42);
	jbuf_add(&b, ",", 1);
	jbuf_double(&b, 12.5);
	jbuf_add(&b, ",", 1);
	jbuf_double(&b, 0.0 / 0.0);
	jbuf_add(&b, ",", 1);
	jbuf_double(&b, 3.0);
	assert_string_equal(b.buf, "18446744073709551615,-42,12.5,0,3");
	jbuf_free(&b);
}

static void test_base64(void **state)
{
	static const char *const in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const out[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
					   "Zm9vYmFy" };
	size_t i;

	(void)state;
	for (i = 0; i < 7; i++) {
		struct jbuf b = { 0 };

		jbuf_base64(&b, in[i], strlen(in[i]));
		assert_string_equal(b.buf ? b.buf : "", out[i]);
		jbuf_free(&b);
	}
}

static void test_gzip_roundtrip(void **state)
{
	struct jbuf z = { 0 };
	size_t n = 3 << 20, i;
	char *src = malloc(n), *back = malloc(n + 16);
	z_stream zs = { 0 };

	(void)state;
	assert_non_null(src);
	assert_non_null(back);
	for (i = 0; i < n; i++)
		src[i] = (char)("pwz-render "[i % 11] + (i / 4096) % 3);
	assert_int_equal(jbuf_gzip(&z, src, n), 0);
	assert_true(z.len > 18 && z.len < n);
	assert_int_equal((unsigned char)z.buf[0], 0x1f);	/* gzip magic */
	assert_int_equal((unsigned char)z.buf[1], 0x8b);
	assert_int_equal(inflateInit2(&zs, 16 + 15), Z_OK);
	zs.next_in = (Bytef *)z.buf;
	zs.avail_in = (uInt)z.len;
	zs.next_out = (Bytef *)back;
	zs.avail_out = (uInt)(n + 16);
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.total_out, n);
	assert_memory_equal(src, back, n);
	inflateEnd(&zs);
	jbuf_free(&z);
	free(src);
	free(back);
}

/* ---- a hand-built capture ---- */

/*
 * Two CPUs, three tasks over 100 ms:
 *   cpu0: A [0,10) slept, B [10,30) preempted, A [30,50) preempted, C [50,60) slept,
 *         A [70,90) slept
 *   cpu1: B [0,40) slept, C [40,100) open
 * KVM exits of A: reason 12 at 5 and 35 ms, reason 48 at 80 ms.
 */
static struct pwz_task tasks[] = {
	{ .tid = 10, .tgid = 10, .comm = "A", .name = "vm.vcpu0" },
	{ .tid = 11, .tgid = 10, .comm = "B", .name = "</script><img src=x>" },
	{ .tid = 12, .tgid = 12, .comm = "C", .name = "swapper/1" },
};
static struct pwz_slice slices[] = {
	{ .tid = 10, .cpu = 0, .start_ns = 0, .dur_ns = 10 * MS, .end = PWZ_END_SLEPT },
	{ .tid = 11, .cpu = 0, .start_ns = 10 * MS, .dur_ns = 20 * MS, .end = PWZ_END_PREEMPTED },
	{ .tid = 10, .cpu = 0, .start_ns = 30 * MS, .dur_ns = 20 * MS, .end = PWZ_END_PREEMPTED },
	{ .tid = 12, .cpu = 0, .start_ns = 50 * MS, .dur_ns = 10 * MS, .end = PWZ_END_SLEPT },
	{ .tid = 10, .cpu = 0, .start_ns = 70 * MS, .dur_ns = 20 * MS, .end = PWZ_END_SLEPT },
	{ .tid = 11, .cpu = 1, .start_ns = 0, .dur_ns = 40 * MS, .end = PWZ_END_SLEPT },
	{ .tid = 12, .cpu = 1, .start_ns = 40 * MS, .dur_ns = 60 * MS, .end = PWZ_END_OPEN },
};
static struct pwz_kvm_exit exits[] = {
	{ .tid = 10, .time_ns = 5 * MS, .isa = PWZ_ISA_VMX, .reason = 12, .guest_ns = 1000,
	  .handling_ns = 2000 },
	{ .tid = 10, .time_ns = 35 * MS, .isa = PWZ_ISA_VMX, .reason = 12, .guest_ns = 3000,
	  .handling_ns = 4000 },
	{ .tid = 10, .time_ns = 80 * MS, .isa = PWZ_ISA_VMX, .reason = 48, .guest_ns = 5000,
	  .handling_ns = 6000 },
};
static struct pwz_exit_name names[] = {
	{ .isa = PWZ_ISA_VMX, .code = 12, .name = "HLT" },
	{ .isa = PWZ_ISA_VMX, .code = 48, .name = "EPT_VIOLATION" },
};

/* A selection of one -t pattern in a trace, under a window's naming options. */
struct sel {
	struct task_patterns *p;
	struct tasksel *s;
};

static const struct tasksel *sel_of(struct sel *x, const struct trace *t, const char *pattern,
				    const struct summary_opts *w)
{
	struct task_label_opts lo = { .merge_sys = w && w->merge_sys,
				      .append_tid = w && w->append_tid };
	char err[128];

	x->p = task_patterns__new(&pattern, 1, err, sizeof(err));
	assert_non_null(x->p);
	x->s = tasksel__new(x->p, &lo, t);
	assert_non_null(x->s);
	return x->s;
}

static void sel_free(struct sel *x)
{
	tasksel__free(x->s);
	task_patterns__free(x->p);
}

static void hand_trace(struct trace *t, uint64_t duration)
{
	memset(t, 0, sizeof(*t));
	t->path = "hand.cdict";
	t->meta.source = PWZ_SOURCE_SYNTHETIC;
	t->meta.nr_cpus = 2;
	t->meta.duration_ns = duration;
	t->meta.has_switch_kind = true;
	t->meta.has_kvm = true;
	t->meta.nr_exit_names = 2;
	t->meta.exit_names = names;
	t->info.format = CDICT_FORMAT_V2;
	t->tasks = tasks;
	t->nr_tasks = 3;
	t->slices = slices;
	t->nr_slices = 7;
	t->exits = exits;
	t->nr_exits = 3;
}

static const struct task_summary *row(const struct summary *s, uint32_t tid)
{
	for (size_t i = 0; i < s->nr_tasks; i++)
		if (s->tasks[i].tid == tid)
			return &s->tasks[i];
	return NULL;
}

static void test_window_clipping(void **state)
{
	struct trace t;
	struct summary_opts w = { .from_ns = 20 * MS, .cap_ns = 60 * MS };
	struct summary *s;
	const struct task_summary *a, *b;
	char err[256];

	(void)state;
	hand_trace(&t, 100 * MS);
	s = summary__new(&t, &w, err, sizeof(err));
	assert_non_null(s);
	assert_false(s->from_aggregates);
	a = row(s, 10);
	b = row(s, 11);
	assert_non_null(a);
	assert_non_null(b);
	/* A ran [30,50) inside [20,60): 20 ms of 40 = 50 % */
	assert_int_equal(a->runtime_ns, 20 * MS);
	assert_true(summary_cpu_pct(s, a) > 49.999 && summary_cpu_pct(s, a) < 50.001);
	/* B: [20,30) on cpu0 and [20,40) on cpu1 = 30 ms; two switch-outs end in the window */
	assert_int_equal(b->runtime_ns, 30 * MS);
	assert_int_equal(b->nr_cpus, 2);
	assert_int_equal(summary_task_cpu(b, 0)->runtime_ns, 10 * MS);
	assert_int_equal(summary_task_cpu(b, 1)->runtime_ns, 20 * MS);
	assert_int_equal(b->switches, 2);
	assert_int_equal(a->exits.n, 1);	/* only the exit at 35 ms */
	assert_int_equal(a->exits_total, 1);
	summary__free(s);
}

static void test_heatmaps_window(void **state)
{
	struct trace t;
	struct dash_run r = { .trace = &t, .name = "hand" };
	struct dash_opts o = { .pattern = "vm.*", .version = "test", .date = "today",
			       .window = { .from_ns = 20 * MS, .cap_ns = 80 * MS } };
	struct jbuf b = { 0 };
	struct sel x;
	char err[256];

	(void)state;
	hand_trace(&t, 100 * MS);
	r.sel = sel_of(&x, &t, o.pattern, &o.window);
	assert_int_equal(dash_heatmaps_json(&b, &r, &o, err, sizeof(err)), 0);
	/* A's slices overlapping [20,80): [30,50) and [70,80) clipped; starts delta-encoded */
	assert_non_null(strstr(b.buf, "\"slices_ns\":30000000,\"unseen_ns\":0,\"slices\":{\"n\":2,"
				      "\"t\":[30000000,40000000],\"d\":[20000000,10000000],"
				      "\"c\":[0,0],\"e\":[0,1]}"));
	/* the sleep after [0,10) ends at 10 ms, outside the window: none */
	assert_non_null(strstr(b.buf, "\"sleeps\":{\"n\":0,\"t\":[],\"d\":[]}"));
	/* exits in the window: only the one at 35 ms */
	assert_non_null(strstr(b.buf, "\"exits\":{\"n\":1,\"t\":[35000000],\"g\":[3000],"
				      "\"h\":[4000]"));
	/* every point embedded: no locality summary */
	assert_null(strstr(b.buf, "\"lanes\""));
	/* the threads -t left out (B; C is named swapper/1 but is no idle task: tid 12) as the
	 * timeline's other fill: per core their clipped time in [20,80) adds up: cpu0 B [20,30)
	 * and C [50,60), cpu1 B [20,40) and C [40,80) */
	{
		const char *l = strstr(b.buf, "\"others\":{\"cols\":2048,\"cores\":[{\"k\":[");
		unsigned long long sum[2] = { 0, 0 };
		const char *bz = l;

		assert_non_null(l);
		for (int c = 0; c < 2; c++) {
			const char *end;

			bz = strstr(bz, "\"b\":[");
			assert_non_null(bz);
			end = strchr(bz, ']');
			for (bz += 5; bz < end; ) {
				char *e;

				sum[c] += strtoull(bz, &e, 10);
				bz = *e == ',' ? e + 1 : e;
			}
		}
		assert_int_equal(sum[0], 20 * MS);
		assert_int_equal(sum[1], 60 * MS);
	}
	jbuf_free(&b);

	/* above max_points the series are grid cells with counts, locality per-column sums */
	o.max_points = 1;
	assert_int_equal(dash_heatmaps_json(&b, &r, &o, err, sizeof(err)), 0);
	/* window [20,80) in 4096 columns: [30,50) is column 682, row floor(20 log10(2e7)) = 146;
	 * [70,80) column 3413, row 140; keys col * 260 + row (177466, 887520), delta-encoded */
	assert_non_null(strstr(b.buf, "\"slices_ns\":30000000,\"unseen_ns\":0,\"slices\":{\"n\":2,"
				      "\"bins_d\":{\"k\":[177466,710054],\"c\":[1,1]}}"));
	/* one exit stays whole (1 point is not more than 1) */
	assert_non_null(strstr(b.buf, "\"exits\":{\"n\":1,\"t\":[35000000]"));
	/* locality: 2048 columns of 29,296.875 ns; busy time adds up to the 30 ms of slices on
	 * cpu 0, none on cpu 1 */
	{
		const char *l = strstr(b.buf, "\"lanes\":{\"cols\":2048,\"cores\":[{\"k\":[");
		const char *bz, *end;
		unsigned long long sum = 0;

		assert_non_null(l);
		bz = strstr(l, "\"b\":[");
		assert_non_null(bz);
		end = strchr(bz, ']');
		for (bz += 5; bz < end; ) {
			char *e;

			sum += strtoull(bz, &e, 10);
			bz = *e == ',' ? e + 1 : e;
		}
		assert_int_equal(sum, 30 * MS);
		assert_non_null(strstr(l, "{\"k\":[],\"g\":[],\"b\":[]}]}"));
	}
	o.max_points = 0;
	/* only the selected task */
	assert_null(strstr(b.buf, "img"));
	jbuf_free(&b);

	/* the whole capture: the sleep after [0,10) is 20 ms, the one after [70,90) has no
	 * next slice */
	o.window.from_ns = 0;
	o.window.cap_ns = 0;
	assert_int_equal(dash_heatmaps_json(&b, &r, &o, err, sizeof(err)), 0);
	assert_non_null(strstr(b.buf, "\"sleeps\":{\"n\":1,\"t\":[10000000],\"d\":[20000000]}"));
	jbuf_free(&b);

	/* --merge-sys-tasks and --append-tid name the groups as the summary names rows */
	o.pattern = "swapper*";
	o.window.merge_sys = true;
	o.window.append_tid = true;
	sel_free(&x);
	r.sel = sel_of(&x, &t, o.pattern, &o.window);
	assert_int_equal(dash_heatmaps_json(&b, &r, &o, err, sizeof(err)), 0);
	assert_non_null(strstr(b.buf, "\"tasks\":[{\"name\":\"swapper:12\",\"tids\":[12],"));
	jbuf_free(&b);
	o.window.merge_sys = false;
	o.window.append_tid = false;

	o.pattern = "nothing*";
	sel_free(&x);
	r.sel = sel_of(&x, &t, o.pattern, &o.window);
	assert_int_equal(dash_heatmaps_json(&b, &r, &o, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "nothing*"));
	jbuf_free(&b);
	sel_free(&x);
}

/*
 * Sleeps by state (render/sleeps.h) and exits as grids by reason, on one thread (tid 20) that
 * reports its prev_state: [0,10) S, [20,30) D, [45,50) I, [60,70) preempted, [70,80) D with no
 * later slice; 12 exit reasons, code k with 13 - k exits.
 */
static struct pwz_task st_tasks[] = { { .tid = 20, .tgid = 20, .comm = "T", .name = "T" } };
#define SL(a, z, e, st) { .tid = 20, .cpu = 0, .start_ns = (a) * MS, .dur_ns = ((z) - (a)) * MS, \
			  .end = (e), .flags = PWZ_SLICE_STATE, .prev_state = (st) }
static struct pwz_slice st_slices[] = {
	SL(0, 10, PWZ_END_SLEPT, PWZ_STATE_SLEEPING), SL(20, 30, PWZ_END_SLEPT, PWZ_STATE_DISK),
	SL(45, 50, PWZ_END_SLEPT, PWZ_STATE_IDLE), SL(60, 70, PWZ_END_PREEMPTED, PWZ_STATE_PREEMPTED),
	SL(70, 80, PWZ_END_SLEPT, PWZ_STATE_DISK),
};

static void test_sleeps_and_exit_grids(void **state)
{
	struct pwz_kvm_exit ex[78];
	struct trace t;
	struct sleeps *sl;
	const struct sleep_row *r;
	struct dash_run run = { .trace = &t, .name = "st" };
	struct dash_opts o = { .version = "test", .date = "today", .max_points = 1 };
	struct jbuf b = { 0 };
	char err[256];
	const char *p;
	size_t n = 0;

	(void)state;
	for (uint32_t k = 1; k <= 12; k++)
		for (uint32_t i = 0; i < 13 - k; i++, n++)
			ex[n] = (struct pwz_kvm_exit){ .tid = 20, .time_ns = n * MS, .isa = PWZ_ISA_VMX,
						       .reason = k, .guest_ns = 1000, .handling_ns = 2000 };
	memset(&t, 0, sizeof(t));
	t.path = "st.cdict";
	t.meta.source = PWZ_SOURCE_SYNTHETIC;
	t.meta.nr_cpus = 1;
	t.meta.duration_ns = 100 * MS;
	t.meta.has_switch_kind = true;
	t.meta.has_kvm = true;
	t.info.format = CDICT_FORMAT_V2;
	t.tasks = st_tasks;
	t.nr_tasks = 1;
	t.slices = st_slices;
	t.nr_slices = 5;
	t.exits = ex;
	t.nr_exits = n;
	assert_false(sleeps_known(&t));		/* no prev_state reported: unknown */
	assert_null(sleeps__new(&t, 0, 100 * MS));
	t.meta.has_prev_state = true;
	assert_true(sleeps_known(&t));

	/* the whole capture: S 10->20; D 30->45 and 80->the end (100); other (I) 50->60 */
	sl = sleeps__new(&t, 0, 100 * MS);
	assert_non_null(sl);
	r = sleeps__of(sl, 20, 0);
	assert_non_null(r);
	assert_int_equal(r->count[SLEEP_S], 1);
	assert_int_equal(r->ns[SLEEP_S], 10 * MS);
	assert_int_equal(r->count[SLEEP_D], 2);
	assert_int_equal(r->ns[SLEEP_D], 35 * MS);
	assert_int_equal(r->count[SLEEP_OTHER], 1);
	assert_int_equal(r->ns[SLEEP_OTHER], 10 * MS);
	assert_null(sleeps__of(sl, 21, 0));
	sleeps__free(sl);
	/* [25, 75): sleeps begun in it counted, time clipped to it */
	sl = sleeps__new(&t, 25 * MS, 75 * MS);
	r = sleeps__of(sl, 20, 0);
	assert_non_null(r);
	assert_int_equal(r->count[SLEEP_S], 0);
	assert_int_equal(r->ns[SLEEP_S], 0);
	assert_int_equal(r->count[SLEEP_D], 1);
	assert_int_equal(r->ns[SLEEP_D], 15 * MS);
	assert_int_equal(r->count[SLEEP_OTHER], 1);
	assert_int_equal(r->ns[SLEEP_OTHER], 10 * MS);
	sleeps__free(sl);
	sleeps__free(NULL);

	/* heatmaps: one sleep series per state, the points that end at a switch-in; exits above
	 * max_points as one grid for each of the 9 most frequent reasons (codes 1-9: indices 0-8),
	 * then the rest (codes 10-12: 3 + 2 + 1) */
	o.max_points = 100;
	assert_int_equal(dash_heatmaps_json(&b, &run, &o, err, sizeof(err)), 0);
	assert_non_null(strstr(b.buf, "\"sleep_states\":true"));
	assert_non_null(strstr(b.buf, "\"sleeps\":{\"n\":1,\"t\":[10000000],\"d\":[10000000]}"));
	assert_non_null(strstr(b.buf, "\"sleeps_d\":{\"n\":1,\"t\":[30000000],\"d\":[15000000]}"));
	assert_non_null(strstr(b.buf, "\"sleeps_o\":{\"n\":1,\"t\":[50000000],\"d\":[10000000]}"));
	assert_non_null(strstr(b.buf, "\"exits\":{\"n\":78,\"t\":["));	/* 78 <= 100: whole */
	jbuf_free(&b);
	o.max_points = 50;
	assert_int_equal(dash_heatmaps_json(&b, &run, &o, err, sizeof(err)), 0);
	assert_non_null(strstr(b.buf, "\"exits\":{\"n\":78,\"by_reason\":[{\"r\":0,\"n\":12,\"bins_g\":"));
	assert_non_null(strstr(b.buf, "{\"r\":8,\"n\":4,\"bins_g\""));
	assert_null(strstr(b.buf, "{\"r\":9,"));
	p = strstr(b.buf, "{\"r\":-1,\"n\":6,\"bins_g\":{\"k\":[");
	assert_non_null(p);
	/* the rest's cells count its 6 exits (one a millisecond: one column each) */
	p = strstr(p, "\"bins_h\":{\"k\":[");
	assert_non_null(p);
	p = strstr(p, "\"c\":[");
	assert_non_null(p);
	assert_int_equal(strncmp(p, "\"c\":[1,1,1,1,1,1]}", 18), 0);
	jbuf_free(&b);

	/* the basic dashboard: [S, D, other counts, then ns] per task */
	assert_int_equal(dash_charts_json(&b, &run, 1, &o, err, sizeof(err)), 0);
	assert_non_null(strstr(b.buf, "\"has_sleep_states\":true"));
	assert_non_null(strstr(b.buf, "\"sleep\":[1,2,1,10000000,35000000,10000000]"));
	jbuf_free(&b);
}

/* -t: every part of the basic dashboard (tasks, the diff's rows) shows the run's selection;
 * a selection that did not run in the window is an error that says so. */
static void test_charts_selection(void **state)
{
	struct trace t;
	struct dash_run r[2] = { { .trace = &t, .name = "a" }, { .trace = &t, .name = "b" } };
	struct dash_opts o = { .version = "1", .date = "today", .pattern = "vm" };
	struct jbuf json = { 0 };
	struct sel x;
	const char *p;
	char err[512];
	int n = 0;

	(void)state;
	hand_trace(&t, 100 * MS);
	r[0].sel = r[1].sel = sel_of(&x, &t, "vm", NULL);
	assert_int_equal(dash_charts_json(&json, r, 2, &o, err, sizeof(err)), 0);
	for (p = json.buf; (p = strstr(p, "\"comm\":")); p++)
		n++;
	assert_int_equal(n, 2);		/* A in each run's tasks */
	assert_non_null(strstr(json.buf, "\"tid\":10,"));
	assert_null(strstr(json.buf, "img src"));
	p = strstr(json.buf, "\"delta\":");
	assert_non_null(p);
	assert_non_null(strstr(p, "vm.vcpu0"));
	assert_null(strstr(p, "swapper/1"));
	jbuf_free(&json);

	/* A does not run in [91, 100) ms */
	o.window.from_ns = 91 * MS;
	assert_int_equal(dash_charts_json(&json, r, 1, &o, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "-t 'vm' selects 1 thread, none of which ran from 91.000 to 100.000 ms"));
	jbuf_free(&json);
	sel_free(&x);
}

static void test_charts_json_and_html(void **state)
{
	struct trace t;
	struct dash_run r = { .trace = &t, .name = "hand" };
	struct dash_opts o = { .version = "1.2.3", .date = "today", .label = "<lbl>" };
	struct jbuf json = { 0 }, html = { 0 };
	const char *data, *end;
	char err[256];

	(void)state;
	hand_trace(&t, 100 * MS);
	assert_int_equal(dash_charts_json(&json, &r, 1, &o, err, sizeof(err)), 0);
	/* CoreMap inputs of B: 20 ms on cpu0, 40 ms on cpu1; one switch-out each */
	assert_non_null(strstr(json.buf, "\"cpus\":[[0,20000000,1],[1,40000000,1]]"));
	assert_non_null(strstr(json.buf, "\"name\":\"\\u003c/script\\u003e\\u003cimg src=x\\u003e\""));
	/* per reason: HLT twice (handling 2 and 4 µs), EPT_VIOLATION once */
	assert_non_null(strstr(json.buf, "\"isa\":1,\"code\":12,\"name\":\"HLT\",\"count\":2,"
					 "\"handling_ns\":6000"));
	assert_non_null(strstr(json.buf, "\"code\":48,\"name\":\"EPT_VIOLATION\",\"count\":1"));
	/* percentiles as the log2 bucket they fall in: 2 us in [1024, 2048), 4 us in [2048, 4096) */
	assert_non_null(strstr(json.buf, "\"hist_n\":2,\"median_range\":[1024,2048],"
					 "\"p99_range\":[2048,4096]"));
	assert_non_null(strstr(json.buf, "\"hist_n\":1,\"median_range\":[4096,8192],"
					 "\"p99_range\":[4096,8192]"));
	assert_string_equal(dash_title_kind(&r, 1, false), "CPU, switches and KVM exits");
	assert_string_equal(dash_title_kind(&r, 1, true), "heatmaps");
	jbuf_free(&json);
	/* an exit with no following entry has no handling time: no percentile (n/a), not 0 ns */
	exits[2].flags = PWZ_EXIT_UNPAIRED;
	assert_int_equal(dash_charts_json(&json, &r, 1, &o, err, sizeof(err)), 0);
	exits[2].flags = 0;
	assert_non_null(strstr(json.buf, "\"code\":48,\"name\":\"EPT_VIOLATION\",\"count\":1,"));
	assert_non_null(strstr(json.buf, "\"hist_n\":0,\"median_range\":null,\"p99_range\":null"));
	/* no exit at all: the title does not name KVM */
	t.nr_exits = 0;
	assert_string_equal(dash_title_kind(&r, 1, false), "CPU and switches");
	t.nr_exits = 3;

	assert_int_equal(dash_html(&html, "charts", "<title> & co", &json, &o), 0);
	assert_non_null(strstr(html.buf, "<title>&lt;title&gt; &amp; co</title>"));
	assert_non_null(strstr(html.buf, "pwz 1.2.3"));
	data = strstr(html.buf, "id=\"pwz-data\" data-encoding=\"json\">");
	assert_non_null(data);
	end = strstr(data, "</script>");
	assert_non_null(end);
	/* the data is exactly the JSON, and it holds no markup */
	data = strchr(data, '>') + 1;
	assert_int_equal((size_t)(end - data), json.len);
	assert_memory_equal(data, json.buf, json.len);
	assert_null(memchr(data, '<', json.len));
	/* exactly two scripts: the data and the code */
	assert_non_null(strstr(end + 1, "<script>"));
	assert_null(strstr(strstr(end + 1, "<script>") + 8, "<script"));
	jbuf_free(&html);

	/* above the threshold: gzip + base64 that decodes back to the JSON */
	o.compress_min = 64;
	assert_int_equal(dash_html(&html, "charts", "t", &json, &o), 0);
	assert_non_null(strstr(html.buf, "data-encoding=\"gzip+base64\">H4sI"));
	jbuf_free(&html);
	jbuf_free(&json);
}

static void test_assets(void **state)
{
	(void)state;
	assert_true(strlen(pwz_asset_js) > 1000);
	assert_true(strlen(pwz_asset_css) > 200);
	/* the code cannot close its own element early, and fetches nothing */
	assert_null(strstr(pwz_asset_js, "</script"));
	assert_null(strstr(pwz_asset_js, "http://"));
	assert_null(strstr(pwz_asset_js, "https://"));
	assert_null(strstr(pwz_asset_js, "innerHTML"));
	assert_null(strstr(pwz_asset_css, "url("));
	assert_non_null(strstr(pwz_asset_js, "DecompressionStream"));
}

/* ---- diff ---- */

static struct task_summary mk(uint32_t tid, const char *name, uint64_t runtime, uint64_t sw,
			      const struct exitroll_entry *ex, size_t nex)
{
	struct task_summary ts = { .tid = tid, .runtime_ns = runtime, .switches = sw,
				   .voluntary = sw / 2, .involuntary = sw - sw / 2 };

	snprintf(ts.name, sizeof(ts.name), "%s", name);
	for (size_t i = 0; i < nex; i++) {
		assert_non_null(exitroll_merge(&ts.exits, &ex[i]));
		ts.exits_total += ex[i].count;
	}
	return ts;
}

/* Frees the exits of mk()'s tasks. */
static void mk_free(struct task_summary *ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		exitroll_free(&ts[i].exits);
}

static void test_diff_matching_and_scaling(void **state)
{
	const struct exitroll_entry e0[] = { { .isa = 1, .code = 12, .name = "HLT", .count = 10 } };
	const struct exitroll_entry e1[] = {
		{ .isa = 1, .code = 1, .name = "EXTERNAL_INTERRUPT", .count = 4 },
		{ .isa = 1, .code = 12, .name = "HLT", .count = 30 } };
	struct task_summary t0[] = { mk(1, "vm.vcpu0", 500 * MS, 100, e0, 1),
				     mk(2, "only-in-0", 10 * MS, 5, NULL, 0),
				     mk(3, "emu", 100 * MS, 7, NULL, 0),
				     mk(4, "emu", 100 * MS, 3, NULL, 0) };
	struct task_summary t1[] = { mk(9, "vm.vcpu0", 1000 * MS, 300, e1, 2),
				     mk(8, "only-in-1", 20 * MS, 2, NULL, 0),
				     mk(7, "emu", 200 * MS, 10, NULL, 0) };
	struct summary s0 = { .nr_cpus = 1, .window_start_ns = 0, .window_end_ns = 1000 * MS,
			      .tasks = t0, .nr_tasks = 4 };
	struct summary s1 = { .nr_cpus = 1, .window_start_ns = 0, .window_end_ns = 2000 * MS,
			      .tasks = t1, .nr_tasks = 3 };
	const struct summary *s[] = { &s0, &s1 };
	const struct diff_row *r;
	struct diff *d;
	char err[128];

	(void)state;
	d = diff__new(s, 2, err, sizeof(err));
	assert_non_null(d);
	/* run 1 lasted twice as long: its counts are halved */
	assert_true(d->scaled);
	assert_true(d->scale[0] == 1.0);
	assert_true(d->scale[1] > 0.4999 && d->scale[1] < 0.5001);
	assert_int_equal(d->nr_rows, 4);	/* emu, only-in-0, only-in-1, vm.vcpu0 */
	assert_string_equal(d->rows[0].name, "emu");
	assert_int_equal(d->reasons.n, 2);
	assert_int_equal(exitroll_at(&d->reasons, 0)->code, 1);
	assert_int_equal(exitroll_at(&d->reasons, 1)->code, 12);

	r = diff__row(d, "vm.vcpu0");
	assert_non_null(r);
	assert_true(r->cells[0].present && r->cells[1].present);
	assert_true(r->cells[0].cpu_pct > 49.99 && r->cells[0].cpu_pct < 50.01);
	assert_true(r->cells[1].cpu_pct > 49.99 && r->cells[1].cpu_pct < 50.01);	/* a rate */
	assert_true(r->cells[0].switches == 100.0);
	assert_true(r->cells[1].switches == 150.0);
	assert_true(diff_cell_exits(&r->cells[1], 1) == 15.0);	/* HLT 30 scaled by 0.5 */
	assert_true(diff_cell_exits(&r->cells[1], 0) == 2.0);
	assert_true(diff_cell_exits(&r->cells[0], 0) == 0.0);
	assert_true(r->cells[1].exits_total == 17.0);

	/* two tasks of one name in a run are summed */
	r = diff__row(d, "emu");
	assert_true(r->cells[0].switches == 10.0);
	assert_true(r->cells[0].cpu_pct > 19.99 && r->cells[0].cpu_pct < 20.01);
	assert_true(r->cells[1].switches == 5.0);

	r = diff__row(d, "only-in-1");
	assert_false(r->cells[0].present);
	assert_true(r->cells[1].present);
	diff__free(d);

	/* same lengths: not scaled */
	s1.window_end_ns = 1000 * MS;
	d = diff__new(s, 2, err, sizeof(err));
	assert_false(d->scaled);
	assert_true(diff__row(d, "vm.vcpu0")->cells[1].switches == 300.0);
	diff__free(d);
	mk_free(t0, 4);
	mk_free(t1, 3);
}

static void test_short_names(void **state)
{
	const char *a[] = { "../../haswell/h1x216", "../../haswell/h5x113" };
	const char *b[] = { "run-01a", "run-02b" };
	const char *c[] = { "base", "base-tuned" };
	const char *one[] = { "only" };
	char *out[2];

	(void)state;
	assert_int_equal(diff_short_names(a, 2, out), 0);
	assert_string_equal(out[0], "1x216");
	assert_string_equal(out[1], "5x113");
	free(out[0]);
	free(out[1]);
	/* a digit is never stripped, at either end */
	assert_int_equal(diff_short_names(b, 2, out), 0);
	assert_string_equal(out[0], "01a");
	assert_string_equal(out[1], "02b");
	free(out[0]);
	free(out[1]);
	/* one name fully inside the common head keeps its whole name */
	assert_int_equal(diff_short_names(c, 2, out), 0);
	assert_string_equal(out[0], "base");
	assert_string_equal(out[1], "-tuned");
	free(out[0]);
	free(out[1]);
	assert_int_equal(diff_short_names(one, 1, out), 0);
	assert_string_equal(out[0], "only");
	free(out[0]);
}

/* ---- successors ---- */

static void test_successors(void **state)
{
	struct trace t;
	struct successors *s;
	struct sel x;
	char err[512];

	(void)state;
	hand_trace(&t, 100 * MS);
	/* A on cpu0 ends at 10 (B next), 50 (C = swapper/1, merged to swapper) and 90 (nothing
	 * after it: not counted) */
	s = successors__new(&t, sel_of(&x, &t, "10", NULL), NULL, err, sizeof(err));
	sel_free(&x);
	assert_non_null(s);
	assert_int_equal(s->total, 2);
	assert_int_equal(s->nr, 2);
	assert_string_equal(s->task, "vm.vcpu0:10");
	assert_true(s->items[0].pct > 49.99 && s->items[0].pct < 50.01);
	assert_true(!strcmp(s->items[0].name, "swapper") || !strcmp(s->items[1].name, "swapper"));
	assert_true(!strcmp(s->items[0].name, "</script><img src=x>") ||
		    !strcmp(s->items[1].name, "</script><img src=x>"));
	successors__free(s);

	/* by name; C's slice at [50,60) is followed by a gap: idle (swapper) */
	s = successors__new(&t, sel_of(&x, &t, "swapper/1", NULL), NULL, err, sizeof(err));
	sel_free(&x);
	assert_non_null(s);
	assert_int_equal(s->total, 1);
	assert_string_equal(s->items[0].name, "swapper");
	successors__free(s);

	/* a -t pattern: "vm" is the start of A's name */
	s = successors__new(&t, sel_of(&x, &t, "vm", NULL), NULL, err, sizeof(err));
	sel_free(&x);
	assert_non_null(s);
	assert_int_equal(s->total, 2);
	assert_string_equal(s->task, "vm.vcpu0:10");
	successors__free(s);

	assert_null(successors__new(&t, sel_of(&x, &t, "nobody", NULL), NULL, err, sizeof(err)));
	sel_free(&x);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "nobody"));
}

/* ---- the legacy perfwhiz sample against its truth file ---- */

static void test_legacy_sample(void **state)
{
	const char *path = PWZ_TESTDATA "/perfwhiz/legacy_umsgpack.cdict";
	const char *truth = PWZ_TESTDATA "/perfwhiz/legacy_umsgpack.truth.json";
	struct trace_load_opts lo = { .streams = true };
	struct dash_opts o = { .pattern = "vm_router.vcpu0", .version = "t", .date = "d" };
	struct dash_run r = { .name = "legacy" };
	const struct task_summary *ts = NULL;
	struct sel x;
	struct summary *s;
	struct trace *t;
	struct jbuf b = { 0 };
	char err[512], key[128];
	long long want;
	size_t i;

	(void)state;
	if (access(path, R_OK) || access(truth, R_OK)) {
		skip();
		return;
	}
	t = trace__load(path, &lo, err, sizeof(err));
	assert_non_null(t);
	s = summary__new(t, NULL, err, sizeof(err));
	assert_non_null(s);
	for (i = 0; i < s->nr_tasks; i++)
		if (!strcmp(s->tasks[i].name, "vm_router.vcpu0"))
			ts = &s->tasks[i];
	assert_non_null(ts);
	want = truth_int(truth, "sched_switch_by_task_name/vm_router.vcpu0/switch_count");
	assert_int_equal(ts->switches, want);
	want = truth_int(truth, "kvm_by_task_name/vm_router.vcpu0/exit_count");
	assert_int_equal(ts->exits_total, want);
	for (i = 0; i < ts->exits.n; i++)
		assert_int_equal(exitroll_at(&ts->exits, i)->count,
				 truth_int(truth, "kvm_by_task_name/vm_router.vcpu0/exit_reasons/%u",
					   exitroll_at(&ts->exits, i)->code));

	/* the page data carries the same figures */
	r.trace = t;
	r.sel = sel_of(&x, t, o.pattern, NULL);
	assert_int_equal(dash_charts_json(&b, &r, 1, &o, err, sizeof(err)), 0);
	snprintf(key, sizeof(key), "\"switches\":%llu,", (unsigned long long)ts->switches);
	assert_non_null(strstr(b.buf, key));
	snprintf(key, sizeof(key), "\"exits_total\":%llu,", (unsigned long long)ts->exits_total);
	assert_non_null(strstr(b.buf, key));
	jbuf_free(&b);

	/* heatmaps: every exit of the task is embedded or counted in the grid (perfmap cut at
	 * 50,000 per type) */
	assert_int_equal(dash_heatmaps_json(&b, &r, &o, err, sizeof(err)), 0);
	{
		const char *g = strstr(b.buf, "\"exits\":{\"n\":");

		assert_non_null(g);
		assert_int_equal(strtoull(g + strlen("\"exits\":{\"n\":"), NULL, 10), ts->exits_total);
	}
	jbuf_free(&b);

	/* the same as grids, one per reason: the cells' counts add up to every exit */
	o.max_points = 10;
	assert_int_equal(dash_heatmaps_json(&b, &r, &o, err, sizeof(err)), 0);
	{
		const char *g = strstr(b.buf, "\"by_reason\":[");
		unsigned long long sum = 0;
		size_t grids = 0;

		assert_non_null(g);
		while ((g = strstr(g, "\"bins_h\":{\"k\":["))) {
			g = strstr(g, "\"c\":[");
			assert_non_null(g);
			for (g += 5; *g != ']'; ) {
				char *e;

				sum += strtoull(g, &e, 10);
				g = *e == ',' ? e + 1 : e;
			}
			grids++;
		}
		assert_int_equal(sum, ts->exits_total);
		assert_int_equal(grids, ts->exits.n < HM_EXIT_REASONS + 1 ? ts->exits.n :
					HM_EXIT_REASONS + 1);
	}
	o.max_points = 0;
	jbuf_free(&b);
	sel_free(&x);
	summary__free(s);
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_escapes_script_context),
		cmocka_unit_test(test_json_invalid_utf8),
		cmocka_unit_test(test_html_text),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_gzip_roundtrip),
		cmocka_unit_test(test_window_clipping),
		cmocka_unit_test(test_heatmaps_window),
		cmocka_unit_test(test_sleeps_and_exit_grids),
		cmocka_unit_test(test_charts_selection),
		cmocka_unit_test(test_charts_json_and_html),
		cmocka_unit_test(test_assets),
		cmocka_unit_test(test_diff_matching_and_scaling),
		cmocka_unit_test(test_short_names),
		cmocka_unit_test(test_successors),
		cmocka_unit_test(test_legacy_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
