#!/bin/sh
# CONFIGS: profiling debug
#
# The guest has what production machines have (configs/production.config,
# the disks and NUMA nodes of scripts/boot.sh, the set-up of the guest's
# init): sockets and loopback, a virtio disk with ext4 mounted, an active
# swap device, SYSV IPC, two NUMA nodes; and debug has Debian's page->flags
# layout (configs/debian-layout.config).
. /etc/allocprof/ktap.sh
. /etc/allocprof/env

exists() {
	[ -e "$1" ] || { echo "no $1"; return 1; }
	echo "$1 exists"
}

loopback_up() {
	ip addr show lo
	ip addr show lo | grep -q 'inet 127\.0\.0\.1/8' &&
		ip link show lo | grep -q 'UP'
}

# /proc/net/tcp is there, and a TCP listener shows in it (the test kernels
# have no IPv6: busybox nc listens on IPv4). Traffic over loopback, IPv4
# TCP and UDP, is what the alloc_tag_families kselftest runs.
tcp_listener() {
	exists /proc/net/tcp || return 1
	nc -l -p 5555 >/dev/null 2>&1 &
	srv=$!
	sleep 1
	cat /proc/net/tcp
	grep -q ':15B3 0*:0000 0A ' /proc/net/tcp
	rc=$?
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	return $rc
}

virtio_disk() {
	ls -l /sys/block/
	[ -e /sys/block/vda ] && [ -e /sys/block/vdb ] &&
		grep -q '^/dev/vda /mnt/scratch ext4 ' /proc/mounts
}

swap_active() {
	cat /proc/swaps
	[ "$(awk 'NR > 1' /proc/swaps | wc -l)" -ge 1 ] &&
		grep -q '^/dev/vdb ' /proc/swaps
}

sysv_shm_listed() {
	exists /proc/sysvipc/shm && exists /proc/sysvipc/msg
}

two_nodes() {
	ls /sys/devices/system/node/
	exists /sys/devices/system/node/node1 &&
		[ "$(cat /sys/devices/system/node/online)" = 0-1 ]
}

# debug: Debian's layout leaves at most one bit free; profiling has room
# (SPARSEMEM_VMEMMAP: 32 bits). Probed on the host.
layout() {
	echo "free page->flags bits: ${ALLOCPROF_PAGE_FLAGS_FREE:-unknown}"
	case $ALLOCPROF_CONFIG in
	debug) [ -n "$ALLOCPROF_PAGE_FLAGS_FREE" ] && [ "$ALLOCPROF_PAGE_FLAGS_FREE" -le 1 ] ;;
	*) [ -n "$ALLOCPROF_PAGE_FLAGS_FREE" ] && [ "$ALLOCPROF_PAGE_FLAGS_FREE" -ge 16 ] ;;
	esac
}

ktap_plan 9
ktap_check "loopback up" loopback_up
ktap_check "/proc/net/tcp, a TCP listener in it" tcp_listener
ktap_check "/proc/net/unix" exists /proc/net/unix
ktap_check "virtio disks, ext4 scratch mounted" virtio_disk
ktap_check "swap active on /dev/vdb" swap_active
ktap_check "SYSV IPC" sysv_shm_listed
ktap_check "POSIX message queues" exists /proc/sys/fs/mqueue/msg_max
ktap_check "two NUMA nodes" two_nodes
ktap_check "page->flags layout of the config" layout
