// SPDX-License-Identifier: GPL-2.0
/* pwz-render: perfmap's command line: --list, --successors-of, and the HTML dashboards. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "dash.h"
#include "diff.h"
#include "export.h"
#include "list.h"
#include "perfetto.h"
#include "outfile.h"
#include "successors.h"
#include "tasknames.h"
#include "numopt.h"
#include "termsafe.h"

extern char **environ;

static const char usage[] =
	"Usage: pwz-render [OPTIONS] FILE.cdict [FILE2.cdict ...]\n"
	"Draws perfwhiz's dashboards from pwz (v2) and perfwhiz (legacy) captures as single-file\n"
	"HTML pages that work offline; or lists what is inside a capture.\n"
	"A name without .cdict is accepted when NAME.cdict exists.\n"
	"\n"
	"  -t, --task PATTERN     tasks to show: shell glob on the whole task name ('*vcpu0' = ends\n"
	"                         with vcpu0), or a tid when all digits (default: all tasks)\n"
	"      --heatmaps         the heatmaps dashboard (one file) instead of the basic one\n"
	"      --max-points N     heatmaps: a series (one task's slices, waits, sleeps or exits)\n"
	"                         of more than N points is embedded as a time x log-value grid of\n"
	"                         counts, and core locality as per-column summaries (default 20000)\n"
	"  -f, --from MS          start the window MS milliseconds after the capture start\n"
	"  -c, --cap MS           end the window MS milliseconds after its start (default: the end)\n"
	"      --label TEXT       title of the page, and the output name (TEXT-charts.html)\n"
	"      --map CSV          rename tasks with a perfwhiz CSV map (tid,...,type,...,group-id,name)\n"
	"      --output-dir DIR   write the pages to DIR (default: beside the first file)\n"
	"      --mode MODE        the output files' mode (pages, Perfetto traces, Parquet files), octal\n"
	"                         (default 0600: they hold every task name; 0644 to share them)\n"
	"      --merge-sys-tasks  merge per-CPU system tasks (swapper/3 -> swapper)\n"
	"      --append-tid       show task names as name:tid\n"
	"  -l, --list             one line per task: tid, name, runtime, CPU %, switches, exits\n"
	"      --json             with --list: one JSON document (an array for several files)\n"
	"      --successors-of T  which tasks ran next after task T (tid or name): count and %\n"
	"      --perfetto         write a Perfetto trace (<name>.pftrace) per file, for ui.perfetto.dev:\n"
	"                         CPU tracks whole; -t keeps the wakeups and KVM exits of its tasks\n"
	"      --perfetto-gzip    the same, gzip-compressed (<name>.pftrace.gz)\n"
	"      --export parquet   write the captures as Parquet tables, DIR/<table>/<trace_id>.parquet\n"
	"                         (DIR: --output-dir, default .; see docs/fleet.md)\n"
	"      --partial          read a capture that was cut short (killed writer): its whole chunks\n"
	"      --headless         accepted for perfmap compatibility (a browser opens only with --open)\n"
	"      --open             open the page in the default browser (xdg-open)\n"
	"  -h, --help             this text\n"
	"  -V, --version          pwz's version\n"
	"\n"
	"Output: <name>-charts_<task>.html, <name>-heatmaps_<task>.html, <first>-diff-charts_<task>.html\n"
	"for several files, <label>-charts.html with --label; the path is printed.\n"
	"\n"
	"Examples:\n"
	"  pwz-render -t '*vcpu0' test.cdict\n"
	"  pwz-render --heatmaps -t '*vcpu0' -f 1000 -c 500 test.cdict\n"
	"  pwz-render -t '*vcpu*' --label 'before and after' run1.cdict run2.cdict\n"
	"  pwz-render --list --json --map tmap.csv oldrun\n"
	"  pwz-render --perfetto -t '*vcpu*' -f 1000 -c 500 --output-dir out test.cdict\n"
	"  pwz-render --export parquet --output-dir fleet/ host1.cdict host2.cdict\n";

struct cli {
	bool list;
	bool json;
	bool partial;
	bool heatmaps;
	bool open;
	bool merge_sys;
	bool append_tid;
	int perfetto;		/* --perfetto: 1, --perfetto-gzip: 2 */
	const char *map_path;
	const char *pattern;
	const char *label;
	const char *output_dir;
	const char *successors_of;
	uint64_t from_ns;	/* -f, whole nanoseconds */
	uint64_t cap_ns;	/* -c; 0 = not given */
	const char *export_fmt;	/* --export: "parquet" */
	size_t max_points;	/* --max-points; 0 = the default */
	mode_t mode;		/* --mode; 0 = OUTFILE_MODE_DEFAULT */
};

/* rc, or 1 with a message when standard output could not be written. SIGPIPE is ignored, so
 * a closed pipe fails the write with EPIPE: the reader stopped reading (`--list | head`), which
 * is no error to report; the status is a pipe's usual 141 (128 + SIGPIPE). */
static int stdout_status(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return 128 + SIGPIPE;
		fprintf(stderr, "pwz-render: cannot write to standard output: %s\n",
			strerror(errno ? errno : EIO));
		return rc ? rc : 1;
	}
	return rc;
}

/* Prints a library's error message (it may quote names and paths from the file) with
 * termsafe(): "pwz-render: <message>" and end (a newline or ""). */
static void print_err(const char *err, const char *end)
{
	char safe[4 * 512];

	fprintf(stderr, "pwz-render: %s%s", termsafe_str(safe, sizeof(safe), err), end);
}

/* -f/-c: milliseconds as a plain decimal, to whole nanoseconds (at most 1e12 ms). */
static int parse_ms(const char *opt, const char *s, uint64_t *ns)
{
	char safe[256];
	int ret = numopt_parse_ns(s, 6, 1000000000000000000ULL, ns);

	if (ret)
		fprintf(stderr, "pwz-render: %s: '%s' %s (give milliseconds, e.g. 250 or 1.5)\n", opt,
			termsafe_str(safe, sizeof(safe), s), numopt_strerror(ret));
	return ret;
}

static int parse_args(int argc, char **argv, struct cli *cli)
{
	enum { O_JSON = 256, O_MAP, O_PARTIAL, O_HEAT, O_LABEL, O_OUTDIR, O_MERGE, O_APPEND,
	       O_SUCC, O_HEADLESS, O_OPEN, O_MAXPTS, O_PERFETTO, O_PERFETTO_GZ, O_EXPORT, O_MODE };
	static const struct option longopts[] = {
		{ "task", required_argument, NULL, 't' },
		{ "heatmaps", no_argument, NULL, O_HEAT },
		{ "from", required_argument, NULL, 'f' },
		{ "cap", required_argument, NULL, 'c' },
		{ "label", required_argument, NULL, O_LABEL },
		{ "map", required_argument, NULL, O_MAP },
		{ "output-dir", required_argument, NULL, O_OUTDIR },
		{ "merge-sys-tasks", no_argument, NULL, O_MERGE },
		{ "append-tid", no_argument, NULL, O_APPEND },
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, O_JSON },
		{ "successors-of", required_argument, NULL, O_SUCC },
		{ "partial", no_argument, NULL, O_PARTIAL },
		{ "headless", no_argument, NULL, O_HEADLESS },
		{ "open", no_argument, NULL, O_OPEN },
		{ "max-points", required_argument, NULL, O_MAXPTS },
		{ "perfetto", no_argument, NULL, O_PERFETTO },
		{ "perfetto-gzip", no_argument, NULL, O_PERFETTO_GZ },
		{ "export", required_argument, NULL, O_EXPORT },
		{ "mode", required_argument, NULL, O_MODE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "t:f:c:lhV", longopts, NULL)) != -1) {
		switch (c) {
		case 't': cli->pattern = optarg; break;
		case O_HEAT: cli->heatmaps = true; break;
		case 'f':
			if (parse_ms("--from", optarg, &cli->from_ns))
				return -EINVAL;
			break;
		case 'c':
			if (parse_ms("--cap", optarg, &cli->cap_ns))
				return -EINVAL;
			if (!cli->cap_ns) {
				fprintf(stderr, "pwz-render: --cap must be more than 0 ms\n");
				return -EINVAL;
			}
			break;
		case O_LABEL: cli->label = optarg; break;
		case O_MAP: cli->map_path = optarg; break;
		case O_OUTDIR: cli->output_dir = optarg; break;
		case O_MERGE: cli->merge_sys = true; break;
		case O_APPEND: cli->append_tid = true; break;
		case 'l': cli->list = true; break;
		case O_JSON: cli->json = true; break;
		case O_SUCC: cli->successors_of = optarg; break;
		case O_PARTIAL: cli->partial = true; break;
		case O_HEADLESS: break;
		case O_EXPORT:
			if (strcmp(optarg, "parquet")) {
				fprintf(stderr, "pwz-render: --export: '%s' is not a format (parquet)\n", optarg);
				return -EINVAL;
			}
			cli->export_fmt = optarg;
			break;
		case O_OPEN: cli->open = true; break;
		case O_PERFETTO: cli->perfetto = 1; break;
		case O_PERFETTO_GZ: cli->perfetto = 2; break;
		case O_MAXPTS: {
			char safe[256];
			uint64_t v;

			if (numopt_parse_count(optarg, SIZE_MAX / 64, &v)) {
				fprintf(stderr, "pwz-render: --max-points: '%s' is not a positive decimal count\n",
					termsafe_str(safe, sizeof(safe), optarg));
				return -EINVAL;
			}
			cli->max_points = (size_t)v;
			break;
		}
		case O_MODE:
			if (outfile_parse_mode(optarg, &cli->mode)) {
				fprintf(stderr, "pwz-render: --mode: '%s' is not a file mode (octal, at most 0777, with owner read and write: 0600, 0640, 0644)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			exit(stdout_status(0));
		case 'V':
			printf("pwz-render %s\n", PWZ_VERSION);
			exit(stdout_status(0));
		default:
			fprintf(stderr, "pwz-render: see 'pwz-render --help'\n");
			return -EINVAL;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "pwz-render: no capture file given (see 'pwz-render --help')\n");
		return -EINVAL;
	}
	if (cli->json && !cli->list) {
		fprintf(stderr, "pwz-render: --json goes with --list\n");
		return -EINVAL;
	}
	if (cli->heatmaps && argc - optind > 1) {
		fprintf(stderr, "pwz-render: --heatmaps takes one capture file, not %d\n", argc - optind);
		return -EINVAL;
	}
	if (cli->output_dir) {
		struct stat st;

		/* an export tree (fleet/<table>/...) may be new: its top folder is made */
		if (cli->export_fmt && mkdir(cli->output_dir, 0777) && errno != EEXIST) {
			fprintf(stderr, "pwz-render: --output-dir %s: %s\n", cli->output_dir,
				strerror(errno));
			return -EINVAL;
		}
		if (stat(cli->output_dir, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "pwz-render: --output-dir %s: not a directory\n", cli->output_dir);
			return -EINVAL;
		}
	}
	return 0;
}

/* Loads one file; refuses a cut file unless --partial. */
static struct trace *load(const struct cli *cli, const char *path, const struct task_map *map,
			  bool streams)
{
	bool window = cli->from_ns > 0 || cli->cap_ns > 0;
	struct trace_load_opts lo = { .streams = streams, .map = map };
	char err[512], safe[4 * 4096];
	struct trace *t = trace__load(path, &lo, err, sizeof(err));

	if (!t) {
		print_err(err, "\n");
		return NULL;
	}
	if (t->info.cut && !cli->partial) {
		fprintf(stderr,
			"pwz-render: %s: cut short at offset %llu (the capture was killed or the file truncated); --partial shows its %llu whole chunks\n",
			termsafe_str(safe, sizeof(safe), t->path), t->info.cut_offset, t->info.chunks);
		trace__free(t);
		return NULL;
	}
	if (t->info.cut)
		fprintf(stderr, "pwz-render: warning: %s: cut short at offset %llu, showing its whole chunks\n",
			termsafe_str(safe, sizeof(safe), t->path), t->info.cut_offset);
	if (t->info.cut && !streams && !t->nr_cpu_aggs) {
		/* the aggregates come at the end of a capture: a cut one has only its streams */
		trace__free(t);
		lo.streams = true;
		t = trace__load(path, &lo, err, sizeof(err));
		if (!t) {
			print_err(err, "\n");
			return NULL;
		}
	}
	if (streams && window && !t->nr_slices && !t->nr_exits && t->nr_cpu_aggs) {
		fprintf(stderr, "pwz-render: %s holds kernel aggregates only (an --aggregate-only capture): -f/-c need its run slices\n",
			termsafe_str(safe, sizeof(safe), t->path));
		trace__free(t);
		return NULL;
	}
	return t;
}

/* The window of -f and -c (perfmap: the end is from + cap). summary__new() refuses a window
 * that runs past the end of a capture. */
static struct summary_opts window_of(const struct cli *cli)
{
	struct summary_opts w = {
		.from_ns = cli->from_ns,
		.merge_sys = cli->merge_sys,
		.append_tid = cli->append_tid,
	};

	if (cli->cap_ns > 0)
		w.cap_ns = w.from_ns + cli->cap_ns;
	return w;
}

/* Ends the line of a "no task matches" message with the names that exist in t's window (the
 * first 20, by runtime). */
static void print_task_names(const struct trace *t, const struct summary_opts *w)
{
	char err[512];
	struct summary *s = summary__new(t, w, err, sizeof(err));
	size_t i;

	if (!s) {
		fputc('\n', stderr);
		return;
	}
	fprintf(stderr, "; the tasks are:");
	for (i = 0; i < s->nr_tasks && i < 20; i++) {
		char name[TERMSAFE_NAME_MAX];

		fprintf(stderr, "%s \"%s\"", i ? "," : "",
			termsafe_str(name, sizeof(name), s->tasks[i].name));
	}
	if (s->nr_tasks > 20)
		fprintf(stderr, " and %zu more", s->nr_tasks - 20);
	fprintf(stderr, "%s\n", s->nr_tasks ? "" : " none");
	summary__free(s);
}

static bool has_window(const struct cli *cli)
{
	return cli->from_ns > 0 || cli->cap_ns > 0;
}

static int do_list(const struct cli *cli, char **files, int nfiles, const struct task_map *map)
{
	struct jbuf out = { 0 };
	char err[512];
	int i, ret = 0;

	if (cli->json && nfiles > 1)
		jbuf_puts(&out, "[\n");
	for (i = 0; i < nfiles && !ret; i++) {
		/* --json's VMs and wait percentiles are made from the streams */
		struct trace *t = load(cli, files[i], map, has_window(cli) || cli->json);
		struct summary_opts w;
		struct summary *s;

		if (!t) {
			ret = 1;
			break;
		}
		w = window_of(cli);
		s = summary__new(t, &w, err, sizeof(err));
		if (!s) {
			print_err(err, "\n");
			trace__free(t);
			ret = 1;
			break;
		}
		if (cli->json) {
			if (i > 0)
				jbuf_puts(&out, ",\n");
			list_json(&out, t, s);
		} else {
			list_plain(&out, t, s);
		}
		summary__free(s);
		trace__free(t);
	}
	if (cli->json && nfiles > 1)
		jbuf_puts(&out, "\n]");
	if (cli->json)
		jbuf_puts(&out, "\n");
	if (!ret && out.err) {
		fprintf(stderr, "pwz-render: out of memory\n");
		ret = 1;
	}
	if (!ret && out.len && fwrite(out.buf, 1, out.len, stdout) != out.len)
		ret = 1;
	jbuf_free(&out);
	return ret;
}

static int do_successors(const struct cli *cli, char **files, int nfiles,
			 const struct task_map *map)
{
	char err[512], name[TERMSAFE_NAME_MAX], path[4 * 4096];
	int i;

	for (i = 0; i < nfiles; i++) {
		struct trace *t = load(cli, files[i], map, true);
		struct summary_opts w;
		struct successors *s;
		size_t k;

		if (!t)
			return 1;
		w = window_of(cli);
		s = successors__new(t, cli->successors_of, &w, err, sizeof(err));
		if (!s) {
			print_err(err, "\n");
			trace__free(t);
			return 1;
		}
		printf("%s:\nSuccessors of %s (%llu switch-outs)\n",
		       termsafe_str(path, sizeof(path), t->path),
		       termsafe_str(name, sizeof(name), s->task), (unsigned long long)s->total);
		printf("%-32s %10s %8s\n", "task", "count", "percent");
		for (k = 0; k < s->nr; k++)
			printf("%-32s %10llu %7.2f%%\n",
			       termsafe_str(name, sizeof(name), s->items[k].name),
			       (unsigned long long)s->items[k].count, s->items[k].pct);
		successors__free(s);
		trace__free(t);
	}
	return 0;
}

/* The file name without directory and without ".cdict". */
static void base_name(const char *path, char *out, size_t outlen)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 6 && !strcmp(b + n - 6, ".cdict"))
		n -= 6;
	snprintf(out, outlen, "%.*s", (int)n, b);
}

/* perfmap's output name: DIR/<base>-<kind>[_<task>].html */
static void output_path(const struct cli *cli, const char *first, bool diff, const char *kind,
			char *out, size_t outlen)
{
	char dir[4096], base[512], task[256];
	size_t i, k = 0;

	if (cli->output_dir) {
		snprintf(dir, sizeof(dir), "%s", cli->output_dir);
	} else {
		char tmp[4096];

		snprintf(tmp, sizeof(tmp), "%s", first);
		snprintf(dir, sizeof(dir), "%s", dirname(tmp));
	}
	if (cli->label) {
		snprintf(base, sizeof(base), "%s", cli->label);
		for (i = 0; base[i]; i++)
			if (base[i] == ' ' || base[i] == '/')
				base[i] = '-';
		snprintf(out, outlen, "%s/%s-%s.html", dir, base, kind);
		return;
	}
	base_name(first, base, sizeof(base));
	/* the pattern without its leading '*', made safe as a file name */
	if (cli->pattern) {
		const char *p = cli->pattern;

		while (*p == '*')
			p++;
		for (; *p && k + 1 < sizeof(task); p++)
			task[k++] = (*p == '/' || *p == '*' || *p == '?' || *p == ' ') ? '_' : *p;
	}
	task[k] = '\0';
	snprintf(out, outlen, "%s/%s%s-%s_%s.html", dir, base, diff ? "-diff" : "", kind,
		 k ? task : "all");
}

/* Writes the page through a temporary of its own (outfile.h), renamed to path. */
static int write_file(const char *path, const struct jbuf *b, mode_t mode)
{
	struct outfile of;
	const char *p = b->buf;
	size_t left = b->len;
	int e = outfile_open(&of, path, mode);

	if (e) {
		fprintf(stderr, "pwz-render: cannot create a temporary file for %s: %s\n", path,
			strerror(-e));
		return e;
	}
	while (left && !e) {
		ssize_t n = write(of.fd, p, left);

		if (n < 0 && errno != EINTR) {
			e = -errno;
		} else if (n > 0) {
			p += n;
			left -= (size_t)n;
		}
	}
	if (!e)
		e = outfile_commit(&of);
	if (e)
		fprintf(stderr, "pwz-render: cannot write %s: %s\n", path, strerror(-e));
	outfile_close(&of);
	return e;
}

static void open_browser(const char *path)
{
	char *argv[] = { "xdg-open", (char *)path, NULL };
	pid_t pid;

	if (posix_spawnp(&pid, "xdg-open", NULL, NULL, argv, environ)) {
		fprintf(stderr, "pwz-render: cannot run xdg-open to open %s\n", path);
		return;
	}
	waitpid(pid, NULL, 0);
}

static void footer_date(char *out, size_t outlen)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	time_t now = sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(out, outlen, "%Y-%m-%d %H:%M UTC", &tm);
}

static int do_dashboard(const struct cli *cli, char **files, int nfiles,
			const struct task_map *map)
{
	bool streams = cli->heatmaps || has_window(cli);
	struct trace **t = calloc((size_t)nfiles, sizeof(*t));
	struct dash_run *runs = calloc((size_t)nfiles, sizeof(*runs));
	char **names = calloc((size_t)nfiles, sizeof(*names));
	char **shorts = calloc((size_t)nfiles, sizeof(*shorts));
	struct jbuf json = { 0 }, html = { 0 };
	struct dash_opts o = { .pattern = cli->pattern, .version = PWZ_VERSION };
	char err[512], date[64], label[512], title[1024], path[8192];
	const char *kind = cli->heatmaps ? "heatmaps" : "charts";
	int i, rc = 1;

	if (!t || !runs || !names || !shorts) {
		fprintf(stderr, "pwz-render: out of memory\n");
		goto out;
	}
	for (i = 0; i < nfiles; i++) {
		char base[512];

		t[i] = load(cli, files[i], map, streams);
		if (t[i] && !streams && t[i]->nr_kvm_aggs) {
			/* the VMs tab needs a KVM capture's streams */
			trace__free(t[i]);
			t[i] = load(cli, files[i], map, true);
		}
		if (!t[i])
			goto out;
		base_name(files[i], base, sizeof(base));
		names[i] = strdup(base);
		if (!names[i]) {
			fprintf(stderr, "pwz-render: out of memory\n");
			goto out;
		}
	}
	if (diff_short_names((const char *const *)names, (size_t)nfiles, shorts)) {
		fprintf(stderr, "pwz-render: out of memory\n");
		goto out;
	}
	for (i = 0; i < nfiles; i++)
		runs[i] = (struct dash_run){ .trace = t[i], .name = names[i], .short_name = shorts[i] };

	footer_date(date, sizeof(date));
	if (cli->label)
		snprintf(label, sizeof(label), "%s", cli->label);
	else if (nfiles > 1)
		snprintf(label, sizeof(label), "diff");
	else
		snprintf(label, sizeof(label), "%s", names[0]);
	o.label = label;
	o.date = date;
	/* one window for all runs */
	o.window = window_of(cli);
	o.max_points = cli->max_points;
	if (cli->heatmaps) {
		rc = dash_heatmaps_json(&json, &runs[0], &o, err, sizeof(err));
	} else {
		rc = dash_charts_json(&json, runs, (size_t)nfiles, &o, err, sizeof(err));
	}
	if (rc) {
		print_err(err, "");
		if (rc == -ENOENT)
			print_task_names(t[0], &o.window);
		else
			fputc('\n', stderr);
		rc = 1;
		goto out;
	}
	snprintf(title, sizeof(title), "%s — %s%s%s", label,
		 dash_title_kind(runs, (size_t)nfiles, cli->heatmaps),
		 cli->pattern ? " — " : "", cli->pattern ? cli->pattern : "");
	rc = dash_html(&html, kind, title, &json, &o);
	if (rc) {
		fprintf(stderr, "pwz-render: cannot build the page: %s\n", strerror(-rc));
		rc = 1;
		goto out;
	}
	output_path(cli, files[0], nfiles > 1, kind, path, sizeof(path));
	if (write_file(path, &html, cli->mode)) {
		rc = 1;
		goto out;
	}
	printf("%s\n", path);
	fprintf(stderr, "pwz-render: wrote %s (%zu KiB, data %zu KiB)\n", path, html.len / 1024,
		json.len / 1024);
	if (cli->open)
		open_browser(path);
	rc = 0;
out:
	jbuf_free(&json);
	jbuf_free(&html);
	for (i = 0; i < nfiles; i++) {
		if (t)
			trace__free(t[i]);
		if (names)
			free(names[i]);
		if (shorts)
			free(shorts[i]);
	}
	free(t);
	free(runs);
	free(names);
	free(shorts);
	return rc;
}

/* --perfetto: one trace per file (render/perfetto.h). */
static int do_perfetto(const struct cli *cli, char **files, int nfiles, const struct task_map *map)
{
	struct summary_opts w = window_of(cli);
	struct perfetto_opts o = { .pattern = cli->pattern, .from_ns = w.from_ns,
				   .cap_ns = w.cap_ns, .merge_sys = cli->merge_sys,
				   .partial = cli->partial, .gzip = cli->perfetto == 2, .map = map,
				   .mode = cli->mode };
	char err[1024], path[8192];

	for (int i = 0; i < nfiles; i++) {
		struct perfetto_stats st;

		perfetto_output_path(files[i], cli->output_dir, o.gzip, path, sizeof(path));
		if (perfetto_export(files[i], path, &o, &st, err, sizeof(err))) {
			fprintf(stderr, "pwz-render: %s\n", err);
			return 1;
		}
		if (st.cut)
			fprintf(stderr, "pwz-render: warning: %s: cut short, exported its whole chunks\n",
				files[i]);
		printf("%s\n", path);
		fprintf(stderr, "pwz-render: wrote %s (%llu KiB before compression: %llu switches, %llu wakeups, %llu KVM exits, %llu threads; scheduling bundles %.1f bytes per switch, %.1f without the wakeups)\n",
			path, (unsigned long long)st.bytes / 1024, (unsigned long long)st.switches,
			(unsigned long long)st.wakings, (unsigned long long)st.exits,
			(unsigned long long)st.threads,
			st.switches ? (double)st.sched_bytes / (double)st.switches : 0.0,
			st.switches ? (double)(st.sched_bytes - st.waking_bytes) / (double)st.switches : 0.0);
		if (st.overlaps)
			fprintf(stderr, "pwz-render: warning: %s: %llu run slices began before the previous one on their CPU ended; the earlier ones are cut there\n",
				files[i], (unsigned long long)st.overlaps);
	}
	return 0;
}

/* --export parquet: each file into the table folders of --output-dir (default .). */
static int do_export(const struct cli *cli, char **files, int nfiles)
{
	struct export_opts o = { .partial = cli->partial, .mode = cli->mode };
	struct export_result r;
	char err[1024];

	for (int i = 0; i < nfiles; i++) {
		if (export_parquet(files[i], cli->output_dir ? cli->output_dir : ".", &o, &r, err,
				   sizeof(err))) {
			fprintf(stderr, "pwz-render: %s\n", err);
			return 1;
		}
		printf("%s\t%s\t%llu slices\n", files[i], r.trace_id,
		       (unsigned long long)r.rows[EXPORT_SCHED_SLICE]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli cli = { 0 };
	struct task_map *map = NULL;
	char err[512];
	int ret;

	/* a closed pipe on stdout or stderr is a write error to report, not a reason to die */
	signal(SIGPIPE, SIG_IGN);
	if (parse_args(argc, argv, &cli))
		return 2;
	if (cli.map_path && !(map = task_map__load(cli.map_path, err, sizeof(err)))) {
		print_err(err, "\n");
		return 1;
	}
	if (cli.perfetto)
		ret = do_perfetto(&cli, argv + optind, argc - optind, map);
	else if (cli.export_fmt)
		ret = do_export(&cli, argv + optind, argc - optind);
	else if (cli.list)
		ret = do_list(&cli, argv + optind, argc - optind, map);
	else if (cli.successors_of)
		ret = do_successors(&cli, argv + optind, argc - optind, map);
	else
		ret = do_dashboard(&cli, argv + optind, argc - optind, map);
	task_map__free(map);
	return stdout_status(ret);
}
