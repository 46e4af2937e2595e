#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=never,compressed
#
# Valid: never, with "compressed" ignored and one warning saying so. The
# sysctl reads 0 and a write of 1 fails with EPERM.
# Checked by bad_input_boot (tests/boot/lib/mem_profiling.sh).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
bad_input_boot never_compressed
