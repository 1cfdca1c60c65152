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
	"                         with vcpu0), or a tid when all digits (default: all tasks); with\n"
	"                         regex syntax (. ^ $ + ( | \\ {) also a regex anchored at the start,\n"
	"                         as perfwhiz read it ('.*vcpu0'); repeatable: the union\n"
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
	"                         (with -t: the tasks that match)\n"
	"      --json             with --list: one JSON document (an array for several files)\n"
	"      --successors-of T  which tasks ran next after task T (tid or name): count and %\n"
	"                         (--json: one JSON document)\n"
	"      --perfetto         write a Perfetto trace (<name>.pftrace) per file, for ui.perfetto.dev:\n"
	"                         CPU tracks whole; -t keeps the wakeups and KVM exits of its tasks\n"
	"      --perfetto-gzip    the same, gzip-compressed (<name>.pftrace.gz)\n"
	"      --export parquet   write the captures as Parquet tables, DIR/<table>/<trace_id>.parquet\n"
	"                         (DIR: --output-dir, default .; see docs/fleet.md); a capture already\n"
	"                         in DIR (its trace_id there) is said and left, unless --force\n"
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
	const char *pattern;	/* the -t patterns as a set (tasknames.h), or NULL */
	char patterns[4096];	/* its storage */
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
	char safe[4 * 512];

	fprintf(stderr, "pwz-render: %s%s", termsafe_str(safe, sizeof(safe), err), end);
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

static int parse_args(int argc, char **argv, struct cli *cli)
{
	enum { O_JSON = 256, O_MAP, O_PARTIAL, O_HEAT, O_LABEL, O_OUTDIR, O_MERGE, O_APPEND_TID,
	       O_SUCC, O_HEADLESS, O_OPEN, O_MAXPTS, O_PERFETTO, O_PERFETTO_GZ, O_EXPORT, O_MODE,
	       O_FORCE };
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
			if (!*optarg || strchr(optarg, '\n')) {
				fprintf(stderr, "pwz-render: -t: give a non-empty pattern on one line\n");
				return -EINVAL;
			}
			if (cli->nr_tasks == sizeof(cli->tasks) / sizeof(cli->tasks[0])) {
				fprintf(stderr, "pwz-render: -t: at most %zu patterns\n",
					sizeof(cli->tasks) / sizeof(cli->tasks[0]));
				return -EINVAL;
			}
			cli->tasks[cli->nr_tasks++] = optarg;
			break;
		case 'q': quiet = true; break;
		case O_FORCE: cli->force = true; break;
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
		case O_APPEND_TID: cli->append_tid = true; break;
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
	if (cli->nr_tasks) {
		if (task_patterns_join(cli->tasks, cli->nr_tasks, cli->patterns,
				       sizeof(cli->patterns))) {
			fprintf(stderr, "pwz-render: -t: the patterns are too long together\n");
			return -EINVAL;
		}
		cli->pattern = cli->patterns;
	}
	cli->progress = !quiet && isatty(STDERR_FILENO);
	if (cli->json && !cli->list && !cli->successors_of) {
		fprintf(stderr, "pwz-render: --json goes with --list or --successors-of\n");
		return -EINVAL;
	}
	if (cli->heatmaps && argc - optind > 1) {
		fprintf(stderr, "pwz-render: --heatmaps takes one capture file, not %d\n", argc - optind);
		return -EINVAL;
	}
	if (cli->output_dir && !cli->list && !cli->successors_of)
		return open_output_dir(cli);
	return 0;
}

/* Loads one file; refuses a cut file unless --partial. */
static struct trace *load(const struct cli *cli, const char *path, const struct task_map *map,
			  bool streams)
{
	bool window = cli->from_ns > 0 || cli->cap_ns > 0;
	struct trace_load_opts lo = { .streams = streams, .map = map };
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
	if (t->info.cut) {
		progress_done(cli);
		fprintf(stderr, "pwz-render: warning: %s: cut short at offset %llu, showing its whole chunks\n",
			termsafe_str(safe, sizeof(safe), t->path), t->info.cut_offset);
	}
	if (t->info.cut && !streams) {
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

/* -t with --list: the rows that match moved to the front, in their order (the others after
 * them, still owned by s); returns their number. */
static size_t keep_matching(struct summary *s, const char *pattern)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nr_tasks; i++) {
		if (!task_pattern_match(pattern, s->tasks[i].name, s->tasks[i].tid))
			continue;
		if (i != k) {
			struct task_summary tmp = s->tasks[k];

			s->tasks[k] = s->tasks[i];
			s->tasks[i] = tmp;
		}
		k++;
	}
	return k;
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
		size_t n;

		if (!t) {
			ret = 1;
			break;
		}
		w = window_of(cli);
		progress(cli, "summarising %s", files[i]);
		s = summary__new(t, &w, err, sizeof(err));
		progress_done(cli);
		if (!s) {
			print_err(err, "\n");
			trace__free(t);
			ret = 1;
			break;
		}
		n = s->nr_tasks;
		if (cli->pattern)
			s->nr_tasks = keep_matching(s, cli->pattern);
		if (cli->json) {
			if (i > 0)
				jbuf_puts(&out, ",\n");
			list_json(&out, t, s);
		} else {
			list_plain(&out, t, s);
		}
		s->nr_tasks = n;	/* summary__free() frees every row */
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
	struct jbuf out = { 0 };
	int i, rc = 0;

	if (cli->json && nfiles > 1)
		jbuf_puts(&out, "[\n");
	for (i = 0; i < nfiles; i++) {
		struct trace *t = load(cli, files[i], map, true);
		struct summary_opts w;
		struct successors *s;
		size_t k;

		if (!t) {
			rc = 1;
			break;
		}
		w = window_of(cli);
		progress(cli, "successors of %s in %s", cli->successors_of, files[i]);
		s = successors__new(t, cli->successors_of, &w, err, sizeof(err));
		progress_done(cli);
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
	n = strlen(b);
	/* a killed capture's NAME.cdict.XXXXXX.part (outfile.h) is NAME */
	if (n > 18 && !strcmp(b + n - 5, ".part") && !strncmp(b + n - 18, ".cdict.", 7))
		n -= 18;
	if (n > 6 && !strcmp(b + n - 6, ".cdict"))
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
		fprintf(stderr, "pwz-render: %s is already there: kept (--force replaces it)\n", asked);
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
	if (e) {
		fprintf(stderr, "pwz-render: cannot write %s: %s\n", path, strerror(-e));
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
		if (t[i] && !streams && (t[i]->nr_kvm_aggs || t[i]->meta.has_prev_state)) {
			/* the VMs tab needs a KVM capture's streams, the sleeps by state the slices */
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
	progress(cli, "computing the %s of %d file%s", kind, nfiles, nfiles > 1 ? "s" : "");
	if (cli->heatmaps) {
		rc = dash_heatmaps_json(&json, &runs[0], &o, err, sizeof(err));
	} else {
		rc = dash_charts_json(&json, runs, (size_t)nfiles, &o, err, sizeof(err));
	}
	progress_done(cli);
	if (rc) {
		print_err(err, "");
		if (rc == -ENOENT)
			print_task_names(t[0], &o.window);
		else
			fputc('\n', stderr);
		rc = 1;
		goto out;
	}
	{
		char shown[sizeof(cli->patterns) * 2] = "";
		size_t k = 0;

		for (size_t j = 0; j < cli->nr_tasks; j++)
			k += (size_t)snprintf(shown + k, k < sizeof(shown) ? sizeof(shown) - k : 0,
					      "%s%s", j ? ", " : "", cli->tasks[j]);
		snprintf(title, sizeof(title), "%s — %s%s%s", label,
			 dash_title_kind(runs, (size_t)nfiles, cli->heatmaps),
			 cli->pattern ? " — " : "", shown);
	}
	progress(cli, "building the page");
	rc = dash_html(&html, kind, title, &json, &o);
	if (rc) {
		fprintf(stderr, "pwz-render: cannot build the page: %s\n", strerror(-rc));
		rc = 1;
		goto out;
	}
	progress(cli, "writing the page");
	output_name(cli, files, nfiles, kind, path, sizeof(path));
	if (write_file(cli, path, sizeof(path), &html)) {
		progress_done(cli);
		rc = 1;
		goto out;
	}
	progress_done(cli);
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
			fprintf(stderr, "pwz-render: %s and %s would both write %s (--force: the second would replace the first); give them different names or leave out --force\n",
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
	struct perfetto_opts o = { .pattern = cli->pattern, .from_ns = w.from_ns,
				   .cap_ns = w.cap_ns, .merge_sys = cli->merge_sys,
				   .partial = cli->partial, .gzip = cli->perfetto == 2, .map = map,
				   .mode = cli->mode, .exists = file_opts(cli).exists };
	char err[1024], path[8192];

	if (check_trace_names(cli, files, nfiles))
		return 1;
	for (int i = 0; i < nfiles; i++) {
		struct perfetto_stats st;
		int e;

		perfetto_output_path(files[i], cli->output_dir, o.gzip, path, sizeof(path));
		progress(cli, "exporting %s", files[i]);
		e = perfetto_export(files[i], path, &o, &st, err, sizeof(err));
		progress_done(cli);
		if (e) {
			fprintf(stderr, "pwz-render: %s\n", err);
			return 1;
		}
		if (st.cut)
			fprintf(stderr, "pwz-render: warning: %s: cut short, exported its whole chunks\n",
				files[i]);
		note_kept(path, st.path);
		snprintf(path, sizeof(path), "%s", st.path);
		printf("%s\n", path);
		fprintf(stderr, "pwz-render: wrote %s (%llu KiB before compression: %llu switches, %llu wakeups, %llu KVM exits, %llu threads; scheduling bundles %.1f bytes per switch, %.1f without the wakeups; KVM exit slices %.1f bytes per exit)\n",
			path, (unsigned long long)st.bytes / 1024, (unsigned long long)st.switches,
			(unsigned long long)st.wakings, (unsigned long long)st.exits,
			(unsigned long long)st.threads,
			st.switches ? (double)st.sched_bytes / (double)st.switches : 0.0,
			st.switches ? (double)(st.sched_bytes - st.waking_bytes) / (double)st.switches : 0.0,
			st.exits ? (double)st.exit_bytes / (double)st.exits : 0.0);
		if (st.overlaps)
			fprintf(stderr, "pwz-render: warning: %s: %llu run slices began before the previous one on their CPU ended; the earlier ones are cut there\n",
				files[i], (unsigned long long)st.overlaps);
	}
	return 0;
}

/* --export parquet: each file into the table folders of --output-dir (default .). */
static int do_export(const struct cli *cli, char **files, int nfiles)
{
	struct export_opts o = { .partial = cli->partial, .mode = cli->mode, .force = cli->force };
	const char *dir = cli->output_dir ? cli->output_dir : ".";
	struct export_result r;
	char err[2048];

	for (int i = 0; i < nfiles; i++) {
		if (export_parquet(files[i], dir, &o, &r, err, sizeof(err))) {
			print_err(err, "\n");
			return 1;
		}
		if (r.already) {
			printf("%s\t%s\talready there\n", files[i], r.trace_id);
			fprintf(stderr, "pwz-render: %s: its trace_id %s is in %s already (the same bytes were exported): left as it is (--force writes it again)\n",
				files[i], r.trace_id, dir);
			continue;
		}
		printf("%s\t%s\t%llu slices\n", files[i], r.trace_id,
		       (unsigned long long)r.rows[EXPORT_SCHED_SLICE]);
		if (r.split_forced)
			fprintf(stderr, "pwz-render: %s: %llu KVM exits split into on/off-CPU time "
				"before every CPU's slices reached them (past the memory bound): their "
				"split may miss a slice\n", files[i],
				(unsigned long long)r.split_forced);
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
