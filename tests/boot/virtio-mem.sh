#!/bin/sh
# CONFIGS: profiling debug
# APPEND: memhp_default_state=online_movable
# VIRTIO-MEM: 512M
#
# virtio-mem as a cloud host drives it (VIRTIO_MEM): the host plugs 256 MiB
# through QMP (scripts/qmp-relay.py), and the guest onlines it movable.
# Unplugging 64 MiB of a block that stays online, the driver takes those
# pages with alloc_contig_range() ("fake offline"): its site in
# drivers/virtio/virtio_mem.c holds exactly 64 MiB in 16384 one-page
# charges, like the pages MemTotal lost.  Unplugging the next 64 MiB takes
# the rest of that block and offlines it: the driver drops its page
# references without freeing the pages, and the offline path uncharges
# them, so the site reads 0 bytes and 0 calls.  (It read 128 MiB, for
# memory the guest no longer had, when the offline path skipped them.)
. /etc/allocprof/ktap.sh

memtotal() { awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo; }
# "bytes calls" of virtio-mem's alloc_contig_range() site.
site() {
	awk '$3 ~ /^drivers\/virtio\/virtio_mem\.c:/ && $NF == "func:virtio_mem_fake_offline" { b += $1; c += $2 }
		END { print b + 0, c + 0 }' /proc/allocinfo
}
request() {
	echo "ALLOCPROF-QMP {\"execute\": \"qom-set\", \"arguments\": {\"path\": \"vm0\", \"property\": \"requested-size\", \"value\": $(($1 * 1048576))}}"
}
# Wait (bounded by count, not time) until MemTotal is $1 kB.
wait_memtotal() {
	i=0
	while [ "$(memtotal)" != "$1" ] && [ $i -lt 600 ]; do
		sleep 1
		i=$((i + 1))
	done
	[ "$(memtotal)" = "$1" ]
}
check_site() {
	set -- $1 $(site)
	ktap_diag "$what: site $2 bytes $3 calls"
	if [ "$2" = $(($1 * 1048576)) ] && [ "$3" = $(($1 * 256)) ]; then
		ktap_ok "$what: the site holds $1 MiB in $(($1 * 256)) pages"
	else
		ktap_fail "$what: the site holds $1 MiB in $(($1 * 256)) pages"
	fi
}

ktap_plan 7
if ls /sys/bus/virtio/drivers/virtio_mem 2>/dev/null | grep -q '^virtio'; then
	ktap_ok "a virtio-mem device is bound"
else
	ktap_fail "a virtio-mem device is bound"
fi

base=$(memtotal)
request 256
if wait_memtotal $((base + 262144)); then
	ktap_ok "the host plugged 256 MiB, online"
else
	ktap_fail "the host plugged 256 MiB, online (MemTotal $(memtotal) kB, was $base kB)"
fi
what=plugged
check_site 0

request 192
if wait_memtotal $((base + 196608)); then
	ktap_ok "the host unplugged 64 MiB of an online block"
else
	ktap_fail "the host unplugged 64 MiB of an online block (MemTotal $(memtotal) kB)"
fi
what="64 MiB fake-offline"
check_site 64

request 128
if wait_memtotal $((base + 131072)); then
	ktap_ok "the host unplugged the rest of the block, which went offline"
else
	ktap_fail "the host unplugged the rest of the block, which went offline (MemTotal $(memtotal) kB)"
fi
what="block offlined and removed"
check_site 0
