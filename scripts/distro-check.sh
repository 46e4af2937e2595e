#!/bin/bash
# make distro-check: the series on the kernels users run, Debian's own 6.1
# configs (package linux-config-6.1, the version of BASE_VERSION).
#
# For each flavour of DISTRO_FLAVOURS (default "cloud-amd64 amd64"):
#   1. scripts/build-check.sh with DISTRO=flavour builds bzImage and every
#      module three times, "on" (the series, profiling built in and on:
#      configs/distro-on.config), "stock" (the base) and "off" (the series,
#      profiling compiled out), and compares the warnings with stock;
#   2. measures the "on" build: allocation tags in vmlinux and in all
#      modules, the vmlinux size against stock, the free page->flags bits;
#   3. for cloud-amd64: boots the "on" kernel in QEMU with all its modules
#      and the kselftests in the initramfs, runs the kselftests and shows
#      /proc/allocinfo of a real distribution kernel.
# The table goes to $BUILD/distro/result.md. Hours on 2 cores (amd64 has
# 3,853 modules): run it at nice 19 in the background; it is resumable
# (ccache, make -k, finished builds are not redone). DISTRO_VARIANTS
# overrides the builds ("on stock off"); DISTRO_BOOT=0 skips the boot.
. "$(dirname "$0")/lib.sh"

FLAVOURS=${DISTRO_FLAVOURS:-cloud-amd64 amd64}
VARIANTS=${DISTRO_VARIANTS:-on stock off}
DD=$BUILD/distro
RESULT=$DD/result.md

# Size of an ELF section in a file (0 if it has none).
section_size() {
	local hex
	# "[Nr] Name Type Address Off Size ...": the Size column after Name.
	hex=$(readelf -S -W "$1" 2>/dev/null |
		awk -v s="$2" '{ for (i = 1; i < NF; i++) if ($i == s) { print $(i + 4); exit } }')
	echo $((16#${hex:-0}))
}

# Tags of vmlinux (from System.map: the section is inside .data) and of
# every module, in units of struct alloc_tag (56 bytes in 6.1 x86_64).
TAG_SIZE=56
vmlinux_tags() {
	local map=$1/System.map start stop
	start=$(awk '$3 == "__start_alloc_tags" { print $1 }' "$map")
	stop=$(awk '$3 == "__stop_alloc_tags" { print $1 }' "$map")
	[[ -n $start && -n $stop ]] || { echo 0; return; }
	echo $(((16#$stop - 16#$start) / TAG_SIZE))
}

module_tags() {
	local out=$1 total=0 n=0 s ko
	while IFS= read -r ko; do
		s=$(section_size "$ko" alloc_tags)
		total=$((total + ${s:-0}))
		n=$((n + 1))
	done < <(find "$out" -name '*.ko' -not -path '*/modroot/*')
	echo "$((total / TAG_SIZE)) $n"
}

vmlinux_bytes() {
	size "$1/vmlinux" | awk 'NR == 2 { print $4 }'
}

measure() {
	local flavour=$1 on=$DD/$1/out-on stock=$DD/$1/out-stock m
	[[ -f $on/vmlinux ]] || return 0
	m=$DD/$flavour/measure
	{
		echo "vmlinux_tags=$(vmlinux_tags "$on")"
		read -r mt nk < <(module_tags "$on")
		echo "module_tags=$mt"
		echo "modules=$nk"
		echo "vmlinux_bytes=$(vmlinux_bytes "$on")"
		[[ -f $stock/vmlinux ]] && echo "stock_vmlinux_bytes=$(vmlinux_bytes "$stock")"
		"$TOP/scripts/page-flags-bits.sh" "$on" | tr ' ' '\n'
	} >"$m"
	say "distro-check: $flavour measured: $(tr '\n' ' ' <"$m")"
}

# The cloud kernel booted in QEMU: its modules (stripped) and the
# kselftests in the initramfs, the boot test scripts/guest/distro-run.
boot() {
	local flavour=$1 on=$DD/$1/out-on name=distro-$1 out
	[[ -f $on/arch/x86/boot/bzImage ]] || { say "distro-check: no $flavour kernel to boot"; return 0; }
	out=$(out_dir "$name")
	mkdir -p "$(dirname "$out")"
	ln -sfn "$on" "$out"
	# The source of the "on" build (a later variant may have checked out
	# another commit in the shared worktree).
	git -C "$DD/$flavour/src" checkout -q --detach -f "$(git -C "$TREE" rev-parse HEAD)"
	run_logged "installing the modules of $flavour" "$LOGS/distro-$flavour-modules.log" \
		bash -c 'rm -rf "$1/modroot" && make -C "$2" O="$1" INSTALL_MOD_PATH="$1/modroot" INSTALL_MOD_STRIP=1 modules_install' \
		_ "$on" "$DD/$flavour/src"
	"$TOP/scripts/kselftests.sh"
	run_logged "making the initramfs of $flavour" "$LOGS/distro-$flavour-initramfs.log" \
		"$TOP/scripts/initramfs.sh" base "$name" --kselftests
	MEM=2G TIMEOUT=1800 "$TOP/scripts/boot.sh" "$name" ksft "$TOP/scripts/guest/distro-run"
	local log=$LOGS/$name-ksft.log
	{
		echo "boot: $(grep -m1 'Linux version' "$log" | tr -d '\r' | sed 's/^\[[^]]*\] //')"
		echo "kselftests: $(grep -c '^ok ' "$log") ok, $(grep -c '^not ok ' "$log") not ok, $(grep -c '# SKIP' "$log") skipped"
		grep -E 'ALLOCPROF-KSFT-END' "$log" | tr -d '\r'
	} >"$DD/$flavour/boot"
	cat "$DD/$flavour/boot"
}

report() {
	local f v
	{
		echo "# make distro-check ($(date -u +%Y-%m-%d), series at $(git -C "$TREE" describe --always HEAD))"
		echo
		echo "Debian's linux-config-6.1 configs, debug info off, gcc $(gcc -dumpfullversion), bzImage + all modules."
		echo
		echo "| flavour | build | warnings | errors | new vs stock | vmlinux tags | module tags (modules) | vmlinux size vs stock | free page->flags bits |"
		echo "|---|---|---|---|---|---|---|---|---|"
		for f in $FLAVOURS; do
			for v in on off stock; do
				local w=$DD/$f/warnings-$v.txt st=$DD/$f/state-$v m=$DD/$f/measure
				[[ -f $w ]] || continue
				local errs nnew=- state tags=- mtags=- delta=- bits=-
				state=$(cut -d' ' -f1 "$st" 2>/dev/null)
				errs=$(grep -c 'error:' "$w" || true)
				if [[ $v != stock && -f $DD/$f/warnings-stock.txt ]]; then
					nnew=$(comm -13 "$DD/$f/warnings-stock.txt" "$w" | wc -l)
				fi
				if [[ $v == on && -f $m ]]; then
					. "$m"
					tags=$vmlinux_tags
					mtags="$module_tags ($modules)"
					[[ -n ${stock_vmlinux_bytes:-} ]] &&
						delta=$(printf '%+d B' $((vmlinux_bytes - stock_vmlinux_bytes)))
					bits=$free_bits
				fi
				echo "| $f | $v (${state:-?}) | $(wc -l <"$w") | $errs | $nnew | $tags | $mtags | $delta | $bits |"
			done
		done
		for f in $FLAVOURS; do
			[[ -f $DD/$f/boot ]] || continue
			echo
			echo "$f booted:"
			echo
			sed 's/^/    /' "$DD/$f/boot"
		done
	} >"$RESULT"
	cat "$RESULT"
}

main() {
	local start=$SECONDS f status=0
	mkdir -p "$DD"
	"$TOP/scripts/tree.sh" ensure
	for f in $FLAVOURS; do
		DISTRO=$f BUILD_CHECK_VARIANTS="$VARIANTS" "$TOP/scripts/build-check.sh" || status=1
		measure "$f"
		if [[ $f == cloud-amd64 && ${DISTRO_BOOT:-1} != 0 ]]; then
			boot "$f"
		fi
	done
	report
	say "distro-check done in $(fmt_secs $((SECONDS - start)))"
	return $status
}

main
