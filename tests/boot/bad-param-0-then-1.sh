#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=0 sysctl.vm.mem_profiling=1
#
# Given twice: one "given more than once" warning, the last value (1)
# applies.
# Checked by bad_input_boot (tests/boot/lib/mem_profiling.sh).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
bad_input_boot 0_then_1
