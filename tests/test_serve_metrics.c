// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/serve_metrics.c's KVM exit family over frames made here: the kernel's
 * reading (user/live.h) and the capture's counters are wrapped at link time (the Makefile). */
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

bool __wrap_capture__run_delay(const struct capture *c)
{
	(void)c;
	return false;
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

/* The tid the wrapped live__forget_gone() tells gone at each scrape (0 none), from the first. */
static const uint32_t *forget_at;
static size_t nr_forget_at, forget_calls;

int __wrap_live__forget_gone(struct live *l, void (*gone)(void *ctx, uint32_t tid), void *ctx);
bool __wrap_task_table__alive(const struct task_table *tt, uint32_t tid);

int __wrap_live__forget_gone(struct live *l, void (*gone)(void *ctx, uint32_t tid), void *ctx)
{
	uint32_t tid = forget_calls < nr_forget_at ? forget_at[forget_calls] : 0;

	(void)l;
	forget_calls++;
	if (!tid)
		return 0;
	gone(ctx, tid);
	return 1;
}

bool __wrap_task_table__alive(const struct task_table *tt, uint32_t tid)
{
	(void)tt, (void)tid;
	return true;
}

/* The ledgers each scrape reads (capture__vcpu_ledgers()): ledgers[scrape], nr_ledgers each. */
static const struct pwz_vcpu_ledger (*ledgers)[2];
static size_t nr_ledgers, ledger_reads;

bool __wrap_capture__has_ledger(const struct capture *c)
{
	(void)c;
	return ledgers != NULL;
}

int __wrap_capture__vcpu_ledgers(struct capture *c, uint64_t end_ns, bool hists,
				 int (*cb)(void *ctx, const struct pwz_vcpu_ledger *l), void *ctx)
{
	const struct pwz_vcpu_ledger *now = ledgers[ledger_reads++];
	int e = 0;

	(void)c, (void)end_ns, (void)hists;
	for (size_t i = 0; !e && i < nr_ledgers; i++)
		e = cb(ctx, &now[i]);
	return e;
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
	char err[128], *s;
	struct serve_metrics *sm;

	(void)state;
	assert_int_equal(pwz_meta_add_exit_name(&meta, PWZ_ISA_VMX, 30, "IO_INSTRUCTION"), 0);
	assert_int_equal(pwz_meta_add_exit_name(&meta, PWZ_ISA_VMX, 12, "HLT"), 0);
	frames = f;
	nr_frames = 3;
	promtext_init(&pt);
	sm = serve_metrics__new(NULL, NULL, 0, &meta, &o, err, sizeof(err));
	assert_non_null(sm);

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
	char err[128], *s, want[MANY * 96], *w = want;
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
	frames = f;
	nr_frames = 3;
	promtext_init(&pt);
	sm = serve_metrics__new(NULL, NULL, 0, &meta, &o, err, sizeof(err));
	assert_non_null(sm);
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

/* Metrics fed frames f[0 .. nf) and, scrape by scrape, ledgers led (nl each; NULL none); the
 * page in pt (initialised here). */
static struct serve_metrics *metrics_of(struct live_frame *f, size_t nf,
					const struct pwz_vcpu_ledger (*led)[2], size_t nl,
					struct promtext *pt)
{
	static const struct serve_metrics_opts o = { 0 };
	static const struct pwz_meta meta = { 0 };
	struct serve_metrics *sm;
	char err[128];

	frames = f;
	nr_frames = nf;
	ledgers = led;
	nr_ledgers = nl;
	ledger_reads = 0;
	promtext_init(pt);
	sm = serve_metrics__new(NULL, NULL, 0, &meta, &o, err, sizeof(err));
	assert_non_null(sm);
	return sm;
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
	static const struct pwz_vcpu_ledger led[3][2] = {
		{ { .tid = 11, .ns = { 1000000000 } }, { .tid = 99, .ns = { 5 } } },
		{ { .tid = 11, .ns = { 2000000000, 0, 0, 0, 250000000, 250000000 },
		    .cause_ns = { 100000000, 0, 0, 150000000 }, .costop_ns = 100000000 },
		  { .tid = 12, .ns = { 1000000000 } } },
		{ { .tid = 11, .ns = { 3000000000, 0, 0, 0, 500000000, 250000000 },
		    .cause_ns = { 100000000, 0, 0, 150000000 }, .costop_ns = 125000000 },
		  { .tid = 12, .ns = { 1000000000 } } },
	};
	struct live_task t1[] = { task(20, 20, "worker", 0) };
	struct live_task t2[] = { task(11, 10, "vmA.vcpu0", 1), task(12, 10, "vmA.vcpu1", 0) };
	struct live_frame f[] = { frame(t1, 1, NULL, 0), frame(t2, 2, NULL, 0),
				  frame(NULL, 0, NULL, 0) };
	struct promtext pt;
	struct serve_metrics *sm = metrics_of(f, 3, led, 2, &pt);
	char *s;

	(void)state;
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
	ledgers = NULL;
}

/*
 * A vCPU thread gone (live__forget_gone()) leaves its series as they were; a new vCPU thread
 * on its tid, under the same name, starts a ledger from nothing in the kernel, and the series
 * grow by all of it.
 */
static void test_ledger_recycled_tid(void **state)
{
	static const struct pwz_vcpu_ledger led[3][2] = {
		{ { .tid = 11, .ns = { 2000000000 } } },
		{ { .tid = 11, .ns = { 500000000 } } },		/* the new thread's */
		{ { .tid = 11, .ns = { 750000000 } } },
	};
	static const uint32_t gone[] = { 11, 0, 0 };
	struct live_task t1[] = { task(11, 10, "vmA.vcpu0", 1) };
	struct live_frame f[] = { frame(t1, 1, NULL, 0), frame(t1, 1, NULL, 0),
				  frame(t1, 1, NULL, 0) };
	const char *guest = "pwz_vcpu_seconds_total{vm=\"vmA\",vcpu=\"0\",state=\"guest\"} ";
	static const char *const want[] = { "2.000000000\n", "2.500000000\n", "2.750000000\n" };
	struct promtext pt;
	struct serve_metrics *sm;
	char *s;

	(void)state;
	forget_at = gone;
	nr_forget_at = 3;
	forget_calls = 0;
	sm = metrics_of(f, 3, led, 1, &pt);
	for (int i = 0; i < 3; i++) {
		char line[128];

		assert_int_equal(serve_metrics__scrape(sm, &pt), 0);
		s = family_lines(&pt, "pwz_vcpu_seconds_total");
		snprintf(line, sizeof(line), "%s%s", guest, want[i]);
		if (!strstr(s, line))
			fail_msg("scrape %d: want %sgot:\n%s", i, line, s);
		free(s);
	}
	serve_metrics__free(sm);
	promtext_release(&pt);
	ledgers = NULL;
	forget_at = NULL;
	nr_forget_at = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exits_by_reason),
		cmocka_unit_test(test_many_reasons),
		cmocka_unit_test(test_ledger_states),
		cmocka_unit_test(test_ledger_recycled_tid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
