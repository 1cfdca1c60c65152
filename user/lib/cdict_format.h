/* SPDX-License-Identifier: GPL-2.0 */
/* cdict v2 on-disk constants and the internal codec shared by its writer and reader. */
#ifndef PWZ_CDICT_FORMAT_H
#define PWZ_CDICT_FORMAT_H

#include <msgpack.h>
#include "mpack.h"
#include "records.h"

/* File header: magic, u16 version, u16 header length, u32 flags (all little-endian). */
#define CDICT_MAGIC "PWZCDICT"
#define CDICT_HEADER_LEN 16
/* Chunk header: magic, u32 LZ4 frame length, u32 decompressed length, u32 record count. */
#define CDICT_CHUNK_MAGIC "PWZK"
#define CDICT_CHUNK_HDR_LEN 16
#define CDICT_CHUNK_MAX (64u << 20)	/* largest chunk a reader accepts, either length */
/* Trailer after the last chunk: magic, u64 offset of the chunk holding the END record. */
#define CDICT_TRAILER_MAGIC "PWZTRAIL"
#define CDICT_TRAILER_LEN 16

/* Record types: each record is a msgpack array whose first element is the type. */
enum cdict_rec {
	CDICT_REC_META = 1,	/* [1, {meta map}] */
	CDICT_REC_TASK = 2,	/* [2, tid, tgid, time_ns, comm, proc_name, name, (flags,
				 * cgroup)] */
	CDICT_REC_SLICE = 3,	/* [3, tid, cpu, start_ns, dur_ns, end] */
	CDICT_REC_WAKEUP = 4,	/* [4, tid, cpu, wake_ns, wait_ns] */
	CDICT_REC_KVM_EXIT = 5,	/* [5, tid, vcpu, time_ns, isa, reason, guest_ns, handling_ns] */
	CDICT_REC_CPU_AGG = 6,	/* [6, tid, cpu, runtime_ns, switches, voluntary, involuntary] */
	CDICT_REC_KVM_AGG = 7,	/* [7, tid, isa, reason, count, handling_ns, [hist...]] */
	CDICT_REC_WAIT_AGG = 8,	/* [8, tid, count, wait_ns, max_ns, [since_ns], [hist]] */
	CDICT_REC_END = 9,	/* [9, {final meta map}] */
	CDICT_REC_IRQ_AGG = 10,	/* [10, cpu, tid, kind, vector, count, time_ns, max_ns, nested_ns,
				 * name, (since_ns)] */
	CDICT_REC_VCPU_LEDGER = 11,	/* [11, tid, since_ns, alive_ns, [ns x states],
					 * [count x states], ([ns x ready causes],
					 * costop_ns, ([[log2 buckets] x states]))] */
};

/* Packs meta as a msgpack map. Returns 0 or -ENOMEM. */
int cdict_pack_meta(msgpack_packer *pk, const struct pwz_meta *meta);

/* Reads a meta map into meta (zeroed first; free with pwz_meta_free()). Unknown keys are
 * skipped. Returns 0, or -EINVAL with the cursor's err set, or -ENOMEM. */
int cdict_unpack_meta(struct mp_cursor *c, struct pwz_meta *meta);

static inline void cdict_put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t cdict_get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif /* PWZ_CDICT_FORMAT_H */
