// SPDX-License-Identifier: GPL-2.0
/* pwz-bench-floor: attaches an empty BPF program (or a given object's) to the scheduler for a command's life. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "empty.skel.h"

static const char usage[] =
	"Usage: pwz-bench-floor [--raw-tp] [--two-hook] [--obj FILE.bpf.o] -- COMMAND [ARGS...]\n"
	"Attaches a BPF program that does nothing to sched_switch (tp_btf, or raw_tp with\n"
	"--raw-tp; with --two-hook, one to sched_wakeup as well), runs COMMAND, detaches, and exits with COMMAND's status: the floor of what\n"
	"any BPF tracer on sched_switch costs. With --obj, loads FILE instead and attaches all\n"
	"its tp_btf (or, with --raw-tp, raw_tp) and tracepoint programs with their defaults,\n"
	"draining its ring buffers without reading them: the price of a candidate program.\n"
	"On exit it prints each program's run_cnt and run_time_ns to stderr (non-zero only while\n"
	"BPF statistics are enabled, e.g. under pwz-bench-run --bpf-stats) and the ring-buffer\n"
	"bytes drained. PWZ_BENCH_VERBOSE=1 shows libbpf's messages (verifier logs).\n"
	"Needs root (or CAP_BPF and CAP_PERFMON). Part of `make bench`.\n";

#define MAX_LINKS 64

static volatile bool stop;
static unsigned long long drained;	/* ring-buffer bytes consumed */

/* libbpf's messages (verifier logs included) only with PWZ_BENCH_VERBOSE set. */
static int libbpf_msg(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || !getenv("PWZ_BENCH_VERBOSE"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int on_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	drained += size;
	return 0;
}

static void *drain(void *arg)
{
	struct ring_buffer *rb = arg;

	while (!stop)
		ring_buffer__poll(rb, 100);
	ring_buffer__consume(rb);
	return NULL;
}

/* Whether a program of this section is wanted: one kind of raw tracepoint, and tracepoints;
 * of the empty object, the sched_wakeup ones only with two. */
static bool wanted(const char *sec, bool raw, bool empty, bool two)
{
	if (empty && strstr(sec, "sched_wakeup") && !two)
		return false;
	if (!strncmp(sec, "tp_btf/", 7))
		return !raw;
	if (!strncmp(sec, "raw_tp/", 7) || !strncmp(sec, "raw_tracepoint/", 15))
		return raw;
	return !strncmp(sec, "tracepoint/", 11) || !strncmp(sec, "tp/", 3);
}

int main(int argc, char **argv)
{
	struct bpf_link *links[MAX_LINKS];
	struct ring_buffer *rb = NULL;
	struct empty_bpf *skel = NULL;
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	const char *path = NULL;
	int i = 1, nlinks = 0, status, err = 0, code = 1;
	bool raw = false, drainer = false, two = false;
	pthread_t th;
	pid_t pid;

	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--raw-tp")) {
			raw = true;
		} else if (!strcmp(argv[i], "--two-hook")) {
			two = true;
		} else if (!strcmp(argv[i], "--obj") && i + 1 < argc) {
			path = argv[++i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else {
			fprintf(stderr, "pwz-bench-floor: unknown option '%s'\n%s", argv[i], usage);
			return 2;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "pwz-bench-floor: no command given\n%s", usage);
		return 2;
	}
	libbpf_set_print(libbpf_msg);
	if (path) {
		obj = bpf_object__open_file(path, NULL);
	} else {
		skel = empty_bpf__open();
		obj = skel ? skel->obj : NULL;
	}
	if (!obj) {
		fprintf(stderr, "pwz-bench-floor: cannot open %s: %s\n", path ? path : "the empty program",
			strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, wanted(bpf_program__section_name(prog), raw,
								      !path, two));
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "pwz-bench-floor: cannot load %s: %s (run as root)\n",
			path ? path : "the empty program", strerror(-err));
		goto out_obj;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog))
			continue;
		if (nlinks == MAX_LINKS) {
			fprintf(stderr, "pwz-bench-floor: more than %d programs\n", MAX_LINKS);
			goto out_links;
		}
		links[nlinks] = bpf_program__attach(prog);
		if (!links[nlinks]) {
			fprintf(stderr, "pwz-bench-floor: cannot attach %s: %s\n",
				bpf_program__name(prog), strerror(errno));
			goto out_links;
		}
		nlinks++;
	}
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__type(map) != BPF_MAP_TYPE_RINGBUF)
			continue;
		if (!rb)
			rb = ring_buffer__new(bpf_map__fd(map), on_record, NULL, NULL);
		else if (ring_buffer__add(rb, bpf_map__fd(map), on_record, NULL))
			rb = NULL;
		if (!rb) {
			fprintf(stderr, "pwz-bench-floor: cannot read ring buffer %s\n", bpf_map__name(map));
			goto out_links;
		}
	}
	if (rb) {
		if (pthread_create(&th, NULL, drain, rb)) {
			fprintf(stderr, "pwz-bench-floor: cannot start the ring-buffer reader\n");
			goto out_links;
		}
		drainer = true;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "pwz-bench-floor: fork: %s\n", strerror(errno));
		goto out_links;
	}
	if (!pid) {
		execvp(argv[i + 1], argv + i + 1);
		fprintf(stderr, "pwz-bench-floor: cannot run '%s': %s\n", argv[i + 1], strerror(errno));
		_exit(127);
	}
	/* the terminal's Ctrl-C reaches the command; the floor waits for it to end */
	signal(SIGINT, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "pwz-bench-floor: wait: %s\n", strerror(errno));
			goto out_links;
		}
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__autoload(prog) &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			fprintf(stderr, "pwz-bench-floor: %s run_cnt %llu run_time_ns %llu\n",
				bpf_program__name(prog), (unsigned long long)info.run_cnt,
				(unsigned long long)info.run_time_ns);
	}
out_links:
	while (nlinks > 0)
		bpf_link__destroy(links[--nlinks]);
	if (drainer) {
		stop = true;
		pthread_join(th, NULL);
		fprintf(stderr, "pwz-bench-floor: %llu ring-buffer bytes drained\n", drained);
	}
	ring_buffer__free(rb);
out_obj:
	if (skel)
		empty_bpf__destroy(skel);
	else
		bpf_object__close(obj);
	return code;
}
