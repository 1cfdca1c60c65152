/* SPDX-License-Identifier: GPL-2.0 */
/* pwz-bpf --live: per-interval figures from the kernel aggregates, shown by user/live_screen.h. */
#ifndef PWZ_LIVE_H
#define PWZ_LIVE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "live_frame.h"

struct capture;
struct task_table;

struct live;

/* A reader of cap's aggregates (started, streams off) that names threads from tt (borrowed).
 * selected (NULL: every thread) says which threads -p / -t chose: the slice running on a CPU
 * at a reading is counted only for them (the kernel's aggregates hold only them already).
 * Takes the first reading now. NULL with errno and err filled. */
struct live *live__new(struct capture *cap, struct task_table *tt, uint64_t t0,
		       bool (*selected)(void *ctx, uint32_t tid), void *ctx, char *err, size_t errlen);

/* Reads the kernel's totals now and fills *f (owned by l, valid until the next call) with the
 * differences since the previous reading. Returns 0 or -errno. */
int live__sample(struct live *l, struct live_frame **f);

/*
 * Forgets the threads gone, when a sweep is due (the last reading holds many more threads than
 * the last sweep kept): those of the last reading that did nothing in the last frame, exist no
 * longer, and whose final figures that reading holds whole (a thread runs to exit: a last
 * slice that ended while the maps were read waits for the next sweep). Their figures leave the
 * kernel's maps (capture__forget_threads()) and the readings, their share of the per-CPU
 * totals is kept here: the frames that follow are as they would have been, and a tid handed
 * out again starts a new thread from nothing (its first frame holds all it did, its ledger
 * too). Returns the number forgotten or -errno.
 */
int live__forget_gone(struct live *l);

/* NULL is a no-op. */
void live__free(struct live *l);

/* The options of the loop below. */
struct live_opts {
	double interval_s;		/* sampling period */
	uint64_t count;			/* intervals, then return; 0 until quit or a signal */
	bool batch;			/* text blocks on out instead of the screen */
	bool json;			/* JSON lines on out */
	bool kvm_view;			/* start in the KVM view */
	bool (*selected)(void *ctx, uint32_t tid);	/* -p / -t, as for live__new() */
	void *ctx;
};

struct pwz_meta;

/* The live view's loop: samples every interval, shows each frame (user/live_screen.h) until
 * count intervals, the q key or *stop (set by a signal handler). Drains cap's task records
 * meanwhile (capture__poll()). meta names the KVM exits. Returns 0 or -errno with err. */
int live_run(struct capture *cap, struct task_table *tt, uint64_t t0, const struct pwz_meta *meta,
	     const struct live_opts *o, volatile sig_atomic_t *stop, char *err, size_t errlen);

#endif /* PWZ_LIVE_H */
