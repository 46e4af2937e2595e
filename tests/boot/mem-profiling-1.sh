#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1
#
# 1: on from boot, with page_ext reserved for tags.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

ktap_plan 5
ktap_check "1: sysctl reads 1" sysctl_is 1
ktap_check "1: page_ext reserved for tags" page_ext_allocated
ktap_check "1: allocations accounted" allocinfo_nonzero
ktap_check "1: no malformed warning" malformed_warnings 0
ktap_check "1: no sysctl.* boot errors" no_sysctl_arg_errors
