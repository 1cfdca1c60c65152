// SPDX-License-Identifier: GPL-2.0
/* The live capture engine: loads and attaches bpf/pwz.bpf.c, drains its ring buffers and maps. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "capture.h"
#include "capture_clock.h"
#include "capture_compat.h"
#include "keymap.h"
#include "model.h"
#include "monotime.h"
#include "pwz.skel.h"

#define TRACEFS "/sys/kernel/tracing"
/* Programs on classic tracepoints ("tracepoint/CATEGORY/NAME") attached through our own perf
 * events (tp_attach()); any beyond attach the usual way. */
#define CAPTURE_MAX_TP 16
#define CAPTURE_PRE_MAPS 4		/* maps made before the load: precreate() */

/* The bitmaps of ids: the selection (-t, -p), the vCPU threads (the ledger,
 * R10) and -t's threads named since user space last matched them. */
enum sel_map { SEL_TIDS, SEL_TGIDS, SEL_VCPUS, SEL_NAMED, SEL_MAPS };

struct capture {
	struct pwz_bpf *skel;
	struct ring_buffer *rb;		/* the slice and exit ring */
	struct ring_buffer *rb_task;	/* the task ring, drained before each slice batch */
	int wake_fd;			/* an epoll of both rings' epolls: the reader waits on
					 * either (a -t naming wakes it); -1 none */
	struct capture_sink sink;
	struct model_fold *fold;	/* the slice records read, folded (model.h R7) */
	uint64_t t0;
	bool raw_tp;
	bool sched;			/* the scheduler programs are loaded */
	bool attached;
	int nr_cpus;
	struct capture_map_sizes sizes;	/* the per-thread maps as loaded */
	struct capture_compat compat;	/* the kernel's features and the fallbacks chosen */
	uint64_t poll_deadline;		/* CLOCK_MONOTONIC ns when a poll hands back control */
	unsigned int since_check;	/* records since the clock was last read */
	struct cdict_visitor exited;	/* where the aggregates of exited threads go; no
					 * cpu_agg: kept to the end (capture__write_exited()) */
	struct keymap gone;		/* (tid, birth) of the thread instances whose exit slice
					 * was read since their aggregates were last taken out */
	uint64_t taken;			/* threads whose aggregates were written before the end */
	int pre_fds[CAPTURE_PRE_MAPS];	/* maps made before the load (precreate()), or -1 */
	int tp_fds[CAPTURE_MAX_TP];	/* our own descriptors of the tracepoints' perf events */
	int nr_tp_fds;			/* (their release is slow: tp_attach(), capture__free()) */
	bool pending_waits;		/* made with cfg->pending_waits */
	uint32_t pid_max;		/* the kernel's, read once (0 unreadable) */
	uint32_t sel_words[SEL_MAPS];	/* words of each bitmap (enum sel_map): pid_max's bits
					 * where used, else 1 */
	uint64_t *sel_bits[SEL_MAPS];	/* the bitmaps used, mapped */
	struct bpf_link *pending_iter;	/* the pending_waits iterator, attached at its first use */
	struct capture_clock *clock;	/* with the scheduler's clock: its pairs and fit */
};

/* Exited threads are taken out of the fold in batches: at least this many, and at least one
 * for every TAKE_SHARE aggregates held, so that each take (O(n log n) in the aggregates) is
 * paid for by the exits it clears, and the fold holds the live threads plus a bounded share. */
#define TAKE_MIN 1024
#define TAKE_SHARE 8

/* How long one capture__poll() may keep consuming: under a sustained load the producers can
 * refill the ring buffer as fast as it drains, and libbpf 1.1's consume loop would not return. */
#define POLL_BUDGET_NS 200000000ull
#define POLL_CHECK_EVERY 1024
#define POLL_YIELD (-ECANCELED)		/* the callback's "enough for this poll" */

const struct capture_map_sizes *capture__map_sizes(const struct capture *c)
{
	return &c->sizes;
}

const char *capture__attach_kind(const struct capture *c)
{
	return c->raw_tp ? "raw_tp" : "tp_btf";
}

bool capture__run_delay(const struct capture *c)
{
	return c->skel && c->skel->rodata->want_run_delay;
}

bool capture__sched_clock(const struct capture *c, struct pwz_sched_clock *out)
{
	if (c->clock && out)
		capture_clock__result(c->clock, out);
	return c->clock != NULL;
}

const char *capture__fallbacks(const struct capture *c, bool kvm, char *buf, size_t len)
{
	return capture_compat__describe(&c->compat, c->sched, c->raw_tp, kvm, buf, len);
}

/* Descriptors the programs, maps, links and ring buffers take (about 40 measured), with room. */
#define NOFILE_NEEDED 64

/* Descriptors this process may still open under its soft limit; -1 when unknown. */
static long fd_headroom(void)
{
	struct rlimit rl;
	struct dirent *d;
	long open_fds = 0;
	DIR *dir;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return -1;
	dir = opendir("/proc/self/fd");
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			open_fds++;
	closedir(dir);
	return (long)rl.rlim_cur - (open_fds - 1);	/* the directory's own descriptor */
}

/* libbpf's feature probes turn a lack of descriptors into other errors (EINVAL: "global data
 * not supported"): a failure with too few descriptors left is reported as EMFILE. */
static int real_error(int e)
{
	long room = fd_headroom();

	return room >= 0 && room < NOFILE_NEEDED ? -EMFILE : e;
}

/* What to do about error e (positive) from loading or attaching, into buf. */
static const char *load_hint(int e, char *buf, size_t len)
{
	struct rlimit rl;

	switch (e) {
	case EPERM:
	case EACCES:
		return "run as root or with CAP_BPF and CAP_PERFMON";
	case ENOENT:
	case ESRCH:
		return "the kernel lacks a tracepoint or BTF; needs Linux 5.10 or later with CONFIG_DEBUG_INFO_BTF";
	case ENOMEM:
	case E2BIG:
		return "out of memory: try a smaller --ringbuf-mb, or raise the memlock and address-space limits (ulimit -l, ulimit -v)";
	case EMFILE:
		if (getrlimit(RLIMIT_NOFILE, &rl))
			return "the open-file limit is too low (ulimit -n)";
		snprintf(buf, len, "the open-file limit (ulimit -n) is %llu and its hard limit %llu: the programs need about %d; raise it with ulimit -n 1024",
			 (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max,
			 NOFILE_NEEDED);
		return buf;
	case ENFILE:
		return "the system's open-file table is full (fs.file-max)";
	default:
		return "run with -vv to see libbpf's log";
	}
}

/* The kernel's pid_max (every tid is below it), or 0 when unreadable. */
static uint32_t read_pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	unsigned long v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%lu", &v) != 1)
		v = 0;
	fclose(f);
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static struct bpf_map **sel_map(struct pwz_bpf *s, int i)
{
	struct bpf_map **m[SEL_MAPS] = { &s->maps.sel_tids, &s->maps.sel_tgids,
					  &s->maps.vcpu_tids, &s->maps.named_tids };

	return m[i];
}

/* Words of a bitmap of ids: a bit for every id below the kernel's pid_max. */
static __u32 sel_words_for(uint32_t pid_max)
{
	if (!pid_max || pid_max > PWZ_SEL_IDS_MAX)
		pid_max = PWZ_SEL_IDS_MAX;
	return (pid_max + PWZ_SEL_WORD_BITS - 1) / PWZ_SEL_WORD_BITS;
}

static uint32_t clamp_u32(uint64_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

void capture_map_sizes(uint32_t pid_max, int nr_cpus, struct capture_map_sizes *out)
{
	uint32_t tids = clamp_u32(pid_max, PWZ_TID_MAP_DEFAULT, PWZ_TID_MAP_MAX);
	uint64_t per = CAPTURE_HTAB_ELEM_BYTES +
		       (uint64_t)sizeof(struct cpu_agg_val) * (uint64_t)(nr_cpus > 0 ? nr_cpus : 1);

	out->tid_entries = tids;
	out->kvm_state = tids < PWZ_KVM_STATE_HOST_MAX ? tids : PWZ_KVM_STATE_HOST_MAX;
	out->cpu_aggs = clamp_u32(PWZ_CPU_AGGS_BUDGET / per, PWZ_TID_MAP_DEFAULT, tids);
	out->cpu_aggs_bytes = per * out->cpu_aggs;
}

/* The sizes of the maps that do not depend on raw_tp or on the kernel's layout. */
static void size_maps(const struct capture *c, struct pwz_bpf *s, const struct capture_cfg *cfg)
{
	bpf_map__set_max_entries(s->maps.rb, cfg->ringbuf_mb << 20);
	/* an eighth of it for the task records: a reader starved of CPU must not lose the names of
	 * a thread-churning workload (4,000 threads a second fill 256 KiB in 0.7 s) */
	bpf_map__set_max_entries(s->maps.rb_task, (cfg->ringbuf_mb << 20) / 8 > PWZ_RB_TASK_BYTES ?
				 (cfg->ringbuf_mb << 20) / 8 : PWZ_RB_TASK_BYTES);
	/* per-thread maps for every tid of the host (they are preallocated: unused ones get 1) */
	bpf_map__set_max_entries(s->maps.cpu_aggs, c->sizes.cpu_aggs);
	/* not preallocated: the same bound costs nothing until threads wait */
	bpf_map__set_max_entries(s->maps.wait_hists, c->sizes.cpu_aggs);
	bpf_map__set_max_entries(s->maps.kvm_state, cfg->kvm ? c->sizes.kvm_state : 1);
}

/* The maps made before the load (precreate()), in this order. */
static struct bpf_map **big_map(struct pwz_bpf *s, int i)
{
	struct bpf_map **m[CAPTURE_PRE_MAPS] = {
		&s->maps.cpu_aggs, &s->maps.kvm_aggs, &s->maps.kvm_state, &s->maps.rb,
	};

	return m[i];
}

/*
 * Creates the big preallocated maps of s (sized) before the load: cpu_aggs alone takes 30-90
 * ms here (one per-CPU allocation for each of its 32,768 entries), which then overlaps the
 * compat probe's reading of the kernel's BTF (capture__new()). A map that cannot be made so
 * is left to the load (which then reports why).
 */
static void precreate(struct capture *c, struct pwz_bpf *s)
{
	for (int i = 0; i < CAPTURE_PRE_MAPS; i++) {
		const struct bpf_map *m = *big_map(s, i);
		LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = bpf_map__map_flags(m));

		c->pre_fds[i] = bpf_map_create(bpf_map__type(m), bpf_map__name(m),
					       bpf_map__key_size(m), bpf_map__value_size(m),
					       bpf_map__max_entries(m), &o);
	}
}

/* Has s use the maps precreate() made where they are what s would create. */
static void reuse_precreated(struct capture *c, struct pwz_bpf *s)
{
	for (int i = 0; i < CAPTURE_PRE_MAPS; i++) {
		struct bpf_map *m = *big_map(s, i);
		struct bpf_map_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (c->pre_fds[i] < 0 || bpf_obj_get_info_by_fd(c->pre_fds[i], &info, &len))
			continue;
		if (info.type == bpf_map__type(m) && info.key_size == bpf_map__key_size(m) &&
		    info.value_size == bpf_map__value_size(m) &&
		    info.max_entries == bpf_map__max_entries(m) &&
		    info.map_flags == bpf_map__map_flags(m))
			bpf_map__reuse_fd(m, c->pre_fds[i]);	/* on failure the load makes it */
	}
}

static void close_precreated(struct capture *c)
{
	for (int i = 0; i < CAPTURE_PRE_MAPS; i++)
		if (c->pre_fds[i] >= 0)
			close(c->pre_fds[i]);
	memset(c->pre_fds, -1, sizeof(c->pre_fds));
}

/* Configures and loads the skeleton s (opened here when NULL; freed on failure); raw selects
 * raw_tp. Returns 0 or -errno. */
static int open_load(struct capture *c, const struct capture_cfg *cfg, bool raw,
		     struct pwz_bpf *s)
{
	int err;

	if (!s)
		s = pwz_bpf__open();
	if (!s)
		return -errno;
	s->rodata->filter_tids = cfg->filter ? 1 : 0;
	/* processes only with -p (-t alone selects threads): a filtered-out switch then tests
	 * no process bitmap */
	s->rodata->filter_tgids = cfg->filter && cfg->nr_tgids ? 1 : 0;
	s->rodata->follow_names = cfg->filter && cfg->follow_names;
	s->rodata->emit_streams = cfg->streams;
	s->rodata->fold_always = cfg->streams && cfg->fold_always;
	s->rodata->batch_max = cfg->prompt ? 1 : PWZ_BATCH;
	s->rodata->want_wait = cfg->sched && cfg->wait;
	s->rodata->want_waker = cfg->sched && cfg->wait && cfg->streams && cfg->waker;
	s->rodata->wakeup_bytes = ((__u64)cfg->ringbuf_mb << 20) / 4;
	s->rodata->want_ledger = cfg->kvm && cfg->sched && cfg->wait;
	s->rodata->want_irq_cause = s->rodata->want_ledger && cfg->irq;

	bpf_program__set_autoload(s->progs.switch_btf, cfg->sched && !raw);
	bpf_program__set_autoload(s->progs.wakeup_btf, cfg->sched && cfg->wait && !raw);
	bpf_program__set_autoload(s->progs.wakeup_new_btf, cfg->sched && cfg->wait && !raw);
	bpf_program__set_autoload(s->progs.switch_raw, cfg->sched && raw);
	bpf_program__set_autoload(s->progs.wakeup_raw, cfg->sched && cfg->wait && raw);
	bpf_program__set_autoload(s->progs.wakeup_new_raw, cfg->sched && cfg->wait && raw);
	/* the waker rides in the slice records only: not needed for aggregates */
	bpf_program__set_autoload(s->progs.waking_btf, s->rodata->want_waker && !raw);
	bpf_program__set_autoload(s->progs.waking_raw, s->rodata->want_waker && raw);
	bpf_program__set_autoload(s->progs.newtask_btf, !raw);
	bpf_program__set_autoload(s->progs.newtask_raw, raw);
	bpf_program__set_autoload(s->progs.kvm_exit, cfg->kvm);
	bpf_program__set_autoload(s->progs.kvm_entry, cfg->kvm);
	bpf_program__set_autoload(s->progs.kvm_uexit, s->rodata->want_ledger && cfg->kvm_uexit);
	bpf_program__set_autoload(s->progs.kvm_halt_end, s->rodata->want_ledger && cfg->kvm_halt);
	/* --irq only (bpf/irq.bpf.h): off by default, nothing attached, nothing paid */
	bpf_program__set_autoload(s->progs.irq_entry_btf, cfg->irq && !raw);
	bpf_program__set_autoload(s->progs.irq_exit_btf, cfg->irq && !raw);
	bpf_program__set_autoload(s->progs.softirq_entry_btf, cfg->irq && !raw);
	bpf_program__set_autoload(s->progs.softirq_exit_btf, cfg->irq && !raw);
	bpf_program__set_autoload(s->progs.irq_entry_raw, cfg->irq && raw);
	bpf_program__set_autoload(s->progs.irq_exit_raw, cfg->irq && raw);
	bpf_program__set_autoload(s->progs.softirq_entry_raw, cfg->irq && raw);
	bpf_program__set_autoload(s->progs.softirq_exit_raw, cfg->irq && raw);
	s->rodata->want_irq_rows = cfg->irq && cfg->irq_rows;
	bpf_map__set_max_entries(s->maps.irq_aggs, cfg->irq_rows ? PWZ_IRQ_AGGS_MAX : 1);
	bpf_map__set_max_entries(s->maps.irq_cpu_ns, s->rodata->want_irq_cause ?
				 (uint32_t)c->nr_cpus : 1);
	bpf_map__set_max_entries(s->maps.irq_names, cfg->irq_rows ? PWZ_IRQ_NAMES_MAX : 1);
	size_maps(c, s, cfg);
	bpf_map__set_max_entries(s->maps.sched_clk, (uint32_t)c->nr_cpus);
	bpf_map__set_max_entries(s->maps.wait_start, raw && cfg->sched && cfg->wait ?
				 c->sizes.tid_entries : 1);
	/* a bit for every id the kernel can give */
	c->sel_words[SEL_TIDS] = cfg->filter ? sel_words_for(c->pid_max) : 1;
	c->sel_words[SEL_TGIDS] = c->sel_words[SEL_TIDS];
	c->sel_words[SEL_VCPUS] = s->rodata->want_ledger ? sel_words_for(c->pid_max) : 1;
	c->sel_words[SEL_NAMED] = s->rodata->follow_names ? c->sel_words[SEL_TIDS] : 1;
	for (int i = 0; i < SEL_MAPS; i++)
		bpf_map__set_max_entries(*sel_map(s, i), c->sel_words[i]);
	/* the ledger's VMs (R10): their processes by bit, their running vCPUs by process */
	bpf_map__set_max_entries(s->maps.vm_tgids, c->sel_words[SEL_VCPUS]);
	bpf_map__set_max_entries(s->maps.vm_run, s->rodata->want_ledger ? PWZ_KVM_STATE_MAX : 1);
	bpf_map__set_max_entries(s->maps.vcpu_hists, s->rodata->want_ledger ?
				 c->sizes.kvm_state : 1);
	/* what this kernel's layout needs, over the choices above */
	capture_compat__apply(&c->compat, s, cfg, raw, c->sizes.tid_entries);
	reuse_precreated(c, s);

	err = pwz_bpf__load(s);
	if (err) {
		pwz_bpf__destroy(s);
		return err < 0 ? err : -EINVAL;
	}
	c->skel = s;
	c->sizes.wait_hists = bpf_map__max_entries(s->maps.wait_hists);
	c->sizes.hists_prealloc = !c->compat.mem_alloc;
	c->raw_tp = raw;
	c->sched = cfg->sched;
	c->pending_waits = cfg->pending_waits;
	return 0;
}

/* The bytes of bitmap i's mapping: whole pages. */
static size_t sel_len(const struct capture *c, int i)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return ((size_t)c->sel_words[i] * sizeof(uint64_t) + page - 1) / page * page;
}

/* Maps bitmap i (loaded). 0 or -errno. */
static int map_bitmap(struct capture *c, int i)
{
	void *p = mmap(NULL, sel_len(c, i), PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(*sel_map(c->skel, i)), 0);

	if (p == MAP_FAILED)
		return -errno;
	c->sel_bits[i] = p;
	return 0;
}

/* Sets id's bit in selection bitmap i: atomically, as the kernel sets its own. */
static int sel_set(struct capture *c, int i, uint32_t id)
{
	if (!c->sel_bits[i])
		return -EINVAL;
	if (id / PWZ_SEL_WORD_BITS >= c->sel_words[i])
		return -ERANGE;
	__atomic_fetch_or(&c->sel_bits[i][id / PWZ_SEL_WORD_BITS],
			  1ull << (id % PWZ_SEL_WORD_BITS), __ATOMIC_RELAXED);
	return 0;
}

static bool sel_test(const struct capture *c, int i, uint32_t id)
{
	if (!c->sel_bits[i] || id / PWZ_SEL_WORD_BITS >= c->sel_words[i])
		return false;
	return (__atomic_load_n(&c->sel_bits[i][id / PWZ_SEL_WORD_BITS], __ATOMIC_RELAXED) >>
		(id % PWZ_SEL_WORD_BITS)) & 1;
}

/* Clears id's bit in selection bitmap i (atomically, beside the kernel's sets); a bitmap not
 * used, or an id past it, is left alone. */
static void sel_clear(struct capture *c, int i, uint32_t id)
{
	if (c->sel_bits[i] && id / PWZ_SEL_WORD_BITS < c->sel_words[i])
		__atomic_fetch_and(&c->sel_bits[i][id / PWZ_SEL_WORD_BITS],
				   ~(1ull << (id % PWZ_SEL_WORD_BITS)), __ATOMIC_RELAXED);
}

static int fill_selection(struct capture *c, const struct capture_cfg *cfg)
{
	int e = 0;

	for (int i = SEL_TIDS; !e && cfg->filter && i <= SEL_TGIDS; i++)
		e = map_bitmap(c, i);
	if (!e && c->skel->rodata->want_ledger)
		e = map_bitmap(c, SEL_VCPUS);
	if (!e && c->skel->rodata->follow_names)
		e = map_bitmap(c, SEL_NAMED);

	for (size_t i = 0; !e && i < cfg->nr_tids; i++)
		e = sel_set(c, SEL_TIDS, cfg->tids[i]);
	for (size_t i = 0; !e && i < cfg->nr_tgids; i++)
		e = sel_set(c, SEL_TGIDS, cfg->tgids[i]);
	return e;
}

int capture__mark_vcpu(struct capture *c, uint32_t tid)
{
	if (!capture__has_ledger(c))
		return -ENOTSUP;
	return sel_set(c, SEL_VCPUS, tid);
}

bool capture__has_ledger(const struct capture *c)
{
	return c->skel->rodata->want_ledger;
}

int capture__select_tid(struct capture *c, uint32_t tid)
{
	return sel_set(c, SEL_TIDS, tid);
}

void capture__named_decided(struct capture *c, uint32_t tid)
{
	sel_clear(c, SEL_NAMED, tid);
}

bool capture__selected(const struct capture *c, uint32_t tid, uint32_t tgid)
{
	return sel_test(c, SEL_TIDS, tid) || (tgid && sel_test(c, SEL_TGIDS, tgid));
}

struct probe_arg {
	struct capture *c;
	bool kvm;
	int e;			/* capture_compat__probe()'s */
	char err[512];
};

static void *probe_thread(void *arg)
{
	struct probe_arg *a = arg;

	a->e = capture_compat__probe(&a->c->compat, TRACEFS, a->kvm, a->err, sizeof(a->err));
	return NULL;
}

/* The compat probe (user/capture_compat.h), in a thread while this one makes the big maps of
 * s (opened, NULL when that failed: then the load reports why). Returns the probe's 0 or
 * -errno, with err filled. */
static int probe_beside(struct capture *c, const struct capture_cfg *cfg, struct pwz_bpf *s,
			char *err, size_t errlen)
{
	struct probe_arg a = { .c = c, .kvm = cfg->kvm };
	pthread_t th;
	bool threaded = s && !pthread_create(&th, NULL, probe_thread, &a);

	if (s) {
		size_maps(c, s, cfg);
		precreate(c, s);
	}
	if (threaded)
		pthread_join(th, NULL);
	else
		probe_thread(&a);
	if (a.e)
		snprintf(err, errlen, "%s", a.err);
	return a.e;
}

struct capture *capture__new(const struct capture_cfg *cfg, char *err, size_t errlen)
{
	struct capture *c = calloc(1, sizeof(*c));
	struct pwz_bpf *s;
	int e = -ENOMEM;

	if (!c) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	c->wake_fd = -1;
	c->fold = model_fold__new(NULL);
	if (!c->fold) {
		snprintf(err, errlen, "out of memory");
		goto free_capture;
	}
	c->nr_cpus = libbpf_num_possible_cpus();
	if (c->nr_cpus <= 0) {
		e = c->nr_cpus;
		snprintf(err, errlen, "cannot count the possible CPUs: %s", strerror(-e));
		goto free_fold;
	}
	c->pid_max = read_pid_max();
	capture_map_sizes(c->pid_max, c->nr_cpus, &c->sizes);
	memset(c->pre_fds, -1, sizeof(c->pre_fds));
	s = pwz_bpf__open();
	e = probe_beside(c, cfg, s, err, errlen);
	if (!e && cfg->irq)
		e = capture_compat__probe_irq(err, errlen);
	if (e) {
		pwz_bpf__destroy(s);
		close_precreated(c);
		goto free_fold;
	}
	e = -EINVAL;
	if (!cfg->force_raw_tp && cfg->sched && !capture_compat__raw_tp(&c->compat)) {
		e = open_load(c, cfg, false, s);
		s = NULL;
	}
	pwz_bpf__destroy(s);	/* not used: raw_tp asked */
	/* raw_tp is the fallback for a kernel without tp_btf, not for a lack of rights,
	 * descriptors or memory (it would then fail for another reason and hide this one) */
	if (e)
		e = real_error(e);
	if (e && e != -EPERM && e != -EACCES && e != -EMFILE && e != -ENFILE && e != -ENOMEM)
		e = open_load(c, cfg, true, NULL);
	close_precreated(c);	/* the skeleton holds its own descriptors of those it uses */
	if (e)
		e = real_error(e);
	if (e) {
		char hint[256];

		snprintf(err, errlen, "cannot load the BPF programs: %s (%s)", strerror(-e),
			 load_hint(-e, hint, sizeof(hint)));
		goto free_fold;
	}
	if (c->skel->rodata->use_sched_clock) {
		c->clock = capture_clock__new(bpf_map__fd(c->skel->maps.sched_clk), c->nr_cpus);
		if (!c->clock) {
			e = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			capture__free(c);
			goto fail;
		}
	}
	e = fill_selection(c, cfg);
	if (e) {
		snprintf(err, errlen, "cannot fill the task selection: %s", strerror(-e));
		capture__free(c);
		goto fail;
	}
	return c;

free_fold:
	model_fold__free(c->fold);
free_capture:
	free(c);
fail:
	errno = -e;
	return NULL;
}

static bool is_gone(void *ctx, uint32_t tid, uint64_t since_ns)
{
	struct capture *c = ctx;

	return keymap_find(&c->gone, tid, since_ns) >= 0;
}

/* Writes the aggregates of the exited threads to the exited sink and forgets them. */
static int take_gone(struct capture *c)
{
	int e;

	if (!c->gone.count)
		return 0;
	e = model_fold__take(c->fold, is_gone, c, &c->exited);
	if (e)
		return e;
	c->taken += c->gone.count;
	keymap_clear(&c->gone);	/* its storage serves the next batch */
	return 0;
}

/* A slice record into the fold: every one read is folded here (the kernel aggregates only the
 * dropped ones), whatever the sink does with it. */
static int fold_slice(struct capture *c, const struct capture_rec *r)
{
	const struct pwz_slice *s = &r->slice.s;
	bool waited = r->slice.waited;
	int e;

	e = model_fold__slice(c->fold, s);
	if (!e && waited)
		e = model_fold__wait(c->fold, &r->slice.w);
	/* R9: the kernel's charge of that wait, or of one not measured (at the switch-out where
	 * the switch-in was unseen) */
	if (!e && r->slice.has_run_delay)
		e = model_fold__run_delay(c->fold, s->tid,
					  s->flags & PWZ_SLICE_UNSEEN_START ?
					  s->start_ns + s->dur_ns : s->start_ns,
					  r->slice.run_delay_ns, waited, waited ? r->slice.w.wait_ns : 0);
	/* its last switch-out: nothing more of this thread instance comes but the kernel's
	 * aggregates of its dropped slices and an exit still pending at the end, added at the
	 * end */
	if (e || s->end != PWZ_END_EXITED || !s->tid || !c->exited.cpu_agg)
		return e;
	if (keymap_get(&c->gone, s->tid, model_fold__instance(c->fold, s->tid,
							       s->start_ns + s->dur_ns), NULL) < 0)
		return -ENOMEM;
	/* taken here, not once per poll: a poll of a fast fork loop reads thousands of exits,
	 * and the fold's tables would grow to hold them */
	if (c->gone.count >= TAKE_MIN &&
	    (size_t)c->gone.count * TAKE_SHARE >= model_fold__count(c->fold))
		return take_gone(c);
	return 0;
}

/* A decoded record to the sink: a slice after the wait before it. */
static int deliver(const struct capture_sink *k, const struct capture_rec *r)
{
	const struct cdict_visitor *v = &k->records;
	int e;

	switch (r->kind) {
	case CAPTURE_REC_SLICE:
		if (r->slice.waited && v->wakeup && (e = v->wakeup(v->ctx, &r->slice.w)))
			return e;
		return v->slice ? v->slice(v->ctx, &r->slice.s) : 0;
	case CAPTURE_REC_KVM_EXIT:
		return v->kvm_exit ? v->kvm_exit(v->ctx, &r->exit) : 0;
	case CAPTURE_REC_TASK:
		return k->task ? k->task(k->ctx, &r->task) : 0;
	case CAPTURE_REC_EXEC:
		return k->exec ? k->exec(k->ctx, &r->exec) : 0;
	case CAPTURE_REC_SKIP:
		break;
	}
	return 0;
}

/* One ring-buffer record, decoded once: folded when a slice, then handed to the sink. */
static int one_record(struct capture *c, const void *data, size_t size)
{
	struct capture_rec r;
	int e;

	if (capture_decode(data, size, c->t0, &r) == CAPTURE_REC_SLICE && (e = fold_slice(c, &r)))
		return e;
	return deliver(&c->sink, &r);
}

/* The slices of a batch (struct rec_batch: n of them, at most what size holds), in order. */
static int batch_records(struct capture *c, const void *data, size_t size)
{
	size_t off = offsetof(struct rec_batch, s), n;
	__u32 hdr_n;
	int e = 0;

	if (size < off)
		return 0;
	/* births and renames submitted before this batch first (model.h R8) */
	if (c->rb_task && (e = ring_buffer__consume(c->rb_task)) < 0)
		return e;
	e = 0;
	memcpy(&hdr_n, (const char *)data + offsetof(struct rec_batch, n), sizeof(hdr_n));
	n = (size - off) / sizeof(struct rec_slice);
	if (hdr_n < n)
		n = hdr_n;
	for (size_t i = 0; i < n && !e; i++)
		e = one_record(c, (const char *)data + off + i * sizeof(struct rec_slice),
			       sizeof(struct rec_slice));
	return e;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct capture *c = ctx;
	__u32 type = 0;
	int e;

	if (size >= sizeof(type))
		memcpy(&type, data, sizeof(type));
	e = type == REC_SLICE_BATCH ? batch_records(c, data, size) : one_record(c, data, size);

	/* libbpf has consumed this record whatever we return: yielding (after the whole
	 * record) loses nothing */
	if (!e && ++c->since_check >= POLL_CHECK_EVERY) {
		c->since_check = 0;
		if (c->poll_deadline && pwz_mono_ns() >= c->poll_deadline)
			return POLL_YIELD;
	}
	return e;
}

static bool on_tracepoint(const struct bpf_program *p)
{
	return !strncmp(bpf_program__section_name(p), "tracepoint/", strlen("tracepoint/"));
}

/* The id of tracefs event "CATEGORY/NAME", or -errno. */
static int tp_id(const char *event)
{
	char path[512];
	int id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/id", TRACEFS, event);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%d", &id) != 1 || id < 0)
		id = -EINVAL;
	fclose(f);
	return id;
}

/*
 * Attaches a program on a classic tracepoint (the task and KVM events), which runs from a perf
 * event. The kernel releases such an event when its last descriptor closes, after the
 * tracepoint's unregistration, which waits for RCU grace periods under a global mutex: 40-50
 * ms for each event here, one event after the other. Destroying a BPF link only takes the
 * program off the event, at once, when something else still holds the event: so the capture
 * keeps a descriptor of its own (c->tp_fds), and the slow release comes at capture__free()
 * (or after the process, with capture__free_async()). Where the kernel has no perf-event BPF
 * links (before 5.15), the program leaves its event only with the event: no descriptor is kept.
 * Returns 0 or -errno, *link set.
 */
static int tp_attach(struct capture *c, struct bpf_program *prog, struct bpf_link **link)
{
	struct perf_event_attr attr;
	int id, pfd, keep, e;

	id = tp_id(bpf_program__section_name(prog) + strlen("tracepoint/"));
	if (id < 0)
		return id;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = (__u64)id;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	pfd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	keep = fcntl(pfd, F_DUPFD_CLOEXEC, 0);
	if (keep < 0) {
		e = -errno;
		close(pfd);
		return e;
	}
	*link = bpf_program__attach_perf_event(prog, pfd);	/* owns pfd once attached */
	if (!*link) {
		e = -errno;
		close(pfd);
		close(keep);
		return e;
	}
	if (bpf_link__fd(*link) == pfd)
		close(keep);	/* no BPF link: attached with an ioctl, to the event itself */
	else
		c->tp_fds[c->nr_tp_fds++] = keep;
	return 0;
}

/* Attaches every program loaded: the skeleton's way, the classic tracepoints' through
 * tp_attach() (libbpf's way where that fails). Returns 0 or -errno. */
static int attach_all(struct capture *c)
{
	const struct bpf_object_skeleton *sk = c->skel->skeleton;
	int e, i;

	for (i = 0; i < sk->prog_cnt; i++)
		if (on_tracepoint(*sk->progs[i].prog))
			bpf_program__set_autoattach(*sk->progs[i].prog, false);
	/* the iterator is attached at its first read: a kernel that refuses it loses it alone */
	bpf_program__set_autoattach(c->skel->progs.pending_waits, false);
	e = pwz_bpf__attach(c->skel);
	for (i = 0; !e && i < sk->prog_cnt; i++) {
		struct bpf_program *p = *sk->progs[i].prog;
		struct bpf_link **link = sk->progs[i].link;

		if (!on_tracepoint(p) || !bpf_program__autoload(p) || *link)
			continue;
		if (c->nr_tp_fds < CAPTURE_MAX_TP && !tp_attach(c, p, link))
			continue;
		*link = bpf_program__attach(p);
		if (!*link)
			e = -errno;
	}
	return e;
}

/* c->wake_fd, one epoll over both rings' own: the slice ring wakes the reader as it fills,
 * the task ring with -t's namings (bpf emit_task()), so that -t's selection follows a naming
 * at once. 0 or -errno. */
static int open_wake_fd(struct capture *c)
{
	int fds[] = { ring_buffer__epoll_fd(c->rb), ring_buffer__epoll_fd(c->rb_task) };

	c->wake_fd = epoll_create1(EPOLL_CLOEXEC);
	if (c->wake_fd < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		struct epoll_event ev = { .events = EPOLLIN };

		if (epoll_ctl(c->wake_fd, EPOLL_CTL_ADD, fds[i], &ev))
			return -errno;
	}
	return 0;
}

/* Waits up to timeout_ms for either ring (c->wake_fd) without consuming: 0 or -errno (-EINTR
 * for a signal, as ring_buffer__poll()). */
static int wait_rings(struct capture *c, int timeout_ms)
{
	struct epoll_event ev;

	return epoll_wait(c->wake_fd, &ev, 1, timeout_ms) < 0 ? -errno : 0;
}

int capture__start(struct capture *c, uint64_t t0, const struct capture_sink *sink, char *err,
		   size_t errlen)
{
	int e;

	c->sink = *sink;
	/* two ring_buffer objects, so that the task ring can be drained before each batch of
	 * slices: a thread's birth (model.h R8) is then folded before the slices it governs */
	c->rb_task = ring_buffer__new(bpf_map__fd(c->skel->maps.rb_task), on_record, c, NULL);
	c->rb = c->rb_task ? ring_buffer__new(bpf_map__fd(c->skel->maps.rb), on_record, c, NULL) :
			     NULL;
	if (!c->rb) {
		char hint[256];

		e = -errno;
		snprintf(err, errlen, "cannot open the ring buffers: %s (%s)", strerror(-e),
			 load_hint(-e, hint, sizeof(hint)));
		return e;
	}
	e = open_wake_fd(c);
	if (e) {
		snprintf(err, errlen, "cannot poll the ring buffers together: %s", strerror(-e));
		return e;
	}
	c->skel->bss->t0 = t0;
	c->t0 = t0;
	e = attach_all(c);
	if (e) {
		char hint[256];

		snprintf(err, errlen, "cannot attach the BPF programs: %s (%s)", strerror(-e),
			 load_hint(-e, hint, sizeof(hint)));
		return e;
	}
	c->attached = true;
	capture_clock__sample(c->clock, true);
	return 0;
}

int capture__poll(struct capture *c, int timeout_ms)
{
	int e;

	c->poll_deadline = pwz_mono_ns() + POLL_BUDGET_NS;
	e = wait_rings(c, timeout_ms);
	/* every ring on each round, the task ring first (a thread's birth before its slices):
	 * it wakes the reader only with -t's namings, and fills up in a busy capture */
	if (!e) {
		int n = ring_buffer__consume(c->rb_task);

		if (n >= 0) {
			e = n;
			n = ring_buffer__consume(c->rb);
		}
		e = n < 0 ? n : e + n;
	}
	c->poll_deadline = 0;
	capture_clock__sample(c->clock, false);
	return e == POLL_YIELD ? 0 : e;
}

void capture__write_exited(struct capture *c, const struct cdict_visitor *sink)
{
	c->exited = *sink;
}

uint64_t capture__exited_written(const struct capture *c)
{
	return c->taken;
}

static void *destroy_link(void *arg)
{
	bpf_link__destroy(arg);
	return NULL;
}

/*
 * Detaches every program. Each tracepoint link's release waits for the tracepoint's
 * unregistration (RCU grace periods, static-key patching: 50-200 ms each measured here);
 * released one after the other, they cost a short capture half a second. Released from
 * threads at once, they overlap.
 */
static void detach_all(struct pwz_bpf *s)
{
	struct bpf_link **links = (struct bpf_link **)&s->links;
	size_t n = sizeof(s->links) / sizeof(*links);
	pthread_t th[sizeof(s->links) / sizeof(struct bpf_link *)];
	bool started[sizeof(s->links) / sizeof(struct bpf_link *)] = { 0 };

	for (size_t i = 0; i < n; i++)
		if (links[i])
			started[i] = !pthread_create(&th[i], NULL, destroy_link, links[i]);
	for (size_t i = 0; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else if (links[i])
			bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
}

static int partial_batches(struct capture *c);

int capture__stop(struct capture *c, uint64_t *detached_ns)
{
	int n, e;

	if (c->attached) {
		detach_all(c->skel);
		c->attached = false;
	}
	*detached_ns = pwz_mono_ns();
	capture_clock__sample(c->clock, true);
	n = c->rb_task ? ring_buffer__consume(c->rb_task) : 0;
	if (n >= 0 && c->rb)
		n = ring_buffer__consume(c->rb);
	if (n < 0)
		return n;
	/* after the ring's batches, each CPU's last, partial one */
	e = partial_batches(c);
	return e ? e : n;
}

static int percpu_lookup(struct capture *c, struct bpf_map *map, const void *key, void *buf,
			 size_t size);
static int batch_records(struct capture *c, const void *data, size_t size);

/* Hands the slices of every CPU's last batch (not full: still in the map) to on_record's path. */
static int partial_batches(struct capture *c)
{
	struct rec_batch *b = calloc(c->nr_cpus, sizeof(*b));
	__u32 key = 0;
	int e;

	if (!b)
		return -ENOMEM;
	e = percpu_lookup(c, c->skel->maps.batch, &key, b, sizeof(*b));
	for (int cpu = 0; !e && cpu < c->nr_cpus; cpu++)
		if (b[cpu].n && b[cpu].n < PWZ_BATCH)
			e = batch_records(c, &b[cpu], sizeof(b[cpu]));
	free(b);
	return e;
}

/* Reads the per-CPU value of key in map into buf (nr_cpus slots of size). */
static int percpu_lookup(struct capture *c, struct bpf_map *map, const void *key, void *buf,
			 size_t size)
{
	size_t vs = (size + 7) & ~(size_t)7;

	if (bpf_map__lookup_elem(map, key, bpf_map__key_size(map), buf, vs * c->nr_cpus, 0))
		return -errno;
	return 0;
}

int capture__counters(struct capture *c, uint64_t out[PWZ_CNT_MAX])
{
	__u64 *buf = calloc(c->nr_cpus, sizeof(__u64) * PWZ_CNT_MAX);
	__u32 key = 0;
	int e;

	if (!buf)
		return -ENOMEM;
	memset(out, 0, sizeof(uint64_t) * PWZ_CNT_MAX);
	e = percpu_lookup(c, c->skel->maps.counters, &key, buf, sizeof(__u64) * PWZ_CNT_MAX);
	for (int cpu = 0; !e && cpu < c->nr_cpus; cpu++)
		for (int i = 0; i < PWZ_CNT_MAX; i++)
			out[i] += buf[cpu * PWZ_CNT_MAX + i];
	free(buf);
	if (e)
		return e;
	/* the per-switch counters live in cpu_state (no second map lookup per switch) */
	struct cpu_state *st = calloc(c->nr_cpus, sizeof(*st));

	if (!st)
		return -ENOMEM;
	e = percpu_lookup(c, c->skel->maps.cpu_state, &key, st, sizeof(*st));
	for (int cpu = 0; !e && cpu < c->nr_cpus; cpu++) {
		out[CNT_SWITCHES] += st[cpu].switches;
		out[CNT_UNPAIRED] += st[cpu].unpaired;
	}
	free(st);
	return e;
}

typedef int (*walk_fn)(struct capture *c, const void *key, const void *vals, void *arg);

/* Keys (and their per-CPU values) one batched lookup reads. */
#define WALK_BATCH 1024

/* Walks the keys of map key by key: fn(key, per-CPU values). */
static int walk_keys(struct capture *c, struct bpf_map *map, size_t vsize, walk_fn fn,
		     void *arg)
{
	size_t ks = bpf_map__key_size(map);
	char key[64], next[64];
	void *vals = calloc(c->nr_cpus, (vsize + 7) & ~(size_t)7);
	const void *prev = NULL;
	int e = 0;

	if (!vals || ks > sizeof(key)) {
		free(vals);
		return -ENOMEM;
	}
	while (!bpf_map__get_next_key(map, prev, next, ks)) {
		memcpy(key, next, ks);
		prev = key;
		if (percpu_lookup(c, map, key, vals, vsize))
			continue;	/* deleted meanwhile */
		e = fn(c, key, vals, arg);
		if (e)
			break;
	}
	free(vals);
	return e;
}

/*
 * Walks the keys of map: fn(key, per-CPU values), WALK_BATCH keys a system call
 * (bpf_map_lookup_batch(), Linux 5.6), or key by key where the kernel has no batched lookup
 * for the map. Returns 0, fn's non-zero value or -errno.
 */
static int walk(struct capture *c, struct bpf_map *map, size_t vsize, walk_fn fn, void *arg)
{
	size_t ks = bpf_map__key_size(map), vs = (size_t)c->nr_cpus * ((vsize + 7) & ~(size_t)7);
	char *keys = malloc(WALK_BATCH * ks), *vals = malloc(WALK_BATCH * vs);
	__u64 token[8];		/* the kernel's position: a bucket for a hash, a key for others */
	bool first = true;
	int e = 0;

	if (!keys || !vals || ks > sizeof(token)) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	while (!e) {
		__u32 n = WALK_BATCH;
		int r = bpf_map_lookup_batch(bpf_map__fd(map), first ? NULL : token, token, keys,
					     vals, &n, NULL);

		r = r ? -errno : 0;
		if (r && r != -ENOENT) {
			/* no batched lookup here (EINVAL, ENOTSUPP): key by key */
			e = first ? walk_keys(c, map, vsize, fn, arg) : r;
			break;
		}
		for (__u32 i = 0; i < n && !e; i++)
			e = fn(c, keys + i * ks, vals + i * vs, arg);
		if (r == -ENOENT)
			break;	/* that was the last batch */
		first = false;
	}
	free(keys);
	free(vals);
	return e;
}

struct cb_arg {
	void *cb;
	void *ctx;
};

/* Adds the kernel's per-CPU slots of one cpu_aggs key into the fold arg. */
static int cpu_agg_fn(struct capture *c, const void *key, const void *vals, void *arg)
{
	const struct cpu_agg_val *v = vals;
	struct pwz_cpu_agg a;
	struct pwz_wait_agg w;
	__u32 tid;
	int e = 0;

	memcpy(&tid, key, sizeof(tid));
	for (int cpu = 0; cpu < c->nr_cpus && !e; cpu++) {
		if (!v[cpu].switches && !v[cpu].runtime_ns && !v[cpu].wait_count)
			continue;
		capture_conv_cpu_agg(tid, (uint32_t)cpu, &v[cpu], &a, &w);
		/* model.h R7: the kernel keys by tid; a recycled tid's part goes to its last
		 * instance */
		a.since_ns = w.since_ns = model_fold__instance(arg, tid, UINT64_MAX);
		e = model_fold__cpu_agg(arg, &a);
		if (!e && w.count)
			e = model_fold__wait_agg(arg, &w);
	}
	return e;
}

/* Adds the kernel's per-CPU slots of one wait_hists key into the fold arg, beside the
 * thread's waits of cpu_aggs (cpu_agg_fn()). */
static int wait_hist_fn(struct capture *c, const void *key, const void *vals, void *arg)
{
	const struct wait_hist_val *v = vals;
	struct pwz_wait_agg w, sum;
	__u32 tid;
	bool any = false;

	memcpy(&tid, key, sizeof(tid));
	sum = (struct pwz_wait_agg){ .tid = tid };
	for (int cpu = 0; cpu < c->nr_cpus; cpu++) {
		capture_conv_wait_hist(tid, &v[cpu], &w);
		for (int b = 0; b < PWZ_WHIST_BUCKETS; b++) {
			sum.hist[b] += w.hist[b];
			any |= w.hist[b] != 0;
		}
	}
	if (!any)
		return 0;
	/* model.h R7: the same instance as its cpu_aggs part */
	sum.since_ns = model_fold__instance(arg, tid, UINT64_MAX);
	return model_fold__wait_agg(arg, &sum);
}

static int kvm_agg_fn(struct capture *c, const void *key, const void *vals, void *arg)
{
	struct kvm_agg_val sum;
	struct kvm_agg_key k;
	struct pwz_kvm_agg a = { 0 };

	memcpy(&k, key, sizeof(k));
	capture_sum_kvm(vals, c->nr_cpus, &sum);
	if (!sum.count)
		return 0;
	a.tid = k.tid;
	a.isa = k.isa;
	a.reason = k.reason;
	a.count = sum.count;
	a.handling_ns = sum.handling_ns;
	a.since_ns = model_fold__instance(arg, k.tid, UINT64_MAX);
	memcpy(a.hist, sum.hist, sizeof(a.hist));
	return model_fold__kvm_agg(arg, &a);
}

struct model_fold *capture__fold(struct capture *c)
{
	return c->fold;
}

int capture__read_kernel_aggs(struct capture *c, struct model_fold *into)
{
	int e = walk(c, c->skel->maps.cpu_aggs, sizeof(struct cpu_agg_val), cpu_agg_fn, into);

	if (!e)
		e = walk(c, c->skel->maps.wait_hists, sizeof(struct wait_hist_val), wait_hist_fn,
			 into);
	if (!e)
		e = walk(c, c->skel->maps.kvm_aggs, sizeof(struct kvm_agg_val), kvm_agg_fn, into);
	return e;
}

struct forget_arg {
	const uint32_t *tids;		/* sorted */
	size_t n;
	struct kvm_agg_key *keys;	/* kvm_aggs' keys of those tids */
	size_t nr_keys, cap_keys;
};

/* Notes a kvm_aggs key of a thread to forget. */
static int forget_kvm_fn(struct capture *c, const void *key, const void *vals, void *arg)
{
	struct forget_arg *a = arg;
	struct kvm_agg_key k;

	(void)c;
	(void)vals;
	memcpy(&k, key, sizeof(k));
	if (!bsearch(&k.tid, a->tids, a->n, sizeof(*a->tids), u32_cmp))
		return 0;
	if (array_reserve((void **)&a->keys, &a->cap_keys, a->nr_keys + 1, sizeof(*a->keys)))
		return -ENOMEM;
	a->keys[a->nr_keys++] = k;
	return 0;
}

/* Drops tid's entries of the per-thread maps but kvm_aggs (the maps a capture does not use
 * hold one entry: nothing to find there), and its bits. */
static void forget_tid(struct capture *c, uint32_t tid)
{
	struct pwz_bpf *s = c->skel;

	bpf_map__delete_elem(s->maps.cpu_aggs, &tid, sizeof(tid), 0);
	bpf_map__delete_elem(s->maps.wait_hists, &tid, sizeof(tid), 0);
	bpf_map__delete_elem(s->maps.wait_start, &tid, sizeof(tid), 0);
	bpf_map__delete_elem(s->maps.kvm_state, &tid, sizeof(tid), 0);
	bpf_map__delete_elem(s->maps.vcpu_hists, &tid, sizeof(tid), 0);
	sel_clear(c, SEL_VCPUS, tid);
	sel_clear(c, SEL_TIDS, tid);
	sel_clear(c, SEL_NAMED, tid);
}

int capture__forget_threads(struct capture *c, uint32_t *tids, size_t *n,
			    bool (*drop)(void *ctx, uint32_t tid, const struct cpu_agg_val *v, int nr),
			    void *ctx)
{
	struct pwz_bpf *s = c->skel;
	size_t size = sizeof(struct cpu_agg_val) * (size_t)c->nr_cpus, k = 0;
	struct cpu_agg_val *vals = calloc((size_t)c->nr_cpus, sizeof(*vals));
	struct forget_arg a = { tids, 0, NULL, 0, 0 };
	int e = 0;

	if (!vals)
		return -ENOMEM;
	for (size_t i = 0; i < *n; i++) {
		uint32_t tid = tids[i];

		if (bpf_map__lookup_elem(s->maps.cpu_aggs, &tid, sizeof(tid), vals, size, 0))
			memset(vals, 0, size);
		if (!drop(ctx, tid, vals, c->nr_cpus))
			continue;
		forget_tid(c, tid);
		tids[k++] = tid;
	}
	*n = a.n = k;
	e = k ? walk(c, s->maps.kvm_aggs, sizeof(struct kvm_agg_val), forget_kvm_fn, &a) : 0;
	for (size_t i = 0; !e && i < a.nr_keys; i++)
		bpf_map__delete_elem(s->maps.kvm_aggs, &a.keys[i], sizeof(a.keys[i]), 0);
	free(a.keys);
	free(vals);
	return e;
}

int capture__fold_kernel_aggs(struct capture *c)
{
	return capture__read_kernel_aggs(c, c->fold);
}

int capture__open_slices(struct capture *c, int (*cb)(void *ctx, uint32_t cpu,
						      const struct cpu_state *st), void *ctx)
{
	struct cpu_state *st = calloc(c->nr_cpus, sizeof(*st));
	__u32 key = 0;
	int e;

	if (!st)
		return -ENOMEM;
	e = percpu_lookup(c, c->skel->maps.cpu_state, &key, st, sizeof(*st));
	for (int cpu = 0; !e && cpu < c->nr_cpus; cpu++)
		if (st[cpu].seen && st[cpu].sel)	/* else a filtered-out thread's */
			e = cb(ctx, (uint32_t)cpu, &st[cpu]);
	free(st);
	return e;
}

/* Every entry of a map keyed by tid: each(ctx, tid, val) with its value read into val (size
 * bytes); an entry gone meanwhile is skipped. Returns 0 or the first non-zero each() gave. */
static int each_tid_entry(struct bpf_map *map, void *val, size_t size,
			  int (*each)(void *ctx, uint32_t tid, const void *val), void *ctx)
{
	__u32 key, next;
	const __u32 *prev = NULL;
	int e;

	while (!bpf_map__get_next_key(map, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		if (bpf_map__lookup_elem(map, &key, sizeof(key), val, size, 0))
			continue;
		if ((e = each(ctx, key, val)))
			return e;
	}
	return 0;
}

struct tid_walk {
	int (*wait_cb)(void *ctx, uint32_t tid, uint64_t since);
	int (*exit_cb)(void *ctx, uint32_t tid, const struct kvm_state *st);
	void *ctx;
};

static int each_wait(void *ctx, uint32_t tid, const void *val)
{
	const struct wait_start *ws = val;
	const struct tid_walk *w = ctx;

	return ws->ts ? w->wait_cb(w->ctx, tid, ws->ts) : 0;
}

static int each_exit(void *ctx, uint32_t tid, const void *val)
{
	const struct kvm_state *st = val;
	const struct tid_walk *w = ctx;

	return st->exit_ns ? w->exit_cb(w->ctx, tid, st) : 0;
}

/* The pending waits of the tid hash (raw_tp, or no task storage). */
static int pending_waits_hash(struct capture *c, int (*cb)(void *ctx, uint32_t tid, uint64_t since),
			      void *ctx)
{
	struct tid_walk w = { .wait_cb = cb, .ctx = ctx };
	struct wait_start ws;

	return each_tid_entry(c->skel->maps.wait_start, &ws, sizeof(ws), each_wait, &w);
}

/* The pending waits of task storage, through the task iterator (one read of it each call). */
static int pending_waits_iter(struct capture *c, int (*cb)(void *ctx, uint32_t tid, uint64_t since),
			      void *ctx)
{
	struct pending_wait pw[256];
	ssize_t n;
	int fd, e = 0;

	if (!c->pending_iter) {
		c->pending_iter = bpf_program__attach_iter(c->skel->progs.pending_waits, NULL);
		if (!c->pending_iter)
			return -ENOTSUP;
	}
	fd = bpf_iter_create(bpf_link__fd(c->pending_iter));
	if (fd < 0)
		return -ENOTSUP;
	while (!e && (n = read(fd, pw, sizeof(pw))) > 0)
		for (size_t i = 0; !e && i < (size_t)n / sizeof(pw[0]); i++)
			e = cb(ctx, pw[i].tid, pw[i].ts);
	if (!e && n < 0)
		e = -errno;
	close(fd);
	return e;
}

int capture__pending_waits(struct capture *c, int (*cb)(void *ctx, uint32_t tid, uint64_t since),
			   void *ctx)
{
	if (!c->pending_waits || !c->sched || !c->skel->rodata->want_wait)
		return -ENOTSUP;
	if (c->raw_tp || !c->compat.task_storage)
		return pending_waits_hash(c, cb, ctx);
	if (!bpf_program__autoload(c->skel->progs.pending_waits))
		return -ENOTSUP;
	return pending_waits_iter(c, cb, ctx);
}

int capture__pending_exits(struct capture *c, int (*cb)(void *ctx, uint32_t tid,
							const struct kvm_state *st), void *ctx)
{
	struct tid_walk w = { .exit_cb = cb, .ctx = ctx };
	struct kvm_state st;

	return each_tid_entry(c->skel->maps.kvm_state, &st, sizeof(st), each_exit, &w);
}

struct ledger_walk {
	struct bpf_map *hists;		/* vcpu_hists; NULL: the histograms are not read */
	uint64_t end_ns;
	bool final;			/* the capture's end (capture_conv_ledger()) */
	int (*cb)(void *ctx, const struct pwz_vcpu_ledger *l);
	void *ctx;
	struct pwz_vcpu_ledger l;	/* each ledger in turn */
	struct vcpu_hist h;		/* and its histograms */
};

static int each_ledger(void *ctx, uint32_t tid, const void *val)
{
	const struct kvm_state *st = val;
	struct ledger_walk *w = ctx;
	bool has_h;

	if (!st->led.start_ns)
		return 0;
	has_h = w->hists &&
		!bpf_map__lookup_elem(w->hists, &tid, sizeof(tid), &w->h, sizeof(w->h), 0);
	capture_conv_ledger(tid, st, has_h ? &w->h : NULL, w->end_ns, w->final, &w->l);
	return w->cb(w->ctx, &w->l);
}

int capture__vcpu_ledgers(struct capture *c, uint64_t end_ns, bool final, bool hists,
			  int (*cb)(void *ctx, const struct pwz_vcpu_ledger *l), void *ctx)
{
	struct ledger_walk *w;
	struct kvm_state st;
	int e;

	if (!capture__has_ledger(c))
		return -ENOTSUP;
	w = malloc(sizeof(*w));		/* 4 KiB: not on the stack */
	if (!w)
		return -ENOMEM;
	*w = (struct ledger_walk){ .hists = hists ? c->skel->maps.vcpu_hists : NULL,
				   .end_ns = end_ns, .final = final, .cb = cb, .ctx = ctx };
	e = each_tid_entry(c->skel->maps.kvm_state, &st, sizeof(st), each_ledger, w);
	free(w);
	return e;
}

struct irq_walk {
	int (*cb)(void *ctx, uint32_t cpu, const struct irq_agg_key *k,
		  const struct irq_agg_val *v, const char *name);
	void *ctx;
};

static int irq_agg_fn(struct capture *c, const void *key, const void *vals, void *arg)
{
	const struct irq_agg_val *v = vals;
	struct irq_walk *w = arg;
	struct irq_agg_key k;
	struct irq_name n = { { 0 } };
	int e = 0;

	memcpy(&k, key, sizeof(k));
	if (k.kind == PWZ_IRQ_HARD &&
	    bpf_map__lookup_elem(c->skel->maps.irq_names, &k.vector, sizeof(k.vector), &n,
				 sizeof(n), 0))
		n.name[0] = 0;
	n.name[sizeof(n.name) - 1] = 0;
	for (int cpu = 0; cpu < c->nr_cpus && !e; cpu++)
		if (v[cpu].count)
			e = w->cb(w->ctx, (uint32_t)cpu, &k, &v[cpu],
				  k.kind == PWZ_IRQ_HARD ? n.name : NULL);
	return e;
}

int capture__irq_aggs(struct capture *c, int (*cb)(void *ctx, uint32_t cpu,
						   const struct irq_agg_key *k,
						   const struct irq_agg_val *v, const char *name),
		      void *ctx)
{
	struct irq_walk w = { cb, ctx };

	return walk(c, c->skel->maps.irq_aggs, sizeof(struct irq_agg_val), irq_agg_fn, &w);
}

int capture__prog_stats(struct capture *c, uint64_t *run_ns, uint64_t *run_cnt)
{
	struct bpf_program *p;

	*run_ns = *run_cnt = 0;
	bpf_object__for_each_program(p, c->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		*run_ns += info.run_time_ns;
		*run_cnt += info.run_cnt;
	}
	return 0;
}

void capture__free(struct capture *c)
{
	if (!c)
		return;
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	ring_buffer__free(c->rb);
	ring_buffer__free(c->rb_task);
	bpf_link__destroy(c->pending_iter);
	pwz_bpf__destroy(c->skel);	/* the links first: then each event below is ours alone */
	for (int i = 0; i < c->nr_tp_fds; i++)
		close(c->tp_fds[i]);
	for (int i = 0; i < SEL_MAPS; i++)
		if (c->sel_bits[i])
			munmap(c->sel_bits[i], sel_len(c, i));
	model_fold__free(c->fold);
	keymap_free(&c->gone);
	capture_clock__free(c->clock);
	free(c);
}

/* Closes every descriptor of this process but the n in keep (in any order). */
static void close_all_but(const int *keep, int n)
{
	unsigned int from = 0;

	for (;;) {
		unsigned int next = ~0u;

		for (int i = 0; i < n; i++)
			if ((unsigned int)keep[i] >= from && (unsigned int)keep[i] < next)
				next = (unsigned int)keep[i];
		if (next > from)
			syscall(SYS_close_range, from, next == ~0u ? ~0u : next - 1, 0);
		if (next == ~0u)
			return;
		from = next + 1;
	}
}

/* A child that holds the n descriptors of fds until this process is gone, then exits (the
 * kernel releases them at its exit). Returns without it when fork fails. */
static void hold_past_exit(const int *fds, int n)
{
	pid_t parent = getpid();

	if (fork() != 0)
		return;
	/* the child: only the events; no output, no other file, no terminal signal held off */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	close_all_but(fds, n);
	prctl(PR_SET_NAME, "pwz-release");	/* not taken for a capture in ps or pgrep */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(0);
	for (;;)
		pause();
}

void capture__free_async(struct capture *c)
{
	if (!c)
		return;
	if (c->nr_tp_fds) {
		/* no program attached and no ring buffer mapped in the child */
		if (c->attached)
			detach_all(c->skel);
		c->attached = false;
		ring_buffer__free(c->rb);
		ring_buffer__free(c->rb_task);
		c->rb = c->rb_task = NULL;
		hold_past_exit(c->tp_fds, c->nr_tp_fds);
	}
	capture__free(c);
}
