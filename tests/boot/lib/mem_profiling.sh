# Shared checks for the vm.mem_profiling boot parameter tests (busybox sh).
# Sourced by tests/boot/mem-profiling-*.sh after /etc/allocprof/ktap.sh.

SYSCTL=/proc/sys/vm/mem_profiling
ALLOCINFO=/proc/allocinfo

sysctl_is() {
	v=$(cat $SYSCTL)
	echo "vm.mem_profiling reads '$v', expected '$1'"
	[ "$v" = "$1" ]
}

# The write fails with EPERM ("Operation not permitted"), as with never.
sysctl_write_eperm() {
	err=$( (echo "$1" >$SYSCTL) 2>&1 ) && { echo "writing '$1' succeeded"; return 1; }
	echo "writing '$1': $err"
	case $err in
	*"not permitted"*) return 0 ;;
	esac
	return 1
}

sysctl_write_ok() {
	echo "$1" > $SYSCTL
}

# Bytes of page_ext the kernel reported at boot (0 if none allocated).
page_ext_bytes() {
	b=$(dmesg | sed -n 's/.*allocated \([0-9]*\) bytes of page_ext.*/\1/p' | head -1)
	echo "${b:-0}"
}

# The profiling core's boot line ("alloc_tag: N allocation call sites,
# profiling on|off|never"), which page_ext's is printed before: if it is in
# the log, so would a page_ext line be.  The page_ext line's own wording is
# checked where one must be there (page_ext_4_bytes_a_page, in the page_ext
# boot tests), so its absence here means something.
alloc_tag_boot_line() {
	dmesg | grep -E 'alloc_tag: [0-9]+ allocation call sites, profiling (on|off|never)$'
}

page_ext_none() {
	alloc_tag_boot_line || { echo "no alloc_tag boot line in the log"; return 1; }
	b=$(page_ext_bytes)
	echo "page_ext: $b bytes"
	[ "$b" -eq 0 ]
}

# Where the kernel said it keeps page references: flags (page->flags),
# page_ext, or none (never: the core's boot line says so, and no other).
page_refs_where() {
	if dmesg | grep -q 'alloc_tag: page references in page->flags'; then
		echo flags
	elif dmesg | grep -q 'alloc_tag: page references in page_ext'; then
		echo page_ext
	elif alloc_tag_boot_line | grep -q 'profiling never$'; then
		echo none
	else
		echo unknown
	fi
}

# ... and vm.mem_profiling_compressed says so: 1 for page->flags only.
page_refs_in() {
	w=$(page_refs_where)
	c=$(cat /proc/sys/vm/mem_profiling_compressed)
	want=0
	[ "$1" = flags ] && want=1
	echo "page references: in $w, expected in $1; vm.mem_profiling_compressed: '$c', expected $want"
	dmesg | grep 'alloc_tag: .*page references' || true
	[ "$w" = "$1" ] && [ "$c" = "$want" ]
}

# page_ext holds profiling's 4-byte reference alone (no page_owner, hence
# no shared flags word): page_ext's boot line gives 4 bytes for each page
# of every memory section, so at least 4 x the present pages and less than
# 4 x (present pages + a section per node); profiling's line says 4 bytes.
page_ext_4_bytes_a_page() {
	b=$(page_ext_bytes)
	present=$(awk '$1 == "present" { s += $2 } END { print s + 0 }' /proc/zoneinfo)
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
	[ "$nodes" -gt 0 ] || nodes=1
	sect=32768	# x86_64: sections of 128 MiB, 4 KiB pages
	echo "page_ext: $b bytes, $present present pages, $nodes nodes"
	dmesg | grep 'alloc_tag: page references in page_ext, 4 bytes a page' ||
		{ echo "no 'page references in page_ext, 4 bytes a page' line"; return 1; }
	[ "$present" -gt 0 ] && [ $((b % (4 * sect))) -eq 0 ] &&
		[ $((b / 4)) -ge "$present" ] && [ $((b / 4)) -lt $((present + sect * nodes)) ]
}

# Where page references go by default in this build: page->flags when its
# free bits (the build's, measured on the host by
# scripts/page-flags-bits.sh, not what the kernel says about itself) hold
# an index for every vmlinux tag (2^bits - 1 indices, one less with
# profiling debug, which keeps the largest for untagged pages; at most 32
# bits), else page_ext.
default_refs() {
	b=${ALLOCPROF_PAGE_FLAGS_FREE:-}
	tags=$(dmesg | sed -n 's/.*alloc_tag: \([0-9]*\) allocation call sites.*/\1/p' | head -1)
	if [ -z "$b" ] || [ -z "$tags" ]; then
		echo unknown
		return
	fi
	[ "$b" -gt 32 ] && b=32
	[ "$b" -gt 31 ] && { echo flags; return; }
	max=$(((1 << b) - 1))
	[ -d /sys/kernel/debug/allocinfo ] && max=$((max - 1))
	if [ "$tags" -le "$max" ]; then
		echo flags
	else
		echo page_ext
	fi
}

# The default place: page_refs_in it, and page_ext memory only for page_ext.
refs_in_default_place() {
	d=$(default_refs)
	echo "page->flags of this build: ${ALLOCPROF_PAGE_FLAGS_FREE:-?} free bits: by default in $d"
	page_refs_in "$d" || return 1
	case $d in
	flags) page_ext_none ;;
	page_ext) page_ext_4_bytes_a_page ;;
	*) return 1 ;;
	esac
}

# The kernel fell back to page_ext although compressed was asked for.
no_room_warnings() {
	n=$(dmesg | grep -c 'compressed page references need')
	echo "'compressed page references need' warnings: $n, expected $1"
	[ "$n" -eq "$1" ]
}

# Sum of the bytes column of /proc/allocinfo.
allocinfo_total() {
	awk 'NR > 2 { s += $1 } END { printf "%d\n", s }' $ALLOCINFO
}

# Every line at 0 bytes in 0 calls (a sum of the column could cancel).
allocinfo_zero() {
	n=$(awk 'NR > 2 && ($1 != 0 || $2 != 0)' $ALLOCINFO | wc -l)
	echo "$n lines of $ALLOCINFO not at 0 0"
	awk 'NR > 2 && ($1 != 0 || $2 != 0)' $ALLOCINFO | head -5
	[ "$n" -eq 0 ]
}

allocinfo_nonzero() {
	t=$(allocinfo_total)
	echo "allocinfo total: $t bytes"
	[ "$t" -gt 0 ]
}

# "malformed" warned about exactly $1 times.
malformed_warnings() {
	n=$(dmesg | grep -c 'malformed sysctl.vm.mem_profiling')
	echo "$n malformed-parameter warnings, expected $1"
	[ "$n" -eq "$1" ]
}

# The kernel's generic sysctl.* and parameter handling must not complain
# about our value (proc_sys's "Setting sysctl args: ... invalid for
# parameter", its "Unknown sysctl", or the early parameter parser's).
no_sysctl_arg_errors() {
	if dmesg | grep -iE "sysctl (parameter|args).*mem_profiling|Unknown sysctl.*mem_profiling|Unknown (kernel )?(command line )?parameter.*mem_profiling|invalid for parameter .sysctl.vm.mem_profiling"; then
		return 1
	fi
	return 0
}

# Work that allocates pages: fork, exec, file data.
make_allocations() {
	for i in 1 2 3 4 5; do
		dd if=/dev/zero of=/tmp/alloc.$i bs=4096 count=16 2>/dev/null
		/bin/busybox true
	done
	rm -f /tmp/alloc.*
}

# Memory cgroup for accounted (__GFP_ACCOUNT) slab work; its slabs get
# memcg's object vectors.
CG=/sys/fs/cgroup/allocprof-test

memcg_enter() {
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p $CG || return 1
	echo $$ >$CG/cgroup.procs
}

memcg_leave() {
	echo $$ >/sys/fs/cgroup/cgroup.procs
}

memcg_slab() {
	awk '$1 == "slab" { print $2 }' $CG/memory.stat
}

# $2 empty files in the directory $1 (an inode and a dentry each, both
# from SLAB_ACCOUNT caches, charged to the cgroup the shell is in).
memcg_files() {
	mkdir -p "$1"
	i=0
	while [ $i -lt "$2" ]; do
		: >"$1/f$i"
		i=$((i + 1))
	done
}

# What memcg charges for one object of slab cache $1: its slab_size plus
# the obj_cgroup pointer (obj_full_size()).
memcg_obj_size() {
	echo $(($(cat /sys/kernel/slab/$1/slab_size) + 8))
}

# memory.stat folds memcg's per-CPU statistics in at least every 2 s.
# The shell waits outside the cgroup: what its sleep command allocates (a
# task, freed after an RCU grace period) is charged to the root.
memcg_slab_settled() {
	memcg_leave
	sleep 3
	memcg_slab
	echo $$ >$CG/cgroup.procs
}

# Slab objects charged to the memory cgroup while profiling is off keep
# vectors made before the switch; after switching on, new files must be
# charged to the cgroup exactly as while off, and freeing everything must
# be clean (the log scan catches out-of-bounds vector accesses in the
# debug kernel). Each of the 2000 files is a tmpfs inode and a dentry:
# what memcg charges for them is known. The first call (profiling off)
# keeps its number in /tmp/memcg.off for the second (profiling on), which
# must see the same to within what memcg's statistics may lag (see the
# slack below).
memcg_after_switch_on() {
	# On one CPU: memcg's per-CPU stock holds back slab bytes of each CPU.
	taskset -p 1 $$ >/dev/null
	memcg_enter || { echo "no memory cgroup"; return 1; }
	before=$(memcg_slab_settled)
	memcg_files /tmp/memcg.d 2000
	mid=$(memcg_slab_settled)
	rm -rf /tmp/memcg.d
	memcg_leave
	taskset -p "$(( (1 << $(grep -c ^processor /proc/cpuinfo)) - 1 ))" $$ >/dev/null
	delta=$((mid - before))
	want=$((2000 * ($(memcg_obj_size shmem_inode_cache) + $(memcg_obj_size dentry))))
	# memcg's per-CPU stocks (a page or an object a CPU, at both readings)
	# and the inode and dentry frees of the earlier phases, which RCU
	# completes on any CPU: 1% of the 2000 files. The byte-exact
	# comparison is allocinfo_test's account_memcg_stat_moves.
	slack=$((2 * 4096 * $(grep -c ^processor /proc/cpuinfo) + 32768))
	echo "memcg slab: $before bytes before, $mid with 2000 files: $delta, expected $want (+-$slack)"
	[ $((delta - want)) -le $slack ] && [ $((want - delta)) -le $slack ] || return 1
	if [ -f /tmp/memcg.off ]; then
		off=$(cat /tmp/memcg.off)
		echo "with profiling off: $off"
		[ $((delta - off)) -le $slack ] && [ $((off - delta)) -le $slack ]
	else
		echo $delta >/tmp/memcg.off
	fi
}

# bad_input_boot CASE: run the bad_input kselftest's boot parameter case
# (tools/testing/selftests/alloc_tag/bad_input.c), which reads the values
# from /proc/cmdline and checks the state, the kernel log and page_ext
# against the documented rule; CASE is the result name it must derive
# (boot_param_CASE), so that a lost APPEND shows. Prints KTAP.
bad_input_boot() {
	bin=/kselftest/alloc_tag/bad_input
	if [ ! -x $bin ]; then
		ktap_plan 1
		ktap_fail "boot_param_$1"
		ktap_diag "$bin is not in the initramfs"
		return 0
	fi
	# configs/profiling.config: CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT=y
	$bin --boot --default 1 --case "$1"
	# 1 (a case failed) is in the KTAP output already; 4 (skipped) must
	# not happen in a kernel with profiling.
	case $? in
	0 | 1) return 0 ;;
	*) return 1 ;;
	esac
}

# The page_ext window (64-bit): an area of page_ext's init in
# /proc/vmallocinfo with room for 4 bytes (at least) for each of the 2^34
# pfns x86-64 can address with 4-level paging.
page_ext_window_reserved() {
	awk '$3 ~ /^page_ext/ && $2 >= 68719476736 { found = 1 }
	     END { exit !found }' /proc/vmallocinfo
}

# For a boot test that runs a kselftest with page references in page_ext:
# the kernel must say it used page_ext (else the test would run the default
# mode a second time). If not, prints a failing KTAP result and returns 1.
require_page_ext_refs() {
	dmesg | grep -q "alloc_tag: page references in page_ext" && return 0
	ktap_plan 1
	ktap_fail "page references in page_ext (not in the kernel log)"
	dmesg | grep "alloc_tag: page references" | sed 's/^/# /'
	return 1
}

# ---- memcg's own vectors, and tag references added to them -----------------
# Booted with profiling off, slabs of accounted objects get memcg's vectors
# alone (no byte per object for profiling); once it is switched on, such a
# slab gets its tag references when an object is next allocated from it.
# The test module's account set (256 kmalloc(4096, GFP_KERNEL_ACCOUNT)) is
# allocated while off; after switching on, every second object is freed
# and the holes are refilled from a line of its own, which lands them in
# the old slabs. Objects from before the switch are never uncharged (their
# line stays at 0 0, never below), the refill is charged exactly, and
# memcg's figures move by what each step frees or allocates.
TAT=/sys/kernel/debug/test_alloc_tag

# The kinds of vector of the account set's slabs, one word each:
# "slabs N shared S objcgs_only O refs_first R".
account_vectors() {
	cat $TAT/account_vectors
}

# "bytes calls" of the /proc/allocinfo line of file:line $1.
allocinfo_of() {
	awk -v s="$1" '$3 == s { print $1, $2 }' $ALLOCINFO
}

account_site_is() {
	v=$(allocinfo_of "$1")
	echo "$1: '$v', expected '$2'"
	[ "$v" = "$2" ]
}

# While off: the set is allocated in the memory cgroup, uncharged.
account_alloc_while_off() {
	modprobe test_alloc_tag || return 1
	memcg_enter || { echo "no memory cgroup"; return 1; }
	echo "alloc account" >$TAT/control || { memcg_leave; return 1; }
	memcg_leave
	awk '{ print $2 }' $TAT/expect >/tmp/account.site
	[ "$(wc -l </tmp/account.site)" -eq 1 ] || { cat $TAT/expect; return 1; }
	# Every slab of the set has memcg's vector alone.
	set -- $(account_vectors)
	echo "account set while off: $*"
	[ "$2" -gt 0 ] && [ "$6" -eq "$2" ] || return 1
	account_site_is "$(cat /tmp/account.site)" "0 0"
}

# memcg's slab figure changed by $2 - $1, expected $3 (+- the slack of
# memcg_after_switch_on()).
memcg_moved() {
	d=$(($2 - $1))
	slack=$((2 * 4096 * $(grep -c ^processor /proc/cpuinfo) + 32768))
	echo "memcg slab: $1 -> $2: $d, expected $3 (+-$slack)"
	[ $((d - $3)) -le $slack ] && [ $(($3 - d)) -le $slack ]
}

# After switching on: holes, refill, free.
account_holes_refilled() {
	old=$(cat /tmp/account.site)
	obj=$(memcg_obj_size kmalloc-cg-4k)
	taskset -p 1 $$ >/dev/null
	memcg_enter || return 1
	s0=$(memcg_slab_settled)
	echo "free account odd" >$TAT/control || return 1
	# KASAN (debug) keeps freed objects in its quarantine, and the refill
	# would go to new slabs: shrinking the cache gives them back.
	echo 1 >/sys/kernel/slab/kmalloc-cg-4k/shrink || return 1
	s1=$(memcg_slab_settled)
	account_site_is "$old" "0 0" || return 1
	memcg_moved "$s0" "$s1" $((-128 * obj)) || return 1
	echo "refill account" >$TAT/control || return 1
	s2=$(memcg_slab_settled)
	# The refill's site: the expect line that is not the first one.
	set -- $(awk -v o="$old" '$2 != o { print $2, $3, $4 }' $TAT/expect)
	new=$1
	account_site_is "$new" "$2 $3" || return 1
	[ "$2 $3" = "$((128 * 4096)) 128" ] || { echo "the module expects '$2 $3'"; return 1; }
	account_site_is "$old" "0 0" || return 1
	memcg_moved "$s1" "$s2" $((128 * obj)) || return 1
	# The refill went into the holes of the old slabs (4 a slab in the
	# profiling kernel, 2 in the debug one): at least 3 in 4 of them got
	# references (all but one or two, seen); a few objects may have gone
	# to a new slab.
	set -- $(account_vectors)
	echo "account set refilled: $*"
	[ $((4 * $8)) -ge $((3 * ($6 + $8))) ] && [ "$8" -gt 0 ] &&
		[ $(($4 + $6 + $8)) -eq "$2" ] || return 1
	echo "free account" >$TAT/control || return 1
	s3=$(memcg_slab_settled)
	memcg_leave
	taskset -p "$(( (1 << $(grep -c ^processor /proc/cpuinfo)) - 1 ))" $$ >/dev/null
	account_site_is "$old" "0 0" || return 1
	account_site_is "$new" "0 0" || return 1
	memcg_moved "$s2" "$s3" $((-256 * obj))
}
