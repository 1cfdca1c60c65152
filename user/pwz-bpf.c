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
#include "flight.h"
#include "fmt.h"
#include "irq.h"
#include "live.h"
#include "cdict.h"
#include "model.h"
#include "outfile.h"
#include "perfdata.h"
#include "trace.h"
#include "records.h"
#include "report.h"
#include "serve.h"
#include "serve_metrics.h"
#include "vms.h"
#include "summary.h"
#include "tasknames.h"
#include "termsafe.h"
#include "visit.h"

#ifndef PWZ_VERSION
#define PWZ_VERSION "0.0.0"
#endif

#define TRACEFS "/sys/kernel/tracing"
#define KVM_EXIT_FORMAT TRACEFS "/events/kvm/kvm_exit/format"
#define POLL_MS 100
#define FLUSH_NS 1000000000ull
#define PROGRESS_NS 500000000ull	/* the progress line's period */
#define SEL_MAX_TASK_TIDS 16384		/* threads that -t patterns may select */
/* An open-file soft limit below this is raised to the hard limit: libbpf holds one descriptor
 * per map, program, link and ring buffer (about 40 for pwz's programs). */
#define NOFILE_LOW 1024

static int verbose;
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t usr1_signal;	/* a SIGUSR1 not yet taken (--flight: a dump) */
static bool line_shown;		/* a status or progress line is on the terminal, unended */
static uint64_t phase_start, phase_last;	/* CLOCK_MONOTONIC ns: main()'s start, the last phase */

/* One line on stderr, "pwz-bpf: " first. Messages quote thread names, event names from
 * perf.data files and paths: the whole line goes through termsafe(). A failed write (a closed
 * pipe) is ignored: SIGPIPE is, and messages are a report, not the product. */
static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	char line[4096], safe[4 * sizeof(line)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (line_shown)
		fputs("\r\033[K", stderr);	/* the status or progress line gives way */
	line_shown = false;
	fprintf(stderr, "pwz-bpf: %s\n", termsafe_str(safe, sizeof(safe), line));
}

#define info(lvl, ...) do { if (verbose >= (lvl)) msg(__VA_ARGS__); } while (0)

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (verbose < 2 || (level == LIBBPF_DEBUG && verbose < 3))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static uint64_t now_ns(clockid_t clk);

/* -vv: how long the phase just ended took, and when it ended (from main()'s start). */
static void phase(const char *what)
{
	uint64_t t = now_ns(CLOCK_MONOTONIC);
	char d[2][FMT_DURATION_MAX];

	if (verbose >= 2)
		msg("time: %s %s (at %s)", what, fmt_duration(d[0], sizeof(d[0]), t - phase_last),
		    fmt_duration(d[1], sizeof(d[1]), t - phase_start));
	phase_last = t;
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_usr1(int sig)
{
	(void)sig;
	usr1_signal = 1;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The command after "--", forked and held until released (so that its whole life is captured). */
struct child {
	pid_t pid;		/* -1 when none or reaped */
	int go_fd;		/* write end: one byte releases the child */
	int err_fd;		/* read end: the child's exec errno, or EOF on success */
};

/* Everything one capture run holds. */
struct run {
	struct capture_opts o;
	char *cmdline;			/* pwz-bpf's own command line, for the metadata */
	struct rlimit nofile;		/* the open-file limit at start, given back to the command */
	bool kvm_ok;			/* the kvm tracepoints exist */
	struct capture_cfg cfg;
	struct capture *cap;		/* the BPF programs */
	struct child child;
	bool child_done;		/* the command ended and was reaped */
	bool child_stopped;		/* pwz-bpf ended it (the -s deadline, a signal) */
	int child_status;		/* its wait status */
	char path[PATH_MAX];		/* the cdict: the name asked for, once finished the one written */
	struct cdict_writer *w;		/* NULL with --stats only */
	struct task_table *tt;		/* every thread seen, its names */
	struct task_map *map;		/* --map, or NULL */
	struct pwz_meta meta;		/* the META record; the END record at the end */
	uint64_t t0;			/* CLOCK_MONOTONIC capture start */
	uint64_t t_attached;		/* CLOCK_MONOTONIC when the programs were all attached */
	uint64_t t_end;			/* CLOCK_MONOTONIC capture end */
	uint64_t cnt[PWZ_CNT_MAX];	/* the kernel's counters, read at the end */
	int werr;			/* first writer error */
	bool filter;			/* -p or -t given */
	bool progress;			/* a progress line: stderr is a terminal, no -q */
	uint32_t *sel_tids, *sel_tgids;	/* the selection handed to the kernel */
	size_t nr_sel_tids, nr_sel_tgids;
	struct task_patterns *patterns;	/* the -t patterns, compiled (tasknames.h); NULL none */
	size_t followed;		/* threads selected during the capture by -t */
	size_t inherited;		/* threads started during the capture by selected ones
					 * (the kernel selects them: task_newtask) */
	int follow_err;			/* the first failure to select one (-E2BIG: full) */
	struct model_fold *fold;	/* the capture's one fold (capture__fold()) */
	struct trace *st;		/* with --stats: the tasks and aggregates written */
	struct cdict_visitor stv;	/* fills st */
	struct capture_cpu_stat stat0;	/* /proc/stat at the start, for the steal time */
	struct flight *fl;		/* --flight: the records kept (user/flight.h) */
	struct visit_tee tee;		/* the file, with --stats's report beside it */
	struct visit_gate gate;		/* the records' way out, each after its thread's task
					 * record: to the flight recorder, or to the tee; it
					 * counts them for the summary line */
	struct cdict_visitor out;	/* the gate */
};

static int wr(struct run *r, int e)
{
	if (e && !r->werr)
		r->werr = e;
	return e;
}

/* Writes a task record where the records go (and keeps it for the --stats report). */
static int write_task(struct run *r, const struct pwz_task *task)
{
	const struct cdict_visitor *to = &r->gate.next;

	return to->task ? wr(r, to->task(to->ctx, task)) : 0;
}

static bool selected(const struct run *r, uint32_t tid);

/* The naming of a thread that exited before any record named it: written before the task
 * table forgets it (task_table__forget_gone()), when it is one of the selected threads. */
static int write_gone_task(void *ctx, const struct pwz_task *t)
{
	struct run *r = ctx;

	if (!selected(r, t->tid))
		return 0;
	return write_task(r, t);
}

/* A long capture keeps only the live threads (their namings stay in the file): swept after
 * each record that may add to the table (one poll may drain thousands of births), not after
 * each record. Returns 0 or a negative errno (a writer's, kept in r->werr). */
static int forget_gone(struct run *r)
{
	int e = task_table__forget_gone(r->tt, write_gone_task, r);

	return e < 0 ? wr(r, e) : 0;
}

/* Writes tid's task record before the first record naming it (the gate's name()). */
static int ensure_task(void *ctx, uint32_t tid, uint64_t t)
{
	struct run *r = ctx;
	struct pwz_task task;
	int e = task_table__touch(r->tt, tid, t, &task);

	if (e <= 0)
		return e < 0 ? wr(r, e) : 0;
	/* a naming written: tid may be new to the table */
	e = write_task(r, &task);
	return e ? e : forget_gone(r);
}

/*
 * Where the records go: through the gate (r->out, the task record first) to the flight
 * recorder, or to the file and the --stats report beside it (its tasks and aggregates: the
 * report's figures are the file's). Set before the first record, once r->w is open when a
 * file is wanted.
 */
static void route_records(struct run *r)
{
	struct cdict_visitor report = r->stv;

	report.slice = NULL;
	report.wakeup = NULL;
	report.kvm_exit = NULL;
	r->tee = (struct visit_tee){ .a = r->st ? report : (struct cdict_visitor){ 0 } };
	if (r->w)
		r->tee.b = cdict_writer__visitor(r->w);
	r->gate = (struct visit_gate){
		.next = r->fl ? flight__visitor(r->fl) : visit_tee__visitor(&r->tee),
		.name = ensure_task, .name_ctx = r, .err = &r->werr,
	};
}

/* -t: a thread created or renamed during the capture whose name now matches joins the
 * selection: from its slice running now when it named itself (the kernel stamped its
 * switch-ins since: capture__named_decided()), else from its next event on. */
static void follow_task(struct run *r, uint32_t tid, const char *comm)
{
	char name[PWZ_NAME_MAX];
	int e;

	if (selected(r, tid))
		return;
	if (!task_table__display_name(r->tt, tid, name, sizeof(name)))
		snprintf(name, sizeof(name), "%s", comm);
	if (!task_patterns_match(r->patterns, comm, tid) && !task_patterns_match(r->patterns, name, tid))
		return;
	e = capture__select_tid(r->cap, tid);
	if (e) {
		r->follow_err = e;
		return;
	}
	r->followed++;
	info(1, "following thread %u '%s' (it matches -t)", tid, name);
}

/* --serve: process tgid's cgroup read now, at its fork and its exec (a process that ends
 * between two scrapes is gone from /proc by the scrape that counts it). */
static void note_cgroup(struct run *r, uint32_t tgid)
{
	if (r->o.serve)
		task_table__cgroup(r->tt, tgid);
}

static int sink_task(void *ctx, const struct capture_task_event *k)
{
	struct run *r = ctx;
	struct pwz_task task;
	int named, e;

	named = task_table__event(r->tt, k->tid, k->tgid, k->comm, k->is_new, k->time_ns, &task);
	if (named < 0)
		return wr(r, named);
	/* model.h R8: the records of a new thread fold into its own instance */
	if (k->is_new && (e = model_fold__born(capture__fold(r->cap), k->tid, k->time_ns)))
		return wr(r, e);
	if (k->is_new && r->filter && selected(r, k->tid))
		r->inherited++;
	if (r->o.nr_tasks) {
		follow_task(r, k->tid, k->comm);
		capture__named_decided(r->cap, k->tid);
	}
	if (k->is_new && k->tid == k->tgid)
		note_cgroup(r, k->tgid);
	if (named > 0 && (e = write_task(r, &task)))
		return e;
	return forget_gone(r);
}

static int sink_exec(void *ctx, const struct capture_exec_event *x)
{
	struct run *r = ctx;
	struct pwz_task task;
	int named = task_table__exec(r->tt, x->tgid, x->args, x->len, x->cut, x->time_ns, &task);

	if (named < 0)
		return wr(r, named);
	if (r->o.nr_tasks)	/* the exec's rename came first: follow_task() had it */
		capture__named_decided(r->cap, x->tgid);
	note_cgroup(r, x->tgid);	/* a spawner moves its child between its fork and exec */
	return named > 0 ? write_task(r, &task) : 0;
}

/* The kernel's --irq keys and the records agree (bpf/pwz.h, user/lib/records.h). */
_Static_assert(PWZ_IRQ_HARD == PWZ_IRQ_KIND_HARD && PWZ_IRQ_SOFT == PWZ_IRQ_KIND_SOFT,
	       "IRQ kinds differ between bpf/pwz.h and records.h");
_Static_assert(PWZ_IRQ_TID_OTHER == PWZ_IRQ_OTHER_TID, "the unselected threads' tid differs");
_Static_assert(PWZ_IRQ_NAME_LEN == PWZ_IRQ_NAME_MAX, "IRQ name lengths differ");

/* One --irq row of the kernel (bpf/pwz.h irq_agg_*) as an IRQ_AGG record, after its task. */
static int out_irq_agg(void *ctx, uint32_t cpu, const struct irq_agg_key *k,
		       const struct irq_agg_val *v, const char *name)
{
	struct run *r = ctx;
	struct pwz_irq_agg a = {
		.cpu = cpu, .tid = k->tid, .kind = k->kind, .vector = k->vector,
		.count = v->count, .time_ns = v->time_ns, .max_ns = v->max_ns,
		.nested_ns = v->nested_ns,
	};
	const char *n = name ? name : pwz_softirq_name(k->vector);

	if (n)
		snprintf(a.name, sizeof(a.name), "%s", n);
	/* model.h R8: the kernel keys by tid; a recycled tid's part goes to its last instance,
	 * as for the other kernel aggregates */
	if (k->tid != PWZ_IRQ_OTHER_TID)
		a.since_ns = model_fold__instance(r->fold, k->tid, UINT64_MAX);
	return r->out.irq_agg(r->out.ctx, &a);
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
	/* selected during the capture: named to match, or inherited in the kernel */
	return r->cap && capture__selected(r->cap, tid, tgid);
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
	if (r->o.no_streams)	/* named still: its aggregates are written */
		return ensure_task(r, s.tid, s.start_ns);
	if (waited && r->out.wakeup(r->out.ctx, &w))
		return r->werr;
	return r->out.slice(r->out.ctx, &s);
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
	return r->out.kvm_exit(r->out.ctx, &e);
}

/* R10: a vCPU's ledger, of the instance its tid has at the end. */
static int out_ledger(void *ctx, const struct pwz_vcpu_ledger *l)
{
	struct run *r = ctx;
	struct pwz_vcpu_ledger x = *l;

	x.since_ns = model_fold__instance(r->fold, l->tid, UINT64_MAX);
	return r->out.vcpu_ledger ? r->out.vcpu_ledger(r->out.ctx, &x) : 0;
}

/* Whether this process has the capabilities BPF tracing needs (the caller says what is missing). */
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

/* Makes sure tracefs is there (mounting it when missing). Returns 0 or -1 with a message. */
static int check_tracefs(void)
{
	if (!access(TRACEFS "/events", F_OK))
		return 0;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL)) {
		msg("tracefs is not mounted and mounting it failed: %s (run: mount -t tracefs tracefs %s)",
		    strerror(errno), TRACEFS);
		return -1;
	}
	msg("mounted tracefs at %s", TRACEFS);
	return 0;
}

/* Opens dir, made when missing with the folder mode of mode (outfile_dir_open(), the rule of
 * every output folder), and checks that it takes files. Returns 0 or -1 with a message. */
static int check_dest(const char *dir, mode_t mode)
{
	char probe[PATH_MAX], err[PATH_MAX + 256];
	int fd = outfile_dir_open(AT_FDCWD, dir, mode, 0, err, sizeof(err));

	if (fd < 0) {
		msg("destination folder %s (pick another with --dest-folder)", err);
		return -1;
	}
	close(fd);
	snprintf(probe, sizeof(probe), "%s/.pwz-bpf-probe-XXXXXX", dir);
	fd = mkstemp(probe);	/* O_EXCL: a name of its own, removed at once */
	if (fd < 0) {
		msg("cannot write to destination folder '%s': %s (pick another with --dest-folder)",
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
	char names[512], err[512];

	r->filter = o->nr_pids || o->nr_tasks;
	if (!r->filter)
		return 0;
	r->sel_tgids = calloc(o->nr_pids + 1, sizeof(uint32_t));
	r->sel_tids = calloc(o->nr_pids + SEL_MAX_TASK_TIDS, sizeof(uint32_t));
	if (!r->sel_tgids || !r->sel_tids) {
		msg("out of memory");
		return -1;
	}
	for (size_t i = 0; i < o->nr_pids; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%u", o->pids[i]);
		if (access(path, F_OK)) {
			msg("-p %u: no such process (check the id with ps)", o->pids[i]);
			return -1;
		}
		r->sel_tgids[r->nr_sel_tgids++] = o->pids[i];
		r->sel_tids[r->nr_sel_tids++] = o->pids[i];	/* a tid given as -p works too */
	}
	if (o->nr_tasks && !(r->patterns = task_patterns__new(o->tasks, o->nr_tasks, err,
							      sizeof(err)))) {
		msg("%s", err);
		return -1;
	}
	for (size_t i = 0; i < o->nr_tasks; i++) {
		size_t room = SEL_MAX_TASK_TIDS - (r->nr_sel_tids - o->nr_pids);
		struct task_patterns *one = task_patterns__new(&o->tasks[i], 1, err, sizeof(err));
		size_t n;

		if (!one) {
			msg("%s", err);
			return -1;
		}
		n = task_table__match(r->tt, one, r->sel_tids + r->nr_sel_tids, room, names,
				      sizeof(names));
		task_patterns__free(one);
		/* armed anyway: threads named to match later are followed (follow_task()) */
		if (!n)
			msg("-t '%s' matches no thread yet: waiting for one (some names now: %s)",
			    o->tasks[i], names);
		r->nr_sel_tids += n;
	}
	return 0;
}

static int child_spawn(struct child *c, char **argv, const struct rlimit *nofile)
{
	int go[2], er[2], e;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(er, O_CLOEXEC)) {
		e = -errno;
		goto close_go;
	}
	c->pid = fork();
	if (c->pid < 0) {
		e = -errno;
		goto close_er;
	}
	if (c->pid == 0) {
		char b;

		close(go[1]);
		close(er[0]);
		/* pwz-bpf's handlers are not the command's (they would also break the wait) */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGUSR1, SIG_DFL);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		/* the command runs with the limit it was given, not the one raised for libbpf */
		setrlimit(RLIMIT_NOFILE, nofile);
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
close_er:
	close(er[0]);
	close(er[1]);
close_go:
	close(go[0]);
	close(go[1]);
	return e;
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

/* Says that asked was kept when the file went to another name, written (outfile.h). */
static void note_kept(const char *asked, const char *written)
{
	if (strcmp(asked, written))
		msg("%s is already there: kept (--force replaces it)", asked);
}

/* Writes the report of t (its summary, user/lib/report.h) at path, through a temporary of its
 * own (outfile.h; a file at path is kept unless --force). Returns 0 or -1 with a message. */
static int write_stats_to(const struct run *r, const char *path, const struct trace *t)
{
	struct outfile_opts oo = { .mode = r->o.mode, .exists = capture_opts_exists(&r->o) };
	struct summary *s;
	struct outfile of;
	char err[512];
	FILE *f;
	int e;

	s = summary__new(t, NULL, err, sizeof(err));
	if (!s) {
		msg("%s", err);
		return -1;
	}
	e = outfile_open(&of, path, &oo);
	if (e) {
		msg("cannot create a temporary file for %s: %s", path, strerror(-e));
		summary__free(s);
		return -1;
	}
	f = outfile_stream(&of);
	if (!f) {
		e = -errno;
	} else {
		struct vms *v = vms__new(t, s, err, sizeof(err));

		e = report_write_stats(f, s, &t->meta);
		if (!e)
			e = v ? report_write_vms(f, s, &t->meta, v) : -ENOMEM;
		if (!e)
			e = report_write_irq(f, t, 0);
		vms__free(v);
		if (fclose(f) && !e)
			e = errno ? -errno : -EIO;
	}
	summary__free(s);
	if (!e)
		e = outfile_commit(&of);
	if (e) {
		msg("cannot write %s: %s", path, strerror(-e));
	} else {
		note_kept(path, of.path);
		msg("stats in %s", of.path);
	}
	outfile_close(&of);
	return e ? -1 : 0;
}

/* Writes the stats of t: <run>.stats, or, beside the cdict written at cdict (numbered when a
 * file was kept), the same name with .stats. Returns 0 or -1 with a message. */
static int write_stats(struct run *r, const struct trace *t, const char *cdict)
{
	size_t n = cdict ? strlen(cdict) : 0;
	char path[PATH_MAX];
	int e;

	if (n > 6 && !strcmp(cdict + n - 6, ".cdict"))
		e = snprintf(path, sizeof(path), "%.*s.stats", (int)(n - 6), cdict) >= (int)sizeof(path);
	else
		e = capture_opts_out_path(&r->o, ".stats", path, sizeof(path));
	if (e) {
		msg("output path too long: %s/%s.stats", r->o.dest_folder, r->o.run_name);
		return -1;
	}
	return write_stats_to(r, path, t);
}

/* The stats of an imported file out, made from its aggregates as for a live capture; named after
 * out when it is kept (keep). Returns 0 or 1 with a message. */
static int perf_data_stats(struct run *r, const char *out, bool keep)
{
	/* the streams too: the VM section's migrations, exit split and percentiles */
	struct trace_load_opts lo = { .streams = true };
	char err[512];
	struct trace *t = trace__load(out, &lo, err, sizeof(err));
	int e;

	if (!t) {
		msg("%s", err);
		return 1;
	}
	e = write_stats(r, t, keep ? out : NULL);
	trace__free(t);
	return e ? 1 : 0;
}

/* --use-perf-data: imports into <run>.cdict; with --stats alone, into a private folder of its
 * own (removed after), so that no <run>.cdict is replaced and nothing but what was created is
 * removed. Returns the exit status. */
static int use_perf_data(struct run *r, char *cmdline)
{
	struct perfdata_import_opts po = {
		.map = r->map, .cmdline = cmdline, .legacy = r->o.legacy, .mode = r->o.mode,
		.exists = capture_opts_exists(&r->o),
	};
	bool keep = capture_opts_want_cdict(&r->o);
	struct perfdata_import_stats st;
	char out[PATH_MAX], tmpdir[PATH_MAX] = "", err[512];
	int e, rc;

	if (keep) {
		e = capture_opts_out_path(&r->o, ".cdict", out, sizeof(out));
	} else {
		e = capture_opts_out_path(&r->o, "", out, sizeof(out));
		if (!e && snprintf(tmpdir, sizeof(tmpdir), "%s.pwz-import-XXXXXX", out) >= (int)sizeof(tmpdir))
			e = -ENAMETOOLONG;
		if (!e && !mkdtemp(tmpdir)) {
			msg("cannot create a temporary folder in %s: %s", r->o.dest_folder,
			    strerror(errno));
			return 1;
		}
		if (!e && snprintf(out, sizeof(out), "%s/import.cdict", tmpdir) >= (int)sizeof(out))
			e = -ENAMETOOLONG;
	}
	if (e) {
		msg("output path too long: %s/%s", r->o.dest_folder, r->o.run_name);
		rc = 1;
		goto out;
	}
	memset(&st, 0, sizeof(st));
	e = perfdata_import(r->o.perf_data, out, &po, &st, err, sizeof(err));
	if (e) {
		msg("%s", err);
		rc = 1;
		goto out;
	}
	if (keep)
		note_kept(out, st.path);
	msg("%s: %llu samples, %llu slices, %llu tasks, %llu lost%s%s", r->o.perf_data,
	    (unsigned long long)st.samples, (unsigned long long)st.slices,
	    (unsigned long long)st.tasks, (unsigned long long)st.lost, keep ? " -> " : "",
	    keep ? st.path : "");
	/* the report is made from the imported file's aggregates, as for a live capture */
	rc = capture_opts_want_stats(&r->o) ? perf_data_stats(r, st.path, keep) : 0;
out:
	if (tmpdir[0]) {
		unlink(out);	/* in a folder this run created (0700): nobody else's file */
		rmdir(tmpdir);
	}
	return rc;
}

/* --remap: a capture copied record by record, in file order, with the task names of --map. */
struct remap {
	const char *path;		/* the capture, rewritten in place */
	const struct task_map *map;
	struct cdict_writer_opts wo;
	const struct cdict_read_info *info;	/* the reader's: the file's format is known first */
	struct cdict_writer *w;		/* made at the metadata, the first thing read */
	struct visit_tee tee;		/* what is read: a the metadata and the tasks (renamed, into
					 * w), b every other record into w (set with w) */
	struct pwz_meta meta;		/* its copy, for the END record */
	size_t renamed;			/* task records given a map name */
	char err[512];
};

static int remap_meta(void *ctx, const struct pwz_meta *m)
{
	struct remap *x = ctx;

	if (x->w)
		return -EINVAL;
	if (pwz_meta_copy(&x->meta, m))
		return -ENOMEM;
	x->wo.legacy = x->info->format == CDICT_FORMAT_LEGACY;
	x->w = cdict_writer__new(x->path, m, &x->wo, x->err, sizeof(x->err));
	if (!x->w)
		return errno ? -errno : -EIO;
	x->tee.b = cdict_writer__visitor(x->w);
	x->tee.b.task = NULL;	/* remap_task() writes them */
	return 0;
}

static int remap_task(void *ctx, const struct pwz_task *t)
{
	struct remap *x = ctx;
	const char *name = task_map__name(x->map, t->tid);
	struct pwz_task c = *t;

	if (name) {
		snprintf(c.name, sizeof(c.name), "%s", name);
		x->renamed++;
	}
	return cdict_writer__task(x->w, &c);
}


/* --remap FILE --map CSV: FILE's tasks renamed, written through a temporary of its own in
 * FILE's folder (outfile.h) and renamed over FILE, in FILE's format and mode (--mode: that
 * one). A cut file is refused. Returns the exit status. */
static int remap_capture(struct run *r)
{
	struct remap x = { .map = r->map };
	struct cdict_visitor v;
	struct cdict_read_info info = { 0 };
	char *path = cdict_resolve_path(r->o.remap), err[512];
	struct stat st;
	int e, rc = 1;

	if (!path || stat(path, &st)) {
		msg("--remap %s: no such file (nor %s.cdict)", r->o.remap, r->o.remap);
		free(path);
		return 1;
	}
	x.path = path;
	x.wo.mode = r->o.mode ? r->o.mode : (st.st_mode & 0777);
	x.wo.exists = OUTFILE_REPLACE;	/* the point of --remap: FILE itself, rewritten */
	x.info = &info;
	x.tee.a = (struct cdict_visitor){ .ctx = &x, .meta = remap_meta, .task = remap_task };
	v = visit_tee__visitor(&x.tee);
	e = cdict_read(path, &v, &info, err, sizeof(err));
	if (e && x.err[0]) {
		msg("%s", x.err);
	} else if (e > 0 || (e && !x.w)) {
		msg("%s", err);
	} else if (e) {
		msg("--remap %s: cannot write the copy: %s", path, strerror(-e));
	} else if (info.cut) {
		msg("--remap %s: the file is cut short (a killed capture): only whole captures are rewritten; read it with pwz-render --partial --map %s",
		    path, r->o.map_path);
	} else if (cdict_writer__finish(x.w, &x.meta, err, sizeof(err))) {
		msg("%s", err);
	} else {
		msg("renamed %zu of the task records of %s with %s (%zu names in the map)",
		    x.renamed, path, r->o.map_path, task_map__count(r->map));
		rc = 0;
	}
	cdict_writer__free(x.w);	/* an unfinished copy's temporary is removed */
	pwz_meta_free(&x.meta);
	free(path);
	return rc;
}

/* Ignores SIGPIPE (a closed pipe on stderr, as in `pwz-bpf ... 2>&1 | true`, must not kill a
 * capture that holds BPF programs and a half-written file: the write fails instead, and a
 * message that cannot be written is not a failed capture) and raises the soft open-file limit
 * to the hard one when it is low (libbpf holds one descriptor per map, program, link and ring
 * buffer); *saved gets the limit the command after "--" is given back. */
static void setup_process(struct rlimit *saved)
{
	struct rlimit rl;

	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		saved->rlim_cur = saved->rlim_max = RLIM_INFINITY;
		return;
	}
	*saved = rl;
	if (rl.rlim_cur >= NOFILE_LOW || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		info(1, "cannot raise the open-file limit from %llu: %s",
		     (unsigned long long)saved->rlim_cur, strerror(errno));
	else
		info(1, "open-file limit raised from %llu to %llu", (unsigned long long)saved->rlim_cur,
		     (unsigned long long)rl.rlim_cur);
}

/* Root or the capabilities, BTF, tracefs, the kvm tracepoints. Returns 0 or -1 with a message. */
static int check_env(struct run *r)
{
	/* PWZ_BTF_PATH: lets the tests check the no-BTF message */
	const char *btf = getenv("PWZ_BTF_PATH") ?: "/sys/kernel/btf/vmlinux";

	if (!has_caps()) {
		msg("needs root, or CAP_BPF and CAP_PERFMON (run with sudo)");
		return -1;
	}
	if (access(btf, R_OK)) {
		msg("the kernel has no BTF (%s: %s): pwz-bpf needs a kernel built with CONFIG_DEBUG_INFO_BTF=y (Debian 11 and later, Ubuntu 20.10 and later, RHEL 8.2 and later ship one), or record with perf and use --use-perf-data",
		    btf, strerror(errno));
		return -1;
	}
	if (check_tracefs())
		return -1;
	r->kvm_ok = !access(TRACEFS "/events/kvm/kvm_exit", F_OK) &&
		    !access(TRACEFS "/events/kvm/kvm_entry", F_OK);
	if (!r->kvm_ok && r->o.kvm_only) {
		msg("--kvm: the kvm tracepoints are missing (load the kvm module: modprobe kvm)");
		return -1;
	}
	if (!r->kvm_ok)
		msg("warning: no kvm tracepoints (kvm module not loaded?): capturing without KVM exits");
	return 0;
}

/* The metadata at the start. Returns 0 or -1 with a message. */
static int fill_meta(struct run *r)
{
	char opts_text[1024];
	bool names_from_format = false;
	size_t ol;

	r->meta.source = PWZ_SOURCE_LIVE;
	r->meta.clock_id = CLOCK_MONOTONIC;
	r->meta.has_switch_kind = r->cfg.sched;
	r->meta.has_wait = r->cfg.sched && r->cfg.wait;
	r->meta.has_prev_state = r->cfg.sched && r->cfg.streams;
	r->meta.has_waker = r->cfg.sched && r->cfg.wait && r->cfg.streams;
	r->meta.has_charged = r->cfg.sched;
	/* (a flight recorder's ring keeps a wait's start, not its charge) */
	r->meta.has_run_delay = capture__run_delay(r->cap) && !r->fl;
	r->meta.has_kvm = r->kvm_ok;
	r->meta.has_irq = r->cfg.irq;
	r->meta.has_sched_clock = capture__sched_clock(r->cap, &r->meta.sched_clock);
	r->meta.threads = r->filter || r->o.kvm_only ? PWZ_THREADS_SELECTED : PWZ_THREADS_ALL;
	capture_opts_describe(&r->o, opts_text, sizeof(opts_text));
	ol = strlen(opts_text);
	snprintf(opts_text + ol, sizeof(opts_text) - ol, " attach=%s", capture__attach_kind(r->cap));
	if (pwz_meta_set_str(&r->meta.cmdline, r->cmdline) ||
	    pwz_meta_set_str(&r->meta.options, opts_text) ||
	    pwz_meta_set_str(&r->meta.tool_version, PWZ_VERSION) ||
	    capture_meta_system(&r->meta, "/sys", (int)sysconf(_SC_NPROCESSORS_CONF)) ||
	    capture_meta_exit_names(&r->meta, KVM_EXIT_FORMAT, &names_from_format) < 0) {
		msg("out of memory");
		return -1;
	}
	if (!names_from_format)
		info(1, "exit names: built-in tables (%s unreadable)", KVM_EXIT_FORMAT);
	return 0;
}

/* The signals pwz-bpf catches (catch_signals()). */
static const int caught_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1 };
#define NR_CAUGHT (sizeof(caught_signals) / sizeof(caught_signals[0]))

/* From main()'s first instruction: SIGINT, SIGTERM and SIGHUP end the capture (stop_signal;
 * one that comes while the programs load ends it as soon as they are attached, with a whole
 * file), SIGUSR1 asks --flight for a dump (usr1_signal; elsewhere it is said and ignored). */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NR_CAUGHT; i++) {
		sa.sa_handler = caught_signals[i] == SIGUSR1 ? on_usr1 : on_signal;
		sigaction(caught_signals[i], &sa, NULL);
	}
}

/* --use-perf-data and --remap read and write files only: the signals end them as they would
 * any program (one that came already is raised again). */
static void uncatch_signals(void)
{
	for (size_t i = 0; i < NR_CAUGHT; i++)
		signal(caught_signals[i], SIG_DFL);
	if (stop_signal)
		raise(stop_signal);
}

/* The BPF verifier gives up with EAGAIN when a signal is pending (libbpf tries a program 5
 * times): while the programs load, the caught signals wait, blocked (how SIG_BLOCK), and are
 * handled once they are loaded (SIG_UNBLOCK). */
static void hold_signals(int how)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NR_CAUGHT; i++)
		sigaddset(&set, caught_signals[i]);
	sigprocmask(how, &set, NULL);
}

/* What pwz-bpf does while it starts, said from its first moment: on a terminal without -q
 * (the progress line's rule) one line that each phase rewrites and the capture's progress line
 * replaces; elsewhere a line each with -v. */
static void starting(const struct run *r, const char *what)
{
	if (!r->progress) {
		info(1, "%s", what);
		return;
	}
	fprintf(stderr, "\rpwz-bpf: %s\033[K", what);
	fflush(stderr);
	line_shown = true;
}

/* The threads running at the start, read once the programs are loaded (so that a thread born
 * while they load is named too): with -p those of the processes only, with -t alone none more
 * (the match read them all). */
static void scan_threads(struct run *r)
{
	int n;

	if (r->o.nr_tasks && !r->o.nr_pids)
		return;
	starting(r, "reading the threads in /proc");
	if (r->filter)
		n = task_table__scan_pids(r->tt, r->o.pids, r->o.nr_pids);
	else
		n = task_table__scan(r->tt);
	phase("/proc scan");
	if (n < 0)
		msg("warning: cannot read the running threads from /proc: %s (names come from the kernel's events only)",
		    strerror(-n));
	else
		info(1, "%d threads read from /proc at the start", n);
}

static int mark_vcpu(void *ctx, uint32_t tid)
{
	struct run *r = ctx;

	if (r->filter && !capture__selected(r->cap, tid, task_table__tgid(r->tt, tid)))
		return 0;
	return capture__mark_vcpu(r->cap, tid);
}

/* R10: the threads QEMU named as vCPUs, known as such from the start; what the ledger hooks. */
static void mark_vcpus(struct run *r)
{
	int e;

	if (!capture__has_ledger(r->cap))
		return;
	e = task_table__each_vcpu(r->tt, mark_vcpu, r);
	if (e)
		msg("warning: cannot mark the vCPU threads for their ledger: %s (their time before their first KVM event is unseen)",
		    strerror(-e));
	info(1, "vCPU ledger: on (exit_user %s, halt_poll %s)",
	     r->cfg.kvm_uexit ? "from kvm_userspace_exit" : "not told apart: no kvm_userspace_exit",
	     r->cfg.kvm_halt ? "from kvm_vcpu_wakeup" : "not told apart: no kvm_vcpu_wakeup");
}

/* The task table, the selection, the BPF programs loaded (not attached), the metadata.
 * Returns 0 or -1 with a message. */
static int prepare(struct run *r)
{
	char err[512];

	r->tt = task_table__new("/proc", r->map);
	if (!r->tt) {
		msg("out of memory");
		return -1;
	}
	if (r->o.nr_tasks)
		starting(r, "matching -t against the threads in /proc");
	if (build_selection(r))
		return -1;

	r->cfg = (struct capture_cfg){
		.sched = !r->o.kvm_only || r->o.live || r->o.serve, .wait = true,
		.waker = !r->o.no_waker,
		.kvm = r->kvm_ok,
		.kvm_uexit = !access(TRACEFS "/events/kvm/kvm_userspace_exit", F_OK),
		.kvm_halt = !access(TRACEFS "/events/kvm/kvm_vcpu_wakeup", F_OK),
		/* --live, --serve: the aggregates only */
		.streams = !r->o.no_streams && !r->o.live && (!r->o.serve || r->o.flight_s),
		/* --flight beside --serve: the kernel's maps whole too, for the scrapes */
		.fold_always = r->o.serve && r->o.flight_s,
		/* --live: each interval's ready time as lived in it, waits still pending included */
		.pending_waits = r->o.live,
		.prompt = r->o.flight_s > 0, .force_raw_tp = r->o.force_raw_tp,
		.ringbuf_mb = r->o.ringbuf_mb, .filter = r->filter,
		.tids = r->sel_tids, .nr_tids = r->nr_sel_tids,
		.tgids = r->sel_tgids, .nr_tgids = r->nr_sel_tgids,
		.follow_names = r->o.nr_tasks > 0, .irq = r->o.irq,
		.irq_rows = r->o.irq && !r->o.serve,	/* --serve: the ledger's irq cause */
	};
	starting(r, "loading the BPF programs (the kernel verifies them)");
	hold_signals(SIG_BLOCK);
	r->cap = capture__new(&r->cfg, err, sizeof(err));
	hold_signals(SIG_UNBLOCK);
	if (!r->cap) {
		msg("%s", err);
		return -1;
	}
	phase("BPF probe, open and load");
	scan_threads(r);
	mark_vcpus(r);
	info(1, "sched_switch attached with %s; fallbacks: %s", capture__attach_kind(r->cap),
	     capture__fallbacks(r->cap, r->kvm_ok, err, sizeof(err)));
	if (r->cfg.sched)
		info(1, "clock: %s", capture__sched_clock(r->cap, NULL) ?
		     "the run queues' (sched_clock), mapped to CLOCK_MONOTONIC per CPU" :
		     r->filter ? "CLOCK_MONOTONIC at every event (a filter's fast paths read none)" :
		     "CLOCK_MONOTONIC at every event");
	if (r->cfg.sched && r->cfg.wait && r->cfg.streams)
		info(1, "wakers: %s", r->cfg.waker ? "noted at sched_waking" :
		     "not noted (--no-waker: sched_waking not attached)");
	info(1, "cpu_aggs holds %u threads (%.1f MiB of kernel memory); wait_hists up to %u (%s); wait_start %u (raw_tp only), kvm_state %u",
	     capture__map_sizes(r->cap)->cpu_aggs,
	     capture__map_sizes(r->cap)->cpu_aggs_bytes / 1048576.0,
	     capture__map_sizes(r->cap)->wait_hists,
	     capture__map_sizes(r->cap)->hists_prealloc ? "preallocated" :
	     "allocated as threads wait",
	     capture__map_sizes(r->cap)->tid_entries, capture__map_sizes(r->cap)->kvm_state);
	r->fold = capture__fold(r->cap);
	r->out = visit_gate__visitor(&r->gate);	/* its way on: route_records() */
	/* each exited thread's aggregates are written once it exited, not kept to the end (a
	 * flight recorder and the live view keep theirs: they write no capture file as it goes) */
	if (!r->o.flight_s && !r->o.live && !r->o.serve)
		capture__write_exited(r->cap, &r->out);
	if (r->o.flight_s) {
		struct flight_cfg fc = {
			.window_ns = (uint64_t)(r->o.flight_s * 1e9),
			.budget_bytes = (uint64_t)r->o.flight_mb << 20,
			.trigger_wait_ns = r->o.trigger_wait_ns,
			.trigger_exit_ns = r->o.trigger_exit_ns, .after_ns = r->o.after_ns,
		};

		/* a wait or exit fires once the window it would write is whole, or at --arm-after */
		fc.arm_ns = r->o.arm_after_given ? r->o.arm_after_ns : fc.window_ns;

		r->fl = flight__new(&fc);
		if (!r->fl) {
			msg("out of memory");
			return -1;
		}
	}
	if (capture_opts_want_stats(&r->o) && !(r->st = trace__new("the capture", false, &r->stv))) {
		msg("out of memory");
		return -1;
	}
	return fill_meta(r);
}

/* Starts the command (held), the file, the programs, then releases the command. Returns 0 or
 * -1 with a message. */
static int start(struct run *r)
{
	struct capture_sink sink = { .ctx = r, .task = sink_task, .exec = sink_exec };
	char err[512];
	int e;

	if (r->o.command) {
		e = child_spawn(&r->child, r->o.command, &r->nofile);
		if (e) {
			msg("cannot start '%s': %s", r->o.command[0], strerror(-e));
			return -1;
		}
	}
	capture_meta_read_stat("/proc/stat", &r->stat0, NULL, 0);
	r->t0 = now_ns(CLOCK_MONOTONIC);
	r->meta.start_mono_ns = r->t0;
	r->meta.start_wall_ns = now_ns(CLOCK_REALTIME);
	if (capture_opts_want_cdict(&r->o)) {
		struct cdict_writer_opts wo = { .legacy = r->o.legacy, .mode = r->o.mode,
						.exists = capture_opts_exists(&r->o) };

		if (capture_opts_out_path(&r->o, ".cdict", r->path, sizeof(r->path))) {
			msg("output path too long: %s/%s.cdict", r->o.dest_folder, r->o.run_name);
			return -1;
		}
		r->w = cdict_writer__new(r->path, &r->meta, &wo, err, sizeof(err));
		if (!r->w) {
			msg("%s", err);
			return -1;
		}
	}
	route_records(r);
	sink.records = r->out;
	phase("metadata, output file");
	starting(r, "attaching the BPF programs");
	if (capture__start(r->cap, r->t0, &sink, err, sizeof(err))) {
		msg("%s", err);
		return -1;
	}
	r->t_attached = now_ns(CLOCK_MONOTONIC);
	phase("attach");
	if (r->o.command) {
		e = child_release(&r->child);
		if (e) {
			msg("cannot run '%s': %s", r->o.command[0], strerror(-e));
			waitpid(r->child.pid, NULL, 0);
			r->child.pid = -1;
			return -1;
		}
	}
	return 0;
}

/*
 * A capture that cannot go on (a write error such as a full disk, a failed read): says why in
 * one line and keeps the whole chunks already written under the temporary's name, so that
 * `pwz-render --partial` reads them. Returns -1.
 */
static int fail_capture(struct run *r, const char *what, int e)
{
	char note[2 * PATH_MAX + 160];

	if (!r->w) {
		msg("%s: %s", what, strerror(-e));
		return -1;
	}
	cdict_writer__keep_partial_note(r->w, note, sizeof(note));
	msg("%s: %s; %s", what, strerror(-e), note);
	return -1;
}

/* fail_capture() for the first writer error. */
static int fail_write(struct run *r)
{
	char what[PATH_MAX + 32];

	if (r->werr == -ENOMEM)
		return fail_capture(r, "out of memory while capturing", r->werr);
	snprintf(what, sizeof(what), "cannot write %s", r->path);
	return fail_capture(r, what, r->werr);
}

/* The progress line (a terminal only): elapsed / total, records read, the kernel's drops. */
static void show_progress(struct run *r, uint64_t now, uint64_t deadline)
{
	uint64_t cnt[PWZ_CNT_MAX], drops = 0;
	char el[FMT_DURATION_MAX], total[FMT_DURATION_MAX];

	if (!capture__counters(r->cap, cnt))
		drops = cnt[CNT_DROP_SLICE] + cnt[CNT_DROP_KVM_EXIT] + cnt[CNT_DROP_TASK] +
			cnt[CNT_MAP_FULL] + cnt[CNT_HIST_MISS];
	/* from the attach, as -s counts: "1.20 s" for -s 1.2 */
	fmt_duration(el, sizeof(el), now > r->t_attached ? now - r->t_attached : 0);
	if (deadline)
		fprintf(stderr, "\rpwz-bpf: %s / %s", el,
			fmt_duration(total, sizeof(total), deadline - r->t_attached));
	else
		fprintf(stderr, "\rpwz-bpf: %s (until the command ends)", el);
	fprintf(stderr, ", %llu records, %llu dropped\033[K",
		(unsigned long long)(r->gate.slices + r->gate.wakeups + r->gate.kvm_exits),
		(unsigned long long)drops);
	fflush(stderr);
	line_shown = true;
}

static void clear_progress(void)
{
	if (line_shown)
		fputs("\r\033[K", stderr);
	line_shown = false;
}

/* A SIGUSR1 outside --flight: said, and otherwise ignored (it is no reason to lose a capture). */
static void usr1_ignored(void)
{
	if (!usr1_signal)
		return;
	usr1_signal = 0;
	msg("SIGUSR1 ignored: it writes a dump with --flight only");
}

/* Drains the ring buffers until the deadline, the command's end or a signal. Returns 0 or -1
 * with a message. */
static int capture_loop(struct run *r)
{
	uint64_t deadline = 0, last_flush = r->t0, last_progress = 0;	/* shown at once */
	int e;

	/* -s counts from the attach: the programs record for that long */
	if (!r->o.command || r->o.sleep_given)
		deadline = r->t_attached + (uint64_t)(r->o.sleep_s * 1e9);
	info(1, "capturing%s", r->o.command ? " until the command ends" : "");
	while (!stop_signal) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		int ms = POLL_MS;

		/* the last poll ends at the deadline, not up to POLL_MS past it */
		if (deadline && (deadline <= now || (deadline - now) / 1000000 + 1 < (uint64_t)ms))
			ms = deadline <= now ? 0 : (int)((deadline - now) / 1000000 + 1);
		e = capture__poll(r->cap, ms);
		if (e < 0 && e != -EINTR) {
			if (r->werr)
				return fail_write(r);
			return fail_capture(r, "reading the ring buffer failed", e);
		}
		if (r->child.pid > 0 && waitpid(r->child.pid, &r->child_status, WNOHANG) == r->child.pid) {
			r->child_done = true;
			r->child.pid = -1;
			break;
		}
		now = now_ns(CLOCK_MONOTONIC);
		if (deadline && now >= deadline)
			break;
		usr1_ignored();
		if (forget_gone(r))
			return fail_write(r);
		if (r->progress && now - last_progress >= PROGRESS_NS) {
			show_progress(r, now, deadline);
			last_progress = now;
		}
		if (r->w && now - last_flush >= FLUSH_NS) {
			if (wr(r, cdict_writer__flush(r->w)))
				return fail_write(r);
			last_flush = now;
		}
	}
	clear_progress();
	usr1_ignored();		/* one that came in the last poll */
	if (stop_signal)
		info(1, "stopping on signal %d", (int)stop_signal);
	return 0;
}

/* The slices still open at the end and the exits still waiting for an entry (written and
 * folded), then the kernel's aggregates into the fold. Returns 0 or -1 with a message. */
static int read_aggregates(struct run *r)
{
	struct open_ctx oc = { r, r->t_end };
	int e;

	e = capture__fold_kernel_aggs(r->cap);
	if (e)
		return fail_capture(r, "cannot read the kernel aggregates", e);
	e = capture__open_slices(r->cap, open_slice, &oc);
	if (!e)
		e = capture__pending_exits(r->cap, pending_exit, r);
	if (e && r->werr)
		return fail_write(r);
	if (e)
		return fail_capture(r, "cannot read the slices open at the end", e);
	return 0;
}

/* Writes the fold's aggregate records (after the task records they name). Returns 0 or -1. */
static int write_aggregates(struct run *r)
{
	int e = model_fold__emit(r->fold, &r->out);

	if (!e && r->cfg.irq)
		e = capture__irq_aggs(r->cap, out_irq_agg, r);
	if (!e && capture__has_ledger(r->cap))
		e = capture__vcpu_ledgers(r->cap, r->t_end, true, true, out_ledger, r);
	if (e && !r->werr)
		r->werr = e;
	return r->werr ? fail_write(r) : 0;
}

/* The final metadata: drop counters, duration, the tracer's own cost. Returns 0 or -1. */
static int final_meta(struct run *r)
{
	uint64_t bpf_ns, bpf_cnt;
	struct rusage ru;
	int e = capture__counters(r->cap, r->cnt);

	/* without them the file would claim that nothing was dropped */
	if (e)
		return fail_capture(r, "cannot read the drop counters", e);
	/* switch-outs whose switch-in the kernel never reported are no drop: their slices are in
	 * the file, flagged, and counted per thread (model.h R2) */
	if (pwz_meta_add_drop(&r->meta, "slice", r->cnt[CNT_DROP_SLICE]) ||
	    pwz_meta_add_drop(&r->meta, "kvm_exit", r->cnt[CNT_DROP_KVM_EXIT]) ||
	    pwz_meta_add_drop(&r->meta, "task", r->cnt[CNT_DROP_TASK]) ||
	    pwz_meta_add_drop(&r->meta, "map_full", r->cnt[CNT_MAP_FULL]) ||
	    pwz_meta_add_drop(&r->meta, "hist_miss", r->cnt[CNT_HIST_MISS]))
		return fail_capture(r, "out of memory at the end of the capture", -ENOMEM);
	r->meta.duration_ns = r->t_end - r->t0;
	{
		struct capture_cpu_stat st1;

		capture_meta_read_stat("/proc/stat", &st1, NULL, 0);
		capture_meta_steal(&r->meta, &r->stat0, &st1, sysconf(_SC_CLK_TCK));
	}
	if (!getrusage(RUSAGE_SELF, &ru))
		r->meta.tracer_cpu_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull +
					(uint64_t)ru.ru_utime.tv_usec * 1000ull +
					(uint64_t)ru.ru_stime.tv_sec * 1000000000ull +
					(uint64_t)ru.ru_stime.tv_usec * 1000ull;
	capture__prog_stats(r->cap, &bpf_ns, &bpf_cnt);
	r->meta.bpf_run_ns = bpf_ns;
	r->meta.bpf_run_cnt = bpf_cnt;
	r->meta.has_sched_clock = capture__sched_clock(r->cap, &r->meta.sched_clock);
	if (r->meta.has_sched_clock) {
		const struct pwz_sched_clock *k = &r->meta.sched_clock;

		info(1, "clock: %llu switches on the run queues' clock, %llu read CLOCK_MONOTONIC (stale, or a vCPU's); fit of %llu pairs (%llu late samples left out): drift %+.3f ppm, residual %llu ns, CPUs %llu ns apart",
		     (unsigned long long)k->stamped, (unsigned long long)k->stale,
		     (unsigned long long)k->pairs, (unsigned long long)k->late, (double)k->drift_ppb / 1000.0,
		     (unsigned long long)k->residual_ns, (unsigned long long)k->spread_ns);
	}
	if (bpf_cnt && r->cnt[CNT_SWITCHES])
		info(1, "BPF run time: %llu runs, %.1f ns a run, %.1f ns per switch (all programs)",
		     (unsigned long long)bpf_cnt, (double)bpf_ns / (double)bpf_cnt,
		     (double)bpf_ns / (double)r->cnt[CNT_SWITCHES]);
	return 0;
}

/* Stops the programs and the command, then writes the end of the file and the stats. Returns
 * 0 or -1 with a message. */
static int finish(struct run *r)
{
	char err[512];
	int e;

	/* the end is when the programs are detached: every CPU's slices tile [t0, t_end] (R1) */
	phase("capture");
	e = capture__stop(r->cap, &r->t_end);
	phase("detach and drain");
	if (e < 0 && r->werr)
		return fail_write(r);
	if (e < 0)
		return fail_capture(r, "reading the ring buffer failed", e);
	if (r->child.pid > 0) {
		r->child_stopped = true;
		kill(r->child.pid, stop_signal ? stop_signal : SIGTERM);
		if (waitpid(r->child.pid, &r->child_status, 0) == r->child.pid)
			r->child_done = true;
		r->child.pid = -1;
	}
	if (read_aggregates(r) || write_aggregates(r) || final_meta(r))
		return -1;
	phase("kernel maps, aggregates");
	e = r->w ? cdict_writer__finish(r->w, &r->meta, err, sizeof(err)) : 0;
	phase("file end, fsync, rename");
	if (e) {
		/* the END chunk or the rename failed: the whole chunks before it are kept */
		r->werr = e;
		return fail_write(r);
	}
	if (r->w) {	/* the name written: another when a file at r->path was kept */
		note_kept(r->path, cdict_writer__path(r->w));
		snprintf(r->path, sizeof(r->path), "%s", cdict_writer__path(r->w));
	}
	if (r->st) {
		if (pwz_meta_copy(&r->st->meta, &r->meta) || trace__settle(r->st)) {
			msg("out of memory");
			return -1;
		}
		if (write_stats(r, r->st, r->w ? r->path : NULL))
			return -1;
	}
	return 0;
}

/* The closing lines on stderr: what was captured, what was dropped, the command's end. */
static void print_summary(const struct run *r)
{
	const uint64_t *cnt = r->cnt;
	char d[FMT_DURATION_MAX];

	fprintf(stderr, "pwz-bpf: %s, %llu switches, %llu slices, %llu waits, %llu KVM exits",
		fmt_duration(d, sizeof(d), r->meta.duration_ns), (unsigned long long)cnt[CNT_SWITCHES],
		(unsigned long long)r->gate.slices, (unsigned long long)r->gate.wakeups,
		(unsigned long long)r->gate.kvm_exits);
	if (cnt[CNT_UNPAIRED])
		fprintf(stderr, ", %llu switch-ins unseen",
			(unsigned long long)cnt[CNT_UNPAIRED]);
	fprintf(stderr, ", dropped: %llu slice, %llu kvm_exit, %llu task, %llu map_full\n",
		(unsigned long long)cnt[CNT_DROP_SLICE],
		(unsigned long long)cnt[CNT_DROP_KVM_EXIT], (unsigned long long)cnt[CNT_DROP_TASK],
		(unsigned long long)cnt[CNT_MAP_FULL]);
	info(1, "wait histograms: %llu waits left out (wait_hists full or out of memory; those threads have no wait percentiles)",
	     (unsigned long long)cnt[CNT_HIST_MISS]);
	info(1, "task table: %zu threads at the end, %zu exited threads forgotten on the way",
	     task_table__count(r->tt), task_table__forgotten(r->tt));
	info(1, "aggregates: %llu exited threads written on the way, %zu held at the end",
	     (unsigned long long)capture__exited_written(r->cap), model_fold__count(r->fold));
	if (r->w)
		msg("wrote %s (%llu bytes)", r->path, (unsigned long long)cdict_writer__bytes(r->w));
	if (r->o.nr_tasks && (r->followed || r->inherited))
		msg("-t: %zu threads joined the selection during the capture (%zu named to match, %zu started by selected threads)",
		    r->followed + r->inherited, r->followed, r->inherited);
	if (r->follow_err)
		msg("warning: -t: a thread that matched could not be followed: %s",
		    strerror(-r->follow_err));
	if (r->child_done && WIFEXITED(r->child_status) && WEXITSTATUS(r->child_status))
		msg("the command exited with status %d", WEXITSTATUS(r->child_status));
	else if (r->child_done && WIFSIGNALED(r->child_status))
		msg("the command was killed by signal %d%s", WTERMSIG(r->child_status),
		    r->child_stopped ? " (by pwz-bpf, at the end of the capture)" : "");
}

/* The exit status of a capture that succeeded: the command's own, as perf record passes it
 * on (its exit status, or 128 + the signal that killed it), unless pwz-bpf ended it. */
static int command_status(const struct run *r)
{
	if (!r->child_done || r->child_stopped)
		return 0;
	if (WIFEXITED(r->child_status))
		return WEXITSTATUS(r->child_status);
	if (WIFSIGNALED(r->child_status))
		return 128 + WTERMSIG(r->child_status);
	return 0;
}

static bool run_selected(void *ctx, uint32_t tid)
{
	return selected(ctx, tid);
}

/* --live: the view until q, -n intervals or a signal (user/live.h). Returns the exit code. */
static int run_live(struct run *r)
{
	struct live_opts lo = { .interval_s = r->o.interval_s, .count = r->o.count,
				.batch = r->o.batch, .json = r->o.json, .kvm_view = r->o.kvm_only,
				.selected = r->filter ? run_selected : NULL, .ctx = r };
	char err[512];
	int e;

	clear_progress();	/* the view takes the terminal */
	e = live_run(r->cap, r->tt, r->t0, &r->meta, &lo, &stop_signal, err, sizeof(err));
	if (e)
		msg("%s", err);
	usr1_ignored();
	return e ? 1 : 0;
}

/* A dump's drop counters: the kernel's since the start (a superset of the window's); and its
 * scheduler's clock so far (model.h R0). */
static int flight_counters(void *ctx, struct pwz_meta *m)
{
	struct run *r = ctx;
	int e = capture__counters(r->cap, r->cnt);

	if (e)
		return e;
	m->has_sched_clock = capture__sched_clock(r->cap, &m->sched_clock);
	if (pwz_meta_add_drop(m, "slice", r->cnt[CNT_DROP_SLICE]) ||
	    pwz_meta_add_drop(m, "kvm_exit", r->cnt[CNT_DROP_KVM_EXIT]) ||
	    pwz_meta_add_drop(m, "task", r->cnt[CNT_DROP_TASK]) ||
	    pwz_meta_add_drop(m, "map_full", r->cnt[CNT_MAP_FULL]) ||
	    pwz_meta_add_drop(m, "hist_miss", r->cnt[CNT_HIST_MISS]))
		return -ENOSPC;
	return 0;
}

/* The flight recorder's view of the run (user/flight.h). */
static struct flight_env flight_env_of(struct run *r)
{
	return (struct flight_env){
		.cap = r->cap, .tt = r->tt, .fl = r->fl, .o = &r->o, .meta = &r->meta,
		.t0 = r->t0, .child = r->child.pid, .selected = run_selected, .ctx = r,
		.counters = flight_counters, .say = msg, .stop = &stop_signal, .usr1 = &usr1_signal,
		.werr = &r->werr,
	};
}

/* --flight beside --serve: the recorder's state, stepped by the serve loop. */
struct serve_flight {
	struct flight_env env;
	struct flight_loop lp;
};

static int serve_flight_step(void *ctx)
{
	struct serve_flight *sf = ctx;

	return flight_step(&sf->env, &sf->lp);
}

/* --serve: metrics over HTTP until a signal (user/serve.h), with --flight the recorder beside
 * them. Returns the exit code. */
static int run_serve(struct run *r)
{
	struct serve_metrics_opts so = { .threads = r->o.serve_threads,
					 .cgroup_depth = r->o.serve_cgroup_depth,
					 .selected = r->filter ? run_selected : NULL, .ctx = r };
	struct serve_flight sf = { .env = flight_env_of(r) };
	struct serve_tick tick = { serve_flight_step, &sf };
	struct sockaddr_storage sa;
	socklen_t len;
	char err[512];
	int e;

	clear_progress();
	e = serve_parse_listen(r->o.serve, &sa, &len, err, sizeof(err));
	if (!e && r->fl)
		flight_begin(&sf.env, &sf.lp);
	if (!e)
		e = serve_run(r->cap, r->tt, r->t0, &r->meta, &sa, len, &so, r->fl ? &tick : NULL,
			      &stop_signal, msg, err, sizeof(err));
	if (e)
		msg("%s", err);
	return e ? 1 : 0;
}

/* --flight: the recorder until a signal, -s, the command's end or --once (user/flight.h).
 * Returns the exit code. */
static int run_flight(struct run *r)
{
	struct flight_env env = flight_env_of(r);
	int e = flight_run(&env);

	r->child.pid = env.child;
	return e ? 1 : 0;
}

static void run_free(struct run *r)
{
	flight__free(r->fl);
	if (r->child.pid > 0) {
		kill(r->child.pid, SIGKILL);
		waitpid(r->child.pid, NULL, 0);
	}
	cdict_writer__free(r->w);	/* an unfinished writer removes its file unless kept */
	capture__free_async(r->cap);	/* the process ends before the kernel's slow releases */
	task_table__free(r->tt);
	task_map__free(r->map);
	task_patterns__free(r->patterns);
	pwz_meta_free(&r->meta);
	trace__free(r->st);
	free(r->sel_tids);
	free(r->sel_tgids);
	free(r->cmdline);
}

int main(int argc, char **argv)
{
	struct run R = { .child = { .pid = -1, .go_fd = -1, .err_fd = -1 } }, *r = &R;
	char err[512];
	int rc = 1;

	catch_signals();
	phase_start = phase_last = now_ns(CLOCK_MONOTONIC);
	setup_process(&r->nofile);
	r->cmdline = join_argv(argc, argv);
	if (!r->cmdline) {
		msg("out of memory");
		return 1;
	}
	if (capture_opts_parse(&r->o, argc, argv, err, sizeof(err))) {
		msg("%s", err);
		rc = 2;
		goto out;
	}
	verbose = r->o.verbose;
	r->progress = !r->o.quiet && isatty(STDERR_FILENO);
	libbpf_set_print(libbpf_print);
	if (r->o.help || r->o.version) {
		if (r->o.help)
			fputs(capture_opts_usage(), stdout);
		else
			printf("pwz-bpf %s\n", PWZ_VERSION);
		rc = 0;
		if (fflush(stdout) || ferror(stdout)) {
			msg("cannot write to standard output: %s", strerror(errno ? errno : EIO));
			rc = 1;
		}
		goto out;
	}
	if (check_dest(r->o.dest_folder, r->o.mode))
		goto out;
	if (r->o.map_path) {
		r->map = task_map__load(r->o.map_path, err, sizeof(err));
		if (!r->map) {
			msg("--map: %s", err);
			goto out;
		}
	}
	if (r->o.perf_data || r->o.remap) {
		uncatch_signals();
		rc = r->o.perf_data ? use_perf_data(r, r->cmdline) : remap_capture(r);
		goto out;
	}
	/* --flight runs without end, read later in a log: it says at once what it is */
	if (r->o.flight_s && !r->progress && !r->o.quiet)
		msg("flight: starting (pid %d): loading the BPF programs, then recording",
		    (int)getpid());
	if (check_env(r) || prepare(r) || start(r))
		goto out;
	if (r->o.serve) {	/* (with --flight, the recorder beside it) */
		rc = run_serve(r);
		goto out;
	}
	if (r->o.live || r->o.flight_s) {
		rc = r->o.live ? run_live(r) : run_flight(r);
		goto out;
	}
	if (capture_loop(r) || finish(r))
		goto out;
	print_summary(r);
	rc = command_status(r);
out:
	run_free(r);
	phase("free");
	return rc;
}
