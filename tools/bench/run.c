// SPDX-License-Identifier: GPL-2.0
/* pwz-bench-run: runs a command and reports the time, CPU time and peak memory it used. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <bpf/bpf.h>

static const char usage[] =
	"Usage: pwz-bench-run [-o FILE] [--bpf-stats] -- COMMAND [ARGS...]\n"
	"Runs COMMAND and writes one line to FILE (default: stderr):\n"
	"  wall_s=W cpu_s=C user_s=U sys_s=S maxrss_kb=M nvcsw=V nivcsw=I status=X\n"
	"CPU time, peak RSS and context switches (voluntary, involuntary) are those of COMMAND and the descendants it waited for (the\n"
	"largest RSS of any one of them, not their sum). --bpf-stats keeps the kernel's BPF\n"
	"run-time statistics (run_time_ns, run_cnt) enabled for COMMAND's life\n"
	"(BPF_ENABLE_STATS; needs root). Exits with COMMAND's status. Part of `make bench`.\n";

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	struct timespec t0, t1;
	struct rusage ru;
	int i = 1, stats = 0, stats_fd = -1, status, code;
	FILE *f = stderr;
	pid_t pid;

	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--bpf-stats")) {
			stats = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else {
			fprintf(stderr, "pwz-bench-run: unknown option '%s'\n%s", argv[i], usage);
			return 2;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "pwz-bench-run: no command given\n%s", usage);
		return 2;
	}
	if (stats) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0) {
			fprintf(stderr, "pwz-bench-run: cannot enable BPF statistics: %s (run as root)\n",
				strerror(errno));
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "pwz-bench-run: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!pid) {
		if (stats_fd >= 0)
			close(stats_fd);
		execvp(argv[i + 1], argv + i + 1);
		fprintf(stderr, "pwz-bench-run: cannot run '%s': %s\n", argv[i + 1], strerror(errno));
		_exit(127);
	}
	signal(SIGINT, SIG_IGN);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "pwz-bench-run: wait: %s\n", strerror(errno));
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (stats_fd >= 0)
		close(stats_fd);
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (out) {
		f = fopen(out, "w");
		if (!f) {
			fprintf(stderr, "pwz-bench-run: cannot write %s: %s\n", out, strerror(errno));
			return 1;
		}
	}
	fprintf(f, "wall_s=%.6f cpu_s=%.6f user_s=%.6f sys_s=%.6f maxrss_kb=%ld nvcsw=%ld nivcsw=%ld status=%d\n",
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		tv_s(ru.ru_utime) + tv_s(ru.ru_stime), tv_s(ru.ru_utime), tv_s(ru.ru_stime),
		ru.ru_maxrss, ru.ru_nvcsw, ru.ru_nivcsw, code);
	if (f != stderr && fclose(f)) {
		fprintf(stderr, "pwz-bench-run: cannot write %s: %s\n", out, strerror(errno));
		return 1;
	}
	return code;
}
