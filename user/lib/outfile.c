// SPDX-License-Identifier: GPL-2.0
/* Output files made safe for root: a unique temporary beside the final name, renamed into place. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "outfile.h"

#define SUFFIX_LETTERS 6
#define MAX_DRAWS 100

static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* Six random letters; getrandom() when it answers, else a mix of clock, pid and a counter
 * (the name only has to be unlikely: O_EXCL makes a taken name harmless). */
static void draw_suffix(char *out)
{
	static uint64_t counter;
	unsigned char rnd[SUFFIX_LETTERS];

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (++counter * 0x9e3779b97f4a7c15ull);
		for (int i = 0; i < SUFFIX_LETTERS; i++, x >>= 8)
			rnd[i] = (unsigned char)x;
	}
	for (int i = 0; i < SUFFIX_LETTERS; i++)
		out[i] = letters[rnd[i] % (sizeof(letters) - 1)];
}

size_t outfile_final_len(const char *name)
{
	size_t n = strlen(name), tail = 1 + SUFFIX_LETTERS + strlen(".part");

	if (n <= tail || strcmp(name + n - strlen(".part"), ".part") || name[n - tail] != '.')
		return n;
	for (size_t i = n - tail + 1; i < n - strlen(".part"); i++)
		if (!name[i] || !strchr(letters, name[i]))
			return n;
	return n - tail;
}

int outfile_open(struct outfile *of, const char *path, mode_t mode)
{
	size_t len = strlen(path);
	struct stat st;
	int e = -EEXIST;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	if (!mode)
		mode = OUTFILE_MODE_DEFAULT;
	of->path = strdup(path);
	of->tmp = malloc(len + 1 + SUFFIX_LETTERS + sizeof(".part"));
	if (!of->path || !of->tmp) {
		e = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < MAX_DRAWS; i++) {
		memcpy(of->tmp, path, len);
		of->tmp[len] = '.';
		draw_suffix(of->tmp + len + 1);
		memcpy(of->tmp + len + 1 + SUFFIX_LETTERS, ".part", sizeof(".part"));
		/* O_EXCL: never an existing name, symlink or FIFO; O_NOFOLLOW says it twice */
		of->fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (of->fd >= 0)
			break;
		e = -errno;
		if (e != -EEXIST)
			goto fail;
	}
	if (of->fd < 0)
		goto fail;
	/* created, so from here on removing it on failure is ours to do */
	of->state = OUTFILE_OPEN;
	if (fstat(of->fd, &st)) {
		e = -errno;
		goto fail_created;
	}
	of->dev = st.st_dev;
	of->ino = st.st_ino;
	/* the mode asked for, whatever the umask */
	if (fchmod(of->fd, mode & 0777)) {
		e = -errno;
		goto fail_created;
	}
	return 0;
fail_created:
	outfile_close(of);
	return e;
fail:
	free(of->path);
	free(of->tmp);
	memset(of, 0, sizeof(*of));
	of->fd = -1;
	return e;
}

FILE *outfile_stream(struct outfile *of)
{
	int fd = fcntl(of->fd, F_DUPFD_CLOEXEC, 0);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

/* fsyncs the folder holding path, so that the rename survives a crash (best effort). */
static void sync_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (!slash) {
		dir = strdup(".");
	} else if (slash == path) {
		dir = strdup("/");
	} else {
		dir = strndup(path, (size_t)(slash - path));
	}
	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return;
	fsync(fd);
	close(fd);
}

static int close_fd(struct outfile *of)
{
	int e = 0;

	if (of->fd >= 0 && close(of->fd))
		e = -errno;
	of->fd = -1;
	return e;
}

int outfile_commit(struct outfile *of)
{
	int e;

	if (of->state != OUTFILE_OPEN)
		return -EBADF;
	if (fsync(of->fd)) {
		e = -errno;
		close_fd(of);
		return e;
	}
	e = close_fd(of);
	if (e)
		return e;
	if (rename(of->tmp, of->path))
		return -errno;
	of->state = OUTFILE_COMMITTED;
	sync_folder(of->path);
	return 0;
}

int outfile_keep(struct outfile *of, off_t len)
{
	int e = 0;

	if (of->state != OUTFILE_OPEN)
		return -EBADF;
	of->state = OUTFILE_KEPT;
	if (of->fd < 0)
		return 0;
	if (len >= 0 && ftruncate(of->fd, len))
		e = -errno;
	if (fsync(of->fd) && !e)
		e = -errno;
	if (close_fd(of) && !e)
		e = -EIO;
	return e;
}

/* True when of->tmp is still the regular file this writer created. */
static bool still_ours(const struct outfile *of)
{
	struct stat st;

	return !lstat(of->tmp, &st) && S_ISREG(st.st_mode) && st.st_dev == of->dev &&
	       st.st_ino == of->ino;
}

void outfile_close(struct outfile *of)
{
	if (!of->path && !of->tmp)
		return;
	if (of->state == OUTFILE_OPEN && still_ours(of))
		unlink(of->tmp);
	close_fd(of);
	free(of->path);
	free(of->tmp);
	memset(of, 0, sizeof(*of));
	of->fd = -1;
}

int outfile_parse_mode(const char *s, mode_t *mode)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '7')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 8);
	if (errno || *end || v > 0777 || (v & 0600) != 0600)
		return -EINVAL;
	*mode = (mode_t)v;
	return 0;
}
