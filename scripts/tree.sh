#!/bin/bash
# The kernel git tree $BUILD/linux: base commit (tag "base") + patches/.
#
#   tree.sh sync          make tree: create or bring the tree to patches/;
#                         refuse when it holds work patches/ lacks
#   tree.sh ensure        like sync, but a tree holding unexported work is
#                         used as it is (with a warning) instead of refused;
#                         used by make kernel/run/test/check
#   tree.sh export        make export: write base..HEAD to patches/
#   tree.sh export-check  exit 1 with a one-line reason when the tree holds
#                         commits or changes that patches/ lacks
#   tree.sh matches       exit 0 when base..HEAD exports to exactly
#                         patches/ (content and order), 1 otherwise;
#                         uncommitted changes are not looked at (make
#                         distro-check builds HEAD in a worktree of its own)
. "$(dirname "$0")/lib.sh"

TREELOG=$LOGS/tree.log
STATE=$TREE/.git/allocprof
# Fixed identity and date: the base commit (and every commit git am makes
# from the series) has the same id on every machine.
FIXED_NAME="allocprof base"
FIXED_EMAIL="dev@allocprof.invalid"
FIXED_DATE="2000-01-01T00:00:00+0000"

git_tree() { git -C "$TREE" "$@"; }

# ---- patches/ --------------------------------------------------------------

# Patch file names from patches/series, in order (comments/blank skipped).
series_patches() {
	[[ -f $PATCHES/series ]] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$PATCHES/series"
}

check_series_files() {
	local p
	while read -r p; do
		[[ -f $PATCHES/$p ]] || die "patches/series lists $p but patches/$p does not exist"
	done < <(series_patches)
}

# One sha256 per line: the content of each patch of patches/, series order.
series_hashes() {
	local p
	while read -r p; do
		sha256sum <"$PATCHES/$p" | cut -d' ' -f1
	done < <(series_patches)
}

# ---- tree state ------------------------------------------------------------

tree_exists() {
	[[ -d $TREE/.git ]] && git_tree rev-parse -q --verify refs/tags/base >/dev/null
}

tree_base_version() {
	git_tree log -1 --format=%B base | sed -n 's/^linux-source-6.1 version: //p'
}

wanted_base_version() { cat "$BUILD/base/version"; }

# Untracked files count as uncommitted work even when ignored: Debian's
# top-level .gitignore ignores every path, so a new file would be invisible.
tree_changes() {
	git_tree status --porcelain --ignored=traditional
}

tree_dirty() { [[ -n $(tree_changes) ]]; }

operation_in_progress() {
	local gd
	gd=$(git_tree rev-parse --git-dir)
	[[ $gd = /* ]] || gd=$TREE/$gd
	[[ -d $gd/rebase-apply || -d $gd/rebase-merge || -f $gd/MERGE_HEAD ||
		-f $gd/CHERRY_PICK_HEAD || -f $gd/REVERT_HEAD ]]
}

COVER=0000-cover-letter.patch

git_format_patch() {
	git_tree -c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicPrefix=false \
		-c diff.algorithm=myers -c diff.renames=true -c format.coverLetter=false \
		format-patch -q --zero-commit --no-signature --numbered "$@" base..HEAD >/dev/null
}

# Write base..HEAD as patches into directory $1 (plus a series file, which
# does not list the cover letter).
format_patches() {
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir"
	git_format_patch -o "$dir"
	(cd "$dir" && find . -maxdepth 1 -name '*.patch' ! -name "$COVER" -printf '%f\n' |
		sort) >"$dir/series"
}

# Write the cover letter into directory $1: git's own (headers, shortlog
# and diffstat of base..HEAD, so they are always current) with the title
# and text of patches/$COVER, everything between its Subject line and the
# shortlog.  Without one yet, git's placeholders stay, and make check fails.
format_cover() {
	local dir=$1 tmp
	tmp=$(mktemp -d)
	git_format_patch --cover-letter -o "$tmp"
	python3 - "$tmp/$COVER" "$PATCHES/$COVER" "$dir/$COVER" \
		"$(git_tree log -1 --format=%aD HEAD)" <<'PY'
import re, sys, os
gen, old, out, date = sys.argv[1:5]
g = open(gen).read()
# The date of the newest patch, not of the export: the same series gives
# the same cover letter.
g = re.sub(r"(?m)^Date: .*$", "Date: " + date, g, count=1)
if os.path.exists(old):
    o = open(old).read()
    m = re.search(r"^Subject: \[PATCH [0-9]+/[0-9]+\] (.*?)\n\n(.*?)\n(?=\S[^\n]* \([0-9]+\):\n)", o, re.S | re.M)
    if m:
        title, blurb = m.group(1), m.group(2)
        g = g.replace("*** SUBJECT HERE ***", title, 1)
        g = g.replace("*** BLURB HERE ***\n", blurb, 1)
open(out, "w").write(g)
PY
	rm -rf "$tmp"
}

# sha256 of each exported commit, in order.
dir_hashes() {
	local dir=$1 p
	while read -r p; do
		sha256sum <"$dir/$p" | cut -d' ' -f1
	done <"$dir/series"
}

known() { grep -qxF "$2" "$STATE/$1" 2>/dev/null; }

remember() {
	local kind=$1
	shift
	mkdir -p "$STATE"
	printf '%s\n' "$@" >>"$STATE/$kind"
	sort -u -o "$STATE/$kind" "$STATE/$kind"
}

# Compare the tree with patches/. Sets:
#   MATCHES=1      base..HEAD exports to exactly patches/ (content and order)
#   UNEXPORTED=()  descriptions of commits whose work patches/ lacks
# A commit is not lost work when the harness applied it from patches/ (its
# id is remembered) or when it exports to the patch at the same position.
compare_tree() {
	local tmp i
	local -a commits tree_h series_h
	tmp=$(mktemp -d)
	format_patches "$tmp/export"
	mapfile -t commits < <(git_tree rev-list --reverse base..HEAD)
	mapfile -t tree_h < <(dir_hashes "$tmp/export")
	mapfile -t series_h < <(series_hashes)
	rm -rf "$tmp"
	MATCHES=0
	UNEXPORTED=()
	if [[ "${tree_h[*]}" == "${series_h[*]}" ]]; then
		MATCHES=1
		return
	fi
	for i in "${!commits[@]}"; do
		known commits "${commits[$i]}" && continue
		[[ ${series_h[$i]:-} == "${tree_h[$i]}" ]] && continue
		UNEXPORTED+=("$(git_tree log -1 --format='%h %s' "${commits[$i]}")")
	done
}

# ---- creating and updating -------------------------------------------------

create_tree() {
	local version tarball new=$TREE.new
	version=$(wanted_base_version)
	tarball=$BUILD/base/linux-source-6.1_$version.tar.xz
	rm -rf "$new"
	mkdir -p "$new"
	run_logged "extracting linux-source-6.1 $version" "$TREELOG" \
		tar -xJf "$tarball" -C "$new" --strip-components=1
	run_logged "committing the pristine source as tag 'base'" "$TREELOG" \
		commit_base "$new" "$version"
	rm -rf "$TREE"
	mv "$new" "$TREE"
}

commit_base() {
	local dir=$1 version=$2
	cd "$dir"
	git init -q -b main
	# 80k loose objects: never let an automatic gc kick in in the middle.
	git config gc.auto 0
	git config core.untrackedCache true
	# Commits made here become patches: sign them as the project.
	git config user.name "allocprof developers"
	git config user.email "dev@allocprof.invalid"
	# Everything, even what the (Debian) .gitignore files ignore.
	git add -A -f
	GIT_AUTHOR_NAME=$FIXED_NAME GIT_AUTHOR_EMAIL=$FIXED_EMAIL \
		GIT_COMMITTER_NAME=$FIXED_NAME GIT_COMMITTER_EMAIL=$FIXED_EMAIL \
		GIT_AUTHOR_DATE=$FIXED_DATE GIT_COMMITTER_DATE=$FIXED_DATE \
		git commit -q --no-verify -m "Debian linux-source-6.1 $version (pristine)" \
		-m "linux-source-6.1 version: $version"
	git tag base
}

# git am every patch of patches/series on top of base.
apply_series() {
	local p n=0 total
	total=$(series_patches | wc -l)
	git_tree reset -q --hard base
	if ((total == 0)); then
		say "patches/series is empty: the tree is the pristine base"
		return 0
	fi
	say "applying $total patches with git am (log: $(show_path "$TREELOG"))"
	local start=$SECONDS
	while read -r p; do
		n=$((n + 1))
		local before
		before=$(wc -l <"$TREELOG" 2>/dev/null || echo 0)
		if ! GIT_COMMITTER_NAME=$FIXED_NAME GIT_COMMITTER_EMAIL=$FIXED_EMAIL \
			git_tree am -q --committer-date-is-author-date "$PATCHES/$p" >>"$TREELOG" 2>&1; then
			git_tree am --abort >>"$TREELOG" 2>&1 || true
			echo "---- git am $p ----" >&2
			tail -n +$((before + 1)) "$TREELOG" | head -n 30 | sed 's/^/  | /' >&2
			die "patch $n/$total patches/$p does not apply to linux-source-6.1 $(tree_base_version) (git am failed; tree left at the previous patch)"
		fi
		remember commits "$(git_tree rev-parse HEAD)"
		remember patches "$(sha256sum <"$PATCHES/$p" | cut -d' ' -f1)"
	done < <(series_patches)
	say "done: applied $total patches ($(fmt_secs $((SECONDS - start))))"
}

# Keep the old HEAD reachable before a reset, unless every commit on it was
# applied from patches/ by the harness (nothing to lose then).
backup_head() {
	local ref c all_known=1
	while read -r c; do
		known commits "$c" || all_known=0
	done < <(git_tree rev-list base..HEAD)
	((all_known)) && return 0
	ref=refs/allocprof/backup/$(date +%Y%m%d-%H%M%S)
	git_tree update-ref "$ref" HEAD
	say "previous HEAD saved as $ref"
}

refuse_message() {
	local what=$1
	{
		echo "$(show_path "$TREE") holds $what that patches/ lacks:"
		if tree_dirty; then
			echo "  uncommitted changes:"
			tree_changes | head -20 | sed 's/^/    /'
		fi
		local c
		for c in "${UNEXPORTED[@]}"; do echo "  commit $c"; done
		echo "Commit your changes (git -C $(show_path "$TREE") commit -a; new files need 'git add -f'"
		echo "because Debian's .gitignore ignores everything), then run 'make export' to write them"
		echo "to patches/. To throw them away instead: git -C $(show_path "$TREE") reset --hard base"
	} >&2
}

base_ok_or_recreate() {
	local want have
	want=$(wanted_base_version)
	have=$(tree_base_version)
	[[ $have == "$want" ]] && return 0
	compare_tree
	if tree_dirty || ((${#UNEXPORTED[@]} > 0)); then
		refuse_message "work (on base $have; the pinned base is now $want)"
		die "not replacing the tree: export or discard its work first"
	fi
	say "tree is based on linux-source-6.1 $have, wanted $want: recreating it"
	backup_head
	create_tree
}

# mode: sync (refuse on unexported work) or ensure (use it as it is)
update_tree() {
	local mode=$1
	"$TOP/scripts/deps.sh" all
	check_series_files
	if ! tree_exists; then
		[[ -e $TREE ]] && die "$(show_path "$TREE") exists but is not a tree made by this harness (no 'base' tag); move it away"
		create_tree
		apply_series
		return
	fi
	operation_in_progress && die "a git am/rebase/merge is in progress in $(show_path "$TREE"); finish or abort it first"
	base_ok_or_recreate
	compare_tree
	if tree_dirty || ((${#UNEXPORTED[@]} > 0)); then
		if [[ $mode == ensure ]]; then
			warn "$(show_path "$TREE") holds work not in patches/ (run 'make export-check'); building it as it is"
			return 0
		fi
		refuse_message "commits or changes"
		die "not touching the tree"
	fi
	if ((MATCHES)); then
		[[ $mode == sync ]] && say "tree is up to date with patches/ ($(series_patches | wc -l) patches)"
		return 0
	fi
	say "tree differs from patches/ and holds no unexported work: re-applying the series"
	backup_head
	apply_series
}

# ---- export ----------------------------------------------------------------

do_export() {
	tree_exists || die "no tree at $(show_path "$TREE"): run 'make tree' first"
	operation_in_progress && die "a git am/rebase/merge is in progress in $(show_path "$TREE"); finish it first"
	if tree_dirty; then
		tree_changes | head -20 | sed 's/^/  /' >&2
		die "the tree has uncommitted changes: commit them first (git -C $(show_path "$TREE") commit; new files need 'git add -f')"
	fi
	check_series_files
	local tmp p h
	local -a unseen=()
	tmp=$(mktemp -d)
	format_patches "$tmp/export"
	format_cover "$tmp/export"
	# Refuse to overwrite patches this tree has never seen (e.g. new ones
	# pulled into patches/ after the tree was made): they would be lost.
	while read -r p; do
		h=$(sha256sum <"$PATCHES/$p" | cut -d' ' -f1)
		known patches "$h" && continue
		grep -qxF "$h" < <(dir_hashes "$tmp/export") && continue
		unseen+=("$p")
	done < <(series_patches)
	if ((${#unseen[@]} > 0)); then
		rm -rf "$tmp"
		die "patches/ holds patches this tree never applied (${unseen[*]}); commit or stash them in git, or run 'make tree' first"
	fi
	local added=0 changed=0 removed=0
	for p in "$PATCHES"/*.patch; do
		[[ -e $p && ${p##*/} != "$COVER" ]] || continue
		if [[ ! -f $tmp/export/${p##*/} ]]; then
			rm -f "$p"
			removed=$((removed + 1))
		fi
	done
	while read -r p; do
		if [[ ! -f $PATCHES/$p ]]; then
			added=$((added + 1))
		elif cmp -s "$tmp/export/$p" "$PATCHES/$p"; then
			continue
		else
			changed=$((changed + 1))
		fi
		cp "$tmp/export/$p" "$PATCHES/$p"
	done <"$tmp/export/series"
	cmp -s "$tmp/export/series" "$PATCHES/series" || cp "$tmp/export/series" "$PATCHES/series"
	cmp -s "$tmp/export/$COVER" "$PATCHES/$COVER" || cp "$tmp/export/$COVER" "$PATCHES/$COVER"
	mapfile -t hashes < <(dir_hashes "$tmp/export")
	((${#hashes[@]} == 0)) || remember patches "${hashes[@]}"
	mapfile -t hashes < <(git_tree rev-list base..HEAD)
	((${#hashes[@]} == 0)) || remember commits "${hashes[@]}"
	say "exported $(wc -l <"$tmp/export/series") patches to patches/ ($added new, $changed changed, $removed removed)"
	rm -rf "$tmp"
}

do_export_check() {
	if ! tree_exists; then
		echo "no kernel tree at $(show_path "$TREE"): patches/ is up to date"
		return 0
	fi
	if operation_in_progress; then
		echo "a git am/rebase/merge is in progress in $(show_path "$TREE"): finish it and run 'make export'"
		return 1
	fi
	if tree_dirty; then
		echo "$(show_path "$TREE") has uncommitted changes: commit them and run 'make export'"
		return 1
	fi
	compare_tree
	if ((${#UNEXPORTED[@]} > 0)); then
		echo "$(show_path "$TREE") has ${#UNEXPORTED[@]} commit(s) not in patches/ (first: ${UNEXPORTED[0]}): run 'make export'"
		return 1
	fi
	if ((MATCHES)); then
		echo "patches/ is up to date"
	else
		echo "patches/ is up to date (the tree is behind or differs from patches/: 'make tree' updates it)"
	fi
}

case ${1:-} in
sync) update_tree sync ;;
ensure) update_tree ensure ;;
export) do_export ;;
export-check) do_export_check ;;
matches) tree_exists && compare_tree && ((MATCHES)) ;;
*) die "usage: $0 sync|ensure|export|export-check|matches" ;;
esac
