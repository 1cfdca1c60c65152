/* SPDX-License-Identifier: GPL-2.0 */
/* `pwz-render --export parquet`: a capture as Parquet tables that query engines read. */
#ifndef PWZ_EXPORT_H
#define PWZ_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tasksel;

/*
 * One capture becomes one file per table, DIR/<table>/<trace_id>.parquet, so the captures of
 * many hosts land in one tree that an engine reads as one table per folder
 * (read_parquet('DIR/sched_slice/<all>.parquet') in DuckDB). The tables, their columns, types and nulls are
 * documented in docs/fleet.md; every row starts with trace_id and host.
 *
 * trace_id: 16 hex digits, the XXH64 hash (seed 0) of the capture file's bytes, all of them: the
 * same file exported twice (or a byte-for-byte copy of it) gets the same id, two files that
 * differ in any byte get different ones (up to the hash's 2^-64 chance), whatever their
 * metadata says. A capture whose id is in the tree already is not written again unless
 * opts->force (export_result.already).
 *
 * The tree is opened from its top folder down, each table folder with O_NOFOLLOW, and every
 * folder of it must be the running user's: a symlink or another user's folder planted at a
 * table's name (in a shared, sticky folder) is refused, never written through. Folders made
 * here get outfile_dir_mode(opts->mode) (0700 by default), whatever the umask.
 *
 * The export streams: records go from the cdict reader to the table writers, whose row groups
 * are bounded (parquet.h); only the per-thread tables (thread, process) are held until the end,
 * and KVM exits until the slices that decide their on/off-CPU split are read (export_split.h,
 * bounded too), so kvm_exit rows are in the order their split was decided.
 */

enum export_table {
	EXPORT_SCHED_SLICE,
	EXPORT_THREAD_STATE,
	EXPORT_THREAD,
	EXPORT_PROCESS,
	EXPORT_KVM_EXIT,
	EXPORT_CPU_RESIDENCY,
	EXPORT_CAPTURE,
	EXPORT_VCPU,
	EXPORT_VCPU_STATE,
	EXPORT_NR_TABLES,
};

struct export_opts {
	bool partial;		/* export a cut file's whole chunks (else a cut file is refused) */
	int zstd_level;		/* 0 = the writer's default */
	size_t row_group_rows;	/* 0 = the writer's default */
	unsigned int mode;	/* the files' mode (--mode); 0 = OUTFILE_MODE_DEFAULT (0600) */
	const struct tasksel *sel;	/* -t: the thread instances whose rows are written in
					 * sched_slice, thread_state, kvm_exit, cpu_residency,
					 * thread, process, vcpu and vcpu_state (tasksel.h,
					 * resolved against this capture); NULL = every thread */
	bool force;		/* write a trace_id already in the tree again, replacing its files */
};

struct export_result {
	char trace_id[17];
	uint64_t rows[EXPORT_NR_TABLES];
	bool cut;		/* the file was cut short (only with partial) */
	bool already;		/* every table of trace_id was in the tree: nothing written */
	uint64_t split_forced;	/* kvm_exit rows whose on/off-CPU split was decided before every
				 * CPU's slices reached the exit's entry (export_split.h) */
};

/* The folder name of a table ("sched_slice", ...). */
const char *export_table_name(enum export_table t);

/*
 * Exports the capture at path (v2 or legacy; a name without .cdict is resolved) into out_dir,
 * which must exist; table folders are created. Files appear only when the whole export
 * succeeded (each is written as .part and renamed). Returns 0 (res->already: the tree had it),
 * or -errno with err filled: -ELOOP / -ENOTDIR / -EPERM a folder of the tree refused (see
 * above), -EEXIST some but not all of the trace_id's tables in the tree (without opts->force).
 */
int export_parquet(const char *path, const char *out_dir, const struct export_opts *opts,
		   struct export_result *res, char *err, size_t errlen);

/* Copies the n bytes of s into out (outlen > 0) as valid UTF-8, each invalid byte replaced by
 * U+FFFD, NUL-terminated, cut at a character boundary to fit. Returns the length written. */
size_t export_utf8(const char *s, size_t n, char *out, size_t outlen);

#endif /* PWZ_EXPORT_H */
