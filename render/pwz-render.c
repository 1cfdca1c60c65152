// SPDX-License-Identifier: GPL-2.0
/* pwz-render: perfmap's command line: --list, --successors-of, and the HTML dashboards. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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
#include "cliopt.h"
#include "dash.h"
#include "diff.h"
#include "export.h"
#include "list.h"
#include "perfetto.h"
#include "outfile.h"
#include "successors.h"
#include "tasknames.h"
#include "tasksel.h"
#include "numopt.h"
#include "termsafe.h"

extern char **environ;

static const char usage[] =
	"Usage: pwz-render [OPTIONS] FILE.cdict [FILE2.cdict ...]\n"
	"Draws perfwhiz's dashboards from pwz (v2) and perfwhiz (legacy) captures as single-file\n"
	"HTML pages that work offline; or lists what is inside a capture.\n"
	"A name without .cdict is accepted when NAME.cdict exists.\n"
	"\n"
	"  -t, --task PATTERN     the threads every mode shows (default: all): a word is the start of\n"
	"                         a name, as perfwhiz read it ('vm': vm1.vcpu0); a glob the whole\n"
	"                         name ('*vcpu0' = ends with vcpu0); regex syntax (. ^ $ + ( | \\ {)\n"
	"                         a regex from the start ('.*vcpu[01]'); digits a tid. Matched on the\n"
	"                         shown name, with --append-tid also without :tid; repeatable: the\n"
	"                         union. None matching: exit 1 with the closest names\n"
	"      --heatmaps         the heatmaps dashboard (one file) instead of the basic one\n"
	"      --max-points N     heatmaps: a series (one task's slices, waits, sleeps or exits)\n"
	"                         of more than N points is embedded as a time x log-value grid of\n"
	"                         counts, and core locality as per-column summaries (default 20000)\n"
	"  -f, --from MS          start the window MS milliseconds after the capture start\n"
	"  -c, --cap MS           end the window MS milliseconds after its start (default: the end)\n"
	"      --label TEXT       title of the page, and the output name (TEXT-charts.html)\n"
	"      --map CSV          rename tasks with a perfwhiz CSV map (tid,...,type,...,group-id,name)\n"
	"      --output-dir DIR   write the pages, traces or tables to DIR (default: beside the first\n"
	"                         file; for --export, .); made when missing, mode 0700 or --mode's\n"
	"                         with search\n"
	"      --mode MODE        the output files' mode (pages, Perfetto traces, Parquet files), octal\n"
	"                         (default 0600: they hold every task name; 0644 to share them)\n"
	"      --merge-sys-tasks  merge per-CPU system tasks (swapper/3 -> swapper)\n"
	"      --append-tid       show task names as name:tid\n"
	"  -l, --list             one line per task: tid, name, runtime, CPU %, switches, exits\n"
	"                         (with -t: the selected ones)\n"
	"      --json             with --list: one JSON document (an array for several files)\n"
	"      --successors-of T  which tasks ran next after the threads of T (a -t pattern): count\n"
	"                         and %\n"
	"                         (--json: one JSON document)\n"
	"      --perfetto         write a Perfetto trace (<name>.pftrace) per file, for ui.perfetto.dev:\n"
	"                         CPU tracks whole; -t keeps the wakeups and KVM exits of its tasks\n"
	"      --perfetto-gzip    the same, gzip-compressed (<name>.pftrace.gz)\n"
	"      --export parquet   write the captures as Parquet tables, DIR/<table>/<trace_id>.parquet\n"
	"                         (DIR: --output-dir, default .; see docs/fleet.md); -t: the\n"
	"                         selected threads' rows; a capture already in DIR (its trace_id\n"
	"                         there) is said and left, unless --force\n"
	"      --partial          read a capture that was cut short (killed writer): its whole chunks\n"
	"      --headless         accepted for perfmap compatibility (a browser opens only with --open)\n"
	"      --open             open the page in the default browser (xdg-open)\n"
	"      --force            replace existing files (default: a page or trace already at its\n"
	"                         name is kept, the new one gets NAME-2.html, NAME-2.pftrace, ...)\n"
	"  -q, --quiet            no progress lines (they are shown only when stderr is a terminal)\n"
	"  -h, --help             this text\n"
	"  -V, --version          pwz's version\n"
	"\n"
	"Output: <name>-charts_<task>.html, <name>-heatmaps_<task>.html,\n"
	"<first>-diff-<second>[-<third>...]-charts_<task>.html for several files, <label>-charts.html\n"
	"with --label; -f/-c add _f<MS>ms_c<MS>ms before .html; --perfetto: <name>.pftrace(.gz).\n"
	"The path written is printed. An existing page or trace is kept: the new one gets the first\n"
	"free NAME-<n>.html or NAME-<n>.pftrace(.gz), unless --force.\n"
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
	bool force;		/* --force: replace files at the output names */
	bool progress;		/* stderr is a terminal and no -q */
	int perfetto;		/* --perfetto: 1, --perfetto-gzip: 2 */
	const char *map_path;
	struct task_patterns *pats;	/* the -t patterns, compiled once (tasknames.h); NULL none */
	struct task_patterns *succ;	/* --successors-of's task, read as a -t pattern */
	const char *tasks[64];	/* the -t patterns as given */
	size_t nr_tasks;
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
	char safe[4 * 2048];

	fprintf(stderr, "pwz-render: %s%s", termsafe_str(safe, sizeof(safe), err), end);
}

/* One line on stderr, "pwz-render: " first, the whole line through termsafe(): paths and
 * names in messages come from the command line and the files. */
static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	char line[9216], safe[4 * sizeof(line)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "pwz-render: %s\n", termsafe_str(safe, sizeof(safe), line));
}

/* A path on a line of standard output, through termsafe() (a file name may hold controls). */
static void put_path(const char *path, const char *end)
{
	char safe[4 * 8192];

	printf("%s%s", termsafe_str(safe, sizeof(safe), path), end);
}

/* A progress line on a terminal (cli->progress): overwritten by the next, cleared by
 * progress_done(). */
static void progress(const struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const struct cli *cli, const char *fmt, ...)
{
	char line[1024], safe[4 * 1024];
	va_list ap;

	if (!cli->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "\rpwz-render: %s\033[K", termsafe_str(safe, sizeof(safe), line));
	fflush(stderr);
}

static void progress_done(const struct cli *cli)
{
	if (cli->progress)
		fputs("\r\033[K", stderr);
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

/* --output-dir, for every output (pages, traces, tables): made when missing (outfile.h's rule,
 * as pwz-bpf's --dest-folder). Returns 0 or -EINVAL with a message. */
static int open_output_dir(const struct cli *cli)
{
	char err[4096 + 256];
	int fd = outfile_dir_open(AT_FDCWD, cli->output_dir, cli->mode, 0, err, sizeof(err));

	if (fd < 0) {
		print_err(err, " (--output-dir)\n");
		return -EINVAL;
	}
	close(fd);
	return 0;
}

/* parse_args()'s long options without a short form */
enum { O_JSON = 256, O_MAP, O_PARTIAL, O_HEAT, O_LABEL, O_OUTDIR, O_MERGE, O_APPEND_TID, O_SUCC,
       O_HEADLESS, O_OPEN, O_MAXPTS, O_PERFETTO, O_PERFETTO_GZ, O_EXPORT, O_MODE, O_FORCE };

/* The options of parse_args() that take a value: checked and stored in cli. Returns 0, or
 * -EINVAL with a message. */
static int parse_value_opt(int c, const char *arg, struct cli *cli)
{
	switch (c) {
	case 't':
		if (!*arg || strchr(arg, '\n')) {
			fprintf(stderr, "pwz-render: -t: give a non-empty pattern on one line\n");
			return -EINVAL;
		}
		if (cli->nr_tasks == sizeof(cli->tasks) / sizeof(cli->tasks[0])) {
			fprintf(stderr, "pwz-render: -t: at most %zu patterns\n",
				sizeof(cli->tasks) / sizeof(cli->tasks[0]));
			return -EINVAL;
		}
		cli->tasks[cli->nr_tasks++] = arg;
		return 0;
	case 'f':
		if (parse_ms("--from", arg, &cli->from_ns))
			return -EINVAL;
		return 0;
	case 'c':
		if (parse_ms("--cap", arg, &cli->cap_ns))
			return -EINVAL;
		if (!cli->cap_ns) {
			fprintf(stderr, "pwz-render: --cap must be more than 0 ms\n");
			return -EINVAL;
		}
		return 0;
	case O_EXPORT:
		if (strcmp(arg, "parquet")) {
			msg("--export: '%s' is not a format (parquet)", arg);
			return -EINVAL;
		}
		cli->export_fmt = arg;
		return 0;
	case O_MAXPTS: {
		char safe[256];
		uint64_t v;

		if (numopt_parse_count(arg, SIZE_MAX / 64, &v)) {
			fprintf(stderr, "pwz-render: --max-points: '%s' is not a positive decimal count\n",
				termsafe_str(safe, sizeof(safe), arg));
			return -EINVAL;
		}
		cli->max_points = (size_t)v;
		return 0;
	}
	case O_MODE:
		if (outfile_parse_mode(arg, &cli->mode)) {
			fprintf(stderr, "pwz-render: --mode: '%s' is not a file mode (octal, at most 0777, with owner read and write: 0600, 0640, 0644)\n",
				arg);
			return -EINVAL;
		}
		return 0;
	}
	return 0;
}

/* What parse_args() checks once every option is read (optind: the first capture file), and
 * the -t and --successors-of patterns compiled. Returns 0, or -EINVAL with a message. */
static int check_args(int argc, struct cli *cli)
{
	char err[512];

	if (optind >= argc) {
		fprintf(stderr, "pwz-render: no capture file given (see 'pwz-render --help')\n");
		return -EINVAL;
	}
	if (cli->nr_tasks && cli->successors_of) {
		fprintf(stderr, "pwz-render: --successors-of takes its task as a -t pattern: drop -t\n");
		return -EINVAL;
	}
	if ((cli->nr_tasks && !(cli->pats = task_patterns__new(cli->tasks, cli->nr_tasks, err,
								sizeof(err)))) ||
	    (cli->successors_of && !(cli->succ = task_patterns__new(&cli->successors_of, 1, err,
								     sizeof(err))))) {
		print_err(err, "\n");
		return -EINVAL;
	}
	if (cli->json && !cli->list && !cli->successors_of) {
		fprintf(stderr, "pwz-render: --json goes with --list or --successors-of\n");
		return -EINVAL;
	}
	if (cli->heatmaps && argc - optind > 1) {
		fprintf(stderr, "pwz-render: --heatmaps takes one capture file, not %d\n", argc - optind);
		return -EINVAL;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct cli *cli)
{
	static const struct option longopts[] = {
		{ "task", required_argument, NULL, 't' },
		{ "heatmaps", no_argument, NULL, O_HEAT },
		{ "from", required_argument, NULL, 'f' },
		{ "cap", required_argument, NULL, 'c' },
		{ "label", required_argument, NULL, O_LABEL },
		{ "map", required_argument, NULL, O_MAP },
		{ "output-dir", required_argument, NULL, O_OUTDIR },
		{ "merge-sys-tasks", no_argument, NULL, O_MERGE },
		{ "append-tid", no_argument, NULL, O_APPEND_TID },
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
		{ "force", no_argument, NULL, O_FORCE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	/* perfmap's options that pwz-render does not have (none known so far) */
	static const struct cliopt_removed removed[] = {
		{ NULL, NULL },
	};
	static const char shortopts[] = "t:f:c:lhVq";
	char err[512];
	bool quiet = false;
	int c;

	if (cliopt_check_exact(argc, argv, shortopts, longopts, removed, err, sizeof(err))) {
		print_err(err, "\n");
		return -EINVAL;
	}
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 't':
		case 'f':
		case 'c':
		case O_EXPORT:
		case O_MAXPTS:
		case O_MODE:
			if (parse_value_opt(c, optarg, cli))
				return -EINVAL;
			break;
		case 'q': quiet = true; break;
		case O_FORCE: cli->force = true; break;
		case O_HEAT: cli->heatmaps = true; break;
		case O_LABEL: cli->label = optarg; break;
		case O_MAP: cli->map_path = optarg; break;
		case O_OUTDIR: cli->output_dir = optarg; break;
		case O_MERGE: cli->merge_sys = true; break;
		case O_APPEND_TID: cli->append_tid = true; break;
		case 'l': cli->list = true; break;
		case O_JSON: cli->json = true; break;
		case O_SUCC: cli->successors_of = optarg; break;
		case O_PARTIAL: cli->partial = true; break;
		case O_HEADLESS: break;
		case O_OPEN: cli->open = true; break;
		case O_PERFETTO: cli->perfetto = 1; break;
		case O_PERFETTO_GZ: cli->perfetto = 2; break;
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
	if (check_args(argc, cli))
		return -EINVAL;
	cli->progress = !quiet && isatty(STDERR_FILENO);
	if (cli->output_dir && !cli->list && !cli->successors_of)
		return open_output_dir(cli);
	return 0;
}

/* The one warning of a capture read with --partial, once per file whatever reads it (a
 * command may load a file twice). */
static void warn_cut(const struct cli *cli, const char *path)
{
	char safe[4 * 4096];

	progress_done(cli);
	fprintf(stderr, "pwz-render: warning: %s: cut short (a killed capture or a truncated file): only its whole chunks are read\n",
		termsafe_str(safe, sizeof(safe), path));
}

/* Loads one file, with its streams, or with them when its META says streams_if_meta
 * (trace_load_opts); refuses a cut file unless --partial (the caller warns: warn_cut()). */
static struct trace *load(const struct cli *cli, const char *path, const struct task_map *map,
			  bool streams, bool streams_if_meta)
{
	bool window = cli->from_ns > 0 || cli->cap_ns > 0;
	struct trace_load_opts lo = { .streams = streams, .streams_if_meta = streams_if_meta,
				      .map = map };
	char err[512], safe[4 * 4096];
	struct trace *t;

	progress(cli, "loading %s", path);
	t = trace__load(path, &lo, err, sizeof(err));
	if (!t) {
		progress_done(cli);
		print_err(err, "\n");
		return NULL;
	}
	if (t->info.cut && !cli->partial) {
		progress_done(cli);
		fprintf(stderr,
			"pwz-render: %s: cut short at offset %llu (the capture was killed or the file truncated); --partial shows its %llu whole chunks\n",
			termsafe_str(safe, sizeof(safe), t->path), t->info.cut_offset, t->info.chunks);
		trace__free(t);
		return NULL;
	}
	if (t->info.cut && !t->streams) {
		/* the aggregates come at the end of a capture: a cut one has only its streams (and
		 * at most part of its aggregates), which summary__new() folds */
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

/* The naming every view uses (tasknames.h's one rule). */
static struct task_label_opts label_opts(const struct cli *cli, const struct task_map *map)
{
	return (struct task_label_opts){ .map = map, .merge_sys = cli->merge_sys,
					 .append_tid = cli->append_tid };
}

/*
 * The selection of p (-t, or --successors-of's task) in t (tasksel.h), into *sel: NULL without
 * patterns. When p matches no thread of t: 0 with an empty selection when empty_ok (a run of a
 * diff), else 1 with tasksel_nomatch()'s message, as every mode fails. 1 out of memory.
 */
static int resolve(const struct cli *cli, const struct task_patterns *p, const struct trace *t,
		   const struct task_map *map, bool empty_ok, struct tasksel **sel)
{
	struct task_label_opts lo = label_opts(cli, map);
	char err[2048];

	*sel = NULL;
	if (!p)
		return 0;
	*sel = tasksel__new(p, &lo, t);
	if (!*sel) {
		fprintf(stderr, "pwz-render: out of memory\n");
		return 1;
	}
	if (tasksel__count(*sel) || empty_ok)
		return 0;
	tasksel_nomatch(*sel, err, sizeof(err));
	print_err(err, "\n");
	tasksel__free(*sel);
	*sel = NULL;
	return 1;
}

static bool has_window(const struct cli *cli)
{
	return cli->from_ns > 0 || cli->cap_ns > 0;
}

static int do_list(const struct cli *cli, char **files, int nfiles, const struct task_map *map)
{
	struct jbuf out = { 0 };
	char err[1024];
	int i, ret = 0;

	if (cli->json && nfiles > 1)
		jbuf_puts(&out, "[\n");
	for (i = 0; i < nfiles && !ret; i++) {
		/* --json's VMs and wait percentiles are made from the streams */
		struct trace *t = load(cli, files[i], map, has_window(cli) || cli->json, false);
		struct tasksel *sel = NULL;
		struct summary_opts w;
		struct summary *s = NULL;

		if (!t || resolve(cli, cli->pats, t, map, false, &sel)) {
			trace__free(t);
			ret = 1;
			break;
		}
		if (t->info.cut)
			warn_cut(cli, t->path);
		w = window_of(cli);
		progress(cli, "summarising %s", files[i]);
		s = summary__new(t, &w, err, sizeof(err));
		progress_done(cli);
		if (s) {
			tasksel_keep_rows(sel, s);
			if (sel && !s->nr_tasks) {	/* as the pages: nothing of -t in the window */
				tasksel_none_ran(sel, s->window_start_ns, s->window_end_ns, err,
						 sizeof(err));
				ret = 1;
			}
		} else {
			ret = 1;
		}
		if (ret) {
			print_err(err, "\n");
		} else if (cli->json) {
			if (i > 0)
				jbuf_puts(&out, ",\n");
			list_json(&out, t, s, sel);
		} else {
			list_plain(&out, t, s, sel);
		}
		summary__free(s);
		tasksel__free(sel);
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
	struct jbuf out = { 0 };
	int i, rc = 0;

	if (cli->json && nfiles > 1)
		jbuf_puts(&out, "[\n");
	for (i = 0; i < nfiles; i++) {
		struct trace *t = load(cli, files[i], map, true, false);
		struct tasksel *who = NULL;
		struct summary_opts w;
		struct successors *s;
		size_t k;

		if (!t || resolve(cli, cli->succ, t, map, false, &who)) {
			trace__free(t);
			rc = 1;
			break;
		}
		if (t->info.cut)
			warn_cut(cli, t->path);
		w = window_of(cli);
		progress(cli, "successors of %s in %s", cli->successors_of, files[i]);
		s = successors__new(t, who, &w, err, sizeof(err));
		progress_done(cli);
		tasksel__free(who);
		if (!s) {
			print_err(err, "\n");
			trace__free(t);
			rc = 1;
			break;
		}
		if (cli->json) {
			if (i > 0)
				jbuf_puts(&out, ",\n");
			successors_json(&out, t->path, s);
			successors__free(s);
			trace__free(t);
			continue;
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
	if (cli->json && nfiles > 1)
		jbuf_puts(&out, "\n]");
	if (cli->json)
		jbuf_puts(&out, "\n");
	if (!rc && out.err) {
		fprintf(stderr, "pwz-render: out of memory\n");
		rc = 1;
	}
	if (!rc && cli->json && fwrite(out.buf, 1, out.len, stdout) != out.len)
		rc = 1;
	jbuf_free(&out);
	return rc;
}

/* The file name without directory and without ".cdict". */
static void base_name(const char *path, char *out, size_t outlen)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = outfile_final_len(b);	/* a killed capture's NAME.cdict.XXXXXX.part is NAME */
	if (n > 6 && !strncmp(b + n - 6, ".cdict", 6))
		n -= 6;
	snprintf(out, outlen, "%.*s", (int)n, b);
}

/* Appends src to out (at *k, below outlen) with what cannot be in a file name made '_'. */
static void name_add(char *out, size_t outlen, size_t *k, const char *src)
{
	for (; *src && *k + 1 < outlen; src++)
		out[(*k)++] = (*src == '/' || *src == '*' || *src == '?' || *src == ' ' ||
			       *src == '\n' || (unsigned char)*src < 0x20) ? '_' : *src;
	out[*k] = '\0';
}

/* A millisecond figure for a file name: "1000", "1.5". */
static void ms_text(uint64_t ns, char *out, size_t outlen)
{
	if (ns % 1000000 == 0) {
		snprintf(out, outlen, "%llu", (unsigned long long)(ns / 1000000));
	} else {
		size_t n;

		snprintf(out, outlen, "%llu.%06llu", (unsigned long long)(ns / 1000000),
			 (unsigned long long)(ns % 1000000));
		n = strlen(out);
		while (n && out[n - 1] == '0')
			out[--n] = '\0';
	}
}

/*
 * perfmap's output name, made unique to what the page shows:
 * DIR/<base>[-diff-<base2>...]-<kind>_<task>[_f<MS>ms][_c<MS>ms].html, or
 * DIR/<label>-<kind>[_f..][_c..].html. <task> is the -t patterns without their leading '*' or
 * ".*", joined with '+' ("all" without -t).
 */
static void output_name(const struct cli *cli, char **files, int nfiles, const char *kind,
			char *out, size_t outlen)
{
	char dir[4096], name[1024], ms[64];
	size_t k = 0;

	if (cli->output_dir) {
		snprintf(dir, sizeof(dir), "%s", cli->output_dir);
	} else {
		char tmp[4096];

		snprintf(tmp, sizeof(tmp), "%s", files[0]);
		snprintf(dir, sizeof(dir), "%s", dirname(tmp));
	}
	name[0] = '\0';
	if (cli->label) {
		char lab[512];

		snprintf(lab, sizeof(lab), "%s", cli->label);
		for (size_t i = 0; lab[i]; i++)
			if (lab[i] == ' ')
				lab[i] = '-';
		name_add(name, sizeof(name), &k, lab);
		name_add(name, sizeof(name), &k, "-");
		name_add(name, sizeof(name), &k, kind);
	} else {
		for (int i = 0; i < nfiles; i++) {
			char base[512];

			base_name(files[i], base, sizeof(base));
			if (i)
				name_add(name, sizeof(name), &k, i == 1 ? "-diff-" : "-");
			name_add(name, sizeof(name), &k, base);
		}
		name_add(name, sizeof(name), &k, "-");
		name_add(name, sizeof(name), &k, kind);
		name_add(name, sizeof(name), &k, "_");
		for (size_t i = 0; i < cli->nr_tasks; i++) {
			const char *p = cli->tasks[i];

			while (*p == '*' || !strncmp(p, ".*", 2))
				p += *p == '*' ? 1 : 2;
			if (i)
				name_add(name, sizeof(name), &k, "+");
			name_add(name, sizeof(name), &k, *p ? p : "_");
		}
		if (!cli->nr_tasks)
			name_add(name, sizeof(name), &k, "all");
	}
	if (cli->from_ns) {
		ms_text(cli->from_ns, ms, sizeof(ms));
		name_add(name, sizeof(name), &k, "_f");
		name_add(name, sizeof(name), &k, ms);
		name_add(name, sizeof(name), &k, "ms");
	}
	if (cli->cap_ns) {
		ms_text(cli->cap_ns, ms, sizeof(ms));
		name_add(name, sizeof(name), &k, "_c");
		name_add(name, sizeof(name), &k, ms);
		name_add(name, sizeof(name), &k, "ms");
	}
	snprintf(out, outlen, "%s/%s.html", dir, name);
}

/* What every output does with a file at its name: kept, the new one numbered, unless --force. */
static struct outfile_opts file_opts(const struct cli *cli)
{
	return (struct outfile_opts){ .mode = cli->mode,
				      .exists = cli->force ? OUTFILE_REPLACE : OUTFILE_NUMBER };
}

/* Says that asked was kept when the file went to another name, written. */
static void note_kept(const char *asked, const char *written)
{
	if (strcmp(asked, written))
		msg("%s is already there: kept (--force replaces it)", asked);
}

/* Writes the page through a temporary of its own (outfile.h), committed to path or, when a
 * file is there and no --force, the first free NAME-<n>.html: path becomes the name written. */
static int write_file(const struct cli *cli, char *path, size_t pathlen, const struct jbuf *b)
{
	struct outfile_opts oo = file_opts(cli);
	struct outfile of;
	const char *p = b->buf;
	size_t left = b->len;
	int e = outfile_open(&of, path, &oo);

	if (e) {
		msg("cannot create a temporary file for %s: %s", path, strerror(-e));
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
	if (e) {
		msg("cannot write %s: %s", path, strerror(-e));
	} else {
		note_kept(path, of.path);
		snprintf(path, pathlen, "%s", of.path);
	}
	outfile_close(&of);
	return e;
}

static void open_browser(const char *path)
{
	char *argv[] = { "xdg-open", (char *)path, NULL };
	pid_t pid;

	if (posix_spawnp(&pid, "xdg-open", NULL, NULL, argv, environ)) {
		msg("cannot run xdg-open to open %s", path);
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

/* -t for the runs of a page: each trace's selection into sel[]; a diff fails only when no run
 * has a thread of it (with the first run's message). Returns 0 or 1 with a message. */
static int select_runs(const struct cli *cli, struct trace **t, int n, const struct task_map *map,
		       struct tasksel **sel)
{
	char err[2048];

	for (int i = 0; i < n; i++)
		if (resolve(cli, cli->pats, t[i], map, n > 1, &sel[i]))
			return 1;
	for (int i = 0; i < n; i++)
		if (!sel[i] || tasksel__count(sel[i]))
			return 0;
	tasksel_nomatch(sel[0], err, sizeof(err));
	print_err(err, "\n");
	return 1;
}

/* Whether the basic dashboard of t reads its streams: the VMs tab of a KVM capture, the sleeps
 * by state of slices with their prev_state. */
static bool needs_streams(const struct trace *t)
{
	return t->nr_kvm_aggs || t->meta.has_prev_state;
}

/* The captures of a dashboard loaded into t (with their streams when a view needs them), their
 * base names into names and the names that tell them apart into shorts. Returns 0, or 1 with a
 * message (what is loaded is the caller's to free). */
static int load_runs(const struct cli *cli, char **files, int nfiles, const struct task_map *map,
		     struct trace **t, char **names, char **shorts)
{
	bool streams = cli->heatmaps || has_window(cli);

	for (int i = 0; i < nfiles; i++) {
		char base[512];

		/* the VMs tab needs a KVM capture's streams, the sleeps by state the slices: kept
		 * as the file is read when its META announces either */
		t[i] = load(cli, files[i], map, streams, true);
		if (t[i] && !streams && needs_streams(t[i]) && !t[i]->streams) {
			trace__free(t[i]);
			t[i] = load(cli, files[i], map, true, false);
		} else if (t[i] && !streams && !needs_streams(t[i]) && t[i]->streams &&
			   !t[i]->info.cut) {
			/* a KVM capture without exits: read as before, without its streams */
			trace__drop_streams(t[i]);
		}
		if (!t[i])
			return 1;
		if (t[i]->info.cut)
			warn_cut(cli, t[i]->path);
		base_name(files[i], base, sizeof(base));
		names[i] = strdup(base);
		if (!names[i]) {
			fprintf(stderr, "pwz-render: out of memory\n");
			return 1;
		}
	}
	if (diff_short_names((const char *const *)names, (size_t)nfiles, shorts)) {
		fprintf(stderr, "pwz-render: out of memory\n");
		return 1;
	}
	return 0;
}

/* The page of json (dash.h) built, written under its output name (output_name(), kept files
 * numbered: write_file()), its path printed and opened with --open. Returns 0, or 1 with a
 * message. */
static int write_page(const struct cli *cli, char **files, int nfiles, const char *title,
		      const struct jbuf *json, const struct dash_opts *o)
{
	const char *kind = cli->heatmaps ? "heatmaps" : "charts";
	struct jbuf html = { 0 };
	char path[8192];
	int rc;

	progress(cli, "building the page");
	rc = dash_html(&html, kind, title, json, o);
	if (rc) {
		progress_done(cli);
		fprintf(stderr, "pwz-render: cannot build the page: %s\n", strerror(-rc));
		jbuf_free(&html);
		return 1;
	}
	progress(cli, "writing the page");
	output_name(cli, files, nfiles, kind, path, sizeof(path));
	rc = write_file(cli, path, sizeof(path), &html);
	progress_done(cli);
	if (!rc) {
		put_path(path, "\n");
		msg("wrote %s (%zu KiB, data %zu KiB)", path, html.len / 1024, json->len / 1024);
		if (cli->open)
			open_browser(path);
	}
	jbuf_free(&html);
	return rc ? 1 : 0;
}

static int do_dashboard(const struct cli *cli, char **files, int nfiles,
			const struct task_map *map)
{
	struct trace **t = calloc((size_t)nfiles, sizeof(*t));
	struct dash_run *runs = calloc((size_t)nfiles, sizeof(*runs));
	char **names = calloc((size_t)nfiles, sizeof(*names));
	char **shorts = calloc((size_t)nfiles, sizeof(*shorts));
	struct jbuf json = { 0 };
	struct dash_opts o = { .version = PWZ_VERSION };
	struct tasksel **sel = calloc((size_t)nfiles, sizeof(*sel));
	char err[2048], date[64], label[512], title[1024], shown[4096] = "";
	const char *kind = cli->heatmaps ? "heatmaps" : "charts";
	int i, rc = 1;

	if (!t || !runs || !names || !shorts || !sel) {
		fprintf(stderr, "pwz-render: out of memory\n");
		goto out;
	}
	if (load_runs(cli, files, nfiles, map, t, names, shorts) ||
	    select_runs(cli, t, nfiles, map, sel))
		goto out;
	for (i = 0; i < nfiles; i++)
		runs[i] = (struct dash_run){ .trace = t[i], .name = names[i], .short_name = shorts[i],
					     .sel = sel[i] };
	for (size_t j = 0, k = 0; j < cli->nr_tasks; j++)	/* "-t a, -t b" as given */
		k += (size_t)snprintf(shown + k, k < sizeof(shown) ? sizeof(shown) - k : 0, "%s%s",
				      j ? ", " : "", cli->tasks[j]);
	o.pattern = cli->nr_tasks ? shown : NULL;

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
	progress(cli, "computing the %s of %d file%s", kind, nfiles, nfiles > 1 ? "s" : "");
	if (cli->heatmaps) {
		rc = dash_heatmaps_json(&json, &runs[0], &o, err, sizeof(err));
	} else {
		rc = dash_charts_json(&json, runs, (size_t)nfiles, &o, err, sizeof(err));
	}
	progress_done(cli);
	if (rc) {
		print_err(err, "\n");
		rc = 1;
		goto out;
	}
	snprintf(title, sizeof(title), "%s — %s%s%s", label,
		 dash_title_kind(runs, (size_t)nfiles, cli->heatmaps), cli->nr_tasks ? " — " : "",
		 shown);
	rc = write_page(cli, files, nfiles, title, &json, &o);
out:
	jbuf_free(&json);
	for (i = 0; i < nfiles; i++) {
		if (sel)
			tasksel__free(sel[i]);
		if (t)
			trace__free(t[i]);
		if (names)
			free(names[i]);
		if (shorts)
			free(shorts[i]);
	}
	free(sel);
	free(t);
	free(runs);
	free(names);
	free(shorts);
	return rc;
}

/* -t for a mode that streams the capture (--perfetto, --export): its threads, resolved against
 * its task records and aggregates loaded first (*t, which *sel refers to). Both NULL without
 * -t. Returns 0, or 1 with a message (-t matches no thread, a file that does not load). */
static int select_tasks(const struct cli *cli, const char *path, const struct task_map *map,
			struct trace **t, struct tasksel **sel)
{
	*t = NULL;
	*sel = NULL;
	if (!cli->pats)
		return 0;
	*t = load(cli, path, map, false, false);
	if (*t && !resolve(cli, cli->pats, *t, map, false, sel))
		return 0;
	trace__free(*t);
	*t = NULL;
	return 1;
}

/* With --force, two files whose traces have one name (x.cdict and other/x.cdict into one
 * --output-dir): the second would replace the first, so nothing is written. Without --force the
 * second is numbered. Returns 0, or 1 with a message. */
static int check_trace_names(const struct cli *cli, char **files, int nfiles)
{
	char **paths, path[8192];
	int rc = 0;

	if (!cli->force)
		return 0;
	paths = calloc((size_t)nfiles, sizeof(*paths));
	for (int i = 0; paths && i < nfiles && !rc; i++) {
		perfetto_output_path(files[i], cli->output_dir, cli->perfetto == 2, path, sizeof(path));
		paths[i] = strdup(path);
		if (!paths[i])
			break;
		for (int j = 0; j < i && !rc; j++) {
			if (strcmp(paths[i], paths[j]))
				continue;
			msg("%s and %s would both write %s (--force: the second would replace the first); give them different names or leave out --force",
			    files[j], files[i], path);
			rc = 1;
		}
	}
	if (!paths || (!rc && !paths[nfiles - 1])) {
		fprintf(stderr, "pwz-render: out of memory\n");
		rc = 1;
	}
	for (int i = 0; paths && i < nfiles; i++)
		free(paths[i]);
	free(paths);
	return rc;
}

/* --perfetto: one trace per file (render/perfetto.h). */
static int do_perfetto(const struct cli *cli, char **files, int nfiles, const struct task_map *map)
{
	struct summary_opts w = window_of(cli);
	struct perfetto_opts o = { .from_ns = w.from_ns,
				   .cap_ns = w.cap_ns, .merge_sys = cli->merge_sys,
				   .partial = cli->partial, .gzip = cli->perfetto == 2, .map = map,
				   .mode = cli->mode, .exists = file_opts(cli).exists };
	char err[1024], path[8192];

	if (check_trace_names(cli, files, nfiles))
		return 1;
	for (int i = 0; i < nfiles; i++) {
		struct perfetto_stats st;
		struct tasksel *sel;
		struct trace *t;
		int e;

		if (select_tasks(cli, files[i], map, &t, &sel))
			return 1;
		o.sel = sel;
		perfetto_output_path(files[i], cli->output_dir, o.gzip, path, sizeof(path));
		progress(cli, "exporting %s", files[i]);
		e = perfetto_export(files[i], path, &o, &st, err, sizeof(err));
		progress_done(cli);
		tasksel__free(sel);
		trace__free(t);
		if (e) {
			msg("%s", err);
			return 1;
		}
		if (st.cut)
			warn_cut(cli, files[i]);
		note_kept(path, st.path);
		snprintf(path, sizeof(path), "%s", st.path);
		put_path(path, "\n");
		msg("wrote %s (%llu KiB before compression: %llu switches, %llu wakeups, %llu KVM exits, %llu threads; scheduling bundles %.1f bytes per switch, %.1f without the wakeups; KVM exit slices %.1f bytes per exit)",
			path, (unsigned long long)st.bytes / 1024, (unsigned long long)st.switches,
			(unsigned long long)st.wakings, (unsigned long long)st.exits,
			(unsigned long long)st.threads,
			st.switches ? (double)st.sched_bytes / (double)st.switches : 0.0,
			st.switches ? (double)(st.sched_bytes - st.waking_bytes) / (double)st.switches : 0.0,
			st.exits ? (double)st.exit_bytes / (double)st.exits : 0.0);
		if (st.state_tracks)
			msg("%llu vCPU state tracks: %llu state slices, %.1f bytes each",
			    (unsigned long long)st.state_tracks, (unsigned long long)st.states,
			    st.states ? (double)st.state_bytes / (double)st.states : 0.0);
		if (st.overlaps)
			msg("warning: %s: %llu run slices began before the previous one on their CPU ended; the earlier ones are cut there",
			    files[i], (unsigned long long)st.overlaps);
	}
	return 0;
}

/* --export parquet: each file into the table folders of --output-dir (default .). */
static int do_export(const struct cli *cli, char **files, int nfiles, const struct task_map *map)
{
	struct export_opts o = { .partial = cli->partial, .mode = cli->mode, .force = cli->force };
	const char *dir = cli->output_dir ? cli->output_dir : ".";
	struct export_result r;
	char err[2048];

	for (int i = 0; i < nfiles; i++) {
		struct tasksel *sel;
		struct trace *t;
		int e;

		if (select_tasks(cli, files[i], map, &t, &sel))
			return 1;
		o.sel = sel;
		e = export_parquet(files[i], dir, &o, &r, err, sizeof(err));
		tasksel__free(sel);
		trace__free(t);
		if (e) {
			print_err(err, "\n");
			return 1;
		}
		if (r.cut)
			warn_cut(cli, files[i]);
		if (r.already) {
			put_path(files[i], "");
			printf("\t%s\talready there\n", r.trace_id);
			msg("%s: its trace_id %s is in %s already (the same bytes were exported): left as it is (--force writes it again)",
			    files[i], r.trace_id, dir);
			continue;
		}
		put_path(files[i], "");
		printf("\t%s\t%llu slices\n", r.trace_id, (unsigned long long)r.rows[EXPORT_SCHED_SLICE]);
		if (r.split_forced)
			msg("%s: %llu KVM exits split into on/off-CPU time before every CPU's slices reached them (past the memory bound): their split may miss a slice",
			    files[i], (unsigned long long)r.split_forced);
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
		ret = do_export(&cli, argv + optind, argc - optind, map);
	else if (cli.list)
		ret = do_list(&cli, argv + optind, argc - optind, map);
	else if (cli.successors_of)
		ret = do_successors(&cli, argv + optind, argc - optind, map);
	else
		ret = do_dashboard(&cli, argv + optind, argc - optind, map);
	task_map__free(map);
	task_patterns__free(cli.pats);
	task_patterns__free(cli.succ);
	return stdout_status(ret);
}
