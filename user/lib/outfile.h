/* SPDX-License-Identifier: GPL-2.0 */
/* Output files made safe for root: a unique temporary beside the final name, renamed into place. */
#ifndef PWZ_OUTFILE_H
#define PWZ_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Every file pwz writes (captures, .stats reports, HTML pages) goes through this module, so
 * that a folder shared with other users cannot turn a write by root against another file:
 *
 * - the temporary "<path>.XXXXXX.part" (six random letters or digits) is created in the
 *   destination folder with O_CREAT|O_EXCL|O_NOFOLLOW: a planted symlink, FIFO, device or
 *   file at that name is never opened, followed or truncated (another name is drawn);
 * - two writers of the same final name never share a temporary; the last rename wins and the
 *   file left under the final name is always one writer's whole file;
 * - the temporary gets exactly the mode asked for (OUTFILE_MODE_DEFAULT, 0600, unless the user
 *   chose another), whatever the umask, since a capture holds every thread's name and the
 *   host's command line;
 * - rename() replaces whatever is at the final name (a symlink there is replaced, never
 *   written through);
 * - only the temporary this writer created is ever removed: before unlink the name is checked
 *   to still be the regular file opened (same device and inode).
 */

#define OUTFILE_MODE_DEFAULT 0600

enum outfile_state {
	OUTFILE_CLOSED = 0,	/* nothing open (zeroed struct, or after outfile_close) */
	OUTFILE_OPEN,		/* the temporary is open and will be removed unless committed */
	OUTFILE_COMMITTED,	/* renamed to the final name */
	OUTFILE_KEPT,		/* left under its temporary name on purpose (a partial capture) */
};

struct outfile {
	char *path;		/* the final name (a copy) */
	char *tmp;		/* the temporary's name, "<path>.XXXXXX.part" */
	int fd;			/* open on tmp for writing; -1 once closed */
	dev_t dev;		/* identity of the file created, checked before removing it */
	ino_t ino;
	enum outfile_state state;
};

/*
 * Creates the temporary for path in path's folder with mode (0: OUTFILE_MODE_DEFAULT) and
 * opens it for writing (of->fd, close-on-exec). Returns 0, or -errno: -ENOENT / -EACCES / ...
 * from the folder, -EEXIST when no free name was found in 100 draws, -ENOMEM. On failure
 * nothing was created and of is left closed.
 */
int outfile_open(struct outfile *of, const char *path, mode_t mode);

/* A stdio stream on a duplicate of of->fd (the caller fcloses it, and checks that fclose
 * returned 0, before outfile_commit). NULL with errno set. */
FILE *outfile_stream(struct outfile *of);

/*
 * fsyncs and closes the temporary, renames it to the final name and fsyncs the folder.
 * Returns 0 or -errno (-ENOSPC, -EIO from a late write, ...); on failure the temporary is
 * still there and outfile_close() removes it.
 */
int outfile_commit(struct outfile *of);

/*
 * Keeps the temporary under its name (a capture cut short by a full disk: its whole chunks are
 * readable), first truncated to len bytes when len >= 0 (the end of the last whole chunk).
 * Returns 0 or -errno; the file is kept either way.
 */
int outfile_keep(struct outfile *of, off_t len);

/* Closes the file; an open (uncommitted, not kept) temporary is removed if it is still the
 * file created. Frees the names. A closed or zeroed outfile is a no-op. */
void outfile_close(struct outfile *of);

/*
 * The length of the final name a temporary name stands for: name less its ".XXXXXX.part"
 * suffix (six letters or digits, as outfile_open() draws them) when it has one, so that what
 * is made from a kept temporary (a killed capture's "run.cdict.L4cmxv.part") is named after
 * "run.cdict"; strlen(name) otherwise. Looks at the name only.
 */
size_t outfile_final_len(const char *name);

/*
 * Parses a file mode given by a user ("0644", "640"): octal, at most 0777, and with owner read
 * and write (pwz reads its own files back). Returns 0 with *mode set, or -EINVAL.
 */
int outfile_parse_mode(const char *s, mode_t *mode);

#endif /* PWZ_OUTFILE_H */
