// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: cdict_read() and trace__load() on a file holding the input as is (v2 or
 * legacy: the reader dispatches on the first bytes). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_path(".cdict");

	fuzz_write(path, data, size);
	fuzz_read_cdict(path);
	unlink(path);
	return 0;
}
