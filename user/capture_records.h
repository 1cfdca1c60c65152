/* SPDX-License-Identifier: GPL-2.0 */
/* BPF ring-buffer records and map values (bpf/pwz.h) into capture records (records.h). */
#ifndef PWZ_CAPTURE_RECORDS_H
#define PWZ_CAPTURE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "cdict.h"
#include "records.h"
#include "../bpf/pwz.h"

/* A thread's birth (task_newtask) or rename (task_rename), as the ring carried it. */
struct capture_task_event {
	uint32_t tid;
	uint32_t tgid;			/* its process; 0 unknown (renames) */
	bool is_new;			/* a birth */
	uint64_t time_ns;		/* from the capture start */
	char comm[PWZ_COMM_LEN];	/* its comm from then on, NUL-terminated */
};

/* A process's command line after its exec (struct rec_exec). */
struct capture_exec_event {
	uint32_t tgid;
	uint64_t time_ns;		/* from the capture start */
	const char *args;		/* len bytes, NUL-separated arguments, in the record */
	size_t len;
	bool cut;			/* the command line went on past len */
};

enum capture_rec_kind {
	CAPTURE_REC_SKIP,		/* short, or of a type not known */
	CAPTURE_REC_SLICE,
	CAPTURE_REC_KVM_EXIT,
	CAPTURE_REC_TASK,
	CAPTURE_REC_EXEC,
};

/* One ring-buffer record as the model's records (records.h). */
struct capture_rec {
	enum capture_rec_kind kind;
	union {
		struct {
			struct pwz_slice s;
			struct pwz_wakeup w;	/* the wait before it, with waited */
			bool waited;
			bool has_run_delay;	/* the kernel's charge of that wait, or of one not
						 * measured (model.h R9) */
			uint64_t run_delay_ns;
		} slice;
		struct pwz_kvm_exit exit;
		struct capture_task_event task;
		struct capture_exec_event exec;
	};
};

/*
 * Decodes one ring-buffer record of size bytes into *out, once, times made relative to t0
 * (CLOCK_MONOTONIC capture start), and returns its kind. Records shorter than their type's
 * struct and unknown types are CAPTURE_REC_SKIP. An exec's args point into data.
 */
enum capture_rec_kind capture_decode(const void *data, size_t size, uint64_t t0,
				     struct capture_rec *out);

/*
 * Where a capture's records go (capture__start()): the slices and KVM exits through one
 * visitor, each slice after the wait before it (a wakeup record for the same tid and CPU);
 * the births, renames and execs that name threads through task and exec. A NULL callback
 * drops its records; a callback returning non-zero stops the reading with that value.
 */
struct capture_sink {
	struct cdict_visitor records;
	void *ctx;			/* of task and exec */
	int (*task)(void *ctx, const struct capture_task_event *t);
	int (*exec)(void *ctx, const struct capture_exec_event *x);
};

/*
 * A slice record as pwz records, times made relative to t0 (CLOCK_MONOTONIC capture start):
 * a slice running since before the capture (start_ns 0) starts at 0 and lasts from t0; the
 * unseen-start flag (model.h R2) carried over. Returns true when the record also carries a
 * run-queue wait, written to *w.
 */
bool capture_conv_slice(const struct rec_slice *r, uint64_t t0, struct pwz_slice *s,
			struct pwz_wakeup *w);

/*
 * The slice still running on cpu at the end (t_end, absolute) from its cpu_state, as a
 * PWZ_END_OPEN slice; true when a wait preceded it (written to *w).
 */
bool capture_conv_open(const struct cpu_state *st, uint32_t cpu, uint64_t t0, uint64_t t_end,
		       struct pwz_slice *s, struct pwz_wakeup *w);

/* A KVM exit record, time relative to t0. */
void capture_conv_kvm_exit(const struct rec_kvm_exit *r, uint64_t t0, struct pwz_kvm_exit *e);

/* Sums the per-CPU slots of a kvm_aggs value. */
void capture_sum_kvm(const struct kvm_agg_val *per_cpu, int nr_cpus, struct kvm_agg_val *sum);

/*
 * One CPU's slot of a cpu_aggs value (the kernel's fold of the slices whose records it could
 * not send, user/lib/model.h R7) as the model's aggregates: the (tid, cpu) figures into *a,
 * the waits that ended on that CPU into *w (count 0: none).
 */
void capture_conv_cpu_agg(uint32_t tid, uint32_t cpu, const struct cpu_agg_val *v,
			  struct pwz_cpu_agg *a, struct pwz_wait_agg *w);

/*
 * One CPU's slot of a wait_hists value (bpf/pwz.h) as a wait aggregate holding only the
 * histogram (count, total and maximum 0: cpu_aggs has them), to be added to the same thread's
 * aggregate with model_fold__wait_agg().
 */
void capture_conv_wait_hist(uint32_t tid, const struct wait_hist_val *v, struct pwz_wait_agg *w);

/*
 * R10: the kernel's ledger of vCPU thread tid (st->led, bpf/pwz.h struct vcpu_ledger) and its
 * stretches' histograms (struct vcpu_hist; NULL: none) read at end_ns (CLOCK_MONOTONIC), as the
 * model's: its current state holds until end_ns (the thread's exit when it exited before), and
 * alive_ns is the sum of the states; its vcpu_id that of its exits (st->vcpu), known when it
 * had one. final: the capture ends at end_ns, and a ready interval still open is charged as
 * unseen (R10); a reading of a running capture leaves it to its switch-in. since_ns is left 0.
 */
void capture_conv_ledger(uint32_t tid, const struct kvm_state *st, const struct vcpu_hist *h,
			 uint64_t end_ns, bool final, struct pwz_vcpu_ledger *l);

#endif /* PWZ_CAPTURE_RECORDS_H */
