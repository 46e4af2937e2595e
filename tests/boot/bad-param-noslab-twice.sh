#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=1,noslab,noslab
#
# A family left out twice makes the value malformed: one warning, the
# default state (1) and every family profiled. Checked by bad_input_boot
# (tests/boot/lib/mem_profiling.sh).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
bad_input_boot 1_noslab_noslab
