// SPDX-License-Identifier: GPL-2.0
/* perf.data tracing data parser: feeds the embedded tracepoint formats to libtraceevent. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include "perfdata_trace.h"

#define TD_MAX_EVENTS 100000	/* formats per system, a sane bound */
#define TD_MAX_SYSTEMS 10000

struct td {
	const uint8_t *p;
	size_t len, pos;
	uint64_t off;		/* file offset of p[0] */
	char *msg;
	size_t msglen;
};

__attribute__((format(printf, 2, 3)))
static int td_fail(struct td *t, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(t->msg, t->msglen, "offset %llu: tracing data: ",
			 (unsigned long long)(t->off + t->pos));

	if (n >= 0 && (size_t)n < t->msglen) {
		va_start(ap, fmt);
		vsnprintf(t->msg + n, t->msglen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int td_bytes(struct td *t, size_t n, const uint8_t **out, const char *what)
{
	if (n > t->len - t->pos)
		return td_fail(t, "%s of %zu bytes runs past the end (%zu bytes left)", what, n,
			       t->len - t->pos);
	*out = t->p + t->pos;
	t->pos += n;
	return 0;
}

static int td_u32(struct td *t, uint32_t *v, const char *what)
{
	const uint8_t *b = NULL;
	int ret = td_bytes(t, 4, &b, what);

	if (!ret)
		memcpy(v, b, 4);
	return ret;
}

static int td_u64(struct td *t, uint64_t *v, const char *what)
{
	const uint8_t *b = NULL;
	int ret = td_bytes(t, 8, &b, what);

	if (!ret)
		memcpy(v, b, 8);
	return ret;
}

static int td_str(struct td *t, const char **s, const char *what)
{
	const uint8_t *end = memchr(t->p + t->pos, 0, t->len - t->pos);

	if (!end)
		return td_fail(t, "%s is not terminated", what);
	*s = (const char *)t->p + t->pos;
	t->pos = end - t->p + 1;
	return 0;
}

/* "name: X" line of a format text, copied to out. */
static void format_name(const char *text, size_t len, char *out, size_t outlen)
{
	const char *p = NULL, *e;
	size_t i;

	out[0] = 0;
	for (i = 0; i + 6 <= len; i++) {
		if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, "name: ", 6) == 0) {
			p = text + i + 6;
			break;
		}
	}
	if (!p)
		return;
	for (e = p; e < text + len && *e != '\n' && *e != ' ' && *e != '\t'; e++)
		;
	snprintf(out, outlen, "%.*s", (int)(e - p), p);
}

/*
 * libtraceevent is not hardened against hostile format text (a damaged print fmt can make it
 * read through NULL, or loop). A format is therefore parsed first in a child process with a
 * time limit; only one the child parsed cleanly is parsed here. Returns 0 when it parsed,
 * 1 when it failed or crashed, -errno when no child could be started.
 */
static int probe_format(const struct td *t, const char *text, size_t size, const char *sys,
			int long_size)
{
	struct tep_event *ev = NULL;
	struct tep_handle *tep;
	int status;
	pid_t pid;

	(void)t;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* the child dies of a bad format: no inherited handler (a test runner's, a
		 * sanitizer's) may catch that and carry on in the child */
		static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM };

		for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
			signal(fatal[i], SIG_DFL);
		alarm(10);
		tep = tep_alloc();
		if (!tep)
			_exit(2);
		tep_set_long_size(tep, long_size);
		_exit(tep_parse_format(tep, &ev, text, size, sys) == 0 && ev ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int td_formats(struct td *t, struct tep_handle *tep, const char *sys, int long_size,
		      pd_format_fn fn, void *ctx)
{
	uint32_t count, i;
	uint64_t size;
	const uint8_t *text = NULL;
	char name[128];
	int ret;

	ret = td_u32(t, &count, "format count");
	if (ret)
		return ret;
	if (count > TD_MAX_EVENTS)
		return td_fail(t, "%u formats in system %s is not plausible", count, sys);
	for (i = 0; i < count; i++) {
		struct tep_event *ev = NULL;
		enum tep_errno perr;

		ret = td_u64(t, &size, "format size");
		if (ret)
			return ret;
		if (size > t->len - t->pos)
			return td_fail(t, "format of %llu bytes in system %s runs past the end",
				       (unsigned long long)size, sys);
		ret = td_bytes(t, size, &text, "format");
		if (ret)
			return ret;
		format_name((const char *)text, size, name, sizeof(name));
		ret = fn ? fn(ctx, sys, name, (const char *)text, size, t->msg, t->msglen) : 0;
		if (ret < 0)
			return ret;
		if (ret > 0) {
			ret = probe_format(t, (const char *)text, size, sys, long_size);
			if (ret < 0)
				return td_fail(t, "cannot check the format of %s:%s: %s", sys, name,
					       strerror(-ret));
			perr = ret ? TEP_ERRNO__READ_FORMAT_FAILED :
				tep_parse_format(tep, &ev, (const char *)text, size, sys);
			if (perr || !ev)
				return td_fail(t, "format of %s:%s does not parse", sys, name);
		}
	}
	return 0;
}

int pd_tracing_data_parse(struct tep_handle *tep, const uint8_t *data, size_t len, uint64_t off,
			  pd_format_fn fn, void *ctx, char *msg, size_t msglen)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct td t = { .p = data, .len = len, .off = off, .msg = msg, .msglen = msglen };
	const uint8_t *b = NULL;
	const char *version = NULL, *s = NULL;
	uint32_t page_size, nsys, i;
	uint64_t size;
	uint8_t big, long_size;
	int ret;

	if (len < sizeof(magic) || memcmp(data, magic, sizeof(magic)))
		return td_fail(&t, "bad magic (not a tracing data section)");
	t.pos = sizeof(magic);
	ret = td_str(&t, &version, "version string");
	if (ret)
		return ret;
	ret = td_bytes(&t, 2, &b, "endianness and long size");
	if (ret)
		return ret;
	big = b[0];
	long_size = b[1];
	if (big)
		return td_fail(&t, "big-endian tracing data is not supported");
	if (long_size != 4 && long_size != 8)
		return td_fail(&t, "long size %u is not 4 or 8", long_size);
	ret = td_u32(&t, &page_size, "page size");
	if (ret)
		return ret;
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, page_size);

	ret = td_str(&t, &s, "header_page tag");
	if (ret)
		return ret;
	if (strcmp(s, "header_page"))
		return td_fail(&t, "expected header_page, found \"%.20s\"", s);
	ret = td_u64(&t, &size, "header_page size");
	if (!ret)
		ret = td_bytes(&t, size > len ? len + 1 : size, &b, "header_page");
	if (ret)
		return ret;
	/* header_page only matters for raw ring buffers; a failure to parse it is harmless */
	tep_parse_header_page(tep, (char *)b, size, long_size);
	ret = td_str(&t, &s, "header_event tag");
	if (ret)
		return ret;
	if (strcmp(s, "header_event"))
		return td_fail(&t, "expected header_event, found \"%.20s\"", s);
	ret = td_u64(&t, &size, "header_event size");
	if (!ret)
		ret = td_bytes(&t, size > len ? len + 1 : size, &b, "header_event");
	if (ret)
		return ret;

	ret = td_formats(&t, tep, "ftrace", long_size, NULL, NULL);
	if (ret)
		return ret;
	ret = td_u32(&t, &nsys, "system count");
	if (ret)
		return ret;
	if (nsys > TD_MAX_SYSTEMS)
		return td_fail(&t, "%u event systems is not plausible", nsys);
	for (i = 0; i < nsys; i++) {
		ret = td_str(&t, &s, "system name");
		if (!ret)
			ret = td_formats(&t, tep, s, long_size, fn, ctx);
		if (ret)
			return ret;
	}
	return 0;
}
