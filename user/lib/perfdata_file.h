/* SPDX-License-Identifier: GPL-2.0 */
/* perf.data container reader: header, attributes, feature sections, records (file and pipe mode). */
#ifndef PWZ_PERFDATA_FILE_H
#define PWZ_PERFDATA_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Record types (linux/perf_event.h and tools/perf/util/event.h). */
enum {
	PD_REC_MMAP = 1,
	PD_REC_LOST = 2,
	PD_REC_COMM = 3,
	PD_REC_EXIT = 4,
	PD_REC_FORK = 7,
	PD_REC_SAMPLE = 9,
	PD_REC_LOST_SAMPLES = 13,
	PD_REC_HEADER_ATTR = 64,
	PD_REC_HEADER_TRACING_DATA = 66,
	PD_REC_FINISHED_ROUND = 68,
	PD_REC_AUXTRACE = 71,
	PD_REC_HEADER_FEATURE = 80,
	PD_REC_COMPRESSED = 81,
};

/* Feature bits (tools/perf/util/header.h). */
enum {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_CPU_TOPOLOGY = 13,
	PD_FEAT_SAMPLE_TIME = 21,
	PD_FEAT_CLOCKID = 23,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_CLOCK_DATA = 29,
	PD_FEAT_MAX = 256,
};

/* sample_type bits. */
#define PD_SAMPLE_IP		(1ULL << 0)
#define PD_SAMPLE_TID		(1ULL << 1)
#define PD_SAMPLE_TIME		(1ULL << 2)
#define PD_SAMPLE_ADDR		(1ULL << 3)
#define PD_SAMPLE_READ		(1ULL << 4)
#define PD_SAMPLE_CALLCHAIN	(1ULL << 5)
#define PD_SAMPLE_ID		(1ULL << 6)
#define PD_SAMPLE_CPU		(1ULL << 7)
#define PD_SAMPLE_PERIOD	(1ULL << 8)
#define PD_SAMPLE_STREAM_ID	(1ULL << 9)
#define PD_SAMPLE_RAW		(1ULL << 10)
#define PD_SAMPLE_IDENTIFIER	(1ULL << 16)

/* read_format bits. */
#define PD_FORMAT_TOTAL_TIME_ENABLED	(1ULL << 0)
#define PD_FORMAT_TOTAL_TIME_RUNNING	(1ULL << 1)
#define PD_FORMAT_ID			(1ULL << 2)
#define PD_FORMAT_GROUP			(1ULL << 3)
#define PD_FORMAT_LOST			(1ULL << 4)

#define PD_TYPE_TRACEPOINT 2	/* perf_event_attr.type of a tracepoint; config is its id */

/* One event attribute of the file, with the sample ids that name it. */
struct pd_attr {
	uint32_t type;		/* PERF_TYPE_* */
	uint64_t config;	/* tracepoint id when type is PD_TYPE_TRACEPOINT */
	uint64_t sample_type;	/* PD_SAMPLE_* bits: the layout of its samples */
	uint64_t read_format;	/* PD_FORMAT_* bits */
	bool sample_id_all;	/* non-sample records carry the sample id trailer */
	uint32_t nr_ids;
	const uint64_t *ids;	/* valid during the callback only */
};

/* One record, as stored. For a record unpacked from a COMPRESSED record, offset is the
 * COMPRESSED record's file offset and compressed is set. */
struct pd_record {
	uint32_t type;
	uint16_t misc;
	uint16_t size;		/* header included */
	const uint8_t *data;	/* size bytes, the header first; 8-byte aligned */
	uint64_t offset;
	bool compressed;
};

/*
 * Callbacks, each returning 0 or -errno; a non-zero return stops the read and pd_read()
 * returns it as is (the callback reports its own message). Any may be NULL.
 * - attr: every attribute, before any record that uses it.
 * - feature: a feature section (file mode) or HEADER_FEATURE / HEADER_TRACING_DATA record
 *   (pipe mode; tracing data as PD_FEAT_TRACING_DATA). In file mode all of them come before
 *   the first record. off is where its bytes start in the file.
 * - record: every other record in file order, COMPRESSED ones unpacked.
 */
struct pd_reader_ops {
	void *ctx;
	int (*attr)(void *ctx, const struct pd_attr *attr, uint64_t off);
	int (*feature)(void *ctx, unsigned int feat, const uint8_t *data, size_t len, uint64_t off);
	int (*record)(void *ctx, const struct pd_record *r);
};

struct pd_read_info {
	bool pipe_mode;			/* 16-byte header, everything in the stream */
	uint64_t file_size;		/* bytes of the file (file mode) or bytes read (pipe) */
	uint64_t data_offset;		/* data section */
	uint64_t data_size;
	uint32_t nr_attrs;
	uint64_t records;		/* records delivered, unpacked ones included */
	uint64_t compressed;		/* COMPRESSED records */
	uint64_t decompressed_bytes;	/* bytes they unpacked to */
};

/*
 * Reads the perf.data file at path (regular file or pipe-mode stream, in bounded memory:
 * records are read through a window, not the whole file). Returns 0, a callback's value, or
 * -errno with err filled as "<path>: offset N: <what is wrong>": -ENOENT/-EACCES cannot open,
 * -EINVAL bad magic, truncated file, bad section or record size, -EPROTONOSUPPORT big-endian
 * or version 1 files, -ENOMEM.
 */
int pd_read(const char *path, const struct pd_reader_ops *ops, struct pd_read_info *info,
	    char *err, size_t errlen);

/* The feature's name ("tracing_data", "hostname", ...) or "feature". */
const char *pd_feature_name(unsigned int feat);

#endif /* PWZ_PERFDATA_FILE_H */
