// SPDX-License-Identifier: GPL-2.0
/* pwz-bench-switches: makes context switches at a chosen rate on every CPU, for capture-at-load benchmarks. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"Usage: pwz-bench-switches [-r RATE] [-s SECONDS]\n"
	"On every CPU this process may use, two threads pinned to that CPU hand a byte back\n"
	"and forth through pipes: two context switches per round trip. -r RATE paces the\n"
	"total to RATE switches per second over all CPUs (default 0: as fast as possible);\n"
	"-s SECONDS is the run length (default 5). Prints the switches made and their rate,\n"
	"and the whole machine's over the same time (/proc/stat ctxt).\n"
	"Sleeping to keep the pace adds a few switches to and from idle, not counted here.\n";

#define CHECK_EVERY 64		/* round trips between clock reads */

/* The machine's context switches since boot (/proc/stat ctxt); 0 when unreadable. */
static unsigned long long machine_switches(void)
{
	unsigned long long v = 0;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

struct pair {
	int cpu;		/* where both threads run */
	int ping[2];		/* pinger -> ponger */
	int pong[2];		/* ponger -> pinger */
	double period_ns;	/* one round trip at the asked rate; 0 flat out */
	struct timespec end;	/* CLOCK_MONOTONIC deadline */
	unsigned long long loops;	/* round trips made */
	int err;		/* errno of a failed read/write, 0 none */
};

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static long long ts_ns(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static void *ponger(void *arg)
{
	struct pair *p = arg;
	char c;

	pin(p->cpu);
	for (;;) {
		if (read(p->ping[0], &c, 1) != 1 || c == 'q')
			break;
		if (write(p->pong[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

static void *pinger(void *arg)
{
	struct pair *p = arg;
	struct timespec now, start, next;
	long long end = ts_ns(&p->end), due;
	char c = 'x';

	pin(p->cpu);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (write(p->ping[1], &c, 1) != 1 || read(p->pong[0], &c, 1) != 1) {
			p->err = errno ? errno : EIO;
			break;
		}
		if (++p->loops % CHECK_EVERY)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (ts_ns(&now) >= end)
			break;
		if (!p->period_ns)
			continue;
		due = ts_ns(&start) + (long long)(p->loops * p->period_ns);
		if (due > ts_ns(&now)) {
			next.tv_sec = due / 1000000000LL;
			next.tv_nsec = due % 1000000000LL;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		}
	}
	c = 'q';
	if (write(p->ping[1], &c, 1) != 1 && !p->err)
		p->err = errno;
	return NULL;
}

int main(int argc, char **argv)
{
	double rate = 0, secs = 5, elapsed;
	unsigned long long loops = 0, ctxt0, ctxt1;
	struct timespec t0, t1;
	struct pair *pairs;
	pthread_t *th;
	cpu_set_t set;
	int opt, n = 0, i, cpu;
	char *end;

	while ((opt = getopt(argc, argv, "r:s:h")) != -1) {
		switch (opt) {
		case 'r':
			rate = strtod(optarg, &end);
			if (*end || rate < 0) {
				fprintf(stderr, "pwz-bench-switches: bad rate '%s' (switches per second)\n", optarg);
				return 2;
			}
			break;
		case 's':
			secs = strtod(optarg, &end);
			if (*end || secs <= 0 || secs > 86400) {
				fprintf(stderr, "pwz-bench-switches: bad length '%s' (seconds)\n", optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (sched_getaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "pwz-bench-switches: sched_getaffinity: %s\n", strerror(errno));
		return 1;
	}
	n = CPU_COUNT(&set);
	pairs = calloc(n, sizeof(*pairs));
	th = calloc(2 * n, sizeof(*th));
	if (!pairs || !th) {
		fprintf(stderr, "pwz-bench-switches: out of memory\n");
		return 1;
	}
	ctxt0 = machine_switches();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0, cpu = 0; i < n; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		pairs[i].cpu = cpu;
		pairs[i].period_ns = rate ? 2e9 * n / rate : 0;
		pairs[i].end = t0;
		pairs[i].end.tv_sec += (time_t)secs;
		pairs[i].end.tv_nsec += (long)((secs - (time_t)secs) * 1e9);
		if (pairs[i].end.tv_nsec >= 1000000000L) {
			pairs[i].end.tv_sec++;
			pairs[i].end.tv_nsec -= 1000000000L;
		}
		if (pipe(pairs[i].ping) || pipe(pairs[i].pong)) {
			fprintf(stderr, "pwz-bench-switches: pipe: %s\n", strerror(errno));
			return 1;
		}
		if (pthread_create(&th[2 * i], NULL, ponger, &pairs[i]) ||
		    pthread_create(&th[2 * i + 1], NULL, pinger, &pairs[i])) {
			fprintf(stderr, "pwz-bench-switches: cannot start threads\n");
			return 1;
		}
		i++;
	}
	for (i = 0; i < 2 * n; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ctxt1 = machine_switches();
	elapsed = (ts_ns(&t1) - ts_ns(&t0)) / 1e9;
	for (i = 0; i < n; i++) {
		if (pairs[i].err) {
			fprintf(stderr, "pwz-bench-switches: CPU %d: %s\n", pairs[i].cpu,
				strerror(pairs[i].err));
			return 1;
		}
		loops += pairs[i].loops;
	}
	printf("pwz-bench-switches: %d CPUs, %.3f s, %llu switches, %.0f switches/s; machine %llu switches, %.0f/s\n",
	       n, elapsed, 2 * loops, 2 * loops / elapsed, ctxt1 - ctxt0, (ctxt1 - ctxt0) / elapsed);
	free(pairs);
	free(th);
	return 0;
}
