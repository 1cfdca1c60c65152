/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper: a small JSON reader for the fixtures' truth files and the programs' --json
 * output. tj_load() parses a whole file into a tree; tj_at() walks it by a printf-formatted
 * path of '/'-separated steps, each an object key or an array index ("threads/0/tid"; keys
 * may hold dots: "kvm_by_task_name/vm_router.vcpu0/exit_count").
 * Numbers keep their integer value when they are integers (tj_int), a double always (num).
 */
#ifndef PWZ_TESTS_TJSON_H
#define PWZ_TESTS_TJSON_H

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tj_type { TJ_NULL, TJ_BOOL, TJ_NUM, TJ_STR, TJ_ARR, TJ_OBJ };

struct tj {
	enum tj_type type;
	char *key;		/* the member's name inside an object, else NULL */
	char *str;		/* TJ_STR: the decoded string (UTF-8, NUL-terminated) */
	double num;		/* TJ_NUM; TJ_BOOL: 0 or 1 */
	long long i;		/* TJ_NUM: the value, when is_int */
	bool is_int;
	size_t n;		/* TJ_ARR, TJ_OBJ: number of kids */
	struct tj *kids;
};

/* The sentinel tj_int() returns for a missing or non-integer value. */
#define TJ_NONE LLONG_MIN

struct tj_parser {
	const char *p, *end;
	int depth;
};

static inline void tj_free_kids(struct tj *v)
{
	for (size_t k = 0; k < v->n; k++)
		tj_free_kids(&v->kids[k]);
	free(v->kids);
	free(v->key);
	free(v->str);
}

/* Frees a tree from tj_load(). */
static inline void tj_free(struct tj *v)
{
	if (!v)
		return;
	tj_free_kids(v);
	free(v);
}

static inline void tj_ws(struct tj_parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static inline int tj_hex4(struct tj_parser *ps, unsigned int *u)
{
	*u = 0;
	if (ps->end - ps->p < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		char c = *ps->p++;

		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*u |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*u |= (unsigned int)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static inline size_t tj_utf8(char *o, unsigned int u)
{
	if (u < 0x80) {
		o[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		o[0] = (char)(0xc0 | (u >> 6));
		o[1] = (char)(0x80 | (u & 0x3f));
		return 2;
	}
	if (u < 0x10000) {
		o[0] = (char)(0xe0 | (u >> 12));
		o[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		o[2] = (char)(0x80 | (u & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (u >> 18));
	o[1] = (char)(0x80 | ((u >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((u >> 6) & 0x3f));
	o[3] = (char)(0x80 | (u & 0x3f));
	return 4;
}

/* Parses a string at ps->p (on its opening quote) into a malloc'd C string. */
static inline char *tj_string(struct tj_parser *ps)
{
	const char *start = ++ps->p;
	char *out, *o;

	while (ps->p < ps->end && *ps->p != '"')
		ps->p += *ps->p == '\\' ? 2 : 1;
	if (ps->p >= ps->end)
		return NULL;
	/* escapes never grow: \uXXXX (6 bytes) gives at most 4, a pair (12) 4 */
	out = malloc((size_t)(ps->p - start) + 1);
	if (!out)
		return NULL;
	ps->p = start;
	o = out;
	while (*ps->p != '"') {
		char c = *ps->p++;
		unsigned int u, lo;

		if ((unsigned char)c < 0x20)
			goto bad;
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		c = *ps->p++;
		switch (c) {
		case '"': case '\\': case '/': *o++ = c; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (tj_hex4(ps, &u))
				goto bad;
			if (u >= 0xd800 && u < 0xdc00) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u')
					goto bad;
				ps->p += 2;
				if (tj_hex4(ps, &lo) || lo < 0xdc00 || lo >= 0xe000)
					goto bad;
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			} else if (u >= 0xdc00 && u < 0xe000) {
				goto bad;
			}
			o += tj_utf8(o, u);
			break;
		default:
			goto bad;
		}
	}
	ps->p++;
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static inline int tj_value(struct tj_parser *ps, struct tj *v);

/* Parses the members of an array (close ']') or object (close '}') after its opening bracket. */
static inline int tj_kids(struct tj_parser *ps, struct tj *v, char close)
{
	size_t cap = 0;

	tj_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return 0;
	}
	for (;;) {
		struct tj kid = { 0 };

		tj_ws(ps);
		if (close == '}') {
			if (ps->p >= ps->end || *ps->p != '"' || !(kid.key = tj_string(ps)))
				return -1;
			tj_ws(ps);
			if (ps->p >= ps->end || *ps->p++ != ':') {
				free(kid.key);
				return -1;
			}
		}
		if (tj_value(ps, &kid)) {
			tj_free_kids(&kid);
			return -1;
		}
		if (v->n == cap) {
			struct tj *k2 = realloc(v->kids, (cap = cap ? 2 * cap : 8) * sizeof(*k2));

			if (!k2) {
				tj_free_kids(&kid);
				return -1;
			}
			v->kids = k2;
		}
		v->kids[v->n++] = kid;
		tj_ws(ps);
		if (ps->p >= ps->end)
			return -1;
		if (*ps->p == close) {
			ps->p++;
			return 0;
		}
		if (*ps->p++ != ',')
			return -1;
	}
}

static inline int tj_value(struct tj_parser *ps, struct tj *v)
{
	size_t left;

	tj_ws(ps);
	if (ps->p >= ps->end || ++ps->depth > 200)
		return -1;
	left = (size_t)(ps->end - ps->p);
	switch (*ps->p) {
	case '{':
		ps->p++;
		v->type = TJ_OBJ;
		return tj_kids(ps, v, '}') ? -1 : (ps->depth--, 0);
	case '[':
		ps->p++;
		v->type = TJ_ARR;
		return tj_kids(ps, v, ']') ? -1 : (ps->depth--, 0);
	case '"':
		v->type = TJ_STR;
		v->str = tj_string(ps);
		ps->depth--;
		return v->str ? 0 : -1;
	}
	ps->depth--;
	if (left >= 4 && !memcmp(ps->p, "null", 4)) {
		ps->p += 4;
		v->type = TJ_NULL;
		return 0;
	}
	if (left >= 4 && !memcmp(ps->p, "true", 4)) {
		ps->p += 4;
		v->type = TJ_BOOL;
		v->num = 1;
		return 0;
	}
	if (left >= 5 && !memcmp(ps->p, "false", 5)) {
		ps->p += 5;
		v->type = TJ_BOOL;
		return 0;
	}
	if (*ps->p == '-' || isdigit((unsigned char)*ps->p)) {
		const char *s = ps->p;
		char buf[64], *e;

		while (ps->p < ps->end && strchr("+-0123456789.eE", *ps->p))
			ps->p++;
		if ((size_t)(ps->p - s) >= sizeof(buf))
			return -1;
		memcpy(buf, s, (size_t)(ps->p - s));
		buf[ps->p - s] = '\0';
		v->type = TJ_NUM;
		v->num = strtod(buf, &e);
		if (*e)
			return -1;
		if (!strpbrk(buf, ".eE")) {
			errno = 0;
			v->i = strtoll(buf, &e, 10);
			v->is_int = !*e && !errno;
		}
		return 0;
	}
	return -1;
}

/* Parses the JSON file at path; NULL (with a line on stderr) if it cannot be read or parsed. */
static inline struct tj *tj_load(const char *path)
{
	struct tj_parser ps = { 0 };
	struct tj *v = calloc(1, sizeof(*v));
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long len;

	if (!v || !f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(text = malloc((size_t)len + 1)) || fread(text, 1, (size_t)len, f) != (size_t)len)
		goto bad;
	ps.p = text;
	ps.end = text + len;
	if (tj_value(&ps, v))
		goto bad;
	tj_ws(&ps);
	if (ps.p != ps.end)
		goto bad;
	fclose(f);
	free(text);
	return v;
bad:
	fprintf(stderr, "tj_load: %s: cannot read or parse (near byte %ld)\n", path,
		ps.p ? (long)(ps.p - text) : 0L);
	if (f)
		fclose(f);
	free(text);
	tj_free(v);
	return NULL;
}

/* The member named key of an object, or NULL. */
static inline const struct tj *tj_get(const struct tj *v, const char *key)
{
	if (!v || v->type != TJ_OBJ)
		return NULL;
	for (size_t k = 0; k < v->n; k++)
		if (!strcmp(v->kids[k].key, key))
			return &v->kids[k];
	return NULL;
}

/* The node at a printf-formatted path below v (see the top), or NULL. "" is v itself. */
static inline const struct tj *tj_at(const struct tj *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline const struct tj *tj_at(const struct tj *v, const char *fmt, ...)
{
	char path[512], *step, *save = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	for (step = strtok_r(path, "/", &save); v && step; step = strtok_r(NULL, "/", &save)) {
		if (v->type == TJ_ARR) {
			char *e;
			unsigned long idx = strtoul(step, &e, 10);

			v = (*e || idx >= v->n) ? NULL : &v->kids[idx];
		} else {
			v = tj_get(v, step);
		}
	}
	return v;
}

/* The integer value of v, or TJ_NONE if v is missing or not an integer. */
static inline long long tj_int(const struct tj *v)
{
	return v && v->type == TJ_NUM && v->is_int ? v->i : TJ_NONE;
}

/* The string of v, or NULL if v is missing or not a string. */
static inline const char *tj_str(const struct tj *v)
{
	return v && v->type == TJ_STR ? v->str : NULL;
}

/* Number of kids of an array or object; -1 for anything else (missing included). */
static inline long long tj_len(const struct tj *v)
{
	return v && (v->type == TJ_ARR || v->type == TJ_OBJ) ? (long long)v->n : -1;
}

/* The first element of array v whose member key is the string val, or NULL. */
static inline const struct tj *tj_find(const struct tj *v, const char *key, const char *val)
{
	if (!v || v->type != TJ_ARR)
		return NULL;
	for (size_t k = 0; k < v->n; k++) {
		const char *s = tj_str(tj_get(&v->kids[k], key));

		if (s && !strcmp(s, val))
			return &v->kids[k];
	}
	return NULL;
}

#endif /* PWZ_TESTS_TJSON_H */
