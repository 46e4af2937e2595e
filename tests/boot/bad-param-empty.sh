#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=
#
# An empty value is malformed: one warning, from the kernel's generic
# sysctl.* parameter code ("Setting sysctl args: `' invalid ..."; alloc_tag
# does not repeat it), and the default state (1).
# Checked by bad_input_boot (tests/boot/lib/mem_profiling.sh).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
bad_input_boot empty
