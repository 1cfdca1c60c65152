/* SPDX-License-Identifier: GPL-2.0 */
/* The dashboards' data (JSON) and the single-file HTML pages that carry it with the chart code. */
#ifndef PWZ_DASH_H
#define PWZ_DASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "json.h"
#include "summary.h"

struct tasksel;

#define DASH_COMPRESS_MIN_DEFAULT (256u << 10)	/* JSON bytes above which the data is gzipped */
#define DASH_MAX_POINTS_DEFAULT 20000	/* heatmap series above this are embedded as a grid */
#define HM_GRID_COLS 4096u		/* heatmap grid: time columns over the window (the page
					 * re-bins them to the zoom) */
#define HM_GRID_RPD 20u			/* heatmap grid: rows per decade of nanoseconds */
#define HM_GRID_ROWS (13u * HM_GRID_RPD)	/* 1 ns to 10^13 ns (2.8 hours) */
#define HM_EXIT_REASONS 9u		/* exits as grids: one grid for each of this many most
					 * frequent reasons of a task, one for the rest */
#define HM_LANE_COLS 2048u		/* core locality columns when slices are a grid */

struct dash_opts {
	const char *pattern;		/* -t as given, for the page's data; NULL none (each run's
					 * sel is what selects) */
	struct summary_opts window;	/* -f/-c window, --merge-sys-tasks, --append-tid */
	const char *label;		/* --label; NULL: the file name */
	const char *version;		/* pwz's version for the footer */
	const char *date;		/* the footer's date, e.g. "2026-11-29 15:57 UTC" */
	size_t compress_min;		/* JSON above this size is gzip + base64; 0 = default;
					 * SIZE_MAX = never */
	size_t max_points;		/* heatmaps: a series with more points is embedded as a
					 * grid of counts (and core locality as per-column
					 * summaries); 0 = DASH_MAX_POINTS_DEFAULT */
};

/* One capture given to the dashboards. */
struct dash_run {
	const struct trace *trace;	/* loaded with streams when a window or heatmaps need them */
	const char *name;		/* the file name without ".cdict" */
	const char *short_name;		/* diff_short_names() of the names; NULL = name */
	const struct tasksel *sel;	/* -t: the threads shown (user/lib/tasksel.h); NULL all */
};

/*
 * The basic dashboard's data for nr runs (diff when nr > 1) as one JSON object appended to out:
 * per run the capture metadata, drops, topology, window and the tasks of its selection (CPU,
 * switches per core, KVM exits per reason with handling-time median and p99), the VMs of those
 * tasks and their IRQ rows; with several runs the delta rows of diff__new(). Returns 0 or
 * -errno with err filled: -ENOENT when no selected task ran in the window
 * (tasksel_none_ran()), a bad window, ...
 */
int dash_charts_json(struct jbuf *out, const struct dash_run *runs, size_t nr,
		     const struct dash_opts *o, char *err, size_t errlen);

/*
 * The heatmaps dashboard's data for one run: for each task of its selection (grouped by display
 * name; never the idle tasks, tid 0),
 * its run slices clipped to the window (start, duration, CPU, how it ended), run-queue waits,
 * sleeps derived from the slices, and KVM exits (time, guest time, handling time, reason).
 * Times are delta-encoded per series (see docs/dashboards.md). A series of more than
 * o->max_points points is embedded as the occupied cells of a time x log-value grid with their
 * counts instead (its true count stays in "n"); memory is 4 bytes per record of the trace plus
 * the largest group's points. The trace must hold its streams.
 */
int dash_heatmaps_json(struct jbuf *out, const struct dash_run *run, const struct dash_opts *o,
		       char *err, size_t errlen);

/*
 * Wraps JSON data into the complete HTML page of the given kind ("charts" or "heatmaps"): the
 * embedded CSS and JS, a title built from title (HTML-escaped), and the data in
 * <script type="application/json" id="pwz-data" data-encoding="json|gzip+base64">.
 * Returns 0 or -errno.
 */
int dash_html(struct jbuf *out, const char *kind, const char *title, const struct jbuf *json,
	      const struct dash_opts *o);

/*
 * What the page's title says it shows: "heatmaps", or "CPU, switches and KVM exits" when a
 * run holds a KVM exit (in its streams or aggregates), else "CPU and switches".
 */
const char *dash_title_kind(const struct dash_run *runs, size_t nr, bool heatmaps);

/* The embedded assets (render/assets/), NUL-terminated. */
extern const char pwz_asset_js[];
extern const char pwz_asset_vms_js[];	/* the VMs tab (render/vmtab.h), loaded before dash.js */
extern const char pwz_asset_css[];

#endif /* PWZ_DASH_H */
