#!/bin/sh
# CONFIGS: profiling debug
# APPEND: movablecore=1G nokaslr
# MEM: 3G
#
# Memory hotplug as Debian's kernels have it (MEMORY_HOTPLUG,
# MEMORY_HOTREMOVE): a ZONE_MOVABLE range (movablecore=) holds the pages of
# a tmpfs file; every memory block of the range is offlined, which migrates
# its pages to the rest of memory, and onlined again.  A block that holds
# boot-time (memblock) allocations refuses with EBUSY, "unmovable page":
# the last block of each NUMA node (NODE_DATA) and whatever else memblock
# put in the movable range (KASAN's shadow, one eighth of memory, fills
# node 0's top blocks in debug); movablecore=1G of 3G gives each of the
# two nodes four movable blocks, so that some have none, and leaves node
# 0 room for the pages of node 1's.  nokaslr: physical KASLR may put the
# kernel image in the movable range too.  The file survives, and the site
# that allocated its pages is charged exactly what it was before:
# migration moved each page's charge with its contents.
. /etc/allocprof/ktap.sh

MEMDIR=/sys/devices/system/memory
FILE=/tmp/movable-file
# The page allocator hands out the top of a zone first, where the node's
# last block refuses: the file spans several blocks below it too.
MB=384

# Bytes charged to the shmem folio allocation sites.
shmem_bytes() {
	awk '$NF ~ /^func:shmem_alloc_(folio|page|hugefolio)$/ { b += $1 } END { print b + 0 }' /proc/allocinfo
}

# Memory blocks of ZONE_MOVABLE that are online.
movable_blocks() {
	for b in "$MEMDIR"/memory*; do
		[ "$(cat "$b/state")" = online ] || continue
		[ "$(cat "$b/valid_zones" 2>/dev/null)" = Movable ] && echo "$b"
	done
}

ktap_plan 5
# No swap: a shmem page swapped out under the pressure of the offline is
# uncharged with reason, and would look like a charge the migration lost.
swapoff -a 2>/dev/null
blocks=$(movable_blocks)
n=$(echo "$blocks" | grep -c memory)
ktap_diag "$n online memory blocks in ZONE_MOVABLE"
if [ "$n" -gt 0 ]; then ktap_ok "movablecore= made movable memory blocks"; else
	ktap_fail "movablecore= made movable memory blocks"; fi

# Fill memory so that the file's pages go to ZONE_MOVABLE too: write it
# while page cache of another file takes the normal zones.
base=$(shmem_bytes)
dd if=/dev/urandom of=$FILE bs=1M count=64 2>/dev/null
dd if=/dev/zero bs=1M count=$((MB - 64)) 2>/dev/null >>$FILE
sum1=$(md5sum $FILE | cut -d' ' -f1)
sync
before=$(shmem_bytes)
ktap_diag "shmem sites: $base bytes, $before after writing ${MB} MiB"
grown=$((before - base))
if [ $grown -ge $((MB * 1048576)) ]; then ktap_ok "the file's pages are charged"; else
	ktap_fail "the file's pages are charged ($grown bytes)"; fi

# Free memory (kB) where the pages of memory block $1 can go: the nodes
# with memory other than its own (do_migrate_range() takes its own only
# when it is the only one), or all of it on a kernel without NUMA.
target_free_kb() {
	own=$(ls -d "$1"/node* 2>/dev/null | sed -n '1s,.*/,,p')
	if [ -z "$own" ]; then
		awk '$1 == "MemFree:" { print $2 }' /proc/meminfo
		return
	fi
	t=0 own_kb=0
	for n in /sys/devices/system/node/node*; do
		kb=$(awk '$3 == "MemFree:" { print $4 }' "$n/meminfo")
		if [ "${n##*/}" = "$own" ]; then own_kb=$kb; else t=$((t + kb)); fi
	done
	others=$(ls -d /sys/devices/system/node/node* | wc -l)
	[ "$others" -gt 1 ] && echo $t || echo $own_kb
}

# A block is offlined only while the memory its pages migrate to has room
# for them and to spare: without swap, an offline whose pages have nowhere
# to go retries their migration (and the page allocator warns of each
# failure) until it is interrupted (the timeout, in case).
block_kb=$(($(cat $MEMDIR/block_size_bytes | sed 's/^/0x/') / 1024))
off=0 failed=0 skipped=0
for b in $blocks; do
	free_kb=$(target_free_kb "$b")
	if [ "$free_kb" -lt $((2 * block_kb + 65536)) ]; then
		skipped=$((skipped + 1))
		continue
	fi
	if timeout 120 sh -c "echo offline >$b/state" 2>/dev/null; then
		off=$((off + 1))
	else
		failed=$((failed + 1))
	fi
done
ktap_diag "offlined $off memory blocks ($failed refused or interrupted, $skipped left online: too little free memory where their pages go)"
migrated=$(awk '$1 == "pgmigrate_success" { print $2 }' /proc/vmstat)
ktap_diag "pgmigrate_success: $migrated"
after=$(shmem_bytes)
ktap_diag "shmem sites after the offline: $after bytes"
sum2=$(md5sum $FILE | cut -d' ' -f1)
if [ "$off" -gt 0 ] && [ "${migrated:-0}" -gt 0 ] && [ "$sum1" = "$sum2" ]; then
	ktap_ok "blocks offlined (pages migrated), the file intact"
else
	ktap_fail "blocks offlined (pages migrated), the file intact ($off offlined)"
fi
if [ "$after" = "$before" ]; then ktap_ok "the migrated pages kept their charge"; else
	ktap_fail "the migrated pages kept their charge ($before before, $after after)"; fi

on=0
for b in $blocks; do
	[ "$(cat "$b/state")" = offline ] || continue
	echo online_movable >"$b/state" && on=$((on + 1))
done
rm -f $FILE
now=$(shmem_bytes)
ktap_diag "onlined $on blocks; shmem sites after the file's removal: $now bytes (at boot $base)"
if [ "$on" = "$off" ] && [ $((now - base)) -lt 1048576 ] && [ $((base - now)) -lt 1048576 ]; then
	ktap_ok "blocks onlined again, the file's charge gone with it"
else
	ktap_fail "blocks onlined again, the file's charge gone with it"
fi
