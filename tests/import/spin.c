// SPDX-License-Identifier: GPL-2.0
/* Test workload: named threads with a fixed duty cycle, each reporting its own CPU time and switches. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * Usage: spin SECONDS NAME:BUSY_US:SLEEP_US:CPU...
 * Each thread names itself NAME, pins itself to CPU, then alternates BUSY_US of spinning with
 * SLEEP_US of sleep for SECONDS. Just before it ends it prints
 *   thread NAME TID CPU_NS NVCSW NIVCSW
 * from CLOCK_THREAD_CPUTIME_ID and getrusage(RUSAGE_THREAD), to the file named by the
 * environment variable SPIN_REPORT (appended), else to stdout.
 */

static FILE *report;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

struct spec {
	char name[16];
	long busy_us, sleep_us;
	int cpu;
	double secs;
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void *run(void *arg)
{
	struct spec *s = arg;
	struct timespec sl = { s->sleep_us / 1000000, (s->sleep_us % 1000000) * 1000 };
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(s->secs * 1e9), t;
	struct rusage ru;
	cpu_set_t set;

	prctl(PR_SET_NAME, s->name);
	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (now_ns(CLOCK_MONOTONIC) < end) {
		t = now_ns(CLOCK_THREAD_CPUTIME_ID) + s->busy_us * 1000ULL;
		while (now_ns(CLOCK_THREAD_CPUTIME_ID) < t)
			;
		nanosleep(&sl, NULL);
	}
	getrusage(RUSAGE_THREAD, &ru);
	pthread_mutex_lock(&report_lock);
	fprintf(report, "thread %s %ld %llu %ld %ld\n", s->name, (long)syscall(SYS_gettid),
		(unsigned long long)now_ns(CLOCK_THREAD_CPUTIME_ID), ru.ru_nvcsw, ru.ru_nivcsw);
	fflush(report);
	pthread_mutex_unlock(&report_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	struct spec specs[8];
	pthread_t th[8];
	int i, n = argc - 2;

	if (argc < 3 || n > 8) {
		fprintf(stderr, "usage: spin SECONDS NAME:BUSY_US:SLEEP_US:CPU...\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		char *p = strchr(argv[i + 2], ':');

		if (!p || sscanf(p + 1, "%ld:%ld:%d", &specs[i].busy_us, &specs[i].sleep_us,
				 &specs[i].cpu) != 3) {
			fprintf(stderr, "spin: bad thread spec %s\n", argv[i + 2]);
			return 2;
		}
		snprintf(specs[i].name, sizeof(specs[i].name), "%.*s", (int)(p - argv[i + 2]),
			 argv[i + 2]);
		specs[i].secs = atof(argv[1]);
	}
	report = getenv("SPIN_REPORT") ? fopen(getenv("SPIN_REPORT"), "a") : stdout;
	if (!report) {
		perror("spin: SPIN_REPORT");
		return 1;
	}
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, run, &specs[i]);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
