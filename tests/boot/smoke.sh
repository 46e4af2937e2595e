#!/bin/sh
# CONFIGS: all
# APPEND: init_on_alloc=1 init_on_free=1
#
# (test_meminit checks that heap and page memory comes zeroed: that holds
# only with init_on_alloc/init_on_free, hence the APPEND.)
# Smoke test: the basics every config must get right. Runs as root in the
# guest with /etc/allocprof/env (ALLOCPROF_RELEASE, ALLOCPROF_SMP, ...).
#
# The "# CONFIGS:" and "# APPEND:" lines above are headers the harness
# reads; see README.md for the others (ALLOW-LOG, TIMEOUT).

. /etc/allocprof/ktap.sh

# Test modules that are cheap to load, by config (configs/*.config build
# them): each is loaded and unloaded, and one that is missing fails.
. /etc/allocprof/env
case $ALLOCPROF_CONFIG in
debug) SMOKE_MODULES="test_meminit test_alloc_tag test_alloc_tag_leak" ;;
profiling) SMOKE_MODULES="test_alloc_tag test_alloc_tag_leak" ;;
*) SMOKE_MODULES="" ;;
esac

built() {
	grep -q "/$1\.ko" "/lib/modules/$(uname -r)/modules.dep" 2>/dev/null ||
		{ echo "$1 is not built in this config"; return 1; }
}

check_mounts() {
	for fs in "/proc proc" "/sys sysfs" "/dev devtmpfs" "/tmp tmpfs" \
		"/sys/kernel/debug debugfs" "/sys/fs/cgroup cgroup2"; do
		set -- $fs
		grep -q " $1 $2 " /proc/mounts || { echo "$1 is not $2"; return 1; }
	done
}

check_release() {
	echo "running $(uname -r), built $ALLOCPROF_RELEASE"
	[ "$(uname -r)" = "$ALLOCPROF_RELEASE" ]
}

check_cpus() {
	online=$(grep -c '^processor' /proc/cpuinfo)
	echo "online: $online ($(cat /sys/devices/system/cpu/online)), expected $ALLOCPROF_SMP"
	[ "$online" = "$ALLOCPROF_SMP" ]
}

# 100 children that really execve() (their comm is "busybox", not "sh"),
# sequentially and then all at once.
check_fork_exec() {
	n=0
	for i in $(seq 100); do
		c=$( (exec /bin/busybox cat /proc/self/comm))
		[ "$c" = busybox ] && n=$((n + 1))
	done
	echo "sequential: $n/100 exec'd"
	[ "$n" = 100 ] || return 1
	mkdir -p /tmp/fe
	for i in $(seq 100); do
		(exec /bin/busybox sh -c "echo \$\$ >/tmp/fe/$i") &
	done
	wait
	n=$(ls /tmp/fe | wc -l)
	echo "parallel: $n/100 ran"
	rm -rf /tmp/fe
	[ "$n" = 100 ]
}

check_tmpfs() {
	dd if=/dev/urandom of=/tmp/smoke.1 bs=64k count=64 2>/dev/null &&
		cp /tmp/smoke.1 /tmp/smoke.2 &&
		cmp /tmp/smoke.1 /tmp/smoke.2 &&
		[ "$(wc -c </tmp/smoke.2)" -eq 4194304 ] &&
		rm /tmp/smoke.1 /tmp/smoke.2
}

# Load, then unload unless the module has no exit function ("[permanent]"
# in /proc/modules, e.g. test_meminit): a failing test module fails to load.
load_unload() {
	built "$1" || return 1
	modprobe "$1" || return 1
	if grep -q "^$1 .*\[permanent\]" /proc/modules; then
		echo "$1 is permanent (no module_exit): not unloading"
		return 0
	fi
	modprobe -r "$1"
}

ktap_plan $((6 + $(echo $SMOKE_MODULES | wc -w)))
ktap_check "meminfo readable" grep -q '^MemTotal:' /proc/meminfo
ktap_check "filesystems mounted" check_mounts
ktap_check "uname -r is the built release" check_release
ktap_check "$ALLOCPROF_SMP CPUs online" check_cpus
ktap_check "fork and exec 100 processes" check_fork_exec
ktap_check "tmpfs write and read back" check_tmpfs
for m in $SMOKE_MODULES; do
	ktap_check "load and unload $m" load_unload "$m"
done
