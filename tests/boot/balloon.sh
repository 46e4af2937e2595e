#!/bin/sh
# CONFIGS: profiling debug
#
# virtio-balloon as a cloud host drives it (VIRTIO_BALLOON,
# BALLOON_COMPACTION): the host inflates the balloon through QMP (the guest
# asks scripts/qmp-relay.py on the console), the balloon driver allocates
# its pages at one site of mm/balloon_compaction.c, compaction migrates them
# (movable-ops pages: the reference must move with them), and the host
# deflates it.  At every step the site holds exactly 4096 bytes per page
# that /proc/vmstat counts in the balloon (balloon_inflate -
# balloon_deflate), and 0 bytes and 0 calls at the end.
. /etc/allocprof/ktap.sh

INFLATE_MB=128

vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
in_balloon() { echo $(($(vmstat balloon_inflate) - $(vmstat balloon_deflate))); }
# "bytes calls" of the balloon's page allocation site.
site() {
	awk '$3 ~ /^mm\/balloon_compaction\.c:/ && $NF == "func:balloon_page_alloc" { b += $1; c += $2 }
		END { print b + 0, c + 0 }' /proc/allocinfo
}
qmp_balloon() {
	echo "ALLOCPROF-QMP {\"execute\": \"balloon\", \"arguments\": {\"value\": $1}}"
}
# Wait (bounded by count, not time) until the balloon holds $1 pages.
wait_pages() {
	i=0
	while [ "$(in_balloon)" != "$1" ] && [ $i -lt 600 ]; do
		sleep 1
		i=$((i + 1))
	done
	[ "$(in_balloon)" = "$1" ]
}
check_site() {
	pages=$(in_balloon)
	set -- $(site)
	ktap_diag "$what: $pages pages in the balloon, site $1 bytes $2 calls"
	if [ "$1" = $((pages * 4096)) ] && [ "$2" = "$pages" ] && [ "$need" -gt 0 ]; then
		ktap_ok "$what: the site holds the balloon's pages exactly"
	else
		ktap_fail "$what: the site holds the balloon's pages exactly"
	fi
}

ktap_plan 6
if ls /sys/bus/virtio/drivers/virtio_balloon 2>/dev/null | grep -q '^virtio'; then
	ktap_ok "a virtio-balloon device is bound"
else
	ktap_fail "a virtio-balloon device is bound"
fi

# The host's balloon target is the guest's memory size in bytes: QEMU's
# -m (ALLOCPROF_MEM), not MemTotal, which the kernel's reservations lower.
case $ALLOCPROF_MEM in
*[gG]) ram_mb=$((${ALLOCPROF_MEM%[gG]} * 1024)) ;;
*[mM]) ram_mb=${ALLOCPROF_MEM%[mM]} ;;
*) ram_mb=$ALLOCPROF_MEM ;;
esac
want=$((INFLATE_MB * 256))
# Where the balloon's pages are decides whether compaction moves any: its
# migration scanner goes up from the bottom of a zone, the free scanner
# down from the top, and they meet in between; physical KASLR moves
# whatever memory is free at a given time from boot to boot.  So the
# balloon inflates into holes spread over all of memory: 4 MiB tmpfs files
# take all free memory but 64 MiB, every fourth is removed (a quarter of
# it, more than the balloon takes), the balloon inflates, and the rest are
# removed.  Some of its pages are then below the point where the scanners
# meet, wherever the kernel was loaded.  (4 MiB, not smaller: one dd per
# file, and under KASAN and TCG each costs a tenth of a second.)
FILE_MB=4
free_mb=$(awk '$1 == "MemFree:" { print int($2 / 1024) }' /proc/meminfo)
files=$(((free_mb - 64) / FILE_MB))
mkdir -p /dev/shm/balloon-holes
i=0
while [ $i -lt $files ]; do
	dd if=/dev/zero of=/dev/shm/balloon-holes/$i bs=1M count=$FILE_MB 2>/dev/null
	i=$((i + 1))
done
i=0
while [ $i -lt $files ]; do
	rm -f /dev/shm/balloon-holes/$i
	i=$((i + 4))
done
ktap_diag "$free_mb MiB free; $(((files + 3) / 4 * FILE_MB)) MiB of holes among $files $FILE_MB MiB files while the balloon inflates"
qmp_balloon $(((ram_mb - INFLATE_MB) * 1048576))
if wait_pages $want; then
	ktap_ok "the host inflated the balloon by $INFLATE_MB MiB"
else
	ktap_fail "the host inflated the balloon by $INFLATE_MB MiB ($(in_balloon) pages of $want)"
fi
what=inflated need=1
check_site
rm -rf /dev/shm/balloon-holes

migrated=$(vmstat balloon_migrate) scanned=$(vmstat compact_migrate_scanned)
pgmig=$(vmstat pgmigrate_success) pgfail=$(vmstat pgmigrate_fail)
echo 1 >/proc/sys/vm/compact_memory
migrated=$(($(vmstat balloon_migrate) - migrated))
ktap_diag "compaction: $(($(vmstat compact_migrate_scanned) - scanned)) pages scanned, $(($(vmstat pgmigrate_success) - pgmig)) migrated, $(($(vmstat pgmigrate_fail) - pgfail)) failed"
# Not a check that cannot fail: without a migrated balloon page it fails.
what="compacted ($migrated balloon pages migrated)" need=$migrated
check_site

qmp_balloon $((ram_mb * 1048576))
if wait_pages 0; then
	ktap_ok "the host deflated the balloon"
else
	ktap_fail "the host deflated the balloon ($(in_balloon) pages left)"
fi
what=deflated need=1
check_site
