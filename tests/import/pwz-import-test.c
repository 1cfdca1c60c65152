// SPDX-License-Identifier: GPL-2.0
/* Test driver: imports a perf.data file with perfdata_import() and dumps what the cdict holds. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cdict.h"
#include "perfdata.h"
#include "tasknames.h"

/* Usage: pwz-import-test [-n] [-l] IN.data OUT.cdict [MAP.csv]
 * Prints one line per fact, "kind key=value ...", for tests/import/run to compare; with -n only
 * the import statistics (no read-back: for timing the import alone); -l writes perfwhiz's legacy
 * format. */

static uint64_t nslices, nwakeups, nexits, slice_ns;

static int on_meta(void *ctx, const struct pwz_meta *m)
{
	(void)ctx;
	printf("meta source=%s host=%s kernel=%s nr_cpus=%u has_switch_kind=%d has_wait=%d has_kvm=%d duration_ns=%" PRIu64 " drops=%" PRIu64 " exit_names=%u topo=%d\n",
	       pwz_source_name(m->source), m->host ? m->host : "-", m->kernel ? m->kernel : "-",
	       m->nr_cpus, m->has_switch_kind, m->has_wait, m->has_kvm, m->duration_ns,
	       pwz_meta_total_drops(m), m->nr_exit_names, m->topo != NULL);
	printf("cmdline %s\n", m->cmdline ? m->cmdline : "-");
	return 0;
}

static int on_task(void *ctx, const struct pwz_task *t)
{
	(void)ctx;
	printf("task tid=%u tgid=%u comm=%s name=%s\n", t->tid, t->tgid, t->comm, t->name);
	return 0;
}

static int on_slice(void *ctx, const struct pwz_slice *s)
{
	(void)ctx;
	nslices++;
	slice_ns += s->dur_ns;
	return 0;
}

static int on_wakeup(void *ctx, const struct pwz_wakeup *w)
{
	(void)ctx;
	(void)w;
	nwakeups++;
	return 0;
}

static int on_exit_rec(void *ctx, const struct pwz_kvm_exit *e)
{
	(void)ctx;
	(void)e;
	nexits++;
	return 0;
}

static int on_cpu_agg(void *ctx, const struct pwz_cpu_agg *a)
{
	(void)ctx;
	printf("cpu_agg tid=%u cpu=%u runtime_ns=%" PRIu64 " switches=%" PRIu64 " voluntary=%" PRIu64 " involuntary=%" PRIu64 " unseen=%" PRIu64 " unseen_ns=%" PRIu64 "\n",
	       a->tid, a->cpu, a->runtime_ns, a->switches, a->voluntary, a->involuntary, a->unseen,
	       a->unseen_ns);
	return 0;
}

static int on_kvm_agg(void *ctx, const struct pwz_kvm_agg *a)
{
	uint64_t h = 0;
	int i;

	(void)ctx;
	for (i = 0; i < PWZ_HIST_BUCKETS; i++)
		h += a->hist[i];
	printf("kvm_agg tid=%u isa=%u reason=%u count=%" PRIu64 " handling_ns=%" PRIu64 " hist_total=%" PRIu64 "\n",
	       a->tid, a->isa, a->reason, a->count, a->handling_ns, h);
	return 0;
}

static int on_wait_agg(void *ctx, const struct pwz_wait_agg *a)
{
	(void)ctx;
	printf("wait_agg tid=%u count=%" PRIu64 " wait_ns=%" PRIu64 " max_ns=%" PRIu64 "\n", a->tid,
	       a->count, a->wait_ns, a->max_ns);
	return 0;
}

int main(int argc, char **argv)
{
	struct perfdata_import_opts opts = { .cmdline = "pwz-import-test" };
	struct perfdata_import_stats st;
	struct cdict_visitor v = {
		.meta = on_meta, .task = on_task, .slice = on_slice, .wakeup = on_wakeup,
		.kvm_exit = on_exit_rec, .cpu_agg = on_cpu_agg, .kvm_agg = on_kvm_agg,
		.wait_agg = on_wait_agg,
	};
	struct task_map *map = NULL;
	char err[512];
	bool import_only = false;
	int ret;

	while (argc > 1 && (strcmp(argv[1], "-n") == 0 || strcmp(argv[1], "-l") == 0)) {
		if (argv[1][1] == 'n')
			import_only = true;
		else
			opts.legacy = true;
		argv++;
		argc--;
	}
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: pwz-import-test [-n] [-l] IN.data OUT.cdict [MAP.csv]\n");
		return 2;
	}
	if (argc == 4) {
		map = task_map__load(argv[3], err, sizeof(err));
		if (!map) {
			fprintf(stderr, "pwz-import-test: %s\n", err);
			return 1;
		}
		opts.map = map;
	}
	ret = perfdata_import(argv[1], argv[2], &opts, &st, err, sizeof(err));
	task_map__free(map);
	if (ret) {
		fprintf(stderr, "pwz-import-test: %s\n", err);
		return 1;
	}
	printf("stats samples=%" PRIu64 " sched_switch=%" PRIu64 " sched_wakeup=%" PRIu64 " kvm_exit=%" PRIu64 " kvm_entry=%" PRIu64 " skipped=%" PRIu64 " lost=%" PRIu64 " slices=%" PRIu64 " tasks=%" PRIu64 "\n",
	       st.samples, st.sched_switch, st.sched_wakeup, st.kvm_exit, st.kvm_entry, st.skipped,
	       st.lost, st.slices, st.tasks);
	if (import_only)
		return 0;
	ret = cdict_read(argv[2], &v, NULL, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pwz-import-test: reading back: %s\n", err);
		return 1;
	}
	printf("records slices=%" PRIu64 " slice_ns=%" PRIu64 " wakeups=%" PRIu64 " kvm_exits=%" PRIu64 "\n",
	       nslices, slice_ns, nwakeups, nexits);
	return 0;
}
