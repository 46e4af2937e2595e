#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1
#
# 1: on from boot. The default place for page references: page->flags,
# which has room in these configs, so no page_ext memory at all.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

ktap_plan 6
ktap_check "1: sysctl reads 1" sysctl_is 1
ktap_check "1: page references in page->flags" page_refs_in flags
ktap_check "1: no page_ext memory" page_ext_none
ktap_check "1: allocations accounted" allocinfo_nonzero
ktap_check "1: no malformed warning" malformed_warnings 0
ktap_check "1: no sysctl.* boot errors" no_sysctl_arg_errors
