# A gigantic (1 GiB) hugetlb page, demoted into 512 pages of 2 MiB which are
# then freed, checked at the sites of mm/cma.c and mm/hugetlb.c (busybox
# sh).  Sourced by tests/boot/hugetlb-*demote.sh after /etc/allocprof/ktap.sh.
#
# alloc_contig_range() (CMA or not) charges a gigantic page page by page.
# Demotion must leave each piece charged the way it will be freed: a piece
# of CMA goes back to CMA page by page (free_gigantic_page()) and keeps the
# charge of each page; any other 2 MiB piece is freed as one order-9
# allocation (__free_pages()) and carries the charge of all its pages on its
# first.  Either way the sites end where they began, bytes and calls.

HUGE_1G=/sys/kernel/mm/hugepages/hugepages-1048576kB
HUGE_2M=/sys/kernel/mm/hugepages/hugepages-2048kB

# "bytes calls" of the sites of mm/cma.c and mm/hugetlb.c
demote_sites() {
	awk '$3 ~ /^mm\/(cma|hugetlb)\.c:/ { b += $1; c += $2 } END { print b + 0, c + 0 }' /proc/allocinfo
}

# demote_snap N: bN and cN, the bytes and calls of the sites now
demote_snap() {
	eval "$(demote_sites | awk -v n="$1" '{ print "b" n "=" $1 " c" n "=" $2 }')"
}

within() {	# within A B TOLERANCE
	[ $(($1 - $2)) -le "$3" ] && [ $(($2 - $1)) -le "$3" ]
}

# check DESCRIPTION CONDITION...: ok or not ok, as the condition goes
demote_check() {
	desc=$1
	shift
	if "$@"; then ktap_ok "$desc"; else ktap_fail "$desc"; fi
}

# hugetlb_demote_run WHERE PIECE_CALLS: WHERE says where the gigantic page
# comes from ("CMA", "the buddy allocator"), PIECE_CALLS how many calls the
# 512 pieces count after the demotion: 512 when each is one allocation,
# 262144 when every page keeps its own.  Four results.
hugetlb_demote_run() {
	where=$1 piece_calls=$2
	if [ ! -e $HUGE_1G/demote ]; then
		for i in 1 2 3 4; do
			ktap_skip "hugetlb demotion" "no 1 GiB huge pages or no demote file"
		done
		return 0
	fi
	demote_snap 0
	echo 1 >$HUGE_1G/nr_hugepages
	demote_snap 1
	n1=$(cat $HUGE_1G/nr_hugepages)
	ktap_diag "1 GiB pages from $where: $n1; sites: $b0 bytes in $c0 calls before, $b1 in $c1 after"
	demote_check "a gigantic page from $where is charged 1 GiB" \
		eval '[ "$n1" = 1 ] && within $((b1 - b0)) 1073741824 65536'
	echo 1 >$HUGE_1G/demote
	demote_snap 2
	n2=$(cat $HUGE_2M/nr_hugepages)
	ktap_diag "after the demotion: $(cat $HUGE_1G/nr_hugepages) 1 GiB and $n2 2 MiB pages; sites: $b2 bytes in $c2 calls"
	demote_check "demoted into 512 pieces of 2 MiB, still charged 1 GiB in $piece_calls calls" \
		eval '[ "$n2" -ge 512 ] && within "$b2" "$b1" 65536 &&
			within $((c2 - c0)) "$piece_calls" 16'
	echo 0 >$HUGE_2M/nr_hugepages
	demote_snap 3
	ktap_diag "after freeing them: $(cat $HUGE_2M/nr_hugepages) 2 MiB pages; sites: $b3 bytes in $c3 calls"
	ktap_diag "left charged: $((b3 - b0)) bytes in $((c3 - c0)) calls"
	demote_check "freed: the bytes are uncharged" within "$b3" "$b0" 65536
	demote_check "freed: the calls are uncharged" within "$c3" "$c0" 16
}
