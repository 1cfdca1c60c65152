// SPDX-License-Identifier: GPL-2.0
/* Writes a synthetic capture (cdict v2) of any size, with consistent aggregates, for tests and benchmarks. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cdict.h"
#include "model.h"
#include "records.h"

static const char usage[] =
	"Usage: gen-synthetic [options] -o FILE.cdict\n"
	"Writes a synthetic capture: tasks on CPUs in turn, run slices, wakeups, KVM exits of\n"
	"the vCPU tasks, and the aggregates that match them exactly (folded by model_fold),\n"
	"with a state ledger per vCPU task (model.h R10) made of the same records.\n"
	"  -o, --output FILE    the cdict to write (required)\n"
	"  -n, --slices N       number of run slices (default 100000; suffix k or M)\n"
	"  -t, --tasks N        number of tasks (default 8; every 4th is a vCPU with KVM exits)\n"
	"  -c, --cpus N         CPUs (default 4; 2 per LLC, 4 per package)\n"
	"  -s, --seed N         random seed (default 1)\n"
	"      --hostile        give tasks hostile names (markup, quotes, invalid UTF-8)\n"
	"      --drops N        record N drops in the \"slice\" stream\n"
	"      --names N        only N distinct names: task i is task<i mod N> (vCPUs\n"
	"                       vm<i/4 mod N>.vcpu0), so that threads share names\n"
	"      --reuse          halfway, every 4th task (from the third) exits and its tid is\n"
	"                       taken by a new thread, named NAME-reborn (model.h R8)\n"
	"      --irq            as pwz-bpf --irq: each task took N TIMER softirqs on CPU\n"
	"                       N mod CPUs (N = its index + 1, N us), each CPU's idle task an\n"
	"                       eth0 hard IRQ\n"
	"      --exit-split[=live]  instead, a small fixed capture whose vCPU is preempted\n"
	"                       during an IO exit and sleeps during a HLT exit (its splits are\n"
	"                       in tests/parquet/run); live: as a live capture, with CPU 1's\n"
	"                       slices written late (pwz-bpf's per-CPU batches)\n"
	"      --vcpus N        only the first N of those vCPU tasks (every 4th) are vCPUs\n"
	"      --legacy         write perfwhiz's legacy format (as pwz-bpf --legacy: switch,\n"
	"                       kvm_exit and kvm_entry rows; no waits, no aggregates)\n"
	"Example: gen-synthetic -n 1M -t 64 -c 32 -o big.cdict\n";

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static const char *const hostile[] = {
	"</script><script>alert(1)</script>",
	"<img src=x onerror=alert(2)>",
	"quote\"back\\slash'apos",
	"bad\xff\xfeutf8\xc3",
	"&amp;<b>bold</b>",
	"\xe2\x80\xa8line\xe2\x80\xa9sep",
	"<!--comment",
	"caf\xc3\xa9 \xf0\x9f\x98\x80",
};

static const uint32_t vmx_reasons[] = { 1, 12, 30, 32, 48 };

struct task_state {
	struct pwz_task task;
	uint64_t free_at;		/* when the task may run again */
	uint64_t last_end;		/* its last switch-out: a wait begins no earlier */
	bool slept;			/* its last slice ended by sleeping */
	bool vcpu;
	struct pwz_vcpu_ledger led;	/* a vCPU's: its slices, waits and exits as states */
};

static int parse_count(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		v *= 1e3, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1e6, end++;
	if (*end)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

/* The fold's aggregates, into the file. */
static int out_cpu_agg(void *ctx, const struct pwz_cpu_agg *a)
{
	return cdict_writer__cpu_agg(ctx, a);
}

static int out_kvm_agg(void *ctx, const struct pwz_kvm_agg *a)
{
	return cdict_writer__kvm_agg(ctx, a);
}

static int out_wait_agg(void *ctx, const struct pwz_wait_agg *a)
{
	return cdict_writer__wait_agg(ctx, a);
}

/*
 * The ledger of every vCPU task over [0, end) (model.h R10), from what was written: guest the
 * exits' guest time, exit_kernel the rest of its slices, ready its waits (each after the
 * task's previous switch-out), halt the rest of the capture; its ready causes and co-stop made
 * up (nothing written says them), summing to its ready time. Returns 0 or -errno.
 */
static int write_ledgers(struct cdict_writer *w, struct task_state *ts, uint64_t ntasks,
			 uint64_t end)
{
	int e = 0;

	for (uint64_t i = 0; i < ntasks && !e; i++) {
		struct pwz_vcpu_ledger *l = &ts[i].led;
		uint64_t used = l->ns[PWZ_VCPU_GUEST] + l->ns[PWZ_VCPU_EXIT_KERNEL] +
				l->ns[PWZ_VCPU_READY];

		if (!ts[i].vcpu)
			continue;
		l->tid = ts[i].task.tid;
		l->ns[PWZ_VCPU_HALT] = end > used ? end - used : 0;
		l->alive_ns = used + l->ns[PWZ_VCPU_HALT];
		/* its ready time split among the causes by the task's index, a sixth as co-stop */
		l->cause_ns[i % PWZ_CAUSE_IDLE] = l->ns[PWZ_VCPU_READY] / 2;
		l->cause_ns[PWZ_CAUSE_HOST] += l->ns[PWZ_VCPU_READY] - l->ns[PWZ_VCPU_READY] / 2;
		l->costop_ns = l->ns[PWZ_VCPU_READY] / 6;
		e = cdict_writer__vcpu_ledger(w, l);
	}
	return e;
}

/* One record of the --exit-split capture. */
struct xrec {
	char kind;		/* 's' slice, 'w' wait, 'e' exit */
	struct pwz_slice s;
	struct pwz_wakeup w;
	struct pwz_kvm_exit e;
};

#define XS(tid_, cpu_, start_, dur_, end_) \
	{ 's', .s = { .tid = tid_, .cpu = cpu_, .start_ns = start_, .dur_ns = dur_, .end = end_ } }
#define XW(tid_, cpu_, wake_, wait_) \
	{ 'w', .w = { .tid = tid_, .cpu = cpu_, .wake_ns = wake_, .wait_ns = wait_ } }
#define XE(t0_, dur_, reason_, guest_) \
	{ 'e', .e = { .tid = 2001, .time_ns = t0_, .isa = PWZ_ISA_VMX, .reason = reason_, \
		      .guest_ns = guest_, .handling_ns = dur_, .flags = dur_ ? 0 : PWZ_EXIT_UNPAIRED } }

/*
 * --exit-split: vCPU thread 2001 ("splitvm.vcpu0") and a hog 3001, ns from the start. CPU 1:
 * the vCPU [1000, 5000) preempted by the hog [5000, 8000); CPU 0: the vCPU [8000, 12000) halts,
 * is woken at 20000 and runs [21000, 30000). Exits: EXTERNAL_INTERRUPT [2000, 2500) on-CPU;
 * IO_INSTRUCTION [4000, 9000): 2000 on, 3000 ready, 0 asleep; HLT [11000, 22000): 2000 on,
 * 1000 ready, 8000 asleep; EPT_VIOLATION [25000, 26000) on-CPU; one at 29000 with no entry.
 * In time order of each record's end, as an import writes them; live: CPU 1's records after
 * the HLT exit, as pwz-bpf's per-CPU batch of an idle CPU 1 would come.
 */
static int write_exit_split(const char *path, bool live)
{
	static const struct xrec recs[] = {
		XS(0, 0, 0, 8000, PWZ_END_PREEMPTED),	/* CPU 0 idle */
		XS(0, 1, 0, 1000, PWZ_END_PREEMPTED),	/* CPU 1 idle */
		XE(2000, 500, 1, 0),
		XW(3001, 1, 4900, 100),
		XS(2001, 1, 1000, 4000, PWZ_END_PREEMPTED),
		XW(2001, 0, 5000, 3000),
		XS(3001, 1, 5000, 3000, PWZ_END_SLEPT),
		XE(4000, 5000, 30, 1500),
		XS(2001, 0, 8000, 4000, PWZ_END_SLEPT),
		XW(2001, 0, 20000, 1000),
		XS(0, 0, 12000, 9000, PWZ_END_PREEMPTED),
		XE(11000, 11000, 12, 2000),
		XE(25000, 1000, 48, 3000),
		XE(29000, 0, 30, 3000),
		XS(2001, 0, 21000, 9000, PWZ_END_OPEN),
		XS(0, 1, 8000, 22000, PWZ_END_OPEN),
	};
	static const char *const names[] = { "EXTERNAL_INTERRUPT", "HLT", "IO_INSTRUCTION",
					     "MSR_WRITE", "EPT_VIOLATION" };
	struct pwz_task tasks[] = {
		{ .tid = 2001, .tgid = 2000, .comm = "CPU 0/KVM", .proc_name = "qemu-system-x86",
		  .name = "splitvm.vcpu0" },
		{ .tid = 2000, .tgid = 2000, .comm = "qemu-system-x86", .proc_name = "qemu-system-x86",
		  .name = "qemu-system-x86" },
		{ .tid = 3001, .tgid = 3001, .comm = "hog", .proc_name = "hog", .name = "hog" },
	};
	size_t n = sizeof(recs) / sizeof(recs[0]), order[sizeof(recs) / sizeof(recs[0])], k = 0;
	struct model_fold *fold = model_fold__new(NULL);
	struct pwz_meta meta = { .source = live ? PWZ_SOURCE_LIVE : PWZ_SOURCE_SYNTHETIC,
				 .nr_cpus = 2, .clock_id = 1, .has_switch_kind = true,
				 .has_wait = true, .has_kvm = true, .threads = PWZ_THREADS_ALL,
				 .duration_ns = 30000 };
	struct cdict_writer *w = NULL;
	struct cdict_visitor sink;
	char err[512];
	int rc = -ENOMEM;
	size_t i, late;

	/* live: CPU 1's records (slices, and waits ending in its switch-ins) after the HLT exit */
	for (i = 0; i < n; i++)
		if (!live || !((recs[i].kind == 's' && recs[i].s.cpu == 1) ||
			       (recs[i].kind == 'w' && recs[i].w.cpu == 1)) || recs[i].s.end == PWZ_END_OPEN)
			order[k++] = i;
	for (i = 0, late = 0; live && i < n; i++)
		if (((recs[i].kind == 's' && recs[i].s.cpu == 1) ||
		     (recs[i].kind == 'w' && recs[i].w.cpu == 1)) && recs[i].s.end != PWZ_END_OPEN) {
			/* after the HLT exit (the 8th record left), in CPU 1's order */
			memmove(order + 8 + late + 1, order + 8 + late, (k - 8 - late) * sizeof(*order));
			order[8 + late++] = i;
			k++;
		}
	if (!fold || pwz_meta_set_str(&meta.host, "synthetic-split") ||
	    pwz_meta_set_str(&meta.tool_version, "gen-synthetic"))
		goto out;
	for (i = 0; i < 5; i++)
		if (pwz_meta_add_exit_name(&meta, PWZ_ISA_VMX, vmx_reasons[i], names[i]))
			goto out;
	w = cdict_writer__new(path, &meta, NULL, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "gen-synthetic: %s\n", err);
		rc = -errno;
		goto out;
	}
	rc = -EIO;
	for (i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		if (cdict_writer__task(w, &tasks[i]))
			goto out;
	for (i = 0; i < k; i++) {
		const struct xrec *r = &recs[order[i]];

		if ((r->kind == 's' && (cdict_writer__slice(w, &r->s) || model_fold__slice(fold, &r->s))) ||
		    (r->kind == 'w' && (cdict_writer__wakeup(w, &r->w) || model_fold__wait(fold, &r->w))) ||
		    (r->kind == 'e' && (cdict_writer__kvm_exit(w, &r->e) ||
					model_fold__kvm_exit(fold, &r->e))))
			goto out;
	}
	sink = (struct cdict_visitor){ .ctx = w, .cpu_agg = out_cpu_agg, .kvm_agg = out_kvm_agg,
				       .wait_agg = out_wait_agg };
	if (model_fold__emit(fold, &sink) || cdict_writer__finish(w, &meta, err, sizeof(err)))
		goto out;
	printf("%s: the exit-split capture%s\n", path, live ? " (live order)" : "");
	rc = 0;
out:
	if (rc == -EIO)
		fprintf(stderr, "gen-synthetic: %s: write failed\n", path);
	cdict_writer__free(w);
	model_fold__free(fold);
	pwz_meta_free(&meta);
	return rc;
}

/* --irq: fixed aggregates, N TIMER softirqs of N us for task N - 1 on CPU (N - 1) mod CPUs,
 * and an eth0 hard IRQ of 2 us for each CPU's idle task. Returns 0 or -errno. */
static int write_irq(struct cdict_writer *w, const struct task_state *ts, uint64_t ntasks,
		     uint64_t ncpus)
{
	int e = 0;

	for (uint64_t i = 0; i < ntasks && !e; i++) {
		struct pwz_irq_agg a = { .cpu = (uint32_t)(i % ncpus), .tid = ts[i].task.tid,
					 .since_ns = ts[i].task.time_ns, .kind = PWZ_IRQ_KIND_SOFT,
					 .vector = 1, .count = i + 1, .time_ns = (i + 1) * 1000,
					 .max_ns = 1000, .name = "TIMER" };

		e = cdict_writer__irq_agg(w, &a);
	}
	for (uint64_t c = 0; c < ncpus && !e; c++) {
		struct pwz_irq_agg a = { .cpu = (uint32_t)c, .kind = PWZ_IRQ_KIND_HARD,
					 .vector = 30, .count = 1, .time_ns = 2000, .max_ns = 2000,
					 .name = "eth0" };

		e = cdict_writer__irq_agg(w, &a);
	}
	return e;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "slices", required_argument, NULL, 'n' },
		{ "tasks", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "hostile", no_argument, NULL, 'H' },
		{ "drops", required_argument, NULL, 'D' },
		{ "names", required_argument, NULL, 'N' },
		{ "reuse", no_argument, NULL, 'R' },
		{ "irq", no_argument, NULL, 'I' },
		{ "exit-split", optional_argument, NULL, 'X' },
		{ "legacy", no_argument, NULL, 'L' },
		{ "vcpus", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t nslices = 100000, ntasks = 8, ncpus = 4, seed = 1, drops = 0, done = 0, t_end = 0;
	uint64_t nnames = 0;	/* --names: 0 = every task its own name */
	uint64_t nvcpus = UINT64_MAX;	/* --vcpus: vCPU tasks at most */
	const char *path = NULL;
	bool hostile_names = false, reuse = false, reborn = false, irq = false;
	int exit_split = 0;	/* 1 --exit-split, 2 --exit-split=live */
	struct pwz_meta meta = { 0 };
	struct cdict_writer_opts wopts = { 0 };
	struct cdict_writer *w = NULL;
	struct model_fold *fold = model_fold__new(NULL);
	struct cdict_visitor sink;
	struct task_state *ts = NULL;
	uint64_t *cpu_now = NULL;
	char err[512];
	int opt, rc = 1;
	uint64_t i, c;

	while ((opt = getopt_long(argc, argv, "o:n:t:c:s:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'o': path = optarg; break;
		case 'n':
			if (parse_count(optarg, &nslices)) {
				fprintf(stderr, "gen-synthetic: bad slice count '%s'\n", optarg);
				return 2;
			}
			break;
		case 't': ntasks = strtoull(optarg, NULL, 0); break;
		case 'c': ncpus = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'H': hostile_names = true; break;
		case 'D': drops = strtoull(optarg, NULL, 0); break;
		case 'N': nnames = strtoull(optarg, NULL, 0); break;
		case 'R': reuse = true; break;
		case 'I': irq = true; break;
		case 'L': wopts.legacy = true; break;
		case 'V': nvcpus = strtoull(optarg, NULL, 0); break;
		case 'X':
			if (optarg && strcmp(optarg, "live")) {
				fprintf(stderr, "gen-synthetic: --exit-split takes =live or nothing\n");
				return 2;
			}
			exit_split = optarg ? 2 : 1;
			break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (!path || optind != argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (ntasks < 1 || ntasks > 100000 || ncpus < 1 || ncpus > PWZ_MAX_CPUS) {
		fprintf(stderr, "gen-synthetic: tasks must be 1..100000 and cpus 1..%d\n",
			PWZ_MAX_CPUS);
		return 2;
	}
	if (exit_split) {
		model_fold__free(fold);
		return write_exit_split(path, exit_split == 2) ? 1 : 0;
	}
	rng_state = seed ? seed * 0x9E3779B97F4A7C15ULL : 1;

	meta.source = PWZ_SOURCE_SYNTHETIC;
	meta.nr_cpus = (uint32_t)ncpus;
	meta.clock_id = 1;
	meta.has_switch_kind = true;
	meta.has_wait = true;
	meta.has_kvm = true;
	meta.threads = PWZ_THREADS_ALL;
	meta.has_irq = irq;
	meta.topo = calloc(ncpus, sizeof(*meta.topo));
	ts = calloc(ntasks, sizeof(*ts));
	cpu_now = calloc(ncpus, sizeof(*cpu_now));
	if (!meta.topo || !ts || !cpu_now || !fold)
		goto nomem;
	for (c = 0; c < ncpus; c++)
		meta.topo[c] = (struct pwz_cpu_topo){ .package = (int32_t)(c / 4),
						      .core = (int32_t)c,
						      .llc = (int32_t)(c / 2) };
	if (pwz_meta_set_str(&meta.host, "synthetic") ||
	    pwz_meta_set_str(&meta.kernel, "0.0.0-synthetic") ||
	    pwz_meta_set_str(&meta.tool_version, "gen-synthetic") ||
	    pwz_meta_set_str(&meta.cmdline, "gen-synthetic"))
		goto nomem;
	for (i = 0; i < 5; i++) {
		static const char *const names[] = { "EXTERNAL_INTERRUPT", "HLT", "IO_INSTRUCTION",
						     "MSR_WRITE", "EPT_VIOLATION" };

		if (pwz_meta_add_exit_name(&meta, PWZ_ISA_VMX, vmx_reasons[i], names[i]))
			goto nomem;
	}

	w = cdict_writer__new(path, &meta, &wopts, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "gen-synthetic: %s\n", err);
		goto out;
	}
	for (i = 0; i < ntasks; i++) {
		struct task_state *s = &ts[i];
		struct pwz_task *t = &s->task;

		t->tid = (uint32_t)(1000 + i);
		t->tgid = (uint32_t)(1000 + i / 4 * 4);
		s->vcpu = i % 4 == 1 && i / 4 < nvcpus;
		if (hostile_names && i % 2 == 0)
			snprintf(t->name, sizeof(t->name), "%s", hostile[(i / 2) % 8]);
		else if (s->vcpu)
			snprintf(t->name, sizeof(t->name), "vm%llu.vcpu0",
				 (unsigned long long)(nnames ? i / 4 % nnames : i / 4));
		else
			snprintf(t->name, sizeof(t->name), "task%llu",
				 (unsigned long long)(nnames ? i % nnames : i));
		snprintf(t->comm, sizeof(t->comm), "%s", s->vcpu ? "CPU 0/KVM" : t->name);
		snprintf(t->proc_name, sizeof(t->proc_name), "proc%u", t->tgid);
		if (cdict_writer__task(w, t))
			goto werr;
	}

	/* CPUs take turns: the one furthest behind runs a task that is free by then */
	while (done < nslices) {
		uint64_t cpu = 0, k, start, in_guest = 0;
		struct task_state *s;
		struct pwz_slice sl;

		for (c = 1; c < ncpus; c++)
			if (cpu_now[c] < cpu_now[cpu])
				cpu = c;
		if (reuse && !reborn && done >= nslices / 2) {
			/* every 4th task from the third exits; a new thread takes its tid */
			for (k = 2; k < ntasks; k += 4) {
				struct pwz_task *t = &ts[k].task;
				size_t n = strnlen(t->name, sizeof(t->name) - 8);

				t->time_ns = ts[k].free_at + 1;
				t->flags = PWZ_TASK_BORN;
				snprintf(t->name + n, sizeof(t->name) - n, "-reborn");
				if (model_fold__born(fold, t->tid, t->time_ns))
					goto nomem;
				if (cdict_writer__task(w, t))
					goto werr;
				ts[k].slept = false;
			}
			reborn = true;
		}
		k = rnd() % ntasks;
		s = &ts[k];
		start = cpu_now[cpu] > s->free_at ? cpu_now[cpu] : s->free_at;
		start += rnd_range(1000, 20000);
		sl = (struct pwz_slice){ .tid = s->task.tid, .cpu = (uint32_t)cpu, .start_ns = start,
					 .dur_ns = rnd_range(5000, 2000000),
					 .end = rnd() % 3 ? PWZ_END_SLEPT : PWZ_END_PREEMPTED };
		if (s->slept) {
			struct pwz_wakeup wk = { .tid = sl.tid, .cpu = sl.cpu,
						 .wait_ns = rnd_range(1000, 200000) };

			wk.wake_ns = start > wk.wait_ns ? start - wk.wait_ns : 0;
			if (wk.wake_ns < s->last_end)
				wk.wake_ns = s->last_end;
			wk.wait_ns = start - wk.wake_ns;
			if (cdict_writer__wakeup(w, &wk) || model_fold__wait(fold, &wk))
				goto werr;
			s->led.ns[PWZ_VCPU_READY] += wk.wait_ns;
			s->led.count[PWZ_VCPU_READY]++;
		}
		if (s->vcpu) {
			/* exits inside the slice: guest time, then handling */
			uint64_t now = start + rnd_range(2000, 8000), prev_entry = now;

			while (1) {
				struct pwz_kvm_exit e = { .tid = sl.tid, .vcpu = 0,
							  .isa = PWZ_ISA_VMX };
				unsigned int r = (unsigned int)(rnd() % 5);

				now += rnd_range(20000, 200000);
				e.handling_ns = rnd_range(1000, 10000);
				if (now + e.handling_ns >= start + sl.dur_ns)
					break;
				e.time_ns = now;
				e.reason = vmx_reasons[r];
				e.guest_ns = now - prev_entry;
				if (cdict_writer__kvm_exit(w, &e) || model_fold__kvm_exit(fold, &e))
					goto werr;
				in_guest += e.guest_ns;
				s->led.ns[PWZ_VCPU_GUEST] += e.guest_ns;
				s->led.count[PWZ_VCPU_GUEST]++;
				s->led.count[PWZ_VCPU_EXIT_KERNEL]++;
				now += e.handling_ns;
				prev_entry = now;
			}
		}
		if (cdict_writer__slice(w, &sl) || model_fold__slice(fold, &sl))
			goto werr;
		s->slept = sl.end == PWZ_END_SLEPT;
		if (s->vcpu) {
			/* the slice's time out of the guest: in the kernel */
			s->led.ns[PWZ_VCPU_EXIT_KERNEL] += sl.dur_ns - in_guest;
			s->led.count[PWZ_VCPU_HALT] += s->slept;
		}
		s->last_end = start + sl.dur_ns;
		s->free_at = s->last_end + (s->slept ? rnd_range(10000, 4000000) : 0);
		cpu_now[cpu] = start + sl.dur_ns;
		if (cpu_now[cpu] > t_end)
			t_end = cpu_now[cpu];
		done++;
	}

	sink = (struct cdict_visitor){ .ctx = w, .cpu_agg = out_cpu_agg, .kvm_agg = out_kvm_agg,
				       .wait_agg = out_wait_agg };
	if (model_fold__emit(fold, &sink) || (irq && write_irq(w, ts, ntasks, ncpus)) ||
	    write_ledgers(w, ts, ntasks, t_end))
		goto werr;
	meta.duration_ns = t_end;
	if (drops && pwz_meta_add_drop(&meta, "slice", drops))
		goto nomem;
	if (cdict_writer__finish(w, &meta, err, sizeof(err))) {
		fprintf(stderr, "gen-synthetic: %s\n", err);
		goto out;
	}
	printf("%s: %llu slices, %llu tasks, %llu CPUs, %.3f s\n", path,
	       (unsigned long long)done, (unsigned long long)ntasks, (unsigned long long)ncpus,
	       (double)t_end / 1e9);
	rc = 0;
	goto out;
werr:
	fprintf(stderr, "gen-synthetic: %s: write failed: %s\n", path, strerror(errno ? errno : EIO));
	goto out;
nomem:
	fprintf(stderr, "gen-synthetic: out of memory\n");
out:
	cdict_writer__free(w);
	model_fold__free(fold);
	free(ts);
	free(cpu_now);
	pwz_meta_free(&meta);
	return rc;
}
