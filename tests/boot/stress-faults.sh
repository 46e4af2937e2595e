#!/bin/sh
# CONFIGS: debug
# TIMEOUT: 900
# TCG: single
#
# (All vCPUs in one host thread: with QEMU's multi-threaded TCG, a debug
# guest whose vCPUs both sat in the page allocator while vm.mem_profiling
# was flipped hundreds of times a second kept executing the int3 of a
# finished text_poke_bp() for 800 s (kprobes' "breakpoint was removed,
# rerun" rewind, the same RIP and registers in every soft lockup report),
# apparently a stale translation of patched kernel text.)
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
