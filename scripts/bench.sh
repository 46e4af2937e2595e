#!/bin/bash
# make bench: the cost of allocation profiling, in instructions.
#
# Every row boots a kernel under QEMU with -icount shift=0,sleep=off on one
# vCPU (guest nanoseconds = instructions retired: the same figures on every
# run, whatever the host does), loads the bench module (bench/alloc_tag_bench.c,
# built out of tree against each kernel) from a task in a
# memcg and collects its results; then a second boot with 4 GiB reads the
# memory figures, and for the rows of WORK_ROWS a third one times the real
# workloads (bench/workloads.c and Debian's hackbench, each bounded by a
# count, several runs). The tables (ratios against stock 6.1 built with the same
# config, raw instruction counts, memory) go to $BUILD/bench/results.md.
#
# Kernels (configs/bench*.config on top of configs/base.config; all but
# the Debian-layout ones with the production options, bench-prod.config):
#   bench-stock   stock 6.1 (the series' base, tag "base" of $BUILD/linux)
#   bench-off     the series, profiling compiled out
#   bench-on      the series, profiling compiled in
#   bench-dflt-off  the same, off by default (ENABLED_BY_DEFAULT=n)
#   bench-peers   stock 6.1 with page_owner, kmemleak, hist triggers and
#                 BPF on trace events (bench/bpf/: live per-site sums kept
#                 by BPF programs on the kmem tracepoints)
#   bench-up      upstream 6.12 (linux-source-6.12), no profiling
#   bench-up-on   upstream 6.12 with its profiling
#   bench-deb-*   the same kernels with Debian's page->flags layout
#                 (configs/bench-deb.config: no free bit, page_ext mode)
#   bench-arm64-* stock 6.1 and the series for arm64 (cross-built, QEMU's
#                 virt machine, icount: the allocator pairs only)
# BENCH_ROWS="stock enabled ..." runs a subset (stock is always run; any
# upstream row brings up-stock along, the base of its ratios; a deb- row
# deb-stock, a deb-up- row deb-up-stock, an arm64- row arm64-stock).
. "$(dirname "$0")/lib.sh"

BENCH=$BUILD/bench
STOCK_SRC=$BENCH/src-6.1
UP_SRC=$BENCH/src-6.12
UP_TARBALL=/usr/src/linux-source-6.12.tar.xz

KCC=$(kernel_cc)

# id | kernel | boot parameters | guest setup | what it is
ROWS_TABLE='
stock|bench-stock|||stock 6.1
off|bench-off|||series, profiling compiled out
disabled|bench-on|sysctl.vm.mem_profiling=0||compiled in, disabled at boot
dflt-off|bench-dflt-off|||compiled in, off by default (ENABLED_BY_DEFAULT=n)
never|bench-on|sysctl.vm.mem_profiling=never||compiled in, never
enabled|bench-on|||enabled, default mode
cumulative|bench-on|sysctl.vm.mem_profiling_cumulative=1||enabled, cumulative counting on
capture-other|bench-on||capture-other|enabled, another site captured (capture key on)
capture|bench-on||capture|enabled, the site of bitmap_alloc captured (bitmap_alloc 64 recorded)
pageext|bench-on|sysctl.vm.mem_profiling=1,page_ext||enabled, page_ext references
compressed|bench-on|sysctl.vm.mem_profiling=1,compressed||enabled, compressed references
noslab|bench-on|sysctl.vm.mem_profiling=1,noslab||enabled, the slab family left out
per-node|bench-on|sysctl.vm.mem_profiling_per_node=1||enabled, per-node counting on
peers-off|bench-peers|||peers compiled in, all off
page_owner|bench-peers|page_owner=on||page_owner=on
slub_debug|bench-stock|slub_debug=U||slub_debug=U
ftrace|bench-peers||ftrace|ftrace hist triggers on kmem events
kmemleak|bench-peers|kmemleak=on||kmemleak=on
bpf|bench-peers||bpf|BPF on the kmem events, by call_site
bpf-stack|bench-peers||bpf-stack|BPF on the kmem events, by call chain
bpf-full|bench-peers||bpf-full|BPF on the kmem events, by call_site, object map full
up-stock|bench-up|||upstream 6.12, no profiling
up-disabled|bench-up-on|sysctl.vm.mem_profiling=0||upstream 6.12, compiled in, disabled
up-never|bench-up-on|sysctl.vm.mem_profiling=never||upstream 6.12, never
up-enabled|bench-up-on|||upstream 6.12, enabled (page_ext)
up-compressed|bench-up-on|sysctl.vm.mem_profiling=1,compressed||upstream 6.12, enabled, compressed
deb-stock|bench-deb-stock|||Debian layout: stock 6.1
deb-off|bench-deb-off|||Debian layout: series, compiled out
deb-disabled|bench-deb-on|sysctl.vm.mem_profiling=0||Debian layout: compiled in, disabled at boot
deb-enabled|bench-deb-on|||Debian layout: enabled (page_ext)
deb-up-stock|bench-deb-up|||Debian layout: upstream 6.12, no profiling
deb-up-disabled|bench-deb-up-on|sysctl.vm.mem_profiling=0||Debian layout: upstream 6.12, disabled
deb-up-enabled|bench-deb-up-on|||Debian layout: upstream 6.12, enabled (page_ext)
arm64-stock|bench-arm64-stock|||arm64: stock 6.1
arm64-disabled|bench-arm64-on|sysctl.vm.mem_profiling=0||arm64: compiled in, disabled at boot
arm64-enabled|bench-arm64-on|||arm64: enabled (page->flags references)
'
# Rows whose reads of the profile are also measured, with READ_CPUS
# possible CPUs (the counters of every site are summed over the possible
# CPUs; one of them online: QEMU's icount runs one vCPU).
READ_ROWS="enabled deb-enabled up-enabled deb-up-enabled"
READ_CPUS=8
# Rows whose real workloads are also measured: stock, compiled in and off,
# enabled in both reference modes, and the same for upstream 6.12 (the
# Debian-layout kernels have no disk and no network: bench-deb.config).
WORK_ROWS="stock off disabled dflt-off enabled pageext up-stock up-disabled up-enabled"
HACKBENCH=/usr/bin/hackbench
# Rows whose memory is also measured in a 4 GiB guest.
MEMORY_ROWS="stock off never enabled pageext compressed up-stock up-never up-enabled up-compressed deb-stock deb-disabled deb-enabled deb-up-stock deb-up-disabled deb-up-enabled"

row_field() {
	local id=$1 n=$2
	awk -F'|' -v id="$id" -v n="$n" '$1 == id { print $n }' <<<"$ROWS_TABLE"
}

all_rows() { awk -F'|' 'NF > 1 { print $1 }' <<<"$ROWS_TABLE"; }

select_rows() {
	local want=${BENCH_ROWS:-} r
	if [[ -z $want ]]; then
		all_rows
		return
	fi
	for r in $want; do
		[[ -n $(row_field "$r" 1) ]] ||
			die "BENCH_ROWS: no row '$r' (rows: $(all_rows | tr '\n' ' '))"
	done
	{
		echo stock
		[[ " $want " == *" up-"* ]] && echo up-stock
		[[ " $want " == *" deb-"* ]] && echo deb-stock
		[[ " $want " == *" deb-up-"* ]] && echo deb-up-stock
		[[ " $want " == *" arm64-"* ]] && echo arm64-stock
		tr ' ' '\n' <<<"$want"
	} | awk 'NF && !seen[$0]++'
}

src_of() {
	case $1 in
	bench-stock | bench-peers | bench-deb-stock | bench-arm64-stock) echo "$STOCK_SRC" ;;
	bench-up | bench-up-on | bench-deb-up | bench-deb-up-on) echo "$UP_SRC" ;;
	*) echo "$TREE" ;;
	esac
}

prepare_stock_src() {
	git -C "$TREE" rev-parse -q --verify base >/dev/null ||
		die "no tag 'base' in $(show_path "$TREE"): run 'make tree'"
	if [[ ! -e $STOCK_SRC/.git ]]; then
		rm -rf "$STOCK_SRC"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$STOCK_SRC" base
	else
		git -C "$STOCK_SRC" checkout -q --detach -f base
	fi
}

# linux-source-6.12, unpacked once into a git tree of its own (the kernel
# build script wants one). Run as a black box: nothing in it is read.
unpack_upstream() {
	mkdir -p "$UP_SRC.tmp"
	tar -xf "$UP_TARBALL" -C "$UP_SRC.tmp" --strip-components=1
	git -C "$UP_SRC.tmp" init -q
	git -C "$UP_SRC.tmp" add -A -f
	git -C "$UP_SRC.tmp" -c user.name=allocprof -c user.email=dev@allocprof.invalid \
		commit -q -m "linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12)"
	mv "$UP_SRC.tmp" "$UP_SRC"
}

prepare_upstream_src() {
	[[ -e $UP_SRC/.git ]] && return
	if [[ ! -f $UP_TARBALL ]]; then
		say "installing linux-source-6.12 (the upstream baseline)"
		as_root apt-get install -y -q linux-source-6.12 >>"$LOGS/bench-deps.log" 2>&1 ||
			die "cannot install linux-source-6.12 (log: $(show_path "$LOGS/bench-deps.log"))"
	fi
	rm -rf "$UP_SRC.tmp"
	run_logged "unpacking $(basename "$UP_TARBALL")" "$LOGS/bench-unpack.log" unpack_upstream
}

build_module() {
	local out=$1 dir=$2 arch cross
	arch=$(out_arch "$out")
	cross=$(arch_cross "$arch")
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$TOP/bench/alloc_tag_bench.c" "$TOP/bench/readbench_sites.c" "$dir/"
	echo 'obj-m := alloc_tag_bench.o readbench_sites.o' >"$dir/Kbuild"
	make -C "$out" M="$dir" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="$(kernel_cc "$cross")" HOSTCC="$KCC" modules
}

# The guest programs of the bench, into $BENCH/bin: bench/readbench.c,
# static, against the series' user API headers (it needs
# <linux/alloc_tag.h>; on kernels without it, it reports an error),
# bench/workloads.c, static, the BPF peer (bench/bpf/: the BPF object,
# clang -target bpf, and its loader, static against Debian's libbpf.a,
# libelf.a and libz.a) and Debian's hackbench with the shared
# libraries it loads (at the paths ldd gives).
build_programs() {
	local lib
	rm -rf "$BENCH/bin"
	mkdir -p "$BENCH/bin/opt/bench"
	make -C "$TREE" O="$BENCH/headers" ARCH=x86_64 -s headers
	gcc -static -O2 -Wall -I"$BENCH/headers/usr/include" \
		-o "$BENCH/bin/opt/bench/readbench" "$TOP/bench/readbench.c"
	gcc -static -O2 -Wall -o "$BENCH/bin/opt/bench/workloads" "$TOP/bench/workloads.c"
	clang -target bpf -O2 -g -Wall -I"/usr/include/$(gcc -print-multiarch)" \
		-c -o "$BENCH/bin/opt/bench/allocbpf.bpf.o" "$TOP/bench/bpf/allocbpf.bpf.c"
	gcc -static -O2 -Wall -o "$BENCH/bin/opt/bench/allocbpf" "$TOP/bench/bpf/allocbpf.c" \
		-lbpf -lelf -lz
	cp "$HACKBENCH" "$BENCH/bin/opt/bench/hackbench"
	for lib in $(ldd "$HACKBENCH" | grep -o '/[^ ]*'); do
		mkdir -p "$BENCH/bin$(dirname "$lib")"
		cp -L "$lib" "$BENCH/bin$lib"
	done
}

ensure_hackbench() {
	[[ -x $HACKBENCH ]] && return
	say "installing rt-tests (hackbench, a workload of the bench)"
	as_root apt-get install -y -q rt-tests >>"$LOGS/bench-deps.log" 2>&1 ||
		die "cannot install rt-tests (log: $(show_path "$LOGS/bench-deps.log"))"
}

# The BPF peer rows: clang for the BPF object, libbpf.a (libbpf-dev) for
# the loader (scripts/deps.sh lists libbpf-dev; clang only make bench and
# arch-check need).
ensure_bpf_tools() {
	local missing=() p
	for p in clang libbpf-dev zlib1g-dev libelf-dev; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	((${#missing[@]} == 0)) && return 0
	say "installing ${missing[*]} (the BPF peer rows of the bench)"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >>"$LOGS/bench-deps.log" 2>&1 ||
		die "cannot install ${missing[*]} (log: $(show_path "$LOGS/bench-deps.log"))"
}

build_kernel() {
	local name=$1 src out verify=strict
	src=$(src_of "$name")
	out=$(out_dir "$name")
	[[ $name == bench-up* || $name == bench-deb-up* ]] && verify=warn
	say "bench: kernel $name from $(show_path "$src")"
	SRC=$src OUT=$out VERIFY=$verify "$TOP/scripts/kernel.sh" "$name"
	run_logged "initramfs for $name" "$LOGS/bench-initramfs-$name.log" \
		"$TOP/scripts/initramfs.sh" base "$name"
	run_logged "bench module for $name" "$LOGS/bench-module-$name.log" \
		build_module "$out" "$BENCH/module-$name"
	rm -rf "$BENCH/overlay-$name"
	if [[ $(out_arch "$out") == x86_64 ]]; then
		cp -a "$BENCH/bin" "$BENCH/overlay-$name"
	else
		# Other architectures run the allocator pairs only (the bench
		# module): no guest program.
		mkdir -p "$BENCH/overlay-$name/opt/bench"
	fi
	cp "$BENCH/module-$name/alloc_tag_bench.ko" \
		"$BENCH/module-$name/readbench_sites.ko" "$TOP/scripts/guest/bench.sh" \
		"$BENCH/overlay-$name/opt/bench/"
	size "$out/vmlinux" | awk 'NR == 2 { print $1, $2, $3 }' >"$BENCH/size-$name"
	vmlinux_tags "$out" >"$BENCH/tags-$name"
}

# Number of allocation tags in a vmlinux (0 without the section): the
# sized symbols between the section's bounds, so that it holds whatever
# the size of a tag is (56 bytes here, 40 in upstream 6.12).
vmlinux_tags() {
	nm -S -n "$1/vmlinux" | awk '
		$NF == "__start_alloc_tags" { in_section = 1; next }
		$NF == "__stop_alloc_tags" { in_section = 0 }
		in_section && NF == 4 { n++ }
		END { print n + 0 }'
}

# Free page->flags bits of the 6.1 kernels of the bench, of the test
# config 'profiling' and of x86_64_defconfig (from make build-check), where
# they are built.
page_flags_bits() {
	local name out
	for name in bench-stock bench-deb-stock profiling debug x86_64_defconfig; do
		case $name in
		x86_64_defconfig) out=$BUILD/build-check/out-on ;;
		*) out=$(out_dir "$name") ;;
		esac
		[[ -f $out/vmlinux ]] || continue
		echo "$name $("$TOP/scripts/page-flags-bits.sh" "$out") tags=$(vmlinux_tags "$out")"
	done >"$BENCH/page-flags-bits.txt"
}

# boot_row ROW MODE MEM: one boot, its BENCH- lines in $BENCH/rows/.
boot_row() {
	local row=$1 mode=$2 mem=$3 kernel setup append script run
	kernel=$(row_field "$row" 2)
	append=$(row_field "$row" 3)
	setup=$(row_field "$row" 4)
	run=bench-$row-$mode-$mem
	script=$BENCH/run-$row-$mode.sh
	{
		echo "BENCH_ROW=$row BENCH_MODE=$mode BENCH_SETUP=${setup:-none}"
		echo "BENCH_MODPARAMS='${BENCH_MODPARAMS:-}'"
		echo "export BENCH_ROW BENCH_MODE BENCH_SETUP BENCH_MODPARAMS"
		echo ". /opt/bench/bench.sh"
	} >"$script"
	[[ $mode == read ]] && append+=" possible_cpus=$read_cpus"
	ICOUNT=1 MEM=$mem APPEND="$append" BOOT_APPEND="" TIMEOUT=${BENCH_TIMEOUT:-900} \
		OVERLAY=$BENCH/overlay-$kernel INTERACTIVE=0 \
		"$TOP/scripts/boot.sh" "$kernel" "$run" "$script"
	tr -d '\r' <"$LOGS/$kernel-$run.log" | grep -E '^BENCH-' >"$BENCH/rows/$row-$mode-$mem.txt" || true
	if grep -q '^BENCH-ERROR' "$BENCH/rows/$row-$mode-$mem.txt"; then
		grep '^BENCH-ERROR' "$BENCH/rows/$row-$mode-$mem.txt" >&2
		die "row $row: the guest reported errors (log: $(show_path "$LOGS/$kernel-$run.log"))"
	fi
	if [[ $mode == read ]] && ! grep -q '^BENCH-READ text' "$BENCH/rows/$row-$mode-$mem.txt"; then
		die "row $row: no read results (log: $(show_path "$LOGS/$kernel-$run.log"))"
	fi
	if [[ $mode == bench ]] && ! grep -q '^BENCH-RESULT' "$BENCH/rows/$row-$mode-$mem.txt"; then
		die "row $row: no results (log: $(show_path "$LOGS/$kernel-$run.log"))"
	fi
	if [[ $mode == work ]] && ! grep -q '^BENCH-WORK-DONE' "$BENCH/rows/$row-$mode-$mem.txt"; then
		die "row $row: the workloads did not finish (log: $(show_path "$LOGS/$kernel-$run.log"))"
	fi
}

main() {
	local start=$SECONDS rows kernels k r read_cpus=1
	mapfile -t rows < <(select_rows)
	mapfile -t kernels < <(for r in "${rows[@]}"; do row_field "$r" 2; done | awk '!seen[$0]++')
	mkdir -p "$BENCH/rows"
	rm -f "$BENCH"/rows/*.txt
	say "bench: rows ${rows[*]}"
	say "bench: kernels ${kernels[*]}"

	[[ -d $TREE/.git ]] || die "no kernel tree at $(show_path "$TREE"): run 'make tree'"
	for k in "${kernels[@]}"; do
		case $k in
		bench-stock | bench-peers | bench-deb-stock) prepare_stock_src ;;
		bench-up* | bench-deb-up*) prepare_upstream_src ;;
		esac
	done
	ensure_hackbench
	ensure_bpf_tools
	run_logged "guest programs (readbench, workloads, allocbpf, hackbench)" "$LOGS/bench-programs.log" build_programs
	for k in "${kernels[@]}"; do
		build_kernel "$k"
	done
	for r in "${rows[@]}"; do
		say "bench: row $r ($(row_field "$r" 5))"
		boot_row "$r" bench 1G
		if [[ " $MEMORY_ROWS " == *" $r "* ]]; then
			boot_row "$r" memory 4G
		fi
		if [[ " $READ_ROWS " == *" $r "* ]]; then
			read_cpus=$READ_CPUS boot_row "$r" read 1G
		fi
		if [[ " $WORK_ROWS " == *" $r "* ]]; then
			boot_row "$r" work 1G
		fi
	done
	# Determinism: the stock row once more; the report compares the two.
	say "bench: stock again (the figures must not change)"
	mv "$BENCH/rows/stock-bench-1G.txt" "$BENCH/rows/stock-first-1G.txt"
	boot_row stock bench 1G

	page_flags_bits
	printf '%s\n' "${rows[@]}" >"$BENCH/rows.list"
	python3 "$TOP/scripts/bench-report.py" "$BENCH" <<<"$ROWS_TABLE" >"$BENCH/results.md"
	cat "$BENCH/results.md"
	say "bench: done in $(fmt_secs $((SECONDS - start))); tables in $(show_path "$BENCH/results.md")"
}

main
