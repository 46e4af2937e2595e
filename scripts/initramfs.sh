#!/bin/bash
# Guest initramfs.
#
#   initramfs.sh base CONFIG [--kselftests]
#       $BUILD/out/CONFIG/initramfs.cpio: busybox, /init, the helpers
#       (/etc/allocprof/ktap.sh, /opt/allocprof/bin/*), tools/mm/allocinfo
#       of the tree (/usr/bin/allocinfo, static), the boot test
#       libraries (tests/boot/lib/*.sh -> /etc/allocprof/lib/), the modules of
#       CONFIG (from its modroot) and, with --kselftests, the kselftests
#       built by kselftests.sh (/kselftest/<target>/).
#   initramfs.sh run OUTPUT RUNSCRIPT|- ENVFILE [OVERLAY_DIR]
#       a second cpio with /etc/allocprof/run (unless "-"), the env file
#       /etc/allocprof/env and the overlay directory, appended by boot.sh.
. "$(dirname "$0")/lib.sh"

GUEST=$TOP/scripts/guest
# The guest's architecture (kernel name), set by make_base from the config:
# its busybox (the host's for x86_64, Debian's busybox-static of that
# architecture otherwise, scripts/foreign.sh), compiler and console.
KARCH=x86_64

busybox_path() {
	if [[ $KARCH == x86_64 ]]; then
		echo /bin/busybox
	else
		"$TOP/scripts/foreign.sh" "$KARCH" busybox-static >&2
		echo "$("$TOP/scripts/foreign.sh" "$KARCH" --path)/bin/busybox"
	fi
}

# tools/mm/allocinfo of the tree, static, at /usr/bin/allocinfo (trees
# before the patch that adds it have none: make run then falls back to
# /opt/allocprof/bin/allocinfo-top).
install_allocinfo() {
	local root=$1 out=$BUILD/out/tools/
	[[ -f $TREE/tools/mm/allocinfo.c ]] || return 0
	[[ $KARCH == x86_64 ]] || out=$BUILD/out/tools-$KARCH/
	mkdir -p "$out"
	make -C "$TREE/tools/mm" OUTPUT="$out" CC="$(arch_user_cross "$KARCH")gcc" LDFLAGS=-static ||
		die "tools/mm/allocinfo does not build"
	install -m 0755 "$out/allocinfo" "$root/usr/bin/allocinfo"
}

stage_common() {
	local root=$1 d busybox
	for d in bin sbin usr/bin usr/sbin etc/allocprof opt/allocprof/bin \
		proc sys dev tmp run root lib/modules kselftest; do
		mkdir -p "$root/$d"
	done
	chmod 1777 "$root/tmp"
	busybox=$(busybox_path)
	[[ $(file -b "$busybox" 2>&1 || true) == *"statically linked"* ]] ||
		die "$busybox is not static (install busybox-static)"
	install -m 0755 "$busybox" "$root/bin/busybox"
	install -m 0755 "$GUEST/init" "$root/init"
	install -m 0644 "$GUEST/ktap.sh" "$root/etc/allocprof/ktap.sh"
	install -m 0755 "$GUEST/ksft-run" "$GUEST/allocinfo-top" "$GUEST/allocprof-audit" \
		"$root/opt/allocprof/bin/"
	# Shell libraries shared by boot tests: tests/boot/lib/*.sh at
	# /etc/allocprof/lib/ (a test sources /etc/allocprof/lib/name.sh).
	mkdir -p "$root/etc/allocprof/lib"
	local lib
	for lib in "$TOP"/tests/boot/lib/*.sh; do
		[[ -e $lib ]] && install -m 0644 "$lib" "$root/etc/allocprof/lib/"
	done
	install_allocinfo "$root"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
}

make_base() {
	local config=$1 with_ksft=${2:-} out stage
	out=$(out_dir "$config")
	[[ -d $out/modroot ]] || die "no modroot for '$config': build the kernel first (make kernel CONFIG=$config)"
	KARCH=$(out_arch "$out")
	local ksft console
	ksft=$(kselftest_dir "$KARCH")
	console=$(arch_console "$KARCH")
	stage=$out/initramfs.stage
	rm -rf "$stage"
	mkdir -p "$stage/common" "$stage/ksft"
	stage_common "$stage/common"
	local -a dirs=("$stage/common" "$out/modroot")
	if [[ $with_ksft == --kselftests && -d $ksft/install ]]; then
		cp -a "$ksft/install/." "$stage/ksft/"
		dirs+=("$stage/ksft")
	fi
	"$TOP/scripts/mkcpio.py" "$out/initramfs.cpio" --node /dev/console:c:5:1:600 \
		--node /dev/null:c:1:3:666 \
		--node "/dev/$console:c:$(arch_console_node "$KARCH"):600" "${dirs[@]}"
	rm -rf "$stage"
}

make_run() {
	local output=$1 script=$2 envfile=$3 overlay=${4:-} stage
	stage=$output.stage
	rm -rf "$stage"
	mkdir -p "$stage/etc/allocprof"
	[[ $script == - ]] || install -m 0755 "$script" "$stage/etc/allocprof/run"
	install -m 0644 "$envfile" "$stage/etc/allocprof/env"
	local -a dirs=()
	if [[ -n $overlay ]]; then
		[[ -d $overlay ]] || die "OVERLAY=$overlay is not a directory"
		dirs+=("$overlay")
	fi
	dirs+=("$stage")
	"$TOP/scripts/mkcpio.py" "$output" "${dirs[@]}"
	rm -rf "$stage"
}

case ${1:-} in
base)
	shift
	make_base "$@"
	;;
run)
	shift
	make_run "$@"
	;;
*) die "usage: $0 base CONFIG [--kselftests] | run OUTPUT RUNSCRIPT|- ENVFILE [OVERLAY]" ;;
esac
