#!/bin/sh
# CONFIGS: profiling arm64
# APPEND: sysctl.vm.mem_profiling=1,page_ext
# TIMEOUT: 900
# KUNIT: yes
#
# The exact accounting kselftest (allocinfo_test: every wrapped API, pages
# and slab, memcg, vmalloc, modules) with page references in page_ext, and
# the KUnit suites at boot in that mode (the page reference cases test the
# page_ext side there). The main boot of profiling runs both in its
# default mode, page->flags; debug has Debian's layout, where page_ext is
# the default: its main boot runs them in page_ext mode (arm64 as
# profiling: page->flags in its main boot, page_ext here). First the kernel
# must say that it did use page_ext: otherwise this would test the default
# mode a second time.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

require_page_ext_refs || exit 0
# The kselftest prints KTAP itself.
exec /kselftest/alloc_tag/allocinfo_test
