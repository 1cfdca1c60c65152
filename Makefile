# SPDX-License-Identifier: GPL-2.0
# pwz: one non-recursive Makefile, one section per product. `make` builds everything and never
# installs or mounts anything; `make deps` installs the Debian packages (tools/deps.sh) and
# mounts tracefs; `make demo` and `make check` run `make deps` first.
# OUTPUT=dir puts objects elsewhere (default .output); BINDIR=dir the programs (default .).
# V=1 shows the commands. SANITIZE=1 builds userspace with ASan and UBSan. STATIC=1 links
# the programs statically. DEPS=build|test|all is what `make deps` installs (default all).

OUTPUT ?= .output
BINDIR ?= .
PREFIX ?= /usr/local
DESTDIR ?=
DEPS ?= all
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

CC ?= gcc
CLANG ?= clang
# Strips the DWARF from the BPF objects (BTF stays) so the skeletons stay small.
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= /usr/sbin/bpftool
ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

WARN := -Wall -Wextra -Wshadow -Wundef -Werror
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -MMD -MP -I$(OUTPUT) -Iuser -Iuser/lib -DPWZ_VERSION='"$(VERSION)"'
LDFLAGS ?=
ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(STATIC),1)
LDFLAGS += -static
endif
# Hardening in every build (`make deb` packages the programs `make` builds): Debian's
# dpkg-buildflags (stack protector, fortified libc calls, RELRO) and immediate binding. The
# fortified calls need optimisation (-O1 or more); under SANITIZE=1 the sanitizers check them.
# The BPF objects and the fuzz harnesses have flags of their own.
HARDEN_CFLAGS := -fstack-protector-strong
ifneq ($(SANITIZE),1)
HARDEN_CFLAGS += -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2
endif
ALL_CFLAGS += $(HARDEN_CFLAGS)
LDFLAGS += -Wl,-z,relro,-z,now

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

PROGS := $(BINDIR)/pwz-bpf $(BINDIR)/pwz-render
TOOLS :=
CHECK_SUITES :=

.PHONY: all deps clean check unit unit-progs live liveview irq vms agree perfetto parquet deb hardening browser vmtest cli vmtest-progs bench bench-render bench-perfetto bench-parquet bench-capture bench-fallbacks \
	fuzz fuzz-progs valgrind-unit install demo screenshot
.DELETE_ON_ERROR:

all: $(PROGS)

$(OUTPUT)/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# ---- library: user/lib/ -> libpwz.a (format, legacy, perf.data import, model, names, summary) ----
LIB_SRCS := $(wildcard user/lib/*.c)
LIB_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(LIB_SRCS))
LIBPWZ := $(OUTPUT)/libpwz.a
# What libpwz.a's objects call (msgpack-c is header-only where the writers use it).
LIB_LIBS := -ltraceevent -llz4 -lzstd -lz -lm

$(LIBPWZ): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# ---- capture: user/ + bpf/ -> pwz-bpf ----
# user/*.c is pwz-bpf (pwz-bpf.c, its main) and its capture modules; the modules are also an
# archive, libcapture.a, that the unit tests link.
CAPTURE_MAIN := user/pwz-bpf.c
CAPTURE_SRCS := $(wildcard user/*.c)
CAPTURE_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(CAPTURE_SRCS))
LIBCAPTURE := $(OUTPUT)/libcapture.a
CAPTURE_LIBS := -lbpf -lelf $(LIB_LIBS)

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
BPF_CFLAGS := -g -O2 -Wall -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux -Ibpf
# BPF objects are inputs of the skeletons, not intermediates to delete.
.SECONDARY: $(BPF_OBJS)

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c bpf/pwz.h bpf/whist.h bpf/log2.h $(wildcard bpf/*.bpf.h) vmlinux/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(Q)$(LLVM_STRIP) -g $@.tmp -o $@ || { rm -f $@.tmp; \
		echo "Makefile: $(LLVM_STRIP) -g failed on $<'s object (install llvm: make deps DEPS=build, or set LLVM_STRIP)" >&2; exit 1; }
	$(Q)rm -f $@.tmp

$(OUTPUT)/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# Only capture code includes a skeleton: its objects wait for all of them.
$(CAPTURE_OBJS): $(BPF_SKELS)

$(LIBCAPTURE): $(filter-out $(OUTPUT)/$(CAPTURE_MAIN:.c=.o),$(CAPTURE_OBJS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BINDIR)/pwz-bpf: $(OUTPUT)/$(CAPTURE_MAIN:.c=.o) $(LIBCAPTURE) $(LIBPWZ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(CAPTURE_LIBS) -o $@

# ---- render: render/ -> pwz-render ----
# render/*.c but its main are librender.a; the dashboards' JS and CSS are embedded with .incbin
# (render/assets/embed.S, paths relative to the repository root).
RENDER_MAIN := render/pwz-render.c
RENDER_SRCS := $(filter-out $(RENDER_MAIN),$(wildcard render/*.c))
RENDER_ASSETS := $(wildcard render/assets/*.js render/assets/*.css)
RENDER_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(RENDER_SRCS)) $(OUTPUT)/render/assets/embed.o
LIBRENDER := $(OUTPUT)/librender.a

$(OUTPUT)/render/assets/embed.o: render/assets/embed.S $(RENDER_ASSETS)
	$(call msg,AS,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -c $< -o $@

$(LIBRENDER): $(RENDER_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Reads files, writes pages: the library's own dependencies, no libbpf.
$(BINDIR)/pwz-render: $(OUTPUT)/$(RENDER_MAIN:.c=.o) $(LIBRENDER) $(LIBPWZ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIB_LIBS) -o $@

# ---- tools: tools/ ----
# gen-synthetic writes synthetic captures (render tests and bench); pwz-workload runs named
# threads with known duty cycles (live tests); kvm-guest makes a known number of KVM exits
# inside the vmtest guest (always static); vcpu-ledgers prints a capture's vCPU ledgers, the
# file's and ledger_fold's (tests/vmtest holds them against each other). tools/deps.sh,
# tools/vmtest and tools/bench/ are scripts or have their own sections.
PWZ_WORKLOAD := $(OUTPUT)/tools/pwz-workload
VCPU_LEDGERS := $(OUTPUT)/tools/vcpu-ledgers
TOOLS += $(BINDIR)/gen-synthetic
all: $(BINDIR)/gen-synthetic $(PWZ_WORKLOAD) $(VCPU_LEDGERS)

$(BINDIR)/gen-synthetic: $(OUTPUT)/tools/gen-synthetic.o $(LIBPWZ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIB_LIBS) -o $@

$(VCPU_LEDGERS): $(OUTPUT)/tools/vcpu-ledgers.o $(LIBPWZ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIB_LIBS) -o $@

$(PWZ_WORKLOAD): $(OUTPUT)/tools/pwz-workload.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ -pthread -o $@

$(OUTPUT)/kvm-guest: tools/kvm-guest.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -static -pthread $< -o $@

deps:
	$(Q)tools/deps.sh $(DEPS)

# ---- tests: unit (tests/test_*.c, cmocka), the suites (tests/<suite>/run), fuzz, sanitize ----
# Every fixture is in tests/data (tests/data/README.md). `make unit` builds and runs the unit
# tests and builds the suites' own programs; `make check` runs `make deps`, the build, the unit
# tests, then every suite of CHECK_SUITES through tests/run-check-suites (each suite's time, and
# at the end every suite's, slowest first). `make unit` also fails when modules of bpf/, user/
# or render/ include each other in a cycle (tools/include-cycles).
TESTDATA ?= $(abspath tests/data)
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(patsubst tests/%.c,$(OUTPUT)/tests/%,$(TEST_SRCS))
TEST_LIBS := $(LIBCAPTURE) $(LIBRENDER) $(LIBPWZ)

$(OUTPUT)/tests/%: tests/%.c tests/truth.h tests/tjson.h $(TEST_LIBS)
	$(call msg,TEST-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Irender -DPWZ_TESTDATA='"$(TESTDATA)"' $< $(TEST_LIBS) \
		$(LDFLAGS) $(TEST_LDFLAGS) -lcmocka $(CAPTURE_LIBS) -o $@
# test_outfile answers renameat2() as a filesystem without RENAME_NOREPLACE does (NFS)
$(OUTPUT)/tests/test_outfile: TEST_LDFLAGS := -Wl,--wrap=renameat2
# test_exitroll fails allocations on purpose
$(OUTPUT)/tests/test_exitroll: TEST_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
# test_serve_metrics hands the metrics frames of its own instead of the kernel's reading
$(OUTPUT)/tests/test_serve_metrics: TEST_LDFLAGS := -Wl,--wrap=live__new,--wrap=live__sample \
	-Wl,--wrap=live__free,--wrap=capture__counters,--wrap=capture__run_delay \
	-Wl,--wrap=task_table__forget_gone,--wrap=task_table__name,--wrap=task_table__cgroup \
	-Wl,--wrap=live__forget_gone,--wrap=task_table__alive

# tests/import/run: a driver that imports a perf.data and dumps the cdict it wrote, and a
# spinner with known duty cycles for its fresh recordings.
IMPORT_TEST := $(OUTPUT)/tests/import/pwz-import-test
IMPORT_SPIN := $(OUTPUT)/tests/import/spin
$(IMPORT_TEST): tests/import/pwz-import-test.c $(LIBPWZ)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIBPWZ) $(LDFLAGS) $(LIB_LIBS) -o $@
$(IMPORT_SPIN): tests/import/spin.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< -lpthread -o $@

# Fuzzing: libFuzzer harnesses (tests/fuzz/fuzz_*.c) link the library sources compiled again
# with clang and the sanitizers into $(FUZZ_OUT) (gcc's libpwz.a cannot be reused). `make fuzz
# FUZZ_SECONDS=N FUZZ_JOBS=J` runs each harness N seconds, J at once; `make check` runs
# tests/fuzz/run, which replays tests/regress/ and fuzzes each harness FUZZ_CHECK_SECONDS (a
# smoke run from the seeds; the long runs are `make fuzz`). tests/badinput/run and
# tests/robust/run feed the real programs hostile files, options, signals and full disks.
FUZZ_OUT := $(OUTPUT)/fuzz
FUZZ_SECONDS ?= 300
FUZZ_JOBS ?= 1
FUZZ_CHECK_SECONDS ?= 6
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 $(WARN) -O1 -g $(FUZZ_SAN) -MMD -MP -Iuser -Iuser/lib -Irender -I$(OUTPUT) \
	-DPWZ_VERSION='"$(VERSION)"'
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_OUT)/%.o,$(LIB_SRCS))
FUZZ_NAMES := cdict cdict_stream legacy perfdata csvmap httpreq
FUZZ_BINS := $(patsubst %,$(FUZZ_OUT)/fuzz_%,$(FUZZ_NAMES))
FUZZ_MKSEEDS := $(OUTPUT)/tests/fuzz/mkseeds
BADINPUT_CRAFT := $(OUTPUT)/tests/badinput/craft
$(FUZZ_OUT)/user/lib/%.o: user/lib/%.c
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_OUT)/libpwz-fuzz.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_OUT)/libpwz-fuzz.a
	$(call msg,FUZZ-LD,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OUT)/libpwz-fuzz.a $(LIB_LIBS) -o $@
$(FUZZ_MKSEEDS): tests/fuzz/mkseeds.c $(LIBPWZ)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIBPWZ) $(LDFLAGS) $(LIB_LIBS) -o $@
$(BADINPUT_CRAFT): tests/badinput/craft.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LDFLAGS) -o $@ -llz4
# fuzz_cdict_stream, fuzz_render and fuzz_writers wrap their input with tests/fuzz/fuzz_wrap.h;
# fuzz_render and fuzz_writers link render/ compiled again with clang and the sanitizers (limits
# per harness: tests/fuzz/run).
FUZZ_RENDER_OBJS := $(patsubst %.c,$(FUZZ_OUT)/%.o,$(RENDER_SRCS))
FUZZ_RENDER_BINS := $(FUZZ_OUT)/fuzz_render $(FUZZ_OUT)/fuzz_writers
FUZZ_BINS += $(FUZZ_RENDER_BINS)
$(FUZZ_OUT)/fuzz_cdict_stream: tests/fuzz/fuzz_wrap.h
$(FUZZ_OUT)/render/%.o: render/%.c
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_RENDER_BINS): $(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h tests/fuzz/fuzz_wrap.h \
		$(FUZZ_RENDER_OBJS) $(OUTPUT)/render/assets/embed.o $(FUZZ_OUT)/libpwz-fuzz.a
	$(call msg,FUZZ-LD,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_RENDER_OBJS) \
		$(OUTPUT)/render/assets/embed.o $(FUZZ_OUT)/libpwz-fuzz.a $(LIB_LIBS) -o $@
fuzz-progs: $(FUZZ_BINS) $(FUZZ_MKSEEDS)
fuzz: all fuzz-progs
	$(Q)PWZ_FUZZ_SECONDS=$(FUZZ_SECONDS) PWZ_FUZZ_JOBS=$(FUZZ_JOBS) tests/fuzz/run

# The nested KVM harness: `make vmtest-progs` builds the static pwz-bpf, pwz-render and
# kvm-guest that tools/vmtest puts in the guest (into VMTEST_BINDIR); `make vmtest` runs the
# nested suite (also in `make check`).
VMTEST_BINDIR ?= .output-static
vmtest-progs:
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(VMTEST_BINDIR) BINDIR=$(VMTEST_BINDIR) STATIC=1 \
		$(VMTEST_BINDIR)/pwz-bpf $(VMTEST_BINDIR)/pwz-render $(VMTEST_BINDIR)/kvm-guest

# The suites find the programs, the fixtures and their scratch space through these.
export PWZ_BINDIR := $(abspath $(BINDIR))
export PWZ_OUTPUT := $(abspath $(OUTPUT))
export PWZ_WORKLOAD_BIN := $(abspath $(PWZ_WORKLOAD))
export PWZ_FUZZ_DIR := $(abspath $(FUZZ_OUT))
export PWZ_FUZZ_MKSEEDS := $(abspath $(FUZZ_MKSEEDS))
export PWZ_BADINPUT_CRAFT := $(abspath $(BADINPUT_CRAFT))
export PWZ_TESTDATA_DIR := $(TESTDATA)

# The suites, each tests/<suite>/run, in the order `make check` runs them, one after the other,
# but for CHECK_SIDE_SUITES, which run one after the other beside them (tests/run-check-suites):
# by default the fuzzers and the file readers (fuzz, badinput, perfetto, parquet, import), which
# only use the CPU, as the other job every check holds its figures beside. Not the suites that
# build (sanitize) or drive a browser: those move the switches the capturing suites time more
# than a busy CPU does. CHECK_SIDE_SUITES= runs all in one lane. tests/sanitize runs the unit
# tests and the bad-input table again, built with ASan and UBSan. With SANITIZE=1 the programs are ASan
# builds: the suites that load BPF or boot a VM, and the sanitizer pass itself, are left out.
# Suites that capture take /tmp/pwz-bpf.lock for each capture. pwz-bpf --live under tmux and
# --flight: tests/liveview; --irq against /proc/softirqs, /proc/interrupts and /proc/stat:
# tests/irq; --serve scraped and checked by promtool: tests/serve; the VMs tab: tests/vms; the
# nested KVM guests (5.10, 6.1, 6.12): tests/vmtest.
CHECK_SUITES += tests/live/run tests/agree/run tests/import/run tests/browser/run \
	tests/perfetto/run tests/parquet/run tests/deb/run tests/vmtest/run tests/bench/run \
	tests/fuzz/run tests/badinput/run tests/robust/run tests/hardening/run tests/cli/run \
	tests/sanitize/run tests/vms/run tests/liveview/run tests/irq/run tests/serve/run
CHECK_SIDE_SUITES ?= tests/fuzz/run tests/badinput/run tests/perfetto/run tests/parquet/run \
	tests/import/run
SANITIZE_SKIP_SUITES := tests/irq/run tests/serve/run tests/liveview/run tests/live/run tests/agree/run tests/parquet/run tests/deb/run \
	tests/vmtest/run tests/robust/run tests/hardening/run tests/sanitize/run tests/vms/run

# (the fuzzers are for tests/fuzz, which the sanitizer pass does not run: not built there)
unit-progs: $(TEST_BINS) $(IMPORT_TEST) $(IMPORT_SPIN) $(if $(filter 1,$(SANITIZE)),,fuzz-progs) \
	$(BADINPUT_CRAFT)
unit: unit-progs
	$(Q)tools/include-cycles bpf user render
	$(Q)tests/run-unit-tests $(TEST_BINS)

# make check builds on every CPU whether or not -j was given (CHECK_JOBS=N to choose), and runs
# CHECK_SIDE_SUITES beside the others.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check: export PWZ_FUZZ_SECONDS := $(FUZZ_CHECK_SECONDS)
check: export PWZ_CHECK_JOBS := $(CHECK_JOBS)
check: export PWZ_CHECK_SIDE := $(CHECK_SIDE_SUITES)
check:
	$(Q)$(MAKE) --no-print-directory deps DEPS=all
	$(Q)$(MAKE) --no-print-directory -j$(CHECK_JOBS) all
	$(Q)$(MAKE) --no-print-directory -j$(CHECK_JOBS) unit-progs
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)tests/run-check-suites $(if $(filter 1,$(SANITIZE)),$(filter-out $(SANITIZE_SKIP_SUITES),$(CHECK_SUITES)),$(CHECK_SUITES))

# One suite alone: `make live`, `make agree` (the content model's agreement: live, import,
# legacy and the kernel's accounting), `make perfetto` (--perfetto decoded with protoc),
# `make parquet` (--export parquet queried with DuckDB), `make hardening` (planted symlinks and
# FIFOs, full disks, closed pipes, low limits), `make browser` (screenshots in
# $(OUTPUT)/browser-artifacts), `make vmtest`.
live: all
	$(Q)tests/live/run
liveview: all
	$(Q)tests/liveview/run
irq: all
	$(Q)tests/irq/run
vms: all
	$(Q)tests/vms/run
agree: all
	$(Q)tests/agree/run
perfetto: all
	$(Q)tests/perfetto/run
parquet: all
	$(Q)tests/parquet/run
hardening: all
	$(Q)tests/hardening/run
browser: all
	$(Q)PWZ_BROWSER_SHOTS=1 tests/browser/run
vmtest:
	$(Q)VMTEST_BINDIR=$(VMTEST_BINDIR) tests/vmtest/run
# `make cli`: the command lines of pwz-bpf and pwz-render (captures take the BPF lock).
cli: all $(PWZ_WORKLOAD)
	$(Q)tests/cli/run

# Valgrind over the unit tests (not in `make check`: valgrind is not a project dependency).
valgrind-unit: $(TEST_BINS)
	$(Q)command -v valgrind >/dev/null || { echo "valgrind-unit: valgrind is not installed"; exit 1; }
	$(Q)for t in $(TEST_BINS); do \
		valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
			--suppressions=tests/fuzz/valgrind.supp $$t >/dev/null 2>$$t.vg; rc=$$?; \
		if [ $$rc -eq 99 ]; then r="valgrind errors: $$t.vg"; else r="clean (exit $$rc)"; fi; \
		printf '  %-28s %s\n' $$(basename $$t) "$$r"; \
	done

# ---- bench: tools/bench/ ----
# The floor (an empty BPF program on sched_switch), a resource-use wrapper and a switch
# generator; tools/bench/bench prints parts 1-3 (capture cost, capture at load, import) after
# the render part (tests/browser/bench-render). Needs root for the capture; prints, never fails
# the tests. tests/bench/run checks the helpers themselves (in `make check`, no timing).
BENCH_DIR := $(OUTPUT)/bench
BENCH_PROGS := $(BENCH_DIR)/pwz-bench-floor $(BENCH_DIR)/pwz-bench-run $(BENCH_DIR)/pwz-bench-switches
all: $(BENCH_PROGS)
$(BENCH_DIR)/empty.bpf.o: tools/bench/empty.bpf.c vmlinux/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
$(BENCH_DIR)/empty.skel.h: $(BENCH_DIR)/empty.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name empty_bpf > $@
$(BENCH_DIR)/pwz-bench-floor: tools/bench/floor.c $(BENCH_DIR)/empty.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(BENCH_DIR) $< $(LDFLAGS) -lbpf -lelf -lz -pthread -o $@
$(BENCH_DIR)/pwz-bench-run: tools/bench/run.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LDFLAGS) -lbpf -lelf -lz -o $@
$(BENCH_DIR)/pwz-bench-switches: tools/bench/switches.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LDFLAGS) -pthread -o $@
# `bench` runs tools/bench/bench's parts after its other prerequisites (bench-render), never
# beside them, so that -j does not let them disturb each other; `bench-capture` runs them alone.
bench: bench-render
bench-render: $(BINDIR)/pwz-render $(BINDIR)/gen-synthetic
	$(Q)tests/browser/bench-render
# the Perfetto trace's size per switch and its export cost (render/perfetto.c)
bench: bench-perfetto
bench-perfetto: $(BINDIR)/pwz-render $(BINDIR)/gen-synthetic
	$(Q)tools/bench/perfetto
# 10 M slices exported as Parquet: time, memory, sizes against the cdict (render/parquet.c)
bench: bench-parquet
bench-parquet: $(BINDIR)/pwz-render $(BINDIR)/gen-synthetic
	$(Q)tools/bench/parquet
# a legacy perfwhiz file of 2 M rows: the basic dashboard beside bare inflation and pandas
# (user/lib/legacy_read.c, the VMs tab's index in user/lib/vms.c)
.PHONY: bench-legacy
bench: bench-legacy
bench-legacy: $(BINDIR)/pwz-render $(BINDIR)/gen-synthetic
	$(Q)tools/bench/legacy
# the dashboards as a person uses them: first paint and each interaction's time, at 10,000
# threads and 10 M slices (render/assets/, tests/browser/bench-dash.js)
.PHONY: bench-dash
bench: bench-dash
bench-dash: $(BINDIR)/pwz-render $(BINDIR)/gen-synthetic
	$(Q)tools/bench/dash
bench bench-capture: $(BENCH_PROGS) $(BINDIR)/pwz-bpf $(BINDIR)/pwz-render $(PWZ_WORKLOAD)
	$(Q)PWZ_BENCH_BIN=$(BENCH_DIR) PWZ_WORKLOAD_BIN=$(PWZ_WORKLOAD) tools/bench/bench
# what each kernel fallback costs per switch, forced on this kernel (user/capture_compat.h)
bench: bench-fallbacks
bench-fallbacks: $(BENCH_PROGS) $(BINDIR)/pwz-bpf
	$(Q)PWZ_BENCH_BIN=$(BENCH_DIR) tools/bench/fallbacks

# ---- install, demo, the README's picture, clean ----
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(PROGS) $(DESTDIR)$(PREFIX)/bin/
	for m in $(wildcard docs/*.1); do install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/; done

# `make deb`: $(BINDIR)/pwz_<version>_<arch>.deb, <version> being the top entry of
# tools/deb/changelog (tools/deb/build: dpkg-deb; Depends from dpkg-shlibdeps), checked by
# tests/deb/run (lintian; installed into a scratch dpkg root, run there, removed).
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_VERSION := $(shell awk -F'[()]' '{ print $$2; exit }' tools/deb/changelog)
DEB := $(BINDIR)/pwz_$(DEB_VERSION)_$(DEB_ARCH).deb
deb: $(DEB)
$(DEB): $(PROGS) $(wildcard tools/deb/*) VERSION README.md $(wildcard docs/*.md docs/*.1)
	$(call msg,DEB,$@)
	$(Q)tools/deb/build $(OUTPUT)/deb-root $@ $(PROGS) >/dev/null

# The README's run command: capture 5 s of the whole machine, then list and draw it.
demo:
	$(Q)$(MAKE) --no-print-directory deps DEPS=build
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(BINDIR)/pwz-bpf -s 5 --all --force --dest-folder $(OUTPUT) demo
	$(Q)$(BINDIR)/pwz-render --list $(OUTPUT)/demo.cdict > $(OUTPUT)/demo.list
	$(Q)head -n 15 $(OUTPUT)/demo.list
	$(Q)$(BINDIR)/pwz-render --force --output-dir $(OUTPUT) $(OUTPUT)/demo.cdict
	$(Q)$(BINDIR)/pwz-render --force --heatmaps --output-dir $(OUTPUT) $(OUTPUT)/demo.cdict

# The README's picture, docs/dashboard.png: a 3 s capture of a small workload, its basic
# dashboard photographed by headless Chromium (tools/screenshot; root: the capture loads BPF).
screenshot: all
	$(Q)tools/screenshot docs/dashboard.png

clean:
	rm -rf $(OUTPUT) $(PROGS) $(TOOLS) $(BINDIR)/pwz_*.deb

-include $(shell find $(OUTPUT) -name '*.d' 2>/dev/null)
