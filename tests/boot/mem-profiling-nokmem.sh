#!/bin/sh
# CONFIGS: profiling debug
# APPEND: cgroup.memory=nokmem
#
# cgroup.memory=nokmem: the memory controller is on but charges no kernel
# memory, so profiling's slab vectors have no obj_cgroup part. memcg still
# asks for the cgroup of slab objects: every dentry and inode put on its
# superblock's LRU (memcg-aware lists) goes through
# mem_cgroup_from_slab_obj(), which must find none. The debug kernel's
# KASAN, and the log scan, catch a read past a vector.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

# 500 files made and looked up in a memory cgroup, then dropped from the
# dcache: their dentries go on and off the LRU.
nokmem_files() {
	memcg_enter || return 1
	memcg_files /tmp/nokmem 500
	ls -l /tmp/nokmem >/dev/null
	memcg_leave
	rm -rf /tmp/nokmem
	echo 2 >/proc/sys/vm/drop_caches
}

# Nothing charged: "slab" of the cgroup's memory.stat stays 0.
nokmem_slab_zero() {
	s=$(memcg_slab)
	echo "cgroup slab: $s"
	[ "$s" = 0 ]
}

ktap_plan 5
ktap_check "nokmem: sysctl reads 1" sysctl_is 1
ktap_check "nokmem: files in a memory cgroup, then dropped" nokmem_files
ktap_check "nokmem: no slab charged to the cgroup" nokmem_slab_zero
make_allocations
ktap_check "nokmem: accounting works" allocinfo_nonzero
ktap_check "nokmem: no sysctl.* boot errors" no_sysctl_arg_errors
