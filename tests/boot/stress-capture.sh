#!/bin/sh
# CONFIGS: profiling debug
# LONG: debug
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
# The alloc_tag_stress kselftest with 16 sites of its module captured
# (context capture) all along: their allocations are recorded and dropped
# from tasks on every CPU, a timer and an irq_work, across RCU-deferred
# frees, mempool hand-offs, vm.mem_profiling toggles and module loads and
# unloads; afterwards no record may be left, and unloading the module
# must release the sites.  The kselftest prints KTAP itself.

exec /kselftest/alloc_tag/alloc_tag_stress --capture
