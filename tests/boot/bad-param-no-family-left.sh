#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=1,nopages,noslab,novmalloc,nopercpu
#
# Leaving every family out makes the value malformed (that is what 0 or
# never are for): one warning, the default state (1), every family profiled.
# Checked by bad_input_boot (tests/boot/lib/mem_profiling.sh).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
bad_input_boot 1_nopages_noslab_novmalloc_nopercpu
