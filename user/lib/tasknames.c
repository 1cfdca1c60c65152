// SPDX-License-Identifier: GPL-2.0
/* Task display names: perfwhiz CSV maps, QEMU vCPU naming, idle-task merging, glob matching. */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "records.h"
#include "tasknames.h"
#include "keymap.h"

#define MAP_MAX_FILE (64u << 20)	/* a CSV map larger than this is refused */

struct task_map {
	struct keymap idx;		/* (tid, 0) -> names[] */
	char (*names)[PWZ_NAME_MAX];
	size_t cap;			/* names allocated */
};

void task_map__free(struct task_map *m)
{
	if (!m)
		return;
	keymap_free(&m->idx);
	free(m->names);
	free(m);
}

size_t task_map__count(const struct task_map *m)
{
	return m ? m->idx.count : 0;
}

const char *task_map__name(const struct task_map *m, uint32_t tid)
{
	int64_t i;

	if (!m)
		return NULL;
	i = keymap_find(&m->idx, tid, 0);
	return i >= 0 ? m->names[i] : NULL;
}

static int map_set(struct task_map *m, uint32_t tid, const char *name)
{
	int64_t i = keymap_get(&m->idx, tid, 0, NULL);

	if (i < 0 || array_reserve((void **)&m->names, &m->cap, m->idx.count, sizeof(*m->names)))
		return -ENOMEM;
	snprintf(m->names[i], sizeof(m->names[i]), "%s", name);
	return 0;
}

/* Parses an unsigned decimal field; false if it is not one. */
static bool parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && !*end && *out <= max;
}

/* Strips leading and trailing blanks in place: one pass and one move, whatever their number. */
static void trim(char *s)
{
	size_t n = strlen(s), lead = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (lead < n && isspace((unsigned char)s[lead]))
		lead++;
	if (lead)
		memmove(s, s + lead, n - lead + 1);
}

static int parse_line(struct task_map *m, char *line, const char *name, unsigned int lineno,
		      char *err, size_t errlen)
{
	static const char *const fields[7] = { "tid", "libvirt-name", "type", "uuid",
					       "group-type", "group-id", "name" };
	char *f[7], *p = line, annotated[PWZ_NAME_MAX];
	unsigned long long tid, group;
	int n = 0;

	while (n < 7) {
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	if (n < 7) {
		snprintf(err, errlen, "%s:%u: %s: missing (a line needs 7 comma-separated fields, it has %d)",
			 name, lineno, fields[n], n);
		return -EINVAL;
	}
	if (p) {
		snprintf(err, errlen, "%s:%u: too many fields (a line needs exactly 7)", name, lineno);
		return -EINVAL;
	}
	for (int i = 0; i < 7; i++)
		trim(f[i]);
	if (!parse_uint(f[0], UINT32_MAX, &tid)) {
		snprintf(err, errlen, "%s:%u: tid: '%s' is not a thread id", name, lineno, f[0]);
		return -EINVAL;
	}
	if (!parse_uint(f[5], 999999, &group)) {
		snprintf(err, errlen, "%s:%u: group-id: '%s' is not a number", name, lineno, f[5]);
		return -EINVAL;
	}
	if (!*f[2]) {
		snprintf(err, errlen, "%s:%u: type: empty", name, lineno);
		return -EINVAL;
	}
	if (!*f[6]) {
		snprintf(err, errlen, "%s:%u: name: empty", name, lineno);
		return -EINVAL;
	}
	snprintf(annotated, sizeof(annotated), "%s.%02llu.%s", f[6], group, f[2]);
	return map_set(m, (uint32_t)tid, annotated);
}

struct task_map *task_map__parse(const char *text, size_t len, const char *name, char *err,
				 size_t errlen)
{
	struct task_map *m = calloc(1, sizeof(*m));
	unsigned int lineno = 0;
	size_t pos = 0;
	char *line = NULL;
	int ret = 0;

	if (!m) {
		snprintf(err, errlen, "%s: out of memory", name);
		errno = ENOMEM;
		return NULL;
	}
	while (pos < len && !ret) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;

		lineno++;
		free(line);
		line = malloc(n + 1);
		if (!line) {
			ret = -ENOMEM;
			snprintf(err, errlen, "%s: out of memory", name);
			break;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos += n + 1;
		if (memchr(line, '\0', n)) {
			snprintf(err, errlen, "%s:%u: a NUL byte: not a text file", name, lineno);
			ret = -EINVAL;
			break;
		}
		trim(line);
		if (!*line || *line == '#')
			continue;
		ret = parse_line(m, line, name, lineno, err, errlen);
	}
	free(line);
	if (ret) {
		task_map__free(m);
		errno = -ret;
		return NULL;
	}
	return m;
}

struct task_map *task_map__load(const char *path, char *err, size_t errlen)
{
	struct task_map *m;
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t len;
	int e;

	if (!f) {
		e = errno;
		snprintf(err, errlen, "%s: cannot open map: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	buf = malloc(MAP_MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		errno = ENOMEM;
		return NULL;
	}
	len = fread(buf, 1, MAP_MAX_FILE + 1, f);
	e = ferror(f) ? EIO : 0;
	fclose(f);
	if (e || len > MAP_MAX_FILE) {
		snprintf(err, errlen, "%s: %s", path, e ? "cannot read map" : "map larger than 64 MiB");
		free(buf);
		errno = e ? e : EFBIG;
		return NULL;
	}
	m = task_map__parse(buf, len, path, err, errlen);
	free(buf);
	return m;
}

bool qemu_vm_name(const char *cmdline, size_t len, char *out, size_t outlen)
{
	const char *arg = cmdline, *end = cmdline + len, *value = NULL;

	while (arg < end) {
		size_t n = strnlen(arg, (size_t)(end - arg));
		const char *next = arg + n + 1;

		if ((!strcmp(arg, "-name") || !strcmp(arg, "--name")) && next < end) {
			value = next;
		} else if (!strncmp(arg, "-name=", 6) || !strncmp(arg, "--name=", 7)) {
			value = strchr(arg, '=') + 1;
		}
		if (value)
			break;
		arg = next;
	}
	if (!value || value >= end)
		return false;
	/* "-name guest=foo,debug-threads=on" or "-name foo,process=..." or "-name foo" */
	{
		size_t vlen = strnlen(value, (size_t)(end - value));
		const char *v = value, *stop;
		size_t n;

		if (vlen > 6 && !strncmp(v, "guest=", 6))
			v += 6;
		stop = memchr(v, ',', vlen - (size_t)(v - value));
		n = stop ? (size_t)(stop - v) : vlen - (size_t)(v - value);
		if (!n || !outlen)
			return false;
		if (n >= outlen)
			n = outlen - 1;
		memcpy(out, v, n);
		out[n] = '\0';
	}
	return true;
}

bool cmdline_is_qemu(const char *cmdline, size_t len)
{
	size_t n = strnlen(cmdline, len);
	const char *base = cmdline;

	for (size_t i = 0; i < n; i++) {
		if (cmdline[i] == '/')
			base = cmdline + i + 1;
	}
	return (size_t)(cmdline + n - base) >= 4 && !strncmp(base, "qemu", 4);
}

bool task_vcpu_of(const char *comm, unsigned int *vcpu)
{
	unsigned int n;
	char tail[8];

	if (sscanf(comm, "CPU %u/KV%7s", &n, tail) != 2 || strcmp(tail, "M"))
		return false;
	if (vcpu)
		*vcpu = n;
	return true;
}

bool task_display_vcpu(const char *name, char *vm, size_t vmlen, unsigned int *vcpu)
{
	const char *dot = strrchr(name, '.');
	unsigned int n;
	char tail;

	if (task_vcpu_of(name, vcpu)) {
		if (vmlen)
			vm[0] = '\0';
		return true;
	}
	if (!dot || dot == name || sscanf(dot, ".vcpu%u%c", &n, &tail) != 1 ||
	    !isdigit((unsigned char)dot[5]))
		return false;
	snprintf(vm, vmlen, "%.*s", (int)(dot - name), name);
	*vcpu = n;
	return true;
}

void task_display_name(const char *comm, const char *vm, bool is_qemu, bool is_main, char *out,
		       size_t outlen)
{
	unsigned int vcpu;

	if (!vm || !*vm) {
		snprintf(out, outlen, "%s", comm);
		return;
	}
	if (task_vcpu_of(comm, &vcpu))
		snprintf(out, outlen, "%s.vcpu%u", vm, vcpu);
	else if (is_qemu && is_main)
		snprintf(out, outlen, "%s.emulator", vm);
	else if (is_qemu)
		snprintf(out, outlen, "%s.%s", vm, comm);
	else
		snprintf(out, outlen, "%s", comm);
}

bool task_vhost_owner(const char *comm, uint32_t *pid)
{
	unsigned int n;
	char tail;

	if (strncmp(comm, "vhost-", 6) || !isdigit((unsigned char)comm[6]) ||
	    sscanf(comm + 6, "%u%c", &n, &tail) != 1 || !n)
		return false;
	*pid = n;
	return true;
}

void task_merge_sys_name(const char *name, char *out, size_t outlen)
{
	static const char *const per_cpu[] = { "swapper/", "ksoftirqd/", "migration/", "kworker/",
					       "cpuhp/", "idle_inject/", "rcuc/", "watchdog/" };

	for (size_t i = 0; i < sizeof(per_cpu) / sizeof(per_cpu[0]); i++) {
		size_t n = strlen(per_cpu[i]);

		if (!strncmp(name, per_cpu[i], n) && isdigit((unsigned char)name[n])) {
			snprintf(out, outlen, "%.*s", (int)(n - 1), name);
			return;
		}
	}
	if (!strncmp(name, "kworker/u", 9) && isdigit((unsigned char)name[9])) {
		snprintf(out, outlen, "kworker");
		return;
	}
	snprintf(out, outlen, "%s", name);
}

void task_label_name(const char *name, uint32_t tid, const struct task_label_opts *o, char *out,
		     size_t outlen)
{
	char merged[PWZ_NAME_MAX], digits[16], num[16];
	int n;

	if (!outlen)
		return;
	if (!*name) {
		snprintf(digits, sizeof(digits), "%u", tid);
		name = digits;
	}
	if (o && o->merge_sys) {
		task_merge_sys_name(name, merged, sizeof(merged));
		name = merged;
	}
	if (!o || !o->append_tid) {
		snprintf(out, outlen, "%s", name);
		return;
	}
	n = snprintf(num, sizeof(num), ":%u", tid);
	if ((size_t)n >= outlen)
		n = (int)outlen - 1;	/* no room for the name: the tid, cut */
	snprintf(out, outlen, "%.*s%s", (int)(outlen - 1 - (size_t)n), name, num);
}

void task_label(const struct pwz_task *t, const struct task_label_opts *o, char *out,
		size_t outlen)
{
	const char *mapped = o ? task_map__name(o->map, t->tid) : NULL;
	char comm[PWZ_COMM_LEN];

	if (mapped || t->name[0]) {
		task_label_name(mapped ? mapped : t->name, t->tid, o, out, outlen);
		return;
	}
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(comm) - 1, t->comm);
	task_label_name(comm, t->tid, o, out, outlen);
}

bool task_is_tid(const char *s)
{
	unsigned long long v;

	return parse_uint(s, UINT32_MAX, &v);
}

/* How one -t pattern is read (tasknames.h). */
enum pattern_kind {
	PATTERN_TID,		/* digits only */
	PATTERN_PREFIX,		/* a plain word: the start of the name */
	PATTERN_GLOB,		/* a glob on the whole name */
	PATTERN_GLOB_REGEX,	/* the glob, or the regex anchored at the start */
};

struct task_pattern {
	enum pattern_kind kind;
	uint32_t tid;		/* PATTERN_TID */
	size_t len;		/* strlen(text) */
	char *text;		/* the pattern as given */
	regex_t re;		/* PATTERN_GLOB_REGEX: "^(text)" */
};

struct task_patterns {
	size_t n;
	struct task_pattern p[];	/* n entries */
};

/* Compiles one pattern as perfwhiz's re.match read it: anchored at the start only. */
static int regex_compile(regex_t *re, const char *pattern)
{
	size_t n = strlen(pattern);
	char *anchored = malloc(n + 4);
	int rc;

	if (!anchored)
		return REG_ESPACE;
	snprintf(anchored, n + 4, "^(%s)", pattern);
	rc = regcomp(re, anchored, REG_EXTENDED | REG_NOSUB);
	free(anchored);
	return rc;
}

/* Reads one pattern into pt (its text already set). Returns 0 or -ENOMEM. */
static int pattern_compile(struct task_pattern *pt)
{
	unsigned long long v;
	int rc;

	pt->len = strlen(pt->text);
	if (parse_uint(pt->text, UINT32_MAX, &v)) {
		pt->kind = PATTERN_TID;
		pt->tid = (uint32_t)v;
	} else if (strpbrk(pt->text, ".^$+()|\\{")) {
		rc = regex_compile(&pt->re, pt->text);
		if (rc == REG_ESPACE)
			return -ENOMEM;
		pt->kind = rc ? PATTERN_GLOB : PATTERN_GLOB_REGEX;
	} else {
		pt->kind = strpbrk(pt->text, "*?[") ? PATTERN_GLOB : PATTERN_PREFIX;
	}
	return 0;
}

void task_patterns__free(struct task_patterns *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		if (p->p[i].kind == PATTERN_GLOB_REGEX)
			regfree(&p->p[i].re);
		free(p->p[i].text);
	}
	free(p);
}

struct task_patterns *task_patterns__new(const char *const *patterns, size_t n, char *err,
					 size_t errlen)
{
	struct task_patterns *p = calloc(1, sizeof(*p) + n * sizeof(p->p[0]));
	int e = 0;

	if (!p)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		if (!*patterns[i] || strchr(patterns[i], '\n')) {
			snprintf(err, errlen, "-t: give a non-empty pattern on one line");
			task_patterns__free(p);
			errno = EINVAL;
			return NULL;
		}
		p->p[i].kind = PATTERN_PREFIX;	/* nothing to free until compiled */
		p->p[i].text = strdup(patterns[i]);
		p->n = i + 1;
		if (!p->p[i].text || (e = pattern_compile(&p->p[i])))
			goto nomem;
	}
	return p;
nomem:
	task_patterns__free(p);
	snprintf(err, errlen, "out of memory");
	errno = ENOMEM;
	return NULL;
}

static bool pattern_match(const struct task_pattern *pt, const char *name, uint32_t tid)
{
	switch (pt->kind) {
	case PATTERN_TID:
		return pt->tid == tid;
	case PATTERN_PREFIX:
		return !strncmp(name, pt->text, pt->len);
	case PATTERN_GLOB_REGEX:
		return !regexec(&pt->re, name, 0, NULL, 0) || !fnmatch(pt->text, name, 0);
	case PATTERN_GLOB:
		return !fnmatch(pt->text, name, 0);
	}
	return false;
}

bool task_patterns_match(const struct task_patterns *p, const char *name, uint32_t tid)
{
	for (size_t i = 0; i < p->n; i++)
		if (pattern_match(&p->p[i], name, tid))
			return true;
	return false;
}

size_t task_patterns__count(const struct task_patterns *p)
{
	return p ? p->n : 0;
}

const char *task_patterns__text(const struct task_patterns *p, size_t i)
{
	return p && i < p->n ? p->p[i].text : NULL;
}
