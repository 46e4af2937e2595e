#!/bin/sh
# CONFIGS: profiling
# LONG: profiling
# APPEND: sysctl.vm.mem_profiling=1,page_ext
# TOOLS: stress-ng
# TIMEOUT: 1500
#
# The workload rounds of workloads.sh, each followed by the audit, with
# page references in page_ext (the other reference mode): first the kernel
# must say it keeps them there.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh
. /etc/allocprof/lib/workloads.sh

ktap_plan $(($(workloads_plan) + 1))
ktap_check "page references in page_ext" page_refs_in page_ext
workloads_run
