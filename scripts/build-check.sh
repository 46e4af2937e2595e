#!/bin/bash
# make build-check: compile coverage of the series on a full-size config.
#
# Builds x86_64_defconfig three times (bzImage + modules, ccache, -j$NPROC):
#   stock   the pristine base (tag "base"), no series
#   on      the series + the profiling options (configs/build-check-on.config)
#   off     the series with profiling compiled out
# in one worktree, $BUILD/build-check/src, with O= dirs under
# $BUILD/build-check/, never touching $BUILD/linux (only its commits).
# Then compares the compiler warnings of "on" and "off" with "stock": a
# warning (file, message; line numbers ignored, they move with the series)
# that stock does not have, or any error, fails the check.
#
# Too slow for CI (about 15 minutes of both cores per build cold). The
# result is in $BUILD/build-check/result.md; logs in $BUILD/logs/.
# BUILD_CHECK_VARIANTS="on off" rebuilds only those and compares them with
# the stock warnings of an earlier run. A build is resumable: interrupted,
# it goes on where it stopped the next time (the log of the interrupted
# part is kept); finished for the same commit and config, it is not
# redone. (Debian's configs: make distro-check, scripts/distro-check.sh.)
. "$(dirname "$0")/lib.sh"

BC=$BUILD/build-check
ON_FRAG=$TOP/configs/build-check-on.config
WHAT=x86_64_defconfig
LOGPFX=build-check
WT=$BC/src
VARIANTS=${BUILD_CHECK_VARIANTS:-stock on off}

KCC=$(kernel_cc)

kmake() {
	make -C "$WT" O="$OUT" ARCH=x86_64 CC="$KCC" HOSTCC="$KCC" LOCALVERSION= \
		KBUILD_BUILD_USER=allocprof KBUILD_BUILD_HOST=allocprof "$@"
}

checkout() {
	local rev=$1
	if [[ ! -e $WT/.git ]]; then
		rm -rf "$WT"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$WT" "$rev"
	else
		git -C "$WT" checkout -q --detach -f "$rev"
	fi
}

configure() {
	local variant=$1
	kmake -s x86_64_defconfig
	case $variant in
	on)
		(cd "$OUT" && "$WT/scripts/kconfig/merge_config.sh" -m -O "$OUT" \
			"$OUT/.config" "$ON_FRAG")
		kmake -s olddefconfig
		"$TOP/scripts/kconfig-verify.py" "$OUT/.config" "$ON_FRAG"
		;;
	off)
		if grep -q '^CONFIG_MEM_ALLOC_PROFILING=y' "$OUT/.config"; then
			die "$WHAT turned profiling on"
		fi
		;;
	esac
}

# make prints each warning once per compile; a full rebuild is needed to
# see them all, so the object files are removed first (ccache keeps the
# rebuild cheap: it replays the compiler's warnings too). Not when resuming
# an interrupted build: the warnings of its first part are in the log.
build() {
	[[ ${1:-} == resume ]] || kmake -s clean
	kmake -k -j"$NPROC" bzImage modules
}

# "file: warning text" (source path relative, line/column dropped), sorted.
warnings_of() {
	local log=$1
	{ grep -E '(warning|error):' "$log" || true; } |
		sed -E -e "s#$WT/##g" -e 's#^\.\./##' \
			-e 's#^([^:]+):[0-9]+:[0-9]+: #\1: #' \
			-e 's#^([^:]+):[0-9]+: #\1: #' |
		sort -u
}

build_variant() {
	local variant=$1 rev log key state mode=fresh
	state=$BC/state-$variant
	case $variant in
	stock) rev=$(git -C "$TREE" rev-parse base) ;;
	*) rev=$(git -C "$TREE" rev-parse HEAD) ;;
	esac
	OUT=$BC/out-$variant
	log=$LOGS/$LOGPFX-$variant.log
	key="$rev $(md5sum <"$ON_FRAG" | cut -c1-12)"
	mkdir -p "$OUT"
	if [[ -f $state && $(cat "$state") == "done $key" && -f $BC/warnings-$variant.txt ]]; then
		say "$LOGPFX: $variant already built for $(git -C "$TREE" rev-parse --short "$rev") (remove $(show_path "$state") to redo)"
		return 0
	fi
	if [[ -f $state && $(cat "$state") == "building $key" ]]; then
		mode=resume
		say "$LOGPFX: resuming the interrupted build of $variant"
	else
		: >"$log"
	fi
	say "$LOGPFX: $variant = $WHAT at $(git -C "$TREE" rev-parse --short "$rev")"
	if [[ $mode == fresh ]]; then
		rm -f "$state"
		checkout "$rev"
		run_logged "configuring $variant" "$log" configure "$variant"
	fi
	# From here on an interrupted build resumes where it stopped.
	echo "building $key" >"$state"
	local start=$SECONDS status=0
	# In a subshell: a failed build (errors are reported below) ends it only.
	(HEARTBEAT=60 run_logged "building $variant ($WHAT, -j$NPROC)" "$log" build "$mode") ||
		status=$?
	warnings_of "$log" >"$BC/warnings-$variant.txt"
	if ((status == 0)); then
		echo "done $key" >"$state"
	else
		echo "failed $key" >"$state"
	fi
	say "$LOGPFX: $variant built in $(fmt_secs $((SECONDS - start))) (status $status), $(wc -l <"$BC/warnings-$variant.txt") distinct warnings"
}

main() {
	local start=$SECONDS v fail=0 new
	mkdir -p "$BC"
	for v in $VARIANTS; do
		build_variant "$v"
	done
	{
		echo "# make build-check ($(date -u +%Y-%m-%d), $(git -C "$TREE" describe --always HEAD))"
		echo
		echo "$WHAT, gcc $(gcc -dumpfullversion), bzImage + modules."
		echo
		echo "| build | distinct warnings | errors | new vs stock |"
		echo "|---|---|---|---|"
		for v in $(echo stock $VARIANTS | tr ' ' '\n' | awk '!seen[$0]++'); do
			local errs nnew=-
			[[ -f $BC/warnings-$v.txt ]] || continue
			errs=$(grep -c 'error:' "$BC/warnings-$v.txt" || true)
			if [[ $v != stock && -f $BC/warnings-stock.txt ]]; then
				comm -13 "$BC/warnings-stock.txt" "$BC/warnings-$v.txt" >"$BC/new-$v.txt"
				nnew=$(wc -l <"$BC/new-$v.txt")
				((nnew == 0)) || fail=1
			fi
			((errs == 0)) || fail=1
			# A build that failed without an "error:" line (modpost,
			# the linker, a missing tool) fails too.
			[[ $(cut -d' ' -f1 "$BC/state-$v" 2>/dev/null) == done ]] || fail=1
			echo "| $v ($(cut -d' ' -f1 "$BC/state-$v" 2>/dev/null || echo '?')) | $(wc -l <"$BC/warnings-$v.txt") | $errs | $nnew |"
		done
		for v in $VARIANTS; do
			[[ -s $BC/new-$v.txt ]] || continue
			echo
			echo "New warnings in $v:"
			echo
			sed 's/^/    /' "$BC/new-$v.txt"
		done
	} >"$BC/result.md"
	cat "$BC/result.md"
	if ((fail)); then
		die "build-check: new warnings or errors (see $(show_path "$BC/result.md"))"
	fi
	say "build-check passed in $(fmt_secs $((SECONDS - start)))"
}

main
