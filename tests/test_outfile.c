// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/outfile.c: unique temporaries, no planted name followed, modes, files
 * kept (numbered or refused) without a race, output folders. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "outfile.h"
#include "truth.h"

static char dir[] = "/tmp/pwz-test-outfile-XXXXXX";

static void spill(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void expect_content(const char *path, const char *text)
{
	char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static void put(struct outfile *of, const char *text)
{
	assert_int_equal(write(of->fd, text, strlen(text)), (ssize_t)strlen(text));
}

/* Entries of dir other than those named in keep (NULL-terminated). */
static int others(const char *const *keep)
{
	struct dirent *d;
	DIR *dd = opendir(dir);
	int n = 0;

	assert_non_null(dd);
	while ((d = readdir(dd))) {
		bool known = d->d_name[0] == '.' && (!d->d_name[1] || !strcmp(d->d_name, ".."));

		for (size_t i = 0; keep[i] && !known; i++)
			known = !strcmp(d->d_name, keep[i]);
		n += !known;
	}
	closedir(dd);
	return n;
}

static void test_commit(void **state)
{
	char path[128];
	struct outfile of;
	struct stat st;
	mode_t old = umask(0);

	(void)state;
	snprintf(path, sizeof(path), "%s/a.cdict", dir);
	assert_int_equal(outfile_open(&of, path, NULL), 0);
	/* "<path>.XXXXXX.part", beside the final name */
	assert_int_equal(strlen(of.tmp), strlen(path) + 12);
	assert_memory_equal(of.tmp, path, strlen(path));
	assert_string_equal(of.tmp + strlen(of.tmp) - 5, ".part");
	assert_int_not_equal(access(path, F_OK), 0);
	put(&of, "whole");
	assert_int_equal(outfile_commit(&of), 0);
	outfile_close(&of);
	expect_content(path, "whole");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, OUTFILE_MODE_DEFAULT);
	assert_int_equal(others((const char *const[]){ "a.cdict", NULL }), 0);
	/* an explicit mode is applied whatever the umask */
	umask(077);
	assert_int_equal(outfile_open(&of, path, &(struct outfile_opts){ .mode = 0644 }), 0);
	put(&of, "shared");
	assert_int_equal(outfile_commit(&of), 0);
	outfile_close(&of);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	expect_content(path, "shared");
	umask(old);
	unlink(path);
}

/* Names a writer could use, planted as symlinks to a victim: never written through. The
 * final name's symlink is replaced by the file, its target untouched. */
static void test_planted_symlinks(void **state)
{
	char path[128], old_part[160], victim[128], target[128];
	struct outfile of;
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/s.cdict", dir);
	snprintf(old_part, sizeof(old_part), "%s.part", path);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	spill(victim, "secret");
	spill(target, "other");
	assert_int_equal(symlink(victim, old_part), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(outfile_open(&of, path, NULL), 0);
	put(&of, "PWZCDICT");
	assert_int_equal(outfile_commit(&of), 0);
	outfile_close(&of);
	expect_content(victim, "secret");
	expect_content(target, "other");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	expect_content(path, "PWZCDICT");
	/* the planted name is not ours: left alone */
	assert_int_equal(lstat(old_part, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(old_part);
	unlink(path);
	unlink(victim);
	unlink(target);
}

/* FIFOs at the old temporary name and at the final name: no open() blocks on them. */
static void test_planted_fifos(void **state)
{
	char path[128], old_part[160];
	struct outfile of;
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/f.stats", dir);
	snprintf(old_part, sizeof(old_part), "%s.part", path);
	assert_int_equal(mkfifo(old_part, 0666), 0);
	assert_int_equal(mkfifo(path, 0666), 0);
	alarm(10);	/* a blocking open would hang here: fail instead */
	assert_int_equal(outfile_open(&of, path, NULL), 0);
	put(&of, "report");
	assert_int_equal(outfile_commit(&of), 0);
	alarm(0);
	outfile_close(&of);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(lstat(old_part, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(old_part);
	unlink(path);
}

/* Two writers of one name: two temporaries, the file left is one of them whole. */
static void test_two_writers(void **state)
{
	char path[128];
	struct outfile a, b;

	(void)state;
	snprintf(path, sizeof(path), "%s/perf.cdict", dir);
	assert_int_equal(outfile_open(&a, path, NULL), 0);
	assert_int_equal(outfile_open(&b, path, NULL), 0);
	assert_string_not_equal(a.tmp, b.tmp);
	put(&a, "first-writer");
	put(&b, "second");
	assert_int_equal(outfile_commit(&a), 0);
	expect_content(path, "first-writer");
	assert_int_equal(outfile_commit(&b), 0);
	expect_content(path, "second");
	outfile_close(&a);
	outfile_close(&b);
	assert_int_equal(others((const char *const[]){ "perf.cdict", NULL }), 0);
	unlink(path);
}

/* An uncommitted temporary is removed, unless another file took its name meanwhile. */
static void test_close_removes_only_its_own(void **state)
{
	char path[128], tmp[160], other[128];
	struct outfile of;

	(void)state;
	snprintf(path, sizeof(path), "%s/c.html", dir);
	assert_int_equal(outfile_open(&of, path, NULL), 0);
	snprintf(tmp, sizeof(tmp), "%s", of.tmp);
	outfile_close(&of);
	assert_int_not_equal(access(tmp, F_OK), 0);
	assert_int_not_equal(access(path, F_OK), 0);

	assert_int_equal(outfile_open(&of, path, NULL), 0);
	snprintf(tmp, sizeof(tmp), "%s", of.tmp);
	snprintf(other, sizeof(other), "%s/someone-else", dir);
	spill(other, "theirs");
	assert_int_equal(rename(other, tmp), 0);	/* the name now holds another file */
	outfile_close(&of);
	expect_content(tmp, "theirs");
	unlink(tmp);
}

static void test_keep(void **state)
{
	char path[128], tmp[160];
	struct outfile of;
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/k.cdict", dir);
	assert_int_equal(outfile_open(&of, path, NULL), 0);
	put(&of, "wholecut");
	snprintf(tmp, sizeof(tmp), "%s", of.tmp);
	assert_int_equal(outfile_keep(&of, 5), 0);
	outfile_close(&of);
	assert_int_equal(stat(tmp, &st), 0);
	assert_int_equal(st.st_size, 5);
	expect_content(tmp, "whole");
	assert_int_not_equal(access(path, F_OK), 0);
	unlink(tmp);
}

static void test_stream_and_errors(void **state)
{
	char path[128];
	struct outfile of;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/nodir/x.stats", dir);
	assert_int_equal(outfile_open(&of, path, NULL), -ENOENT);
	outfile_close(&of);	/* a failed open leaves it closed */
	snprintf(path, sizeof(path), "%s/s.stats", dir);
	assert_int_equal(outfile_open(&of, path, NULL), 0);
	f = outfile_stream(&of);
	assert_non_null(f);
	fprintf(f, "task %d\n", 42);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(outfile_commit(&of), 0);
	assert_int_equal(outfile_commit(&of), -EBADF);
	outfile_close(&of);
	expect_content(path, "task 42\n");
	unlink(path);
}

/* The final name of a temporary: its ".XXXXXX.part" off, and only that. */
static void test_final_len(void **state)
{
	struct outfile of;
	char path[512];

	(void)state;
	assert_int_equal(outfile_final_len("k9.cdict.L4cmxv.part"), strlen("k9.cdict"));
	assert_int_equal(outfile_final_len("/a/b/run.stats.000000.part"), strlen("/a/b/run.stats"));
	assert_int_equal(outfile_final_len("k9.cdict"), strlen("k9.cdict"));
	assert_int_equal(outfile_final_len("k9.part"), strlen("k9.part"));
	assert_int_equal(outfile_final_len("k9.cdict.L4cmx.part"), strlen("k9.cdict.L4cmx.part"));
	assert_int_equal(outfile_final_len("k9.cdict.L4-mxv.part"), strlen("k9.cdict.L4-mxv.part"));
	assert_int_equal(outfile_final_len("k9.cdictxL4cmxv.part"), strlen("k9.cdictxL4cmxv.part"));
	assert_int_equal(outfile_final_len(".L4cmxv.part"), strlen(".L4cmxv.part"));
	assert_int_equal(outfile_final_len(""), 0);
	/* what outfile_open() draws maps back to its path */
	snprintf(path, sizeof(path), "%s/final.cdict", dir);
	assert_int_equal(outfile_open(&of, path, NULL), 0);
	assert_int_equal(outfile_final_len(of.tmp), strlen(path));
	outfile_close(&of);
}

/*
 * renameat2() as a filesystem without RENAME_NOREPLACE answers it (NFS: EINVAL) while
 * no_noreplace is set (the test links with -Wl,--wrap=renameat2): outfile falls back to link()
 * and unlink(). Counts the calls that asked for the flag.
 */
static bool no_noreplace;
static int noreplace_calls;
int __real_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		     unsigned int flags);
int __wrap_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		     unsigned int flags);
int __wrap_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		     unsigned int flags)
{
	if (flags & RENAME_NOREPLACE) {
		noreplace_calls++;
		if (no_noreplace) {
			errno = EINVAL;
			return -1;
		}
	}
	return __real_renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

/* Writes text to path through outfile with exists; the commit's result, *written the name. */
static int write_as(const char *path, enum outfile_exists exists, const char *text,
		    char *written, size_t len)
{
	struct outfile_opts o = { .exists = exists };
	struct outfile of;
	int e;

	assert_int_equal(outfile_open(&of, path, &o), 0);
	put(&of, text);
	e = outfile_commit(&of);
	snprintf(written, len, "%s", e ? "" : of.path);
	outfile_close(&of);
	return e;
}

/* OUTFILE_NUMBER: a file at the name is kept, the new one takes NAME-2.EXT, then NAME-3.EXT;
 * with and without RENAME_NOREPLACE (the link() fallback), no temporary left. */
static void test_number_keeps(void **state)
{
	char path[128], want[160], got[160];

	(void)state;
	for (int fallback = 0; fallback < 2; fallback++) {
		no_noreplace = fallback;
		noreplace_calls = 0;
		snprintf(path, sizeof(path), "%s/run.cdict", dir);
		spill(path, "imported KVM recording");
		assert_int_equal(write_as(path, OUTFILE_NUMBER, "new capture", got, sizeof(got)), 0);
		snprintf(want, sizeof(want), "%s/run-2.cdict", dir);
		assert_string_equal(got, want);
		assert_int_equal(write_as(path, OUTFILE_NUMBER, "third", got, sizeof(got)), 0);
		snprintf(want, sizeof(want), "%s/run-3.cdict", dir);
		assert_string_equal(got, want);
		expect_content(path, "imported KVM recording");
		snprintf(want, sizeof(want), "%s/run-2.cdict", dir);
		expect_content(want, "new capture");
		assert_int_equal(others((const char *const[]){ "run.cdict", "run-2.cdict",
							       "run-3.cdict", NULL }), 0);
		/* each name was taken without replacing: run, run-2 twice; run, run-2, run-3 */
		assert_int_equal(noreplace_calls, 5);
		unlink(path);
		unlink(want);
		snprintf(want, sizeof(want), "%s/run-3.cdict", dir);
		unlink(want);
	}
	no_noreplace = false;
	/* a free name is taken as asked */
	assert_int_equal(write_as(path, OUTFILE_NUMBER, "first", got, sizeof(got)), 0);
	assert_string_equal(got, path);
	unlink(path);
}

/* A file that appears at the name after it was found free (before the commit) is never
 * replaced: OUTFILE_NUMBER moves on to NAME-2, OUTFILE_REFUSE fails with -EEXIST and leaves it,
 * and close then removes the temporary. Both with and without RENAME_NOREPLACE. */
static void test_race_after_open(void **state)
{
	char path[128], two[160];
	struct outfile of;

	(void)state;
	snprintf(path, sizeof(path), "%s/p.pftrace.gz", dir);
	snprintf(two, sizeof(two), "%s/p-2.pftrace.gz", dir);
	for (int fallback = 0; fallback < 2; fallback++) {
		no_noreplace = fallback;
		assert_int_equal(outfile_open(&of, path, &(struct outfile_opts){
			.exists = OUTFILE_NUMBER, .ext = ".pftrace.gz" }), 0);
		put(&of, "mine");
		spill(path, "appeared meanwhile");
		assert_int_equal(outfile_commit(&of), 0);
		assert_string_equal(of.path, two);
		outfile_close(&of);
		expect_content(path, "appeared meanwhile");
		expect_content(two, "mine");
		unlink(two);

		assert_int_equal(outfile_open(&of, path, &(struct outfile_opts){
			.exists = OUTFILE_REFUSE }), 0);
		put(&of, "refused");
		assert_int_equal(outfile_commit(&of), -EEXIST);
		outfile_close(&of);
		expect_content(path, "appeared meanwhile");
		assert_int_equal(others((const char *const[]){ "p.pftrace.gz", NULL }), 0);
		unlink(path);
	}
	no_noreplace = false;
}

/* OUTFILE_REPLACE (--force) replaces the file at the name, at that name. */
static void test_replace(void **state)
{
	char path[128], got[160];

	(void)state;
	snprintf(path, sizeof(path), "%s/r.stats", dir);
	spill(path, "old report");
	assert_int_equal(write_as(path, OUTFILE_REPLACE, "new report", got, sizeof(got)), 0);
	assert_string_equal(got, path);
	expect_content(path, "new report");
	assert_int_equal(others((const char *const[]){ "r.stats", NULL }), 0);
	unlink(path);
}

static void expect_name(const char *path, const char *ext, unsigned int n, const char *want)
{
	char out[64];

	assert_int_equal(outfile_name(path, ext, n, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void test_names(void **state)
{
	char small[8];

	(void)state;
	expect_name("out/run.cdict", NULL, 2, "out/run-2.cdict");
	expect_name("out/run.cdict", NULL, 1, "out/run.cdict");
	expect_name("a-charts_all.html", NULL, 12, "a-charts_all-12.html");
	expect_name("o/x.pftrace.gz", ".pftrace.gz", 2, "o/x-2.pftrace.gz");
	expect_name("o/x.pftrace.gz", NULL, 2, "o/x.pftrace-2.gz");
	/* a suffix that the name does not end with, a dot in a folder, a name that starts with a
	 * dot, or no suffix at all: the number goes at the end */
	expect_name("o/x.pftrace", ".pftrace.gz", 3, "o/x.pftrace-3");
	expect_name("v1.d/run", NULL, 2, "v1.d/run-2");
	expect_name(".hidden", NULL, 2, ".hidden-2");
	expect_name("run.v1.cdict", NULL, 2, "run.v1-2.cdict");
	assert_int_equal(outfile_name("longer.cdict", NULL, 2, small, sizeof(small)), -ENAMETOOLONG);
	assert_int_equal(outfile_name("longer.cdict", NULL, 1, small, sizeof(small)), -ENAMETOOLONG);
}

/* opts.at: the file is made in the folder given as a descriptor; path only names it. */
static void test_at(void **state)
{
	char sub[128], path[160];
	struct outfile of;
	int fd;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/table", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	fd = open(sub, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(outfile_open(&of, "shown/as/id.parquet", &(struct outfile_opts){
		.at = true, .dirfd = fd, .exists = OUTFILE_REFUSE }), 0);
	close(fd);	/* outfile holds its own descriptor of the folder */
	assert_string_equal(of.path, "shown/as/id.parquet");
	put(&of, "PAR1");
	assert_int_equal(outfile_commit(&of), 0);
	outfile_close(&of);
	snprintf(path, sizeof(path), "%s/id.parquet", sub);
	expect_content(path, "PAR1");
	unlink(path);
	rmdir(sub);
}

static mode_t mode_at(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/* Folders: made with exactly the mode asked whatever the umask, an existing one left as it
 * is; a symlink (NOFOLLOW) or a file refused with a message naming it. */
static void test_dir_open(void **state)
{
	char path[128], link[128], file[128], err[512];
	mode_t old = umask(0);
	int fd;

	(void)state;
	assert_int_equal(outfile_dir_mode(0), 0700);
	assert_int_equal(outfile_dir_mode(0644), 0755);
	assert_int_equal(outfile_dir_mode(0640), 0750);
	snprintf(path, sizeof(path), "%s/out", dir);
	fd = outfile_dir_open(AT_FDCWD, path, 0, 0, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mode_at(path), 0700);
	assert_int_equal(rmdir(path), 0);
	umask(077);
	fd = outfile_dir_open(AT_FDCWD, path, 0644, 0, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mode_at(path), 0755);
	/* existing: opened, its mode kept */
	assert_int_equal(chmod(path, 0750), 0);
	fd = outfile_dir_open(AT_FDCWD, path, 0, OUTFILE_DIR_NOFOLLOW | OUTFILE_DIR_OWNED, err,
			      sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mode_at(path), 0750);
	umask(old);

	snprintf(link, sizeof(link), "%s/lnk", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(outfile_dir_open(AT_FDCWD, link, 0, OUTFILE_DIR_NOFOLLOW, err, sizeof(err)),
			 -ELOOP);
	assert_non_null(strstr(err, "lnk: a symlink"));
	fd = outfile_dir_open(AT_FDCWD, link, 0, 0, err, sizeof(err));	/* followed if allowed */
	assert_true(fd >= 0);
	close(fd);
	snprintf(file, sizeof(file), "%s/plain", dir);
	spill(file, "x");
	assert_int_equal(outfile_dir_open(AT_FDCWD, file, 0, 0, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, "plain: not a folder"));
	snprintf(file, sizeof(file), "%s/none/deeper", dir);
	assert_int_equal(outfile_dir_open(AT_FDCWD, file, 0, 0, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "none/deeper"));
	/* another user's folder (root can make one): refused with OUTFILE_DIR_OWNED */
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(outfile_dir_open(AT_FDCWD, path, 0, OUTFILE_DIR_OWNED, err,
						  sizeof(err)), -EPERM);
		assert_non_null(strstr(err, "owned by uid 65534"));
	}
	unlink(link);
	snprintf(file, sizeof(file), "%s/plain", dir);
	unlink(file);
	rmdir(path);
}

static void test_parse_mode(void **state)
{
	mode_t m = 0;

	(void)state;
	assert_int_equal(outfile_parse_mode("0644", &m), 0);
	assert_int_equal(m, 0644);
	assert_int_equal(outfile_parse_mode("600", &m), 0);
	assert_int_equal(m, 0600);
	assert_int_equal(outfile_parse_mode("0640", &m), 0);
	assert_int_equal(m, 0640);
	assert_int_equal(outfile_parse_mode("0444", &m), -EINVAL);	/* owner cannot write */
	assert_int_equal(outfile_parse_mode("04755", &m), -EINVAL);	/* setuid */
	assert_int_equal(outfile_parse_mode("0648", &m), -EINVAL);
	assert_int_equal(outfile_parse_mode("-644", &m), -EINVAL);
	assert_int_equal(outfile_parse_mode(" 644", &m), -EINVAL);
	assert_int_equal(outfile_parse_mode("", &m), -EINVAL);
	assert_int_equal(outfile_parse_mode("rw-r--r--", &m), -EINVAL);
	assert_int_equal(m, 0640);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit),
		cmocka_unit_test(test_planted_symlinks),
		cmocka_unit_test(test_planted_fifos),
		cmocka_unit_test(test_two_writers),
		cmocka_unit_test(test_close_removes_only_its_own),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_stream_and_errors),
		cmocka_unit_test(test_final_len),
		cmocka_unit_test(test_parse_mode),
		cmocka_unit_test(test_number_keeps),
		cmocka_unit_test(test_race_after_open),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_at),
		cmocka_unit_test(test_dir_open),
	};

	return RUN_IN_TMPDIR(tests, dir);
}
