# shellcheck shell=bash
# The ledger of make bisect-check (sourced by scripts/bisect-check.sh and
# tests/harness/bisect-ledger.sh, after lib.sh): tests/bisect/passed.tsv
# holds one line per step that passed at a prefix of the series,
#
#   <tree> <step> <inputs> <date> <patch>     (tab-separated)
#
# <tree> is the build key of the prefix (build_key: its git tree without
# the paths a kernel build never reads), <step> "build:CONFIG" or "unload",
# <inputs> a hash of what else the step depends on. LEDGER names another
# file; BISECT_FORCE=1 makes every step unknown.
LEDGER=${LEDGER:-$TOP/tests/bisect/passed.tsv}

# Paths of the tree that neither the kernel, its modules nor
# tests/modules/unload are built from: a patch that touches only these
# (selftests, tools/mm, documentation) leaves the prefix's steps as they
# were at the prefix before it. (tools/objtool, tools/include and
# tools/lib are read by the build: they stay in.)
BUILD_KEY_SKIP='^(Documentation|tools/testing|tools/mm|tools/cgroup)/'

# build_key GITDIR COMMIT: a hash of the tree of COMMIT without the paths
# of BUILD_KEY_SKIP (blob ids, modes and paths of everything else).
build_key() {
	git -C "$1" ls-tree -r --full-tree "$2" |
		awk -F'\t' -v skip="$BUILD_KEY_SKIP" '$2 !~ skip' | sha1sum | cut -c1-40
}

# The inputs of a step besides the tree: its config fragments and, for the
# unload step, the modules and guest scripts it boots.
inputs_hash() {
	local files
	if [[ $1 == build:* ]]; then
		mapfile -t files < <(fragments_for "${1#build:}")
	else
		mapfile -t files < <(fragments_for bisect-unload)
		files+=("$TOP"/tests/modules/unload/* "$TOP"/scripts/guest/init
			"$TOP"/scripts/guest/allocprof-audit)
	fi
	cat "${files[@]}" | sha1sum | cut -c1-12
}

# ledger_has TREE STEP: the step passed on this tree with these inputs.
ledger_has() {
	[[ ${BISECT_FORCE:-0} == 1 || ! -f $LEDGER ]] && return 1
	grep -q "^$1	$2	$(inputs_hash "$2")	" "$LEDGER"
}

# ledger_add TREE STEP PATCH
ledger_add() {
	mkdir -p "$(dirname "$LEDGER")"
	[[ -f $LEDGER ]] || printf '# tree\tstep\tinputs\tdate\tpatch (scripts/bisect-check.sh)\n' >"$LEDGER"
	BISECT_FORCE=0 ledger_has "$1" "$2" ||
		printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$(inputs_hash "$2")" "$(date -u +%F)" "$3" >>"$LEDGER"
}
