# allocprof: build, boot and test harness. See README.md.
#
#   make run       build the profiling kernel, boot it, show the top allocation sites
#   make test      the CI matrix: build + boot + KUnit + kselftests + boot tests + log scan
#   make test-long the boot tests that take minutes in a config ("# LONG:"), about an hour
#   make shell     boot to an interactive shell
#   make tree      (re)create build/linux from the base + patches/
#   make export    write the commits of build/linux back to patches/
#   make check     cover letter + checkpatch + series applies to base + every prefix builds
#   make churn     lines the series adds and later removes again (rework left in it)
#   make mutation-check  break each accounting family on purpose: make test must fail
#   make build-check  x86_64_defconfig +/- profiling: no new warnings vs stock
#   make arch-check   arm64 16K/64K pages, i386 (PAE and not), clang: build, KUnit, kselftests
#   make distro-check Debian's configs in hour-sized pieces: CONFIG=cloud-amd64|amd64|
#                  cloud-arm64|arm64 STEP=scan|shard|all SHARD=k/N; alone: the table
#   make bench     instruction counts vs stock 6.1, peers and upstream 6.12 (QEMU icount)
#   make bench-trace  the instructions of one allocation/free pair, per function
#   make deb       Debian packages: allocinfo (tool, man page, node_exporter timer)
#                  and Debian's cloud-amd64 kernel with the series (DEB=tool|kernel)
#   make debian-boot  those packages on a debootstrapped Debian 12: systemd, node_exporter
#
# Everything the harness makes lives under $(BUILD) (default ./build).

BUILD ?= $(CURDIR)/build
CONFIG ?= profiling
# CONFIGS: empty = scripts/test.sh's default (make test: debug profiling arm64 off).
CONFIGS ?=
BISECT ?= 1

# CMD and APPEND reach the guest exactly as typed: a '$' in them is not
# make's ($(value) takes the text unexpanded; a simple variable is exported
# as it is).
override CMD := $(value CMD)
override APPEND := $(value APPEND)

# Passed to the scripts through the environment (empty = default).
export BUILD CONFIG CONFIGS CMD APPEND OVERLAY SMP MEM TIMEOUT ICOUNT TCG_THREAD PREBUILD CCACHE BOOT_TESTS BISECT_FROM BISECT_UNLOAD BISECT_PREFIXES BISECT_CONFIG BISECT_FORCE \
	HOST_TESTS SUITE BENCH_ROWS STEP SHARD SHARD_DIRS DISTRO_FORCE FILTER_MEASURE DEB_FLAVOUR DEBIAN_KERNEL DEBIAN_FRESH ARCH_CHECK_CONFIGS TRACE_SKIP TRACE_TAG

S := $(CURDIR)/scripts

.PHONY: all help deps tree kernel run shell test test-long check check-fast bisect-check churn \
	export export-check initramfs kselftests build-check bench bench-trace mutation-check \
	print-vars distro-check deb debian-boot arch-check

all: help

help:
	@sed -n '3,21p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'

deps:
	@$(S)/deps.sh all

tree:
	@$(S)/tree.sh sync

export:
	@$(S)/tree.sh export

export-check:
	@$(S)/tree.sh export-check

kernel:
	@$(S)/tree.sh ensure
	@$(S)/kernel.sh $(CONFIG)

kselftests:
	@$(S)/tree.sh ensure
	@$(S)/kselftests.sh

run:
	@$(S)/run.sh run

shell:
	@$(S)/run.sh shell

test:
	@$(S)/test.sh

test-long:
	@SUITE=long $(S)/test.sh

check:
	@$(S)/check.sh
ifneq ($(BISECT),0)
	@$(S)/bisect-check.sh
endif

check-fast:
	@$(S)/check.sh

build-check:
	@$(S)/tree.sh ensure
	@$(S)/build-check.sh

arch-check:
	@$(S)/arch-check.sh

# CONFIG= names a Debian flavour here; not given (the default above), the
# table of every flavour.
distro-check:
	@DISTRO_CONFIG='$(if $(filter file,$(origin CONFIG)),,$(CONFIG))' $(S)/distro-check.sh

DEB ?= all
deb:
	@$(S)/deb.sh $(DEB)

debian-boot:
	@$(S)/debian-boot.sh

bench:
	@$(S)/tree.sh ensure
	@$(S)/bench.sh

TRACE_KERNEL ?= bench-on
TRACE_CASE ?= kmalloc-8-240
bench-trace:
	@$(S)/bench-trace.sh $(TRACE_KERNEL) $(TRACE_CASE) $$APPEND

bisect-check:
	@$(S)/bisect-check.sh

churn:
	@$(S)/tree.sh ensure
	@python3 $(S)/churn.py $(BUILD)/linux base HEAD

mutation-check:
	@$(S)/mutation-check.sh

# What the scripts receive (tests/harness/make-vars.sh).
print-vars:
	@printf 'CMD=%s\nAPPEND=%s\n' "$$CMD" "$$APPEND"
