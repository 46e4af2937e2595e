#!/bin/sh
# CONFIGS: debug
# TIMEOUT: 900
#
# The alloc_tag_stress kselftest with allocation failures injected: its
# tasks run with /proc/<pid>/make-it-fail set while failslab and
# fail_page_alloc (task-filtered) refuse 10% of their slab and page
# allocations, the slab object vectors that hold the references included.
# Everything else of the stress run is as in the main boot: vm.mem_profiling
# toggled, /proc/allocinfo read, a module loaded and unloaded, and in the
# end every line of the stress module must read 0 bytes in 0 calls.
# The kselftest prints KTAP itself.

exec /kselftest/alloc_tag/alloc_tag_stress --faults
