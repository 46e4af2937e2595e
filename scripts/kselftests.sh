#!/bin/bash
# Build the kselftest targets listed in tests/kselftests, statically, from
# $BUILD/linux, and install them for the guest:
#   $BUILD/out/kselftest/install/kselftest/<target>/   (-> /kselftest/<target>/)
#   .../<target>/tests.list    the programs to run (from kselftest-list.txt)
#   $BUILD/out/kselftest/targets   the targets installed, one per line
# Builds out of tree (O=$BUILD/out/kselftest), so the source tree stays clean.
#
#   kselftests.sh [ARCH]   ARCH (kernel name, default x86_64): for guests of
#                          that architecture, cross-compiled, into
#                          $BUILD/out/kselftest-ARCH (kselftest_dir)
# The 32-bit programs of a target (CC32: the compat ioctl path) are built
# with Debian's i686-linux-gnu-gcc for x86_64 and arm-linux-gnueabihf-gcc
# for arm64 (AArch32 callers of an arm64 kernel) when they are installed
# (make deps installs both).
. "$(dirname "$0")/lib.sh"

KARCH=${1:-x86_64}
CROSS=$(arch_user_cross "$KARCH")
LIST=$TOP/tests/kselftests
KOUT=$(kselftest_dir "$KARCH")
INSTALL=$KOUT/install
LOG=$LOGS/build-kselftests$([[ $KARCH == x86_64 ]] || echo "-$KARCH").log
CC32=
if [[ $KARCH == x86_64 ]] && command -v i686-linux-gnu-gcc >/dev/null; then
	CC32="i686-linux-gnu-gcc -static"
elif [[ $KARCH == arm64 ]] && command -v arm-linux-gnueabihf-gcc >/dev/null; then
	# The 32-bit ARM user API headers of the tree go first: arm64's
	# <asm/...> are not those of an AArch32 program.
	CC32="arm-linux-gnueabihf-gcc -static -isystem $KOUT/arm32-headers/usr/include"
fi

wanted_targets() {
	[[ -f $LIST ]] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$LIST"
}

build_headers() {
	make -C "$TREE" O="$KOUT" ARCH="$KARCH" CROSS_COMPILE="$CROSS" -s headers
	if [[ $KARCH == arm64 && -n $CC32 ]]; then
		make -C "$TREE" O="$KOUT/arm32-headers" ARCH=arm -s headers
	fi
}

build_target() {
	local t=$1 stage=$KOUT/stage-$1
	rm -rf "$stage"
	make -C "$TREE/tools/testing/selftests" O="$KOUT" ARCH="$KARCH" \
		CROSS_COMPILE="$CROSS" CC="${CROSS}gcc -static" ${CC32:+CC32="$CC32"} \
		TARGETS="$t" KSFT_INSTALL_PATH="$stage" install
	[[ -d $stage/$t ]] || {
		echo "kselftest target $t installed nothing"
		return 1
	}
	mkdir -p "$INSTALL/kselftest"
	mv "$stage/$t" "$INSTALL/kselftest/$t"
	sed -n "s|^$t:||p" "$stage/kselftest-list.txt" >"$INSTALL/kselftest/$t/tests.list"
	rm -rf "$stage"
	echo "$t: $(wc -l <"$INSTALL/kselftest/$t/tests.list") program(s): $(tr '\n' ' ' <"$INSTALL/kselftest/$t/tests.list")"
}

main() {
	local t
	local -a present=()
	: >"$LOG"
	rm -rf "$INSTALL"
	mkdir -p "$INSTALL"
	: >"$KOUT/targets"
	while read -r t; do
		[[ -d $TREE/tools/testing/selftests/$t ]] ||
			die "kselftest target '$t' (tests/kselftests) is not in the tree"
		present+=("$t")
	done < <(wanted_targets)
	((${#present[@]} > 0)) || return 0
	run_logged "installing $KARCH kernel headers for the kselftests" "$LOG" build_headers
	for t in "${present[@]}"; do
		run_logged "building kselftest '$t' ($KARCH, static)" "$LOG" build_target "$t"
		echo "$t" >>"$KOUT/targets"
	done
}

main
