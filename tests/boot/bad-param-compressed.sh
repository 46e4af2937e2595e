#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=compressed
#
# "compressed" without a state is malformed: one warning, the default
# state (1).
# Checked by bad_input_boot (tests/boot/lib/mem_profiling.sh).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
bad_input_boot compressed
