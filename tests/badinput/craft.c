// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a cdict v2 file around a msgpack record stream read from stdin, for the bad-input
 * suite: the header, chunk and trailer are right unless an option makes one of them wrong.
 * Usage: craft OUT [--version N] [--count N] [--records N] [--raw-len N] [--frame-len N] [--no-trailer]
 *        [--trailer-offset N] [--split N]
 * --records overrides the chunk's record count, --raw-len / --frame-len its lengths;
 * --split N puts the first N bytes of the stream in a first chunk (of --count records) and the
 * rest (one record: END) in a second.
 */
#include <errno.h>
#include <lz4frame.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what)
{
	fprintf(stderr, "craft: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void le(unsigned char *p, unsigned long long v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static long long opt_records = -1, opt_raw = -1, opt_frame = -1;

/* Writes one chunk holding data; returns its length on disk. */
static size_t put_chunk(FILE *f, const unsigned char *data, size_t len, unsigned int count)
{
	LZ4F_preferences_t prefs = {
		.frameInfo = { .contentChecksumFlag = LZ4F_contentChecksumEnabled, .contentSize = len },
	};
	size_t bound = LZ4F_compressFrameBound(len, &prefs), flen;
	unsigned char hdr[16], *frame = malloc(bound);

	if (!frame)
		die("malloc");
	flen = LZ4F_compressFrame(frame, bound, data, len, &prefs);
	if (LZ4F_isError(flen)) {
		fprintf(stderr, "craft: LZ4: %s\n", LZ4F_getErrorName(flen));
		exit(2);
	}
	memcpy(hdr, "PWZK", 4);
	le(hdr + 4, opt_frame >= 0 ? (unsigned long long)opt_frame : flen, 4);
	le(hdr + 8, opt_raw >= 0 ? (unsigned long long)opt_raw : len, 4);
	le(hdr + 12, opt_records >= 0 ? (unsigned long long)opt_records : count, 4);
	if (fwrite(hdr, 1, 16, f) != 16 || fwrite(frame, 1, flen, f) != flen)
		die("write");
	free(frame);
	return 16 + flen;
}

/* The record count in the chunk header is --count (default 1; the records the test wrote);
 * --records overrides it with a wrong one on purpose. */
int main(int argc, char **argv)
{
	unsigned long long version = 2, trailer_off = 0, split = 0, count = 1;
	bool trailer = true, have_trailer_off = false;
	unsigned char hdr[16], *buf = NULL;
	size_t len = 0, cap = 0, n, second;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: craft OUT [options] < records.msgpack\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		unsigned long long v = i + 1 < argc ? strtoull(argv[i + 1], NULL, 0) : 0;

		if (!strcmp(a, "--no-trailer")) {
			trailer = false;
			continue;
		}
		i++;
		if (!strcmp(a, "--version"))
			version = v;
		else if (!strcmp(a, "--records"))
			opt_records = (long long)v;
		else if (!strcmp(a, "--count"))
			count = v;
		else if (!strcmp(a, "--raw-len"))
			opt_raw = (long long)v;
		else if (!strcmp(a, "--frame-len"))
			opt_frame = (long long)v;
		else if (!strcmp(a, "--trailer-offset"))
			trailer_off = v, have_trailer_off = true;
		else if (!strcmp(a, "--split"))
			split = v;
		else {
			fprintf(stderr, "craft: unknown option %s\n", a);
			return 2;
		}
	}
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			buf = realloc(buf, cap);
			if (!buf)
				die("realloc");
		}
		n = fread(buf + len, 1, cap - len, stdin);
		len += n;
	} while (n);
	f = fopen(argv[1], "wb");
	if (!f)
		die(argv[1]);
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, "PWZCDICT", 8);
	le(hdr + 8, version, 2);
	le(hdr + 10, 16, 2);
	if (fwrite(hdr, 1, 16, f) != 16)
		die("write");
	if (split && split < len) {
		second = 16 + put_chunk(f, buf, split, (unsigned int)count);
		put_chunk(f, buf + split, len - split, 1);
	} else {
		second = 16;
		put_chunk(f, buf, len, (unsigned int)count);
	}
	if (trailer) {
		memcpy(hdr, "PWZTRAIL", 8);
		le(hdr + 8, have_trailer_off ? trailer_off : second, 8);
		if (fwrite(hdr, 1, 16, f) != 16)
			die("write");
	}
	if (fclose(f))
		die(argv[1]);
	free(buf);
	return 0;
}
