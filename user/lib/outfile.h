/* SPDX-License-Identifier: GPL-2.0 */
/* Output files made safe for root: a unique temporary beside the final name, renamed into place. */
#ifndef PWZ_OUTFILE_H
#define PWZ_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Every file pwz writes (captures, .stats reports, HTML pages, Perfetto traces, Parquet tables)
 * goes through this module, so that a folder shared with other users cannot turn a write by
 * root against another file, and so that nothing already there is lost by accident:
 *
 * - the temporary "<path>.XXXXXX.part" (six random letters or digits) is created in the
 *   destination folder with O_CREAT|O_EXCL|O_NOFOLLOW: a planted symlink, FIFO, device or
 *   file at that name is never opened, followed or truncated (another name is drawn);
 * - the folder is opened once, at outfile_open(), and every later step (the rename, the
 *   removal of the temporary, the folder's fsync) is made relative to that descriptor;
 * - two writers of the same final name never share a temporary;
 * - the temporary gets exactly the mode asked for (OUTFILE_MODE_DEFAULT, 0600, unless the user
 *   chose another), whatever the umask, since a capture holds every thread's name and the
 *   host's command line;
 * - the commit does what outfile_opts.exists says with a file at the final name: replace it
 *   (rename(): a symlink there is replaced, never written through), keep it and take the first
 *   free numbered name, or keep it and fail. Keeping is race-free: the name is taken with
 *   renameat2(RENAME_NOREPLACE), or, where the filesystem refuses that flag (NFS, ...), with
 *   link() then unlink() of the temporary, so a file that appears at a name after it was
 *   found free is never replaced;
 * - only the temporary this writer created is ever removed: before unlink the name is checked
 *   to still be the regular file opened (same device and inode).
 */

#define OUTFILE_MODE_DEFAULT 0600
#define OUTFILE_MAX_NUMBER 9999		/* OUTFILE_NUMBER tries NAME-2 to NAME-9999 */

/* What outfile_commit() does when a file is at the final name already. */
enum outfile_exists {
	OUTFILE_REPLACE = 0,	/* replace it (pwz's --force; --remap's rewrite in place) */
	OUTFILE_NUMBER,		/* keep it: the file takes the first free outfile_name(), n >= 2 */
	OUTFILE_REFUSE,		/* keep it: the commit fails with -EEXIST */
};

/* How a file is written (a zeroed struct, or NULL: mode 0600, replace, from the current folder). */
struct outfile_opts {
	mode_t mode;			/* the file's mode; 0 = OUTFILE_MODE_DEFAULT */
	enum outfile_exists exists;	/* what the commit does with a file at the name */
	const char *ext;		/* OUTFILE_NUMBER: the suffix the number goes before
					 * (".pftrace.gz"); NULL = the name's last ".xxx" */
	bool at;			/* the file is in the open folder dirfd: path's last component
					 * is its name there, the rest of path names it in messages */
	int dirfd;			/* with at: the folder (outfile keeps a duplicate of it) */
};

enum outfile_state {
	OUTFILE_CLOSED = 0,	/* nothing open (zeroed struct, or after outfile_close) */
	OUTFILE_OPEN,		/* the temporary is open and will be removed unless committed */
	OUTFILE_COMMITTED,	/* renamed to the final name */
	OUTFILE_KEPT,		/* left under its temporary name on purpose (a partial capture) */
};

struct outfile {
	char *path;		/* the final name as asked for; once committed, the name written */
	char *tmp;		/* the temporary's name, "<path>.XXXXXX.part" */
	size_t dirlen;		/* bytes of path (and tmp) before the name in the folder */
	size_t extlen;		/* bytes of the suffix a number goes before (OUTFILE_NUMBER) */
	enum outfile_exists exists;	/* what the commit does with a file at the name */
	int dirfd;		/* the folder (O_PATH), for every later step; -1 once closed */
	int fd;			/* open on tmp for writing; -1 once closed */
	dev_t dev;		/* identity of the file created, checked before removing it */
	ino_t ino;
	enum outfile_state state;
};

/*
 * Creates the temporary for path in path's folder (or in opts->dirfd) and opens it for writing
 * (of->fd, close-on-exec). opts may be NULL (the defaults above). Returns 0, or -errno:
 * -ENOENT / -EACCES / -ENOTDIR ... from the folder, -EISDIR when path ends with '/', -EEXIST
 * when no free temporary name was found in 100 draws, -ENOMEM. On failure nothing was created
 * and of is left closed.
 */
int outfile_open(struct outfile *of, const char *path, const struct outfile_opts *opts);

/* A stdio stream on a duplicate of of->fd (the caller fcloses it, and checks that fclose
 * returned 0, before outfile_commit). NULL with errno set. */
FILE *outfile_stream(struct outfile *of);

/*
 * fsyncs and closes the temporary, gives it its final name as of->exists says, and fsyncs the
 * folder; of->path is then the name written (numbered or not). Returns 0 or -errno (-ENOSPC,
 * -EIO from a late write, ...; -EEXIST: OUTFILE_REFUSE and a file is at the name, or
 * OUTFILE_NUMBER and every name up to OUTFILE_MAX_NUMBER is taken; -EPERM or -EOPNOTSUPP when
 * a file is to be kept on a filesystem with neither RENAME_NOREPLACE nor hard links: only
 * OUTFILE_REPLACE writes there); on failure the temporary is still there and outfile_close()
 * removes it.
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
 * The n-th name of path as OUTFILE_NUMBER numbers it, into out: path itself for n <= 1, else
 * "-<n>" inserted before the suffix ext (NULL: the last ".xxx" of the file name; none: at the
 * end): run.cdict -> run-2.cdict, x.pftrace.gz with ".pftrace.gz" -> x-2.pftrace.gz.
 * Returns 0, or -ENAMETOOLONG when it does not fit in outlen.
 */
int outfile_name(const char *path, const char *ext, unsigned int n, char *out, size_t outlen);

/*
 * Parses a file mode given by a user ("0644", "640"): octal, at most 0777, and with owner read
 * and write (pwz reads its own files back). Returns 0 with *mode set, or -EINVAL.
 */
int outfile_parse_mode(const char *s, mode_t *mode);

/* The mode of a folder pwz creates for files of mode (0 = OUTFILE_MODE_DEFAULT): the same
 * permissions with search wherever read is given (0600 -> 0700, 0644 -> 0755). */
mode_t outfile_dir_mode(mode_t mode);

#define OUTFILE_DIR_NOFOLLOW 1	/* refuse a symlink at path's last component (-ELOOP) */
#define OUTFILE_DIR_OWNED 2	/* refuse a folder the running user does not own (-EPERM) */

/*
 * Opens the folder path (relative to dirfd, or AT_FDCWD) to write files into, creating it when
 * missing (only the last component; its parent must exist) with exactly
 * outfile_dir_mode(mode), whatever the umask; an existing folder keeps its mode. flags:
 * OUTFILE_DIR_* above. Returns the descriptor (O_DIRECTORY, close-on-exec; the caller closes
 * it), or -errno with err filled as "<path>: <what is wrong and what to do>": -ENOTDIR not a
 * folder, -ELOOP a symlink (with OUTFILE_DIR_NOFOLLOW), -EPERM another user's folder (with
 * OUTFILE_DIR_OWNED), -ENOENT / -EACCES / ... from mkdir or open.
 */
int outfile_dir_open(int dirfd, const char *path, mode_t mode, unsigned int flags, char *err,
		     size_t errlen);

#endif /* PWZ_OUTFILE_H */
