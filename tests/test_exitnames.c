// SPDX-License-Identifier: GPL-2.0
/* Unit tests of user/lib/exitnames.c: exit names from kvm_exit formats (6.18, 6.1) and built in. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "exitnames.h"

#ifndef PWZ_TESTDATA
#define PWZ_TESTDATA "tests/data"
#endif

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = n;
	return buf;
}

static int count_isa(const struct pwz_meta *m, uint32_t isa)
{
	int n = 0;

	for (uint32_t i = 0; i < m->nr_exit_names; i++)
		n += m->exit_names[i].isa == isa;
	return n;
}

/* Counts "{ " entries of each __print_symbolic table independently of the parser. */
static void count_entries(const char *text, int *vmx, int *svm)
{
	const char *p = strstr(text, "__print_symbolic(");
	int *cur = vmx;

	*vmx = *svm = 0;
	while (p) {
		const char *next = strstr(p + 1, "__print_symbolic(");
		const char *end = strstr(p, "})");

		for (const char *q = p; q && q < end; q = strchr(q + 1, '{'))
			if (*q == '{')
				(*cur)++;
		cur = svm;
		p = next;
	}
}

static void test_this_kernel_format(void **state)
{
	struct pwz_meta m = { 0 };
	char err[256] = "";
	size_t len;
	char *text = slurp(PWZ_TESTDATA "/kvm_exit.format.6.18.txt", &len);
	int n, vmx, svm;

	(void)state;
	assert_non_null(text);
	count_entries(text, &vmx, &svm);
	n = exitnames_parse_format(&m, text, len, err, sizeof(err));
	assert_int_equal(n, vmx + svm);
	assert_int_equal(count_isa(&m, PWZ_ISA_VMX), vmx);
	assert_int_equal(count_isa(&m, PWZ_ISA_SVM), svm);
	assert_true(vmx > 50 && svm > 100);
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_VMX, 12), "HLT");
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_VMX, 30), "IO_INSTRUCTION");
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0x7b), "io");
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0x72), "cpuid");
	/* "0x040 + 14" is evaluated */
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0x4e), "PF excp");
	/* "-1" is kept as the u32 the tracepoint would carry */
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0xffffffffu), "invalid_guest_state");
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0x8000fffdu),
			    "vmgexit_hypervisor_feature");
	/* a VMX code is not an SVM one */
	assert_null(pwz_meta_exit_name(&m, PWZ_ISA_VMX, 0x7b));
	pwz_meta_free(&m);
	free(text);
}

static void test_61_format(void **state)
{
	struct pwz_meta m = { 0 };
	char err[256] = "";
	size_t len;
	char *text = slurp(PWZ_TESTDATA "/perf/nested_kvm_exit.format.txt", &len);
	int n, vmx, svm;

	(void)state;
	if (!text)
		skip();
	count_entries(text, &vmx, &svm);
	n = exitnames_parse_format(&m, text, len, err, sizeof(err));
	assert_int_equal(n, vmx + svm);
	assert_int_equal(count_isa(&m, PWZ_ISA_SVM), svm);
	/* the codes nested_kvm_a.data's vCPUs exited with */
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0x7b), "io");
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0x72), "cpuid");
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0x400), "npf");
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0x78), "hlt");
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0x60), "interrupt");
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_VMX, 10), "CPUID");
	pwz_meta_free(&m);
	free(text);
}

static void test_print_fmt_only_no_isa(void **state)
{
	static const char fmt[] = "print fmt: \"vcpu %u reason %s\", REC->vcpu_id, "
				  "__print_symbolic(REC->exit_reason, { 0, \"EXCEPTION_NMI\" }, "
				  "{ 0x1e, \"IO_INSTRUCTION\" }, { 10 + 2, \"HLT\" })";
	struct pwz_meta m = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(exitnames_parse_format(&m, fmt, strlen(fmt), err, sizeof(err)), 3);
	assert_int_equal(count_isa(&m, PWZ_ISA_VMX), 3);
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_VMX, 30), "IO_INSTRUCTION");
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_VMX, 12), "HLT");
	pwz_meta_free(&m);
}

static void test_bad_formats(void **state)
{
	static const char *bad[] = {
		"",
		"print fmt: \"vcpu %u\", REC->vcpu_id",
		"print fmt: \"%s\", __print_symbolic(REC->exit_reason, { 0, \"A\" }",
		"print fmt: \"%s\", __print_symbolic(REC->exit_reason, { 0, \"A",
		"print fmt: \"%s\", __print_symbolic(REC->exit_reason, { zz, \"A\" })",
		"print fmt: \"%s\", __print_symbolic(REC->exit_reason",
		"__print_symbolic(",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pwz_meta m = { 0 };
		char err[256] = "";
		int n = exitnames_parse_format(&m, bad[i], strlen(bad[i]), err, sizeof(err));

		assert_int_equal(n, -EINVAL);
		assert_true(strlen(err) > 10);
		assert_non_null(strstr(err, "kvm_exit format"));
		pwz_meta_free(&m);
	}
}

static void test_builtin(void **state)
{
	struct pwz_meta m = { 0 };
	int n;

	(void)state;
	assert_string_equal(exitnames_builtin(PWZ_ISA_VMX, 12), "HLT");
	assert_string_equal(exitnames_builtin(PWZ_ISA_VMX, 48), "EPT_VIOLATION");
	assert_string_equal(exitnames_builtin(PWZ_ISA_SVM, 0x400), "npf");
	assert_null(exitnames_builtin(PWZ_ISA_VMX, 9999));
	assert_null(exitnames_builtin(3, 12));
	n = exitnames_add_builtin(&m);
	assert_int_equal((uint32_t)n, m.nr_exit_names);
	assert_true(count_isa(&m, PWZ_ISA_VMX) > 50);
	assert_string_equal(pwz_meta_exit_name(&m, PWZ_ISA_SVM, 0x7b), "io");
	pwz_meta_free(&m);
}

/* The built-in tables agree with this kernel's format for every code the format names. */
static void test_builtin_matches_format(void **state)
{
	struct pwz_meta m = { 0 };
	char err[256];
	size_t len;
	char *text = slurp(PWZ_TESTDATA "/kvm_exit.format.6.18.txt", &len);

	(void)state;
	assert_non_null(text);
	assert_true(exitnames_parse_format(&m, text, len, err, sizeof(err)) > 0);
	for (uint32_t i = 0; i < m.nr_exit_names; i++) {
		const char *b = exitnames_builtin(m.exit_names[i].isa, m.exit_names[i].code);

		assert_non_null(b);
		assert_string_equal(b, m.exit_names[i].name);
	}
	pwz_meta_free(&m);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_this_kernel_format),
		cmocka_unit_test(test_61_format),
		cmocka_unit_test(test_print_fmt_only_no_isa),
		cmocka_unit_test(test_bad_formats),
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_builtin_matches_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
