#!/bin/sh
# CONFIGS: debug
# LONG: debug
# TIMEOUT: 1200
#
# The kernel's own vmalloc stress test (lib/test_vmalloc.c, a test we did
# not write) in the debug kernel with allocation profiling on: vmalloc,
# vfree, kvfree_rcu() of vmalloc memory and percpu allocations, from one
# worker thread, every test test_loop_count times. The module runs its
# tests in its init function and then refuses to load (-EAGAIN) on
# purpose; what counts is the "Summary: <test> passed: N failed: N ..."
# line it prints for each test.
#
# align_shift_alloc_test (run_test_mask bit 64) is left out: it is meant
# to fail (it asks for alignments up to 2^63) and its failed allocations
# print warnings with a call trace. All the other tests (mask 1023 - 64)
# must pass. Once the module is gone and what it freed with kvfree_rcu()
# has been freed, /proc/allocinfo must have no line of it left.
# A TCG guest with KASAN takes minutes for this: hence the TIMEOUT.

. /etc/allocprof/ktap.sh

MOD=test_vmalloc
LOOPS=2000
MASK=959
NTESTS=9
LOG=/tmp/test_vmalloc.dmesg
SUMMARY=/tmp/test_vmalloc.summary

# "<test> <passed> <failed>" of every Summary line of the run.
summaries() {
	sed -n 's/.*Summary: \([a-z0-9_]*\) passed: \([0-9]*\) failed: \([0-9]*\) .*/\1 \2 \3/p' "$LOG"
}

ran_all() {
	cat "$SUMMARY"
	n=$(wc -l <"$SUMMARY")
	echo "$n tests reported, expected $NTESTS"
	[ "$n" -ge "$NTESTS" ]
}

all_passed() {
	[ -s "$SUMMARY" ] || { echo "no test reported"; return 1; }
	bad=0
	while read -r name passed failed; do
		if [ "$failed" != 0 ] || [ "$passed" -lt 1 ]; then
			echo "$name: passed $passed, failed $failed"
			bad=1
		fi
	done <"$SUMMARY"
	return $bad
}

# The module's lines go once the last of its allocations is freed
# (kvfree_rcu() frees in batches, after a grace period): poll.
lines_gone() {
	i=0
	while [ $i -lt 60 ]; do
		n=$(grep -c " \[$MOD\] " /proc/allocinfo)
		[ "$n" = 0 ] && { echo "gone after $i s"; return 0; }
		sleep 1
		i=$((i + 1))
	done
	echo "$n lines of $MOD left in /proc/allocinfo:"
	grep " \[$MOD\] " /proc/allocinfo | head -20
	return 1
}

# configs/debug.config builds it: missing, it is a failure.
if ! grep -q "/$MOD\.ko" "/lib/modules/$(uname -r)/modules.dep"; then
	ktap_plan 1
	ktap_fail "$MOD: not built in this config"
	exit 0
fi

ktap_plan 4
ktap_diag "vm.mem_profiling=$(cat /proc/sys/vm/mem_profiling 2>/dev/null)"
dmesg -c >/dev/null
modprobe $MOD test_loop_count=$LOOPS nr_threads=1 run_test_mask=$MASK \
	sequential_test_order=1
status=$?
dmesg >"$LOG"
summaries >"$SUMMARY"
# Its init returns -EAGAIN, so modprobe fails; it must not stay loaded.
ktap_diag "modprobe $MOD exited with status $status (a failure is expected)"
if [ -e /sys/module/$MOD ]; then
	ktap_fail "$MOD does not stay loaded"
	rmmod $MOD
else
	ktap_ok "$MOD does not stay loaded"
fi
ktap_check "$MOD ran its $NTESTS tests" ran_all
ktap_check "every $MOD test reports failed: 0" all_passed
ktap_check "no /proc/allocinfo line of $MOD left" lines_gone
