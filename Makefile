# SPDX-License-Identifier: GPL-2.0
#
# srv6-oam: fetch, patch, build and boot the series, run its selftests.
#
#   make demo     the main job: boot the guest, run the demo SRv6 network
#   make check    boot the guest, run our selftests and the upstream ones
#   make check-loaded  make check with a CPU hog on every core of the host
#   make kselftest  install the net selftests (build/kselftest), run ours
#                 with its run_kselftest.sh in the guest
#   make series   write the kernel and userspace series (format-patch)
#   make series-build  every patch of the kernel series builds (bisectable)
#   make bench    SRPerf benchmarks in the guest (BENCH=name)
#
# Both demo and check do every set-up step on a fresh Debian bookworm machine
# (deps, fetch, kernel, tools); each step is skipped when already done.
# BASE=6.12-vanilla (upstream 6.12.y) or BASE=6.1 applies the kernel series
# to another base, in build directories of its own.  See README.md.

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.DEFAULT_GOAL := help

TOP       := $(abspath .)
BUILD     := $(TOP)/build
# BASE: the kernel the series is applied to (scripts/fetch-sources.sh):
# 6.12 (Debian's linux-source-6.12), 6.12-vanilla (upstream 6.12.y from
# Debian's orig tarball) or 6.1 (Debian's linux-source-6.1, with the
# overlay kernel-series-6.1/).  A base other than 6.12 has its own tree and
# build directories, build/linux-BASE, build/kbuild-BASE, ...
BASE      ?= 6.12
ifeq ($(BASE),6.12)
SFX       :=
else
SFX       := -$(BASE)
endif
KSRC      := $(BUILD)/linux$(SFX)
KOBJ      := $(BUILD)/kbuild$(SFX)
PREFIX    := $(BUILD)/prefix
VENV      := $(BUILD)/venv
RESULTS   := $(BUILD)/results$(SFX)
GATE_OUT  := $(BUILD)/gate$(SFX)
SERIESOUT := $(BUILD)/series$(SFX)
FRAGMENTS := $(TOP)/config/guest.config
# config/base-BASE.config: what a base needs on top of it
FRAGMENTS += $(wildcard $(TOP)/config/base-$(BASE).config)
# DEBUG=1: the debug kernel (config/debug.config on top), in a build
# directory of its own, for make check-debug.
DEBUG     ?= 0
ifeq ($(DEBUG),1)
KOBJ      := $(BUILD)/kbuild-debug$(SFX)
RESULTS   := $(BUILD)/results-debug$(SFX)
GATE_OUT  := $(BUILD)/gate-debug$(SFX)
FRAGMENTS += $(TOP)/config/debug.config
endif
# COVERAGE=1: the coverage kernel (config/coverage.config on top): gcov on
# the objects of our packet parsers, COV_OBJS, for make coverage.
COVERAGE  ?= 0
COV_OBJS  := ip6t_srh.o ip_set_hash_sr6.o stamp_core.o ioam6.o exthdrs.o \
	     ioam6_iptunnel.o seg6_local.o
KMAKE_EXTRA :=
ifeq ($(COVERAGE),1)
KOBJ      := $(BUILD)/kbuild-cov$(SFX)
RESULTS   := $(BUILD)/results-cov$(SFX)
FRAGMENTS += $(TOP)/config/coverage.config
KMAKE_EXTRA := $(foreach o,$(COV_OBJS),GCOV_PROFILE_$(o)=y)
endif
# MODULES=1: the modules kernel (config/modules.config on top, after
# DEBUG=1's if both): our code as modules, installed under KOBJ/modroot,
# for make check-modules.
MODULES   ?= 0
KTARGETS  := bzImage headers
ifeq ($(MODULES),1)
KOBJ      := $(KOBJ)-mod
RESULTS   := $(RESULTS)-mod
FRAGMENTS += $(TOP)/config/modules.config
KTARGETS  += modules
endif
BZIMAGE   := $(KOBJ)/arch/x86/boot/bzImage
CACHE_DIR ?= $(HOME)/.cache/srv6-oam
CCACHE_DIR ?= $(HOME)/.cache/ccache
# Parallel jobs of the kernel and tool builds: the CPUs we may run on
# (nproc); make JOBS=N (or JOBS in the environment) overrides it.
JOBS      ?= $(shell nproc)

# Paths under the checkout are hashed relative to it: a fresh clone (CI's)
# hits the objects cached by an earlier one.
export CCACHE_BASEDIR := $(TOP)
export CACHE_DIR CCACHE_DIR JOBS KSRC BASE
# 6.1 mounts virtme-ng's 9p root from the command line only under the tag
# "root" (scripts/vm.sh)
ifeq ($(BASE),6.1)
export VM_ROOT_TAG := 1
endif
export VNG := $(VENV)/bin/vng

# Debian packages the build, the guest and the tests need.
APT_PKGS := build-essential flex bison bc libelf-dev libssl-dev ccache cpio \
	kmod rsync xz-utils dpkg-dev git perl python3 python3-venv python3-pip \
	qemu-system-x86 busybox-static udev iproute2 \
	libmnl-dev libnftnl-dev autoconf automake libtool libltdl-dev pkg-config \
	libcap-dev \
	python3-scapy python3-yaml python3-jsonschema python3-matplotlib tshark iputils-ping \
	ethtool tcpdump socat jq nftables groff-base \
	clang libbpf-dev stress-ng
PIP_PKGS := virtme-ng==1.42

# Print how long each stage took: $(call stage,NAME,COMMAND)
stage = t0=$$(date +%s); $(2); echo "== $(1): $$(( $$(date +%s) - t0 ))s"

.PHONY: help deps fetch tree kernel tools install-tools debs dkms debs-check deb-kernel kselftest-install kselftest \
	check check-loaded check-debug check-debug-run check-modules check-modules-run fuzz coverage coverage-run check-host check-harness demo bench insn bench-bpf gate series series-build \
	uapi-check ynl-check kernel-stock check-stock check-6.1 \
	clean distclean

help:
	@sed -n '3,18p' Makefile | sed 's/^# \{0,1\}//'

# ---------------------------------------------------------------- set-up --
deps: $(BUILD)/.deps
$(BUILD)/.deps: Makefile
	@$(call stage,deps,scripts/deps.sh "$(APT_PKGS)" "$(VENV)" "$(PIP_PKGS)")
	@touch $@

fetch: deps
	@$(call stage,fetch,scripts/fetch-sources.sh)

# ---------------------------------------------------------------- kernel --
tree: fetch
	@$(call stage,tree,scripts/kernel-tree.sh assemble)

$(KOBJ)/.config: $(FRAGMENTS) scripts/kernel-config.sh | tree
	@$(call stage,config,scripts/kernel-config.sh $(KSRC) $(KOBJ) $(FRAGMENTS))

kernel: tree $(KOBJ)/.config
	@echo "kernel: $$(cat $(KSRC)/.git/srv6-oam-base) + $$(git -C $(KSRC) rev-list --count base..srv6-oam) srv6-oam patches"
	@$(call stage,kernel,$(MAKE) -s -C $(KSRC) O=$(KOBJ) -j$(JOBS) CC="ccache gcc" \
		$(KMAKE_EXTRA) $(KTARGETS))
ifeq ($(MODULES),1)
	@rm -rf $(KOBJ)/modroot
	@$(MAKE) -s -C $(KSRC) O=$(KOBJ) INSTALL_MOD_PATH=$(KOBJ)/modroot modules_install
	@echo "kernel: modules in $(KOBJ)/modroot: $$(find $(KOBJ)/modroot -name '*.ko' | wc -l)"
endif
	@echo "kernel: $(BZIMAGE) ($$(make -s -C $(KSRC) O=$(KOBJ) kernelrelease))"

# The stock kernel: branch base of the tree (no patch of ours), same config
# fragment (options it does not know are left out), for check-stock.
kernel-stock: tree
	@$(call stage,kernel-stock,scripts/kernel-stock.sh $(KSRC) $(BUILD)/linux-stock$(SFX) \
		$(BUILD)/kbuild-stock$(SFX) $(FRAGMENTS))

# ----------------------------------------------------------------- tools --
# After the build: the man pages installed (scripts/check-man.sh), and
# Debian's libipset13.symbols against the libipset built
# (dpkg-gensymbols -c4, scripts/check-ipset-symbols.sh).
tools: fetch
	@$(call stage,tools,scripts/build-tools.sh $(PREFIX))
	@scripts/install-tools.sh $(PREFIX)
	@scripts/check-man.sh $(PREFIX)
	@scripts/check-ipset-symbols.sh $(PREFIX)
	@$(PREFIX)/sbin/ip -V

# Debian packages of the patched iproute2, iptables and ipset, from
# bookworm's source packages with our patches in debian/patches, and of
# srv6-oam's own (debian/: srv6-oam-tools, with pfplm@.service, and
# srv6-oam-dkms)
# (scripts/debs.sh): build/debs/*.deb, the ones that change (build/debs/SHIP);
# the source packages in build/debs/build/PKG.
debs: fetch
	@$(call stage,debs,scripts/debs.sh $(BUILD)/debs)

# srv6-oam's own packages alone (srv6-oam-dkms, the modules for Debian's
# kernels, and srv6-oam-tools, from one source package) in build/dkms:
# make debs builds them too, with iproute2, iptables and ipset.
dkms: fetch
	@$(call stage,dkms,scripts/debs.sh $(BUILD)/dkms srv6-oam)

# Those packages installed by apt into a fresh bookworm root and tested
# there, chrooted in the guest of our kernel and in that of Debian's own
# kernel with srv6-oam-dkms's modules, then purged (scripts/debs-test.sh,
# scripts/guest-debs.sh).
# DEB_KERNEL=1: with make deb-kernel's linux-image installed too, and
# booted.
ifeq ($(DEB_KERNEL),1)
debs-check: deb-kernel
DEBS_CHECK_ENV := KERNEL_DEBS=$(BUILD)/deb-kernel$(SFX)
endif
# DEBS_BUILT=1: the packages of an earlier make debs, not built again
# (CI builds them beside make check).
ifeq ($(DEBS_BUILT),1)
debs-check: kernel
else
debs-check: debs kernel
endif
	@test -s $(BUILD)/debs/SHIP || { echo "debs-check: no packages in $(BUILD)/debs: make debs" >&2; exit 1; }
	@$(call stage,debs-check,$(DEBS_CHECK_ENV) scripts/debs-test.sh $(BZIMAGE) \
		$(BUILD)/debs $(BUILD)/debs-test)

# Debian packages of the patched kernel (scripts/deb-kernel.sh, the
# kernel's bindeb-pkg): linux-image and linux-headers in build/deb-kernel.
# DEB_CONFIG=guest (default, CI): the guest's configuration with modules;
# DEB_CONFIG=debian: Debian's configuration of the base for amd64 with
# config/debian.config (for a router; a long build, see TESTING.md).
DEB_CONFIG ?= guest
ifeq ($(DEB_CONFIG),debian)
DEB_FRAGMENTS :=
else
DEB_FRAGMENTS := $(filter-out $(TOP)/config/modules.config,$(FRAGMENTS)) \
	$(TOP)/config/modules.config
endif
deb-kernel: tree
	@$(call stage,deb-kernel,scripts/deb-kernel.sh $(KSRC) $(BUILD)/kbuild-deb-$(DEB_CONFIG)$(SFX) \
		$(BUILD)/deb-kernel$(SFX) $(DEB_CONFIG) $(DEB_FRAGMENTS))

# Our own user-space tools (stamp-sender, pfplm) where a system keeps them:
# make install-tools [DESTDIR=/tmp/pkg] [prefix=/usr/local]; PREFIX=DIR on
# the command line is taken for prefix too (it is the build's own prefix,
# build/prefix, otherwise).
prefix ?= $(if $(filter command line,$(origin PREFIX)),$(PREFIX),/usr/local)
install-tools:
	@scripts/install-tools.sh $(DESTDIR)$(prefix)

# ----------------------------------------------------------------- tests --
# Tests named COLLECTION:TEST in config/check-tests or TESTS are run by the
# run_kselftest.sh of this installed tree.
KSFT := $(BUILD)/kselftest$(SFX)
export KSFT

# 6.1 has neither the gate's behaviours (IOAM6) nor ynl-gen: make check
# BASE=6.1 does without make gate and make ynl-check (config/check-skip-6.1).
ifeq ($(BASE),6.1)
CHECK_PRE := kernel tools uapi-check check-host kselftest-install
else
CHECK_PRE := kernel tools uapi-check ynl-check gate check-host kselftest-install
endif
# The host tests do not depend on the kernel: make check-6.1, CI's part on
# 6.1 beside make check, which runs them, leaves them out.
ifeq ($(SKIP_CHECK_HOST),1)
CHECK_PRE := $(filter-out check-host,$(CHECK_PRE))
endif
# SKIP_GATE=1: the gate's verdict is that of a make gate run just before
# (CI runs it beside make demo); the test @bench/gate.sh still reports it,
# and fails if there is none for this kernel.
ifeq ($(SKIP_GATE),1)
CHECK_PRE := $(filter-out gate,$(CHECK_PRE))
endif
# The guest part runs the tests in CHECK_GUESTS (2) guests side by side,
# longest first by the last run's time table or config/check-times, each
# guest taking the next test that no guest has taken yet, and
# ends with the time table: every test's wall and guest CPU time, in
# RESULTS/times.tsv too (scripts/check.sh).  VM_SLOTS (one per host CPU)
# caps the guests of the whole host at once (scripts/vm.sh).
check: $(CHECK_PRE)
	@$(call stage,check,KHDR=$(KOBJ)/usr/include \
		scripts/check.sh $(BZIMAGE) $(KSRC) $(PREFIX) $(RESULTS))

# make check on a loaded host: a CPU hog (stress-ng --cpu 0) on every core
# for the whole run, set-up included (scripts/check-loaded.sh).  Our tests
# wait for conditions, never for a time: this must pass as make check does.
check-loaded: deps
	@scripts/check-loaded.sh $(MAKE) --no-print-directory check

# The net selftests built and installed the kselftest way
# (make -C tools/testing/selftests TARGETS=net install), into build/kselftest;
# every net/ test of config/check-tests must be listed there, and every file
# of ours under tools/testing/selftests/net installed.  Without our DEBUG:
# the tree's tools/net/ynl/lib/Makefile takes DEBUG=1 for "build libynl
# with ASan", which the net selftests then fail to link.
kselftest-install: kernel
	@$(call stage,kselftest-install,env -u DEBUG MAKEFLAGS= \
		scripts/kselftest-install.sh $(KSRC) $(KOBJ)/usr/include $(KSFT))

# Our selftests, each by run_kselftest.sh -t net:TEST of the installed tree,
# in one guest; build/prefix first on PATH there, as in make check (how the
# tests find our ip, ipset, pfplm).  Each test's KTAP output is kept in
# build/kselftest-results/logs.  KSFT_TESTS="net:x.sh ..." runs a part.
# (Not srv6_module_test.sh: it needs the modules kernel, make check-modules.)
KSFT_TESTS ?= $(filter-out net:srv6_module_test.sh,$(addprefix net:,$(notdir \
	$(wildcard tools/testing/selftests/net/*_test.sh))))
kselftest: kselftest-install tools
	@$(call stage,kselftest,TESTS="$(KSFT_TESTS)" KHDR=$(KOBJ)/usr/include \
		scripts/check.sh $(BZIMAGE) $(KSRC) $(PREFIX) $(BUILD)/kselftest-results$(SFX))

# CI's run on Debian's 6.1: the tests of config/check-ci-6.1 (a test per
# feature the 6.1 series carries), by make BASE=6.1 check, without the host
# tests (make check runs them).
CI_6.1_TESTS := $(strip $(shell sed -e 's/\#.*//' $(TOP)/config/check-ci-6.1))
check-6.1:
	@$(MAKE) --no-print-directory BASE=6.1 SKIP_CHECK_HOST=1 TESTS="$(CI_6.1_TESTS)" check

# The whole of config/check-tests on the debug kernel (DEBUG=1): a test
# after which the kernel log holds a report of a debugging option (KASAN,
# UBSAN, lockdep, RCU, "BUG:", "WARNING:", refcount) fails, and so does a
# last pseudo-test, kmemleak, if a scan at the end finds a leak.  Not in
# CI: a long suite of its own.  TESTS="..." runs a part.  The gate runs first,
# on the debug kernel too (its verdict in build/gate-debug): there its rot
# half holds, its bounds are reported, not held (GATE_BOUNDS below).
# ipset's suite waits 20 times its timeouts there, not 6
# (IPSET_TIME_SCALE, scripts/ipset-tests.sh).  Its guests keep two vCPUs
# each (make check's get the host's CPUs shared out, scripts/check.sh): the
# checkers look for races, which want CPUs running at once.
check-debug:
	@$(MAKE) --no-print-directory DEBUG=1 $(if $(TESTS),,gate) check-debug-run
check-debug-run: kernel tools kselftest-install
	@$(call stage,check-debug,SPLATS=1 KHDR=$(KOBJ)/usr/include VM_MEM=$${VM_MEM:-4G} \
		VM_CPUS=$${VM_CPUS:-2} \
		SELFTEST_TIMEOUT=$${SELFTEST_TIMEOUT:-4500} \
		IPSET_TIME_SCALE=$${IPSET_TIME_SCALE:-20} \
		scripts/check.sh $(BZIMAGE) $(KSRC) $(PREFIX) $(RESULTS))

# Our code as modules (MODULES=1: config/modules.config), loaded and
# removed under traffic by net/srv6_module_test.sh (or TESTS="...");
# DEBUG=1 makes it the debug kernel with modules, its kernel log checked
# as make check-debug's.  Not in CI (a kernel build of its own).
check-modules:
	@$(MAKE) --no-print-directory MODULES=1 check-modules-run
check-modules-run: kernel tools
	@$(call stage,check-modules,MODULES_DIR=$(KOBJ)/modroot SPLATS=$(DEBUG) \
		KHDR=$(KOBJ)/usr/include VM_MEM=$${VM_MEM:-$(if $(filter 1,$(DEBUG)),4G,2G)} \
		TESTS="$${TESTS:-net/srv6_module_test.sh}" \
		scripts/check.sh $(BZIMAGE) $(KSRC) $(PREFIX) $(RESULTS))

# Packet and netlink fuzzing on the debug kernel: net/srv6_fuzz_test.sh,
# FUZZ_COUNT (100000) mutated packets per target after the truncations,
# seed FUZZ_SEED (1); net/srv6_nlfuzz_test.sh, NLFUZZ_COUNT (20000)
# requests per interface and mode, seed NLFUZZ_SEED (1).  make check runs
# the same tests on the plain kernel with 3000 packets per target and 500
# requests per interface and mode.
fuzz:
	@$(MAKE) --no-print-directory DEBUG=1 \
		TESTS="net/srv6_fuzz_test.sh net/srv6_nlfuzz_test.sh" \
		FUZZ_COUNT=$${FUZZ_COUNT:-100000} \
		NLFUZZ_COUNT=$${NLFUZZ_COUNT:-20000} check-debug-run

# Line coverage of our packet parsers (config/coverage-functions) under the
# packet fuzzer, on the coverage kernel (COVERAGE=1: gcov on COV_OBJS):
# FUZZ_COUNT (10000) mutated packets per target; the counts are copied out
# of the guest and scripts/coverage-report.py reports, per file, the lines
# run and those never run.  TESTS="..." runs other tests for the counts.
coverage:
	@$(MAKE) --no-print-directory COVERAGE=1 coverage-run
coverage-run: kernel tools kselftest-install
	@rm -rf $(RESULTS)/gcov
	@mkdir -p $(RESULTS)/gcov
	@$(call stage,coverage,GCOV_OUT=$(RESULTS)/gcov \
		FUZZ_COUNT=$${FUZZ_COUNT:-10000} \
		TESTS="$${TESTS:-net/srv6_fuzz_test.sh}" \
		scripts/check.sh $(BZIMAGE) $(KSRC) $(PREFIX) $(RESULTS) && \
		scripts/coverage-report.py $(KOBJ) $(RESULTS)/gcov \
			$(TOP)/config/coverage-functions $(RESULTS)/coverage.json)

# The tests that need no guest, on the host (seconds, no privileges):
# stamp-sender against a Scapy-built Session-Reflector on the loopback, and
# the bench's statistics (t quantiles, strict JSON), and which blocks
# pfplm reports exact when a colour switch or a reading was late; and
# make install-tools DESTDIR=... prefix=/usr, which must install under
# DESTDIR only, commands that run from there; and check.sh's report (its
# stdout and RESULTS/summary.txt) from a guest's record of results.
check-host:
	@$(call stage,check-host,stamp-sender/interop-test.py; bench/test_stats.py; \
		pfplm/test_pfplm.py; scripts/test-install-tools.sh; \
		scripts/test-check-summary.sh)

# Every uAPI number we add is the one Documentation/networking/srv6-oam-uapi.rst
# gives, and above mainline's highest in its enum; on a base that does not
# carry every patch yet, config/uapi-absent-BASE lists the numbers it lacks.
uapi-check: kernel
	@scripts/uapi-numbers.py $(TOP)/Documentation/networking/srv6-oam-uapi.rst \
		$(KOBJ)/usr/include $(wildcard $(TOP)/config/uapi-absent-$(BASE))

# The genetlink spec is authoritative: the uapi header, the kernel's policy
# and op tables (net/stamp/stamp_nl.{c,h}) and iproute2's copy of the
# header are what the tree's ynl-gen makes of stamp.yaml (host, seconds).
# After editing the spec: scripts/ynl-regen.sh $(KSRC) write.
ynl-check: tree
	@scripts/ynl-regen.sh $(KSRC) check

# A stock kernel refuses a cross-connect configured with "xconnect" (our ip).
# STOCK_TESTS="..." runs other tests of config/check-tests's form there
# (with the C helpers of config/check-helpers built, which the default
# does without).
STOCK_TESTS ?= @scripts/stock-xconnect.sh
check-stock: kernel-stock tools
	@$(call stage,check-stock,TESTS="$(STOCK_TESTS)" \
		$(if $(filter command line,$(origin STOCK_TESTS)),,HELPERS=) \
		scripts/check.sh $(BUILD)/kbuild-stock$(SFX)/arch/x86/boot/bzImage $(KSRC) \
		$(PREFIX) $(BUILD)/results-stock$(SFX))

# The harness itself: a passing, a failing and a skipping test must come out
# as 1 passed, 1 failed, 1 skipped and a failed run.
check-harness: kernel tools
	@scripts/check-harness.sh $(BZIMAGE) $(KSRC) $(PREFIX) $(BUILD)/harness

demo: kernel tools
	@$(call stage,demo,scripts/demo.sh $(BZIMAGE) $(PREFIX) $(BUILD)/demo)

# SRPerf benchmarks: make bench [BENCH=name[,name]] [ONLY=behaviour,...]
# [ICOUNT=1]: ICOUNT=1 runs the guest under QEMU's icount with the
# instruction counter bench/insn.c (bench/README.md).
bench: kernel tools insn bench-bpf
	@$(call stage,bench,scripts/bench.sh $(BZIMAGE) $(PREFIX) $(BUILD)/bench)

# The performance gate (bench/gate.sh) in an icount guest of its own; make
# check's test @bench/gate.sh reports its verdict.  Its bounds are ratios
# of the plain kernel: with DEBUG=1 (KASAN instruments every memory access,
# so the ratios are not that kernel's) they are reported, not held, and
# only the rot half can fail, or the kernel log and kmemleak (SPLATS), as
# in check-debug.
GATE_BOUNDS := $(if $(filter 1,$(DEBUG)),report,hold)
gate: kernel tools insn bench-bpf
	@$(call stage,gate,GATE=1 GATE_BOUNDS=$(GATE_BOUNDS) SPLATS=$(DEBUG) \
		VM_MEM=$${VM_MEM:-$(if $(filter 1,$(DEBUG)),4G,2G)} \
		scripts/bench.sh $(BZIMAGE) $(PREFIX) $(GATE_OUT))

# The bench's instruction counter: a QEMU TCG plugin, built against the
# plugin API header of Debian's qemu source package (make fetch).
INSN_SO := $(BUILD)/bench-insn/insn.so
export INSN_SO
insn: $(INSN_SO)
$(INSN_SO): bench/insn.c | fetch
	@hdr=$$(sed -n 's/^QEMU_PLUGIN_H=//p' $(CACHE_DIR)/versions.env); \
		[ -r "$$hdr" ] || { echo "insn: no qemu-plugin.h (make fetch)" >&2; exit 1; }; \
		mkdir -p $(@D) && gcc -O2 -Wall -shared -fPIC -I"$$(dirname "$$hdr")" -o $@ $<
	@echo "insn: $@"

# The bench's eBPF programs: bench/NAME.bpf.c, C for the BPF target, built
# with Debian's clang against libbpf-dev's headers into build/bench-bpf/,
# and their loader bench/tcx_load.c (libbpf) (bench/README.md, "The eBPF
# Session-Reflector").  The gate configures every bench script, make check
# tests the reflector: both need them.
BPF_DIR := $(BUILD)/bench-bpf
BPF_OBJS := $(patsubst bench/%.bpf.c,$(BPF_DIR)/%.bpf.o,$(wildcard bench/*.bpf.c))
BPF_CFLAGS := -O2 -g -Wall -Werror -target bpf \
	-I/usr/include/$(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null)
bench-bpf: $(BPF_OBJS) $(BPF_DIR)/tcx_load
$(BPF_DIR)/%.bpf.o: bench/%.bpf.c | deps
	@mkdir -p $(@D) && clang $(BPF_CFLAGS) -c $< -o $@
	@echo "bench-bpf: $@"
$(BPF_DIR)/tcx_load: bench/tcx_load.c | deps
	@mkdir -p $(@D) && gcc -O2 -Wall -Werror -o $@ $< -lbpf
	@echo "bench-bpf: $@"

# ---------------------------------------------------------------- series --
series: fetch
	@scripts/series.sh $(SERIESOUT)

# The kernel series is bisectable on BASE: every patch passes checkpatch
# --strict and builds, with the guest's configuration and with the
# features' Kconfig symbols off, in a worktree and object directories of
# its own (build/series-build[-BASE]; scripts/series-build.sh).  Not in CI:
# a kernel build per patch.  SERIES_FROM=N builds from the Nth patch on,
# SERIES_TO=M up to the Mth.
series-build: tree
	@$(call stage,series-build,SERIES_FROM=$(SERIES_FROM) SERIES_TO=$(SERIES_TO) scripts/series-build.sh $(KSRC) \
		$(BUILD)/series-build$(SFX) $(FRAGMENTS))

clean:
	rm -rf $(KOBJ) $(RESULTS) $(BUILD)/selftests $(BUILD)/demo $(BUILD)/harness \
		$(KSFT) $(BUILD)/kselftest-build $(BUILD)/kselftest-results \
		$(SERIESOUT) $(BUILD)/kbuild-stock$(SFX) $(BUILD)/results-stock$(SFX)

distclean:
	rm -rf $(BUILD)
