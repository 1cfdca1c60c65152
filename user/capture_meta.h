/* SPDX-License-Identifier: GPL-2.0 */
/* Capture metadata from the running system: host, kernel, CPU topology, exit names. */
#ifndef PWZ_CAPTURE_META_H
#define PWZ_CAPTURE_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "records.h"

/*
 * Fills host, kernel release, nr_cpus (configured CPUs) and the topology of each CPU read
 * from sysfs_root (normally "/sys"): devices/system/cpu/cpuN/topology/{physical_package_id,
 * core_id} and the LLC from cache/indexN (the highest level): its "id", else the first CPU of
 * its shared_cpu_list. Unknown values are -1. Returns 0 or -ENOMEM.
 */
int capture_meta_system(struct pwz_meta *m, const char *sysfs_root, int nr_cpus);

/*
 * Adds the exit names of the kvm_exit format file at path to m; when it cannot be read or
 * parsed, the built-in tables. Returns the number added (> 0), or -ENOMEM; *from_format
 * tells which source was used.
 */
int capture_meta_exit_names(struct pwz_meta *m, const char *path, bool *from_format);

/* The host's CPU time from /proc/stat's "cpu" line, in clock ticks (USER_HZ). */
struct capture_cpu_stat {
	uint64_t total;		/* user + nice + system + idle + iowait + irq + softirq + steal
				 * (guest and guest_nice are already in user and nice) */
	uint64_t steal;		/* time the hypervisor ran something else */
	bool ok;		/* the line was read */
};


/* One CPU's interrupt and steal time from its "cpuN" line of /proc/stat, in clock ticks. */
struct capture_cpu_ticks {
	uint64_t irq;		/* hard interrupts */
	uint64_t softirq;	/* soft interrupts */
	uint64_t steal;		/* the hypervisor ran something else */
	bool ok;		/* the line was read */
};

/* Reads the "cpu" line of path (normally "/proc/stat") into *st and, in the same pass, its
 * "cpuN" lines into cpus[N] for N < nr (cpus may be NULL with nr 0; a CPU without a line is
 * left zero, ok false). Returns 0, -errno when the file cannot be read, or -EINVAL when the
 * "cpu" line is not there or has fewer than 8 fields. */
int capture_meta_read_stat(const char *path, struct capture_cpu_stat *st,
			   struct capture_cpu_ticks *cpus, int nr);

/* Sets m's steal_ns and cpu_time_ns (has_steal) from two readings taken at the start and the end
 * of a capture, ticks_per_s ticks a second (sysconf(_SC_CLK_TCK)). Nothing when either reading
 * failed, the counters went backwards, or ticks_per_s <= 0. */
void capture_meta_steal(struct pwz_meta *m, const struct capture_cpu_stat *start,
			const struct capture_cpu_stat *end, long ticks_per_s);

#endif /* PWZ_CAPTURE_META_H */
