// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: everything pwz-render does with a capture it is handed. The input is
 *   ctl[6] records[...] [0xc1 "RUN" records2[...]]
 * where records is a msgpack record stream (META first, as a writer starts its first chunk),
 * wrapped into a one-chunk file without trailer (fuzz_write_chunk_file()); 0xc1 (a byte
 * msgpack never uses) followed by "RUN" starts a second capture for the two-run dashboards
 * (without it, the second run is the first again). ctl picks the options:
 *   ctl[0] bit 0 --merge-sys-tasks, bit 1 --append-tid, bit 2 a window (ctl[1], ctl[2]: its
 *          start and length in 256ths of the capture), bit 3 -t with the first task's name,
 *          bit 4 the gzip + base64 page data;
 *   ctl[3] the heatmaps' grid threshold (--max-points, 1..256: small, so grids are built);
 *   ctl[0] bit 5 with ctl[4], an amplifier: the last record of the first capture is repeated
 *          2^(ctl[4] % 17) times (up to 65,536 and 1 MiB; the exponent uniform so that most
 *          inputs stay fast), its integer field ctl[5] % 8 plus the repeat's index each time, so
 *          that a few bytes describe "many distinct tasks, CPUs, exit reasons": what a file of
 *          megabytes holds, and where memory or time grow faster than the content (the
 *          defects tests/fuzz/run's limits name) cross the harness's -rss_limit_mb and -timeout.
 * Each input goes through: the summary (whole capture and the window), --list in both forms,
 * the charts of one run and of two (the diff), the heatmaps, both HTML pages, and
 * --successors-of the first task by tid and by name.
 */
#include "fuzz_wrap.h"
#include "dash.h"
#include "diff.h"
#include "list.h"
#include "successors.h"
#include "tasksel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_RUN_MARK "\xc1RUN"

/* Loads data as a capture; NULL when the reader refuses it (with a message, or it aborts). */
static struct trace *fuzz_load(const uint8_t *data, size_t size, const char *suffix)
{
	const char *path = fuzz_path(suffix);
	struct trace_load_opts lo = { .streams = true };
	struct trace *t;
	char err[512];

	fuzz_write_chunk_file(path, data, size, false);
	err[0] = '\0';
	t = trace__load(path, &lo, err, sizeof(err));
	if (!t && errno != ENOMEM && !err[0])
		abort();	/* the contract: every error fills err */
	unlink(path);
	return t;
}

/* The window of ctl in the capture's time (the duration, else the last slice end). */
static void fuzz_window(const struct trace *t, const uint8_t *ctl, struct summary_opts *w)
{
	uint64_t dur = t->meta.duration_ns;

	for (size_t i = 0; !dur && i < t->nr_slices; i++)
		if (t->slices[i].start_ns + t->slices[i].dur_ns > dur)
			dur = t->slices[i].start_ns + t->slices[i].dur_ns;
	w->from_ns = dur / 256 * ctl[1];
	w->cap_ns = w->from_ns + dur / 256 * ((uint64_t)ctl[2] + 1);
}

static void fuzz_touch_buf(const struct jbuf *b)
{
	for (size_t i = 0; i < b->len; i += 64)
		fuzz_sink += (unsigned char)b->buf[i];
}

static void fuzz_list(const struct trace *t, const struct summary_opts *w,
		      const struct tasksel *sel)
{
	struct summary *s;
	struct jbuf b = { 0 };
	char err[512];

	err[0] = '\0';
	s = summary__new(t, w, err, sizeof(err));
	if (!s) {
		if (errno != ENOMEM && !err[0])
			abort();
		return;
	}
	tasksel_keep_rows(sel, s);
	list_json(&b, t, s, sel);
	list_plain(&b, t, s, sel);
	fuzz_touch_buf(&b);
	jbuf_free(&b);
	summary__free(s);
}

/* One page: its JSON (charts of nr runs, or the heatmaps of the first), then its HTML. */
static void fuzz_page(const struct dash_run *runs, size_t nr, bool heatmaps,
		      const struct dash_opts *o)
{
	struct jbuf json = { 0 }, html = { 0 };
	char err[512];
	int rc;

	err[0] = '\0';
	if (heatmaps)
		rc = dash_heatmaps_json(&json, &runs[0], o, err, sizeof(err));
	else
		rc = dash_charts_json(&json, runs, nr, o, err, sizeof(err));
	if (rc && rc != -ENOMEM && !err[0])
		abort();
	if (!rc && !dash_html(&html, heatmaps ? "heatmaps" : "charts", "fuzz <title>", &json, o))
		fuzz_touch_buf(&html);
	jbuf_free(&json);
	jbuf_free(&html);
}

/* The selection of one pattern in t under w's naming, into *sel (NULL when the pattern is
 * refused: a name holding a newline); *p its compiled pattern. */
static void fuzz_select(const char *pattern, const struct summary_opts *w, const struct trace *t,
			struct task_patterns **p, struct tasksel **sel)
{
	struct task_label_opts lo = { .merge_sys = w->merge_sys, .append_tid = w->append_tid };
	char err[256];

	*sel = NULL;
	*p = task_patterns__new(&pattern, 1, err, sizeof(err));
	if (*p)
		*sel = tasksel__new(*p, &lo, t);
}

static void fuzz_successors(const struct trace *t, const char *who, const struct summary_opts *w)
{
	struct task_patterns *p;
	struct successors *s;
	struct tasksel *sel;
	char err[512];

	err[0] = '\0';
	fuzz_select(who, w, t, &p, &sel);
	s = sel ? successors__new(t, sel, w, err, sizeof(err)) : NULL;
	tasksel__free(sel);
	task_patterns__free(p);
	if (!s) {
		if (errno != ENOMEM && !err[0])
			abort();
		return;
	}
	for (size_t i = 0; i < s->nr; i++)
		fuzz_touch_str(s->items[i].name, sizeof(s->items[i].name));
	successors__free(s);
}

/* The first FUZZ_RUN_MARK in p[0..len), or NULL. */
static const uint8_t *find_mark(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 4 <= len; i++)
		if (p[i] == 0xc1 && !memcmp(p + i, FUZZ_RUN_MARK, 4))
			return p + i;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *ctl = data, *rec = data + 6, *rec2 = NULL, *mark;
	uint8_t *big = NULL;
	size_t len, len2 = 0, big_len = 0;
	struct summary_opts w = { 0 };
	struct dash_opts o = { .version = "fuzz", .date = "2026-12-01 00:00 UTC",
			       .label = "fuzz" };
	struct dash_run runs[2];
	struct trace *t, *t2 = NULL;
	struct task_patterns *pat = NULL;
	struct tasksel *sel[2] = { NULL, NULL };
	struct task_label_opts lo;
	char who[PWZ_NAME_MAX + 16];

	if (size < 6 || size > (1u << 20))
		return 0;
	len = size - 6;
	mark = find_mark(rec, len);
	if (mark) {
		rec2 = mark + 4;
		len2 = (size_t)(rec + len - rec2);
		len = (size_t)(mark - rec);
	}
	if (ctl[0] & 32)
		big = fuzz_amplify(rec, len, (size_t)1 << (ctl[4] % 17), ctl[5] % 8, &big_len);
	t = big ? fuzz_load(big, big_len, ".cdict") : fuzz_load(rec, len, ".cdict");
	free(big);
	if (!t)
		return 0;
	if (rec2)
		t2 = fuzz_load(rec2, len2, "-2.cdict");
	w.merge_sys = ctl[0] & 1;
	w.append_tid = ctl[0] & 2;
	lo = (struct task_label_opts){ .merge_sys = w.merge_sys, .append_tid = w.append_tid };
	if (ctl[0] & 4)
		fuzz_window(t, ctl, &w);

	fuzz_list(t, NULL, NULL);
	fuzz_list(t, &w, NULL);

	o.window = w;
	o.max_points = (size_t)ctl[3] + 1;
	o.compress_min = ctl[0] & 16 ? 1 : SIZE_MAX;	/* the gzip + base64 path, or plain */
	runs[0] = (struct dash_run){ .trace = t, .name = "run-a", .short_name = "a" };
	runs[1] = (struct dash_run){ .trace = t2 ? t2 : t, .name = "run-b", .short_name = "b" };
	if ((ctl[0] & 8) && t->nr_tasks) {
		task_label(&t->tasks[0], &lo, who, sizeof(who));
		o.pattern = who;
		fuzz_select(who, &w, t, &pat, &sel[0]);
		if (pat)
			sel[1] = tasksel__new(pat, &lo, runs[1].trace);
		runs[0].sel = sel[0];
		runs[1].sel = sel[1];
		fuzz_list(t, &w, sel[0]);
	}
	fuzz_page(runs, 1, false, &o);
	fuzz_page(runs, 2, false, &o);
	fuzz_page(runs, 1, true, &o);

	if (t->nr_tasks) {
		snprintf(who, sizeof(who), "%u", t->tasks[0].tid);
		fuzz_successors(t, who, &w);
		task_label(&t->tasks[0], &lo, who, sizeof(who));
		fuzz_successors(t, who, &w);
	}
	tasksel__free(sel[0]);
	tasksel__free(sel[1]);
	task_patterns__free(pat);
	trace__free(t2);
	trace__free(t);
	return 0;
}
