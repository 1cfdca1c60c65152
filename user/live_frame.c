// SPDX-License-Identifier: GPL-2.0
/* pwz-bpf --live's frame: looking a thread up in it, telling an empty one. */
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

bool live_task_empty(const struct live_task *d)
{
	if (d->run_ns || d->switches || d->waits || d->wait_ns || d->exits || d->run_delay_ns)
		return false;
	for (int b = 0; b < PWZ_WHIST_BUCKETS; b++)
		if (d->wait_hist[b])
			return false;
	for (int i = 0; d->has_ledger && i < PWZ_VCPU_STATES; i++)
		if (d->state_ns[i])
			return false;
	return true;
}
