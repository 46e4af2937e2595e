#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=1,page_ext
# TIMEOUT: 900
#
# The allocator families of a production kernel (alloc_tag_families:
# sockets and page fragments, ext4 on the virtio disk, swap and zswap, NUMA
# migration, hugetlb, KSM, SYSV IPC) with page references in page_ext. The
# main boot of profiling runs them in page->flags mode, debug's main boot in
# page_ext mode (Debian's layout). First the kernel must say that it did use
# page_ext.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

require_page_ext_refs || exit 0
# The kselftest prints KTAP itself.
exec /kselftest/alloc_tag/alloc_tag_families
