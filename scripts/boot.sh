#!/bin/bash
# Boot a built kernel under QEMU (TCG) with the base initramfs of its config
# plus a per-run cpio, keeping the whole serial log.
#
#   boot.sh CONFIG RUN_NAME RUNSCRIPT|-
#
# RUNSCRIPT becomes /etc/allocprof/run in the guest; "-" = none (the guest
# starts an interactive shell: use with INTERACTIVE=1).
# Log:    $BUILD/logs/CONFIG-RUN_NAME.log (the serial console, complete)
# Status: $BUILD/logs/CONFIG-RUN_NAME.status (qemu_status, timed_out,
#         seconds, timeout, guest_exit)
# Environment: APPEND (user kernel parameters), BOOT_APPEND (from a boot
# test header), OVERLAY, SMP (2), MEM (1G), TIMEOUT (seconds, three times as
# many for arm64; default 600
# for debug, 300 otherwise), ICOUNT=1 (-icount shift=0,sleep=off, one vCPU),
# TCG_THREAD (single: all vCPUs in one host thread, the default; multi),
# INTERACTIVE=1 (console on the terminal, no timeout), QEMU_EXTRA (more
# QEMU arguments, split on blanks: e.g. a gdb stub for bench-trace.sh).
# Devices follow the kernel's .config: with VIRTIO_BLK, a fresh scratch ext4
# disk (/dev/vda) and a swap disk (/dev/vdb) per run (DISK_MB, 512; SWAP_MB,
# 256); with NUMA, two nodes, memory split in half, CPUs split as evenly as
# they go (node 1 has none with one CPU); with VIRTIO_BALLOON, a
# virtio-balloon device that a guest inflates and deflates by printing
# "ALLOCPROF-QMP <command>" (scripts/qmp-relay.py; replies in
# $BUILD/logs/CONFIG-RUN_NAME.qmp.log); with VIRTIO_MEM (a size, from a
# boot test's header) and a kernel with CONFIG_VIRTIO_MEM, a virtio-mem
# device "vm0" of that size on node 0, nothing plugged at boot, that the
# guest resizes the same way (qom-set vm0 requested-size).
. "$(dirname "$0")/lib.sh"

CONFIG=${1:?usage: boot.sh CONFIG RUN_NAME RUNSCRIPT|-}
RUN=${2:?run name}
SCRIPT=${3:?run script or -}
OUT=$(out_dir "$CONFIG")
LOG=$LOGS/$CONFIG-$RUN.log
STATUS=$LOGS/$CONFIG-$RUN.status
INITRD=$OUT/initrd-$RUN.cpio

# debug: KASAN's shadow and Debian's layout (8192 CPUs, 1024 nodes) take
# half of 1 GiB, and NUMA node 0 would be left with a few MiB.
if [[ -z ${MEM:-} ]]; then
	if [[ $CONFIG == debug ]]; then MEM=2G; else MEM=1G; fi
fi
if [[ ${ICOUNT:-0} == 1 ]]; then
	SMP=1
else
	SMP=${SMP:-2}
fi
if [[ -z ${TIMEOUT:-} ]]; then
	if [[ $CONFIG == debug ]]; then TIMEOUT=600; else TIMEOUT=300; fi
fi
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "TIMEOUT=$TIMEOUT is not a number of seconds"
# TIMEOUT is in seconds of an x86 guest: QEMU runs an arm64 guest on an
# x86 host about three times slower.
if grep -q '^CONFIG_ARM64=y' "$OUT/.config" 2>/dev/null; then
	TIMEOUT=$((TIMEOUT * 3))
fi
[[ $SMP =~ ^[0-9]+$ ]] || die "SMP=$SMP is not a number"

kernel_release() { cat "$OUT/include/config/kernel.release"; }

# The architecture of the built kernel (x86_64: q35; arm64: QEMU's virt
# machine with -cpu max, console on its PL011).
KARCH=$(out_arch "$OUT")

kconfig_has() { grep -qE "^$1=(y|m)$" "$OUT/.config"; }

# MEM ("1G", "1536M", "2048") in MiB.
mem_mib() {
	case $MEM in
	*[gG]) echo $((${MEM%[gG]} * 1024)) ;;
	*[mM]) echo "${MEM%[mM]}" ;;
	*) echo "$MEM" ;;
	esac
}

DISK=$OUT/disk-$RUN.img
SWAPDISK=$OUT/swap-$RUN.img

# The scratch and swap disks of this run, made fresh: nothing carries over
# from an earlier boot.
make_disks() {
	rm -f "$DISK" "$SWAPDISK"
	truncate -s "${DISK_MB:-512}M" "$DISK"
	# Initialized now: no ext4lazyinit writing in the background of a test.
	mkfs.ext4 -q -F -L scratch -E lazy_itable_init=0,lazy_journal_init=0 "$DISK" >/dev/null ||
		die "mkfs.ext4 $DISK failed"
	truncate -s "${SWAP_MB:-256}M" "$SWAPDISK"
	# (It warns that a file with holes may be refused: the guest sees a disk.)
	# (With the guest's page size: a swap header is one page.)
	local pagesize=4096
	kconfig_has CONFIG_ARM64_16K_PAGES && pagesize=16384
	kconfig_has CONFIG_ARM64_64K_PAGES && pagesize=65536
	mkswap -L swap --pagesize "$pagesize" "$SWAPDISK" >/dev/null 2>&1 || die "mkswap $SWAPDISK failed"
}

make_initrd() {
	local envfile=$OUT/env-$RUN
	{
		echo "ALLOCPROF_CONFIG=$CONFIG"
		echo "ALLOCPROF_RUN=$RUN"
		echo "ALLOCPROF_RELEASE=$(kernel_release)"
		echo "ALLOCPROF_SMP=$SMP"
		echo "ALLOCPROF_ARCH=$KARCH"
		echo "ALLOCPROF_MEM=$MEM"
		# Free page->flags bits of this build (scripts/kernel.sh), "" if unknown.
		echo "ALLOCPROF_PAGE_FLAGS_FREE=$(sed -n 's/^free_bits=\([0-9]*\) .*/\1/p' "$OUT/.allocprof-page-flags" 2>/dev/null)"
		echo "export ALLOCPROF_CONFIG ALLOCPROF_RUN ALLOCPROF_RELEASE ALLOCPROF_SMP ALLOCPROF_ARCH ALLOCPROF_MEM ALLOCPROF_PAGE_FLAGS_FREE"
	} >"$envfile"
	"$TOP/scripts/initramfs.sh" run "$INITRD.run" "$SCRIPT" "$envfile" "${OVERLAY:-}"
	cat "$OUT/initramfs.cpio" "$INITRD.run" >"$INITRD"
	rm -f "$INITRD.run" "$envfile"
}

qemu_cmd() {
	local append="console=$(arch_console "$KARCH") panic=-1 ${BOOT_APPEND:-} ${APPEND:-}"
	local smp=$SMP
	# NUMA: one CPU per socket; CPUs of one socket share a cache and must
	# be on one node (the scheduler warns otherwise).
	kconfig_has CONFIG_NUMA && smp="$SMP,sockets=$SMP,cores=1,threads=1"
	# KASAN kernels get a CPU without 5-level paging.  Stock 6.1 enables
	# interrupts before identify_boot_cpu(), which clears and re-reads
	# boot_cpu_data's capabilities; an interrupt in that window sees
	# pgtable_l5_enabled() false, KASAN then takes every direct-map
	# address (0xff11...) for one without shadow and reports a
	# "wild-memory-access" in the IRQ handler (1 boot in ~100 under TCG).
	local cpu=max
	kconfig_has CONFIG_KASAN && cpu=max,la57=off
	# i386: TCG's "max" CPU says AuthenticAMD, family 6, which a 32-bit
	# kernel takes for an Athlon without SMP support (a WARNING at boot).
	[[ $KARCH == i386 ]] && cpu=max,vendor=GenuineIntel
	local mem=$MEM
	[[ -n ${VIRTIO_MEM:-} ]] && kconfig_has CONFIG_VIRTIO_MEM &&
		mem="$MEM,maxmem=$(($(mem_mib) + $(MEM=$VIRTIO_MEM mem_mib)))M"
	local qemu machine=q35
	qemu=$(arch_qemu "$KARCH")
	[[ $KARCH == arm64 ]] && machine=virt cpu=max
	QEMU=("$qemu" -machine "$machine" -cpu "$cpu" -smp "$smp" -m "$mem"
		-nodefaults -no-user-config -nographic -serial mon:stdio -no-reboot
		-kernel "$OUT/$(arch_image "$KARCH")" -initrd "$INITRD"
		-append "$(echo "$append" | tr -s ' ' | sed 's/ *$//')")
	if [[ ${ICOUNT:-0} == 1 ]]; then
		QEMU+=(-accel tcg,thread=single -icount shift=0,sleep=off)
	else
		# One host thread for all vCPUs unless TCG_THREAD=multi.  With
		# multi-threaded TCG (QEMU 7.2), guests whose two vCPUs sat in
		# the page allocator while vm.mem_profiling was flipped kept
		# executing the int3 of a text_poke_bp() that had finished, for
		# minutes: kprobes' "breakpoint was removed, rerun" rewind, the
		# same RIP and registers in every soft lockup report, apparently
		# a stale translation of the patched text.  Single-threaded TCG
		# runs one vCPU at a time, so code written by one is never stale
		# for the other.
		QEMU+=(-accel "tcg,thread=${TCG_THREAD:-single}")
	fi
	if [[ -n ${QEMU_EXTRA:-} ]]; then
		local extra
		read -r -a extra <<<"$QEMU_EXTRA"
		QEMU+=("${extra[@]}")
	fi
	if kconfig_has CONFIG_VIRTIO_BLK; then
		QEMU+=(-drive "file=$DISK,if=virtio,format=raw,cache=unsafe"
			-drive "file=$SWAPDISK,if=virtio,format=raw,cache=unsafe")
	fi
	# With a balloon driver, a virtio-balloon device and a QMP socket:
	# scripts/qmp-relay.py sends the guest's balloon requests to QEMU.
	QMP_SOCK=
	if kconfig_has CONFIG_VIRTIO_BALLOON; then
		QEMU+=(-device virtio-balloon-pci,id=balloon0)
		QMP_SOCK=yes
	fi
	if [[ -n ${VIRTIO_MEM:-} ]] && kconfig_has CONFIG_VIRTIO_MEM; then
		QEMU+=(-object "memory-backend-ram,id=vmem0,size=$VIRTIO_MEM"
			-device virtio-mem-pci,id=vm0,memdev=vmem0,node=0,requested-size=0)
		QMP_SOCK=yes
	fi
	if [[ -n $QMP_SOCK ]]; then
		# (a short path: a socket's name has at most 107 bytes)
		QMP_SOCK=$(mktemp -u /tmp/allocprof-qmp.XXXXXX)
		QEMU+=(-qmp "unix:$QMP_SOCK,server=on,wait=off")
	fi
	if kconfig_has CONFIG_NUMA; then
		local mib half cpus0
		mib=$(mem_mib)
		[[ $mib =~ ^[0-9]+$ ]] || die "MEM=$MEM: not a size in MiB or GiB"
		half=$((mib / 2))
		cpus0=$(((SMP + 1) / 2))
		QEMU+=(-object "memory-backend-ram,id=node0,size=$((mib - half))M"
			-object "memory-backend-ram,id=node1,size=${half}M"
			-numa "node,nodeid=0,memdev=node0,cpus=0-$((cpus0 - 1))")
		if ((SMP > cpus0)); then
			QEMU+=(-numa "node,nodeid=1,memdev=node1,cpus=$cpus0-$((SMP - 1))")
		else
			QEMU+=(-numa "node,nodeid=1,memdev=node1")
		fi
	fi
}

# Runs QEMU with the timeout; always succeeds, the outcome goes to $STATUS.
run_qemu() {
	local start=$SECONDS status=0 relay=
	if [[ -n $QMP_SOCK ]]; then
		: >"$LOGS/$CONFIG-$RUN.qmp.log"
		python3 "$TOP/scripts/qmp-relay.py" "$QMP_SOCK" "$LOG" "$LOGS/$CONFIG-$RUN.qmp.log" &
		relay=$!
	fi
	timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null || status=$?
	if [[ -n $relay ]]; then
		kill "$relay" 2>/dev/null || true
		wait "$relay" 2>/dev/null || true
		rm -f "$QMP_SOCK"
	fi
	write_status "$status" "$((SECONDS - start))"
}

write_status() {
	local status=$1 secs=$2 timed_out=0 guest
	((status == 124 || status == 137)) && timed_out=1
	guest=$(tr -d '\r' <"$LOG" | sed -n 's/^ALLOCPROF-EXIT \([0-9]*\)$/\1/p' | tail -n 1)
	{
		echo "qemu_status=$status"
		echo "timed_out=$timed_out"
		echo "seconds=$secs"
		echo "timeout=$TIMEOUT"
		echo "guest_exit=${guest:-none}"
	} >"$STATUS"
}

main() {
	[[ -f $OUT/$(arch_image "$KARCH") ]] || die "no kernel for '$CONFIG': make kernel CONFIG=$CONFIG"
	[[ -f $OUT/initramfs.cpio ]] || die "no initramfs for '$CONFIG' (initramfs.sh base $CONFIG)"
	[[ $SCRIPT == - || -f $SCRIPT ]] || die "no run script $SCRIPT"
	make_initrd
	if kconfig_has CONFIG_VIRTIO_BLK; then
		trap 'rm -f "$DISK" "$SWAPDISK"' EXIT
		make_disks
	fi
	qemu_cmd
	: >"$LOG"
	rm -f "$STATUS"
	if [[ ${INTERACTIVE:-0} == 1 ]]; then
		say "booting '$CONFIG' to a shell (serial log: $(show_path "$LOG"); Ctrl-A x quits QEMU)"
		local status=0 start=$SECONDS
		"${QEMU[@]}" | tee "$LOG" || status=$?
		write_status "$status" "$((SECONDS - start))"
	else
		run_logged "booting '$CONFIG' for '$RUN' (timeout ${TIMEOUT}s)" "$LOG" run_qemu
		if [[ $(status_value "$STATUS" timed_out) == 1 ]]; then
			say "TIMEOUT: '$CONFIG' run '$RUN' killed after ${TIMEOUT}s"
		elif [[ $(status_value "$STATUS" guest_exit) == none ]]; then
			say "'$CONFIG' run '$RUN' ended without ALLOCPROF-EXIT" \
				"(qemu status $(status_value "$STATUS" qemu_status)): crash or panic?"
		fi
	fi
	rm -f "$INITRD" "$DISK" "$SWAPDISK"
}

main
