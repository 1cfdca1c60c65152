/* SPDX-License-Identifier: GPL-2.0 */
/* Command lines checked before getopt_long: long options matched exactly, perfwhiz's removed ones named. */
#ifndef PWZ_CLIOPT_H
#define PWZ_CLIOPT_H

#include <getopt.h>
#include <stddef.h>

/* An option perfwhiz had that pwz does not: its name (without "--") and what to use instead. */
struct cliopt_removed {
	const char *name;
	const char *instead;	/* one sentence, e.g. "record with perf and import with --use-perf-data" */
};

/*
 * getopt_long() takes any unambiguous prefix of a long option ("--use-perf" for
 * "--use-perf-data"); pwz does not. Walks argv[1..argc) as getopt_long would (shortopts as
 * given to it, "--" ends the options, an option's separate value is skipped) and checks that
 * every "--name" or "--name=value" names an option of opts exactly. removed (NULL-name
 * terminated, may be NULL) is perfwhiz's options that are gone. Returns 0, or -EINVAL with
 * err filled: "--use-perf: perfwhiz's option, gone: <instead>" or "unknown option '--x' (see
 * --help)". Never prints.
 */
int cliopt_check_exact(int argc, char **argv, const char *shortopts, const struct option *opts,
		       const struct cliopt_removed *removed, char *err, size_t errlen);

#endif /* PWZ_CLIOPT_H */
