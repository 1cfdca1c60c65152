/* SPDX-License-Identifier: GPL-2.0 */
/* Decimal durations and counts from the command line: one strict rule for every option. */
#ifndef PWZ_NUMOPT_H
#define PWZ_NUMOPT_H

#include <stdint.h>

/*
 * Parses s as a plain decimal number of units of unit_digits decimal places of a nanosecond
 * (milliseconds: 6, seconds: 9) into *ns. Accepted: digits with at most one '.', and an
 * optional exponent ("1.5", ".25", "2e3", "1E-3"). Refused, with the reason returned:
 *   -EINVAL  not a plain decimal number: empty, a sign, "nan", "inf", hex ("0x10"),
 *            trailing bytes;
 *   -EDOM    finer than a nanosecond ("0.0000001" ms, "1.0000005" ms): digits beyond the
 *            nanosecond that are not zeros;
 *   -ERANGE  more than max_ns.
 * Zero is accepted (callers that need more than 0 check *ns). *ns is unchanged on error.
 */
int numopt_parse_ns(const char *s, unsigned int unit_digits, uint64_t max_ns, uint64_t *ns);

/* What a numopt_parse_ns() error means, for messages: "is not a plain decimal number", ... */
const char *numopt_strerror(int err);

/*
 * Parses s as a decimal count from 1 to max: digits only (no sign, no hex, no blanks).
 * Returns 0, -EINVAL or -ERANGE (0 or more than max).
 */
int numopt_parse_count(const char *s, uint64_t max, uint64_t *out);

#endif /* PWZ_NUMOPT_H */
