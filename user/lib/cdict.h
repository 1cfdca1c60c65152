/* SPDX-License-Identifier: GPL-2.0 */
/* cdict files: the v2 chunked writer, and one reader for v2 and legacy perfwhiz files. */
#ifndef PWZ_CDICT_H
#define PWZ_CDICT_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "outfile.h"
#include "records.h"

/*
 * The v2 format is described in docs/cdict.md. In short: a 16-byte file header, then
 * chunks; each chunk is a small header and one LZ4 frame holding a msgpack stream of
 * records; the first chunk starts with a META record, the last holds an END record.
 * A writer holds at most one chunk in memory (about chunk_bytes), so a capture of any
 * length runs in bounded memory, and a killed writer loses at most its last chunk.
 */

#define CDICT_VERSION 2

struct cdict_writer;

struct cdict_writer_opts {
	size_t chunk_bytes;	/* uncompressed bytes per chunk; 0 = default (1 MiB) */
	int compression_level;	/* LZ4 level; 0 = fast default */
	bool legacy;		/* write perfwhiz's format instead (zlib + one msgpack map of
				 * columns): rows are held in memory until finish, aggregates
				 * and wakeups are not stored, times become microseconds */
	mode_t mode;		/* the file's mode; 0 = 0600 (OUTFILE_MODE_DEFAULT) */
	enum outfile_exists exists;	/* a file at path: replaced (0), kept with the capture
					 * numbered path-2, ... or kept and the finish refused */
};

/*
 * Starts a v2 file at path. The data goes to a temporary "<path>.XXXXXX.part" of its own
 * (outfile.h: created with O_EXCL|O_NOFOLLOW, never a planted name) and is renamed to path (or,
 * as opts->exists says, to a numbered name) by cdict_writer__finish(), so an existing file at
 * path is never half overwritten and two writers of one path never share a file; the META
 * record (a copy of meta) is written first.
 * On failure returns NULL, sets errno and fills err.
 */
struct cdict_writer *cdict_writer__new(const char *path, const struct pwz_meta *meta,
				       const struct cdict_writer_opts *opts, char *err, size_t errlen);

/* Record appends. Each returns 0 or -errno (disk full: -ENOSPC); after an error the writer
 * refuses further records and cdict_writer__finish() fails. Records may come in any order,
 * but a task record should precede the records that name its tid. */
int cdict_writer__task(struct cdict_writer *w, const struct pwz_task *t);
int cdict_writer__slice(struct cdict_writer *w, const struct pwz_slice *s);
int cdict_writer__wakeup(struct cdict_writer *w, const struct pwz_wakeup *wk);
int cdict_writer__kvm_exit(struct cdict_writer *w, const struct pwz_kvm_exit *e);
int cdict_writer__cpu_agg(struct cdict_writer *w, const struct pwz_cpu_agg *a);
int cdict_writer__kvm_agg(struct cdict_writer *w, const struct pwz_kvm_agg *a);
int cdict_writer__wait_agg(struct cdict_writer *w, const struct pwz_wait_agg *a);
/* --irq aggregates (IRQ_AGG, type 10: readers before it skip the record); not in --legacy. */
int cdict_writer__irq_agg(struct cdict_writer *w, const struct pwz_irq_agg *a);
/* A vCPU thread instance's state ledger (VCPU_LEDGER, type 11: readers before it skip the
 * record); not in --legacy. */
int cdict_writer__vcpu_ledger(struct cdict_writer *w, const struct pwz_vcpu_ledger *l);

/* The writer as a visitor (struct cdict_visitor, below): every record callback appends to w as
 * the functions above do; meta is NULL (the metadata is given to new and finish). */
struct cdict_visitor cdict_writer__visitor(struct cdict_writer *w);

/* Flushes the current chunk to disk now (for instance once a second, so that a killed
 * capture loses little). Returns 0 or -errno. */
int cdict_writer__flush(struct cdict_writer *w);

/* Bytes written to disk so far: the header and the whole chunks. */
unsigned long long cdict_writer__bytes(const struct cdict_writer *w);

/* Whole chunks written so far (a chunk cut by a write error does not count). */
unsigned long long cdict_writer__chunks(const struct cdict_writer *w);

/* The file's name: path, and once cdict_writer__finish() succeeded the name written (a
 * numbered one when a file was kept, outfile.h); NULL once closed. */
const char *cdict_writer__path(const struct cdict_writer *w);

/* The temporary's name ("<path>.XXXXXX.part"), for messages; NULL once closed. */
const char *cdict_writer__part_path(const struct cdict_writer *w);

/*
 * Writes the END record holding final (the final metadata: duration, drops, ...), flushes,
 * fsyncs and renames the file into place. Returns 0 or -errno and fills err; on failure the
 * temporary is still there: cdict_writer__keep_partial() keeps its whole chunks, and
 * cdict_writer__free() removes it. The writer must still be freed.
 */
int cdict_writer__finish(struct cdict_writer *w, const struct pwz_meta *final, char *err,
			 size_t errlen);

/*
 * After a write error (disk full) or any reason to stop without finishing: keeps the temporary
 * under its name (cdict_writer__part_path()), truncated to its whole chunks, so that
 * `pwz-render --partial` reads them (a cut file). Returns 1 when kept, 0 when there was no
 * whole chunk to keep (the file is then removed; legacy files have none before finish), or
 * -errno (the file is kept, perhaps with a cut last chunk that readers skip).
 */
int cdict_writer__keep_partial(struct cdict_writer *w);

/* cdict_writer__keep_partial(), and what it kept said in note (notelen bytes) for a message:
 * the temporary's name and how to read it, or why nothing was kept. Returns what
 * cdict_writer__keep_partial() returned. */
int cdict_writer__keep_partial_note(struct cdict_writer *w, char *note, size_t notelen);

/* Frees the writer. An unfinished writer removes its partial file unless it was kept. NULL is
 * a no-op. */
void cdict_writer__free(struct cdict_writer *w);

/*
 * Reader. cdict_read() calls the visitor for every record in file order. Callbacks may be
 * NULL; a callback that returns non-zero stops the read and cdict_read() returns that value.
 * Pointers passed to callbacks are valid only during the call.
 *
 * For a legacy perfwhiz file the reader derives the same records from its rows: tasks,
 * slices (ending PWZ_END_UNKNOWN), KVM exits paired with their entries, and per task
 * aggregates; the meta says source = legacy, has_switch_kind = has_wait = false.
 *
 * meta is called once, before any other record, with the final metadata when the file
 * has an END record (v2: the reader looks at the end of the file first), else with the
 * starting one.
 */
struct cdict_visitor {
	void *ctx;
	int (*meta)(void *ctx, const struct pwz_meta *meta);
	int (*task)(void *ctx, const struct pwz_task *t);
	int (*slice)(void *ctx, const struct pwz_slice *s);
	int (*wakeup)(void *ctx, const struct pwz_wakeup *wk);
	int (*kvm_exit)(void *ctx, const struct pwz_kvm_exit *e);
	int (*cpu_agg)(void *ctx, const struct pwz_cpu_agg *a);
	int (*kvm_agg)(void *ctx, const struct pwz_kvm_agg *a);
	int (*wait_agg)(void *ctx, const struct pwz_wait_agg *a);
	int (*irq_agg)(void *ctx, const struct pwz_irq_agg *a);
	int (*vcpu_ledger)(void *ctx, const struct pwz_vcpu_ledger *l);
};

enum cdict_format {
	CDICT_FORMAT_V2 = 2,
	CDICT_FORMAT_LEGACY = 1,
};

struct cdict_read_info {
	int format;			/* enum cdict_format */
	unsigned int version;		/* v2: the file's version */
	bool cut;			/* the file ends without END record (killed writer, truncation) */
	bool has_aggregates;		/* the file holds kernel aggregates (else derived by the reader) */
	unsigned long long chunks;	/* whole chunks read */
	unsigned long long records;	/* records delivered */
	unsigned long long cut_offset;	/* with cut: file offset where reading stopped */
};

/*
 * Opens the capture at path for reading, refusing what is not a regular file: a capture is
 * read by its offsets (the trailer, the chunks), and the open never waits (a FIFO without a
 * writer would block it forever). Fills *st. Returns the descriptor (the caller closes it), or
 * -errno with err filled: -EINVAL "<path>: not a regular file ...", else "<path>: cannot open".
 */
int cdict_open(const char *path, struct stat *st, char *err, size_t errlen);

/*
 * Reads path. Returns 0 when every whole chunk was read (info->cut tells whether the file
 * was cut short; a cut file still returns 0 if its first chunk is whole), a callback's
 * non-zero value, or -errno with err filled as "<path>: <what is wrong> (offset N)":
 * -ENOENT missing, -EINVAL not a cdict or corrupt, -EPROTONOSUPPORT a future version.
 * Never crashes on hostile input; memory use is bounded by the chunk size limit (64 MiB).
 */
int cdict_read(const char *path, const struct cdict_visitor *v, struct cdict_read_info *info,
	       char *err, size_t errlen);

/* Resolves a user's file argument: path itself if it exists, else path + ".cdict" if that
 * exists. Returns a malloc'd string, or NULL with errno ENOENT (or ENOMEM). */
char *cdict_resolve_path(const char *path);

#endif /* PWZ_CDICT_H */
