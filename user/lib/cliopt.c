// SPDX-License-Identifier: GPL-2.0
/* Command lines checked before getopt_long: long options matched exactly, perfwhiz's removed ones named. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cliopt.h"

/* Whether short option c takes a value in shortopts (getopt's "c:"). */
static bool short_takes_value(const char *shortopts, char c)
{
	const char *p = c && c != ':' ? strchr(shortopts, c) : NULL;

	return p && p[1] == ':';
}

int cliopt_check_exact(int argc, char **argv, const char *shortopts, const struct option *opts,
		       const struct cliopt_removed *removed, char *err, size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq;
		const struct option *o;
		size_t n;

		if (!strcmp(a, "--"))
			return 0;
		if (a[0] != '-' || !a[1])
			continue;	/* a positional argument */
		if (a[1] != '-') {
			/* -abc: the first short option that takes a value ends the cluster */
			for (const char *p = a + 1; *p; p++) {
				if (short_takes_value(shortopts, *p)) {
					if (!p[1])
						i++;	/* "-t NAME": NAME is the value */
					break;
				}
			}
			continue;
		}
		eq = strchr(a + 2, '=');
		n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		for (o = opts; o->name; o++)
			if (strlen(o->name) == n && !strncmp(o->name, a + 2, n))
				break;
		if (o->name) {
			if (o->has_arg == required_argument && !eq)
				i++;
			continue;
		}
		for (const struct cliopt_removed *r = removed; r && r->name; r++) {
			if (strlen(r->name) == n && !strncmp(r->name, a + 2, n)) {
				snprintf(err, errlen, "--%s is a perfwhiz option that pwz does not have: %s",
					 r->name, r->instead);
				return -EINVAL;
			}
		}
		snprintf(err, errlen, "unknown option '--%.*s' (long options are matched exactly; see --help)",
			 (int)n, a + 2);
		return -EINVAL;
	}
	return 0;
}
