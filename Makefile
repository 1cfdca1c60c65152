# SPDX-License-Identifier: GPL-2.0
# pwz: one non-recursive Makefile. `make` builds everything, `make check` runs every test.
# OUTPUT=dir puts objects elsewhere (default .output); BINDIR=dir the programs (default .).
# V=1 shows the commands. SANITIZE=1 builds userspace with ASan and UBSan. STATIC=1 links
# the programs statically.

OUTPUT ?= .output
BINDIR ?= .
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= /usr/sbin/bpftool
ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

WARN := -Wall -Wextra -Wshadow -Wundef -Werror
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -MMD -MP -I$(OUTPUT) -Iuser -Iuser/lib -DPWZ_VERSION='"$(VERSION)"'
LIBS := -lbpf -lelf -ltraceevent -lmsgpackc -llz4 -lzstd -lz -lm
LDFLAGS ?=
ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(STATIC),1)
LDFLAGS += -static
endif

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# ---- the library every program links (user/lib/) ----
CAPTURE_SRCS := $(wildcard user/*.c)
LIB_SRCS := $(wildcard user/lib/*.c)
LIB_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(LIB_SRCS))
LIBPWZ := $(OUTPUT)/libpwz.a

# ---- BPF programs and their skeletons (bpf/) ----
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
BPF_CFLAGS := -g -O2 -Wall -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux -Ibpf

# ---- the renderer (render/) ----
RENDER_MAIN := render/pwz-render.c
RENDER_SRCS := $(filter-out $(RENDER_MAIN),$(wildcard render/*.c))
RENDER_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(RENDER_SRCS))
LIBRENDER := $(OUTPUT)/librender.a
RENDER_EXTRA_OBJS :=

# ---- unit tests (tests/test_*.c, cmocka) ----
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(patsubst tests/%.c,$(OUTPUT)/tests/%,$(TEST_SRCS))

PROGS := $(BINDIR)/pwz-bpf $(BINDIR)/pwz-render
TOOLS :=

.PHONY: all clean check unit live browser vmtest bench fuzz install deps demo
.DELETE_ON_ERROR:
# BPF objects are inputs of the skeletons, not intermediates to delete.
.SECONDARY:

all: $(PROGS) $(TOOLS)

deps:
	$(Q)tools/deps.sh build

$(OUTPUT)/%.o: %.c | deps-ok
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# Checked once per make run: a missing package is installed before the first compile.
.PHONY: deps-ok
deps-ok:
	$(Q)tools/deps.sh build

$(LIBPWZ): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBRENDER): $(RENDER_OBJS) $(RENDER_EXTRA_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c bpf/pwz.h $(wildcard bpf/*.bpf.h) vmlinux/vmlinux.h | deps-ok
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp && llvm-strip -g $@.tmp -o $@ 2>/dev/null || mv $@.tmp $@
	$(Q)rm -f $@.tmp

$(OUTPUT)/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# Only capture code includes a skeleton: its objects wait for all of them.
$(patsubst %.c,$(OUTPUT)/%.o,$(CAPTURE_SRCS)): $(BPF_SKELS)

$(BINDIR)/pwz-bpf: $(patsubst %.c,$(OUTPUT)/%.o,$(CAPTURE_SRCS)) $(LIBPWZ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIBS) -o $@

$(BINDIR)/pwz-render: $(OUTPUT)/render/pwz-render.o $(LIBRENDER) $(LIBPWZ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIBS) -o $@

$(OUTPUT)/tests/%: tests/%.c $(LIBRENDER) $(LIBPWZ) | deps-ok
	$(call msg,TEST-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Irender -DPWZ_TESTDATA='"$(TESTDATA)"' $< $(LIBRENDER) $(LIBPWZ) \
		$(LDFLAGS) -lcmocka $(LIBS) -o $@

# Shared fixtures (../shared/testdata beside the project); tests skip what is absent.
TESTDATA ?= $(abspath ../shared/testdata)

# ---- capture (issue 3): extra rules ----
# The capture's testable modules, linked into its unit tests (they are not in libpwz.a).
CAPTURE_TEST_OBJS := $(patsubst %,$(OUTPUT)/user/%.o,capture_opts capture_tasks capture_stats capture_meta \
	capture_records)

# tests/test_capture*.c: as other unit tests, plus the capture modules (shortest stem wins).
$(OUTPUT)/tests/test_capture%: tests/test_capture%.c $(CAPTURE_TEST_OBJS) $(LIBRENDER) $(LIBPWZ) | deps-ok
	$(call msg,TEST-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Irender -DPWZ_TESTDATA='"$(TESTDATA)"' $< $(CAPTURE_TEST_OBJS) \
		$(LIBRENDER) $(LIBPWZ) $(LDFLAGS) -lcmocka $(LIBS) -o $@

# The workload generator the live tests run: named threads with known duty cycles.
PWZ_WORKLOAD := $(OUTPUT)/tools/pwz-workload
$(PWZ_WORKLOAD): $(OUTPUT)/tools/pwz-workload.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ -pthread -o $@
all: $(PWZ_WORKLOAD)

# Live capture tests (root, real BPF): they find the programs through these.
export PWZ_BINDIR := $(abspath $(BINDIR))
export PWZ_WORKLOAD_BIN := $(abspath $(PWZ_WORKLOAD))
CHECK_SUITES += tests/live/run
live: all
	$(Q)tests/live/run


# ---- perf.data import (issue 4): extra rules ----
# A driver that imports a perf.data and dumps the cdict it wrote, for tests/import/run.
IMPORT_TEST := $(OUTPUT)/tests/import/pwz-import-test
$(IMPORT_TEST): tests/import/pwz-import-test.c $(LIBPWZ) | deps-ok
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIBPWZ) $(LDFLAGS) $(LIBS) -o $@
IMPORT_SPIN := $(OUTPUT)/tests/import/spin
$(IMPORT_SPIN): tests/import/spin.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< -lpthread -o $@
unit: $(IMPORT_TEST) $(IMPORT_SPIN)
CHECK_SUITES += tests/import/run

# ---- render (issue 5): extra rules ----
# The dashboards' JS and CSS are embedded with .incbin (paths relative to the repository root).
RENDER_ASSETS := $(wildcard render/assets/*.js render/assets/*.css)
RENDER_EXTRA_OBJS += $(OUTPUT)/render/assets/embed.o
$(LIBRENDER): $(OUTPUT)/render/assets/embed.o
$(OUTPUT)/render/assets/embed.o: render/assets/embed.S $(RENDER_ASSETS) | deps-ok
	$(call msg,AS,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -c $< -o $@
# The synthetic capture generator (tools/gen-synthetic.c).
TOOLS += $(BINDIR)/gen-synthetic
all: $(BINDIR)/gen-synthetic
$(BINDIR)/gen-synthetic: $(OUTPUT)/tools/gen-synthetic.o $(LIBPWZ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIBS) -o $@
CHECK_SUITES += tests/browser/run
# The browser suite finds the programs and its scratch space through these.
check: export PWZ_BINDIR := $(BINDIR)
check: export PWZ_OUTPUT := $(OUTPUT)
# `make browser`: the browser suite alone (screenshots in $(OUTPUT)/browser-artifacts).
browser: all
	$(Q)PWZ_BINDIR=$(BINDIR) PWZ_OUTPUT=$(OUTPUT) tests/browser/run
.PHONY: bench-render
bench: bench-render
bench-render: $(BINDIR)/pwz-render $(BINDIR)/gen-synthetic
	$(Q)PWZ_BINDIR=$(BINDIR) PWZ_OUTPUT=$(OUTPUT) tests/browser/bench-render

# ---- nested KVM harness (issue 6): extra rules ----
# tools/kvm-guest makes a known number of KVM exits; always static, it runs inside the vmtest
# guest. `make vmtest-progs` builds the static pwz-bpf, pwz-render and kvm-guest that tools/vmtest
# puts in the guest (into VMTEST_BINDIR); `make vmtest` runs the nested suite (also in `make check`).
VMTEST_BINDIR ?= .output-static
$(OUTPUT)/kvm-guest: tools/kvm-guest.c | deps-ok
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -static -pthread $< -o $@
.PHONY: vmtest-progs
vmtest-progs:
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(VMTEST_BINDIR) BINDIR=$(VMTEST_BINDIR) STATIC=1 \
		$(VMTEST_BINDIR)/pwz-bpf $(VMTEST_BINDIR)/pwz-render $(VMTEST_BINDIR)/kvm-guest
vmtest:
	$(Q)VMTEST_BINDIR=$(VMTEST_BINDIR) tests/vmtest/run
CHECK_SUITES += tests/vmtest/run

# ---- bench (issue 7): extra rules ----
# tools/bench/: the floor (an empty BPF program on sched_switch), a resource-use wrapper and a
# switch generator; tools/bench/bench prints parts 1-3 (capture cost, capture at load, import)
# after the render part. Needs root for the capture; prints, never fails the tests.
BENCH_DIR := $(OUTPUT)/bench
BENCH_PROGS := $(BENCH_DIR)/pwz-bench-floor $(BENCH_DIR)/pwz-bench-run $(BENCH_DIR)/pwz-bench-switches
all: $(BENCH_PROGS)
$(BENCH_DIR)/empty.bpf.o: tools/bench/empty.bpf.c vmlinux/vmlinux.h | deps-ok
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
$(BENCH_DIR)/empty.skel.h: $(BENCH_DIR)/empty.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name empty_bpf > $@
$(BENCH_DIR)/pwz-bench-floor: tools/bench/floor.c $(BENCH_DIR)/empty.skel.h | deps-ok
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(BENCH_DIR) $< $(LDFLAGS) -lbpf -lelf -lz -pthread -o $@
$(BENCH_DIR)/pwz-bench-run: tools/bench/run.c | deps-ok
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LDFLAGS) -lbpf -lelf -lz -o $@
$(BENCH_DIR)/pwz-bench-switches: tools/bench/switches.c | deps-ok
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LDFLAGS) -pthread -o $@
# The helpers' own checks (what they report against what their commands did; no timing).
CHECK_SUITES += tools/bench/selftest
# `bench` runs parts 1-3 after its other prerequisites (bench-render), never beside them, so
# that -j does not let them disturb each other; `bench-capture` runs parts 1-3 alone.
.PHONY: bench-capture
bench bench-capture: $(BENCH_PROGS) $(BINDIR)/pwz-bpf $(BINDIR)/pwz-render
	$(Q)PWZ_BINDIR=$(BINDIR) PWZ_BENCH_BIN=$(BENCH_DIR) tools/bench/bench

# ---- fuzz (issue 8): extra rules ----
# libFuzzer harnesses (tests/fuzz/fuzz_*.c) link the library sources compiled again with clang
# and the sanitizers into $(FUZZ_OUT) (gcc's libpwz.a cannot be reused). `make fuzz
# FUZZ_SECONDS=N` runs each harness N seconds; `make check` runs tests/fuzz/run, which replays
# tests/regress/ and fuzzes each harness FUZZ_CHECK_SECONDS. tests/badinput/run and
# tests/robust/run feed the real programs hostile files, options, signals and full disks.
FUZZ_OUT := $(OUTPUT)/fuzz
FUZZ_SECONDS ?= 300
FUZZ_CHECK_SECONDS ?= 30
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 $(WARN) -O1 -g $(FUZZ_SAN) -MMD -MP -Iuser -Iuser/lib -Irender -I$(OUTPUT) \
	-DPWZ_VERSION='"$(VERSION)"'
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_OUT)/%.o,$(LIB_SRCS))
FUZZ_NAMES := cdict cdict_stream legacy perfdata csvmap
FUZZ_BINS := $(patsubst %,$(FUZZ_OUT)/fuzz_%,$(FUZZ_NAMES))
FUZZ_MKSEEDS := $(OUTPUT)/tests/fuzz/mkseeds
BADINPUT_CRAFT := $(OUTPUT)/tests/badinput/craft
$(FUZZ_OUT)/user/%.o: user/%.c | deps-ok
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_OUT)/libpwz-fuzz.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_OUT)/libpwz-fuzz.a | deps-ok
	$(call msg,FUZZ-LD,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OUT)/libpwz-fuzz.a $(LIBS) -o $@
$(FUZZ_MKSEEDS): tests/fuzz/mkseeds.c $(LIBPWZ) | deps-ok
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIBPWZ) $(LDFLAGS) $(LIBS) -o $@
$(BADINPUT_CRAFT): tests/badinput/craft.c | deps-ok
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LDFLAGS) $(LIBS) -o $@
.PHONY: fuzz-progs
fuzz-progs: $(FUZZ_BINS) $(FUZZ_MKSEEDS)
unit: fuzz-progs $(BADINPUT_CRAFT)
# The suites find their programs and scratch space through these.
export PWZ_FUZZ_DIR := $(abspath $(FUZZ_OUT))
export PWZ_FUZZ_MKSEEDS := $(abspath $(FUZZ_MKSEEDS))
export PWZ_BADINPUT_CRAFT := $(abspath $(BADINPUT_CRAFT))
export PWZ_TESTDATA_DIR := $(TESTDATA)
fuzz: all fuzz-progs
	$(Q)PWZ_FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run
check: export PWZ_FUZZ_SECONDS := $(FUZZ_CHECK_SECONDS)
CHECK_SUITES += tests/fuzz/run tests/badinput/run tests/robust/run
# Valgrind over the unit tests (not in `make check`: valgrind is not a project dependency).
.PHONY: valgrind-unit
valgrind-unit: $(TEST_BINS)
	$(Q)command -v valgrind >/dev/null || { echo "valgrind-unit: valgrind is not installed"; exit 1; }
	$(Q)for t in $(TEST_BINS); do \
		valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
			--suppressions=tests/fuzz/valgrind.supp $$t >/dev/null 2>$$t.vg; rc=$$?; \
		if [ $$rc -eq 99 ]; then r="valgrind errors: $$t.vg"; else r="clean (exit $$rc)"; fi; \
		printf '  %-28s %s\n' $$(basename $$t) "$$r"; \
	done
# With SANITIZE=1 the programs are ASan builds: suites that load BPF or boot a VM are skipped
# (they need the real, unsanitized capture); the lead's check recipe filters them out.
SANITIZE_SKIP_SUITES := tests/live/run tests/vmtest/run tests/robust/run

# ---- hardening (issue 12): extra rules ----
# tests/hardening/run: the programs writing into folders with planted symlinks and FIFOs, onto
# a full disk, into closed pipes and under a low open-file limit (root and BPF for the live
# parts; run it under flock /tmp/pwz-bpf.lock). Needs gen-synthetic for its render parts.
CHECK_SUITES += tests/hardening/run
SANITIZE_SKIP_SUITES += tests/hardening/run
.PHONY: hardening
hardening: all
	$(Q)PWZ_BINDIR=$(BINDIR) tests/hardening/run

# ---- tests ----
unit: $(TEST_BINS)
	$(Q)tools/run-unit-tests $(TEST_BINS)

check:
	$(Q)tools/deps.sh all
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)tools/run-check-suites $(if $(filter 1,$(SANITIZE)),$(filter-out $(SANITIZE_SKIP_SUITES),$(CHECK_SUITES)),$(CHECK_SUITES))

# Last: the unit tests and the bad-input table again, built with ASan and UBSan.
CHECK_SUITES += tests/sanitize/run
SANITIZE_SKIP_SUITES += tests/sanitize/run

# The README's run command: capture 5 s of the whole machine, then list and draw it.
demo: all
	$(Q)$(BINDIR)/pwz-bpf -s 5 --all --dest-folder $(OUTPUT) demo
	$(Q)$(BINDIR)/pwz-render --list $(OUTPUT)/demo.cdict | head -n 15
	$(Q)$(BINDIR)/pwz-render --output-dir $(OUTPUT) $(OUTPUT)/demo.cdict
	$(Q)$(BINDIR)/pwz-render --heatmaps --output-dir $(OUTPUT) $(OUTPUT)/demo.cdict

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(PROGS) $(DESTDIR)$(PREFIX)/bin/
	for m in $(wildcard docs/*.1); do install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/; done

clean:
	rm -rf $(OUTPUT) $(PROGS) $(TOOLS)

-include $(shell find $(OUTPUT) -name '*.d' 2>/dev/null)
