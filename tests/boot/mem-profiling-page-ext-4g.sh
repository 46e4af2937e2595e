#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=1,page_ext
# MEM: 4G
#
# 1,page_ext on a 4 GiB guest (memory above the 4 GiB hole, two nodes):
# page_ext costs profiling 4 bytes a page there too, 4 MiB in all.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

ktap_plan 3
ktap_check "1,page_ext, 4 GiB: page references in page_ext" page_refs_in page_ext
ktap_check "1,page_ext, 4 GiB: page_ext reserved for them, 4 bytes a page" page_ext_4_bytes_a_page
ktap_check "1,page_ext, 4 GiB: allocations accounted" allocinfo_nonzero
