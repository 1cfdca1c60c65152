// SPDX-License-Identifier: GPL-2.0
/* A minimal KVM guest: one VM, one vCPU running 16-bit real-mode code that makes a requested
 * number of exits of each kind, so that a tracer can be checked against known counts. */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define USAGE \
	"usage: kvm-guest [-name VM] [-c COMM] [-s US | -k US] KIND COUNT [KIND COUNT]...\n" \
	"Runs one VM with one vCPU whose real-mode code makes exactly COUNT exits of each KIND,\n" \
	"in the order given, then one final hlt.\n" \
	"  io      'out 0x10, al'        (SVM exit 0x7b io, VMX 30 IO_INSTRUCTION)\n" \
	"  cpuid   'cpuid' with eax = 0  (SVM exit 0x72 cpuid, VMX 10 CPUID)\n" \
	"  hlt     'hlt'                 (SVM exit 0x78 hlt, VMX 12 HLT)\n" \
	"  -name VM  accepted and ignored, as QEMU's '-name guest=VM': a tracer that names QEMU\n" \
	"            vCPU threads from the command line shows the vCPU thread as VM.vcpu0\n" \
	"  -c COMM   name of the vCPU thread (default \"CPU 0/KVM\", as QEMU names it)\n" \
	"  -s US     after each hlt but the final one, the vCPU thread sleeps US microseconds\n" \
	"            before its next KVM_RUN (as a VMM waits for an interrupt)\n" \
	"  -k US     the VM has KVM's in-kernel interrupt controller (as QEMU's): each hlt is\n" \
	"            handled in the kernel (kvm_vcpu_halt: it polls, then blocks) until IRQ 0,\n" \
	"            which the main thread raises every US microseconds (1 to 1000000), the\n" \
	"            guest's handler acknowledging it; the code ends with 'out 0x11, al' instead\n" \
	"            of a final hlt\n" \
	"Prints one line: kvm-guest pid=P tid=T sched_run_ns=N run_delay_ns=N timeslices=N\n" \
	"schedstat_mono_ns=N sleep_us=N slept=N io=N cpuid=N hlt=N runs=N, where tid is the\n" \
	"vCPU thread (the one that calls KVM_RUN, where kvm_exit and kvm_entry fire), hlt counts\n" \
	"the final hlt (with -k: the hlts, all in the kernel), runs is the number of KVM_RUN calls,\n" \
	"slept the -s sleeps the thread switched out for; sched_run_ns, run_delay_ns and\n" \
	"timeslices are the vCPU thread's /proc/self/task/TID/schedstat at the final hlt (0 when\n" \
	"unreadable), schedstat_mono_ns the CLOCK_MONOTONIC time that reading holds for; with -k\n" \
	"the line ends with irqs=N, the IRQs raised.\n" \
	"Example: kvm-guest io 700 cpuid 300\n"

#define GUEST_MEM_SIZE	0x10000		/* 64 KiB at guest physical 0 */
#define CODE_START	0x1000		/* where the code is loaded and starts (cs = 0) */
#define IO_PORT		0x10		/* the port 'out' writes to; nothing emulates it */
#define END_PORT	0x11		/* -k: the code's last 'out', in place of the final hlt */
#define IRQ0_VECTOR	0x08		/* -k: the vector the guest programs the PIC to give IRQ 0 */
#define HANDLER_START	0x0800		/* -k: IRQ 0's handler (cs = 0) */
#define MAX_STEPS	64		/* KIND COUNT pairs accepted */
#define MAX_COUNT	100000000ULL	/* a sane bound per step */

enum kind { KIND_IO, KIND_CPUID, KIND_HLT, NR_KINDS };
static const char *const kind_names[NR_KINDS] = { "io", "cpuid", "hlt" };

struct step {
	enum kind kind;
	uint32_t count;
};

/* Everything the vCPU thread needs and reports back. */
struct guest {
	int vcpu_fd;
	struct kvm_run *run;		/* the vCPU's shared kvm_run page */
	uint8_t *mem;			/* guest memory, GUEST_MEM_SIZE bytes */
	uint32_t code_end;		/* guest address just past the final hlt */
	const char *comm;		/* vCPU thread name */
	unsigned long halt_us;		/* -s: sleep after each hlt but the final one */
	unsigned long irq_us;		/* -k: the in-kernel irqchip, IRQ 0 every irq_us */
	int done;			/* -k: the vCPU thread stopped (atomic) */
	uint64_t irqs;			/* -k: IRQs raised */
	pid_t tid;			/* vCPU thread id */
	uint64_t seen[NR_KINDS];	/* exits seen in userspace (io and hlt; cpuid stays in KVM) */
	uint64_t runs;			/* KVM_RUN calls */
	uint64_t slept;			/* -s sleeps that switched the thread out (below) */
	unsigned long long sched[3];	/* the vCPU thread's schedstat at the final hlt: run ns,
					 * run_delay ns, timeslices; 0 when unreadable */
	unsigned long long sched_mono_ns;	/* CLOCK_MONOTONIC when it was read */
	char err[256];			/* why the run failed; "" on success */
};

static int parse_steps(int argc, char **argv, struct step *steps, int *nr)
{
	*nr = 0;
	if (argc == 0 || argc % 2) {
		fprintf(stderr, "kvm-guest: expected KIND COUNT pairs\n%s", USAGE);
		return -1;
	}
	for (int i = 0; i < argc; i += 2) {
		int k;
		char *end;
		unsigned long long n;

		for (k = 0; k < NR_KINDS; k++)
			if (!strcmp(argv[i], kind_names[k]))
				break;
		if (k == NR_KINDS) {
			fprintf(stderr, "kvm-guest: unknown exit kind '%s' (use io, cpuid or hlt)\n",
				argv[i]);
			return -1;
		}
		errno = 0;
		n = strtoull(argv[i + 1], &end, 10);
		if (errno || end == argv[i + 1] || *end || argv[i + 1][0] == '-' || n > MAX_COUNT) {
			fprintf(stderr, "kvm-guest: bad count '%s' for %s (0 to %llu)\n", argv[i + 1],
				argv[i], MAX_COUNT);
			return -1;
		}
		if (*nr == MAX_STEPS) {
			fprintf(stderr, "kvm-guest: more than %d KIND COUNT pairs\n", MAX_STEPS);
			return -1;
		}
		steps[*nr].kind = k;
		steps[*nr].count = n;
		(*nr)++;
	}
	return 0;
}

static int emit(uint8_t *code, uint32_t *pos, uint32_t limit, const uint8_t *bytes, uint32_t len)
{
	if (*pos + len > limit)
		return -1;
	memcpy(code + *pos, bytes, len);
	*pos += len;
	return 0;
}

/*
 * Writes the guest code at CODE_START: per step "mov esi, COUNT; L: <insn>; dec esi; jnz L"
 * (esi survives cpuid, which clobbers eax..edx), then a final hlt; with irqchip (-k) the
 * IRQ 0 prologue (assemble_irq()) first and 'out END_PORT, al' last. Returns the guest
 * address past the last instruction, or 0 when the code does not fit.
 */
/*
 * -k: IRQ 0's handler at HANDLER_START ("push ax; mov al, 0x20; out 0x20, al; pop ax; iret":
 * the end of interrupt to the PIC) and its vector in the real-mode table; the code's
 * prologue at *pos: the PIC programmed to give IRQ 0 vector IRQ0_VECTOR, every other line
 * masked, then sti. Returns 0, or -1 when it does not fit.
 */
static int assemble_irq(uint8_t *mem, uint32_t *pos)
{
	static const uint8_t handler[] = { 0x50, 0xb0, 0x20, 0xe6, 0x20, 0x58, 0xcf };
	static const uint8_t pic_init[] = {
		0xb0, 0x11, 0xe6, 0x20,			/* ICW1: edge, cascade, ICW4 */
		0xb0, IRQ0_VECTOR, 0xe6, 0x21,		/* ICW2: vector base */
		0xb0, 0x04, 0xe6, 0x21,			/* ICW3: a slave on line 2 */
		0xb0, 0x01, 0xe6, 0x21,			/* ICW4: 8086 mode */
		0xb0, 0xfe, 0xe6, 0x21,			/* OCW1: IRQ 0 only */
		0xfb,					/* sti */
	};
	uint16_t vec[2] = { HANDLER_START, 0 };	/* offset, segment */

	memcpy(mem + HANDLER_START, handler, sizeof(handler));
	memcpy(mem + IRQ0_VECTOR * 4, vec, sizeof(vec));
	return emit(mem, pos, GUEST_MEM_SIZE, pic_init, sizeof(pic_init));
}

static uint32_t assemble(uint8_t *mem, const struct step *steps, int nr, bool irqchip)
{
	static const uint8_t end[] = { 0xe6, END_PORT };		/* out END_PORT, al */
	static const uint8_t io[] = { 0xe6, IO_PORT };			/* out IO_PORT, al */
	static const uint8_t cpuid[] = { 0x66, 0x31, 0xc0, 0x0f, 0xa2 };	/* xor eax,eax; cpuid */
	static const uint8_t hlt[] = { 0xf4 };				/* hlt */
	static const uint8_t dec_esi[] = { 0x66, 0x4e };		/* dec esi */
	uint32_t pos = CODE_START;

	if (irqchip && assemble_irq(mem, &pos))
		return 0;
	for (int i = 0; i < nr; i++) {
		const uint8_t *insn = steps[i].kind == KIND_IO ? io :
				      steps[i].kind == KIND_CPUID ? cpuid : hlt;
		uint32_t len = steps[i].kind == KIND_IO ? sizeof(io) :
			       steps[i].kind == KIND_CPUID ? sizeof(cpuid) : sizeof(hlt);
		uint8_t mov[6] = { 0x66, 0xbe };			/* mov esi, imm32 */
		uint8_t jnz[2] = { 0x75 };				/* jnz rel8 */
		uint32_t loop;

		if (!steps[i].count)
			continue;
		memcpy(mov + 2, &steps[i].count, 4);
		if (emit(mem, &pos, GUEST_MEM_SIZE, mov, sizeof(mov)))
			return 0;
		loop = pos;
		if (emit(mem, &pos, GUEST_MEM_SIZE, insn, len) ||
		    emit(mem, &pos, GUEST_MEM_SIZE, dec_esi, sizeof(dec_esi)))
			return 0;
		jnz[1] = (uint8_t)(int8_t)((int)loop - (int)(pos + 2));
		if (emit(mem, &pos, GUEST_MEM_SIZE, jnz, sizeof(jnz)))
			return 0;
	}
	if (irqchip ? emit(mem, &pos, GUEST_MEM_SIZE, end, sizeof(end)) :
		      emit(mem, &pos, GUEST_MEM_SIZE, hlt, sizeof(hlt)))
		return 0;
	return pos;
}

static bool schedstat3(const char *path, unsigned long long v[3])
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%llu %llu %llu", &v[0], &v[1], &v[2]) == 3;
	fclose(f);
	return ok;
}

/*
 * The kernel's accounting of the vCPU thread so far (/proc/self/task/TID/schedstat) and the
 * CLOCK_MONOTONIC time it holds for: the clock is read between two readings of the file that
 * show the same timeslices and run_delay (no switch-in between them; reading a /proc file can
 * take milliseconds under TCG, and the thread may be preempted meanwhile). Tries 20 times.
 */
static void read_schedstat(struct guest *g)
{
	unsigned long long a[3], b[3];
	char path[64];
	struct timespec ts;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)g->tid);
	for (int i = 0; i < 20; i++) {
		if (!schedstat3(path, a))
			return;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (!schedstat3(path, b))
			return;
		if (a[1] == b[1] && a[2] == b[2]) {
			memcpy(g->sched, a, sizeof(a));
			g->sched_mono_ns = (unsigned long long)ts.tv_sec * 1000000000ull +
					   (unsigned long long)ts.tv_nsec;
			return;
		}
	}
}

/* Blocks every signal the calling thread can block. */
static void block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

/* Runs the guest until its end (the final hlt, or with -k END_PORT), counting what reaches
 * userspace; g->err says why it stopped short. */
/*
 * -s: sleeps g->halt_us and counts in g->slept the sleep if the thread switched out for it (its
 * voluntary switches grew). One whose timer expires before the thread blocks (its CPU held
 * elsewhere, as a host holds a virtual CPU, from the arming on) returns without a switch.
 */
static void sleep_counted(struct guest *g)
{
	struct rusage before, after;
	int known = getrusage(RUSAGE_THREAD, &before) == 0;

	usleep(g->halt_us);
	if (known && getrusage(RUSAGE_THREAD, &after) == 0 && after.ru_nvcsw > before.ru_nvcsw)
		g->slept++;
}

static void run_guest(struct guest *g)
{
	struct kvm_regs regs;

	for (;;) {
		if (ioctl(g->vcpu_fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(g->err, sizeof(g->err), "KVM_RUN: %s", strerror(errno));
			return;
		}
		g->runs++;
		switch (g->run->exit_reason) {
		case KVM_EXIT_IO:
			if (g->irq_us && g->run->io.port == END_PORT) {
				read_schedstat(g);
				return;
			}
			if (g->run->io.port != IO_PORT || g->run->io.direction != KVM_EXIT_IO_OUT) {
				snprintf(g->err, sizeof(g->err), "unexpected io exit: port 0x%x dir %u",
					 g->run->io.port, g->run->io.direction);
				return;
			}
			g->seen[KIND_IO] += g->run->io.count;
			break;
		case KVM_EXIT_HLT:
			g->seen[KIND_HLT]++;
			if (ioctl(g->vcpu_fd, KVM_GET_REGS, &regs) < 0) {
				snprintf(g->err, sizeof(g->err), "KVM_GET_REGS: %s", strerror(errno));
				return;
			}
			if (regs.rip == g->code_end) {
				read_schedstat(g);
				return;
			}
			if (g->halt_us)
				sleep_counted(g);
			break;
		case KVM_EXIT_INTR:
			break;
		default:
			snprintf(g->err, sizeof(g->err),
				 "unexpected exit to userspace: reason %u (hardware reason 0x%llx)",
				 g->run->exit_reason,
				 (unsigned long long)g->run->hw.hardware_exit_reason);
			return;
		}
	}
}

/* The vCPU thread: signals go to the main thread, so that none ends a run (EINTR) or cuts a
 * -s sleep short, and its counts and sleeps are the ones asked. */
static void *vcpu_main(void *arg)
{
	struct guest *g = arg;

	g->tid = (pid_t)syscall(SYS_gettid);
	prctl(PR_SET_NAME, g->comm, 0, 0, 0);
	block_signals();
	run_guest(g);
	__atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* -k: raises IRQ 0 (an edge on the PIC's line 0) every g->irq_us until the vCPU is done. */
static int raise_irqs(struct guest *g, int vm_fd)
{
	struct timespec ts = { (time_t)(g->irq_us / 1000000), (long)(g->irq_us % 1000000) * 1000 };

	while (!__atomic_load_n(&g->done, __ATOMIC_ACQUIRE)) {
		struct kvm_irq_level up = { .irq = 0, .level = 1 }, down = { .irq = 0, .level = 0 };

		nanosleep(&ts, NULL);
		if (ioctl(vm_fd, KVM_IRQ_LINE, &up) < 0 || ioctl(vm_fd, KVM_IRQ_LINE, &down) < 0) {
			perror("kvm-guest: KVM_IRQ_LINE");
			return -1;
		}
		g->irqs++;
	}
	return 0;
}

static int setup_vcpu(struct guest *g, int kvm_fd, int vm_fd)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = GUEST_MEM_SIZE,
		.userspace_addr = (uintptr_t)g->mem,
	};
	struct kvm_sregs sregs;
	struct kvm_regs regs = { .rip = CODE_START, .rflags = 0x2 };
	int run_size;

	if (ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		perror("kvm-guest: KVM_SET_USER_MEMORY_REGION");
		return -1;
	}
	g->vcpu_fd = ioctl(vm_fd, KVM_CREATE_VCPU, 0);
	if (g->vcpu_fd < 0) {
		perror("kvm-guest: KVM_CREATE_VCPU");
		return -1;
	}
	run_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size < (int)sizeof(struct kvm_run)) {
		perror("kvm-guest: KVM_GET_VCPU_MMAP_SIZE");
		return -1;
	}
	g->run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, g->vcpu_fd, 0);
	if (g->run == MAP_FAILED) {
		perror("kvm-guest: mmap kvm_run");
		return -1;
	}
	if (ioctl(g->vcpu_fd, KVM_GET_SREGS, &sregs) < 0) {
		perror("kvm-guest: KVM_GET_SREGS");
		return -1;
	}
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(g->vcpu_fd, KVM_SET_SREGS, &sregs) < 0) {
		perror("kvm-guest: KVM_SET_SREGS");
		return -1;
	}
	if (ioctl(g->vcpu_fd, KVM_SET_REGS, &regs) < 0) {
		perror("kvm-guest: KVM_SET_REGS");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct guest g = { .vcpu_fd = -1, .comm = "CPU 0/KVM" };
	struct step steps[MAX_STEPS];
	uint64_t want[NR_KINDS] = { 0 };
	int nr, kvm_fd, vm_fd, api, rc;
	pthread_t th;
	int opt;

	/* QEMU's "-name VM" first, so that it stays in /proc/PID/cmdline for tracers. */
	if (argc > 2 && !strcmp(argv[1], "-name")) {
		argv[2] = argv[0];
		argv += 2;
		argc -= 2;
	}
	while ((opt = getopt(argc, argv, "+c:s:k:h")) != -1) {
		char *end;

		switch (opt) {
		case 'c':
			g.comm = optarg;
			break;
		case 's':
			errno = 0;
			g.halt_us = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || g.halt_us > 10000000) {
				fprintf(stderr, "kvm-guest: bad -s '%s': microseconds, 0 to 10000000\n",
					optarg);
				return 2;
			}
			break;
		case 'k':
			errno = 0;
			g.irq_us = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !g.irq_us || g.irq_us > 1000000) {
				fprintf(stderr, "kvm-guest: bad -k '%s': microseconds, 1 to 1000000\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(USAGE, stdout);
			return 0;
		default:
			fputs(USAGE, stderr);
			return 2;
		}
	}
	if (g.halt_us && g.irq_us) {
		fputs("kvm-guest: -s and -k exclude each other (with -k no hlt reaches the VMM)\n",
		      stderr);
		return 2;
	}
	if (strlen(g.comm) > 15) {
		fprintf(stderr, "kvm-guest: thread name '%s' is longer than 15 bytes\n", g.comm);
		return 2;
	}
	if (parse_steps(argc - optind, argv + optind, steps, &nr))
		return 2;
	for (int i = 0; i < nr; i++)
		want[steps[i].kind] += steps[i].count;
	if (!g.irq_us)
		want[KIND_HLT]++;	/* the final one */

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0) {
		fprintf(stderr, "kvm-guest: cannot open /dev/kvm: %s (load kvm-intel or kvm-amd)\n",
			strerror(errno));
		return 1;
	}
	api = ioctl(kvm_fd, KVM_GET_API_VERSION, 0);
	if (api != KVM_API_VERSION) {
		fprintf(stderr, "kvm-guest: /dev/kvm API version %d, expected %d\n", api,
			KVM_API_VERSION);
		return 1;
	}
	vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm_fd < 0) {
		perror("kvm-guest: KVM_CREATE_VM");
		return 1;
	}
	g.mem = mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		     0);
	if (g.mem == MAP_FAILED) {
		perror("kvm-guest: mmap guest memory");
		return 1;
	}
	g.code_end = assemble(g.mem, steps, nr, g.irq_us > 0);
	if (!g.code_end) {
		fprintf(stderr, "kvm-guest: too many steps: the code does not fit in %d bytes\n",
			GUEST_MEM_SIZE - CODE_START);
		return 2;
	}
	if (g.irq_us && ioctl(vm_fd, KVM_CREATE_IRQCHIP, 0) < 0) {
		perror("kvm-guest: KVM_CREATE_IRQCHIP");
		return 1;
	}
	if (setup_vcpu(&g, kvm_fd, vm_fd))
		return 1;

	rc = pthread_create(&th, NULL, vcpu_main, &g);
	if (rc) {
		fprintf(stderr, "kvm-guest: cannot start the vCPU thread: %s\n", strerror(rc));
		return 1;
	}
	rc = g.irq_us ? raise_irqs(&g, vm_fd) : 0;
	pthread_join(th, NULL);
	if (rc)
		return 1;
	if (g.err[0]) {
		fprintf(stderr, "kvm-guest: %s\n", g.err);
		return 1;
	}
	/* with -k every hlt stays in the kernel */
	if (g.seen[KIND_IO] != want[KIND_IO] || g.seen[KIND_HLT] != (g.irq_us ? 0 : want[KIND_HLT])) {
		fprintf(stderr, "kvm-guest: saw io=%llu hlt=%llu exits, expected io=%llu hlt=%llu\n",
			(unsigned long long)g.seen[KIND_IO], (unsigned long long)g.seen[KIND_HLT],
			(unsigned long long)want[KIND_IO], (unsigned long long)want[KIND_HLT]);
		return 1;
	}
	printf("kvm-guest pid=%d tid=%d sched_run_ns=%llu run_delay_ns=%llu timeslices=%llu schedstat_mono_ns=%llu sleep_us=%lu slept=%llu io=%llu cpuid=%llu hlt=%llu runs=%llu",
	       (int)getpid(), (int)g.tid, g.sched[0], g.sched[1], g.sched[2], g.sched_mono_ns,
	       g.halt_us, (unsigned long long)g.slept,
	       (unsigned long long)want[KIND_IO], (unsigned long long)want[KIND_CPUID],
	       (unsigned long long)want[KIND_HLT], (unsigned long long)g.runs);
	if (g.irq_us)
		printf(" irqs=%llu", (unsigned long long)g.irqs);
	printf("\n");
	return 0;
}
