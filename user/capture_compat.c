// SPDX-License-Identifier: GPL-2.0
/* What the running kernel offers the capture programs, probed before load, and the fallbacks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "capture_cfg.h"
#include "capture_compat.h"
#include "pwz.skel.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* The fallbacks named in CAPTURE_COMPAT_ENV. */
static unsigned int forced_from_env(void)
{
	const char *v = getenv(CAPTURE_COMPAT_ENV);
	unsigned int f = 0;

	if (!v)
		return 0;
	if (strstr(v, "raw_tp"))
		f |= CAPTURE_COMPAT_RAW_TP;
	if (strstr(v, "task_state"))
		f |= CAPTURE_COMPAT_TASK_STATE;
	if (strstr(v, "kvm_fmt"))
		f |= CAPTURE_COMPAT_KVM_FMT;
	if (strstr(v, "no_task_storage"))
		f |= CAPTURE_COMPAT_NO_STORAGE;
	if (strstr(v, "no_irq"))
		f |= CAPTURE_COMPAT_NO_IRQ;
	if (strstr(v, "no_run_delay"))
		f |= CAPTURE_COMPAT_NO_RUN_DELAY;
	if (strstr(v, "prealloc"))
		f |= CAPTURE_COMPAT_PREALLOC;
	if (strstr(v, "no_sched_clock"))
		f |= CAPTURE_COMPAT_NO_SCHED_CLOCK;
	return f;
}

/* Whether sched_switch's tracepoint passes prev_state: its btf_trace_ typedef, a pointer to a
 * prototype (void *data, preempt, prev, next[, prev_state]). */
static bool switch_has_prev_state(const struct btf *vml)
{
	const struct btf_type *t;
	__s32 id = btf__find_by_name_kind(vml, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);

	if (id < 0)
		return false;
	t = btf__type_by_id(vml, btf__resolve_type(vml, id));
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(vml, t->type);
	return t && btf_is_func_proto(t) && btf_vlen(t) >= 5;
}

/* Whether struct name of vml has a member called member. */
static bool has_member(const struct btf *vml, const char *name, const char *member)
{
	__s32 id = btf__find_by_name_kind(vml, name, BTF_KIND_STRUCT);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(vml, id);
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(vml, m[i].name_off);

		if (n && !strcmp(n, member))
			return true;
	}
	return false;
}

/* Whether kvm_exit's event struct has BTF: built in (vmlinux) or the kvm module's own. */
static bool kvm_exit_has_btf(struct btf *vml)
{
	struct btf *mod;
	bool found;

	if (btf__find_by_name_kind(vml, "trace_event_raw_kvm_exit", BTF_KIND_STRUCT) >= 0)
		return true;
	if (access("/sys/kernel/btf/kvm", R_OK))
		return false;
	mod = btf__load_module_btf("kvm", vml);
	if (!mod)
		return false;
	found = btf__find_by_name_kind(mod, "trace_event_raw_kvm_exit", BTF_KIND_STRUCT) >= 0;
	btf__free(mod);
	return found;
}

/* The offset of field name in an event's tracefs format text; 0 when absent. */
static uint32_t format_offset(const char *fmt, const char *name)
{
	const char *p = fmt;
	size_t n = strlen(name);
	unsigned int off;

	/* "	field:unsigned int exit_reason;	offset:8;	size:4;	signed:0;" */
	while ((p = strstr(p, "field:"))) {
		const char *semi = strchr(p, ';'), *q;

		if (!semi)
			break;
		q = semi;
		while (q > p && q[-1] != ' ' && q[-1] != '*' && q[-1] != ':')
			q--;
		if ((size_t)(semi - q) == n && !memcmp(q, name, n)) {
			const char *o = strstr(semi, "offset:");

			if (o && sscanf(o, "offset:%u;", &off) == 1)
				return off;
			return 0;
		}
		p = semi;
	}
	return 0;
}

int capture_compat_kvm_offsets(const char *fmt, struct capture_compat *cc)
{
	cc->kvm_off_reason = format_offset(fmt, "exit_reason");
	cc->kvm_off_isa = format_offset(fmt, "isa");
	cc->kvm_off_vcpu = format_offset(fmt, "vcpu_id");
	return cc->kvm_off_reason ? 0 : -ENOENT;
}

/* Reads kvm_exit's field offsets from tracefs (the fields come first: 4 KiB hold them).
 * Returns 0 or -errno. */
static int kvm_format(struct capture_compat *cc, const char *tracefs)
{
	char path[512], buf[4096];
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/kvm/kvm_exit/format", tracefs);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	return capture_compat_kvm_offsets(buf, cc);
}

int capture_compat__probe(struct capture_compat *cc, const char *tracefs, bool kvm, char *err,
			  size_t errlen)
{
	struct btf *vml;
	int e;

	memset(cc, 0, sizeof(*cc));
	cc->forced = forced_from_env();
	if (access(VMLINUX_BTF, R_OK)) {
		snprintf(err, errlen, "this kernel has no BTF (%s: %s): pwz-bpf needs a kernel built with CONFIG_DEBUG_INFO_BTF=y (Debian 11 and later, Ubuntu 20.10 and later, RHEL 8.2 and later ship one), or record with perf and use --use-perf-data",
			 VMLINUX_BTF, strerror(errno));
		return -ENOTSUP;
	}
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 0) {
		snprintf(err, errlen, "this kernel has no BPF ring buffer (BPF_MAP_TYPE_RINGBUF, Linux 5.8): pwz-bpf needs Linux 5.10 or later, or record with perf and use --use-perf-data");
		return -ENOTSUP;
	}
	vml = btf__load_vmlinux_btf();
	if (!vml) {
		e = -errno;
		snprintf(err, errlen, "cannot read the kernel's BTF (%s): %s", VMLINUX_BTF,
			 strerror(-e));
		return e;
	}
	/* 1: supported; 0: not; < 0: the probe could not tell (then try, as before) */
	cc->task_storage = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) != 0 &&
			   !(cc->forced & CAPTURE_COMPAT_NO_STORAGE);
	cc->prev_state = switch_has_prev_state(vml) &&
			 !(cc->forced & CAPTURE_COMPAT_TASK_STATE);
	cc->kvm_btf = kvm && kvm_exit_has_btf(vml) && !(cc->forced & CAPTURE_COMPAT_KVM_FMT);
	cc->run_delay = has_member(vml, "task_struct", "sched_info") &&
			has_member(vml, "sched_info", "run_delay") &&
			!(cc->forced & CAPTURE_COMPAT_NO_RUN_DELAY);
	cc->mem_alloc = btf__find_by_name_kind(vml, "bpf_mem_alloc", BTF_KIND_STRUCT) >= 0 &&
			!(cc->forced & CAPTURE_COMPAT_PREALLOC);
	cc->sched_clock = has_member(vml, "sched_entity", "cfs_rq") &&
			  has_member(vml, "cfs_rq", "rq") && has_member(vml, "rq", "clock") &&
			  has_member(vml, "rq", "cpu") &&
			  !(cc->forced & CAPTURE_COMPAT_NO_SCHED_CLOCK);
	btf__free(vml);
	if (kvm && !cc->kvm_btf) {
		e = kvm_format(cc, tracefs);
		if (e) {
			snprintf(err, errlen, "kvm_exit has no BTF (kvm module BTF needs Linux 5.11 with CONFIG_DEBUG_INFO_BTF_MODULES) and its tracefs format is unreadable (%s/events/kvm/kvm_exit/format: %s)",
				 tracefs, strerror(-e));
			return e;
		}
	}
	return 0;
}

int capture_compat__probe_irq(char *err, size_t errlen)
{
	static const char *const tps[] = { "irq_handler_entry", "irq_handler_exit",
					   "softirq_entry", "softirq_exit" };
	struct btf *vml = btf__load_vmlinux_btf();
	char name[64];
	int e = 0;

	if (!vml) {
		e = -errno;
		snprintf(err, errlen, "--irq: cannot read the kernel's BTF (%s): %s", VMLINUX_BTF,
			 strerror(-e));
		return e;
	}
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]) && !e; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", tps[i]);
		if ((forced_from_env() & CAPTURE_COMPAT_NO_IRQ) ||
		    btf__find_by_name_kind(vml, name, BTF_KIND_TYPEDEF) < 0) {
			snprintf(err, errlen, "--irq: this kernel has no %s tracepoint (irq events need CONFIG_TRACING and CONFIG_DEBUG_INFO_BTF): capture without --irq",
				 tps[i]);
			e = -ENOENT;
		}
	}
	btf__free(vml);
	return e;
}

bool capture_compat__raw_tp(const struct capture_compat *cc)
{
	return cc->forced & CAPTURE_COMPAT_RAW_TP;
}

/* No bpf_mem_alloc: the histograms' hashes preallocated, wait_hists within its budget. */
static void prealloc_hists(struct pwz_bpf *s)
{
	uint64_t per = (uint64_t)bpf_map__value_size(s->maps.wait_hists) *
		       (uint64_t)libbpf_num_possible_cpus();
	uint32_t n = bpf_map__max_entries(s->maps.wait_hists);

	if (per && n > PWZ_HISTS_PREALLOC_BUDGET / per)
		n = (uint32_t)(PWZ_HISTS_PREALLOC_BUDGET / per);
	bpf_map__set_max_entries(s->maps.wait_hists, n ? n : 1);
	bpf_map__set_map_flags(s->maps.wait_hists, 0);
	bpf_map__set_map_flags(s->maps.vcpu_hists, 0);
}

void capture_compat__apply(const struct capture_compat *cc, struct pwz_bpf *s,
			   const struct capture_cfg *cfg, bool raw, uint32_t tid_entries)
{
	bool sw = cfg->sched, st = cc->prev_state;

	bpf_program__set_autoload(s->progs.switch_btf, sw && !raw && st);
	bpf_program__set_autoload(s->progs.switch_btf_task_state, sw && !raw && !st);
	bpf_program__set_autoload(s->progs.switch_raw, sw && raw && st);
	bpf_program__set_autoload(s->progs.switch_raw_task_state, sw && raw && !st);
	bpf_program__set_autoload(s->progs.kvm_exit, cfg->kvm && cc->kvm_btf);
	bpf_program__set_autoload(s->progs.kvm_exit_fmt, cfg->kvm && !cc->kvm_btf);
	/* task storage only where the tp_btf programs use it: a kernel without it refuses the
	 * map whatever the programs, so there it becomes a hash the programs never reach (their
	 * storage branch is dead code with task_storage = 0), and the tid hash is sized instead */
	bpf_map__set_autocreate(s->maps.wait_ts, !raw);
	s->rodata->task_storage = cc->task_storage;
	/* the iterator over the pending waits reads task storage: only where it is used */
	bpf_program__set_autoload(s->progs.pending_waits,
				  sw && cfg->wait && cfg->pending_waits && !raw && cc->task_storage);
	s->rodata->want_run_delay = sw && cfg->wait && cc->run_delay;
	s->rodata->use_sched_clock = capture_compat__sched_clock(cc, cfg, raw);
	if (!raw && !cc->task_storage) {
		bpf_map__set_type(s->maps.wait_ts, BPF_MAP_TYPE_HASH);
		bpf_map__set_map_flags(s->maps.wait_ts, 0);
		bpf_map__set_max_entries(s->maps.wait_ts, 1);
		if (sw && cfg->wait)
			bpf_map__set_max_entries(s->maps.wait_start, tid_entries);
	}
	s->rodata->kvm_fmt_reason_off = cc->kvm_off_reason;
	s->rodata->kvm_fmt_isa_off = cc->kvm_off_isa;
	s->rodata->kvm_fmt_vcpu_off = cc->kvm_off_vcpu;
	if (!cc->mem_alloc)
		prealloc_hists(s);
}

bool capture_compat__sched_clock(const struct capture_compat *cc, const struct capture_cfg *cfg,
				 bool raw)
{
	return cc->sched_clock && !raw && cfg->sched && cfg->wait && !cfg->filter;
}

const char *capture_compat__describe(const struct capture_compat *cc, bool sched, bool raw,
				     bool kvm, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (!sched)
		raw = false;	/* no switch program: how it would attach does not matter */
	if (raw)
		n += snprintf(buf + n, len - n, "raw_tp and a tid hash (asked)");
	else if (sched && !cc->task_storage)
		n += snprintf(buf + n, len - n, "wait starts in a tid hash (%s)",
			      cc->forced & CAPTURE_COMPAT_NO_STORAGE ? "asked" :
			      "no task storage, Linux < 5.11");
	if (sched && !cc->prev_state && n < len)
		n += snprintf(buf + n, len - n, "%sprev_state read from the task (%s)",
			      n ? ", " : "",
			      cc->forced & CAPTURE_COMPAT_TASK_STATE ? "asked" : "Linux < 5.18");
	if (kvm && !cc->kvm_btf && n < len)
		n += snprintf(buf + n, len - n, "%skvm_exit fields at tracefs offsets (%s)",
			      n ? ", " : "",
			      cc->forced & CAPTURE_COMPAT_KVM_FMT ? "asked" : "no kvm BTF, Linux < 5.11");
	if (sched && !cc->run_delay && n < len)
		n += snprintf(buf + n, len - n, "%swaits without the kernel's charge (%s)",
			      n ? ", " : "",
			      cc->forced & CAPTURE_COMPAT_NO_RUN_DELAY ? "asked" :
			      "no sched_info: CONFIG_SCHED_INFO off");
	if (sched && !raw && !cc->sched_clock && n < len)
		n += snprintf(buf + n, len - n, "%sevents on bpf_ktime_get_ns() (%s)", n ? ", " : "",
			      cc->forced & CAPTURE_COMPAT_NO_SCHED_CLOCK ? "asked" :
			      "no run queue behind se.cfs_rq: CONFIG_FAIR_GROUP_SCHED off");
	if (!cc->mem_alloc && n < len)
		n += snprintf(buf + n, len - n, "%shistograms preallocated (%s)", n ? ", " : "",
			      cc->forced & CAPTURE_COMPAT_PREALLOC ? "asked" :
			      "no bpf_mem_alloc, Linux < 6.1");
	return n ? buf : "none";
}
