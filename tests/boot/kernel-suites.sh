#!/bin/sh
# CONFIGS: profiling debug
# TIMEOUT: 1500
#
# The kernel's own allocator-heavy test modules (tests we did not write),
# run with allocation profiling on: in the debug kernel, and the slow
# ones in the profiling kernel (see the end). Each runs its
# tests when loaded and refuses to load if one fails; each must load and
# unload, and print no failure. Afterwards, no line of /proc/allocinfo
# may be left to any of them.
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
	# "<suite>: N of M tests passed" (xarray, ida, maple tree): N == M.
	dmesg | grep "tests passed"
	dmesg | sed -n 's/.* \([0-9]*\) of \([0-9]*\) tests passed.*/\1 \2/p' |
		while read -r n total; do
			[ "$n" = "$total" ] || exit 1
		done
}

no_lines_left() {
	grep " \[$1\] " /proc/allocinfo | grep -v "^ *0 *0 " && return 1
	return 0
}

suite_check() {
	suite_runs "$@" && no_lines_left "$1"
}

# run_suite MODULE [PARAMETER...]
run_suite() {
	if ! grep -q "/$1\.ko" "/lib/modules/$(uname -r)/modules.dep"; then
		ktap_skip "$1" "not built in this config"
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
