#!/bin/sh
# CONFIGS: profiling debug
# LONG: debug
# TIMEOUT: 1500
# APPEND: rcupdate.rcu_cpu_stall_timeout=300
# ALLOW-LOG: Test failed: Total count mismatch
#
# (test_free_pages frees and allocates a million order-3 pages in one loop
# that never reschedules: under TCG with KASAN and page_ext references that
# takes longer than the default 21 s RCU stall timeout of a non-preemptible
# kernel, so the boot allows 300 s; a real stall is still reported.)
#
# The kernel's own allocator-heavy test modules (tests we did not write),
# run with allocation profiling on: in the debug kernel, and the slow
# ones in the profiling kernel (see the end). Each runs its
# tests when loaded and refuses to load if one fails; each must load and
# unload, and print no failure ("Test failed", a KTAP "not ok", "FAIL":
# test_rhashtable loads even when its tests fail). Afterwards, no line of
# /proc/allocinfo may be left to any of them.
#
# One failure line is stock 6.1's own: test_rhashtable counts the entries
# of a table with a walker, and a walk that meets a resize (-EAGAIN, "Info:
# encountered resize") may return entries twice, as rhashtable_walk_next()
# documents; its "Total count mismatch" then follows. That pairing is
# accepted (hence ALLOW-LOG); the same line without a resize before it, and
# every other failure line, fails the suite.
#
# The KUnit suites of the debug config (slub_kunit, list, list_sort,
# memcpy, the alloc_tag suites) run at the main boot; test_meminit runs in
# smoke.sh, test_vmalloc in test-vmalloc.sh, test_maple_tree (profiling
# config) in maple-tree.sh. Parameters keep the slower
# suites within the CI budget under TCG with KASAN.

. /etc/allocprof/ktap.sh

suite_runs() {
	m=$1
	shift
	dmesg -c >/dev/null
	start=$(date +%s)
	modprobe "$m" "$@" || { dmesg | tail -20; return 1; }
	modprobe -r "$m" || return 1
	echo "$m took $(($(date +%s) - start)) s" | tee /tmp/suite.time
	# Some suites load even when a test fails (test_rhashtable's init
	# returns 0): their output says it.
	if dmesg | awk '
		/Info: encountered resize/ { resized = 1 }
		/Adding [0-9]+ keys/ { resized = 0 }
		/Test failed: Total count mismatch/ && resized { known++; next }
		/Test failed|^\[[ 0-9.]*\] *not ok |FAIL/ { print; bad = 1 }
		END { if (known) print known " count mismatch(es) after a resize: the walker'"'"'s"; exit !bad }'; then
		echo "$m reported a failure"
		return 1
	fi
	# "<suite>: N of M tests passed" (xarray, ida, maple tree): N == M.
	dmesg | grep "tests passed"
	dmesg | sed -n 's/.* \([0-9]*\) of \([0-9]*\) tests passed.*/\1 \2/p' |
		while read -r n total; do
			[ "$n" = "$total" ] || exit 1
		done
}

# No line of the module left but at 0 0, and (debug kernel) no line of
# the kernel with a negative sum.
no_lines_left() {
	grep " \[$1\] " /proc/allocinfo | grep -v "^ *0 *0 " && return 1
	check=/sys/kernel/debug/allocinfo/check
	# (Its '#' lines tell of unloaded modules kept for their allocations.)
	[ ! -e $check ] || [ -z "$(grep -v '^#' $check)" ] || { cat $check; return 1; }
}

suite_check() {
	suite_runs "$@" && no_lines_left "$1"
}

# run_suite MODULE [PARAMETER...]
run_suite() {
	# The config of each case below builds the module: missing, it fails.
	if ! grep -q "/$1\.ko" "/lib/modules/$(uname -r)/modules.dep"; then
		ktap_fail "$1: not built in this config"
		return
	fi
	ktap_check "$1" suite_check "$@"
	ktap_diag "$(cat /tmp/suite.time 2>/dev/null)"
}

. /etc/allocprof/env
case $ALLOCPROF_CONFIG in
debug)
	ktap_plan 2
	run_suite test_free_pages
	run_suite test_rhashtable parm_entries=4000 runs=2 tcount=4
	;;
*)
	# Long loops under rcu_read_lock(): with KASAN under TCG they take
	# minutes and trip the RCU stall detector, so not in debug.
	ktap_plan 1
	run_suite test_xarray
	;;
esac
