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

void task_display_name(const char *comm, const char *vm, bool is_qemu, char *out, size_t outlen)
{
	unsigned int vcpu;

	if (!vm || !*vm) {
		snprintf(out, outlen, "%s", comm);
		return;
	}
	if (task_vcpu_of(comm, &vcpu))
		snprintf(out, outlen, "%s.vcpu%u", vm, vcpu);
	else if (is_qemu)
		snprintf(out, outlen, "%s.emulator", vm);
	else
		snprintf(out, outlen, "%s", comm);
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

bool task_is_tid(const char *s)
{
	unsigned long long v;

	return parse_uint(s, UINT32_MAX, &v);
}

bool task_pattern_is_regex(const char *pattern)
{
	return strpbrk(pattern, ".^$+()|\\{") != NULL;
}

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

static bool one_match(const char *pattern, const char *name, uint32_t tid)
{
	unsigned long long v;
	regex_t re;
	bool hit;

	if (parse_uint(pattern, UINT32_MAX, &v))
		return v == tid;
	if (fnmatch(pattern, name, 0) == 0)
		return true;
	if (!task_pattern_is_regex(pattern) || regex_compile(&re, pattern))
		return false;
	hit = regexec(&re, name, 0, NULL, 0) == 0;
	regfree(&re);
	return hit;
}

/* Calls fn on each pattern of set (a copy, NUL-terminated) until it returns true. */
static bool each_pattern(const char *set, bool (*fn)(const char *, void *), void *ctx)
{
	char one[4096];

	for (const char *p = set;;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1), p);
		if (fn(one, ctx))
			return true;
		if (!nl)
			return false;
		p = nl + 1;
	}
}

struct match_ctx {
	const char *name;
	uint32_t tid;
};

static bool match_one(const char *pattern, void *ctx)
{
	struct match_ctx *m = ctx;

	return one_match(pattern, m->name, m->tid);
}

bool task_pattern_match(const char *set, const char *name, uint32_t tid)
{
	struct match_ctx m = { .name = name, .tid = tid };

	if (!strchr(set, '\n'))
		return one_match(set, name, tid);
	return each_pattern(set, match_one, &m);
}

int task_patterns_join(const char *const *patterns, size_t n, char *out, size_t outlen)
{
	size_t len = 0;

	if (outlen)
		out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(patterns[i]);

		if (!k || strchr(patterns[i], '\n'))
			return -EINVAL;
		if (len + k + 2 > outlen)
			return -ENAMETOOLONG;
		if (i)
			out[len++] = '\n';
		memcpy(out + len, patterns[i], k + 1);
		len += k;
	}
	return 0;
}
