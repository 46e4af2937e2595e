#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=2
#
# Malformed boot parameter value: see check_malformed_boot.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
check_malformed_boot '2'
