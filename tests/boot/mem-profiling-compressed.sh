#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1,compressed
#
# ",compressed" is valid syntax; until compressed references exist it warns
# and is ignored.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

compressed_warned() {
	dmesg | grep -q 'compressed page references are not available'
}

ktap_plan 4
ktap_check "1,compressed: sysctl reads 1" sysctl_is 1
ktap_check "1,compressed: warns that compressed is unavailable" compressed_warned
ktap_check "1,compressed: no malformed warning" malformed_warnings 0
ktap_check "1,compressed: no sysctl.* boot errors" no_sysctl_arg_errors
