#!/bin/bash
# make debian-boot: the packages of make deb on a real Debian 12.
#
# 1. debootstrap bookworm (the mirror of the host's apt sources) with
#    systemd, udev, initramfs-tools, prometheus-node-exporter and curl into
#    $BUILD/debian/rootfs (kept: made again only when the package list
#    changes; DEBIAN_FRESH=1 makes it again);
# 2. a copy of it gets the packages with dpkg -i in a chroot (the kernel
#    package's own hooks make its initramfs), a network unit (DHCP) and
#    tests/debian/allocprof-check.service, and becomes an ext4 image;
# 3. QEMU boots that kernel and initramfs with systemd as init, the guest's
#    port 9100 forwarded to the host; the guest reports on the serial
#    console (tests/debian/allocprof-check) and powers off, the host curls
#    the node exporter meanwhile;
# 4. checks: multi-user reached with no failed unit ("running"), no kernel
#    report in the serial log (scripts/report.py scan), /proc/allocinfo
#    read, allocinfo top works, the timer wrote the textfile and the node
#    exporter serves allocinfo metrics, to the guest and to the host.
#
# DEBIAN_KERNEL=allocprof (default): the packages listed by make deb
# ($BUILD/deb/packages; the kernel and the tool). DEBIAN_KERNEL=archive:
# Debian's own linux-image-cloud-amd64 with the tool package (the harness
# without a built kernel: /proc/allocinfo is absent there, so only the
# systemd, timer-skip and exporter checks apply). Result in
# $BUILD/debian/result.md; serial log $BUILD/logs/debian-boot.log.
. "$(dirname "$0")/lib.sh"

DD=$BUILD/debian
ROOTFS=$DD/rootfs
STAGE=$DD/stage
IMAGE=$DD/root.img
LOG=$LOGS/debian-boot.log
KIND=${DEBIAN_KERNEL:-allocprof}
PORT=${DEBIAN_PORT:-19100}
TIMEOUT=${TIMEOUT:-1200}
INCLUDE=systemd-sysv,udev,initramfs-tools,kmod,procps,iproute2,curl,prometheus-node-exporter,zstd
[[ $KIND == archive ]] && INCLUDE=$INCLUDE,linux-image-cloud-amd64

mirror() {
	local m
	m=$(sed -n 's/^URIs:[[:space:]]*\(http[^[:space:]]*debian\)$/\1/p' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[[ -n $m ]] || m=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' \
		/etc/apt/sources.list 2>/dev/null)
	printf '%s\n' "${m:-http://deb.debian.org/debian}"
}

make_rootfs() {
	local key
	key="bookworm $INCLUDE"
	if [[ ${DEBIAN_FRESH:-0} != 1 && -f $DD/rootfs.key && $(cat "$DD/rootfs.key") == "$key" ]]; then
		say "Debian 12 root file system up to date ($(show_path "$ROOTFS"))"
		return
	fi
	command -v debootstrap >/dev/null || {
		say "installing debootstrap"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q install \
			--no-install-recommends debootstrap >>"$LOGS/apt.log" 2>&1 ||
			die "cannot install debootstrap (log: $(show_path "$LOGS/apt.log"))"
	}
	as_root rm -rf "$ROOTFS" "$DD/rootfs.key"
	mkdir -p "$DD"
	run_logged "debootstrap bookworm ($(mirror))" "$LOGS/debian-debootstrap.log" \
		as_root debootstrap --variant=minbase --include="$INCLUDE" bookworm "$ROOTFS" "$(mirror)"
	printf '%s\n' "$key" >"$DD/rootfs.key"
}

chroot_mounts() {
	local r=$1 what=$2 m
	for m in proc sys dev; do
		if [[ $what == on ]]; then
			as_root mount --bind "/$m" "$r/$m"
		else
			as_root umount -l "$r/$m" 2>/dev/null || true
		fi
	done
}

# The packages to install: make deb's list, or the tool alone (archive).
packages() {
	local list=$BUILD/deb/packages
	[[ -f $list ]] || die "no $(show_path "$list"): run 'make deb' first"
	if [[ $KIND == archive ]]; then
		grep '/allocinfo_[^/]*\.deb$' "$list"
	else
		grep -v -- '-dbg_\|linux-libc-dev_\|linux-headers-' "$list"
	fi
}

configure_stage() {
	local r=$STAGE deb
	as_root rm -rf "$r"
	as_root cp -a "$ROOTFS" "$r"
	printf 'allocprof-debian\n' | as_root tee "$r/etc/hostname" >/dev/null
	printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' | as_root tee "$r/etc/fstab" >/dev/null
	as_root chroot "$r" passwd -d root >/dev/null
	as_root mkdir -p "$r/etc/systemd/network" "$r/usr/local/sbin" "$r/root/debs"
	printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n' |
		as_root tee "$r/etc/systemd/network/10-dhcp.network" >/dev/null
	as_root chroot "$r" systemctl enable systemd-networkd.service >/dev/null 2>&1
	as_root install -m 0755 "$TOP/tests/debian/allocprof-check" "$r/usr/local/sbin/"
	as_root install -m 0644 "$TOP/tests/debian/allocprof-check.service" "$r/etc/systemd/system/"
	as_root chroot "$r" systemctl enable allocprof-check.service >/dev/null 2>&1
	while read -r deb; do
		as_root cp "$deb" "$r/root/debs/"
	done < <(packages)
	chroot_mounts "$r" on
	# dpkg -i as a user would (the kernel package's postinst makes the
	# initramfs through /etc/kernel/postinst.d/initramfs-tools).
	as_root chroot "$r" sh -c 'dpkg -i /root/debs/*.deb' || {
		chroot_mounts "$r" off
		return 1
	}
	chroot_mounts "$r" off
	as_root rm -rf "$r/root/debs"
}

make_image() {
	local size_mb
	size_mb=$(($(as_root du -sm "$STAGE" | cut -f1) + 1024))
	rm -f "$IMAGE"
	truncate -s "${size_mb}M" "$IMAGE"
	as_root mkfs.ext4 -q -F -L root -E lazy_itable_init=0,lazy_journal_init=0 -d "$STAGE" "$IMAGE"
}

boot() {
	local vmlinuz=$1 initrd=$2 start=$SECONDS pid metrics=0 host_metrics=""
	: >"$LOG"
	rm -f "$DD/host-metrics.txt"
	say "booting $(basename "$vmlinuz") under systemd (log: $(show_path "$LOG"), at most $(fmt_secs "$TIMEOUT"))"
	timeout "$TIMEOUT" qemu-system-x86_64 -machine q35 -cpu max -smp 2 -m 2G \
		-nographic -no-reboot -kernel "$vmlinuz" -initrd "$initrd" \
		-append "root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1" \
		-drive file="$IMAGE",if=virtio,format=raw \
		-netdev user,id=n0,hostfwd=tcp:127.0.0.1:$PORT-:9100 \
		-device virtio-net-pci,netdev=n0 >"$LOG" 2>&1 </dev/null &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		if ((metrics == 0)) && tr -d '\r' <"$LOG" | grep -q '^ALLOCPROF-DEBIAN ready'; then
			curl -fsS --max-time 30 -o "$DD/host-metrics.txt" "http://127.0.0.1:$PORT/metrics" 2>/dev/null || true
			host_metrics=$(grep -c '^allocinfo_bytes{' "$DD/host-metrics.txt" 2>/dev/null || true)
			metrics=1
			say "  the guest is up after $(fmt_secs $((SECONDS - start))); the host reads $(grep -vc '^#' "$DD/host-metrics.txt" 2>/dev/null || echo 0) series on port $PORT, ${host_metrics:-0} of them allocinfo_bytes"
		fi
	done
	wait "$pid" || true
	printf '%s\n' "${host_metrics:-0}" >"$DD/host-metrics"
	printf '%s\n' "$(grep -c '^node_' "$DD/host-metrics.txt" 2>/dev/null || echo 0)" >"$DD/host-node-series"
	say "the guest stopped after $(fmt_secs $((SECONDS - start)))"
}

value() { tr -d '\r' <"$LOG" | sed -n "s/^ALLOCPROF-DEBIAN $1 //p" | tail -n 1; }

verdict() {
	local fails=0 want name got host
	host=$(cat "$DD/host-metrics")
	{
		echo "# make debian-boot ($KIND, $(date -u +%Y-%m-%d))"
		echo
		echo "| check | value |"
		echo "|---|---|"
		for name in kernel state failed-units allocinfo-header allocinfo-sites allocinfo-bytes compressed \
			allocinfo-top-status textfile timer timer-service-result exporter \
			exporter-allocinfo-bytes-series exporter-textfile-errors; do
			echo "| $name | $(value "$name") |"
		done
		echo "| host-node-series | $(cat "$DD/host-node-series") |"
		echo "| host-allocinfo-bytes-series | $host |"
	} >"$DD/result.md"
	cat "$DD/result.md"
	check() {
		if [[ $2 == "$3" ]]; then return; fi
		warn "debian-boot: $1: '$3', expected '$2'"
		fails=$((fails + 1))
	}
	check "system state" running "$(value state)"
	check "failed units" none "$(value failed-units)"
	check "timer" active "$(value timer)"
	check "node exporter" active "$(value exporter)"
	check "textfile scrape errors" 0 "$(value exporter-textfile-errors)"
	[[ $(cat "$DD/host-node-series") -gt 100 ]] ||
		check "node exporter series on the forwarded port" "> 100" "$(cat "$DD/host-node-series")"
	check "the run finished" 1 "$(tr -d '\r' <"$LOG" | grep -c '^ALLOCPROF-DEBIAN done')"
	if [[ $KIND == allocprof ]]; then
		check "/proc/allocinfo" "allocinfo - version: 2.0" "$(value allocinfo-header)"
		check "allocinfo top" 0 "$(value allocinfo-top-status)"
		check "textfile" present "$(value textfile)"
		check "timer's service" success "$(value timer-service-result)"
		want=$(value allocinfo-sites)
		[[ $(value exporter-allocinfo-bytes-series) -gt 100 ]] ||
			check "allocinfo series in the guest's /metrics" "> 100" "$(value exporter-allocinfo-bytes-series)"
		[[ $host -gt 100 ]] || check "allocinfo series on the forwarded port" "> 100" "$host"
	else
		check "/proc/allocinfo" none "$(value allocinfo-header)"
		check "textfile" missing "$(value textfile)"
	fi
	python3 "$TOP/scripts/report.py" scan "$LOG" >&2 || {
		warn "debian-boot: a kernel report in $(show_path "$LOG")"
		fails=$((fails + 1))
	}
	((fails == 0)) || die "debian-boot: $fails checks failed (result: $(show_path "$DD/result.md"), log: $(show_path "$LOG"))"
	say "debian-boot: Debian 12 booted $(value kernel) under systemd: every check passed"
}

main() {
	local vmlinuz initrd
	make_rootfs
	run_logged "installing the packages in a copy of the root file system" \
		"$LOGS/debian-dpkg.log" configure_stage
	vmlinuz=$(as_root sh -c "ls -1 $STAGE/boot/vmlinuz-* | tail -n 1")
	initrd=$(as_root sh -c "ls -1 $STAGE/boot/initrd.img-* | tail -n 1")
	[[ -n $vmlinuz && -n $initrd ]] || die "no kernel or initramfs in $(show_path "$STAGE/boot")"
	cp "$vmlinuz" "$DD/vmlinuz"
	cp "$initrd" "$DD/initrd.img"
	run_logged "making the ext4 image" "$LOGS/debian-image.log" make_image
	boot "$DD/vmlinuz" "$DD/initrd.img"
	verdict
}

main
