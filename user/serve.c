// SPDX-License-Identifier: GPL-2.0
/* pwz-bpf --serve: a non-blocking HTTP/1.x listener for GET /metrics, and the loop around it. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "capture.h"
#include "promtext.h"
#include "httpreq.h"
#include "monotime.h"
#include "serve.h"
#include "serve_metrics.h"

/* One connection. */
struct client {
	int fd;				/* -1: a free slot */
	uint64_t deadline;		/* CLOCK_MONOTONIC ns: dropped then */
	char in[SERVE_MAX_REQUEST];	/* the request so far */
	size_t in_len;
	char *out;			/* the answer (malloc'd), once the request is whole */
	size_t out_len;
	size_t out_off;			/* bytes of it sent */
};

struct serve {
	int fd;				/* the listener */
	char address[64];		/* "ADDR:PORT" bound */
	struct client clients[SERVE_MAX_CLIENTS];
};

int serve_parse_listen(const char *s, struct sockaddr_storage *sa, socklen_t *len, char *err,
		       size_t errlen)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	const char *colon = strrchr(s, ':'), *port_s = colon ? colon + 1 : s;
	char host[64];
	size_t hl = colon ? (size_t)(colon - s) : 0;
	char *end;
	unsigned long port;

	memset(sa, 0, sizeof(*sa));
	errno = 0;
	port = strtoul(port_s, &end, 10);
	if (!*port_s || *end || errno || port > 65535 || *port_s == '-' || *port_s == '+') {
		snprintf(err, errlen, "--serve '%s': give [ADDR:]PORT with PORT 0-65535 (e.g. 9100 or 0.0.0.0:9100)",
			 s);
		return -EINVAL;
	}
	if (colon && hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
		s++;
		hl -= 2;
	}
	if (hl >= sizeof(host)) {
		snprintf(err, errlen, "--serve '%s': the address is too long", s);
		return -EINVAL;
	}
	snprintf(host, sizeof(host), "%.*s", (int)hl, colon ? s : "");
	if (!colon)
		snprintf(host, sizeof(host), "%s", SERVE_DEFAULT_ADDR);
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		return 0;
	}
	snprintf(err, errlen, "--serve: '%s' is not an IPv4 address or an IPv6 one in brackets ([::1]:9100)",
		 host);
	return -EINVAL;
}

bool serve_is_loopback(const struct sockaddr_storage *sa)
{
	if (sa->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	return sa->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* "ADDR:PORT" of the socket fd into out. */
static void sock_address(int fd, char *out, size_t outlen)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (getsockname(fd, (struct sockaddr *)&sa, &len))
		memset(&sa, 0, sizeof(sa));
	if (sa.ss_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, host, sizeof(host));
		port = ntohs(((struct sockaddr_in *)&sa)->sin_port);
		snprintf(out, outlen, "%s:%u", host, port);
	} else {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, host, sizeof(host));
		port = ntohs(((struct sockaddr_in6 *)&sa)->sin6_port);
		snprintf(out, outlen, "[%s]:%u", host, port);
	}
}

struct serve *serve__new(const struct sockaddr_storage *sa, socklen_t len, char *err,
			 size_t errlen)
{
	struct serve *s = calloc(1, sizeof(*s));
	char want[64];
	int one = 1, e;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (int i = 0; i < SERVE_MAX_CLIENTS; i++)
		s->clients[i].fd = -1;
	s->fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, (const struct sockaddr *)sa, len) || listen(s->fd, 64))
		goto err_close;
	sock_address(s->fd, s->address, sizeof(s->address));
	return s;
err_close:
	e = errno;
	if (s->fd >= 0) {
		char host[INET6_ADDRSTRLEN] = "?";
		const void *a = sa->ss_family == AF_INET ?
				(const void *)&((const struct sockaddr_in *)sa)->sin_addr :
				(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

		inet_ntop(sa->ss_family, a, host, sizeof(host));
		snprintf(want, sizeof(want), "%s:%u", host,
			 ntohs(((const struct sockaddr_in *)sa)->sin_port));
		close(s->fd);
	} else {
		snprintf(want, sizeof(want), "the address");
	}
	snprintf(err, errlen, "--serve: cannot listen on %s: %s%s", want, strerror(e),
		 e == EADDRINUSE ? " (another program has the port: pick another)" : "");
	free(s);
	errno = e;
	return NULL;
}

const char *serve__address(const struct serve *s)
{
	return s->address;
}

static void client_close(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->in_len = c->out_len = c->out_off = 0;
}

/* Accepts what waits; beyond SERVE_MAX_CLIENTS a connection is closed at once. */
static void accept_clients(struct serve *s)
{
	for (int n = 0; n < 64; n++) {
		int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		int i;

		if (fd < 0)
			return;
		for (i = 0; i < SERVE_MAX_CLIENTS && s->clients[i].fd >= 0; i++)
			;
		if (i == SERVE_MAX_CLIENTS) {
			close(fd);
			continue;
		}
		s->clients[i].fd = fd;
		s->clients[i].deadline = pwz_mono_ns() + SERVE_TIMEOUT_MS * 1000000ull;
	}
}

/* The answer status, body and length into c->out. Returns 0 or -ENOMEM. */
static int client_answer(struct client *c, int status, const char *body, size_t blen,
			 bool head, bool openmetrics)
{
	static const char *const reason[] = { [200] = "OK", [400] = "Bad Request",
		[404] = "Not Found", [405] = "Method Not Allowed",
		[431] = "Request Header Fields Too Large", [500] = "Internal Server Error" };
	char hdr[256];
	int hl = snprintf(hdr, sizeof(hdr),
			  "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
			  status, reason[status],
			  status != 200 ? "text/plain; charset=utf-8" :
			  openmetrics ? PROMTEXT_OPENMETRICS_TYPE : PROMTEXT_CONTENT_TYPE, blen,
			  status == 405 ? "Allow: GET, HEAD\r\n" : "");

	if (head)
		blen = 0;
	c->out = malloc((size_t)hl + blen);
	if (!c->out)
		return -ENOMEM;
	memcpy(c->out, hdr, (size_t)hl);
	memcpy(c->out + hl, body, blen);
	c->out_len = (size_t)hl + blen;
	c->out_off = 0;
	return 0;
}

/* Reads what c sent; once the request is whole (or too big) makes the answer. Returns false
 * when the client is to be closed. */
static bool client_read(struct client *c, serve_page_fn page, void *ctx)
{
	static const char *const text[] = { [400] = "bad request\n", [404] = "not found: try /metrics\n",
		[405] = "only GET and HEAD\n", [431] = "request too large\n",
		[500] = "cannot read the kernel's aggregates\n" };
	ssize_t r = recv(c->fd, c->in + c->in_len, sizeof(c->in) - 1 - c->in_len, MSG_DONTWAIT);
	struct httpreq req;
	const char *body;
	size_t blen;
	int st;

	if (r < 0)
		return errno == EAGAIN || errno == EINTR;
	if (r == 0)
		return false;	/* gone before its request was whole */
	c->in_len += (size_t)r;
	c->in[c->in_len] = '\0';
	if (!httpreq_parse(c->in, c->in_len, sizeof(c->in), &req))
		return true;
	st = req.status;
	if (st == 200 && page(ctx, req.openmetrics, &body, &blen))
		st = 500;
	if (st != 200) {
		body = text[st];
		blen = strlen(body);
	}
	return !client_answer(c, st, body, blen, req.head, req.openmetrics);
}

/* Sends what c takes now. Returns false when the client is to be closed (done or gone). */
static bool client_write(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0)
			return errno == EAGAIN || errno == EINTR;
		c->out_off += (size_t)w;
	}
	shutdown(c->fd, SHUT_WR);
	return false;
}

/* The poll set: the listener, then each client by what it waits for. Returns its size. */
static nfds_t poll_set(struct serve *s, struct pollfd *fds, int *slot, int *timeout_ms)
{
	uint64_t now = pwz_mono_ns();
	nfds_t n = 0;

	fds[n++] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
	for (int i = 0; i < SERVE_MAX_CLIENTS; i++) {
		struct client *c = &s->clients[i];
		int left;

		if (c->fd < 0)
			continue;
		if (now >= c->deadline) {
			client_close(c);
			continue;
		}
		left = (int)((c->deadline - now) / 1000000) + 1;
		if (left < *timeout_ms)
			*timeout_ms = left;
		slot[n] = i;
		fds[n++] = (struct pollfd){ .fd = c->fd, .events = c->out ? POLLOUT : POLLIN };
	}
	return n;
}

int serve__poll(struct serve *s, int timeout_ms, serve_page_fn page, void *ctx)
{
	struct pollfd fds[1 + SERVE_MAX_CLIENTS];
	int slot[1 + SERVE_MAX_CLIENTS];
	nfds_t n = poll_set(s, fds, slot, &timeout_ms);
	int r = poll(fds, n, timeout_ms);

	if (r < 0)
		return errno == EINTR ? -EINTR : 0;
	for (nfds_t i = 1; i < n; i++) {
		struct client *c = &s->clients[slot[i]];
		bool keep = true;

		if (!fds[i].revents)
			continue;
		if (!c->out)
			keep = client_read(c, page, ctx);
		if (keep && c->out)
			keep = client_write(c);
		if (!keep)
			client_close(c);
	}
	if (fds[0].revents & POLLIN)
		accept_clients(s);
	return 0;
}

void serve__free(struct serve *s)
{
	if (!s)
		return;
	for (int i = 0; i < SERVE_MAX_CLIENTS; i++)
		client_close(&s->clients[i]);
	close(s->fd);
	free(s);
}

/* The page of one scrape (serve_page_fn). */
struct scrape_ctx {
	struct serve_metrics *sm;
	struct promtext pt;		/* the last page */
};

static int scrape_page(void *ctx, bool openmetrics, const char **body, size_t *len)
{
	struct scrape_ctx *sc = ctx;
	int e;

	sc->pt.openmetrics = openmetrics;
	e = serve_metrics__scrape(sc->sm, &sc->pt);

	*body = sc->pt.buf;
	*len = sc->pt.len;
	return e;
}

int serve_run(struct capture *cap, struct task_table *tt, uint64_t t0, const struct pwz_meta *meta,
	      const struct sockaddr_storage *sa, socklen_t salen,
	      const struct serve_metrics_opts *o, const struct serve_tick *tick,
	      volatile sig_atomic_t *stop, void (*say)(const char *fmt, ...), char *err,
	      size_t errlen)
{
	struct scrape_ctx sc = { 0 };
	struct serve *s = NULL;
	int e = 0;

	promtext_init(&sc.pt);
	sc.sm = serve_metrics__new(cap, tt, t0, meta, o, err, errlen);
	if (!sc.sm)
		return -errno;
	s = serve__new(sa, salen, err, errlen);
	if (!s) {
		e = -errno;
		goto out;
	}
	if (say)
		say("serving http://%s/metrics%s", serve__address(s),
		    serve_is_loopback(sa) ? "" : " (not loopback: other hosts can scrape it)");
	while (tick || !*stop) {
		e = serve__poll(s, 100, scrape_page, &sc);
		if (!e)
			e = capture__poll(cap, 0);
		if (e < 0 && e != -EINTR) {
			snprintf(err, errlen, "reading the ring buffer failed: %s", strerror(-e));
			goto out;
		}
		e = tick ? tick->fn(tick->ctx) : 0;
		if (e < 0)
			snprintf(err, errlen, "the flight recorder stopped: %s", strerror(-e));
		if (e)
			break;
	}
	e = e < 0 ? e : 0;
out:
	serve__free(s);
	serve_metrics__free(sc.sm);
	promtext_release(&sc.pt);
	return e;
}
