/* SPDX-License-Identifier: GPL-2.0 */
/* KVM exit-reason names: parsed from a kvm_exit tracepoint format, or built in. */
#ifndef PWZ_EXITNAMES_H
#define PWZ_EXITNAMES_H

#include <stddef.h>
#include "records.h"

/*
 * Parses the "print fmt" of a kvm_exit tracepoint format text (the whole format file, or
 * just the print fmt line) and adds every (isa, code, name) of its __print_symbolic tables
 * to meta: the table guarded by "REC->isa == 1" is VMX, the other SVM (for kernels whose
 * format has no isa, the single table is taken as VMX). Codes written as expressions like
 * "0x040 + 14" are evaluated. Returns the number of names added, or -EINVAL with err filled
 * when the text has no symbolic table.
 */
int exitnames_parse_format(struct pwz_meta *meta, const char *text, size_t len, char *err,
			   size_t errlen);

/* Adds the built-in VMX and SVM tables (Linux 6.x names) to meta. Returns the number added,
 * or -ENOMEM. */
int exitnames_add_builtin(struct pwz_meta *meta);

/* Name of (isa, code) from the built-in tables, or NULL. */
const char *exitnames_builtin(uint32_t isa, uint32_t code);

#endif /* PWZ_EXITNAMES_H */
