#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=1,noslab
# TIMEOUT: 900
#
# slab left out of the families profiled: kmalloc() and kmem_cache_alloc(),
# large kmalloc() included, are not charged, and no slab gets a vector for
# references: the caches of such vectors are never created. On the debug
# kernel, the pages of large kmalloc()s, allocated with the tag hidden, are
# not reported as untagged. The test module's sites of the families profiled
# are exact, those of slab read 0 0, and vm.mem_profiling_families names the
# families profiled (allocinfo_test families).

# The kselftest prints KTAP itself.
exec /kselftest/alloc_tag/allocinfo_test families
