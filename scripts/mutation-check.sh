#!/bin/bash
# make mutation-check: for each mutation of scripts/mutations.py (or those
# of MUTATIONS="a b"), break a scratch copy of the series on purpose, run
# the profiling config of make test (main boot and smoke) against it, and
# require that it fails; print the tests that caught it. The scratch tree
# is $BUILD/mut (its own build directory); build/linux is not touched.
# Not in CI: about 3-5 minutes a mutation, after a first cold build.
. "$(dirname "$0")/lib.sh"

MUT=$BUILD/mut
OUT=$LOGS/mutation-check.txt

main() {
	local m start status=0 list
	list=${MUTATIONS:-$("$TOP/scripts/mutations.py" list)}
	if [[ ! -d $MUT/base ]]; then
		mkdir -p "$MUT"
		cp -r "$BUILD/base" "$MUT/"
	fi
	# A mutation never stays, even if a run is interrupted.
	[[ -d $MUT/linux/.git ]] && git -C "$MUT/linux" checkout -q -- .
	trap '[[ -d $MUT/linux/.git ]] && git -C "$MUT/linux" checkout -q -- .' EXIT
	BUILD=$MUT "$TOP/scripts/tree.sh" sync
	: >"$OUT"
	for m in $list; do
		git -C "$MUT/linux" checkout -q -- .
		rm -f "$MUT/logs/test-summary.txt"
		"$TOP/scripts/mutations.py" "$m" "$MUT/linux" || { status=1; continue; }
		start=$SECONDS
		# make test is expected to fail: only its summary counts here.
		run_logged "make test (profiling) with mutation $m" "$LOGS/mutation-$m.log" \
			env BUILD="$MUT" CONFIGS=profiling BOOT_TESTS=smoke HOST_TESTS=0 \
			bash -c 'make -C "$1" test; exit 0' _ "$TOP"
		git -C "$MUT/linux" checkout -q -- .
		{
			echo "== $m: $(tail -n 1 "$MUT/logs/test-summary.txt" 2>/dev/null) ($((SECONDS - start)) s)"
			grep ': FAIL' "$MUT/logs/test-summary.txt" 2>/dev/null
		} | tee -a "$OUT"
		if ! grep -q ': FAIL' "$MUT/logs/test-summary.txt" 2>/dev/null; then
			warn "mutation $m: make test stayed green"
			status=1
		fi
	done
	say "mutation-check: results in $(show_path "$OUT")"
	return $status
}

main
