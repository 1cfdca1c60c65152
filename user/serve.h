/* SPDX-License-Identifier: GPL-2.0 */
/* pwz-bpf --serve: a small HTTP listener answering GET /metrics, polled in the capture's loop. */
#ifndef PWZ_SERVE_H
#define PWZ_SERVE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define SERVE_DEFAULT_ADDR "127.0.0.1"
#define SERVE_MAX_REQUEST 8192		/* bytes of a request's line and headers */
#define SERVE_TIMEOUT_MS 5000		/* a client's whole exchange, from its accept */
#define SERVE_MAX_CLIENTS 32		/* connections at once; more are closed at accept */

/*
 * Parses "[ADDR:]PORT" (ADDR an IPv4 address, or an IPv6 one in brackets, "[::1]:9100"; PORT
 * 0..65535, 0 picking a free one) into *sa and *len. ADDR defaults to SERVE_DEFAULT_ADDR.
 * Touches nothing. Returns 0, or -EINVAL with err naming what is wrong.
 */
int serve_parse_listen(const char *s, struct sockaddr_storage *sa, socklen_t *len, char *err,
		       size_t errlen);

/* Whether sa is a loopback address (127.0.0.0/8, ::1). */
bool serve_is_loopback(const struct sockaddr_storage *sa);

struct serve;

/*
 * A listener on sa (SO_REUSEADDR, non-blocking, close-on-exec). NULL with errno and err filled
 * ("cannot listen on ADDR:PORT: <reason>").
 */
struct serve *serve__new(const struct sockaddr_storage *sa, socklen_t len, char *err,
			 size_t errlen);

/* "ADDR:PORT" the listener is bound to (the port the kernel picked for PORT 0). */
const char *serve__address(const struct serve *s);

/*
 * The page of one scrape: fills *body and *len (owned by ctx, valid until the next call) or
 * returns -errno (the client is then answered 500); in OpenMetrics 1.0.0 when openmetrics (the
 * client's Accept header asked for it: promtext_wants_openmetrics()), else in the text format.
 */
typedef int (*serve_page_fn)(void *ctx, bool openmetrics, const char **body, size_t *len);

/*
 * Waits up to timeout_ms for the listener and the clients, then serves them without blocking:
 * accepts, reads requests (at most SERVE_MAX_REQUEST bytes: 431 beyond), answers GET /metrics
 * (and HEAD) with page's body (OpenMetrics when the Accept header asks for it), other paths 404, other methods 405, garbage 400, a failed page
 * 500, each with "Connection: close"; writes as much as each client takes (MSG_NOSIGNAL: a
 * client gone raises no SIGPIPE) and drops a client SERVE_TIMEOUT_MS after its accept. One
 * client never waits for another. Returns 0, or -EINTR when a signal came.
 */
int serve__poll(struct serve *s, int timeout_ms, serve_page_fn page, void *ctx);

/* Closes the listener and every client. NULL is a no-op. */
void serve__free(struct serve *s);

struct capture;
struct task_table;
struct pwz_meta;
struct serve_metrics_opts;

/* What else runs in the --serve loop: fn(ctx) after each drain of the capture, 0 to go on, 1 to
 * end the loop, -errno to end it on an error (said by fn). */
struct serve_tick {
	int (*fn)(void *ctx);
	void *ctx;
};

/*
 * The --serve loop: scrapes answered from the aggregates of cap (user/serve_metrics.h) until
 * *stop (set by a signal handler), or with tick (NULL none) until tick ends it (it sees *stop
 * itself: --flight writes its last dump then); cap's records drained meanwhile
 * (capture__poll()). say (may be NULL) prints the one line of the start (where it listens).
 * Returns 0 or -errno with err.
 */
int serve_run(struct capture *cap, struct task_table *tt, uint64_t t0, const struct pwz_meta *meta,
	      const struct sockaddr_storage *sa, socklen_t salen,
	      const struct serve_metrics_opts *o, const struct serve_tick *tick,
	      volatile sig_atomic_t *stop, void (*say)(const char *fmt, ...), char *err,
	      size_t errlen);

#endif /* PWZ_SERVE_H */
