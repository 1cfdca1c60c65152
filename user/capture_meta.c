// SPDX-License-Identifier: GPL-2.0
/* Capture metadata from the running system: host, kernel, CPU topology, exit names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "capture_meta.h"
#include "exitnames.h"

/* Reads an integer from a one-line file; -1 when absent or not a number. */
static int32_t read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	long v;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return (int32_t)v;
}

/* LLC id of cpu: the highest cache level's id, or the first CPU sharing it. */
static int32_t read_llc(const char *sysfs_root, int cpu)
{
	char path[512];
	int best_level = -1, best_idx = -1;
	int32_t id;

	for (int i = 0; i < 8; i++) {
		int32_t level;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/level",
			 sysfs_root, cpu, i);
		level = read_int(path);
		if (level > best_level) {
			best_level = level;
			best_idx = i;
		}
	}
	if (best_idx < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/id", sysfs_root,
		 cpu, best_idx);
	id = read_int(path);
	if (id >= 0)
		return id;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
		 sysfs_root, cpu, best_idx);
	return read_int(path);	/* "0-1" reads as 0: the first CPU of the list */
}

/* The kernel's boot id (a UUID, new at every boot: with the host name it tells captures of
 * one boot apart in a fleet), into out[37]. false when unreadable or not a UUID. */
static bool read_boot_id(char out[40])
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	size_t n = 0;
	bool ok;

	if (!f)
		return false;
	ok = fgets(out, 40, f) != NULL;
	fclose(f);
	if (ok) {
		out[strcspn(out, "\n")] = '\0';
		n = strlen(out);
		ok = n == 36 && strspn(out, "0123456789abcdef-") == n;
	}
	return ok;
}

int capture_meta_system(struct pwz_meta *m, const char *sysfs_root, int nr_cpus)
{
	struct utsname u;
	char host[256] = "", boot_id[40];
	char path[512];

	if (!gethostname(host, sizeof(host) - 1) && pwz_meta_set_str(&m->host, host))
		return -ENOMEM;
	if (!uname(&u) && pwz_meta_set_str(&m->kernel, u.release))
		return -ENOMEM;
	if (read_boot_id(boot_id) && pwz_meta_set_str(&m->boot_id, boot_id))
		return -ENOMEM;
	if (nr_cpus <= 0 || nr_cpus > PWZ_MAX_CPUS)
		return 0;
	m->nr_cpus = (uint32_t)nr_cpus;
	free(m->topo);
	m->topo = calloc(nr_cpus, sizeof(*m->topo));
	if (!m->topo)
		return -ENOMEM;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/physical_package_id",
			 sysfs_root, cpu);
		m->topo[cpu].package = read_int(path);
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/core_id",
			 sysfs_root, cpu);
		m->topo[cpu].core = read_int(path);
		m->topo[cpu].llc = read_llc(sysfs_root, cpu);
	}
	return 0;
}

int capture_meta_exit_names(struct pwz_meta *m, const char *path, bool *from_format)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, err[256];
	size_t len = 0, cap = 0, n;
	uint32_t before = m->nr_exit_names;
	int added = -EINVAL;

	*from_format = false;
	if (f) {
		for (;;) {
			if (cap - len < 4096) {
				char *nb = realloc(buf, cap ? cap * 2 : 65536);

				if (!nb || cap > (16u << 20))
					break;
				buf = nb;
				cap = cap ? cap * 2 : 65536;
			}
			n = fread(buf + len, 1, cap - len, f);
			if (!n)
				break;
			len += n;
		}
		fclose(f);
		if (buf)
			added = exitnames_parse_format(m, buf, len, err, sizeof(err));
		free(buf);
	}
	if (added > 0) {
		*from_format = true;
		return added;
	}
	if (added == -ENOMEM)
		return added;
	m->nr_exit_names = before;	/* drop a partly parsed table */
	return exitnames_add_builtin(m);
}

/* One "cpuN ..." line of /proc/stat into cpus[N] when N < nr. */
static void read_cpu_line(const char *line, struct capture_cpu_ticks *cpus, int nr)
{
	unsigned long long v[8];
	unsigned int cpu;

	if (sscanf(line + 3, "%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 9 && cpu < (unsigned int)nr)
		cpus[cpu] = (struct capture_cpu_ticks){ .irq = v[5], .softirq = v[6], .steal = v[7],
							.ok = true };
}

int capture_meta_read_stat(const char *path, struct capture_cpu_stat *st,
			   struct capture_cpu_ticks *cpus, int nr)
{
	unsigned long long v[8];
	char line[512];
	FILE *f = fopen(path, "r");
	int ret = -EINVAL;

	memset(st, 0, sizeof(*st));
	if (nr > 0)
		memset(cpus, 0, (size_t)nr * sizeof(*cpus));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "cpu", 3))
			continue;
		if (line[3] >= '0' && line[3] <= '9') {
			if (nr <= 0)
				break;	/* past the "cpu" line, which comes first */
			read_cpu_line(line, cpus, nr);
		} else if (line[3] == ' ' &&
			   sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
				  &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
			st->total = 0;
			for (int i = 0; i < 8; i++)
				st->total += v[i];
			st->steal = v[7];
			st->ok = true;
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

void capture_meta_steal(struct pwz_meta *m, const struct capture_cpu_stat *start,
			const struct capture_cpu_stat *end, long ticks_per_s)
{
	uint64_t ns_per_tick;

	if (!start->ok || !end->ok || ticks_per_s <= 0 || end->total < start->total ||
	    end->steal < start->steal)
		return;
	ns_per_tick = 1000000000ull / (uint64_t)ticks_per_s;
	m->steal_ns = (end->steal - start->steal) * ns_per_tick;
	m->cpu_time_ns = (end->total - start->total) * ns_per_tick;
	m->has_steal = true;
}
