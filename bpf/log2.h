/* SPDX-License-Identifier: GPL-2.0 */
/* floor(log2(v)) without a loop, for the kernel's programs and the host alike. */
#ifndef PWZ_LOG2_H
#define PWZ_LOG2_H

/* Included by bpf/whist.h (BPF and user/), user/lib/records.c and render/parquet.c:
 * fixed-width types on both sides. */
#if defined(__bpf__) || defined(__VMLINUX_H__)
typedef __u64 pwz_log2_u64;
typedef __u32 pwz_log2_u32;
#else
#include <stdint.h>
typedef uint64_t pwz_log2_u64;
typedef uint32_t pwz_log2_u32;
#endif

/* floor(log2(v)) for v > 0 (0 for 0), in six fixed steps: the BPF verifier takes it as is. */
static inline pwz_log2_u32 pwz_log2(pwz_log2_u64 v)
{
	pwz_log2_u32 r = 0, s;

	s = (v > 0xFFFFFFFFULL) << 5; v >>= s; r |= s;
	s = (v > 0xFFFFULL) << 4; v >>= s; r |= s;
	s = (v > 0xFFULL) << 3; v >>= s; r |= s;
	s = (v > 0xFULL) << 2; v >>= s; r |= s;
	s = (v > 0x3ULL) << 1; v >>= s; r |= s;
	r |= (pwz_log2_u32)(v >> 1);
	return r;
}

#endif /* PWZ_LOG2_H */
