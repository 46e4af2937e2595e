#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=never,noslab
#
# never with a family left out: the families are ignored, with one warning;
# never holds, and vm.mem_profiling_families reads "none". Checked by
# bad_input_boot (tests/boot/lib/mem_profiling.sh).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
bad_input_boot never_noslab
