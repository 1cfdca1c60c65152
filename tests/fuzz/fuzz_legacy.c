// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the legacy perfwhiz reader. The input is the msgpack document; the harness
 * deflates it into the zlib stream perfwhiz writes, so the fuzzer works on the columns. */
#include <zlib.h>
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_path(".cdict");
	uLongf len = compressBound(size);
	unsigned char *buf;

	if (size > (1u << 20))
		return 0;
	buf = malloc(len);
	if (!buf || compress2(buf, &len, data, size, 1) != Z_OK)
		abort();
	fuzz_write(path, buf, len);
	free(buf);
	fuzz_read_cdict(path);
	unlink(path);
	return 0;
}
