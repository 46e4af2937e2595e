#!/bin/bash
# make bisect-check: build the 'profiling' config at every prefix of the
# series (patch 1, 1-2, 1-3, ...) in the worktree $BUILD/bisect with
# O=$BUILD/out/bisect (incremental, ccache), never touching $BUILD/linux.
# Options that do not exist yet at a prefix are reported, not fatal.
# BISECT_FROM=N starts at prefix N (the earlier ones said so in the log),
# to go on after a fix to patch N without building 1..N-1 again.
. "$(dirname "$0")/lib.sh"

WORKTREE=$BUILD/bisect
COMMITS=$BUILD/bisect.commits
BISECT_CONFIG=${BISECT_CONFIG:-profiling}

main() {
	local start=$SECONDS n=0 total commit patch
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
		say "bisect-check $n/$total: $patch"
		git -C "$WORKTREE" checkout -q --detach "$commit"
		if ! SRC=$WORKTREE OUT=$BUILD/out/bisect VERIFY=warn LOGNAME_SUFFIX=bisect \
			NO_MODROOT=1 "$TOP/scripts/kernel.sh" "$BISECT_CONFIG"; then
			die "bisect-check: the series does not build at patch $n/$total ($patch), config '$BISECT_CONFIG'"
		fi
	done <"$COMMITS"
	say "bisect-check: all $total prefixes build ($(fmt_secs $((SECONDS - start))))"
}

main
