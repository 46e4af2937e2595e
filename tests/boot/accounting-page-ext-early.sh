#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=1,page_ext early_page_ext
# TIMEOUT: 900
# KUNIT: yes
#
# Page references in page_ext with page_ext set up early (early_page_ext:
# page_ext_init() runs from mm_init(), right after vmalloc is up, instead
# of after the other CPUs): the page_ext window must be there, reserved
# for every pfn the architecture can address (/proc/vmallocinfo: an area
# of page_ext_init() of at least 4 bytes x 2^34 pfns on x86-64), the
# KUnit suites run at boot in that mode (alloc_tag_test_page_ext_window
# compares the window's entries with the section walk's), and the exact
# accounting kselftest runs through the hooks' page_ext fast path.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

require_page_ext_refs || exit 0
if ! page_ext_window_reserved; then
	ktap_plan 1
	ktap_fail "page_ext window reserved by page_ext_init() (/proc/vmallocinfo)"
	grep page_ext /proc/vmallocinfo | sed 's/^/# /'
	exit 0
fi
# The kselftest prints KTAP itself.
exec /kselftest/alloc_tag/allocinfo_test
