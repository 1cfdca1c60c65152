// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/serve_metrics.c's KVM exit, ledger and per-cgroup families over frames
 * made here: the kernel's reading (user/live.h), the capture's counters and the task table's
 * names and cgroups are wrapped at link time (the Makefile). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "capture.h"
#include "capture_tasks.h"
#include "live.h"
#include "live_vms.h"
#include "promtext.h"
#include "records.h"
#include "serve_metrics.h"

/* The frames the wrapped live__sample() hands out, one a call. */
static struct live_frame *frames;
static size_t nr_frames, next_frame;

struct live *__wrap_live__new(struct capture *cap, struct task_table *tt, uint64_t t0,
			      bool (*selected)(void *ctx, uint32_t tid), void *ctx, char *err,
			      size_t errlen);
int __wrap_live__sample(struct live *l, struct live_frame **f);
void __wrap_live__free(struct live *l);
int __wrap_capture__counters(struct capture *c, uint64_t out[PWZ_CNT_MAX]);
bool __wrap_capture__run_delay(const struct capture *c);
int __wrap_task_table__forget_gone(struct task_table *tt,
				   int (*write)(void *ctx, const struct pwz_task *t), void *ctx);
const char *__wrap_task_table__name(const struct task_table *tt, uint32_t tid);
const char *__wrap_task_table__cgroup(struct task_table *tt, uint32_t tid);

struct live *__wrap_live__new(struct capture *cap, struct task_table *tt, uint64_t t0,
			      bool (*selected)(void *ctx, uint32_t tid), void *ctx, char *err,
			      size_t errlen)
{
	static char token;

	(void)cap, (void)tt, (void)t0, (void)selected, (void)ctx, (void)err, (void)errlen;
	next_frame = 0;
	return (struct live *)&token;
}

int __wrap_live__sample(struct live *l, struct live_frame **f)
{
	(void)l;
	assert_true(next_frame < nr_frames);
	*f = &frames[next_frame++];
	return 0;
}

void __wrap_live__free(struct live *l)
{
	(void)l;
}

int __wrap_capture__counters(struct capture *c, uint64_t out[PWZ_CNT_MAX])
{
	(void)c;
	memset(out, 0, PWZ_CNT_MAX * sizeof(*out));
	return 0;
}

/* Whether the capture reads the kernel's charge of the waits (capture__run_delay()). */
static bool run_delay;

bool __wrap_capture__run_delay(const struct capture *c)
{
	(void)c;
	return run_delay;
}

int __wrap_task_table__forget_gone(struct task_table *tt,
				   int (*write)(void *ctx, const struct pwz_task *t), void *ctx)
{
	(void)tt, (void)write, (void)ctx;
	return 0;
}

const char *__wrap_task_table__name(const struct task_table *tt, uint32_t tid)
{
	(void)tt, (void)tid;
	return NULL;
}

/* What the wrapped task_table__cgroup() answers: its process leader's path per thread, as the
 * table keeps it (cg_paths[i] for cg_tids[i]; "" for the others). */
#define MAX_CG 16
static uint32_t cg_tids[MAX_CG];
static const char *cg_paths[MAX_CG];
static size_t nr_cg;

const char *__wrap_task_table__cgroup(struct task_table *tt, uint32_t tid)
{
	(void)tt;
	for (size_t i = 0; i < nr_cg; i++)
		if (cg_tids[i] == tid)
			return cg_paths[i];
	return "";
}

/* Thread tid's process is in cgroup path from now on (as the task table would say). */
static void set_cgroup(uint32_t tid, const char *path)
{
	for (size_t i = 0; i < nr_cg; i++) {
		if (cg_tids[i] == tid) {
			cg_paths[i] = path;
			return;
		}
	}
	assert_true(nr_cg < MAX_CG);
	cg_tids[nr_cg] = tid;
	cg_paths[nr_cg++] = path;
}

int __wrap_live__forget_gone(struct live *l);
bool __wrap_task_table__alive(const struct task_table *tt, uint32_t tid);

int __wrap_live__forget_gone(struct live *l)
{
	(void)l;
	return 0;
}

bool __wrap_task_table__alive(const struct task_table *tt, uint32_t tid)
{
	(void)tt, (void)tid;
	return true;
}

/* Metrics over the frames f[0 .. n) (each scrape takes the next) with options o, and the empty
 * page pt. */
static struct serve_metrics *metrics_over(struct live_frame *f, size_t n,
					  const struct serve_metrics_opts *o,
					  const struct pwz_meta *meta, struct promtext *pt)
{
	char err[128];
	struct serve_metrics *sm;

	frames = f;
	nr_frames = n;
	promtext_init(pt);
	sm = serve_metrics__new(NULL, NULL, 0, meta, o, err, sizeof(err));
	assert_non_null(sm);
	return sm;
}

/* t with a ledger (model.h R10) over its frame: guest, halt and ready ns, its ready time
 * from sibling vCPUs and from the host, its co-stop. */
static struct live_task with_ledger(struct live_task t, uint64_t guest, uint64_t halt,
				    uint64_t ready, uint64_t sibling, uint64_t host, uint64_t costop)
{
	t.has_ledger = true;
	t.state_ns[PWZ_VCPU_GUEST] = guest;
	t.state_ns[PWZ_VCPU_HALT] = halt;
	t.state_ns[PWZ_VCPU_READY] = ready;
	t.cause_ns[PWZ_CAUSE_SAME_VM_VCPU] = sibling;
	t.cause_ns[PWZ_CAUSE_HOST] = host;
	t.costop_ns = costop;
	return t;
}

static uint64_t cpu_zero[1];

/* A frame of the tasks and exits given (both borrowed), its threads classified as user/live.c
 * does (each task's vm and vcpu set; the VM rows themselves are not used here). */
static struct live_frame frame(struct live_task *tasks, size_t nt, struct live_exit *exits,
			       size_t ne)
{
	struct live_frame f = { .nr_cpus = 1, .nr_cpu_slots = 1, .cpu_busy_ns = cpu_zero,
				.cpu_idle_ns = cpu_zero, .cpu_unseen_ns = cpu_zero, .dt_ns = 1000,
				.tasks = tasks, .nr_tasks = nt, .exits = exits, .nr_exits = ne };

	assert_int_equal(live_frame_vms(&f, NULL, NULL), 0);
	free(f.vms);
	f.vms = NULL;
	f.nr_vms = 0;
	return f;
}

static struct live_task task(uint32_t tid, uint32_t tgid, const char *name, uint64_t exits)
{
	struct live_task t = { .tid = tid, .tgid = tgid, .run_ns = 1000, .exits = exits };

	snprintf(t.name, sizeof(t.name), "%s", name);
	return t;
}

/* The lines of family name in page pt, in their order, as one string (the caller frees it). */
static char *family_lines(const struct promtext *pt, const char *name)
{
	size_t len = strlen(name), out = 0;
	char *s = calloc(1, pt->len + 1);
	const char *p = pt->buf, *end = pt->buf + pt->len;

	assert_non_null(s);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (n > len && !memcmp(p, name, len) && p[len] == '{') {
			memcpy(s + out, p, n);
			out += n;
		}
		p += n;
	}
	return s;
}

/* The lines of family name on pt's page are want. */
static void check_family(const struct promtext *pt, const char *name, const char *want)
{
	char *s = family_lines(pt, name);

	assert_string_equal(s, want);
	free(s);
}

/* Scrapes sm once into pt and returns the exit family's lines (the caller frees them). */
static char *scrape_exits(struct serve_metrics *sm, struct promtext *pt)
{
	assert_int_equal(serve_metrics__scrape(sm, pt), 0);
	return family_lines(pt, "pwz_vcpu_exits_total");
}

/*
 * Exits are counted per vCPU and reason since the start, each vCPU's reasons in the order they
 * were first seen, across scrapes; a reason is labelled by its name in the capture's table, else
 * by its code; a thread with exits but no vCPU name is a vCPU "tid<tid>" of a VM of its name.
 */
static void test_exits_by_reason(void **state)
{
	static const char want1[] =
		"pwz_vcpu_exits_total{vm=\"vmA\",vcpu=\"0\",reason=\"IO_INSTRUCTION\"} 2\n"
		"pwz_vcpu_exits_total{vm=\"vmA\",vcpu=\"0\",reason=\"1\"} 1\n"
		"pwz_vcpu_exits_total{vm=\"vmA\",vcpu=\"1\",reason=\"HLT\"} 5\n"
		"pwz_vcpu_exits_total{vm=\"worker\",vcpu=\"tid20\",reason=\"123\"} 1\n";
	static const char want2[] =
		"pwz_vcpu_exits_total{vm=\"vmA\",vcpu=\"0\",reason=\"IO_INSTRUCTION\"} 5\n"
		"pwz_vcpu_exits_total{vm=\"vmA\",vcpu=\"0\",reason=\"1\"} 1\n"
		"pwz_vcpu_exits_total{vm=\"vmA\",vcpu=\"0\",reason=\"48\"} 4\n"
		"pwz_vcpu_exits_total{vm=\"vmA\",vcpu=\"1\",reason=\"HLT\"} 5\n"
		"pwz_vcpu_exits_total{vm=\"worker\",vcpu=\"tid20\",reason=\"123\"} 1\n";
	struct live_task t1[] = { task(11, 10, "vmA.vcpu0", 3), task(12, 10, "vmA.vcpu1", 5),
				  task(20, 20, "worker", 1) };
	struct live_exit x1[] = {
		{ 11, PWZ_ISA_VMX, 30, 2, 100 }, { 11, PWZ_ISA_VMX, 1, 1, 10 },
		{ 12, PWZ_ISA_VMX, 12, 5, 50 }, { 20, PWZ_ISA_SVM, 0x7b, 1, 7 },
	};
	struct live_task t2[] = { task(11, 10, "vmA.vcpu0", 7) };
	struct live_exit x2[] = { { 11, PWZ_ISA_VMX, 48, 4, 40 }, { 11, PWZ_ISA_VMX, 30, 3, 30 } };
	struct live_frame f[] = { frame(NULL, 0, NULL, 0), frame(t1, 3, x1, 4),
				  frame(t2, 1, x2, 2) };
	struct serve_metrics_opts o = { 0 };
	struct pwz_meta meta = { 0 };
	struct promtext pt;
	char *s;
	struct serve_metrics *sm;

	(void)state;
	assert_int_equal(pwz_meta_add_exit_name(&meta, PWZ_ISA_VMX, 30, "IO_INSTRUCTION"), 0);
	assert_int_equal(pwz_meta_add_exit_name(&meta, PWZ_ISA_VMX, 12, "HLT"), 0);
	sm = metrics_over(f, 3, &o, &meta, &pt);

	s = scrape_exits(sm, &pt);	/* no exits yet */
	assert_string_equal(s, "");
	free(s);
	s = scrape_exits(sm, &pt);
	assert_string_equal(s, want1);
	free(s);
	s = scrape_exits(sm, &pt);
	assert_string_equal(s, want2);
	free(s);
	serve_metrics__free(sm);
	promtext_release(&pt);
	pwz_meta_free(&meta);
}

#define MANY 40

/* A vCPU with many reasons, over two scrapes that see them in other orders: each is counted
 * once, in the order of its first sight (the first scrape's), VMX before SVM there. */
static void test_many_reasons(void **state)
{
	struct live_task t[] = { task(11, 10, "vmB.vcpu3", 1) };
	struct live_exit x1[MANY], x2[MANY];
	struct live_frame f[3];
	struct serve_metrics_opts o = { 0 };
	struct pwz_meta meta = { 0 };
	struct promtext pt;
	char *s, want[MANY * 96], *w = want;
	struct serve_metrics *sm;

	(void)state;
	for (uint32_t i = 0; i < MANY; i++) {
		/* first scrape: VMX reasons 0..19 descending, then SVM 0..19 */
		x1[i] = (struct live_exit){ 11, i < MANY / 2 ? PWZ_ISA_VMX : PWZ_ISA_SVM,
					    i < MANY / 2 ? MANY / 2 - 1 - i : i - MANY / 2, 1, 0 };
		x2[MANY - 1 - i] = x1[i];
		x2[MANY - 1 - i].count = i + 1;
	}
	f[0] = frame(NULL, 0, NULL, 0);
	f[1] = frame(t, 1, x1, MANY);
	f[2] = frame(t, 1, x2, MANY);
	sm = metrics_over(f, 3, &o, &meta, &pt);
	free(scrape_exits(sm, &pt));
	free(scrape_exits(sm, &pt));
	s = scrape_exits(sm, &pt);
	for (uint32_t i = 0; i < MANY; i++)
		w += sprintf(w, "pwz_vcpu_exits_total{vm=\"vmB\",vcpu=\"3\",reason=\"%u\"} %u\n",
			     x1[i].reason, 1 + i + 1);
	assert_string_equal(s, want);
	free(s);
	serve_metrics__free(sm);
	promtext_release(&pt);
}

/*
 * R10: a vCPU's state series are its thread's ledger since the start, added once a frame made
 * the thread a vCPU (its whole ledger then, not only what grew since); a thread that is no vCPU
 * has none; the VM's series sum its vCPUs'.
 */
static void test_ledger_states(void **state)
{
	static const char want_vcpu[] =
		"pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"0\",state=\"guest\"} 3.000000000\n"
		"pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"0\",state=\"exit_kernel\"} 0.000000000\n"
		"pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"0\",state=\"exit_user\"} 0.000000000\n"
		"pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"0\",state=\"halt_poll\"} 0.000000000\n"
		"pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"0\",state=\"halt\"} 0.500000000\n"
		"pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"0\",state=\"ready\"} 0.250000000\n"
		"pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"0\",state=\"other_on_cpu\"} 0.000000000\n"
		"pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"0\",state=\"unseen\"} 0.000000000\n"
		"pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"1\",state=\"guest\"} 1.000000000\n";
	/* a thread that is no vCPU has a ledger too: it counts nowhere */
	struct live_task t1[] = { with_ledger(task(20, 20, "worker", 0), 5, 0, 0, 0, 0, 0) };
	struct live_task t2[] = {
		with_ledger(task(11, 10, "vmA.vcpu0", 1), 2000000000, 250000000, 250000000,
			    100000000, 150000000, 100000000),
		with_ledger(task(12, 10, "vmA.vcpu1", 0), 1000000000, 0, 0, 0, 0, 0),
	};
	struct live_task t3[] = {
		with_ledger(task(11, 10, "vmA.vcpu0", 1), 1000000000, 250000000, 0, 0, 0, 25000000),
		with_ledger(task(12, 10, "vmA.vcpu1", 0), 0, 0, 0, 0, 0, 0),
	};
	struct live_frame f[] = { frame(t1, 1, NULL, 0), frame(t2, 2, NULL, 0),
				  frame(t3, 2, NULL, 0) };
	struct serve_metrics_opts o = { 0 };
	struct pwz_meta meta = { 0 };
	struct promtext pt;
	char *s;
	struct serve_metrics *sm;

	(void)state;
	sm = metrics_over(f, 3, &o, &meta, &pt);
	assert_int_equal(serve_metrics__scrape(sm, &pt), 0);	/* no vCPU yet */
	s = family_lines(&pt, "pwz_vcpu_seconds_total");
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(serve_metrics__scrape(sm, &pt), 0);
	assert_int_equal(serve_metrics__scrape(sm, &pt), 0);
	s = family_lines(&pt, "pwz_vcpu_seconds_total");
	/* vCPU 1 has its 8 states too: compare vCPU 0's and the first of vCPU 1 */
	if (strncmp(s, want_vcpu, sizeof(want_vcpu) - 1))
		fail_msg("got:\n%s", s);
	free(s);
	s = family_lines(&pt, "pwz_vm_seconds_total");
	assert_non_null(strstr(s, "pwz_vm_seconds_total{vm=\"vmA\",state=\"guest\"} 4.000000000\n"));
	assert_non_null(strstr(s, "pwz_vm_seconds_total{vm=\"vmA\",state=\"ready\"} 0.250000000\n"));
	free(s);
	s = family_lines(&pt, "pwz_vcpu_ready_cause_seconds_total");
	assert_non_null(strstr(s, "{vm=\"vmA\",vcpu=\"0\",cause=\"same_vm_vcpu\"} 0.100000000\n"));
	assert_non_null(strstr(s, "{vm=\"vmA\",vcpu=\"0\",cause=\"host\"} 0.150000000\n"));
	assert_non_null(strstr(s, "{vm=\"vmA\",vcpu=\"1\",cause=\"host\"} 0.000000000\n"));
	free(s);
	s = family_lines(&pt, "pwz_vm_costop_seconds_total");
	assert_string_equal(s, "pwz_vm_costop_seconds_total{vm=\"vmA\"} 0.125000000\n");
	free(s);
	serve_metrics__free(sm);
	promtext_release(&pt);
}

/* A thread over one interval with the figures given (ns; waits a count). */
static struct live_task sched_task(uint32_t tid, uint32_t tgid, const char *name, uint64_t run,
				   uint64_t wait, uint64_t waits, uint64_t delay)
{
	struct live_task t = task(tid, tgid, name, 0);

	t.run_ns = run;
	t.wait_ns = wait;
	t.waits = waits;
	t.run_delay_ns = delay;
	return t;
}

/* The page of pt as a string that starts with a newline (the caller frees it). */
static char *page_nl(const struct promtext *pt)
{
	char *s = calloc(1, pt->len + 2);

	assert_non_null(s);
	s[0] = '\n';
	memcpy(s + 1, pt->buf, pt->len);
	return s;
}

/* The value of sample series (name{labels}) on pt's page: seconds as nanoseconds (they are
 * written with nine decimals), a count as it is; UINT64_MAX when the page has no such line. */
static uint64_t sample_of(const struct promtext *pt, const char *series)
{
	char *page = page_nl(pt), key[512], *at, *end;
	uint64_t v = UINT64_MAX;

	snprintf(key, sizeof(key), "\n%s ", series);
	at = strstr(page, key);
	if (at) {
		v = strtoull(at + strlen(key), &end, 10);
		if (*end == '.')
			v = v * 1000000000ull + strtoull(end + 1, NULL, 10);
	}
	free(page);
	return v;
}

/* Scrapes sm once into pt. */
static void scrape(struct serve_metrics *sm, struct promtext *pt)
{
	assert_int_equal(serve_metrics__scrape(sm, pt), 0);
}

/* Every sample whose name starts with prefix on page before (page_nl()) is on page after with
 * a value no lower. */
static void check_grown(const char *before, const char *after, const char *prefix)
{
	char line[128];
	const char *p = before;
	size_t n = 0;

	snprintf(line, sizeof(line), "\n%s", prefix);
	while ((p = strstr(p, line))) {
		const char *sp = strchr(p + 1, ' '), *at;
		char key[512];
		double a, b;

		assert_non_null(sp);
		snprintf(key, sizeof(key), "%.*s ", (int)(sp - p), p);
		at = strstr(after, key);
		if (!at)
			fail_msg("%s gone", key + 1);
		a = strtod(sp + 1, NULL);
		b = strtod(at + strlen(key), NULL);
		if (b < a)
			fail_msg("%s went from %f to %f", key + 1, a, b);
		p = sp;
		n++;
	}
	assert_true(n > 0);
}

#define SVC "/system.slice/a.service"
#define SESSION "/user.slice/user-1000.slice/session-2.scope"

/*
 * A cgroup's counters are the sums of its threads' figures over the frames, each thread in its
 * process's path cut to 2 components ("/" is the root, an unknown path "unknown"), sorted by
 * path; a cgroup idle in a frame keeps its series; no counter decreases.
 */
static void test_cgroup_sums(void **state)
{
	static const char run2[] =
		"pwz_cgroup_run_seconds_total{cgroup=\"/\"} 0.125000000\n"
		"pwz_cgroup_run_seconds_total{cgroup=\"/system.slice/a.service\"} 1.750000000\n"
		"pwz_cgroup_run_seconds_total{cgroup=\"/user.slice/user-1000.slice\"} 2.000000000\n"
		"pwz_cgroup_run_seconds_total{cgroup=\"unknown\"} 0.003000000\n";
	static const char run3[] =
		"pwz_cgroup_run_seconds_total{cgroup=\"/\"} 0.125000000\n"
		"pwz_cgroup_run_seconds_total{cgroup=\"/system.slice/a.service\"} 2.750000000\n"
		"pwz_cgroup_run_seconds_total{cgroup=\"/user.slice/user-1000.slice\"} 2.500000000\n"
		"pwz_cgroup_run_seconds_total{cgroup=\"unknown\"} 0.003000000\n";
	static const char ready3[] =
		"pwz_cgroup_ready_seconds_total{cgroup=\"/\"} 0.001000000\n"
		"pwz_cgroup_ready_seconds_total{cgroup=\"/system.slice/a.service\"} 0.650000000\n"
		"pwz_cgroup_ready_seconds_total{cgroup=\"/user.slice/user-1000.slice\"} 0.500000000\n"
		"pwz_cgroup_ready_seconds_total{cgroup=\"unknown\"} 0.002000000\n";
	static const char waits3[] =
		"pwz_cgroup_ready_waits_total{cgroup=\"/\"} 1\n"
		"pwz_cgroup_ready_waits_total{cgroup=\"/system.slice/a.service\"} 7\n"
		"pwz_cgroup_ready_waits_total{cgroup=\"/user.slice/user-1000.slice\"} 5\n"
		"pwz_cgroup_ready_waits_total{cgroup=\"unknown\"} 4\n";
	static const char kernel3[] =
		"pwz_cgroup_ready_kernel_seconds_total{cgroup=\"/\"} 0.000000000\n"
		"pwz_cgroup_ready_kernel_seconds_total{cgroup=\"/system.slice/a.service\"} 0.360000000\n"
		"pwz_cgroup_ready_kernel_seconds_total{cgroup=\"/user.slice/user-1000.slice\"} 0.000000000\n"
		"pwz_cgroup_ready_kernel_seconds_total{cgroup=\"unknown\"} 0.000000000\n";
	struct live_task t1[] = {
		sched_task(30, 30, "svc", 1000000000, 200000000, 3, 100000000),
		sched_task(31, 30, "svc-worker", 500000000, 100000000, 2, 50000000),
		sched_task(40, 40, "svc-helper", 250000000, 50000000, 1, 10000000),
		sched_task(50, 50, "bash", 2000000000, 0, 0, 0),
		sched_task(60, 60, "kworker/0:1", 125000000, 1000000, 1, 0),
		sched_task(70, 70, "gone", 3000000, 2000000, 4, 0),
	};
	struct live_task t2[] = {
		sched_task(30, 30, "svc", 1000000000, 300000000, 1, 200000000),
		sched_task(50, 50, "bash", 500000000, 500000000, 5, 0),
	};
	struct live_frame f[] = { frame(NULL, 0, NULL, 0), frame(t1, 6, NULL, 0),
				  frame(t2, 2, NULL, 0) };
	struct serve_metrics_opts o = { .cgroup_depth = 2 };
	struct pwz_meta meta = { 0 };
	struct promtext pt;
	char *s, *before, *after;
	struct serve_metrics *sm;

	(void)state;
	nr_cg = 0;
	set_cgroup(30, SVC "/x");	/* below the cut */
	set_cgroup(31, SVC "/x");	/* its process's, not its own */
	set_cgroup(40, SVC);		/* another process, the same cut path: the same series */
	set_cgroup(50, SESSION);
	set_cgroup(60, "/");
	run_delay = true;
	sm = metrics_over(f, 3, &o, &meta, &pt);
	scrape(sm, &pt);	/* no thread yet: the families, no series */
	assert_non_null(strstr(pt.buf, "# TYPE pwz_cgroup_run_seconds_total counter\n"));
	s = family_lines(&pt, "pwz_cgroup_run_seconds_total");
	assert_string_equal(s, "");
	free(s);
	scrape(sm, &pt);
	check_family(&pt, "pwz_cgroup_run_seconds_total", run2);
	assert_int_equal(sample_of(&pt, "pwz_cgroup_ready_kernel_seconds_total{cgroup=\"" SVC "\"}"),
			 160000000);
	before = page_nl(&pt);
	set_cgroup(70, "/late");	/* the table knew nothing of it; no thread of it runs */
	scrape(sm, &pt);
	after = page_nl(&pt);
	check_grown(before, after, "pwz_cgroup_");
	free(before);
	free(after);
	check_family(&pt, "pwz_cgroup_run_seconds_total", run3);
	check_family(&pt, "pwz_cgroup_ready_seconds_total", ready3);
	check_family(&pt, "pwz_cgroup_ready_waits_total", waits3);
	check_family(&pt, "pwz_cgroup_ready_kernel_seconds_total", kernel3);
	assert_null(strstr(pt.buf, "cgroup=\"/late\""));
	serve_metrics__free(sm);
	promtext_release(&pt);
	run_delay = false;
}

/*
 * A cgroup's ready-interval histogram: cumulative buckets with the vCPUs' bounds that count its
 * threads' ended waits, its _count the +Inf bucket, its _sum their total; a vCPU alone in its
 * cgroup has the same buckets there as in its own family.
 */
static void test_cgroup_hist(void **state)
{
	/* a.service's cumulative buckets at 2^10, 2^11, 2^12 ns, and +Inf */
	static const uint64_t want[] = { 2, 5, 6, 7 };
	struct live_task t1[] = {
		sched_task(30, 30, "svc", 1000, 1000, 3, 0),
		sched_task(31, 30, "svc-worker", 1000, 1000, 3, 0),
		sched_task(11, 10, "vmA.vcpu0", 1000, 1000, 3, 0),
	};
	struct live_task t2[] = { sched_task(40, 40, "svc-helper", 1000, 1000, 1, 0) };
	struct live_frame f[3];
	struct serve_metrics_opts o = { .cgroup_depth = 2 };
	struct pwz_meta meta = { 0 };
	struct promtext pt;
	char series[256], vseries[256];
	static const char *const le[] = { "0.000001024", "0.000002048", "0.000004096", "+Inf" };
	struct serve_metrics *sm;

	(void)state;
	t1[0].wait_hist[0] = 2;			/* [0, 2^10) */
	t1[0].wait_hist[1] = 1;			/* [2^10, 2^10 + 2^8): below 2^11 */
	t1[0].ended_wait_ns = 1500;
	t1[1].wait_hist[PWZ_WHIST_SUB] = 2;	/* the octave's top bucket: below 2^11 still */
	t1[1].wait_hist[PWZ_WHIST_SUB + 1] = 1;	/* [2^11, ...): below 2^12 */
	t1[1].ended_wait_ns = 6000;
	t1[2].wait_hist[PWZ_WHIST_SUB + 2] = 3;	/* the vCPU: below 2^12 */
	t1[2].ended_wait_ns = 7000;
	t2[0].wait_hist[PWZ_WHIST_BUCKETS - 1] = 1;	/* 2^35 ns and longer: +Inf only */
	t2[0].ended_wait_ns = 40000000000ull;
	f[0] = frame(NULL, 0, NULL, 0);
	f[1] = frame(t1, 3, NULL, 0);
	f[2] = frame(t2, 1, NULL, 0);
	nr_cg = 0;
	set_cgroup(30, SVC);
	set_cgroup(31, SVC);
	set_cgroup(40, SVC "/sub");
	set_cgroup(11, "/machine.slice/vmA.scope/libvirt/emulator");
	sm = metrics_over(f, 3, &o, &meta, &pt);
	scrape(sm, &pt);
	scrape(sm, &pt);
	scrape(sm, &pt);
	assert_non_null(strstr(pt.buf, "# TYPE pwz_cgroup_ready_interval_seconds histogram\n"));
	for (size_t j = 0; j < 4; j++) {
		snprintf(series, sizeof(series),
			 "pwz_cgroup_ready_interval_seconds_bucket{cgroup=\"" SVC "\",le=\"%s\"}", le[j]);
		assert_int_equal(sample_of(&pt, series), want[j]);
	}
	/* cumulative: the bound 2^35 holds the 6 below 2^12, not the wait of 40 s */
	assert_int_equal(sample_of(&pt, "pwz_cgroup_ready_interval_seconds_bucket{cgroup=\"" SVC
				   "\",le=\"34.359738368\"}"), 6);
	assert_int_equal(sample_of(&pt, "pwz_cgroup_ready_interval_seconds_count{cgroup=\"" SVC
				   "\"}"), 7);
	assert_int_equal(sample_of(&pt, "pwz_cgroup_ready_interval_seconds_sum{cgroup=\"" SVC
				   "\"}"), 40000007500ull);
	/* the vCPU's two histograms: the same writer, the same buckets */
	for (unsigned int j = 0; j <= PWZ_WHIST_MAX_LOG2 - PWZ_WHIST_MIN_LOG2 + 1; j++) {
		char b[32];

		if (j <= PWZ_WHIST_MAX_LOG2 - PWZ_WHIST_MIN_LOG2)
			snprintf(b, sizeof(b), "%.9f", (double)(1ull << (PWZ_WHIST_MIN_LOG2 + j)) / 1e9);
		else
			snprintf(b, sizeof(b), "+Inf");
		snprintf(series, sizeof(series),
			 "pwz_cgroup_ready_interval_seconds_bucket{cgroup=\"/machine.slice/vmA.scope\",le=\"%s\"}",
			 b);
		snprintf(vseries, sizeof(vseries),
			 "pwz_vcpu_ready_interval_seconds_bucket{vm=\"vmA\",cgroup=\"/machine.slice/vmA.scope/libvirt/emulator\",vcpu=\"0\",le=\"%s\"}",
			 b);
		assert_int_equal(sample_of(&pt, series), j < 2 ? 0 : 3);
		assert_int_equal(sample_of(&pt, vseries), j < 2 ? 0 : 3);
	}
	assert_int_equal(sample_of(&pt, "pwz_vcpu_ready_interval_seconds_sum{vm=\"vmA\",cgroup=\"/machine.slice/vmA.scope/libvirt/emulator\",vcpu=\"0\"}"),
			 7000);
	serve_metrics__free(sm);
	promtext_release(&pt);
}

/* Scrapes two frames of one thread in cgroup path at depth and returns the page (freed by the
 * caller). */
static char *page_at_depth(unsigned int depth, const char *path)
{
	struct live_task t1[] = { sched_task(30, 30, "svc", 1000000, 0, 0, 0) };
	struct live_frame f[] = { frame(NULL, 0, NULL, 0), frame(t1, 1, NULL, 0) };
	struct serve_metrics_opts o = { .cgroup_depth = depth };
	struct pwz_meta meta = { 0 };
	struct promtext pt;
	char *s;
	struct serve_metrics *sm;

	nr_cg = 0;
	set_cgroup(30, path);
	sm = metrics_over(f, 2, &o, &meta, &pt);
	scrape(sm, &pt);
	scrape(sm, &pt);
	s = page_nl(&pt);
	serve_metrics__free(sm);
	promtext_release(&pt);
	return s;
}

/* --serve-cgroup-depth: the path cut to that many components, whole when shorter; 0 none of
 * the families. */
static void test_cgroup_depth(void **state)
{
	static const struct {
		unsigned int depth;
		const char *path, *want;
	} cases[] = {
		{ 1, SVC "/x/y", "/system.slice" },
		{ 2, SVC "/x/y", SVC },
		{ 3, SVC "/x/y", SVC "/x" },
		{ 16, SVC "/x/y", SVC "/x/y" },
		{ 2, "/init.scope", "/init.scope" },
		{ 2, "/", "/" },
		{ 2, "", "unknown" },
	};
	char want[256], *s;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = page_at_depth(cases[i].depth, cases[i].path);
		snprintf(want, sizeof(want), "\npwz_cgroup_run_seconds_total{cgroup=\"%s\"} 0.001000000\n",
			 cases[i].want);
		if (!strstr(s, want))
			fail_msg("depth %u of %s: no %s", cases[i].depth, cases[i].path, want + 1);
		assert_int_equal(strstr(strstr(s, want) + 1, "\npwz_cgroup_run_seconds_total{"), NULL);
		free(s);
	}
	s = page_at_depth(0, SVC);
	assert_null(strstr(s, "pwz_cgroup_"));
	assert_null(strstr(s, "cgroup="));
	free(s);
}

#define VM_CG "/machine.slice/machine-qemu-1-vmA.scope/libvirt/emulator"

/*
 * Every VM family carries the cgroup of the VM's process, whole, as it was when the VM was first
 * seen (a later change makes no new series); a VM whose cgroup was unknown then has no label.
 */
static void test_vm_cgroup_label(void **state)
{
	static const char *const with_vcpu[] = {
		"pwz_vcpu_run_seconds_total", "pwz_vcpu_ready_seconds_total",
		"pwz_vcpu_ready_waits_total", "pwz_vcpu_ready_interval_seconds_count",
		"pwz_vcpu_ready_interval_seconds_sum",
	};
	static const char *const per_vm[] = {
		"pwz_vm_run_seconds_total", "pwz_vm_ready_seconds_total", "pwz_vm_ready_waits_total",
		"pwz_vm_emulator_run_seconds_total", "pwz_vm_seconds_total", "pwz_vm_costop_seconds_total",
	};
	struct live_task t1[] = {
		sched_task(10, 10, "qemu", 7000, 0, 0, 0),
		with_ledger(sched_task(11, 10, "vmA.vcpu0", 1000, 500, 1, 0), 1000000000, 0, 0, 0,
			    0, 5),
		with_ledger(sched_task(21, 20, "vmB.vcpu0", 1000, 0, 0, 0), 0, 0, 0, 0, 0, 0),
	};
	struct live_task t2[] = {
		t1[0],
		with_ledger(sched_task(11, 10, "vmA.vcpu0", 1000, 500, 1, 0), 1000000000, 0, 0, 0,
			    0, 0),
		sched_task(12, 10, "vmA.vcpu1", 1000, 0, 0, 0), t1[2],
	};
	struct live_exit x1[] = { { 11, PWZ_ISA_VMX, 30, 2, 100 } };
	struct live_frame f[] = { frame(t1, 3, x1, 1), frame(t2, 4, x1, 1) };
	struct serve_metrics_opts o = { 0 };
	struct pwz_meta meta = { 0 };
	struct promtext pt;
	char series[256], *s;
	struct serve_metrics *sm;

	(void)state;
	nr_cg = 0;
	set_cgroup(10, VM_CG);
	set_cgroup(11, VM_CG);	/* its process's */
	sm = metrics_over(f, 2, &o, &meta, &pt);
	scrape(sm, &pt);
	set_cgroup(10, "/elsewhere");	/* moved, and vmB's now known: the labels stay */
	set_cgroup(11, "/elsewhere");
	set_cgroup(12, "/elsewhere");	/* a vCPU of vmA seen after the move */
	set_cgroup(21, "/machine.slice/vmB.scope");
	scrape(sm, &pt);
	assert_int_equal(sample_of(&pt, "pwz_vcpu_run_seconds_total{vm=\"vmA\",cgroup=\"" VM_CG
				   "\",vcpu=\"1\"}"), 1000);
	for (size_t i = 0; i < sizeof(with_vcpu) / sizeof(with_vcpu[0]); i++) {
		snprintf(series, sizeof(series), "%s{vm=\"vmA\",cgroup=\"" VM_CG "\",vcpu=\"0\"}",
			 with_vcpu[i]);
		if (sample_of(&pt, series) == UINT64_MAX)
			fail_msg("no %s", series);
		snprintf(series, sizeof(series), "%s{vm=\"vmB\",vcpu=\"0\"}", with_vcpu[i]);
		if (sample_of(&pt, series) == UINT64_MAX)
			fail_msg("no %s", series);
	}
	assert_int_equal(sample_of(&pt, "pwz_vcpu_run_seconds_total{vm=\"vmA\",cgroup=\"" VM_CG
				   "\",vcpu=\"0\"}"), 2000);
	assert_int_equal(sample_of(&pt, "pwz_vcpu_exits_total{vm=\"vmA\",cgroup=\"" VM_CG
				   "\",vcpu=\"0\",reason=\"30\"}"), 4);
	assert_int_equal(sample_of(&pt, "pwz_vcpu_seconds_total{vm=\"vmA\",cgroup=\"" VM_CG
				   "\",vcpu=\"0\",state=\"guest\"}"), 2000000000);
	assert_int_equal(sample_of(&pt, "pwz_vcpu_costop_seconds_total{vm=\"vmA\",cgroup=\"" VM_CG
				   "\",vcpu=\"0\"}"), 5);
	for (size_t i = 0; i < sizeof(per_vm) / sizeof(per_vm[0]); i++) {
		snprintf(series, sizeof(series), "%s{vm=\"vmA\",cgroup=\"" VM_CG "\"", per_vm[i]);
		if (!strstr(pt.buf, series))
			fail_msg("no %s", series);
	}
	assert_int_equal(sample_of(&pt, "pwz_vm_emulator_run_seconds_total{vm=\"vmA\",cgroup=\""
				   VM_CG "\"}"), 14000);
	assert_int_equal(sample_of(&pt, "pwz_vm_emulator_run_seconds_total{vm=\"vmB\"}"), 0);
	s = page_nl(&pt);
	assert_null(strstr(s, "/elsewhere"));
	assert_null(strstr(s, "vmB.scope"));
	assert_null(strstr(s, "cgroup=\"\""));
	free(s);
	serve_metrics__free(sm);
	promtext_release(&pt);
}

/*
 * A vCPU thread gone leaves its series as they were; a new vCPU thread on its tid, under the
 * same name, starts a ledger from nothing in the kernel (live__forget_gone()): its first frame
 * holds all of it, and the series grow by all of it.
 */
static void test_ledger_recycled_tid(void **state)
{
	static const char *const want[] = { "2.000000000\n", "2.500000000\n", "2.750000000\n" };
	static const struct serve_metrics_opts o = { 0 };
	static const struct pwz_meta meta = { 0 };
	struct live_task t1[] = { with_ledger(task(11, 10, "vmA.vcpu0", 1), 2000000000, 0, 0, 0,
					      0, 0) };
	struct live_task t2[] = { with_ledger(task(11, 10, "vmA.vcpu0", 1), 500000000, 0, 0, 0,
					      0, 0) };	/* the new thread's whole ledger */
	struct live_task t3[] = { with_ledger(task(11, 10, "vmA.vcpu0", 1), 250000000, 0, 0, 0,
					      0, 0) };
	struct live_frame f[] = { frame(t1, 1, NULL, 0), frame(t2, 1, NULL, 0),
				  frame(t3, 1, NULL, 0) };
	struct promtext pt;
	struct serve_metrics *sm;

	(void)state;
	sm = metrics_over(f, 3, &o, &meta, &pt);
	for (int i = 0; i < 3; i++) {
		char line[128], *s;

		assert_int_equal(serve_metrics__scrape(sm, &pt), 0);
		s = family_lines(&pt, "pwz_vcpu_seconds_total");
		snprintf(line, sizeof(line),
			 "pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"0\",state=\"guest\"} %s", want[i]);
		if (!strstr(s, line))
			fail_msg("scrape %d: want %sgot:\n%s", i, line, s);
		free(s);
	}
	serve_metrics__free(sm);
	promtext_release(&pt);
}

/*
 * --serve-threads: a thread that loses its place among the busiest leaves its series for
 * "other" and never gets it back (a series that came back would start lower: a counter going
 * back); what every thread ran stays in the family's sum.
 */
static void test_threads_never_go_back(void **state)
{
	static const struct serve_metrics_opts o = { .threads = 1 };
	static const struct pwz_meta meta = { 0 };
	struct live_task t1[] = { sched_task(1, 1, "a", 10, 0, 0, 0), sched_task(2, 2, "b", 5, 0, 0, 0) };
	struct live_task t2[] = { sched_task(1, 1, "a", 10, 0, 0, 0), sched_task(2, 2, "b", 1, 0, 0, 0) };
	struct live_task t3[] = { sched_task(2, 2, "b", 30, 0, 0, 0) };
	struct live_task t4[] = { sched_task(1, 1, "a", 30, 0, 0, 0) };
	struct live_frame f[] = { frame(t1, 2, NULL, 0), frame(t2, 2, NULL, 0),
				  frame(t3, 1, NULL, 0), frame(t4, 1, NULL, 0) };
	/* per scrape: a's series, b's (UINT64_MAX none), other's */
	static const uint64_t want[4][3] = {
		{ 0, UINT64_MAX, 15 },		/* a ranks first: its series starts */
		{ 10, UINT64_MAX, 16 },
		{ UINT64_MAX, 0, 56 },		/* b (36) passes a (20): a's 10 to other */
		{ UINT64_MAX, 0, 86 },		/* a (50) passes b again: stays in other */
	};
	struct promtext pt;
	struct serve_metrics *sm = metrics_over(f, 4, &o, &meta, &pt);

	(void)state;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(serve_metrics__scrape(sm, &pt), 0);
		assert_int_equal(sample_of(&pt, "pwz_thread_run_seconds_total{thread=\"a\",tid=\"1\"}"),
				 want[i][0]);
		assert_int_equal(sample_of(&pt, "pwz_thread_run_seconds_total{thread=\"b\",tid=\"2\"}"),
				 want[i][1]);
		assert_int_equal(sample_of(&pt, "pwz_thread_run_seconds_total{thread=\"other\"}"),
				 want[i][2]);
	}
	serve_metrics__free(sm);
	promtext_release(&pt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exits_by_reason),
		cmocka_unit_test(test_many_reasons),
		cmocka_unit_test(test_ledger_states),
		cmocka_unit_test(test_ledger_recycled_tid),
		cmocka_unit_test(test_threads_never_go_back),
		cmocka_unit_test(test_cgroup_sums),
		cmocka_unit_test(test_cgroup_hist),
		cmocka_unit_test(test_cgroup_depth),
		cmocka_unit_test(test_vm_cgroup_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
