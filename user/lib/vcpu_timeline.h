/* SPDX-License-Identifier: GPL-2.0 */
/* A vCPU thread's states over time, derived from its streams: its slices, waits and KVM exits. */
#ifndef PWZ_VCPU_TIMELINE_H
#define PWZ_VCPU_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The states of the timeline. The ledger (model.h R10, enum pwz_vcpu_state) is the kernel's
 * exact account; the streams say less, so the timeline has fewer states:
 *   guest        the guest time before each exit: [time - guest_ns, time) of an exit with
 *                guest_ns > 0, while on CPU (the ledger's guest);
 *   exit         on CPU handling an exit: [time, time + handling_ns) of each exit, not in
 *                guest (the ledger's exit_kernel, exit_user and halt_poll: the streams cannot
 *                tell them apart). An exit without entry (handling_ns 0, PWZ_EXIT_UNPAIRED) is
 *                handled until the next exit's guest time begins, the last one until `to`;
 *   other_on_cpu on CPU in no guest or exit interval (before the first exit, or around an
 *                exit whose guest time is unknown);
 *   ready        off CPU in one of its waits: wakeup or preemption to switch-in (R4);
 *   halt         off CPU and in no wait: blocked in a halt, or asleep in its VMM.
 */
enum vcpu_tl_state {
	VCPU_TL_GUEST = 0,
	VCPU_TL_EXIT,
	VCPU_TL_OTHER_ON_CPU,
	VCPU_TL_READY,
	VCPU_TL_HALT,
	VCPU_TL_STATES,
};

/* The name of state s ("guest", "exit", "other_on_cpu", "ready", "halt"; the ledger's spelling
 * where the state is one of its, pwz_vcpu_state_name()); NULL past VCPU_TL_STATES. */
const char *vcpu_tl_state_name(unsigned int s);

/* An interval [from_ns, to_ns) on the capture clock: a slice (on CPU) or a wait (ready). */
struct vcpu_tl_span {
	uint64_t from_ns;
	uint64_t to_ns;
};

/* What the timeline needs of a KVM exit (struct pwz_kvm_exit). */
struct vcpu_tl_exit {
	uint64_t time_ns;	/* kvm_exit */
	uint64_t guest_ns;	/* previous kvm_entry to the exit; 0 unknown */
	uint64_t handling_ns;	/* the exit to the next kvm_entry; 0 when no entry followed */
};

/* Called for each interval of the timeline, in time order; non-zero stops the derivation and
 * is returned by vcpu_tl_derive(). */
typedef int (*vcpu_tl_emit_fn)(void *ctx, enum vcpu_tl_state s, uint64_t from_ns, uint64_t to_ns);

/* One vCPU thread's streams: each array sorted by start (exits by time_ns), as one thread's
 * are; where intervals of one kind overlap, their union counts. */
struct vcpu_tl_input {
	const struct vcpu_tl_span *slices;	/* its run slices: on CPU */
	size_t nr_slices;
	const struct vcpu_tl_span *waits;	/* its run-queue waits */
	size_t nr_waits;
	const struct vcpu_tl_exit *exits;
	size_t nr_exits;
	uint64_t from_ns, to_ns;		/* its life within the window */
};

/*
 * Derives the timeline of in over [from_ns, to_ns) and hands it to emit: consecutive intervals
 * that cover [from_ns, to_ns) exactly, each non-empty, two neighbours never of one state.
 * Every interval of the streams is clipped to [from_ns, to_ns); on CPU, guest comes before exit,
 * exit before other_on_cpu; off CPU, ready before halt. Nothing is emitted when to_ns <=
 * from_ns. Returns 0, or the first non-zero value of emit. Allocates nothing; time linear in
 * the input.
 */
int vcpu_tl_derive(const struct vcpu_tl_input *in, vcpu_tl_emit_fn emit, void *ctx);

#endif /* PWZ_VCPU_TIMELINE_H */
