// SPDX-License-Identifier: GPL-2.0
/* pwz-bpf --live's output: a full-screen view in plain ANSI, text blocks and JSON lines. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "fmt.h"
#include "json.h"
#include "live_screen.h"
#include "live_vms.h"
#include "records.h"
#include "summary.h"
#include "termsafe.h"

/* The terminal modes: entering and leaving the alternate screen with the cursor hidden. */
#define ENTER "\033[?1049h\033[?25l\033[H\033[2J"
#define LEAVE "\033[?25h\033[?1049l"

#define SORT_ENUM(k, e, name) SORT_##e,
enum sort_key { LIVE_SORT_KEYS(SORT_ENUM) };

/* By enum sort_key: its key and the name the hint line shows. */
#define LIVE_OPEN_VMS 9		/* VMs that keys 1-9 open in the KVM view */
#define SORT_ENTRY(k, e, name) { #k, name },
static const struct {
	const char *key;		/* one letter */
	const char *name;
} sort_keys[] = { LIVE_SORT_KEYS(SORT_ENTRY) };

struct live_screen {
	int in, out;
	struct termios saved;
	const struct pwz_meta *meta;
	const struct live_frame *f;	/* the frame shown */
	bool kvm;			/* the KVM view */
	bool paused;
	bool editing;			/* typing a filter after '/' */
	enum sort_key sort;
	char filter[64];
	char open_vm[LIVE_OPEN_VMS][PWZ_NAME_MAX];	/* the VMs opened in the KVM view ("" free) */
	unsigned int rows, cols;
	char *buf;			/* the frame being composed */
	size_t len, cap;
};

/* For the signal handlers: what to give back. */
static int g_out = -1, g_in = -1;
static struct termios g_saved;
static volatile sig_atomic_t g_winch;

/*
 * SIGTTOU is held while the modes are given back: a view moved to the background (bg after
 * Ctrl-Z) then still ends, rather than stopping again at each attempt.
 */
static void restore_raw(void)
{
	sigset_t ttou, old;

	if (g_out >= 0) {
		ssize_t n = write(g_out, LEAVE, sizeof(LEAVE) - 1);

		(void)n;
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		sigprocmask(SIG_BLOCK, &ttou, &old);
		tcsetattr(g_in, TCSAFLUSH, &g_saved);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
}

static void on_fatal(int sig)
{
	restore_raw();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_winch(int sig)
{
	(void)sig;
	g_winch = 1;
}

static int enter_raw(int in, int out)
{
	struct termios t = g_saved;
	ssize_t n;

	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
	t.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(in, TCSAFLUSH, &t))
		return -errno;
	n = write(out, ENTER, sizeof(ENTER) - 1);
	return n < 0 ? -errno : 0;
}

/* kill -TSTP: the terminal back while stopped, the view again on SIGCONT. */
static void on_tstp(int sig)
{
	int saved_errno = errno;

	(void)sig;
	restore_raw();
	raise(SIGSTOP);
	enter_raw(g_in, g_out);
	g_winch = 1;
	errno = saved_errno;
}

static void get_size(struct live_screen *s)
{
	struct winsize ws;

	s->rows = 24;
	s->cols = 80;
	if (!ioctl(s->out, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		s->rows = ws.ws_row;
		s->cols = ws.ws_col;
	}
}

struct live_screen *live_screen__new(int fd_in, int fd_out, bool kvm_view,
				     const struct pwz_meta *meta, char *err, size_t errlen)
{
	struct live_screen *s;
	struct sigaction sa;
	int e;

	if (!isatty(fd_in) || !isatty(fd_out)) {
		snprintf(err, errlen, "--live needs a terminal (use --batch or --json to write to a file or a pipe)");
		errno = ENOTTY;
		return NULL;
	}
	if (tcgetpgrp(fd_in) != getpgrp()) {
		snprintf(err, errlen, "--live runs in the background of its terminal, which another process holds: run it in the foreground, or use --batch");
		errno = ENOTTY;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->in = fd_in;
	s->out = fd_out;
	s->kvm = kvm_view;
	s->meta = meta;
	if (tcgetattr(fd_in, &s->saved)) {
		e = errno;
		snprintf(err, errlen, "cannot read the terminal's modes: %s", strerror(e));
		free(s);
		errno = e;
		return NULL;
	}
	g_saved = s->saved;
	g_in = fd_in;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_fatal;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_tstp;
	sigaction(SIGTSTP, &sa, NULL);
	e = enter_raw(fd_in, fd_out);
	g_out = fd_out;
	if (e) {
		restore_raw();
		g_out = -1;
		snprintf(err, errlen, "cannot set up the terminal: %s", strerror(-e));
		free(s);
		errno = -e;
		return NULL;
	}
	get_size(s);
	return s;
}

void live_screen__free(struct live_screen *s)
{
	struct sigaction sa;

	if (!s)
		return;
	restore_raw();
	g_out = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	sigaction(SIGTSTP, &sa, NULL);
	free(s->buf);
	free(s);
}

/* ---- the figures as text, shared by the screen and --batch ---- */

static double per_s(uint64_t v, const struct live_frame *f)
{
	return f->dt_ns ? v * 1e9 / (double)f->dt_ns : 0;
}

static double pct(uint64_t ns, const struct live_frame *f)
{
	return f->dt_ns ? ns * 100.0 / (double)f->dt_ns : 0;
}

/*
 * A thread's share of the interval, at most 100 %. Two of its figures can hold time from
 * before the interval: the kernel charges a wait whole when it ends (model.h R9), and a slice
 * that began on a CPU before the capture saw any switch there is read only when it ends,
 * whole, from the capture's start (no reading knows which thread runs there until then).
 */
static double thread_pct(uint64_t ns, const struct live_frame *f)
{
	double p = pct(ns, f);

	return p > 100.0 ? 100.0 : p;
}

/* The header line: the interval and the capture's own cost. */
static void header_line(char *b, size_t n, const struct live_frame *f)
{
	time_t sec = (time_t)(f->wall_ns / 1000000000ull);
	double busy = f->nr_cpus && f->dt_ns ?
		      100.0 - f->idle_ns * 100.0 / ((double)f->dt_ns * f->nr_cpus) : 0;
	char when[32], bpf[32], steal[32], dt[FMT_DURATION_MAX];
	struct tm tm;

	localtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (f->bpf_ns)
		snprintf(bpf, sizeof(bpf), "%.2f ms/s", per_s(f->bpf_ns, f) / 1e6);
	else
		snprintf(bpf, sizeof(bpf), "?");
	/* the hypervisor's steal of this machine's CPUs, as /proc/stat counts it */
	if (f->has_steal && f->cpu_time_ns)
		snprintf(steal, sizeof(steal), "%.1f%%", f->steal_ns * 100.0 / (double)f->cpu_time_ns);
	else
		snprintf(steal, sizeof(steal), "?");
	snprintf(b, n, "pwz-bpf --live  %s  #%llu  interval %s  CPUs %d  busy %.1f%%  steal %s  switches/s %.0f  BPF %s  drops %llu",
		 when, (unsigned long long)f->seq, fmt_duration(dt, sizeof(dt), f->dt_ns), f->nr_cpus,
		 busy < 0 ? 0 : busy, steal,
		 per_s(f->switches, f), bpf, (unsigned long long)f->drops);
}

/* READY% is the run-queue wait as lived; KREADY% the same waits as the kernel charged them
 * (schedstat's run_delay, model.h R9), shown only where the two differ
 * (summary_ready_figures_differ()) */
static const char task_cols[] =
	"    TID     PID   CPU%   SW/s  VOL/s  INV/s       WAIT_P99  READY% KREADY%  EXITS/s  NAME";
/* A screen narrower than the row and LIVE_NAME_MIN columns of name: PID, VOL/s and INV/s are
 * left out (80 columns keep 17 for the name). */
static const char task_cols_narrow[] =
	"    TID   CPU%   SW/s       WAIT_P99  READY% KREADY%  EXITS/s  NAME";
#define LIVE_NAME_MIN 16
static const char kvm_cols[] =
	"    TID     PID  EXITS/s  HANDLE_AVG  HANDLE%  EXIT                       NAME";
/* One row per VM: its vCPUs' CPU %, their mean READY% (at most 100), the p99 of their waits,
 * their exits, its other threads' CPU % (EMU%); the key that opens it. Where the capture keeps
 * the vCPU ledger (model.h R10) and there is room, its vCPUs' mean share of the interval in
 * the guest, halted, and ready while a sibling ran (co-stop, esxtop's %CSTP). */
static const char vm_cols[] =
	"KEY VCPUS   CPU%  READY%       WAIT_P99  EXITS/s    EMU%  VM";
static const char vm_cols_ledger[] =
	"KEY VCPUS   CPU%  READY%       WAIT_P99  EXITS/s    EMU%  GUEST%   HALT%   CSTP%  VM";

/* Whether a VM of f has a ledger. */
static bool frame_has_ledger(const struct live_frame *f)
{
	for (size_t i = 0; i < f->nr_vms; i++)
		if (f->vms[i].ledger_vcpus)
			return true;
	return false;
}

/* Whether t's ready time as the kernel charged it is to be shown beside the lived one. */
static bool ready_differs(const struct live_task *t, const struct live_frame *f)
{
	return f->has_run_delay &&
	       summary_ready_figures_differ(t->run_delay_wait_ns, t->run_delay_ns,
					    t->run_delay_unmeasured_ns);
}

static bool narrow_screen(const struct live_screen *s)
{
	return s->cols < sizeof(task_cols) - 1 - strlen("NAME") + LIVE_NAME_MIN;
}

/* Whether the VM rows of f on s show the ledger's columns: f has a ledger, and they leave the
 * name LIVE_NAME_MIN columns. */
static bool vm_ledger_shown(const struct live_screen *s, const struct live_frame *f)
{
	return frame_has_ledger(f) &&
	       s->cols >= sizeof(vm_cols_ledger) - 1 - strlen("VM") + LIVE_NAME_MIN;
}

/* A wait p99 as its bucket's range; "n/a" for waits whose histogram the kernel could not keep
 * whole (hist_miss), "-" for none. */
static void p99_text(char *b, size_t n, bool has, uint64_t waits, uint64_t lo_ns, uint64_t hi_ns)
{
	if (has)
		fmt_duration_range(b, n, lo_ns, hi_ns);
	else
		snprintf(b, n, "%s", waits ? "n/a" : "-");
}

static void task_line(char *b, size_t n, const struct live_task *t, const struct live_frame *f,
		      bool narrow)
{
	char p99[FMT_DURATION_MAX], name[TERMSAFE_NAME_MAX], kready[16] = "";

	/* the histogram bucket holding the interval's p99 (a tail, which an average hides;
	 * --json keeps waits and wait_ns for the average) */
	p99_text(p99, sizeof(p99), t->has_wait_p99, t->waits, t->wait_p99_lo_ns, t->wait_p99_hi_ns);
	termsafe_str(name, sizeof(name), t->name);
	if (ready_differs(t, f))
		snprintf(kready, sizeof(kready), "%.1f", thread_pct(t->run_delay_ns, f));
	if (narrow)
		snprintf(b, n, "%7u %6.1f %6.0f %14s %7.1f %7s %8.0f  %s", t->tid, thread_pct(t->run_ns, f),
			 per_s(t->switches, f), p99, pct(t->wait_ns, f), kready, per_s(t->exits, f),
			 name);
	else
		snprintf(b, n, "%7u %7u %6.1f %6.0f %6.0f %6.0f %14s %7.1f %7s %8.0f  %s", t->tid,
			 t->tgid, thread_pct(t->run_ns, f), per_s(t->switches, f), per_s(t->voluntary, f),
			 per_s(t->involuntary, f), p99, pct(t->wait_ns, f), kready,
			 per_s(t->exits, f), name);
}

/* VM row i (vm_cols, or vm_cols_ledger with ledger: "-" for a VM without one). */
static void vm_line(char *b, size_t n, size_t i, const struct live_vm *v,
		    const struct live_frame *f, bool ledger)
{
	char p99[FMT_DURATION_MAX], name[TERMSAFE_NAME_MAX], k[4] = "", led[32] = "";

	p99_text(p99, sizeof(p99), v->has_wait_p99, v->waits, v->wait_p99_lo_ns, v->wait_p99_hi_ns);
	if (i < LIVE_OPEN_VMS)
		snprintf(k, sizeof(k), "%zu", i + 1);
	termsafe_str(name, sizeof(name), v->name);
	if (ledger && v->ledger_vcpus)
		snprintf(led, sizeof(led), " %7.1f %7.1f %7.1f",
			 live_vm_ledger_pct(v, v->state_ns[PWZ_VCPU_GUEST], f),
			 live_vm_ledger_pct(v, v->state_ns[PWZ_VCPU_HALT], f),
			 live_vm_ledger_pct(v, v->costop_ns, f));
	else if (ledger)
		snprintf(led, sizeof(led), " %7s %7s %7s", "-", "-", "-");
	snprintf(b, n, "%3s %5u %6.1f %7.1f %14s %8.0f %7.1f%s  %s", k, v->vcpus, pct(v->run_ns, f),
		 live_vm_ready_pct(v, f), p99, per_s(v->exits, f), pct(v->emu_run_ns, f), led, name);
}

static const struct live_task *find_task(const struct live_frame *f, uint32_t tid)
{
	bool found;
	size_t i = live_task_find(f->tasks, f->nr_tasks, tid, &found);

	return found ? &f->tasks[i] : NULL;
}

static const char *exit_name(char *b, size_t n, const struct pwz_meta *meta,
			     const struct live_exit *e)
{
	const char *name = meta ? pwz_meta_exit_name(meta, e->isa, e->reason) : NULL;

	if (name)
		return termsafe_str(b, n, name);
	snprintf(b, n, "%s %u", e->isa == PWZ_ISA_SVM ? "svm" : "vmx", e->reason);
	return b;
}

static void exit_line(char *b, size_t n, const struct live_exit *e, const struct live_frame *f,
		      const struct pwz_meta *meta)
{
	const struct live_task *t = find_task(f, e->tid);
	char havg[FMT_DURATION_MAX], ename[256], name[TERMSAFE_NAME_MAX];

	fmt_duration_avg(havg, sizeof(havg), e->handling_ns, e->count);
	termsafe_str(name, sizeof(name), t ? t->name : "?");
	snprintf(b, n, "%7u %7u %8.0f %11s %8.1f  %-26s %s", e->tid, t ? t->tgid : 0,
		 per_s(e->count, f), havg, pct(e->handling_ns, f),
		 exit_name(ename, sizeof(ename), meta, e), name);
}

/* Sorts by exits per second, most first, then by key. */
static int exit_order(const void *a, const void *b)
{
	const struct live_exit *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

static enum sort_key g_sort;	/* for the qsort comparator */

static int task_order(const void *a, const void *b)
{
	const struct live_task *x = a, *y = b;
	int c = 0;

	switch (g_sort) {
	case SORT_CPU:
		c = x->run_ns != y->run_ns ? (x->run_ns > y->run_ns ? -1 : 1) : 0;
		break;
	case SORT_SWITCHES:
		c = x->switches != y->switches ? (x->switches > y->switches ? -1 : 1) : 0;
		break;
	case SORT_WAIT:
		c = x->wait_ns != y->wait_ns ? (x->wait_ns > y->wait_ns ? -1 : 1) : 0;
		break;
	case SORT_NAME:
		c = strcmp(x->name, y->name);
		break;
	case SORT_PID:
		c = x->tgid != y->tgid ? (x->tgid < y->tgid ? -1 : 1) : 0;
		break;
	}
	if (!c)
		c = x->tid < y->tid ? -1 : x->tid > y->tid;
	return c;
}

/* The rows of f in the order and under the filter asked; malloc'd copies. */
static struct live_task *sorted_tasks(const struct live_frame *f, enum sort_key key,
				      const char *filter, size_t *n)
{
	struct live_task *v = malloc((f->nr_tasks ? f->nr_tasks : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < f->nr_tasks; i++) {
		const struct live_task *t = &f->tasks[i];
		char ids[32];

		snprintf(ids, sizeof(ids), "%u %u", t->tid, t->tgid);
		if (filter && *filter && !strcasestr(t->name, filter) && !strstr(ids, filter))
			continue;
		v[(*n)++] = *t;
	}
	g_sort = key;
	qsort(v, *n, sizeof(*v), task_order);
	return v;
}

int live_print_text(FILE *out, const struct live_frame *f, const struct pwz_meta *meta, bool kvm)
{
	char line[2048];
	struct live_task *v;
	size_t n;

	header_line(line, sizeof(line), f);
	fprintf(out, "--- %s\n", line);
	if (f->nr_vms) {	/* the VMs first, worst ready first */
		bool ledger = frame_has_ledger(f);

		fprintf(out, "%s\n", ledger ? vm_cols_ledger : vm_cols);
		for (size_t i = 0; i < f->nr_vms; i++) {
			vm_line(line, sizeof(line), i, &f->vms[i], f, ledger);
			fprintf(out, "%s\n", line);
		}
	}
	fprintf(out, "%s\n", task_cols);
	v = sorted_tasks(f, SORT_CPU, NULL, &n);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		task_line(line, sizeof(line), &v[i], f, false);
		fprintf(out, "%s\n", line);
	}
	free(v);
	if (kvm || f->nr_exits) {
		struct live_exit *e = malloc((f->nr_exits ? f->nr_exits : 1) * sizeof(*e));

		if (!e)
			return -ENOMEM;
		memcpy(e, f->exits, f->nr_exits * sizeof(*e));
		qsort(e, f->nr_exits, sizeof(*e), exit_order);
		fprintf(out, "%s\n", kvm_cols);
		for (size_t i = 0; i < f->nr_exits; i++) {
			exit_line(line, sizeof(line), &e[i], f, meta);
			fprintf(out, "%s\n", line);
		}
		free(e);
	}
	fputc('\n', out);
	return fflush(out) || ferror(out) ? -(errno ? errno : EIO) : 0;
}

/* Writes s as a JSON string, made terminal-safe first (the lines may go to a terminal) and
 * escaped by jbuf_json_str(). Returns 0 or -ENOMEM (nothing written then). */
static int json_str(FILE *out, const char *s)
{
	char safe[TERMSAFE_NAME_MAX];
	struct jbuf b = { 0 };
	int e;

	termsafe_str(safe, sizeof(safe), s);
	jbuf_json_str(&b, safe, (size_t)-1);
	e = b.err;
	if (!e)
		fwrite(b.buf, 1, b.len, out);
	jbuf_free(&b);
	return e;
}

/* A wait p99's bucket as JSON ({lo_ns, hi_ns}, or null). */
static void json_p99(FILE *out, bool has, uint64_t lo_ns, uint64_t hi_ns)
{
	if (has)
		fprintf(out, "{\"lo_ns\":%llu,\"hi_ns\":%llu}", (unsigned long long)lo_ns,
			(unsigned long long)hi_ns);
	else
		fputs("null", out);
}

/* "states":{"guest":ns,...},"costop_ns":ns of a vCPU or a VM with a ledger (has), else both
 * null. */
static void json_states(FILE *out, bool has, const uint64_t *state_ns, uint64_t costop_ns)
{
	if (!has) {
		fputs("\"states\":null,\"costop_ns\":null", out);
		return;
	}
	fputs("\"states\":{", out);
	for (unsigned int i = 0; i < PWZ_VCPU_STATES; i++)
		fprintf(out, "%s\"%s\":%llu", i ? "," : "", pwz_vcpu_state_name(i),
			(unsigned long long)state_ns[i]);
	fprintf(out, "},\"costop_ns\":%llu", (unsigned long long)costop_ns);
}

int live_print_json(FILE *out, const struct live_frame *f, const struct pwz_meta *meta)
{
	char ename[256];

	fprintf(out, "{\"seq\":%llu,\"t_ns\":%llu,\"wall_ns\":%llu,\"interval_ns\":%llu,\"nr_cpus\":%d,"
		"\"idle_ns\":%llu,\"switches\":%llu,\"drops\":%llu,\"bpf_ns\":%llu,",
		(unsigned long long)f->seq, (unsigned long long)f->t_ns,
		(unsigned long long)f->wall_ns, (unsigned long long)f->dt_ns, f->nr_cpus,
		(unsigned long long)f->idle_ns, (unsigned long long)f->switches,
		(unsigned long long)f->drops, (unsigned long long)f->bpf_ns);
	/* the host's steal in the interval (/proc/stat): null when it could not be read */
	if (f->has_steal)
		fprintf(out, "\"steal_ns\":%llu,\"steal_cpu_time_ns\":%llu,", (unsigned long long)f->steal_ns,
			(unsigned long long)f->cpu_time_ns);
	else
		fputs("\"steal_ns\":null,\"steal_cpu_time_ns\":null,", out);
	fputs("\"tasks\":[", out);
	for (size_t i = 0; i < f->nr_tasks; i++) {
		const struct live_task *t = &f->tasks[i];

		fprintf(out, "%s{\"tid\":%u,\"pid\":%u,\"name\":", i ? "," : "", t->tid, t->tgid);
		if (json_str(out, t->name))
			return -ENOMEM;
		fprintf(out, ",\"runtime_ns\":%llu,\"cpu_pct\":%.3f,\"switches\":%llu,\"voluntary\":%llu,"
			"\"involuntary\":%llu,\"waits\":%llu,\"wait_ns\":%llu,\"ready_pct\":%.3f,"
			"\"exits\":%llu,\"run_delay_ns\":",
			(unsigned long long)t->run_ns, thread_pct(t->run_ns, f),
			(unsigned long long)t->switches, (unsigned long long)t->voluntary,
			(unsigned long long)t->involuntary, (unsigned long long)t->waits,
			(unsigned long long)t->wait_ns, pct(t->wait_ns, f),
			(unsigned long long)t->exits);
		/* the kernel's charge of the waits (model.h R9): null without it */
		if (f->has_run_delay)
			fprintf(out, "%llu,\"run_delay_wait_ns\":%llu,"
				"\"run_delay_unmeasured_ns\":%llu,\"ready_kernel_pct\":%.3f,"
				"\"ready_differs\":%s", (unsigned long long)t->run_delay_ns,
				(unsigned long long)t->run_delay_wait_ns,
				(unsigned long long)t->run_delay_unmeasured_ns,
				thread_pct(t->run_delay_ns, f), ready_differs(t, f) ? "true" : "false");
		else
			fputs("null,\"run_delay_wait_ns\":null,\"run_delay_unmeasured_ns\":null,"
			      "\"ready_kernel_pct\":null,\"ready_differs\":false", out);
		/* the bucket holding the interval's p99 (as --list --json's wait_p99) */
		fputs(",\"wait_p99\":", out);
		json_p99(out, t->has_wait_p99, t->wait_p99_lo_ns, t->wait_p99_hi_ns);
		fputc(',', out);
		json_states(out, t->has_ledger, t->state_ns, t->costop_ns);
		fputc('}', out);
	}
	fputs("],\"vms\":[", out);
	for (size_t i = 0; i < f->nr_vms; i++) {
		const struct live_vm *v = &f->vms[i];

		fprintf(out, "%s{\"name\":", i ? "," : "");
		if (json_str(out, v->name))
			return -ENOMEM;
		fprintf(out, ",\"pid\":%u,\"vcpus\":%u,\"runtime_ns\":%llu,\"wait_ns\":%llu,"
			"\"ready_pct\":%.3f,\"waits\":%llu,\"exits\":%llu,\"emulator_runtime_ns\":%llu,"
			"\"wait_p99\":", v->tgid, v->vcpus, (unsigned long long)v->run_ns,
			(unsigned long long)v->wait_ns, live_vm_ready_pct(v, f),
			(unsigned long long)v->waits, (unsigned long long)v->exits,
			(unsigned long long)v->emu_run_ns);
		json_p99(out, v->has_wait_p99, v->wait_p99_lo_ns, v->wait_p99_hi_ns);
		fprintf(out, ",\"ledger_vcpus\":%u,", v->ledger_vcpus);
		json_states(out, v->ledger_vcpus, v->state_ns, v->costop_ns);
		fputc('}', out);
	}
	fputs("],\"kvm\":[", out);
	for (size_t i = 0; i < f->nr_exits; i++) {
		const struct live_exit *e = &f->exits[i];

		fprintf(out, "%s{\"tid\":%u,\"isa\":%u,\"reason\":%u,\"exit\":", i ? "," : "", e->tid,
			e->isa, e->reason);
		if (json_str(out, exit_name(ename, sizeof(ename), meta, e)))
			return -ENOMEM;
		fprintf(out, ",\"count\":%llu,\"handling_ns\":%llu}", (unsigned long long)e->count,
			(unsigned long long)e->handling_ns);
	}
	fputs("]}\n", out);
	return fflush(out) || ferror(out) ? -(errno ? errno : EIO) : 0;
}

/* ---- the screen ---- */

static void put(struct live_screen *s, const char *p, size_t n)
{
	if (s->len + n > s->cap) {
		size_t c = (s->len + n) * 2 + 4096;
		char *b = realloc(s->buf, c);

		if (!b)
			return;
		s->buf = b;
		s->cap = c;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

/* One screen line: cut to the width (counting characters, not UTF-8 bytes), then cleared to
 * the end; reverse video with inverse. */
static void put_line(struct live_screen *s, const char *line, bool inverse)
{
	unsigned int w = 0;
	const char *p = line;

	if (inverse)
		put(s, "\033[7m", 4);
	while (*p && w < s->cols) {
		const char *q = p + 1;

		while ((*q & 0xc0) == 0x80)
			q++;
		put(s, p, (size_t)(q - p));
		p = q;
		w++;
	}
	if (inverse) {
		for (; w < s->cols; w++)
			put(s, " ", 1);
		put(s, "\033[0m", 4);
	}
	put(s, "\033[K\r\n", 5);
}

/* Whether VM name is open in the KVM view (a slot of s->open_vm: *slot). */
static bool vm_open(struct live_screen *s, const char *name, size_t *slot)
{
	for (size_t i = 0; i < LIVE_OPEN_VMS; i++) {
		if (s->open_vm[i][0] && !strcmp(s->open_vm[i], name)) {
			*slot = i;
			return true;
		}
	}
	return false;
}

/* Key n (1-9) of the KVM view: opens the n-th VM shown, or closes it. */
static void toggle_vm(struct live_screen *s, size_t n)
{
	size_t slot;

	if (!s->f || n >= s->f->nr_vms)
		return;
	if (vm_open(s, s->f->vms[n].name, &slot)) {
		s->open_vm[slot][0] = '\0';
		return;
	}
	for (slot = 0; slot < LIVE_OPEN_VMS; slot++) {
		if (!s->open_vm[slot][0]) {
			snprintf(s->open_vm[slot], sizeof(s->open_vm[slot]), "%s", s->f->vms[n].name);
			return;
		}
	}
}

/* The KVM view's VM rows from line used on, each open one with its threads (vCPUs first).
 * Returns the lines used. */
static unsigned int draw_vms(struct live_screen *s, const struct live_frame *f, unsigned int used)
{
	char line[2048], row[2040];
	bool narrow = narrow_screen(s), ledger = vm_ledger_shown(s, f);
	size_t slot;

	for (size_t i = 0; i < f->nr_vms && used < s->rows; i++) {
		vm_line(line, sizeof(line), i, &f->vms[i], f, ledger);
		put_line(s, line, false);
		used++;
		if (!vm_open(s, f->vms[i].name, &slot))
			continue;
		for (int vcpu = 1; vcpu >= 0; vcpu--) {
			for (size_t k = 0; k < f->nr_tasks && used < s->rows; k++) {
				const struct live_task *t = &f->tasks[k];

				if (t->vm != (int32_t)i || t->vcpu != (bool)vcpu)
					continue;
				task_line(row, sizeof(row), t, f, narrow);
				snprintf(line, sizeof(line), "  %s", row);
				put_line(s, line, false);
				used++;
			}
		}
	}
	return used;
}

static void draw(struct live_screen *s)
{
	const struct live_frame *f = s->f;
	unsigned int used = 0;
	char line[2048], filt[256];
	ssize_t n;

	s->len = 0;
	put(s, "\033[H", 3);
	if (!f) {
		put_line(s, "pwz-bpf --live: waiting for the first interval...", false);
		used++;
	} else {
		header_line(line, sizeof(line), f);
		put_line(s, line, false);
		termsafe_str(filt, sizeof(filt), s->filter);
		snprintf(line, sizeof(line), "%s view, sort %s%s%s%s%s  | %s" LIVE_SORT_KEY_LIST " sort  / filter  k %s  space pause  q quit",
			 s->kvm ? "KVM" : "task", s->kvm ? "VMs by ready, exits" :
			 sort_keys[s->sort].name,
			 s->editing || *s->filter ? "  filter: " : "", filt,
			 s->editing ? "_" : "", s->paused ? "  [PAUSED]" : "",
			 s->kvm && f->nr_vms ? "1-9 open a VM " : "", s->kvm ? "tasks" : "KVM");
		put_line(s, line, false);
		put_line(s, s->kvm ? (f->nr_vms ? (vm_ledger_shown(s, f) ? vm_cols_ledger : vm_cols) :
				      kvm_cols) :
			 narrow_screen(s) ? task_cols_narrow : task_cols, true);
		used = 3;
		if (!s->kvm) {
			bool narrow = narrow_screen(s);
			size_t nt;
			struct live_task *v = sorted_tasks(f, s->sort, s->filter, &nt);

			for (size_t i = 0; v && i < nt && used < s->rows; i++, used++) {
				task_line(line, sizeof(line), &v[i], f, narrow);
				put_line(s, line, false);
			}
			free(v);
		} else {
			struct live_exit *e = malloc((f->nr_exits ? f->nr_exits : 1) * sizeof(*e));

			used = draw_vms(s, f, used);
			if (f->nr_vms && used < s->rows) {
				put_line(s, kvm_cols, true);
				used++;
			}
			if (e) {
				memcpy(e, f->exits, f->nr_exits * sizeof(*e));
				qsort(e, f->nr_exits, sizeof(*e), exit_order);
			}
			for (size_t i = 0; e && i < f->nr_exits && used < s->rows; i++) {
				const struct live_task *t = find_task(f, e[i].tid);

				if (*s->filter && t && !strcasestr(t->name, s->filter))
					continue;
				exit_line(line, sizeof(line), &e[i], f, s->meta);
				put_line(s, line, false);
				used++;
			}
			if (e && !f->nr_exits && used < s->rows) {
				put_line(s, "(no KVM exits in this interval)", false);
				used++;
			}
			free(e);
		}
	}
	/* the last row's line feed would scroll the screen: drop it */
	if (used >= s->rows && s->len >= 2 && !memcmp(s->buf + s->len - 2, "\r\n", 2))
		s->len -= 2;
	put(s, "\033[J", 3);
	for (size_t off = 0; off < s->len; off += (size_t)n) {
		n = write(s->out, s->buf + off, s->len - off);
		if (n <= 0 && errno != EINTR)
			break;
		if (n < 0)
			n = 0;
	}
}

void live_screen__frame(struct live_screen *s, const struct live_frame *f)
{
	if (s->paused)
		return;
	s->f = f;
	draw(s);
}

/* One key; returns true when the view changed. */
static bool key(struct live_screen *s, unsigned char c, bool *quit)
{
	if (s->editing) {
		size_t l = strlen(s->filter);

		if (c == '\r' || c == '\n') {
			s->editing = false;
		} else if (c == 27) {
			s->editing = false;
			s->filter[0] = '\0';
		} else if (c == 127 || c == 8) {
			if (l)
				s->filter[l - 1] = '\0';
		} else if (c == 3) {
			*quit = true;
		} else if (c >= 32 && l + 1 < sizeof(s->filter)) {
			s->filter[l] = (char)c;
			s->filter[l + 1] = '\0';
		}
		return true;
	}
	for (size_t i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++) {
		if (c == (unsigned char)sort_keys[i].key[0]) {
			s->sort = (enum sort_key)i;
			return true;
		}
	}
	switch (c) {
	case 'q': case 'Q': case 3: *quit = true; return false;
	case 'k': case 'K': s->kvm = !s->kvm; return true;
	case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
		if (!s->kvm)
			return false;
		toggle_vm(s, (size_t)(c - '1'));
		return true;
	case ' ': s->paused = !s->paused; return true;
	case '/': s->editing = true; s->filter[0] = '\0'; return true;
	case 27: s->filter[0] = '\0'; return true;
	default: return false;
	}
}

int live_screen__input(struct live_screen *s, int timeout_ms)
{
	struct pollfd pfd = { .fd = s->in, .events = POLLIN };
	unsigned char buf[64];
	bool changed = false, quit = false;
	int r = poll(&pfd, 1, timeout_ms);

	if (r > 0 && (pfd.revents & POLLIN)) {
		ssize_t n = read(s->in, buf, sizeof(buf));

		/* an escape sequence (arrows, function keys) is one ESC and the rest ignored */
		if (n > 1 && buf[0] == 27 && !s->editing)
			n = 0;
		for (ssize_t i = 0; i < n && !quit; i++)
			changed |= key(s, buf[i], &quit);
	} else if (r > 0 && (pfd.revents & (POLLHUP | POLLERR))) {
		return LIVE_SCREEN_QUIT;	/* the terminal went away */
	}
	if (g_winch) {
		g_winch = 0;
		get_size(s);
		if (write(s->out, "\033[2J", 4) < 0)
			return LIVE_SCREEN_QUIT;
		changed = true;
	}
	if (quit)
		return LIVE_SCREEN_QUIT;
	if (changed) {
		bool was = s->paused;

		s->paused = false;
		draw(s);
		s->paused = was;
	}
	return LIVE_SCREEN_NONE;
}
