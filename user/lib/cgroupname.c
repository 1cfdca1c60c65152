// SPDX-License-Identifier: GPL-2.0
/* VM names from cgroup v2 paths, as libvirt and systemd place VM processes; /proc/PID/cgroup;
 * a path cut to its first components. */
#include <string.h>
#include "cgroupname.h"

#define DELETED_MARK " (deleted)"

/* Copies the path of n bytes at p when it is one (see cgroup_v2_path()). */
static bool take_path(const char *p, size_t n, char *out, size_t outlen)
{
	size_t mark = sizeof(DELETED_MARK) - 1;

	if (!n || p[0] != '/' || memchr(p, '\0', n) || !outlen)
		return false;
	if (n > mark && !memcmp(p + n - mark, DELETED_MARK, mark))
		n -= mark;
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

bool cgroup_v2_path(const char *text, size_t len, char *out, size_t outlen)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		if ((size_t)(eol - p) >= 3 && !memcmp(p, "0::", 3))
			return take_path(p + 3, (size_t)(eol - p) - 3, out, outlen);
		p = nl ? nl + 1 : end;
	}
	return false;
}

size_t cgroup_path_prefix(const char *path, unsigned int depth)
{
	const char *p = path, *next;

	if (path[0] != '/')
		return strlen(path);
	for (unsigned int d = 0; d < depth; d++) {
		next = strchr(p + 1, '/');
		if (!next)
			return strlen(path);
		p = next;	/* the '/' before component d + 2 */
	}
	return p == path ? 1 : (size_t)(p - path);
}

/* Whether the component of n bytes at s is word. */
static bool comp_is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && !memcmp(s, word, n);
}

/* Whether the component of n bytes at s ends with suffix after at least one byte. */
static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n > k && !memcmp(s + n - k, suffix, k);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The byte at *p (before end), a "\xNN" escape read as the byte it stands for unless that is
 * a control character; *p passes what was read. */
static unsigned char next_byte(const char **p, const char *end)
{
	const char *s = *p;

	if (end - s >= 4 && s[0] == '\\' && s[1] == 'x' && hexval(s[2]) >= 0 && hexval(s[3]) >= 0) {
		int v = hexval(s[2]) << 4 | hexval(s[3]);

		if (v >= 0x20 && v != 0x7f) {
			*p = s + 4;
			return (unsigned char)v;
		}
	}
	*p = s + 1;
	return (unsigned char)*s;
}

/* Whether the unescaped text at [*p, end) starts with prefix; then *p passes it. */
static bool skip_prefix(const char **p, const char *end, const char *prefix)
{
	const char *s = *p;

	for (; *prefix; prefix++)
		if (s >= end || next_byte(&s, end) != (unsigned char)*prefix)
			return false;
	*p = s;
	return true;
}

/* Passes libvirt's "qemu-<id>-" at *p when a name follows it. */
static void skip_libvirt_qemu(const char **p, const char *end)
{
	const char *s = *p, *t;
	size_t digits = 0;

	if (!skip_prefix(&s, end, "qemu-"))
		return;
	for (t = s; s < end; s = t, digits++) {
		unsigned char c = next_byte(&t, end);

		if (c < '0' || c > '9')
			break;
	}
	if (digits && skip_prefix(&s, end, "-") && s < end)
		*p = s;
}

/* The unescaped text at [p, end) into out; false when it is empty. */
static bool copy_unescaped(const char *p, const char *end, char *out, size_t outlen)
{
	size_t n = 0;

	if (p >= end || !outlen)
		return false;
	while (p < end && n + 1 < outlen)
		out[n++] = (char)next_byte(&p, end);
	out[n] = '\0';
	return true;
}

/* The name of the machine whose scope's name, ".scope" left out, is [p, end). */
static bool machine_name(const char *p, const char *end, char *out, size_t outlen)
{
	skip_prefix(&p, end, "machine-");
	skip_libvirt_qemu(&p, end);
	return copy_unescaped(p, end, out, outlen);
}

bool cgroup_vm_name(const char *cgroup_path, char *out, size_t outlen)
{
	const char *top, *unit;
	size_t top_len, n;
	bool machine;

	if (!cgroup_path || cgroup_path[0] != '/')
		return false;
	top = cgroup_path + 1;
	top_len = strcspn(top, "/");
	machine = comp_is(top, top_len, "machine.slice");
	if (!machine && !comp_is(top, top_len, "system.slice"))
		return false;
	unit = top + top_len;
	for (;;) {
		if (*unit != '/')
			return false;	/* no unit below the slices */
		unit++;
		n = strcspn(unit, "/");
		if (!ends_with(unit, n, ".slice"))
			break;
		unit += n;
	}
	if (machine && ends_with(unit, n, ".scope"))
		return machine_name(unit, unit + n - strlen(".scope"), out, outlen);
	if (ends_with(unit, n, ".service"))
		return copy_unescaped(unit, unit + n - strlen(".service"), out, outlen);
	return false;
}
