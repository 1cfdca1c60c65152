/* SPDX-License-Identifier: GPL-2.0 */
/* Capture metadata from the running system: host, kernel, CPU topology, exit names. */
#ifndef PWZ_CAPTURE_META_H
#define PWZ_CAPTURE_META_H

#include <stddef.h>
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

#endif /* PWZ_CAPTURE_META_H */
