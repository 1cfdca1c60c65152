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
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define MAX_THREADS 64

static const char usage[] =
"Usage: pwz-workload [-d SECONDS] [-o FILE] [--text] [--acct] [--wake W:E:PERIOD_US[:CPU[:CPU]]]...\n"
"                    [--hop NAME:BUSY_US:N] [--reuse NAME:N] NAME:BUSY_US:SLEEP_US[:CPU] ...\n"
"       pwz-workload --forks NAME:N\n"
"Runs one thread per spec for SECONDS (default 1): each names itself NAME (15 bytes at most),\n"
"pins itself to CPU when given (-1 or absent: unpinned), then loops busy BUSY_US microseconds\n"
"(spinning on CLOCK_MONOTONIC) and sleeping SLEEP_US (0: never sleeps). Just before it ends\n"
"each thread reads its CLOCK_THREAD_CPUTIME_ID and getrusage(RUSAGE_THREAD). The report (JSON,\n"
"or one line per thread with --text) goes to FILE or stdout:\n"
"  {\"pid\":P,\"start_mono_ns\":T,\"end_mono_ns\":T,\"threads\":[{\"name\":..,\"tid\":..,\"cpu\":..,\n"
"   \"busy_us\":..,\"sleep_us\":..,\"cpu_ns\":..,\"nvcsw\":..,\"nivcsw\":..,\"loops\":..,\n"
"   \"start_mono_ns\":..,\"end_mono_ns\":..}]}\n"
"Example: pwz-workload -d 2 a:1500:1500:0 b:700:2300:1 spin:1000:0\n"
"\n"
"--acct adds each thread's kernel accounting, read by the thread right after the common start\n"
"(\"at_start\") and just before it ends (the plain keys): /proc/self/task/TID/schedstat as\n"
"\"sched_run_ns\", \"run_delay_ns\", \"timeslices\", with \"cpu_ns\", \"nvcsw\", \"nivcsw\":\n"
"   \"at_start\":{\"cpu_ns\":..,\"nvcsw\":..,\"nivcsw\":..,\"sched_run_ns\":..,\"run_delay_ns\":..,\n"
"   \"timeslices\":..}\n"
"--wake WAKER:WAKEE:PERIOD_US[:WAKER_CPU[:WAKEE_CPU]] adds a pair of threads: WAKER sleeps\n"
"PERIOD_US, reads CLOCK_MONOTONIC and wakes WAKEE (a futex); WAKEE, blocked on the futex, reads\n"
"the clock as soon as it runs again. WAKEE's report adds its own wakeup-to-run latency over the\n"
"wakes that found it asleep: \"wakes\", \"wake_lat_ns\" (sum), \"wake_lat_max_ns\" (the pair's\n"
"threads show busy_us 0 and sleep_us PERIOD_US or 0), and their exact percentiles\n"
"\"wake_lat_p50_ns\", \"wake_lat_p90_ns\", \"wake_lat_p99_ns\", and all of them sorted,\n"
"\"wake_lat_sorted_ns\" (up to 65,536). Repeatable. --acct also gives\n"
"\"nr_migrations\" (se.nr_migrations of /proc/self/task/TID/sched; 0 when absent).\n"
"Example: pwz-workload --acct -d 2 --wake wk:we:1000:1:0 d0:500:500:0\n"
"--hop NAME:BUSY_US:N adds a thread that starts on CPU 0 and, N times, spins BUSY_US then moves\n"
"itself to the other of CPUs 0 and 1 (sched_setaffinity); its report adds \"hops\" (moves made).\n"
"--reuse NAME:N: after the threads above (none needed), start short threads one after the other\n"
"until N thread ids have been used twice (the kernel's pid allocator wrapped) or 45 s passed.\n"
"Each names itself NAME_G (G: 0 before the wrap, 1 after) and spins 20 us. The report adds\n"
"  \"reuse\":{\"spawned\":..,\"wrapped\":true|false,\"tids\":[{\"tid\":..,\"names\":[..,..],\n"
"   \"cpu_ns\":[..,..]}]} (the N tids, each thread's own CPU time).\n"
"--reuse-vcpus N: as --reuse, but the first 2N threads before the wrap name themselves\n"
"'CPU 0/KVM' (as QEMU names a vCPU thread) and spin 1 ms, and a thread after it whose tid one\n"
"of those held names itself 'CPU 1/KVM' and spins 1 ms (the others: rv_0, rv_1, 20 us).\n"
"--forks NAME:N: fork N children one after the other, each naming itself NAME and exiting at\n"
"once; nothing else runs and nothing is reported (a fork loop in C: Python's takes 8x longer).\n"
"Arguments after -- are not read: they only show in the command line, as a VMM's\n"
"'-name guest=NAME' does (threads named 'CPU 0/KVM' then make a VM of the process).\n";

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
	/* --acct: kernel accounting at the start ([0], after the barrier) and at the end ([1]) */
	struct acct {
		uint64_t cpu_ns;	/* CLOCK_THREAD_CPUTIME_ID */
		long nvcsw, nivcsw;	/* getrusage(RUSAGE_THREAD) */
		uint64_t run_ns;	/* schedstat: time on CPU (ns) */
		uint64_t delay_ns;	/* schedstat: time runnable, not running (ns) */
		uint64_t slices;	/* schedstat: times switched in */
		uint64_t migrations;	/* /proc/self/task/TID/sched se.nr_migrations (0 unknown) */
	} acct[2];
	/* --wake: the pair's role and shared state; the wakee's own latency figures */
	enum { ROLE_DUTY, ROLE_WAKER, ROLE_WAKEE, ROLE_HOP } role;
	long hops_want;		/* --hop: moves to make */
	long hops;		/* --hop: moves made (sched_setaffinity to the other CPU) */
	struct pair *pair;
	uint64_t wakes;		/* wakee: futex waits ended by a wake */
	uint64_t wake_lat_ns;	/* wakee: sum of waker's clock before the wake to ours after */
	uint64_t wake_lat_max_ns;
	uint64_t *lat;		/* wakee: each timed wake's latency, up to LAT_MAX */
};

#define LAT_MAX 65536

/* A --wake pair: seq counts the wakes (the futex word); stamp_ns[k % PAIR_STAMPS] is the clock
 * read before wake k, so that a wakee that slept through several wakes is timed from the first. */
#define PAIR_STAMPS 64
struct pair {
	uint32_t seq;
	uint64_t stamp_ns[PAIR_STAMPS];
};

static bool with_acct;	/* --acct */

static uint64_t stop_at_ns;
static pthread_barrier_t start_barrier;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Reads the calling thread's clock, rusage and schedstat into a; missing schedstat reads 0. */
static void read_acct(pid_t tid, struct acct *a)
{
	char path[64];
	unsigned long long run = 0, delay = 0, slices = 0;
	struct timespec ts;
	struct rusage ru;
	FILE *f;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	getrusage(RUSAGE_THREAD, &ru);
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu %llu %llu", &run, &delay, &slices) != 3)
			run = delay = slices = 0;
		fclose(f);
	}
	a->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	a->nvcsw = ru.ru_nvcsw;
	a->nivcsw = ru.ru_nivcsw;
	a->run_ns = run;
	a->delay_ns = delay;
	a->slices = slices;
	a->migrations = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/sched", (int)tid);
	f = fopen(path, "r");
	if (f) {
		char line[256];

		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "se.nr_migrations", 16)) {
				const char *c = strchr(line, ':');

				if (c)
					a->migrations = strtoull(c + 1, NULL, 10);
				break;
			}
		fclose(f);
	}
}

static long futex(uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* The waker: every sleep_us, stamp the clock and wake the wakee. */
static void waker_loop(struct spec *s)
{
	struct pair *p = s->pair;
	struct timespec ts = { s->sleep_us / 1000000, (s->sleep_us % 1000000) * 1000 };

	uint32_t next = 1;

	while (mono_ns() < stop_at_ns) {
		nanosleep(&ts, NULL);
		__atomic_store_n(&p->stamp_ns[next % PAIR_STAMPS], mono_ns(), __ATOMIC_RELEASE);
		__atomic_store_n(&p->seq, next++, __ATOMIC_RELEASE);
		futex(&p->seq, FUTEX_WAKE_PRIVATE, 1);
		s->loops++;
	}
	/* the wakee may be asleep: one last wake, stamped 0 so that it is not measured */
	__atomic_store_n(&p->stamp_ns[next % PAIR_STAMPS], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&p->seq, next, __ATOMIC_RELEASE);
	futex(&p->seq, FUTEX_WAKE_PRIVATE, 1);
}

/* The wakee: sleep on the futex; a wait that slept and was woken is timed from the stamp of the
 * first wake after it went to sleep (the one that woke it; later ones found it runnable). */
static void wakee_loop(struct spec *s)
{
	struct pair *p = s->pair;
	uint32_t seen = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);

	while (mono_ns() < stop_at_ns) {
		long rc = futex(&p->seq, FUTEX_WAIT_PRIVATE, seen);
		uint64_t now = mono_ns();
		uint32_t cur = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		uint64_t stamp = __atomic_load_n(&p->stamp_ns[(seen + 1) % PAIR_STAMPS], __ATOMIC_ACQUIRE);

		/* woken (rc 0), the waker not yet a lap ahead (its stamp still the first wake's) */
		if (rc == 0 && cur != seen && cur - seen < PAIR_STAMPS / 2 && stamp && now >= stamp) {
			if (s->lat && s->wakes < LAT_MAX)
				s->lat[s->wakes] = now - stamp;
			s->wakes++;
			s->wake_lat_ns += now - stamp;
			if (now - stamp > s->wake_lat_max_ns)
				s->wake_lat_max_ns = now - stamp;
		}
		seen = cur;
		s->loops++;
	}
}

/* --hop: spin busy_us, then move to the other of CPUs 0 and 1, hops_want times. */
static void hop_loop(struct spec *s)
{
	int cpu = s->cpu;

	while (s->hops < s->hops_want && mono_ns() < stop_at_ns) {
		uint64_t busy_end = mono_ns() + (uint64_t)s->busy_us * 1000;
		cpu_set_t set;

		while (mono_ns() < busy_end)
			;
		cpu = cpu ? 0 : 1;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
			s->err = EINVAL;
			break;
		}
		s->hops++;
		s->loops++;
	}
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
	if (with_acct)
		read_acct(s->tid, &s->acct[0]);
	if (s->role == ROLE_HOP)
		hop_loop(s);
	if (s->role == ROLE_WAKER)
		waker_loop(s);
	else if (s->role == ROLE_WAKEE)
		wakee_loop(s);
	while (s->role == ROLE_DUTY) {
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
	if (with_acct)
		read_acct(s->tid, &s->acct[1]);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	getrusage(RUSAGE_THREAD, &ru);
	s->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	s->nvcsw = ru.ru_nvcsw;
	s->nivcsw = ru.ru_nivcsw;
	s->end_ns = mono_ns();
	return NULL;
}

/* --reuse: one short thread's name and, once it ended, its own CPU time. */
struct reuse_child {
	char name[16];
	pid_t tid;
	uint64_t cpu_ns;
	uint64_t spin_ns;
	const struct reuse_child *first;	/* --reuse-vcpus after the wrap: the threads before
						 * it by tid (first_len), to name itself after */
	long first_len;
};

#define REUSE_SPIN_NS 20000ull
#define REUSE_VCPU_SPIN_NS 1000000ull

static void *reuse_run(void *arg)
{
	struct reuse_child *c = arg;
	struct timespec ts;
	uint64_t end;

	c->tid = (pid_t)syscall(SYS_gettid);
	if (c->first && c->tid > 0 && c->tid < c->first_len && c->first[c->tid].tid == c->tid &&
	    c->first[c->tid].spin_ns == REUSE_VCPU_SPIN_NS) {
		snprintf(c->name, sizeof(c->name), "CPU 1/KVM");
		c->spin_ns = REUSE_VCPU_SPIN_NS;
	}
	end = mono_ns() + c->spin_ns;
	prctl(PR_SET_NAME, c->name, 0, 0, 0);
	while (mono_ns() < end)
		;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	c->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	return NULL;
}

struct reuse_tid {
	pid_t tid;
	struct reuse_child gen[2];
};

/* --forks: n children in turn, each renames itself (a task_rename event) and exits. */
static int fork_loop(const char *name, long n)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("pwz-workload: fork");
			return 1;
		}
		if (!pid) {
			prctl(PR_SET_NAME, name, 0, 0, 0);
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) != pid) {
			perror("pwz-workload: waitpid");
			return 1;
		}
	}
	return 0;
}

/* Starts threads until want tids were held by a thread before the wrap and by one after it;
 * fills out[] with them and returns how many, or -errno. spawned counts the threads. vcpus:
 * --reuse-vcpus' names. */
static int reuse_loop(const char *name, int want, bool vcpus, struct reuse_tid *out,
		      uint64_t *spawned, bool *wrapped)
{
	struct reuse_child *first;	/* per tid: the thread that held it before the wrap */
	uint64_t deadline = mono_ns() + 45000000000ull;	/* within the callers' 60 s captures */
	long pid_max = 32768;
	pid_t last = 0;
	int gen = 0, got = 0;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");

	if (f) {
		if (fscanf(f, "%ld", &pid_max) != 1)
			pid_max = 32768;
		fclose(f);
	}
	if (pid_max <= 0 || pid_max > (1 << 22))
		return -ERANGE;
	first = calloc((size_t)pid_max + 1, sizeof(*first));
	if (!first)
		return -ENOMEM;
	*wrapped = false;
	while (got < want && mono_ns() < deadline) {
		struct reuse_child c = { .tid = 0, .spin_ns = REUSE_SPIN_NS };
		pthread_t t;

		snprintf(c.name, sizeof(c.name), "%.13s_%c", name, '0' + gen);
		if (vcpus && !gen && *spawned < 2 * (uint64_t)want) {
			snprintf(c.name, sizeof(c.name), "CPU 0/KVM");
			c.spin_ns = REUSE_VCPU_SPIN_NS;
		} else if (vcpus && gen) {
			c.first = first;
			c.first_len = pid_max + 1;
		}
		if (pthread_create(&t, NULL, reuse_run, &c)) {
			free(first);
			return -EAGAIN;
		}
		pthread_join(t, NULL);
		(*spawned)++;
		if (c.tid <= 0 || c.tid > pid_max)
			continue;
		if (gen == 0 && last && c.tid < last) {
			gen = 1;
			*wrapped = true;
			snprintf(c.name, sizeof(c.name), "%.13s_%c", name, '0' + gen);
			/* this thread was named before we knew: it counts for neither */
			continue;
		}
		last = c.tid;
		if (gen == 0) {
			first[c.tid] = c;
		} else if (first[c.tid].tid == c.tid) {
			out[got].tid = c.tid;
			out[got].gen[0] = first[c.tid];
			out[got].gen[1] = c;
			first[c.tid].tid = 0;
			got++;
		}
	}
	free(first);
	return got;
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

/* Parses --wake W:E:PERIOD_US[:W_CPU[:E_CPU]] into the two specs w and e sharing pair p. */
static int parse_wake(const char *arg, struct spec *w, struct spec *e, struct pair *p)
{
	char wn[64], en[64];
	long period;
	int wc = -1, ec = -1, n;

	n = sscanf(arg, "%63[^:]:%63[^:]:%ld:%d:%d", wn, en, &period, &wc, &ec);
	if (n < 3 || !wn[0] || !en[0] || strlen(wn) > 15 || strlen(en) > 15 || period <= 0 ||
	    wc < -1 || wc >= CPU_SETSIZE || ec < -1 || ec >= CPU_SETSIZE)
		return -1;
	memset(w, 0, sizeof(*w));
	memset(e, 0, sizeof(*e));
	memset(p, 0, sizeof(*p));
	memcpy(w->name, wn, strlen(wn) + 1);
	memcpy(e->name, en, strlen(en) + 1);
	w->sleep_us = period;
	w->cpu = wc;
	e->cpu = ec;
	w->role = ROLE_WAKER;
	e->role = ROLE_WAKEE;
	e->lat = calloc(LAT_MAX, sizeof(*e->lat));	/* NULL: no percentiles, nothing else lost */
	w->pair = e->pair = p;
	return 0;
}

static void json_acct(FILE *f, const struct acct *a)
{
	fprintf(f, "\"cpu_ns\":%llu,\"nvcsw\":%ld,\"nivcsw\":%ld,\"sched_run_ns\":%llu,"
		"\"run_delay_ns\":%llu,\"timeslices\":%llu,\"nr_migrations\":%llu",
		(unsigned long long)a->cpu_ns, a->nvcsw, a->nivcsw, (unsigned long long)a->run_ns,
		(unsigned long long)a->delay_ns, (unsigned long long)a->slices,
		(unsigned long long)a->migrations);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A wakee's own latency percentiles (exact, over the first LAT_MAX timed wakes): the
 * ceil(q * n)-th smallest, as "wake_lat_p50_ns", "wake_lat_p90_ns", "wake_lat_p99_ns"; and
 * every latency, sorted, as "wake_lat_sorted_ns" (for rank bounds of other percentiles). */
static void json_lat_pcts(FILE *f, const struct spec *s)
{
	static const struct { const char *key; double q; } pcts[] = {
		{ "wake_lat_p50_ns", 0.50 }, { "wake_lat_p90_ns", 0.90 }, { "wake_lat_p99_ns", 0.99 },
	};
	size_t n = s->wakes < LAT_MAX ? s->wakes : LAT_MAX;

	if (!s->lat || !n)
		return;
	qsort(s->lat, n, sizeof(*s->lat), cmp_u64);
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		size_t rank = (size_t)(pcts[i].q * (double)n + 0.999999);

		if (rank < 1)
			rank = 1;
		fprintf(f, ",\"%s\":%llu", pcts[i].key, (unsigned long long)s->lat[rank - 1]);
	}
	fputs(",\"wake_lat_sorted_ns\":[", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)s->lat[i]);
	fputc(']', f);
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
	static struct pair pairs[MAX_THREADS / 2];
	int npairs = 0;
	struct reuse_tid reused[64];
	const char *reuse_name = NULL;
	int reuse_want = 0, reuse_got = 0;
	uint64_t reuse_spawned = 0;
	bool reuse_wrapped = false, reuse_vcpus = false;
	pthread_t th[MAX_THREADS];
	const char *out_path = NULL;
	double secs = 1.0;
	bool text = false;
	int n = 0, i;
	uint64_t t_start, t_end;
	FILE *out = stdout;

	if (argc == 3 && !strcmp(argv[1], "--forks")) {
		char fname[16];
		long fn;

		if (sscanf(argv[2], "%15[^:]:%ld", fname, &fn) != 2 || !fname[0] || fn < 1 ||
		    fn > 10000000) {
			fprintf(stderr, "pwz-workload: bad --forks '%s' (NAME:N, NAME at most 15 bytes)\n",
				argv[2]);
			return 2;
		}
		return fork_loop(fname, fn);
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			break;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
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
		} else if (!strcmp(argv[i], "--reuse") && i + 1 < argc) {
			static char rname[64];

			if (sscanf(argv[++i], "%63[^:]:%d", rname, &reuse_want) != 2 || !rname[0] ||
			    strlen(rname) > 13 || reuse_want < 1 || reuse_want > 64) {
				fprintf(stderr, "pwz-workload: bad --reuse '%s' (NAME:N, NAME at most 13 bytes, N 1 to 64)\n",
					argv[i]);
				return 2;
			}
			reuse_name = rname;
		} else if (!strcmp(argv[i], "--reuse-vcpus") && i + 1 < argc) {
			if (sscanf(argv[++i], "%d", &reuse_want) != 1 || reuse_want < 1 ||
			    reuse_want > 64) {
				fprintf(stderr, "pwz-workload: bad --reuse-vcpus '%s' (N, 1 to 64)\n",
					argv[i]);
				return 2;
			}
			reuse_name = "rv";
			reuse_vcpus = true;
		} else if (!strcmp(argv[i], "--hop") && i + 1 < argc) {
			struct spec *h = &specs[n];

			memset(h, 0, sizeof(*h));
			if (n == MAX_THREADS ||
			    sscanf(argv[++i], "%15[^:]:%ld:%ld", h->name, &h->busy_us, &h->hops_want) != 3 ||
			    !h->name[0] || h->busy_us < 0 || h->hops_want < 1 || h->hops_want > 1000000) {
				fprintf(stderr, "pwz-workload: bad --hop '%s' (NAME:BUSY_US:N, NAME at most 15 bytes)\n",
					argv[i]);
				return 2;
			}
			h->role = ROLE_HOP;
			h->cpu = 0;
			n++;
		} else if (!strcmp(argv[i], "--acct")) {
			with_acct = true;
		} else if (!strcmp(argv[i], "--wake") && i + 1 < argc) {
			if (n + 2 > MAX_THREADS) {
				fprintf(stderr, "pwz-workload: at most %d threads\n", MAX_THREADS);
				return 2;
			}
			if (parse_wake(argv[++i], &specs[n], &specs[n + 1], &pairs[npairs++])) {
				fprintf(stderr, "pwz-workload: bad --wake '%s' (WAKER:WAKEE:PERIOD_US[:WAKER_CPU[:WAKEE_CPU]], names at most 15 bytes; see --help)\n",
					argv[i]);
				return 2;
			}
			n += 2;
		} else if (n == MAX_THREADS) {
			fprintf(stderr, "pwz-workload: at most %d threads\n", MAX_THREADS);
			return 2;
		} else if (parse_spec(argv[i], &specs[n++])) {
			fprintf(stderr, "pwz-workload: bad thread spec '%s' (NAME:BUSY_US:SLEEP_US[:CPU], NAME at most 15 bytes; see --help)\n",
				argv[i]);
			return 2;
		}
	}
	if (!n && !reuse_name) {
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
	if (reuse_name) {
		reuse_got = reuse_loop(reuse_name, reuse_want, reuse_vcpus, reused, &reuse_spawned,
				       &reuse_wrapped);
		if (reuse_got < 0) {
			fprintf(stderr, "pwz-workload: --reuse: %s\n", strerror(-reuse_got));
			return 1;
		}
	}
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
				"\"nvcsw\":%ld,\"nivcsw\":%ld,\"loops\":%llu,\"start_mono_ns\":%llu,\"end_mono_ns\":%llu",
				s->tid, s->cpu, s->busy_us, s->sleep_us, (unsigned long long)s->cpu_ns,
				s->nvcsw, s->nivcsw, (unsigned long long)s->loops,
				(unsigned long long)s->start_ns, (unsigned long long)s->end_ns);
			if (with_acct) {
				fprintf(out, ",\"sched_run_ns\":%llu,\"run_delay_ns\":%llu,\"timeslices\":%llu,"
					"\"nr_migrations\":%llu,\"at_start\":{",
					(unsigned long long)s->acct[1].run_ns,
					(unsigned long long)s->acct[1].delay_ns,
					(unsigned long long)s->acct[1].slices,
					(unsigned long long)s->acct[1].migrations);
				json_acct(out, &s->acct[0]);
				fputc('}', out);
			}
			if (s->role == ROLE_HOP)
				fprintf(out, ",\"hops\":%ld", s->hops);
			if (s->role == ROLE_WAKEE)
			{
				fprintf(out, ",\"wakes\":%llu,\"wake_lat_ns\":%llu,\"wake_lat_max_ns\":%llu",
					(unsigned long long)s->wakes, (unsigned long long)s->wake_lat_ns,
					(unsigned long long)s->wake_lat_max_ns);
				json_lat_pcts(out, s);
			}
			fputc('}', out);
		}
		fprintf(out, "]");
		if (reuse_name) {
			fprintf(out, ",\"reuse\":{\"spawned\":%llu,\"wrapped\":%s,\"tids\":[",
				(unsigned long long)reuse_spawned, reuse_wrapped ? "true" : "false");
			for (i = 0; i < reuse_got; i++) {
				fprintf(out, "%s{\"tid\":%d,\"names\":[", i ? "," : "", reused[i].tid);
				json_str(out, reused[i].gen[0].name);
				fputc(',', out);
				json_str(out, reused[i].gen[1].name);
				fprintf(out, "],\"cpu_ns\":[%llu,%llu]}",
					(unsigned long long)reused[i].gen[0].cpu_ns,
					(unsigned long long)reused[i].gen[1].cpu_ns);
			}
			fprintf(out, "]}");
		}
		fprintf(out, "}\n");
	}
	if (out != stdout && fclose(out)) {
		fprintf(stderr, "pwz-workload: cannot write %s\n", out_path);
		return 1;
	}
	return 0;
}
