// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the v2 record decoder. The input is a msgpack record stream, wrapped into
 * a valid one-chunk file (fuzz_write_chunk_file()): a stream that starts with a META record
 * becomes a file without trailer (read as cut: every record of every type is delivered), any
 * other stream the END chunk of a file with a trailer pointing at it. (A trailer on every
 * input would have the META-first seeds refused before their first record.)
 */
#include "fuzz_wrap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_path(".cdict");

	if (size > (1u << 20))
		return 0;
	fuzz_write_chunk_file(path, data, size, fuzz_first_type(data, size) != CDICT_REC_META);
	fuzz_read_cdict(path);
	unlink(path);
	return 0;
}
