#!/bin/bash
# make arch-check: the series on the architectures, page sizes and
# toolchains that the CI matrix does not build (about an hour of two cores
# cold; not in CI).
#
# For each config of ARCH_CHECK_CONFIGS (default: arm64-16k arm64-64k i386
# i386-pae x86-clang arm64-clang; configs/<name>.config says its "# arch:"
# and "# toolchain:"):
#   1. build it (scripts/kernel.sh; clang, lld and llvm are installed for
#      the llvm ones) and list its compiler warnings: a warning in a file
#      the series changes fails the check (stock has no such warning there:
#      such files build without warnings in stock's CI configs too; a
#      warning in a file the series does not touch is stock's own and is
#      listed, not counted);
#   2. boot it: the i386 ones with KUnit at boot and every kselftest
#      (make test's main boot, with the cross-built i386 kselftests), the
#      others with KUnit at boot (tests/boot/arch-kunit.sh); the audit
#      after each.
# The table goes to $BUILD/arch-check/result.md (and the README).
. "$(dirname "$0")/lib.sh"

CONFIGS=${ARCH_CHECK_CONFIGS:-arm64-16k arm64-64k i386 i386-pae x86-clang arm64-clang}
AD=$BUILD/arch-check
RESULT=$AD/result.md

need_llvm() {
	local c
	for c in $CONFIGS; do
		[[ $(config_toolchain "$c") == llvm ]] && return 0
	done
	return 1
}

install_llvm() {
	local missing=() p
	for p in clang lld llvm; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	((${#missing[@]} == 0)) && return 0
	run_logged "installing ${missing[*]}" "$LOGS/apt.log" \
		as_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q install \
		--no-install-recommends "${missing[@]}"
}

# Files the series changes (relative paths).
touched_files() {
	git -C "$TREE" diff --name-only base HEAD
}

# warnings CONFIG: "file: message" of the compiler's warnings in its build log.
warnings() {
	{ grep -E '(warning|error):' "$LOGS/build-$1.log" || true; } |
		grep -vE '^\.config:|^scripts/|override: ' |
		sed -E -e "s#$TREE/##g" -e 's#^\.\./##' -e 's#^([^:]+):[0-9]+:[0-9]+: #\1: #' |
		sort -u
}

check_config() {
	local c=$1 arch tc start=$SECONDS w new=0 file
	arch=$(config_arch "$c")
	tc=$(config_toolchain "$c")
	say "arch-check: '$c' ($arch, $tc)"
	"$TOP/scripts/kernel.sh" "$c" || {
		echo "| $c | $arch | $tc | build FAILED | | | |" >>"$AD/rows"
		return 1
	}
	w=$(warnings "$c")
	printf '%s\n' "$w" >"$AD/warnings-$c.txt"
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		file=${line%%:*}
		if grep -qxF "$file" "$AD/touched"; then
			warn "arch-check: '$c': a warning in a file the series changes: $line"
			new=$((new + 1))
		fi
	done <<<"$w"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$arch" "$tc" "$((SECONDS - start))" \
		"$(grep -c . <<<"$w" || true)" "$new" >>"$AD/builds.tsv"
	((new == 0))
}

main() {
	local c fails=0 arches
	"$TOP/scripts/tree.sh" ensure
	rm -rf "$AD"
	mkdir -p "$AD"
	touched_files >"$AD/touched"
	need_llvm && install_llvm
	arches=$(for c in $CONFIGS; do config_arch "$c"; done | sort -u | tr '\n' ' ')
	for a in $arches; do
		[[ $a == x86_64 ]] || "$TOP/scripts/foreign.sh" "$a" busybox-static
	done
	for c in $CONFIGS; do
		check_config "$c" || fails=$((fails + 1))
	done
	# The boots: KUnit (and the audit) everywhere, the kselftests on i386.
	local status=0 ksft="" kunit="" summary=$AD/summary.txt
	for c in $CONFIGS; do
		if [[ $(config_arch "$c") == i386 ]]; then ksft+=" $c"; else kunit+=" $c"; fi
	done
	: >"$summary"
	if [[ -n $ksft ]]; then
		CONFIGS="${ksft# }" BOOT_TESTS=main PREBUILD=0 "$TOP/scripts/test.sh" || status=$?
		cat "$LOGS/test-summary.txt" >>"$summary"
	fi
	if [[ -n $kunit ]]; then
		CONFIGS="${kunit# }" BOOT_TESTS=arch-kunit PREBUILD=0 "$TOP/scripts/test.sh" || status=$?
		cat "$LOGS/test-summary.txt" >>"$summary"
	fi
	python3 "$TOP/scripts/arch-check-report.py" "$AD/builds.tsv" "$LOGS" "$BUILD/out" \
		"$summary" >"$RESULT" || true
	cat "$RESULT"
	((status == 0)) || fails=$((fails + 1))
	((fails == 0)) || die "arch-check: $fails failures (table: $(show_path "$RESULT"))"
	say "arch-check: every config built without a new warning, booted, passed KUnit and the kselftests"
}

main
