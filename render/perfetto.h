/* SPDX-License-Identifier: GPL-2.0 */
/* `pwz-render --perfetto`: any capture as a Perfetto trace (perfetto.protos.Trace, protobuf). */
#ifndef PWZ_PERFETTO_H
#define PWZ_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "outfile.h"

struct task_map;
struct tasksel;

/*
 * What the trace holds (docs/perfetto.md has the user's view):
 * - a ClockSnapshot (BOOTTIME = MONOTONIC = the capture start on its clock, REALTIME = its wall
 *   time when known): every timestamp is the capture clock, so the UI shows capture times;
 * - SystemInfo: utsname.release = the traced kernel's release (Perfetto decodes prev_state by
 *   it; "6.0.0-unknown" when the capture does not say, so that the bits decode as for 4.14+);
 * - ProcessTree packets: every thread's tid, tgid and display name (vCPU naming, --map,
 *   --merge-sys-tasks applied) at the window start, and one packet per later rename;
 * - per CPU, FtraceEventBundles whose compact_sched holds the switch stream: a first switch
 *   to idle at the window start (Perfetto cannot use a CPU's first compact switch, its
 *   previous task being unknown), then every switch, to and from idle (tid 0) included, with
 *   prev_state as the kernel reports it (perfetto_prev_state()); the bundles' lost_events is
 *   set on each CPU's first bundle when the capture counted drops;
 * - wakeups as full sched_waking events (pid = the woken tid, target_cpu = the CPU it then ran
 *   on), so a wait shows as Runnable; the event's common pid is the waker and it sits in the
 *   waker CPU's bundle when the record names them; today's records do not, so the pid is 0
 *   (Perfetto shows the idle task as the waker) and the event sits on the target CPU;
 * - KVM exits as TrackEvent slices on the vCPU thread's track (named "KVM exits (vmx)", the
 *   ISA of its exits), named by the exit reason ("HLT", "io" ...; "exit N" when the capture
 *   has no name), from the exit to the next entry (an exit without entry is an instant), with
 *   code and guest_ns annotations (and isa, for an exit whose ISA is not its track's); each
 *   vCPU's exits are a packet sequence of their own with delta timestamps and interned names,
 *   as Perfetto's SDK writes a thread's events (perfetto.c says how);
 * - per vCPU thread (vms_is_vcpu()) that -t keeps, a state track "<thread> state" under its
 *   process's track: its timeline over its life in the window (vcpu_timeline.h), one slice
 *   per interval, named by state.
 */
struct perfetto_opts {
	const struct tasksel *sel;	/* -t: the threads whose wakeups and KVM exits are kept
					 * (CPU tracks stay whole), resolved against the capture
					 * (tasksel.h); NULL = all */
	uint64_t from_ns;		/* window start from the capture start (-f) */
	uint64_t cap_ns;		/* window end from the capture start; 0 = the end (-c) */
	bool merge_sys;			/* --merge-sys-tasks: swapper/3 -> swapper */
	bool partial;			/* accept a capture cut short (its whole chunks) */
	bool gzip;			/* gzip the output (Perfetto opens .gz traces) */
	unsigned int mode;		/* the file's mode (--mode); 0: OUTFILE_MODE_DEFAULT, 0600 */
	enum outfile_exists exists;	/* a file at out_path: replaced (0), or kept and the trace
					 * numbered NAME-2.pftrace(.gz) (outfile.h) */
	const struct task_map *map;	/* --map renames; may be NULL */
};

/* What an export wrote. */
struct perfetto_stats {
	uint64_t switches;		/* compact switches written (dummy first switches included) */
	uint64_t first_switches;	/* of which the per-CPU first switches */
	uint64_t wakings;		/* sched_waking events */
	uint64_t births;		/* task_newtask events: threads born (model.h R8) */
	uint64_t exits;			/* KVM exit slices */
	uint64_t state_tracks;		/* vCPU state tracks */
	uint64_t states;		/* their slices */
	uint64_t threads;		/* threads in the process tree */
	uint64_t renames;		/* later namings written as ProcessTree packets */
	uint64_t overlaps;		/* slices that began before the previous one on their CPU
					 * ended (the earlier one is cut there) */
	uint64_t bytes;			/* uncompressed trace bytes */
	uint64_t sched_bytes;		/* of which the ftrace bundles */
	uint64_t waking_bytes;		/* of which their sched_waking events */
	uint64_t exit_bytes;		/* of which the KVM track events and descriptors */
	uint64_t state_bytes;		/* of which the vCPU state tracks */
	bool cut;			/* the capture was cut short */
	char path[4096];		/* the file written: out_path, or its numbered name */
};

/* prev_state as the kernel's sched_switch reports it (TASK_REPORT bits, 4.14+) for a slice
 * ending as end (enum pwz_slice_end): preempted 0x100 (R+), slept 1 (S), exited 0x10 (X), still
 * running at the end 0 (R), unknown 1 (S). */
int64_t perfetto_prev_state(uint32_t end);

/* The output path of in_path: "<dir>/<base><ext>", ext = perfetto_output_ext(gzip), base =
 * the file name without ".cdict" (a killed capture's "NAME.cdict.XXXXXX.part": NAME, as the
 * dashboards name it; outfile_final_len()), dir = out_dir or the input's directory. */
void perfetto_output_path(const char *in_path, const char *out_dir, bool gzip, char *out,
			  size_t outlen);

/* The suffix of a trace's name: ".pftrace", or ".pftrace.gz" with gzip (a kept file's
 * successor is numbered before it: NAME-2.pftrace.gz). */
const char *perfetto_output_ext(bool gzip);

/*
 * Reads the capture at in_path (v2 or legacy; resolved as cdict_resolve_path()) and writes the
 * trace to out_path (through "<out_path>.part", renamed at the end). Returns 0, or -errno with
 * err filled: -ENOENT no such capture, -EINVAL corrupt or a window outside the capture,
 * -EPIPE a cut capture without opts->partial, -EIO/-ENOSPC a write error. stats may be NULL.
 * Memory: about 24 bytes per run slice, 32 per wakeup and 24 per KVM exit in the window (kept
 * for the state tracks), and while those are written 16 per slice and wait of the vCPUs.
 */
int perfetto_export(const char *in_path, const char *out_path, const struct perfetto_opts *opts,
		    struct perfetto_stats *stats, char *err, size_t errlen);

#endif /* PWZ_PERFETTO_H */
