// SPDX-License-Identifier: GPL-2.0
/* pwz-bpf --live's frame: looking a thread up in it. */
#include "live_frame.h"

size_t live_task_find(const struct live_task *tasks, size_t n, uint32_t tid, bool *found)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (tasks[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n && tasks[lo].tid == tid;
	return lo;
}
