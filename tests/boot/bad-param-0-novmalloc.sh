#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=0,compressed,novmalloc
#
# Options after the state in any order: off, page references compressed,
# vmalloc not profiled; no warning. Checked by bad_input_boot
# (tests/boot/lib/mem_profiling.sh).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
bad_input_boot 0_compressed_novmalloc
