// SPDX-License-Identifier: GPL-2.0
/* pwz-bpf's command line: option parsing and the usage text. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture_opts.h"
#include "cliopt.h"
#include "live_screen.h"
#include "numopt.h"
#include "outfile.h"
#include "serve.h"

static const char usage[] =
"Usage: pwz-bpf [OPTIONS] [RUN-NAME] [-- COMMAND [ARGS...]]\n"
"Captures scheduler run slices, run-queue waits and KVM exits with eBPF into RUN-NAME.cdict\n"
"(default run name: perf), for pwz-render.\n"
"\n"
"  -s, --sleep SECONDS     capture length (default 1; fractions allowed); with a COMMAND the\n"
"                          capture lasts the command's life, or SECONDS if given and shorter\n"
"                          (the command then gets SIGTERM)\n"
"      --all               write RUN-NAME.cdict and RUN-NAME.stats\n"
"      --switches          write RUN-NAME.cdict (the default)\n"
"      --stats             write RUN-NAME.stats: per-task runtime, switches, wait latency and\n"
"                          KVM exits by reason (alone: the stats only)\n"
"      --dest-folder DIR   where to write (default: current folder; made, mode 0700 or\n"
"                          --mode's with search, when missing)\n"
"      --mode MODE         the files' mode, octal (default 0600: a capture holds every thread\n"
"                          name and the host's command line; 0644 to share it)\n"
"      --force             replace existing files (default: a file already at RUN-NAME.cdict\n"
"                          or .stats is kept, the new ones take RUN-NAME-2.cdict and .stats,\n"
"                          -3, ...; the path written is printed)\n"
"      --map CSV           annotate task names with a perfwhiz CSV map (tid,...,name)\n"
"      --kvm               KVM exits only, no scheduler events\n"
"  -p, --pid PID[,PID...]  only the threads of these processes, and of the processes they\n"
"                          start during the capture\n"
"  -t, --task PATTERN      only the threads whose comm or name matches PATTERN, as pwz-render\n"
"                          reads it: a word is the start of a name as perfwhiz read it\n"
"                          ('vm'), a glob the whole name ('*vcpu0'), regex syntax\n"
"                          (. ^ $ + ( | \\ {) a regex from the start ('.*vcpu0'), digits a\n"
"                          tid; repeatable (the union); threads named or\n"
"                          renamed later are followed from then on (a VM started during the\n"
"                          capture is caught), and may match nothing at the start\n"
"      --legacy            write perfwhiz's cdict format instead of cdict v2\n"
"      --aggregate-only    kernel aggregates only (no time-resolved records); they hold\n"
"                          every tid below pid_max, up to 4,194,304 and 128 MiB of kernel\n"
"                          memory (-v prints the size); threads beyond are counted map_full\n"
"      --use-perf-data FILE  convert FILE (perf.data) instead of capturing\n"
"      --remap FILE        rename the tasks of the capture FILE with --map CSV (FILE is\n"
"                          rewritten through a temporary and renamed into place)\n"
"      --ringbuf-mb N      ring buffer size in MiB, a power of two (default 16)\n"
"      --raw-tp            attach with raw_tp even where tp_btf works\n"
"      --irq               also hard and soft IRQ time per CPU and vector, charged to the\n"
"                          thread each interrupted, and the vCPUs' ready time to IRQs\n"
"                          (with --serve: that alone; off by default: not attached)\n"
"      --no-waker          who woke each thread left unknown (sched_waking not attached:\n"
"                          about 40 ns less per context switch); waits keep their kind\n"
"  -v, --verbose           more messages (repeat for libbpf's)\n"
"  -q, --quiet             no progress line (it is shown only when stderr is a terminal)\n"
"\n"
"Live view (nothing written; as cheap as --aggregate-only):\n"
"      --live              a full-screen view of the interval just ended, per task: CPU %,\n"
"                          switches/s (voluntary, involuntary), run-queue wait (p99,\n"
"                          ready %), KVM exits/s; keys:" LIVE_SORT_KEY_LIST " sort, / filter, k KVM\n"
"                          view (one row per VM, worst ready first; 1-9 open a VM), space\n"
"                          pause, q quit\n"
"  -i, --interval SECONDS  refresh period (default 1)\n"
"  -n, --count N           stop after N intervals\n"
"      --batch             no screen: one text block per interval on stdout\n"
"      --json              no screen: one JSON object per interval, one a line\n"
"      --kvm               (with --live) start in the KVM view: the VMs, exits/s by reason\n"
"\n"
"Flight recorder (keeps the last N seconds in memory; writes RUN-NAME.cdict on a trigger,\n"
"then RUN-NAME-2.cdict, ...; Ctrl-C or SIGTERM writes one and stops):\n"
"      --flight SECONDS    the window kept\n"
"      --flight-mb MIB     memory budget for the records (default: twice the window at the\n"
"                          record rate measured in the first second, at least 16)\n"
"      --trigger-wait DUR  dump when a thread waits runnable longer than DUR (20ms, 500us)\n"
"      --trigger-exit DUR  dump when a KVM exit takes longer than DUR to handle\n"
"      --after DUR         dump DUR after the trigger (default 0)\n"
"      --arm-after DUR     --trigger-wait and --trigger-exit fire from DUR after the start\n"
"                          (default: once the window is full, N seconds)\n"
"      --once              stop after the first dump written\n"
"      SIGUSR1             dump now (kill -USR1 PID)\n"
"Metrics for Prometheus (nothing written; as cheap as --aggregate-only; docs/metrics.md):\n"
"      --serve [ADDR:]PORT answer GET /metrics on ADDR (default 127.0.0.1; another address\n"
"                          is said on start) until Ctrl-C or SIGTERM: per CPU busy and\n"
"                          idle, per VM and vCPU run and ready seconds, KVM exits, pwz's\n"
"                          own cost and drops; counters that only grow\n"
"      --serve-threads N   also per-thread series for the N busiest threads (the rest in\n"
"                          thread=\"other\"); default none\n"
"      --serve-cgroup-depth N  per-cgroup run and ready series, each thread's process's\n"
"                          cgroup v2 path cut to its first N components (default 2:\n"
"                          /system.slice/foo.service); 0 none, at most 16\n"
"  -h, --help              this help\n"
"  -V, --version           the version\n"
"\n"
"Ctrl-C or SIGTERM ends the capture early; the file is still complete. With a COMMAND,\n"
"pwz-bpf exits with the command's status (128 + N when a signal N ended it), as perf does.\n"
"Needs root (or CAP_BPF and CAP_PERFMON) and a kernel with BTF (5.10 or later: see the README).\n"
"\n"
"Examples:\n"
"  pwz-bpf -s 5 --all test                 # 5 s system-wide -> ./test.cdict, ./test.stats\n"
"  pwz-bpf --all --map tmap.csv test2      # 1 s with task-name annotation\n"
"  pwz-bpf -p 4321 -s 10 --kvm vm1         # KVM exits of process 4321 for 10 s\n"
"  pwz-bpf --all run3 -- ./workload args   # for the lifetime of a command\n"
"  pwz-render --list test.cdict            # what is inside\n"
"  pwz-bpf --live -i 0.5 -p 4321           # one process, twice a second\n"
"  pwz-bpf --live --batch --json -i 5 -n 12 > log.json\n"
"  pwz-bpf --flight 10 incident            # the last 10 s on SIGUSR1 or Ctrl-C\n"
"  pwz-bpf --flight 30 --trigger-wait 20ms -p 4321 hiccup\n";

const char *capture_opts_usage(void)
{
	return usage;
}

enum {
	OPT_ALL = 256, OPT_SWITCHES, OPT_STATS, OPT_DEST, OPT_MAP, OPT_KVM, OPT_LEGACY,
	OPT_AGGONLY, OPT_PERFDATA, OPT_RINGBUF, OPT_RAWTP, OPT_MODE, OPT_REMAP,
	OPT_LIVE, OPT_BATCH, OPT_JSON, OPT_FLIGHT, OPT_FLIGHT_MB, OPT_TRIG_WAIT, OPT_TRIG_EXIT,
	OPT_AFTER, OPT_ONCE, OPT_IRQ, OPT_NOWAKER, OPT_FORCE, OPT_ARM_AFTER, OPT_SERVE,
	OPT_SERVE_THREADS, OPT_SERVE_CGROUP_DEPTH,
};

static const struct option long_opts[] = {
	{ "sleep", required_argument, NULL, 's' },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "switches", no_argument, NULL, OPT_SWITCHES },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "dest-folder", required_argument, NULL, OPT_DEST },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "map", required_argument, NULL, OPT_MAP },
	{ "kvm", no_argument, NULL, OPT_KVM },
	{ "pid", required_argument, NULL, 'p' },
	{ "task", required_argument, NULL, 't' },
	{ "legacy", no_argument, NULL, OPT_LEGACY },
	{ "aggregate-only", no_argument, NULL, OPT_AGGONLY },
	{ "use-perf-data", required_argument, NULL, OPT_PERFDATA },
	{ "remap", required_argument, NULL, OPT_REMAP },
	{ "ringbuf-mb", required_argument, NULL, OPT_RINGBUF },
	{ "raw-tp", no_argument, NULL, OPT_RAWTP },
	{ "irq", no_argument, NULL, OPT_IRQ },
	{ "no-waker", no_argument, NULL, OPT_NOWAKER },
	{ "live", no_argument, NULL, OPT_LIVE },
	{ "serve", required_argument, NULL, OPT_SERVE },
	{ "serve-threads", required_argument, NULL, OPT_SERVE_THREADS },
	{ "serve-cgroup-depth", required_argument, NULL, OPT_SERVE_CGROUP_DEPTH },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'n' },
	{ "batch", no_argument, NULL, OPT_BATCH },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "flight", required_argument, NULL, OPT_FLIGHT },
	{ "flight-mb", required_argument, NULL, OPT_FLIGHT_MB },
	{ "trigger-wait", required_argument, NULL, OPT_TRIG_WAIT },
	{ "trigger-exit", required_argument, NULL, OPT_TRIG_EXIT },
	{ "after", required_argument, NULL, OPT_AFTER },
	{ "arm-after", required_argument, NULL, OPT_ARM_AFTER },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

#define SHORT_OPTS ":s:p:t:i:n:vqhV"

/* perfcap's options that pwz-bpf does not have, and what to use instead. */
static const struct cliopt_removed removed_opts[] = {
	{ "use-perf", "pwz-bpf captures with eBPF, not perf; to use perf, run perf record -e 'sched:*' -e 'kvm:*' and import its file with --use-perf-data FILE" },
	{ NULL, NULL },
};

static int parse_sleep(struct capture_opts *o, const char *arg, char *err, size_t errlen)
{
	uint64_t ns;
	int ret = numopt_parse_ns(arg, 9, (uint64_t)(CAPTURE_MAX_SLEEP_S * 1e9), &ns);

	if (ret || !ns) {
		snprintf(err, errlen, "-s/--sleep '%s'%s%s: give a number of seconds > 0 and <= %.0f",
			 arg, ret ? " " : "", ret ? numopt_strerror(ret) : "", CAPTURE_MAX_SLEEP_S);
		return -EINVAL;
	}
	o->sleep_s = (double)ns / 1e9;
	o->sleep_given = true;
	return 0;
}

static int parse_pids(struct capture_opts *o, const char *arg, char *err, size_t errlen)
{
	const char *p = arg;

	for (;;) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || v == 0 || v > INT_MAX ||
		    *p == '-' || *p == '+') {
			snprintf(err, errlen, "-p/--pid '%s': give process ids > 0 separated by commas",
				 arg);
			return -EINVAL;
		}
		if (o->nr_pids == CAPTURE_MAX_PIDS) {
			snprintf(err, errlen, "-p/--pid: at most %d process ids", CAPTURE_MAX_PIDS);
			return -EINVAL;
		}
		o->pids[o->nr_pids++] = (uint32_t)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int parse_task(struct capture_opts *o, const char *arg, char *err, size_t errlen)
{
	if (!*arg) {
		snprintf(err, errlen, "-t/--task: give a non-empty name pattern");
		return -EINVAL;
	}
	if (o->nr_tasks == CAPTURE_MAX_TASKS) {
		snprintf(err, errlen, "-t/--task: at most %d patterns", CAPTURE_MAX_TASKS);
		return -EINVAL;
	}
	o->tasks[o->nr_tasks++] = arg;
	return 0;
}

static int parse_ringbuf(struct capture_opts *o, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	if (numopt_parse_count(arg, 1024, &v) || (v & (v - 1))) {
		snprintf(err, errlen, "--ringbuf-mb '%s': give a power of two from 1 to 1024", arg);
		return -EINVAL;
	}
	o->ringbuf_mb = (unsigned int)v;
	return 0;
}

/* A duration with an optional unit (ns, us, ms, s; def_digits when none: 6 ms, 9 s) into *ns,
 * at most max_ns. Returns 0 or the numopt error. */
static int parse_dur(const char *arg, unsigned int def_digits, uint64_t max_ns, uint64_t *ns)
{
	static const struct { const char *sfx; unsigned int digits; } units[] = {
		{ "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 },
	};
	char num[64];
	size_t len = strlen(arg);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t sl = strlen(units[i].sfx);

		if (len > sl && len - sl < sizeof(num) && !strcmp(arg + len - sl, units[i].sfx)) {
			memcpy(num, arg, len - sl);
			num[len - sl] = '\0';
			return numopt_parse_ns(num, units[i].digits, max_ns, ns);
		}
	}
	return numopt_parse_ns(arg, def_digits, max_ns, ns);
}

/* --serve and its options (given the rest). Returns 0 or -EINVAL with err. */
static int check_serve(const struct capture_opts *o, char *err, size_t errlen)
{
	if ((o->serve_threads || o->serve_cgroup_depth_given) && !o->serve) {
		snprintf(err, errlen, "%s belongs to --serve (add --serve [ADDR:]PORT)",
			 o->serve_threads ? "--serve-threads" : "--serve-cgroup-depth");
		return -EINVAL;
	}
	if (!o->serve)
		return 0;
	if (o->live) {
		snprintf(err, errlen, "--serve and --live are two modes: pick one");
		return -EINVAL;
	}
	if (o->once) {	/* --flight beside --serve: dumps while it serves */
		snprintf(err, errlen, "--serve runs until Ctrl-C or SIGTERM: it takes no --once");
		return -EINVAL;
	}
	if (o->legacy || o->no_streams || o->stats || o->all || o->perf_data || o->force) {
		snprintf(err, errlen, "--serve writes no file: it takes no --legacy, --aggregate-only, --stats, --all, --use-perf-data or --force");
		return -EINVAL;
	}
	if (o->sleep_given || o->command) {
		snprintf(err, errlen, "--serve runs until Ctrl-C or SIGTERM: it takes no -s or command");
		return -EINVAL;
	}
	return 0;
}

/* One of --serve's options. Returns 0 or -EINVAL with err. */
static int parse_serve_opt(struct capture_opts *o, int c, const char *arg, char *err,
			   size_t errlen)
{
	struct sockaddr_storage sa;
	socklen_t len;
	uint64_t v;

	if (c == OPT_SERVE) {
		o->serve = arg;
		return serve_parse_listen(arg, &sa, &len, err, errlen);
	}
	if (c == OPT_SERVE_CGROUP_DEPTH) {
		v = 0;	/* "0": no per-cgroup series */
		if (strcmp(arg, "0") && numopt_parse_count(arg, CAPTURE_MAX_SERVE_CGROUP_DEPTH, &v)) {
			snprintf(err, errlen, "--serve-cgroup-depth '%s': give a number of path components from 0 (no per-cgroup series) to %d",
				 arg, CAPTURE_MAX_SERVE_CGROUP_DEPTH);
			return -EINVAL;
		}
		o->serve_cgroup_depth = (unsigned int)v;
		o->serve_cgroup_depth_given = true;
		return 0;
	}
	if (numopt_parse_count(arg, CAPTURE_MAX_SERVE_THREADS, &v)) {
		snprintf(err, errlen, "--serve-threads '%s': give a number of threads from 1 to %d",
			 arg, CAPTURE_MAX_SERVE_THREADS);
		return -EINVAL;
	}
	o->serve_threads = (uint32_t)v;
	return 0;
}

/* The options of --live and --flight (given the rest). Returns 0 or -EINVAL with err. */
static int check_modes(const struct capture_opts *o, bool live_opts, bool flight_opts,
		       char *err, size_t errlen)
{
	if (o->live && o->flight_s) {
		snprintf(err, errlen, "--live and --flight are two modes: pick one");
		return -EINVAL;
	}
	if (live_opts && !o->live) {
		snprintf(err, errlen, "-i, -n, --batch and --json belong to --live (add --live)");
		return -EINVAL;
	}
	if (flight_opts && !o->flight_s) {
		snprintf(err, errlen, "--flight-mb, --trigger-wait, --trigger-exit, --after, --arm-after and --once belong to --flight N (add --flight SECONDS)");
		return -EINVAL;
	}
	if ((o->live || o->flight_s) &&
	    (o->legacy || o->no_streams || o->stats || o->all || o->perf_data)) {
		snprintf(err, errlen, "%s takes no --legacy, --aggregate-only, --stats, --all or --use-perf-data",
			 o->live ? "--live" : "--flight");
		return -EINVAL;
	}
	if (o->live && o->force) {
		snprintf(err, errlen, "--live writes no file: it takes no --force");
		return -EINVAL;
	}
	if (o->live && (o->sleep_given || o->command)) {
		snprintf(err, errlen, "--live runs until q or Ctrl-C: give -n COUNT intervals instead of -s or a command");
		return -EINVAL;
	}
	if (o->flight_s && o->after_ns > (uint64_t)(o->flight_s * 1e9)) {
		snprintf(err, errlen, "--after must not exceed the --flight window");
		return -EINVAL;
	}
	if (o->arm_after_given && !o->trigger_wait_ns && !o->trigger_exit_ns) {
		snprintf(err, errlen, "--arm-after arms --trigger-wait and --trigger-exit: give one of them");
		return -EINVAL;
	}
	return 0;
}

/* The options given together that do not go together (named: a run name was given). Returns 0
 * or -EINVAL with err. */
static int check_combinations(const struct capture_opts *o, bool live_opts, bool flight_opts,
			      bool named, char *err, size_t errlen)
{
	int rc;

	if (o->perf_data &&
	    (o->command || o->sleep_given || o->nr_pids || o->nr_tasks || o->kvm_only)) {
		snprintf(err, errlen, "--use-perf-data converts a file: it takes no -s, -p, -t, --kvm or command");
		return -EINVAL;
	}
	rc = check_serve(o, err, errlen);
	if (!rc)
		rc = check_modes(o, live_opts, flight_opts, err, errlen);
	if (rc)
		return rc;
	if (o->remap && !o->map_path) {
		snprintf(err, errlen, "--remap FILE rewrites the names of FILE with a map: give --map CSV");
		return -EINVAL;
	}
	if (o->remap && (o->perf_data || o->command || o->sleep_given || o->nr_pids ||
			 o->nr_tasks || o->kvm_only || o->stats || o->all || o->legacy ||
			 o->no_streams || o->force || named)) {
		snprintf(err, errlen, "--remap FILE --map CSV rewrites FILE: it takes no other option, run name or command");
		return -EINVAL;
	}
	if (o->irq && (o->live || o->flight_s || o->legacy || o->perf_data)) {
		snprintf(err, errlen, "--irq: its aggregates are written at the end of a capture in cdict v2: not with %s",
			 o->live ? "--live" : o->flight_s ? "--flight" : o->legacy ? "--legacy" :
			 "--use-perf-data");
		return -EINVAL;
	}
	if (o->no_waker && (o->perf_data || o->no_streams || o->live || o->legacy)) {
		snprintf(err, errlen, "--no-waker: wakers are noted only in the records a capture streams: not with %s",
			 o->perf_data ? "--use-perf-data" : o->no_streams ? "--aggregate-only" :
			 o->live ? "--live" : "--legacy");
		return -EINVAL;
	}
	if (o->legacy && o->no_streams) {
		snprintf(err, errlen, "--legacy stores events only: not with --aggregate-only");
		return -EINVAL;
	}
	return 0;
}

/* "--" ends the options: the rest is the command (getopt must not see it). Returns the count
 * of the arguments before it (argc when none), or -EINVAL with err. */
static int split_command(struct capture_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		if (i + 1 >= argc) {
			snprintf(err, errlen, "'--' must be followed by a command to run");
			return -EINVAL;
		}
		o->command = argv + i + 1;
		o->nr_command = argc - i - 1;
		return i;
	}
	return argc;
}

/* The arguments after the options (nr of them at pos): none, or the run name. Returns 0 or
 * -EINVAL with err. */
static int parse_run_name(struct capture_opts *o, int nr, char **pos, char *err, size_t errlen)
{
	const char *r = nr ? pos[0] : NULL;

	if (nr > 1) {
		snprintf(err, errlen, "one run name expected, got '%s' and '%s' (put a command after '--')",
			 pos[0], pos[1]);
		return -EINVAL;
	}
	if (!r)
		return 0;
	if (!*r || strchr(r, '/') || !strcmp(r, ".") || !strcmp(r, "..")) {
		snprintf(err, errlen, "run name '%s': give a file name without '/' (use --dest-folder for the directory)",
			 r);
		return -EINVAL;
	}
	if (*r == '-') {
		snprintf(err, errlen, "unknown option '%s' (see --help)", r);
		return -EINVAL;
	}
	o->run_name = r;
	return 0;
}

/* One of --live's options (-i, -n, --batch, --json). Returns 0 or -EINVAL with err. */
static int parse_live_opt(struct capture_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	switch (c) {
	case 'i':
		if (numopt_parse_ns(arg, 9, 3600000000000ull, &v) || v < 10000000) {
			snprintf(err, errlen, "-i/--interval '%s': give seconds from 0.01 to 3600", arg);
			return -EINVAL;
		}
		o->interval_s = (double)v / 1e9;
		break;
	case 'n':
		if (numopt_parse_count(arg, UINT32_MAX, &o->count)) {
			snprintf(err, errlen, "-n/--count '%s': give a number of intervals >= 1", arg);
			return -EINVAL;
		}
		break;
	case OPT_BATCH: o->batch = true; break;
	case OPT_JSON: o->json = o->batch = true; break;
	}
	return 0;
}

/* One of the flight recorder's options (--flight and those that need it). Returns 0 or
 * -EINVAL with err. */
static int parse_flight_opt(struct capture_opts *o, int c, const char *arg, char *err,
			    size_t errlen)
{
	uint64_t v;

	switch (c) {
	case OPT_FLIGHT:
		if (numopt_parse_ns(arg, 9, (uint64_t)(CAPTURE_MAX_FLIGHT_S * 1e9), &v) ||
		    v < 1000000) {
			snprintf(err, errlen, "--flight '%s': give the seconds to keep, from 0.001 to %.0f",
				 arg, CAPTURE_MAX_FLIGHT_S);
			return -EINVAL;
		}
		o->flight_s = (double)v / 1e9;
		break;
	case OPT_FLIGHT_MB:
		if (numopt_parse_count(arg, CAPTURE_MAX_FLIGHT_MB, &v)) {
			snprintf(err, errlen, "--flight-mb '%s': give MiB from 1 to %d", arg,
				 CAPTURE_MAX_FLIGHT_MB);
			return -EINVAL;
		}
		o->flight_mb = (unsigned int)v;
		break;
	case OPT_TRIG_WAIT:
	case OPT_TRIG_EXIT:
		if (parse_dur(arg, 6, 3600000000000ull, &v) || !v) {
			snprintf(err, errlen, "%s '%s': give a duration > 0 such as 20ms, 500us or 1.5 (ms)",
				 c == OPT_TRIG_WAIT ? "--trigger-wait" : "--trigger-exit", arg);
			return -EINVAL;
		}
		*(c == OPT_TRIG_WAIT ? &o->trigger_wait_ns : &o->trigger_exit_ns) = v;
		break;
	case OPT_AFTER:
		if (parse_dur(arg, 6, 3600000000000ull, &v)) {
			snprintf(err, errlen, "--after '%s': give milliseconds (or 2s, 500us)", arg);
			return -EINVAL;
		}
		o->after_ns = v;
		break;
	case OPT_ARM_AFTER:
		if (parse_dur(arg, 6, 3600000000000ull, &v)) {
			snprintf(err, errlen, "--arm-after '%s': give a duration such as 10s or 500ms (0: at once)",
				 arg);
			return -EINVAL;
		}
		o->arm_after_ns = v;
		o->arm_after_given = true;
		break;
	case OPT_ONCE: o->once = true; break;
	}
	return 0;
}

int capture_opts_parse(struct capture_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	bool live_opts = false, flight_opts = false;
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->sleep_s = 1.0;
	o->dest_folder = ".";
	o->run_name = "perf";
	o->ringbuf_mb = 16;
	o->interval_s = 1.0;
	o->serve_cgroup_depth = CAPTURE_SERVE_CGROUP_DEPTH;

	argc = split_command(o, argc, argv, err, errlen);
	if (argc < 0)
		return argc;
	rc = cliopt_check_exact(argc, argv, SHORT_OPTS, long_opts, removed_opts, err, errlen);
	if (rc)
		return rc;
	optind = 0;	/* glibc: full reinitialisation, so that tests can parse repeatedly */
	opterr = 0;
	while ((c = getopt_long(argc, argv, SHORT_OPTS, long_opts, NULL)) != -1) {
		switch (c) {
		case 's': rc = parse_sleep(o, optarg, err, errlen); break;
		case 'p': rc = parse_pids(o, optarg, err, errlen); break;
		case 't': rc = parse_task(o, optarg, err, errlen); break;
		case 'v': o->verbose++; break;
		case 'q': o->quiet = true; break;
		case 'h': o->help = true; break;
		case OPT_ALL: o->all = true; break;
		case OPT_SWITCHES: o->switches = true; break;
		case OPT_STATS: o->stats = true; break;
		case OPT_DEST:
			if (!*optarg) {
				snprintf(err, errlen, "--dest-folder: give a directory");
				return -EINVAL;
			}
			o->dest_folder = optarg;
			break;
		case OPT_MODE:
			if (outfile_parse_mode(optarg, &o->mode)) {
				snprintf(err, errlen, "--mode '%s': give an octal file mode of at most 0777 with owner read and write (0600, 0640, 0644)",
					 optarg);
				return -EINVAL;
			}
			break;
		case OPT_FORCE: o->force = true; break;
		case OPT_MAP: o->map_path = optarg; break;
		case OPT_KVM: o->kvm_only = true; break;
		case OPT_LEGACY: o->legacy = true; break;
		case OPT_AGGONLY: o->no_streams = true; break;
		case OPT_PERFDATA: o->perf_data = optarg; break;
		case OPT_RINGBUF: rc = parse_ringbuf(o, optarg, err, errlen); break;
		case OPT_RAWTP: o->force_raw_tp = true; break;
		case OPT_IRQ: o->irq = true; break;
		case OPT_NOWAKER: o->no_waker = true; break;
		case 'V': o->version = true; break;
		case OPT_REMAP: o->remap = optarg; break;
		case OPT_LIVE: o->live = true; break;
		case OPT_SERVE:
		case OPT_SERVE_THREADS:
		case OPT_SERVE_CGROUP_DEPTH:
			rc = parse_serve_opt(o, c, optarg, err, errlen);
			break;
		case 'i':
		case 'n':
		case OPT_BATCH:
		case OPT_JSON:
			rc = parse_live_opt(o, c, optarg, err, errlen);
			live_opts = true;
			break;
		case OPT_FLIGHT:
		case OPT_FLIGHT_MB:
		case OPT_TRIG_WAIT:
		case OPT_TRIG_EXIT:
		case OPT_AFTER:
		case OPT_ARM_AFTER:
		case OPT_ONCE:
			rc = parse_flight_opt(o, c, optarg, err, errlen);
			flight_opts |= c != OPT_FLIGHT;	/* the others need --flight */
			break;
		case ':':
			snprintf(err, errlen, "option '%s' needs a value (see --help)", argv[optind - 1]);
			return -EINVAL;
		default:
			if (optopt && optopt < 256)
				snprintf(err, errlen, "unknown option '-%c' (see --help)", optopt);
			else
				snprintf(err, errlen, "unknown option '%s' (see --help)", argv[optind - 1]);
			return -EINVAL;
		}
		if (rc)
			return rc;
	}
	rc = parse_run_name(o, argc - optind, argv + optind, err, errlen);
	if (rc)
		return rc;
	return check_combinations(o, live_opts, flight_opts, argc > optind, err, errlen);
}

bool capture_opts_want_cdict(const struct capture_opts *o)
{
	if (o->live || o->flight_s || o->serve)	/* the views write nothing; a flight, dumps */
		return false;
	return o->all || o->switches || !o->stats;
}

bool capture_opts_want_stats(const struct capture_opts *o)
{
	if (o->live || o->flight_s || o->serve)
		return false;
	return o->all || o->stats;
}

enum outfile_exists capture_opts_exists(const struct capture_opts *o)
{
	return o->force ? OUTFILE_REPLACE : OUTFILE_NUMBER;
}

int capture_opts_out_path(const struct capture_opts *o, const char *ext, char *out, size_t outlen)
{
	size_t dl = strlen(o->dest_folder);
	const char *sep = dl && o->dest_folder[dl - 1] == '/' ? "" : "/";
	int n = snprintf(out, outlen, "%s%s%s%s", o->dest_folder, sep, o->run_name, ext);

	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

void capture_opts_describe(const struct capture_opts *o, char *out, size_t outlen)
{
	size_t n = 0;

#define ADD(...) do { \
		int k_ = snprintf(out + n, n < outlen ? outlen - n : 0, __VA_ARGS__); \
		if (k_ > 0) n += (size_t)k_; \
	} while (0)
	if (outlen)
		out[0] = '\0';
	ADD("sleep=%g", o->sleep_s);
	if (o->command)
		ADD(" command=%s", o->command[0]);
	if (o->kvm_only)
		ADD(" kvm-only");
	if (o->no_streams)
		ADD(" aggregate-only");
	for (size_t i = 0; i < o->nr_pids; i++)
		ADD("%s%u", i ? "," : " pid=", o->pids[i]);
	for (size_t i = 0; i < o->nr_tasks; i++)
		ADD(" task=%s", o->tasks[i]);
	if (o->map_path)
		ADD(" map=%s", o->map_path);
	if (o->legacy)
		ADD(" legacy");
	if (o->mode)
		ADD(" mode=%04o", (unsigned int)o->mode);
	ADD(" ringbuf-mb=%u", o->ringbuf_mb);
	if (o->force_raw_tp)
		ADD(" raw-tp");
	if (o->irq)
		ADD(" irq");
	if (o->no_waker)
		ADD(" no-waker");
	if (o->serve)
		ADD(" serve=%s", o->serve);
	if (o->serve_threads)
		ADD(" serve-threads=%u", o->serve_threads);
	if (o->serve && o->serve_cgroup_depth != CAPTURE_SERVE_CGROUP_DEPTH)
		ADD(" serve-cgroup-depth=%u", o->serve_cgroup_depth);
	if (o->flight_s)
		ADD(" flight=%g", o->flight_s);
	if (o->flight_mb)
		ADD(" flight-mb=%u", o->flight_mb);
	if (o->trigger_wait_ns)
		ADD(" trigger-wait=%gms", o->trigger_wait_ns / 1e6);
	if (o->trigger_exit_ns)
		ADD(" trigger-exit=%gms", o->trigger_exit_ns / 1e6);
	if (o->after_ns)
		ADD(" after=%gms", o->after_ns / 1e6);
	if (o->arm_after_given)
		ADD(" arm-after=%gms", o->arm_after_ns / 1e6);
#undef ADD
	if (outlen && n >= outlen)
		out[outlen - 1] = '\0';
}
