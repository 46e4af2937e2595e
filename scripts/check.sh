#!/bin/bash
# make check (without the bisect part):
#   1. the series applies (git am, no fuzz) to the pristine base, in a
#      separate worktree $BUILD/bisect of $BUILD/linux's repository (so
#      $BUILD/linux itself is never touched);
#   2. scripts/checkpatch.pl --strict, run in that worktree, on every patch of
#      patches/series: errors fail, warnings and checks are printed only.
#
#   check.sh               both
#   check.sh --apply-only  only 1 (used by bisect-check.sh); the commit ids
#                          go to $BUILD/bisect.commits, one per patch
. "$(dirname "$0")/lib.sh"

WORKTREE=$BUILD/bisect
COMMITS=$BUILD/bisect.commits
LOG=$LOGS/check.log

series_patches() {
	[[ -f $PATCHES/series ]] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$PATCHES/series"
}

# checkpatch.pl runs inside the worktree (the base + the series, same git
# repo as $BUILD/linux): it writes and deletes .checkpatch-camelcase.* cache
# files in the current directory, which must not be the developer's tree, and
# the result must not depend on uncommitted work there.
run_checkpatch() {
	# The system python3 has python3-ply (deps.sh) for the SPDX check; a
	# python3 of pyenv or a venv earlier in PATH would not.
	(cd "$WORKTREE" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --color=never "$1" 2>&1) || true
}

checkpatch() {
	local p n=0 errors=0 warnings=0 checks=0 out total
	local -a bad=()
	total=$(series_patches | wc -l)
	if ((total == 0)); then
		say "checkpatch: patches/series is empty, nothing to check"
		return 0
	fi
	say "checkpatch --strict on $total patches"
	# One process per core: the first patch alone, so that the CamelCase
	# cache checkpatch.pl writes in the worktree exists before the others
	# read it; the verdicts are then read back in series order.
	local results
	results=$(mktemp -d)
	export -f run_checkpatch
	export WORKTREE
	series_patches | head -n 1 | xargs -I{} bash -c 'run_checkpatch "$1/$2" >"$3/$2"' _ "$PATCHES" {} "$results"
	series_patches | tail -n +2 | xargs -P "$NPROC" -I{} bash -c 'run_checkpatch "$1/$2" >"$3/$2"' _ "$PATCHES" {} "$results"
	while read -r p; do
		n=$((n + 1))
		out=$(cat "$results/$p")
		echo "$out" >>"$LOG"
		local e w c
		read -r e w c < <(echo "$out" | sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p' | tail -n 1)
		if [[ -z ${e:-} ]]; then
			echo "$out" | tail -n 20
			die "checkpatch gave no verdict for $p"
		fi
		errors=$((errors + e))
		warnings=$((warnings + w))
		checks=$((checks + c))
		if ((e + w + c > 0)); then
			echo "---- $p: $e errors, $w warnings, $c checks ----"
			echo "$out" | grep -v '^total:\|^NOTE:\|^$\|has style problems' | sed 's/^/  /'
		else
			echo "  $p: clean"
		fi
		((e == 0)) || bad+=("$p")
	done < <(series_patches)
	rm -rf "$results"
	say "checkpatch: $errors errors, $warnings warnings, $checks checks in $total patches"
	((errors == 0)) || die "checkpatch errors in: ${bad[*]}"
}

ensure_worktree() {
	if [[ -e $WORKTREE ]] && ! git -C "$WORKTREE" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		say "removing a stale worktree $(show_path "$WORKTREE")"
		rm -rf "$WORKTREE"
		git -C "$TREE" worktree prune
	fi
	if [[ ! -e $WORKTREE ]]; then
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$WORKTREE" base
	fi
}

apply_in_worktree() {
	local p n=0 total
	total=$(series_patches | wc -l)
	git -C "$WORKTREE" am --abort >/dev/null 2>&1 || true
	git -C "$WORKTREE" checkout -q -f --detach base
	git -C "$WORKTREE" clean -q -fdx
	: >"$COMMITS.tmp"
	while read -r p; do
		n=$((n + 1))
		[[ -f $PATCHES/$p ]] || die "patches/series lists $p but patches/$p does not exist"
		if ! GIT_COMMITTER_NAME="allocprof base" GIT_COMMITTER_EMAIL=dev@allocprof.invalid \
			git -C "$WORKTREE" am -q --committer-date-is-author-date "$PATCHES/$p" >>"$LOG" 2>&1; then
			git -C "$WORKTREE" am --abort >>"$LOG" 2>&1 || true
			show_log_tail "$LOG" 20
			APPLY_FAILED="patch $n/$total patches/$p does not apply to the pristine base (git am)"
			say "ERROR: $APPLY_FAILED"
			return 0
		fi
		echo "$(git -C "$WORKTREE" rev-parse HEAD) $p" >>"$COMMITS.tmp"
	done < <(series_patches)
	mv "$COMMITS.tmp" "$COMMITS"
	say "the series ($total patches) applies to the pristine base"
	APPLY_FAILED=
}

# The cover letter: patches/0000-cover-letter.patch, "[PATCH 00/N]" with N
# the number of patches in patches/series, each of them "[PATCH k/N]", a
# title and a text of its own (not git's placeholders), and the shortlog of
# exactly the series (make export writes it).
check_cover() {
	local cover=$PATCHES/0000-cover-letter.patch total k=0 p subj
	total=$(series_patches | wc -l)
	[[ -f $cover ]] || die "no cover letter: write patches/0000-cover-letter.patch (make export keeps it)"
	subj=$(sed -n 's/^Subject: //p' "$cover" | head -1)
	[[ $subj == "[PATCH $(printf '%0*d' ${#total} 0)/$total] "* ]] ||
		die "cover letter subject '$subj' is not [PATCH 0/$total] for the $total patches of patches/series"
	if grep -qF '*** SUBJECT HERE ***' "$cover" || grep -qF '*** BLURB HERE ***' "$cover"; then
		die "the cover letter still has git's placeholders: write its title and text"
	fi
	grep -q "^allocprof developers ($total):\$" "$cover" ||
		die "the cover letter's shortlog is not that of the $total patches: run make export"
	while read -r p; do
		k=$((k + 1))
		subj=$(sed -n 's/^Subject: //p' "$PATCHES/$p" | head -1)
		[[ $subj == "[PATCH $(printf '%0*d' ${#total} $k)/$total] "* ]] ||
			die "patches/$p: subject '$subj' is not numbered $k/$total: run make export"
	done < <(series_patches)
	say "cover letter: [PATCH 0/$total], shortlog and numbering match patches/series"
}

# The worktree is make bisect-check's too, which checks out one prefix
# after another in it for hours: a make check meanwhile would switch the
# sources under its build. bisect-check holds $BUILD/bisect.lock while it
# runs (and calls --apply-only itself, with BISECT_LOCK_HELD=1).
lock_worktree() {
	[[ ${BISECT_LOCK_HELD:-0} == 1 ]] && return 0
	exec 8>"$BUILD/bisect.lock"
	flock -n 8 ||
		die "make bisect-check is running in $(show_path "$WORKTREE"): run make check after it (or BUILD= another directory)"
}

main() {
	: >"$LOG"
	APPLY_FAILED=
	lock_worktree
	"$TOP/scripts/tree.sh" ensure
	say "applying the series to the base in $(show_path "$WORKTREE") (log: $(show_path "$LOG"))"
	ensure_worktree
	apply_in_worktree
	if [[ ${1:-} != --apply-only ]]; then
		check_cover
		checkpatch
	fi
	[[ -z $APPLY_FAILED ]] || die "$APPLY_FAILED"
}

main "$@"
