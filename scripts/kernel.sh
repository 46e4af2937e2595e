#!/bin/bash
# Configure and build one kernel config: bzImage, modules, modroot.
#
#   kernel.sh NAME        build $BUILD/out/NAME from $BUILD/linux
#
# Config = allnoconfig + merge_config.sh -m of configs/base.config, the
# fragments NAME.config includes (a line "# include: other.config"), and
# configs/NAME.config; then olddefconfig; then every requested option is
# verified in the final .config.  A fragment's "# arch: ARCH" line makes it
# a kernel of that architecture (cross-compiled; configs/X.ARCH.config
# stands in for each included X.config that has one, see scripts/lib.sh).
#
# Environment (used by bisect-check): SRC (source tree, default $BUILD/linux),
# OUT (O= dir, default $BUILD/out/NAME), VERIFY=warn (report dropped options
# without failing), LOGNAME_SUFFIX (log file name part, default NAME),
# NO_MODROOT=1 (skip modules_install).
. "$(dirname "$0")/lib.sh"

NAME=${1:?usage: kernel.sh CONFIG_NAME}
SRC=${SRC:-$TREE}
OUT=${OUT:-$(out_dir "$NAME")}
VERIFY=${VERIFY:-strict}
LOG=$LOGS/build-${LOGNAME_SUFFIX:-$NAME}.log

# The architecture from the config's "# arch:" line (x86_64 by default),
# cross-compiled with Debian's gcc-<arch>-linux-gnu where it is not the
# host's.
KARCH=$(config_arch "$NAME")
CROSS=$(arch_cross "$KARCH")
KCC=$(kernel_cc "$CROSS")
HOSTKCC=$(kernel_cc)
# "# toolchain: llvm": clang and LLVM's binutils (LLVM=1, which finds the
# target from ARCH).
LLVM_ARGS=()
if [[ $(config_toolchain "$NAME") == llvm ]]; then
	CROSS=""
	KCC=$(kernel_cc "" | sed 's/gcc$/clang/')
	HOSTKCC=$KCC
	LLVM_ARGS=(LLVM=1)
fi

kmake() {
	make -C "$SRC" O="$OUT" ARCH="$KARCH" CROSS_COMPILE="$CROSS" CC="$KCC" \
		HOSTCC="$HOSTKCC" "${LLVM_ARGS[@]}" LOCALVERSION= \
		KBUILD_BUILD_USER=allocprof KBUILD_BUILD_HOST=allocprof "$@"
}

# allnoconfig + fragments + olddefconfig. Leaves .config untouched (mtime
# included) when the result is the same, so nothing is rebuilt for it.
configure() {
	local -a frags=("${FRAGS[@]}")
	mkdir -p "$OUT"
	[[ -f $OUT/.config ]] && cp -p "$OUT/.config" "$OUT/.config.allocprof-prev"
	kmake -s allnoconfig
	echo "merging: ${frags[*]}"
	(cd "$OUT" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" "${frags[@]}")
	kmake -s olddefconfig
	if [[ -f $OUT/.config.allocprof-prev ]]; then
		if cmp -s "$OUT/.config" "$OUT/.config.allocprof-prev"; then
			mv "$OUT/.config.allocprof-prev" "$OUT/.config"
		else
			rm -f "$OUT/.config.allocprof-prev"
		fi
	fi
	if [[ $VERIFY == warn ]]; then
		"$TOP/scripts/kconfig-verify.py" --warn "$OUT/.config" "${frags[@]}"
	else
		"$TOP/scripts/kconfig-verify.py" "$OUT/.config" "${frags[@]}"
	fi
	config_key >"$OUT/.allocprof-config-key"
}

# What the generated .config depends on: the fragments, the Kconfig files of
# the tree (committed and not) and the compiler. Plus the .config itself, so
# a hand-edited .config is regenerated.
config_key() {
	{
		cat "${FRAGS[@]}"
		git -C "$SRC" ls-files -s -- ':(glob)**/Kconfig*' ':(glob)Kconfig*'
		git -C "$SRC" diff HEAD -- ':(glob)**/Kconfig*' ':(glob)Kconfig*'
		${KCC##* } --version | head -n 1
		sha256sum <"$OUT/.config"
	} 2>&1 | sha256sum | cut -d' ' -f1
}

config_is_current() {
	[[ -f $OUT/.config && -f $OUT/.allocprof-config-key ]] &&
		[[ $(config_key) == "$(cat "$OUT/.allocprof-config-key")" ]]
}

build() {
	kmake -j"$NPROC" "$(arch_image_target "$KARCH")" modules
}

install_modules() {
	rm -rf "$OUT/modroot"
	kmake -s INSTALL_MOD_PATH="$OUT/modroot" INSTALL_MOD_STRIP=1 modules_install
}

# One build per O= dir at a time: a second make in the same dir corrupts both.
lock_out_dir() {
	mkdir -p "$OUT"
	exec 9>"$OUT/.allocprof-lock"
	if ! flock -n 9; then
		say "another build of '$NAME' is running in $(show_path "$OUT"): waiting for it"
		flock 9
	fi
}

main() {
	[[ -d $SRC/.git || -f $SRC/.git ]] || die "no kernel tree at $(show_path "$SRC"): run 'make tree'"
	lock_out_dir
	: >"$LOG"
	local start=$SECONDS
	mapfile -t FRAGS < <(fragments_for "$NAME")
	if config_is_current; then
		say "kernel config '$NAME' is up to date (configs/ and Kconfig unchanged)"
	else
		run_logged "configuring kernel '$NAME'" "$LOG" configure
	fi
	run_logged "building kernel '$NAME' with $KCC -j$NPROC" "$LOG" build
	[[ -n ${NO_MODROOT:-} ]] || run_logged "installing modules of '$NAME'" "$LOG" install_modules
	# The page->flags layout the guests' tests expect (scripts/boot.sh).
	[[ -n ${NO_MODROOT:-} ]] || run_logged "measuring the free page->flags bits of '$NAME'" "$LOG" \
		bash -c '"$1" "$2" | tee "$2/.allocprof-page-flags"' _ "$TOP/scripts/page-flags-bits.sh" "$OUT"
	say "kernel '$NAME' ($KARCH) $(cat "$OUT/include/config/kernel.release") ready in $(fmt_secs $((SECONDS - start))): $(show_path "$OUT/$(arch_image "$KARCH")")"
}

main
