// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the fuzzers' seed corpora into OUTDIR/{cdict,cdict_stream,render,legacy,csvmap}: small
 * captures made with pwz's own writers (v2 and legacy, every record type), the decompressed
 * chunks of every v2 file (for fuzz_cdict_stream) and the inflated document of every legacy
 * file (for fuzz_legacy), given files included.
 * Usage: mkseeds OUTDIR [FILE.cdict...]
 */
#include <errno.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include "cdict.h"
#include "cdict_format.h"

static const char *outdir;
static int nr_seeds;

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "mkseeds: %s: %s\n", what, detail);
	exit(1);
}

static void put_seed(const char *kind, const char *name, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, kind);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, kind, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		die(path, strerror(errno));
	nr_seeds++;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n;

	if (!f)
		die(path, strerror(errno));
	*len = 0;
	do {
		if (*len == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				die(path, "out of memory");
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	fclose(f);
	return buf;
}

/* One small capture through the real writer: every record type, several chunks. */
static void write_capture(const char *path, bool legacy, size_t chunk_bytes, int nr_slices)
{
	struct cdict_writer_opts o = { .chunk_bytes = chunk_bytes, .legacy = legacy };
	struct pwz_meta m = { 0 };
	struct pwz_cpu_topo topo[2] = { { 0, 0, 0 }, { 0, 1, 0 } };
	struct cdict_writer *w;
	char err[512];

	m.host = "seedhost";
	m.kernel = "6.18.0";
	m.cmdline = "pwz-bpf -s 1 seed";
	m.tool_version = "seed";
	m.source = PWZ_SOURCE_SYNTHETIC;
	m.nr_cpus = 2;
	m.topo = topo;
	m.clock_id = 1;
	m.start_mono_ns = 1000;
	m.start_wall_ns = 1700000000000000000ull;
	m.has_switch_kind = m.has_wait = m.has_kvm = true;
	w = cdict_writer__new(path, &m, &o, err, sizeof(err));
	if (!w)
		die(path, err);
	pwz_meta_add_exit_name(&m, PWZ_ISA_VMX, 1, "EXTERNAL_INTERRUPT");
	for (uint32_t tid = 0; tid < 4; tid++) {
		struct pwz_task t = { .tid = tid, .tgid = tid ? 100 : 0, .time_ns = 0 };

		snprintf(t.comm, sizeof(t.comm), tid ? "CPU %u/KVM" : "swapper/0", tid - 1);
		snprintf(t.proc_name, sizeof(t.proc_name), "qemu-kvm");
		snprintf(t.name, sizeof(t.name), tid ? "vm.vcpu%u" : "swapper", tid - 1);
		cdict_writer__task(w, &t);
	}
	for (int i = 0; i < nr_slices; i++) {
		struct pwz_slice s = { .tid = (uint32_t)i % 4, .cpu = (uint32_t)i % 2,
				       .start_ns = 1000ull * i, .dur_ns = 900, .end = (uint32_t)i % 5 };
		struct pwz_wakeup wk = { .tid = (uint32_t)i % 4, .cpu = 1, .wake_ns = 1000ull * i,
					 .wait_ns = 50 };
		struct pwz_kvm_exit e = { .tid = 1, .vcpu = 0, .time_ns = 1000ull * i + 10,
					  .isa = PWZ_ISA_VMX, .reason = (uint32_t)i % 3,
					  .guest_ns = 400, .handling_ns = 30 };

		cdict_writer__slice(w, &s);
		cdict_writer__wakeup(w, &wk);
		cdict_writer__kvm_exit(w, &e);
	}
	for (uint32_t tid = 0; tid < 4; tid++) {
		struct pwz_cpu_agg a = { .tid = tid, .cpu = 0, .runtime_ns = 5000, .switches = 5,
					 .voluntary = 3, .involuntary = 2 };
		struct pwz_kvm_agg k = { .tid = tid, .isa = PWZ_ISA_VMX, .reason = 1, .count = 2,
					 .handling_ns = 60 };
		struct pwz_wait_agg wa = { .tid = tid, .count = 2, .wait_ns = 100, .max_ns = 50 };

		k.hist[4] = 2;
		cdict_writer__cpu_agg(w, &a);
		cdict_writer__kvm_agg(w, &k);
		cdict_writer__wait_agg(w, &wa);
	}
	for (uint32_t tid = 1; tid < 4; tid++) {
		struct pwz_vcpu_ledger l = { .tid = tid, .alive_ns = 1000ull * nr_slices };

		l.ns[PWZ_VCPU_GUEST] = 400ull * nr_slices;
		l.ns[PWZ_VCPU_HALT] = 600ull * nr_slices;
		l.count[PWZ_VCPU_GUEST] = l.count[PWZ_VCPU_HALT] = (uint64_t)nr_slices;
		cdict_writer__vcpu_ledger(w, &l);
	}
	m.duration_ns = 1000ull * nr_slices;
	pwz_meta_add_drop(&m, "slice", 3);
	if (cdict_writer__finish(w, &m, err, sizeof(err)))
		die(path, err);
	cdict_writer__free(w);
	free(m.exit_names);
}

/*
 * Seeds for fuzz_render: all the records of a v2 file as one stream (META first), behind the
 * harness's six option bytes (a few combinations, amplified or not), once alone and once
 * twice (two runs).
 */
static void put_render_seeds(const char *base, const unsigned char *all, size_t len)
{
	static const unsigned char ctl[][6] = {
		{ 0, 0, 0, 255, 0, 0 }, { 1 | 2 | 4, 32, 64, 3, 0, 0 }, { 4 | 8 | 16, 0, 255, 0, 0, 0 },
		{ 32, 0, 0, 15, 12, 1 }, { 32 | 4, 16, 128, 15, 10, 2 },
	};
	unsigned char *buf = malloc(6 + 2 * len + 4);
	char name[256];

	if (!buf)
		die(base, "out of memory");
	for (size_t i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++) {
		memcpy(buf, ctl[i], 6);
		memcpy(buf + 6, all, len);
		snprintf(name, sizeof(name), "%s.opts%zu", base, i);
		put_seed("render", name, buf, 6 + len);
	}
	memcpy(buf + 6 + len, "\xc1RUN", 4);
	memcpy(buf + 10 + len, all, len);
	snprintf(name, sizeof(name), "%s.two-runs", base);
	put_seed("render", name, buf, 10 + 2 * len);
	free(buf);
}

/* Seeds for fuzz_cdict_stream: the decompressed payload of every chunk of a v2 file; and for
 * fuzz_render, all of them as one stream. */
static void extract_chunks(const char *base, const unsigned char *buf, size_t len)
{
	LZ4F_dctx *dctx;
	size_t off = CDICT_HEADER_LEN;
	unsigned char *all = NULL;
	size_t all_len = 0;
	int i = 0;

	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		die(base, "LZ4F context");
	while (off + CDICT_CHUNK_HDR_LEN <= len && !memcmp(buf + off, CDICT_CHUNK_MAGIC, 4)) {
		uint32_t flen = cdict_get_le32(buf + off + 4), rlen = cdict_get_le32(buf + off + 8);
		size_t src = flen, dst = rlen;
		unsigned char *raw;
		char name[256];

		if (off + CDICT_CHUNK_HDR_LEN + flen > len || rlen > (64u << 20))
			break;
		raw = malloc(rlen ? rlen : 1);
		LZ4F_resetDecompressionContext(dctx);
		if (raw && !LZ4F_isError(LZ4F_decompress(dctx, raw, &dst, buf + off + CDICT_CHUNK_HDR_LEN,
							 &src, NULL)) && dst <= 65536) {
			unsigned char *grown = realloc(all, all_len + dst);

			snprintf(name, sizeof(name), "%s.chunk%d", base, i);
			put_seed("cdict_stream", name, raw, dst);
			if (!grown)
				die(base, "out of memory");
			all = grown;
			memcpy(all + all_len, raw, dst);
			all_len += dst;
		}
		free(raw);
		off += CDICT_CHUNK_HDR_LEN + flen;
		i++;
	}
	LZ4F_freeDecompressionContext(dctx);
	if (all_len && all_len <= 65536)
		put_render_seeds(base, all, all_len);
	free(all);
}

/* Seeds for fuzz_legacy: the inflated msgpack document of a legacy file. */
static void inflate_legacy(const char *base, const unsigned char *buf, size_t len)
{
	uLongf cap = 1u << 20, out = cap;
	unsigned char *raw = malloc(cap);
	char name[256];

	if (!raw)
		die(base, "out of memory");
	/* A document above 1 MiB is not a useful seed; uncompress() then fails, and it is skipped. */
	if (uncompress(raw, &out, buf, len) == Z_OK) {
		snprintf(name, sizeof(name), "%s.msgpack", base);
		put_seed("legacy", name, raw, out);
	}
	free(raw);
}

static void add_file(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len;
	unsigned char *buf = slurp(path, &len);

	if (len <= 256 * 1024)
		put_seed("cdict", base, buf, len);
	if (len >= 8 && !memcmp(buf, CDICT_MAGIC, 8))
		extract_chunks(base, buf, len);
	else if (len >= 2 && buf[0] == 0x78)
		inflate_legacy(base, buf, len);
	free(buf);
}

int main(int argc, char **argv)
{
	static const char *csv[] = {
		"20418,instance-000019f4,vcpu0,8f81e3a1-3ebd-4015-bbee-e291f0672d02,FULL,2,Router\n"
		"20419,instance-000019f4,emulator,8f81e3a1-3ebd-4015-bbee-e291f0672d02,FULL,2,Router\n",
		"# comment\n\n1,a,vcpu1,u,FULL,7,Fw\r\n1,a,vcpu1,u,FULL,8,Fw2\n",
		"4294967295,x,t,u,g,99,n\n",
	};
	char path[4096];

	if (argc < 2) {
		fprintf(stderr, "usage: mkseeds OUTDIR [FILE.cdict...]\n");
		return 2;
	}
	outdir = argv[1];
	mkdir(outdir, 0755);
	for (int i = 0; i < 3; i++) {
		static const struct { const char *name; bool legacy; size_t chunk; int n; } caps[] = {
			{ "v2-small.cdict", false, 0, 8 },
			{ "v2-chunks.cdict", false, 600, 40 },
			{ "legacy-small.cdict", true, 0, 12 },
		};

		snprintf(path, sizeof(path), "%s/%s", outdir, caps[i].name);
		write_capture(path, caps[i].legacy, caps[i].chunk, caps[i].n);
		add_file(path);
		remove(path);
	}
	for (int i = 2; i < argc; i++)
		add_file(argv[i]);
	for (size_t i = 0; i < sizeof(csv) / sizeof(csv[0]); i++) {
		snprintf(path, sizeof(path), "map%zu.csv", i);
		put_seed("csvmap", path, csv[i], strlen(csv[i]));
	}
	printf("mkseeds: %d seeds in %s\n", nr_seeds, outdir);
	return 0;
}
