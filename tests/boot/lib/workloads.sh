# Workload rounds of tests/boot/workloads*.sh (source after ktap.sh and,
# optionally, a ktap_plan of its own: workloads_plan says how many results
# workloads_run adds).  See workloads.sh.

SNG="stress-ng --timeout 120 --oomable --metrics-brief"
ROUNDS=6

round() {
	name=$1
	shift
	ktap_diag "round $name: $*"
	"$@" >/tmp/round.log 2>&1
	rc=$?
	sed 's/^/#   /' /tmp/round.log | tail -n 12
	if [ $rc = 0 ]; then ktap_ok "$name: the workload ran"; else
		ktap_fail "$name: the workload ran (exit $rc)"; fi
	allocprof-audit >/tmp/audit.log 2>&1
	grep -v '^audit [23]:' /tmp/audit.log | sed 's/^/#   /' | tail -n 20
	if grep -q '^ALLOCPROF-AUDIT persistent=0$' /tmp/audit.log; then
		ktap_ok "$name: the audit finds no persistent difference"
	else
		ktap_fail "$name: the audit finds no persistent difference ($(grep '^ALLOCPROF-AUDIT' /tmp/audit.log))"
	fi
}

# A stress-ng run inside a memory cgroup of $1 bytes: its anonymous memory
# goes to swap (zram first) and comes back.
in_small_cgroup() {
	limit=$1
	shift
	cg=/sys/fs/cgroup/workloads
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir -p $cg && echo "$limit" >$cg/memory.max || return 1
	sh -c "echo \$\$ >$cg/cgroup.procs && exec $*"
	rc=$?
	rmdir $cg 2>/dev/null
	return $rc
}

swap_then_compact() {
	in_small_cgroup 33554432 $SNG --vm 1 --vm-bytes 48M --vm-keep --vm-ops 3 || return 1
	grep -E '^(/dev/zram0|/dev/vdb)' /proc/swaps
	awk '$1 ~ /^(pswpout|pswpin|compact_migrate_scanned|pgmigrate_success)$/' /proc/vmstat
	echo 1 >/proc/sys/vm/compact_memory
}

ksm_merge() {
	k=/sys/kernel/mm/ksm
	[ -w $k/run ] || { echo "no KSM"; return 1; }
	echo 1 >$k/run
	echo 10 >$k/sleep_millisecs
	$SNG --vm 1 --vm-bytes 16M --vm-keep --vm-ops 4 --vm-madvise mergeable
	rc=$?
	echo "pages_sharing $(cat $k/pages_sharing) full_scans $(cat $k/full_scans)"
	echo 2 >$k/run
	return $rc
}

workloads_plan() { echo $((ROUNDS * 2 + 2)); }

workloads_run() {
	if command -v stress-ng >/dev/null; then ktap_ok "stress-ng in the guest"; else
		ktap_fail "stress-ng in the guest"; fi
	round vm $SNG --vm 2 --vm-bytes 16M --vm-ops 8 --mmap 1 --mmap-bytes 8M --mmap-ops 8 \
		--mremap 1 --mremap-ops 8
	round memory $SNG --malloc 2 --malloc-ops 20000 --brk 1 --brk-ops 4000 --shm 1 --shm-ops 8 \
		--memfd 1 --memfd-ops 8 --userfaultfd 1 --userfaultfd-ops 2000
	round socket $SNG --sock 2 --sock-ops 2000 --udp 1 --udp-ops 4000 --sockpair 1 --sockpair-ops 200
	round process $SNG --fork 2 --fork-ops 400 --clone 1 --clone-ops 400 --exec 1 --exec-ops 100
	round zram-swap-compact swap_then_compact
	round ksm ksm_merge

	neg=$(awk '$1 ~ /^-[0-9]/ || $2 ~ /^-[0-9]/' /proc/allocinfo | head -n 5)
	if [ -z "$neg" ]; then ktap_ok "no negative counter after the workloads"; else
		ktap_fail "no negative counter after the workloads"
		echo "$neg" | sed 's/^/#   /'
	fi
}
