#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1,page_ext
# TIMEOUT: 900
#
# The exact accounting kselftest (allocinfo_test: every wrapped API, pages
# and slab, memcg, vmalloc, modules) with page references in page_ext. The
# main boot of each config runs it in the default mode, page->flags.
# The kselftest prints KTAP itself.

exec /kselftest/alloc_tag/allocinfo_test
