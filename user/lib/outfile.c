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
#define NUMBER_ROOM 12		/* "-<n>" for n up to 10 digits, and the NUL */

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

/* Bytes of the suffix a number goes before in the file name name: ext when name ends with it
 * (and is more than it), else the last ".xxx" that does not start the name, else none. */
static size_t suffix_len(const char *name, const char *ext)
{
	size_t n = strlen(name);
	const char *dot;

	if (ext) {
		size_t e = strlen(ext);

		return e < n && !strcmp(name + n - e, ext) ? e : 0;
	}
	dot = strrchr(name, '.');
	return dot && dot != name ? strlen(dot) : 0;
}

/* The n-th name of path (n >= 2), its suffix extlen bytes long, into out of cap bytes. */
static int number_name(const char *path, size_t extlen, unsigned int n, char *out, size_t cap)
{
	size_t len = strlen(path);
	int k = snprintf(out, cap, "%.*s-%u%s", (int)(len - extlen), path, n, path + len - extlen);

	return k < 0 || (size_t)k >= cap ? -ENAMETOOLONG : 0;
}

int outfile_name(const char *path, const char *ext, unsigned int n, char *out, size_t outlen)
{
	const char *slash = strrchr(path, '/');

	if (n <= 1) {
		size_t len = strlen(path);

		if (len >= outlen)
			return -ENAMETOOLONG;
		memcpy(out, path, len + 1);
		return 0;
	}
	return number_name(path, suffix_len(slash ? slash + 1 : path, ext), n, out, outlen);
}

static void reset(struct outfile *of)
{
	memset(of, 0, sizeof(*of));
	of->fd = -1;
	of->dirfd = -1;
}

/* of's names: path, where its folder part ends, its suffix, and room for the temporary. */
static int set_names(struct outfile *of, const char *path, const char *ext)
{
	const char *slash = strrchr(path, '/');
	size_t len = strlen(path);

	of->dirlen = slash ? (size_t)(slash + 1 - path) : 0;
	if (of->dirlen == len)
		return -EISDIR;
	of->extlen = suffix_len(path + of->dirlen, ext);
	of->path = strdup(path);
	of->tmp = malloc(len + 1 + SUFFIX_LETTERS + sizeof(".part"));
	return of->path && of->tmp ? 0 : -ENOMEM;
}

/* of->dirfd: a duplicate of the caller's folder, or the folder part of path opened here. */
static int open_folder(struct outfile *of, const struct outfile_opts *o)
{
	char *dir;

	if (o->at) {
		of->dirfd = fcntl(o->dirfd, F_DUPFD_CLOEXEC, 0);
		return of->dirfd < 0 ? -errno : 0;
	}
	dir = of->dirlen ? strndup(of->path, of->dirlen) : strdup(".");
	if (!dir)
		return -ENOMEM;
	of->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	return of->dirfd < 0 ? -errno : 0;
}

/* Creates the temporary under a name of its own. */
static int create_tmp(struct outfile *of)
{
	size_t len = strlen(of->path);
	int e = -EEXIST;

	for (int i = 0; i < MAX_DRAWS; i++) {
		memcpy(of->tmp, of->path, len);
		of->tmp[len] = '.';
		draw_suffix(of->tmp + len + 1);
		memcpy(of->tmp + len + 1 + SUFFIX_LETTERS, ".part", sizeof(".part"));
		/* O_EXCL: never an existing name, symlink or FIFO; O_NOFOLLOW says it twice */
		of->fd = openat(of->dirfd, of->tmp + of->dirlen,
				O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (of->fd >= 0)
			return 0;
		e = -errno;
		if (e != -EEXIST)
			return e;
	}
	return e;
}

int outfile_open(struct outfile *of, const char *path, const struct outfile_opts *opts)
{
	static const struct outfile_opts defaults;
	const struct outfile_opts *o = opts ? opts : &defaults;
	struct stat st;
	int e;

	reset(of);
	of->exists = o->exists;
	e = set_names(of, path, o->ext);
	if (!e)
		e = open_folder(of, o);
	if (!e)
		e = create_tmp(of);
	if (e)
		goto fail;
	/* created, so from here on removing it on failure is ours to do */
	of->state = OUTFILE_OPEN;
	if (fstat(of->fd, &st)) {
		e = -errno;
		goto fail;
	}
	of->dev = st.st_dev;
	of->ino = st.st_ino;
	/* the mode asked for, whatever the umask */
	if (fchmod(of->fd, (o->mode ? o->mode : OUTFILE_MODE_DEFAULT) & 0777)) {
		e = -errno;
		goto fail;
	}
	return 0;
fail:
	outfile_close(of);
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

/* fsyncs the folder, so that the rename survives a crash (best effort). */
static void sync_folder(const struct outfile *of)
{
	int fd = openat(of->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

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

/* Gives the temporary the name name in the folder unless a file is there (-EEXIST). */
static int take_name(const struct outfile *of, const char *name)
{
	const char *tmp = of->tmp + of->dirlen;

	if (!renameat2(of->dirfd, tmp, of->dirfd, name, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return -errno;
	/* the filesystem has no RENAME_NOREPLACE: a second name, then the temporary's removed */
	if (linkat(of->dirfd, tmp, of->dirfd, name, 0))
		return -errno;
	unlinkat(of->dirfd, tmp, 0);
	return 0;
}

/* The first free of path, path-2, path-3, ...; of->path becomes the name taken. */
static int take_numbered(struct outfile *of)
{
	size_t cap = strlen(of->path) + NUMBER_ROOM;
	char *name = malloc(cap);
	int e = -EEXIST;

	if (!name)
		return -ENOMEM;
	e = take_name(of, of->path + of->dirlen);
	for (unsigned int n = 2; e == -EEXIST && n <= OUTFILE_MAX_NUMBER; n++) {
		number_name(of->path, of->extlen, n, name, cap);
		e = take_name(of, name + of->dirlen);
		if (!e) {
			free(of->path);
			of->path = name;
			return 0;
		}
	}
	free(name);
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
	if (of->exists == OUTFILE_NUMBER)
		e = take_numbered(of);
	else if (of->exists == OUTFILE_REFUSE)
		e = take_name(of, of->path + of->dirlen);
	else if (renameat(of->dirfd, of->tmp + of->dirlen, of->dirfd, of->path + of->dirlen))
		e = -errno;
	if (e)
		return e;
	of->state = OUTFILE_COMMITTED;
	sync_folder(of);
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

	return !fstatat(of->dirfd, of->tmp + of->dirlen, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISREG(st.st_mode) && st.st_dev == of->dev && st.st_ino == of->ino;
}

void outfile_close(struct outfile *of)
{
	if (!of->path && !of->tmp)	/* zeroed, or closed: nothing to do (no folder open) */
		return;
	if (of->state == OUTFILE_OPEN && still_ours(of))
		unlinkat(of->dirfd, of->tmp + of->dirlen, 0);
	close_fd(of);
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of->path);
	free(of->tmp);
	reset(of);
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

mode_t outfile_dir_mode(mode_t mode)
{
	mode_t m = (mode ? mode : OUTFILE_MODE_DEFAULT) & 0777;

	return m | ((m & 0444) >> 2);
}

/* The message and error of a folder that openat() refused with e. */
static int dir_refused(int dirfd, const char *path, int e, char *err, size_t errlen)
{
	struct stat st;

	if ((e == -ENOTDIR || e == -ELOOP) && !fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW)) {
		if (S_ISLNK(st.st_mode)) {
			snprintf(err, errlen, "%s: a symlink, not a folder (refused: no output is written through a link; remove it)",
				 path);
			return -ELOOP;
		}
		snprintf(err, errlen, "%s: not a folder (remove it or write elsewhere)", path);
		return -ENOTDIR;
	}
	snprintf(err, errlen, "%s: cannot open the folder: %s", path, strerror(-e));
	return e;
}

int outfile_dir_open(int dirfd, const char *path, mode_t mode, unsigned int flags, char *err,
		     size_t errlen)
{
	int nofollow = flags & OUTFILE_DIR_NOFOLLOW ? O_NOFOLLOW : 0;
	bool made = !mkdirat(dirfd, path, 0700);
	struct stat st;
	int fd, e;

	if (!made && errno != EEXIST) {
		e = -errno;
		snprintf(err, errlen, "%s: cannot create the folder: %s", path, strerror(-e));
		return e;
	}
	/* a folder made here is read to set its mode; an existing one only has to be entered */
	fd = openat(dirfd, path, (made ? O_RDONLY : O_PATH) | O_DIRECTORY | O_CLOEXEC | nofollow);
	if (fd < 0)
		return dir_refused(dirfd, path, -errno, err, errlen);
	if (fstat(fd, &st) || (made && fchmod(fd, outfile_dir_mode(mode)))) {
		e = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-e));
		close(fd);
		return e;
	}
	if ((flags & OUTFILE_DIR_OWNED) && st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: owned by uid %u, not by the running user (uid %u): another user could replace what is written there (remove it or write elsewhere)",
			 path, (unsigned int)st.st_uid, (unsigned int)geteuid());
		close(fd);
		return -EPERM;
	}
	return fd;
}
