#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1,novmalloc
# TIMEOUT: 900
#
# vmalloc left out of the families profiled: the pages of vmalloc areas and
# their page arrays are not charged (the hooks see no tag while they are
# allocated; on the debug kernel, no untagged report); pages, slab and
# percpu stay exact. The test module's sites of the families profiled are
# exact, those of vmalloc read 0 0, and vm.mem_profiling_families names the
# families profiled (allocinfo_test families).

# The kselftest prints KTAP itself.
exec /kselftest/alloc_tag/allocinfo_test families
