#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1,nopages
# TIMEOUT: 900
#
# pages left out of the families profiled: the page allocator's own entry
# points are not charged (their sites read 0 0), while vmalloc areas and
# large kmalloc() charge their pages themselves, exactly. The test module's
# sites of the families profiled are exact, those of pages read 0 0, and
# vm.mem_profiling_families names the families profiled (allocinfo_test
# families).

# The kselftest prints KTAP itself.
exec /kselftest/alloc_tag/allocinfo_test families
