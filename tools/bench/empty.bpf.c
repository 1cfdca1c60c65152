// SPDX-License-Identifier: GPL-2.0
/* The benchmark floor: programs on sched_switch (and sched_wakeup) that do nothing, to price the bare hooks. */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* The same attach kind as pwz's default (tp_btf): BTF-typed raw tracepoint. */
SEC("tp_btf/sched_switch")
int empty_btf(void *ctx)
{
	return 0;
}

/* With --two-hook, on sched_wakeup too: the floor of the two hooks pwz needs. */
SEC("tp_btf/sched_wakeup")
int empty_wakeup_btf(void *ctx)
{
	return 0;
}

SEC("raw_tp/sched_wakeup")
int empty_wakeup_raw(void *ctx)
{
	return 0;
}

/* The raw_tp fallback, for kernels without BTF or pwz-bpf --raw-tp. */
SEC("raw_tp/sched_switch")
int empty_raw(void *ctx)
{
	return 0;
}
