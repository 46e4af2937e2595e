#!/bin/sh
# CONFIGS: profiling
# APPEND: sysctl.vm.mem_profiling=1,nopercpu
# TIMEOUT: 900
#
# percpu left out of the families profiled: alloc_percpu() and its relatives
# are not charged; the others stay exact. The test module's sites of the
# families profiled are exact, those of percpu read 0 0, and
# vm.mem_profiling_families names the families profiled (allocinfo_test
# families).

# The kselftest prints KTAP itself.
exec /kselftest/alloc_tag/allocinfo_test families
