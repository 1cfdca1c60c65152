// SPDX-License-Identifier: GPL-2.0
/* BPF ring-buffer records and map values (bpf/pwz.h) into capture records (records.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "capture_records.h"

/*
 * What bpf/pwz.h and user/lib/records.h must agree on, checked by the compiler: the sizes
 * both sides use, the values copied from one enum to the other, and the record layouts the
 * ring buffer carries (the sizes pwz.h states; the BPF target has the same alignment).
 */
_Static_assert(PWZ_BPF_HIST == PWZ_HIST_BUCKETS, "BPF and userspace histograms differ");
_Static_assert(PWZ_BPF_COMM_LEN == PWZ_COMM_LEN, "BPF and userspace comm lengths differ");
_Static_assert(sizeof(((struct rec_task *)0)->comm) == sizeof(((struct pwz_task *)0)->comm),
	       "rec_task.comm and pwz_task.comm differ");
_Static_assert(sizeof(((struct kvm_agg_val *)0)->hist) == sizeof(((struct pwz_kvm_agg *)0)->hist),
	       "kvm_agg_val.hist and pwz_kvm_agg.hist differ");
_Static_assert((int)REC_END_PREEMPTED == (int)PWZ_END_PREEMPTED &&
	       (int)REC_END_SLEPT == (int)PWZ_END_SLEPT &&
	       (int)REC_END_EXITED == (int)PWZ_END_EXITED,
	       "enum rec_slice_end and enum pwz_slice_end differ");
_Static_assert(sizeof(struct rec_slice) == 64, "struct rec_slice is 64 bytes");
_Static_assert(sizeof(struct rec_kvm_exit) == 48, "struct rec_kvm_exit is 48 bytes");
_Static_assert(sizeof(struct rec_task) == 40, "struct rec_task is 40 bytes");
_Static_assert(sizeof(struct rec_exec) == 24 + PWZ_EXEC_ARGS, "struct rec_exec is 1,048 bytes");
_Static_assert(sizeof(struct cpu_agg_val) == 14 * 8, "struct cpu_agg_val is 14 counters");
_Static_assert(sizeof(((struct pwz_wait_agg *)0)->hist) / sizeof(uint64_t) ==
	       sizeof(((struct wait_hist_val *)0)->b) / sizeof(__u32),
	       "wait_hist_val.b and pwz_wait_agg.hist differ");
_Static_assert(REC_STATE_IDLE == PWZ_STATE_IDLE && REC_STATE_PREEMPTED == PWZ_STATE_PREEMPTED,
	       "the reported prev_state values of rec_slice and pwz_slice differ");
_Static_assert((int)REC_SLICE_UNSEEN_START == (int)PWZ_SLICE_UNSEEN_START,
	       "the unseen-start flags of rec_slice and pwz_slice differ");
_Static_assert(sizeof(struct kvm_agg_val) == (2 + PWZ_BPF_HIST) * 8,
	       "struct kvm_agg_val is count, total and the histogram");
_Static_assert(sizeof(struct kvm_agg_key) == 16, "struct kvm_agg_key is 16 bytes");
_Static_assert(sizeof(struct kvm_state) == 288, "struct kvm_state is 288 bytes");
_Static_assert(PWZ_VS_NR == PWZ_VCPU_STATES && PWZ_VS_GUEST == PWZ_VCPU_GUEST &&
	       PWZ_VS_EXIT_KERNEL == PWZ_VCPU_EXIT_KERNEL && PWZ_VS_EXIT_USER == PWZ_VCPU_EXIT_USER &&
	       PWZ_VS_HALT_POLL == PWZ_VCPU_HALT_POLL && PWZ_VS_HALT == PWZ_VCPU_HALT &&
	       PWZ_VS_READY == PWZ_VCPU_READY && PWZ_VS_OTHER_ON_CPU == PWZ_VCPU_OTHER_ON_CPU &&
	       PWZ_VS_UNSEEN == PWZ_VCPU_UNSEEN, "bpf/pwz.h PWZ_VS_* are enum pwz_vcpu_state");
_Static_assert(PWZ_RC_NR == PWZ_READY_CAUSES && PWZ_RC_SAME_VM_VCPU == PWZ_CAUSE_SAME_VM_VCPU &&
	       PWZ_RC_SAME_VM_VMM == PWZ_CAUSE_SAME_VM_VMM && PWZ_RC_OTHER_VM == PWZ_CAUSE_OTHER_VM &&
	       PWZ_RC_HOST == PWZ_CAUSE_HOST && PWZ_RC_IDLE == PWZ_CAUSE_IDLE &&
	       PWZ_RC_UNSEEN == PWZ_CAUSE_UNSEEN && PWZ_RC_IRQ == PWZ_CAUSE_IRQ,
	       "bpf/pwz.h PWZ_RC_* are enum pwz_ready_cause");
_Static_assert(sizeof(struct cpu_state) == 80, "struct cpu_state is 80 bytes");
_Static_assert(sizeof(struct sched_clk) == 128, "struct sched_clk is two cache lines");
_Static_assert(sizeof(struct wait_start) == 24, "struct wait_start is 24 bytes");
_Static_assert(CNT_HIST_MISS < PWZ_CNT_MAX, "enum pwz_cnt overflows the counters");
_Static_assert(PWZ_TID_MAP_DEFAULT <= PWZ_TID_MAP_MAX &&
	       PWZ_KVM_STATE_MAX <= PWZ_KVM_STATE_HOST_MAX,
	       "map sizes of bpf/pwz.h out of order");

static uint64_t rel(uint64_t t, uint64_t t0)
{
	return t > t0 ? t - t0 : 0;
}

bool capture_conv_slice(const struct rec_slice *r, uint64_t t0, struct pwz_slice *s,
			struct pwz_wakeup *w)
{
	uint64_t start = r->start_ns ? rel(r->start_ns, t0) : 0, end = rel(r->end_ns, t0);

	memset(s, 0, sizeof(*s));
	s->tid = r->tid;
	s->cpu = r->cpu;
	s->start_ns = start;
	s->dur_ns = end > start ? end - start : 0;
	s->end = r->end <= REC_END_EXITED ? r->end : PWZ_END_UNKNOWN;
	s->flags = r->flags & REC_SLICE_UNSEEN_START ? PWZ_SLICE_UNSEEN_START : 0;
	s->prev_state = r->prev_state;
	s->flags |= PWZ_SLICE_STATE;
	if (r->flags & REC_SLICE_CHARGED) {
		s->flags |= PWZ_SLICE_CHARGED;
		s->charged_ns = r->charged_ns;
	}
	if (r->wait == REC_WAIT_NONE || !r->start_ns || r->wake_ns > r->start_ns ||
	    (s->flags & PWZ_SLICE_UNSEEN_START))
		return false;
	memset(w, 0, sizeof(*w));
	w->tid = r->tid;
	w->cpu = r->cpu;
	w->wake_ns = rel(r->wake_ns, t0);
	w->wait_ns = r->start_ns - r->wake_ns;
	if (r->wait == REC_WAIT_PREEMPT) {
		w->flags = PWZ_WAKEUP_PREEMPTED;
	} else {
		w->flags = PWZ_WAKEUP_WOKEN;
		if (r->flags & REC_SLICE_WAKER) {
			w->flags |= PWZ_WAKEUP_WAKER;
			w->waker_tid = r->waker_tid;
			w->waker_cpu = r->waker_cpu;
		}
	}
	return true;
}

bool capture_conv_open(const struct cpu_state *st, uint32_t cpu, uint64_t t0, uint64_t t_end,
		       struct pwz_slice *s, struct pwz_wakeup *w)
{
	struct rec_slice r = {
		.type = REC_SLICE, .tid = st->tid, .cpu = (__u16)cpu, .end = REC_END_PREEMPTED,
		.wait = (__u8)st->wait, .start_ns = st->start_ns, .end_ns = t_end,
		.wake_ns = st->wake_ns, .waker_tid = st->waker_tid, .waker_cpu = st->waker_cpu,
		.flags = st->waker_known ? REC_SLICE_WAKER : 0,
	};
	bool waited = capture_conv_slice(&r, t0, s, w);

	/* still running: no switch-out, so no prev_state and no charge */
	s->end = PWZ_END_OPEN;
	s->flags &= ~(uint32_t)(PWZ_SLICE_STATE | PWZ_SLICE_CHARGED);
	s->prev_state = 0;
	return waited;
}

void capture_conv_kvm_exit(const struct rec_kvm_exit *r, uint64_t t0, struct pwz_kvm_exit *e)
{
	memset(e, 0, sizeof(*e));
	e->tid = r->tid;
	e->vcpu = r->vcpu;
	e->time_ns = rel(r->exit_ns, t0);
	e->isa = r->isa;
	e->reason = r->reason;
	e->guest_ns = r->guest_ns;
	e->handling_ns = r->handling_ns;
}

static void decode_slice(const void *data, uint64_t t0, struct capture_rec *out)
{
	struct rec_slice r;

	memcpy(&r, data, sizeof(r));
	out->slice.waited = capture_conv_slice(&r, t0, &out->slice.s, &out->slice.w);
	out->slice.has_run_delay = (r.flags & REC_SLICE_RUN_DELAY) != 0;
	out->slice.run_delay_ns = r.run_delay_ns;
}

static void decode_task(const void *data, uint64_t t0, struct capture_rec *out)
{
	struct rec_task r;

	memcpy(&r, data, sizeof(r));
	out->task = (struct capture_task_event){
		.tid = r.tid, .tgid = r.tgid, .is_new = r.is_new != 0, .time_ns = rel(r.time_ns, t0),
	};
	memcpy(out->task.comm, r.comm, sizeof(out->task.comm));
	out->task.comm[sizeof(out->task.comm) - 1] = '\0';
}

static void decode_exec(const void *data, uint64_t t0, struct capture_rec *out)
{
	const struct rec_exec *r = data;	/* 1 KiB: read in place */

	out->exec = (struct capture_exec_event){
		.tgid = r->tgid, .time_ns = rel(r->time_ns, t0), .args = r->args,
		.len = r->len < PWZ_EXEC_ARGS ? r->len : PWZ_EXEC_ARGS, .cut = r->cut != 0,
	};
}

enum capture_rec_kind capture_decode(const void *data, size_t size, uint64_t t0,
				     struct capture_rec *out)
{
	struct rec_kvm_exit k;
	__u32 type;

	out->kind = CAPTURE_REC_SKIP;
	if (size < sizeof(type))
		return out->kind;
	memcpy(&type, data, sizeof(type));
	switch (type) {
	case REC_SLICE:
		if (size < sizeof(struct rec_slice))
			break;
		decode_slice(data, t0, out);
		out->kind = CAPTURE_REC_SLICE;
		break;
	case REC_KVM_EXIT:
		if (size < sizeof(k))
			break;
		memcpy(&k, data, sizeof(k));
		capture_conv_kvm_exit(&k, t0, &out->exit);
		out->kind = CAPTURE_REC_KVM_EXIT;
		break;
	case REC_TASK:
		if (size < sizeof(struct rec_task))
			break;
		decode_task(data, t0, out);
		out->kind = CAPTURE_REC_TASK;
		break;
	case REC_EXEC:
		if (size < sizeof(struct rec_exec))
			break;
		decode_exec(data, t0, out);
		out->kind = CAPTURE_REC_EXEC;
		break;
	}
	return out->kind;
}

void capture_sum_kvm(const struct kvm_agg_val *per_cpu, int nr_cpus, struct kvm_agg_val *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		sum->count += per_cpu[cpu].count;
		sum->handling_ns += per_cpu[cpu].handling_ns;
		for (int b = 0; b < PWZ_BPF_HIST; b++)
			sum->hist[b] += per_cpu[cpu].hist[b];
	}
}

void capture_conv_cpu_agg(uint32_t tid, uint32_t cpu, const struct cpu_agg_val *v,
			  struct pwz_cpu_agg *a, struct pwz_wait_agg *w)
{
	*a = (struct pwz_cpu_agg){
		.tid = tid, .cpu = cpu, .runtime_ns = v->runtime_ns, .switches = v->switches,
		.voluntary = v->voluntary, .involuntary = v->involuntary, .unseen = v->unseen,
		.unseen_ns = v->unseen_ns, .charged_ns = v->charged_ns,
		.charged_run_ns = v->charged_run_ns,
	};
	*w = (struct pwz_wait_agg){
		.tid = tid, .count = v->wait_count, .wait_ns = v->wait_ns, .max_ns = v->wait_max_ns,
		.run_delay_ns = v->run_delay_ns, .run_delay_wait_ns = v->run_delay_wait_ns,
		.run_delay_unmeasured_ns = v->run_delay_unmeasured_ns,
	};
}

void capture_conv_wait_hist(uint32_t tid, const struct wait_hist_val *v, struct pwz_wait_agg *w)
{
	*w = (struct pwz_wait_agg){ .tid = tid };
	for (int b = 0; b < PWZ_WHIST_BUCKETS; b++)
		w->hist[b] = v->b[b];
}

void capture_conv_ledger(uint32_t tid, const struct kvm_state *st, const struct vcpu_hist *h,
			 uint64_t end_ns, bool final, struct pwz_vcpu_ledger *l)
{
	const struct vcpu_ledger *k = &st->led;

	*l = (struct pwz_vcpu_ledger){ .tid = tid };
	/* kvm_state.vcpu is set at each kvm_exit: known once the thread had one */
	l->has_vcpu = k->count[PWZ_VCPU_EXIT_KERNEL] > 0;
	l->vcpu = l->has_vcpu ? st->vcpu : 0;
	for (int s = 0; s < PWZ_VCPU_STATES; s++) {
		l->ns[s] = k->ns[s];
		l->count[s] = k->count[s];
	}
	for (int c = 0; c < PWZ_READY_CAUSES; c++)
		l->cause_ns[c] = k->cause_ns[c];
	pwz_vcpu_ledger_close(l, k->state, end_ns > k->since_ns ? end_ns - k->since_ns : 0, final);
	l->costop_ns = k->costop_ns;
	for (int s = 0; h && s < PWZ_VCPU_STATES; s++)
		for (int b = 0; b < PWZ_HIST_BUCKETS; b++)
			l->hist[s][b] = h->b[s][b];
}
