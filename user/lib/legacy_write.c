// SPDX-License-Identifier: GPL-2.0
/* Writer of perfwhiz's legacy cdict, so that perfwhiz's own tools can read pwz captures. */
#include <errno.h>
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "legacy.h"
#include "keymap.h"
#include "trace.h"

struct legacy_writer {
	struct trace *names;		/* the task records: the naming of each thread instance */
	struct cdict_visitor names_in;	/* fills names */
	bool settled;
	struct pwz_slice *slices;
	size_t nr_slices, cap_slices;
	struct pwz_kvm_exit *exits;
	size_t nr_exits, cap_exits;
};

enum lw_event { LW_SWITCH, LW_KVM_EXIT, LW_KVM_ENTRY };

struct lw_row {
	uint64_t usecs;
	uint64_t at_ns;		/* when: names the instances of pid and next_pid (model.h R8) */
	uint64_t duration;	/* µs */
	uint32_t cpu;
	uint32_t pid;
	uint32_t next_pid;	/* switch rows */
	uint32_t reason;	/* kvm_exit rows */
	uint8_t event;		/* enum lw_event */
	uint64_t seq;		/* tie-break: creation order */
};

struct legacy_writer *legacy_writer__new(void)
{
	struct legacy_writer *lw = calloc(1, sizeof(struct legacy_writer));

	if (lw && !(lw->names = trace__new("legacy", false, &lw->names_in))) {
		free(lw);
		return NULL;
	}
	return lw;
}

int legacy_writer__task(struct legacy_writer *lw, const struct pwz_task *t)
{
	return lw->names_in.task(lw->names_in.ctx, t);
}

int legacy_writer__slice(struct legacy_writer *lw, const struct pwz_slice *s)
{
	if (array_reserve((void **)&lw->slices, &lw->cap_slices, lw->nr_slices + 1, sizeof(*s)))
		return -ENOMEM;
	lw->slices[lw->nr_slices++] = *s;
	return 0;
}

int legacy_writer__kvm_exit(struct legacy_writer *lw, const struct pwz_kvm_exit *e)
{
	if (array_reserve((void **)&lw->exits, &lw->cap_exits, lw->nr_exits + 1, sizeof(*e)))
		return -ENOMEM;
	lw->exits[lw->nr_exits++] = *e;
	return 0;
}

static int cmp_cpu_start(const void *a, const void *b)
{
	const struct pwz_slice *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct lw_row *x = a, *y = b;

	if (x->usecs != y->usecs)
		return x->usecs < y->usecs ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The name of the instance of tid at time at_ns. */
static const char *task_name(const struct legacy_writer *lw, uint32_t tid, uint64_t at_ns,
			     uint32_t cpu, char *buf, size_t len)
{
	const struct pwz_task *t = trace__task_at(lw->names, tid, at_ns);

	if (t)
		return t->name;
	if (tid == 0)
		snprintf(buf, len, "swapper/%u", cpu);
	else
		snprintf(buf, len, "%u", tid);
	return buf;
}

static int cmp_tid_start(const void *a, const void *b)
{
	const struct pwz_slice *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* The CPU a vCPU thread ran on at time t: the slice of tid covering t in by_tid (sorted by
 * tid, start), else 0. */
static uint32_t exit_cpu(const struct pwz_slice *by_tid, size_t n, uint32_t tid, uint64_t t)
{
	size_t lo = 0, hi = n;

	/* first slice after (tid, t) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (by_tid[mid].tid < tid || (by_tid[mid].tid == tid && by_tid[mid].start_ns <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && by_tid[lo - 1].tid == tid && t <= by_tid[lo - 1].start_ns + by_tid[lo - 1].dur_ns)
		return by_tid[lo - 1].cpu;
	return 0;
}

static void pack_str(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);

	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

static struct lw_row *build_rows(struct legacy_writer *lw, size_t *nr)
{
	size_t n = lw->nr_slices + 2 * lw->nr_exits, k = 0;
	struct lw_row *rows = malloc((n ? n : 1) * sizeof(*rows));
	struct pwz_slice *by_tid = NULL;

	if (!rows)
		return NULL;
	if (lw->nr_slices > 1)
		qsort(lw->slices, lw->nr_slices, sizeof(*lw->slices), cmp_cpu_start);
	for (size_t i = 0; i < lw->nr_slices; i++) {
		const struct pwz_slice *s = &lw->slices[i];
		bool has_next = i + 1 < lw->nr_slices && lw->slices[i + 1].cpu == s->cpu;

		rows[k] = (struct lw_row){
			.usecs = (s->start_ns + s->dur_ns) / 1000,
			.at_ns = s->start_ns + s->dur_ns,
			.duration = s->dur_ns / 1000,
			.cpu = s->cpu,
			.pid = s->tid,
			.next_pid = has_next ? lw->slices[i + 1].tid : 0,
			.event = LW_SWITCH,
			.seq = k,
		};
		k++;
	}
	/* the slices again, by thread, to find the CPU of each exit */
	if (lw->nr_exits) {
		by_tid = malloc((lw->nr_slices ? lw->nr_slices : 1) * sizeof(*by_tid));
		if (!by_tid) {
			free(rows);
			return NULL;
		}
		memcpy(by_tid, lw->slices, lw->nr_slices * sizeof(*by_tid));
		if (lw->nr_slices > 1)
			qsort(by_tid, lw->nr_slices, sizeof(*by_tid), cmp_tid_start);
	}
	for (size_t i = 0; i < lw->nr_exits; i++) {
		const struct pwz_kvm_exit *e = &lw->exits[i];
		uint32_t cpu = exit_cpu(by_tid, lw->nr_slices, e->tid, e->time_ns);

		rows[k] = (struct lw_row){ .usecs = e->time_ns / 1000, .at_ns = e->time_ns,
					   .duration = e->guest_ns / 1000,
					   .cpu = cpu, .pid = e->tid, .reason = e->reason,
					   .event = LW_KVM_EXIT, .seq = k };
		k++;
		if (e->handling_ns) {
			rows[k] = (struct lw_row){ .usecs = (e->time_ns + e->handling_ns) / 1000,
						   .at_ns = e->time_ns,
						   .duration = e->handling_ns / 1000, .cpu = cpu,
						   .pid = e->tid, .event = LW_KVM_ENTRY, .seq = k };
			k++;
		}
	}
	free(by_tid);
	if (k > 1)
		qsort(rows, k, sizeof(*rows), cmp_rows);
	*nr = k;
	return rows;
}

/* perfwhiz's 8 columns, in the order written. */
enum lw_col { COL_EVENT, COL_CPU, COL_USECS, COL_PID, COL_TASK_NAME, COL_DURATION, COL_NEXT_PID,
	      COL_NEXT_COMM, NR_COLS };

/* Packs the cell of column col in row r. */
static void pack_cell(struct legacy_writer *lw, msgpack_packer *pk, const struct lw_row *r,
		      enum lw_col col)
{
	static const char *const events[] = { "sched__sched_switch", "kvm_exit", "kvm_entry" };
	char buf[32];

	switch (col) {
	case COL_EVENT:
		pack_str(pk, events[r->event]);
		break;
	case COL_CPU:
		msgpack_pack_uint32(pk, r->cpu);
		break;
	case COL_USECS:
		msgpack_pack_uint64(pk, r->usecs);
		break;
	case COL_PID:
		msgpack_pack_uint32(pk, r->pid);
		break;
	case COL_TASK_NAME:
		pack_str(pk, task_name(lw, r->pid, r->at_ns, r->cpu, buf, sizeof(buf)));
		break;
	case COL_DURATION:
		msgpack_pack_uint64(pk, r->duration);
		break;
	case COL_NEXT_PID:
		if (r->event == LW_SWITCH)
			msgpack_pack_uint32(pk, r->next_pid);
		else
			msgpack_pack_nil(pk);
		break;
	case COL_NEXT_COMM:
		if (r->event == LW_SWITCH)
			pack_str(pk, task_name(lw, r->next_pid, r->at_ns, r->cpu, buf, sizeof(buf)));
		else if (r->event == LW_KVM_EXIT)
			msgpack_pack_uint32(pk, r->reason);	/* the exit reason, as perfwhiz */
		else
			msgpack_pack_nil(pk);
		break;
	case NR_COLS:
		break;
	}
}

static void pack_columns(struct legacy_writer *lw, msgpack_packer *pk, const struct lw_row *rows,
			 size_t n)
{
	static const char *const names[NR_COLS] = { "event", "cpu", "usecs", "pid", "task_name",
						    "duration", "next_pid", "next_comm" };

	msgpack_pack_map(pk, NR_COLS);
	for (int col = 0; col < NR_COLS; col++) {
		pack_str(pk, names[col]);
		msgpack_pack_array(pk, n);
		for (size_t i = 0; i < n; i++)
			pack_cell(lw, pk, &rows[i], (enum lw_col)col);
	}
}

int legacy_writer__write(struct legacy_writer *lw, FILE *f)
{
	msgpack_sbuffer sbuf;
	msgpack_packer pk;
	struct lw_row *rows;
	unsigned char out[1 << 16];
	z_stream zs = { 0 };
	size_t n;
	int ret = 0, zret;

	if (!lw->settled && trace__settle(lw->names))
		return -ENOMEM;
	lw->settled = true;
	rows = build_rows(lw, &n);
	if (!rows)
		return -ENOMEM;
	msgpack_sbuffer_init(&sbuf);
	msgpack_packer_init(&pk, &sbuf, msgpack_sbuffer_write);
	pack_columns(lw, &pk, rows, n);
	free(rows);
	if (deflateInit(&zs, Z_DEFAULT_COMPRESSION) != Z_OK) {
		msgpack_sbuffer_destroy(&sbuf);
		return -ENOMEM;
	}
	zs.next_in = (unsigned char *)sbuf.data;
	zs.avail_in = (uInt)sbuf.size;
	do {
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		zret = deflate(&zs, Z_FINISH);
		if (zret == Z_STREAM_ERROR) {
			ret = -EIO;
			break;
		}
		if (fwrite(out, 1, sizeof(out) - zs.avail_out, f) != sizeof(out) - zs.avail_out) {
			ret = -errno;
			break;
		}
	} while (zret != Z_STREAM_END);
	deflateEnd(&zs);
	msgpack_sbuffer_destroy(&sbuf);
	return ret;
}

void legacy_writer__free(struct legacy_writer *lw)
{
	if (!lw)
		return;
	trace__free(lw->names);
	free(lw->slices);
	free(lw->exits);
	free(lw);
}
