/* SPDX-License-Identifier: GPL-2.0 */
/* pwz-bpf --live's output: the full-screen view (plain ANSI), text blocks and JSON lines. */
#ifndef PWZ_LIVE_SCREEN_H
#define PWZ_LIVE_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "live_frame.h"

struct pwz_meta;
struct live_screen;

/*
 * Takes over the terminal on fd_in / fd_out: the alternate screen, no cursor, keys read one
 * by one (no echo, no line editing; Ctrl-C is read as a key). Installs handlers so that
 * SIGWINCH redraws at the new size and a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGABRT)
 * gives the terminal back before the process dies; SIGINT, SIGTERM and SIGHUP stay the
 * caller's (its loop ends and calls live_screen__free()). meta (borrowed) names KVM exits.
 * NULL with errno and err filled (ENOTTY: not a terminal, or this process is not in the
 * terminal's foreground process group, as when started with '&': use --batch).
 */
struct live_screen *live_screen__new(int fd_in, int fd_out, bool kvm_view,
				     const struct pwz_meta *meta, char *err, size_t errlen);

/*
 * The task view's sort keys, X(key, SORT_ suffix, name shown), in the order the screen's hint
 * line and pwz-bpf --help list them: the one table both read and live_screen__input() obeys.
 */
#define LIVE_SORT_KEYS(X)				\
	X(c, CPU, "cpu")		/* CPU time */	\
	X(s, SWITCHES, "switches")	/* switch-outs */	\
	X(w, WAIT, "ready")		/* run-queue wait */	\
	X(n, NAME, "name")				\
	X(p, PID, "pid")		/* process id */

#define LIVE_SORT_KEY_WORD(k, e, name) " " #k
/* " c s w n p": the keys of LIVE_SORT_KEYS, each after a space, as a string literal. */
#define LIVE_SORT_KEY_LIST LIVE_SORT_KEYS(LIVE_SORT_KEY_WORD)

enum { LIVE_SCREEN_NONE = 0, LIVE_SCREEN_QUIT = 1 };

/* Waits up to timeout_ms for keys and handles them (sort, filter, KVM view, pause) and a
 * resize, redrawing the last frame when the view changed. Returns LIVE_SCREEN_QUIT on q or
 * Ctrl-C, else LIVE_SCREEN_NONE. */
int live_screen__input(struct live_screen *s, int timeout_ms);

/* Shows frame f (kept by reference until the next call), unless paused. */
void live_screen__frame(struct live_screen *s, const struct live_frame *f);

/* Gives the terminal back as it was (the main screen, the cursor, the modes). NULL: no-op. */
void live_screen__free(struct live_screen *s);

/* The same figures without a terminal: a text block (the KVM table too with kvm) or one JSON
 * object on a line. Names go through termsafe(). Return 0 or -errno of the write. */
int live_print_text(FILE *out, const struct live_frame *f, const struct pwz_meta *meta, bool kvm);
int live_print_json(FILE *out, const struct live_frame *f, const struct pwz_meta *meta);

#endif /* PWZ_LIVE_SCREEN_H */
