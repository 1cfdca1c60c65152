// SPDX-License-Identifier: GPL-2.0
/* KVM exit-reason names: parsed from a kvm_exit tracepoint format, or from built-in tables. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exitnames.h"

struct exitname_ent {
	int64_t code;
	const char *name;
};

/* VMX basic exit reasons (arch/x86/include/uapi/asm/vmx.h), as Linux 6.18 prints them. */
static const struct exitname_ent vmx_names[] = {
	{ 0, "EXCEPTION_NMI" },
	{ 1, "EXTERNAL_INTERRUPT" },
	{ 2, "TRIPLE_FAULT" },
	{ 3, "INIT_SIGNAL" },
	{ 4, "SIPI_SIGNAL" },
	{ 7, "INTERRUPT_WINDOW" },
	{ 8, "NMI_WINDOW" },
	{ 9, "TASK_SWITCH" },
	{ 10, "CPUID" },
	{ 12, "HLT" },
	{ 13, "INVD" },
	{ 14, "INVLPG" },
	{ 15, "RDPMC" },
	{ 16, "RDTSC" },
	{ 18, "VMCALL" },
	{ 19, "VMCLEAR" },
	{ 20, "VMLAUNCH" },
	{ 21, "VMPTRLD" },
	{ 22, "VMPTRST" },
	{ 23, "VMREAD" },
	{ 24, "VMRESUME" },
	{ 25, "VMWRITE" },
	{ 26, "VMOFF" },
	{ 27, "VMON" },
	{ 28, "CR_ACCESS" },
	{ 29, "DR_ACCESS" },
	{ 30, "IO_INSTRUCTION" },
	{ 31, "MSR_READ" },
	{ 32, "MSR_WRITE" },
	{ 33, "INVALID_STATE" },
	{ 34, "MSR_LOAD_FAIL" },
	{ 36, "MWAIT_INSTRUCTION" },
	{ 37, "MONITOR_TRAP_FLAG" },
	{ 39, "MONITOR_INSTRUCTION" },
	{ 40, "PAUSE_INSTRUCTION" },
	{ 41, "MCE_DURING_VMENTRY" },
	{ 43, "TPR_BELOW_THRESHOLD" },
	{ 44, "APIC_ACCESS" },
	{ 45, "EOI_INDUCED" },
	{ 46, "GDTR_IDTR" },
	{ 47, "LDTR_TR" },
	{ 48, "EPT_VIOLATION" },
	{ 49, "EPT_MISCONFIG" },
	{ 50, "INVEPT" },
	{ 51, "RDTSCP" },
	{ 52, "PREEMPTION_TIMER" },
	{ 53, "INVVPID" },
	{ 54, "WBINVD" },
	{ 55, "XSETBV" },
	{ 56, "APIC_WRITE" },
	{ 57, "RDRAND" },
	{ 58, "INVPCID" },
	{ 59, "VMFUNC" },
	{ 60, "ENCLS" },
	{ 61, "RDSEED" },
	{ 62, "PML_FULL" },
	{ 63, "XSAVES" },
	{ 64, "XRSTORS" },
	{ 67, "UMWAIT" },
	{ 68, "TPAUSE" },
	{ 74, "BUS_LOCK" },
	{ 75, "NOTIFY" },
	{ 77, "TDCALL" },
	{ 84, "MSR_READ_IMM" },
	{ 85, "MSR_WRITE_IMM" },
};

/* SVM exit codes (arch/x86/include/uapi/asm/svm.h), as Linux 6.18 prints them. */
static const struct exitname_ent svm_names[] = {
	{ 0x000, "read_cr0" },
	{ 0x002, "read_cr2" },
	{ 0x003, "read_cr3" },
	{ 0x004, "read_cr4" },
	{ 0x008, "read_cr8" },
	{ 0x010, "write_cr0" },
	{ 0x012, "write_cr2" },
	{ 0x013, "write_cr3" },
	{ 0x014, "write_cr4" },
	{ 0x018, "write_cr8" },
	{ 0x020, "read_dr0" },
	{ 0x021, "read_dr1" },
	{ 0x022, "read_dr2" },
	{ 0x023, "read_dr3" },
	{ 0x024, "read_dr4" },
	{ 0x025, "read_dr5" },
	{ 0x026, "read_dr6" },
	{ 0x027, "read_dr7" },
	{ 0x030, "write_dr0" },
	{ 0x031, "write_dr1" },
	{ 0x032, "write_dr2" },
	{ 0x033, "write_dr3" },
	{ 0x034, "write_dr4" },
	{ 0x035, "write_dr5" },
	{ 0x036, "write_dr6" },
	{ 0x037, "write_dr7" },
	{ 0x040 + 0, "DE excp" },
	{ 0x040 + 1, "DB excp" },
	{ 0x040 + 3, "BP excp" },
	{ 0x040 + 4, "OF excp" },
	{ 0x040 + 5, "BR excp" },
	{ 0x040 + 6, "UD excp" },
	{ 0x040 + 7, "NM excp" },
	{ 0x040 + 8, "DF excp" },
	{ 0x040 + 10, "TS excp" },
	{ 0x040 + 11, "NP excp" },
	{ 0x040 + 12, "SS excp" },
	{ 0x040 + 13, "GP excp" },
	{ 0x040 + 14, "PF excp" },
	{ 0x040 + 16, "MF excp" },
	{ 0x040 + 17, "AC excp" },
	{ 0x040 + 18, "MC excp" },
	{ 0x040 + 19, "XF excp" },
	{ 0x060, "interrupt" },
	{ 0x061, "nmi" },
	{ 0x062, "smi" },
	{ 0x063, "init" },
	{ 0x064, "vintr" },
	{ 0x065, "cr0_sel_write" },
	{ 0x066, "read_idtr" },
	{ 0x067, "read_gdtr" },
	{ 0x068, "read_ldtr" },
	{ 0x069, "read_rt" },
	{ 0x06a, "write_idtr" },
	{ 0x06b, "write_gdtr" },
	{ 0x06c, "write_ldtr" },
	{ 0x06d, "write_rt" },
	{ 0x06e, "rdtsc" },
	{ 0x06f, "rdpmc" },
	{ 0x070, "pushf" },
	{ 0x071, "popf" },
	{ 0x072, "cpuid" },
	{ 0x073, "rsm" },
	{ 0x074, "iret" },
	{ 0x075, "swint" },
	{ 0x076, "invd" },
	{ 0x077, "pause" },
	{ 0x078, "hlt" },
	{ 0x079, "invlpg" },
	{ 0x07a, "invlpga" },
	{ 0x07b, "io" },
	{ 0x07c, "msr" },
	{ 0x07d, "task_switch" },
	{ 0x07e, "ferr_freeze" },
	{ 0x07f, "shutdown" },
	{ 0x080, "vmrun" },
	{ 0x081, "hypercall" },
	{ 0x082, "vmload" },
	{ 0x083, "vmsave" },
	{ 0x084, "stgi" },
	{ 0x085, "clgi" },
	{ 0x086, "skinit" },
	{ 0x087, "rdtscp" },
	{ 0x088, "icebp" },
	{ 0x089, "wbinvd" },
	{ 0x08a, "monitor" },
	{ 0x08b, "mwait" },
	{ 0x08d, "xsetbv" },
	{ 0x08f, "write_efer_trap" },
	{ 0x090, "write_cr0_trap" },
	{ 0x094, "write_cr4_trap" },
	{ 0x098, "write_cr8_trap" },
	{ 0x0a2, "invpcid" },
	{ 0x0a5, "buslock" },
	{ 0x0a6, "idle-halt" },
	{ 0x400, "npf" },
	{ 0x401, "avic_incomplete_ipi" },
	{ 0x402, "avic_unaccelerated_access" },
	{ 0x403, "vmgexit" },
	{ 0x80000001, "vmgexit_mmio_read" },
	{ 0x80000002, "vmgexit_mmio_write" },
	{ 0x80000003, "vmgexit_nmi_complete" },
	{ 0x80000004, "vmgexit_ap_hlt_loop" },
	{ 0x80000005, "vmgexit_ap_jump_table" },
	{ 0x80000010, "vmgexit_page_state_change" },
	{ 0x80000011, "vmgexit_guest_request" },
	{ 0x80000012, "vmgexit_ext_guest_request" },
	{ 0x80000013, "vmgexit_ap_creation" },
	{ 0x8000fffd, "vmgexit_hypervisor_feature" },
	{ -1, "invalid_guest_state" },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

const char *exitnames_builtin(uint32_t isa, uint32_t code)
{
	const struct exitname_ent *t = isa == PWZ_ISA_SVM ? svm_names : vmx_names;
	size_t n = isa == PWZ_ISA_SVM ? ARRAY_LEN(svm_names) : ARRAY_LEN(vmx_names);

	if (isa != PWZ_ISA_VMX && isa != PWZ_ISA_SVM)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((uint32_t)t[i].code == code)
			return t[i].name;
	return NULL;
}

int exitnames_add_builtin(struct pwz_meta *meta)
{
	int added = 0;

	for (size_t i = 0; i < ARRAY_LEN(vmx_names); i++, added++)
		if (pwz_meta_add_exit_name(meta, PWZ_ISA_VMX, (uint32_t)vmx_names[i].code,
					   vmx_names[i].name))
			return -ENOMEM;
	for (size_t i = 0; i < ARRAY_LEN(svm_names); i++, added++)
		if (pwz_meta_add_exit_name(meta, PWZ_ISA_SVM, (uint32_t)svm_names[i].code,
					   svm_names[i].name))
			return -ENOMEM;
	return added;
}

/* A cursor over the format text: never reads past end. */
struct cursor {
	const char *p;
	const char *end;
};

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end && isspace((unsigned char)*c->p))
		c->p++;
}

static bool accept(struct cursor *c, char ch)
{
	skip_ws(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* Parses an integer literal (decimal or 0x hex) into *v. */
static bool parse_int(struct cursor *c, int64_t *v)
{
	uint64_t x = 0;
	int base = 10, digits = 0;

	skip_ws(c);
	if (c->end - c->p >= 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X')) {
		base = 16;
		c->p += 2;
	}
	while (c->p < c->end && isxdigit((unsigned char)*c->p)) {
		unsigned char ch = (unsigned char)*c->p;
		int d = isdigit(ch) ? ch - '0' : tolower(ch) - 'a' + 10;

		/* a literal beyond INT64_MAX is refused, not wrapped */
		if (d >= base || x > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		x = x * (uint64_t)base + (uint64_t)d;
		c->p++;
		digits++;
	}
	*v = (int64_t)x;
	return digits > 0;
}

/* Evaluates "a", "-a", "a + b - c" ... of integer literals up to the next ',' (not consumed). */
static bool parse_code(struct cursor *c, int64_t *v)
{
	int64_t sum = 0, term;
	int sign = 1;

	if (accept(c, '-'))
		sign = -1;
	for (;;) {
		if (!parse_int(c, &term))
			return false;
		sum += sign * term;
		if (accept(c, '+'))
			sign = 1;
		else if (accept(c, '-'))
			sign = -1;
		else
			break;
	}
	*v = sum;
	return true;
}

/* Parses a C string literal into out (escapes taken literally but for \" and \\). */
static bool parse_string(struct cursor *c, char *out, size_t outlen)
{
	size_t n = 0;

	if (!accept(c, '"'))
		return false;
	while (c->p < c->end && *c->p != '"') {
		char ch = *c->p++;

		if (ch == '\\' && c->p < c->end)
			ch = *c->p++;
		if (n + 1 < outlen)
			out[n++] = ch;
	}
	if (c->p >= c->end)
		return false;
	c->p++;
	out[n] = '\0';
	return true;
}

/* Skips the first argument of __print_symbolic( up to its ',' at depth 0 (consumed). */
static bool skip_first_arg(struct cursor *c)
{
	int depth = 0;

	while (c->p < c->end) {
		char ch = *c->p++;

		if (ch == '(')
			depth++;
		else if (ch == ')' && depth-- == 0)
			return false;
		else if (ch == ',' && depth == 0)
			return true;
	}
	return false;
}

/* Parses the { code, "name" } entries of one table; returns the number added or -errno. */
static int parse_table(struct cursor *c, struct pwz_meta *meta, uint32_t isa)
{
	char name[64];
	int64_t code;
	int added = 0, ret;

	if (!skip_first_arg(c))
		return -EINVAL;
	for (;;) {
		if (!accept(c, '{'))
			return -EINVAL;
		if (!parse_code(c, &code) || !accept(c, ',') ||
		    !parse_string(c, name, sizeof(name)) || !accept(c, '}'))
			return -EINVAL;
		if ((ret = pwz_meta_add_exit_name(meta, isa, (uint32_t)code, name)))
			return ret == -E2BIG ? -EINVAL : ret;
		added++;
		if (accept(c, ')'))
			return added;
		if (!accept(c, ','))
			return -EINVAL;
	}
}

static const char *find_in(const char *hay, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = hay; p + n <= end; p++)
		if (!memcmp(p, needle, n))
			return p;
	return NULL;
}

int exitnames_parse_format(struct pwz_meta *meta, const char *text, size_t len, char *err,
			   size_t errlen)
{
	static const char tag[] = "__print_symbolic(";
	const char *end = text + len, *p = text, *fmt, *hit;
	bool has_isa;
	int total = 0, tables = 0;

	fmt = find_in(text, end, "print fmt:");
	if (fmt)
		p = fmt;
	has_isa = find_in(p, end, "REC->isa") != NULL;
	while ((hit = find_in(p, end, tag))) {
		struct cursor c = { hit + sizeof(tag) - 1, end };
		/* VMX when no isa guard, or when "isa == 1" guards this table (between the end of
		 * the previous table and this one). */
		uint32_t isa = !has_isa || find_in(p, hit, "isa == 1") ? PWZ_ISA_VMX : PWZ_ISA_SVM;
		int n = parse_table(&c, meta, isa);

		if (n == -ENOMEM) {
			snprintf(err, errlen, "out of memory reading exit names");
			return n;
		}
		if (n < 0) {
			snprintf(err, errlen, "kvm_exit format: bad __print_symbolic table at offset %zu",
				 (size_t)(c.p - text));
			return n;
		}
		total += n;
		tables++;
		p = c.p;
	}
	if (!tables) {
		snprintf(err, errlen, "kvm_exit format: no __print_symbolic table of exit reasons");
		return -EINVAL;
	}
	return total;
}
