// SPDX-License-Identifier: GPL-2.0
/* cdict reader: v2 chunks (and dispatch to the legacy reader), delivered to a visitor. */
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cdict.h"
#include "cdict_format.h"
#include "legacy.h"

struct reader {
	FILE *f;
	const char *path;
	unsigned long long size;	/* file size */
	unsigned long long data_start;	/* offset of the first chunk */
	unsigned char *comp;		/* compressed chunk */
	unsigned char *raw;		/* decompressed chunk */
	size_t comp_cap, raw_cap;
	LZ4F_dctx *dctx;
	char *err;
	size_t errlen;
	bool has_prev_state;		/* META: SLICE records without element 8 imply it */
	bool has_waker;			/* META: WAKEUP records without waker began preempted */
};

#define FAIL(r, off, ...)                                                                  \
	({                                                                                 \
		int __n = snprintf((r)->err, (r)->errlen, "%s: ", (r)->path);              \
		if (__n >= 0 && (size_t)__n < (r)->errlen)                                 \
			snprintf((r)->err + __n, (r)->errlen - (size_t)__n, __VA_ARGS__);  \
		if (off >= 0)                                                              \
			snprintf((r)->err + strlen((r)->err), (r)->errlen - strlen((r)->err),\
				 " (offset %lld)", (long long)(off));                      \
		-EINVAL;                                                                   \
	})

static int grow(unsigned char **buf, size_t *cap, size_t need)
{
	unsigned char *p;

	if (need <= *cap)
		return 0;
	p = realloc(*buf, need);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = need;
	return 0;
}

/* Reads the chunk at off into r->raw. Returns raw length >= 0, -ENODATA when the file
 * ends inside the chunk (cut), or -EINVAL/-ENOMEM with the message filled. *next gets the
 * offset after the chunk. */
static long long read_chunk(struct reader *r, unsigned long long off, unsigned long long *next,
			    uint32_t *nrecords)
{
	unsigned char hdr[CDICT_CHUNK_HDR_LEN];
	uint32_t comp_len, raw_len;
	size_t dst_len, src_len, done = 0, src_done = 0, ret;

	if (off + sizeof(hdr) > r->size)
		return -ENODATA;
	if (fseeko(r->f, (off_t)off, SEEK_SET) || fread(hdr, 1, sizeof(hdr), r->f) != sizeof(hdr))
		return -ENODATA;
	if (memcmp(hdr, CDICT_CHUNK_MAGIC, 4))
		return FAIL(r, (long long)off, "corrupt file: no chunk header where one should be");
	comp_len = cdict_get_le32(hdr + 4);
	raw_len = cdict_get_le32(hdr + 8);
	*nrecords = cdict_get_le32(hdr + 12);
	if (comp_len > CDICT_CHUNK_MAX || raw_len > CDICT_CHUNK_MAX)
		return FAIL(r, (long long)off, "corrupt chunk header: length %u/%u above the %u limit",
			    comp_len, raw_len, CDICT_CHUNK_MAX);
	if (off + sizeof(hdr) + comp_len > r->size)
		return -ENODATA;
	if (grow(&r->comp, &r->comp_cap, comp_len ? comp_len : 1) ||
	    grow(&r->raw, &r->raw_cap, raw_len ? raw_len : 1))
		return -ENOMEM;
	if (fread(r->comp, 1, comp_len, r->f) != comp_len)
		return -ENODATA;
	LZ4F_resetDecompressionContext(r->dctx);
	do {
		dst_len = raw_len - done;
		src_len = comp_len - src_done;
		ret = LZ4F_decompress(r->dctx, r->raw + done, &dst_len, r->comp + src_done, &src_len,
				      NULL);
		if (LZ4F_isError(ret))
			return FAIL(r, (long long)off, "corrupt chunk: %s", LZ4F_getErrorName(ret));
		done += dst_len;
		src_done += src_len;
	} while (ret && src_done < comp_len && done < raw_len);
	if (ret != 0 || done != raw_len)
		return FAIL(r, (long long)off, "corrupt chunk: it decompresses to %zu bytes, header says %u",
			    done, raw_len);
	*next = off + sizeof(hdr) + comp_len;
	return raw_len;
}

static int check_fields(struct mp_cursor *c, uint32_t have, uint32_t want)
{
	if (have < want) {
		mp_fail(c, "record has too few fields");
		return -EINVAL;
	}
	return 0;
}

static void skip_rest(struct mp_cursor *c, uint32_t have, uint32_t used)
{
	for (uint32_t i = used; i < have && !c->err; i++)
		mp_skip(c);
}

/*
 * The record readers: each parses the fields of one record kind after its type (n fields in
 * all, the type included), hands the record to its visitor callback when the cursor is still
 * sound, and returns 0, -EINVAL (too few fields; the cursor then holds the error) or what the
 * callback returned. Fields past those known are skipped.
 */

/* The next field of a record of n, as an unsigned integer, when it has one past *used (then
 * counted in *used); dflt when it ends before it (a file of an earlier version). */
static uint64_t opt_uint(struct mp_cursor *c, uint32_t n, uint32_t *used, uint64_t dflt)
{
	if (n <= *used)
		return dflt;
	(*used)++;
	return mp_read_uint(c);
}

/* TASK: tid, tgid, time, comm, proc_name, name[, flags[, cgroup]]. */
static int read_task(struct mp_cursor *c, uint32_t n, const struct cdict_visitor *v)
{
	struct pwz_task t = { 0 };
	uint32_t used = 7;
	int ret = check_fields(c, n, used);

	if (ret)
		return ret;
	t.tid = (uint32_t)mp_read_uint(c);
	t.tgid = (uint32_t)mp_read_uint(c);
	t.time_ns = mp_read_uint(c);
	mp_read_string(c, t.comm, sizeof(t.comm));
	mp_read_string(c, t.proc_name, sizeof(t.proc_name));
	mp_read_string(c, t.name, sizeof(t.name));
	t.flags = (uint32_t)opt_uint(c, n, &used, 0);
	t.since_ns = t.flags & PWZ_TASK_BORN ? t.time_ns : 0;
	if (n > used) {
		used++;
		mp_read_string(c, t.cgroup, sizeof(t.cgroup));
	}
	skip_rest(c, n, used);
	return !c->err && v->task ? v->task(v->ctx, &t) : 0;
}

/* SLICE: tid, cpu, start, dur, end[, flags[, prev_state]]; without prev_state, a capture
 * that records it (r->has_prev_state) implies it from the end. */
static int read_slice(const struct reader *r, struct mp_cursor *c, uint32_t n,
		      const struct cdict_visitor *v)
{
	struct pwz_slice s;
	uint32_t used = 6;
	int ret = check_fields(c, n, used);

	if (ret)
		return ret;
	s.tid = (uint32_t)mp_read_uint(c);
	s.cpu = (uint32_t)mp_read_uint(c);
	s.start_ns = mp_read_uint(c);
	s.dur_ns = mp_read_uint(c);
	s.end = (uint32_t)mp_read_uint(c);
	s.flags = (uint32_t)opt_uint(c, n, &used, 0) & PWZ_SLICE_UNSEEN_START;
	s.prev_state = 0;
	s.charged_ns = 0;
	if (n > used) {
		s.prev_state = (uint32_t)mp_read_uint(c);
		s.flags |= PWZ_SLICE_STATE;
		used++;
	} else if (r->has_prev_state && s.end <= PWZ_END_EXITED) {
		s.prev_state = pwz_state_of_end(s.end);
		s.flags |= PWZ_SLICE_STATE;
	}
	skip_rest(c, n, used);
	return !c->err && v->slice ? v->slice(v->ctx, &s) : 0;
}

/* WAKEUP: tid, cpu, wake, wait[, waker_tid, waker_cpu]; without the waker, a capture that
 * records wakers (r->has_waker) marks the wait as a preemption's. */
static int read_wakeup(const struct reader *r, struct mp_cursor *c, uint32_t n,
		       const struct cdict_visitor *v)
{
	struct pwz_wakeup wk;
	uint32_t used = 5;
	int ret = check_fields(c, n, used);

	if (ret)
		return ret;
	wk.tid = (uint32_t)mp_read_uint(c);
	wk.cpu = (uint32_t)mp_read_uint(c);
	wk.wake_ns = mp_read_uint(c);
	wk.wait_ns = mp_read_uint(c);
	wk.flags = 0;
	wk.waker_tid = wk.waker_cpu = 0;
	if (n >= used + 2) {
		wk.waker_tid = (uint32_t)mp_read_uint(c);
		wk.waker_cpu = (uint32_t)mp_read_uint(c);
		wk.flags = PWZ_WAKEUP_WOKEN;
		if (wk.waker_cpu != PWZ_WAKER_CPU_UNKNOWN)
			wk.flags |= PWZ_WAKEUP_WAKER;
		else
			wk.waker_tid = wk.waker_cpu = 0;
		used += 2;
	} else if (r->has_waker) {
		wk.flags = PWZ_WAKEUP_PREEMPTED;
	}
	skip_rest(c, n, used);
	return !c->err && v->wakeup ? v->wakeup(v->ctx, &wk) : 0;
}

/* KVM_EXIT: tid, vcpu, time, isa, reason, guest, handling[, flags]. */
static int read_kvm_exit(struct mp_cursor *c, uint32_t n, const struct cdict_visitor *v)
{
	struct pwz_kvm_exit e;
	uint32_t used = 8;
	int ret = check_fields(c, n, used);

	if (ret)
		return ret;
	e.tid = (uint32_t)mp_read_uint(c);
	e.vcpu = (uint32_t)mp_read_uint(c);
	e.time_ns = mp_read_uint(c);
	e.isa = (uint32_t)mp_read_uint(c);
	e.reason = (uint32_t)mp_read_uint(c);
	e.guest_ns = mp_read_uint(c);
	e.handling_ns = mp_read_uint(c);
	/* before the flags field, handling 0 meant unpaired */
	e.flags = (uint32_t)opt_uint(c, n, &used, e.handling_ns ? 0 : PWZ_EXIT_UNPAIRED);
	skip_rest(c, n, used);
	return !c->err && v->kvm_exit ? v->kvm_exit(v->ctx, &e) : 0;
}

/* CPU_AGG (sets info->has_aggregates): tid, cpu, runtime, switches, voluntary,
 * involuntary[, unseen[, unseen_ns[, since[, charged, charged_run]]]]. */
static int read_cpu_agg(struct mp_cursor *c, uint32_t n, const struct cdict_visitor *v,
			struct cdict_read_info *info)
{
	struct pwz_cpu_agg a;
	uint32_t used = 7;
	int ret = check_fields(c, n, used);

	if (ret)
		return ret;
	a.tid = (uint32_t)mp_read_uint(c);
	a.cpu = (uint32_t)mp_read_uint(c);
	a.runtime_ns = mp_read_uint(c);
	a.switches = mp_read_uint(c);
	a.voluntary = mp_read_uint(c);
	a.involuntary = mp_read_uint(c);
	a.unseen = opt_uint(c, n, &used, 0);
	a.unseen_ns = opt_uint(c, n, &used, 0);
	a.since_ns = opt_uint(c, n, &used, 0);
	a.charged_ns = a.charged_run_ns = 0;
	if (n >= used + 2) {
		a.charged_ns = mp_read_uint(c);
		a.charged_run_ns = mp_read_uint(c);
		used += 2;
	}
	skip_rest(c, n, used);
	info->has_aggregates = true;
	return !c->err && v->cpu_agg ? v->cpu_agg(v->ctx, &a) : 0;
}

/* Adds a histogram array's counts to hist (nb buckets; entries past the last go to it). */
static void read_hist(struct mp_cursor *c, uint64_t *hist, uint32_t nb)
{
	uint32_t nh = mp_read_array(c);

	for (uint32_t i = 0; i < nh && !c->err; i++) {
		uint64_t x = mp_read_uint(c);

		hist[i < nb ? i : nb - 1] += x;
	}
}

/* KVM_AGG (sets info->has_aggregates): tid, isa, reason, count, handling, [hist][, since]. */
static int read_kvm_agg(struct mp_cursor *c, uint32_t n, const struct cdict_visitor *v,
			struct cdict_read_info *info)
{
	struct pwz_kvm_agg a = { 0 };
	uint32_t used = 7;
	int ret = check_fields(c, n, used);

	if (ret)
		return ret;
	a.tid = (uint32_t)mp_read_uint(c);
	a.isa = (uint32_t)mp_read_uint(c);
	a.reason = (uint32_t)mp_read_uint(c);
	a.count = mp_read_uint(c);
	a.handling_ns = mp_read_uint(c);
	read_hist(c, a.hist, PWZ_HIST_BUCKETS);
	a.since_ns = opt_uint(c, n, &used, 0);
	skip_rest(c, n, used);
	info->has_aggregates = true;
	return !c->err && v->kvm_agg ? v->kvm_agg(v->ctx, &a) : 0;
}

/* WAIT_AGG: tid, count, wait, max[, since[, [hist][, run_delay, run_delay_wait,
 * run_delay_unmeasured]]]. */
static int read_wait_agg(struct mp_cursor *c, uint32_t n, const struct cdict_visitor *v)
{
	struct pwz_wait_agg a;
	uint32_t used = 5;
	int ret = check_fields(c, n, used);

	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.tid = (uint32_t)mp_read_uint(c);
	a.count = mp_read_uint(c);
	a.wait_ns = mp_read_uint(c);
	a.max_ns = mp_read_uint(c);
	a.since_ns = opt_uint(c, n, &used, 0);
	if (n > used) {
		/* the wait histogram (element 7): files without it have none */
		read_hist(c, a.hist, PWZ_WHIST_BUCKETS);
		used++;
	}
	if (n > used + 2) {
		/* the kernel's charge of the waits (elements 8-10: R9) */
		a.run_delay_ns = mp_read_uint(c);
		a.run_delay_wait_ns = mp_read_uint(c);
		a.run_delay_unmeasured_ns = mp_read_uint(c);
		used += 3;
	}
	skip_rest(c, n, used);
	return !c->err && v->wait_agg ? v->wait_agg(v->ctx, &a) : 0;
}

/* IRQ_AGG: cpu, tid, kind, vector, count, time, max, nested, name[, since]; a cpu out of
 * range is corrupt, a kind of a later version skipped like an unknown record. */
static int read_irq_agg(struct mp_cursor *c, uint32_t n, const struct cdict_visitor *v)
{
	struct pwz_irq_agg a = { 0 };
	uint32_t used = 10;
	int ret = check_fields(c, n, used);

	if (ret)
		return ret;
	a.cpu = (uint32_t)mp_read_uint(c);
	a.tid = (uint32_t)mp_read_uint(c);
	a.kind = (uint32_t)mp_read_uint(c);
	a.vector = (uint32_t)mp_read_uint(c);
	a.count = mp_read_uint(c);
	a.time_ns = mp_read_uint(c);
	a.max_ns = mp_read_uint(c);
	a.nested_ns = mp_read_uint(c);
	mp_read_string(c, a.name, sizeof(a.name));
	a.since_ns = opt_uint(c, n, &used, 0);
	skip_rest(c, n, used);
	if (!c->err && a.cpu >= PWZ_MAX_CPUS)
		mp_fail(c, "IRQ_AGG cpu out of range");
	if (!c->err && a.kind <= PWZ_IRQ_KIND_SOFT && v->irq_agg)
		return v->irq_agg(v->ctx, &a);
	return 0;
}

/* Reads an array of up to max integers into v (the rest left 0); elements past those, a later
 * version's, are skipped. */
static void read_u64s(struct mp_cursor *c, uint64_t *v, uint32_t max)
{
	uint32_t n = mp_read_array(c);

	for (uint32_t i = 0; i < n && !c->err; i++) {
		if (i < max)
			v[i] = mp_read_uint(c);
		else
			mp_skip(c);
	}
}

/* The ledger's histograms: an array of up to PWZ_VCPU_STATES arrays of up to PWZ_HIST_BUCKETS
 * integers (the rest 0, more skipped). */
static void read_ledger_hists(struct mp_cursor *c, struct pwz_vcpu_ledger *l)
{
	uint32_t n = mp_read_array(c);

	for (uint32_t s = 0; s < n && !c->err; s++) {
		if (s < PWZ_VCPU_STATES)
			read_u64s(c, l->hist[s], PWZ_HIST_BUCKETS);
		else
			mp_skip(c);
	}
}

/* VCPU_LEDGER: tid, since, alive, [ns per state], [count per state], then (optional: files
 * before them lack these) [ns per ready cause], costop, [[log2 buckets] per state], vcpu_id
 * (nil unknown). */
static int read_vcpu_ledger(struct mp_cursor *c, uint32_t n, const struct cdict_visitor *v)
{
	struct pwz_vcpu_ledger l = { 0 };
	int ret = check_fields(c, n, 6);

	if (ret)
		return ret;
	l.tid = (uint32_t)mp_read_uint(c);
	l.since_ns = mp_read_uint(c);
	l.alive_ns = mp_read_uint(c);
	read_u64s(c, l.ns, PWZ_VCPU_STATES);
	read_u64s(c, l.count, PWZ_VCPU_STATES);
	if (n >= 8) {
		read_u64s(c, l.cause_ns, PWZ_READY_CAUSES);
		l.costop_ns = mp_read_uint(c);
	}
	if (n >= 9)
		read_ledger_hists(c, &l);
	if (n >= 10 && mp_peek(c) == MP_NIL) {
		mp_read_nil(c);
	} else if (n >= 10) {
		l.has_vcpu = true;
		l.vcpu = (uint32_t)mp_read_uint(c);
	}
	skip_rest(c, n, n >= 10 ? 10 : n >= 9 ? 9 : n >= 8 ? 8 : 6);
	return !c->err && v->vcpu_ledger ? v->vcpu_ledger(v->ctx, &l) : 0;
}

/* META or END: delivered already (the final one), checked here all the same. Returns 0 or
 * -EINVAL (too few fields); a corrupt meta leaves its error in the cursor. */
static int check_meta_rec(struct mp_cursor *c, uint32_t n)
{
	struct pwz_meta m;
	int ret = check_fields(c, n, 2);

	if (ret)
		return ret;
	ret = cdict_unpack_meta(c, &m);
	pwz_meta_free(&m);
	if (ret == -EINVAL)
		ret = 0;	/* the cursor's error is reported by the caller */
	skip_rest(c, n, 2);
	return ret;
}

/* Parses and delivers the records of one chunk. META and END records were delivered
 * already: they are checked, not delivered, nor counted in info->records. */
static int deliver(struct reader *r, const unsigned char *buf, size_t len, unsigned long long off,
		   uint32_t nrecords, const struct cdict_visitor *v, struct cdict_read_info *info)
{
	struct mp_cursor c;
	uint32_t seen = 0;
	int ret = 0;

	mp_init(&c, buf, len);
	while (!ret && !mp_at_end(&c) && !c.err) {
		uint32_t n = mp_read_array(&c), type;

		if (!n)
			mp_fail(&c, "empty record");
		type = (uint32_t)mp_read_uint(&c);
		if (c.err)
			break;
		seen++;
		switch (type) {
		case CDICT_REC_TASK:
			ret = read_task(&c, n, v);
			break;
		case CDICT_REC_SLICE:
			ret = read_slice(r, &c, n, v);
			break;
		case CDICT_REC_WAKEUP:
			ret = read_wakeup(r, &c, n, v);
			break;
		case CDICT_REC_KVM_EXIT:
			ret = read_kvm_exit(&c, n, v);
			break;
		case CDICT_REC_CPU_AGG:
			ret = read_cpu_agg(&c, n, v, info);
			break;
		case CDICT_REC_KVM_AGG:
			ret = read_kvm_agg(&c, n, v, info);
			break;
		case CDICT_REC_WAIT_AGG:
			ret = read_wait_agg(&c, n, v);
			break;
		case CDICT_REC_IRQ_AGG:
			ret = read_irq_agg(&c, n, v);
			break;
		case CDICT_REC_VCPU_LEDGER:
			ret = read_vcpu_ledger(&c, n, v);
			break;
		case CDICT_REC_META:
		case CDICT_REC_END:
			ret = check_meta_rec(&c, n);
			continue;
		default:
			/* record types of later versions */
			skip_rest(&c, n, 1);
			continue;
		}
		if (!c.err && !ret)
			info->records++;
	}
	if (c.err)
		return FAIL(r, (long long)off, "corrupt chunk: %s at byte %zu of its records", c.err,
			    mp_offset(&c));
	if (!ret && seen != nrecords)
		return FAIL(r, (long long)off, "corrupt chunk: record count %u, header says %u", seen,
			    nrecords);
	return ret;
}

/* Finds the meta: from the END record the trailer points to, else the first chunk's META. */
static int read_meta(struct reader *r, struct pwz_meta *meta, struct cdict_read_info *info)
{
	unsigned char tr[CDICT_TRAILER_LEN];
	unsigned long long off = r->data_start, next;
	long long n;
	uint32_t nrec;
	bool have_trailer = false;

	if (r->size >= CDICT_HEADER_LEN + CDICT_TRAILER_LEN &&
	    !fseeko(r->f, (off_t)(r->size - CDICT_TRAILER_LEN), SEEK_SET) &&
	    fread(tr, 1, sizeof(tr), r->f) == sizeof(tr) && !memcmp(tr, CDICT_TRAILER_MAGIC, 8)) {
		unsigned long long end_off = cdict_get_le32(tr + 8) |
					     (unsigned long long)cdict_get_le32(tr + 12) << 32;

		if (end_off < r->data_start || end_off >= r->size - CDICT_TRAILER_LEN)
			return FAIL(r, (long long)(r->size - CDICT_TRAILER_LEN),
				    "corrupt trailer: it points outside the file");
		off = end_off;
		have_trailer = true;
	}
	n = read_chunk(r, off, &next, &nrec);
	if (n == -ENODATA)
		return FAIL(r, (long long)off, "cut short before its first whole chunk");
	if (n < 0)
		return (int)n;
	{
		struct mp_cursor c;
		uint32_t fields, type;
		int ret;

		mp_init(&c, r->raw, (size_t)n);
		fields = mp_read_array(&c);
		type = (uint32_t)mp_read_uint(&c);
		if (c.err || fields < 2 || type != (have_trailer ? CDICT_REC_END : CDICT_REC_META))
			return FAIL(r, (long long)off, "corrupt file: %s record missing",
				    have_trailer ? "END" : "META");
		ret = cdict_unpack_meta(&c, meta);
		if (ret == -EINVAL)
			return FAIL(r, (long long)off, "corrupt metadata: %s", c.err);
		if (ret)
			return ret;
	}
	info->cut = !have_trailer;
	return 0;
}

static int read_v2(struct reader *r, const unsigned char *hdr, const struct cdict_visitor *v,
		   struct cdict_read_info *info)
{
	struct pwz_meta meta;
	unsigned long long off, next, data_end;
	unsigned int version = hdr[8] | hdr[9] << 8, hdr_len = hdr[10] | hdr[11] << 8;
	long long n;
	uint32_t nrec;
	int ret;

	info->format = CDICT_FORMAT_V2;
	info->version = version;
	if (version > CDICT_VERSION) {
		snprintf(r->err, r->errlen,
			 "%s: written by a newer pwz (cdict version %u); this pwz reads versions up to %u",
			 r->path, version, CDICT_VERSION);
		return -EPROTONOSUPPORT;
	}
	if (version < 2)
		return FAIL(r, 8, "bad cdict version %u", version);
	/* later versions may grow the header: its length says where the chunks start */
	if (hdr_len < CDICT_HEADER_LEN || hdr_len > 4096 || hdr_len > r->size)
		return FAIL(r, 10, "corrupt header: header length %u (expected 16 to 4096, within the file)",
			    hdr_len);
	r->data_start = hdr_len;
	off = hdr_len;
	ret = read_meta(r, &meta, info);
	if (ret)
		return ret;
	r->has_prev_state = meta.has_prev_state;
	r->has_waker = meta.has_waker;
	if (v->meta)
		ret = v->meta(v->ctx, &meta);
	pwz_meta_free(&meta);
	if (ret)
		return ret;
	data_end = info->cut ? r->size : r->size - CDICT_TRAILER_LEN;
	while (off < data_end) {
		n = read_chunk(r, off, &next, &nrec);
		if (n == -ENODATA && !info->cut)
			return FAIL(r, (long long)off,
				    "corrupt chunk header: the chunk runs past the end of the file");
		if (n == -ENODATA)
			break;
		if (n < 0)
			return (int)n;
		ret = deliver(r, r->raw, (size_t)n, off, nrec, v, info);
		if (ret)
			return ret;
		info->chunks++;
		off = next;
	}
	if (info->cut)
		info->cut_offset = off;
	return 0;
}

int cdict_open(const char *path, struct stat *st, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int ret;

	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (a pipe, device or folder): give a capture file",
			 path);
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* cdict_open() as a stream. Returns it, or NULL with *ret = -errno and err filled. */
static FILE *open_regular(const char *path, struct stat *st, int *ret, char *err, size_t errlen)
{
	int fd = cdict_open(path, st, err, errlen);
	FILE *f;

	if (fd < 0) {
		*ret = fd;
		return NULL;
	}
	f = fdopen(fd, "rb");
	if (!f) {
		*ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int cdict_read(const char *path, const struct cdict_visitor *v, struct cdict_read_info *info,
	       char *err, size_t errlen)
{
	struct cdict_read_info local;
	struct reader r = { .path = path, .err = err, .errlen = errlen };
	unsigned char hdr[CDICT_HEADER_LEN];
	struct stat st;
	size_t got;
	int ret;

	if (!info)
		info = &local;
	memset(info, 0, sizeof(*info));
	r.f = open_regular(path, &st, &ret, err, errlen);
	if (!r.f)
		return ret;
	r.size = (unsigned long long)st.st_size;
	got = fread(hdr, 1, sizeof(hdr), r.f);
	if (got >= 8 && !memcmp(hdr, CDICT_MAGIC, 8)) {
		if (got < sizeof(hdr)) {
			ret = FAIL(&r, 0, "cut short inside its header");
		} else if (LZ4F_isError(LZ4F_createDecompressionContext(&r.dctx, LZ4F_VERSION))) {
			ret = -ENOMEM;
			snprintf(err, errlen, "%s: out of memory", path);
		} else {
			ret = read_v2(&r, hdr, v, info);
		}
	} else if (legacy_sniff(hdr, got)) {
		rewind(r.f);
		ret = legacy_read(r.f, path, v, info, err, errlen);
	} else if (!got) {
		ret = FAIL(&r, -1, "empty file, not a cdict");
	} else {
		ret = FAIL(&r, 0, "not a cdict file (neither pwz v2 nor a perfwhiz zlib stream)");
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	LZ4F_freeDecompressionContext(r.dctx);
	free(r.comp);
	free(r.raw);
	fclose(r.f);
	return ret;
}

char *cdict_resolve_path(const char *path)
{
	struct stat st;
	char *s;
	size_t n = strlen(path);

	if (!stat(path, &st))
		return strdup(path);
	s = malloc(n + 7);
	if (!s)
		return NULL;
	memcpy(s, path, n);
	memcpy(s + n, ".cdict", 7);
	if (!stat(s, &st))
		return s;
	free(s);
	errno = ENOENT;
	return NULL;
}
