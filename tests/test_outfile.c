// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/outfile.c: unique temporaries, no planted name followed, modes. */
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
	assert_int_equal(outfile_open(&of, path, 0), 0);
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
	assert_int_equal(outfile_open(&of, path, 0644), 0);
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
	assert_int_equal(outfile_open(&of, path, 0), 0);
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
	assert_int_equal(outfile_open(&of, path, 0), 0);
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
	assert_int_equal(outfile_open(&a, path, 0), 0);
	assert_int_equal(outfile_open(&b, path, 0), 0);
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
	assert_int_equal(outfile_open(&of, path, 0), 0);
	snprintf(tmp, sizeof(tmp), "%s", of.tmp);
	outfile_close(&of);
	assert_int_not_equal(access(tmp, F_OK), 0);
	assert_int_not_equal(access(path, F_OK), 0);

	assert_int_equal(outfile_open(&of, path, 0), 0);
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
	assert_int_equal(outfile_open(&of, path, 0), 0);
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
	assert_int_equal(outfile_open(&of, path, 0), -ENOENT);
	outfile_close(&of);	/* a failed open leaves it closed */
	snprintf(path, sizeof(path), "%s/s.stats", dir);
	assert_int_equal(outfile_open(&of, path, 0), 0);
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
		cmocka_unit_test(test_parse_mode),
	};

	return RUN_IN_TMPDIR(tests, dir);
}
