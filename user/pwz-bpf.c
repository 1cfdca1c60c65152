// SPDX-License-Identifier: GPL-2.0
/* pwz-bpf: captures scheduling and KVM exits with eBPF into a cdict (or converts a perf.data). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <bpf/libbpf.h>
#include "capture.h"
#include "capture_meta.h"
#include "capture_opts.h"
#include "capture_tasks.h"
#include "cdict.h"
#include "model.h"
#include "perfdata.h"
#include "trace.h"
#include "records.h"
#include "report.h"
#include "summary.h"
#include "tasknames.h"
#include "termsafe.h"

#ifndef PWZ_VERSION
#define PWZ_VERSION "0.0.0"
#endif

#define TRACEFS "/sys/kernel/tracing"
#define KVM_EXIT_FORMAT TRACEFS "/events/kvm/kvm_exit/format"
#define POLL_MS 100
#define FLUSH_NS 1000000000ull

static int verbose;
static volatile sig_atomic_t stop_signal;

static void die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line on stderr. Messages quote thread names, event names from perf.data files and
 * paths: the whole line goes through termsafe(). */
static void die_msg(const char *fmt, ...)
{
	char msg[4096], safe[4 * sizeof(msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "pwz-bpf: %s\n", termsafe_str(safe, sizeof(safe), msg));
}

#define info(lvl, ...) do { if (verbose >= (lvl)) die_msg(__VA_ARGS__); } while (0)

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (verbose < 2 || (level == LIBBPF_DEBUG && verbose < 3))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Everything one capture run holds. */
struct run {
	struct capture_opts o;
	struct cdict_writer *w;		/* NULL with --stats only */
	struct task_table *tt;
	struct task_map *map;
	struct pwz_meta meta;
	uint64_t t0;			/* CLOCK_MONOTONIC capture start */
	int werr;			/* first writer error */
	uint64_t slices, waits, exits, renames;
	bool filter;
	uint32_t *sel_tids, *sel_tgids;
	size_t nr_sel_tids, nr_sel_tgids;
	struct model_fold *fold;	/* the capture's one fold (capture__fold()) */
	struct trace *st;		/* with --stats: the tasks and aggregates written */
	struct cdict_visitor stv;	/* fills st */
};

static uint64_t rel(const struct run *r, uint64_t t)
{
	return t > r->t0 ? t - r->t0 : 0;
}

static int wr(struct run *r, int e)
{
	if (e && !r->werr)
		r->werr = e;
	return e;
}

/* Writes a task record (and keeps it for the --stats report). */
static int write_task(struct run *r, const struct pwz_task *task)
{
	if (r->st && wr(r, r->stv.task(r->stv.ctx, task)))
		return r->werr;
	return r->w ? wr(r, cdict_writer__task(r->w, task)) : 0;
}

/* Writes tid's task record before the first record naming it. */
static int ensure_task(struct run *r, uint32_t tid, uint64_t t)
{
	struct pwz_task task;
	int e = task_table__touch(r->tt, tid, t, &task);

	if (e < 0)
		return wr(r, e);
	if (e > 0)
		return write_task(r, &task);
	return 0;
}

static int sink_slice(void *ctx, const struct rec_slice *rs)
{
	struct run *r = ctx;
	struct pwz_slice s;
	struct pwz_wakeup w;
	bool waited = capture_conv_slice(rs, r->t0, &s, &w);

	r->slices++;
	if (ensure_task(r, s.tid, s.start_ns))
		return r->werr;
	if (waited) {
		r->waits++;
		if (r->w && wr(r, cdict_writer__wakeup(r->w, &w)))
			return r->werr;
	}
	return r->w ? wr(r, cdict_writer__slice(r->w, &s)) : 0;
}

static int write_exit(struct run *r, const struct pwz_kvm_exit *e)
{
	r->exits++;
	if (ensure_task(r, e->tid, e->time_ns))
		return r->werr;
	return r->w ? wr(r, cdict_writer__kvm_exit(r->w, e)) : 0;
}

static int sink_kvm_exit(void *ctx, const struct rec_kvm_exit *k)
{
	struct run *r = ctx;
	struct pwz_kvm_exit e;

	capture_conv_kvm_exit(k, r->t0, &e);
	return write_exit(r, &e);
}

static int sink_task(void *ctx, const struct rec_task *k)
{
	struct run *r = ctx;
	char comm[PWZ_COMM_LEN];
	struct pwz_task task;
	int e;

	memcpy(comm, k->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	e = task_table__event(r->tt, k->tid, k->tgid, comm, k->is_new, rel(r, k->time_ns), &task);
	if (e < 0)
		return wr(r, e);
	if (e > 0) {
		r->renames++;
		return write_task(r, &task);
	}
	return 0;
}

/* The naming of a thread that exited before any record named it: written before the task
 * table forgets it (task_table__forget_gone()), when it is one of the selected threads. */
static bool selected(const struct run *r, uint32_t tid);

static int write_gone_task(void *ctx, const struct pwz_task *t)
{
	struct run *r = ctx;

	if (!selected(r, t->tid))
		return 0;
	return write_task(r, t);
}

/* The aggregates of the fold, written after the task record of each thread (and kept for the
 * --stats report). */
static int out_cpu_agg(void *ctx, const struct pwz_cpu_agg *a)
{
	struct run *r = ctx;

	if (ensure_task(r, a->tid, 0) || (r->st && wr(r, r->stv.cpu_agg(r->stv.ctx, a))))
		return r->werr;
	return r->w ? wr(r, cdict_writer__cpu_agg(r->w, a)) : 0;
}

static int out_wait_agg(void *ctx, const struct pwz_wait_agg *a)
{
	struct run *r = ctx;

	if (ensure_task(r, a->tid, 0) || (r->st && wr(r, r->stv.wait_agg(r->stv.ctx, a))))
		return r->werr;
	return r->w ? wr(r, cdict_writer__wait_agg(r->w, a)) : 0;
}

static int out_kvm_agg(void *ctx, const struct pwz_kvm_agg *a)
{
	struct run *r = ctx;

	if (ensure_task(r, a->tid, 0) || (r->st && wr(r, r->stv.kvm_agg(r->stv.ctx, a))))
		return r->werr;
	return r->w ? wr(r, cdict_writer__kvm_agg(r->w, a)) : 0;
}

static bool selected(const struct run *r, uint32_t tid)
{
	uint32_t tgid;

	if (!r->filter)
		return true;
	for (size_t i = 0; i < r->nr_sel_tids; i++)
		if (r->sel_tids[i] == tid)
			return true;
	tgid = task_table__tgid(r->tt, tid);
	for (size_t i = 0; tgid && i < r->nr_sel_tgids; i++)
		if (r->sel_tgids[i] == tgid)
			return true;
	return false;
}

struct open_ctx {
	struct run *r;
	uint64_t t_end;		/* capture end, CLOCK_MONOTONIC */
};

/* A slice still running at the end: written cut (PWZ_END_OPEN) and folded, with the wait
 * before it. */
static int open_slice(void *ctx, uint32_t cpu, const struct cpu_state *st)
{
	struct open_ctx *oc = ctx;
	struct run *r = oc->r;
	struct pwz_slice s;
	struct pwz_wakeup w;
	bool waited;

	if (!selected(r, st->tid) || st->start_ns > oc->t_end)
		return 0;
	waited = capture_conv_open(st, cpu, r->t0, oc->t_end, &s, &w);
	if (model_fold__slice(r->fold, &s) || (waited && model_fold__wait(r->fold, &w)))
		return wr(r, -ENOMEM);
	if (ensure_task(r, s.tid, s.start_ns))
		return r->werr;
	if (r->o.no_streams)
		return 0;
	r->slices++;
	if (waited) {
		r->waits++;
		if (r->w && wr(r, cdict_writer__wakeup(r->w, &w)))
			return r->werr;
	}
	return r->w ? wr(r, cdict_writer__slice(r->w, &s)) : 0;
}

static int pending_exit(void *ctx, uint32_t tid, const struct kvm_state *st)
{
	struct run *r = ctx;
	struct rec_kvm_exit k = {
		.type = REC_KVM_EXIT, .tid = tid, .vcpu = st->vcpu, .isa = st->isa,
		.reason = st->reason, .exit_ns = st->exit_ns, .guest_ns = st->guest_ns,
	};
	struct pwz_kvm_exit e;

	if (r->o.no_streams)
		return 0;
	capture_conv_kvm_exit(&k, r->t0, &e);
	e.flags = PWZ_EXIT_UNPAIRED;	/* model.h R5: no entry seen */
	return write_exit(r, &e);
}

/* Checks the capabilities BPF tracing needs; false with a message when they are missing. */
static bool has_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	uint64_t eff;

	if (geteuid() == 0)
		return true;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return false;
	eff = d[0].effective | ((uint64_t)d[1].effective << 32);
	/* CAP_SYS_ADMIN (21), or CAP_BPF (39) with CAP_PERFMON (38) */
	return (eff & (1ull << 21)) || ((eff & (1ull << 39)) && (eff & (1ull << 38)));
}

/* Makes sure tracefs is there (mounting it when missing). */
static int check_tracefs(void)
{
	if (!access(TRACEFS "/events", F_OK))
		return 0;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL)) {
		die_msg("tracefs is not mounted and mounting it failed: %s (run: mount -t tracefs tracefs %s)",
			strerror(errno), TRACEFS);
		return -1;
	}
	die_msg("mounted tracefs at %s", TRACEFS);
	return 0;
}

/* Checks that dir exists and takes files. */
static int check_dest(const char *dir)
{
	char probe[PATH_MAX];
	struct stat st;
	int fd;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		die_msg("destination folder '%s' does not exist (create it or pick another with --dest-folder)",
			dir);
		return -1;
	}
	snprintf(probe, sizeof(probe), "%s/.pwz-bpf-probe-XXXXXX", dir);
	fd = mkstemp(probe);
	if (fd < 0) {
		die_msg("cannot write to destination folder '%s': %s (pick another with --dest-folder)",
			dir, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(probe);
	return 0;
}

static char *join_argv(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = p = malloc(len);
	if (!s)
		return NULL;
	*p = '\0';
	for (int i = 0; i < argc; i++)
		p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
	return s;
}

/* Builds the -p / -t selection. Returns 0 or -1 with a message. */
static int build_selection(struct run *r)
{
	const struct capture_opts *o = &r->o;
	char names[512];

	r->filter = o->nr_pids || o->nr_tasks;
	if (!r->filter)
		return 0;
	r->sel_tgids = calloc(o->nr_pids + 1, sizeof(uint32_t));
	r->sel_tids = calloc(o->nr_pids + PWZ_SEL_TIDS_MAX, sizeof(uint32_t));
	if (!r->sel_tgids || !r->sel_tids)
		return -1;
	for (size_t i = 0; i < o->nr_pids; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%u", o->pids[i]);
		if (access(path, F_OK)) {
			die_msg("-p %u: no such process (check the id with ps)", o->pids[i]);
			return -1;
		}
		r->sel_tgids[r->nr_sel_tgids++] = o->pids[i];
		r->sel_tids[r->nr_sel_tids++] = o->pids[i];	/* a tid given as -p works too */
	}
	for (size_t i = 0; i < o->nr_tasks; i++) {
		size_t room = PWZ_SEL_TIDS_MAX - (r->nr_sel_tids - o->nr_pids);
		size_t n = task_table__match(r->tt, o->tasks[i], r->sel_tids + r->nr_sel_tids, room,
					     names, sizeof(names));

		if (!n) {
			die_msg("-t '%s' matches no thread (some names: %s)", o->tasks[i], names);
			return -1;
		}
		r->nr_sel_tids += n;
	}
	return 0;
}

/* Forks the command, held until released (so that its whole life is captured). */
struct child {
	pid_t pid;
	int go_fd;		/* write end: one byte releases the child */
	int err_fd;		/* read end: the child's exec errno, or EOF on success */
};

static int child_spawn(struct child *c, char **argv)
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		char b;
		int e;

		close(go[1]);
		close(er[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	c->go_fd = go[1];
	c->err_fd = er[0];
	return 0;
}

/* Releases the child; returns 0 once it exec'd, or the exec errno (negative). */
static int child_release(struct child *c)
{
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, "g", 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	n = read(c->err_fd, &e, sizeof(e));
	close(c->err_fd);
	c->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

/* Writes <run>.stats, the summary of t (its aggregates), through a .part file. Returns 0 or -1
 * (message printed). */
static int write_stats(struct run *r, const struct trace *t)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], err[512];
	struct summary *s;
	FILE *f;
	int e;

	if (capture_opts_out_path(&r->o, ".stats", path, sizeof(path)))
		return -ENAMETOOLONG;
	s = summary__new(t, NULL, err, sizeof(err));
	if (!s) {
		die_msg("%s", err);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.part", path);
	f = fopen(tmp, "w");
	if (!f) {
		die_msg("cannot write %s: %s", tmp, strerror(errno));
		summary__free(s);
		return -1;
	}
	e = report_write_stats(f, s, &t->meta);
	summary__free(s);
	if (fclose(f) || e || rename(tmp, path)) {
		die_msg("cannot write %s: %s", path, strerror(e ? -e : errno));
		unlink(tmp);
		return -1;
	}
	fprintf(stderr, "pwz-bpf: stats in %s\n", path);
	return 0;
}

static int use_perf_data(struct run *r, char *cmdline)
{
	struct perfdata_import_opts po = {
		.map = r->map, .cmdline = cmdline, .legacy = r->o.legacy,
	};
	struct perfdata_import_stats st;
	char out[PATH_MAX], err[512];
	int e;

	if (capture_opts_out_path(&r->o, ".cdict", out, sizeof(out))) {
		die_msg("output path too long");
		return 1;
	}
	memset(&st, 0, sizeof(st));
	e = perfdata_import(r->o.perf_data, out, &po, &st, err, sizeof(err));
	if (e) {
		die_msg("%s", err);
		return 1;
	}
	fprintf(stderr, "pwz-bpf: %s: %llu samples, %llu slices, %llu tasks, %llu lost -> %s\n",
		r->o.perf_data, (unsigned long long)st.samples, (unsigned long long)st.slices,
		(unsigned long long)st.tasks, (unsigned long long)st.lost, out);
	if (capture_opts_want_stats(&r->o)) {
		/* the report is made from the imported file's aggregates, as for a live capture */
		struct trace *t = trace__load(out, NULL, err, sizeof(err));

		if (!t) {
			die_msg("%s", err);
			return 1;
		}
		e = write_stats(r, t);
		trace__free(t);
		if (e)
			return 1;
		if (!capture_opts_want_cdict(&r->o))
			unlink(out);
	}
	return 0;
}


int main(int argc, char **argv)
{
	struct run R = { 0 }, *r = &R;
	struct capture_cfg cfg = { 0 };
	struct capture *cap = NULL;
	struct child child = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct capture_sink sink = { r, sink_slice, sink_kvm_exit, sink_task };
	char err[512], path[PATH_MAX] = "the capture", opts_text[1024];
	/* PWZ_BTF_PATH: lets the tests check the no-BTF message */
	const char *btf = getenv("PWZ_BTF_PATH") ?: "/sys/kernel/btf/vmlinux";
	char *cmdline = join_argv(argc, argv);
	uint64_t cnt[PWZ_CNT_MAX], deadline = 0, last_flush, t_end, bpf_ns, bpf_cnt;
	bool kvm_ok, names_from_format = false, child_done = false;
	int rc = 1, e, child_status = 0;
	struct sigaction sa;
	struct rusage ru;

	if (!cmdline) {
		die_msg("out of memory");
		return 1;
	}
	if (capture_opts_parse(&r->o, argc, argv, err, sizeof(err))) {
		die_msg("%s", err);
		rc = 2;
		goto out;
	}
	verbose = r->o.verbose;
	libbpf_set_print(libbpf_print);
	if (r->o.help || r->o.version) {
		if (r->o.help)
			fputs(capture_opts_usage(), stdout);
		else
			printf("pwz-bpf %s\n", PWZ_VERSION);
		rc = 0;
		goto out;
	}
	if (check_dest(r->o.dest_folder))
		goto out;
	if (r->o.map_path) {
		r->map = task_map__load(r->o.map_path, err, sizeof(err));
		if (!r->map) {
			die_msg("--map: %s", err);
			goto out;
		}
	}
	if (r->o.perf_data) {
		rc = use_perf_data(r, cmdline);
		goto out;
	}
	if (!has_caps()) {
		die_msg("needs root, or CAP_BPF and CAP_PERFMON (run with sudo)");
		goto out;
	}
	if (access(btf, R_OK)) {
		die_msg("the kernel has no BTF (%s: %s): it needs CONFIG_DEBUG_INFO_BTF=y", btf,
			strerror(errno));
		goto out;
	}
	if (check_tracefs())
		goto out;
	kvm_ok = !access(TRACEFS "/events/kvm/kvm_exit", F_OK) &&
		 !access(TRACEFS "/events/kvm/kvm_entry", F_OK);
	if (!kvm_ok && r->o.kvm_only) {
		die_msg("--kvm: the kvm tracepoints are missing (load the kvm module: modprobe kvm)");
		goto out;
	}
	if (!kvm_ok)
		die_msg("warning: no kvm tracepoints (kvm module not loaded?): capturing without KVM exits");

	r->tt = task_table__new("/proc", r->map);
	if (!r->tt) {
		die_msg("out of memory");
		goto out;
	}
	e = task_table__scan(r->tt);
	info(1, "%d threads running at the start", e);
	if (build_selection(r))
		goto out;

	cfg.sched = !r->o.kvm_only;
	cfg.wait = true;
	cfg.kvm = kvm_ok;
	cfg.streams = !r->o.no_streams;
	cfg.force_raw_tp = r->o.force_raw_tp;
	cfg.ringbuf_mb = r->o.ringbuf_mb;
	cfg.filter = r->filter;
	cfg.tids = r->sel_tids;
	cfg.nr_tids = r->nr_sel_tids;
	cfg.tgids = r->sel_tgids;
	cfg.nr_tgids = r->nr_sel_tgids;
	cap = capture__new(&cfg, err, sizeof(err));
	if (!cap) {
		die_msg("%s", err);
		goto out;
	}
	info(1, "sched_switch attached with %s", capture__attach_kind(cap));
	r->fold = capture__fold(cap);
	if (capture_opts_want_stats(&r->o) && !(r->st = trace__new("the capture", false, &r->stv))) {
		die_msg("out of memory");
		goto out;
	}
	info(1, "cpu_aggs holds %u threads (%.1f MiB of kernel memory); wait_start %u (raw_tp only), kvm_state %u",
	     capture__map_sizes(cap)->cpu_aggs, capture__map_sizes(cap)->cpu_aggs_bytes / 1048576.0,
	     capture__map_sizes(cap)->tid_entries, capture__map_sizes(cap)->kvm_state);

	/* metadata */
	r->meta.source = PWZ_SOURCE_LIVE;
	r->meta.clock_id = CLOCK_MONOTONIC;
	r->meta.has_switch_kind = cfg.sched;
	r->meta.has_wait = cfg.sched && cfg.wait;
	r->meta.has_kvm = kvm_ok;
	capture_opts_describe(&r->o, opts_text, sizeof(opts_text));
	size_t ol = strlen(opts_text);
	snprintf(opts_text + ol, sizeof(opts_text) - ol, " attach=%s", capture__attach_kind(cap));
	if (pwz_meta_set_str(&r->meta.cmdline, cmdline) ||
	    pwz_meta_set_str(&r->meta.options, opts_text) ||
	    pwz_meta_set_str(&r->meta.tool_version, PWZ_VERSION) ||
	    capture_meta_system(&r->meta, "/sys", (int)sysconf(_SC_NPROCESSORS_CONF)) ||
	    capture_meta_exit_names(&r->meta, KVM_EXIT_FORMAT, &names_from_format) < 0) {
		die_msg("out of memory");
		goto out;
	}
	if (!names_from_format)
		info(1, "exit names: built-in tables (%s unreadable)", KVM_EXIT_FORMAT);

	if (r->o.command && child_spawn(&child, r->o.command)) {
		die_msg("cannot start '%s': %s", r->o.command[0], strerror(errno));
		goto out;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	r->t0 = now_ns(CLOCK_MONOTONIC);
	r->meta.start_mono_ns = r->t0;
	r->meta.start_wall_ns = now_ns(CLOCK_REALTIME);
	if (capture_opts_want_cdict(&r->o)) {
		struct cdict_writer_opts wo = { .legacy = r->o.legacy };

		if (capture_opts_out_path(&r->o, ".cdict", path, sizeof(path))) {
			die_msg("output path too long");
			goto out;
		}
		r->w = cdict_writer__new(path, &r->meta, &wo, err, sizeof(err));
		if (!r->w) {
			die_msg("%s", err);
			goto out;
		}
	}
	if (capture__start(cap, r->t0, &sink, err, sizeof(err))) {
		die_msg("%s", err);
		goto out;
	}
	if (r->o.command) {
		e = child_release(&child);
		if (e) {
			die_msg("cannot run '%s': %s", r->o.command[0], strerror(-e));
			waitpid(child.pid, NULL, 0);
			child.pid = -1;
			goto out;
		}
	}
	if (!r->o.command || r->o.sleep_given)
		deadline = r->t0 + (uint64_t)(r->o.sleep_s * 1e9);
	info(1, "capturing%s", r->o.command ? " until the command ends" : "");

	last_flush = r->t0;
	while (!stop_signal) {
		uint64_t now;

		e = capture__poll(cap, POLL_MS);
		if (e < 0 && e != -EINTR) {
			if (r->werr)
				die_msg("cannot write %s: %s", path, strerror(-r->werr));
			else
				die_msg("reading the ring buffer failed: %s", strerror(-e));
			goto out;
		}
		if (child.pid > 0 && waitpid(child.pid, &child_status, WNOHANG) == child.pid) {
			child_done = true;
			child.pid = -1;
			break;
		}
		now = now_ns(CLOCK_MONOTONIC);
		if (deadline && now >= deadline)
			break;
		/* a long capture keeps only the live threads (their namings stay in the file) */
		e = task_table__forget_gone(r->tt, write_gone_task, r);
		if (e < 0) {
			if (r->werr)
				die_msg("cannot write %s: %s", path, strerror(-r->werr));
			else
				die_msg("the task table: %s", strerror(-e));
			goto out;
		}
		if (r->w && now - last_flush >= FLUSH_NS) {
			if (wr(r, cdict_writer__flush(r->w))) {
				die_msg("cannot write %s: %s", path, strerror(-r->werr));
				goto out;
			}
			last_flush = now;
		}
	}
	if (stop_signal)
		info(1, "stopping on signal %d", (int)stop_signal);
	/* the end is when the programs are detached: every CPU's slices tile [t0, t_end] (R1) */
	e = capture__stop(cap, &t_end);
	if (e < 0 && r->werr) {
		die_msg("cannot write %s: %s", path, strerror(-r->werr));
		goto out;
	}
	if (child.pid > 0) {
		kill(child.pid, stop_signal ? stop_signal : SIGTERM);
		if (waitpid(child.pid, &child_status, 0) == child.pid)
			child_done = true;
		child.pid = -1;
	}

	/* the end: open slices, pending exits, the kernel's aggregates, then the fold's */
	{
		struct open_ctx oc = { r, t_end };
		struct cdict_visitor out = { .ctx = r, .cpu_agg = out_cpu_agg,
					     .kvm_agg = out_kvm_agg, .wait_agg = out_wait_agg };

		e = capture__fold_kernel_aggs(cap);
		if (e) {
			die_msg("cannot read the kernel aggregates: %s", strerror(-e));
			goto out;
		}
		if (capture__open_slices(cap, open_slice, &oc) ||
		    capture__pending_exits(cap, pending_exit, r) ||
		    model_fold__emit(r->fold, &out)) {
			die_msg("cannot write %s: %s", path,
				strerror(r->werr ? -r->werr : ENOMEM));
			goto out;
		}
	}
	capture__counters(cap, cnt);
	pwz_meta_add_drop(&r->meta, "slice", cnt[CNT_DROP_SLICE]);
	pwz_meta_add_drop(&r->meta, "kvm_exit", cnt[CNT_DROP_KVM_EXIT]);
	pwz_meta_add_drop(&r->meta, "task", cnt[CNT_DROP_TASK]);
	pwz_meta_add_drop(&r->meta, "map_full", cnt[CNT_MAP_FULL]);
	/* switch-outs whose switch-in the kernel never reported are no drop: their slices are in
	 * the file, flagged, and counted per thread (model.h R2) */
	r->meta.duration_ns = t_end - r->t0;
	if (!getrusage(RUSAGE_SELF, &ru))
		r->meta.tracer_cpu_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull +
					(uint64_t)ru.ru_utime.tv_usec * 1000ull +
					(uint64_t)ru.ru_stime.tv_sec * 1000000000ull +
					(uint64_t)ru.ru_stime.tv_usec * 1000ull;
	capture__prog_stats(cap, &bpf_ns, &bpf_cnt);
	r->meta.bpf_run_ns = bpf_ns;
	r->meta.bpf_run_cnt = bpf_cnt;

	if (r->w) {
		if (cdict_writer__finish(r->w, &r->meta, err, sizeof(err))) {
			die_msg("%s", err);
			goto out;
		}
	}
	if (r->st) {
		if (pwz_meta_copy(&r->st->meta, &r->meta)) {
			die_msg("out of memory");
			goto out;
		}
		trace__settle(r->st);
		if (write_stats(r, r->st))
			goto out;
	}

	fprintf(stderr, "pwz-bpf: %.3f s, %llu switches, %llu slices, %llu waits, %llu KVM exits",
		r->meta.duration_ns / 1e9, (unsigned long long)cnt[CNT_SWITCHES],
		(unsigned long long)r->slices, (unsigned long long)r->waits,
		(unsigned long long)r->exits);
	if (cnt[CNT_UNPAIRED])
		fprintf(stderr, ", %llu switch-ins unseen",
			(unsigned long long)cnt[CNT_UNPAIRED]);
	fprintf(stderr, ", dropped: %llu slice, %llu kvm_exit, %llu task, %llu map_full\n",
		(unsigned long long)cnt[CNT_DROP_SLICE],
		(unsigned long long)cnt[CNT_DROP_KVM_EXIT], (unsigned long long)cnt[CNT_DROP_TASK],
		(unsigned long long)cnt[CNT_MAP_FULL]);
	info(1, "task table: %zu threads at the end, %zu exited threads forgotten on the way",
	     task_table__count(r->tt), task_table__forgotten(r->tt));
	if (r->w)
		fprintf(stderr, "pwz-bpf: wrote %s (%llu bytes)\n", path,
			(unsigned long long)cdict_writer__bytes(r->w));
	if (child_done && WIFEXITED(child_status) && WEXITSTATUS(child_status))
		fprintf(stderr, "pwz-bpf: the command exited with status %d\n",
			WEXITSTATUS(child_status));
	else if (child_done && WIFSIGNALED(child_status))
		fprintf(stderr, "pwz-bpf: the command was killed by signal %d\n",
			WTERMSIG(child_status));
	rc = 0;
out:
	if (child.pid > 0) {
		kill(child.pid, SIGKILL);
		waitpid(child.pid, NULL, 0);
	}
	cdict_writer__free(r->w);	/* an unfinished writer removes its partial file */
	capture__free(cap);
	task_table__free(r->tt);
	task_map__free(r->map);
	pwz_meta_free(&r->meta);
	trace__free(r->st);
	free(r->sel_tids);
	free(r->sel_tgids);
	free(cmdline);
	return rc;
}
