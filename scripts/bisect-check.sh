#!/bin/bash
# make bisect-check: at every prefix of the series (patch 1, 1-2, 1-3, ...),
# in the worktree $BUILD/bisect, never touching $BUILD/linux:
#  1. build the 'profiling' and 'off' configs (O=$BUILD/out/bisect-CONFIG;
#     BISECT_CONFIG names others, a space-separated list, "none" skips
#     this step);
#  2. build 'bisect-unload', a small KASAN kernel (O=$BUILD/out/bisect-unload),
#     and the modules of tests/modules/unload against it, boot it and
#     unload a module whose allocations live on, then free them
#     (tests/modules/unload/run.sh): any kernel report, or a persistent
#     difference in the accounting audit after it, fails the prefix.
# Builds are incremental (ccache). Options that do not exist yet at a
# prefix are reported, not fatal. BISECT_FROM=N starts at prefix N (the
# earlier ones said so in the log), to go on after a fix to patch N without
# building 1..N-1 again; BISECT_PREFIXES="N M ..." checks only those (the
# prefixes a change touched). BISECT_UNLOAD=0 skips step 2.
#
# The ledger tests/bisect/passed.tsv (committed) records each step that
# passed, keyed by the build key of the prefix (its content without the
# paths no kernel build reads, whatever commit holds it: see
# scripts/bisect-ledger.sh) and a hash of the harness inputs the step
# depends on; a step found there is not run again (BISECT_FORCE=1 runs it
# anyway). So the walk of a series that is too long for one sitting goes
# on where it stopped, a rebase that leaves a prefix's tree alone keeps its
# results, and a patch of selftests, tools or documentation costs nothing.
. "$(dirname "$0")/lib.sh"

WORKTREE=$BUILD/bisect
COMMITS=$BUILD/bisect.commits
BISECT_CONFIG=${BISECT_CONFIG:-profiling off}
UNLOAD=bisect-unload
UNLOAD_OUT=$(out_dir "$UNLOAD")
UNLOAD_MODS=$UNLOAD_OUT/unload-modules

. "$TOP/scripts/bisect-ledger.sh"

unload_modules() {
	local kcc=gcc
	command -v ccache >/dev/null && kcc="ccache gcc"
	rm -rf "$UNLOAD_MODS"
	mkdir -p "$UNLOAD_MODS"
	cp "$TOP"/tests/modules/unload/{Kbuild,*.c} "$UNLOAD_MODS/"
	make -C "$UNLOAD_OUT" ARCH=x86_64 CC="$kcc" HOSTCC="$kcc" M="$UNLOAD_MODS" modules
}

# The initramfs: busybox, the guest /init, the two modules in /root.
unload_initramfs() {
	local stage=$UNLOAD_OUT/initramfs.stage
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,etc/allocprof,opt/allocprof/bin,root,proc,sys,dev,tmp,run,lib/modules}
	install -m 0755 /bin/busybox "$stage/bin/busybox"
	install -m 0755 "$TOP/scripts/guest/init" "$stage/init"
	install -m 0755 "$TOP/scripts/guest/allocprof-audit" "$stage/opt/allocprof/bin/"
	install -m 0644 "$UNLOAD_MODS"/unload_{holder,leaker}.ko "$stage/root/"
	"$TOP/scripts/mkcpio.py" "$UNLOAD_OUT/initramfs.cpio" --node /dev/console:c:5:1:600 \
		--node /dev/null:c:1:3:666 --node /dev/ttyS0:c:4:64:600 "$stage"
	rm -rf "$stage"
}

# unload_check N TOTAL PATCH: step 2 at prefix N.
unload_check() {
	local n=$1 total=$2 patch=$3 run log found
	SRC=$WORKTREE OUT=$UNLOAD_OUT VERIFY=warn LOGNAME_SUFFIX=$UNLOAD NO_MODROOT=1 \
		"$TOP/scripts/kernel.sh" "$UNLOAD" ||
		die "bisect-check: '$UNLOAD' does not build at patch $n/$total ($patch)"
	run_logged "building tests/modules/unload at patch $n/$total" \
		"$LOGS/build-$UNLOAD.log" unload_modules
	unload_initramfs
	run=unload-$(printf '%02d' "$n")
	log=$LOGS/$UNLOAD-$run.log
	TIMEOUT=${UNLOAD_TIMEOUT:-300} MEM=1G SMP=2 APPEND= OVERLAY= \
		"$TOP/scripts/boot.sh" "$UNLOAD" "$run" "$TOP/tests/modules/unload/run.sh"
	# The scanner of make test: kernel reports, profiling's own debug
	# reports, a module unloaded with live allocations never freed.
	if ! python3 "$TOP/scripts/report.py" scan "$log" >&2; then
		die "bisect-check: patch $n/$total ($patch): a kernel report after unloading a module with live allocations (log: $(show_path "$log"))"
	fi
	# The accounting audit after it (prefixes that have one).
	found=$(tr -d '\r' <"$log" | grep -E '^ALLOCPROF-AUDIT (persistent=[1-9]|failed)' || true)
	[[ -z $found ]] ||
		die "bisect-check: patch $n/$total ($patch): $found after the unloads (log: $(show_path "$log"))"
	tr -d '\r' <"$log" | grep -q '^UNLOAD-CHECK-DONE' ||
		die "bisect-check: patch $n/$total ($patch): the unload run did not finish (log: $(show_path "$log"))"
	say "bisect-check $n/$total: a module unloaded with live allocations, then freed: no report"
}

main() {
	local start=$SECONDS n=0 total commit patch tree ran=0 known=0
	# The worktree is ours until the walk ends (scripts/check.sh).
	exec 8>"$BUILD/bisect.lock"
	flock -n 8 || die "another make bisect-check (or make check) is using $(show_path "$WORKTREE")"
	export BISECT_LOCK_HELD=1
	"$TOP/scripts/check.sh" --apply-only
	total=$(wc -l <"$COMMITS")
	if ((total == 0)); then
		say "bisect-check: the series is empty, nothing to build"
		return 0
	fi
	while read -r commit patch; do
		n=$((n + 1))
		if ((n < ${BISECT_FROM:-1})); then
			say "bisect-check $n/$total: $patch: skipped (BISECT_FROM=$BISECT_FROM)"
			continue
		fi
		if [[ -n ${BISECT_PREFIXES:-} && " $BISECT_PREFIXES " != *" $n "* ]]; then
			say "bisect-check $n/$total: $patch: skipped (BISECT_PREFIXES=$BISECT_PREFIXES)"
			continue
		fi
		say "bisect-check $n/$total: $patch"
		tree=$(build_key "$WORKTREE" "$commit")
		for config in $BISECT_CONFIG; do
			[[ $config == none ]] && continue
			if ledger_has "$tree" "build:$config"; then
				say "bisect-check $n/$total: '$config' built at this tree before (tests/bisect/passed.tsv)"
				known=$((known + 1))
				continue
			fi
			git -C "$WORKTREE" checkout -q --detach "$commit"
			SRC=$WORKTREE OUT=$BUILD/out/bisect-$config VERIFY=warn \
				LOGNAME_SUFFIX=bisect-$config NO_MODROOT=1 "$TOP/scripts/kernel.sh" "$config" ||
				die "bisect-check: the series does not build at patch $n/$total ($patch), config '$config'"
			ledger_add "$tree" "build:$config" "$patch"
			ran=$((ran + 1))
		done
		[[ ${BISECT_UNLOAD:-1} == 0 ]] && continue
		if ledger_has "$tree" unload; then
			say "bisect-check $n/$total: the unload run passed at this tree before (tests/bisect/passed.tsv)"
			known=$((known + 1))
			continue
		fi
		git -C "$WORKTREE" checkout -q --detach "$commit"
		unload_check "$n" "$total" "$patch" </dev/null
		ledger_add "$tree" unload "$patch"
		ran=$((ran + 1))
	done <"$COMMITS"
	local which="all $total prefixes"
	[[ -z ${BISECT_PREFIXES:-} ]] || which="prefixes $BISECT_PREFIXES of $total"
	((${BISECT_FROM:-1} == 1)) || which="$which, from $BISECT_FROM,"
	say "bisect-check: $which build$([[ ${BISECT_UNLOAD:-1} == 0 ]] || echo ", boot and survive a module unload with live allocations") ($ran steps run, $known passed before; $(fmt_secs $((SECONDS - start))))"
}

main
