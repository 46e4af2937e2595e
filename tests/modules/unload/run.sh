#!/bin/sh
# make bisect-check's unload boot (guest side): unload_leaker is unloaded
# twice with its allocations alive in unload_holder, a second instance
# loaded in between (at a prefix that freed the first one's tags, it
# would get them again); then everything is freed, charged to call sites
# of modules that are gone.  The host fails the prefix on any kernel
# report in the log, or if UNLOAD-CHECK-DONE is missing.
set -e
cd /root
insmod unload_holder.ko
for round in 1 2; do
	insmod unload_leaker.ko
	if [ -r /proc/allocinfo ]; then
		echo "round $round, unload_leaker's lines:"
		grep unload_leaker /proc/allocinfo || true
	fi
	rmmod unload_leaker
	[ ! -r /proc/allocinfo ] || cat /proc/allocinfo >/dev/null
done
echo 1 >/sys/module/unload_holder/parameters/free
if [ -r /proc/allocinfo ]; then
	echo "after the frees:"
	grep unload_leaker /proc/allocinfo || true
fi
[ ! -r /sys/kernel/debug/allocinfo/check ] || cat /sys/kernel/debug/allocinfo/check
rmmod unload_holder
# A read from the start releases the kept lines of modules now idle.
[ ! -r /proc/allocinfo ] || cat /proc/allocinfo >/dev/null
sleep 1
[ ! -r /proc/allocinfo ] || grep unload_leaker /proc/allocinfo || true
echo UNLOAD-CHECK-DONE
