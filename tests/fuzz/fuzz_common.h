/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the libFuzzer harnesses: scratch files and a visitor that touches every field. */
#ifndef PWZ_FUZZ_COMMON_H
#define PWZ_FUZZ_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cdict.h"
#include "trace.h"

/* The bound for strings that have no field size (heap strings). */
#define FUZZ_UNBOUNDED ((size_t)PTRDIFF_MAX)

/* A per-process scratch path on tmpfs (so that parallel fuzzing jobs do not collide). */
static inline const char *fuzz_path(const char *suffix)
{
	static char paths[4][128];
	static int next;
	const char *dir = getenv("PWZ_FUZZ_TMP");
	char *p = paths[next++ & 3];

	if (!dir || !*dir)
		dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(p, sizeof(paths[0]), "%s/pwz-fuzz-%d%s", dir, (int)getpid(), suffix);
	return p;
}

/* Writes data to path (truncating). Aborts on failure: a harness that cannot write its
 * input would only pretend to fuzz. */
static inline void fuzz_write(const char *path, const void *data, size_t size)
{
	const unsigned char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0) {
		perror(path);
		abort();
	}
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n <= 0) {
			perror(path);
			abort();
		}
		p += n;
		size -= (size_t)n;
	}
	close(fd);
}

/* The visitor reads every byte the reader hands out, so that ASan sees a bad pointer or an
 * unterminated string; the sum keeps the compiler from dropping the reads. */
static volatile uint64_t fuzz_sink;

static inline void fuzz_touch_str(const char *s, size_t cap)
{
	size_t n = s ? strnlen(s, cap) : 0;

	if (s && n == cap)
		abort();	/* a string without its NUL inside the field */
	for (size_t i = 0; i < n; i++)
		fuzz_sink += (unsigned char)s[i];
}

static inline int fuzz_meta(void *ctx, const struct pwz_meta *m)
{
	(void)ctx;
	fuzz_touch_str(m->host, FUZZ_UNBOUNDED);
	fuzz_touch_str(m->kernel, FUZZ_UNBOUNDED);
	fuzz_touch_str(m->cmdline, FUZZ_UNBOUNDED);
	fuzz_touch_str(m->options, FUZZ_UNBOUNDED);
	fuzz_touch_str(m->tool_version, FUZZ_UNBOUNDED);
	if (m->topo)
		for (uint32_t i = 0; i < m->nr_cpus; i++)
			fuzz_sink += (uint64_t)m->topo[i].package + (uint64_t)m->topo[i].llc;
	for (uint32_t i = 0; i < m->nr_exit_names; i++) {
		fuzz_touch_str(m->exit_names[i].name, sizeof(m->exit_names[i].name));
		fuzz_sink += m->exit_names[i].code;
	}
	if (m->nr_drops > PWZ_MAX_DROPS)
		abort();
	for (uint32_t i = 0; i < m->nr_drops; i++)
		fuzz_touch_str(m->drops[i].name, sizeof(m->drops[i].name));
	return 0;
}

static inline int fuzz_task(void *ctx, const struct pwz_task *t)
{
	(void)ctx;
	fuzz_touch_str(t->comm, sizeof(t->comm));
	fuzz_touch_str(t->proc_name, sizeof(t->proc_name));
	fuzz_touch_str(t->name, sizeof(t->name));
	return 0;
}

static inline int fuzz_slice(void *ctx, const struct pwz_slice *s)
{
	(void)ctx;
	fuzz_sink += s->tid + s->cpu + s->start_ns + s->dur_ns + s->end;
	return 0;
}

static inline int fuzz_kvm_agg(void *ctx, const struct pwz_kvm_agg *a)
{
	(void)ctx;
	fuzz_sink += a->tid + a->isa + a->reason + a->count + a->handling_ns;
	for (int i = 0; i < PWZ_HIST_BUCKETS; i++)
		fuzz_sink += a->hist[i];
	return 0;
}

static inline int fuzz_wakeup(void *ctx, const struct pwz_wakeup *w)
{
	(void)ctx;
	fuzz_sink += w->tid + w->cpu + w->wake_ns + w->wait_ns;
	return 0;
}

static inline int fuzz_kvm_exit(void *ctx, const struct pwz_kvm_exit *e)
{
	(void)ctx;
	fuzz_sink += e->tid + e->time_ns + e->reason + e->handling_ns;
	return 0;
}

static inline int fuzz_cpu_agg(void *ctx, const struct pwz_cpu_agg *a)
{
	(void)ctx;
	fuzz_sink += a->tid + a->cpu + a->runtime_ns + a->switches + a->voluntary + a->involuntary;
	return 0;
}

static inline int fuzz_wait_agg(void *ctx, const struct pwz_wait_agg *a)
{
	(void)ctx;
	fuzz_sink += a->tid + a->count + a->wait_ns + a->max_ns;
	return 0;
}

static inline int fuzz_vcpu_ledger(void *ctx, const struct pwz_vcpu_ledger *l)
{
	(void)ctx;
	fuzz_sink += l->tid + l->since_ns + l->alive_ns;
	for (int i = 0; i < PWZ_VCPU_STATES; i++)
		fuzz_sink += l->ns[i] + l->count[i];
	return 0;
}

/* Reads path with cdict_read() and the touching visitor, then loads it as pwz-render does. */
static inline void fuzz_read_cdict(const char *path)
{
	struct cdict_visitor v = {
		.meta = fuzz_meta, .task = fuzz_task, .slice = fuzz_slice, .wakeup = fuzz_wakeup,
		.kvm_exit = fuzz_kvm_exit, .cpu_agg = fuzz_cpu_agg, .kvm_agg = fuzz_kvm_agg,
		.wait_agg = fuzz_wait_agg, .vcpu_ledger = fuzz_vcpu_ledger,
	};
	struct trace_load_opts o = { .streams = true };
	struct cdict_read_info info;
	struct trace *t;
	char err[512];
	int ret;

	err[0] = 0;
	ret = cdict_read(path, &v, &info, err, sizeof(err));
	if (ret < 0 && ret != -ENOMEM && !err[0])
		abort();	/* the contract: every error fills err */
	t = trace__load(path, &o, err, sizeof(err));
	if (t) {
		for (size_t i = 0; i < t->nr_tasks; i++)
			fuzz_task(NULL, &t->tasks[i]);
		trace__free(t);
	}
}

#endif /* PWZ_FUZZ_COMMON_H */
