#!/bin/bash
# make distro-check: the series on the kernels users run, Debian's own 6.1
# configs (package linux-config-6.1 at the version of BASE_VERSION; the
# arm64 ones fetched, never installed, by scripts/foreign.sh), in pieces
# that each fit an hour of two cores on a fresh machine.
#
#   make distro-check [CONFIG=flavour]      the table of results
#   make distro-check CONFIG=flavour STEP=scan
#   make distro-check CONFIG=flavour SHARD=k/N     (STEP=shard)
#   make distro-check CONFIG=flavour STEP=all      scan, every shard, table
#   make distro-check CONFIG=cloud-amd64 STEP=boot
#
# flavour: cloud-amd64, amd64, cloud-arm64, arm64 (Debian's
# config.<arch>_none_<flavour>.xz), debug info off, no Debian signing
# certificates (debian_user_config in lib.sh), plus configs/distro-on.config
# (profiling built in and on, the series' test modules).  arm64 is
# cross-compiled with aarch64-linux-gnu-.
#
# STEP=scan (minutes): scripts/wrapped-scan.py lists the allocator names
#   the series wraps in macros (about 90, from include/) and every use of
#   them in the tree that is not a plain call (member, not followed by
#   "(", #define/#undef, ##, a declaration).  Each must be explained in
#   tests/distro/scan-explained.tsv, or the step fails.  Then every flagged
#   file this config builds is compiled alone with it (for a header: the
#   planned files that #include it directly).  What the config builds is
#   kbuild's own answer: "make -n <image> modules" in the freshly prepared
#   output directory prints every compile (the plan, see
#   scripts/distro-check.py).
#
# STEP=shard SHARD=k/N: the full build, split.  Shard 1 is vmlinux and the
#   image (bzImage, Image): every built-in object, linked.  Shards 2..N
#   are the modules: sorted by path and cut into N-1 contiguous runs of
#   equal weight (a module weighs its objects + 1), each built with
#   kbuild's single-module targets, "make path/foo.ko ...": kbuild
#   compiles their objects, runs modpost on them and links the .ko.
#   Why not "make M=<in-tree dir> modules": 6.1 builds an M= directory as
#   an external module (its objects written into the M= directory under
#   O=, its own Module.symvers, no modules.order of the tree), and a
#   directory of the tree does not hold whole modules (many directories
#   are reached only through their parent's Makefile).  Why not a
#   directory target ("make drivers/net/"): it compiles the built-in
#   objects under it too (shard 1's work) and links no .ko.
#   Without vmlinux.o (shard 1 not built in the same output directory),
#   6.1's modpost warns that it is missing and runs with -w: symbols the
#   modules take from vmlinux are reported "undefined" (not an error)
#   and, with Debian's CONFIG_MODVERSIONS, the .ko carry no CRCs for them:
#   they are built to be compiled, linked and counted, not loaded.  So
#   the symbols of the series a module shard needs (*_noprof and the
#   series' exports) are checked against those shard 1 found exported by
#   vmlinux (its result file), here or in the table.  Shards run one
#   after the other in one output directory have the real modpost.
#   Default N: 3 for cloud-amd64 and cloud-arm64, 7 for amd64, 6 for
#   arm64: about 2,600 objects a module shard, half an hour at the rate
#   of a cold cloud-amd64 build (the whole of it, about 6,000 compiles
#   and links, took an hour of make -j2), so that a shard fits an hour
#   even on a slower or busier machine; shard 1 compiles 2,200-2,800
#   built-in objects.  "make distro-check CONFIG=x STEP=layout" prints
#   the shards.
#   Each shard: errors and compiler warnings (make -O: each object's
#   diagnostics after its "CC" line); the objects that warn are compiled
#   again alone in a worktree of the base (tag "base", same Debian
#   config, no series), and a warning stock lacks (file and message, line
#   numbers dropped) is new; the .c files the series changes that the
#   shard covers are compiled again with profiling compiled out (the
#   series, Debian's config alone).  Then: the tags of vmlinux
#   (__start_alloc_tags..__stop_alloc_tags of System.map) or of each .ko
#   (its alloc_tags section), divided by sizeof(struct alloc_tag) as a
#   probe module built against the tree reads it; the free page->flags
#   bits (scripts/page-flags-bits.sh); and what a build-time filter
#   (CONFIG_MEM_ALLOC_PROFILING_FILTER set to FILTER_MEASURE, default
#   "drivers/ sound/ net/") would leave of those tags, counted exactly
#   from the shard's objects (one tag for each filtered translation unit
#   that has any).  vmlinux's size against stock is
#   not measured: stock's vmlinux would be a second shard-sized build.
#   A shard fails on an error, a new warning, a missing .ko or a series
#   symbol vmlinux does not export.
#
# Results: tests/distro/results/FLAVOUR/{scan,shard-K-of-N}.txt (commit
# them), with the series version (packaging/SERIES_VERSION and a hash of
# patches/*.patch), the date, gcc's and the Debian config's versions.  A
# shard or scan that passed for the same series version and config is not
# redone (DISTRO_FORCE=1 redoes it).  The table (also in
# $BUILD/distro/result.md, for the README) marks results of another
# series version stale.
#
# Resumable: ccache, output directories kept under $BUILD/distro/FLAVOUR/
# (out-on, out-off, out-stock), make -k; an interrupted shard goes on
# where it stopped and keeps the log of its first part.  Logs:
# $BUILD/logs/distro-FLAVOUR-*.log.  Builds run at nice 19.
#
# STEP=boot (cloud-amd64, not a shard): the whole "on" build (about an
# hour cold; on a machine that built every shard in this output
# directory, modpost and the links), then boots it in QEMU with all its
# modules and the kselftests in the initramfs (scripts/guest/distro-run).
# Not run since the shards replaced the old all-in-one target.
#
# Test only: SHARD_DIRS="dir-or-path ..." (with STEP=shard, SHARD optional)
# builds every module and built-in object under those directories as a
# shard (result in $BUILD/distro/FLAVOUR/test-shard.txt, not committed).
. "$(dirname "$0")/lib.sh"

FLAVOURS="cloud-amd64 amd64 cloud-arm64 arm64"
DD=$BUILD/distro
RESULTS=$TOP/tests/distro/results
EXPLAINED=$TOP/tests/distro/scan-explained.tsv
PY=$TOP/scripts/distro-check.py
SCANPY=$TOP/scripts/wrapped-scan.py
SRC=$DD/src
SRC_BASE=$DD/src-base

# CONFIG= of make (the Makefile passes it as DISTRO_CONFIG, empty when
# not given), or CONFIG of the environment when run directly.
FLAVOUR=${DISTRO_CONFIG-${CONFIG:-}}
STEP=${STEP:-}
SHARD=${SHARD:-}
SHARD_DIRS=${SHARD_DIRS:-}
FILTER_MEASURE=${FILTER_MEASURE:-drivers/ sound/ net/}

default_n() {
	case $1 in
	cloud-amd64 | cloud-arm64) echo 3 ;;
	amd64) echo 7 ;;
	arm64) echo 6 ;;
	esac
}

usage_flavours() { echo "CONFIG=cloud-amd64|amd64|cloud-arm64|arm64"; }

# ---- arguments ---------------------------------------------------------------

check_args() {
	if [[ -n $FLAVOUR && " $FLAVOURS " != *" $FLAVOUR "* ]]; then
		die "unknown Debian flavour CONFIG=$FLAVOUR ($(usage_flavours))"
	fi
	if [[ -z $STEP ]]; then
		if [[ -n $SHARD || -n $SHARD_DIRS ]]; then STEP=shard; else STEP=table; fi
	fi
	case $STEP in
	table) [[ -z $SHARD ]] || die "SHARD= needs STEP=shard (or no STEP)" ;;
	scan | shard | all | boot | layout)
		[[ -n $FLAVOUR ]] || die "STEP=$STEP needs a flavour: $(usage_flavours)"
		;;
	*) die "unknown STEP=$STEP (scan, shard, all, boot, layout, table)" ;;
	esac
	if [[ $STEP == boot && $FLAVOUR != cloud-amd64 ]]; then
		die "STEP=boot boots the cloud-amd64 kernel only (CONFIG=cloud-amd64)"
	fi
	if [[ -n $SHARD && $STEP != shard ]]; then
		die "SHARD=$SHARD goes with STEP=shard (STEP=$STEP builds what it needs itself)"
	fi
	if [[ -n $SHARD_DIRS && $STEP != shard ]]; then
		die "SHARD_DIRS= goes with STEP=shard"
	fi
	N=$(default_n "${FLAVOUR:-cloud-amd64}")
	K=
	if [[ $STEP == shard && -z $SHARD_DIRS ]]; then
		[[ -n $SHARD ]] || die "STEP=shard needs SHARD=k/N (or SHARD=k: N=$N for $FLAVOUR)"
		if [[ $SHARD =~ ^([0-9]+)/([0-9]+)$ ]]; then
			K=$((10#${BASH_REMATCH[1]}))
			N=$((10#${BASH_REMATCH[2]}))
		elif [[ $SHARD =~ ^([0-9]+)$ ]]; then
			K=$((10#${BASH_REMATCH[1]}))
		else
			die "malformed SHARD=$SHARD: want k/N (1 <= k <= N, N >= 2) or k (N=$N for $FLAVOUR)"
		fi
		((N >= 2)) || die "SHARD=$SHARD: N must be at least 2 (shard 1 is vmlinux, the others the modules)"
		((K >= 1 && K <= N)) || die "SHARD=$SHARD: k must be between 1 and $N"
	elif [[ $STEP == shard && -n $SHARD ]]; then
		[[ $SHARD =~ ^([0-9]+)(/[0-9]+)?$ ]] || die "malformed SHARD=$SHARD"
	fi
}

# ---- what we build -------------------------------------------------------------

setup() {
	FD=$DD/$FLAVOUR
	mkdir -p "$FD"
	case $FLAVOUR in
	*arm64) KARCH=arm64 ;;
	*) KARCH=x86_64 ;;
	esac
	CROSS=$(arch_cross "$KARCH")
	KCC=$(kernel_cc "$CROSS")
	HCC=$(kernel_cc)
	IMAGE=$(arch_image_target "$KARCH")
	TAGSYM_RE='_noprof$'
}

# Serialize the steps that build (one worktree is shared by the flavours).
lock() {
	exec 9>"$DD/.lock"
	flock -n 9 || die "another make distro-check is running (lock $(show_path "$DD/.lock"))"
}

# The series version the results are recorded for: packaging/SERIES_VERSION
# and a hash of the contents of patches/*.patch.
series_version() {
	local v h
	v=$(tr -d ' \t\n' <"$TOP/packaging/SERIES_VERSION" 2>/dev/null || true)
	h=$(cat "$PATCHES"/*.patch | sha256sum | cut -c1-12)
	printf '%s%s\n' "${v:+v$v-}" "$h"
}

# Debian's config of the flavour: DEBIAN_XZ, DEBIAN_VERSION.
debian_config() {
	local have
	DEBIAN_VERSION=$(tr -d ' \t\n' <"$TOP/BASE_VERSION")
	if [[ $KARCH == arm64 ]]; then
		"$TOP/scripts/foreign.sh" arm64 "linux-config-6.1=$DEBIAN_VERSION"
		DEBIAN_XZ=$("$TOP/scripts/foreign.sh" arm64 --path)/usr/src/linux-config-6.1/config.arm64_none_$FLAVOUR.xz
	else
		have=$(dpkg-query -W -f='${Version}' linux-config-6.1 2>/dev/null || true)
		if [[ $have != "$DEBIAN_VERSION" ]]; then
			run_logged "installing linux-config-6.1=$DEBIAN_VERSION" "$LOGS/distro-apt.log" \
				as_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q install "linux-config-6.1=$DEBIAN_VERSION"
		fi
		DEBIAN_XZ=/usr/src/linux-config-6.1/config.amd64_none_$FLAVOUR.xz
	fi
	[[ -f $DEBIAN_XZ ]] || die "no Debian config $DEBIAN_XZ"
	# What makes the configs: a change of any invalidates the results
	# (not a change of distro-on.config's comments).
	CONFIG_KEY=$({
		xzcat "$DEBIAN_XZ"
		grep -v '^#' "$TOP/configs/distro-on.config"
		declare -f debian_user_config
		echo "$FLAVOUR $KARCH"
	} | md5sum | cut -c1-12)
}

checkout() {
	local wt=$1 rev=$2
	if [[ ! -e $wt/.git ]]; then
		rm -rf "$wt"
		git -C "$TREE" worktree add -q --detach "$wt" "$rev"
	elif [[ $(git -C "$wt" rev-parse HEAD) != "$(git -C "$TREE" rev-parse "$rev^{commit}")" ]] ||
		! git -C "$wt" diff --quiet HEAD; then
		# Ours: changed files in it would make the results lie.
		git -C "$wt" checkout -q --detach -f "$rev"
	fi
}

# The tree (build/linux, made from patches/ by tree.sh), its HEAD in our
# own worktree: VERSION, REV.
setup_tree() {
	"$TOP/scripts/tree.sh" ensure
	VERSION=$(series_version)
	REV=$(git -C "$TREE" rev-parse HEAD)
	if ! "$TOP/scripts/tree.sh" matches; then
		die "$(show_path "$TREE")'s commits differ from patches/: the results would not be of series $VERSION ('make export' or 'make tree' first)"
	fi
	checkout "$SRC" "$REV"
}

kmake() {
	local src=$1 out=$2
	shift 2
	nice -n 19 make -C "$src" O="$out" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
		CC="$KCC" HOSTCC="$HCC" LOCALVERSION= \
		KBUILD_BUILD_USER=allocprof KBUILD_BUILD_HOST=allocprof "$@"
}

# configure VARIANT SRC OUT: on (the series + distro-on.config), off (the
# series, Debian's config: profiling compiled out), stock (the base).
configure() {
	local v=$1 src=$2 out=$3
	debian_user_config "$src" "$DEBIAN_XZ" "$out/.config"
	kmake "$src" "$out" -s olddefconfig
	case $v in
	on)
		(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
			"$out/.config" "$TOP/configs/distro-on.config")
		kmake "$src" "$out" -s olddefconfig
		"$TOP/scripts/kconfig-verify.py" "$out/.config" "$TOP/configs/distro-on.config"
		;;
	off)
		! grep -q '^CONFIG_MEM_ALLOC_PROFILING=y' "$out/.config" ||
			die "Debian's $FLAVOUR config turned profiling on"
		;;
	esac
}

# The plan: "make -n" of everything in a prepared directory where nothing
# is built yet (make fails at vmlinux.a, which -n never makes: -k goes on).
plan() {
	local src=$1 out=$2
	kmake "$src" "$out" -n -k "$IMAGE" modules >"$out/.plan-dry-run" 2>&1 || true
	python3 "$PY" plan "$out/.plan-dry-run" "$out/.plan.tsv"
}

# prepare VARIANT: a configured, prepared (and, but for stock, planned)
# output directory $FD/out-VARIANT for the current tree and config; made
# again from nothing when either changed.
prepare() {
	local v=$1 src=$SRC rev=$REV out=$FD/out-$1 key log
	if [[ $v == stock ]]; then
		src=$SRC_BASE
		rev=$(git -C "$TREE" rev-parse base)
		checkout "$SRC_BASE" base
	fi
	key="$rev $CONFIG_KEY"
	if [[ -f $out/.distro-key && $(cat "$out/.distro-key") == "$key" &&
		($v == stock || -s $out/.plan.tsv) ]]; then
		return 0
	fi
	log=$LOGS/distro-$FLAVOUR-prepare-$v.log
	: >"$log"
	rm -rf "$out"
	mkdir -p "$out"
	run_logged "configuring $v of $FLAVOUR ($(basename "$DEBIAN_XZ") $DEBIAN_VERSION)" "$log" \
		configure "$v" "$src" "$out"
	run_logged "make prepare of $FLAVOUR $v (-j$NPROC)" "$log" \
		kmake "$src" "$out" -j"$NPROC" prepare modules_prepare
	if [[ $v != stock ]]; then
		run_logged "planning $FLAVOUR $v: make -n $IMAGE modules" "$log" plan "$src" "$out"
		say "  plan: $(head -n 1 "$out/.plan.tsv" | sed 's/^# plan: //')"
	fi
	echo "$key" >"$out/.distro-key"
}

# ---- compiling and comparing -------------------------------------------------

# compile VARIANT LOG DIAG OBJECT...: compile the objects alone (removed
# first, so that their warnings are printed again), diagnostics to DIAG.
compile() {
	local v=$1 log=$2 diag=$3 src=$SRC o status=0
	shift 3
	[[ $v == stock ]] && src=$SRC_BASE
	for o in "$@"; do rm -f "$FD/out-$v/$o"; done
	: >"$log"
	(HEARTBEAT=60 run_logged "compiling $# objects alone ($FLAVOUR $v)" "$log" \
		kmake "$src" "$FD/out-$v" -k --output-sync=target -j"$NPROC" "$@") || status=$?
	python3 "$PY" diag "$src" "$log" >"$diag"
	return $status
}

# Objects of a diagnostics file with warnings (not vmlinux-level or the
# image's, which are not compiled alone).
warning_objects() {
	awk -F'\t' '$2 == "warning" && $1 ~ /\.o$/ && $1 !~ /^arch\/[a-z0-9]+\/boot\// && $1 !~ /(^|\/)vmlinux/ { print $1 }' "$@" | sort -u
}

# new_warnings SERIES_DIAG...: their warnings stock lacks, after compiling
# the objects that warn in the base.  Prints them; STOCK_OBJECTS.
new_warnings() {
	local -a objs
	mapfile -t objs < <(warning_objects "$@")
	STOCK_OBJECTS=${#objs[@]}
	: >"$FD/stock.diag"
	if ((${#objs[@]})); then
		prepare stock >&2
		compile stock "$LOGS/distro-$FLAVOUR-$LABEL-stock.log" "$FD/stock.diag" "${objs[@]}" >&2 || true
	fi
	local d
	for d in "$@"; do
		python3 "$PY" new "$d" "$FD/stock.diag"
	done | sort -u
}

count() { awk -F'\t' -v k="$2" '$2 == k' "$1" | wc -l; }

# ---- measuring -------------------------------------------------------------------

# sizeof(struct alloc_tag) of the built tree, from a probe module.
alloc_tag_size() {
	local out=$1 probe
	probe=$(mktemp -d)
	cat >"$probe/probe.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/alloc_tag.h>

void probe(void)
{
	asm volatile(".globl probe_alloc_tag_size\n.set probe_alloc_tag_size, %c0\n"
		     : : "i" (sizeof(struct alloc_tag)));
}
MODULE_LICENSE("GPL");
EOF
	echo 'obj-m := probe.o' >"$probe/Kbuild"
	if kmake "$SRC" "$out" M="$probe" KBUILD_MODPOST_NOFINAL=1 modules >"$probe/log" 2>&1; then
		local hex
		hex=$("${CROSS}nm" "$probe/probe.o" | awk '$3 == "probe_alloc_tag_size" { print $1 }')
		[[ -n $hex ]] && echo $((16#$hex))
	fi
	rm -rf "$probe"
}

section_size() {
	local hex
	hex=$("${CROSS}readelf" -S -W "$1" 2>/dev/null |
		awk -v s="$2" '{ for (i = 1; i < NF; i++) if ($i == s) { print $(i + 4); exit } }')
	echo $((16#${hex:-0}))
}

# The symbols of the series a module may take from vmlinux: what the
# series exports, and every *_noprof.
series_symbols() {
	git -C "$SRC" diff base HEAD | sed -n 's/^+.*EXPORT_SYMBOL\(_GPL\)\?(\([A-Za-z0-9_]*\));.*/\2/p' | sort -u
}

# is_series_symbol: the lines of stdin that are symbols of the series.
is_series_symbol() {
	awk -v re="$TAGSYM_RE" 'FILENAME != "-" { s[$0] = 1; next } ($0 in s) || $0 ~ re' "$FD/series-symbols.txt" -
}

# ---- results -------------------------------------------------------------------------

gcc_version() { "${CROSS}gcc" --version | head -n 1; }

# write_head FILE key value...: the header lines of a result file.
write_head() {
	local f=$1
	shift
	{
		echo "# make distro-check CONFIG=$FLAVOUR $CMDLINE"
		while (($#)); do
			printf '%s: %s\n' "$1" "$2"
			shift 2
		done
	} >"$f"
}

section() {
	local f=$1 title=$2 file=$3
	{
		echo
		echo "## $title"
		if [[ -s $file ]]; then cat "$file"; else echo "(none)"; fi
	} >>"$f"
}

common_head() {
	printf '%s\n' \
		flavour "$FLAVOUR" \
		version "$VERSION" \
		tree "$REV" \
		config "$(basename "$DEBIAN_XZ") $DEBIAN_VERSION (linux-config-6.1) + configs/distro-on.config, debug info off" \
		config-key "$CONFIG_KEY" \
		date "$(date -u +%Y-%m-%dT%H:%MZ)" \
		gcc "$(gcc_version)" \
		host "$(nproc) CPUs, $(uname -m)"
}

# A result that passed for this series version and config.
passed_already() {
	local f=$1
	[[ ${DISTRO_FORCE:-0} == 0 && -f $f ]] &&
		grep -qx "status: passed" "$f" &&
		grep -qx "version: $VERSION" "$f" &&
		grep -qx "config-key: $CONFIG_KEY" "$f"
}

# ---- STEP=scan ---------------------------------------------------------------------

# wrapped-scan.py's exit status 1 (unexplained uses) is the step's verdict,
# not a failure of the scan.
scan_tree() {
	local out=$1 st=0
	python3 "$SCANPY" names "$SRC" >"$DD/wrapped-names.tsv"
	python3 "$SCANPY" scan "$SRC" --explained "$EXPLAINED" --out "$out.tmp" || st=$?
	((st <= 1)) || return $st
	mv "$out.tmp" "$out"
}

step_scan() {
	local res=$RESULTS/$FLAVOUR/scan.txt start=$SECONDS status=0 scan
	LABEL=scan
	if passed_already "$res"; then
		say "distro-check: the scan of $FLAVOUR passed for series $VERSION on $(sed -n 's/^date: //p' "$res") (DISTRO_FORCE=1 redoes it)"
		return 0
	fi
	prepare on
	# The scan of the tree, done again when the tree, the scanner or the
	# explanations change.
	scan=$DD/scan-$(cat "$SCANPY" "$EXPLAINED" <(echo "$REV") | md5sum | cut -c1-12).tsv
	if [[ ! -f $scan ]]; then
		rm -f "$DD"/scan-*.tsv
		run_logged "scanning every .c and .h file of the tree for non-call uses of the wrapped allocators" \
			"$LOGS/distro-scan.log" scan_tree "$scan"
		say "  $(tail -n 1 "$LOGS/distro-scan.log")"
	fi
	local nnames nflag nbad
	nnames=$(wc -l <"$DD/wrapped-names.tsv")
	nflag=$(wc -l <"$scan")
	nbad=$(awk -F'\t' '$5 == "-"' "$scan" | wc -l)
	say "scan: $nnames wrapped names, $nflag flagged uses, $nbad unexplained"
	python3 "$PY" targets "$SRC" "$FD/out-on/.plan.tsv" "$FD/out-on/.config" "$KARCH" "$scan" >"$FD/scan-targets.tsv"
	local -a objs
	mapfile -t objs < <(awk -F'\t' '$3 != "-" { n = split($3, a, ","); for (i = 1; i <= n; i++) print a[i] }' "$FD/scan-targets.tsv" | sort -u)
	: >"$FD/scan.diag"
	if ((${#objs[@]})); then
		compile on "$LOGS/distro-$FLAVOUR-scan.log" "$FD/scan.diag" "${objs[@]}" || status=1
	fi
	new_warnings "$FD/scan.diag" >"$FD/scan-new.txt"
	local nerr nnew
	nerr=$(($(count "$FD/scan.diag" error) + $(count "$FD/scan.diag" make)))
	nnew=$(wc -l <"$FD/scan-new.txt")
	local verdict=passed
	((status == 0 && nerr == 0 && nnew == 0 && nbad == 0)) || verdict=failed
	mkdir -p "$RESULTS/$FLAVOUR"
	local -a head
	mapfile -t head < <(common_head)
	write_head "$res" "${head[@]}" \
		step scan \
		wrapped "$nnames names (scripts/wrapped-scan.py names)" \
		flagged "$nflag uses, $nbad unexplained (tests/distro/scan-explained.tsv)" \
		built "$(awk -F'\t' '$2 == "built"' "$FD/scan-targets.tsv" | wc -l) of $(wc -l <"$FD/scan-targets.tsv") flagged files: ${#objs[@]} objects compiled alone" \
		elapsed "$(fmt_secs $((SECONDS - start)))" \
		status "$verdict" \
		errors "$nerr" \
		warnings "$(count "$FD/scan.diag" warning)" \
		new-warnings "$nnew"
	awk -F'\t' '{ printf "%s:%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }' "$scan" >"$FD/scan-uses.txt"
	section "$res" "flagged uses (path:line, name, kind, why it is safe; '-': unexplained)" "$FD/scan-uses.txt"
	section "$res" "flagged files in this config (path, decision, objects compiled, how decided)" "$FD/scan-targets.tsv"
	awk -F'\t' '$2 != "warning"' "$FD/scan.diag" >"$FD/scan-errors.txt"
	section "$res" "errors" "$FD/scan-errors.txt"
	section "$res" "new warnings (stock lacks them)" "$FD/scan-new.txt"
	awk -F'\t' '$2 == "warning" { print $1 ": " $3 ": " $4 }' "$FD/scan.diag" >"$FD/scan-warnings.txt"
	section "$res" "all warnings (object: file: message)" "$FD/scan-warnings.txt"
	say "distro-check: scan of $FLAVOUR $verdict: $nflag flagged uses ($nbad unexplained), ${#objs[@]} objects compiled, $nerr errors, $nnew new warnings ($(show_path "$res"))"
	[[ $verdict == passed ]]
}

# filter_tags OUT TAGSIZE [KO...]: what CONFIG_MEM_ALLOC_PROFILING_FILTER
# set to $FILTER_MEASURE would leave of the tags of vmlinux (no KO) or of
# the modules KO, from the objects of this build (distro-check.py
# filter-tags: exact, Kbuild decides per translation unit): "N with
# FILTER (F of them a file's tag; B without)".
filter_tags() {
	local out=$1 tagsize=$2 r
	shift 2
	r=$(python3 "$TOP/scripts/distro-check.py" filter-tags "$out" "$tagsize" "$FILTER_MEASURE" "$@") ||
		{ echo "not measured"; return 0; }
	set -- $r
	echo "$1 with \"$FILTER_MEASURE\" ($2 of them a file's tag; $3 without)"
}

# measure_vmlinux OUT TAGSIZE PREFIX: three lines, the tags of vmlinux,
# its size, the series' symbols it exports (listed in PREFIX-exports.txt).
measure_vmlinux() {
	local out=$1 tagsize=$2 pfx=$3 a b tags=- msize=- exports=-
	if [[ -f $out/System.map && -n $tagsize ]]; then
		a=$(awk '$3 == "__start_alloc_tags" { print $1 }' "$out/System.map")
		b=$(awk '$3 == "__stop_alloc_tags" { print $1 }' "$out/System.map")
		[[ -n $a && -n $b ]] && tags="vmlinux $(((16#$b - 16#$a) / tagsize)) (struct alloc_tag: $tagsize bytes)"
	fi
	[[ -f $out/vmlinux ]] &&
		msize="$("${CROSS}size" "$out/vmlinux" | awk 'NR == 2 { printf "text %d, data %d, bss %d", $1, $2, $3 }'); stock: not measured (a second vmlinux build)"
	if [[ -f $out/vmlinux.symvers ]]; then
		awk '{ print $2 }' "$out/vmlinux.symvers" | is_series_symbol | sort -u >"$pfx-exports.txt"
		exports="$(wc -l <"$pfx-exports.txt") symbols of the series exported by vmlinux"
	fi
	printf '%s\n' "$tags" "$msize" "$exports"
}

# measure_modules OUT TAGSIZE PREFIX KO...: two lines, the tags of the
# modules and how many .ko are missing; PREFIX-module-tags.txt (tags and
# module, most first), PREFIX-needs.txt (the series' symbols they take
# from elsewhere), PREFIX-modexports.txt (those they export),
# PREFIX-missing.txt.
measure_modules() {
	local out=$1 tagsize=$2 pfx=$3 ko n total=0 with=0 missing=0
	shift 3
	: >"$pfx-needs.all"
	: >"$pfx-modexports.all"
	for ko in "$@"; do
		if [[ ! -f $out/$ko ]]; then
			missing=$((missing + 1))
			echo "$ko" >>"$pfx-missing.txt"
			continue
		fi
		n=$(section_size "$out/$ko" alloc_tags)
		if [[ -n $tagsize ]] && ((n > 0)); then
			printf '%d\t%s\n' $((n / tagsize)) "$ko" >>"$pfx-module-tags.txt"
			total=$((total + n / tagsize))
			with=$((with + 1))
		fi
		"${CROSS}nm" "$out/$ko" >"$pfx-nm"
		awk '$1 == "U" { print $2 }' "$pfx-nm" >>"$pfx-needs.all"
		awk '$3 ~ /^__ksymtab_/ { print substr($3, 11) }' "$pfx-nm" >>"$pfx-modexports.all"
	done
	sort -rn -o "$pfx-module-tags.txt" "$pfx-module-tags.txt"
	is_series_symbol <"$pfx-modexports.all" | sort -u >"$pfx-modexports.txt"
	is_series_symbol <"$pfx-needs.all" | sort -u | comm -23 - "$pfx-modexports.txt" >"$pfx-needs.txt"
	rm -f "$pfx-needs.all" "$pfx-modexports.all" "$pfx-nm"
	echo "modules $total in $with of $# .ko (struct alloc_tag: ${tagsize:-?} bytes)"
	echo "$missing"
}

# unresolved_needs PREFIX EXPORTS: the symbols of PREFIX-needs.txt that
# EXPORTS (vmlinux's) lacks and no module of the plan exports
# (EXPORT_SYMBOL in the source of a module object).
unresolved_needs() {
	local pfx=$1 sym
	local -a srcs
	comm -23 "$pfx-needs.txt" "$2" >"$pfx-unresolved.all"
	if [[ -s $pfx-unresolved.all ]]; then
		mapfile -t srcs < <(awk -F'\t' '$1 == "o" && $3 == "m" && $4 != "-" { print $4 }' "$FD/out-on/.plan.tsv")
		while read -r sym; do
			grep -qsE "EXPORT_SYMBOL(_GPL)?\($sym\)" "${srcs[@]}" || echo "$sym"
		done <"$pfx-unresolved.all"
	fi
	rm -f "$pfx-unresolved.all"
}

# ---- STEP=shard -----------------------------------------------------------------------

# The objects compiled so far in the shard's log, for the heartbeat.
progress() {
	printf '%d/%d objects' "$(grep -cE '^  (CC|AS)( \[M\])? ' "$SHARD_LOG" || true)" "$SHARD_WEIGHT"
}

step_shard() {
	local start=$SECONDS status=0 res state name what
	local plan=$FD/out-on/.plan.tsv
	local -a dirs=() kos=() builtin=() targets=()
	if [[ -n $SHARD_DIRS ]]; then
		read -r -a dirs <<<"$SHARD_DIRS"
		name=test-shard
		LABEL=test-shard
		res=$FD/test-shard.txt
		CMDLINE="STEP=shard SHARD_DIRS=\"$SHARD_DIRS\" (test only)"
	else
		name=shard-$K-of-$N
		LABEL=$name
		res=$RESULTS/$FLAVOUR/$name.txt
		CMDLINE="SHARD=$K/$N"
		if passed_already "$res"; then
			say "distro-check: shard $K/$N of $FLAVOUR passed for series $VERSION on $(sed -n 's/^date: //p' "$res") (DISTRO_FORCE=1 redoes it)"
			return 0
		fi
	fi
	prepare on
	if [[ -z $SHARD_DIRS ]]; then
		python3 "$PY" layout "$plan" "$N" | sed -n "${K}{s/^/distro-check: /;p}"
	fi
	mapfile -t targets < <(python3 "$PY" members "$plan" "$N" "${K:-2}" "${dirs[@]}")
	for t in "${targets[@]}"; do
		case $t in
		*.ko) kos+=("$t") ;;
		*) builtin+=("$t") ;;
		esac
	done
	# The objects the shard compiles.
	local covered=$FD/$name.objects
	python3 - "$plan" "${kos[@]}" -- "${builtin[@]}" >"$covered" <<'PY'
import sys
plan, rest = sys.argv[1], sys.argv[2:]
kos = set(rest[:rest.index('--')]); builtin = rest[rest.index('--') + 1:]
objs, mods = {}, {}
for line in open(plan):
    c = line.rstrip('\n').split('\t')
    if c[0] == 'o':
        objs[c[1]] = c[3]
    elif c[0] == 'k':
        mods[c[1]] = c[2].split()
out = list(builtin) + [o for ko in sorted(kos) for o in mods[ko] if o in objs]
for o in out:
    print('%s\t%s' % (o, objs.get(o, '-')))
PY
	SHARD_WEIGHT=$(($(wc -l <"$covered") + ${#kos[@]}))
	if [[ -n $SHARD_DIRS ]]; then
		what="test shard: ${#kos[@]} modules and ${#builtin[@]} built-in objects under $SHARD_DIRS"
		targets=("${kos[@]}" "${builtin[@]}")
		((${#targets[@]})) || die "SHARD_DIRS=$SHARD_DIRS: $FLAVOUR builds nothing there"
	elif ((K == 1)); then
		what="vmlinux and $IMAGE: ${#builtin[@]} built-in objects"
		targets=("$IMAGE")
	else
		what="${#kos[@]} modules, $(wc -l <"$covered") objects: ${kos[0]:-} .. ${kos[-1]:-}"
		targets=("${kos[@]}")
		((${#kos[@]})) || die "shard $K/$N of $FLAVOUR has no module (N too large?)"
	fi
	SHARD_LOG=$LOGS/distro-$FLAVOUR-$name.log
	state=$FD/state-$name
	local key="$REV $CONFIG_KEY $N $SHARD_DIRS"
	local mode=build
	if [[ -f $state && $(cat "$state") == "building $key" ]]; then
		say "distro-check: resuming the interrupted $name of $FLAVOUR (the log of its first part is kept)"
	elif [[ -f $state && $(cat "$state") == "built $key" && -s $SHARD_LOG ]]; then
		say "distro-check: $name of $FLAVOUR is built already (interrupted after its build): comparing and measuring"
		mode=skip
	else
		: >"$SHARD_LOG"
		# A fresh shard compiles all its objects again (ccache keeps it
		# cheap), so that the log has every warning.
		cut -f1 "$covered" | sed "s|^|$FD/out-on/|" | xargs -r rm -f
		for t in "${kos[@]}"; do rm -f "$FD/out-on/$t"; done
		((K == 1)) && [[ -z $SHARD_DIRS ]] && rm -f "$FD/out-on/vmlinux" "$FD/out-on/vmlinux.o"
		echo "building $key" >"$state"
	fi
	say "distro-check: $FLAVOUR $LABEL = $what"
	# Modules: 6.1's modpost reads vmlinux.o (once shard 1 ran in this
	# directory) and the modules it is given, not the Module.symvers of
	# the shards before: what a module takes from a module of another
	# shard would be an error.  Warnings then, as without vmlinux.o; the
	# series' own symbols are checked below.
	local -a mpw=()
	((K == 1)) && [[ -z $SHARD_DIRS ]] || mpw=(KBUILD_MODPOST_WARN=1)
	local bstart=$SECONDS
	if [[ $mode == build ]]; then
		(HEARTBEAT=60 HEARTBEAT_INFO=progress run_logged "building $FLAVOUR $LABEL (-j$NPROC, nice 19)" "$SHARD_LOG" \
			kmake "$SRC" "$FD/out-on" -k --output-sync=target -j"$NPROC" "${mpw[@]}" "${targets[@]}") || status=$?
		# 6.1's single targets hand a module's objects to every directory
		# on the way that descends into a prefix of its path: a module
		# directory that a Makefile two levels up descends into
		# (drivers/Makefile: obj-$(CONFIG_ATA_OVER_ETH) += block/aoe/) is
		# also asked of the directory between (drivers/block), which has
		# no rule for the module's object while it does not exist yet.
		# The first pass (-k) builds it in its own directory; a second
		# pass finds it, and only its errors count then.
		rm -f "$SHARD_LOG.pass2"
		if ((status != 0)) && grep -q "No rule to make target '[^']*\.o'" "$SHARD_LOG" &&
			! grep -q ': error: ' "$SHARD_LOG"; then
			status=0
			(HEARTBEAT=60 run_logged "building $FLAVOUR $LABEL again (kbuild's single targets of nested module directories)" "$SHARD_LOG.pass2" \
				kmake "$SRC" "$FD/out-on" -k --output-sync=target -j"$NPROC" "${mpw[@]}" "${targets[@]}") || status=$?
		fi
		if ((status == 0)); then echo "built $key" >"$state"; else echo "failed $key" >"$state"; fi
	fi
	local btime=$((SECONDS - bstart))
	if [[ -s $SHARD_LOG.pass2 ]]; then
		# make's own errors of the first pass are the missing rules;
		# those of the second pass count.
		{
			python3 "$PY" diag "$SRC" "$SHARD_LOG" | awk -F'\t' '$2 != "make"'
			python3 "$PY" diag "$SRC" "$SHARD_LOG.pass2"
		} >"$FD/$name.diag"
	else
		python3 "$PY" diag "$SRC" "$SHARD_LOG" >"$FD/$name.diag"
	fi

	# Profiling compiled out: the changed .c files of the series this
	# shard covers, if the config without distro-on.config builds them.
	local ostart=$SECONDS
	local -a changed offobjs=() offnot=()
	mapfile -t changed < <(git -C "$SRC" diff --name-only base HEAD -- '*.c' | grep -v '^tools/' || true)
	local o
	: >"$FD/$name-off.diag"
	mapfile -t offobjs < <(printf '%s\n' "${changed[@]}" | awk -F'\t' -v src="$SRC/" '
		NR == FNR { if ($0 != "") c[$0] = 1; next }
		{ s = $2; if (index(s, src) == 1) s = substr(s, length(src) + 1); if (s in c) print $1 }' - "$covered")
	local offbuilt=()
	if ((${#offobjs[@]})); then
		prepare off
		for o in "${offobjs[@]}"; do
			if grep -qP "^o\t\Q$o\E\t" "$FD/out-off/.plan.tsv"; then offbuilt+=("$o"); else offnot+=("$o"); fi
		done
		if ((${#offbuilt[@]})); then
			compile off "$LOGS/distro-$FLAVOUR-$name-off.log" "$FD/$name-off.diag" "${offbuilt[@]}" || status=1
		fi
	fi
	local otime=$((SECONDS - ostart))

	# Warnings new against stock.
	local sstart=$SECONDS
	new_warnings "$FD/$name.diag" "$FD/$name-off.diag" >"$FD/$name-new.txt"
	local stime=$((SECONDS - sstart))

	# Measures.
	local out=$FD/out-on tagsize bits tags=- msize=- exports=- needs=- missing=0 unresolved=0 filtered=-
	local -a m
	tagsize=$(alloc_tag_size "$out")
	bits=$("$TOP/scripts/page-flags-bits.sh" "$out" 2>/dev/null || echo "not measured")
	series_symbols >"$FD/series-symbols.txt"
	rm -f "$FD/$name"-{exports,needs,modexports,unresolved,module-tags,missing}.txt
	touch "$FD/$name"-{exports,needs,modexports,unresolved,module-tags}.txt
	if ((K == 1)) && [[ -z $SHARD_DIRS ]]; then
		mapfile -t m < <(measure_vmlinux "$out" "$tagsize" "$FD/$name")
		tags=${m[0]} msize=${m[1]} exports=${m[2]}
		[[ -z $tagsize ]] || filtered=$(filter_tags "$out" "$tagsize")
	fi
	if ((${#kos[@]})); then
		mapfile -t m < <(measure_modules "$out" "$tagsize" "$FD/$name" "${kos[@]}")
		tags=${m[0]} missing=${m[1]}
		((missing > 0)) || [[ -z $tagsize ]] || filtered=$(filter_tags "$out" "$tagsize" "${kos[@]}")
		# What vmlinux exports: built in this output directory (shard 1
		# ran here: modpost had vmlinux.o too), or in shard 1's current
		# result.
		local exp='' r1=$RESULTS/$FLAVOUR/shard-1-of-$N.txt
		if [[ -f $out/vmlinux.symvers ]]; then
			exp="vmlinux.symvers of this output directory"
			awk '{ print $2 }' "$out/vmlinux.symvers" | sort -u >"$FD/vmlinux-exports.txt"
		elif [[ -f $r1 ]] && grep -qx "version: $VERSION" "$r1" && grep -qx "config-key: $CONFIG_KEY" "$r1"; then
			exp="the exports in $(show_path "$r1")"
			sed -n '/^## exports/,/^## /p' "$r1" | grep -v '^## \|^(none)$' | sort -u >"$FD/vmlinux-exports.txt"
		fi
		if [[ -n $exp ]]; then
			unresolved_needs "$FD/$name" "$FD/vmlinux-exports.txt" >"$FD/$name-unresolved.txt"
			unresolved=$(wc -l <"$FD/$name-unresolved.txt")
			needs="$(wc -l <"$FD/$name-needs.txt") symbols of the series, $unresolved exported neither by vmlinux (checked against $exp) nor by a module"
		else
			needs="$(wc -l <"$FD/$name-needs.txt") symbols of the series; not checked yet (no current shard 1 result: the table checks them)"
		fi
	fi

	local nerr nnew nwarn oerr verdict=passed
	nerr=$(($(count "$FD/$name.diag" error) + $(count "$FD/$name.diag" make)))
	oerr=$(($(count "$FD/$name-off.diag" error) + $(count "$FD/$name-off.diag" make)))
	nwarn=$(count "$FD/$name.diag" warning)
	nnew=$(wc -l <"$FD/$name-new.txt")
	((status == 0 && nerr == 0 && oerr == 0 && nnew == 0 && missing == 0 && unresolved == 0)) || verdict=failed
	local -a head
	mapfile -t head < <(common_head)
	[[ -z $SHARD_DIRS ]] && mkdir -p "$RESULTS/$FLAVOUR"
	write_head "$res" "${head[@]}" \
		step "shard" \
		shard "${K:-test}/$N" \
		covers "$what" \
		elapsed "$(fmt_secs $((SECONDS - start))) (build $(fmt_secs $btime), off $(fmt_secs $otime), stock $(fmt_secs $stime))" \
		status "$verdict" \
		build "$( ((status == 0)) && echo "make succeeded" || echo "make failed (exit status or errors: see the log $(basename "$SHARD_LOG"))")" \
		errors "$nerr" \
		warnings "$nwarn in $(awk -F'\t' '$2 == "warning" { print $1 }' "$FD/$name.diag" | sort -u | wc -l) objects ($STOCK_OBJECTS compiled again in stock)" \
		new-warnings "$nnew" \
		off "${#offobjs[@]} changed files covered: ${#offbuilt[@]} compiled with profiling compiled out, ${#offnot[@]} not built without it; $oerr errors" \
		tags "$tags" \
		tags-filtered "$filtered" \
		vmlinux-size "$msize" \
		page-flags "$bits" \
		exports "$exports" \
		needs "$needs" \
		missing-ko "$missing"
	awk -F'\t' '$2 == "error" || $2 == "make"' "$FD/$name.diag" "$FD/$name-off.diag" >"$FD/$name-errors.txt"
	section "$res" "errors (object, kind, file, message)" "$FD/$name-errors.txt"
	awk -F'\t' '$2 == "modpost" { print $4 }' "$FD/$name.diag" >"$FD/$name-modpost.txt"
	section "$res" "modpost warnings (not compared with stock; without vmlinux.o, its unresolved symbols are expected and left out)" "$FD/$name-modpost.txt"
	section "$res" "new warnings (stock lacks them)" "$FD/$name-new.txt"
	awk -F'\t' '$2 == "warning" { print $1 ": " $3 ": " $4 }' "$FD/$name.diag" >"$FD/$name-warnings.txt"
	section "$res" "all warnings (object: file: message)" "$FD/$name-warnings.txt"
	awk -F'\t' '$2 == "warning" { print $1 ": " $3 ": " $4 }' "$FD/$name-off.diag" >"$FD/$name-off-warnings.txt"
	{
		for o in "${offbuilt[@]}"; do echo "compiled: $o"; done
		for o in "${offnot[@]}"; do echo "not built without profiling: $o"; done
		cat "$FD/$name-off-warnings.txt"
	} >"$FD/$name-off.txt"
	section "$res" "profiling compiled out" "$FD/$name-off.txt"
	section "$res" "exports" "$FD/$name-exports.txt"
	section "$res" "needs" "$FD/$name-needs.txt"
	section "$res" "module exports" "$FD/$name-modexports.txt"
	section "$res" "needs exported by nothing" "$FD/$name-unresolved.txt"
	head -n 20 "$FD/$name-module-tags.txt" >"$FD/$name-top-tags.txt"
	section "$res" "modules with the most tags (tags, module)" "$FD/$name-top-tags.txt"
	if [[ -s $FD/$name-missing.txt ]]; then section "$res" "missing .ko" "$FD/$name-missing.txt"; fi
	say "distro-check: $FLAVOUR $LABEL $verdict in $(fmt_secs $((SECONDS - start))): $nerr errors, $nwarn warnings, $nnew new; $tags ($(show_path "$res"))"
	[[ $verdict == passed ]]
}

# ---- STEP=boot ----------------------------------------------------------------------------

# The whole cloud kernel, booted in QEMU: its modules (stripped) and the
# kselftests in the initramfs, the boot test scripts/guest/distro-run.
step_boot() {
	local on=$FD/out-on name=distro-$FLAVOUR out log
	prepare on
	HEARTBEAT=60 run_logged "building all of $FLAVOUR (-j$NPROC, nice 19)" "$LOGS/distro-$FLAVOUR-boot-build.log" \
		kmake "$SRC" "$on" -k -j"$NPROC" "$IMAGE" modules
	out=$(out_dir "$name")
	mkdir -p "$(dirname "$out")"
	ln -sfn "$on" "$out"
	run_logged "installing the modules of $FLAVOUR" "$LOGS/distro-$FLAVOUR-modules.log" \
		bash -c 'rm -rf "$1/modroot" && make -C "$2" O="$1" INSTALL_MOD_PATH="$1/modroot" INSTALL_MOD_STRIP=1 modules_install' \
		_ "$on" "$SRC"
	"$TOP/scripts/kselftests.sh"
	run_logged "making the initramfs of $FLAVOUR" "$LOGS/distro-$FLAVOUR-initramfs.log" \
		"$TOP/scripts/initramfs.sh" base "$name" --kselftests
	MEM=2G TIMEOUT=1800 "$TOP/scripts/boot.sh" "$name" ksft "$TOP/scripts/guest/distro-run"
	log=$LOGS/$name-ksft.log
	{
		echo "boot: $(grep -m1 'Linux version' "$log" | tr -d '\r' | sed 's/^\[[^]]*\] //')"
		echo "kselftests: $(grep -c '^ok ' "$log") ok, $(grep -c '^not ok ' "$log") not ok, $(grep -c '# SKIP' "$log") skipped"
		grep -E 'ALLOCPROF-KSFT-END' "$log" | tr -d '\r'
	} >"$FD/boot"
	cat "$FD/boot"
}

# ---- the table ------------------------------------------------------------------------------

step_table() {
	local f version
	local -a pairs=() mine=()
	version=$(series_version)
	for f in $FLAVOURS; do
		pairs+=("$f" "$(default_n "$f")")
		[[ -z $FLAVOUR || $f == "$FLAVOUR" ]] && mine+=("$f" "$(default_n "$f")")
	done
	mkdir -p "$DD"
	{
		echo "Series $version (packaging/SERIES_VERSION, hash of patches/*.patch); results in tests/distro/results/:"
		echo
		python3 "$PY" table "$RESULTS" "$version" "${pairs[@]}"
	} >"$DD/result.md"
	if [[ ${1:-} != quiet ]]; then
		echo "Series $version; results in $(show_path "$RESULTS")/ (all flavours: $(show_path "$DD/result.md")):"
		echo
		python3 "$PY" table "$RESULTS" "$version" "${mine[@]}"
	fi
}

main() {
	check_args
	CMDLINE="STEP=$STEP${SHARD:+ SHARD=$SHARD}"
	case $STEP in
	table)
		step_table
		return
		;;
	esac
	setup
	lock
	setup_tree
	debian_config
	say "distro-check: $FLAVOUR ($KARCH), series $VERSION, tree ${REV:0:12}, $(basename "$DEBIAN_XZ") $DEBIAN_VERSION"
	local status=0 k
	case $STEP in
	layout)
		prepare on
		python3 "$PY" layout "$FD/out-on/.plan.tsv" "$N"
		;;
	scan) step_scan || status=1 ;;
	shard) step_shard || status=1 ;;
	all)
		step_scan || status=1
		for ((k = 1; k <= N; k++)); do
			K=$k
			CMDLINE="SHARD=$K/$N"
			step_shard || status=1
		done
		;;
	boot) step_boot ;;
	esac
	if [[ -n $SHARD_DIRS ]]; then
		cat "$FD/test-shard.txt"
	elif [[ $STEP != layout ]]; then
		step_table quiet
	fi
	return $status
}

main
