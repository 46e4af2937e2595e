#!/bin/bash
# make test: for each config of CONFIGS (default: debug profiling arm64 off) build
# the kernel, boot the main test boot (KUnit at boot + kselftests) and every
# boot test of tests/boot/ meant for that config, then report one line per
# test and "N passed, N failed, N skipped" last. Exit 1 on any failure.
# BOOT_TESTS="smoke ..." restricts the boot tests to these names (and the
# main boot to BOOT_TESTS naming "main"; no host tests then).
#
# SUITE=short (make test, CI): every boot test except those whose "# LONG:"
# header names the config. SUITE=long (make test-long): only those, in
# debug and profiling by default, without the main boot and host tests.
# SUITE=all: both. The slowest build and boots come first, so that the
# other kernels build beside boots (see prebuild()).
. "$(dirname "$0")/lib.sh"

SUITE=${SUITE:-short}
case $SUITE in
short | all) CONFIGS=${CONFIGS:-debug profiling arm64 off} ;;
long) CONFIGS=${CONFIGS:-debug profiling} ;;
*) die "SUITE=$SUITE: one of short, long, all" ;;
esac
MANIFEST=$LOGS/test-manifest.tsv
SUMMARY=$LOGS/test-summary.txt

manifest() {
	local IFS=$'\t'
	echo "$*" >>"$MANIFEST"
}

# A setup failure before any config could run still ends with the count line.
setup_failed() {
	[[ -z ${PREBUILD_PID:-} ]] || kill -- "$PREBUILD_PID" 2>/dev/null
	echo "all: $1: FAIL"
	echo "0 passed, 1 failed, 0 skipped" | tee "$SUMMARY"
	exit 1
}

config_has() { grep -q "^$2\$" "$(out_dir "$1")/.config"; }

# BOOT_TESTS="a b": run only these boot tests (names without .sh).
selected() {
	[[ -z ${BOOT_TESTS:-} ]] && return 0
	[[ " $BOOT_TESTS " == *" $1 "* ]]
}

wants_config() {
	local config=$1 c
	for c in $2; do
		[[ $c == all || $c == "$config" ]] && return 0
	done
	return 1
}

main_boot() {
	local config=$1 script kunit=0 targets ksft
	ksft=$(kselftest_dir "$(config_arch "$config")")
	script=$(out_dir "$config")/run-main.sh
	cat >"$script" <<-'EOS'
		# main test boot: KUnit ran at boot; now the kselftests
		ksft-run
	EOS
	config_has "$config" CONFIG_KUNIT=y && kunit=1
	# "target=prog+prog,...": the programs each target must report.
	targets=$(while read -r t; do
		echo "$t=$(paste -sd+ "$ksft/install/kselftest/$t/tests.list")"
	done <"$ksft/targets" | paste -sd,)
	BOOT_APPEND="" TIMEOUT=${USER_TIMEOUT:-} "$TOP/scripts/boot.sh" "$config" main "$script"
	manifest "$config" main main "$LOGS/$config-main.log" "$LOGS/$config-main.status" \
		"$kunit" "${targets:--}"
}

# guest_tools PKG...: a directory with the program PKG of each Debian package
# (installed on the host if missing) and the shared libraries it loads, at
# the paths ldd gives, for a boot test's overlay ("# TOOLS:" header).
guest_tools() {
	local dir=$BUILD/out/guest-tools/${*// /+} pkg bin lib
	if [[ ! -f $dir/.done ]]; then
		rm -rf "$dir"
		for pkg in "$@"; do
			bin=$(command -v "$pkg" || true)
			if [[ -z $bin ]]; then
				say "installing $pkg (a boot test runs it in the guest)" >&2
				as_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q install \
					--no-install-recommends "$pkg" >>"$LOGS/guest-tools.log" 2>&1 ||
					die "cannot install $pkg (see $(show_path "$LOGS/guest-tools.log"))"
				bin=$(command -v "$pkg") || die "$pkg installed no program $pkg"
			fi
			install -D -m 0755 "$bin" "$dir/usr/bin/$pkg"
			for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
				install -D -m 0755 "$(readlink -f "$lib")" "$dir$lib"
			done
		done
		touch "$dir/.done"
	fi
	echo "$dir"
}

boot_tests() {
	local config=$1 script name no_kunit=""
	config_has "$config" CONFIG_KUNIT=y && no_kunit="kunit.enable=0"
	for script in "$TOP"/tests/boot/*.sh; do
		[[ -e $script ]] || continue
		name=$(basename "$script" .sh)
		selected "$name" || continue
		[[ $name == main || $name == run || $name == shell ]] &&
			die "tests/boot/$name.sh: the names main, run and shell are reserved"
		local CONFIGS="" HEADER_LONG="" BOOT_APPEND="" HEADER_TIMEOUT="" HEADER_KUNIT="" HEADER_MEM="" HEADER_VIRTIO_MEM="" HEADER_TOOLS="" header kunit=0 off=$no_kunit overlay=
		header=$("$TOP/scripts/report.py" header "$script") ||
			die "tests/boot/$name.sh: bad header"
		eval "$header"
		[[ -n $CONFIGS ]] ||
			die "tests/boot/$name.sh: no '# CONFIGS:' header (say which configs it runs in, or 'all')"
		wants_config "$config" "$CONFIGS" || continue
		if wants_config "$config" "$HEADER_LONG"; then
			[[ $SUITE != short ]] || continue
		else
			[[ $SUITE != long ]] || continue
		fi
		# "# KUNIT: yes": the KUnit suites run in this boot too.
		if [[ -n $HEADER_KUNIT && -n $no_kunit ]]; then
			kunit=1
			off=""
		fi
		# shellcheck disable=SC2086 # a list of package names
		[[ -z $HEADER_TOOLS ]] || overlay=$(guest_tools $HEADER_TOOLS)
		BOOT_APPEND="$off $BOOT_APPEND" TIMEOUT=${USER_TIMEOUT:-${HEADER_TIMEOUT:-}} \
			MEM=${HEADER_MEM:-${MEM:-}} VIRTIO_MEM=$HEADER_VIRTIO_MEM OVERLAY=${overlay:-${OVERLAY:-}} \
			"$TOP/scripts/boot.sh" "$config" "$name" "$script"
		manifest "$config" boot "$name" "$LOGS/$config-$name.log" "$LOGS/$config-$name.status" \
			"$script" "$kunit"
	done
}

# Tests of the series' user-space tools on the build host (KTAP on stdout):
# tests/tools/<name>-host.sh TREE OUTDIR, for every tool the tree has.
host_tests() {
	local script name log status
	[[ ${HOST_TESTS:-1} != 0 ]] || return 0
	for script in "$TOP"/tests/tools/*-host.sh; do
		[[ -e $script ]] || continue
		name=$(basename "$script" -host.sh)
		[[ -f $TREE/tools/mm/$name.c ]] || continue
		log=$LOGS/host-$name.log
		status=$LOGS/host-$name.status
		: >"$log"
		rm -f "$status"
		run_logged "host tests of tools/mm/$name" "$log" bash -c \
			'"$1" "$2" "$3"; echo "exit=$?" >"$4"' _ \
			"$script" "$TREE" "$BUILD/out/host-$name" "$status"
		manifest host host "tools.$name" "$log" "$status"
	done
}

# Tests of the harness itself (KTAP on stdout): tests/harness/NAME.sh TOP.
harness_tests() {
	local script name log status
	[[ ${HOST_TESTS:-1} != 0 ]] || return 0
	for script in "$TOP"/tests/harness/*.sh; do
		[[ -e $script ]] || continue
		name=$(basename "$script" .sh)
		log=$LOGS/harness-$name.log
		status=$LOGS/harness-$name.status
		: >"$log"
		rm -f "$status"
		run_logged "harness test $name" "$log" bash -c \
			'"$1" "$2"; echo "exit=$?" >"$3"' _ "$script" "$TOP" "$status"
		manifest host host "harness.$name" "$log" "$status"
	done
}

# Guests run on one host thread (single-threaded TCG), so while a config's
# boots run, one of the two cores of a CI machine would idle: the next
# config's kernel builds meanwhile, in the background at a lower priority
# (its progress lines interleave with the boots'). PREBUILD=0: one at a time.
PREBUILD_PID=""
PREBUILD_CONFIG=""

prebuild() {
	local config=$1
	[[ ${PREBUILD:-1} != 0 && -n $config ]] || return 0
	say "building kernel '$config' in the background, beside what runs next"
	nice -n 10 "$TOP/scripts/kernel.sh" "$config" &
	PREBUILD_PID=$!
	PREBUILD_CONFIG=$config
}

build_config() {
	local config=$1 status=0
	if [[ $PREBUILD_CONFIG == "$config" ]]; then
		say "waiting for the background build of '$config'"
		wait "$PREBUILD_PID" || status=$?
		PREBUILD_PID="" PREBUILD_CONFIG=""
		return "$status"
	fi
	"$TOP/scripts/kernel.sh" "$config"
}

test_config() {
	local config=$1 next=${2:-} start=$SECONDS pattern
	say "==== config '$config' ===="
	if ! build_config "$config"; then
		manifest "$config" build "$LOGS/build-$config.log" fail
		prebuild "$next"
		return
	fi
	manifest "$config" build "$LOGS/build-$config.log" ok
	prebuild "$next"
	# Whether the feature is in this config: only where it is not may a
	# test be skipped (scripts/report.py).
	if config_has "$config" CONFIG_MEM_ALLOC_PROFILING=y; then
		manifest "$config" feature profiling
		while IFS= read -r pattern; do
			[[ -z $pattern ]] || manifest "$config" allow-skip "$pattern"
		done < <(config_allow_skips "$config")
	else
		manifest "$config" feature none
	fi
	run_logged "making the initramfs of '$config' (with kselftests)" "$LOGS/initramfs-$config.log" \
		"$TOP/scripts/initramfs.sh" base "$config" --kselftests
	[[ $SUITE == long ]] || ! selected main || main_boot "$config"
	boot_tests "$config"
	say "==== config '$config' done in $(fmt_secs $((SECONDS - start))) ===="
}

main() {
	local start=$SECONDS config
	USER_TIMEOUT=${TIMEOUT:-}
	unset TIMEOUT
	: >"$MANIFEST"
	"$TOP/scripts/tree.sh" ensure || setup_failed tree
	for config in $CONFIGS; do
		[[ -f $(config_file "$config") ]] || setup_failed "config-$config (no configs/$config.config)"
	done
	local name
	for name in ${BOOT_TESTS:-}; do
		[[ $name == main || -f $TOP/tests/boot/$name.sh ]] || setup_failed "BOOT_TESTS: no tests/boot/$name.sh"
	done
	local -a order
	read -r -a order <<<"$CONFIGS"
	# The kselftests and the host tests run on one core: the first
	# kernel builds beside them.
	prebuild "${order[0]}"
	if ! "$TOP/scripts/kselftests.sh"; then
		setup_failed kselftests-build
	fi
	# The kselftests of the other architectures of CONFIGS (cross-built).
	local arch
	for arch in $(for config in $CONFIGS; do config_arch "$config"; done | sort -u); do
		[[ $arch == x86_64 ]] && continue
		"$TOP/scripts/kselftests.sh" "$arch" || setup_failed "kselftests-build-$arch"
	done
	if [[ $SUITE != long && -z ${BOOT_TESTS:-} ]]; then
		host_tests
		harness_tests
	fi
	local i
	for ((i = 0; i < ${#order[@]}; i++)); do
		test_config "${order[i]}" "${order[i + 1]:-}"
	done
	say "all boots done in $(fmt_secs $((SECONDS - start))); results (also in $(show_path "$SUMMARY")):"
	local status=0
	"$TOP/scripts/report.py" summary "$MANIFEST" "$SUMMARY" || status=$?
	exit "$status"
}

main
