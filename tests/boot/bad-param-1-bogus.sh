#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=1,bogus
#
# A suffix other than ",compressed" makes the value malformed: one
# warning, the default state (1), not the 1 of the valid prefix.
# Checked by bad_input_boot (tests/boot/lib/mem_profiling.sh).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
bad_input_boot 1_bogus
