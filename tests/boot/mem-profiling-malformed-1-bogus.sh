#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1,bogus
#
# Malformed boot parameter value: see check_malformed_boot.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
check_malformed_boot '1,bogus'
