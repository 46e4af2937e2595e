#!/bin/sh
# CONFIGS: debug
# APPEND: numa=off nokaslr hugetlb_cma=1G
# MEM: 4G
#
# A gigantic page from hugetlb's CMA area (hugetlb_cma=; CONFIG_CMA is on
# in debug and in Debian's arm64 kernels, not in its amd64 ones), demoted
# and freed: the pieces go back to CMA page by page and must keep the
# charge of each page (lib/hugetlb_demote.sh).
#
# 6.1 aligns the area to 2 MiB only, so the guest is laid out for a 1 GiB-
# aligned one: with 4 GiB, RAM above 4 GiB is [4 GiB, 6 GiB), and CMA takes
# its area bottom-up from 4 GiB when it fits there ("cma: Reserved 1024 MiB
# at 0x0000000100000000").  nokaslr keeps the kernel image out of that
# gigabyte; numa=off keeps the reservation on one node (with two, each node
# ends with boot-time allocations and neither reservation succeeds).
. /etc/allocprof/ktap.sh
. /etc/allocprof/lib/hugetlb_demote.sh

ktap_plan 5
if dmesg | grep -q 'cma: Reserved 1024 MiB at 0x0000000100000000'; then
	ktap_ok "hugetlb's CMA area is the gigabyte at 4 GiB"
else
	ktap_fail "hugetlb's CMA area is the gigabyte at 4 GiB"
	dmesg | grep -E 'cma|hugetlb' | while read -r l; do ktap_diag "$l"; done
fi
hugetlb_demote_run CMA 262144
