#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=never
#
# never: nothing accounted, no page_ext memory, the sysctl reports 0 and
# refuses to be switched on.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

ktap_plan 8
ktap_check "never: sysctl reads 0" sysctl_is 0
ktap_check "never: writing 1 fails with EPERM" sysctl_write_eperm 1
ktap_check "never: writing 0 fails with EPERM" sysctl_write_eperm 0
ktap_check "never: still 0 after writes" sysctl_is 0
ktap_check "never: no page_ext memory" page_ext_none
ktap_check "never: no place for page references" page_refs_in none
make_allocations
ktap_check "never: nothing accounted" allocinfo_zero
ktap_check "never: no sysctl.* boot errors" no_sysctl_arg_errors
