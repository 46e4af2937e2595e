#!/bin/sh
# CONFIGS: profiling debug
# APPEND: sysctl.vm.mem_profiling=0
#
# 0: off at boot, page_ext reserved, can be switched on at run time.
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/mem_profiling.sh

ktap_plan 10
ktap_check "0: sysctl reads 0" sysctl_is 0
ktap_check "0: page references in their default place" refs_in_default_place
make_allocations
ktap_check "0: nothing accounted while off" allocinfo_zero
# memcg vectors made while off, in use when profiling is switched on
ktap_check "0: memcg charges slab objects while off" memcg_after_switch_on
# objects charged to the cgroup while off, freed after switching on
memcg_enter && memcg_files /tmp/memcg.keep 2000 && memcg_leave
# accounted kmalloc objects while off, in slabs with memcg's vectors alone
ktap_check "0: memcg-charged objects uncharged while off" account_alloc_while_off
ktap_check "0: switching on works" sysctl_write_ok 1
make_allocations
ktap_check "0: accounting after switching on" allocinfo_nonzero
ktap_check "0: memcg charges slab objects after switching on" memcg_after_switch_on
rm -rf /tmp/memcg.keep
ktap_check "0: holes in slabs of memcg's vectors refilled: charged exactly, old objects never" account_holes_refilled
ktap_check "0: no sysctl.* boot errors" no_sysctl_arg_errors
