#!/bin/sh
# CONFIGS: debug profiling
# LONG: debug
# APPEND: numa=off
# MEM: 6G
#
# A gigantic page allocated at run time without CMA (alloc_contig_pages(),
# which charges it page by page), demoted and freed: each 2 MiB piece is
# freed as one order-9 allocation and must carry the charge of all its pages
# (lib/hugetlb_demote.sh).  With 6 GiB, ZONE_NORMAL is [4 GiB, 8 GiB): its
# top gigabyte holds memblock's allocations (memmap, page_ext), but one in
# the middle is free or movable after boot (with 4 GiB, neither of the two
# gigabytes above 4 GiB was).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/hugetlb_demote.sh

ktap_plan 4
hugetlb_demote_run "the buddy allocator" 512
