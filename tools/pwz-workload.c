// SPDX-License-Identifier: GPL-2.0
/* pwz-workload: named threads with known duty cycles, reporting their own CPU time and switches. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#define MAX_THREADS 64

static const char usage[] =
"Usage: pwz-workload [-d SECONDS] [-o FILE] [--text] NAME:BUSY_US:SLEEP_US[:CPU] ...\n"
"Runs one thread per spec for SECONDS (default 1): each names itself NAME (15 bytes at most),\n"
"pins itself to CPU when given (-1 or absent: unpinned), then loops busy BUSY_US microseconds\n"
"(spinning on CLOCK_MONOTONIC) and sleeping SLEEP_US (0: never sleeps). Just before it ends\n"
"each thread reads its CLOCK_THREAD_CPUTIME_ID and getrusage(RUSAGE_THREAD). The report (JSON,\n"
"or one line per thread with --text) goes to FILE or stdout:\n"
"  {\"pid\":P,\"start_mono_ns\":T,\"end_mono_ns\":T,\"threads\":[{\"name\":..,\"tid\":..,\"cpu\":..,\n"
"   \"busy_us\":..,\"sleep_us\":..,\"cpu_ns\":..,\"nvcsw\":..,\"nivcsw\":..,\"loops\":..,\n"
"   \"start_mono_ns\":..,\"end_mono_ns\":..}]}\n"
"Example: pwz-workload -d 2 a:1500:1500:0 b:700:2300:1 spin:1000:0\n";

struct spec {
	char name[16];
	long busy_us;
	long sleep_us;
	int cpu;		/* -1 unpinned */
	/* filled by the thread */
	pid_t tid;
	uint64_t cpu_ns;
	long nvcsw, nivcsw;
	uint64_t loops;
	uint64_t start_ns, end_ns;
	int err;		/* errno of a failed setup step */
};

static uint64_t stop_at_ns;
static pthread_barrier_t start_barrier;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void *run(void *arg)
{
	struct spec *s = arg;
	struct timespec ts;
	struct rusage ru;

	s->tid = (pid_t)syscall(SYS_gettid);
	if (prctl(PR_SET_NAME, s->name, 0, 0, 0))
		s->err = errno;
	if (s->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(s->cpu, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
			s->err = EINVAL;
	}
	pthread_barrier_wait(&start_barrier);
	s->start_ns = mono_ns();
	for (;;) {
		uint64_t t = mono_ns(), busy_end = t + (uint64_t)s->busy_us * 1000;

		if (t >= stop_at_ns)
			break;
		while (mono_ns() < busy_end)
			;
		s->loops++;
		if (s->sleep_us > 0) {
			ts.tv_sec = s->sleep_us / 1000000;
			ts.tv_nsec = (s->sleep_us % 1000000) * 1000;
			nanosleep(&ts, NULL);
		}
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	getrusage(RUSAGE_THREAD, &ru);
	s->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	s->nvcsw = ru.ru_nvcsw;
	s->nivcsw = ru.ru_nivcsw;
	s->end_ns = mono_ns();
	return NULL;
}

static int parse_spec(const char *arg, struct spec *s)
{
	char name[64];
	long busy, slp;
	int cpu = -1, n;

	n = sscanf(arg, "%63[^:]:%ld:%ld:%d", name, &busy, &slp, &cpu);
	if (n < 3 || !name[0] || strlen(name) > 15 || busy < 0 || slp < 0 || busy + slp == 0 ||
	    cpu < -1 || cpu >= CPU_SETSIZE)
		return -1;
	memset(s, 0, sizeof(*s));
	memcpy(s->name, name, strlen(name) + 1);
	s->busy_us = busy;
	s->sleep_us = slp;
	s->cpu = cpu;
	return 0;
}

/* Writes name as a JSON string (thread names are ours, but escape anyway). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int main(int argc, char **argv)
{
	struct spec specs[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	const char *out_path = NULL;
	double secs = 1.0;
	bool text = false;
	int n = 0, i;
	uint64_t t_start, t_end;
	FILE *out = stdout;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "-d") && i + 1 < argc) {
			char *end;

			secs = strtod(argv[++i], &end);
			if (*end || !(secs > 0 && secs <= 3600)) {
				fprintf(stderr, "pwz-workload: -d '%s': give seconds > 0 and <= 3600\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out_path = argv[++i];
		} else if (!strcmp(argv[i], "--text")) {
			text = true;
		} else if (n == MAX_THREADS) {
			fprintf(stderr, "pwz-workload: at most %d threads\n", MAX_THREADS);
			return 2;
		} else if (parse_spec(argv[i], &specs[n++])) {
			fprintf(stderr, "pwz-workload: bad thread spec '%s' (NAME:BUSY_US:SLEEP_US[:CPU], NAME at most 15 bytes; see --help)\n",
				argv[i]);
			return 2;
		}
	}
	if (!n) {
		fputs(usage, stderr);
		return 2;
	}
	pthread_barrier_init(&start_barrier, NULL, n + 1);
	for (i = 0; i < n; i++) {
		if (pthread_create(&th[i], NULL, run, &specs[i])) {
			fprintf(stderr, "pwz-workload: cannot start thread %s\n", specs[i].name);
			return 1;
		}
	}
	t_start = mono_ns();
	stop_at_ns = t_start + (uint64_t)(secs * 1e9);
	pthread_barrier_wait(&start_barrier);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	t_end = mono_ns();
	for (i = 0; i < n; i++) {
		if (specs[i].err) {
			fprintf(stderr, "pwz-workload: thread %s: setup failed: %s\n", specs[i].name,
				strerror(specs[i].err));
			return 1;
		}
	}
	if (out_path && !(out = fopen(out_path, "w"))) {
		fprintf(stderr, "pwz-workload: cannot write %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	if (text) {
		for (i = 0; i < n; i++)
			fprintf(out, "%s tid=%d cpu=%d cpu_ns=%llu nvcsw=%ld nivcsw=%ld loops=%llu\n",
				specs[i].name, specs[i].tid, specs[i].cpu,
				(unsigned long long)specs[i].cpu_ns, specs[i].nvcsw, specs[i].nivcsw,
				(unsigned long long)specs[i].loops);
	} else {
		fprintf(out, "{\"pid\":%d,\"start_mono_ns\":%llu,\"end_mono_ns\":%llu,\"threads\":[",
			(int)getpid(), (unsigned long long)t_start, (unsigned long long)t_end);
		for (i = 0; i < n; i++) {
			const struct spec *s = &specs[i];

			fprintf(out, "%s{\"name\":", i ? "," : "");
			json_str(out, s->name);
			fprintf(out, ",\"tid\":%d,\"cpu\":%d,\"busy_us\":%ld,\"sleep_us\":%ld,\"cpu_ns\":%llu,"
				"\"nvcsw\":%ld,\"nivcsw\":%ld,\"loops\":%llu,\"start_mono_ns\":%llu,\"end_mono_ns\":%llu}",
				s->tid, s->cpu, s->busy_us, s->sleep_us, (unsigned long long)s->cpu_ns,
				s->nvcsw, s->nivcsw, (unsigned long long)s->loops,
				(unsigned long long)s->start_ns, (unsigned long long)s->end_ns);
		}
		fprintf(out, "]}\n");
	}
	if (out != stdout && fclose(out)) {
		fprintf(stderr, "pwz-workload: cannot write %s\n", out_path);
		return 1;
	}
	return 0;
}
