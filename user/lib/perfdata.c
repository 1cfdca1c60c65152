// SPDX-License-Identifier: GPL-2.0
/* perf.data import: decodes scheduler and KVM samples, orders them and writes a cdict. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "cdict.h"
#include "exitnames.h"
#include "perfdata.h"
#include "perfdata_file.h"
#include "keymap.h"
#include "ledger_fold.h"
#include "perfdata_trace.h"
#include "records.h"
#include "sched_model.h"
#include "tasknames.h"
#include "visit.h"

#ifndef PWZ_VERSION
#define PWZ_VERSION "0.0.0"
#endif

/* Queued events (80 bytes each) before the oldest half is forced out: only files without
 * rounds get there. Samples of unused events are not queued once the capture started, so this
 * spans about the time that 1 << 20 samples of `perf record -e 'sched:*'` do. */
#define QUEUE_MAX (1u << 19)

enum ev_kind {
	EV_NONE = 0,		/* a sample of an event we do not use (only its time counts) */
	EV_SWITCH,
	EV_WAKEUP,
	EV_MIGRATE,
	EV_KVM_EXIT,
	EV_KVM_ENTRY,
	EV_KVM_UEXIT,		/* kvm_userspace_exit: the vCPU ledger's only (model.h R10) */
	EV_KVM_HALT,		/* kvm_vcpu_wakeup: the same */
	EV_COMM,		/* PERF_RECORD_COMM */
	EV_FORK,		/* PERF_RECORD_FORK */
	EV_LOST,		/* PERF_RECORD_LOST / LOST_SAMPLES */
};

/* A tracepoint field as the embedded format places it. */
struct fld {
	int off;		/* -1: the format has no such field */
	int size;
};

struct attr_info {
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;
	uint64_t read_format;
	bool sample_id_all;
	bool resolved;		/* kind and fields looked up */
	enum ev_kind kind;
	struct fld f[5];	/* per kind, see resolve() */
	/* Samples without read values or callchain have every field at a fixed place: */
	uint16_t fixed_len;	/* bytes before the raw data (after its size, when raw), from the
				 * record start; 0 when the layout varies */
	uint8_t o_tid, o_time, o_cpu;	/* where pid/tid, time and cpu are, from the record start */
};

/* Places the sample fields of ai, when their layout is fixed. */
static void sample_layout(struct attr_info *ai)
{
	uint64_t st = ai->sample_type;
	unsigned int pos = 8;

	ai->fixed_len = 0;
	if (st & (PD_SAMPLE_READ | PD_SAMPLE_CALLCHAIN))
		return;
	pos += 8 * !!(st & PD_SAMPLE_IDENTIFIER) + 8 * !!(st & PD_SAMPLE_IP);
	ai->o_tid = pos;
	pos += 8 * !!(st & PD_SAMPLE_TID);
	ai->o_time = pos;
	pos += 8 * !!(st & PD_SAMPLE_TIME);
	pos += 8 * !!(st & PD_SAMPLE_ADDR) + 8 * !!(st & PD_SAMPLE_ID) +
	       8 * !!(st & PD_SAMPLE_STREAM_ID);
	ai->o_cpu = pos;
	pos += 8 * !!(st & PD_SAMPLE_CPU) + 8 * !!(st & PD_SAMPLE_PERIOD);
	pos += 4 * !!(st & PD_SAMPLE_RAW);
	ai->fixed_len = pos;
}

/* One decoded event waiting to be put in time order. */
struct qev {
	uint64_t ts;		/* file time */
	uint64_t seq;		/* file order, for equal times */
	uint64_t d;		/* switch: prev_state; kvm_exit: reason; halt: ns; lost: count */
	uint32_t kind;		/* enum ev_kind */
	uint32_t cpu;
	uint32_t a, b, c;	/* switch: prev, next; wakeup/migrate: pid; kvm: tid, vcpu, isa;
				 * userspace exit: tid, reason, errno; halt: tid, waited;
				 * comm/fork: pid (tgid), tid */
	char comm[PWZ_COMM_LEN];	/* switch: prev_comm; wakeup, comm: comm */
	char comm2[PWZ_COMM_LEN];	/* switch: next_comm */
};

/* A ring of queued events from one source, in (ts, seq) order unless unsorted. */
struct evq {
	struct qev *ev;		/* cap slots */
	uint32_t cap;		/* a power of two, or 0 */
	uint32_t head;		/* slot of the oldest event */
	uint32_t n;		/* events queued */
	bool unsorted;		/* an event came in earlier than its predecessor */
};

#define ID_CACHE 256	/* direct-mapped caches in front of the keymaps, by the key's low bits */
#define TID_CACHE 4096

struct id_cache_ent {
	uint64_t id;
	int32_t attr;		/* attribute index + 2 (1: no attribute has the id); 0 empty */
};

struct tid_cache_ent {
	uint32_t tid;
	uint32_t idx;		/* task_info[] index + 1; 0 empty */
};

struct task_info {
	uint32_t tgid;			/* 0 unknown */
	bool written;			/* a task record of its current instance was written */
	bool born;			/* created during the capture (FORK) ... */
	uint64_t born_ns;		/* ... then: a new instance of the tid (model.h R8) */
	bool has_comm;
	char comm[PWZ_COMM_LEN];
};

struct imp {
	const char *path;
	const char *out_path;
	const struct perfdata_import_opts *opts;
	struct perfdata_import_stats *st;
	char *err;
	size_t errlen;

	struct tep_handle *tep;
	bool have_tracing;
	uint64_t preempt_bit;

	struct attr_info *attrs;
	size_t nr_attrs, attrs_cap;
	struct keymap ids;		/* (sample id, 0) -> ids_attr[] */
	struct id_cache_ent id_cache[ID_CACHE];	/* recent ids and their attribute */
	uint32_t *ids_attr;		/* attribute index of each id */
	size_t ids_attr_cap;

	struct evq *qs;			/* events waiting for their round to end: [0] records
					 * without a CPU, [cpu + 1] each CPU's samples */
	uint32_t nqs;
	uint32_t *heap;			/* nqs entries: the merge's heap */
	size_t nq;			/* events queued in all of qs */
	uint64_t seq;
	uint64_t max_ts;		/* largest time queued so far */
	uint64_t round_limit;		/* flush horizon: max_ts at the previous round's end */
	uint64_t last_ts;		/* time of the last record seen, for records without time */

	bool started;			/* first sample delivered: t0 and the writer exist */
	uint64_t t0;
	uint64_t last_sample_ts;
	uint64_t sample_time_first;	/* HEADER_SAMPLE_TIME, 0 unknown */

	struct keymap tasks;		/* (tid, 0) -> task_info[] */
	struct tid_cache_ent tid_cache[TID_CACHE];	/* recent tids and their task_info[] */
	struct task_info *tinfo;
	size_t tinfo_cap;

	struct pwz_meta meta;
	int64_t clock_data_id;		/* CLOCK_DATA: clock id, -1 absent */
	uint64_t clock_tod_ns, clock_ref_ns;
	char *perf_cmdline;
	bool has_switch_attr, has_wakeup_attr, has_kvm_attr;
	bool has_uexit_attr, has_halt_attr;

	struct ledger_fold *ledger;	/* the vCPU ledger (model.h R10), with switches, wakeups
					 * and KVM exits; else NULL */
	struct visit_tee tee;		/* the model's records to out and to the ledger */

	struct sched_model *model;
	struct cdict_writer *w;
	struct visit_gate out;		/* the model's records to w, counted */
};

__attribute__((format(printf, 4, 5)))
static int fail(struct imp *im, int ret, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(im->err, im->errlen, "%s: offset %llu: ", im->path,
			 (unsigned long long)off);

	if (n >= 0 && (size_t)n < im->errlen) {
		va_start(ap, fmt);
		vsnprintf(im->err + n, im->errlen - n, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* ---- metadata from the feature sections ---- */

/* A perf header string: u32 length (padding and NUL included), then the bytes. */
static int feat_str(const uint8_t **p, const uint8_t *end, char **out)
{
	uint32_t n;

	if (end - *p < 4)
		return -EINVAL;
	n = rd32(*p);
	*p += 4;
	if (n > (size_t)(end - *p))
		return -EINVAL;
	*out = strndup((const char *)*p, n);
	*p += n;
	return *out ? 0 : -ENOMEM;
}

static int feat_cmdline(struct imp *im, const uint8_t *p, const uint8_t *end)
{
	uint32_t nr, i;
	size_t len = 0;
	char *s, *all = NULL;

	if (end - p < 4)
		return -EINVAL;
	nr = rd32(p);
	p += 4;
	if (nr > 65536)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		size_t sl;
		char *n;

		if (feat_str(&p, end, &s))
			goto bad;
		sl = strlen(s);
		n = realloc(all, len + sl + 2);
		if (!n) {
			free(s);
			goto bad;
		}
		all = n;
		if (len)
			all[len++] = ' ';
		memcpy(all + len, s, sl + 1);
		len += sl;
		free(s);
	}
	free(im->perf_cmdline);
	im->perf_cmdline = all;
	return 0;
bad:
	free(all);
	return -EINVAL;
}

static int feat_topology(struct imp *im, const uint8_t *p, const uint8_t *end)
{
	uint32_t nr, i, k;
	char *s;

	for (k = 0; k < 2; k++) {	/* core siblings, then thread siblings */
		if (end - p < 4)
			return -EINVAL;
		nr = rd32(p);
		p += 4;
		if (nr > PWZ_MAX_CPUS)
			return -EINVAL;
		for (i = 0; i < nr; i++) {
			if (feat_str(&p, end, &s))
				return -EINVAL;
			free(s);
		}
	}
	if (!im->meta.nr_cpus || (size_t)(end - p) < 8ULL * im->meta.nr_cpus)
		return 0;	/* old files have no per-CPU ids */
	free(im->meta.topo);
	im->meta.topo = calloc(im->meta.nr_cpus, sizeof(*im->meta.topo));
	if (!im->meta.topo)
		return -ENOMEM;
	for (i = 0; i < im->meta.nr_cpus; i++, p += 8) {
		im->meta.topo[i].core = (int32_t)rd32(p);
		im->meta.topo[i].package = (int32_t)rd32(p + 4);
		im->meta.topo[i].llc = -1;
	}
	return 0;
}

/* sched_switch's print fmt prints "+" after the state when the preempt bit (TASK_REPORT_MAX,
 * or TASK_STATE_MAX on old kernels) is set: compute that bit from the expression. */
static uint64_t preempt_bit_of(const char *text, size_t len)
{
	static const char tag[] = "\"R\", REC->prev_state &";
	const char *p = NULL, *e, *q;
	uint64_t acc = 0;
	size_t i;
	int nums = 0;
	bool shifted;

	for (i = 0; i + sizeof(tag) - 1 <= len; i++) {
		if (memcmp(text + i, tag, sizeof(tag) - 1) == 0) {
			p = text + i + sizeof(tag) - 1;
			break;
		}
	}
	if (!p)
		return 0;
	for (e = p; e < text + len && *e != '?'; e++)
		;
	shifted = memmem(p, e - p, "+ 1) << 1", 9) != NULL;
	for (q = p; q < e; q++) {
		if (*q >= '0' && *q <= '9') {
			char *n;
			uint64_t v = strtoull(q, &n, 0);
			bool hex = q[0] == '0' && (q[1] == 'x' || q[1] == 'X');

			q = n - 1;
			nums++;
			if (!shifted || hex)	/* "+ 1" and "<< 1" are not flags */
				acc |= v;
		}
	}
	if (shifted)
		return (acc + 1) << 1;
	return nums == 1 ? acc : 0;
}

/* The formats the import decodes: only these are parsed into the tep. */
static bool wanted_event(const char *sys, const char *name)
{
	if (strcmp(sys, "sched") == 0)
		return strcmp(name, "sched_switch") == 0 || strcmp(name, "sched_wakeup") == 0 ||
		       strcmp(name, "sched_wakeup_new") == 0 ||
		       strcmp(name, "sched_migrate_task") == 0;
	if (strcmp(sys, "kvm") == 0)
		return strcmp(name, "kvm_exit") == 0 || strcmp(name, "kvm_entry") == 0 ||
		       strcmp(name, "kvm_userspace_exit") == 0 ||
		       strcmp(name, "kvm_vcpu_wakeup") == 0;
	return false;
}

static int on_format(void *ctx, const char *sys, const char *name, const char *text, size_t len,
		     char *msg, size_t msglen)
{
	struct imp *im = ctx;

	(void)msg;
	(void)msglen;
	if (!wanted_event(sys, name))
		return 0;
	if (strcmp(name, "sched_switch") == 0) {
		im->preempt_bit = preempt_bit_of(text, len);
	} else if (strcmp(name, "kvm_exit") == 0) {
		char e[128];

		/* a print fmt without a table leaves the built-in names to start() */
		if (!im->meta.nr_exit_names)
			exitnames_parse_format(&im->meta, text, len, e, sizeof(e));
	}
	return 1;
}

static int on_feature(void *ctx, unsigned int feat, const uint8_t *data, size_t len, uint64_t off)
{
	struct imp *im = ctx;
	const uint8_t *p = data, *end = data + len;
	char msg[256];
	char *s = NULL;
	int ret = 0;

	switch (feat) {
	case PD_FEAT_TRACING_DATA:
		if (im->have_tracing)
			return 0;
		ret = pd_tracing_data_parse(im->tep, data, len, off, on_format, im, msg, sizeof(msg));
		if (ret) {
			snprintf(im->err, im->errlen, "%s: %s", im->path, msg);
			return ret;
		}
		im->have_tracing = true;
		return 0;
	case PD_FEAT_HOSTNAME:
	case PD_FEAT_OSRELEASE:
		ret = feat_str(&p, end, &s);
		if (!ret)
			ret = pwz_meta_set_str(feat == PD_FEAT_HOSTNAME ? &im->meta.host :
					       &im->meta.kernel, s);
		free(s);
		break;
	case PD_FEAT_NRCPUS:
		if (len < 8)
			ret = -EINVAL;
		else if (rd32(data) <= PWZ_MAX_CPUS)
			im->meta.nr_cpus = rd32(data);	/* CPUs available (then online) */
		break;
	case PD_FEAT_CMDLINE:
		ret = feat_cmdline(im, p, end);
		break;
	case PD_FEAT_CPU_TOPOLOGY:
		ret = feat_topology(im, p, end);
		break;
	case PD_FEAT_SAMPLE_TIME:
		if (len >= 16)
			im->sample_time_first = rd64(data);
		break;
	case PD_FEAT_CLOCKID:
		if (len >= 8)
			im->meta.clock_id = (int32_t)rd64(data);
		break;
	case PD_FEAT_CLOCK_DATA:
		if (len >= 24 && rd32(data) >= 1) {
			im->clock_data_id = rd32(data + 4);
			im->clock_tod_ns = rd64(data + 8);
			im->clock_ref_ns = rd64(data + 16);
		}
		break;
	default:
		break;
	}
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return fail(im, -EINVAL, off, "feature section %s does not parse",
			    pd_feature_name(feat));
	return 0;
}

/* ---- attributes and sample decoding ---- */

static int on_attr(void *ctx, const struct pd_attr *a, uint64_t off)
{
	struct imp *im = ctx;
	struct attr_info *ai;
	uint32_t i;

	if (array_reserve((void **)&im->attrs, &im->attrs_cap, im->nr_attrs + 1, sizeof(*im->attrs)))
		return -ENOMEM;
	ai = &im->attrs[im->nr_attrs];
	memset(ai, 0, sizeof(*ai));
	ai->type = a->type;
	ai->config = a->config;
	ai->sample_type = a->sample_type;
	ai->read_format = a->read_format;
	ai->sample_id_all = a->sample_id_all;
	sample_layout(ai);
	memset(im->id_cache, 0, sizeof(im->id_cache));	/* pipe mode: an id may become known */
	for (i = 0; i < a->nr_ids; i++) {
		int added;
		int64_t idx = keymap_get(&im->ids, a->ids[i], 0, &added);

		if (idx < 0)
			return -ENOMEM;
		if (!added)
			return fail(im, -EINVAL, off, "sample id %llu is given to two attributes",
				    (unsigned long long)a->ids[i]);
		if (array_reserve((void **)&im->ids_attr, &im->ids_attr_cap, idx + 1,
			       sizeof(*im->ids_attr)))
			return -ENOMEM;
		im->ids_attr[idx] = im->nr_attrs;
	}
	im->nr_attrs++;
	return 0;
}

/* The attribute index of sample id, from the map built by on_attr(); -1 unknown. */
static int64_t attr_of_id(struct imp *im, uint64_t id)
{
	struct id_cache_ent *c = &im->id_cache[id % ID_CACHE];
	int64_t i;

	if (c->attr && c->id == id)
		return (int64_t)c->attr - 2;
	i = keymap_find(&im->ids, id, 0);
	i = i < 0 ? -1 : (int64_t)im->ids_attr[i];
	c->id = id;
	c->attr = (int32_t)(i + 2);
	return i;
}

static struct fld field(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;
	struct fld r = { -1, 0 };

	if (f && f->size > 0 && (f->size <= 8 || (f->flags & TEP_FIELD_IS_ARRAY))) {
		r.off = f->offset;
		r.size = f->size;
	}
	return r;
}

/* The fields each event kind needs, in attr_info.f[] order; NULL: not required. */
static const char *const kind_fields[][5] = {
	[EV_SWITCH] = { "prev_comm", "prev_pid", "prev_state", "next_comm", "next_pid" },
	[EV_WAKEUP] = { "comm", "pid" },
	[EV_MIGRATE] = { "pid" },
	[EV_KVM_EXIT] = { "exit_reason", "vcpu_id" },	/* isa (f[2]) is optional: VMX */
	[EV_KVM_ENTRY] = { "vcpu_id" },
	[EV_KVM_UEXIT] = { "reason", "errno" },
	[EV_KVM_HALT] = { "ns", "waited" },
};

/* Looks the tracepoint of ai up in the embedded formats and finds the fields it needs. */
static int resolve(struct imp *im, struct attr_info *ai, uint64_t off)
{
	struct tep_event *ev;
	int i;

	ai->resolved = true;
	ai->kind = EV_NONE;
	if (ai->type != PD_TYPE_TRACEPOINT)
		return 0;
	if (!im->have_tracing)
		return fail(im, -EINVAL, off,
			    "tracepoint samples but no tracing data section: the event formats are unknown");
	ev = tep_find_event(im->tep, (int)ai->config);
	if (!ev || !ev->system || !ev->name)
		return 0;
	if (strcmp(ev->system, "sched") == 0) {
		if (strcmp(ev->name, "sched_switch") == 0)
			ai->kind = EV_SWITCH;
		else if (strcmp(ev->name, "sched_wakeup") == 0 ||
			 strcmp(ev->name, "sched_wakeup_new") == 0)
			ai->kind = EV_WAKEUP;
		else if (strcmp(ev->name, "sched_migrate_task") == 0)
			ai->kind = EV_MIGRATE;
	} else if (strcmp(ev->system, "kvm") == 0) {
		if (strcmp(ev->name, "kvm_exit") == 0)
			ai->kind = EV_KVM_EXIT;
		else if (strcmp(ev->name, "kvm_entry") == 0)
			ai->kind = EV_KVM_ENTRY;
		else if (strcmp(ev->name, "kvm_userspace_exit") == 0)
			ai->kind = EV_KVM_UEXIT;
		else if (strcmp(ev->name, "kvm_vcpu_wakeup") == 0)
			ai->kind = EV_KVM_HALT;
	}
	if (ai->kind == EV_NONE)
		return 0;
	for (i = 0; i < 5; i++) {
		const char *name = kind_fields[ai->kind][i];

		ai->f[i] = (struct fld){ -1, 0 };
		if (!name)
			continue;
		ai->f[i] = field(ev, name);
		if (ai->f[i].off < 0)
			return fail(im, -EINVAL, off, "tracepoint %s:%s has no usable field %s in its format",
				    ev->system, ev->name, name);
	}
	if (ai->kind == EV_KVM_EXIT)
		ai->f[2] = field(ev, "isa");
	if (!(ai->sample_type & PD_SAMPLE_TIME) || !(ai->sample_type & PD_SAMPLE_RAW) ||
	    !(ai->sample_type & PD_SAMPLE_CPU) || !(ai->sample_type & PD_SAMPLE_TID))
		return fail(im, -EINVAL, off,
			    "%s:%s samples lack time, cpu, tid or raw data (sample_type 0x%llx)",
			    ev->system, ev->name, (unsigned long long)ai->sample_type);
	return 0;
}

static uint64_t getf(const uint8_t *raw, struct fld f)
{
	uint64_t v = 0;

	switch (f.size) {
	case 1: return raw[f.off];
	case 2: { uint16_t x; memcpy(&x, raw + f.off, 2); return x; }
	case 4: return rd32(raw + f.off);
	case 8: return rd64(raw + f.off);
	default: memcpy(&v, raw + f.off, f.size < 8 ? f.size : 8); return v;
	}
}

static void getcomm(const uint8_t *raw, struct fld f, char out[PWZ_COMM_LEN])
{
	size_t n = f.size < PWZ_COMM_LEN - 1 ? (size_t)f.size : PWZ_COMM_LEN - 1;

	memcpy(out, raw + f.off, n);
	out[n] = 0;
}

static int qpush(struct imp *im, const struct qev *e, uint32_t qi);
static int qflush(struct imp *im, uint64_t limit, bool all);

/* What on_sample() reads of a sample before its event's fields. */
struct sample_fields {
	uint64_t ts;		/* PERF_SAMPLE_TIME, 0 without */
	uint32_t tid, cpu;	/* PERF_SAMPLE_TID's tid and PERF_SAMPLE_CPU's cpu, 0 without */
	const uint8_t *raw;	/* the tracepoint payload (PERF_SAMPLE_RAW), NULL without */
	uint32_t raw_size;	/* its bytes */
};

static int short_sample(struct imp *im, const struct pd_record *r)
{
	return fail(im, -EINVAL, r->offset, "sample of %u bytes is shorter than its layout",
		    r->size);
}

/* The event attribute of sample r into *out (resolved): the only one, or the one of the
 * sample's id; *out NULL for an id of no attribute (skipped). Returns 0 or fail()'s error. */
static int sample_attr(struct imp *im, const struct pd_record *r, struct attr_info **out)
{
	const uint8_t *p = r->data + 8, *end = r->data + r->size;
	uint64_t st, id;
	int64_t idx = 0;

	*out = NULL;
	if (!im->nr_attrs)
		return fail(im, -EINVAL, r->offset, "sample before any event attribute");
	if (im->nr_attrs > 1) {
		st = im->attrs[0].sample_type;
		if (st & PD_SAMPLE_IDENTIFIER) {
			if (end - p < 8)
				return short_sample(im, r);
			id = rd64(p);
		} else if (st & PD_SAMPLE_ID) {
			int skip = !!(st & PD_SAMPLE_IP) + !!(st & PD_SAMPLE_TID) +
				   !!(st & PD_SAMPLE_TIME) + !!(st & PD_SAMPLE_ADDR);

			if (end - p < 8 * (skip + 1))
				return short_sample(im, r);
			id = rd64(p + 8 * skip);
		} else {
			return fail(im, -EINVAL, r->offset,
				    "several event attributes but samples carry no id");
		}
		idx = attr_of_id(im, id);
		if (idx < 0) {
			im->st->skipped++;
			return 0;
		}
	}
	*out = &im->attrs[idx];
	if (!(*out)->resolved)
		return resolve(im, *out, r->offset);
	return 0;
}

/* The fields of a sample of ai's fixed layout (ai->fixed_len: the payload at a known offset).
 * Returns 0, or -1 when r is shorter than the layout. */
static int fixed_fields(const struct attr_info *ai, const struct pd_record *r,
			struct sample_fields *f)
{
	const uint8_t *d = r->data;
	uint64_t st = ai->sample_type;

	if (r->size < ai->fixed_len)
		return -1;
	if (st & PD_SAMPLE_TID)
		f->tid = rd32(d + ai->o_tid + 4);
	if (st & PD_SAMPLE_TIME)
		f->ts = rd64(d + ai->o_time);
	if (st & PD_SAMPLE_CPU)
		f->cpu = rd32(d + ai->o_cpu);
	if (st & PD_SAMPLE_RAW) {
		f->raw_size = rd32(d + ai->fixed_len - 4);
		if (f->raw_size > (uint32_t)(r->size - ai->fixed_len))
			return -1;
		f->raw = d + ai->fixed_len;
	}
	return 0;
}

/* The fields of a sample read in the order of perf_event_open(2)'s PERF_RECORD_SAMPLE, for a
 * layout whose length varies (a read group, a call chain). Returns 0, or -1 when r is short. */
static int walk_fields(const struct attr_info *ai, const struct pd_record *r,
		       struct sample_fields *f)
{
	const uint8_t *p = r->data + 8, *end = r->data + r->size;
	uint64_t st = ai->sample_type;

#define NEED(n) do { if (end - p < (long)(n)) return -1; } while (0)
	if (st & PD_SAMPLE_IDENTIFIER) { NEED(8); p += 8; }
	if (st & PD_SAMPLE_IP) { NEED(8); p += 8; }
	if (st & PD_SAMPLE_TID) { NEED(8); f->tid = rd32(p + 4); p += 8; }
	if (st & PD_SAMPLE_TIME) { NEED(8); f->ts = rd64(p); p += 8; }
	if (st & PD_SAMPLE_ADDR) { NEED(8); p += 8; }
	if (st & PD_SAMPLE_ID) { NEED(8); p += 8; }
	if (st & PD_SAMPLE_STREAM_ID) { NEED(8); p += 8; }
	if (st & PD_SAMPLE_CPU) { NEED(8); f->cpu = rd32(p); p += 8; }
	if (st & PD_SAMPLE_PERIOD) { NEED(8); p += 8; }
	if (st & PD_SAMPLE_READ) {
		uint64_t rf = ai->read_format, nr = 1, per;

		if (rf & PD_FORMAT_GROUP) {
			NEED(8);
			nr = rd64(p);
			p += 8;
		}
		per = 1 + !!(rf & PD_FORMAT_ID) + !!(rf & PD_FORMAT_LOST);
		if (nr > 65536)
			return -1;
		NEED(8 * (nr * per + !!(rf & PD_FORMAT_TOTAL_TIME_ENABLED) +
			  !!(rf & PD_FORMAT_TOTAL_TIME_RUNNING)));
		p += 8 * (nr * per + !!(rf & PD_FORMAT_TOTAL_TIME_ENABLED) +
			  !!(rf & PD_FORMAT_TOTAL_TIME_RUNNING));
	}
	if (st & PD_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		NEED(8);
		nr = rd64(p);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return -1;
		p += 8 * nr;
	}
	if (st & PD_SAMPLE_RAW) {
		NEED(4);
		f->raw_size = rd32(p);
		p += 4;
		NEED(f->raw_size);
		f->raw = p;
	}
#undef NEED
	return 0;
}

/* A sample of an event pwz does not decode: only its time matters (the capture spans every
 * sample). */
static int on_other_sample(struct imp *im, const struct attr_info *ai,
			   const struct sample_fields *f)
{
	uint64_t st = ai->sample_type, ts = f->ts;
	struct qev e = { .kind = EV_NONE };

	if (im->started) {
		/* it will be delivered after the start, where all it does is extend the
		 * capture's end: do that now, and spare it the queue */
		if (!(st & PD_SAMPLE_TIME))
			ts = im->last_ts;
		if (ts > im->max_ts)
			im->max_ts = ts;
		im->last_ts = ts;
		if (ts > im->last_sample_ts)
			im->last_sample_ts = ts;
		return 0;
	}
	e.ts = st & PD_SAMPLE_TIME ? ts : UINT64_MAX;
	return qpush(im, &e, (st & PD_SAMPLE_CPU) && f->cpu < PWZ_MAX_CPUS ? f->cpu + 1 : 0);
}

static int on_sample(struct imp *im, const struct pd_record *r)
{
	struct sample_fields f = { 0 };
	struct attr_info *ai;
	const uint8_t *raw;
	struct qev e;
	int ret;

	im->st->samples++;
	ret = sample_attr(im, r, &ai);
	if (ret || !ai)
		return ret;
	if (ai->kind == EV_NONE)
		im->st->skipped++;
	if ((ai->fixed_len ? fixed_fields(ai, r, &f) : walk_fields(ai, r, &f)) < 0)
		return short_sample(im, r);
	if (ai->kind == EV_NONE)
		return on_other_sample(im, ai, &f);
	for (int i = 0; i < 5; i++) {
		if (ai->f[i].size && (uint64_t)ai->f[i].off + ai->f[i].size > f.raw_size)
			return fail(im, -EINVAL, r->offset,
				    "tracepoint payload of %u bytes is shorter than its format says",
				    f.raw_size);
	}
	if (f.cpu >= PWZ_MAX_CPUS)
		return fail(im, -EINVAL, r->offset, "sample names CPU %u, beyond the %d supported",
			    f.cpu, PWZ_MAX_CPUS);
	memset(&e, 0, sizeof(e));
	e.kind = ai->kind;
	e.ts = f.ts;
	e.cpu = f.cpu;
	raw = f.raw;
	switch (ai->kind) {
	case EV_SWITCH:
		getcomm(raw, ai->f[0], e.comm);
		e.a = (uint32_t)getf(raw, ai->f[1]);
		e.d = getf(raw, ai->f[2]);
		getcomm(raw, ai->f[3], e.comm2);
		e.b = (uint32_t)getf(raw, ai->f[4]);
		break;
	case EV_WAKEUP:
		getcomm(raw, ai->f[0], e.comm);
		e.a = (uint32_t)getf(raw, ai->f[1]);
		break;
	case EV_MIGRATE:
		e.a = (uint32_t)getf(raw, ai->f[0]);
		break;
	case EV_KVM_EXIT:
		e.d = getf(raw, ai->f[0]);
		e.a = f.tid;
		e.b = (uint32_t)getf(raw, ai->f[1]);
		e.c = ai->f[2].off >= 0 ? (uint32_t)getf(raw, ai->f[2]) : PWZ_ISA_VMX;
		break;
	case EV_KVM_ENTRY:
		e.a = f.tid;
		e.b = (uint32_t)getf(raw, ai->f[0]);
		break;
	case EV_KVM_UEXIT:
		e.a = f.tid;
		e.b = (uint32_t)getf(raw, ai->f[0]);
		e.c = (uint32_t)getf(raw, ai->f[1]);
		break;
	case EV_KVM_HALT:
		e.a = f.tid;
		e.d = getf(raw, ai->f[0]);
		e.b = getf(raw, ai->f[1]) != 0;
		break;
	default:
		break;
	}
	return qpush(im, &e, f.cpu + 1);
}

/* Time of a non-sample record from its sample id trailer; UINT64_MAX without one. */
static uint64_t trailer_time(struct imp *im, const struct pd_record *r, size_t body)
{
	uint64_t st;
	size_t after, nfields;

	if (!im->nr_attrs || !im->attrs[0].sample_id_all)
		return UINT64_MAX;
	st = im->attrs[0].sample_type;
	if (!(st & PD_SAMPLE_TIME))
		return UINT64_MAX;
	after = !!(st & PD_SAMPLE_ID) + !!(st & PD_SAMPLE_STREAM_ID) + !!(st & PD_SAMPLE_CPU) +
		!!(st & PD_SAMPLE_IDENTIFIER);
	nfields = after + 1 + !!(st & PD_SAMPLE_TID);
	if (r->size < body + 8 * nfields)
		return UINT64_MAX;
	return rd64(r->data + r->size - 8 * (after + 1));
}

static int on_record(void *ctx, const struct pd_record *r)
{
	struct imp *im = ctx;
	struct qev e;
	int ret = 0;

	switch (r->type) {
	case PD_REC_SAMPLE:
		return on_sample(im, r);
	case PD_REC_FINISHED_ROUND:
		ret = qflush(im, im->round_limit, false);
		im->round_limit = im->max_ts;
		return ret;
	case PD_REC_COMM:
	case PD_REC_FORK:
		if (r->size < 8 + 16)
			return fail(im, -EINVAL, r->offset, "%s record of %u bytes is too short",
				    r->type == PD_REC_COMM ? "comm" : "fork", r->size);
		memset(&e, 0, sizeof(e));
		e.kind = r->type == PD_REC_COMM ? EV_COMM : EV_FORK;
		e.a = rd32(r->data + 8);	/* pid */
		if (r->type == PD_REC_COMM) {
			size_t n = r->size - 16;

			e.b = rd32(r->data + 12);	/* tid */
			if (n > PWZ_COMM_LEN - 1)
				n = PWZ_COMM_LEN - 1;
			memcpy(e.comm, r->data + 16, n);
			e.ts = trailer_time(im, r, 16 + strnlen(e.comm, n) + 1);
		} else {
			e.b = rd32(r->data + 16);	/* tid */
			e.c = rd32(r->data + 20);	/* ptid */
			e.ts = r->size >= 32 ? rd64(r->data + 24) : UINT64_MAX;
		}
		return qpush(im, &e, 0);
	case PD_REC_LOST:
	case PD_REC_LOST_SAMPLES:
		memset(&e, 0, sizeof(e));
		e.kind = EV_LOST;
		if (r->type == PD_REC_LOST) {
			if (r->size < 24)
				return fail(im, -EINVAL, r->offset, "lost record too short");
			e.d = rd64(r->data + 16);
			e.ts = trailer_time(im, r, 24);
		} else {
			if (r->size < 16)
				return fail(im, -EINVAL, r->offset, "lost-samples record too short");
			e.d = rd64(r->data + 8);
			e.ts = trailer_time(im, r, 16);
		}
		return qpush(im, &e, 0);
	default:
		return 0;
	}
}

/* ---- time order: per-source queues, merged at the end of each round ----
 *
 * perf writes each CPU's buffer in turn, so within a round the records of one CPU are already
 * in time order. Each source (a CPU, or queue 0 for records without one) gets its own ring of
 * events in (time, file order); flushing merges the rings through a small heap, which gives
 * exactly the order of a stable sort by time of everything queued, without moving events. A
 * ring that received an event out of order is sorted before it is merged. */

static inline bool qev_before(const struct qev *x, const struct qev *y)
{
	return x->ts < y->ts || (x->ts == y->ts && x->seq < y->seq);
}

static int cmp_qev(const void *a, const void *b)
{
	const struct qev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static inline struct qev *evq_head(struct evq *q)
{
	return &q->ev[q->head];
}

/* Makes q's events contiguous from ev[0] (capacity new_cap >= q->n, a power of two). */
static int evq_relayout(struct evq *q, uint32_t new_cap)
{
	struct qev *n = malloc((size_t)new_cap * sizeof(*n));
	uint32_t first;

	if (!n)
		return -ENOMEM;
	first = q->cap - q->head < q->n ? q->cap - q->head : q->n;
	if (q->n) {
		memcpy(n, q->ev + q->head, first * sizeof(*n));
		memcpy(n + first, q->ev, (q->n - first) * sizeof(*n));
	}
	free(q->ev);
	q->ev = n;
	q->cap = new_cap;
	q->head = 0;
	return 0;
}

static void evq_sort(struct evq *q)
{
	if (q->head + q->n > q->cap) {
		/* wrapped: rotate in place through a relayout at the same size */
		if (evq_relayout(q, q->cap))
			return;	/* left unsorted: qsort below would see a wrapped ring */
	}
	qsort(q->ev + q->head, q->n, sizeof(*q->ev), cmp_qev);
	q->unsorted = false;
}

static int handle(struct imp *im, const struct qev *e);

/* Heap of queue indexes ordered by their head event. */
static void heap_down(struct imp *im, uint32_t *h, uint32_t n, uint32_t i)
{
	uint32_t v = h[i];
	const struct qev *ve = evq_head(&im->qs[v]);

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && qev_before(evq_head(&im->qs[h[c + 1]]), evq_head(&im->qs[h[c]])))
			c++;
		if (!qev_before(evq_head(&im->qs[h[c]]), ve))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

/* Delivers, in time order, the queued events at or before limit (all of them with all), at
 * most max of them. */
static int qmerge(struct imp *im, uint64_t limit, bool all, size_t max)
{
	uint32_t *h = im->heap, n = 0, i;
	size_t done = 0;
	int ret = 0;

	if (!im->nq)
		return 0;
	for (i = 0; i < im->nqs; i++) {
		struct evq *q = &im->qs[i];

		if (!q->n)
			continue;
		if (q->unsorted) {
			evq_sort(q);
			if (q->unsorted)
				return -ENOMEM;
		}
		if (all || evq_head(q)->ts <= limit)
			h[n++] = i;
	}
	for (i = n / 2; i-- > 0;)
		heap_down(im, h, n, i);
	while (n && done < max) {
		struct evq *q = &im->qs[h[0]];

		ret = handle(im, evq_head(q));
		if (ret)
			break;
		done++;
		q->head = (q->head + 1) & (q->cap - 1);
		q->n--;
		if (!q->n || (!all && evq_head(q)->ts > limit))
			h[0] = h[--n];
		if (n)
			heap_down(im, h, n, 0);
	}
	im->nq -= done;
	if (ret)
		return ret;
	for (i = 0; i < im->nqs; i++) {
		struct evq *q = &im->qs[i];

		/* give back what a burst took */
		if (q->cap > 4096 && q->n < q->cap / 8 && evq_relayout(q, q->cap / 4))
			return -ENOMEM;
	}
	return 0;
}

static int qflush(struct imp *im, uint64_t limit, bool all)
{
	return qmerge(im, limit, all, SIZE_MAX);
}

/* Stamps e with its time and file order and queues it on queue qi (0: no CPU, else cpu + 1). */
static int qpush(struct imp *im, const struct qev *e, uint32_t qi)
{
	struct evq *q;
	struct qev *n;
	int ret;

	if (im->nq >= QUEUE_MAX) {
		/* a file without rounds: keep memory bounded by forcing out the older half */
		ret = qmerge(im, 0, true, im->nq / 2);
		if (ret)
			return ret;
	}
	if (qi >= im->nqs) {
		uint32_t want = qi + 1, i;
		uint32_t *nh = realloc(im->heap, want * sizeof(*nh));
		struct evq *nq;

		if (!nh)
			return -ENOMEM;
		im->heap = nh;
		nq = realloc(im->qs, want * sizeof(*nq));
		if (!nq)
			return -ENOMEM;
		im->qs = nq;
		for (i = im->nqs; i < want; i++)
			memset(&im->qs[i], 0, sizeof(im->qs[i]));
		im->nqs = want;
	}
	q = &im->qs[qi];
	if (q->n == q->cap && evq_relayout(q, q->cap ? 2 * q->cap : 256))
		return -ENOMEM;
	n = &q->ev[(q->head + q->n) & (q->cap - 1)];
	*n = *e;
	if (n->ts == UINT64_MAX)	/* a record without time stays where it is */
		n->ts = im->last_ts;
	n->seq = im->seq++;
	if (n->ts > im->max_ts)
		im->max_ts = n->ts;
	im->last_ts = n->ts;
	if (q->n && n->ts < q->ev[(q->head + q->n - 1) & (q->cap - 1)].ts)
		q->unsorted = true;
	q->n++;
	im->nq++;
	return 0;
}

/* ---- records out ---- */

static struct task_info *task_get(struct imp *im, uint32_t tid)
{
	struct tid_cache_ent *c = &im->tid_cache[tid % TID_CACHE];
	int added;
	int64_t i;

	if (c->idx && c->tid == tid)
		return &im->tinfo[c->idx - 1];
	i = keymap_get(&im->tasks, tid, 0, &added);
	if (i < 0 || array_reserve((void **)&im->tinfo, &im->tinfo_cap, im->tasks.count,
				sizeof(*im->tinfo)))
		return NULL;
	if (added)
		memset(&im->tinfo[i], 0, sizeof(im->tinfo[i]));
	c->tid = tid;
	c->idx = (uint32_t)i + 1;
	return &im->tinfo[i];
}

static int write_task(struct imp *im, uint32_t tid, struct task_info *ti, uint64_t rel)
{
	struct pwz_task t;
	const char *mapped = im->opts && im->opts->map ? task_map__name(im->opts->map, tid) : NULL;
	int64_t li;

	memset(&t, 0, sizeof(t));
	t.tid = tid;
	t.tgid = ti->tgid;
	t.time_ns = rel;
	if (ti->born && !ti->written) {	/* the first record of a new instance (model.h R8) */
		t.flags = PWZ_TASK_BORN;
		t.time_ns = t.since_ns = ti->born_ns;
	}
	memcpy(t.comm, ti->comm, PWZ_COMM_LEN);
	if (ti->tgid) {
		li = keymap_find(&im->tasks, ti->tgid, 0);
		if (li >= 0 && im->tinfo[li].has_comm)
			snprintf(t.proc_name, sizeof(t.proc_name), "%s", im->tinfo[li].comm);
	}
	if (mapped)
		snprintf(t.name, sizeof(t.name), "%s", mapped);
	else if (t.comm[0])
		snprintf(t.name, sizeof(t.name), "%s", t.comm);
	else
		snprintf(t.name, sizeof(t.name), "%u", tid);
	ti->written = true;
	im->st->tasks++;
	if (im->ledger && ledger_fold__task(im->ledger, &t))
		return -ENOMEM;
	return cdict_writer__task(im->w, &t);
}

/* Writes the task record of tid before its first use, naming it from a tracepoint comm when
 * no COMM record did. */
static int ensure_task(struct imp *im, uint32_t tid, const char *comm, uint64_t rel)
{
	struct task_info *ti = task_get(im, tid);

	if (!ti)
		return -ENOMEM;
	if (ti->written)
		return 0;
	if (!ti->has_comm && comm && comm[0]) {
		memcpy(ti->comm, comm, PWZ_COMM_LEN);
		ti->has_comm = true;
	}
	return write_task(im, tid, ti, rel);
}

/* Whether perf recorded every thread: its command line has -a (--all-cpus) and no -C. Only
 * a plain "-a" or "--all-cpus" word counts (clusters like -ag are not taken apart). */
static bool system_wide(const char *cmdline)
{
	bool all = false;
	const char *p = cmdline;

	while (p && *p) {
		size_t n;

		p += strspn(p, " ");
		n = strcspn(p, " ");
		if ((n == 2 && !strncmp(p, "-a", 2)) || (n == 10 && !strncmp(p, "--all-cpus", 10)))
			all = true;
		if ((n >= 2 && !strncmp(p, "-C", 2)) || (n >= 5 && !strncmp(p, "--cpu", 5)))
			return false;
		if (n == 2 && !strncmp(p, "--", 2))
			break;	/* the command perf ran */
		p += n;
	}
	return all;
}

/* Whether the import folds the vCPU ledger (model.h R10): as a live capture, from the
 * scheduler's switches and wakeups and the KVM exits. */
static bool has_ledger(const struct imp *im)
{
	return im->has_switch_attr && im->has_wakeup_attr && im->has_kvm_attr;
}

/* What the import's ledger tells apart, for the meta's options ("" without a ledger). */
static const char *ledger_text(const struct imp *im)
{
	static const char *const text[2][2] = {
		{ "; vCPU ledger from the records, exit_user and halt_poll in exit_kernel (no kvm_userspace_exit, no kvm_vcpu_wakeup)",
		  "; vCPU ledger from the records, halt_poll in exit_kernel (no kvm_vcpu_wakeup)" },
		{ "; vCPU ledger from the records, exit_user in exit_kernel (no kvm_userspace_exit)",
		  "; vCPU ledger from the records" },
	};

	return has_ledger(im) ? text[im->has_halt_attr][im->has_uexit_attr] : "";
}

/* The first sample: the capture starts, the attributes are resolved and the writer opened. */
static int start(struct imp *im, uint64_t ts)
{
	struct sched_model_opts mo = { .emit_slices = true, .emit_wakeups = true,
				       .emit_kvm_exits = true };
	struct cdict_visitor out;
	struct cdict_writer_opts wo = {
		.legacy = im->opts && im->opts->legacy, .mode = im->opts ? im->opts->mode : 0,
		.exists = im->opts ? im->opts->exists : OUTFILE_REPLACE,
	};
	char opt[512];
	size_t i;
	int ret;

	im->started = true;
	im->t0 = ts;
	if (im->sample_time_first && im->sample_time_first < ts)
		im->t0 = im->sample_time_first;
	for (i = 0; i < im->nr_attrs; i++) {
		if (!im->attrs[i].resolved) {
			ret = resolve(im, &im->attrs[i], 0);
			if (ret)
				return ret;
		}
		im->has_switch_attr |= im->attrs[i].kind == EV_SWITCH;
		im->has_wakeup_attr |= im->attrs[i].kind == EV_WAKEUP;
		im->has_kvm_attr |= im->attrs[i].kind == EV_KVM_EXIT;
		im->has_uexit_attr |= im->attrs[i].kind == EV_KVM_UEXIT;
		im->has_halt_attr |= im->attrs[i].kind == EV_KVM_HALT;
	}
	im->meta.has_switch_kind = true;
	im->meta.has_wait = im->has_wakeup_attr;
	im->meta.has_prev_state = im->has_switch_attr;
	im->meta.has_kvm = im->has_kvm_attr;
	if (im->has_kvm_attr && !im->meta.nr_exit_names && exitnames_add_builtin(&im->meta) < 0)
		return -ENOMEM;
	im->meta.start_mono_ns = im->t0;
	if (im->clock_data_id >= 0) {
		im->meta.clock_id = (int32_t)im->clock_data_id;
		im->meta.start_wall_ns = im->clock_tod_ns + (im->t0 - im->clock_ref_ns);
	}
	if (pwz_meta_set_str(&im->meta.cmdline, im->perf_cmdline))
		return -ENOMEM;
	im->meta.threads = system_wide(im->perf_cmdline) ? PWZ_THREADS_ALL : PWZ_THREADS_UNKNOWN;
	snprintf(opt, sizeof(opt), "imported from %s%s%s%s", im->path,
		 im->opts && im->opts->cmdline ? " by: " : "",
		 im->opts && im->opts->cmdline ? im->opts->cmdline : "", ledger_text(im));
	if (pwz_meta_set_str(&im->meta.options, opt))
		return -ENOMEM;
	mo.preempt_bit = im->preempt_bit;
	mo.no_waits = !im->has_wakeup_attr;
	im->w = cdict_writer__new(im->out_path, &im->meta, &wo, im->err, im->errlen);
	if (!im->w)
		return errno ? -errno : -EIO;
	/* the model's records straight to the file, counted; the tasks are named before
	 * (ensure_task()) */
	im->out = (struct visit_gate){ .next = cdict_writer__visitor(im->w) };
	out = visit_gate__visitor(&im->out);
	if (has_ledger(im)) {
		im->ledger = ledger_fold__new();
		if (!im->ledger)
			return -ENOMEM;
		im->tee = (struct visit_tee){ .a = out, .b = ledger_fold__visitor(im->ledger) };
		out = visit_tee__visitor(&im->tee);
	}
	im->model = sched_model__new(&mo, &out);
	if (!im->model)
		return -ENOMEM;
	return 0;
}

/*
 * A thread created (FORK: e->a its process, e->b the thread, e->c its parent thread). During
 * the capture it is a new instance of its tid (model.h R8), named as its parent until a COMM
 * renames it; before, only its process is learnt.
 */
static int fork_task(struct imp *im, const struct qev *e, uint64_t rel)
{
	struct task_info *ti = task_get(im, e->b), *parent;
	char comm[PWZ_COMM_LEN];
	bool has_comm;

	if (!ti)
		return -ENOMEM;
	if (!im->started || !rel) {
		if (!ti->tgid)
			ti->tgid = e->a;
		return 0;
	}
	parent = task_get(im, (uint32_t)e->c);
	if (!parent)
		return -ENOMEM;
	ti = task_get(im, e->b);	/* the table may have moved */
	has_comm = parent->has_comm;
	memcpy(comm, parent->comm, PWZ_COMM_LEN);
	memset(ti, 0, sizeof(*ti));
	ti->tgid = e->a;
	ti->has_comm = has_comm;
	memcpy(ti->comm, comm, PWZ_COMM_LEN);
	ti->born = true;
	ti->born_ns = rel;
	return sched_model__born(im->model, rel, e->b);
}

static int handle(struct imp *im, const struct qev *e)
{
	struct task_info *ti;
	uint64_t rel;
	int ret = 0;

	if (!im->started && e->kind < EV_COMM) {
		ret = start(im, e->ts);
		if (ret)
			return ret;
	}
	rel = im->started && e->ts > im->t0 ? e->ts - im->t0 : 0;
	if (e->kind < EV_COMM && e->ts > im->last_sample_ts)
		im->last_sample_ts = e->ts;
	switch (e->kind) {
	case EV_COMM:
		ti = task_get(im, e->b);
		if (!ti)
			return -ENOMEM;
		ti->tgid = e->a;
		if (ti->has_comm && strncmp(ti->comm, e->comm, PWZ_COMM_LEN) == 0)
			return 0;
		memcpy(ti->comm, e->comm, PWZ_COMM_LEN);
		ti->has_comm = true;
		if (ti->written && im->started)	/* a rename: the later record wins */
			return write_task(im, e->b, ti, rel);
		return 0;
	case EV_FORK:
		return fork_task(im, e, rel);
	case EV_LOST:
		im->st->lost += e->d;
		if (im->model)
			sched_model__lost(im->model, rel);
		return 0;
	case EV_SWITCH:
		im->st->sched_switch++;
		ret = ensure_task(im, e->a, e->comm, rel);
		if (!ret)
			ret = ensure_task(im, e->b, e->comm2, rel);
		if (!ret)
			ret = sched_model__switch(im->model, rel, e->cpu, e->a, e->d, e->b);
		break;
	case EV_WAKEUP:
		im->st->sched_wakeup++;
		ret = ensure_task(im, e->a, e->comm, rel);
		if (!ret)
			ret = sched_model__wakeup(im->model, rel, e->a);
		break;
	case EV_MIGRATE:
		break;	/* model.h R5: a migration keeps the KVM pairing */
	case EV_KVM_UEXIT:
		im->st->kvm_uexit++;
		ret = ensure_task(im, e->a, NULL, rel);
		if (!ret && im->ledger)
			ret = ledger_fold__uexit(im->ledger, e->a, rel, e->b, (int32_t)e->c);
		break;
	case EV_KVM_HALT:
		im->st->kvm_halt++;
		ret = ensure_task(im, e->a, NULL, rel);
		if (!ret && im->ledger)
			ret = ledger_fold__halt_end(im->ledger, e->a, rel, e->d, e->b);
		break;
	case EV_KVM_EXIT:
		im->st->kvm_exit++;
		ret = ensure_task(im, e->a, NULL, rel);
		if (!ret)
			ret = sched_model__kvm_exit(im->model, rel, e->cpu, e->a, e->b, e->c,
						    (uint32_t)e->d);
		break;
	case EV_KVM_ENTRY:
		im->st->kvm_entry++;
		ret = ensure_task(im, e->a, NULL, rel);
		if (!ret)
			ret = sched_model__kvm_entry(im->model, rel, e->cpu, e->a);
		break;
	default:
		break;
	}
	if (ret)
		snprintf(im->err, im->errlen, "%s: writing %s: %s", im->path, im->out_path,
			 strerror(-ret));
	return ret;
}

int perfdata_import(const char *in_path, const char *out_path,
		    const struct perfdata_import_opts *opts, struct perfdata_import_stats *stats,
		    char *err, size_t errlen)
{
	struct perfdata_import_stats dummy;
	struct pd_reader_ops ops;
	struct pd_read_info info;
	struct imp im;
	uint32_t i;
	int ret;

	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof(*stats));
	if (errlen)
		err[0] = '\0';
	memset(&im, 0, sizeof(im));
	im.path = in_path;
	im.out_path = out_path;
	im.opts = opts;
	im.st = stats;
	im.err = err;
	im.errlen = errlen;
	im.clock_data_id = -1;
	im.meta.source = PWZ_SOURCE_PERF_DATA;
	im.meta.clock_id = -1;
	if (pwz_meta_set_str(&im.meta.tool_version, PWZ_VERSION)) {
		ret = -ENOMEM;
		goto out;
	}
	/* libtraceevent reports formats it cannot parse on stderr; a library stays quiet */
	tep_set_loglevel(TEP_LOG_NONE);
	im.tep = tep_alloc();
	if (!im.tep) {
		ret = -ENOMEM;
		goto out;
	}
	ops.ctx = &im;
	ops.attr = on_attr;
	ops.feature = on_feature;
	ops.record = on_record;
	ret = pd_read(in_path, &ops, &info, err, errlen);
	if (!ret)
		ret = qflush(&im, 0, true);
	if (ret)
		goto out;
	if (!im.started || (!stats->sched_switch && !stats->kvm_exit)) {
		snprintf(err, errlen,
			 "%s: no sched_switch and no kvm_exit samples: nothing to import (record with -e sched:sched_switch, and -e kvm:kvm_exit -e kvm:kvm_entry for KVM)",
			 in_path);
		ret = -ENODATA;
		goto out;
	}
	ret = sched_model__finish(im.model, im.last_sample_ts - im.t0);
	if (!ret && im.ledger) {
		struct cdict_visitor file = cdict_writer__visitor(im.w);

		ret = ledger_fold__emit(im.ledger, im.last_sample_ts - im.t0, &file);
	}
	stats->slices = im.out.slices;
	if (ret) {
		snprintf(err, errlen, "%s: writing %s: %s", in_path, out_path, strerror(-ret));
		goto out;
	}
	im.meta.duration_ns = im.last_sample_ts - im.t0;
	if (stats->lost && pwz_meta_add_drop(&im.meta, "lost", stats->lost)) {
		ret = -ENOMEM;
		goto out;
	}
	ret = cdict_writer__finish(im.w, &im.meta, err, errlen);
	if (!ret)
		snprintf(stats->path, sizeof(stats->path), "%s", cdict_writer__path(im.w));
out:
	if (ret && errlen && !err[0])
		snprintf(err, errlen, "%s: %s", in_path, strerror(-ret));
	cdict_writer__free(im.w);
	sched_model__free(im.model);
	ledger_fold__free(im.ledger);
	if (im.tep)
		tep_free(im.tep);
	pwz_meta_free(&im.meta);
	keymap_free(&im.ids);
	keymap_free(&im.tasks);
	free(im.ids_attr);
	free(im.attrs);
	for (i = 0; i < im.nqs; i++)
		free(im.qs[i].ev);
	free(im.qs);
	free(im.heap);
	free(im.tinfo);
	free(im.perf_cmdline);
	return ret;
}
