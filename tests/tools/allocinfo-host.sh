#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests for tools/mm/allocinfo, the /proc/allocinfo tool.
#
#   tests/tools/allocinfo-host.sh KERNEL_TREE OUTDIR
#
# Builds KERNEL_TREE/tools/mm/allocinfo into OUTDIR with AddressSanitizer
# and UndefinedBehaviorSanitizer (no recovery), runs it on the fixtures in
# tests/tools/fixtures/ and on inputs made here, and prints KTAP v1. Every
# run must also be free of sanitizer reports, leaks included. What needs
# the kernel (the ioctls of /proc/allocinfo, the cumulative counters and
# their sysctls) runs in allocinfo-fakeproc.c, the tool with a fake /proc. Exits 0 iff
# no case failed. Needs bash, make, a C compiler, awk and python3;
# promtool (Debian's prometheus package) for the Prometheus case.
# ALLOCINFO_FUZZ_COUNT overrides the number of fuzz inputs (3000).

set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 KERNEL_TREE OUTDIR" >&2
	exit 2
fi
KTREE=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" || exit 2
OUT=$(cd "$2" && pwd) || exit 2
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/fixtures
SRC=$KTREE/tools/mm
BIN=$OUT/allocinfo
T=$OUT/work
rm -rf "$T"
mkdir -p "$T"

FUZZ_COUNT=${ALLOCINFO_FUZZ_COUNT:-3000}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -g"
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1
# fixed time zone and locale: watch prints local time
export TZ=UTC LC_ALL=C

# ---------------------------------------------------------------------
# KTAP plumbing: the results are collected and printed at the end, so the
# plan line can come first.

RESULTS=$T/results
NR=0
FAILED=0
: >"$RESULTS"

CASE_FAILED=0
SKIP_REASON=

fail() {
	echo "$*"
	CASE_FAILED=1
}

skip() {
	SKIP_REASON=$*
}

# run_case NAME FUNCTION: runs FUNCTION, its output becomes diagnostics
run_case() {
	local name=$1 fn=$2 log=$T/case.log

	CASE_FAILED=0
	SKIP_REASON=
	NR=$((NR + 1))
	"$fn" >"$log" 2>&1
	if [ -n "$SKIP_REASON" ] && [ $CASE_FAILED = 0 ]; then
		echo "ok $NR $name # SKIP $SKIP_REASON" >>"$RESULTS"
	elif [ $CASE_FAILED = 0 ]; then
		echo "ok $NR $name" >>"$RESULTS"
	else
		echo "not ok $NR $name" >>"$RESULTS"
		FAILED=$((FAILED + 1))
	fi
	sed 's/^/# /' "$log" | head -n 60 >>"$RESULTS"
}

# ai ARGS...: runs the tool; stdout in $T/out, stderr in $T/err, status in
# RC. A sanitizer report fails the case.
ai() {
	"$BIN" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	if grep -q -e 'Sanitizer' -e 'runtime error' "$T/err"; then
		fail "sanitizer report from allocinfo $*:"
		head -n 30 "$T/err"
	fi
}

# expect_rc WANT WHAT
expect_rc() {
	if [ "$RC" != "$1" ]; then
		fail "$2: exit status $RC, want $1"
		head -n 5 "$T/err"
	fi
}

# eq WHAT GOT WANT
eq() {
	[ "$2" == "$3" ] || fail "$1: got '$2', want '$3'"
}

# expect_out WHAT: compares $T/out with standard input
expect_out() {
	if ! diff -u - "$T/out" >"$T/diff"; then
		fail "$1: output differs (- want, + got):"
		cat "$T/diff"
	fi
}

# json_get EXPR: evaluates a python expression on the JSON in $T/out (d)
json_get() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print(eval(sys.argv[2]))' "$T/out" "$1"
}

# ---------------------------------------------------------------------
# Cases

case_build() {
	make -C "$SRC" OUTPUT="$OUT/" CFLAGS="-O1 $SAN" \
		LDFLAGS="-fsanitize=address,undefined" >"$T/build.log" 2>&1 ||
		{ fail "build failed:"; tail -n 30 "$T/build.log"; return; }
	[ -x "$BIN" ] || fail "no $BIN after the build"
	if grep -q -i 'warning' "$T/build.log"; then
		fail "compiler warnings:"
		grep -i -A3 'warning' "$T/build.log" | head -n 20
	fi
}

case_makefile() {
	local o=$T/mk

	make -C "$SRC" OUTPUT="$o/" CFLAGS="-O2" LDFLAGS=-static \
		>"$T/mk.log" 2>&1 || { fail "static build failed"; cat "$T/mk.log"; return; }
	grep -q -i warning "$T/mk.log" && { fail "warnings:"; cat "$T/mk.log"; }
	# a static binary has no program interpreter
	readelf -l "$o/allocinfo" >"$T/readelf.txt" 2>&1 ||
		fail "readelf failed: $(cat "$T/readelf.txt")"
	grep -q INTERP "$T/readelf.txt" &&
		fail "LDFLAGS=-static did not give a static binary"
	make -C "$SRC" OUTPUT="$o/" DESTDIR="$o/root" prefix=/usr install \
		>>"$T/mk.log" 2>&1 || fail "make install failed"
	[ -x "$o/root/usr/bin/allocinfo" ] ||
		fail "install did not create DESTDIR/prefix/bin/allocinfo"
	make -C "$SRC" OUTPUT="$o/" clean >>"$T/mk.log" 2>&1 ||
		fail "make clean failed"
	[ -e "$o/allocinfo" ] && fail "make clean left allocinfo"
	"$o/root/usr/bin/allocinfo" -f "$FIX/small.txt" -n 1 >/dev/null ||
		fail "the static binary does not run"
}

case_real_fixture() {
	local f=$FIX/allocinfo-real.txt want got

	# bytes, calls and merged sites as awk sees them
	want=$(awk 'NR > 1 && !/^#/ && NF {
			b += $1; c += $2
			k = $3 " " ($4 ~ /^\[/ ? $4 " " $5 : $4)
			if (!(k in seen)) { seen[k] = 1; n++ }
		} END { printf "%.0f %.0f %d\n", b, c, n }' "$f")
	echo "awk: bytes calls sites = $want"
	ai -f "$f" --json -n 0
	expect_rc 0 "top --json on the real fixture"
	got=$(json_get '"%d %d %d" % (d["total"]["bytes"], d["total"]["calls"], d["total"]["sites"])')
	eq "JSON totals" "$got" "$want"
	got=$(json_get '"%d %d %d" % (sum(s["bytes"] for s in d["sites"]), sum(s["calls"] for s in d["sites"]), len(d["sites"]))')
	eq "sums over the listed sites" "$got" "$want"
	ai -f "$f" -n 0
	expect_rc 0 "top on the real fixture"
	set -- $want
	grep -q "^total: .* in $2 calls at $3 sites ($3 shown)\$" "$T/out" ||
		fail "text total line: $(tail -n 1 "$T/out")"
	eq "text lines" "$(($(wc -l <"$T/out") - 3))" "$3"
	ai -f "$f"
	eq "default -n" "$(($(wc -l <"$T/out") - 3))" \
		"$(($3 < 20 ? $3 : 20))"
}

case_top_n3() {
	ai top -f "$FIX/small.txt" -n 3
	expect_rc 0 "top -n 3"
	expect_out "top -n 3" <<'EOF'
allocinfo - version: 2.0
      size      calls  site
   3.0 MiB        768  drivers/net/ethernet/e1k/main.c:77 [e1k] func:e1k_alloc_ring
   1.9 MiB        480  mm/slub.c:1234 func:allocate_slab
   1.0 MiB        256  mm/vmalloc.c:3000 func:__vmalloc_node_range
total: 6.1 MiB in 1588 calls at 12 sites (3 shown)
EOF
	# options before the command, and no command at all, are the same
	ai -n 3 -f "$FIX/small.txt" top
	expect_out "options before the command" <<'EOF'
allocinfo - version: 2.0
      size      calls  site
   3.0 MiB        768  drivers/net/ethernet/e1k/main.c:77 [e1k] func:e1k_alloc_ring
   1.9 MiB        480  mm/slub.c:1234 func:allocate_slab
   1.0 MiB        256  mm/vmalloc.c:3000 func:__vmalloc_node_range
total: 6.1 MiB in 1588 calls at 12 sites (3 shown)
EOF
	ai -f - -n3 <"$FIX/small.txt"
	expect_rc 0 "-f - (stdin)"
	eq "-f - total" "$(tail -n 1 "$T/out")" \
		"total: 6.1 MiB in 1588 calls at 12 sites (3 shown)"
}

case_top_all_sorted() {
	ai -f "$FIX/small.txt" -n 0
	expect_rc 0 "top -n 0"
	expect_out "top -n 0 (order, ties by site text, sizes)" <<'EOF'
allocinfo - version: 2.0
      size      calls  site
   3.0 MiB        768  drivers/net/ethernet/e1k/main.c:77 [e1k] func:e1k_alloc_ring
   1.9 MiB        480  mm/slub.c:1234 func:allocate_slab
   1.0 MiB        256  mm/vmalloc.c:3000 func:__vmalloc_node_range
 160.0 KiB         40  kernel/fork.c:309 func:alloc_thread_stack_node
  16.0 KiB          4  drivers/foo/bar.c:55 [foo] func:foo_probe
  16.0 KiB          4  mm/slub.c:100 func:bar accurate:no
   4.0 KiB          1  mm/percpu-vm.c:97 func:pcpu_alloc_pages
   1.5 KiB         12  drivers/net/ethernet/e1k/main.c:90 [e1k] func:e1k_alloc_desc
     640 B         20  lib/xarray.c:40 func:xas_alloc
      64 B          2  init.c:10 func:start
       0 B          0  fs/dcache.c:1800 func:d_alloc
  -4.0 KiB          1  mm/percpu.c:1741 func:pcpu_alloc
total: 6.1 MiB in 1588 calls at 12 sites (12 shown)
EOF
}

case_top_sort_calls() {
	ai -f "$FIX/small.txt" --sort calls -n 6
	expect_rc 0 "--sort calls"
	expect_out "--sort calls" <<'EOF'
allocinfo - version: 2.0
      size      calls  site
   3.0 MiB        768  drivers/net/ethernet/e1k/main.c:77 [e1k] func:e1k_alloc_ring
   1.9 MiB        480  mm/slub.c:1234 func:allocate_slab
   1.0 MiB        256  mm/vmalloc.c:3000 func:__vmalloc_node_range
 160.0 KiB         40  kernel/fork.c:309 func:alloc_thread_stack_node
     640 B         20  lib/xarray.c:40 func:xas_alloc
   1.5 KiB         12  drivers/net/ethernet/e1k/main.c:90 [e1k] func:e1k_alloc_desc
total: 6.1 MiB in 1588 calls at 12 sites (6 shown)
EOF
	ai -f "$FIX/small.txt" --sort=calls --json -n 0
	eq "JSON --sort calls" \
		"$(json_get '[s["calls"] for s in d["sites"]]')" \
		"[768, 480, 256, 40, 20, 12, 4, 4, 2, 1, 1, 0]"
}

case_top_module() {
	ai -f "$FIX/small.txt" --module e1k
	expect_rc 0 "--module e1k"
	expect_out "--module e1k" <<'EOF'
allocinfo - version: 2.0
      size      calls  site
   3.0 MiB        768  drivers/net/ethernet/e1k/main.c:77 [e1k] func:e1k_alloc_ring
   1.5 KiB         12  drivers/net/ethernet/e1k/main.c:90 [e1k] func:e1k_alloc_desc
total: 3.0 MiB in 780 calls at 2 sites (2 shown)
EOF
	ai -f "$FIX/small.txt" --module vmlinux --json -n 0
	eq "--module vmlinux totals" \
		"$(json_get 'd["total"]["bytes"], d["total"]["calls"], d["total"]["sites"]')" \
		"(3261120, 804, 9)"
	eq "--module vmlinux: no module sites" \
		"$(json_get 'set(s["module"] for s in d["sites"])')" "{None}"
	ai -f "$FIX/small.txt" --module nosuch
	eq "--module nosuch" "$(tail -n 1 "$T/out")" \
		"total: 0 B in 0 calls at 0 sites (0 shown)"
}

case_top_file() {
	ai -f "$FIX/small.txt" --file 'mm/*'
	expect_rc 0 "--file 'mm/*'"
	expect_out "--file 'mm/*'" <<'EOF'
allocinfo - version: 2.0
      size      calls  site
   1.9 MiB        480  mm/slub.c:1234 func:allocate_slab
   1.0 MiB        256  mm/vmalloc.c:3000 func:__vmalloc_node_range
  16.0 KiB          4  mm/slub.c:100 func:bar accurate:no
   4.0 KiB          1  mm/percpu-vm.c:97 func:pcpu_alloc_pages
  -4.0 KiB          1  mm/percpu.c:1741 func:pcpu_alloc
total: 3.0 MiB in 742 calls at 5 sites (5 shown)
EOF
	# no FNM_PATHNAME: '*' matches '/'
	ai -f "$FIX/small.txt" --file 'drivers*main.c' --json
	eq "--file 'drivers*main.c'" "$(json_get 'd["total"]["sites"]')" 2
}

case_top_func() {
	ai -f "$FIX/small.txt" --func '*alloc*' --json -n 0
	expect_rc 0 "--func '*alloc*'"
	eq "--func totals" \
		"$(json_get 'd["total"]["bytes"], d["total"]["calls"], d["total"]["sites"]')" \
		"(6391936, 1578, 9)"
	ai -f "$FIX/small.txt" --func 'foo_probe'
	expect_out "--func foo_probe" <<'EOF'
allocinfo - version: 2.0
      size      calls  site
  16.0 KiB          4  drivers/foo/bar.c:55 [foo] func:foo_probe
total: 16.0 KiB in 4 calls at 1 sites (1 shown)
EOF
}

case_top_min() {
	ai -f "$FIX/small.txt" --min 1M
	expect_rc 0 "--min 1M"
	expect_out "--min 1M" <<'EOF'
allocinfo - version: 2.0
      size      calls  site
   3.0 MiB        768  drivers/net/ethernet/e1k/main.c:77 [e1k] func:e1k_alloc_ring
   1.9 MiB        480  mm/slub.c:1234 func:allocate_slab
   1.0 MiB        256  mm/vmalloc.c:3000 func:__vmalloc_node_range
total: 5.9 MiB in 1504 calls at 3 sites (3 shown)
EOF
	local m want
	# fractions of a byte round up: 0.001G = 1073741.824 -> 1073742
	for m in "1048576 3" "1048577 2" "1MiB 3" "1m 3" "1miB 3" "0.5k 9" \
		"1.5KiB 8" "1537 7" "2031616 2" "3K 7" "0.001G 2" "1T 0" \
		"1tiB 0" "0 11" "0.0 11" "1mib usage" "1MIB usage" "1Ki usage" \
		"1KiBx usage" "K usage" "1e3 usage" "0x10 usage" "1P usage"; do
		set -- $m
		ai -f "$FIX/small.txt" --min "$1" --json
		if [ "$2" = usage ]; then
			expect_rc 2 "--min '$1'"
			continue
		fi
		expect_rc 0 "--min $1"
		eq "sites with --min $1" "$(json_get 'd["total"]["sites"]')" "$2"
	done
}

case_top_tree() {
	ai -f "$FIX/small.txt" --tree 1
	expect_rc 0 "--tree 1"
	expect_out "--tree 1" <<'EOF'
allocinfo - version: 2.0
      size      calls   sites  path
   3.0 MiB        784       3  drivers/
   3.0 MiB        742       5  mm/
 160.0 KiB         40       1  kernel/
     640 B         20       1  lib/
      64 B          2       1  ./
       0 B          0       1  fs/
total: 6.1 MiB in 1588 calls at 12 sites in 6 groups (6 shown)
EOF
	ai -f "$FIX/small.txt" --tree 2
	expect_rc 0 "--tree 2"
	expect_out "--tree 2" <<'EOF'
allocinfo - version: 2.0
      size      calls   sites  path
   3.0 MiB        780       2  drivers/net/
   3.0 MiB        742       5  mm/
 160.0 KiB         40       1  kernel/
  16.0 KiB          4       1  drivers/foo/
     640 B         20       1  lib/
      64 B          2       1  ./
       0 B          0       1  fs/
total: 6.1 MiB in 1588 calls at 12 sites in 7 groups (7 shown)
EOF
	ai -f "$FIX/small.txt" --tree 3 --sort calls -n 2 --json
	expect_rc 0 "--tree 3 --json"
	eq "--tree 3 --json" "$(json_get 'd["groups"]')" \
		"[{'path': 'drivers/net/ethernet/', 'bytes': 3147264, 'calls': 780, 'sites': 2}, {'path': 'mm/', 'bytes': 3096576, 'calls': 742, 'sites': 5}]"
	eq "--tree --json total" "$(json_get 'd["total"]')" \
		"{'bytes': 6424768, 'calls': 1588, 'sites': 12}"
	ai -f "$FIX/allocinfo-real.txt" --tree 1 --json -n 0
	eq "--tree 1 on the real fixture adds up" \
		"$(json_get 'sum(g["bytes"] for g in d["groups"]) == d["total"]["bytes"] and sum(g["sites"] for g in d["groups"]) == d["total"]["sites"]')" True
}

case_top_json() {
	ai -f "$FIX/small.txt" --json -n 2
	expect_rc 0 "--json"
	python3 -m json.tool "$T/out" >/dev/null || fail "json.tool rejects the output"
	eq "--json document" "$(json_get 'd')" \
		"{'version': '2.0', 'total': {'bytes': 6424768, 'calls': 1588, 'sites': 12}, 'sites': [{'bytes': 3145728, 'calls': 768, 'file': 'drivers/net/ethernet/e1k/main.c', 'line': 77, 'module': 'e1k', 'function': 'e1k_alloc_ring', 'accurate': True}, {'bytes': 2031616, 'calls': 480, 'file': 'mm/slub.c', 'line': 1234, 'module': None, 'function': 'allocate_slab', 'accurate': True}]}"
	# strings that need escaping, and bytes that are not UTF-8
	printf 'allocinfo - version: 2.0\n 1 1 a"b\\c\x01.c:1 [m\xff] func:f\xc3\xa9\x7f\n' >"$T/esc.txt"
	ai -f "$T/esc.txt" --json
	expect_rc 0 "--json with odd bytes"
	python3 -m json.tool "$T/out" >/dev/null || fail "json.tool rejects escaped output: $(cat "$T/out")"
	eq "escaped strings" "$(json_get 'ascii(d["sites"][0]["file"] + "|" + d["sites"][0]["module"] + "|" + d["sites"][0]["function"])')" \
		"'a\"b\\\\c\\x01.c|m\\ufffd|f\\xe9\\x7f'"
}

# capture and stacks read debugfs files; -f gives them (real output of
# a profiling guest: tests/tools/fixtures/capture.txt and stacks.txt).
case_capture_list() {
	ai capture -f "$FIX/capture.txt"
	expect_rc 0 "capture (list)"
	diff -q "$FIX/capture.txt" "$T/out" >/dev/null || fail "the list is not the file"
	ai capture -f "$FIX/capture.txt" --json
	expect_rc 0 "capture --json"
	eq "capture --json" "$(json_get '[(c["file"], c["line"], c["module"], c["records"], c["bytes"], c["dropped"], c["unloaded"]) for c in d["captured"]]')" \
		"[('lib/test_alloc_tag.c', 1059, 'test_alloc_tag', 6, 3072, 0, False), ('lib/test_alloc_tag.c', 1061, 'test_alloc_tag', 24, 73920, 0, False)]"
	printf 'a.c:1 func:f records:0 bytes:0 dropped:3 age:12s unloaded\n' >"$T/cap.txt"
	ai capture -f "$T/cap.txt" --json
	eq "unloaded site" "$(json_get '[(c["module"], c["dropped"], c["age"], c["unloaded"]) for c in d["captured"]]')" \
		"[(None, 3, 12, True)]"
	printf 'a.c:1 func:f records:x bytes:0 dropped:0 age:1s\n' >"$T/cap.txt"
	ai capture -f "$T/cap.txt"
	expect_rc 2 "malformed capture line"
	: >"$T/cap.txt"
	ai capture -f "$T/cap.txt"
	expect_rc 0 "empty list"
	grep -q "no site is captured" "$T/err" || fail "no note for an empty list"
}

case_stacks() {
	ai stacks -f "$FIX/stacks.txt"
	expect_rc 0 "stacks"
	diff -q "$FIX/stacks.txt" "$T/out" >/dev/null || fail "stacks is not the file"
	ai stacks -f "$FIX/stacks.txt" lib/test_alloc_tag.c:1061 --module test_alloc_tag
	expect_rc 0 "stacks SITE"
	eq "lines of one site" "$(wc -l <"$T/out")" 29
	eq "its first line" "$(head -n 1 "$T/out")" \
		"       73920       24 lib/test_alloc_tag.c:1061 [test_alloc_tag] func:test_alloc_tag_chain_site"
	ai stacks -f "$FIX/stacks.txt" "lib/test_alloc_tag.c:1059 [test_alloc_tag]"
	eq "SITE with [module]" "$(sed -n 3p "$T/out")" "  1536 3 oldest: pid 149 comm sh age 0s"
	ai stacks -f "$FIX/stacks.txt" lib/test_alloc_tag.c:1059
	expect_rc 0 "a vmlinux SITE that is not there"
	eq "nothing printed" "$(cat "$T/out")" ""
	grep -q "lib/test_alloc_tag.c:1059 is not captured" "$T/err" || fail "no note: $(cat "$T/err")"
}

case_stacks_json() {
	ai stacks -f "$FIX/stacks.txt" --json
	expect_rc 0 "stacks --json"
	python3 -m json.tool "$T/out" >/dev/null || fail "json.tool rejects the output"
	eq "sites" "$(json_get '[(s["line"], s["bytes"], s["calls"], s["since"], s["dropped"], [(g["bytes"], g["calls"], g["oldest"]["pid"], g["oldest"]["comm"], len(g["frames"]), g["frames"][1].split("+")[0]) for g in s["stacks"]]) for s in d["sites"]]')" \
		"[(1059, 3072, 6, 0, 0, [(1536, 3, 149, 'sh', 8, 'test_alloc_tag_chain_a'), (1024, 2, 149, 'sh', 8, 'test_alloc_tag_chain_b'), (512, 1, 149, 'sh', 8, 'test_alloc_tag_chain_c')]), (1061, 73920, 24, 0, 0, [(36960, 12, 149, 'sh', 8, 'test_alloc_tag_chain_a'), (24640, 8, 149, 'sh', 8, 'test_alloc_tag_chain_b'), (12320, 4, 149, 'sh', 8, 'test_alloc_tag_chain_c')])]"
	# a comm with blanks, dropped records, an unloaded site, no stack
	printf '%s\n' '        100        2 a.c:5 [m] func:f' \
		'  since: 7s (older allocations are not recorded) unloaded' \
		'  100 2 oldest: pid 0 comm my task age 3s' '    f+0x1/0x2 [m]' \
		'  dropped: 4' '          0        0 b.c:9 func:g' \
		'  since: 1s (older allocations are not recorded)' >"$T/st.txt"
	ai stacks -f "$T/st.txt" --json
	expect_rc 0 "stacks --json, odd input"
	eq "odd input" "$(json_get 'd')" \
		"{'sites': [{'bytes': 100, 'calls': 2, 'file': 'a.c', 'line': 5, 'module': 'm', 'function': 'f', 'accurate': True, 'since': 7, 'unloaded': True, 'stacks': [{'bytes': 100, 'calls': 2, 'oldest': {'pid': 0, 'comm': 'my task', 'age': 3}, 'frames': ['f+0x1/0x2 [m]']}], 'dropped': 4}, {'bytes': 0, 'calls': 0, 'file': 'b.c', 'line': 9, 'module': None, 'function': 'g', 'accurate': True, 'since': 1, 'unloaded': False, 'stacks': [], 'dropped': 0}]}"
}

case_stacks_bad() {
	printf '%s\n' '        100        2 a.c:5 func:f' '    f+0x1/0x2' >"$T/st.txt"
	ai stacks -f "$T/st.txt" --json
	expect_rc 2 "a frame before any stack"
	printf '%s\n' '        100        2 a.c:5 func:f' '  since: 1s' '  what is this' >"$T/st.txt"
	ai stacks -f "$T/st.txt" --json
	expect_rc 2 "an unknown line"
	printf '%s\n' 'garbage' >"$T/st.txt"
	ai stacks -f "$T/st.txt"
	expect_rc 2 "a bad site line"
	ai stacks -f "$T/nosuch.txt"
	expect_rc 1 "a missing file"
}

case_capture_usage() {
	for args in "capture --stop" "capture --module m" "capture a.c:1 --clear" \
		    "capture a.c" "capture :3" "capture a.c:x" \
		    "capture a.c:1 -f x" "capture a.c:1 --json" "stacks --module m" \
		    "capture a.c:1 b.c:2" "stacks a.c:1 --stop"; do
		# shellcheck disable=SC2086
		ai $args
		expect_rc 2 "allocinfo $args"
	done
	ai capture "a.c:1 [m"
	expect_rc 2 "a SITE with a bad [module]"
	ai capture "a.c:1 [m]" --module m
	expect_rc 2 "[module] and --module"
}

case_duplicates() {
	printf '%s\n' 'allocinfo - version: 2.0' \
		'        4096        1 include/linux/slab.h:600 func:kmalloc' \
		'        8192        2 mm/a.c:1 func:a' \
		'       12288        3 include/linux/slab.h:600 func:kmalloc' \
		'         100        5 include/linux/slab.h:600 [mod] func:kmalloc' \
		'          -1        7 include/linux/slab.h:600 func:kmalloc accurate:no' \
		'         100        5 include/linux/slab.h:601 func:kmalloc' \
		>"$T/dup.txt"
	ai -f "$T/dup.txt" --json
	expect_rc 0 "duplicates"
	eq "merged sites" "$(json_get 'd["total"]["sites"]')" 4
	eq "merged kmalloc" "$(json_get '[(s["bytes"], s["calls"], s["accurate"]) for s in d["sites"] if s["line"] == 600 and not s["module"]]')" \
		"[(16383, 11, False)]"
	ai -f "$T/dup.txt"
	grep -q '^  16.0 KiB         11  include/linux/slab.h:600 func:kmalloc accurate:no$' "$T/out" ||
		fail "merged line in text: $(cat "$T/out")"
	ai snapshot -f "$T/dup.txt"
	eq "merged in snapshot" "$(grep -c 'slab.h:600 func' "$T/out")" 1
}

case_diff() {
	ai diff "$FIX/diff-old.txt" "$FIX/diff-new.txt"
	expect_rc 0 "diff"
	expect_out "diff" <<'EOF'
     delta      calls        now  status  site
  +2.0 MiB       +512    3.0 MiB  grown   mm/vmalloc.c:3000 func:__vmalloc_node_range
 +12.0 KiB         +3   12.0 KiB  new     drivers/foo/bar.c:55 [foo] func:foo_probe
  +4.0 KiB         +1    8.0 KiB  grown   mm/slub.c:1 func:x
       0 B         -1      128 B  shrunk  fs/dcache.c:1800 func:d_alloc
       0 B         +2      512 B  grown   mm/callsonly.c:2 func:c
  -8.0 KiB         -2          -  gone    mm/gone.c:7 func:g
  -8.0 KiB         -2    8.0 KiB  shrunk  mm/shrink.c:3 func:s
total: +2.0 MiB, +513 calls; 2 new, 1 gone, 5 changed sites (over 12.3 s)
EOF
	ai diff "$FIX/diff-old.txt" "$FIX/diff-new.txt" --all
	expect_out "diff --all" <<'EOF'
     delta      calls        now  status  site
  +2.0 MiB       +512    3.0 MiB  grown   mm/vmalloc.c:3000 func:__vmalloc_node_range
 +12.0 KiB         +3   12.0 KiB  new     drivers/foo/bar.c:55 [foo] func:foo_probe
  +4.0 KiB         +1    8.0 KiB  grown   mm/slub.c:1 func:x
       0 B         -1      128 B  shrunk  fs/dcache.c:1800 func:d_alloc
       0 B          0        0 B  new     lib/idle.c:5 func:idle
       0 B         +2      512 B  grown   mm/callsonly.c:2 func:c
       0 B          0      100 B  same    mm/same.c:9 func:same
  -8.0 KiB         -2          -  gone    mm/gone.c:7 func:g
  -8.0 KiB         -2    8.0 KiB  shrunk  mm/shrink.c:3 func:s
total: +2.0 MiB, +513 calls; 2 new, 1 gone, 5 changed sites (over 12.3 s)
EOF
	ai diff "$FIX/diff-old.txt" "$FIX/diff-new.txt" --sort calls -n 3
	expect_out "diff --sort calls -n 3" <<'EOF'
     delta      calls        now  status  site
  +2.0 MiB       +512    3.0 MiB  grown   mm/vmalloc.c:3000 func:__vmalloc_node_range
 +12.0 KiB         +3   12.0 KiB  new     drivers/foo/bar.c:55 [foo] func:foo_probe
       0 B         +2      512 B  grown   mm/callsonly.c:2 func:c
total: +2.0 MiB, +513 calls; 2 new, 1 gone, 5 changed sites (over 12.3 s)
EOF
	ai diff "$FIX/diff-old.txt" "$FIX/diff-new.txt" --file 'mm/*' --min 8K
	expect_out "diff --file 'mm/*' --min 8K" <<'EOF'
     delta      calls        now  status  site
  +2.0 MiB       +512    3.0 MiB  grown   mm/vmalloc.c:3000 func:__vmalloc_node_range
  -8.0 KiB         -2          -  gone    mm/gone.c:7 func:g
  -8.0 KiB         -2    8.0 KiB  shrunk  mm/shrink.c:3 func:s
total: +2.0 MiB, +508 calls; 0 new, 1 gone, 2 changed sites (over 12.3 s)
EOF
	# NEW from -f (here stdin), OLD as a file; no time in NEW: no "over"
	grep -v '^# time' "$FIX/diff-new.txt" >"$T/new-notime.txt"
	ai diff "$FIX/diff-old.txt" -f - -n 1 <"$T/new-notime.txt"
	expect_rc 0 "diff OLD -f -"
	eq "diff without time" "$(tail -n 1 "$T/out")" \
		"total: +2.0 MiB, +513 calls; 2 new, 1 gone, 5 changed sites"
	eq "diff -n 1" "$(wc -l <"$T/out")" 3
}

case_diff_json() {
	ai diff "$FIX/diff-old.txt" "$FIX/diff-new.txt" --json
	expect_rc 0 "diff --json"
	python3 -m json.tool "$T/out" >/dev/null || fail "json.tool rejects the output"
	eq "times" "$(json_get 'd["old"]["time"], d["new"]["time"]')" \
		"(1764500000.25, 1764500012.55)"
	eq "total" "$(json_get 'd["total"]')" \
		"{'bytes': 2097152, 'calls': 513, 'new': 2, 'gone': 1, 'changed': 5, 'sites': 9}"
	eq "statuses in order" "$(json_get '[s["status"] + ":" + s["function"] for s in d["sites"]]')" \
		"['grown:__vmalloc_node_range', 'new:foo_probe', 'grown:x', 'shrunk:d_alloc', 'grown:c', 'gone:g', 'shrunk:s']"
	eq "new site: +12288 bytes, +3 calls" \
		"$(json_get '[(s["bytes"], s["calls"], s["old_bytes"], s["old_calls"], s["new_bytes"], s["new_calls"], s["module"]) for s in d["sites"] if s["status"] == "new"]')" \
		"[(12288, 3, 0, 0, 12288, 3, 'foo')]"
	eq "gone site" \
		"$(json_get '[(s["bytes"], s["calls"], s["old_bytes"], s["new_bytes"]) for s in d["sites"] if s["status"] == "gone"]')" \
		"[(-8192, -2, 8192, 0)]"
	ai diff "$FIX/diff-new.txt" "$FIX/small.txt" --json --all
	eq "no time in NEW" "$(json_get 'd["new"]["time"]')" None
	eq "grew by 3 x 4096" "$(json_get '[(s["bytes"], s["calls"]) for s in d["sites"] if s["function"] == "foo_probe"]')" \
		"[(4096, 1)]"
	# the brief's example: a site that grew by 3 x 4096
	printf 'allocinfo - version: 2.0\n 4096 1 mm/g.c:1 func:g\n' >"$T/g1.txt"
	printf 'allocinfo - version: 2.0\n 16384 4 mm/g.c:1 func:g\n' >"$T/g2.txt"
	ai diff "$T/g1.txt" "$T/g2.txt" --json
	eq "+12288 in JSON" "$(json_get 'd["sites"][0]["bytes"], d["sites"][0]["calls"]')" "(12288, 3)"
	ai diff "$T/g1.txt" "$T/g2.txt"
	eq "+12.0 KiB / +3 in text" "$(sed -n 2p "$T/out")" \
		" +12.0 KiB         +3   16.0 KiB  grown   mm/g.c:1 func:g"
}

case_snapshot() {
	local s1=$T/snap1.txt s2=$T/snap2.txt t0 t1 t

	t0=$(date +%s)
	ai snapshot -f "$FIX/small.txt" -o "$s1"
	t1=$(date +%s)
	expect_rc 0 "snapshot -o"
	[ -s "$T/out" ] && fail "snapshot -o wrote to stdout"
	[ -e "$s1.tmp" ] && fail "$s1.tmp left behind"
	eq "snapshot header" "$(head -n 2 "$s1")" \
		"allocinfo - version: 2.0
#     <size>  <calls> <tag info>"
	t=$(sed -n 's/^# time: \([0-9]*\)\.[0-9][0-9][0-9]$/\1/p' "$s1")
	[ -n "$t" ] && [ "$t" -ge "$t0" ] && [ "$t" -le "$t1" ] ||
		fail "bad '# time:' line: $(sed -n 3p "$s1")"
	eq "snapshot lines" "$(wc -l <"$s1")" 15
	grep -q '^       16384        4 drivers/foo/bar.c:55 \[foo\] func:foo_probe$' "$s1" ||
		fail "merged line not in kernel format"
	# a snapshot of a snapshot is the same file (it keeps the time)
	ai snapshot -f "$s1" -o "$s2"
	cmp -s "$s1" "$s2" || { fail "snapshot of a snapshot differs:"; diff "$s1" "$s2"; }
	ai -f "$s1" --json -n 0
	cp "$T/out" "$T/j1"
	ai -f "$FIX/small.txt" --json -n 0
	cmp -s "$T/out" "$T/j1" || fail "top --json of the snapshot differs from the input's"
	ai diff "$s1" "$FIX/small.txt" --json --all
	eq "snapshot vs input: all same" "$(json_get 'set(s["status"] for s in d["sites"])')" "{'same'}"
	# time on both sides: elapsed
	sed 's/^# time: .*/# time: 100.000/' "$s1" >"$T/ta.txt"
	sed 's/^# time: .*/# time: 160.5/' "$s1" >"$T/tb.txt"
	ai diff "$T/ta.txt" "$T/tb.txt"
	eq "elapsed" "$(tail -n 1 "$T/out")" \
		"total: 0 B, 0 calls; 0 new, 0 gone, 0 changed sites (over 60.5 s)"
	# to stdout, and --json
	ai snapshot -f "$FIX/v1.txt"
	eq "snapshot to stdout" "$(sed 3d "$T/out")" "allocinfo - version: 1.0
#     <size>  <calls> <tag info>
        4096        1 mm/percpu-vm.c:97 func:pcpu_alloc_pages
       12288        3 drivers/foo/bar.c:55 [foo] func:foo_probe"
	ai snapshot -f "$T/ta.txt" --json -o "$T/snap.json"
	expect_rc 0 "snapshot --json -o"
	cp "$T/snap.json" "$T/out"
	eq "snapshot --json" "$(json_get 'd["time"], d["version"], d["total"]["sites"], len(d["sites"])')" \
		"(100.0, '2.0', 12, 12)"
	ai snapshot -f "$FIX/small.txt" -o "$T/no/such/dir/snap"
	expect_rc 1 "snapshot into a missing directory"
}

case_watch() {
	local f=$T/watch.txt i=0 bg

	make_version() {
		{
			echo 'allocinfo - version: 2.0'
			echo '#     <size>  <calls> <tag info>'
			printf '%12d %8d %s\n' 1048576 256 'mm/steady.c:1 func:steady'
			printf '%12d %8d %s\n' $((4096 * $1)) "$1" 'lib/grow.c:42 [grow] func:grower'
			printf '%12d %8d %s\n' 8192 2 'fs/idle.c:7 func:idle'
		} >"$f.new"
		mv -f "$f.new" "$f"
	}
	make_version 0
	(
		while :; do
			i=$((i + 1))
			make_version $i
			sleep 0.01
		done
	) &
	bg=$!
	ai watch -c 2 -i 0.2 -f "$f"
	local rc1=$RC
	cp "$T/out" "$T/watch1"
	ai watch -c 2 -i 0.2 -f "$f" --json
	expect_rc 0 "watch --json"
	kill "$bg"
	wait "$bg" 2>/dev/null
	RC=$rc1
	expect_rc 0 "watch"
	cp "$T/out" "$T/watch2"
	cp "$T/watch1" "$T/out"
	eq "intervals" "$(grep -c '^--- ' "$T/out")" 2
	grep -q '^--- [0-9-]* [0-9:]* (interval 0\.[1-3] s)$' "$T/out" ||
		fail "interval line: $(head -n 1 "$T/out")"
	eq "first site of each interval" \
		"$(awk '/^---/ { getline; getline; print $NF }' "$T/out")" \
		"func:grower
func:grower"
	grep -q -e steady -e idle "$T/out" && fail "unchanged sites shown"
	grep -q '^ *+[0-9.]* [KM]iB/s *+[0-9]*\.[0-9] *[0-9]*\.[0-9]  lib/grow.c:42 \[grow\] func:grower$' "$T/out" ||
		fail "rate line format"
	cat "$T/out"
	cp "$T/watch2" "$T/out"
	eq "JSON lines" "$(wc -l <"$T/out")" 2
	python3 - "$T/out" <<'EOF' || fail "watch --json"
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    s = d["sites"][0]
    assert s["function"] == "grower", s
    assert s["bytes_per_sec"] > 0 and s["calls_per_sec"] > 0, s
    assert s["activity_per_sec"] >= s["calls_per_sec"] * 0.99, s
    assert abs(s["bytes_per_sec"] / s["calls_per_sec"] - 4096) < 1, s
    assert s["bytes"] == 4096 * s["calls"], s
    assert 0.15 < d["interval"] < 0.5, d["interval"]
    assert len(d["sites"]) == 1, d
EOF
	# a site that allocates and frees quickly: activity without net change
	ai watch -c 1 -i 0.1 -f "$FIX/small.txt"
	expect_rc 0 "watch on a static file"
	eq "static file: nothing shown" "$(wc -l <"$T/out")" 2
}

case_watch_flip() {
	local f=$T/flip.txt i=0 bg try

	flip() {
		{
			echo 'allocinfo - version: 2.0'
			printf '%12d %8d %s\n' $((4096 * $1)) "$1" 'mm/flip.c:3 func:flipper'
		} >"$f.new"
		mv -f "$f.new" "$f"
	}
	# As fast as it goes: on a loaded host a flipper that sleeps between
	# flips may not flip twice between the samples of a short interval.
	# Even so a flipper starved of CPU for the whole interval flips at
	# most once: up to 3 intervals, the first that sees two changes counts.
	for try in 1 2 3; do
		flip 0
		(
			while :; do
				i=$((1 - i))
				flip $i
			done
		) &
		bg=$!
		ai watch -c 1 -i 1 -f "$f" --json
		kill "$bg"
		wait "$bg" 2>/dev/null
		expect_rc 0 "watch"
		python3 - "$T/out" <<'EOF' && return
import json, sys
d = json.loads(open(sys.argv[1]).readline())
s = d["sites"][0]
assert s["function"] == "flipper", s
# the net change is at most one call, the changes seen are at least two
net = abs(s["calls_per_sec"]) * d["interval"]
seen = s["activity_per_sec"] * d["interval"]
assert net < 1.01, s
assert seen > 1.99 and seen > net + 0.99, s
EOF
	done
	fail "alloc/free at the same rate must show as activity (3 intervals)"
}

case_version1() {
	ai -f "$FIX/v1.txt"
	expect_rc 0 "version 1.0"
	expect_out "version 1.0" <<'EOF'
allocinfo - version: 1.0
      size      calls  site
  12.0 KiB          3  drivers/foo/bar.c:55 [foo] func:foo_probe
   4.0 KiB          1  mm/percpu-vm.c:97 func:pcpu_alloc_pages
total: 16.0 KiB in 4 calls at 2 sites (2 shown)
EOF
	ai -f "$FIX/v1.txt" --json
	eq "version 1.0 JSON" "$(json_get 'd["version"], [s["accurate"] for s in d["sites"]]')" \
		"('1.0', [True, True])"
	ai -f "$FIX/small.txt" --func bar
	grep -q ' mm/slub.c:100 func:bar accurate:no$' "$T/out" ||
		fail "accurate:no not shown: $(cat "$T/out")"
	ai -f "$FIX/small.txt" --func bar --json
	eq "accurate:no in JSON" "$(json_get 'd["sites"][0]["accurate"]')" False
	printf 'allocinfo - version: 2.7\n 1 1 a.c:1 func:f accurate:yes zz:1 :\n' >"$T/v27.txt"
	ai -f "$T/v27.txt"
	expect_rc 2 "a lone ':' after func:"
	# The kernel prints a negative sum as it is (a read racing a free).
	printf 'allocinfo - version: 2.0\n#\n        -4096       -1 a.c:1 func:f\n        8192        2 a.c:2 func:f\n' >"$T/neg.txt"
	ai -f "$T/neg.txt" --json
	expect_rc 0 "negative bytes and calls"
	eq "negative sums" "$(json_get '[(s["bytes"], s["calls"]) for s in d["sites"]], d["total"]["calls"]')" "([(8192, 2), (-4096, -1)], 1)"
	printf 'allocinfo - version: 2.7\n 1 1 a.c:1 func:f accurate:yes zz:1 k:\n' >"$T/v27.txt"
	ai -f "$T/v27.txt" --json
	expect_rc 0 "version 2.7, unknown key:value"
	eq "2.7 accurate:yes" "$(json_get 'd["version"], d["sites"][0]["accurate"]')" "('2.7', True)"
	# Line 0: the tag of a whole file (CONFIG_MEM_ALLOC_PROFILING_FILTER).
	printf 'allocinfo - version: 2.0\n#     <size>  <calls> <tag info>\n 4096 3 drivers/x.c:0 [x] func:(file)\n' >"$T/file.txt"
	ai -f "$T/file.txt" --json
	expect_rc 0 "a file's tag at line 0"
	eq "line 0 site" "$(json_get '[(s["file"], s["line"], s["function"], s["bytes"]) for s in d["sites"]]')" "[('drivers/x.c', 0, '(file)', 4096)]"
}

# malformed NAME LINENO CONTENT (printf format)
malformed() {
	printf "$3" >"$T/bad.txt"
	ai -f "$T/bad.txt"
	if [ "$RC" != 2 ]; then
		fail "$1: exit status $RC, want 2"
	elif ! grep -q "^allocinfo: $T/bad.txt:$2: malformed line: " "$T/err"; then
		fail "$1: want line $2, got: $(head -n 1 "$T/err")"
	else
		echo "$1: $(head -n 1 "$T/err" | sed 's/.*malformed line: //')"
	fi
	[ -s "$T/out" ] && fail "$1: output on stdout"
}

case_malformed() {
	local H='allocinfo - version: 2.0\n#     <size>  <calls> <tag info>\n         1        1 ok.c:1 func:ok\n'

	malformed "empty file" 1 ''
	malformed "no header" 1 '         1        1 a.c:1 func:f\n'
	malformed "wrong header" 1 'allocinfo - version 2.0\n'
	malformed "version 3.0" 1 'allocinfo - version: 3.0\n'
	malformed "version without minor" 1 'allocinfo - version: 2\n'
	malformed "version with junk" 1 'allocinfo - version: 2.0beta\n'
	malformed "size not a number" 4 "$H"'  12a  1 a.c:1 func:f\n'
	malformed "size overflow" 4 "$H"' 99999999999999999999 1 a.c:1 func:f\n'
	malformed "size above 2^62" 4 "$H"' 4611686018427387904 1 a.c:1 func:f\n'
	malformed "calls '-'" 4 "$H"' 1 - a.c:1 func:f\n'
	malformed "calls overflow" 4 "$H"' 1 18446744073709551616 a.c:1 func:f\n'
	malformed "sum too large" 5 "$H"' 4611686018427387000 1 a.c:1 func:f\n 4611686018427387000 1 a.c:2 func:f\n'
	malformed "calls sum too large" 5 "$H"' 1 4611686018427387000 a.c:1 func:f\n 1 4611686018427387000 a.c:1 func:f\n'
	malformed "missing func:" 4 "$H"' 1 1 a.c:1\n'
	malformed "missing func: after module" 4 "$H"' 1 1 a.c:1 [m] f\n'
	malformed "missing :line" 4 "$H"' 1 1 a.c func:f\n'
	malformed "missing file:line" 4 "$H"' 1 1 func:f\n'
	malformed "line number negative" 4 "$H"' 1 1 a.c:-3 func:f\n'
	malformed "line number not decimal" 4 "$H"' 1 1 a.c:0x10 func:f\n'
	malformed "line number too large" 4 "$H"' 1 1 a.c:4294967296 func:f\n'
	malformed "empty line number" 4 "$H"' 1 1 a.c: func:f\n'
	malformed "empty file name" 4 "$H"' 1 1 :5 func:f\n'
	malformed "empty function" 4 "$H"' 1 1 a.c:5 func:\n'
	malformed "bad module" 4 "$H"' 1 1 a.c:5 [m func:f\n'
	malformed "empty module" 4 "$H"' 1 1 a.c:5 [] func:f\n'
	malformed "two func:" 4 "$H"' 1 1 a.c:5 func:f func:g\n'
	malformed "junk after func:" 4 "$H"' 1 1 a.c:5 func:f junk\n'
	malformed "bad accurate:" 4 "$H"' 1 1 a.c:5 func:f accurate:maybe\n'
	malformed "only numbers" 4 "$H"' 1 1\n'
	malformed "only size" 4 "$H"'   77\n'
	malformed "NUL byte" 4 "$H"' 1 1 a.c:5 func:f\0\n'
	malformed "NUL in header" 1 'allocinfo - version: 2.0\0\n'
	malformed "bad # time:" 3 'allocinfo - version: 2.0\n#     <size>  <calls> <tag info>\n# time: soon\n'
	malformed "two # time:" 4 'allocinfo - version: 2.0\n# time: 1\n#\n# time: 2\n'
	malformed "comment not at line start" 4 "$H"'  # not a comment\n'
	malformed "CR line end" 4 "$H"' 1 1 a.c:5\r\n'
	malformed "error on the last line without newline" 6 "$H"' 1 1 a.c:5 func:f\n\n 1 x'
	# a very long line is no problem in itself
	{ printf 'allocinfo - version: 2.0\n 1 1 '; head -c 300000 /dev/zero | tr '\0' 'a'; printf '.c:1 func:f\n'; } >"$T/long.txt"
	ai -f "$T/long.txt" --json
	expect_rc 0 "300000-byte line"
	{ printf 'allocinfo - version: 2.0\n 1 1 '; head -c 300000 /dev/zero | tr '\0' 'a'; printf '.c:1 func\n'; } >"$T/long.txt"
	ai -f "$T/long.txt"
	expect_rc 2 "300000-byte bad line"
}

# usage WHAT ARGS...: exit status 2 and the hint
usage() {
	local what=$1

	shift
	ai "$@"
	if [ "$RC" != 2 ]; then
		fail "$what: exit status $RC, want 2"
	elif ! grep -q "^Try 'allocinfo --help'" "$T/err"; then
		fail "$what: no hint: $(cat "$T/err")"
	else
		echo "$what: $(head -n 1 "$T/err")"
	fi
}

case_usage() {
	local S=$FIX/small.txt

	usage "unknown command" bogus -f "$S"
	usage "unknown option" --bogus -f "$S"
	usage "unknown short option" -x -f "$S"
	usage "-n without value" -f "$S" -n
	usage "bad -n" -f "$S" -n x
	usage "negative -n" -f "$S" -n -1
	usage "-n overflow" -f "$S" -n 99999999999999999999999
	usage "bad --min suffix" -f "$S" --min 1X
	usage "bad --min KB" -f "$S" --min 1KB
	usage "bad --min empty" -f "$S" --min ''
	usage "bad --min negative" -f "$S" --min -1
	usage "bad --min fraction" -f "$S" --min 1.
	usage "bad --sort" -f "$S" --sort sizes
	usage "bad -s" -f "$S" -s bogus
	usage "--sort activity for top" -f "$S" --sort activity
	usage "--prometheus with diff" diff "$S" "$S" --prometheus
	usage "--prometheus with --tree" -f "$S" --prometheus --tree 1
	usage "--prometheus with snapshot" snapshot -f "$S" --prometheus
	usage "--json with --prometheus" -f "$S" --json --prometheus
	usage "--tree 0" -f "$S" --tree 0
	usage "diff without files" diff
	usage "diff with three files" diff "$S" "$S" "$S"
	usage "diff - -" diff - -
	usage "diff two files and -f" diff "$S" "$S" -f "$S"
	usage "option of another command" snapshot -f "$S" --all
	usage "-o for top" -f "$S" -o "$T/x"
	usage "argument for top" top "$S"
	usage "value for a flag" -f "$S" --json=yes
	usage "watch -f -" watch -f -
	usage "watch -i too small" watch -f "$S" -i 0.001
	usage "watch -i junk" watch -f "$S" -i 1s
	usage "watch -c 0" watch -f "$S" -c 0
	usage "watch --sort tag -s" watch -f "$S" -s
	usage "hot -i 0" hot -i 0
	usage "hot -i -1" hot -i -1
	usage "hot -i junk" hot -i 1x
	usage "hot -i too large" hot -i 1000001
	usage "hot -n junk" hot -n -3
	usage "hot --sort activity" hot --sort activity
	usage "hot with one file" hot "$FIX/cum-old.txt"
	usage "hot with three files" hot "$S" "$S" "$S"
	usage "hot two files and -f" hot "$FIX/cum-old.txt" "$FIX/cum-new.txt" -f "$S"
	usage "hot -f -" hot -f -
	usage "hot - -" hot - -
	usage "hot --enable with files" hot "$FIX/cum-old.txt" "$FIX/cum-new.txt" --enable
	usage "hot --enable with -f" hot --enable -f "$S"
	usage "hot --tree" hot --tree 1
	usage "hot --prometheus" hot --prometheus
	usage "hot --ioctl" hot --ioctl
	usage "hot --cumulative" hot --cumulative
	usage "hot --all" hot --all
	usage "--enable for top" -f "$S" --enable
	usage "--enable=1" hot --enable=1
	usage "--ioctl with -f" top --ioctl -f "$S"
	usage "--ioctl with --cumulative" top --ioctl --cumulative
	usage "diff --ioctl with two files" diff "$S" "$S" --ioctl
	usage "diff --ioctl with -f" diff "$S" --ioctl -f "$S"
	usage "snapshot --ioctl" snapshot --ioctl
	usage "watch --ioctl" watch --ioctl
	usage "watch --cumulative" watch --cumulative
	usage "--ioctl=yes" top --ioctl=yes
	ai --help
	expect_rc 0 "--help"
	grep -q '^Usage: allocinfo' "$T/out" || fail "--help prints no usage"
	ai top -h
	expect_rc 0 "top -h"
}

case_unreadable() {
	ai -f "$T"
	expect_rc 1 "a directory as FILE"
	grep -q "^allocinfo: $T: Is a directory\$" "$T/err" ||
		fail "message: $(cat "$T/err")"
	ai -f "$T/does-not-exist"
	expect_rc 1 "missing FILE"
	grep -q "^allocinfo: $T/does-not-exist: No such file or directory\$" "$T/err" ||
		fail "message: $(cat "$T/err")"
	ai diff "$FIX/small.txt" "$T/does-not-exist"
	expect_rc 1 "diff with a missing file"
	if [ "$(id -u)" != 0 ]; then
		cp "$FIX/small.txt" "$T/noperm.txt"
		chmod 000 "$T/noperm.txt"
		ai -f "$T/noperm.txt"
		expect_rc 1 "unreadable FILE"
		grep -q "^allocinfo: $T/noperm.txt: Permission denied\$" "$T/err" ||
			fail "message: $(cat "$T/err")"
	else
		echo "running as root: no EACCES case (directory and missing file only)"
	fi
}

case_fuzz() {
	local h=$OUT/allocinfo-fuzz-harness start=$SECONDS

	${CC:-cc} -O1 $SAN -Wall -Wextra -I "$SRC" -idirafter "$KTREE/include/uapi" \
		-o "$h" "$HERE/allocinfo-fuzz-harness.c" >"$T/harness.log" 2>&1 ||
		{ fail "harness build failed:"; cat "$T/harness.log"; return; }
	python3 "$HERE/allocinfo-fuzz.py" "$h" "$T/fuzz" "$FUZZ_COUNT" \
		"$FIX/allocinfo-real.txt" "$FIX/small.txt" "$FIX/diff-old.txt" \
		"$FIX/v1.txt" "$FIX/cum-old.txt" "$FIX/cum-new.txt" \
		>"$T/fuzz.log" 2>&1 || fail "fuzz failures:"
	cat "$T/fuzz.log"
	echo "fuzz time: $((SECONDS - start)) s"
}

case_prometheus() {
	local f

	# make deps installs it (Debian's prometheus package).
	if ! command -v promtool >/dev/null; then
		fail "promtool not installed: run make deps"
		return
	fi
	promtool --version 2>&1 | head -n 1
	printf 'allocinfo - version: 2.0\n 1 1 a"b\\c\x01\xff.c:1 [m\xc3\xa9] func:f accurate:no\n' >"$T/odd.txt"
	for f in "$FIX/allocinfo-real.txt" "$FIX/small.txt" "$T/odd.txt"; do
		ai -f "$f" --prometheus -n 1
		expect_rc 0 "--prometheus"
		promtool check metrics <"$T/out" >"$T/promtool.log" 2>&1 ||
			fail "promtool check metrics failed on $(basename "$f"):"
		if [ -s "$T/promtool.log" ]; then
			fail "promtool says on $(basename "$f"):"
			head -n 20 "$T/promtool.log"
		fi
	done
	ai -f "$FIX/small.txt" --prometheus -n 1 --module e1k
	expect_out "--prometheus --module e1k" <<'EOF'
# HELP allocinfo_bytes Bytes allocated at the call site and not yet freed.
# TYPE allocinfo_bytes gauge
allocinfo_bytes{file="drivers/net/ethernet/e1k/main.c",line="77",function="e1k_alloc_ring",module="e1k"} 3145728
allocinfo_bytes{file="drivers/net/ethernet/e1k/main.c",line="90",function="e1k_alloc_desc",module="e1k"} 1536
# HELP allocinfo_allocations Live allocations made at the call site.
# TYPE allocinfo_allocations gauge
allocinfo_allocations{file="drivers/net/ethernet/e1k/main.c",line="77",function="e1k_alloc_ring",module="e1k"} 768
allocinfo_allocations{file="drivers/net/ethernet/e1k/main.c",line="90",function="e1k_alloc_desc",module="e1k"} 12
# HELP allocinfo_inaccurate Whether the counters of the call site are known to be incomplete (1) or not (0).
# TYPE allocinfo_inaccurate gauge
allocinfo_inaccurate{file="drivers/net/ethernet/e1k/main.c",line="77",function="e1k_alloc_ring",module="e1k"} 0
allocinfo_inaccurate{file="drivers/net/ethernet/e1k/main.c",line="90",function="e1k_alloc_desc",module="e1k"} 0
# EOF
EOF
	ai -f "$FIX/small.txt" --prometheus
	eq "series (3 per site, -n ignored)" "$(grep -c '^allocinfo_' "$T/out")" 36
	grep -q '^allocinfo_bytes{file="mm/slub.c",line="1234",function="allocate_slab",module="vmlinux"} 2031616$' "$T/out" ||
		fail "built-in site label"
	grep -q '^allocinfo_inaccurate{file="mm/slub.c",line="100",function="bar",module="vmlinux"} 1$' "$T/out" ||
		fail "inaccurate site"
	ai -f "$T/odd.txt" --prometheus
	grep -q '^allocinfo_bytes{file="a\\"b\\\\c'$'\x01''�.c",line="1",function="f",module="mé"} 1$' "$T/out" ||
		fail "label escaping: $(grep '^allocinfo_bytes' "$T/out")"
}

case_top_sort_tag() {
	ai -f "$FIX/small.txt" -s tag -n 0
	expect_rc 0 "-s tag"
	expect_out "-s tag (file, then line as a number)" <<'EOF'
allocinfo - version: 2.0
      size      calls  site
  16.0 KiB          4  drivers/foo/bar.c:55 [foo] func:foo_probe
   3.0 MiB        768  drivers/net/ethernet/e1k/main.c:77 [e1k] func:e1k_alloc_ring
   1.5 KiB         12  drivers/net/ethernet/e1k/main.c:90 [e1k] func:e1k_alloc_desc
       0 B          0  fs/dcache.c:1800 func:d_alloc
      64 B          2  init.c:10 func:start
 160.0 KiB         40  kernel/fork.c:309 func:alloc_thread_stack_node
     640 B         20  lib/xarray.c:40 func:xas_alloc
   4.0 KiB          1  mm/percpu-vm.c:97 func:pcpu_alloc_pages
  -4.0 KiB          1  mm/percpu.c:1741 func:pcpu_alloc
  16.0 KiB          4  mm/slub.c:100 func:bar accurate:no
   1.9 MiB        480  mm/slub.c:1234 func:allocate_slab
   1.0 MiB        256  mm/vmalloc.c:3000 func:__vmalloc_node_range
total: 6.1 MiB in 1588 calls at 12 sites (12 shown)
EOF
	# same file and line: built-in code first, then by module, function
	printf '%s\n' 'allocinfo - version: 2.0' \
		' 1 1 a.h:9 [zz] func:f' ' 2 1 a.h:9 [mod] func:g' \
		' 3 1 a.h:9 [mod] func:f' ' 4 1 a.h:9 func:z' ' 5 1 a.h:10 func:a' \
		' 6 1 a.h:1 func:y' >"$T/tag.txt"
	ai -f "$T/tag.txt" --sort=tag --json -n 3
	expect_rc 0 "--sort=tag --json"
	eq "--sort tag order" \
		"$(json_get '[s["bytes"] for s in d["sites"]], d["total"]["sites"]')" \
		"([6, 4, 3], 6)"
	ai -f "$T/tag.txt" -stag
	eq "-stag order" "$(awk 'NR > 2 && / func:/ { print $1 }' "$T/out" | tr '\n' ' ')" \
		"6 4 3 2 1 5 "
	ai -f "$FIX/small.txt" -s tag --tree 1
	expect_out "--tree 1 -s tag (by path)" <<'EOF'
allocinfo - version: 2.0
      size      calls   sites  path
      64 B          2       1  ./
   3.0 MiB        784       3  drivers/
       0 B          0       1  fs/
 160.0 KiB         40       1  kernel/
     640 B         20       1  lib/
   3.0 MiB        742       5  mm/
total: 6.1 MiB in 1588 calls at 12 sites in 6 groups (6 shown)
EOF
	# 'size' is bytes, and -s is --sort
	ai -f "$FIX/small.txt" --sort size -n 0
	cp "$T/out" "$T/size.out"
	ai -f "$FIX/small.txt" -s bytes -n 0
	cmp -s "$T/out" "$T/size.out" || fail "--sort size differs from -s bytes"
	ai diff "$FIX/diff-old.txt" "$FIX/diff-new.txt" -s tag --json
	expect_rc 0 "diff -s tag"
	eq "diff -s tag" "$(json_get '[s["file"] for s in d["sites"]]')" \
		"['drivers/foo/bar.c', 'fs/dcache.c', 'mm/callsonly.c', 'mm/gone.c', 'mm/shrink.c', 'mm/slub.c', 'mm/vmalloc.c']"
}

case_hot_files() {
	local O=$FIX/cum-old.txt N=$FIX/cum-new.txt

	ai hot "$O" "$N"
	expect_rc 0 "hot OLD NEW"
	expect_out "hot OLD NEW (calls/s, then bytes/s)" <<'EOF'
allocinfo_cumulative - version: 1.0
     calls/s       bytes/s  site
    200000.0    48.8 MiB/s  lib/test_alloc_tag.c:930 [test_alloc_tag] func:churn_kmalloc
        25.6     6.4 KiB/s  fs/namei.c:120 func:getname_flags
        12.8   819.2 KiB/s  mm/vmalloc.c:3000 func:__vmalloc_node_range
         4.8     320.0 B/s  net/core/skbuff.c:200 func:__alloc_skb accurate:no
         1.2     4.8 KiB/s  include/linux/slab.h:600 func:kmalloc
         0.8     3.2 MiB/s  mm/big.c:1 func:big
         0.8     819.2 B/s  drivers/new/mod.c:9 [newmod] func:new_probe
total: 200046.0 calls/s, 52.8 MiB/s at 7 sites (7 shown) over 2.50 s
EOF
	[ -s "$T/err" ] && fail "hot OLD NEW: stderr: $(cat "$T/err")"
	ai hot "$O" "$N" -s bytes -n 3
	expect_out "hot -s bytes -n 3" <<'EOF'
allocinfo_cumulative - version: 1.0
     calls/s       bytes/s  site
    200000.0    48.8 MiB/s  lib/test_alloc_tag.c:930 [test_alloc_tag] func:churn_kmalloc
         0.8     3.2 MiB/s  mm/big.c:1 func:big
        12.8   819.2 KiB/s  mm/vmalloc.c:3000 func:__vmalloc_node_range
total: 200046.0 calls/s, 52.8 MiB/s at 7 sites (3 shown) over 2.50 s
EOF
	ai hot "$O" "$N" --sort tag --json -n 0
	expect_rc 0 "hot --json"
	python3 -m json.tool "$T/out" >/dev/null || fail "json.tool rejects hot --json"
	eq "hot --json total" "$(json_get 'd["version"], d["cumulative"], d["interval"], d["total"]')" \
		"('1.0', True, 2.5, {'bytes_per_sec': 55406912.0, 'calls_per_sec': 200046.0, 'bytes': 138517280, 'calls': 500115, 'sites': 7})"
	eq "hot --sort tag --json" "$(json_get '[(s["function"], s["calls"], s["bytes"], s["calls_per_sec"]) for s in d["sites"]]')" \
		"[('new_probe', 2, 2048, 0.8), ('getname_flags', 64, 16384, 25.6), ('kmalloc', 3, 12288, 1.2), ('churn_kmalloc', 500000, 128000000, 200000.0), ('big', 2, 8388608, 0.8), ('__vmalloc_node_range', 32, 2097152, 12.8), ('__alloc_skb', 12, 800, 4.8)]"
	eq "hot: accurate:no" "$(json_get '[s["accurate"] for s in d["sites"] if s["function"] == "__alloc_skb"]')" "[False]"
	# filters; --min is on bytes/s
	ai hot "$O" "$N" --module vmlinux --min 4K --file 'mm/*' --json -n 0
	eq "hot filters" "$(json_get '[s["function"] for s in d["sites"]], d["total"]["sites"]')" \
		"(['__vmalloc_node_range', 'big'], 2)"
	ai hot "$O" "$N" --min 819 --json -n 0
	eq "hot --min 819" "$(json_get 'd["total"]["sites"]')" 6
	ai hot "$O" "$N" --min 51200000 --json -n 0
	eq "hot --min 51200000 (inclusive)" "$(json_get 'd["total"]["sites"]')" 1
	ai hot "$O" "$N" --min 51200001 --json -n 0
	eq "hot --min 51200001" "$(json_get 'd["total"]["sites"]')" 0
	ai hot "$O" "$N" --func churn_kmalloc -n 1
	eq "hot --func" "$(sed -n 3p "$T/out")" \
		"    200000.0    48.8 MiB/s  lib/test_alloc_tag.c:930 [test_alloc_tag] func:churn_kmalloc"
	# -i gives the interval of files without time stamps, and overrides
	grep -v '^# time' "$O" >"$T/old-notime.txt"
	ai hot "$T/old-notime.txt" "$N"
	expect_rc 2 "hot: OLD without '# time:'"
	grep -q "old-notime.txt has no '# time:' line: give the interval with -i" "$T/err" ||
		fail "no-time message: $(cat "$T/err")"
	ai hot "$T/old-notime.txt" "$N" -i 5 --json
	expect_rc 0 "hot -i 5 without time stamps"
	eq "hot -i 5" "$(json_get 'd["interval"], d["sites"][0]["calls_per_sec"]')" "(5.0, 100000.0)"
	ai hot "$O" "$N" -i 0.5 --json
	eq "hot -i 0.5 overrides the stamps" "$(json_get 'd["interval"], d["sites"][0]["calls_per_sec"]')" "(0.5, 1000000.0)"
	ai hot "$N" "$O"
	expect_rc 2 "hot NEW OLD"
	grep -q "is not later than" "$T/err" || fail "NEW OLD message: $(cat "$T/err")"
	# counters that went back count from 0 (counting switched on again)
	ai hot "$N" "$O" -i 1 --json -n 0
	expect_rc 0 "hot, counters went back"
	grep -q "warning: the counters of 6 sites went back: counted from 0" "$T/err" ||
		fail "no warning for counters that went back: $(cat "$T/err")"
	eq "restarted counters" "$(json_get '[(s["function"], s["calls"]) for s in d["sites"]]')" \
		"[('getname_flags', 4096), ('churn_kmalloc', 1600), ('__vmalloc_node_range', 16), ('__alloc_skb', 8), ('kmalloc', 2), ('gone_init', 1)]"
	# not the cumulative profile
	ai hot "$FIX/diff-old.txt" "$FIX/diff-new.txt"
	expect_rc 2 "hot on live-profile snapshots"
	grep -q "diff-old.txt:1: not a cumulative profile" "$T/err" ||
		fail "not-cumulative message: $(cat "$T/err")"
	ai hot "$O" "$FIX/small.txt" -i 1
	expect_rc 2 "hot with a live NEW"
	# the header of a later version of the cumulative profile
	sed '1s/1\.0/2.0/' "$N" >"$T/cum-v2.txt"
	ai hot "$O" "$T/cum-v2.txt"
	expect_rc 2 "cumulative version 2.0"
	grep -q "unsupported cumulative version 2.0" "$T/err" || fail "version message: $(cat "$T/err")"
}

# hot on a file that a writer updates: two reads -i apart, no sysctl
case_hot_live_file() {
	local f=$T/cum-live.txt i=0 bg

	make_cum() {
		{
			echo 'allocinfo_cumulative - version: 1.0'
			echo '#     <bytes>  <calls> <tag info>'
			printf '%12d %8d %s\n' 1048576 256 'mm/steady.c:1 func:steady'
			printf '%12d %8d %s\n' $((256 * 100 * $1)) $((100 * $1)) \
				'lib/test_alloc_tag.c:930 [test_alloc_tag] func:churn_kmalloc'
			printf '%12d %8d %s\n' $((4096 * $1)) "$1" 'fs/x.c:7 func:slow'
		} >"$f.new"
		mv -f "$f.new" "$f"
	}
	make_cum 0
	(
		while :; do
			i=$((i + 1))
			make_cum $i
			sleep 0.01
		done
	) &
	bg=$!
	ai hot -f "$f" -i 0.3 -n 1
	local rc1=$RC
	cp "$T/out" "$T/hot1"
	ai hot -f "$f" -i 0.3 --json
	kill "$bg"
	wait "$bg" 2>/dev/null
	expect_rc 0 "hot -f FILE --json"
	python3 - "$T/out" <<'EOF' || fail "hot -f FILE --json"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sites"]
assert [x["function"] for x in s] == ["churn_kmalloc", "slow"], s
assert s[0]["calls"] == 100 * s[1]["calls"] and s[0]["bytes"] == 256 * s[0]["calls"], s
assert 0.25 < d["interval"] < 1.5, d
assert abs(s[0]["calls_per_sec"] * d["interval"] / s[0]["calls"] - 1) < 0.01, s
EOF
	RC=$rc1
	expect_rc 0 "hot -f FILE"
	cp "$T/hot1" "$T/out"
	cat "$T/out"
	eq "hot -f FILE: the first site" "$(sed -n 3p "$T/out" | awk '{ print $NF }')" \
		"func:churn_kmalloc"
	grep -q '^total: .* at 2 sites (1 shown) over 0\.[3-9][0-9] s$' "$T/out" ||
		fail "total line: $(tail -n 1 "$T/out")"
}

case_cumulative() {
	local N=$FIX/cum-new.txt s=$T/cum-snap.txt

	ai snapshot -f "$N" -o "$s"
	expect_rc 0 "snapshot of a cumulative profile"
	eq "cumulative snapshot header" "$(head -n 3 "$s")" \
		"allocinfo_cumulative - version: 1.0
#     <bytes>  <calls> <tag info>
# time: 1764500002.500"
	# merged: the kmalloc lines of include/linux/slab.h:600
	eq "cumulative snapshot lines" "$(wc -l <"$s")" 12
	grep -q '^       20480        5 include/linux/slab.h:600 func:kmalloc$' "$s" ||
		fail "merged line: $(grep slab.h "$s")"
	ai hot "$FIX/cum-old.txt" "$s" --json
	eq "hot on a snapshot of it" "$(json_get 'd["total"]["calls"], d["interval"]')" "(500115, 2.5)"
	ai snapshot --cumulative -f "$N" --json
	expect_rc 0 "snapshot --cumulative --json"
	eq "snapshot --json of a cumulative profile" \
		"$(json_get 'd["version"], d["cumulative"], d["time"], d["total"]["sites"]')" \
		"('1.0', True, 1764500002.5, 9)"
	ai top -f "$N" --cumulative -n 2 --json
	expect_rc 0 "top --cumulative -f"
	eq "top of a cumulative profile" \
		"$(json_get 'd["cumulative"], [s["function"] for s in d["sites"]]')" \
		"(True, ['churn_kmalloc', 'big'])"
	ai top -f "$FIX/small.txt" --json -n 1
	eq "no 'cumulative' member for the live profile" "$(json_get '"cumulative" in d')" False
	ai top -f "$FIX/small.txt" --cumulative
	expect_rc 2 "--cumulative on a live profile"
	grep -q "small.txt:1: not a cumulative profile" "$T/err" || fail "message: $(cat "$T/err")"
	ai diff "$FIX/cum-old.txt" "$N" -n 2
	expect_rc 0 "diff of cumulative profiles"
	expect_out "diff of cumulative profiles" <<'EOF'
     delta      calls        now  status  site
+122.1 MiB    +500000  122.5 MiB  grown   lib/test_alloc_tag.c:930 [test_alloc_tag] func:churn_kmalloc
  +8.0 MiB         +2    8.0 MiB  grown   mm/big.c:1 func:big
total: +132.1 MiB, +500114 calls; 1 new, 1 gone, 6 changed sites (over 2.5 s)
EOF
	ai diff "$FIX/cum-old.txt" "$N" --json -n 1
	eq "diff --json of cumulative profiles" "$(json_get 'd["old"]["cumulative"], d["new"]["cumulative"]')" "(True, True)"
	ai diff "$FIX/cum-old.txt" "$FIX/diff-new.txt"
	expect_rc 2 "diff of a cumulative and a live profile"
	grep -q "diff-new.txt:1: a live profile, but .*cum-old.txt is a cumulative profile" "$T/err" ||
		fail "message: $(cat "$T/err")"
	ai diff "$FIX/cum-old.txt" -f "$N" --cumulative -n 1
	expect_rc 0 "diff OLD -f NEW --cumulative"
	# Prometheus: counters
	ai top -f "$N" --prometheus -n 1
	expect_rc 0 "--prometheus on a cumulative profile"
	eq "cumulative series (2 per site)" "$(grep -c '^allocinfo_cumulative_' "$T/out")" 18
	grep -q '^# TYPE allocinfo_cumulative_bytes_total counter$' "$T/out" || fail "no counter TYPE"
	grep -q '^allocinfo_cumulative_allocations_total{file="lib/test_alloc_tag.c",line="930",function="churn_kmalloc",module="test_alloc_tag"} 501600$' "$T/out" ||
		fail "churn_kmalloc sample"
	grep -q -e 'gauge' -e '^allocinfo_bytes' "$T/out" && fail "gauges for a cumulative profile"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$T/out" >"$T/promtool.log" 2>&1 ||
			fail "promtool check metrics: $(cat "$T/promtool.log")"
		[ -s "$T/promtool.log" ] && fail "promtool says: $(cat "$T/promtool.log")"
	fi
}

# allocinfo with a fake /proc (allocinfo-fakeproc.c): FAKE ARGS...
FAKE=$OUT/allocinfo-fakeproc
FP=$T/proc

fake() {
	ALLOCINFO_FAKE_PROC=$FP "$FAKE" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	if grep -q -e 'Sanitizer' -e 'runtime error' "$T/err"; then
		fail "sanitizer report from allocinfo-fakeproc $*:"
		head -n 30 "$T/err"
	fi
}

case_fakeproc_build() {
	${CC:-cc} -O1 $SAN -Wall -Wextra -I "$SRC" -idirafter "$KTREE/include/uapi" \
		-o "$FAKE" "$HERE/allocinfo-fakeproc.c" >"$T/fakeproc.log" 2>&1 ||
		{ fail "allocinfo-fakeproc build failed:"; cat "$T/fakeproc.log"; return; }
	grep -q -i warning "$T/fakeproc.log" && { fail "warnings:"; cat "$T/fakeproc.log"; }
	mkdir -p "$FP/sys/vm"
}

# same_as_text WHAT ARGS...: top --ioctl ARGS prints what top ARGS prints
same_as_text() {
	local what=$1

	shift
	fake "$@"
	cp "$T/out" "$T/text.out"
	[ "$RC" = 0 ] || fail "$what: text: exit status $RC: $(head -n 3 "$T/err")"
	fake "$@" --ioctl
	[ "$RC" = 0 ] || fail "$what: --ioctl: exit status $RC: $(head -n 3 "$T/err")"
	if ! diff -u "$T/text.out" "$T/out" >"$T/diff"; then
		fail "$what: --ioctl differs from the text (- text, + ioctl):"
		head -n 20 "$T/diff"
	fi
}

case_ioctl() {
	local log=$T/ioctl.log L F

	[ -x "$FAKE" ] || { fail "no allocinfo-fakeproc"; return; }
	cp "$FIX/allocinfo-real.txt" "$FP/allocinfo"
	same_as_text "top -n 0" top -n 0
	same_as_text "top --json" top -n 0 --json
	same_as_text "top -s calls" top -s calls -n 50
	same_as_text "top -s tag" top -s tag -n 0
	same_as_text "top --tree 2" top --tree 2 -n 0 --json
	same_as_text "top --prometheus" top --prometheus
	same_as_text "top --module vmlinux" top --module vmlinux -n 0
	same_as_text "top --module nosuch" top --module nosuch
	same_as_text "top --file glob" top --file '*slab*' --json -n 0
	same_as_text "top --file exact" top --file mm/slub.c -n 0
	same_as_text "top --func exact" top --func acpi_os_allocate_zeroed -n 0
	same_as_text "top --func glob" top --func 'kmalloc*' -n 0
	# a site of 35 instances, each below the --min its sum passes
	same_as_text "top --min 16K" top --min 16K -n 0 --json
	same_as_text "top --min, a site of many lines" top --min 24000 \
		--func acpi_os_allocate_zeroed
	grep -q 'aclinuxex.h:57 func:acpi_os_allocate_zeroed' "$T/out" ||
		fail "the merged site of 35 lines is missing with --min"
	cp "$FIX/small.txt" "$FP/allocinfo"
	same_as_text "small: merged lines and accurate:no" top -n 0
	same_as_text "small: --module e1k --json" top --module e1k --json

	# what goes into the kernel's filter: exact names, not globs, not --min
	rm -f "$log"
	ALLOCINFO_FAKE_LOG=$log fake top --ioctl --module e1k --func e1k_alloc_ring \
		--file '*main.c' --min 1M
	expect_rc 0 "top --ioctl with filters"
	eq "filtered sites" "$(grep -c ' func:' "$T/out")" 1
	eq "the ioctls" "$(cat "$log")" \
		"CONTENT_ID 1
GET_AT pos=0 mask=0x3 modname=e1k function=e1k_alloc_ring filename=- min=0
CONTENT_ID 1"
	rm -f "$log"
	ALLOCINFO_FAKE_LOG=$log fake top --ioctl --module vmlinux --file mm/slub.c --func 'a*'
	eq "vmlinux is the module \"\"" "$(sed -n 2p "$log")" \
		"GET_AT pos=0 mask=0x5 modname= function=- filename=mm/slub.c min=0"
	eq "vmlinux sites of mm/slub.c" "$(grep -c ' func:' "$T/out")" 1

	# the set of sites changes during a read: read again, count once
	fake top --ioctl -n 0 --json
	cp "$T/out" "$T/stable.json"
	rm -f "$log"
	ALLOCINFO_FAKE_LOG=$log ALLOCINFO_FAKE_UNSTABLE=3 fake top --ioctl -n 0 --json
	expect_rc 0 "3 unstable reads"
	cmp -s "$T/out" "$T/stable.json" || fail "the result after 3 unstable reads differs"
	eq "reads" "$(grep -c GET_AT "$log")" 4
	ALLOCINFO_FAKE_UNSTABLE=9 fake top --ioctl
	expect_rc 0 "9 unstable reads"
	ALLOCINFO_FAKE_UNSTABLE=10 fake top --ioctl
	expect_rc 1 "10 unstable reads"
	grep -q "the sites changed during 10 reads: try again" "$T/err" ||
		fail "message: $(cat "$T/err")"
	[ -s "$T/out" ] && fail "output after giving up"

	# a kernel without the ioctls
	ALLOCINFO_FAKE_NO_IOCTL=1 fake top --ioctl
	expect_rc 1 "ENOTTY"
	grep -q "^allocinfo: /proc/allocinfo: no ioctls in this kernel (.*): drop --ioctl$" "$T/err" ||
		fail "ENOTTY message: $(cat "$T/err")"
	ALLOCINFO_FAKE_NO_IOCTL=1 fake diff "$FIX/small.txt" --ioctl
	expect_rc 1 "diff --ioctl, ENOTTY"
	mv "$FP/allocinfo" "$FP/allocinfo.away"
	fake top --ioctl
	expect_rc 1 "no /proc/allocinfo"
	grep -q "needs CONFIG_MEM_ALLOC_PROFILING" "$T/err" || fail "message: $(cat "$T/err")"
	mv "$FP/allocinfo.away" "$FP/allocinfo"

	# diff OLD --ioctl: the live profile through the ioctls
	fake diff "$FIX/diff-old.txt" -n 0 --all
	cp "$T/out" "$T/text.out"
	fake diff "$FIX/diff-old.txt" -n 0 --all --ioctl
	expect_rc 0 "diff --ioctl"
	cmp -s "$T/out" "$T/text.out" || { fail "diff --ioctl differs:"; diff "$T/text.out" "$T/out"; }
	rm -f "$log"
	ALLOCINFO_FAKE_LOG=$log fake diff "$FIX/diff-old.txt" --ioctl --module foo --json
	eq "diff --ioctl --module foo" "$(json_get '[(s["status"], s["function"], s["bytes"]) for s in d["sites"]]')" \
		"[('new', 'foo_probe', 16384)]"
	grep -q "GET_AT pos=0 mask=0x1 modname=foo " "$log" || fail "diff: no MODNAME filter: $(cat "$log")"

	# names longer than 63 characters: the kernel gives their last 63
	L=drivers/gpu/drm/amd/display/amdgpu_dm/amdgpu_dm_helpers_long_file_name.c
	F=test_alloc_tag_function_with_a_name_longer_than_sixty_three_characters
	{
		echo 'allocinfo - version: 2.0'
		printf '%12d %8d %s\n' 4096 1 "$L:10 [amdgpu] func:dm_alloc" \
			4096 1 "$L:10 [amdgpu] func:dm_alloc" \
			0 0 "lib/test_alloc_tag.c:963 [test_alloc_tag] func:$F" \
			8192 2 'mm/slub.c:1 func:x'
	} >"$FP/allocinfo"
	fake snapshot -o "$T/long.snap"
	fake top --ioctl -n 0 --json
	expect_rc 0 "top --ioctl, long names"
	eq "cut names" "$(json_get '[(s["file"], s["function"], s["bytes"]) for s in d["sites"]]')" \
		"[('mm/slub.c', 'x', 8192), ('${L: -63}', 'dm_alloc', 8192), ('lib/test_alloc_tag.c', '${F: -63}', 0)]"
	fake top --ioctl --func "$F"
	eq "a long exact --func matches its cut name" "$(grep -c "func:${F: -63}\$" "$T/out")" 1
	fake top --ioctl --file "$L" --json
	eq "a long exact --file matches its cut name" "$(json_get 'd["total"]')" \
		"{'bytes': 8192, 'calls': 2, 'sites': 1}"
	fake top --ioctl --func '*than_sixty_three_characters' --json
	eq "a glob on the cut name" "$(json_get 'd["total"]["sites"]')" 1
	fake diff "$T/long.snap" --ioctl --all --json
	expect_rc 0 "diff --ioctl, long names"
	eq "diff --ioctl: OLD's names cut too" "$(json_get 'sorted(s["status"] for s in d["sites"])')" \
		"['same', 'same', 'same']"
}

case_hot_live() {
	local C=$FP/allocinfo_cumulative S=$FP/sys/vm

	[ -x "$FAKE" ] || { fail "no allocinfo-fakeproc"; return; }
	cp "$FIX/cum-new.txt" "$C"
	echo 1 >"$S/mem_profiling"
	echo 0 >"$S/mem_profiling_cumulative"
	fake hot -i 0.05
	expect_rc 1 "hot, counting off"
	eq "counting off message" "$(cat "$T/err")" \
		"allocinfo: cumulative counting is off (vm.mem_profiling_cumulative is 0): switch it on: 'sysctl vm.mem_profiling_cumulative=1' or 'allocinfo hot --enable'"
	[ -s "$T/out" ] && fail "output with counting off"
	fake hot -i 0.05 --enable --json
	expect_rc 0 "hot --enable"
	eq "--enable message" "$(cat "$T/err")" \
		"allocinfo: switched cumulative counting on (vm.mem_profiling_cumulative=1)"
	eq "--enable writes 1" "$(cat "$S/mem_profiling_cumulative")" 1
	eq "hot on a file that does not change" "$(json_get 'd["total"]["sites"], d["sites"]')" "(0, [])"
	fake hot -i 0.05 --enable
	expect_rc 0 "hot --enable, counting on"
	[ -s "$T/err" ] && fail "message when counting was on: $(cat "$T/err")"
	echo 0 >"$S/mem_profiling"
	fake hot -i 0.05
	expect_rc 0 "hot, vm.mem_profiling 0"
	grep -q "^allocinfo: warning: vm.mem_profiling is 0: nothing is counted" "$T/err" ||
		fail "no vm.mem_profiling warning: $(cat "$T/err")"
	echo 1 >"$S/mem_profiling"
	chmod 000 "$S/mem_profiling_cumulative"
	echo 0 >"$S/mem_profiling_cumulative"
	if [ "$(id -u)" != 0 ]; then
		fake hot -i 0.05 --enable
		expect_rc 1 "--enable without the right to write"
	fi
	chmod 644 "$S/mem_profiling_cumulative"
	rm "$C"
	fake hot -i 0.05 --enable
	expect_rc 1 "no /proc/allocinfo_cumulative"
	eq "no cumulative counters message" "$(cat "$T/err")" \
		"allocinfo: /proc/allocinfo_cumulative: No such file or directory (this kernel has no cumulative allocation counters)"
	eq "nothing switched on" "$(cat "$S/mem_profiling_cumulative")" 0
	fake top --cumulative
	expect_rc 1 "top --cumulative without the file"
	grep -q "no cumulative allocation counters" "$T/err" || fail "message: $(cat "$T/err")"
	cp "$FIX/cum-new.txt" "$C"
	fake snapshot --cumulative -o "$T/cum.snap"
	expect_rc 0 "snapshot --cumulative"
	eq "snapshot --cumulative header" "$(head -n 1 "$T/cum.snap")" \
		"allocinfo_cumulative - version: 1.0"
	fake top --cumulative -n 1 --json
	eq "top --cumulative" "$(json_get 'd["sites"][0]["function"]')" churn_kmalloc
	cp "$FIX/small.txt" "$C"
	echo 1 >"$S/mem_profiling_cumulative"
	fake hot -i 0.05
	expect_rc 2 "/proc/allocinfo_cumulative of the wrong kind"
}

# ---------------------------------------------------------------------

run_case build case_build
if [ $FAILED != 0 ]; then
	echo "KTAP version 1"
	echo "1..1"
	cat "$RESULTS"
	exit 1
fi
run_case makefile case_makefile
run_case real_fixture_totals case_real_fixture
run_case top_n3 case_top_n3
run_case top_order case_top_all_sorted
run_case top_sort_calls case_top_sort_calls
run_case top_module case_top_module
run_case top_file case_top_file
run_case top_func case_top_func
run_case top_min case_top_min
run_case top_tree case_top_tree
run_case top_json case_top_json
run_case top_sort_tag case_top_sort_tag
run_case duplicates_merged case_duplicates
run_case diff case_diff
run_case diff_json case_diff_json
run_case snapshot case_snapshot
run_case watch case_watch
run_case watch_activity case_watch_flip
run_case hot_files case_hot_files
run_case hot_live_file case_hot_live_file
run_case cumulative case_cumulative
run_case fakeproc_build case_fakeproc_build
run_case ioctl case_ioctl
run_case hot_live case_hot_live
run_case version1_accurate case_version1
run_case malformed case_malformed
run_case usage_errors case_usage
run_case unreadable case_unreadable
run_case capture_list case_capture_list
run_case stacks case_stacks
run_case stacks_json case_stacks_json
run_case stacks_bad case_stacks_bad
run_case capture_usage case_capture_usage
run_case fuzz case_fuzz
run_case prometheus case_prometheus

echo "KTAP version 1"
echo "1..$NR"
cat "$RESULTS"
echo "# $((NR - FAILED)) passed, $FAILED failed"
[ $FAILED = 0 ]
