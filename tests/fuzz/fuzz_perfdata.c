// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: perfdata_import() of the input (file or pipe mode, tracing data included)
 * into a scratch cdict, which is then read back. */
#include "perfdata.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fuzz_path(".data"), *out = fuzz_path("-out.cdict");
	struct perfdata_import_opts opts = { .cmdline = "fuzz" };
	struct perfdata_import_stats stats;
	char err[512] = "";
	int ret;

	fuzz_write(in, data, size);
	ret = perfdata_import(in, out, &opts, &stats, err, sizeof(err));
	if (ret < 0 && ret != -ENOMEM && !err[0])
		abort();	/* the contract: every error fills err */
	if (ret == 0)
		fuzz_read_cdict(out);
	else if (access(out, F_OK) == 0)
		abort();	/* the contract: on error no output file is left */
	unlink(in);
	unlink(out);
	return 0;
}
