/* SPDX-License-Identifier: GPL-2.0 */
/* perfwhiz's legacy cdict (zlib + one msgpack map of 8 columns): internal reader and writer. */
#ifndef PWZ_LEGACY_H
#define PWZ_LEGACY_H

#include <stdio.h>
#include "cdict.h"

/* True when the first bytes look like a zlib stream (a legacy cdict). */
bool legacy_sniff(const unsigned char *head, size_t len);

/* Reads the legacy file open at f (at offset 0) and feeds v as cdict_read() documents.
 * Returns 0, a callback's value, or -errno with err filled. */
int legacy_read(FILE *f, const char *path, const struct cdict_visitor *v,
		struct cdict_read_info *info, char *err, size_t errlen);

/* The legacy writer: rows are kept in memory and written at finish. */
struct legacy_writer;

struct legacy_writer *legacy_writer__new(void);
int legacy_writer__task(struct legacy_writer *lw, const struct pwz_task *t);
int legacy_writer__slice(struct legacy_writer *lw, const struct pwz_slice *s);
int legacy_writer__kvm_exit(struct legacy_writer *lw, const struct pwz_kvm_exit *e);
/* Writes the whole file to f. Returns 0 or -errno. */
int legacy_writer__write(struct legacy_writer *lw, FILE *f);
void legacy_writer__free(struct legacy_writer *lw);

#endif /* PWZ_LEGACY_H */
