#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1,page_ext
#
# 1,page_ext: page references in page_ext (4 bytes a page reserved for
# them), allocations accounted, no warning.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

ktap_plan 6
ktap_check "1,page_ext: sysctl reads 1" sysctl_is 1
ktap_check "1,page_ext: page references in page_ext" page_refs_in page_ext
ktap_check "1,page_ext: page_ext reserved for them, 4 bytes a page" page_ext_4_bytes_a_page
ktap_check "1,page_ext: allocations accounted" allocinfo_nonzero
ktap_check "1,page_ext: no malformed warning" malformed_warnings 0
ktap_check "1,page_ext: no sysctl.* boot errors" no_sysctl_arg_errors
