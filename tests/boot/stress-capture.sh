#!/bin/sh
# CONFIGS: profiling debug
# LONG: debug
# TIMEOUT: 900
#
# The alloc_tag_stress kselftest with 16 sites of its module captured
# (context capture) all along: their allocations are recorded and dropped
# from tasks on every CPU, a timer and an irq_work, across RCU-deferred
# frees, mempool hand-offs, vm.mem_profiling toggles and module loads and
# unloads; afterwards no record may be left, and unloading the module
# must release the sites.  The kselftest prints KTAP itself.

exec /kselftest/alloc_tag/alloc_tag_stress --capture
