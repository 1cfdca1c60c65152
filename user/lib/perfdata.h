/* SPDX-License-Identifier: GPL-2.0 */
/* perf.data import: reads a perf.data file (file or pipe mode) into a cdict. */
#ifndef PWZ_PERFDATA_H
#define PWZ_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "outfile.h"

struct task_map;

struct perfdata_import_opts {
	const struct task_map *map;	/* --map annotation, or NULL */
	const char *cmdline;		/* pwz-bpf's own command line, stored in the meta; may be NULL */
	bool legacy;			/* write perfwhiz's legacy cdict instead of v2 */
	mode_t mode;			/* the cdict's mode; 0 = 0600 (see outfile.h) */
	enum outfile_exists exists;	/* a file at out_path: replaced (0), kept (outfile.h) */
};

struct perfdata_import_stats {
	uint64_t samples;		/* SAMPLE records read */
	uint64_t sched_switch;		/* sched_switch samples used */
	uint64_t sched_wakeup;		/* sched_wakeup and sched_wakeup_new samples used */
	uint64_t kvm_exit;		/* kvm_exit samples used */
	uint64_t kvm_entry;		/* kvm_entry samples used */
	uint64_t kvm_uexit;		/* kvm_userspace_exit samples (the vCPU ledger's) */
	uint64_t kvm_halt;		/* kvm_vcpu_wakeup samples (the same) */
	uint64_t skipped;		/* samples of other events, skipped */
	uint64_t lost;			/* events the file says were lost (LOST, LOST_SAMPLES) */
	uint64_t slices;		/* run slices written */
	uint64_t tasks;			/* tasks written */
	char path[4096];		/* the cdict written: out_path, or its numbered name when
					 * a file there was kept (opts->exists) */
};

/*
 * Reads the perf.data file at in_path and writes the cdict at out_path (through
 * cdict_writer, so out_path appears only when complete). Returns 0, or -errno with err filled
 * as "<in_path>: offset N: <what is wrong>"; -ENODATA (with a plain message) when the file
 * holds no sched_switch and no kvm_exit samples. On error no output file is left.
 */
int perfdata_import(const char *in_path, const char *out_path,
		    const struct perfdata_import_opts *opts, struct perfdata_import_stats *stats,
		    char *err, size_t errlen);

#endif /* PWZ_PERFDATA_H */
