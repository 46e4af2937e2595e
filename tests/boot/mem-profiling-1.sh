#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1
#
# 1: on from boot. Page references in their default place: page->flags
# where it has room (profiling: no page_ext memory at all), page_ext in
# Debian's layout (debug: 0 free bits).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

ktap_plan 5
ktap_check "1: sysctl reads 1" sysctl_is 1
ktap_check "1: page references in their default place" refs_in_default_place
ktap_check "1: allocations accounted" allocinfo_nonzero
ktap_check "1: no malformed warning" malformed_warnings 0
ktap_check "1: no sysctl.* boot errors" no_sysctl_arg_errors
