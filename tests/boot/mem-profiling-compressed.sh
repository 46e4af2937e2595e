#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1,compressed
#
# 1,compressed: page references in page->flags where it has room (no
# page_ext memory, no warning); in Debian's layout (debug) the fallback to
# page_ext, with one warning saying why.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

ktap_plan 6
ktap_check "1,compressed: sysctl reads 1" sysctl_is 1
if [ "$(default_refs)" = flags ]; then
	ktap_check "1,compressed: page references in page->flags" page_refs_in flags
	ktap_check "1,compressed: no fallback warning" no_room_warnings 0
	ktap_check "1,compressed: no page_ext memory" page_ext_none
else
	ktap_check "1,compressed: no room: page references in page_ext" page_refs_in page_ext
	ktap_check "1,compressed: one fallback warning" no_room_warnings 1
	ktap_check "1,compressed: page_ext reserved for them, 4 bytes a page" page_ext_4_bytes_a_page
fi
ktap_check "1,compressed: no malformed warning" malformed_warnings 0
ktap_check "1,compressed: no sysctl.* boot errors" no_sysctl_arg_errors
