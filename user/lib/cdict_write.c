// SPDX-License-Identifier: GPL-2.0
/* cdict v2 writer: records packed with msgpack-c into chunks, each one LZ4 frame. */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cdict.h"
#include "cdict_format.h"
#include "legacy.h"
#include "outfile.h"

#define DEFAULT_CHUNK_BYTES (1u << 20)
#define CHUNK_SLACK (64u << 10)	/* larger records than this grow the chunk's buffer */

struct cdict_writer {
	struct outfile out;		/* the unique "<path>.XXXXXX.part", renamed at finish */
	int fd;				/* v2: out.fd; -1 when legacy */
	msgpack_sbuffer sbuf;		/* the chunk being filled */
	msgpack_packer pk;
	size_t chunk_bytes;		/* flush threshold */
	int level;			/* LZ4 compression level */
	uint32_t nrecords;		/* records in the current chunk */
	unsigned long long bytes;	/* bytes of the header and the whole chunks written */
	unsigned long long chunks;	/* whole chunks written */
	unsigned long long last_chunk;	/* offset of the last chunk written */
	void *frame;			/* compression buffer */
	size_t frame_cap;
	int error;			/* first write error, -errno */
	bool finished;
	struct legacy_writer *legacy;	/* legacy mode: rows collected here */
};

/* The packer's write callback: msgpack_sbuffer_write, with the few bytes of one field copied
 * inline when they fit (a libc memcpy call per field was ~7 % of a perf.data import). */
static int sbuf_write(void *data, const char *buf, size_t len)
{
	msgpack_sbuffer *sb = data;

	if (len <= 16 && sb->alloc - sb->size >= len) {
		char *d = sb->data + sb->size;
		size_t i;

		for (i = 0; i < len; i++)
			d[i] = buf[i];
		sb->size += len;
		return 0;
	}
	return msgpack_sbuffer_write(data, buf, len);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int flush_chunk(struct cdict_writer *w)
{
	LZ4F_preferences_t prefs;
	unsigned char hdr[CDICT_CHUNK_HDR_LEN];
	size_t bound, n;
	int ret;

	if (w->error)
		return w->error;
	if (!w->sbuf.size || w->fd < 0)
		return 0;
	memset(&prefs, 0, sizeof(prefs));
	prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	prefs.frameInfo.contentSize = w->sbuf.size;
	prefs.compressionLevel = w->level;
	bound = LZ4F_compressFrameBound(w->sbuf.size, &prefs);
	if (bound > w->frame_cap) {
		void *p = realloc(w->frame, bound);

		if (!p)
			return w->error = -ENOMEM;
		w->frame = p;
		w->frame_cap = bound;
	}
	n = LZ4F_compressFrame(w->frame, w->frame_cap, w->sbuf.data, w->sbuf.size, &prefs);
	if (LZ4F_isError(n))
		return w->error = -EIO;
	memcpy(hdr, CDICT_CHUNK_MAGIC, 4);
	cdict_put_le32(hdr + 4, (uint32_t)n);
	cdict_put_le32(hdr + 8, (uint32_t)w->sbuf.size);
	cdict_put_le32(hdr + 12, w->nrecords);
	ret = write_all(w->fd, hdr, sizeof(hdr));
	if (!ret)
		ret = write_all(w->fd, w->frame, n);
	if (ret)
		return w->error = ret;
	w->last_chunk = w->bytes;
	w->bytes += sizeof(hdr) + n;
	w->chunks++;
	msgpack_sbuffer_clear(&w->sbuf);
	w->nrecords = 0;
	return 0;
}

/* Called after each record: counts it and flushes a full chunk. */
static int record_done(struct cdict_writer *w)
{
	w->nrecords++;
	if (w->sbuf.size >= w->chunk_bytes)
		return flush_chunk(w);
	return w->error;
}

static void fill_err(char *err, size_t errlen, const char *path, const char *what, int e)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s: %s", path, what, strerror(e));
}

struct cdict_writer *cdict_writer__new(const char *path, const struct pwz_meta *meta,
				       const struct cdict_writer_opts *opts, char *err, size_t errlen)
{
	struct cdict_writer *w = calloc(1, sizeof(*w));
	unsigned char hdr[CDICT_HEADER_LEN] = CDICT_MAGIC;
	int e;

	if (!w)
		goto nomem;
	w->fd = -1;
	msgpack_sbuffer_init(&w->sbuf);
	msgpack_packer_init(&w->pk, &w->sbuf, sbuf_write);
	/* created now, also for legacy, so that errors come early */
	e = -outfile_open(&w->out, path, &(struct outfile_opts){
		.mode = opts ? opts->mode : 0, .exists = opts ? opts->exists : OUTFILE_REPLACE });
	if (e) {
		fill_err(err, errlen, path, "cannot create its temporary file", e);
		cdict_writer__free(w);
		errno = e;
		return NULL;
	}
	w->chunk_bytes = opts && opts->chunk_bytes ? opts->chunk_bytes : DEFAULT_CHUNK_BYTES;
	if (w->chunk_bytes > CDICT_CHUNK_MAX / 2)
		w->chunk_bytes = CDICT_CHUNK_MAX / 2;
	w->level = opts ? opts->compression_level : 0;
	if (opts && opts->legacy) {
		w->legacy = legacy_writer__new();
		if (!w->legacy)
			goto nomem;
		return w;
	}
	w->fd = w->out.fd;
	/* the chunk's buffer at its full size with room for the record that crosses the
	 * threshold: grown by msgpack's doubling, it became twice the chunk (2 MiB) */
	w->sbuf.data = malloc(w->chunk_bytes + CHUNK_SLACK);
	if (!w->sbuf.data)
		goto nomem;
	w->sbuf.alloc = w->chunk_bytes + CHUNK_SLACK;
	hdr[8] = CDICT_VERSION;
	hdr[10] = CDICT_HEADER_LEN;
	e = -write_all(w->fd, hdr, sizeof(hdr));
	if (e) {
		fill_err(err, errlen, w->out.tmp, "cannot write", e);
		cdict_writer__free(w);
		errno = e;
		return NULL;
	}
	w->bytes = sizeof(hdr);
	msgpack_pack_array(&w->pk, 2);
	msgpack_pack_uint8(&w->pk, CDICT_REC_META);
	cdict_pack_meta(&w->pk, meta);
	record_done(w);
	return w;
nomem:
	fill_err(err, errlen, path, "cannot start writing", ENOMEM);
	cdict_writer__free(w);
	errno = ENOMEM;
	return NULL;
}

static void pack_bytes(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);

	msgpack_pack_bin(pk, n);
	msgpack_pack_bin_body(pk, s, n);
}

static void pack_head(struct cdict_writer *w, unsigned int fields, enum cdict_rec type)
{
	msgpack_pack_array(&w->pk, fields);
	msgpack_pack_uint8(&w->pk, (uint8_t)type);
}

int cdict_writer__task(struct cdict_writer *w, const struct pwz_task *t)
{
	if (w->error)
		return w->error;
	if (w->legacy)
		return legacy_writer__task(w->legacy, t);
	/* the optional fields in their order, each written when it or one after it is known */
	unsigned int fields = t->cgroup[0] ? 9 : t->flags ? 8 : 7;

	pack_head(w, fields, CDICT_REC_TASK);
	msgpack_pack_uint32(&w->pk, t->tid);
	msgpack_pack_uint32(&w->pk, t->tgid);
	msgpack_pack_uint64(&w->pk, t->time_ns);
	pack_bytes(&w->pk, t->comm);
	pack_bytes(&w->pk, t->proc_name);
	pack_bytes(&w->pk, t->name);
	if (fields >= 8)
		msgpack_pack_uint32(&w->pk, t->flags);
	if (fields >= 9)
		pack_bytes(&w->pk, t->cgroup);
	return record_done(w);
}

int cdict_writer__slice(struct cdict_writer *w, const struct pwz_slice *s)
{
	if (w->error)
		return w->error;
	if (w->legacy)
		return legacy_writer__slice(w->legacy, s);
	uint32_t flags = s->flags & PWZ_SLICE_UNSEEN_START;
	/* the reported prev_state only when it is not what the end kind implies (R+ preempted,
	 * S slept, X exited): a file whose META says has_prev_state implies it otherwise */
	bool state = (s->flags & PWZ_SLICE_STATE) && s->prev_state != pwz_state_of_end(s->end);

	/* flags only when set or followed by the state: most slices have neither, and readers
	 * take 6 fields as flags 0 */
	pack_head(w, state ? 8 : flags ? 7 : 6, CDICT_REC_SLICE);
	msgpack_pack_uint32(&w->pk, s->tid);
	msgpack_pack_uint32(&w->pk, s->cpu);
	msgpack_pack_uint64(&w->pk, s->start_ns);
	msgpack_pack_uint64(&w->pk, s->dur_ns);
	msgpack_pack_uint32(&w->pk, s->end);
	if (flags || state)
		msgpack_pack_uint32(&w->pk, flags);
	if (state)
		msgpack_pack_uint32(&w->pk, s->prev_state);
	return record_done(w);
}

int cdict_writer__wakeup(struct cdict_writer *w, const struct pwz_wakeup *wk)
{
	if (w->error)
		return w->error;
	if (w->legacy)
		return 0;
	/* the waker of a wakeup (CPU PWZ_WAKER_CPU_UNKNOWN when unknown); neither element for
	 * a wait begun by a preemption, which a file whose META says has_waker reads so */
	bool woken = wk->flags & (PWZ_WAKEUP_WAKER | PWZ_WAKEUP_WOKEN);

	pack_head(w, woken ? 7 : 5, CDICT_REC_WAKEUP);
	msgpack_pack_uint32(&w->pk, wk->tid);
	msgpack_pack_uint32(&w->pk, wk->cpu);
	msgpack_pack_uint64(&w->pk, wk->wake_ns);
	msgpack_pack_uint64(&w->pk, wk->wait_ns);
	if (wk->flags & PWZ_WAKEUP_WAKER) {
		msgpack_pack_uint32(&w->pk, wk->waker_tid);
		msgpack_pack_uint32(&w->pk, wk->waker_cpu);
	} else if (woken) {
		msgpack_pack_uint32(&w->pk, 0);
		msgpack_pack_uint32(&w->pk, PWZ_WAKER_CPU_UNKNOWN);
	}
	return record_done(w);
}

int cdict_writer__kvm_exit(struct cdict_writer *w, const struct pwz_kvm_exit *e)
{
	if (w->error)
		return w->error;
	if (w->legacy)
		return legacy_writer__kvm_exit(w->legacy, e);
	pack_head(w, 9, CDICT_REC_KVM_EXIT);
	msgpack_pack_uint32(&w->pk, e->tid);
	msgpack_pack_uint32(&w->pk, e->vcpu);
	msgpack_pack_uint64(&w->pk, e->time_ns);
	msgpack_pack_uint32(&w->pk, e->isa);
	msgpack_pack_uint32(&w->pk, e->reason);
	msgpack_pack_uint64(&w->pk, e->guest_ns);
	msgpack_pack_uint64(&w->pk, e->handling_ns);
	msgpack_pack_uint32(&w->pk, e->flags);
	return record_done(w);
}

int cdict_writer__cpu_agg(struct cdict_writer *w, const struct pwz_cpu_agg *a)
{
	if (w->error)
		return w->error;
	if (w->legacy)
		return 0;
	bool charged = a->charged_ns || a->charged_run_ns;

	/* since_ns only when not 0 (most threads were there at the start) or followed by the
	 * kernel's charge */
	pack_head(w, charged ? 12 : a->since_ns ? 10 : 9, CDICT_REC_CPU_AGG);
	msgpack_pack_uint32(&w->pk, a->tid);
	msgpack_pack_uint32(&w->pk, a->cpu);
	msgpack_pack_uint64(&w->pk, a->runtime_ns);
	msgpack_pack_uint64(&w->pk, a->switches);
	msgpack_pack_uint64(&w->pk, a->voluntary);
	msgpack_pack_uint64(&w->pk, a->involuntary);
	msgpack_pack_uint64(&w->pk, a->unseen);
	msgpack_pack_uint64(&w->pk, a->unseen_ns);
	if (a->since_ns || charged)
		msgpack_pack_uint64(&w->pk, a->since_ns);
	if (charged) {
		msgpack_pack_uint64(&w->pk, a->charged_ns);
		msgpack_pack_uint64(&w->pk, a->charged_run_ns);
	}
	return record_done(w);
}

int cdict_writer__kvm_agg(struct cdict_writer *w, const struct pwz_kvm_agg *a)
{
	int n = PWZ_HIST_BUCKETS;

	if (w->error)
		return w->error;
	if (w->legacy)
		return 0;
	while (n > 0 && !a->hist[n - 1])
		n--;
	pack_head(w, a->since_ns ? 8 : 7, CDICT_REC_KVM_AGG);
	msgpack_pack_uint32(&w->pk, a->tid);
	msgpack_pack_uint32(&w->pk, a->isa);
	msgpack_pack_uint32(&w->pk, a->reason);
	msgpack_pack_uint64(&w->pk, a->count);
	msgpack_pack_uint64(&w->pk, a->handling_ns);
	msgpack_pack_array(&w->pk, (size_t)n);
	for (int i = 0; i < n; i++)
		msgpack_pack_uint64(&w->pk, a->hist[i]);
	if (a->since_ns)
		msgpack_pack_uint64(&w->pk, a->since_ns);
	return record_done(w);
}

int cdict_writer__wait_agg(struct cdict_writer *w, const struct pwz_wait_agg *a)
{
	bool rd = a->run_delay_ns || a->run_delay_wait_ns || a->run_delay_unmeasured_ns;
	int n = PWZ_WHIST_BUCKETS;

	if (w->error)
		return w->error;
	if (w->legacy)
		return 0;
	while (n > 0 && !a->hist[n - 1])
		n--;
	pack_head(w, rd ? 10 : n ? 7 : a->since_ns ? 6 : 5, CDICT_REC_WAIT_AGG);
	msgpack_pack_uint32(&w->pk, a->tid);
	msgpack_pack_uint64(&w->pk, a->count);
	msgpack_pack_uint64(&w->pk, a->wait_ns);
	msgpack_pack_uint64(&w->pk, a->max_ns);
	if (a->since_ns || n || rd)
		msgpack_pack_uint64(&w->pk, a->since_ns);
	if (n || rd) {
		/* the wait histogram (bpf/whist.h), trailing zeros trimmed */
		msgpack_pack_array(&w->pk, (size_t)n);
		for (int i = 0; i < n; i++)
			msgpack_pack_uint64(&w->pk, a->hist[i]);
	}
	if (rd) {
		/* the kernel's charge of the waits, the measured ones' wall time, the charge of
		 * the others (R9) */
		msgpack_pack_uint64(&w->pk, a->run_delay_ns);
		msgpack_pack_uint64(&w->pk, a->run_delay_wait_ns);
		msgpack_pack_uint64(&w->pk, a->run_delay_unmeasured_ns);
	}
	return record_done(w);
}

int cdict_writer__irq_agg(struct cdict_writer *w, const struct pwz_irq_agg *a)
{
	size_t n;

	if (w->error)
		return w->error;
	if (w->legacy)
		return 0;
	n = strnlen(a->name, sizeof(a->name));
	pack_head(w, a->since_ns ? 11 : 10, CDICT_REC_IRQ_AGG);
	msgpack_pack_uint32(&w->pk, a->cpu);
	msgpack_pack_uint32(&w->pk, a->tid);
	msgpack_pack_uint32(&w->pk, a->kind);
	msgpack_pack_uint32(&w->pk, a->vector);
	msgpack_pack_uint64(&w->pk, a->count);
	msgpack_pack_uint64(&w->pk, a->time_ns);
	msgpack_pack_uint64(&w->pk, a->max_ns);
	msgpack_pack_uint64(&w->pk, a->nested_ns);
	msgpack_pack_bin(&w->pk, n);
	msgpack_pack_bin_body(&w->pk, a->name, n);
	if (a->since_ns)
		msgpack_pack_uint64(&w->pk, a->since_ns);
	return record_done(w);
}

int cdict_writer__vcpu_ledger(struct cdict_writer *w, const struct pwz_vcpu_ledger *l)
{
	if (w->error)
		return w->error;
	if (w->legacy)
		return 0;
	pack_head(w, 10, CDICT_REC_VCPU_LEDGER);
	msgpack_pack_uint32(&w->pk, l->tid);
	msgpack_pack_uint64(&w->pk, l->since_ns);
	msgpack_pack_uint64(&w->pk, l->alive_ns);
	msgpack_pack_array(&w->pk, PWZ_VCPU_STATES);
	for (int s = 0; s < PWZ_VCPU_STATES; s++)
		msgpack_pack_uint64(&w->pk, l->ns[s]);
	msgpack_pack_array(&w->pk, PWZ_VCPU_STATES);
	for (int s = 0; s < PWZ_VCPU_STATES; s++)
		msgpack_pack_uint64(&w->pk, l->count[s]);
	msgpack_pack_array(&w->pk, PWZ_READY_CAUSES);
	for (int c = 0; c < PWZ_READY_CAUSES; c++)
		msgpack_pack_uint64(&w->pk, l->cause_ns[c]);
	msgpack_pack_uint64(&w->pk, l->costop_ns);
	msgpack_pack_array(&w->pk, PWZ_VCPU_STATES);
	for (int s = 0; s < PWZ_VCPU_STATES; s++) {
		msgpack_pack_array(&w->pk, PWZ_HIST_BUCKETS);
		for (int b = 0; b < PWZ_HIST_BUCKETS; b++)
			msgpack_pack_uint64(&w->pk, l->hist[s][b]);
	}
	if (l->has_vcpu)
		msgpack_pack_uint32(&w->pk, l->vcpu);
	else
		msgpack_pack_nil(&w->pk);
	return record_done(w);
}

/* ---- the writer as a visitor ---- */

static int v_task(void *w, const struct pwz_task *t) { return cdict_writer__task(w, t); }
static int v_slice(void *w, const struct pwz_slice *s) { return cdict_writer__slice(w, s); }
static int v_wakeup(void *w, const struct pwz_wakeup *k) { return cdict_writer__wakeup(w, k); }
static int v_kvm_exit(void *w, const struct pwz_kvm_exit *e) { return cdict_writer__kvm_exit(w, e); }
static int v_cpu_agg(void *w, const struct pwz_cpu_agg *a) { return cdict_writer__cpu_agg(w, a); }
static int v_kvm_agg(void *w, const struct pwz_kvm_agg *a) { return cdict_writer__kvm_agg(w, a); }
static int v_wait_agg(void *w, const struct pwz_wait_agg *a) { return cdict_writer__wait_agg(w, a); }
static int v_irq_agg(void *w, const struct pwz_irq_agg *a) { return cdict_writer__irq_agg(w, a); }
static int v_vcpu_ledger(void *w, const struct pwz_vcpu_ledger *l) { return cdict_writer__vcpu_ledger(w, l); }

struct cdict_visitor cdict_writer__visitor(struct cdict_writer *w)
{
	return (struct cdict_visitor){
		.ctx = w, .task = v_task, .slice = v_slice, .wakeup = v_wakeup,
		.kvm_exit = v_kvm_exit, .cpu_agg = v_cpu_agg, .kvm_agg = v_kvm_agg,
		.wait_agg = v_wait_agg, .irq_agg = v_irq_agg, .vcpu_ledger = v_vcpu_ledger,
	};
}

int cdict_writer__flush(struct cdict_writer *w)
{
	return flush_chunk(w);
}

unsigned long long cdict_writer__bytes(const struct cdict_writer *w)
{
	return w->bytes;
}

unsigned long long cdict_writer__chunks(const struct cdict_writer *w)
{
	return w->chunks;
}

const char *cdict_writer__path(const struct cdict_writer *w)
{
	return w->out.path;
}

const char *cdict_writer__part_path(const struct cdict_writer *w)
{
	return w->out.tmp;
}

static int finish_legacy(struct cdict_writer *w)
{
	FILE *f = outfile_stream(&w->out);
	struct stat st;
	int ret;

	if (!f)
		return -errno;
	ret = legacy_writer__write(w->legacy, f);
	if (fclose(f) && !ret)
		ret = errno ? -errno : -EIO;
	if (!ret && !fstat(w->out.fd, &st))
		w->bytes = (unsigned long long)st.st_size;	/* written whole, at the end */
	return ret;
}

static int finish_v2(struct cdict_writer *w, const struct pwz_meta *final)
{
	unsigned char trailer[CDICT_TRAILER_LEN];
	unsigned long long off;
	int ret;

	/* END starts a chunk of its own, so that a reader finds it from the trailer alone. */
	ret = flush_chunk(w);
	if (ret)
		return ret;
	msgpack_pack_array(&w->pk, 2);
	msgpack_pack_uint8(&w->pk, CDICT_REC_END);
	cdict_pack_meta(&w->pk, final);
	w->nrecords++;
	ret = flush_chunk(w);
	if (ret)
		return ret;
	memcpy(trailer, CDICT_TRAILER_MAGIC, 8);
	off = w->last_chunk;
	cdict_put_le32(trailer + 8, (uint32_t)off);
	cdict_put_le32(trailer + 12, (uint32_t)(off >> 32));
	ret = write_all(w->fd, trailer, sizeof(trailer));
	if (ret)
		return ret;
	w->bytes += sizeof(trailer);
	return 0;
}

int cdict_writer__finish(struct cdict_writer *w, const struct pwz_meta *final, char *err,
			 size_t errlen)
{
	int ret = w->error;

	if (!ret)
		ret = w->legacy ? finish_legacy(w) : finish_v2(w, final);
	w->fd = -1;		/* closed by the commit, or by outfile_close() */
	if (!ret)
		ret = outfile_commit(&w->out);
	if (ret) {
		/* the temporary stays until cdict_writer__free() (or __keep_partial()) */
		fill_err(err, errlen, w->out.path, "cannot write", -ret);
		w->error = ret;
		return ret;
	}
	w->finished = true;
	return 0;
}

int cdict_writer__keep_partial(struct cdict_writer *w)
{
	int e;

	if (w->finished || w->out.state != OUTFILE_OPEN)
		return -EBADF;
	if (w->legacy || !w->chunks) {
		/* nothing whole to keep: the legacy format is written at finish only */
		outfile_close(&w->out);
		w->fd = -1;
		return 0;
	}
	e = outfile_keep(&w->out, (off_t)w->bytes);
	w->fd = -1;
	w->finished = true;
	return e ? e : 1;
}

int cdict_writer__keep_partial_note(struct cdict_writer *w, char *note, size_t notelen)
{
	unsigned long long chunks = w->chunks;
	bool legacy = w->legacy != NULL;
	char part[PATH_MAX];
	int kept;

	snprintf(part, sizeof(part), "%s", cdict_writer__part_path(w) ?: "");
	kept = cdict_writer__keep_partial(w);
	if (kept == 1)
		snprintf(note, notelen, "the %llu whole chunks written are kept in %s: read them with pwz-render --partial %s",
			 chunks, part, part);
	else if (kept < 0 && kept != -EBADF)
		snprintf(note, notelen, "what was written is kept in %s (cutting it to its %llu whole chunks failed: %s): read it with pwz-render --partial %s",
			 part, chunks, strerror(-kept), part);
	else if (legacy)
		snprintf(note, notelen, "a --legacy file is written whole at the end: nothing kept");
	else
		snprintf(note, notelen, "no whole chunk was written yet: nothing kept");
	return kept;
}

void cdict_writer__free(struct cdict_writer *w)
{
	if (!w)
		return;
	/* an uncommitted temporary is removed (if still the file created), a kept one stays */
	outfile_close(&w->out);
	legacy_writer__free(w->legacy);
	msgpack_sbuffer_destroy(&w->sbuf);
	free(w->frame);
	free(w);
}
