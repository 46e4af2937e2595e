#!/bin/sh
# CONFIGS: arm64-16k arm64-64k x86-clang arm64-clang
# KUNIT: yes
#
# make arch-check's boot of the kernels that only need to show that the
# series boots and passes its KUnit suites there (other page sizes, clang):
# the suites run at boot, the harness reads their results from the log,
# and the audit runs after this script as after every boot.
. /etc/allocprof/ktap.sh

ktap_plan 1
ktap_check "the kernel booted to user space with profiling" test -r /proc/allocinfo
