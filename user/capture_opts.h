/* SPDX-License-Identifier: GPL-2.0 */
/* pwz-bpf's command line, parsed into a struct capture_opts without side effects. */
#ifndef PWZ_CAPTURE_OPTS_H
#define PWZ_CAPTURE_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "outfile.h"

#define CAPTURE_MAX_PIDS 1024		/* -p entries */
#define CAPTURE_MAX_TASKS 64		/* -t patterns */
#define CAPTURE_MAX_SLEEP_S 86400.0	/* -s upper bound: one day */
#define CAPTURE_MAX_FLIGHT_S 3600.0	/* --flight upper bound: one hour */
#define CAPTURE_MAX_FLIGHT_MB 65536	/* --flight-mb upper bound */
#define CAPTURE_MAX_SERVE_THREADS 10000	/* --serve-threads upper bound */
#define CAPTURE_SERVE_CGROUP_DEPTH 2	/* --serve-cgroup-depth default */
#define CAPTURE_MAX_SERVE_CGROUP_DEPTH 16	/* --serve-cgroup-depth upper bound */

struct capture_opts {
	double sleep_s;			/* -s: capture length in seconds (> 0); default 1 */
	bool sleep_given;		/* -s given (with a command: whichever ends first) */
	bool all;			/* --all: write the cdict and the stats */
	bool switches;			/* --switches: write the cdict (the default) */
	bool stats;			/* --stats: write <run>.stats */
	bool kvm_only;			/* --kvm: KVM exits only, no scheduler events */
	bool legacy;			/* --legacy: perfwhiz's cdict format */
	bool no_streams;		/* --aggregate-only: no per-event records */
	bool force_raw_tp;		/* --raw-tp: use raw_tp even where tp_btf exists */
	bool no_waker;			/* --no-waker: sched_waking not attached, wakers unknown */
	bool irq;			/* --irq: hard and soft IRQ time per CPU, vector, thread */
	int verbose;			/* -v, repeatable */
	bool help;			/* --help: print usage, do nothing else */
	bool version;			/* -V, --version */
	bool quiet;			/* -q: no progress line */
	const char *dest_folder;	/* --dest-folder: default "." */
	const char *map_path;		/* --map CSV, or NULL */
	const char *perf_data;		/* --use-perf-data FILE, or NULL */
	const char *remap;		/* --remap FILE (with --map): rename FILE's tasks, or NULL */
	const char *run_name;		/* positional; default "perf" */
	unsigned int ringbuf_mb;	/* --ringbuf-mb: ring size in MiB, a power of two; 16 */
	mode_t mode;			/* --mode: the output files' mode; 0 = 0600 (outfile.h) */
	bool force;			/* --force: replace files at the output names */
	uint32_t pids[CAPTURE_MAX_PIDS];	/* -p: process ids (tgids) */
	size_t nr_pids;
	const char *tasks[CAPTURE_MAX_TASKS];	/* -t: name patterns (task_patterns_match()) */
	size_t nr_tasks;
	bool live;			/* --live: the live view instead of a capture file */
	double interval_s;		/* -i/--interval: live refresh in seconds; default 1 */
	uint64_t count;			/* -n/--count: live intervals, then stop; 0 = until quit */
	bool batch;			/* --batch: text blocks, no screen */
	bool json;			/* --json: one JSON object per interval (implies --batch) */
	double flight_s;		/* --flight N: keep the last N seconds; 0 = off */
	unsigned int flight_mb;		/* --flight-mb: memory budget in MiB; 0 = sized at start */
	uint64_t trigger_wait_ns;	/* --trigger-wait: dump when a wait exceeds it; 0 = off */
	uint64_t trigger_exit_ns;	/* --trigger-exit: dump when a KVM exit's handling exceeds it */
	uint64_t after_ns;		/* --after MS: dump this long after the trigger */
	uint64_t arm_after_ns;		/* --arm-after: the wait and exit triggers fire from then on */
	bool arm_after_given;		/* else from when the window is full */
	bool once;			/* --once: stop after the first dump */
	const char *serve;		/* --serve [ADDR:]PORT: metrics over HTTP; NULL off */
	uint32_t serve_threads;		/* --serve-threads N: per-thread series for the N busiest */
	unsigned int serve_cgroup_depth;	/* --serve-cgroup-depth N: per-cgroup series, the
					 * paths cut to N components; 0 none; default 2 */
	bool serve_cgroup_depth_given;	/* given (it belongs to --serve) */
	char **command;			/* after "--": the command's argv (NULL-terminated),
					 * pointing into the caller's argv; NULL when none */
	int nr_command;
};

/*
 * Parses argv (argv[0] is the program name) into o, which it first sets to the defaults.
 * Does not touch the file system. Returns 0, or -EINVAL with err filled as a one-line
 * message naming the option and what to do. The strings in o point into argv.
 */
int capture_opts_parse(struct capture_opts *o, int argc, char **argv, char *err, size_t errlen);

/* Whether the run writes a cdict (--switches, --all, or no --stats) and a .stats file. */
bool capture_opts_want_cdict(const struct capture_opts *o);
bool capture_opts_want_stats(const struct capture_opts *o);

/* What every output does with a file already at its name: kept, the new file numbered
 * (RUN-2.cdict), unless --force replaces it (outfile.h). */
enum outfile_exists capture_opts_exists(const struct capture_opts *o);

/*
 * "<dest>/<run><ext>" into out. Returns 0, or -ENAMETOOLONG.
 */
int capture_opts_out_path(const struct capture_opts *o, const char *ext, char *out, size_t outlen);

/* The options in effect as one line of text (for the cdict metadata), into out. */
void capture_opts_describe(const struct capture_opts *o, char *out, size_t outlen);

/* The usage text (--help). */
const char *capture_opts_usage(void);

#endif /* PWZ_CAPTURE_OPTS_H */
