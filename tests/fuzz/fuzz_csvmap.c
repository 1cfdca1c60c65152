// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: task_map__parse() on the input (not NUL-terminated, as the contract
 * allows), then every lookup a render makes. */
#include "tasknames.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "";
	struct task_map *m;
	char *copy;

	/* An exact-size heap copy: a read past len is caught by ASan. */
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	m = task_map__parse(copy, size, "fuzz.csv", err, sizeof(err));
	if (!m) {
		if (!err[0])
			abort();	/* the contract: every error fills err */
	} else {
		size_t n = task_map__count(m);

		/* Look up the number that starts each line (the tids the map may name). */
		for (size_t i = 0; i < size; i++) {
			uint64_t tid = 0;
			const char *name;

			if (i && data[i - 1] != '\n')
				continue;
			for (size_t j = i; j < size && j < i + 10 && data[j] >= '0' && data[j] <= '9'; j++)
				tid = tid * 10 + (data[j] - '0');
			name = task_map__name(m, (uint32_t)tid);
			if (name)
				fuzz_touch_str(name, FUZZ_UNBOUNDED);
		}
		fuzz_sink += n;
		task_map__free(m);
	}
	free(copy);
	return 0;
}
